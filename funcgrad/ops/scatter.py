"""Gathering and scattering along one axis: PyTorch's `gather` and `scatter_reduce`.

`gather(x, index=, axis=)` reads `out[..., i, ...] = x[..., index[..., i, ...], ...]`
(NumPy's `take_along_axis`; `index` may be smaller than `x` on the other
axes, as in PyTorch). `scatter(x, src, index=, axis=, reduce=)` writes `src`
into a copy of `x` at the same positions, overwriting (`reduce="none"`) or
reducing (`"sum"`, `"prod"`, `"mean"`, `"amax"`, `"amin"`, with or without
the values of `x` there: `include_self`). They are each other's transpose:
`gather`'s VJP scatters its cotangent with `"sum"`, and `scatter`'s gathers.

The index is a static parameter (a read-only integer array, normalized by
`along_index`), never an input: it is not differentiated, and the Tensor
layer's type promotion never sees it. The rules follow PyTorch's derivatives
(`scatter_reduce_backward`): ties of `amax`/`amin` share the gradient evenly,
and the gradient of `prod` is the product of the other entries, exact at zeros.
Together these primitives carry the values of every index-selecting
operation of the Tensor layer (`sort`, `topk`, `median`, `cummax`,
`index_add` ...): `method`, a parameter that changes nothing but the name of
the `grad_fn`, says which one made the node.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy

from funcgrad.backend import freeze, xp_of
from funcgrad.errors import IndexingError, OpError
from funcgrad.graph.node import Array
from funcgrad.ops._util import shape_of, value_of
from funcgrad.ops.elementwise import divide, multiply, where
from funcgrad.ops.registry import (
    LINEAR,
    Draw,
    Drawn,
    GradFnName,
    Names,
    Primitive,
    RuleInputs,
    RuleParams,
    Sample,
    register,
)
from funcgrad.ops.shape import expand_dims

REDUCTIONS = ("none", "sum", "prod", "mean", "amax", "amin")


def along_index(index: Any, op: str = "gather") -> Array:
    """Return `index` as the read-only integer array `gather` and `scatter` take.

    Raises:
        funcgrad.errors.IndexingError: If `index` is not an integer array.
    """
    index = numpy.asarray(index) if not hasattr(index, "dtype") else index
    if index.dtype.kind not in "iu":
        raise IndexingError(
            f"funcgrad.{op}: Expected dtype int64 for index (got {index.dtype}); convert "
            f"it with index.long()"
        )
    return freeze(index.astype(numpy.int64, copy=False))


def _positions(xp: ModuleType, index: Array, axis: int) -> tuple[Any, ...]:
    """The advanced index that picks `index` along `axis` and the identity on the other axes."""
    out = []
    for d, n in enumerate(index.shape):
        if d == axis:
            out.append(index)
        else:
            shape = [1] * index.ndim
            shape[d] = n
            out.append(xp.arange(n).reshape(shape))
    return tuple(out)


def _at(xp: ModuleType, a: Array, index: Array, axis: int | None) -> tuple[Array, tuple[Any, ...]]:
    """`a` as the positions index it (a view) and those positions.

    Along `axis`: `a` itself (a 0-d array and index as 1-d: PyTorch's one
    element along dim 0). With `axis=None`, positions in the flattened `a`
    (`index` of any shape), as PyTorch's `take` and `put`.
    """
    index = xp.asarray(index)
    if axis is None:
        return xp.reshape(a, (-1,)), (index,)
    if a.ndim == 0:
        a = xp.reshape(a, (1,))
    return a, _positions(xp, index.reshape(1) if index.ndim == 0 else index, axis)


def _as_index(xp: ModuleType, v: Array, index: Array, axis: int | None) -> Array:
    """`v`, of the index's shape, as the values `_at`'s positions take (1-d for a 0-d index)."""
    return v.reshape(1) if axis is not None and index.ndim == 0 else v


def _check(x_shape: tuple[int, ...], index: Array, axis: int | None, op: str) -> None:
    """Refuse what PyTorch refuses: other ranks, a larger index, positions out of range."""
    if axis is None:
        size = 1
        for n in x_shape:
            size *= n
        _in_range(
            index,
            size,
            f"funcgrad.{op}: index {{}} is out of range for a tensor of {size} elements",
        )
        return
    ndim = len(x_shape)
    if index.ndim != ndim and not (ndim <= 1 and index.ndim <= 1):
        raise IndexingError(
            f"funcgrad.{op}: Index tensor must have the same number of dimensions as the "
            f"input tensor (index shape {list(index.shape)}, input shape {list(x_shape)})"
        )
    shape = x_shape or (1,)
    ishape = index.shape or (1,)
    for d, (n, m) in enumerate(zip(shape, ishape, strict=True)):
        if d != axis and m > n:
            raise IndexingError(
                f"funcgrad.{op}: Size does not match at dimension {d} expected index "
                f"{list(index.shape)} to be no larger than self {list(x_shape)} apart from "
                f"dimension {axis}"
            )
    _in_range(
        index,
        shape[axis],
        f"funcgrad.{op}: index {{}} is out of bounds for dimension {axis} with size "
        f"{shape[axis]} (input shape {list(x_shape)})",
    )


def _in_range(index: Array, n: int, message: str) -> None:
    if index.size:
        v = value_of(index)
        lo, hi = int(v.min()), int(v.max())
        if lo < 0 or hi >= n:
            raise IndexingError(message.format(lo if lo < 0 else hi))


# --- gather -----------------------------------------------------------------------------

_GATHER_GRAD_FN = {
    "gather": "GatherBackward0",
    "take_along_dim": "GatherBackward0",
    "index_select": "IndexSelectBackward0",
    "take": "TakeBackward0",
    "masked_select": "MaskedSelectBackward0",
    "sort": "SortBackward0",
    "topk": "TopkBackward0",
    "kthvalue": "KthvalueBackward0",
    "median": "MedianBackward1",
    "nanmedian": "NanmedianBackward1",
    "mode": "ModeBackward0",
    "cummax": "CummaxBackward0",
    "cummin": "CumminBackward0",
    "max": "MaxBackward0",
    "min": "MinBackward0",
}


def _gather_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """PyTorch's name for the operation that gathered (`method`): GatherBackward0, SortBackward0 ..."""
    return _GATHER_GRAD_FN[params["method"]]


def _gather_forward(
    xp: ModuleType, x: Array, *, index: Array, axis: int | None, keepdims: bool, method: str
) -> Array:
    x = xp.asarray(x)
    _check(x.shape, index, axis, method)
    view, pos = _at(xp, x, index, axis)
    out = view[pos]
    if index.ndim == 0:  # a 0-d index reads one entry: 0-d, with or without keepdims
        return out.reshape(())
    return out if keepdims or axis is None else xp.squeeze(out, axis=axis)


def _gather_vjp(
    ct: Array, out: Array, x: Array, *, index: Array, axis: int | None, keepdims: bool, method: str
) -> Array:
    if not keepdims and index.ndim and axis is not None:
        ct = expand_dims(ct, axis=axis)
    return scatter(
        _zeros_like(ct, shape_of(x)),
        ct,
        index=index,
        axis=axis,
        reduce="sum",
        include_self=True,
        method="scatter_add",
    )


def _zeros_like(ct: Array, shape: tuple[int, ...]) -> Array:
    v = value_of(ct)
    return xp_of(v).zeros(shape, dtype=v.dtype)


def _index_sample(g: Draw, shape: tuple[int, ...], axis: int, unique: bool) -> Array:
    """An index for `shape` along `axis`: no larger elsewhere, distinct along `axis` if `unique`."""
    n = shape[axis] if shape else 1
    ishape = [g.integers(1, s) for s in shape] if shape else []
    if ishape:
        ishape[axis] = g.integers(0, n) if unique else g.integers(0, 4)
    if unique:
        # a distinct prefix of a random permutation of range(n) in every column
        keys = g.array((*ishape[:axis], n, *ishape[axis + 1 :]) if ishape else (n,), 0.0, 1.0).real
        order = keys.argsort(axis=axis if ishape else 0)
        take = [slice(None)] * max(len(ishape), 1)
        take[axis if ishape else 0] = slice(0, ishape[axis] if ishape else 1)
        index = order[tuple(take)]
        return along_index(index.reshape(ishape) if ishape else index.reshape(()))
    picks = numpy.floor(g.array(tuple(ishape), 0.0, n - 1e-9).real)
    return along_index(picks.astype(numpy.int64))


def _flat_index_sample(g: Draw, shape: tuple[int, ...], unique: bool) -> Array:
    """Positions in the flattened `shape` (`axis=None`), as an index of 0 to 2 dimensions."""
    size = 1
    for n in shape:
        size *= n
    ishape = g.shape(min_dims=0, max_dims=2, min_side=0, max_side=3)
    count = 1
    for n in ishape:
        count *= n
    if unique:
        count = min(count, size)
        ishape = (count,)
        picks = g.array((size,), 0.0, 1.0).real.argsort()[:count]
    else:
        picks = numpy.floor(g.array((count,), 0.0, size - 1e-9).real)
    return along_index(picks.astype(numpy.int64).reshape(ishape))


def _gather_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    x = g.array(shape, -3.0, 3.0)
    if g.integers(0, 3) == 0:  # positions in the flattened x
        index = _flat_index_sample(g, shape, unique=False)
        return (x,), {"index": index, "axis": None, "keepdims": True, "method": "take"}
    axis = g.integers(0, len(shape) - 1) if shape else 0
    index = _index_sample(g, shape, axis, unique=False)
    keepdims = True
    if shape and index.shape[axis] == 1 and g.boolean():
        keepdims = False
    return (x,), {"index": index, "axis": axis, "keepdims": keepdims, "method": "gather"}


# The PyTorch functions (and methods) whose result is one gather node
_GATHERS = ("gather", "take_along_dim", "index_select", "take", "masked_select")

gather: Primitive = register(
    Primitive(
        name="gather",
        forward=_gather_forward,
        vjp=(_gather_vjp,),
        jvp=LINEAR,
        params=("index", "axis", "keepdims", "method"),
        sample=Sample(_gather_sample, complex=True),
        doc=(
            "x[..., index[..., i, ...], ...] along axis (NumPy's take_along_axis; index may "
            "be smaller on the other axes); without keepdims, axis is dropped"
        ),
        names=Names(
            torch=_GATHERS,
            method=_GATHERS,
            grad_fn=_gather_grad_fn,
        ),
    )
)


# --- scatter ----------------------------------------------------------------------------

_SCATTER_GRAD_FN = {
    "scatter": "ScatterBackward0",
    "scatter_value": "ScatterBackward1",
    "scatter_add": "ScatterAddBackward0",
    "scatter_reduce": "ScatterReduceBackward0",
    "index_add": "IndexAddBackward0",
    "index_copy": "IndexCopyBackward0",
    "index_fill": "IndexFillBackward1",
    "index_fill_value": "IndexFillBackward0",
    "index_put": "IndexPutBackward0",
    "index_reduce": "IndexReduceBackward0",
    "masked_scatter": "MaskedScatterBackward0",
    "put": "PutBackward0",
}


def _scatter_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """PyTorch's name for the operation that scattered (`method`): ScatterAddBackward0 ...

    A number written (`scatter(..., value)`, `index_fill` with a number) is
    no input to PyTorch: only `x` is listed then.
    """
    method = params["method"]
    name = _SCATTER_GRAD_FN[method]
    return (name, (0,)) if method.endswith("_value") else name


def _identity(xp: ModuleType, reduce: str, dtype: Any) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind in "fc":
        return -xp.inf if reduce == "amax" else xp.inf
    info = xp.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # bool
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


def _ufunc_at(xp: ModuleType, reduce: str, out: Array, pos: tuple[Any, ...], src: Array) -> None:
    """`out[pos] op= src`, once per occurrence of a position (`ufunc.at`)."""
    name = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}
    if xp.__name__ == "numpy":
        getattr(xp, name[reduce]).at(out, pos, src)
        return
    import cupyx  # NOTE: CuPy has scatter_add/max/min, not a product: that one goes by host

    if reduce in ("sum", "mean"):
        cupyx.scatter_add(out, pos, src)
    elif reduce == "amax":
        cupyx.scatter_max(out, pos, src)
    elif reduce == "amin":
        cupyx.scatter_min(out, pos, src)
    else:
        host = out.get()
        numpy.multiply.at(host, tuple(p.get() for p in pos), src.get())
        out[...] = xp.asarray(host)


def _counts(
    xp: ModuleType, shape: tuple[int, ...], index: Array, axis: int | None, start: Any
) -> Array:
    """How many entries each position of `shape` reduces: `start`, plus one per `index` entry."""
    count = xp.array(xp.broadcast_to(xp.asarray(start, dtype=xp.int64), shape), order="C")
    if index.size:
        view, pos = _at(xp, count, index, axis)
        ones = xp.ones(_as_index(xp, xp.asarray(index), index, axis).shape, xp.int64)
        _ufunc_at(xp, "sum", view, pos, ones)
    return count


def scattered(value: Array, index: Array, axis: int | None) -> Array:
    """Return the boolean mask of the positions of `value`'s shape that `index` names."""
    xp = xp_of(value)
    mask = xp.zeros(shape_of(value), dtype=bool)
    if index.size:
        view, pos = _at(xp, mask, index, axis)
        view[pos] = True
    return mask


def _scatter_forward(
    xp: ModuleType,
    x: Array,
    src: Array,
    *,
    index: Array,
    axis: int | None,
    reduce: str,
    include_self: bool,
    method: str,
) -> Array:
    x = xp.asarray(x)
    _check(x.shape, index, axis, method)
    src = xp.asarray(src)
    if reduce in ("amax", "amin") and (x.dtype.kind == "c" or src.dtype.kind == "c"):
        raise OpError(f"funcgrad.{method}: reduce={reduce!r} is not defined for complex values")
    if tuple(src.shape) != tuple(index.shape):
        raise OpError(
            f"funcgrad.{method}: src of shape {list(src.shape)} must have the index's shape "
            f"{list(index.shape)}"
        )
    out = xp.array(x, copy=True, order="C")  # C order: reshape(-1) must be a view
    if index.size == 0:
        return out
    view, pos = _at(xp, out, index, axis)
    src_v = _as_index(xp, src, index, axis).astype(out.dtype, copy=False)
    if reduce == "none":
        view[pos] = src_v
        return out
    if not include_self:
        view[pos] = _identity(xp, reduce, out.dtype)
    _ufunc_at(xp, reduce, view, pos, src_v)
    if reduce == "mean":
        count = xp.maximum(_counts(xp, x.shape, index, axis, 1 if include_self else 0), 1)
        if out.dtype.kind in "iu":
            out = xp.floor_divide(out, count.astype(out.dtype))
        else:
            out = (out / count).astype(out.dtype, copy=False)
    return out


def _extremum_weights(
    out: Array, x: Array, src: Array, index: Array, axis: int | None
) -> tuple[Array, Array, Array]:
    # 1 where an entry equals the result it made (ties share evenly), and how many do
    out_v, x_v, src_v = value_of(out), value_of(x), value_of(src)
    xp = xp_of(out_v)
    picked = _gather_forward(xp, out_v, index=index, axis=axis, keepdims=True, method="scatter")
    self_is = x_v == out_v
    src_is = src_v == picked
    n = _counts_of(self_is, src_is, index, axis).astype(out_v.dtype)
    return self_is.astype(out_v.dtype), src_is.astype(out_v.dtype), xp.where(n == 0, 1, n)


def _mean_counts(out: Array, index: Array, axis: int | None, include_self: bool) -> Array:
    v = value_of(out)
    xp = xp_of(v)
    count = _counts(xp, shape_of(v), index, axis, 1 if include_self else 0)
    return xp.maximum(count, 1).astype(v.dtype)


def _prod_others(
    x: Array, src: Array, index: Array, axis: int | None, include_self: bool
) -> tuple[Array, Array]:
    """d out / d entry for a product: the product of the other entries of its group, exact at zeros.

    With `Q` the product of the group's nonzero entries and `Z` the sum of its
    zero entries (0, but not a constant: its derivative picks the zero
    entries), the product of the others of an entry `e` is `Q / e` in a
    group without zeros; with one zero, `Q` for the zero and `Z * Q / e` for
    the others; with two, `(Z - e) * Q` for each zero and 0 for the others;
    with more, 0. Each is written with primitives (`Q` and `Z` are
    themselves `scatter` nodes), so it differentiates again, at zeros too.
    """
    x_v, src_v = value_of(x), value_of(src)
    xp = xp_of(x_v)
    x_zero = x_v == 0
    src_zero = src_v == 0
    if not include_self:  # x takes no part in the scattered positions' products
        x, x_zero = xp.ones_like(x_v), xp.zeros_like(x_zero)

    def group(of_x: Array, of_src: Array, reduce: str) -> Array:
        return scatter(
            of_x,
            of_src,
            index=index,
            axis=axis,
            reduce=reduce,
            include_self=True,
            method="scatter_reduce",
        )

    nonzero = group(where(x_zero, 1.0, x), where(src_zero, 1.0, src), "prod")
    zero_sum = group(where(x_zero, x, 0.0), where(src_zero, src, 0.0), "sum")
    zeros = _counts_of(x_zero, src_zero, index, axis)

    def others(e: Array, e_zero: Array, q: Array, z: Array, n: Array) -> Array:
        e_safe = where(e_zero, 1.0, e)
        return where(
            n == 0,
            divide(q, e_safe),
            where(
                n == 1,
                where(e_zero, q, multiply(z, divide(q, e_safe))),
                where((n == 2) & e_zero, multiply(z - e, q), 0.0),
            ),
        )

    at_src = (index, axis)
    others_self = others(x, x_zero, nonzero, zero_sum, zeros)
    others_src = others(
        src,
        src_zero,
        _take(nonzero, *at_src),
        _take(zero_sum, *at_src),
        _gather_forward(xp, zeros, index=index, axis=axis, keepdims=True, method="x"),
    )
    return others_self, others_src


def _counts_of(start: Array, flags: Array, index: Array, axis: int | None) -> Array:
    """`start` (0/1 per position) plus the number of `flags` (0/1 per index entry) at each position."""
    xp = xp_of(start)
    n = xp.array(start, dtype=xp.int64, order="C")
    if index.size:
        view, pos = _at(xp, n, index, axis)
        _ufunc_at(xp, "sum", view, pos, _as_index(xp, flags.astype(xp.int64), index, axis))
    return n


def _self_factor(
    out: Array,
    x: Array,
    src: Array,
    index: Array,
    axis: int | None,
    reduce: str,
    include_self: bool,
) -> tuple[Any, Any]:
    """(d out / d x, elementwise; d out / d src at the positions src writes, gathered)."""
    if reduce in ("none", "sum"):
        return 1.0, 1.0
    if reduce == "mean":
        n = _mean_counts(out, index, axis, include_self)
        return 1.0 / n, 1.0 / n
    if reduce in ("amax", "amin"):
        self_is, src_is, n = _extremum_weights(out, x, src, index, axis)
        return self_is / n, (src_is, 1.0 / n)
    return _prod_others(x, src, index, axis, include_self)


def _scatter_vjp(
    ct: Array,
    out: Array,
    x: Array,
    src: Array,
    *,
    index: Array,
    axis: int | None,
    reduce: str,
    include_self: bool,
    method: str,
) -> tuple[Array, Array]:
    mask = scattered(value_of(out), index, axis)
    d_self, d_src = _self_factor(out, x, src, index, axis, reduce, include_self)
    ct_x = multiply(ct, d_self) if reduce not in ("none", "sum", "prod") else ct
    if reduce == "prod":
        ct_x = where(mask, multiply(ct, d_self), ct)
    if reduce == "none" or not include_self:
        ct_x = where(mask, 0.0, ct_x)
    if reduce in ("amax", "amin"):
        src_is, per = d_src
        ct_src = multiply(src_is, _take(multiply(ct, per), index, axis))
    elif reduce == "mean":
        ct_src = _take(multiply(ct, d_src), index, axis)
    elif reduce == "prod":
        ct_src = multiply(_take(ct, index, axis), d_src)
    else:
        ct_src = _take(ct, index, axis)
    return ct_x, ct_src


def _take(v: Array, index: Array, axis: int | None) -> Array:
    return gather(v, index=index, axis=axis, keepdims=True, method="gather")


def _scatter_jvp_self(
    x_t: Array,
    out: Array,
    x: Array,
    src: Array,
    *,
    index: Array,
    axis: int | None,
    reduce: str,
    include_self: bool,
    method: str,
) -> Array:
    mask = scattered(value_of(out), index, axis)
    d_self, _ = _self_factor(out, x, src, index, axis, reduce, include_self)
    t = x_t if reduce in ("none", "sum") else where(mask, multiply(x_t, d_self), x_t)
    if reduce == "none" or not include_self:
        t = where(mask, 0.0, t)
    return t


def _scatter_jvp_src(
    src_t: Array,
    out: Array,
    x: Array,
    src: Array,
    *,
    index: Array,
    axis: int | None,
    reduce: str,
    include_self: bool,
    method: str,
) -> Array:
    zeros = _zeros_like(src_t, shape_of(out))
    _, d_src = _self_factor(out, x, src, index, axis, reduce, include_self)
    if reduce == "none":
        return scatter(
            zeros, src_t, index=index, axis=axis, reduce="none", include_self=True, method=method
        )
    if reduce in ("amax", "amin"):
        src_is, per = d_src
        src_t, after = multiply(src_t, src_is), per
    elif reduce == "mean":
        after = d_src
    elif reduce == "prod":
        src_t, after = multiply(src_t, d_src), 1.0
    else:
        after = 1.0
    summed = scatter(
        zeros, src_t, index=index, axis=axis, reduce="sum", include_self=True, method=method
    )
    return summed if type(after) is float else multiply(summed, after)


def _scatter_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    axis: int | None = g.integers(0, len(shape) - 1) if shape else 0
    complex_ = getattr(g, "complex", False)
    reduce = g.choice(("none", "sum", "mean", "prod") if complex_ else REDUCTIONS)
    if g.integers(0, 3) == 0:  # positions in the flattened x
        axis = None
        index = _flat_index_sample(g, shape, unique=reduce == "none")
    else:
        index = _index_sample(g, shape, axis or 0, unique=reduce == "none")
    include_self = g.boolean()
    n_x = int(numpy.prod(shape, dtype=numpy.int64))
    size = n_x + int(index.size)
    # distinct values, away from 0 for prod: no kinks (ties of amax) for the differences
    values = numpy.arange(size, dtype=numpy.float64) + g.array((size,), 0.1, 0.9).real
    values = values[numpy.argsort(g.array((size,), 0.0, 1.0).real)] * (6.0 / max(size, 1)) - 3.0
    if reduce == "prod":
        values = numpy.sign(values) * (0.5 + numpy.abs(values) / 3.0)
    x = values[:n_x].reshape(shape)
    src = values[n_x:].reshape(index.shape)
    if complex_:
        x = x + 1j * g.array(shape, -1.0, 1.0).real
        src = src + 1j * g.array(index.shape, -1.0, 1.0).real
    params = {
        "index": index,
        "axis": axis,
        "reduce": reduce,
        "include_self": include_self,
        "method": "scatter_reduce",
    }
    return (x, src), params


# The PyTorch functions (and methods, and in-place methods) whose result is one scatter node
_SCATTERS = (
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_add",
    "index_copy",
    "index_fill",
    "index_reduce",
    "index_put",
    "masked_scatter",
    "put",
)

scatter: Primitive = register(
    Primitive(
        name="scatter",
        forward=_scatter_forward,
        vjp=_scatter_vjp,
        jvp=(_scatter_jvp_self, _scatter_jvp_src),
        params=("index", "axis", "reduce", "include_self", "method"),
        sample=Sample(_scatter_sample, complex=True),
        doc=(
            "a copy of x with src written at index along axis: overwriting (reduce 'none') or "
            "reduced with 'sum', 'prod', 'mean', 'amax' or 'amin' (include_self: with x's "
            "values there); ties of amax/amin share the gradient"
        ),
        names=Names(
            torch=_SCATTERS,
            method=_SCATTERS,
            inplace=tuple(f"{name}_" for name in _SCATTERS),
            grad_fn=_scatter_grad_fn,
        ),
    )
)

__all__ = ["REDUCTIONS", "along_index", "gather", "scatter", "scattered"]
