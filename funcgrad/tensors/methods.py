"""Operators and methods of `Tensor`, installed from the PyTorch-style functions.

Methods are the module-level functions with the tensor as first argument,
so each operation is written once. Which function each method, in-place
method and operator is comes from the primitive records
(`_generated.DeclaredMethods`, written by `scripts/generate_surfaces.py`);
`TensorMethods` adds the Python operators and the methods that are not one
primitive (`square`, `view_as`, `zero_` ...). In-place variants (`add_`,
`exp_`, `zero_` ...) compute the out-of-place result and rebind the tensor
to it (`funcgrad.tensors.inplace`).

Reflected operators follow PyTorch, which matters for `grad_fn`: `2 * t` is
`mul(t, 2)` (so `next_functions[0]` is `t`'s), `2 - t` is `rsub`, and
`2 / t` is `reciprocal(t) * 2`.

NOTE: `Tensor` cannot inherit `TensorMethods` when it is defined, since
these functions need `Tensor` first; `install()` copies the attributes of
both classes onto it when this module loads, and for the type checker
`Tensor` inherits `TensorMethods` (`tensor_class.py`), so the two agree by
construction (checked by tests/tensors/test_methods.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from funcgrad.backend import device_of, to_device, xp_of
from funcgrad.ops.index import getitem as _getitem_prim
from funcgrad.ops.index import normalize_index
from funcgrad.tensors import functions as F
from funcgrad.tensors import views
from funcgrad.tensors._api_methods import ApiMethods
from funcgrad.tensors._generated import DeclaredMethods
from funcgrad.tensors.grad_mode import is_grad_enabled
from funcgrad.tensors.inplace import (
    InPlaceError,
    broadcast_error,
    broadcasts_to,
    inplace,
    torch_dtype_name,
)
from funcgrad.tensors.random import RandomMethods
from funcgrad.tensors.tensor_class import (
    Tensor,
    _apply,
    _grad_mode_state,
    _init,
    _new_like,
    _observe,
    _read_value,
    _traced_compare,
    _unwrap_value,
    _value_readers,
)
from funcgrad.transforms.batching import check_write


def _new_value(value: Any) -> Tensor:
    """A tensor of `value` that does not require grad."""
    return _new_like(Tensor, np.asarray(value) if not hasattr(value, "dtype") else value, None)


def _flip(fn: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    return lambda self, other: fn(other, self)


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, (int, float, np.generic)):
        # what PyTorch records for `2 / t` (a NumPy scalar acts as a Python number)
        return DeclaredMethods.mul(F.reciprocal(self), cast(float, other))
    return F.div(other, self)


def _rmatmul(self: Tensor, other: Any) -> Tensor:
    return DeclaredMethods.matmul(other, self)


# The node operator computing each NumPy comparison (`_traced_compare`).
_OPERATORS = {
    "less": "__lt__",
    "less_equal": "__le__",
    "greater": "__gt__",
    "greater_equal": "__ge__",
    "equal": "__eq__",
    "not_equal": "__ne__",
}


def _compare(np_fn: Callable[[Any, Any], Any]) -> Callable[[Tensor, Any], Tensor]:
    name = np_fn.__name__
    op = _OPERATORS[name]

    def compare(self: Tensor, other: Any) -> Tensor:
        if _value_readers:  # funcgrad.compile traces: a mask the plan computes, if it can
            mask = _traced_compare(op, self, other, _unwrap_value)
            if mask is not None:
                return _new_value(mask)
        return _new_value(np_fn(_read_value(self, name), _read_value(other, name)))

    return compare


def _getitem(self: Tensor, index: Any) -> Tensor:
    if isinstance(index, Tensor):
        index = index._value
    elif isinstance(index, tuple):
        index = tuple(i._value if isinstance(i, Tensor) else i for i in index)
    node = self._node
    if (
        node is not None
        and type(self) is Tensor
        and _grad_mode_state.enabled
        and not self._volatile
        and self._value.dtype.kind == "f"
        and not _observe.active
    ):
        # NOTE: a recorded plain tensor (W3's `logp[rows, labels]`, issue 18): what `_apply`
        # below comes to through `Node.__getitem__` and `Primitive.__call__`, without them
        result = _getitem_prim.bind((node,), {"index": normalize_index(index)})
        t = _object_new(Tensor)
        _init(t, result.value, result)
        return t
    return _apply(lambda a: a[index], self)


_object_new = object.__new__


def _fill(self: Tensor, value: Any) -> Tensor:
    # fill_(v) is copy_ of a 0-d v: a tensor v that requires grad gets the gradient
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise InPlaceError(
                f"funcgrad.Tensor.fill_: fill_ only supports 0-dimension value tensor but got "
                f"tensor with {value.dim()} dimensions (shape {list(value.shape)}); use "
                f"copy_ to write a tensor of values"
            )
        return _copy_from(self, value, "fill_")
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, complex) and self._value.dtype.kind != "c":
        raise InPlaceError(
            f"funcgrad.Tensor.fill_: value cannot be converted to type "
            f"{torch_dtype_name(self._value.dtype)} without overflow: {value!r} is complex "
            f"and the tensor has dtype {self._value.dtype}"
        )
    return _new_value(xp_of(self._value).full_like(self._value, value))


def _copy(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    # non_blocking: accepted for PyTorch's signature (copies here are synchronous)
    return _copy_from(self, src, "copy_")


def _copy_from(self: Tensor, src: Any, name: str) -> Tensor:
    """`src` as `self`'s new values: on its device, with its dtype, broadcast to its shape.

    A `src` that requires grad stays recorded (`y.copy_(x * x)` passes the
    gradient on to `x`), as in PyTorch; the values are never shared with `src`.
    """
    if not isinstance(src, Tensor):
        src = _new_value(to_device(src, device_of(self._value)))
    check_write(self._value, src._value)  # (vmap: a batched src into a captured tensor)
    shape = tuple(self._value.shape)
    if tuple(src.shape) != shape and not broadcasts_to(tuple(src.shape), shape):
        raise broadcast_error(name, shape, tuple(src.shape))
    if src._node is None or not is_grad_enabled():
        # copy_ may cross devices, as in PyTorch: src is moved to self's device first
        value = to_device(src._value, device_of(self._value))
        xp = xp_of(self._value)
        value = xp.broadcast_to(xp.asarray(value).astype(self._value.dtype, copy=False), shape)
        return _new_value(xp.array(value, copy=True))
    out = src
    if device_of(out._value) != device_of(self._value):
        out = out.to(device_of(self._value))
    if tuple(out.shape) != shape:  # broadcast first: the gradient sums in src's dtype
        out = F.expand(out, shape)
    if out.dtype != self.dtype:
        out = out._astype(self.dtype)
    return out.clone() if out is src else out


def _zeros(self: Tensor) -> Tensor:
    return _new_value(np.zeros_like(self._value))


def _permute_all(self: Tensor) -> Tensor:
    # PyTorch's `.T` is a permute (PermuteBackward0), not `t()`
    return F.permute(self, tuple(reversed(range(self.dim()))))


class TensorMethods(DeclaredMethods, RandomMethods, ApiMethods):
    """`Tensor`'s operators and methods: the records' (`DeclaredMethods`) and these.

    These are the operators that are not one declared method, and the
    methods that are not one primitive's.
    """

    __slots__ = ()

    __rsub__ = _flip(F.sub)
    __rtruediv__ = _rtruediv
    __rpow__ = _flip(F.pow)
    __rmatmul__ = _rmatmul
    __pos__ = lambda self: self
    __getitem__ = _getitem
    __lt__ = _compare(np.less)
    __le__ = _compare(np.less_equal)
    __gt__ = _compare(np.greater)
    __ge__ = _compare(np.greater_equal)
    # NOTE: elementwise, as in PyTorch (whose stubs also override object's `-> bool`)
    __eq__ = _compare(np.equal)  # type: ignore[assignment]
    __ne__ = _compare(np.not_equal)  # type: ignore[assignment]
    square = F.square
    reciprocal = F.reciprocal
    argmax = F.argmax
    argmin = F.argmin
    all = F.all
    any = F.any
    allclose = F.allclose
    equal = F.equal
    dot = F.dot
    outer = F.outer
    flatten = F.flatten
    contiguous = lambda self, *args, **kwargs: self
    is_contiguous = lambda self, *args, **kwargs: True
    nelement = lambda self: self.numel()
    view_as = lambda self, other: F.reshape(self, tuple(other.shape))
    reshape_as = lambda self, other: F.reshape(self, tuple(other.shape))
    expand_as = lambda self, other: F.expand(self, tuple(other.shape))
    T = property(_permute_all)

    square_ = inplace("square_", F.square)
    reciprocal_ = inplace("reciprocal_", F.reciprocal)
    zero_ = inplace("zero_", _zeros, overwrites=True)
    fill_ = inplace("fill_", _fill, overwrites=True)
    copy_ = inplace("copy_", _copy, overwrites=True)


def install() -> None:
    """Give `Tensor` the methods and operators of `DeclaredMethods`, then of `TensorMethods`."""
    classes = (DeclaredMethods, RandomMethods, ApiMethods, TensorMethods)
    # NOTE: the view operations are wrapped first, so that views share writes (issue #14)
    views.wrap_methods(*classes)
    for cls in classes:
        for name, value in vars(cls).items():
            if callable(value) or isinstance(value, property):  # not __doc__, __slots__ ...
                setattr(Tensor, name, value)
    views.install()


install()
