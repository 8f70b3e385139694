"""Gathering, scattering and masking: `gather`, `scatter*`, `index_*`, `masked_*`, `take`, `nonzero`.

Each is one `gather` or `scatter` node (`funcgrad.ops.scatter`) whose
`grad_fn` is PyTorch's (`GatherBackward0`, `IndexAddBackward0` ...), after
the arguments are brought to that primitive's form: `index_select`,
`index_add`, `index_copy`, `index_fill` and `index_reduce` take a 1-D index
along `dim`, which is broadcast over the other dimensions; `take`, `put`,
`masked_select` and `masked_scatter` work on the flattened tensor. The
index (or mask) is never differentiated; the source values are, with
PyTorch's rules (a value written twice by `scatter` passes the gradient to
both writers, as in PyTorch).

PyTorch's checks come first: integer indices in range (`take`, `put` and
`take_along_dim` also take negative ones), boolean masks, a source of the
tensor's own dtype where PyTorch refuses to convert (`scatter`, `index_add`,
`index_copy`, `masked_scatter`).
"""

from __future__ import annotations

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import DtypeError as _DtypeError
from funcgrad.errors import IndexingError as _IndexingError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import scatter as _sc
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import index_of as _index_of
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import normalize_index as _normalize_index
from funcgrad.tensors._adapters import one_dim as _one_dim
from funcgrad.tensors.dtypes import torch_name as _torch_name
from funcgrad.tensors.grad_mode import is_grad_enabled
from funcgrad.tensors.tensor_class import Tensor, _apply, _new_like, _read_value, _unwrap_value

__all__ = [
    "argwhere",
    "gather",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_reduce",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "nonzero",
    "unique",
    "put",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "take",
    "take_along_dim",
]


# --- helpers ------------------------------------------------------------------------


def _tensor(input, op: str) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.{op}(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    return input


def _int_index(index, op: str, what: str = "index"):
    """The value of an integer index tensor (or array, or list)."""
    v = _unwrap_value(index)
    if not hasattr(v, "dtype"):
        v = np.asarray(v)
        if v.size == 0:
            v = v.astype(np.int64)
    if v.dtype.kind not in "iu":
        raise _IndexingError(
            f"funcgrad.{op}: Expected dtype int32/int64 for {what} (got "
            f"{_torch_name(v.dtype)}); convert it with {what}.long()"
        )
    return v


def _bool_mask(mask, op: str):
    v = _unwrap_value(mask)
    if not hasattr(v, "dtype"):
        v = np.asarray(v)
    if v.dtype != np.bool_:
        raise _DtypeError(
            f"funcgrad.{op}: {op} only supports boolean masks, but got mask with dtype "
            f"{_torch_name(v.dtype)}; compare first (x > 0) or convert with mask.bool()"
        )
    return v


def _same_dtype(input, src, op: str, what: str = "src") -> None:  # noqa: A002
    a, b = input.dtype, getattr(src, "dtype", None)
    if b is not None and np.dtype(a) != np.dtype(b):
        raise _DtypeError(
            f"funcgrad.{op}: Expected self.dtype to be equal to {what}.dtype (self is "
            f"{_torch_name(a)}, {what} is {_torch_name(b)}); convert {what} first, e.g. "
            f"{what}.to(self.dtype)"
        )


def _wrap(value) -> Tensor:
    return _new_like(Tensor, value, None)


def _slice_to(src, shape):
    """`src` cut to `shape` at its start (PyTorch reads only the entries the index names)."""
    if tuple(src.shape) == tuple(shape):
        return src
    cut = tuple(slice(0, n) for n in shape)
    return _apply(lambda a: _getitem(a, index=_normalize_index(cut)), src)


def _index_1d(index, op: str):
    """A 1-D (or 0-d) integer index along one dimension, as a 1-D array."""
    v = _int_index(index, op)
    if v.ndim > 1:
        raise _IndexingError(
            f"funcgrad.{op}: {op}(): Index is supposed to be a vector (got shape {list(v.shape)})"
        )
    return v.reshape(-1)


def _in_range(v, n: int, op: str, axis: int, negative: bool = False):
    """`v` checked against a dimension of size `n` (with `negative`, -n..-1 count from the end)."""
    if v.size:
        lo, hi = int(v.min()), int(v.max())
        if lo < (-n if negative else 0) or hi >= n:
            bad = hi if hi >= n else lo
            raise _IndexingError(
                f"funcgrad.{op}: index {bad} is out of bounds for dimension {axis} with size {n}"
            )
    if negative:
        xp = xp_of(v)
        v = xp.where(v < 0, v + n, v)
    return v


def _spread(index_1d, shape, axis: int):
    """A 1-D index along `axis`, broadcast to `shape` (whose `axis` side is its length)."""
    xp = xp_of(index_1d)
    place = [1] * len(shape)
    if shape:
        place[axis] = index_1d.shape[0]
        return xp.broadcast_to(index_1d.reshape(place), shape)
    return index_1d.reshape(())


def _along_shape(input, axis: int, n: int):  # noqa: A002
    shape = list(input.shape)
    if shape:
        shape[axis] = n
    return tuple(shape)


# --- gather and scatter -------------------------------------------------------------------


def gather(input, dim, index, *, sparse_grad=False):  # noqa: A002
    """Return `input[..., index[..., i, ...], ...]` along `dim` (PyTorch's gather).

    `index` has `input`'s number of dimensions and no larger sides except
    along `dim`. The gradient is added back at the gathered positions
    (`sparse_grad` is accepted and ignored: gradients are dense).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> torch.gather(x, 1, torch.tensor([[1], [0]]))
        tensor([[2.],
                [3.]], grad_fn=<GatherBackward0>)
    """
    _tensor(input, "gather")
    axis = _one_dim(input, dim, "gather")
    index = _int_index(index, "gather")
    return _apply(
        _sc.gather,
        input,
        index=_sc.along_index(index, "gather"),
        axis=axis,
        keepdims=True,
        method="gather",
    )


def take_along_dim(input, indices, dim=None):  # noqa: A002
    """Return `input` read at `indices` along `dim` (flattened if None), broadcasting the others.

    Along a `dim`, each index is taken modulo the dimension's size, as
    PyTorch 2.13 does (so -1 is the last entry); flattened, it must be in range.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]])
        >>> torch.take_along_dim(x, torch.argmax(x, dim=1, keepdim=True), dim=1)
        tensor([[30.],
                [60.]])
    """
    _tensor(input, "take_along_dim")
    idx = _int_index(indices, "take_along_dim", "indices")
    xp = xp_of(idx)
    if dim is None:
        idx = _in_range(idx.reshape(-1), input.numel(), "take_along_dim", 0)
        return _apply(
            _sc.gather,
            input,
            index=_sc.along_index(idx),
            axis=None,
            keepdims=True,
            method="take_along_dim",
        )
    axis = _one_dim(input, dim, "take_along_dim")
    if idx.ndim != input.dim():
        raise _IndexingError(
            f"funcgrad.take_along_dim: torch.take_along_dim(): input and indices should have "
            f"the same number of dimensions, but got {input.dim()} dimensions for input, and "
            f"{idx.ndim} dimensions for indices"
        )
    shape = list(np.broadcast_shapes(*(tuple(np.delete(s, axis)) for s in _pair(input, idx))))
    x_shape = list(shape)
    i_shape = list(shape)
    if input.dim():
        x_shape.insert(axis, input.shape[axis])
        i_shape.insert(axis, idx.shape[axis])
    if tuple(x_shape) != tuple(input.shape):
        input = _apply(lambda a: _sh.broadcast_to(a, shape=tuple(x_shape)), input)
    idx = xp.broadcast_to(idx, tuple(i_shape))
    n = input.shape[axis] if input.dim() else 1
    if n:  # NOTE: along a dim, PyTorch 2.13 takes every index modulo the size
        idx = idx % n
    return _apply(
        _sc.gather,
        input,
        index=_sc.along_index(idx),
        axis=axis,
        keepdims=True,
        method="take_along_dim",
    )


def _pair(input, idx):  # noqa: A002
    return (np.array(tuple(input.shape), dtype=np.int64), np.array(idx.shape, dtype=np.int64))


def _scatter(input, axis, index, src, *, reduce, include_self, method, op):  # noqa: A002
    """One scatter node: `src` (a tensor, or a number: a constant) written at `index` along `axis`."""
    idx = _sc.along_index(index, op)
    if isinstance(src, Tensor) and axis is None:  # flat positions: src has the index's shape
        _same_dtype(input, src, op)
    elif isinstance(src, Tensor):
        _same_dtype(input, src, op)
        if src.dim() != idx.ndim and not (src.dim() <= 1 and idx.ndim <= 1):
            raise _IndexingError(
                f"funcgrad.{op}: Index tensor must have the same number of dimensions as src "
                f"tensor (index shape {list(idx.shape)}, src shape {list(src.shape)})"
            )
        for d, (m, n) in enumerate(zip(idx.shape, src.shape, strict=False)):
            if m > n:
                raise _IndexingError(
                    f"funcgrad.{op}: Size does not match at dimension {d} expected index "
                    f"{list(idx.shape)} to be no larger than src {list(src.shape)}"
                )
        src = _slice_to(src, idx.shape) if src.dim() else src.reshape(idx.shape)
    else:
        value = src.item() if isinstance(src, np.generic) else src
        xp = xp_of(input._value)
        src = xp.full(idx.shape, value).astype(input.dtype)
    return _apply(
        _sc.scatter,
        input,
        src,
        index=idx,
        axis=axis,
        reduce=reduce,
        include_self=include_self,
        method=method,
    )


_LEGACY_REDUCE = {"add": "sum", "multiply": "prod"}


def scatter(input, dim, index, src=None, *, value=None, reduce=None):  # noqa: A002
    """Return a copy of `input` with `src` (a tensor, or a number `value`) written at `index` along `dim`.

    `out[..., index[..., i, ...], ...] = src[..., i, ...]`. With `reduce`
    (`"add"` or `"multiply"`, PyTorch's deprecated form) the values are
    combined instead. The gradient of `src` is `grad.gather(dim, index)`,
    also for positions written twice (as in PyTorch).

    Raises:
        funcgrad.errors.DtypeError: If `src` has another dtype than `input`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), 5.0)
        tensor([[0., 0., 5.],
                [5., 0., 0.]])
    """
    _tensor(input, "scatter")
    if src is None:
        src = value
    if src is None:
        raise _ArgumentTypeError("funcgrad.scatter(): give src (a tensor) or value (a number)")
    axis = _one_dim(input, dim, "scatter")
    index = _int_index(index, "scatter")
    if reduce is not None:
        if reduce not in _LEGACY_REDUCE:
            raise _OpError(
                f"funcgrad.scatter: reduce argument must be either add or multiply (got "
                f"{reduce!r}); scatter_reduce takes 'sum', 'prod', 'mean', 'amax' and 'amin'"
            )
        return _scatter(
            input,
            axis,
            index,
            src,
            reduce=_LEGACY_REDUCE[reduce],
            include_self=True,
            method="scatter",
            op="scatter",
        )
    method = "scatter" if isinstance(src, Tensor) else "scatter_value"
    return _scatter(
        input, axis, index, src, reduce="none", include_self=True, method=method, op="scatter"
    )


def scatter_add(input, dim, index, src):  # noqa: A002
    """Return a copy of `input` with `src` added at `index` along `dim` (repeats accumulate).

    Examples:
        >>> import funcgrad as torch
        >>> torch.zeros(3).scatter_add(0, torch.tensor([0, 0, 2]), torch.ones(3))
        tensor([2., 0., 1.])
    """
    _tensor(input, "scatter_add")
    axis = _one_dim(input, dim, "scatter_add")
    index = _int_index(index, "scatter_add")
    return _scatter(
        input,
        axis,
        index,
        src,
        reduce="sum",
        include_self=True,
        method="scatter_add",
        op="scatter_add",
    )


_REDUCE = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    """Return `input` with `src` reduced into it at `index` along `dim`.

    `reduce` is `"sum"`, `"prod"`, `"mean"`, `"amax"` or `"amin"`; with
    `include_self=False` the values of `input` at the positions written are
    left out of the reduction. Gradients follow PyTorch: ties of
    `amax`/`amin` share them evenly, `prod`'s are exact at zeros.

    Examples:
        >>> import funcgrad as torch
        >>> src = torch.tensor([1.0, 5.0, 3.0])
        >>> torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), src, "amax")
        tensor([5., 3.])
    """
    _tensor(input, "scatter_reduce")
    if reduce not in _REDUCE:
        raise _OpError(
            f"funcgrad.scatter_reduce: reduce argument must be either sum, prod, mean, amax "
            f"or amin, got {reduce}"
        )
    axis = _one_dim(input, dim, "scatter_reduce")
    index = _int_index(index, "scatter_reduce")
    if not isinstance(src, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.scatter_reduce(): argument 'src' must be Tensor, not {type(src).__name__}"
        )
    return _scatter(
        input,
        axis,
        index,
        src,
        reduce=reduce,
        include_self=bool(include_self),
        method="scatter_reduce",
        op="scatter_reduce",
    )


# --- along one dimension with a 1-D index ------------------------------------------------


def index_select(input, dim, index):  # noqa: A002
    """Return the entries of `input` at the positions `index` (1-D) along `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.index_select(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, torch.tensor([1, 1]))
        tensor([[3., 4.],
                [3., 4.]])
    """
    _tensor(input, "index_select")
    axis = _one_dim(input, dim, "index_select")
    idx = _index_1d(index, "index_select")
    n = input.shape[axis] if input.dim() else 1
    idx = _in_range(idx, n, "index_select", axis)
    if not input.dim():
        idx = idx.reshape(idx.shape if idx.size != 1 else ())
    full = _spread(idx, _along_shape(input, axis, idx.shape[0] if idx.ndim else 1), axis)
    return _apply(
        _sc.gather,
        input,
        index=_sc.along_index(full),
        axis=axis,
        keepdims=True,
        method="index_select",
    )


def _index_source(input, dim, index, source, op):  # noqa: A002
    """Check `index_add`/`index_copy`/`index_reduce`'s arguments; return (axis, spread index, source)."""
    _tensor(input, op)
    axis = _one_dim(input, dim, op)
    idx = _index_1d(index, op)
    n = input.shape[axis] if input.dim() else 1
    idx = _in_range(idx, n, op, axis)
    if not isinstance(source, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.{op}(): argument 'source' must be Tensor, not {type(source).__name__}"
        )
    _same_dtype(input, source, op, "source")
    expected = _along_shape(input, axis, idx.shape[0])
    if tuple(source.shape) != expected and not (source.numel() == 1 == idx.shape[0]):
        raise _IndexingError(
            f"funcgrad.{op}: source of shape {list(source.shape)} does not match: expected "
            f"{list(expected)} (the input's shape {list(input.shape)} with dim {axis} of the "
            f"index's length {idx.shape[0]})"
        )
    if tuple(source.shape) != expected:
        source = source.reshape(expected)
    return axis, _spread(idx, expected, axis), source


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """Return `input` with `alpha * source` added at the positions `index` (1-D) along `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.index_add(torch.zeros(3), 0, torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))
        tensor([3., 0., 0.])
    """
    if isinstance(input, Tensor) and not input.numel() and isinstance(source, Tensor):
        _same_dtype(input, source, "index_add", "source")
        # NOTE: PyTorch 2.13 still checks the index of an empty 1-D input (index [0] into a
        # size-0 tensor raises) but of no other empty input (zeros(0, 1) takes any index)
        if input.dim() == 1:
            _index_of(dim, "index_add", "dim")
            _in_range(_index_1d(index, "index_add"), 0, "index_add", 0)
        return input.clone()
    axis, idx, source = _index_source(input, dim, index, source, "index_add")
    if alpha != 1:
        source = source * alpha
    return _scatter(
        input,
        axis,
        idx,
        source,
        reduce="sum",
        include_self=True,
        method="index_add",
        op="index_add",
    )


def index_copy(input, dim, index, source):  # noqa: A002
    """Return `input` with the slices of `source` copied to the positions `index` along `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.index_copy(torch.zeros(3), 0, torch.tensor([2]), torch.tensor([7.0]))
        tensor([0., 0., 7.])
    """
    axis, idx, source = _index_source(input, dim, index, source, "index_copy")
    return _scatter(
        input,
        axis,
        idx,
        source,
        reduce="none",
        include_self=True,
        method="index_copy",
        op="index_copy",
    )


def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    """Return `input` with `source` reduced (`"prod"`, `"mean"`, `"amax"`, `"amin"`) at `index`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2.0, 3.0]), "prod")
        tensor([6., 1.])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise _OpError(
            f"funcgrad.index_reduce: index_reduce(): Expected reduce to be one of prod, mean, "
            f"amax or amin but got {reduce}."
        )
    axis, idx, source = _index_source(input, dim, index, source, "index_reduce")
    return _scatter(
        input,
        axis,
        idx,
        source,
        reduce=reduce,
        include_self=bool(include_self),
        method="index_reduce",
        op="index_reduce",
    )


def index_fill(input, dim, index, value):  # noqa: A002
    """Return `input` with the positions `index` along `dim` set to `value` (a number or 0-d tensor).

    A 0-d tensor `value` gets the gradient of every position it fills
    (each once, as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> torch.index_fill(torch.zeros(2, 2), 1, torch.tensor([0]), -1.0)
        tensor([[-1.,  0.],
                [-1.,  0.]])
    """
    _tensor(input, "index_fill")
    axis = _one_dim(input, dim, "index_fill")
    idx = _index_1d(index, "index_fill")
    n = input.shape[axis] if input.dim() else 1
    xp = xp_of(idx)
    if n and input.numel() == 0:
        # NOTE: PyTorch checks the positions only where it writes: an empty input
        # (another dim of length 0) comes back unchanged whatever the index says
        idx = idx[:0]
    # negative positions count from the end (PyTorch's index_fill takes them); filling
    # twice is filling once
    idx = xp.unique(_in_range(idx, n, "index_fill", axis, negative=True))
    shape = _along_shape(input, axis, idx.shape[0])
    full = _spread(idx, shape, axis)
    if isinstance(value, Tensor):
        if value.dim():
            raise _IndexingError(
                f"funcgrad.index_fill: index_fill_ only supports a 0-dimensional value tensor, "
                f"but got tensor with {value.dim()} dimension(s)."
            )
        if value.dtype != input.dtype:
            value = value.to(input.dtype)
        src = _apply(lambda v: _sh.broadcast_to(v, shape=shape), value)
        method = "index_fill"
    else:
        src = value
        method = "index_fill_value"  # a number: no input
    return _scatter(
        input, axis, full, src, reduce="none", include_self=True, method=method, op="index_fill"
    )


# --- flattened positions ------------------------------------------------------------------


def _flat(input):  # noqa: A002
    return _apply(lambda a: _sh.reshape(a, shape=(-1,)), input)


def take(input, index):  # noqa: A002
    """Return the entries of the flattened `input` at `index` (any shape; negative counts from the end).

    Examples:
        >>> import funcgrad as torch
        >>> torch.take(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([0, -1]))
        tensor([1., 4.])
    """
    _tensor(input, "take")
    idx = _in_range(_int_index(index, "take"), input.numel(), "take", 0, negative=True)
    return _apply(
        _sc.gather, input, index=_sc.along_index(idx), axis=None, keepdims=True, method="take"
    )


def put(input, index, source, accumulate=False):  # noqa: A002
    """Return `input` with `source` written (or added: `accumulate`) at the flattened positions `index`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.zeros(2, 2).put(torch.tensor([3, 0]), torch.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 1.]])
    """
    _tensor(input, "put")
    idx = _int_index(index, "put")
    if not isinstance(source, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.put(): argument 'source' must be Tensor, not {type(source).__name__}"
        )
    _same_dtype(input, source, "put", "source")
    if source.numel() != idx.size:
        raise _IndexingError(
            f"funcgrad.put: put_(): Expected source and index to have the same number of "
            f"elements, but got source.numel() = {source.numel()}, index.numel() = {idx.size}"
        )
    idx = _in_range(idx, input.numel(), "put", 0, negative=True)
    if tuple(source.shape) != tuple(idx.shape):
        source = source.reshape(idx.shape)
    return _scatter(
        input,
        None,
        idx,
        source,
        reduce="sum" if accumulate else "none",
        include_self=True,
        method="put",
        op="put",
    )


def _broadcast_mask(input, mask, op: str, grow: bool):  # noqa: A002
    """`input` and `mask` broadcast together (`grow`: the input may grow, as out-of-place ops allow)."""
    m = _bool_mask(mask, op)
    shape = tuple(input.shape)
    try:
        target = np.broadcast_shapes(shape, tuple(m.shape))
    except ValueError:
        raise _OpError(
            f"funcgrad.{op}: the mask of shape {list(m.shape)} does not broadcast with the "
            f"input's shape {list(shape)}"
        ) from None
    if target != shape:
        if not grow:
            raise _OpError(
                f"funcgrad.{op}: the mask of shape {list(m.shape)} must broadcast to the "
                f"input's shape {list(shape)}"
            )
        input = _apply(lambda a: _sh.broadcast_to(a, shape=target), input)
    return input, xp_of(m).broadcast_to(m, target)


def masked_fill(input, mask, value):  # noqa: A002
    """Return `input` with `value` (a number or 0-d tensor) where `mask` (boolean) is true.

    `mask` broadcasts with `input`. A 0-d tensor `value` gets the gradient
    of every position it fills.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([1.0, -2.0, 3.0])
        >>> x.masked_fill(x < 0, 0.0)
        tensor([1., 0., 3.])
    """
    _tensor(input, "masked_fill")
    m = _bool_mask(mask, "masked_fill")
    if isinstance(value, Tensor):
        if value.dim():
            raise _IndexingError(
                f"funcgrad.masked_fill: masked_fill_ only supports a 0-dimensional value "
                f"tensor, but got tensor with {value.dim()} dimension(s)."
            )
        if value.dtype != input.dtype:
            if value.requires_grad and is_grad_enabled() and np.dtype(input.dtype).kind not in "fc":
                raise _DtypeError(
                    f"funcgrad.masked_fill: a value that requires grad cannot fill a tensor of "
                    f"dtype {_torch_name(input.dtype)} (PyTorch: Autograd not support dtype); "
                    f"detach the value, or convert the tensor to floating point first"
                )
            value = value.to(input.dtype)
    else:
        if isinstance(value, np.generic):
            value = value.item()
        if np.dtype(input.dtype).kind in "biu" and isinstance(value, complex):
            raise _DtypeError(
                f"funcgrad.masked_fill: value {value!r} cannot be converted to "
                f"{_torch_name(input.dtype)}"
            )
        value = _wrap(xp_of(input._value).asarray(value).astype(input.dtype))
    return _apply(_ew.where, _wrap(m), value, input)


def masked_select(input, mask):  # noqa: A002
    """Return the entries of `input` where `mask` (boolean, broadcast with it) is true, as 1-D.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[1.0, -2.0], [-3.0, 4.0]])
        >>> torch.masked_select(x, x > 0)
        tensor([1., 4.])
    """
    _tensor(input, "masked_select")
    input, m = _broadcast_mask(input, mask, "masked_select", grow=True)
    xp = xp_of(m)
    idx = xp.flatnonzero(m)
    return _apply(
        _sc.gather,
        input,
        index=_sc.along_index(idx),
        axis=None,
        keepdims=True,
        method="masked_select",
    )


def masked_scatter(input, mask, source):  # noqa: A002
    """Return `input` with the first entries of `source` written, in order, where `mask` is true.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.zeros(2, 2)
        >>> x.masked_scatter(torch.tensor([[True, False], [True, True]]), torch.ones(4) * 7)
        tensor([[7., 0.],
                [7., 7.]])
    """
    _tensor(input, "masked_scatter")
    if not isinstance(source, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.masked_scatter(): argument 'source' must be Tensor, not "
            f"{type(source).__name__}"
        )
    _same_dtype(input, source, "masked_scatter", "source")
    input, m = _broadcast_mask(input, mask, "masked_scatter", grow=True)
    xp = xp_of(m)
    idx = xp.flatnonzero(m)
    if idx.size > source.numel():
        raise _IndexingError(
            f"funcgrad.masked_scatter: Number of elements of source < number of ones in mask "
            f"({source.numel()} < {idx.size})"
        )
    src = source if source.dim() == 1 else _flat(source)
    if src.shape[0] != idx.size:
        src = _apply(lambda a: _getitem(a, index=(slice(0, int(idx.size)),)), src)
    return _scatter(
        input,
        None,
        idx,
        src,
        reduce="none",
        include_self=True,
        method="masked_scatter",
        op="masked_scatter",
    )


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """Return `input` with `values` written (or added: `accumulate`) at `input[indices]`.

    `indices` is a tuple of integer (or boolean) tensors, one per leading
    dimension, broadcast together, as `input[indices] = values` reads them.

    Examples:
        >>> import funcgrad as torch
        >>> torch.zeros(3).index_put((torch.tensor([0, 2]),), torch.tensor(5.0))
        tensor([5., 0., 5.])
    """
    _tensor(input, "index_put")
    if not isinstance(indices, (tuple, list)):
        raise _ArgumentTypeError(
            "funcgrad.index_put(): argument 'indices' must be a tuple of tensors"
        )
    shape = tuple(input.shape)
    arrays = []
    for i in indices:
        v = _unwrap_value(i)
        if not hasattr(v, "dtype"):
            v = np.asarray(v)
        if v.dtype == np.bool_:
            arrays.extend(xp_of(v).nonzero(v))
        elif v.dtype.kind in "iu":
            arrays.append(v)
        else:
            raise _IndexingError(
                f"funcgrad.index_put: tensors used as indices must be long, int, byte or bool "
                f"tensors (got {_torch_name(v.dtype)})"
            )
    k = len(arrays)
    if k > len(shape):
        raise _IndexingError(
            f"funcgrad.index_put: too many indices for tensor of dimension {len(shape)} (got {k})"
        )
    xp = xp_of(input._value)
    writes = int(np.prod(shape[k:], dtype=np.int64))  # entries written per index
    arrays = [
        _in_range(xp.asarray(a), shape[d], "index_put", d, negative=True)
        if writes
        else xp.asarray(a) % max(shape[d], 1)  # NOTE: PyTorch checks nothing when none is
        for d, a in enumerate(arrays)
    ]
    lead = xp.broadcast_arrays(*arrays) if arrays else [xp.zeros((), np.int64)]
    picked = tuple(lead[0].shape) if arrays else ()
    rest = shape[k:]
    cols = int(np.prod(rest, dtype=np.int64))
    # the flat position of every entry written: a picked row, then each entry of the rest
    rows = xp.ravel_multi_index(tuple(lead), shape[:k]) if arrays else lead[0]
    flat_pos = rows.reshape(*picked, *(1,) * len(rest)) * cols
    flat_pos = flat_pos + xp.arange(cols, dtype=np.int64).reshape(rest)
    target = picked + rest
    if not isinstance(values, Tensor):
        values = _wrap(xp.asarray(values).astype(input.dtype))
    elif values.dtype != input.dtype:
        _same_dtype(input, values, "index_put", "values")
    if tuple(values.shape) != target:
        values = _apply(lambda a: _sh.broadcast_to(a, shape=target), values)
    return _scatter(
        input,
        None,
        flat_pos,
        values,
        reduce="sum" if accumulate else "none",
        include_self=True,
        method="index_put",
        op="index_put",
    )


# --- positions of nonzero entries -------------------------------------------------------


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """Return the indices of the nonzero entries: an `(n, ndim)` tensor, or a tuple of 1-D ones.

    Examples:
        >>> import funcgrad as torch
        >>> torch.nonzero(torch.tensor([[0.0, 1.0], [2.0, 0.0]]))
        tensor([[0, 1],
                [1, 0]])
    """
    v = _read_value(_tensor(input, "nonzero"), "nonzero")
    xp = xp_of(v)
    if as_tuple:
        if v.ndim == 0:
            return (_wrap(xp.flatnonzero(v.reshape(1)).astype(np.int64)),)
        return tuple(_wrap(a.astype(np.int64)) for a in xp.nonzero(v))
    if v.ndim == 0:
        return _wrap(xp.zeros((int(bool(v)), 0), dtype=np.int64))
    return _wrap(xp.argwhere(v).astype(np.int64))


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """Return the distinct values of `input`, in ascending order (PyTorch's `torch.unique`).

    With `dim`, the distinct slices along that dimension. `return_inverse`
    adds, for each entry (or slice), the index of its value in the result;
    `return_counts` adds how often each value occurs. As PyTorch on the CPU,
    the result is sorted whatever `sorted` says, and each NaN counts as a
    distinct value (NaNs come last).

    NOTE: the result has no gradient (PyTorch records one whose backward is
    not implemented); it does not require grad.

    Examples:
        >>> import funcgrad as torch
        >>> torch.unique(torch.tensor([1, 2, 1, 2, 1, 2]))
        tensor([1, 2])
        >>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
        (tensor([1, 3]), tensor([1, 2]))
    """
    v = _read_value(_tensor(input, "unique"), "unique")
    xp = xp_of(v)
    if dim is None:
        flat = v.reshape(-1)
        order = xp.argsort(flat, kind="stable")
        ordered = flat[order]
        # a new value starts where the sorted values change (NaN != NaN: each NaN is new)
        starts = xp.ones(ordered.shape, dtype=bool)
        starts[1:] = ordered[1:] != ordered[:-1]
    else:
        axis = _normalize_axis(_index_of(dim, "unique", "dim"), max(v.ndim, 1), "unique")[0]
        if v.ndim == 0:
            raise _OpError("funcgrad.unique: dim= needs a tensor of at least one dimension")
        if v.size == 0:
            return _unique_empty_slices(v, axis, return_inverse, return_counts)
        slabs = xp.moveaxis(v, axis, 0).reshape(v.shape[axis], -1)
        # lexicographic order of the slices (the first column is the primary key)
        order = xp.lexsort(slabs.T[::-1])  # (an empty v returned above: slabs has columns)
        ordered = slabs[order]
        starts = xp.ones(len(ordered), dtype=bool)
        starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    group = xp.cumsum(starts) - 1
    values = (
        ordered[starts]
        if dim is None
        else xp.moveaxis(ordered[starts].reshape((-1, *xp.moveaxis(v, axis, 0).shape[1:])), 0, axis)
    )
    out = [_wrap(values)]
    if return_inverse:
        inverse = xp.empty(len(order), dtype=np.int64)
        inverse[order] = group
        out.append(_wrap(inverse.reshape(v.shape) if dim is None else inverse))
    if return_counts:
        out.append(_wrap(xp.diff(xp.append(xp.flatnonzero(starts), len(starts))).astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_empty_slices(v, axis: int, return_inverse: bool, return_counts: bool):
    """`unique(v, dim=axis)` of an empty `v`, as PyTorch: no slices along `axis` give the
    empty input back (no inverse indices, no counts); empty slices along `axis` refuse."""
    zero_dims = [d for d, n in enumerate(v.shape) if n == 0]
    if len(zero_dims) > 1:
        raise _OpError(
            f"funcgrad.unique: a tensor of shape {tuple(v.shape)} has more than one dimension of "
            f"size 0, so its unique slices along dim={axis} are not defined (as in PyTorch)"
        )
    if zero_dims != [axis]:
        raise _OpError(
            f"funcgrad.unique: a tensor of shape {tuple(v.shape)} has its slices along dim={axis} "
            f"empty (dimension {zero_dims[0]} has size 0), so they cannot be told apart (as in "
            f"PyTorch); select dim={zero_dims[0]}"
        )
    xp = xp_of(v)
    out = [_wrap(v.copy())]
    if return_inverse:
        out.append(_wrap(xp.zeros(0, dtype=np.int64)))
    if return_counts:
        out.append(_wrap(xp.zeros(0, dtype=np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def argwhere(input):  # noqa: A002
    """Return the indices of the nonzero entries as an `(n, ndim)` tensor (`nonzero(input)`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.argwhere(torch.tensor([0.0, 3.0, 1.0]))
        tensor([[1],
                [2]])
    """
    return nonzero(input)
