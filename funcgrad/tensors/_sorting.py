"""Extrema, sorting and order statistics: `max`, `amax`, `sort`, `topk`, `median`, `cummax` ...

The indices these return are computed on the values (they have no
gradient); the values are then read at those indices by one `gather` node
(`funcgrad.ops.scatter.gather`), whose `grad_fn` is PyTorch's
(`SortBackward0`, `TopkBackward0` ...) and whose gradient goes to the
returned index alone, as PyTorch's `value_selecting_reduction_backward`.
Full reductions (`amax`, `median()`) share the gradient evenly among ties.

Ties and NaN follow PyTorch 2.13 on the CPU where it is deterministic:
sorting is stable (equal values keep their order, also descending) with
NaN the largest value; `max(dim)`/`argmax` give the first extremum (the
first NaN); `median(dim)` the lower median's position in that stable order
(the first NaN when there is one); `mode` the smallest most frequent value,
at its last position; `cummax`/`cummin` the last position of the running
extremum (a NaN stays, at its own position). Where PyTorch's choice among
ties is not deterministic (`topk`, `kthvalue`), funcgrad takes the first of
the tied entries in the stable order (documented in docs/api/tensor.md).
"""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.backend import xp_of
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import IndexingError as _IndexingError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import order as _order
from funcgrad.ops import reduce as _rd
from funcgrad.ops import scatter as _sc
from funcgrad.ops._util import follows_values
from funcgrad.ops._util import index_of as _index_of
from funcgrad.tensors import return_types as _rt
from funcgrad.tensors._adapters import one_dim as _one_dim
from funcgrad.tensors._adapters import reduce_dims as _reduce_dims
from funcgrad.tensors.tensor_class import (
    Tensor,
    _apply,
    _is_traced,
    _new_like,
    _read_value,
    _unwrap_value,
    _value_readers,
)
from funcgrad.transforms.batching import Batched

__all__ = [
    "amax",
    "amin",
    "aminmax",
    "argmax",
    "argmin",
    "argsort",
    "cummax",
    "count_nonzero",
    "cummin",
    "kthvalue",
    "max",
    "median",
    "min",
    "mode",
    "msort",
    "nanmean",
    "nanmedian",
    "nanquantile",
    "nansum",
    "quantile",
    "sort",
    "std_mean",
    "topk",
    "var_mean",
]


# --- helpers ------------------------------------------------------------------------


def _value(input, op: str):  # noqa: A002
    # NOTE: indices and extrema computed on the values: funcgrad.compile runs them eagerly,
    # and its warning names `op`, the function the user called
    v = _read_value(input, op)
    if not hasattr(v, "dtype"):
        raise _ArgumentTypeError(
            f"funcgrad: expected a tensor, got {type(input).__name__} {input!r}"
        )
    return v


def _indices(value) -> Tensor:
    """An index tensor (int64, no gradient)."""
    return _new_like(Tensor, value.astype(np.int64, copy=False), None)


def _real_only(v, op: str) -> None:
    if v.dtype.kind == "c":
        raise _OpError(f"funcgrad.{op}: {op}(): input tensor must be real (got {v.dtype})")


def _argsort(v, axis: int, descending: bool = False):
    """Stable argsort along `axis` with NaN the largest value (descending: NaN first)."""
    xp = xp_of(v)
    if v.ndim == 0:
        return xp.zeros((), dtype=np.int64)
    kind = {"kind": "stable"} if xp is np else {}  # CuPy's sort is stable
    if not descending:
        return xp.argsort(v, axis=axis, **kind)
    # reverse, sort stably, reverse back: ties keep their order, NaN comes first
    n = v.shape[axis]
    rev = xp.argsort(xp.flip(v, axis=axis), axis=axis, **kind)
    return (n - 1) - xp.flip(rev, axis=axis)


def _take(input, idx, axis: int, keepdim: bool, method: str):  # noqa: A002
    """`input` read at `idx` along `axis` (`idx` keeps the dim): a gather node with `method`'s name."""
    return _apply(
        _sc.gather,
        input,
        index=_sc.along_index(idx),
        axis=axis,
        keepdims=keepdim,
        method=method,
    )


def _picked(input, idx, axis: int, keepdim: bool, method: str, result):  # noqa: A002
    """The `(values, indices)` pair of a value-selecting reduction, `idx` keeping the dim."""
    xp = xp_of(idx)
    values = _take(input, idx, axis, keepdim, method)
    out_idx = idx if keepdim or idx.ndim == 0 else xp.squeeze(idx, axis=axis)
    return result(values, _indices(out_idx))


def _along(input, dim, op: str):  # noqa: A002
    """`dim` as a non-negative axis (0 for a 0-d tensor), checked."""
    return _one_dim(input, dim, op)


def _nonempty(v, axis: int, op: str) -> None:
    if v.ndim and v.shape[axis] == 0:
        raise _IndexingError(
            f"funcgrad.{op}: {op}(): Expected reduction dim {axis} to have non-zero size "
            f"(input shape {list(v.shape)})"
        )


# --- max, min and their arguments ------------------------------------------------------

_UNSET = object()


@follows_values  # under funcgrad.jit's trace, one step of the plan (not the trace's indices)
def _extremum_indices(v, arg: str, axis: int, keepdims: bool):
    """The indices `max(dim)`/`min(dim)` return: NumPy's `arg` (argmax, argmin) of `v`."""
    return getattr(xp_of(v), arg)(v, axis=axis, keepdims=keepdims) if v.ndim else v * 0


def _extremum(name, prim, elementwise, arg, result):
    def f(input, *args, dim=_UNSET, keepdim=_UNSET, other=_UNSET):  # noqa: A002
        # PyTorch's overloads: f(input), f(input, other), f(input, dim, keepdim=False).
        # A tensor alone in second place is `other` (even a 0-d integer one); with
        # `keepdim`, or passed as `dim=`, it is the dim.
        if (
            len(args) > 2
            or (args and dim is not _UNSET)
            or (len(args) > 1 and keepdim is not _UNSET)
        ):
            raise _ArgumentTypeError(
                f"funcgrad.{name}() received an invalid combination of arguments: expected "
                f"({name}(input), {name}(input, other) or {name}(input, dim, keepdim=False))"
            )
        if len(args) == 2:
            keepdim = args[1]
        if args:
            if isinstance(args[0], Tensor) and keepdim is _UNSET:
                other = args[0]
            else:
                dim = args[0]
        if other is not _UNSET:
            if dim is not _UNSET or keepdim is not _UNSET:
                raise _ArgumentTypeError(
                    f"funcgrad.{name}(): `other` (elementwise) takes no dim or keepdim"
                )
            return _apply(elementwise, input, other)
        if dim is _UNSET:
            if keepdim is not _UNSET:
                raise _ArgumentTypeError(
                    f"funcgrad.{name}(): keepdim needs a dim: {name}(input, dim, keepdim)"
                )
            return _apply(prim, input, axis=None, keepdims=False)  # ties share the gradient
        if isinstance(dim, Tensor) and (dim.dim() or np.dtype(dim.dtype).kind not in "iu"):
            raise _ArgumentTypeError(
                f"funcgrad.{name}(): argument 'dim' must be int, not a tensor of dtype "
                f"{dim.dtype} and shape {list(dim.shape)}"
            )
        along = _one_dim(input, dim, name)
        keep = False if keepdim is _UNSET else keepdim
        # with dim, the gradient goes to the returned index alone
        picked = _rd.max_dim if prim is _rd.max_ else _rd.min_dim
        values = _apply(picked, input, axis=along, keepdims=keep)
        v = _unwrap_value(input)
        node = input._node if _value_readers else None  # funcgrad.compile: the plan's indices
        idx = _extremum_indices(v if node is None else node, arg, along, keep)
        return result(values, _indices(idx if _is_traced(idx) else _array(xp_of(v), idx)))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"Return the {name}imum of `input`: over all elements, along `dim` (a `(values, "
        f"indices)` pair), or elementwise with a tensor `other`.\n\n"
        f"As in PyTorch, a tensor as the only second argument is `other`, even a 0-d "
        f"integer one; with `keepdim`, or as `dim=`, a 0-d integer tensor is the dim. Over "
        f"all elements, tied extrema share the gradient; along `dim`, it goes to the first "
        f"(the index returned).\n\n"
        f"Examples:\n"
        f"    >>> import funcgrad as torch\n"
        f"    >>> torch.{name}(torch.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1).values\n"
        f"    tensor([{'5., 3.' if name == 'max' else '1., 2.'}])\n"
    )
    return f


max = _extremum("max", _rd.max_, _ew.maximum, "argmax", _rt.max)  # noqa: A001
min = _extremum("min", _rd.min_, _ew.minimum, "argmin", _rt.min)  # noqa: A001


def _array(xp, a):
    """`a` as an array (a batched value under vmap stays one: it batches)."""
    return a if type(a) is Batched else xp.asarray(a)


def _arg(name):
    def f(input, dim=None, keepdim=False):  # noqa: A002
        v = _value(input, name)
        _real_only(v, name)
        xp = xp_of(v)
        if dim is None:
            if v.size == 0:
                raise _IndexingError(
                    f"funcgrad.{name}: {name}(): Expected reduction dim to be specified for "
                    f"input.numel() == 0."
                )
            idx = getattr(xp, name)(v.reshape(-1))
            out = _array(xp, idx).reshape((1,) * v.ndim if keepdim else ())
            return _indices(out)
        axis = _one_dim(input, dim, name)
        _nonempty(v, axis, name)
        if v.ndim == 0:
            return _indices(xp.zeros((), dtype=np.int64))
        return _indices(_array(xp, getattr(xp, name)(v, axis=axis, keepdims=keepdim)))

    f.__name__ = f.__qualname__ = name
    which = "maximum" if name == "argmax" else "minimum"
    f.__doc__ = f"""Return the index of the {which} (of the flattened tensor, or along `dim`).

    No gradient. Ties give the first index; NaN is the {which} (its first index).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([1.0, 5.0, 0.5]))
        tensor({1 if name == "argmax" else 2})
    """
    return f


argmax = _arg("argmax")
argmin = _arg("argmin")


def _amax(name, prim):
    def f(input, dim=(), keepdim=False):  # noqa: A002
        v = _value(input, name)
        _real_only(v, name)
        axis = _reduce_dims(input, dim, name)
        axes = tuple(range(v.ndim)) if axis is None else axis
        axes = (axes,) if isinstance(axes, int) else axes
        if v.size == 0:
            if not axes and v.ndim:
                raise _IndexingError(
                    f"funcgrad.{name}: {name}(): Expected reduction dim to be specified for "
                    f"input.numel() == 0. Specify the reduction dim with the 'dim' argument."
                )
            for a in axes:
                _nonempty(v, a % _max_ndim(v), name)
        return _apply(prim, input, axis=axes, keepdims=keepdim)

    f.__name__ = f.__qualname__ = name
    which = "largest" if name == "amax" else "smallest"
    f.__doc__ = f"""Return the {which} entries over `dim` (an int or a tuple; `()`: every dim).

    Tied entries share the gradient evenly (unlike `{name[1:]}(dim)`, whose
    gradient goes to the index it returns).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([[1.0, 3.0], [3.0, 2.0]], requires_grad=True)
        >>> torch.{name}(x, 1)
        tensor([{"3., 3." if name == "amax" else "1., 2."}], grad_fn=<{name.capitalize()}Backward0>)
    """
    return f


def _max_ndim(v) -> int:
    return v.ndim if v.ndim else 1


amax = _amax("amax", _rd.max_)
amin = _amax("amin", _rd.min_)


def aminmax(input, *, dim=None, keepdim=False):  # noqa: A002
    """Return `(min, max)` of `input`, or along `dim` (a named tuple with fields `min`, `max`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.aminmax(torch.tensor([1.0, -2.0, 3.0]))
        funcgrad.return_types.aminmax(
        min=tensor(-2.),
        max=tensor(3.))
    """
    v = _value(input, "aminmax")
    if dim is None:
        if v.size == 0:
            raise _IndexingError(
                "funcgrad.aminmax: aminmax(): cannot compute aminmax over an empty dimension "
                "as the operation has no identity."
            )
        dims = tuple(range(v.ndim))
        lo, hi = amin(input, dims, False), amax(input, dims, False)
        if keepdim:
            shape = (1,) * v.ndim
            lo, hi = lo.reshape(shape), hi.reshape(shape)
        return _rt.aminmax(lo, hi)
    return _rt.aminmax(amin(input, dim, keepdim), amax(input, dim, keepdim))


# --- sorting ------------------------------------------------------------------------------


def sort(input, dim=-1, descending=False, *, stable=False):  # noqa: A002
    """Return the entries sorted along `dim`, with the indices that sort them.

    The sort is stable (equal entries keep their order, descending too), as
    PyTorch's on the CPU; NaN counts as the largest value. The gradient goes
    back to each entry's place.

    Examples:
        >>> import funcgrad as torch
        >>> torch.sort(torch.tensor([3.0, 1.0, 2.0]), descending=True).indices
        tensor([0, 2, 1])
    """
    v = _value(input, "sort")
    _real_only(v, "sort")
    axis = _along(input, dim, "sort")
    idx = _argsort(v, axis, bool(descending))
    return _picked(input, idx, axis, True, "sort", _rt.sort)


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """Return the indices that sort `input` along `dim` (stable, NaN the largest; no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.argsort(torch.tensor([3.0, 1.0, 2.0]))
        tensor([1, 2, 0])
    """
    v = _value(input, "argsort")
    _real_only(v, "argsort")
    return _indices(_argsort(v, _along(input, dim, "argsort"), bool(descending)))


def msort(input):  # noqa: A002
    """Return `input` sorted along its first dimension (`sort(input, 0).values`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.msort(torch.tensor([[3.0, 1.0], [2.0, 4.0]]))
        tensor([[2., 1.],
                [3., 4.]])
    """
    return sort(input, 0).values


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """Return the `k` largest (or smallest) entries along `dim`, and their indices.

    The result is always sorted (PyTorch's order with `sorted=False` is
    unspecified). Among tied entries the first ones are taken (PyTorch's
    choice there depends on its algorithm).

    Raises:
        funcgrad.errors.IndexingError: If `k` is negative or larger than the dimension.

    Examples:
        >>> import funcgrad as torch
        >>> torch.topk(torch.tensor([1.0, 5.0, 3.0]), 2).values
        tensor([5., 3.])
    """
    v = _value(input, "topk")
    _real_only(v, "topk")
    k = _index_of(k, "topk", "k")
    axis = _along(input, dim, "topk")
    n = v.shape[axis] if v.ndim else 1
    if not 0 <= k <= n:
        raise _IndexingError(
            f"funcgrad.topk: selected index k out of range (k={k} for a dimension of size "
            f"{n}, input shape {list(v.shape)})"
        )
    idx = _argsort(v, axis, bool(largest))
    if v.ndim:
        idx = idx[(slice(None),) * axis + (slice(0, k),)]
    return _picked(input, idx, axis, True, "topk", _rt.topk)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """Return the `k`-th smallest entry along `dim` (1-based), and its index.

    NaN counts as the largest value. Among ties the first in the stable
    order is taken (PyTorch's choice depends on its algorithm).

    Raises:
        funcgrad.errors.IndexingError: If `k` is not in `1..size`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.kthvalue(torch.tensor([4.0, 1.0, 3.0]), 2)
        funcgrad.return_types.kthvalue(
        values=tensor(3.),
        indices=tensor(2))
    """
    v = _value(input, "kthvalue")
    _real_only(v, "kthvalue")
    k = _index_of(k, "kthvalue", "k")
    axis = _along(input, dim, "kthvalue")
    n = v.shape[axis] if v.ndim else 1
    if not 1 <= k <= n:
        raise _IndexingError(
            f"funcgrad.kthvalue: kthvalue(): selected number k out of range for dimension "
            f"{axis} (k={k}, size {n}, input shape {list(v.shape)})"
        )
    idx = _argsort(v, axis)
    if v.ndim:
        idx = idx[(slice(None),) * axis + (slice(k - 1, k),)]
    return _picked(input, idx, axis, keepdim, "kthvalue", _rt.kthvalue)


def _median(name, skipnan, result):
    def f(input, dim=None, keepdim=False):  # noqa: A002
        v = _value(input, name)
        _real_only(v, name)
        if dim is None:
            return _apply(_order.lower_median, input, skipnan=skipnan)
        axis = _along(input, dim, name)
        _nonempty(v, axis, name)
        xp = xp_of(v)
        if v.ndim == 0:
            return _picked(input, xp.zeros((), np.int64), 0, keepdim, name, result)
        order = _argsort(v, axis)
        isnan = xp.isnan(v) if v.dtype.kind == "f" else xp.zeros(v.shape, bool)
        valid = v.shape[axis] - isnan.sum(axis=axis, keepdims=True)
        if skipnan:  # the lower median of the entries that are not NaN (index 0 if none)
            pos = xp.maximum(valid - 1, 0) // 2
        else:  # the lower median; the first NaN if there is one
            pos = xp.full(valid.shape, (v.shape[axis] - 1) // 2)
        idx = xp.take_along_axis(order, pos, axis=axis)
        if not skipnan:
            first_nan = xp.argmax(isnan, axis=axis, keepdims=True)
            idx = xp.where(valid < v.shape[axis], first_nan, idx)
        return _picked(input, idx, axis, keepdim, name, result)

    f.__name__ = f.__qualname__ = name
    return f


median = _median("median", False, _rt.median)
median.__doc__ = """Return the lower median of all entries, or along `dim` with its index.

    Without `dim`: a NaN entry makes the result NaN, and the entries equal to
    the result share its gradient evenly. Along `dim`: the index is the
    lower median's position in the stable sort (the first NaN if one is
    there), and the gradient goes to it.

    Examples:
        >>> import funcgrad as torch
        >>> torch.median(torch.tensor([4.0, 1.0, 3.0, 2.0]))
        tensor(2.)
    """
nanmedian = _median("nanmedian", True, _rt.nanmedian)
nanmedian.__doc__ = """Return the lower median ignoring NaN entries (all NaN: NaN), or along `dim`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.nanmedian(torch.tensor([4.0, float("nan"), 3.0, 2.0]))
        tensor(3.)
    """


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    """Return the most frequent entry along `dim` (the smallest of those), and its last index.

    Examples:
        >>> import funcgrad as torch
        >>> torch.mode(torch.tensor([2.0, 1.0, 2.0, 1.0, 3.0]))
        funcgrad.return_types.mode(
        values=tensor(1.),
        indices=tensor(3))
    """
    v = _value(input, "mode")
    _real_only(v, "mode")
    axis = _along(input, dim, "mode")
    xp = xp_of(v)
    if v.ndim == 0:
        return _picked(input, xp.zeros((), np.int64), 0, keepdim, "mode", _rt.mode)
    _nonempty(v, axis, "mode")
    rows = xp.moveaxis(v, axis, -1)
    lead, n = rows.shape[:-1], rows.shape[-1]
    rows = rows.reshape(-1, n)
    s = xp.sort(rows, axis=1)
    new = xp.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    run = xp.cumsum(new, axis=1) - 1  # the run (of equal values) each sorted entry is in
    counts = xp.zeros(s.shape, dtype=np.int64)
    _add_at(xp, counts, (xp.arange(s.shape[0])[:, None], run), 1)
    best = xp.argmax(counts, axis=1)  # the first (smallest) most frequent run
    first = xp.argmax(run == best[:, None], axis=1)
    value = s[xp.arange(s.shape[0]), first]
    hits = rows == value[:, None]
    if v.dtype.kind == "f":
        hits |= xp.isnan(rows) & xp.isnan(value)[:, None]
    last = (n - 1) - xp.argmax(hits[:, ::-1], axis=1)
    idx = xp.moveaxis(last.reshape(*lead, 1), -1, axis)
    return _picked(input, idx, axis, keepdim, "mode", _rt.mode)


def _add_at(xp, out, index, values) -> None:
    if xp is np:
        np.add.at(out, index, values)
    else:
        import cupyx

        cupyx.scatter_add(out, index, values)


def _cumulative(name, result):
    greater = name == "cummax"

    def f(input, dim):  # noqa: A002
        v = _value(input, name)
        _real_only(v, name)
        axis = _along(input, dim, name)
        xp = xp_of(v)
        if v.ndim == 0 or v.size == 0:
            idx = xp.zeros(v.shape, dtype=np.int64)
            return _picked(input, idx, axis, True, name, result)
        acc = xp.maximum if greater else xp.minimum
        running = _accumulate(xp, acc, v, axis)
        # a position is the running extremum's when it equals it, or is NaN (NaN stays)
        hit = v == running
        if v.dtype.kind == "f":
            hit |= xp.isnan(v)
        place = [1] * v.ndim
        place[axis] = v.shape[axis]
        positions = xp.where(hit, xp.arange(v.shape[axis]).reshape(place), 0)
        idx = _accumulate(xp, xp.maximum, positions, axis)
        return _picked(input, idx, axis, True, name, result)

    f.__name__ = f.__qualname__ = name
    which = "maximum" if greater else "minimum"
    f.__doc__ = f"""Return the running {which} along `dim`, and where each was found.

    The index is the last position of the running {which} (ties), and NaN
    stays once seen, at its own position, as in PyTorch. The gradient goes
    to those positions.

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([1.0, 3.0, 2.0]), 0).values
        tensor([1., {"3., 3." if greater else "1., 1."}])
    """
    return f


def _accumulate(xp, ufunc, v, axis):
    if xp is np:
        return ufunc.accumulate(v, axis=axis)
    # NOTE: CuPy's ufuncs have no accumulate: computed on the host
    import numpy

    return xp.asarray(getattr(numpy, ufunc.__name__).accumulate(v.get(), axis=axis))


cummax = _cumulative("cummax", _rt.cummax)
cummin = _cumulative("cummin", _rt.cummin)


# --- moments with the mean, quantiles, NaN-ignoring reductions ----------------------------


def _moment_mean(name):
    def f(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
        # NOTE: cycle: functions re-exports this
        from funcgrad.tensors import functions as F

        moment = getattr(F, name.split("_")[0])
        if isinstance(dim, (bool, np.bool_)):  # the overload f(input, unbiased)
            dim, unbiased = None, bool(dim)
        kwargs = {"correction": correction} if correction is not None else {"unbiased": unbiased}
        spread = moment(input, dim, keepdim=keepdim, **kwargs)
        center = F.mean(input, dim if dim is not None else None, keepdim=keepdim)
        if dim is None and keepdim:
            center = F.mean(input, tuple(range(input.dim())), keepdim=True)
        return spread, center

    f.__name__ = f.__qualname__ = name
    what = "standard deviation" if name.startswith("std") else "variance"
    f.__doc__ = f"""Return `({name.split("_")[0]}, mean)` of `input` over `dim`: the {what} and the mean together.

    Takes the arguments of `{name.split("_")[0]}` (`unbiased`, `correction`, `keepdim`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([1.0, 3.0]))[1]
        tensor(2.)
    """
    return f


std_mean = _moment_mean("std_mean")
var_mean = _moment_mean("var_mean")

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, np_name):
    def f(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
        v = _value(input, name)
        if v.dtype.kind not in "f":
            raise _OpError(
                f"funcgrad.{name}: {name}() input tensor must be either float or double dtype "
                f"(got {v.dtype})"
            )
        if interpolation not in _INTERPOLATIONS:
            raise _OpError(
                f"funcgrad.{name}: {name}() interpolation must be one of linear, lower, "
                f"higher, midpoint or nearest. Got {interpolation}"
            )
        qv = _unwrap_value(q) if isinstance(q, Tensor) else np.asarray(q, dtype=v.dtype)
        if np.ndim(qv) > 1:
            raise _OpError(f"funcgrad.{name}: {name}() q must be a scalar or 1D tensor")
        if isinstance(q, Tensor) and q.dtype != input.dtype:
            raise _OpError(
                f"funcgrad.{name}: {name}() q tensor must be same dtype as the input tensor"
            )
        if np.any((qv < 0) | (qv > 1)):
            raise _OpError(f"funcgrad.{name}: {name}() q values must be in the range [0, 1]")
        if v.size == 0:
            raise _OpError(f"funcgrad.{name}: {name}() input tensor must be non-empty")
        np_fn = getattr(fnp, np_name)

        def fn(a, qs, **kw):
            # one NumPy scalar of the input's dtype at a time: PyTorch computes the rank
            # q * (n - 1) in that dtype (float32 rounds 0.3 * 15 to 4.5, which 'nearest'
            # takes to 4; float64 gives 4.50000018, so 5)
            if np.ndim(qs) == 0:
                return np_fn(a, np.asarray(qs)[()], **kw)
            return fnp.stack([np_fn(a, x, **kw) for x in np.asarray(qs)])

        if dim is None:
            axis = None
            out = _apply(lambda a: fn(a, qv, axis=None, method=interpolation), input)
            if keepdim:
                shape = (*np.shape(qv), *(1,) * v.ndim)
                out = out.reshape(shape)
            return out
        axis = _one_dim(input, dim, name)
        if v.ndim == 0:
            return _apply(lambda a: fn(a, qv, method=interpolation), input)
        return _apply(lambda a: fn(a, qv, axis=axis, keepdims=keepdim, method=interpolation), input)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return the `q`-quantiles of `input` (flattened, or along `dim`){", NaN entries ignored" if name.startswith("nan") else ""}.

    `q` is a number or a 1-D tensor (its dimension comes first in the
    result); `interpolation` is `"linear"`, `"lower"`, `"higher"`,
    `"midpoint"` or `"nearest"`. The gradient goes to the one or two
    entries each quantile is read from.

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)
        tensor(2.5000)
    """
    return f


quantile = _quantile("quantile", "quantile")
nanquantile = _quantile("nanquantile", "nanquantile")


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Return the sum of the entries that are not NaN (over `dim`, if given).

    Examples:
        >>> import funcgrad as torch
        >>> torch.nansum(torch.tensor([1.0, float("nan"), 2.0]))
        tensor(3.)
    """
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors import functions as F

    v = _value(input, "nansum")
    if v.dtype.kind in "fc":
        input = F.where(_new_like(Tensor, v != v, None), 0.0, input)
    return F.sum(input, dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Return the mean of the entries that are not NaN (over `dim`, if given).

    Examples:
        >>> import funcgrad as torch
        >>> torch.nanmean(torch.tensor([1.0, float("nan"), 2.0]))
        tensor(1.5000)
    """
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors import functions as F

    v = _value(input, "nanmean")
    if v.dtype.kind not in "fc":
        raise _OpError(
            f"funcgrad.nanmean: nanmean(): expected input to have floating point or complex "
            f"dtype but got {v.dtype}"
        )
    kept = _new_like(Tensor, (v == v).astype(v.dtype), None)
    return nansum(input, dim, keepdim, dtype=dtype) / F.sum(kept, dim, keepdim)


def count_nonzero(input, dim=None):  # noqa: A002
    """Return the number of nonzero entries (over `dim`: an int or a tuple), int64.

    Examples:
        >>> import funcgrad as torch
        >>> torch.count_nonzero(torch.tensor([[0.0, 1.0], [2.0, 3.0]]), dim=0)
        tensor([1, 2])
    """
    v = _value(input, "count_nonzero")
    axis = None if dim is None else _reduce_dims(input, dim, "count_nonzero")
    return _indices(np.asarray(np.count_nonzero(v, axis=axis)))
