"""`grad_fn` objects: what `Tensor.grad_fn` returns, named like PyTorch's.

A `BackwardFunction` is a read-only view of one graph node (the operation
that made a tensor); an `AccumulateGrad` stands for a leaf tensor in
`next_functions`. Neither holds state of its own.

The names are PyTorch's, declared once in each primitive's record
(`Primitive.names.grad_fn`, see `funcgrad.ops.registry.Names`): `multiply`
gives `MulBackward0`, and where PyTorch's name depends on how the operation
was called (`x ** 2` is `PowBackward0`, `2 ** x` `PowBackward2`, `matmul`
by the operands' ranks), a rule in the record says how. Each name is a
class, as in PyTorch: `type(y.grad_fn).__name__ == y.grad_fn.name()`.
"""

from __future__ import annotations

from funcgrad.graph import Node
from funcgrad.ops.registry import Primitive
from funcgrad.tensors.base import TensorBase, owner_of


def backward_name(node: Node) -> tuple[str, tuple[int, ...] | None]:
    """Return PyTorch's name for the backward of `node`, and which inputs `next_functions` lists.

    The second item is None when every input is listed (in order), else
    their positions (`2 - x` lists only `x`, as PyTorch's `RsubBackward1`).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> x = fg.leaf([1.0, 2.0])
        >>> backward_name(2.0 - x), backward_name(x * x)
        (('RsubBackward1', (1,)), ('MulBackward0', None))
    """
    prim = node.prim
    rule = prim.names.grad_fn
    if rule is None:
        return default_name(prim), None
    if type(rule) is str:
        return rule, None
    named = rule(node.inputs, node.params)
    return (named, None) if type(named) is str else named


def default_name(prim: Primitive) -> str:
    """The name of a primitive that declares none: CamelCase, then `Backward0` (`scatter_add`)."""
    return "".join(p[:1].upper() + p[1:] for p in prim.name.split("_")) + "Backward0"


def declared_name(prim: Primitive) -> str:
    """What a primitive's record says its `grad_fn` is called: the name, or its rule's first line.

    Examples:
        >>> from funcgrad.ops import registry
        >>> declared_name(registry.get("exp"))
        'ExpBackward0'
        >>> declared_name(registry.get("power"))
        'PowBackward0 for `x ** number`, PowBackward2 for `number ** x`, else PowBackward1.'
    """
    rule = prim.names.grad_fn
    if rule is None:
        return default_name(prim)
    if type(rule) is str:
        return rule
    return (rule.__doc__ or "").strip().splitlines()[0]


class BackwardFunction:
    """What `grad_fn` returns: the backward of the operation that made a tensor.

    Each name is a subclass (`MulBackward0`, `SumBackward1` ...), made once,
    so `type(t.grad_fn).__name__` is the name as in PyTorch.

    Attributes:
        next_functions: One `(function, 0)` pair per input of the operation
            that PyTorch lists: a `BackwardFunction`, an `AccumulateGrad` for
            a leaf, or `None` for a constant.
    """

    __slots__ = ("_node",)

    def __init__(self, node: Node):
        self._node = node

    def name(self) -> str:
        """Return PyTorch's name, e.g. `'MulBackward0'` (declared by the primitive's record)."""
        return backward_name(self._node)[0]

    @property
    def next_functions(self) -> tuple:
        node = self._node
        listed = backward_name(node)[1]
        inputs = node.inputs if listed is None else tuple(node.inputs[i] for i in listed)
        out: list[tuple[BackwardFunction | AccumulateGrad | None, int]] = []
        for i in inputs:
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
# One class per PyTorch name, made the first time a node has that name.
_NAMED_CLASSES: dict[str, type[BackwardFunction]] = {}


def grad_fn_of(node: Node) -> BackwardFunction:
    """Return the grad_fn object of a non-leaf node, of the class named like PyTorch's."""
    cls = _GRAD_FN_CLASSES.get(node.prim)
    if cls is not None:
        return cls(node)
    name = backward_name(node)[0]
    cls = _NAMED_CLASSES.get(name)
    if cls is None:
        cls = type(name, (BackwardFunction,), {"__slots__": (), "__module__": __name__})
        cls.__doc__ = f"PyTorch's `{name}`: the backward of the operation that made a tensor."
        _NAMED_CLASSES[name] = cls
    return cls(node)


class AccumulateGrad:
    """The `next_functions` entry of a leaf tensor: accumulates into its `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: TensorBase):
        self.variable = variable

    def name(self) -> str:
        """Return `'AccumulateGrad'`."""
        return "AccumulateGrad"

    next_functions = ()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self.variable))}>"
