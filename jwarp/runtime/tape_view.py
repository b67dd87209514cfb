"""``Tape.visualize``: the recorded launches as a GraphViz ``dot`` graph.

Arrays are ellipses (green when they require gradients; the tooltip gives dtype and shape),
launches are boxes; an edge goes from every array a launch reads to the launch and from the
launch to every array it writes. Scopes (``record_scope_begin``/``end``) are clusters. With
``simplify_graph`` (the default, as in Warp) a run of launches that repeats back to back (same
kernels on the same arrays, e.g. a time-stepping loop) is drawn once in a cluster labelled
``repeated Nx`` (``<scope> (repeated Nx)`` when a scope spans exactly that run).
Render with ``dot -Tsvg tape.dot -o tape.svg``.

Example:
    >>> dot = tape.visualize("tape.dot")   # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from jwarp.lang.introspection import type_repr
from jwarp.runtime.tape_chain import CopyRecord, DeferredLaunch, LaunchRecord


def _label(a: Any, labels: dict, names: dict) -> str:
    if a in labels:
        return str(labels[a])
    return names.get(id(a.root), f"array{len(names)}")


def _signature(entry: Any) -> tuple:
    """What makes two recorded operations the same step of a repeated run."""
    if isinstance(entry, (LaunchRecord, DeferredLaunch)):
        args = [*entry[3], *entry[4]]
        return (id(entry[0]), tuple(id(a.root) if hasattr(a, "root") else type(a).__name__ for a in args))
    if isinstance(entry, CopyRecord):
        return ("copy", id(entry.src.root), id(entry.dest.root))
    return ("func", id(entry))


def _repetitions(sigs: list, boundaries: set) -> list[tuple[int, int, int]]:
    """Greedy back-to-back repeats: ``(start, period, count)`` covering the most launches at each
    start; no scope boundary may fall strictly inside a repeated run."""
    runs, i, n = [], 0, len(sigs)
    while i < n:
        best = None
        for period in range(1, (n - i) // 2 + 1):
            if any(i < b < i + period for b in boundaries):
                break
            count = 1
            while (sigs[i + count * period : i + (count + 1) * period] == sigs[i : i + period]
                   and not any(i < b < i + (count + 1) * period for b in boundaries)):
                count += 1
            if count >= 2:
                if best is None or count * period > best[1] * best[2]:
                    best = (i, period, count)
        if best is None:
            i += 1
        else:
            runs.append(best)
            i = best[0] + best[1] * best[2]
    return runs


def tape_to_dot(tape: Any, array_labels: dict | None = None, graph_direction: str = "LR",
                hide_readonly_arrays: bool = False, simplify_graph: bool = True, ignore_graph_scopes: bool = False,
                **_ignored: Any) -> str:
    """GraphViz text for ``tape`` (options not listed are accepted for Warp compatibility)."""
    labels = array_labels or {}
    lines = ["digraph Tape {", f"\trankdir={graph_direction};", "\tnode [fontname=Helvetica];"]
    nodes: dict[int, str] = {}
    names: dict[int, str] = {}
    written: set[int] = set()
    edges: list[str] = []

    def array_node(a: Any, name: str, indent: str) -> str:
        root = a.root
        key = id(root)
        if key not in nodes:
            names.setdefault(key, name)
            nodes[key] = f"arr{len(nodes)}"
            color = "#76B900" if root.requires_grad else "lightgray"
            text = _label(a, labels, names).replace('"', "'")
            tip = f"array: dtype={type_repr(a.dtype)}, shape={tuple(a.shape)}, requires_grad={root.requires_grad}"
            lines.append(f'{indent}{nodes[key]} [label="{text}", shape=ellipse, style=filled, '
                         f'fillcolor="{color}", tooltip="{tip}"];')
        return nodes[key]

    def render(k: int, entry: Any, indent: str) -> None:
        launch_id = f"launch{k}"
        if isinstance(entry, (LaunchRecord, DeferredLaunch)):
            kernel = entry[0]
            lines.append(f'{indent}{launch_id} [label="{kernel.key}", shape=box, style=filled, fillcolor="#dddddd"];')
            names_of = kernel.arg_names
            args = [*entry[3], *entry[4]]
            writes = set(entry.out_bufs) if isinstance(entry, LaunchRecord) else set()
            bases = entry.bases if isinstance(entry, LaunchRecord) else []
            for name, a in zip(names_of, args):
                if not hasattr(a, "root"):
                    continue
                node = array_node(a, name, indent)
                wrote = any(bases[i] is a.root for i in writes) if bases else name in names_of[len(entry[3]):]
                if wrote:
                    written.add(id(a.root))
                    edges.append(f"\t{launch_id} -> {node};")
                else:
                    edges.append(f"\t{node} -> {launch_id};")
        elif isinstance(entry, CopyRecord):
            lines.append(f'{indent}{launch_id} [label="copy", shape=box];')
            edges.append(f"\t{array_node(entry.src, 'src', indent)} -> {launch_id};")
            edges.append(f"\t{launch_id} -> {array_node(entry.dest, 'dest', indent)};")
            written.add(id(entry.dest.root))
        else:
            lines.append(f'{indent}{launch_id} [label="{getattr(entry, "__name__", "func")}", shape=box, style=dashed];')

    entries = list(tape.launches)
    scopes = [] if ignore_graph_scopes else list(tape.scopes)
    # scope events: opening names per launch index, number of closings per launch index
    opens: dict[int, list] = {}
    closes: dict[int, int] = {}
    stack: list = []
    for index, name, _ in scopes:
        if name is not None:
            opens.setdefault(index, []).append(name)
            stack.append((index, name))
        elif stack:
            closes[index] = closes.get(index, 0) + 1
            stack.pop()
    boundaries = set(opens) | set(closes)
    runs = _repetitions([_signature(e) for e in entries], boundaries) if simplify_graph else []
    run_at = {start: (period, count) for start, period, count in runs}
    hidden = {i for start, period, count in runs for i in range(start + period, start + period * count)}

    cluster = [0]
    depth = [1]

    def open_cluster(label: str) -> None:
        indent = "\t" * depth[0]
        lines.append(f"{indent}subgraph cluster{cluster[0]} {{")
        lines.append(f'{indent}\tlabel="{label}"; style=rounded;')
        cluster[0] += 1
        depth[0] += 1

    def close_cluster() -> None:
        depth[0] -= 1
        lines.append("\t" * depth[0] + "}")

    repeat_end: list[int] = []
    for k, entry in enumerate(entries + [None]):
        while repeat_end and repeat_end[-1] == k:  # a repetition cluster sits inside the scopes around it
            repeat_end.pop()
            close_cluster()
        for _ in range(closes.get(k, 0)):
            close_cluster()
        if entry is None:
            break
        names_here = opens.get(k, [])
        if k in run_at:
            period, count = run_at[k]
            end = k + period * count
            # the innermost scope opened here and closed at the run's end takes the repetition's label
            merged = names_here and closes.get(end, 0) > 0
            for i, name in enumerate(names_here):
                last = i == len(names_here) - 1
                open_cluster(f"{name} (repeated {count}x)" if merged and last else name)
            if not merged:
                open_cluster(f"repeated {count}x")
                repeat_end.append(end)
        else:
            for name in names_here:
                open_cluster(name)
        if k not in hidden:
            render(k, entry, "\t" * depth[0])
    while depth[0] > 1:
        close_cluster()
    if hide_readonly_arrays:
        hidden_nodes = {node for key, node in nodes.items() if key not in written}
        lines = [ln for ln in lines if not any(ln.lstrip("\t").startswith(f"{h} ") for h in hidden_nodes)]
        edges = [e for e in edges if not any(f"{h} " in e or e.endswith(f"{h};") for h in hidden_nodes)]
    lines.extend(dict.fromkeys(edges))  # a repeated launch draws its edges once
    lines.append("}")
    return "\n".join(lines) + "\n"
