"""Graph capture (``wp.ScopedCapture``, ``capture_begin``/``capture_end``/``capture_launch``): the
operations issued inside a capture are recorded, not run, and replay as **one fused XLA program**.

As in Warp, nothing executes while capturing; arguments are validated when an operation is
recorded (so a bad launch fails inside the ``with`` block), scalar parameters are baked in, and
arrays are bound by identity: each replay reads the arrays' current contents and writes its
results back to them. Recorded operations: kernel launches (``wp.launch`` and ``Launch.launch()``),
``wp.copy``, ``array.assign``/``fill_``/``zero_``, and the zero-fill of arrays allocated inside the
capture (``wp.zeros``/``wp.empty``/``wp.full``...). ``wp.Tape`` and adjoint launches cannot be
recorded (jwarp raises); to capture a training step, trace it with ``jax.jit(jax.grad(...))``.

Unlike Warp, capture also works on jwarp's CPU devices (Warp 1.19 supports CPU capture too).
``capture_end`` traces the recorded operations into one jitted function of the arrays' buffers and
compiles it, so ``capture_launch`` costs one XLA dispatch however many launches were captured.

Example:
    >>> import jwarp as wp
    >>> @wp.kernel
    ... def step(x: wp.array(dtype=float)):
    ...     i = wp.tid()
    ...     x[i] = x[i] * 0.5 + 1.0
    >>> x = wp.zeros(4)
    >>> with wp.ScopedCapture() as capture:
    ...     for _ in range(10):
    ...         wp.launch(step, 4, [x])
    >>> wp.capture_launch(capture.graph)
    >>> round(float(x.numpy()[0]), 4)
    1.998
"""

from __future__ import annotations

import contextlib
import enum
from typing import Any, Callable, Iterable, Iterator

import jax

from jwarp.lang import scalars
from jwarp.runtime import handles, storage
from jwarp.runtime.capture_loops import argument_key, run_steps
from jwarp.runtime.deferred import flush as run_deferred_launches
from jwarp.runtime.device import Device, get_device
from jwarp.runtime.locking import exclusive


class Graph:
    """A captured sequence of operations, replayed by :func:`capture_launch`.

    Attributes:
        device: the device the capture was made on.
    """

    def __init__(self, device: Device):
        self.device = device
        self._steps: list[Callable[[], None]] = []
        self._keys: list[Any] = []  # what each step does, for finding repeats (see capture_loops)
        self._roots: list[Any] = []  # the base arrays the steps read or write, in first-use order
        self._root_ids: dict[int, int] = {}
        # geometry objects whose ids the steps pass (Mesh, HashGrid, ...): bound at each replay, as
        # Warp's graphs read the object an id names when they run (a grid built after the capture)
        self._geometry: dict[int, Any] = {}
        self._written: tuple[int, ...] = ()
        self._executables: dict = {}  # the geometry's state (see _state) -> (executable, written), LRU

    @property
    def num_operations(self) -> int:
        """How many operations were recorded."""
        return len(self._steps)

    def _add(self, step: Callable[[], None], arrays: Iterable[Any], geometry: Iterable[Any] = (),
             key: Any = None) -> None:
        for a in arrays:
            root = a.root
            if id(root) not in self._root_ids:
                self._root_ids[id(root)] = len(self._roots)
                self._roots.append(root)
        for obj in geometry:
            self._geometry.setdefault(id(obj), obj)
        self._steps.append(step)
        self._keys.append(step if key is None else argument_key(key))  # (a step without a key repeats nothing)

    def roots(self) -> list:
        """The arrays a replay reads and writes now: the recorded ones, then the geometry objects'
        current buffers (a rebuilt grid's new arrays)."""
        if not self._geometry:
            return self._roots
        roots, seen = list(self._roots), set(self._root_ids)
        for obj in self._geometry.values():
            for a in obj._launch_operands().arrays.values():
                if a is not None and id(a.root) not in seen:
                    seen.add(id(a.root))
                    roots.append(a.root)
        return roots

    def _state(self, roots: list) -> tuple:
        """What the compiled replay depends on besides the arrays' contents: their shapes and types,
        and the geometry objects' launch constants (a grid's cell width, dimensions, ...)."""
        if not self._geometry:
            return ()  # the recorded arrays' shapes and types never change
        avals = tuple((getattr(b, "shape", None), str(getattr(b, "dtype", None)))
                      for b in jax.tree_util.tree_leaves([r._buffer for r in roots]))
        return len(roots), avals, handles.launch_state(self._geometry.values(), identities=False)

    # -- building the fused program ---------------------------------------------------------------
    def _replay(self, buffers: list, roots: list) -> list:
        """Run the steps on ``buffers`` (tracers) of ``roots``; returns the buffers the steps replaced."""
        finals = _branch_fn(self, roots)(buffers)
        self._written = tuple(i for i, (old, new) in enumerate(zip(buffers, finals)) if new is not old)
        return [finals[i] for i in self._written]

    def _build(self, roots: list | None = None) -> tuple:
        """The compiled replay for the geometry's current state (traced and compiled once per state:
        an array's shape and dtype never change)."""
        roots = self.roots() if roots is None else roots
        state = self._state(roots)
        built = self._executables.pop(state, None)
        if built is None:
            with storage.x64():
                exe = jax.jit(lambda buffers: self._replay(buffers, roots)).lower([r._buffer for r in roots]).compile()
            built = (exe, self._written)
            while len(self._executables) >= _STATES_KEPT:
                del self._executables[next(iter(self._executables))]
        self._executables[state] = built  # (re)inserted last: the most recently used
        return built

    @exclusive
    def launch(self) -> None:
        """Replay the captured operations (see :func:`capture_launch`)."""
        if not self._steps:
            return
        roots = self.roots()
        buffers = [r._buffer for r in roots]
        if any(isinstance(b, jax.core.Tracer) for b in jax.tree_util.tree_leaves(buffers)):
            results = self._replay(buffers, roots)  # inside another trace (a nested graph, jax.jit): inline
            written = self._written
        else:
            exe, written = self._build(roots)
            with storage.x64():
                results = exe(buffers)
        for index, buf in zip(written, results):
            roots[index]._set_buffer(buf)

    def __repr__(self) -> str:
        return f"<jwarp Graph on {self.device}: {len(self._steps)} operations, {len(self._roots)} arrays>"


_STATES_KEPT = 4
"""Compiled replays a graph keeps, one per state of its geometry (most recently used)."""

_capture: Graph | None = None
_suspend_depth = 0


@contextlib.contextmanager
def _suspended() -> Iterator[None]:
    """Operations issued by a replay run instead of being recorded."""
    global _suspend_depth
    _suspend_depth += 1
    try:
        yield
    finally:
        _suspend_depth -= 1


def recording(device: Device | None = None) -> bool:
    """True while a capture is open (on ``device``, when given) and not being replayed."""
    if _capture is None or _suspend_depth:
        return False
    return device is None or device is _capture.device


def record(step: Callable[[], None], arrays: Iterable[Any], geometry: Iterable[Any] = (), key: Any = None) -> None:
    """Append ``step`` (a closure that performs the operation) reading/writing ``arrays`` and passing
    the ids of the ``geometry`` objects (whose buffers each replay reads anew); steps with equal
    ``key`` do the same (see :mod:`jwarp.runtime.capture_loops`)."""
    assert _capture is not None
    _capture._add(step, list(arrays), geometry, key)


def deferred(device: Device, step: Callable[[], None], arrays: Iterable[Any], key: Any = None) -> bool:
    """Record ``step`` if a capture is open on ``device`` (then the caller must not run it now);
    ``key`` as for :func:`record`."""
    if not recording(device):
        return False
    record(step, arrays, key=key)
    return True


def saveable() -> bool:
    """True while the open capture was begun with ``apic=True`` (a graph meant to be saved)."""
    return recording() and bool(getattr(_capture, "apic", False))


def refuse(what: str) -> None:
    """Raise if a capture is open: ``what`` cannot be recorded into a graph."""
    if recording():
        raise RuntimeError(
            f"{what} cannot be recorded in a graph capture in jwarp; capture the forward launches only, or "
            "trace the whole step with jax.jit(jax.grad(...)) (see docs/porting.md)"
        )


def capture_begin(device: Any = None, stream: Any = None, force_module_load: bool | None = None,
                  external: bool = False, apic: bool = False, capture_mode: Any = None) -> None:
    """Start recording operations on ``device`` (or ``stream``'s device) into a graph.

    ``force_module_load``, ``external`` and ``capture_mode`` are accepted for compatibility and
    have no effect (XLA compiles the graph at :func:`capture_end`); ``apic=True`` (Warp's saveable
    graphs) is remembered so that operations that cannot be serialised refuse it (:func:`saveable`)."""
    global _capture
    if _capture is not None:
        raise RuntimeError("Graph capture already in progress")
    dev = stream.device if stream is not None else get_device(device)
    run_deferred_launches()  # deferred Launch replays run before the capture, not into it
    _capture = Graph(dev)
    _capture.apic = bool(apic)


def capture_end(device: Any = None, stream: Any = None) -> Graph:
    """Stop recording and return the :class:`Graph` (traced and compiled now, as Warp instantiates it;
    a graph whose launches name geometry objects compiles at its first replay)."""
    global _capture
    dev = stream.device if stream is not None else get_device(device)
    if _capture is None or _capture.device is not dev:
        raise RuntimeError(f"No graph capture is in progress on device '{dev}'")
    graph, _capture = _capture, None
    if graph._steps and not graph._geometry:
        graph._build()  # (a graph naming geometry compiles at its first replay: the geometry is often
        # built or rebuilt in between, as in Warp's DEM example, and its state selects the program)
    return graph


def capture_launch(graph: Graph, stream: Any = None) -> None:
    """Replay a captured graph: one XLA program over the arrays' current contents."""
    if not isinstance(graph, Graph):
        raise TypeError(f"capture_launch() expects a Graph from capture_end(), got {type(graph).__name__}")
    if stream is not None and stream.device is not graph.device:
        raise RuntimeError(f"Graph captured on device '{graph.device}' cannot run on a stream of '{stream.device}'")
    if recording():
        record(graph.launch, graph._roots, graph._geometry.values(), key=("graph", graph))
        return
    graph.launch()


# -- conditional nodes ------------------------------------------------------------------------------


def _subgraph(body: Any, kwargs: dict, device: Device) -> Graph | None:
    """``body`` (a Graph, a callable run with ``kwargs``, or None) recorded as a graph of its own."""
    global _capture
    if body is None or isinstance(body, Graph):
        return body
    outer, _capture = _capture, Graph(device)
    try:
        body(**kwargs)
        return _capture
    finally:
        _capture = outer


def _branch_fn(graph: Graph | None, roots: list) -> Callable[[list], list]:
    """A functional form of ``graph`` over ``roots``' buffers, for ``lax.cond`` / ``lax.while_loop``."""

    def run(buffers: list) -> list:
        saved = [r._buffer for r in roots]
        try:
            for root, buf in zip(roots, buffers):
                root._buffer = buf
            if graph is not None:
                with _suspended():
                    run_steps(graph._steps, graph._keys, roots)
            return [r._buffer for r in roots]
        finally:
            for root, buf in zip(roots, saved):
                root._buffer = buf

    return run


def _flag(condition: Any) -> Any:
    """``condition[0] != 0`` of the condition array's current (possibly traced) contents."""
    return condition.buffer.reshape(-1)[0] != 0


def _union_roots(condition: Any, *graphs: Graph | None, now: bool = True) -> list:
    """The condition's root, then the graphs' roots (``now``: with their geometry's current buffers)."""
    roots, seen = [], set()
    for root in [condition.root] + [r for g in graphs if g is not None for r in (g.roots() if now else g._roots)]:
        if id(root) not in seen:
            seen.add(id(root))
            roots.append(root)
    return roots


def _record_branches(step: Callable[[], None], condition: Any, *graphs: Graph | None) -> None:
    """Record a conditional node's ``step`` (which binds the graphs' geometry when it runs)."""
    geometry = [obj for g in graphs if g is not None for obj in g._geometry.values()]
    record(step, _union_roots(condition, *graphs, now=False), geometry)


def _check_condition(condition: Any, what: str) -> None:
    if getattr(condition, "dtype", None) is not scalars.int32 or getattr(condition, "size", 0) < 1:
        raise TypeError(f"{what}: condition must be a wp.array of dtype wp.int32 with at least one element")


def capture_if(condition: Any, on_true: Any = None, on_false: Any = None, stream: Any = None, **kwargs: Any) -> None:
    """Run ``on_true`` if ``condition[0] != 0``, else ``on_false`` (callables run with ``kwargs``, or
    captured Graphs). Inside a capture the choice is made at each replay, on the device, by
    ``lax.cond``; outside, the condition is read on the host now (as Warp does)."""
    _check_condition(condition, "capture_if")
    if not recording(condition.device):
        body = on_true if int(condition.numpy().reshape(-1)[0]) != 0 else on_false
        if isinstance(body, Graph):
            capture_launch(body)
        elif body is not None:
            body(**kwargs)
        return
    true_graph = _subgraph(on_true, kwargs, condition.device)
    false_graph = _subgraph(on_false, kwargs, condition.device)
    def step() -> None:
        roots = _union_roots(condition, true_graph, false_graph)
        run_true, run_false = _branch_fn(true_graph, roots), _branch_fn(false_graph, roots)
        results = jax.lax.cond(_flag(condition), run_true, run_false, [r._buffer for r in roots])
        for root, buf in zip(roots, results):
            root._buffer = buf

    _record_branches(step, condition, true_graph, false_graph)


def capture_while(condition: Any, while_body: Any, stream: Any = None, **kwargs: Any) -> None:
    """Run ``while_body`` (a callable run with ``kwargs``, or a Graph) while ``condition[0] != 0``; the
    body is expected to update ``condition``. Inside a capture the loop is a ``lax.while_loop`` evaluated
    at each replay; outside, it runs now with the condition read on the host after every iteration."""
    _check_condition(condition, "capture_while")
    if not recording(condition.device):
        while int(condition.numpy().reshape(-1)[0]) != 0:
            if isinstance(while_body, Graph):
                capture_launch(while_body)
            else:
                while_body(**kwargs)
        return
    body_graph = _subgraph(while_body, kwargs, condition.device)

    def still_true(buffers: list) -> Any:
        saved = condition.root._buffer  # the condition's root comes first in ``roots``
        try:
            condition.root._buffer = buffers[0]
            return _flag(condition)
        finally:
            condition.root._buffer = saved

    def step() -> None:
        roots = _union_roots(condition, body_graph)
        results = jax.lax.while_loop(still_true, _branch_fn(body_graph, roots), [r._buffer for r in roots])
        for root, buf in zip(roots, results):
            root._buffer = buf

    _record_branches(step, condition, body_graph)


class CaptureMode(enum.IntEnum):
    """CUDA stream-capture modes (Warp's ``wp.CaptureMode``); accepted by :func:`capture_begin` and
    :class:`ScopedCapture` for compatibility. jwarp's captures record at the API level, so the mode
    changes nothing."""

    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


def is_conditional_graph_supported() -> bool:
    """Conditional graph nodes (:func:`capture_if`, :func:`capture_while`) work on every jwarp device."""
    return True


def capture_debug_dot_print(graph: Graph, path: str, verbose: bool = False) -> None:
    """Write the captured operations of ``graph`` as a GraphViz ``dot`` chain to ``path``."""
    lines = ["digraph jwarp_graph {", "  rankdir=TB;"]
    for k, step in enumerate(graph._steps):
        label = getattr(step, "__qualname__", type(step).__name__).replace('"', "'")
        lines.append(f'  op{k} [label="{k}: {label}"];')
        if k:
            lines.append(f"  op{k - 1} -> op{k};")
    if verbose:
        for k, root in enumerate(graph._roots):
            lines.append(f'  array{k} [shape=box, label="array {root.shape} {getattr(root.dtype, "__name__", root.dtype)}"];')
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class ScopedCapture:
    """``with wp.ScopedCapture() as capture: ...`` then ``wp.capture_launch(capture.graph)``.

    Attributes:
        graph: the captured :class:`Graph`, set when the block exits.
        active: whether the capture is in progress.
    """

    def __init__(self, device: Any = None, stream: Any = None, force_module_load: bool | None = None,
                 external: bool = False, apic: bool = False, capture_mode: Any = None):
        self.device = device
        self.stream = stream
        self.force_module_load = force_module_load
        self.external = external
        self.apic = apic
        self.active = False
        self.graph: Graph | None = None

    def __enter__(self) -> ScopedCapture:
        capture_begin(self.device, self.stream, self.force_module_load, self.external, self.apic)
        self.active = True
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        global _capture
        if not self.active:
            return
        self.active = False
        if exc_type is not None:  # the block failed: drop the partial capture
            _capture = None
            return
        self.graph = capture_end(self.device, self.stream)


__all__ = ["CaptureMode", "Graph", "ScopedCapture", "capture_begin", "capture_debug_dot_print", "capture_end",
           "capture_if", "capture_launch", "capture_while", "deferred", "is_conditional_graph_supported", "record",
           "recording", "refuse", "saveable"]
