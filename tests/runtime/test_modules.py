"""wp.Module, kernel/module options and instancing (Warp 1.19 semantics): options resolved at
compile time, module="unique" identity, @wp.func scoping, mark_modified, and the Python-side API."""

import gc
import io
import contextlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import jwarp as wp


def _real_warp():
    try:
        import warp
    except ImportError:
        return None
    return warp


@wp.kernel
def plain(a: wp.array(dtype=float)):
    a[0] = 1.0


@wp.kernel(enable_backward=False, launch_bounds=64)
def overridden(a: wp.array(dtype=float)):
    a[0] = 1.0


@wp.kernel
def read_past_end(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[0] = a[5]


def test_kernel_options_hold_only_overrides():
    assert plain.options == {}
    assert overridden.options == {"enable_backward": False, "launch_bounds": 64}
    assert plain.key == "plain" and isinstance(plain.module, wp.Module)
    assert plain.module is wp.get_module(__name__)


def test_module_options_match_warp():
    warp = _real_warp()
    if warp is None:
        pytest.skip("warp not installed")

    @warp.kernel(module="unique")
    def theirs(a: warp.array(dtype=float)):
        a[0] = 1.0

    assert set(plain.module.options) == set(theirs.module.options)
    for key, value in theirs.module.options.items():
        if key not in ("deterministic",):
            assert plain.module.options[key] == value, key


def test_config_has_warps_settings():
    warp = _real_warp()
    if warp is None:
        pytest.skip("warp not installed")
    theirs = {n for n in dir(warp.config) if not n.startswith("_")}
    ours = {n for n in dir(wp.config) if not n.startswith("_")}
    assert theirs <= ours, theirs - ours
    assert (wp.LOG_DEBUG, wp.LOG_INFO, wp.LOG_WARNING, wp.LOG_ERROR) == (10, 20, 30, 40)


def test_module_option_set_after_definition_applies_at_next_compile():
    a, out = wp.zeros(2), wp.zeros(1)
    wp.launch(read_past_end, 1, [a, out])  # release: no check
    wp.set_module_options({"mode": "debug"})
    try:
        with pytest.raises(IndexError, match="read_past_end"):
            wp.launch(read_past_end, 1, [a, out])
    finally:
        wp.set_module_options({"mode": None})
    wp.launch(read_past_end, 1, [a, out])


def test_enable_backward_resolves_kernel_then_module():
    module = wp.get_module(__name__)
    assert plain.enable_backward and not overridden.enable_backward
    module.options["enable_backward"] = False
    try:
        assert not plain.enable_backward
    finally:
        module.options["enable_backward"] = True


def test_module_hash_is_cached_until_modified():
    module = wp.get_module(__name__)
    # the hash covers live kernels only: free the kernels earlier tests defined in their bodies first,
    # or a collection during this test changes the recomputed hash
    gc.collect()
    module.mark_modified()
    before = module.get_module_hash()
    module.options["fast_math"] = True
    try:
        assert module.get_module_hash() == before  # cached, as in Warp
        module.mark_modified()
        assert module.get_module_hash() != before
    finally:
        module.options["fast_math"] = False
        module.mark_modified()
    assert module.get_module_hash() == before


def test_module_constructor_and_registry():
    m = wp.Module("jwarp_test_free_module", None)
    assert m.name == "jwarp_test_free_module" and m.loader is None
    assert wp.get_module("jwarp_test_free_module") is not m
    assert wp.get_module("jwarp_test_free_module") is wp.get_module("jwarp_test_free_module")
    assert wp.get_module_options(m) is m.options


def _unique(value, **options):
    @wp.kernel(module="unique", **options)
    def scaled(a: wp.array(dtype=float)):
        a[0] = float(value)

    return scaled


def test_unique_kernels_are_shared_by_content():
    first, again, other = _unique(1), _unique(1), _unique(2)
    assert first is again and first.module is again.module
    assert first is not other and first.module.name != other.module.name
    assert first.module.name.startswith("_unique__locals__scaled_")
    assert _unique(1, grid_stride=False) is not first
    assert _unique(1, enable_cuda_smem_spilling=False) is first  # the default: not an override


def test_unique_module_options_validation():
    def body(a: wp.array(dtype=float)):
        a[0] = 1.0

    with pytest.raises(TypeError, match="must be a dict, got str"):
        wp.kernel(body, module="unique", module_options="fast_math")
    with pytest.raises(ValueError, match='requires module="unique"'):
        wp.kernel(body, module_options={})
    with pytest.raises(ValueError, match='requires module="unique"'):
        wp.kernel(body, module="some_shared_module", module_options={"fast_math": True})
    with pytest.raises(ValueError, match="'fast_mth'.*Valid options are"):
        wp.kernel(body, module="unique", module_options={"fast_mth": True})
    for bad in (True, 1.5, "2"):
        with pytest.raises(TypeError):
            wp.kernel(body, module="unique", module_options={"deterministic_max_records": bad})
    with pytest.raises(ValueError, match="non-negative"):
        wp.kernel(body, module="unique", module_options={"deterministic_max_records": -1})
    k = wp.kernel(body, module="unique", module_options={"fast_math": True, "mode": "release"})
    assert k.module.options["fast_math"] is True and k.options == {}


def test_kernel_decorator_validation():
    def body(a: wp.array(dtype=float)):
        a[0] = 1.0

    with pytest.raises(ValueError, match="cannot be specified together"):
        wp.kernel(body, launch_bounds=64, cuda_max_registers=32)
    with pytest.raises(ValueError, match="valid C\\+\\+ identifier"):
        wp.kernel(body, name="not valid")
    with pytest.raises(TypeError, match="cuda_max_registers"):
        wp.kernel(body, cuda_max_registers=True)


def test_mark_modified_rebuilds_with_new_closure_value():
    out = wp.zeros(1, dtype=int)

    @wp.kernel
    def read_constant(out: wp.array(dtype=int)):
        out[0] = C

    C = 17
    wp.launch(read_constant, 1, [out])
    C = 42
    wp.launch(read_constant, 1, [out])
    assert out.numpy()[0] == 17  # compiled code is kept until the module is marked modified
    read_constant.module.mark_modified()
    wp.launch(read_constant, 1, [out])
    assert out.numpy()[0] == 42


def test_unload_and_load():
    a = wp.zeros(1)
    wp.launch(plain, 1, [a])
    assert plain._cache
    plain.module.unload()
    assert not plain._cache and plain.module.execs == {}
    loaded = plain.module.load("cpu")
    assert loaded.block_dim == 256 and plain.module.execs
    wp.launch(plain, 1, [a])


def _closure_kernel(value):
    @wp.kernel
    def k(a: wp.array(dtype=int)):
        a[0] = value

    return k


def test_factory_kernels_are_freed():
    a = wp.zeros(1, dtype=int)
    for i in range(3):
        k = _closure_kernel(i)
        wp.launch(k, 1, [a])
        assert a.numpy()[0] == i
    gc.collect()
    assert sum(1 for live in k.module._get_live_kernels() if live.key == k.key) == 1


def test_generic_overloads_change_the_hash():
    @wp.kernel(module="unique")
    def double(x: wp.array(dtype=Any), y: wp.array(dtype=Any)):
        i = wp.tid()
        y[i] = x[i] + x[i]

    assert double.is_generic and len(double.overloads) == 0
    wp.launch(double, 2, [wp.ones(2), wp.zeros(2)])
    h1 = double.module.get_module_hash()
    wp.launch(double, 2, [wp.ones(2, dtype=int), wp.zeros(2, dtype=int)])
    assert len(double.overloads) == 2 and double.module.get_module_hash() != h1
    h2 = double.module.get_module_hash()
    wp.launch(double, 2, [wp.ones(2), wp.zeros(2)])
    assert double.module.get_module_hash() == h2


def test_func_overloads_are_scoped():
    def factory(v):
        @wp.func
        def f():
            return v

        @wp.func
        def f(x: int):
            return v * x

        return f

    f2, f3 = factory(2), factory(3)
    assert f2 is not f3 and len(f2.overloads) == 2

    @wp.func
    def g(x: int):
        return x

    first = g

    @wp.func
    def g(x: int):  # same signature: a new object; the earlier reference keeps its body
        return 2 * x

    assert g is not first and first(3) == 3 and g(3) == 6


def test_cpu_kernel_cache_key():
    native = wp.get_cpu_kernel_cache_key(cpu_compiler_flags="-march=native")
    generic = wp.get_cpu_kernel_cache_key(cpu_compiler_flags="")
    assert native != generic and native.startswith(f"{wp.config.version}-")
    saved = wp.config.cpu_compiler_flags
    try:
        wp.config.cpu_compiler_flags = None
        assert wp.get_cpu_kernel_cache_key() == native
        wp.config.cpu_compiler_flags = ""
        assert wp.get_cpu_kernel_cache_key() == generic
    finally:
        wp.config.cpu_compiler_flags = saved


def test_warp_style_warning_on_stderr():
    script = (
        "import jwarp as wp\n"
        "from jwarp.logger import log_warning\n"
        "log_warning('something odd')\n"
        "wp.config.log_level = wp.LOG_ERROR\n"
        "log_warning('quiet')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stderr == "Warp UserWarning: something odd\n"


def test_type_of_value_in_kernels():
    @wp.kernel
    def cast(x: Any, out: wp.array(dtype=Any)):
        out[0] = x * type(x)(3)

    ai, af = wp.zeros(1, dtype=int), wp.zeros(1, dtype=float)
    wp.launch(cast, 1, [2, ai])
    wp.launch(cast, 1, [1.5, af])
    assert ai.numpy()[0] == 6 and np.isclose(af.numpy()[0], 4.5)


_TEMPORARY_MODULE = """
import jwarp as wp

@wp.func
def f():
    return {value}.0

@wp.kernel
def k(out: wp.array(dtype=float)):
    out[0] = wp.static(f)()
"""


def _load_and_delete(tmp_path, code: str, name: str):
    """Import ``code`` as module ``name`` from a file that is deleted right after (as Warp's tests do)."""
    import importlib.util

    path = tmp_path / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path.unlink()
    return module


def test_kernels_of_a_deleted_source_file_compile_and_hash_by_content(tmp_path):
    modules = [_load_and_delete(tmp_path, _TEMPORARY_MODULE.format(value=v), f"jwarp_tmp_src_{i}")
               for i, v in enumerate((17, 42, 17))]
    hashes = [wp.get_module(m.__name__).hash_module() for m in modules]
    assert hashes[0] != hashes[1] and hashes[0] == hashes[2]  # the static function's body counts
    out = wp.zeros(1)
    wp.launch(modules[1].k, dim=1, inputs=[out])
    assert out.numpy()[0] == 42.0


@wp.struct
class _ListedStruct:
    x: wp.array(dtype=int)


def test_structs_are_listed_in_their_module():
    assert wp.get_module(__name__).structs.get("_ListedStruct") is _ListedStruct
