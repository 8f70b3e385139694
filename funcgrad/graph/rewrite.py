"""Graph rewriting with structural sharing.

To "change" an immutable graph, build new nodes for everything downstream of
the change and share every node upstream of it. Values are kept, not
recomputed: rewrites here only change how gradients flow.
"""

from __future__ import annotations

from collections.abc import Callable

from funcgrad.graph.node import Node, make_node
from funcgrad.graph.order import toposort


def substitute(
    roots: tuple[Node, ...],
    replacements: dict[Node, Node | Callable[[Node], Node]],
    mapping: dict[int, Node] | None = None,
) -> tuple[Node, ...]:
    """Return `roots` rebuilt with some nodes replaced.

    Every node that (transitively) uses a replaced node is rebuilt with the
    replacement in its inputs; all other nodes are shared with the original
    graph, which is left unchanged.

    Args:
        roots: The output nodes of the graph.
        replacements: `{node: new}` where `new` is a node of the same shape
            and dtype, or a function `new(rebuilt)` that is given the node
            rebuilt on its own replaced inputs (itself if none changed) and
            returns its replacement: this is how a replacement can wrap a
            node whose inputs were replaced too.

        mapping: If given, filled with `{id(old): new}` for every node
            rebuilt on replaced inputs (`new` is the node before its own
            replacement is applied).

    Returns:
        The new roots, in the same order (a root that needed no change is
        returned as it is).

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf(1.0)
        >>> y = x * 2.0 + 1.0
        >>> (y2,) = substitute((y,), {x: fg.leaf(5.0)})
        >>> y2 is y, y2.inputs[0].inputs[0] is x, y2.value
        (False, False, np.float64(3.0))
    """
    new: dict[int, Node] = {}
    # Inputs come first, so each node sees its inputs' replacements.
    for node in toposort(*roots):
        inputs = node.inputs
        rebuilt = node
        if any(type(i) is Node and id(i) in new for i in inputs):
            ins = tuple(new.get(id(i), i) if type(i) is Node else i for i in inputs)
            rebuilt = make_node(node.prim, ins, node.params, node.value)
            if mapping is not None:
                mapping[id(node)] = rebuilt
        repl = replacements.get(node, rebuilt)
        if callable(repl):  # a node is not callable
            repl = repl(rebuilt)
        if repl is not node:
            new[id(node)] = repl
    return tuple(new.get(id(r), r) for r in roots)
