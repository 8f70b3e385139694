"""Topological order of a graph, computed iteratively.

Python's recursion limit would stop a recursive walk at about a thousand
nodes; every walk here uses an explicit stack, so a chain of a million nodes
is as easy as a chain of ten.
"""

from __future__ import annotations

from funcgrad.graph.node import Node


def toposort(*roots: Node) -> list[Node]:
    """Return every node reachable from `roots`, inputs before the nodes using them.

    An iterative depth-first search that emits a node after all of its
    inputs (post-order). Each node appears once, however many paths lead to
    it.

    Args:
        *roots: Output nodes.

    Returns:
        The nodes in forward (evaluation) order. Reversed, it is the order a
        backward pass visits them.

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf(1.0)
        >>> y = fg.numpy.sin(x) * x
        >>> [n.prim.name if n.prim else "leaf" for n in toposort(y)]
        ['leaf', 'sin', 'multiply']
    """
    order: list[Node] = []
    visited: set[int] = set()
    # Entries are (node, expanded): a node is pushed once to expand its
    # inputs and once more, beneath them, to be emitted after them.
    stack = [(root, False) for root in reversed(roots)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for inp in reversed(node.inputs):
            if type(inp) is Node and id(inp) not in visited:
                stack.append((inp, False))
    return order
