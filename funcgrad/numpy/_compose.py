"""Differentiable functions of `funcgrad.numpy` built from other primitives (compositions).

Each one computes NumPy's function from funcgrad's primitives, so it works
on plain values (giving NumPy's values, up to rounding for the math
functions) and on graph nodes (giving gradients of every order). The
array-API spellings (`acos`, `pow`, `concat` ...) are the same functions
under a second name.
"""

from __future__ import annotations

import math as _math
from typing import Any

import numpy as _np

from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _as_axes
from funcgrad.numpy._generated import (
    arccos,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    power,
)
from funcgrad.numpy._generated import flip as _flip
from funcgrad.numpy._reductions import max as _max
from funcgrad.numpy._reductions import min as _min
from funcgrad.numpy._reductions import sum as _sum
from funcgrad.numpy._shape import atleast_3d as _atleast_3d
from funcgrad.numpy._shape import concatenate, moveaxis, split, vstack
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.ops._util import value_of as _value_of
from funcgrad.ops.index import getitem as _getitem

__all__ = [
    "acos",
    "angle",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "average",
    "column_stack",
    "concat",
    "cross",
    "diag",
    "diagflat",
    "diagonal",
    "diff",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "kron",
    "matrix_transpose",
    "nan_to_num",
    "nanmax",
    "nanmean",
    "nanmin",
    "nansum",
    "pow",
    "ptp",
    "repeat",
    "roll",
    "rollaxis",
    "rot90",
    "row_stack",
    "sort",
    "take",
    "take_along_axis",
    "tile",
    "trace",
    "vsplit",
]

# --- array-API names ------------------------------------------------------------------

acos = arccos
asin = arcsin
asinh = arcsinh
atan = arctan
atan2 = arctan2
pow = power  # noqa: A001
concat = concatenate
row_stack = vstack


def _is_node(a: Any) -> bool:
    return type(a) is _Node


def _arr(a: Any) -> Any:
    """Return a node or an array as it is, anything else (lists, numbers) as a NumPy array."""
    return a if _is_node(a) or hasattr(a, "shape") else _np.asarray(a)


def _zero_gradient(x: Any, value: Any) -> Any:
    """Return `value` as a node with a zero gradient into node `x` (plain `value` otherwise)."""
    return _ew.where(_np.False_, x, value) if _is_node(x) else value


def angle(z: Any, deg: bool = False) -> Any:
    """Return the counterclockwise angle of complex `z` from the positive real axis.

    Differentiable in `z` (see the complex numbers page of the docs); the
    angle of a real number (0 or pi) has a zero gradient.

    Args:
        z: A complex (or real) array.
        deg: Return degrees instead of radians.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.angle([1j, -1.0])
        array([1.57079633, 3.14159265])
    """
    a = _ew.angle(z)
    return _ew.multiply(a, 180.0 / _math.pi) if deg else a


# --- elementwise math -------------------------------------------------------------------


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None, neginf: Any = None):
    """Return `x` with NaN, +inf and -inf replaced (by 0 and the largest finite numbers).

    The replaced entries get no gradient; the others pass it through.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nan_to_num([float("nan"), 1.0])
        array([0., 1.])
    """
    if not _is_node(x):
        return _np.nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    v = _value_of(x)  # jit follows it: the plan computes the mask and the replacements
    info = _np.finfo(v.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    replaced = _np.nan_to_num(v, nan=nan, posinf=big, neginf=small)
    return _ew.where(_np.isfinite(v), x, replaced.astype(v.dtype, copy=False))


# --- reductions ---------------------------------------------------------------------------


def _mean_dtype(a: Any) -> Any:
    """Return the dtype of NumPy's mean of `a`: its own if inexact (float32 stays), else float64."""
    dtype = _np.dtype(a.dtype)
    return dtype if dtype.kind in "fc" else _np.dtype(_np.float64)


def average(
    a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: bool = False
):
    """Return the (weighted) mean of `a` along `axis`, differentiable in `a` and `weights`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.average([1.0, 2.0, 4.0], weights=[1.0, 1.0, 2.0])
        np.float64(2.75)
    """
    a = _arr(a)
    if weights is None:
        total = _sum(a, axis=axis, keepdims=keepdims)
        count = _np.prod(
            [a.shape[i] for i in _normalize_axis(_as_axes(axis), len(a.shape), "average")]
        )
        scale = _np.asarray(count, dtype=_mean_dtype(a))
        avg = _ew.divide(total, scale)
        return (avg, _np.broadcast_to(scale, getattr(avg, "shape", ()))) if returned else avg
    w = _arr(weights)
    if len(w.shape) != len(a.shape):
        if axis is None or len(w.shape) != 1:
            raise TypeError(
                "funcgrad.numpy.average: 1-D weights need an `axis`; else give weights shaped like `a`"
            )
        shape = [1] * len(a.shape)
        shape[_normalize_axis(axis, len(a.shape), "average")[0]] = -1
        w = _sh.reshape(w, shape=tuple(shape)) if _is_node(w) else w.reshape(shape)
    w = _ew.multiply(w, _np.ones(a.shape, dtype=bool))  # weights shaped like `a`
    scale = _sum(w, axis=axis, keepdims=keepdims)
    avg = _ew.divide(_sum(_ew.multiply(a, w), axis=axis, keepdims=keepdims), scale)
    return (avg, scale) if returned else avg


def ptp(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Return the range (`max - min`) of `a` along `axis`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.ptp([1.0, 5.0, 2.0])
        np.float64(4.0)
    """
    return _ew.subtract(
        _max(a, axis=axis, keepdims=keepdims), _min(a, axis=axis, keepdims=keepdims)
    )


def _nan_mask(a: Any) -> Any:
    # NOTE: value_of, read by a function jit follows: the plan computes the mask from the
    # replayed values (`a.value` was read unseen, and the plan kept the traced call's NaNs)
    return _np.isnan(_value_of(a) if _is_node(a) else getattr(a, "value", a))


def nansum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """Return the sum of `a` along `axis`, NaNs counting as zero (they get no gradient).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nansum([1.0, float("nan"), 2.0])
        np.float64(3.0)
    """
    a = _arr(a)
    out = _sum(_ew.where(_nan_mask(a), 0.0, a), axis=axis, keepdims=keepdims)
    if dtype is not None and not _is_node(out):
        out = out.astype(dtype)
    return out


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """Return the mean of the non-NaN entries of `a` along `axis`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanmean([1.0, float("nan"), 2.0])
        np.float64(1.5)
    """
    a = _arr(a)
    count = _np.sum(~_nan_mask(a), axis=_as_axes(axis), keepdims=keepdims)
    # float32 stays float32, as in NumPy; asanyarray and astype keep a traced count traced
    count = _np.asanyarray(count).astype(_mean_dtype(a))
    return _ew.divide(nansum(a, axis=axis, keepdims=keepdims), count)


def nanmax(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Return the largest non-NaN entry of `a` along `axis` (ties share the gradient).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanmax([1.0, float("nan"), 2.0])
        np.float64(2.0)
    """
    a = _arr(a)
    return _max(_ew.where(_nan_mask(a), -_np.inf, a), axis=axis, keepdims=keepdims)


def nanmin(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Return the smallest non-NaN entry of `a` along `axis` (ties share the gradient).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.nanmin([1.0, float("nan"), 2.0])
        np.float64(1.0)
    """
    a = _arr(a)
    return _min(_ew.where(_nan_mask(a), _np.inf, a), axis=axis, keepdims=keepdims)


# --- reordering and picking entries ---------------------------------------------------------


def _index_along(ndim: int, axis: int, index: Any) -> tuple[Any, ...]:
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def take(a: Any, indices: Any, axis: Any = None, mode: Any = None) -> Any:
    """Return the entries of `a` at `indices` along `axis` (of `a` flattened if None).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.take([1.0, 2.0, 3.0], [2, 0])
        array([3., 1.])
    """
    a = _arr(a)
    indices = _np.asarray(getattr(indices, "value", indices))
    if mode is not None and mode != "raise":  # "wrap" or "clip": indices made valid first
        indices = _np.take(
            _np.arange(a.size if axis is None else a.shape[axis]), indices, mode=mode
        )
    if axis is None:
        return _getitem(_sh.reshape(a, shape=(-1,)), index=(indices,))
    ax = _normalize_axis(axis, len(a.shape), "take")[0]
    return _getitem(a, index=_index_along(len(a.shape), ax, indices))


def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Any:
    """Return the entries of `arr` at `indices` along `axis`, matched entry by entry.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.take_along_axis([[3.0, 1.0, 2.0]], [[1, 2, 0]], axis=1)
        array([[1., 2., 3.]])
    """
    arr = _arr(arr)
    indices = getattr(indices, "value", indices)
    if not hasattr(indices, "shape"):  # (a batched index under vmap stays one: it batches)
        indices = _np.asarray(indices)
    if axis is None:
        return _getitem(_sh.reshape(arr, shape=(-1,)), index=(indices,))
    ndim = len(arr.shape)
    ax = _normalize_axis(axis, ndim, "take_along_axis")[0]
    shape = _np.broadcast_shapes(
        tuple(1 if i == ax else n for i, n in enumerate(arr.shape)),
        tuple(1 if i == ax else n for i, n in enumerate(indices.shape)),
    )
    index = []
    for i in range(ndim):
        if i == ax:
            index.append(indices)
        else:
            grid = _np.arange(shape[i]).reshape([-1 if j == i else 1 for j in range(ndim)])
            index.append(grid)
    return _getitem(arr, index=tuple(index))


def sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Any:
    """Return `a` sorted along `axis`; each entry's gradient flows back to where it came from.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.sort([3.0, 1.0, 2.0])
        array([1., 2., 3.])
    """
    if not _is_node(a):
        return _np.sort(a, axis=axis, kind=kind, order=order, stable=stable)
    order_ = _np.argsort(_value_of(a), axis=axis, kind=kind, stable=stable)  # jit follows it
    return take_along_axis(a, order_, axis=axis)


def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
    """Return `a` with each entry repeated `repeats` times along `axis` (flattened if None).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.repeat([1.0, 2.0], 2)
        array([1., 1., 2., 2.])
    """
    a = _arr(a)
    if axis is None:
        return take(a, _np.repeat(_np.arange(a.size), repeats))
    ax = _normalize_axis(axis, len(a.shape), "repeat")[0]
    return take(a, _np.repeat(_np.arange(a.shape[ax]), repeats), axis=ax)


def tile(A: Any, reps: Any) -> Any:  # noqa: N803  (NumPy's name)
    """Return `A` repeated `reps` times along each axis.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.tile([1.0, 2.0], 2)
        array([1., 2., 1., 2.])
    """
    A = _arr(A)
    reps = (reps,) if _np.ndim(reps) == 0 else tuple(reps)
    ndim = max(len(A.shape), len(reps))
    shape = (1,) * (ndim - len(A.shape)) + tuple(A.shape)
    positions = _np.arange(int(_np.prod(shape))).reshape(shape)
    return _getitem(_sh.reshape(A, shape=(-1,)), index=(_np.tile(positions, reps),))


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Return `a` with its entries shifted by `shift` along `axis` (flattened if None), wrapping around.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.roll([1.0, 2.0, 3.0], 1)
        array([3., 1., 2.])
    """
    a = _arr(a)
    positions = _np.arange(a.size).reshape(a.shape)
    return _getitem(_sh.reshape(a, shape=(-1,)), index=(_np.roll(positions, shift, axis),))


def fliplr(m: Any) -> Any:
    """Return `m` with its columns (axis 1) in reverse order.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fliplr([[1.0, 2.0]])
        array([[2., 1.]])
    """
    return _flip(m, axis=1)


def flipud(m: Any) -> Any:
    """Return `m` with its rows (axis 0) in reverse order.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.flipud([1.0, 2.0])
        array([2., 1.])
    """
    return _flip(m, axis=0)


def rot90(m: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
    """Return `m` rotated by 90 degrees `k` times in the plane of `axes`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.rot90([[1.0, 2.0], [3.0, 4.0]])
        array([[2., 4.],
               [1., 3.]])
    """
    m = _arr(m)
    positions = _np.arange(int(_np.prod(m.shape))).reshape(m.shape)
    return _getitem(_sh.reshape(m, shape=(-1,)), index=(_np.rot90(positions, k, axes),))


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """Return `a` with `axis` moved to before position `start` (prefer `moveaxis`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.rollaxis(fnp.ones((2, 3, 4)), 2).shape
        (4, 2, 3)
    """
    a = _arr(a)
    ndim = len(a.shape)
    axis = _normalize_axis(axis, ndim, "rollaxis")[0]
    if start < 0:
        start += ndim
    if not 0 <= start <= ndim:
        raise ValueError(f"funcgrad.numpy.rollaxis: start {start} is out of range for {ndim} axes")
    if axis < start:
        start -= 1  # NumPy's rule: the axis goes before the original axis `start`
    order = [i for i in range(ndim) if i != axis]
    order.insert(start, axis)
    return _sh.transpose(a, axes=tuple(order))


def matrix_transpose(x: Any) -> Any:
    """Return `x` with its last two axes swapped (a stack of matrices, transposed).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.matrix_transpose(fnp.ones((2, 3, 4))).shape
        (2, 4, 3)
    """
    return moveaxis(x, -1, -2)


# --- diagonals ----------------------------------------------------------------------------


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Return the diagonal of `a` (at `offset`) in the plane of `axis1` and `axis2`, as the last axis.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.diagonal([[1.0, 2.0], [3.0, 4.0]])
        array([1., 4.])
    """
    a = moveaxis(_arr(a), (axis1, axis2), (-2, -1))
    rows, cols = a.shape[-2], a.shape[-1]
    i = _np.arange(max(0, min(rows + min(offset, 0), cols - max(offset, 0))))
    return _getitem(a, index=(Ellipsis, i - min(offset, 0), i + max(offset, 0)))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
    """Return the sum of the diagonal of `a` (see `diagonal`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.trace([[1.0, 2.0], [3.0, 4.0]])
        np.float64(5.0)
    """
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1)


def diag(v: Any, k: int = 0) -> Any:
    """Return the `k`-th diagonal of a matrix, or a matrix with the vector `v` on it.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.diag([1.0, 2.0])
        array([[1., 0.],
               [0., 2.]])
    """
    v = _arr(v)
    if len(v.shape) == 2:
        return diagonal(v, k)
    if len(v.shape) != 1:
        raise ValueError("funcgrad.numpy.diag: the input must be 1-D or 2-D")
    n = v.shape[0] + abs(k)
    padded = concatenate([v, _np.zeros(abs(k), dtype=v.dtype)])
    i = _np.arange(n)
    # out[r, c] = v[r] (k >= 0) or v[c] (k < 0) on the diagonal c - r == k, else 0
    picked = _getitem(padded, index=(i[:, None] if k >= 0 else i[None, :],))
    return _ew.where(_np.eye(n, k=k, dtype=bool), picked, _np.zeros((), dtype=v.dtype))


def diagflat(v: Any, k: int = 0) -> Any:
    """Return a matrix with the flattened `v` on its `k`-th diagonal.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.diagflat([[1.0, 2.0]]).shape
        (2, 2)
    """
    return diag(_sh.reshape(_arr(v), shape=(-1,)), k)


# --- differences and products -----------------------------------------------------------------


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """Return the `n`-th differences of `a` along `axis`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.diff([1.0, 4.0, 9.0])
        array([3., 5.])
    """
    a = _arr(a)
    ax = _normalize_axis(axis, len(a.shape), "diff")[0]
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        extra = _arr(extra)
        if len(extra.shape) == 0:
            shape = list(a.shape)
            shape[ax] = 1
            extra = _ew.multiply(extra, _np.ones(shape, dtype=bool))
        parts.append(extra)
    a = concatenate(parts, axis=ax) if len(parts) > 1 else a
    nd = len(a.shape)
    for _ in range(n):
        a = _ew.subtract(
            _getitem(a, index=_index_along(nd, ax, slice(1, None))),
            _getitem(a, index=_index_along(nd, ax, slice(None, -1))),
        )
    return a


def kron(a: Any, b: Any) -> Any:
    """Return the Kronecker product of `a` and `b`: blocks `a[i, j] * b`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.kron([1.0, 2.0], [1.0, 10.0])
        array([ 1., 10.,  2., 20.])
    """
    a, b = _arr(a), _arr(b)
    nd = max(len(a.shape), len(b.shape))
    sa = (1,) * (nd - len(a.shape)) + tuple(a.shape)
    sb = (1,) * (nd - len(b.shape)) + tuple(b.shape)
    # interleave the axes: a's i-th axis, then b's i-th axis
    ea = _sh.reshape(a, shape=tuple(x for s in sa for x in (s, 1)))
    eb = _sh.reshape(b, shape=tuple(x for s in sb for x in (1, s)))
    return _sh.reshape(
        _ew.multiply(ea, eb), shape=tuple(p * q for p, q in zip(sa, sb, strict=True))
    )


def cross(
    a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None
) -> Any:
    """Return the cross product of 3-vectors `a` and `b` (along the given axes).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        array([0., 0., 1.])
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(_arr(a), axisa, -1), moveaxis(_arr(b), axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError(
            "funcgrad.numpy.cross: the vectors must have 3 components (2 are not supported)"
        )

    def c(x: Any, i: int) -> Any:
        return _getitem(x, index=(Ellipsis, i))

    parts = [
        _ew.subtract(_ew.multiply(c(a, 1), c(b, 2)), _ew.multiply(c(a, 2), c(b, 1))),
        _ew.subtract(_ew.multiply(c(a, 2), c(b, 0)), _ew.multiply(c(a, 0), c(b, 2))),
        _ew.subtract(_ew.multiply(c(a, 0), c(b, 1)), _ew.multiply(c(a, 1), c(b, 0))),
    ]
    return moveaxis(_sh.stack(*parts, axis=-1), -1, axisc)


# --- stacking and splitting ----------------------------------------------------------------------


def dstack(tup: Any) -> Any:
    """Return the arrays stacked along the third axis (made at least 3-D first).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.dstack([[1.0], [2.0]]).shape
        (1, 1, 2)
    """
    arrays = [_atleast_3d(_arr(t)) for t in tup]
    return concatenate(arrays, axis=2)


def column_stack(tup: Any) -> Any:
    """Return 1-D arrays as the columns of a matrix (2-D arrays are joined along axis 1).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.column_stack([[1.0, 2.0], [3.0, 4.0]])
        array([[1., 3.],
               [2., 4.]])
    """
    columns = []
    for t in tup:
        t = _arr(t)
        columns.append(_sh.reshape(t, shape=(-1, 1)) if len(t.shape) < 2 else t)
    return concatenate(columns, axis=1)


def hsplit(ary: Any, indices_or_sections: Any) -> Any:
    """Split `ary` along its second axis (the first for 1-D arrays).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> [p.shape for p in fnp.hsplit(fnp.ones((2, 4)), 2)]
        [(2, 2), (2, 2)]
    """
    ary = _arr(ary)
    return split(ary, indices_or_sections, axis=1 if len(ary.shape) > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> Any:
    """Split `ary` along its first axis (it must be at least 2-D).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> [p.shape for p in fnp.vsplit(fnp.ones((4, 2)), 2)]
        [(2, 2), (2, 2)]
    """
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary: Any, indices_or_sections: Any) -> Any:
    """Split `ary` along its third axis (it must be at least 3-D).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> [p.shape for p in fnp.dsplit(fnp.ones((1, 1, 4)), 2)]
        [(1, 1, 2), (1, 1, 2)]
    """
    return split(ary, indices_or_sections, axis=2)
