"""Functions whose source is generated at run time (``wp.map``'s kernels, lambdas made into functions).

The compiler reads a function's source with :mod:`inspect`; code built by ``exec`` has none. A
generated function is compiled under a unique file name registered in :mod:`linecache` (as IPython
does for notebook cells), so its source, line numbers and error locations work like a file's.

Example:
    >>> fn = define_function("def twice(x):\\n    return 2 * x\\n", "twice", {})
    >>> fn(4)
    8
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import itertools
import linecache
import textwrap
from typing import Any, Callable

from jwarp.compiler.source import closure_vars

_COUNTER = itertools.count()


def define_function(source: str, name: str, namespace: dict[str, Any], annotations: dict | None = None) -> Callable:
    """Compile ``source`` (one ``def name(...)``) with ``namespace`` as its globals; the result's
    source stays readable by :func:`inspect.getsource`. ``annotations`` replace its ``__annotations__``."""
    filename = f"<jwarp-generated-{name}-{next(_COUNTER)}>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    if annotations is not None:
        fn.__annotations__ = dict(annotations)
    return fn


def _parsed_lines(fn: Callable) -> tuple[ast.AST, int]:
    """A parse of the source around ``fn`` and the line, in it, where ``fn`` starts: the whole file
    when it parses (a lambda may sit inside a statement spanning several lines), else the lines
    :func:`inspect.getsourcelines` gives."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if lines:
        try:
            return ast.parse("".join(lines)), code.co_firstlineno
        except SyntaxError:
            pass
    try:
        snippet, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise ValueError(f"Could not read the source of the lambda expression: {exc}") from None
    text = textwrap.dedent("".join(snippet))
    for candidate in (text, text.rstrip().rstrip(",")):
        try:
            return ast.parse(candidate), 1
        except SyntaxError:
            continue
    raise ValueError("Could not parse the source of the lambda expression")


def _lambda_node(fn: Callable) -> ast.Lambda:
    """The ``lambda`` expression in ``fn``'s source that compiles to ``fn``'s code."""
    tree, line = _parsed_lines(fn)
    code = fn.__code__
    names = list(code.co_varnames[: code.co_argcount])
    matches = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line
               and [a.arg for a in n.args.args] == names]
    if len(matches) > 1:  # several lambdas with these parameters: the one whose bytecode is fn's
        same = []
        for node in matches:
            compiled = compile(ast.Expression(node), "<lambda>", "eval")
            inner = next((c for c in compiled.co_consts if inspect.iscode(c)), None)
            if inner is not None and inner.co_code == code.co_code and inner.co_names == code.co_names:
                same.append(node)
        matches = same or matches
    if not matches:
        raise ValueError("Could not find the lambda expression in its source")
    return matches[0]


def lambda_as_function(fn: Callable) -> Callable:
    """A ``def`` equivalent to the lambda ``fn`` (same parameters, globals and closure values),
    named by a digest of its body, so kernels can inline it."""
    node = _lambda_node(fn)
    body = ast.unparse(node.body)
    params = ", ".join(a.arg for a in node.args.args)
    name = "lambda_" + hashlib.sha256(body.encode()).hexdigest()[:16]
    namespace = dict(fn.__globals__)
    namespace.update(closure_vars(fn))
    return define_function(f"def {name}({params}):\n    return {body}\n", name, namespace)


def call_result_type(callee: Any, arg_types: list[Any]) -> Any:
    """The type of ``callee(*args)`` in a kernel, for arguments of ``arg_types`` (a ``TupleType``
    for a function returning several values, ``None`` when it returns nothing).

    The call is lowered abstractly (under :func:`jax.eval_shape`), so no value is computed.
    """
    import jax

    from jwarp.compiler.context import KernelContext
    from jwarp.compiler.lower import Frame, FunctionLowerer
    from jwarp.compiler.source import get_source
    from jwarp.compiler.values import leaves_of, value_from_leaves, zeros_value

    params = [f"__arg_{i}" for i in range(len(arg_types))]
    probe = define_function(
        f"def __result_type_probe({', '.join(params)}):\n    return __callee({', '.join(params)})\n",
        "__result_type_probe",
        {"__callee": callee},
    )
    source = get_source(probe)
    templates = [leaves_of(zeros_value(t)) for t in arg_types]
    found: list = []

    def lower(*flat: Any) -> int:
        it = iter(flat)
        env = {name: value_from_leaves(t, [next(it) for _ in leaves])
               for name, t, leaves in zip(params, arg_types, templates)}
        frame = Frame("__result_type_probe", is_kernel=False)
        ctx = KernelContext(kernel_name=getattr(callee, "key", "map"), grid=(1,), slots=[])
        FunctionLowerer(ctx, source, env, None, frame).run()
        found.append(None if frame.ret is None else frame.ret.type)
        return 0

    with jax.enable_x64(True):
        structs = [jax.ShapeDtypeStruct(jax.numpy.shape(x), jax.numpy.asarray(x).dtype) for t in templates for x in t]
        jax.eval_shape(lower, *structs)
    return found[0]
