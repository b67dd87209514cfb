"""Calls in kernel code: builtins, ``wp.func`` inlining, type constructors, ``wp.static``.

User functions are inlined at each call site: their body is lowered by a child
:class:`~jwarp.compiler.lower.FunctionLowerer` that shares the kernel's memory and starts
with the caller's active mask. ``return`` inside a function only ends that function.
"""

from __future__ import annotations

import ast
import builtins as py
import types as pytypes
from typing import TYPE_CHECKING, Any

from jwarp.compiler import refs, starred
from jwarp.compiler.grad_call import GradOf, lower_grad_call
from jwarp.compiler.registry import BUILTINS, Builtin, Call
from jwarp.compiler.source import get_source, refresh_closure, static_key
from jwarp.compiler.values import STATIC, TupleType, Value, python_to_value
from jwarp.errors import WarpCodegenAttributeError, WarpCodegenError, WarpCodegenTypeError, is_located, with_call_site
from jwarp.lang import composites, scalars, type_factories
from jwarp.lang.arrays import FUNCTION, ArrayType, type_name
from jwarp.lang.refs import address_of, strip_reference
from jwarp.lang.struct import StructType
from jwarp.lang.tile_types import is_tile_type

if TYPE_CHECKING:
    from jwarp.compiler.lower import FunctionLowerer

# Python builtins that kernel code may call, and the jwarp builtin each one means.
_PYTHON_BUILTINS = {
    py.min: "min",
    py.max: "max",
    py.abs: "abs",
    py.len: "len",
    py.round: "round",
    py.print: "print",
    py.pow: "pow",
    py.slice: "_slice",
}


class StaticMarker:
    """``wp.static``: evaluate an expression at compile time (in Python, with the function's
    globals and closure) and use its value as a constant."""

    __name__ = "static"

    def __call__(self, expr: Any) -> Any:
        return expr

    def __repr__(self) -> str:
        return "<jwarp static>"


static = StaticMarker()


def lower_call(lw: FunctionLowerer, node: ast.Call, discard: bool = False) -> Value | None:
    key = static_key(node)
    if key in lw.src.static_values:  # a wp.static() resolved at declaration (its alias may be rebound since)
        return _static_result(lw.src.static_values[key])
    fn = lw.lookup_in_call(node.func.id) if isinstance(node.func, ast.Name) else _callee(lw, node.func)
    if fn.type is not STATIC:
        raise WarpCodegenTypeError(f"A value of type {type_name(fn.type)} is not callable")
    obj = fn.data
    if obj is static or isinstance(obj, StaticMarker):
        return _static(lw, node)
    if getattr(obj, "_jwarp_kernel", False):
        raise WarpCodegenError(f"Kernel '{obj.key}' cannot be called from kernel code; use a @wp.func instead")
    if getattr(obj, "_jwarp_native", False):
        raise WarpCodegenError(obj.unsupported_message())
    if obj is address_of:
        if len(node.args) != 1 or node.keywords:
            raise WarpCodegenError("wp.address_of() takes exactly one argument")
        refs.check_addressable(lw, node.args[0], "The argument of wp.address_of()")
        raise WarpCodegenError(
            "wp.address_of(): jwarp kernels are XLA programs and have no memory addresses; pointers are only "
            "meaningful to @wp.func_native C++ snippets, which jwarp cannot run"
        )
    args, arg_nodes = starred.expand_arguments(lw, node.args)
    kwargs = {k.arg: lw.eval_call_argument(k.value) for k in node.keywords}
    if None in kwargs:
        raise WarpCodegenError("**kwargs are not supported in kernel calls")
    if obj is py.type:  # type(x): the static type of a value (generic code: type(a)(0), type(a).dtype)
        if len(args) != 1 or kwargs:
            raise WarpCodegenError("type() takes exactly one argument in kernels")
        return Value(STATIC, args[0].type)
    if getattr(obj, "_jwarp_function", False):
        return inline_function(lw, obj, args, kwargs, node, direct=True)
    if isinstance(obj, GradOf):  # wp.grad(f)(...)
        return lower_grad_call(lw, obj, args, kwargs, node)
    if isinstance(obj, Builtin):
        return _call_builtin(lw, obj, args, kwargs, node, discard, arg_nodes)
    kernel_name = getattr(obj, "_jwarp_kernel_builtin", None)
    if kernel_name is not None:  # a Python-scope function with a kernel counterpart (wp.zeros)
        return _call_builtin(lw, BUILTINS[kernel_name], args, kwargs, node, discard, arg_nodes)
    if obj is py.type:  # type(x): x's Warp type, usable as a constructor (type(x)(1))
        if len(args) != 1 or kwargs:
            raise WarpCodegenError("type() in kernel code takes exactly one argument")
        arg = args[0]
        return Value(STATIC, type(arg.data) if arg.type is STATIC else arg.type)
    name = _PYTHON_BUILTINS.get(obj) if _hashable(obj) else None
    if name is not None:
        return _call_builtin(lw, BUILTINS[name], args, kwargs, node, discard, arg_nodes)
    if obj in _TYPE_FACTORIES:  # wp.types.vector(...) in kernel code is the `vector` builtin, as in Warp
        return _call_builtin(lw, BUILTINS[_TYPE_FACTORIES[obj]], args, kwargs, node, discard, arg_nodes)
    if _is_constructible(obj):
        construct = BUILTINS["_construct"]
        return _call_builtin(lw, construct, [Value(STATIC, obj), *args], kwargs, node, discard)
    raise WarpCodegenError(f"'{getattr(obj, '__name__', obj)!s}' is not a Warp builtin or @wp.func")


def _callee(lw: FunctionLowerer, func: ast.expr) -> Value:
    """The called object of ``module.path.name(...)``; a name missing from a module is reported
    as Warp reports it ("Could not find function wp.name ...")."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, (ast.Name, ast.Attribute)):
        base = lw.eval(func.value)
        obj = base.data
        if base.type is STATIC and isinstance(obj, pytypes.ModuleType) and not hasattr(obj, func.attr):
            if not (obj.__name__ == "jwarp" and func.attr in BUILTINS):
                raise WarpCodegenAttributeError(
                    f"Could not find function {ast.unparse(func)} as a built-in or user-defined function. Note "
                    "that user functions must be annotated with a @wp.func decorator to be called from a kernel."
                )
    return lw.eval(func)


_TYPE_FACTORIES = {
    composites.vector: "vector",
    composites.matrix: "matrix",
    composites.quaternion: "quaternion",
    composites.transformation: "transformation",
    **type_factories.PUBLIC_FACTORIES,
}


def _hashable(obj: Any) -> bool:
    try:
        hash(obj)
        return True
    except TypeError:
        return False


def _is_constructible(obj: Any) -> bool:
    if obj in (py.float, py.int, py.bool):
        return True
    return scalars.is_scalar_type(obj) or composites.is_composite(obj) or isinstance(obj, StructType)


def _call_builtin(
    lw, b: Builtin, args, kwargs, node: ast.Call, discard: bool, arg_nodes: list | None = None
) -> Value | None:
    arg_nodes = node.args if arg_nodes is None else arg_nodes
    call = Call(b.name, lw.ctx, lw.active, lw, arg_nodes, {k.arg: k.value for k in node.keywords if k.arg})
    call.discard = discard
    call.location = lw.location(node)
    return b.lower(call, args, kwargs)


def _static(lw: FunctionLowerer, node: ast.Call) -> Value:
    if len(node.args) != 1 or node.keywords:
        raise WarpCodegenError("wp.static() takes exactly one expression")
    key = static_key(node)
    if key in lw.src.static_values:  # resolved when the kernel was declared (compiler/static_eval.py)
        return _static_result(lw.src.static_values[key])
    expr = ast.Expression(_StaticLengths(lw).visit(node.args[0]))
    ast.fix_missing_locations(expr)
    scope = dict(lw.src.globals)
    scope.update(lw.src.closure)
    for name, value in lw.env.items():
        if value.type is not STATIC and _constant_python(value) is not None:
            scope[name] = _constant_python(value)
    try:
        result = eval(compile(expr, lw.src.file, "eval"), scope)  # noqa: S307 - kernel source is trusted code
    except NameError as exc:
        raise WarpCodegenError(
            f"Error evaluating static expression: {exc}. Make sure all variables used in the static expression "
            "are constant."
        ) from None
    except Exception as exc:
        raise WarpCodegenError(f"Error evaluating static expression: {exc}") from None
    return _static_result(result)


def _static_result(result: Any) -> Value:
    from jwarp.compiler.lower import lift_python

    problem = _unsupported_static_value(result)
    if problem is not None:
        raise WarpCodegenError(f"Static expression returns an unsupported value: {problem}")
    return lift_python(result)


_NO_ARRAYS = "a Warp array cannot be created inside Warp kernels"


def _unsupported_static_value(value: Any) -> str | None:
    """Why a ``wp.static()`` result cannot become a kernel value (Warp's wording), or None."""
    from jwarp.lang.struct import StructInstance

    if value is None:
        return "None is returned"
    if getattr(value, "_jwarp_array", False):
        return _NO_ARRAYS
    if isinstance(value, StructInstance):
        path = _array_field_path(value, value._cls.key)
        if path is not None:
            return ("the returned Warp struct contains a data type that cannot be constructed inside Warp kernels: "
                    f"{_NO_ARRAYS} at {path}")
        return None
    if _plain_instance(value):
        return f"value of type {type(value)} cannot be used in Warp kernels"
    return None


def _plain_instance(value: Any) -> bool:
    """An instance of an ordinary user class (no kernel meaning): not a type, module, function,
    number, string, sequence, enum member or jwarp value."""
    import enum
    import numbers

    if isinstance(value, (type, pytypes.ModuleType, numbers.Number, str, bytes, tuple, list, dict, enum.Enum)):
        return False
    if callable(value) or python_to_value(value) is not None:
        return False
    module = type(value).__module__ or ""
    return not (module == "builtins" or module.startswith(("jwarp", "numpy", "jax")))


def _array_field_path(instance: Any, prefix: str) -> str | None:
    from jwarp.lang.struct import StructInstance

    for name in instance._cls.vars:
        field = getattr(instance, name)
        if getattr(field, "_jwarp_array", False):
            return f"{prefix}.{name}"
        if isinstance(field, StructInstance):
            inner = _array_field_path(field, f"{prefix}.{name}")
            if inner is not None:
                return inner
    return None


class _StaticLengths(ast.NodeTransformer):
    """``len(x)`` of a local composite or tuple inside ``wp.static()`` is its length (as in Warp)."""

    def __init__(self, lw: FunctionLowerer):
        self.lw = lw

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in self.lw.env
        ):
            t = self.lw.env[node.args[0].id].type
            if composites.is_composite(t):
                return ast.copy_location(ast.Constant(t._shape_[0]), node)
            if isinstance(t, TupleType):
                return ast.copy_location(ast.Constant(len(t.types)), node)
            if is_tile_type(t):
                return ast.copy_location(ast.Constant(t.shape[0]), node)
        return node


def _constant_python(value: Value) -> Any:
    from jwarp.compiler.values import is_constant_value, value_to_python

    if isinstance(value.type, ArrayType) or not is_constant_value(value):
        return None
    return value_to_python(value)


def _types_match(expected: Any, actual: Any) -> bool:
    from jwarp.lang.arrays import VariadicTupleType, _Generic

    expected = strip_reference(expected)
    if expected is FUNCTION:
        return actual is STATIC
    if isinstance(expected, VariadicTupleType):
        return isinstance(actual, TupleType) and all(_types_match(expected.item, a) for a in actual.types)
    if isinstance(expected, TupleType):
        return (
            isinstance(actual, TupleType)
            and len(actual.types) == len(expected.types)
            and all(_types_match(e, a) for e, a in zip(expected.types, actual.types))
        )
    if isinstance(expected, _Generic):
        return expected.accepts(actual)
    if isinstance(expected, ArrayType):
        if not isinstance(actual, ArrayType) or actual.ndim != expected.ndim:
            return False
        if isinstance(expected.dtype, _Generic):
            return expected.dtype.accepts(actual.dtype)
        return expected.dtype == actual.dtype
    return expected == actual


def inline_function(lw: FunctionLowerer, fn: Any, args: list[Value], kwargs: dict[str, Value], node: ast.Call,
                    direct: bool = False):
    """Lower a call to a ``@wp.func`` by inlining its body (``direct``: a call written in the caller's
    code, lowered in the caller's trace, whose returns a filter pass may record, see ``Frame.nonzero``)."""
    snippet = getattr(fn, "native_snippet", None)
    if snippet is not None:  # @wp.func_native: CUDA/C++ source, which jwarp cannot run
        raise NotImplementedError(
            f"Function '{fn.key}' is a @wp.func_native snippet of C++/CUDA code; native snippets are not "
            "implemented in jwarp (write the function in Python with @wp.func)"
        )
    overload = fn.select_overload([a.type for a in args], {k: v.type for k, v in kwargs.items()})
    if overload is None:
        types = ", ".join(type_name(a.type) for a in args)
        raise WarpCodegenError(
            f"Couldn't find function overload for '{fn.key}' that matched inputs with types: [{types}]"
        )
    bound = _bind(fn.key, overload, args, kwargs)
    _check_function_targets(fn.key, overload, bound)
    if overload.ref_params:
        targets = refs.check_call(lw, fn.key, overload, node)
        value_refs = [n for n in targets if not isinstance(bound[n].type, ArrayType)]
        if overload.custom_grad is not None and value_refs:
            raise WarpCodegenError(
                f"Function '{fn.key}' has a @wp.func_grad adjoint and wp.ref value parameters {value_refs}; "
                "jwarp supports custom adjoints only with wp.ref array parameters"
            )
    if overload.custom_grad is not None:  # @wp.func_grad: the derivative comes from the user's adjoint
        from jwarp.compiler.custom_grad import lower_custom_grad

        return lower_custom_grad(lw, fn.key, overload, bound, lambda: _inline_body(lw, fn, overload, bound, node))
    return _inline_body(lw, fn, overload, bound, node, direct)


# Builtins a ``wp.Function`` parameter refuses as its target (as Warp does): variadic ones and
# those with side effects or special dispatch (printing, atomics, tile operations)
_IRREGULAR_TARGET_PREFIXES = ("atomic_", "tile")
_IRREGULAR_TARGETS = frozenset({"printf", "print", "tid", "untile", "expect_eq", "expect_neq", "expect_near"})


def _check_function_targets(key: str, overload: Any, bound: dict[str, Value]) -> None:
    """Refuse what Warp refuses for ``wp.Function`` parameters: a builtin target that is not a
    plain function (``printf``, atomics, tiles), and a function with a custom gradient or replay."""

    targets = [name for name, t, _ in overload.params if t is FUNCTION and bound[name].type is STATIC]
    for name in targets:
        target = bound[name].data
        if isinstance(target, Builtin) and (
            target.name in _IRREGULAR_TARGETS or target.name.startswith(_IRREGULAR_TARGET_PREFIXES)
        ):
            raise WarpCodegenError(
                "wp.Function parameters support user-defined Warp functions and simple built-in Warp functions "
                "such as wp.sin() and wp.min(), "
                f"but parameter '{name}' of '{key}' received unsupported built-in function '{target.name}'."
            )
    if targets and (overload.custom_grad is not None or overload.custom_replay is not None):
        raise WarpCodegenError(
            "wp.Function parameters are not supported on functions with custom gradients or replay functions: "
            f"'{key}'"
        )


def _copy_out_shared_tiles(lw: FunctionLowerer, overload: Any, node: ast.Call, child: Any) -> None:
    """Tiles and tile stacks are passed to functions by reference, as in Warp: what the callee
    changed in place (``wp.tile_assign(t, ...)``, ``t[i] = x``, stack pushes) reaches the caller's
    variable; rebinding the parameter does not."""
    written = getattr(child, "inplace_written", set())
    if not written or node is None:
        return
    from jwarp.compiler import tile_views
    from jwarp.lang.tile_types import TileStackType, TileType

    names = [p[0] for p in overload.params]
    pairs = list(zip(names, node.args)) + [(kw.arg, kw.value) for kw in node.keywords]
    for name, arg in pairs:
        new = child.env.get(name)
        if name not in written or new is None or not isinstance(arg, ast.Name) or arg.id not in lw.env:
            continue
        if isinstance(new.type, TileStackType):
            lw.env[arg.id] = new
            lw.inplace_written = getattr(lw, "inplace_written", set()) | {arg.id}
        elif isinstance(new.type, TileType):
            tile_views.write(lw, arg.id, tile_views.without_view(new))


def _inline_body(lw: FunctionLowerer, fn: Any, overload: Any, bound: dict[str, Value], node: ast.Call,
                 direct: bool = False):
    from jwarp.compiler.lower import Frame, FunctionLowerer

    source = get_source(overload.func)
    refresh_closure(source)
    parent = lw
    while parent is not None:
        if parent.src.func.__code__ is overload.func.__code__:
            raise WarpCodegenError(f"Recursive call to function '{fn.key}' is not supported in kernels")
        parent = getattr(parent, "parent", None)
    track = direct and lw.touched is not None and node is not None
    frame = Frame(name=fn.key, is_kernel=False, track_nonzero=track)
    code = lw.src.func.__code__
    site = (code.co_filename, code.co_firstlineno, node.lineno, node.col_offset)
    child = FunctionLowerer(lw.ctx, source, bound, lw.active, frame, lw.call_stack + (site,))
    child.parent = lw
    child.ref_params = {name: strip_reference(t) for name, t, _ in overload.params if name in overload.ref_params}
    entry = dict(bound)
    try:
        child.run()
    except Exception as exc:  # a located error: name the line of the caller too (one line per inlining level)
        if not is_located(exc):
            raise
        raise with_call_site(exc, lw.src.location(node), "kernel" if lw.frame.is_kernel else "function") from None
    if overload.ref_params:
        refs.copy_out(lw, refs.argument_nodes(overload, node), entry, child.env)
    _copy_out_shared_tiles(lw, overload, node, child)
    ret = frame.ret
    if track:
        lw.touched.calls[id(node)] = frame.nonzero
    declared = overload.return_type
    if isinstance(declared, ArrayType) and not declared.fixed and ret is not None and isinstance(ret.type, ArrayType):
        raise WarpCodegenError(
            f"The function `{fn.__name__}` returns a fixed-size array whereas it has its return type annotated as "
            f"`Array[{type_name(declared.dtype)}]`."
        )
    if overload.return_type is not None and ret is not None and not _types_match(overload.return_type, ret.type):
        raise WarpCodegenError(_return_mismatch(fn.__name__, overload, ret.type))
    return ret


def _return_mismatch(name: str, overload: Any, actual: Any) -> str:
    """Warp's message for a function whose returned value does not match its return annotation."""
    import typing

    from jwarp.compiler.source import function_annotations
    from jwarp.lang.arrays import TupleType
    from jwarp.lang.introspection import type_repr

    declared = overload.return_type
    raw = function_annotations(overload.func).get("return", declared)
    if typing.get_origin(raw) is tuple:
        shown = "tuple[" + ", ".join(type_repr(a) for a in typing.get_args(raw)) + "]"
    else:
        shown = type_repr(raw)
    head = f"The function `{name}` has its return type annotated as"
    if isinstance(actual, TupleType):
        count = len(actual.types)
        if isinstance(declared, TupleType) and len(declared.types) != count:
            return f"{head} a tuple of {len(declared.types)} elements but the code returns {count} values."
        if not isinstance(declared, TupleType):
            return f"{head} `{shown}` but the code returns {count} values."
        types = ", ".join(type_repr(t) for t in actual.types)
        return f"{head} `{shown}` but the code returns a tuple with types `({types})`."
    return f"{head} `{shown}` but the code returns a value of type `{type_repr(actual)}`."


def _bind(key: str, overload: Any, args: list[Value], kwargs: dict[str, Value]) -> dict[str, Value]:
    params = overload.params  # list of (name, type, default python value or _NO_DEFAULT)
    if len(args) > len(params):
        raise WarpCodegenTypeError(f"Function '{key}' takes {len(params)} arguments but {len(args)} were given")
    env: dict[str, Value] = {}
    for (name, t, default), value in zip(params, args):
        env[name] = value
    for name, t, default in params[len(args):]:
        if name in kwargs:
            env[name] = kwargs.pop(name)
        elif default is not overload.NO_DEFAULT:
            lifted = python_to_value(default)
            if lifted is None:
                lifted = Value(STATIC, default)
            env[name] = lifted
        else:
            raise WarpCodegenTypeError(f"Function '{key}' is missing argument '{name}'")
    if kwargs:
        raise WarpCodegenTypeError(f"Function '{key}' got unexpected keyword arguments {sorted(kwargs)}")
    for name, t, _ in params:
        if t is not None and not _types_match(t, env[name].type):
            raise WarpCodegenTypeError(
                f"Function '{key}' argument '{name}' expects {type_name(t)}, got {type_name(env[name].type)}"
            )
    return env
