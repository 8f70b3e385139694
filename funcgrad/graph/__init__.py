"""The expression graph: frozen nodes, their topological order, rewriting.

A `Node` is an immutable record of one primitive applied to input nodes (or
constants). Imports only `backend` and attrs: nothing here knows about the
primitives' math, about `Tensor`, or about the transforms that walk graphs.
"""

from funcgrad.graph.draw import to_dot, to_mermaid
from funcgrad.graph.node import Node, leaf, make_node
from funcgrad.graph.order import toposort
from funcgrad.graph.rewrite import substitute

__all__ = ["Node", "leaf", "make_node", "substitute", "to_dot", "to_mermaid", "toposort"]
