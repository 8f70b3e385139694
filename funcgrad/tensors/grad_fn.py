"""`grad_fn` objects: what `Tensor.grad_fn` returns, named like PyTorch's.

A `BackwardFunction` is a read-only view of one graph node (the operation
that made a tensor); an `AccumulateGrad` stands for a leaf tensor in
`next_functions`. Neither holds state of its own.
"""

from __future__ import annotations

from funcgrad.graph import Node
from funcgrad.tensors.tensor_class import Tensor, owner_of


class BackwardFunction:
    """What `grad_fn` returns: the backward of the operation that made a tensor.

    Attributes:
        next_functions: One `(function, 0)` pair per input of the operation:
            a `BackwardFunction`, an `AccumulateGrad` for a leaf, or `None`.
    """

    __slots__ = ("_node",)

    def __init__(self, node: Node):
        self._node = node

    def name(self) -> str:
        """Return the PyTorch-style name, e.g. `'AddBackward0'` (derived from the primitive)."""
        return "".join(p.capitalize() for p in self._node.prim.name.split("_")) + "Backward0"

    @property
    def next_functions(self) -> tuple:
        out = []
        for i in self._node.inputs:
            if type(i) is not Node:
                out.append((None, 0))
            elif i.prim is None:
                owner = owner_of(i)
                out.append((AccumulateGrad(owner) if owner is not None else None, 0))
            else:
                out.append((grad_fn_of(i), 0))
        return tuple(out)

    def __eq__(self, other) -> bool:
        return isinstance(other, BackwardFunction) and other._node is self._node

    def __hash__(self) -> int:
        return id(self._node)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self._node))}>"


# grad_fn classes of primitives whose nodes name themselves (autograd.Function).
_GRAD_FN_CLASSES: dict = {}


def grad_fn_of(node: Node) -> BackwardFunction:
    """Return the grad_fn object of a non-leaf node (named after its primitive or Function)."""
    return _GRAD_FN_CLASSES.get(node.prim, BackwardFunction)(node)


class AccumulateGrad:
    """The `next_functions` entry of a leaf tensor: accumulates into its `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor):
        self.variable = variable

    def name(self) -> str:
        """Return `'AccumulateGrad'`."""
        return "AccumulateGrad"

    next_functions = ()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self.variable))}>"
