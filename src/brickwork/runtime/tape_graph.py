"""``Tape.visualize``: the recorded launches as a GraphViz graph (DOT text).

Each launch is a node listing the kernel's input parameters on the left and its output parameters
on the right; each array is an ellipse, with an edge into the launch that reads it and one from the
launch that writes it. Scopes (``Tape.record_scope_begin``) are clusters. With ``simplify_graph``,
consecutive launches of one kernel with the same arguments are drawn once, marked "repeated Nx".
Render the text with GraphViz (``dot -Tsvg graph.dot -o graph.svg``).
"""

from __future__ import annotations

import html

from ..types.arrays import array, type_name

_ARRAY_COLOR = "#76B900"
_TRACKED_COLOR = "#E8A33D"
_READONLY_COLOR = "#CCCCCC"
_SCOPE_COLORS = ("#0072B9", "#76B900", "#B94A00", "#7A3DB8")


def tape_to_dot(tape, simplify_graph: bool = True, hide_readonly_arrays: bool = False, array_labels=None,
                choose_longest_node_name: bool = True, ignore_graph_scopes: bool = False, track_inputs=None,
                track_outputs=None, track_input_names=None, track_output_names=None,
                graph_direction: str = "LR") -> str:
    """The DOT text of ``tape``'s recorded launches (the arguments are those of ``Tape.visualize``)."""
    if graph_direction not in ("LR", "RL", "TB", "BT"):
        raise ValueError(f"Tape.visualize: graph_direction must be one of LR, RL, TB, BT, got {graph_direction!r}")
    labels = _ArrayLabels(array_labels, choose_longest_node_name)
    tracked = {}
    for arrays, names, kind in ((track_inputs, track_input_names, "input"),
                                (track_outputs, track_output_names, "output")):
        arrays = list(arrays or ())
        names = list(names or ())
        if names and len(names) != len(arrays):
            raise ValueError(f"Tape.visualize: track_{kind}_names has {len(names)} names for {len(arrays)} arrays")
        for k, a in enumerate(arrays):
            tracked[id(a)] = names[k] if names else f"{kind} {k}"
            if names:
                labels.force(a, names[k])
    launches = [(i, e) for i, e in enumerate(tape.launches) if not callable(e)]
    boundaries = {index for index, _, _ in tape.scopes} if not ignore_graph_scopes else set()
    groups = _groups(launches, simplify_graph, boundaries)
    written = {id(a) for _, e in launches for a in e[3] if isinstance(a, array)}
    for _, e in launches:  # arrays a kernel writes through its inputs (x[i] = ...) count as written too
        for a in _written_inputs(e):
            written.add(id(a))
    for _, e in launches:
        _name_arrays(e, labels)

    out = ["digraph tape {", f"rankdir={graph_direction};", 'node [fontname="Helvetica"];']
    declared: set = set()
    scopes = [] if ignore_graph_scopes else list(tape.scopes)
    depth = 0
    scope_iter = iter(scopes)
    pending = next(scope_iter, None)
    cluster = 0
    for first, members in groups:
        while pending is not None and pending[0] <= first:
            if pending[1] is None:
                depth -= 1
                out.append("  " * depth + "}")
            else:
                color = _SCOPE_COLORS[cluster % len(_SCOPE_COLORS)]
                out.append("  " * depth + f"subgraph cluster_{cluster} {{")
                out.append("  " * (depth + 1) + f'style="rounded,filled"; fillcolor="{color}22"; pencolor="{color}"; '
                           f"label=<<b>{html.escape(str(pending[1]))}</b>>;")
                cluster += 1
                depth += 1
            pending = next(scope_iter, None)
        _launch_node(out, "  " * depth, first, members, labels, declared, written, tracked, hide_readonly_arrays)
    while pending is not None:  # scopes that end after the last launch
        if pending[1] is None and depth > 0:
            depth -= 1
            out.append("  " * depth + "}")
        pending = next(scope_iter, None)
    out.extend("  " * d + "}" for d in range(depth - 1, -1, -1))
    out.append("}")
    return "\n".join(out) + "\n"


def _groups(launches, simplify: bool, boundaries: set) -> list:
    """(index of the first launch, [launch entries]) for each node to draw; repeats are not merged across
    a scope's beginning or end (``boundaries``: the launch indices where one is)."""
    groups: list = []
    for index, entry in launches:
        if simplify and groups and _same_launch(groups[-1][1][-1], entry) and groups[-1][2] == index - 1 \
                and index not in boundaries:
            groups[-1][1].append(entry)
            groups[-1][2] = index
        else:
            groups.append([index, [entry], index])
    return [(first, members) for first, members, _ in groups]


def _same_launch(a, b) -> bool:
    return a[0] is b[0] and a[1] == b[1] and len(a[2]) == len(b[2]) and len(a[3]) == len(b[3]) \
        and all(x is y for x, y in zip((*a[2], *a[3]), (*b[2], *b[3])))


def _written_inputs(entry):
    kernel, _, inputs, outputs = entry[:4]
    inst_writes = _writes_of(kernel, len(inputs) + len(outputs))
    for i, a in enumerate(inputs):
        if i in inst_writes and isinstance(a, array):
            yield a


def _writes_of(kernel, nargs: int) -> set:
    """Positions of the parameters some loaded instance of ``kernel`` writes (empty when none is loaded)."""
    found: set = set()
    for inst, _ in getattr(kernel, "launch_table", {}).values():
        found.update(getattr(inst, "writes", ()))
    return {i for i in found if i < nargs}


def _name_arrays(entry, labels) -> None:
    kernel, _, inputs, outputs = entry[:4]
    names = [n for n, _ in getattr(kernel, "params", ())]
    for name, a in zip(names, (*inputs, *outputs)):
        if isinstance(a, array):
            labels.offer(a, name)


def _launch_node(out, pad, index, members, labels, declared, written, tracked, hide_readonly) -> None:
    kernel, dim, inputs, outputs = members[0][:4]
    names = [n for n, _ in getattr(kernel, "params", ())]
    title = html.escape(getattr(kernel, "key", type(kernel).__name__))
    if len(members) > 1:
        title += f" (repeated {len(members)}x)"
    node = f"launch{index}"
    rows = max(len(inputs), len(outputs), 1)
    cells = [f'<TR><TD COLSPAN="2" BGCOLOR="#FFFFFF"><b>{title}</b><br/>dim={html.escape(str(dim))}</TD></TR>']
    for r in range(rows):
        left = _port_cell("in", r, names[r] if r < len(names) else f"arg{r}", inputs[r]) if r < len(inputs) \
            else '<TD BORDER="0"></TD>'
        k = len(inputs) + r
        right = _port_cell("out", r, names[k] if k < len(names) else f"arg{k}", outputs[r]) if r < len(outputs) \
            else '<TD BORDER="0"></TD>'
        cells.append(f"<TR>{left}{right}</TR>")
    out.append(pad + f'{node} [shape=plaintext, label=<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" '
               f'CELLPADDING="4" BGCOLOR="#DDDDDD">{"".join(cells)}</TABLE>>];')
    for side, values in (("in", inputs), ("out", outputs)):
        for r, a in enumerate(values):
            if not isinstance(a, array):
                continue
            if side == "in" and hide_readonly and id(a) not in written and id(a) not in tracked:
                continue
            arr = _array_node(out, pad, a, labels, declared, written, tracked)
            out.append(pad + (f"{arr} -> {node}:in_{r};" if side == "in" else f"{node}:out_{r} -> {arr};"))


def _port_cell(side: str, row: int, name: str, value) -> str:
    if isinstance(value, array):
        tip = f"array: dtype={type_name(value.dtype)}, shape={value.shape}"
    else:
        tip = f"dtype={type_name(type(value))}, value={value!r}"
    align = "left" if side == "in" else "right"
    return (f'<TD PORT="{side}_{row}" ALIGN="{align}" BGCOLOR="#BBBBBB" TITLE="{html.escape(tip)}">'
            f"{html.escape(name)}</TD>")


def _array_node(out, pad, a, labels, declared, written, tracked) -> str:
    node = f"array{id(a)}"
    if node not in declared:
        declared.add(node)
        label = labels.get(a)
        color = _TRACKED_COLOR if id(a) in tracked else _ARRAY_COLOR if id(a) in written else _READONLY_COLOR
        tip = (f"array {label}: shape={a.shape}, dtype={type_name(a.dtype)}, requires_grad={a.requires_grad}"
               + (f", tracked as {tracked[id(a)]}" if id(a) in tracked else ""))
        out.append(pad + f'{node} [label="{_dot_text(label)}", shape=ellipse, style=filled, fillcolor="{color}", '
                   f'tooltip="{_dot_text(tip)}"];')
    return node


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


class _ArrayLabels:
    """The label of each array: given by the caller, else the names of the parameters it was passed to."""

    def __init__(self, given, longest: bool):
        self.given = {id(a): str(name) for a, name in (given or {}).items()}
        self.offered: dict = {}
        self.longest = longest

    def force(self, a, name: str) -> None:
        self.given.setdefault(id(a), name)

    def offer(self, a, name: str) -> None:
        self.offered.setdefault(id(a), []).append(name)

    def get(self, a) -> str:
        if id(a) in self.given:
            return self.given[id(a)]
        names = self.offered.get(id(a)) or ["array"]
        return max(names, key=len) if self.longest else names[0]
