"""Pictures of a graph: Mermaid text and Graphviz DOT.

`to_mermaid` and `to_dot` draw the forward graph (one box per node: its
primitive, or "leaf", with its shape and dtype; one arrow per input, from
the input to the node using it; constants as small separate nodes) and,
given the gradients of a backward pass, that pass too: dashed arrows
against the forward direction, each labelled with the cotangent it carries.

Both share one layout (`_layout`), computed with the iterative `toposort`,
so a graph of any depth can be drawn and node ids (`n0`, `n1`, ... in
evaluation order) are the same each time the same graph is drawn.
Tensors of the imperative layer are accepted through duck typing (anything
with a `_node` attribute), so this module needs nothing above `graph`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from funcgrad.graph.node import Node
from funcgrad.graph.order import toposort

__all__ = ["to_dot", "to_mermaid"]

# Colours shared by both renderers. The backward red reads at WCAG AA on white (5.6:1), where
# Graphviz writes labels in it; on the docs site, Material colours the text of labels and boxes
# itself (docs/assets/stylesheets/extra.css sets it dark on these light fills in dark mode).
_BACKWARD_COLOR = "#c62828"
_LEAF_FILL = "#e8f1fb"
_CONST_FILL = "#f4f4f4"
# Text on those light fills stays dark whatever the page's palette (WCAG AA: 14:1).
_TEXT_ON_FILL = "#1f1f1f"


def to_mermaid(
    *roots: Any,
    grads: Mapping[Any, Any] | None = None,
    names: Mapping[Any, Any] | None = None,
    direction: str = "LR",
    max_values: int = 4,
) -> str:
    """Return the graph behind `roots` (and its backward pass) as Mermaid flowchart text.

    Each node is a box with its primitive name (or "leaf"), shape and dtype;
    each solid arrow goes from an input to the node that uses it. Constants
    (Python numbers, arrays that are not nodes) are small rounded boxes.
    With `grads`, dashed red arrows show the backward pass: one against
    every forward arrow that a cotangent flows along on its way from the
    roots to the nodes in `grads`, plus a `seed` arrow into each root.

    An arrow labelled with values carries the whole cotangent of the node
    it points to. Where several arrows point into one node, each carries a
    part of it (labelled with its shape only) and the node's box shows the
    sum. Values are printed only for arrays of at most `max_values` entries.

    Paste the text into a ` ```mermaid ` block of a Markdown page (or
    <https://mermaid.live>) to see it.

    Args:
        *roots: Output nodes, or tensors (anything with a `_node` attribute).
        grads: Gradients of a backward pass, `{node: cotangent}`: a
            `GradMap` from `funcgrad.backward`, or a dict keyed by nodes or
            tensors. Pass `wrt=funcgrad.toposort(out)` to `backward` to get
            (and draw) the cotangent of every node. Nodes that are not in
            the drawn graph are ignored.
        names: Optional `{node: name}` (nodes or tensors) for boxes to
            label with a variable name, e.g. `{x: "x"}`.
        direction: Mermaid's flow direction: `"LR"` (left to right) or
            `"TB"` (top to bottom), also `"RL"`, `"BT"`.
        max_values: Print the values of cotangents and constants with at
            most this many entries (0: never).

    Returns:
        The Mermaid text, starting with `flowchart`.

    Raises:
        TypeError: If a root is neither a node nor a tensor with a graph.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> x = fg.leaf([1.0, 2.0])
        >>> y = fnp.sum(x * 2.0)
        >>> print(fg.to_mermaid(y, names={x: "x"}))
        flowchart LR
          n0["x: leaf<br/>(2,) float64"]
          c0(["2.0"])
          n1["multiply<br/>(2,) float64"]
          n2["sum<br/>() float64"]
          n0 --> n1
          c0 --> n1
          n1 --> n2
          class n0 leaf
          class c0 const
          classDef leaf fill:#e8f1fb,stroke:#4a78b0,color:#1f1f1f
          classDef const fill:#f4f4f4,stroke:#999,color:#1f1f1f,font-size:11px

        With the gradients of a backward pass:

        >>> grads = fg.backward(y, wrt=fg.toposort(y))
        >>> text = fg.to_mermaid(y, grads=grads)
        >>> print("\\n".join(line for line in text.splitlines() if "-.->" in line))
          n1 -.->|"ct (2,) float64<br/>[2.0, 2.0]"| n0
          n2 -.->|"ct (2,) float64<br/>[1.0, 1.0]"| n1
          s0 -.->|"ct () float64<br/>1.0"| n2
    """
    layout = _layout(roots, grads, names, max_values)
    if direction not in ("LR", "RL", "TB", "TD", "BT"):
        raise ValueError(
            f"funcgrad.to_mermaid: direction must be LR, RL, TB or BT, got {direction!r}"
        )
    lines = [f"flowchart {direction}"]
    for ident, kind, label in layout.nodes:
        text = _mermaid_text(label)
        if kind == "const":
            lines.append(f'  {ident}(["{text}"])')
        elif kind == "seed":
            lines.append(f'  {ident}(("{text}"))')
        else:
            lines.append(f'  {ident}["{text}"]')
    for src, dst in layout.edges:
        lines.append(f"  {src} --> {dst}")
    backward_links: list[int] = []
    for src, dst, label in layout.back_edges:
        backward_links.append(len(layout.edges) + len(backward_links))
        lines.append(f'  {src} -.->|"{_mermaid_text(label)}"| {dst}')
    for kind in ("leaf", "const", "seed"):
        members = [ident for ident, k, _ in layout.nodes if k == kind]
        if members:
            lines.append(f"  class {','.join(members)} {kind}")
    lines.append(f"  classDef leaf fill:{_LEAF_FILL},stroke:#4a78b0,color:{_TEXT_ON_FILL}")
    lines.append(
        f"  classDef const fill:{_CONST_FILL},stroke:#999,color:{_TEXT_ON_FILL},font-size:11px"
    )
    if layout.back_edges:
        lines.append(
            f"  classDef seed fill:#fff,stroke:{_BACKWARD_COLOR},color:{_TEXT_ON_FILL},font-size:11px"
        )
        indices = ",".join(str(i) for i in backward_links)
        lines.append(f"  linkStyle {indices} stroke:{_BACKWARD_COLOR},color:{_BACKWARD_COLOR}")
    return "\n".join(lines)


def to_dot(
    *roots: Any,
    grads: Mapping[Any, Any] | None = None,
    names: Mapping[Any, Any] | None = None,
    direction: str = "LR",
    max_values: int = 4,
) -> str:
    """Return the graph behind `roots` (and its backward pass) as Graphviz DOT text.

    The same picture as `to_mermaid`, for Graphviz: render it with
    `dot -Tsvg graph.dot -o graph.svg` (or the `graphviz` Python package).
    Backward arrows are dashed, red and marked `constraint=false`, so the
    layout follows the forward graph alone.

    Args:
        *roots: Output nodes, or tensors (anything with a `_node` attribute).
        grads: Gradients of a backward pass, `{node: cotangent}` (see
            `to_mermaid`).
        names: Optional `{node: name}` for boxes to label with a name.
        direction: Graphviz `rankdir`: `"LR"`, `"RL"`, `"TB"` or `"BT"`.
        max_values: Print values of arrays with at most this many entries.

    Returns:
        The DOT text of one `digraph`.

    Raises:
        TypeError: If a root is neither a node nor a tensor with a graph.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> x = fg.leaf(3.0)
        >>> y = fnp.sin(x)
        >>> print(fg.to_dot(y, grads=fg.backward(y)))
        digraph funcgrad {
          rankdir=LR;
          node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica", fontsize=12];
          edge [fontname="Helvetica", fontsize=10];
          n0 [label="leaf\\n() float64", fillcolor="#e8f1fb"];
          n1 [label="sin\\n() float64"];
          s0 [label="seed", shape=circle, fontsize=9, color="#c62828"];
          n0 -> n1;
          n1 -> n0 [style=dashed, color="#c62828", fontcolor="#c62828", constraint=false, label="ct () float64\\n-0.99"];
          s0 -> n1 [style=dashed, color="#c62828", fontcolor="#c62828", constraint=false, label="ct () float64"];
        }
    """
    layout = _layout(roots, grads, names, max_values)
    if direction not in ("LR", "RL", "TB", "BT"):
        raise ValueError(f"funcgrad.to_dot: direction must be LR, RL, TB or BT, got {direction!r}")
    lines = [
        "digraph funcgrad {",
        f"  rankdir={direction};",
        '  node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica", fontsize=12];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for ident, kind, label in layout.nodes:
        text = _dot_text(label)
        if kind == "leaf":
            lines.append(f'  {ident} [label="{text}", fillcolor="{_LEAF_FILL}"];')
        elif kind == "const":
            lines.append(
                f'  {ident} [label="{text}", shape=box, style="rounded,filled", '
                f'fillcolor="{_CONST_FILL}", fontsize=9];'
            )
        elif kind == "seed":
            lines.append(
                f'  {ident} [label="{text}", shape=circle, fontsize=9, color="{_BACKWARD_COLOR}"];'
            )
        else:
            lines.append(f'  {ident} [label="{text}"];')
    for src, dst in layout.edges:
        lines.append(f"  {src} -> {dst};")
    for src, dst, label in layout.back_edges:
        lines.append(
            f'  {src} -> {dst} [style=dashed, color="{_BACKWARD_COLOR}", '
            f'fontcolor="{_BACKWARD_COLOR}", constraint=false, label="{_dot_text(label)}"];'
        )
    lines.append("}")
    return "\n".join(lines)


# --- the layout shared by both renderers -------------------------------------


class _Layout:
    """What to draw: nodes `(id, kind, label lines)`, edges, backward edges."""

    __slots__ = ("nodes", "edges", "back_edges")

    def __init__(self) -> None:
        self.nodes: list[tuple[str, str, list[str]]] = []
        self.edges: list[tuple[str, str]] = []
        self.back_edges: list[tuple[str, str, list[str]]] = []


def _as_node(obj: Any, what: str) -> Node:
    """Return the graph node of a node or tensor (duck-typed: a `_node` attribute)."""
    if type(obj) is Node:
        return obj
    if hasattr(obj, "_node"):
        node = obj._node
        if type(node) is Node:
            return node
        raise TypeError(
            f"funcgrad.to_mermaid/to_dot: the {type(obj).__name__} given as {what} has no "
            f"graph (it does not require grad); build it from tensors with "
            f"requires_grad=True, or from funcgrad.leaf values"
        )
    raise TypeError(
        f"funcgrad.to_mermaid/to_dot: {what} must be graph nodes or tensors, got "
        f"{type(obj).__name__}"
    )


def _layout(
    roots: tuple[Any, ...],
    grads: Mapping[Any, Any] | None,
    names: Mapping[Any, Any] | None,
    max_values: int,
) -> _Layout:
    if not roots:
        raise TypeError("funcgrad.to_mermaid/to_dot: give at least one output to draw")
    roots = tuple(_as_node(r, "an output") for r in roots)
    order = toposort(*roots)
    ids = {id(node): f"n{i}" for i, node in enumerate(order)}
    named = {id(_as_node(k, "a key of names")): str(v) for k, v in (names or {}).items()}
    cts: dict[int, Any] = {}
    if grads is not None:
        for key, ct in grads.items():
            node = _as_node(key, "a key of grads")
            if id(node) in ids:
                cts[id(node)] = ct

    # Backward part: the nodes a cotangent passes on its way from the roots
    # to the nodes in grads, i.e. those that depend on a node in grads (one
    # forward sweep, inputs first), and the input edges that carry one.
    on_path: set[int] = set()
    back_edges_of: dict[int, list[tuple[Node, Node]]] = {}  # input -> [(user, input)]
    if cts:
        for node in order:
            if id(node) in cts:
                on_path.add(id(node))
            vjp = getattr(node.prim, "vjp", None)
            for i, inp in enumerate(node.inputs):
                if type(inp) is not Node or id(inp) not in on_path:
                    continue
                if type(vjp) is tuple and i < len(vjp) and vjp[i] is None:
                    continue  # the rule declares no gradient for this input
                on_path.add(id(node))
                back_edges_of.setdefault(id(inp), []).append((node, inp))

    layout = _Layout()
    const_count = 0
    for node in order:
        ident = ids[id(node)]
        # Constants first, so each appears just before the node using it.
        for inp in node.inputs:
            if type(inp) is not Node:
                const_id = f"c{const_count}"
                const_count += 1
                layout.nodes.append((const_id, "const", [_describe_constant(inp, max_values)]))
                layout.edges.append((const_id, ident))
            else:
                layout.edges.append((ids[id(inp)], ident))
        title = "leaf" if node.prim is None else node.prim.name
        if id(node) in named:
            title = f"{named[id(node)]}: {title}"
        label = [title, f"{_shape_text(node.value)} {node.dtype}"]
        edges_in = back_edges_of.get(id(node), ())
        if id(node) in cts and len(edges_in) > 1:
            label.append(_describe_sum(cts[id(node)], max_values))
        layout.nodes.append((ident, "leaf" if node.prim is None else "op", label))
    # Forward edges are listed per user node above; backward edges run from
    # each user to its input, in evaluation order of the inputs.
    for node in order:
        edges_in = back_edges_of.get(id(node), ())
        whole = len(edges_in) == 1
        for user, inp in edges_in:
            ct = cts.get(id(inp))
            if whole and ct is not None:
                label = _describe_ct(ct, max_values)
            else:
                label = [f"ct {_shape_text(inp.value)} {inp.dtype}"]
            layout.back_edges.append((ids[id(user)], ids[id(inp)], label))
    if cts:
        # Each root that starts the backward pass gets a seed arrow.
        for k, root in enumerate(r for r in dict.fromkeys(roots) if id(r) in on_path):
            seed = f"s{k}"
            layout.nodes.append((seed, "seed", ["seed"]))
            ct = cts.get(id(root))
            label = (
                _describe_ct(ct, max_values)
                if ct is not None
                else [f"ct {_shape_text(root.value)} {root.dtype}"]
            )
            layout.back_edges.append((seed, ids[id(root)], label))
    return layout


# --- labels --------------------------------------------------------------------


def _array_of(v: Any) -> Any:
    """The array behind a cotangent: a node's value, a tensor, or the array itself."""
    if type(v) is Node:
        return v.value
    return v


def _shape_text(v: Any) -> str:
    return str(tuple(getattr(v, "shape", ())))


def _size(v: Any) -> int:
    """The number of entries (from the shape: a tensor's `size` is a method)."""
    n = 1
    for side in getattr(v, "shape", ()):
        n *= side
    return n


def _format_number(x: object) -> str:
    # float(x), int(x): NumPy scalars (np.float64 is a float) print as plain numbers.
    if isinstance(x, float):
        x = float(x)
        return repr(x) if x.is_integer() and abs(x) < 1e16 else f"{x:.4g}"
    if isinstance(x, complex):
        x = complex(x)
        return f"{x.real:.4g}{x.imag:+.4g}j"
    if isinstance(x, int) and not isinstance(x, bool):
        return str(int(x))
    return str(x)


def _format_values(v: Any) -> str:
    values = v.tolist() if hasattr(v, "tolist") else v
    # Format a nested list iteratively (no recursion, however deep the array).
    out: list[str] = []
    stack: list[Any] = [values]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            parts: list[Any] = ["["]
            for j, sub in enumerate(item):
                if j:
                    parts.append(", ")
                parts.append(sub)
            parts.append("]")
            stack.extend(reversed(parts))
        else:
            out.append(_format_number(item))
    return "".join(out)


def _describe_ct(ct: Any, max_values: int) -> list[str]:
    """Label lines of a cotangent: `ct shape dtype`, then its values if it is tiny."""
    arr = _array_of(ct)
    head = f"ct {_shape_text(arr)} {getattr(arr, 'dtype', type(arr).__name__)}"
    if _size(arr) <= max_values:
        return [head, _format_values(arr)]
    return [head]


def _describe_sum(ct: Any, max_values: int) -> str:
    """The label line of a node whose cotangent arrives in several parts."""
    lines = _describe_ct(ct, max_values)
    return "Σ " + (f"ct = {lines[1]}" if len(lines) > 1 else lines[0])


def _describe_constant(c: Any, max_values: int) -> str:
    if isinstance(c, (bool, int, float, complex)):
        return _format_number(c)
    if hasattr(c, "shape") and _size(c) <= max_values:
        return _format_values(c)
    return f"const {_shape_text(c)} {getattr(c, 'dtype', type(c).__name__)}"


def _mermaid_text(lines: list[str]) -> str:
    """Escape label lines for a quoted Mermaid label (entity codes), joined by line breaks."""
    escaped = []
    for line in lines:
        line = line.replace("#", "#35;")  # first: the entity codes below contain '#'
        for char, code in (
            ('"', "#quot;"),
            ("<", "#lt;"),
            (">", "#gt;"),
            ("`", "#96;"),
            ("|", "#124;"),
            ("&", "#amp;"),
        ):
            line = line.replace(char, code)
        escaped.append(line)
    return "<br/>".join(escaped)


def _dot_text(lines: list[str]) -> str:
    """Escape label lines for a double-quoted DOT string, joined by `\\n`."""
    return "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)
