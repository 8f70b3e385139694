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
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _rd
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import index_of as _index_of
from funcgrad.ops._util import normalize_axis as _normalize_axis
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
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
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


def where(condition, input, other):  # noqa: A002
    """Return `input` where `condition` holds, else `other` (gradient to the selected branch only).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([-1.0, 2.0])
        >>> torch.where(x > 0, x, torch.zeros(2))
        tensor([0., 2.])
    """
    dtype = getattr(condition, "dtype", None)
    if dtype is None or np.dtype(dtype) != np.bool_:
        kind = "a Python " + type(condition).__name__ if dtype is None else f"dtype {dtype}"
        raise _OpError(
            f"funcgrad.where: where expected condition to be a boolean tensor, but got "
            f"{kind}; compare first (x > 0) or convert with condition.bool()"
        )
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
        if dim is None:  # ties share the gradient
            return _apply(prim, input, axis=None, keepdims=keepdim)
        # with dim, the gradient goes to the returned index alone
        picked = _rd.max_dim if prim is _rd.max_ else _rd.min_dim
        values = _apply(picked, input, axis=_dims(dim), keepdims=keepdim)
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
    elif dim is not None and not isinstance(dim, int) and len(dim) > 1 and p != "fro":
        # a number p with several dims is a vector norm over them all (NumPy's
        # linalg.norm would take a matrix norm): move them last and merge them
        shape = tuple(input.shape)
        axes = _normalize_axis(_dims(dim), len(shape), "norm")
        rest = tuple(a for a in range(len(shape)) if a not in axes)
        merged = reshape(permute(input, rest + axes), *(shape[a] for a in rest), -1)
        out = _apply(_rd.norm, merged, ord=None if p == 2 else p, axis=-1, keepdims=False)
        kept = tuple(1 if a in axes else n for a, n in enumerate(shape))
        return reshape(out, kept) if keepdim else out
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


def _shape_args(shape, op="reshape"):
    """`*sizes` as PyTorch takes them: `f(2, 3)` or `f((2, 3))`, as a tuple of Python ints."""
    if len(shape) == 1 and not hasattr(shape[0], "__index__"):
        shape = tuple(shape[0])
    return tuple(_index_of(n, op, "each size") for n in shape)


def _dim(dim, ndim, op):
    """One `dim` as a non-negative int (any integer type; -1 and 0 for a 0-d tensor)."""
    return _normalize_axis(_index_of(dim, op, "dim"), ndim, op)[0]


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
    dims = _shape_args(dims, "permute")
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
    dims = _dims(dims)
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
    sizes = _shape_args(sizes, "expand")
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
