"""Operators and methods of `Tensor`, installed from `funcgrad.tensors.functions`.

Methods are the module-level functions with the tensor as first argument,
so each operation is written once. In-place variants (`add_`, `mul_`,
`zero_` ...) compute the out-of-place result and rebind the tensor to it.
"""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.tensors import functions as F
from funcgrad.tensors import grad_mode
from funcgrad.tensors.tensor_class import Tensor, _apply, _unwrap_value


def _flip(fn):
    return lambda self, other: fn(other, self)


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


_METHODS = {
    "__add__": F.add, "__radd__": _flip(F.add),
    "__sub__": F.sub, "__rsub__": _flip(F.sub),
    "__mul__": F.mul, "__rmul__": _flip(F.mul),
    "__truediv__": F.div, "__rtruediv__": _flip(F.div),
    "__pow__": F.pow, "__rpow__": _flip(F.pow),
    "__matmul__": F.matmul, "__rmatmul__": _flip(F.matmul),
    "__neg__": F.neg, "__pos__": lambda self: self, "__abs__": F.abs,
    "__getitem__": _getitem,
    "__lt__": _compare(np.less), "__le__": _compare(np.less_equal),
    "__gt__": _compare(np.greater), "__ge__": _compare(np.greater_equal),
    "__eq__": _compare(np.equal), "__ne__": _compare(np.not_equal),
    "add": F.add, "sub": F.sub, "mul": F.mul, "div": F.div, "pow": F.pow,
    "neg": F.neg, "exp": F.exp, "log": F.log, "log1p": F.log1p, "expm1": F.expm1,
    "sqrt": F.sqrt, "abs": F.abs, "sign": F.sign, "sin": F.sin, "cos": F.cos,
    "tan": F.tan, "tanh": F.tanh, "sinh": F.sinh, "cosh": F.cosh, "asin": F.asin,
    "acos": F.acos, "atan": F.atan, "sigmoid": F.sigmoid, "relu": F.relu,
    "square": F.square, "reciprocal": F.reciprocal, "clamp": F.clamp, "clip": F.clamp,
    "maximum": F.maximum, "minimum": F.minimum, "atan2": F.atan2,
    "sum": F.sum, "mean": F.mean, "prod": F.prod, "var": F.var, "std": F.std,
    "max": F.max, "min": F.min, "argmax": F.argmax, "argmin": F.argmin,
    "all": F.all, "any": F.any, "allclose": F.allclose, "equal": F.equal,
    "contiguous": lambda self, *args, **kwargs: self,
    "is_contiguous": lambda self, *args, **kwargs: True,
    "nelement": lambda self: self.numel(),
    "cumsum": F.cumsum, "norm": F.norm, "logsumexp": F.logsumexp,
    "matmul": F.matmul, "mm": F.mm, "bmm": F.bmm, "dot": F.dot, "outer": F.outer,
    "softmax": F.softmax, "log_softmax": F.log_softmax,
    "reshape": F.reshape, "view": F.reshape, "flatten": F.flatten, "t": F.t,
    "transpose": F.transpose, "permute": F.permute, "unsqueeze": F.unsqueeze,
    "squeeze": F.squeeze, "flip": F.flip, "expand": F.expand,
    "view_as": lambda self, other: F.reshape(self, tuple(other.shape)),
    "reshape_as": lambda self, other: F.reshape(self, tuple(other.shape)),
    "expand_as": lambda self, other: F.expand(self, *other.shape),
    "T": property(lambda self: _apply(fnp.transpose, self)),
}

_INPLACE = {
    "add_": F.add, "sub_": F.sub, "mul_": F.mul, "div_": F.div, "pow_": F.pow,
    "clamp_": F.clamp, "neg_": F.neg, "exp_": F.exp, "sqrt_": F.sqrt, "abs_": F.abs,
    "tanh_": F.tanh, "sigmoid_": F.sigmoid, "relu_": F.relu,
    "zero_": lambda self: Tensor._from_value(np.zeros_like(self._value)),
    "fill_": _fill, "copy_": _copy,
    "__iadd__": F.add, "__isub__": F.sub, "__imul__": F.mul, "__itruediv__": F.div,
    "__ipow__": F.pow,
}


def install() -> None:
    """Give `Tensor` its operators and methods."""
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in _INPLACE.items():
        setattr(Tensor, name, _inplace(name, fn))
    Tensor._from_value = staticmethod(lambda value: _new_value(value))


def _new_value(value) -> Tensor:
    from funcgrad.tensors.tensor_class import _new_like

    return _new_like(Tensor, np.asarray(value) if not hasattr(value, "dtype") else value, None)


install()
