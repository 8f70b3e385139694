"""Topological order of a graph, computed iteratively.

Python's recursion limit would stop a recursive walk at about a thousand
nodes; every walk here uses an explicit stack, so a chain of a million nodes
is as easy as a chain of ten.
"""

from __future__ import annotations

from operator import attrgetter

from funcgrad.graph.node import Node


def toposort(*roots: Node) -> list[Node]:
    """Return every node reachable from `roots`, inputs before the nodes using them.

    Nodes are numbered as they are made (`Node.seq`), and a node is always
    made after its inputs, so creation order is a topological order: an
    iterative search collects the reachable nodes and a sort by `seq`
    orders them. Each node appears once, however many paths lead to it.

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
    nodes = list(dict.fromkeys(roots))
    seen = set(nodes)  # nodes hash by identity, in C
    add, keep = seen.add, nodes.append
    # Collect, breadth first: the loop visits the nodes it appends (each once, when first seen).
    for node in nodes:
        for inp in node.inputs:
            if type(inp) is Node and inp not in seen:
                add(inp)
                keep(inp)
    nodes.sort(key=_creation_order)
    return nodes


_creation_order = attrgetter("seq")
