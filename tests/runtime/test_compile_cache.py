"""The on-disk kernel cache (JAX's persistent compilation cache) is switched on at the first kernel
compile, in the configured directory, and left alone when the program opts out."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    import jax
    import jwarp as wp
    if sys.argv[1] == "off":
        wp.config.cache_kernels = False

    @wp.kernel
    def k(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] + 1.0

    a = wp.zeros(4)
    wp.launch(k, 4, [a])
    print(a.numpy()[0], jax.config.jax_compilation_cache_dir)
    """
)


def _run(tmp_path, mode):
    script = tmp_path / "cache_probe.py"
    script.write_text(SCRIPT)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "JWARP_CACHE_PATH": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}  # the probe runs from tmp_path
    out = subprocess.run([sys.executable, str(script), mode], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_first_compile_enables_the_cache(tmp_path):
    value, cache_dir = _run(tmp_path, "on")
    assert value == "1.0" and cache_dir == str(tmp_path / "cache")
    assert any((tmp_path / "cache").iterdir())


def test_cache_kernels_false_leaves_jax_alone(tmp_path):
    value, *rest = _run(tmp_path, "off")
    assert value == "1.0" and rest in ([], ["None"])
    assert not (tmp_path / "cache").exists()
