"""Each differential program is loaded as a fresh module per test: unload it afterwards and drop what
its kernels compiled (see ``tests/conftest.py``), so the session does not keep 150 programs'
executables. JAX's own caches are released only once the process grows large (releasing them after
every program would make the next one retrace jwarp's shared helpers)."""

from __future__ import annotations

import sys

import pytest

from jwarp.runtime import modules
from jwarp.runtime.kernel import forget_compiled
from tests.conftest import release_if_large


def unload_programs() -> None:
    """Forget the programs loaded by :func:`tests.differential.harness.load_program`: their Python
    modules, and their jwarp modules with every executable their kernels compiled."""
    for name in [n for n in sys.modules if n.startswith("jwarp_prog_")]:
        del sys.modules[name]
    kernels = []
    for name in [n for n in modules._MODULES if n.startswith("jwarp_prog_")]:
        module = modules._MODULES.pop(name)
        kernels += [*module.kernels.values(), *module._get_live_kernels()]
    forget_compiled(kernels)


@pytest.fixture(autouse=True)
def _unload_programs():
    yield
    unload_programs()
    release_if_large()
