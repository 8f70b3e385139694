"""`funcgrad.autograd.forward_ad` is PyTorch's `torch.autograd.forward_ad`: dual tensors.

Inside `dual_level()`, `make_dual(x, v)` returns a tensor with `x`'s values
that carries the tangent `v`; operations on it are recorded, and
`unpack_dual(y)` returns `y`'s values and its tangent, the directional
derivative of `y` along the tangents of the dual tensors it was computed
from. The tangents are pushed through the recorded graph by the functional
core's forward mode (each primitive's JVP rule, `funcgrad.jvp`'s machinery)
when `unpack_dual` asks for them.

# NOTE: two differences from PyTorch follow from computing tangents from the
# recorded graph rather than with each operation. A dual tensor (and what is
# computed from it) holds a graph node, so it reports `requires_grad=True`
# and has a `grad_fn` even when its primal does not require grad
# (`unpack_dual`'s primal does not); and tangents flow only through
# operations recorded in grad mode: under `no_grad()` an operation on a dual
# tensor gives a plain tensor, whose tangent `unpack_dual` reports as None.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from funcgrad.graph import Node, leaf
from funcgrad.ops import identity
from funcgrad.tensors import grad_mode
from funcgrad.tensors.missing import module_getattr as _module_getattr
from funcgrad.tensors.tensor_class import Tensor
from funcgrad.transforms.forward import push_tangents

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


class _Level:
    """The tangents of the dual tensors made in one dual level, by node."""

    __slots__ = ("grad", "seeds")

    def __init__(self) -> None:
        self.seeds: dict[int, tuple[Node, Any]] = {}  # id(node) -> (node, tangent)
        self.grad = False  # whether a primal required grad (then primals stay in its graph)


_levels: list[_Level] = []


def enter_dual_level() -> int:
    """Enter a new forward-mode level (what `dual_level` does); return its index (0).

    Raises:
        RuntimeError: If a level is open already (nested levels are not
            supported, as in PyTorch).
    """
    if _levels:
        raise RuntimeError(
            "funcgrad.autograd.forward_ad: Nested forward mode AD is not supported at the moment"
        )
    _levels.append(_Level())
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the forward-mode level; the tangents of its dual tensors are forgotten."""
    if not _levels:
        raise RuntimeError("funcgrad.autograd.forward_ad: no dual level is open")
    _levels.pop()


class dual_level:  # noqa: N801  (PyTorch's name)
    """Context manager of a forward-mode level: dual tensors made inside carry their tangents.

    Examples:
        >>> import funcgrad as torch
        >>> import funcgrad.autograd.forward_ad as fwAD
        >>> x = torch.tensor([1.0, 2.0])
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(x, torch.ones(2)) ** 2
        ...     fwAD.unpack_dual(y).tangent
        tensor([2., 4.])
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: `primal` (the values) and `tangent` (or None)."""

    primal: Any
    tangent: Any


def _current(op: str) -> _Level:
    if not _levels:
        raise RuntimeError(
            f"funcgrad.autograd.forward_ad.{op}: To create a dual tensor, you need to enter a "
            f"dual level first: with funcgrad.autograd.forward_ad.dual_level(): ..."
        )
    return _levels[-1]


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """Return a tensor with `tensor`'s values carrying the tangent `tangent` (same shape and dtype).

    Raises:
        RuntimeError: Outside `dual_level`, or for a tangent of another shape
            or dtype, or a primal that is not floating point or complex.
    """
    state = _current("make_dual")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError("funcgrad.autograd.forward_ad.make_dual: expected two tensors")
    if tensor.dtype.kind not in "fc":
        raise RuntimeError(
            f"funcgrad.autograd.forward_ad.make_dual: Expected primal to be floating point or "
            f"complex, but got: {tensor.dtype}"
        )
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            f"funcgrad.autograd.forward_ad.make_dual: Trying to set a forward gradient that "
            f"has a different size than that of the original Tensor, this is not supported. "
            f"Tensor is of size {list(tensor.shape)} while the given forward gradient is of "
            f"size {list(tangent.shape)}."
        )
    if tangent.dtype != tensor.dtype:
        raise RuntimeError(
            f"funcgrad.autograd.forward_ad.make_dual: Expected tangent to have the same dtype "
            f"as primal, but got: {tangent.dtype} and {tensor.dtype}"
        )
    node = identity(tensor._node) if tensor._node is not None else leaf(tensor._value)
    state.grad = state.grad or tensor._node is not None
    recorded = tangent._node is not None and grad_mode.is_grad_enabled()
    state.seeds[id(node)] = (node, tangent._node if recorded else tangent._value)
    return Tensor.__funcgrad_wrap__(node)


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """Return `(primal, tangent)` of `tensor`: its values, and its tangent (None if it has none).

    Outside a dual level, or for anything that is not a tensor computed from
    dual tensors, the tangent is None.
    """
    if not _levels or not isinstance(tensor, Tensor) or tensor._node is None:
        return UnpackedDualTensor(tensor, None)
    state = _levels[-1]
    seeds = state.seeds
    node = tensor._node
    recorded = any(type(t) is Node for _, t in seeds.values())
    tangents = push_tangents((node,), {k: t for k, (_, t) in seeds.items()}, create_graph=recorded)
    t = tangents.get(id(node))
    tangent = None if t is None else Tensor.__funcgrad_wrap__(t)
    # the primal: in the graph of the primals that require grad, else plain values
    return UnpackedDualTensor(tensor if state.grad else tensor.detach(), tangent)


__getattr__ = _module_getattr("torch.autograd.forward_ad", "funcgrad.autograd.forward_ad")
