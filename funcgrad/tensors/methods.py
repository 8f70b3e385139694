"""Operators and methods of `Tensor`, installed from the PyTorch-style functions.

Methods are the module-level functions with the tensor as first argument,
so each operation is written once. Which function each method and in-place
method is comes from the primitive records (`_generated.METHODS` and
`_generated.INPLACE`, written by `scripts/generate_surfaces.py`); this
module adds the Python operators and the methods that are not one primitive
(`square`, `view_as`, `zero_` ...). In-place variants (`add_`, `exp_`,
`zero_` ...) compute the out-of-place result and rebind the tensor to it.

Reflected operators follow PyTorch, which matters for `grad_fn`: `2 * t` is
`mul(t, 2)` (so `next_functions[0]` is `t`'s), `2 - t` is `rsub`, and
`2 / t` is `reciprocal(t) * 2`.
"""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.tensors import _generated as G
from funcgrad.tensors import functions as F
from funcgrad.tensors import grad_mode
from funcgrad.tensors.tensor_class import Tensor, _apply, _unwrap_value


def _flip(fn):
    return lambda self, other: fn(other, self)


def _rtruediv(self, other):
    if isinstance(other, (int, float, np.generic)):
        return G.mul(F.reciprocal(self), other)  # what PyTorch records for `2 / t`
    return F.div(other, self)


def _compare(np_fn):
    def compare(self, other):
        return Tensor._from_value(np_fn(self._value, _unwrap_value(other)))

    return compare


def _getitem(self, index):
    if isinstance(index, Tensor):
        index = index._value
    elif isinstance(index, tuple):
        index = tuple(i._value if isinstance(i, Tensor) else i for i in index)
    return _apply(lambda a: a[index], self)


def _check_inplace(self, name: str) -> None:
    if self._node is not None and self.is_leaf and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation "
            f"({name}). Wrap the update in `with funcgrad.no_grad():`, or operate on "
            f"x.data"
        )


def _inplace(name: str, out_of_place):
    def method(self, *args, **kwargs):
        _check_inplace(self, name)
        result = out_of_place(self, *args, **kwargs)
        _rebind(self, result)
        return self

    method.__name__ = name
    method.__doc__ = f"In-place version of `{name.rstrip('_')}`: rebinds this tensor to the result."
    return method


def _rebind(self: Tensor, result: Tensor) -> None:
    """Make `self` the result of an in-place operation (a new node; old graphs keep theirs)."""
    if result._node is not None:
        # Recorded: the tensor now stands for the new operation's node.
        self._node = result._node
        self._value = result._node.value
        self._grad_fn = None
        if self._retains_grad:  # retain_grad follows the tensor to its new node
            from funcgrad.tensors.engine import track

            track(self)
        if self._base is not None:
            self._base._set_value(self._value)
        return
    value = result._value
    if value.dtype != self._value.dtype:
        value = value.astype(self._value.dtype)
    if self._node is not None and not self.is_leaf and grad_mode.is_grad_enabled():
        # NOTE: zero_/fill_/copy_ on a recorded non-leaf is recorded too, as in
        # PyTorch: the tensor becomes the new values, and its old inputs get an
        # exact zero gradient through it (where(False, old, new)).
        mask = np.zeros(self._value.shape, dtype=bool)
        _rebind(self, _apply(lambda old: fnp.where(mask, old, value), self))
        return
    self._set_value(value)


def _fill(self, value):
    return Tensor._from_value(np.full_like(self._value, _unwrap_value(value)))


def _copy(self, src):
    from funcgrad.backend import device_of, to_device, xp_of

    # copy_ may cross devices, as in PyTorch: src is moved to self's device first
    src_value = to_device(_unwrap_value(src), device_of(self._value))
    xp = xp_of(self._value)
    src_value = xp.broadcast_to(xp.asarray(src_value, dtype=self._value.dtype), self._value.shape)
    return Tensor._from_value(src_value.copy())


# Python's operators that are a declared method (`t * u` is `t.mul(u)`). A commutative
# reflected operator keeps the tensor first: PyTorch records `2 * t` as mul(t, 2).
_OPERATORS = {
    "__add__": "add",
    "__radd__": "add",
    "__sub__": "sub",
    "__mul__": "mul",
    "__rmul__": "mul",
    "__truediv__": "div",
    "__pow__": "pow",
    "__matmul__": "matmul",
    "__neg__": "neg",
    "__abs__": "abs",
}
_INPLACE_OPERATORS = {
    "__iadd__": "add",
    "__isub__": "sub",
    "__imul__": "mul",
    "__itruediv__": "div",
    "__ipow__": "pow",
}

# The other operators, and the methods that are not one primitive's.
_METHODS = {
    "__rsub__": _flip(F.sub),
    "__rtruediv__": _rtruediv,
    "__rpow__": _flip(F.pow),
    "__rmatmul__": lambda self, other: G.METHODS["matmul"](other, self),
    "__pos__": lambda self: self,
    "__getitem__": _getitem,
    "__lt__": _compare(np.less),
    "__le__": _compare(np.less_equal),
    "__gt__": _compare(np.greater),
    "__ge__": _compare(np.greater_equal),
    "__eq__": _compare(np.equal),
    "__ne__": _compare(np.not_equal),
    "square": F.square,
    "reciprocal": F.reciprocal,
    "argmax": F.argmax,
    "argmin": F.argmin,
    "all": F.all,
    "any": F.any,
    "allclose": F.allclose,
    "equal": F.equal,
    "dot": F.dot,
    "outer": F.outer,
    "flatten": F.flatten,
    "contiguous": lambda self, *args, **kwargs: self,
    "is_contiguous": lambda self, *args, **kwargs: True,
    "nelement": lambda self: self.numel(),
    "view_as": lambda self, other: F.reshape(self, tuple(other.shape)),
    "reshape_as": lambda self, other: F.reshape(self, tuple(other.shape)),
    "expand_as": lambda self, other: F.expand(self, *other.shape),
    # PyTorch's `.T` is a permute (PermuteBackward0), not `t()`
    "T": property(lambda self: F.permute(self, *reversed(range(self.dim())))),
}

_INPLACE = {
    "square_": F.square,
    "reciprocal_": F.reciprocal,
    "zero_": lambda self: Tensor._from_value(np.zeros_like(self._value)),
    "fill_": _fill,
    "copy_": _copy,
}


def install() -> None:
    """Give `Tensor` its operators and methods: those the records declare, then the others."""
    operators = {op: G.METHODS[m] for op, m in _OPERATORS.items() if m in G.METHODS}
    for table in (G.METHODS, operators, _METHODS):
        for name, fn in table.items():
            setattr(Tensor, name, fn)
    operators = {op: G.METHODS[m] for op, m in _INPLACE_OPERATORS.items() if m in G.METHODS}
    for table in (G.INPLACE, operators, _INPLACE):
        for name, fn in table.items():
            setattr(Tensor, name, _inplace(name, fn))
    Tensor._from_value = staticmethod(lambda value: _new_value(value))


def _new_value(value) -> Tensor:
    from funcgrad.tensors.tensor_class import _new_like

    return _new_like(Tensor, np.asarray(value) if not hasattr(value, "dtype") else value, None)


install()
