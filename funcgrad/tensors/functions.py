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
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _rd
from funcgrad.ops import shape as _sh
from funcgrad.tensors._adapters import dims as _dims
from funcgrad.tensors.tensor_class import Tensor, _apply, _new_like, _unwrap_value

__all__ = [
    "add",
    "all",
    "allclose",
    "any",
    "argmax",
    "argmin",
    "cat",
    "concatenate",
    "div",
    "dot",
    "einsum",
    "equal",
    "expand",
    "flatten",
    "flip",
    "max",
    "min",
    "norm",
    "outer",
    "permute",
    "pow",
    "reciprocal",
    "reshape",
    "square",
    "squeeze",
    "stack",
    "std",
    "sub",
    "t",
    "transpose",
    "unsqueeze",
    "var",
    "where",
]

# PyTorch's pair prints as `torch.return_types.max(values=..., indices=...)`.
_ValuesIndices = namedtuple("return_types", ["values", "indices"])  # type: ignore[name-match]


# --- arithmetic -------------------------------------------------------------------


def add(input, other, *, alpha=1):  # noqa: A002
    """Return `input + alpha * other`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.add(torch.ones(2), torch.ones(2), alpha=3)
        tensor([4., 4.])
    """
    if alpha != 1:
        return _apply(lambda a, b: _ew.add(a, _ew.multiply(b, alpha)), input, other)
    return _apply(_ew.add, input, other)


def sub(input, other, *, alpha=1):  # noqa: A002
    """Return `input - alpha * other`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.sub(torch.ones(2), torch.ones(2), alpha=3)
        tensor([-2., -2.])
    """
    if alpha != 1:
        return _apply(lambda a, b: _ew.subtract(a, _ew.multiply(b, alpha)), input, other)
    return _apply(_ew.subtract, input, other)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """Return `input / other` (true division).

    Raises:
        NotImplementedError: For a `rounding_mode` (its result has no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.div(torch.ones(2), 4)
        tensor([0.2500, 0.2500])
    """
    if rounding_mode is not None:
        raise NotImplementedError(
            "funcgrad.div: rounding_mode is not supported (it has no gradient)"
        )
    return _apply(_ew.divide, input, other)


def pow(input, exponent):  # noqa: A001, A002
    """Return `input ** exponent`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.pow(torch.tensor([2.0, 3.0]), 2)
        tensor([4., 9.])
    """
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


def where(condition, input, other):  # noqa: A002
    """Return `input` where `condition` holds, else `other` (gradient to the selected branch only).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([-1.0, 2.0])
        >>> torch.where(x > 0, x, torch.zeros(2))
        tensor([0., 2.])
    """
    return _apply(lambda c, a, b: fnp.where(c, a, b), condition, input, other)


# --- reductions ---------------------------------------------------------------------


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    """Return the variance over `dim` (unbiased by default, as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> torch.var(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor(1.6667)
    """
    ddof = correction if correction is not None else (1 if unbiased else 0)
    return _apply(_rd.var, input, axis=_dims(dim), ddof=ddof, keepdims=keepdim)


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    """Return the standard deviation over `dim` (unbiased by default, as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> torch.std(torch.tensor([1.0, 3.0]))
        tensor(1.4142)
    """
    ddof = correction if correction is not None else (1 if unbiased else 0)
    return _apply(_rd.std, input, axis=_dims(dim), ddof=ddof, keepdims=keepdim)


def _extremum(name, prim, elementwise, arg):
    def f(input, dim=None, keepdim=False):  # noqa: A002
        if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
            return _apply(elementwise, input, dim)
        values = _apply(prim, input, axis=_dims(dim), keepdims=keepdim)
        if dim is None:
            return values
        idx = arg(_unwrap_value(input), axis=dim, keepdims=keepdim)
        return _ValuesIndices(values, _new_like(Tensor, idx, None))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"Return the {name}imum of `input`: over all elements, over `dim` (a `(values, "
        f"indices)` pair), or elementwise with a tensor as second argument.\n\n"
        f"Examples:\n"
        f"    >>> import funcgrad as torch\n"
        f"    >>> torch.{name}(torch.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1).values\n"
        f"    tensor([{'5., 3.' if name == 'max' else '1., 2.'}])\n"
    )
    return f


max = _extremum("max", _rd.max_, _ew.maximum, np.argmax)  # noqa: A001
min = _extremum("min", _rd.min_, _ew.minimum, np.argmin)  # noqa: A001


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """Return the indices of the maxima (no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.argmax(torch.tensor([1.0, 5.0, 3.0]))
        tensor(1)
    """
    return _new_like(Tensor, np.argmax(_unwrap_value(input), axis=dim, keepdims=keepdim), None)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    """Return the indices of the minima (no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.argmin(torch.tensor([1.0, 5.0, 3.0]))
        tensor(0)
    """
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
    return bool(
        np.allclose(
            _unwrap_value(input), _unwrap_value(other), rtol=rtol, atol=atol, equal_nan=equal_nan
        )
    )


def equal(input, other) -> bool:  # noqa: A002
    """Return whether two tensors have the same shape and elements (a Python bool).

    Examples:
        >>> import funcgrad as torch
        >>> torch.equal(torch.ones(2), torch.tensor([1.0, 1.0]))
        True
    """
    a, b = _unwrap_value(input), _unwrap_value(other)
    return a.shape == b.shape and bool(np.all(a == b))


def norm(input, p="fro", dim=None, keepdim=False):  # noqa: A002
    """Return the norm of `input` (the 2-norm of all elements by default).

    Examples:
        >>> import funcgrad as torch
        >>> torch.norm(torch.tensor([3.0, 4.0]))
        tensor(5.)
    """
    ord_ = None if p in ("fro", 2) and (dim is None or isinstance(dim, int)) else p
    if dim is None and ord_ is not None:  # a vector norm of all the elements, as PyTorch's
        input = reshape(input, -1)
    return _apply(_rd.norm, input, ord=ord_, axis=_dims(dim), keepdims=keepdim)


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


def _shape_args(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        return tuple(shape[0])
    return tuple(shape)


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
    if not shape:
        return reshape(input, 1)
    end = end_dim % len(shape)
    merged = 1
    for n in shape[start_dim : end + 1]:
        merged *= n
    return reshape(input, shape[:start_dim] + (merged,) + shape[end + 1 :])


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
    return _apply(_sh.transpose, input, axes=_shape_args(dims))


def unsqueeze(input, dim):  # noqa: A002
    """Return `input` with a new dimension of size 1 at `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.unsqueeze(torch.ones(3), -1).shape
        funcgrad.Size([3, 1])
    """
    if dim < 0:
        dim += input.dim() + 1
    return _apply(_sh.expand_dims, input, axis=dim)


def squeeze(input, dim=None):  # noqa: A002
    """Return `input` without its size-1 dimensions (or just `dim`, if it has size 1).

    Examples:
        >>> import funcgrad as torch
        >>> torch.squeeze(torch.ones(1, 3, 1)).shape
        funcgrad.Size([3])
    """
    if dim is not None and input.shape[dim] != 1:
        return input
    return _apply(_sh.squeeze, input, axis=_dims(dim))


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
    """Return the tensors stacked along a new dimension.

    Examples:
        >>> import funcgrad as torch
        >>> torch.stack([torch.ones(2), torch.zeros(2)]).shape
        funcgrad.Size([2, 2])
    """
    return _apply(lambda ts: fnp.stack(ts, axis=dim), list(tensors))


def flip(input, dims):  # noqa: A002
    """Return `input` reversed along `dims`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.flip(torch.tensor([1.0, 2.0, 3.0]), (0,))
        tensor([3., 2., 1.])
    """
    return _apply(_sh.flip, input, axis=_dims(dims))


def expand(input, *sizes):  # noqa: A002
    """Return `input` broadcast to `sizes` (-1 keeps a dimension).

    Examples:
        >>> import funcgrad as torch
        >>> torch.expand(torch.ones(3, 1), -1, 2).shape
        funcgrad.Size([3, 2])
    """
    sizes = _shape_args(sizes)
    shape = tuple(input.shape)
    lead = len(sizes) - len(shape)
    target = tuple(s if s != -1 else shape[i - lead] for i, s in enumerate(sizes))
    return _apply(_sh.broadcast_to, input, shape=target)
