"""PyTorch-named functions on tensors (`funcgrad.exp`, `funcgrad.mean` ...), also installed as methods.

Each is a thin translation of PyTorch's argument names (`dim`, `keepdim`)
to `funcgrad.numpy`'s (`axis`, `keepdims`); `_apply` runs the NumPy-like
function on the tensors' nodes (or values) and wraps the result.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from funcgrad import nn as _nn
from funcgrad import numpy as fnp
from funcgrad.tensors.tensor_class import Tensor, _apply, _new_like, _unwrap_value

__all__ = ['abs', 'acos', 'add', 'all', 'allclose', 'any', 'argmax', 'argmin', 'asin', 'atan', 'atan2', 'bmm', 'cat', 'clamp', 'clip', 'concatenate', 'cos', 'cosh', 'cumsum', 'div', 'dot', 'einsum', 'equal', 'exp', 'expand', 'expm1', 'flatten', 'flip', 'log', 'log1p', 'log_softmax', 'logsumexp', 'matmul', 'max', 'maximum', 'mean', 'min', 'minimum', 'mm', 'mul', 'neg', 'norm', 'outer', 'permute', 'pow', 'prod', 'reciprocal', 'relu', 'reshape', 'sigmoid', 'sign', 'sin', 'sinh', 'softmax', 'sqrt', 'square', 'squeeze', 'stack', 'std', 'sub', 'sum', 't', 'tan', 'tanh', 'transpose', 'unsqueeze', 'var', 'where']

_ValuesIndices = namedtuple("return_types", ["values", "indices"])


def _dims(dim):
    return dim if dim is None or isinstance(dim, int) else tuple(dim)


def _elementwise(name: str, fn, doc: str):
    def f(input, *, out=None):  # noqa: A002  (PyTorch's name)
        return _apply(fn, input)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"{doc}\n\nExamples:\n    >>> import funcgrad as torch\n    >>> torch.{name}(torch.zeros(1)).shape\n    funcgrad.Size([1])\n"
    return f


exp = _elementwise("exp", fnp.exp, "Return `e ** input`, elementwise.")
log = _elementwise("log", fnp.log, "Return the natural logarithm of `input`, elementwise.")
log1p = _elementwise("log1p", fnp.log1p, "Return `log(1 + input)`, elementwise.")
expm1 = _elementwise("expm1", fnp.expm1, "Return `exp(input) - 1`, elementwise.")
sqrt = _elementwise("sqrt", fnp.sqrt, "Return the square root of `input`, elementwise.")
abs = _elementwise("abs", fnp.absolute, "Return `|input|`, elementwise.")  # noqa: A001
sign = _elementwise("sign", fnp.sign, "Return the sign (-1, 0, 1) of `input`, elementwise.")
sin = _elementwise("sin", fnp.sin, "Return the sine of `input`, elementwise.")
cos = _elementwise("cos", fnp.cos, "Return the cosine of `input`, elementwise.")
tan = _elementwise("tan", fnp.tan, "Return the tangent of `input`, elementwise.")
tanh = _elementwise("tanh", fnp.tanh, "Return the hyperbolic tangent of `input`, elementwise.")
sinh = _elementwise("sinh", fnp.sinh, "Return the hyperbolic sine of `input`, elementwise.")
cosh = _elementwise("cosh", fnp.cosh, "Return the hyperbolic cosine of `input`, elementwise.")
asin = _elementwise("asin", fnp.arcsin, "Return the inverse sine of `input`, elementwise.")
acos = _elementwise("acos", fnp.arccos, "Return the inverse cosine of `input`, elementwise.")
atan = _elementwise("atan", fnp.arctan, "Return the inverse tangent of `input`, elementwise.")
neg = _elementwise("neg", fnp.negative, "Return `-input`, elementwise.")
sigmoid = _elementwise("sigmoid", _nn.sigmoid if hasattr(_nn, "sigmoid") else None, "Return the logistic sigmoid of `input`.")
relu = _elementwise("relu", _nn.relu if hasattr(_nn, "relu") else None, "Return `max(input, 0)`, elementwise.")
square = _elementwise("square", fnp.square, "Return `input * input`, elementwise.")
reciprocal = _elementwise("reciprocal", fnp.reciprocal, "Return `1 / input`, elementwise.")


def add(input, other, *, alpha=1):  # noqa: A002
    """Return `input + alpha * other`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.add(torch.ones(2), torch.ones(2), alpha=3)
        tensor([4., 4.])
    """
    if alpha != 1:
        return _apply(lambda a, b: fnp.add(a, fnp.multiply(b, alpha)), input, other)
    return _apply(fnp.add, input, other)


def sub(input, other, *, alpha=1):  # noqa: A002
    """Return `input - alpha * other`."""
    if alpha != 1:
        return _apply(lambda a, b: fnp.subtract(a, fnp.multiply(b, alpha)), input, other)
    return _apply(fnp.subtract, input, other)


def mul(input, other):  # noqa: A002
    """Return `input * other`."""
    return _apply(fnp.multiply, input, other)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """Return `input / other` (true division)."""
    if rounding_mode is not None:
        raise NotImplementedError("funcgrad.div: rounding_mode is not supported (it has no gradient)")
    return _apply(fnp.divide, input, other)


def pow(input, exponent):  # noqa: A001, A002
    """Return `input ** exponent`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.pow(torch.tensor([2.0, 3.0]), 2)
        tensor([4., 9.])
    """
    return _apply(fnp.power, input, exponent)


def atan2(input, other):  # noqa: A002
    """Return the angle of the point `(other, input)`, elementwise."""
    return _apply(fnp.arctan2, input, other)


def maximum(input, other):  # noqa: A002
    """Return the elementwise larger of two tensors."""
    return _apply(fnp.maximum, input, other)


def minimum(input, other):  # noqa: A002
    """Return the elementwise smaller of two tensors."""
    return _apply(fnp.minimum, input, other)


def clamp(input, min=None, max=None):  # noqa: A001, A002
    """Return `input` limited to `[min, max]`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.clamp(torch.tensor([-2.0, 0.5, 2.0]), -1, 1)
        tensor([-1.0000,  0.5000,  1.0000])
    """
    return _apply(lambda a: fnp.clip(a, min, max), input)


clip = clamp


def where(condition, input, other):  # noqa: A002
    """Return `input` where `condition` holds, else `other` (gradient to the selected branch only)."""
    return _apply(lambda c, a, b: fnp.where(c, a, b), condition, input, other)


def _reduce(name):
    def f(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
        return _apply(lambda a: getattr(fnp, name)(a, axis=_dims(dim), keepdims=keepdim), input)

    f.__name__ = f.__qualname__ = name
    return f


sum = _reduce("sum")  # noqa: A001
sum.__doc__ = """Return the sum of `input` over `dim` (all elements if None).

Examples:
    >>> import funcgrad as torch
    >>> torch.sum(torch.ones(2, 3), dim=1)
    tensor([3., 3.])
"""
mean = _reduce("mean")
mean.__doc__ = "Return the mean of `input` over `dim` (all elements if None)."
prod = _reduce("prod")
prod.__doc__ = "Return the product of `input` over `dim` (all elements if None)."


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """Return `log(sum(exp(input)))` over `dim`, computed stably."""
    return _apply(lambda a: _nn.logsumexp(a, axis=_dims(dim), keepdims=keepdim), input)


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    """Return the variance over `dim` (unbiased by default, as in PyTorch)."""
    ddof = correction if correction is not None else (1 if unbiased else 0)
    return _apply(lambda a: fnp.var(a, axis=_dims(dim), keepdims=keepdim, ddof=ddof), input)


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    """Return the standard deviation over `dim` (unbiased by default, as in PyTorch)."""
    ddof = correction if correction is not None else (1 if unbiased else 0)
    return _apply(lambda a: fnp.std(a, axis=_dims(dim), keepdims=keepdim, ddof=ddof), input)


def _extremum(name, arg):
    def f(input, dim=None, keepdim=False):  # noqa: A002
        if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
            return (maximum if name == "max" else minimum)(input, dim)
        values = _apply(lambda a: getattr(fnp, name)(a, axis=dim, keepdims=keepdim), input)
        if dim is None:
            return values
        idx = getattr(np, arg)(_unwrap_value(input), axis=dim, keepdims=keepdim)
        return _ValuesIndices(values, _new_like(Tensor, idx, None))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"Return the {name}imum of `input` (over `dim`: a `(values, indices)` pair; "
                 f"with a tensor as second argument: elementwise).")
    return f


max = _extremum("max", "argmax")  # noqa: A001
min = _extremum("min", "argmin")  # noqa: A001


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """Return the indices of the maxima (no gradient)."""
    return _new_like(Tensor, np.argmax(_unwrap_value(input), axis=dim, keepdims=keepdim), None)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    """Return the indices of the minima (no gradient)."""
    return _new_like(Tensor, np.argmin(_unwrap_value(input), axis=dim, keepdims=keepdim), None)


def _boolean_reduce(name):
    def f(input, dim=None, keepdim=False):  # noqa: A002
        value = getattr(np, name)(_unwrap_value(input), axis=dim, keepdims=keepdim)
        # NOTE: np.all/np.any dispatch to CuPy for GPU values (a 0-d CuPy array)
        return _new_like(Tensor, value if hasattr(value, "shape") else np.asarray(value), None)

    f.__name__ = f.__qualname__ = name
    return f


all = _boolean_reduce("all")  # noqa: A001
all.__doc__ = """Return whether every element (over `dim`, if given) is true, as a bool tensor.

Examples:
    >>> import funcgrad as torch
    >>> torch.all(torch.tensor([1.0, 0.0]))
    tensor(False)
"""
any = _boolean_reduce("any")  # noqa: A001
any.__doc__ = """Return whether some element (over `dim`, if given) is true, as a bool tensor.

Examples:
    >>> import funcgrad as torch
    >>> torch.any(torch.tensor([1.0, 0.0]))
    tensor(True)
"""


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:  # noqa: A002
    """Return whether `|input - other| <= atol + rtol * |other|` everywhere (a Python bool).

    Examples:
        >>> import funcgrad as torch
        >>> torch.allclose(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))
        True
    """
    return bool(np.allclose(_unwrap_value(input), _unwrap_value(other), rtol=rtol, atol=atol,
                            equal_nan=equal_nan))


def equal(input, other) -> bool:  # noqa: A002
    """Return whether two tensors have the same shape and elements (a Python bool).

    Examples:
        >>> import funcgrad as torch
        >>> torch.equal(torch.ones(2), torch.tensor([1.0, 1.0]))
        True
    """
    a, b = _unwrap_value(input), _unwrap_value(other)
    return a.shape == b.shape and bool(np.all(a == b))


def cumsum(input, dim):  # noqa: A002
    """Return the cumulative sum along `dim`."""
    return _apply(lambda a: fnp.cumsum(a, axis=dim), input)


def norm(input, p="fro", dim=None, keepdim=False):  # noqa: A002
    """Return the norm of `input` (2-norm of all elements by default)."""
    ord_ = None if p in ("fro", 2) and (dim is None or isinstance(dim, int)) else p
    return _apply(lambda a: fnp.linalg.norm(a if dim is not None else fnp.reshape(a, (-1,)), ord=ord_, axis=dim, keepdims=keepdim), input)


def matmul(input, other):  # noqa: A002
    """Return the matrix product of two tensors (NumPy's matmul semantics)."""
    return _apply(fnp.matmul, input, other)


mm = matmul
bmm = matmul


def dot(input, other):  # noqa: A002
    """Return the dot product of two 1-D tensors."""
    return _apply(fnp.dot, input, other)


def outer(input, vec2):  # noqa: A002
    """Return the outer product of two 1-D tensors."""
    return _apply(fnp.outer, input, vec2)


def einsum(equation, *operands):
    """Return the Einstein summation of the operands."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _apply(lambda *ops: fnp.einsum(equation, *ops), *operands)


def softmax(input, dim):  # noqa: A002
    """Return the softmax of `input` along `dim`."""
    return _apply(lambda a: _nn.softmax(a, axis=dim), input)


def log_softmax(input, dim):  # noqa: A002
    """Return the log of the softmax of `input` along `dim`, computed stably."""
    return _apply(lambda a: _nn.log_softmax(a, axis=dim), input)


# --- shapes ---------------------------------------------------------------------

def _shape_args(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return tuple(shape)


def reshape(input, *shape):  # noqa: A002
    """Return `input` with the same values in a new shape (one entry may be -1)."""
    return _apply(lambda a: fnp.reshape(a, _shape_args(shape)), input)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    """Return `input` with dimensions `start_dim..end_dim` merged into one."""
    shape = tuple(input.shape)
    if not shape:
        return reshape(input, 1)
    end = end_dim % len(shape)
    merged = 1
    for n in shape[start_dim:end + 1]:
        merged *= n
    return reshape(input, shape[:start_dim] + (merged,) + shape[end + 1:])


def t(input):  # noqa: A002
    """Return the transpose of a tensor of at most 2 dimensions."""
    if input.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.dim()}D")
    return _apply(fnp.transpose, input)


def transpose(input, dim0, dim1):  # noqa: A002
    """Return `input` with dimensions `dim0` and `dim1` swapped."""
    return _apply(lambda a: fnp.swapaxes(a, dim0, dim1), input)


def permute(input, *dims):  # noqa: A002
    """Return `input` with its dimensions permuted."""
    return _apply(lambda a: fnp.transpose(a, _shape_args(dims)), input)


def unsqueeze(input, dim):  # noqa: A002
    """Return `input` with a new dimension of size 1 at `dim`."""
    if dim < 0:
        dim += input.dim() + 1
    return _apply(lambda a: fnp.expand_dims(a, dim), input)


def squeeze(input, dim=None):  # noqa: A002
    """Return `input` without its size-1 dimensions (or just `dim`, if it has size 1)."""
    if dim is not None and input.shape[dim] != 1:
        return input
    return _apply(lambda a: fnp.squeeze(a, axis=dim), input)


def cat(tensors, dim=0):
    """Return the tensors joined along an existing dimension.

    Examples:
        >>> import funcgrad as torch
        >>> torch.cat([torch.ones(1), torch.zeros(2)])
        tensor([1., 0., 0.])
    """
    return _apply(lambda ts: fnp.concatenate(ts, axis=dim), list(tensors))


concatenate = cat


def stack(tensors, dim=0):
    """Return the tensors stacked along a new dimension."""
    return _apply(lambda ts: fnp.stack(ts, axis=dim), list(tensors))


def flip(input, dims):  # noqa: A002
    """Return `input` reversed along `dims`."""
    return _apply(lambda a: fnp.flip(a, axis=_dims(dims)), input)


def expand(input, *sizes):  # noqa: A002
    """Return `input` broadcast to `sizes` (-1 keeps a dimension)."""
    sizes = _shape_args(sizes)
    shape = tuple(input.shape)
    lead = len(sizes) - len(shape)
    target = tuple(s if s != -1 else shape[i - lead] for i, s in enumerate(sizes))
    return _apply(lambda a: fnp.broadcast_to(a, target), input)
