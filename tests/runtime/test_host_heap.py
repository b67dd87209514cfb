"""Freed host memory kept for the next launch (jwarp/runtime/host_heap.py): a launch over large arrays
does not page-fault on fresh memory at every run; ``host_heap_retain_bytes = None`` leaves glibc's
default. Each case runs in a fresh process (the setting is process-wide and applied once)."""

import platform
import subprocess
import sys

import pytest

import jwarp as wp

_CHILD = r"""
import resource, sys
import numpy as np
import jwarp as wp
wp.config.host_heap_retain_bytes = None if sys.argv[1] == "none" else int(sys.argv[1])

@wp.kernel
def spread(x: wp.array(dtype=float), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v = x[i]
    out[i] = wp.vec3(wp.sin(v), wp.cos(v), v * v)

n = 1 << 21  # 24 MB of vec3 output, 8 MB of input
x = wp.array(np.linspace(0, 1, n, dtype=np.float32))
out = wp.zeros(n, dtype=wp.vec3)
for _ in range(3):
    wp.launch(spread, dim=n, inputs=[x], outputs=[out])
    wp.synchronize()
    out = wp.zeros(n, dtype=wp.vec3)  # a fresh output each time (no buffer to donate)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(3):
    wp.launch(spread, dim=n, inputs=[x], outputs=[out])
    wp.synchronize()
    out = wp.zeros(n, dtype=wp.vec3)  # a fresh output each time (no buffer to donate)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 3)
"""


def _faults_per_launch(tmp_path, setting: str) -> int:
    script = tmp_path / "child.py"  # kernels need a source file
    script.write_text(_CHILD)
    done = subprocess.run([sys.executable, str(script), setting], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_retained_heap_removes_page_faults_of_repeated_large_launches(tmp_path):
    default = _faults_per_launch(tmp_path, "none")
    kept = _faults_per_launch(tmp_path, str(256 << 20))
    assert default > 1000, f"the glibc default should fault on fresh pages ({default} faults per launch)"
    assert kept < default / 4, (kept, default)


def test_setting_is_a_documented_config_value():
    assert wp.config.host_heap_retain_bytes == 256 << 20
