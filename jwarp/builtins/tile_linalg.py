"""Tile shape and linear-algebra builtins: ``tile_transpose``, ``tile_broadcast``, ``tile_matmul``,
plus tile arithmetic (``+ - * /``, unary ``-``) and tile indexing ``t[i, j]`` used by the
operator and subscript lowering.

Example (kernel code, a tiled GEMM step):
    a = wp.tile_load(A, shape=(TM, TK), offset=(i * TM, k * TK))
    b = wp.tile_load(B, shape=(TK, TN), offset=(k * TK, j * TN))
    wp.tile_matmul(a, b, acc)          # acc += a @ b
"""

from __future__ import annotations

import jax.numpy as jnp

from jwarp.builtins.common import STATIC, Call, Value
from jwarp.builtins.tile_core import require_tile
from jwarp.compiler import tile_views, tiles
from jwarp.compiler.registry import builtin
from jwarp.compiler.values import is_const, leaves_of, value_from_leaves
from jwarp.errors import WarpCodegenError, WarpCodegenTypeError, WarpCodegenValueError
from jwarp.lang import composites, scalars
from jwarp.lang.arrays import type_name
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import ACCUMULATED_SCALARS, is_tile_type, struct_planes
from jwarp.compiler.selects import where


@builtin("tile_transpose", group="Tile Primitives", kernel_only=True)
def tile_transpose(call: Call, a: Value) -> Value:
    """The transpose of a 2-D tile."""
    require_tile(call, a)
    if a.type.ndim != 2:
        raise WarpCodegenError(f"wp.tile_transpose(): expected a 2-D tile, got shape {a.type.shape}")
    n = len(call.ctx.grid)
    data = jnp.swapaxes(a.data, n, n + 1)
    return tiles.make_tile(call.ctx, a.type.dtype, a.type.shape[::-1], data, a.type.storage)


@builtin("tile_broadcast", group="Tile Primitives", kernel_only=True)
def tile_broadcast(call: Call, a: Value, shape: Value) -> Value:
    """``a`` broadcast to ``shape`` with NumPy's rules (size-1 and missing leading axes repeat)."""
    require_tile(call, a)
    dims = tiles.static_shape(shape)
    if not 1 <= len(dims) <= 4:
        raise WarpCodegenValueError(f"tile_broadcast() output must have between one and four dimensions, got "
                                    f"{len(dims)}")
    if tiles.broadcast_tile_shapes(a.type.shape, dims) != dims:
        raise WarpCodegenError(f"wp.tile_broadcast(): cannot broadcast a tile of shape {a.type.shape} to {dims}")
    k, pad = len(dims), len(dims) - a.type.ndim
    per_axis, strides = [], [0] * k
    for axis, (extent, stride) in enumerate(zip(a.type.shape, tile_views.strides_of(a))):
        out_axis = axis + pad
        if extent == 1 and dims[out_axis] != 1:
            per_axis.append(jnp.zeros((), jnp.int32))
        else:
            shape = [1] * k
            shape[out_axis] = extent
            per_axis.append(jnp.arange(extent, dtype=jnp.int32).reshape(shape))
            strides[out_axis] = stride
    flat = tile_views.flat_positions(a.type.shape, per_axis)
    node = call.arg_node(0, "a")
    return tile_views.view_of(call.lowerer, a, getattr(node, "id", None), flat, dims, tuple(strides))


def _scalar_float(call: Call, v: Value | None, default: float) -> object:
    if v is None:
        return default
    if not scalars.is_scalar_type(v.type):
        raise WarpCodegenError(f"wp.tile_matmul(): alpha/beta must be scalars, got {type_name(v.type)}")
    return tiles.lead_leaf(call.ctx, v.data) if not is_const(v.data) else v.data


def _product(call: Call, a: Value, b: Value, dtype) -> jnp.ndarray:
    require_tile(call, a)
    require_tile(call, b, "b")
    ta, tb = a.type, b.type
    if ta.ndim != 2 or tb.ndim != 2 or ta.shape[1] != tb.shape[0]:
        raise WarpCodegenError(f"wp.tile_matmul(): incompatible tile shapes {ta.shape} and {tb.shape}")
    if not scalars.is_float(ta.dtype) or not scalars.is_float(tb.dtype):
        raise WarpCodegenError("wp.tile_matmul(): tiles must have floating-point scalar dtypes")
    jdt = tiles.jnp_dtype(dtype)
    return jnp.matmul(a.data.astype(jdt), b.data.astype(jdt), precision="highest")


def _scale(call: Call, x: jnp.ndarray, factor: object) -> jnp.ndarray:
    if is_const(factor) or isinstance(factor, (int, float)):
        return x if float(factor) == 1.0 else x * jnp.asarray(factor, x.dtype)
    return x * jnp.asarray(factor).astype(x.dtype).reshape(jnp.shape(factor) + (1, 1))


def _check_matmul_types(call: Call, a: Value, b: Value, out: Value | None, precision: Value | None) -> None:
    """Warp's dtype rules for tile_matmul: no complex (vec2) tiles, no bfloat16 accumulator, no
    bfloat16 operands with a backward pass, ``precision`` 'default' or 'tf32' (float32 only)."""
    require_tile(call, a)
    require_tile(call, b, "b")
    tiles_in = [a, b] + ([out] if out is not None else [])
    if any(composites.is_composite(t.type.dtype) for t in tiles_in):
        raise WarpCodegenTypeError("wp.tile_matmul() does not support complex tiles (vec2 elements); multiply the real "
                                   "and imaginary parts as separate float tiles")
    out_dtype = out.type.dtype if out is not None else a.type.dtype
    if getattr(out_dtype, "__name__", "") == "bfloat16":
        raise WarpCodegenTypeError("wp.tile_matmul() does not support a bfloat16 'out' tile; accumulate into a float16, "
                                   "float32 or float64 tile")
    if call.ctx.enable_backward and any(getattr(t.type.dtype, "__name__", "") == "bfloat16" for t in (a, b)):
        raise WarpCodegenTypeError("wp.tile_matmul() does not support bfloat16 'a' or 'b' tiles when the backward pass "
                                   "is enabled; launch with enable_backward=False")
    if precision is not None:
        mode = precision.data if precision.type is STATIC else None
        if not isinstance(mode, str):
            raise WarpCodegenValueError("wp.tile_matmul() precision must be the string literal 'default' or 'tf32', "
                                        "got a non-literal argument")
        if mode not in ("default", "tf32"):
            raise WarpCodegenValueError(f"wp.tile_matmul() precision must be the string literal 'default' or 'tf32', "
                                        f"got {mode!r}")
        if mode == "tf32" and not all(t.type.dtype is scalars.float32 for t in tiles_in):
            raise WarpCodegenTypeError("wp.tile_matmul() precision='tf32' requires float32 tiles")


@builtin("tile_matmul", group="Tile Primitives", kernel_only=True)
def tile_matmul(call: Call, a: Value, b: Value, out: Value | None = None, alpha: Value | None = None,
                beta: Value | None = None, precision: Value | None = None) -> Value | None:
    """``alpha * a @ b`` as a new tile, or with ``out``: ``out = alpha * a @ b + beta * out`` in place."""
    call.require_kernel()
    if out is not None and not is_tile_type(out.type):  # tile_matmul(a, b, alpha) form
        out, alpha = None, out
    _check_matmul_types(call, a, b, out, precision)
    if out is None:
        product = _scale(call, _product(call, a, b, a.type.dtype), _scalar_float(call, alpha, 1.0))
        return tiles.make_tile(call.ctx, a.type.dtype, (a.type.shape[0], b.type.shape[1]), product, a.type.storage)
    if out.type.shape != (a.type.shape[0], b.type.shape[1]):
        raise WarpCodegenError(f"wp.tile_matmul(): out has shape {out.type.shape}, expected "
                               f"{(a.type.shape[0], b.type.shape[1])}")
    product = _scale(call, _product(call, a, b, out.type.dtype), _scalar_float(call, alpha, 1.0))
    beta_v = _scalar_float(call, beta, 1.0)
    if is_const(beta_v) and float(beta_v) == 0.0:
        new = product
    elif is_const(beta_v) or isinstance(beta_v, (int, float)):
        new = product + _scale(call, out.data, beta_v)
    else:  # beta == 0 overwrites out without reading it (NaN or inf there stay out of the result)
        zero = (jnp.asarray(beta_v) == 0).reshape(jnp.shape(beta_v) + (1, 1))
        new = product + where(zero, jnp.zeros((), out.data.dtype), _scale(call, out.data, beta_v))
    new = jnp.broadcast_to(new, jnp.broadcast_shapes(new.shape, out.data.shape))
    result = tiles.make_tile(call.ctx, out.type.dtype, out.type.shape, new, out.type.storage)
    call.assign_back(2, result, "out")
    return None


# ----------------------------------------------------------------------------------------------
# operators and indexing (hidden builtins called by jwarp.compiler.operators / lvalues)


@builtin("_tile_binary", group="Code Generation", kernel_only=True)
def tile_binary(call: Call, op: Value, a: Value, b: Value) -> Value:
    """``a <op> b`` with at least one tile operand: the scalar operator applied element-wise."""
    from jwarp.compiler.operators import call_builtin

    lw, op_name = call.lowerer, op.data
    if op_name not in ("add", "sub", "mul", "div", "mod", "floordiv", "bit_and", "bit_or", "bit_xor"):
        raise WarpCodegenError(f"Operator '{op_name}' is not supported on tiles")
    if op_name in ("add", "sub") and not (is_tile_type(a.type) and is_tile_type(b.type)):
        raise call.no_overload(a, b)  # as Warp: tile +/- scalar has no overload
    if is_tile_type(a.type) and is_tile_type(b.type) and a.type.shape != b.type.shape:
        raise WarpCodegenError(f"Tile shapes {a.type.shape} and {b.type.shape} do not match")
    if any(is_tile_type(v.type) and isinstance(v.type.dtype, StructType) for v in (a, b)):
        return _struct_binary(call, op_name, a, b)
    if op_name in ("mul", "div"):
        _check_product_operands(op_name, a, b)
    return tiles.elementwise(lw.ctx, lambda x, y: tiles.without_mask(lw, lambda: call_builtin(lw, op_name, x, y)),
                             [a, b])


def _struct_binary(call: Call, op_name: str, a: Value, b: Value) -> Value:
    """``a + b`` / ``a - b`` of tiles of one struct type: field by field (fields whose scalar type
    has no atomic addition, such as bool or int8, keep ``a``'s value)."""
    if op_name.startswith("bit_"):
        raise WarpCodegenTypeError("Tile bitwise inplace operators do not support Warp struct tile elements")
    if op_name not in ("add", "sub") or not (is_tile_type(a.type) and is_tile_type(b.type)) \
            or a.type.dtype != b.type.dtype:
        raise call.no_overload(a, b)
    ctx = call.ctx
    ea, eb = tiles.elements(ctx, a), tiles.elements(ctx, b)
    planes = []
    for x, y, scalar in zip(leaves_of(ea), leaves_of(eb), struct_planes(a.type.dtype)):
        if scalar in ACCUMULATED_SCALARS:
            planes.append((x + y if op_name == "add" else x - y).astype(x.dtype))
        else:
            planes.append(jnp.broadcast_to(x, jnp.broadcast_shapes(x.shape, y.shape)))
    return tiles.from_elements(ctx, value_from_leaves(a.type.dtype, planes), a.type.shape, a.type.storage)


def _check_product_operands(op_name: str, a: Value, b: Value) -> None:
    """Warp multiplies and divides tiles element-wise only when one side's elements are scalars."""
    ea = a.type.dtype if is_tile_type(a.type) else a.type
    eb = b.type.dtype if is_tile_type(b.type) else b.type
    if scalars.is_scalar_type(ea) or scalars.is_scalar_type(eb):
        return
    verb = "multiply" if op_name == "mul" else "divide"

    def name(v: Value) -> str:
        return f"tile<{type_name(v.type.dtype)}>" if is_tile_type(v.type) else type_name(v.type)

    if is_tile_type(a.type) and is_tile_type(b.type):
        raise WarpCodegenTypeError(f"Cannot {verb} {name(a)} by {name(b)} element-wise: the element type must be "
                                   "scalar for at least one of the tiles")
    raise WarpCodegenTypeError(f"Cannot {verb} {name(a)} by {name(b)}: at least one operand must be a scalar type")


@builtin("_tile_unary", group="Code Generation", kernel_only=True)
def tile_unary(call: Call, op: Value, a: Value) -> Value:
    """``-t`` / ``+t`` element-wise."""
    from jwarp.compiler.operators import call_builtin

    lw, op_name = call.lowerer, op.data
    if op_name not in ("neg", "pos"):
        raise WarpCodegenError(f"Operator '{op_name}' is not supported on tiles")
    return tiles.elementwise(lw.ctx, lambda x: tiles.without_mask(lw, lambda: call_builtin(lw, op_name, x)), [a])


__all__ = ["tile_transpose", "tile_broadcast", "tile_matmul", "tile_binary", "tile_unary",
           "composites", "STATIC"]
