"""The state a `Tensor` holds, below everything that acts on it.

`TensorBase` declares the slots of a tensor; `Tensor` (in `tensor_class.py`)
adds PyTorch's API on top. The backward engine and the `grad_fn` objects
need only this state, so they import this module and the tensor class
imports them, with no cycle.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from funcgrad.graph import Node, make_node

if TYPE_CHECKING:
    from funcgrad.tensors.aliases import Storage, ViewInfo
    from funcgrad.tensors.grad_fn import BackwardFunction
    from funcgrad.tensors.tensor_class import Tensor


class TensorBase:
    """The slots of a tensor: a value, an optional graph node, and its autograd state.

    Not used directly: every tensor is a `funcgrad.Tensor` (or a subclass).
    """

    __slots__ = (
        "_value",
        "_node",
        "_grad",
        "_hooks",
        "_post_hooks",
        "_retains_grad",
        "_base",
        "_view",
        "_volatile",
        "_grad_fn",
        "__weakref__",
    )
    _value: Any  # a NumPy or CuPy array
    _node: Node | None  # None: the tensor does not require grad
    _grad: Tensor | None
    _hooks: dict[int, Callable[[Tensor], Any]] | None  # tensor hooks, by handle id
    _post_hooks: dict[int, Callable[[Tensor], Any]] | None
    _retains_grad: bool
    _base: Tensor | None  # a view's base (PyTorch's `_base`), else None
    _view: Storage | ViewInfo | None  # aliases: see funcgrad.tensors.aliases
    _volatile: bool
    _grad_fn: BackwardFunction | None
    # The class of results of operations, `.detach()` and gradients (None: its own);
    # `nn.Parameter` sets Tensor, as PyTorch's operations on parameters give tensors.
    _op_class: ClassVar[type[Tensor] | None] = None


# Which tensor owns each leaf node: kept here, by the Tensor layer, so that
# the graph holds no reference to it. `id(node) -> (weakref(node), weakref(tensor))`:
# both weak (a node outlives its tensor only while some graph holds it), and an
# entry leaves with its node.
# NOTE: keyed by id rather than a WeakKeyDictionary, whose lookup makes a weak
# reference to the key (a backward pass looks up every leaf; issue 18)
_OWNERS: dict[int, tuple[weakref.ref, weakref.ref]] = {}


def _own_leaf(tensor, value) -> Node:
    """Make a leaf node holding `value`, owned by `tensor`."""
    node = make_node(None, (), {}, value)
    key = id(node)
    _OWNERS[key] = (weakref.ref(node, lambda _: _OWNERS.pop(key, None)), weakref.ref(tensor))
    return node


def owner_of(node: Node):
    """Return the tensor that owns a leaf node, or None."""
    if node.prim is None:
        entry = _OWNERS.get(id(node))
        if entry is not None and entry[0]() is node:
            return entry[1]()
    return None


def _init(t: TensorBase, value, node: Node | None = None) -> None:
    t._value = value if node is None else node.value
    t._node = node
    t._grad = None
    t._hooks = None
    t._post_hooks = None
    t._retains_grad = False
    t._base = None
    t._view = None
    t._volatile = False
    t._grad_fn = None


_T = TypeVar("_T", bound=TensorBase)


def _new_like(cls: type[_T], value: Any, node: Node | None) -> _T:
    t = object.__new__(cls)
    _init(t, value, node)
    return t
