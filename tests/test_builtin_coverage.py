"""Builtin coverage against real Warp's builtin table: every builtin of the groups the
kernel language documents must be available in jwarp (as a builtin, a type, or the
language construct Warp's code generator uses it for). Missing names are printed."""

from __future__ import annotations

import pytest

from jwarp.compiler.registry import BUILTINS

GROUPS = (
    "Scalar Math",
    "Vector Math",
    "Quaternion Math",
    "Transformations",
    "Spatial Math",
    "Operators",
    "Random",
    "Utility",
    "Other",
    "Code Generation",
)

# Warp code-generator internals that jwarp expresses as language constructs.
CONSTRUCTS = {
    "add_inplace": "x += v / a[i] += v",
    "sub_inplace": "x -= v / a[i] -= v",
    "bit_and_inplace": "x &= v",
    "bit_or_inplace": "x |= v",
    "bit_xor_inplace": "x ^= v",
    "transform_add_inplace": "t += v",
    "transform_sub_inplace": "t -= v",
    "assign_inplace": "v[i] = x",
    "assign_copy": "v[i] = x on a copy",
    "extract": "v[i], m[i, j]",
    "index": "a[i]",
    "indexref": "a[i] as an lvalue",
    "load": "a[i]",
    "store": "a[i] = v",
    "array_store": "a[i] = v",
    "address": "a[i]",
    "view": "a[i] of an n-d array",
    "copy": "assignment copies values",
    "iter_next": "for loops",
    "range": "for i in range(...)",
    "reversed": "for i in reversed(range(...))",
    "slice": "v[a:b]",
    "static": "wp.static(...)",
}
# Warp builtins without meaning on XLA, or hidden work-in-progress in Warp 1.19 (undocumented).
NOT_APPLICABLE = {
    "array": "builds an array from a raw device pointer; XLA programs have no pointers",
    "dense_gemm": "hidden, undocumented WIP in Warp 1.19",
    "dense_gemm_batched": "hidden, undocumented WIP in Warp 1.19",
    "dense_chol": "hidden, undocumented WIP in Warp 1.19",
    "dense_chol_batched": "hidden, undocumented WIP in Warp 1.19",
    "dense_subs": "hidden, undocumented WIP in Warp 1.19",
    "dense_solve": "hidden, undocumented WIP in Warp 1.19",
    "dense_solve_batched": "hidden, undocumented WIP in Warp 1.19",
}
TYPE_NAMES = {"float", "int", "bool", "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32",
              "int64", "uint8", "uint16", "uint32", "uint64", "vector", "matrix", "quaternion", "transformation",
              "spatial_vector"}


def test_no_builtin_missing():
    warp = pytest.importorskip("warp")
    from warp._src.context import builtin_functions

    import jwarp

    wanted = sorted(name for name, f in builtin_functions.items() if f.group in GROUPS)
    missing = []
    for name in wanted:
        if name in BUILTINS or name in CONSTRUCTS or name in NOT_APPLICABLE:
            continue
        if name in TYPE_NAMES and (hasattr(jwarp, name) or name in ("float", "int", "bool")):
            continue
        missing.append(f"{name} ({builtin_functions[name].group})")
    print(f"\nbuiltins missing from jwarp ({len(missing)} of {len(wanted)}):\n  " + "\n  ".join(missing))
    assert not missing, f"{len(missing)} builtins missing: {', '.join(missing)}"
    del warp
