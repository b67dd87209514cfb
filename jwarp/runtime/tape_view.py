"""``Tape.visualize``: the recorded launches as a GraphViz ``dot`` graph.

Arrays are ellipses (green when they require gradients), launches are boxes; an edge goes
from every array a launch reads to the launch and from the launch to every array it writes.
Render with ``dot -Tsvg tape.dot -o tape.svg``.
"""

from __future__ import annotations

from typing import Any


def _label(a: Any, labels: dict, names: dict) -> str:
    if a in labels:
        return str(labels[a])
    return names.get(id(a.root), f"array{len(names)}")


def tape_to_dot(tape: Any, array_labels: dict | None = None, graph_direction: str = "LR",
                hide_readonly_arrays: bool = False, **_ignored: Any) -> str:
    """GraphViz text for ``tape`` (options not listed are accepted for Warp compatibility)."""
    from jwarp.runtime.tape_chain import CopyRecord, DeferredLaunch, LaunchRecord

    labels = array_labels or {}
    lines = ["digraph Tape {", f"\trankdir={graph_direction};", "\tnode [fontname=Helvetica];"]
    nodes: dict[int, str] = {}
    names: dict[int, str] = {}
    written: set[int] = set()
    edges: list[str] = []

    def array_node(a: Any, name: str) -> str:
        root = a.root
        key = id(root)
        if key not in nodes:
            names.setdefault(key, name)
            nodes[key] = f"arr{len(nodes)}"
            color = "#76B900" if root.requires_grad else "lightgray"
            text = _label(a, labels, names).replace('"', "'")
            lines.append(f'\t{nodes[key]} [label="{text}", shape=ellipse, style=filled, fillcolor="{color}"];')
        return nodes[key]

    for k, entry in enumerate(tape.launches):
        launch_id = f"launch{k}"
        if isinstance(entry, (LaunchRecord, DeferredLaunch)):
            kernel = entry[0]
            lines.append(f'\t{launch_id} [label="{kernel.key}", shape=box, style=filled, fillcolor="#dddddd"];')
            names_of = kernel.arg_names
            args = [*entry[3], *entry[4]]
            writes = set(entry.out_bufs) if isinstance(entry, LaunchRecord) else set()
            bases = entry.bases if isinstance(entry, LaunchRecord) else []
            for name, a in zip(names_of, args):
                if not hasattr(a, "root"):
                    continue
                node = array_node(a, name)
                wrote = any(bases[i] is a.root for i in writes) if bases else name in names_of[len(entry[3]):]
                if wrote:
                    written.add(id(a.root))
                    edges.append(f"\t{launch_id} -> {node};")
                else:
                    edges.append(f"\t{node} -> {launch_id};")
        elif isinstance(entry, CopyRecord):
            lines.append(f'\t{launch_id} [label="copy", shape=box];')
            edges.append(f"\t{array_node(entry.src, 'src')} -> {launch_id};")
            edges.append(f"\t{launch_id} -> {array_node(entry.dest, 'dest')};")
            written.add(id(entry.dest.root))
        else:
            lines.append(f'\t{launch_id} [label="{getattr(entry, "__name__", "func")}", shape=box, style=dashed];')
    if hide_readonly_arrays:
        hidden = {node for key, node in nodes.items() if key not in written}
        lines = [ln for ln in lines if not any(ln.startswith(f"\t{h} ") for h in hidden)]
        edges = [e for e in edges if not any(f"{h} " in e or e.endswith(f"{h};") for h in hidden)]
    lines.extend(edges)
    lines.append("}")
    return "\n".join(lines) + "\n"
