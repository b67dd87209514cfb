"""``wp.config``: validation on assignment, and the launch options a Warp user sets (mode,
verify_fp, print_launches, verbose, cache_kernels, enable_cpu_blocks…)."""

from __future__ import annotations

import numpy as np
import pytest

import jwarp as wp


@wp.kernel
def divide(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] / b[i]


@pytest.fixture
def restore_config():
    names = ("mode", "verify_fp", "print_launches", "verbose", "launch_array_access_mode")
    saved = {n: getattr(wp.config, n) for n in names}
    yield
    for n, v in saved.items():
        setattr(wp.config, n, v)


def test_validated_settings(restore_config):
    with pytest.raises(ValueError, match="launch_array_access_mode must be a warp.config.LaunchArrayAccessMode"):
        wp.config.launch_array_access_mode = 2
    with pytest.raises(ValueError, match="deterministic must be a warp.DeterministicMode"):
        wp.config.deterministic = "yes"
    with pytest.raises(ValueError, match="mode must be one of"):
        wp.config.mode = "fast"
    for mode in wp.config.LaunchArrayAccessMode:
        wp.config.launch_array_access_mode = mode
    assert [m.name for m in wp.config.LaunchArrayAccessMode] == ["RELAXED", "CHECKED", "STRICT"]


COMMON_SETTINGS = ["mode", "verify_fp", "verify_cuda", "print_launches", "verbose_warnings",
                   "cache_kernels", "kernel_cache_dir", "enable_backward", "enable_cpu_blocks", "default_grid_stride",
                   "max_unroll", "optimization_level", "lineinfo", "line_directives", "version", "deterministic",
                   "launch_array_access_mode", "verify_autograd_array_access", "track_memory", "log_level",
                   "enable_vector_component_overwrites", "legacy_scalar_return_types", "enable_mempools_at_init"]


@pytest.mark.parametrize("name", COMMON_SETTINGS)
def test_warp_settings_exist(name):
    assert hasattr(wp.config, name)
    try:
        import warp.config as warp_config
    except ImportError:
        return
    assert hasattr(warp_config, name)  # the list only holds real Warp settings
    ours, theirs = getattr(wp.config, name), getattr(warp_config, name)
    # optional paths (kernel_cache_dir) are None until set; Warp fills its own in at init
    assert theirs is None or ours is None or type(ours).__name__ == type(theirs).__name__


def test_jwarp_only_settings():
    assert wp.config.verbose is False and wp.config.quiet is False  # Warp < 1.19 settings, still accepted


def test_verify_fp_reports_kernel_and_array(restore_config, capsys):
    a = wp.array(np.array([1.0, 0.0, 2.0], dtype=np.float32))
    b = wp.array(np.array([1.0, 0.0, 4.0], dtype=np.float32))
    out = wp.full(3, 7.0)
    wp.launch(divide, 3, inputs=[a, b, out])  # NaN is written, nothing printed without verify_fp
    assert np.isnan(out.numpy()[1]) and capsys.readouterr().out == ""
    wp.config.verify_fp = True
    wp.launch(divide, 3, inputs=[a, b, out])  # as in Warp: reported, and the results are kept
    printed = capsys.readouterr().out
    assert "kernel 'divide'" in printed and "array 'out'" in printed and "1 nan" in printed
    np.testing.assert_array_equal(np.isnan(out.numpy()), [False, True, False])
    wp.launch(divide, 3, inputs=[a, wp.ones(3), out])
    np.testing.assert_array_equal(out.numpy(), [1, 0, 2])
    assert capsys.readouterr().out == ""
    cmd = wp.launch(divide, 3, inputs=[a, b, out], record_cmd=True)  # recorded with verify_fp: checked
    cmd.launch()
    assert "1 nan" in capsys.readouterr().out


def test_print_launches(restore_config, capsys):
    a, out = wp.ones(2), wp.zeros(2)
    wp.config.print_launches = True
    wp.launch(divide, (2,), inputs=[a, a], outputs=[out])
    wp.launch(divide, 0, inputs=[a, a, out])
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("kernel: divide dim: (2,) inputs: [") and printed[0].endswith("device: cpu")
    assert "outputs: [" in printed[0] and printed[1].startswith("kernel: divide dim: 0 ")


def test_verbose_reports_compilations(restore_config, capsys):
    @wp.kernel
    def fresh(a: wp.array(dtype=float)):
        a[wp.tid()] = 2.0

    wp.config.verbose = True
    a = wp.zeros(3)
    wp.launch(fresh, 3, inputs=[a])
    wp.launch(fresh, 3, inputs=[a])
    lines = [line for line in capsys.readouterr().out.splitlines() if "fresh" in line]
    assert len(lines) == 1 and "device 'cpu'" in lines[0] and " ms" in lines[0]


def test_debug_mode_bounds_errors(restore_config):
    @wp.kernel
    def past_end(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i + 1] = 1.0

    a = wp.zeros(3)
    wp.launch(past_end, 3, inputs=[a])  # release: the out-of-bounds write is dropped
    np.testing.assert_array_equal(a.numpy(), [0, 1, 1])
    wp.config.mode = "debug"
    b = wp.zeros(3)
    with pytest.raises(IndexError, match="Out-of-bounds array access in kernel '.*past_end'"):
        wp.launch(past_end, 3, inputs=[b])
    np.testing.assert_array_equal(b.numpy(), [0, 0, 0])
