"""Helpers of `funcgrad.distributions`, with the names of `torch.distributions.utils`.

The math of every distribution is written once on graph nodes and arrays
(with `funcgrad.numpy`, `funcgrad.scipy.special` and `funcgrad.ops`) and
applied to the parameters, which are `Tensor`s, by `op`: one tensor-layer
call per formula, so gradients reach the parameters and dtypes follow
PyTorch's promotion. Random draws come from funcgrad's generators
(`funcgrad.manual_seed` seeds them), on the parameters' device.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.backend import rng
from funcgrad.graph import Node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import nn as _nn
from funcgrad.tensors import grad_mode
from funcgrad.tensors.dtypes import get_default_dtype
from funcgrad.tensors.tensor_class import Size, Tensor, _apply

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
]


def op(fn, *args, **kwargs) -> Tensor:
    """Apply `fn` (written on nodes and arrays) to tensors once; return a tensor.

    Examples:
        >>> import funcgrad as torch, funcgrad.numpy as fnp
        >>> op(lambda x: fnp.exp(x) - 1.0, torch.zeros(2))
        tensor([0., 0.])
    """
    return _apply(fn, *args, **kwargs)


def value_of(x) -> Any:
    """The array behind a tensor (a node's value, an array, a number as it is)."""
    if isinstance(x, Tensor):
        return x._value
    if type(x) is Node:
        return x.value
    return x


def wrap(value) -> Tensor:
    """A tensor holding `value` (an array of draws, a checked mask): no gradient."""
    return Tensor.__funcgrad_wrap__(
        value if not isinstance(value, np.generic) else np.asarray(value)
    )


def fmt(x) -> str:
    """`x` as PyTorch's f-strings print it: a 0-d tensor as its number, other tensors as they print."""
    if isinstance(x, Tensor) and x.dim() == 0:
        return format(x.item())
    return str(x)


def as_tensor(value, dtype=None) -> Tensor:
    """`value` as a tensor: a tensor stays (converted to `dtype` if given), numbers and arrays become one."""
    if isinstance(value, Tensor):
        return value if dtype is None or value.dtype == dtype else value.to(dtype)
    if isinstance(value, Node):
        return Tensor.__funcgrad_wrap__(value)
    arr = np.asarray(value)
    if dtype is not None:
        arr = arr.astype(dtype)
    elif arr.dtype.kind == "f" and not isinstance(value, np.ndarray):
        arr = arr.astype(get_default_dtype())
    return wrap(arr)


def broadcast_all(*values) -> tuple[Tensor, ...]:
    """Return the values broadcast to one shape, numbers made tensors of the first tensor's dtype.

    As PyTorch's: if all are numbers, they become 0-d tensors of the default
    dtype. NumPy arrays (and graph nodes) are taken as tensors too.

    Raises:
        ValueError: For anything that is not a number, a tensor or an array.

    Examples:
        >>> import funcgrad as torch
        >>> a, b = broadcast_all(torch.zeros(2, dtype=torch.float64), 1.0)
        >>> b
        tensor([1., 1.], dtype=funcgrad.float64)
    """
    for v in values:
        if not (
            isinstance(v, (Tensor, np.ndarray, np.generic, Node)) or isinstance(v, numbers.Number)
        ):
            raise ValueError(
                "Input arguments must all be instances of Number, funcgrad.Tensor or "
                f"numpy.ndarray (got {type(v).__name__})."
            )
    dtype = None
    for v in values:
        if isinstance(v, Tensor):
            dtype = v.dtype
            break
    if dtype is None:  # a NumPy array is a tensor (as torch.as_tensor); a NumPy scalar a number
        for v in values:
            if isinstance(v, np.ndarray) and v.dtype.kind == "f":
                dtype = v.dtype
                break
    tensors = [
        v
        if isinstance(v, Tensor)
        else as_tensor(v, dtype if dtype is not None else get_default_dtype())
        if isinstance(v, numbers.Number)
        else as_tensor(v)
        for v in values
    ]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def expand(t: Tensor, shape) -> Tensor:
    """`t` broadcast to `shape` (a tensor with gradient, as `Tensor.expand`)."""
    shape = tuple(int(s) for s in shape)
    if tuple(t.shape) == shape:
        return t
    return op(lambda x: fnp.broadcast_to(x, shape), t)


def shape_of(*shapes) -> Size:
    """A `Size` from a shape, a number or several shapes concatenated."""
    out: list[int] = []
    for s in shapes:
        if isinstance(s, (int, np.integer)):
            out.append(int(s))
        else:
            out.extend(int(d) for d in s)
    return Size(out)


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the `dim` rightmost dimensions of `value`."""
    if dim == 0:
        return value
    return op(lambda x: fnp.sum(x, axis=tuple(range(-dim, 0))), value)


def finfo_eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp probabilities into `[eps, 1 - eps]` (`eps` of their dtype).

    Examples:
        >>> import funcgrad as torch
        >>> clamp_probs(torch.tensor([0.0, 0.5, 1.0]))
        tensor([1.1921e-07, 5.0000e-01, 1.0000e+00])
    """
    eps = finfo_eps(probs.dtype)
    return op(lambda p: fnp.clip(p, eps, 1.0 - eps), probs)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Return `sigmoid(logits)` (binary) or `softmax(logits, -1)`.

    Examples:
        >>> import funcgrad as torch
        >>> logits_to_probs(torch.tensor([0.0, 0.0]))
        tensor([0.5000, 0.5000])
    """
    if is_binary:
        return op(_ew.sigmoid, logits)
    return op(lambda x: _nn.softmax(x, axis=-1), logits)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Return `log(p) - log1p(-p)` (binary) or `log(p)`, of the clamped probabilities.

    Examples:
        >>> import funcgrad as torch
        >>> probs_to_logits(torch.tensor([0.5]), is_binary=True)
        tensor([0.])
    """
    eps = finfo_eps(probs.dtype)

    def f(p):
        p = fnp.clip(p, eps, 1.0 - eps)
        return fnp.log(p) - fnp.log1p(-p) if is_binary else fnp.log(p)

    return op(f, probs)


class lazy_property:
    """A property computed once (with gradients recorded), then stored on the instance.

    Examples:
        >>> class A:
        ...     @lazy_property
        ...     def x(self):
        ...         print("computed")
        ...         return 1
        >>> a = A()
        >>> a.x, a.x
        computed
        (1, 1)
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


# --- random draws -------------------------------------------------------------------------


def device_key(t: Tensor) -> str:
    return str(t.device)


def standard_normal(shape, like: Tensor) -> Any:
    """Standard normal draws of `shape` as an array of `like`'s dtype, on its device."""
    return rng.standard_normal(tuple(shape), like.dtype, device_key(like))


def uniform(shape, like: Tensor) -> Any:
    """Draws uniform in [0, 1) of `shape`, `like`'s dtype and device."""
    return rng.uniform(tuple(shape), like.dtype, device_key(like))


def draw(method: str, shape, like: Tensor, *params) -> Any:
    """Draws of a NumPy `Generator` method (`standard_gamma`, `poisson`, `binomial` ...)."""
    params = tuple(np.asarray(p) if isinstance(p, np.ndarray) else p for p in params)
    return rng.sample(method, tuple(shape), like.dtype, *params, device=device_key(like))
