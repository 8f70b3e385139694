"""Hand-written PyTorch-style functions on tensors (`funcgrad.add`, `funcgrad.var`, `funcgrad.cat` ...).

The functions that apply one primitive with PyTorch's usual arguments
(`funcgrad.exp`, `funcgrad.sum(input, dim, keepdim)` ...) are generated from
the primitive records into `_generated.py`. Here are those whose signature
is PyTorch's own (`alpha=`, `unbiased=`, `*sizes`, `dims`, a `(values,
indices)` pair), the compositions (`square`, `dot`, `flatten` ...) and the
functions that have no gradient (`argmax`, `all`, `equal` ...). Each runs
through `_apply`, which applies the primitive to the tensors' nodes (or
values) and wraps the result.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _linalg
from funcgrad.ops import nn as _nn
from funcgrad.ops import reduce as _rd
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import index_of as _index_of
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.tensors import _math
from funcgrad.tensors._adapters import as_dtype as _as_dtype
from funcgrad.tensors._adapters import dim_of as _dim
from funcgrad.tensors._adapters import dims as _dims
from funcgrad.tensors._adapters import ndim_of as _ndim
from funcgrad.tensors._adapters import one_dim as _one_dim
from funcgrad.tensors._adapters import operands as _operands
from funcgrad.tensors._adapters import reduce_dims as _reduce_dims
from funcgrad.tensors._adapters import shape_args as _shape_args
from funcgrad.tensors._conveniences import *  # noqa: F403
from funcgrad.tensors._conveniences import __all__ as _conveniences_all
from funcgrad.tensors._indexing import *  # noqa: F403
from funcgrad.tensors._indexing import __all__ as _indexing_all
from funcgrad.tensors._math import *  # noqa: F403
from funcgrad.tensors._math import __all__ as _math_all
from funcgrad.tensors._matrices import *  # noqa: F403
from funcgrad.tensors._matrices import __all__ as _matrices_all
from funcgrad.tensors._out import into as _into
from funcgrad.tensors._products import *  # noqa: F403
from funcgrad.tensors._products import __all__ as _products_all
from funcgrad.tensors._shaping import *  # noqa: F403
from funcgrad.tensors._shaping import __all__ as _shaping_all
from funcgrad.tensors._sorting import *  # noqa: F403
from funcgrad.tensors._sorting import __all__ as _sorting_all
from funcgrad.tensors.inplace_functions import *  # noqa: F403
from funcgrad.tensors.inplace_functions import __all__ as _inplace_functions_all
from funcgrad.tensors.tensor_class import Tensor, _apply, _new_like, _read_value

__all__ = [
    "add",
    "all",
    "allclose",
    "any",
    "bmm",
    "cat",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clone",
    "clip",
    "concatenate",
    "cumsum",
    "div",
    "divide",
    "dot",
    "einsum",
    "equal",
    "expand",
    "flatten",
    "flip",
    "log_softmax",
    "logsumexp",
    "mean",
    "mm",
    "norm",
    "outer",
    "permute",
    "pow",
    "prod",
    "reciprocal",
    "reshape",
    "softmax",
    "square",
    "squeeze",
    "stack",
    "std",
    "sub",
    "subtract",
    "sum",
    "t",
    "true_divide",
    "transpose",
    "tril",
    "triu",
    "unsqueeze",
    "var",
    "where",
    *_conveniences_all,
    *_indexing_all,
    *_matrices_all,
    *_shaping_all,
    *_products_all,
    *_math_all,
    *_sorting_all,
    *_inplace_functions_all,
]

# PyTorch's pair prints as `torch.return_types.max(values=..., indices=...)`.
_ValuesIndices = namedtuple("return_types", ["values", "indices"])  # type: ignore[name-match]


# --- arithmetic -------------------------------------------------------------------


def _scaled(b, alpha):
    # a Python number stays one (weak: `t - 2.0 * alpha` keeps t's dtype)
    return b * alpha if type(b) in (int, float, complex) else _ew.multiply(b, alpha)


def add(input, other, *, alpha=1, out=None):  # noqa: A002
    """Return `input + alpha * other`.

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.add(torch.ones(2), torch.ones(2), alpha=3)
        tensor([4., 4.])
    """
    if out is not None:
        return _into("add", add(input, other, alpha=alpha), out)
    if alpha != 1:
        return _apply(lambda a, b: _ew.add(a, _scaled(b, alpha)), input, other)
    return _apply(_ew.add, input, other)


def sub(input, other, *, alpha=1, out=None):  # noqa: A002
    """Return `input - alpha * other`.

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.sub(torch.ones(2), torch.ones(2), alpha=3)
        tensor([-2., -2.])
    """
    if out is not None:
        return _into("sub", sub(input, other, alpha=alpha), out)
    if alpha != 1:
        return _apply(lambda a, b: _ew.subtract(a, _scaled(b, alpha)), input, other)
    return _apply(_ew.subtract, input, other)


def div(input, other, *, rounding_mode=None, out=None):  # noqa: A002
    """Return `input / other`: true division, or rounded (`rounding_mode` `"trunc"` or `"floor"`).

    A rounded quotient has a zero gradient, as in PyTorch; integers then
    divide exactly (a zero divisor raises `ZeroDivisionError`).

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.div(torch.ones(2), 4)
        tensor([0.2500, 0.2500])
        >>> torch.div(torch.tensor([-7, 7]), 2, rounding_mode="trunc")
        tensor([-3,  3])
    """
    if out is not None:
        return _into("div", div(input, other, rounding_mode=rounding_mode), out)
    if rounding_mode is not None:
        return _math._rounded_division(input, other, rounding_mode)
    return _apply(_ew.divide, input, other)


divide = div
true_divide = div


subtract = sub


def clone(input, *, memory_format=None):  # noqa: A002
    """Return a copy of `input` that stays in the graph (`memory_format` accepted: copies are row-major).

    Examples:
        >>> import funcgrad as torch
        >>> torch.clone(torch.ones(2, requires_grad=True))
        tensor([1., 1.], grad_fn=<CloneBackward0>)
    """
    return input.clone()


def pow(input, exponent):  # noqa: A001, A002
    """Return `input ** exponent`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.pow(torch.tensor([2.0, 3.0]), 2)
        tensor([4., 9.])
    """
    if (
        isinstance(input, Tensor)
        and input.dtype.kind in "biu"
        and isinstance(exponent, (int, np.integer))
        and exponent < 0
    ):  # as PyTorch, also for an empty tensor (NumPy refuses only where it computes)
        raise _OpError(
            f"funcgrad.pow: Integers to negative integer powers are not allowed (a tensor of "
            f"dtype {input.dtype} to the power {exponent}); use a float tensor, x.double() ** "
            f"{exponent}"
        )
    return _apply(_ew.power, input, exponent)


def square(input):  # noqa: A002
    """Return `input ** 2`, elementwise (as in PyTorch, its `grad_fn` is `PowBackward0`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.square(torch.tensor([3.0], requires_grad=True))
        tensor([9.], grad_fn=<PowBackward0>)
    """
    return _apply(_ew.power, input, 2)


def reciprocal(input):  # noqa: A002
    """Return `1 / input`, elementwise.

    Examples:
        >>> import funcgrad as torch
        >>> torch.reciprocal(torch.tensor([4.0], requires_grad=True))
        tensor([0.2500], grad_fn=<ReciprocalBackward0>)
    """
    return _apply(_ew.divide, 1.0, input)


def _tensor_bound(b) -> bool:
    return b is not None and not (type(b) in (int, float) or isinstance(b, np.generic))


def _clamp(input, lo, hi, method):  # noqa: A002
    bounds = "both" if lo is not None and hi is not None else "min" if lo is not None else "max"
    lo = 0.0 if lo is None else lo  # an ignored input
    hi = 0.0 if hi is None else hi
    return _apply(_ew.clamp, input, lo, hi, bounds=bounds, method=method)


def clamp(input, min=None, max=None):  # noqa: A002
    """Return `input` limited to `[min, max]` (either bound may be None).

    Number bounds are constants (`grad_fn=<ClampBackward1>`). Tensor bounds
    are inputs with gradients, as in PyTorch (`ClampBackward0`): the gradient
    goes to a bound where it is the result, and to `input` at ties; where
    `min > max` the result is `max`. A number mixed with a tensor bound is
    taken as a constant tensor (PyTorch refuses that mix).

    Raises:
        funcgrad.errors.OpError: If both bounds are None.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([-1.1, 1.6], requires_grad=True)
        >>> torch.clamp(x, min=-1.0, max=1.5)
        tensor([-1.0000,  1.5000], grad_fn=<ClampBackward1>)
        >>> lo = torch.zeros(2, requires_grad=True)
        >>> x.clamp(min=lo).sum().backward()
        >>> x.grad, lo.grad
        (tensor([0., 1.]), tensor([1., 0.]))
    """
    if min is None and max is None:
        raise _OpError("funcgrad.clamp: At least one of 'min' or 'max' must not be None")
    if _tensor_bound(min) or _tensor_bound(max):
        return _clamp(input, min, max, "clamp")
    return _apply(_ew.clip, input, a_min=min, a_max=max)


clip = clamp


def clamp_min(input, min):  # noqa: A002
    """Return `input` limited from below by `min` (a number, or a tensor with a gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.clamp_min(torch.tensor([-1.0, 2.0], requires_grad=True), 0.0)
        tensor([0., 2.], grad_fn=<ClampMinBackward0>)
    """
    return _clamp(input, min, None, "clamp_min")


def clamp_max(input, max):  # noqa: A002
    """Return `input` limited from above by `max` (a number, or a tensor with a gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.clamp_max(torch.tensor([-1.0, 2.0], requires_grad=True), 0.0)
        tensor([-1.,  0.], grad_fn=<ClampMaxBackward0>)
    """
    return _clamp(input, None, max, "clamp_max")


def where(condition, input=None, other=None):  # noqa: A002
    """Return `input` where `condition` holds, else `other` (gradient to the selected branch only).

    With the condition alone, return `nonzero(condition, as_tuple=True)`, as PyTorch does.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([-1.0, 2.0])
        >>> torch.where(x > 0, x, torch.zeros(2))
        tensor([0., 2.])
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)  # noqa: F405  (from _indexing)
    dtype = getattr(condition, "dtype", None)
    if dtype is None or np.dtype(dtype) != np.bool_:
        kind = "a Python " + type(condition).__name__ if dtype is None else f"dtype {dtype}"
        raise _OpError(
            f"funcgrad.where: where expected condition to be a boolean tensor, but got "
            f"{kind}; compare first (x > 0) or convert with condition.bool()"
        )
    return _apply(_ew.where, condition, input, other)


# --- reductions ---------------------------------------------------------------------
#
# PyTorch's `dim` is checked here, once per call, by `_reduce_dims` (a tuple or list of
# dims) and `_one_dim` (one dim), before a primitive sees it: each dim in range and
# named once, an empty tuple meaning every dim (`sum`, `mean`, `var`, `std`, `norm`,
# `logsumexp`) or none (`all`, `any`), and a 0-d tensor taking the dims 0 and -1. For a
# 0-d tensor the primitive gets `axis=()` (nothing to reduce: its one element), which
# keeps the `grad_fn` PyTorch gives a reduction along dims (`SumBackward1`).


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001, A002
    """Return the sum of all elements, or over `dim` (an int, or a tuple: `()` is every dim).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[-1.1, -0.2], [0.7, 1.6]], requires_grad=True)
        >>> torch.sum(x, dim=-1)
        tensor([-1.3000,  2.3000], grad_fn=<SumBackward1>)
    """
    input = _as_dtype(input, dtype)
    axis = _reduce_dims(input, dim, "sum")
    return _apply(_rd.sum_, input, axis=axis, keepdims=keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Return the mean of all elements, or over `dim` (an int, or a tuple: `()` is every dim).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[-1.1, -0.2], [0.7, 1.6]], requires_grad=True)
        >>> torch.mean(x, dim=-1)
        tensor([-0.6500,  1.1500], grad_fn=<MeanBackward1>)
    """
    if dtype is not None:
        input = _as_dtype(input, dtype)
    axis = None if dim is None else _reduce_dims(input, dim, "mean")
    return _apply(_rd.mean, input, axis=axis, keepdims=keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Return the product of all elements, or along one `dim` (exact gradients at zeros).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[0.8, 1.0], [-1.1, -1.3]], requires_grad=True)
        >>> torch.prod(x, dim=-1)
        tensor([0.8000, 1.4300], grad_fn=<ProdBackward1>)
    """
    input = _as_dtype(input, dtype)
    if dim is None:
        return _apply(_rd.prod, input, axis=None, keepdims=keepdim)
    axis = _one_dim(input, dim, "prod")
    return _apply(_rd.prod, input, axis=axis if _ndim(input) else (), keepdims=keepdim)


def cumsum(input, dim=None, *, dtype=None):  # noqa: A002
    """Return the running sum along `dim` (required, as in PyTorch).

    Raises:
        funcgrad.errors.ArgumentTypeError: Without `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[-1.1, -0.2], [0.7, 1.6]], requires_grad=True)
        >>> torch.cumsum(x, dim=-1)
        tensor([[-1.1000, -1.3000],
                [ 0.7000,  2.3000]], grad_fn=<CumsumBackward0>)
    """
    input = _as_dtype(input, dtype)
    return _apply(_rd.cumsum, input, axis=_one_dim(input, dim, "cumsum"))


def logsumexp(input, dim=None, keepdim=False):  # noqa: A002
    """Return `log(sum(exp(input)))` over `dim` (required; a tuple, `()` every dim), stably.

    Raises:
        funcgrad.errors.ArgumentTypeError: Without `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[-1.1, -0.2], [0.7, 1.6]], requires_grad=True)
        >>> torch.logsumexp(x, dim=-1)
        tensor([0.1412, 1.9412], grad_fn=<LogsumexpBackward0>)
    """
    if dim is None:
        _one_dim(input, dim, "logsumexp")  # raises: dim is required
    axis = _reduce_dims(input, dim, "logsumexp")
    return _apply(_nn.logsumexp, input, axis=axis, keepdims=keepdim)


def softmax(input, dim=None, dtype=None):  # noqa: A002
    """Return `exp(input) / sum(exp(input))` along `dim` (required, as in PyTorch), stably.

    Raises:
        funcgrad.errors.ArgumentTypeError: Without `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[-1.1, -0.2], [0.7, 1.6]], requires_grad=True)
        >>> torch.softmax(x, dim=-1)
        tensor([[0.2891, 0.7109],
                [0.2891, 0.7109]], grad_fn=<SoftmaxBackward0>)
    """
    input = _as_dtype(input, dtype)
    return _apply(_nn.softmax, input, axis=_one_dim(input, dim, "softmax"))


def log_softmax(input, dim=None, dtype=None):  # noqa: A002
    """Return `input - logsumexp(input, dim, keepdim=True)` along `dim` (required), stably.

    Raises:
        funcgrad.errors.ArgumentTypeError: Without `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[-1.1, -0.2], [0.7, 1.6]], requires_grad=True)
        >>> torch.log_softmax(x, dim=-1)
        tensor([[-1.2412, -0.3412],
                [-1.2412, -0.3412]], grad_fn=<LogSoftmaxBackward0>)
    """
    if dtype is not None:
        input = _as_dtype(input, dtype)
    return _apply(_nn.log_softmax, input, axis=_one_dim(input, dim, "log_softmax"))


def _moment(name, prim):
    def f(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
        if isinstance(dim, (bool, np.bool_)):  # PyTorch's overload var(input, unbiased)
            dim, unbiased = None, bool(dim)
        ddof = correction if correction is not None else (1 if unbiased else 0)
        axis = _reduce_dims(input, dim, name)
        return _apply(prim, input, axis=axis, ddof=ddof, keepdims=keepdim)

    f.__name__ = f.__qualname__ = name
    return f


var = _moment("var", _rd.var)
var.__doc__ = """Return the variance over `dim` (unbiased by default, as in PyTorch).

    `dim` is an int or a tuple (`()`: every dim); `var(x, False)` reads the
    bool as `unbiased`, as PyTorch's overload `var(input, unbiased)` does.

    Examples:
        >>> import funcgrad as torch
        >>> torch.var(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor(1.6667)
        >>> torch.tensor([1.0, 2.0, 3.0, 4.0]).var(False)
        tensor(1.2500)
    """
std = _moment("std", _rd.std)
std.__doc__ = """Return the standard deviation over `dim` (unbiased by default, as in PyTorch).

    `dim` is an int or a tuple (`()`: every dim); `std(x, False)` reads the
    bool as `unbiased`, as PyTorch's overload `std(input, unbiased)` does.

    Examples:
        >>> import funcgrad as torch
        >>> torch.std(torch.tensor([1.0, 3.0]))
        tensor(1.4142)
    """


def _boolean_reduce(name):
    def f(input, dim=None, keepdim=False):  # noqa: A002
        # dim: an int, or a tuple or list of them (`()` reduces nothing, as in PyTorch)
        axis = _reduce_dims(input, dim, name, empty="none")
        value = getattr(np, name)(_read_value(input, name), axis=axis, keepdims=keepdim)
        # NOTE: np.all/np.any dispatch to CuPy for GPU values (a 0-d CuPy array)
        return _new_like(Tensor, value if hasattr(value, "shape") else np.asarray(value), None)

    f.__name__ = f.__qualname__ = name
    return f


all = _boolean_reduce("all")  # noqa: A001
all.__doc__ = """Return whether every element (over `dim`, if given: an int or a tuple) is true.

Examples:
    >>> import funcgrad as torch
    >>> torch.all(torch.tensor([1.0, 0.0]))
    tensor(False)
"""
any = _boolean_reduce("any")  # noqa: A001
any.__doc__ = """Return whether some element (over `dim`, if given: an int or a tuple) is true.

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
    return bool(
        np.allclose(
            _read_value(input, "allclose"),
            _read_value(other, "allclose"),
            rtol=rtol,
            atol=atol,
            equal_nan=equal_nan,
        )
    )


def equal(input, other) -> bool:  # noqa: A002
    """Return whether two tensors have the same shape and elements (a Python bool).

    Examples:
        >>> import funcgrad as torch
        >>> torch.equal(torch.ones(2), torch.tensor([1.0, 1.0]))
        True
    """
    a, b = _read_value(input, "equal"), _read_value(other, "equal")
    return a.shape == b.shape and bool(np.all(a == b))


def _vector_norm(input, p, dim, keepdim):  # noqa: A002
    """PyTorch's `linalg.vector_norm`: the `p`-norm of the entries over `dim` (None, `()`: all)."""
    ndim = _ndim(input)
    axis = _reduce_dims(input, dim, "norm")
    axes = tuple(range(ndim)) if axis is None else _normalize_axis(axis, ndim, "norm")
    ord_ = None if p == 2 else p
    if p < 0 or p == float("inf"):  # no identity: an empty reduction has no value
        shape = tuple(input.shape)
        if axis is None and 0 in shape:
            raise _OpError(
                f"funcgrad.norm: linalg.vector_norm cannot compute the {p} norm on an empty "
                f"tensor because the operation does not have an identity"
            )
        for a in axes:
            if ndim and shape[a] == 0:
                raise _OpError(
                    f"funcgrad.norm: linalg.vector_norm cannot compute the {p} norm on the "
                    f"dimension {a} because this dimension is empty and the operation does not "
                    f"have an identity"
                )
    if not ndim:  # the one entry: its norm along axis 0
        return _apply(_rd.norm, input, ord=ord_, axis=0, keepdims=False)
    if len(axes) == 1:
        return _apply(_rd.norm, input, ord=ord_, axis=axes[0], keepdims=keepdim)
    shape = tuple(input.shape)
    if ord_ is None and len(axes) == ndim:  # the 2-norm of every entry: one primitive
        return _apply(_rd.norm, input, ord=None, axis=None, keepdims=keepdim)
    # several dims: move them last and merge them (NumPy's linalg.norm would take a
    # matrix norm over two, and refuses more)
    rest = tuple(a for a in range(ndim) if a not in axes)
    size = 1
    for a in axes:
        size *= shape[a]
    merged = reshape(permute(input, rest + axes), *(shape[a] for a in rest), size)
    out = _apply(_rd.norm, merged, ord=ord_, axis=-1, keepdims=False)
    kept = tuple(1 if a in axes else n for a, n in enumerate(shape))
    return reshape(out, kept) if keepdim else out


def norm(input, p="fro", dim=None, keepdim=False):  # noqa: A002
    """Return the `p`-norm of `input`'s entries, over `dim` (every dim by default), as PyTorch.

    A number `p` (None: 2) is the vector norm of the entries over `dim` (an
    int, or a tuple of any length: `()` is every dim). `"fro"` with at most
    two dims is the same as `p=2`, batches included. `"nuc"` is the nuclear
    norm (the sum of the singular values) of a matrix, or over the pair `dim`.

    Raises:
        funcgrad.errors.OpError: For `"fro"` over more than two dims, `"nuc"` over
            other than two, or another string.

    Examples:
        >>> import funcgrad as torch
        >>> torch.norm(torch.tensor([3.0, 4.0]))
        tensor(5.)
        >>> torch.ones(5, 2, 2).norm("fro", dim=(1, 2))
        tensor([2., 2., 2., 2., 2.])
    """
    if isinstance(p, str):
        several = dim is not None and not hasattr(dim, "__index__") and len(dim) > 2
        if p == "fro" and not several:
            return _vector_norm(input, 2, dim, keepdim)
        if p == "nuc":  # the sum of the singular values, over dim (a pair) or a matrix's two
            # NOTE: cycle: linalg imports this
            from funcgrad.tensors.linalg import matrix_norm

            dims = (-2, -1) if dim is None else tuple(dim)
            if dim is None and input.dim() != 2 or len(dims) != 2:
                raise _OpError(
                    f"funcgrad.norm: p='nuc' is a matrix norm: give a 2-D tensor or dim as a "
                    f"pair (got shape {list(input.shape)}, dim={dim!r})"
                )
            return matrix_norm(input, "nuc", dims, keepdim)
        if p == "fro":
            raise _OpError(
                f"funcgrad.norm: p='fro' over {len(dim)} dims {list(dim)}: a matrix norm "
                f"needs dim to be a pair; for the 2-norm of all those entries use p=2"
            )
        raise _OpError(
            f"funcgrad.norm: only valid string values are 'fro' and 'nuc', found {p!r}; "
            f"give a number for a vector norm"
        )
    if p is not None and not isinstance(p, (int, float, np.number)):
        raise _ArgumentTypeError(
            f"funcgrad.norm(): argument 'p' must be a number, 'fro', 'nuc' or None, not "
            f"{type(p).__name__} {p!r}"
        )
    return _vector_norm(input, 2 if p is None else p, dim, keepdim)


# --- products -----------------------------------------------------------------------


def dot(input, other):  # noqa: A002
    """Return the dot product of two 1-D tensors.

    Examples:
        >>> import funcgrad as torch
        >>> torch.dot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        tensor(11.)
    """
    return _apply(fnp.dot, input, other)


def outer(input, vec2):  # noqa: A002
    """Return the outer product of two 1-D tensors.

    Examples:
        >>> import funcgrad as torch
        >>> torch.outer(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 10.0]))
        tensor([[ 1., 10.],
                [ 2., 20.]])
    """
    return _apply(fnp.outer, input, vec2)


def mm(input, mat2, *, out=None):  # noqa: A002
    """Return the matrix product of two 2-D tensors (no broadcasting: see `matmul`).

    Raises:
        funcgrad.errors.OpError: If an operand is not 2-D or the inner sizes differ.

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.mm(torch.ones(2, 3), torch.ones(3, 4)).shape
        funcgrad.Size([2, 4])
    """
    if out is not None:
        return _into("mm", mm(input, mat2), out)
    _operands("mm", 2, (("input", "self", input), ("mat2", "mat2", mat2)))
    (n, k), (k2, m) = input.shape, mat2.shape
    if k != k2:
        raise _OpError(
            f"funcgrad.mm: mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m}); "
            f"the columns of the first must equal the rows of the second"
        )
    return _apply(_linalg.matmul, input, mat2)


def bmm(input, mat2, *, out=None):  # noqa: A002
    """Return the matrix products of two batches of matrices (3-D tensors, same batch size).

    Raises:
        funcgrad.errors.OpError: If an operand is not 3-D, or the batch or inner sizes differ.

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.bmm(torch.ones(5, 2, 3), torch.ones(5, 3, 4)).shape
        funcgrad.Size([5, 2, 4])
    """
    if out is not None:
        return _into("bmm", bmm(input, mat2), out)
    _operands("bmm", 3, (("input", "batch1", input), ("mat2", "batch2", mat2)))
    b, _, k = input.shape
    if tuple(mat2.shape[:2]) != (b, k):
        raise _OpError(
            f"funcgrad.bmm: Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b}, {k}] but got: {list(mat2.shape[:2])} (batch1 {list(input.shape)}, batch2 "
            f"{list(mat2.shape)}); bmm needs the same batch size and matching inner sizes"
        )
    return _apply(_linalg.matmul, input, mat2)


def einsum(equation, *operands):
    """Return the Einstein summation of the operands (given one by one or as one list).

    Examples:
        >>> import funcgrad as torch
        >>> torch.einsum("ij->j", torch.ones(2, 3))
        tensor([2., 2., 2.])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _apply(lambda *ops: fnp.einsum(equation, *ops), *operands)


# --- shapes ---------------------------------------------------------------------------


def reshape(input, *shape):  # noqa: A002
    """Return `input` with the same values in a new shape (one entry may be -1).

    Examples:
        >>> import funcgrad as torch
        >>> torch.reshape(torch.ones(4, requires_grad=True), (2, 2)).grad_fn
        <ViewBackward0 object at 0x...>
    """
    return _apply(_sh.reshape, input, shape=_shape_args(shape))


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    """Return `input` with dimensions `start_dim..end_dim` merged into one.

    Examples:
        >>> import funcgrad as torch
        >>> torch.flatten(torch.ones(2, 3, 4), 1).shape
        funcgrad.Size([2, 12])
    """
    shape = tuple(input.shape)
    start = _dim(start_dim, len(shape), "flatten")
    end = _dim(end_dim, len(shape), "flatten")
    if start > end:
        raise _OpError(
            f"funcgrad.flatten: flatten() has invalid args: start_dim cannot come after "
            f"end_dim (start_dim={start_dim}, end_dim={end_dim} for shape {list(shape)})"
        )
    if not shape:
        return reshape(input, 1)
    merged = 1
    for n in shape[start : end + 1]:
        merged *= n
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


def _triangle(name, prim):
    def f(input, diagonal=0):  # noqa: A002
        if input.dim() < 2:
            raise _OpError(
                f"funcgrad.{name}: input tensor must have at least 2 dimensions (got "
                f"shape {list(input.shape)}); for the triangle of a matrix built from a "
                f"vector, make the matrix first"
            )
        return _apply(prim, input, k=_index_of(diagonal, name, "diagonal"))

    f.__name__ = f.__qualname__ = name
    return f


tril = _triangle("tril", _linalg.tril)
tril.__doc__ = """Return the lower triangle of (each matrix in) `input`, the rest zeros.

    Entries above the `diagonal`-th diagonal (0: the main one, > 0 above it) are zeroed.

    Raises:
        funcgrad.errors.OpError: For a tensor of fewer than 2 dimensions.

    Examples:
        >>> import funcgrad as torch
        >>> torch.tril(torch.ones(2, 2))
        tensor([[1., 0.],
                [1., 1.]])
    """
triu = _triangle("triu", _linalg.triu)
triu.__doc__ = """Return the upper triangle of (each matrix in) `input`, the rest zeros.

    Entries below the `diagonal`-th diagonal (0: the main one, < 0 below it) are zeroed.

    Raises:
        funcgrad.errors.OpError: For a tensor of fewer than 2 dimensions.

    Examples:
        >>> import funcgrad as torch
        >>> torch.triu(torch.ones(2, 2))
        tensor([[1., 1.],
                [0., 1.]])
    """


def t(input):  # noqa: A002
    """Return the transpose of a tensor of at most 2 dimensions.

    Examples:
        >>> import funcgrad as torch
        >>> torch.t(torch.ones(2, 3, requires_grad=True)).grad_fn
        <TBackward0 object at 0x...>
    """
    if input.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.dim()}D")
    return _apply(_sh.transpose, input, axes=None)


def transpose(input, dim0, dim1):  # noqa: A002
    """Return `input` with dimensions `dim0` and `dim1` swapped.

    Examples:
        >>> import funcgrad as torch
        >>> torch.transpose(torch.ones(2, 3, requires_grad=True), 0, 1).grad_fn
        <TransposeBackward0 object at 0x...>
    """
    return _apply(lambda a: fnp.swapaxes(a, dim0, dim1), input)


def permute(input, *dims):  # noqa: A002
    """Return `input` with its dimensions permuted.

    Examples:
        >>> import funcgrad as torch
        >>> torch.permute(torch.ones(2, 3, 4), (2, 0, 1)).shape
        funcgrad.Size([4, 2, 3])
    """
    dims = _shape_args(dims, "permute", "dims")
    ndim = input.dim()
    if len(dims) != ndim:
        raise _OpError(
            f"funcgrad.permute: number of dims don't match in permute: the tensor has "
            f"{ndim} dimension(s) (shape {list(input.shape)}), but {len(dims)} dims were "
            f"given ({list(dims)}); give each dimension once"
        )
    axes = tuple(_dim(d, ndim, "permute") for d in dims)
    if len(set(axes)) != len(axes):
        raise _OpError(
            f"funcgrad.permute: duplicate dims are not allowed: {list(dims)} for a tensor "
            f"of {ndim} dimension(s); give each dimension once"
        )
    return _apply(_sh.transpose, input, axes=axes)


def unsqueeze(input, dim):  # noqa: A002
    """Return `input` with a new dimension of size 1 at `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.unsqueeze(torch.ones(3), -1).shape
        funcgrad.Size([3, 1])
    """
    return _apply(_sh.expand_dims, input, axis=_dim(dim, input.dim() + 1, "unsqueeze"))


def squeeze(input, dim=None):  # noqa: A002
    """Return `input` without its size-1 dimensions (or just `dim`, if it has size 1).

    Examples:
        >>> import funcgrad as torch
        >>> torch.squeeze(torch.ones(1, 3, 1)).shape
        funcgrad.Size([3])
    """
    if dim is None:
        return _apply(_sh.squeeze, input, axis=None)
    shape = input.shape
    one = hasattr(dim, "__index__")
    axes = _normalize_axis(_dims(dim), len(shape), "squeeze")
    # NOTE: a dim whose size is not 1 is left alone, as in PyTorch (and 0-d has none)
    axes = tuple(a for a in axes if shape and shape[a] == 1)
    if not axes:
        return input
    return _apply(_sh.squeeze, input, axis=axes[0] if one else axes)


def cat(tensors, dim=0, *, out=None):
    """Return the tensors joined along an existing dimension.

    As in PyTorch, a 1-D empty tensor (shape `(0,)`) joins any tensor, along any
    `dim` (its legacy rule: such a tensor is skipped in the shape checks).

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.cat([torch.ones(1), torch.zeros(2)])
        tensor([1., 0., 0.])
        >>> torch.cat([torch.ones(0), torch.ones(2, 3)], dim=1).shape
        funcgrad.Size([2, 3])
    """
    if out is not None:
        return _into("cat", cat(tensors, dim), out)
    tensors = list(tensors)
    shapes = [tuple(np.shape(t)) for t in tensors]  # np.shape reads `.shape` first
    kept = [s for s in shapes if s != (0,)]
    if len(kept) == len(shapes):
        return _apply(lambda ts: fnp.concatenate(ts, axis=dim), tensors)
    if not kept:  # only 1-D empty tensors: PyTorch ignores dim
        return _apply(lambda ts: fnp.concatenate(ts, axis=0), tensors)
    # NOTE: each (0,) tensor is joined as an empty slab of the others' shape, so it
    # still takes part in dtype promotion and gets its (empty) gradient, as in PyTorch
    ref = kept[0]
    axis = _normalize_axis(_index_of(dim, "cat", "dim"), len(ref), "cat")[0] if ref else 0
    slab = (*ref[:axis], 0, *ref[axis + 1 :])

    def join(ts):
        pieces = [
            _sh.reshape(t, shape=slab) if s == (0,) else t for t, s in zip(ts, shapes, strict=True)
        ]
        return fnp.concatenate(pieces, axis=dim)

    return _apply(join, tensors)


concatenate = cat


def stack(tensors, dim=0, *, out=None):
    """Return the tensors stacked along a new dimension.

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.stack([torch.ones(2), torch.zeros(2)]).shape
        funcgrad.Size([2, 2])
    """
    if out is not None:
        return _into("stack", stack(tensors, dim), out)
    return _apply(lambda ts: fnp.stack(ts, axis=dim), list(tensors))


def flip(input, dims=None, *more_dims):  # noqa: A002
    """Return `input` reversed along `dims` (a sequence, or as `x.flip(0, 1)` one int each).

    Examples:
        >>> import funcgrad as torch
        >>> torch.flip(torch.tensor([1.0, 2.0, 3.0]), (0,))
        tensor([3., 2., 1.])
        >>> torch.ones(2, 3).flip(1, -2).shape
        funcgrad.Size([2, 3])
    """
    if dims is None:
        raise _ArgumentTypeError(
            'funcgrad.flip() missing 1 required positional arguments: "dims"; give the dims '
            "to reverse, e.g. flip((0, 1)), or () for none"
        )
    dims = _dims((dims, *more_dims) if more_dims else dims)
    axes = _normalize_axis(dims, input.dim(), "flip")
    if len(axes) != (1 if type(dims) is int else len(dims)):
        raise _OpError(f"funcgrad.flip: dims {list(dims)} name a dimension more than once")
    if not input.dim():
        return _apply(_sh.flip, input, axis=None)
    return _apply(_sh.flip, input, axis=dims)


def expand(input, *sizes):  # noqa: A002
    """Return `input` broadcast to `sizes` (-1 keeps a dimension).

    Examples:
        >>> import funcgrad as torch
        >>> torch.expand(torch.ones(3, 1), -1, 2).shape
        funcgrad.Size([3, 2])
    """
    sizes = _shape_args(sizes, "expand", "size")
    shape = tuple(input.shape)
    lead = len(sizes) - len(shape)
    if lead < 0:
        raise _OpError(
            f"funcgrad.expand: the number of sizes provided ({len(sizes)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({len(shape)}); sizes "
            f"{list(sizes)}, tensor shape {list(shape)}"
        )
    target = list(sizes)
    # Checked from the last dimension, as PyTorch does (so its message comes first).
    for i in reversed(range(len(sizes))):
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise _OpError(
                    f"funcgrad.expand: The expanded size of the tensor ({s}) isn't allowed "
                    f"in a leading, non-existing dimension {i} (sizes {list(sizes)}, tensor "
                    f"shape {list(shape)}); give the new dimension's size"
                )
            continue
        n = shape[i - lead]
        if s == -1:
            target[i] = n
        elif s != n and n != 1:
            raise _OpError(
                f"funcgrad.expand: The expanded size of the tensor ({s}) must match the "
                f"existing size ({n}) at non-singleton dimension {i}.  Target sizes: "
                f"{list(sizes)}.  Tensor sizes: {list(shape)}"
            )
        elif s < 0:
            raise _OpError(
                f"funcgrad.expand: invalid size {s} at dimension {i} (sizes {list(sizes)}); "
                f"sizes are non-negative, or -1 to keep a dimension"
            )
    return _apply(_sh.broadcast_to, input, shape=tuple(target))
