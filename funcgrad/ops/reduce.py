"""Reductions: sums, means, products, extrema, moments, cumulative sums, norms.

Every reduction takes `axis` (None, an int or a tuple) and `keepdims` as
static parameters, like NumPy. Where a reduction has a kink (extrema, the
norm of the zero vector, the standard deviation of a constant), the
gradient is the subgradient PyTorch and JAX use: ties share it evenly, and
0 stands in for 0 / 0.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy

from funcgrad.backend import constant_like, xp_of
from funcgrad.errors import DtypeError, OpError
from funcgrad.graph.node import Array, Node
from funcgrad.ops._util import Axis, attach, normalize_axis, shape_of, value_of
from funcgrad.ops.elementwise import absolute, astype, conjugate, power, real, sign, where
from funcgrad.ops.registry import (
    LINEAR,
    Draw,
    Drawn,
    GradFnName,
    GradFnRule,
    Names,
    Primitive,
    RuleInputs,
    RuleParams,
    Sample,
    register,
)
from funcgrad.ops.shape import broadcast_to, expand_dims, flip, reshape


def _by_axis(full: str, along: str) -> GradFnRule:
    """A grad_fn rule: PyTorch names a reduction over all axes apart from one along given axes."""

    def rule(inputs: RuleInputs, params: RuleParams) -> GradFnName:
        return full if params["axis"] is None else along

    rule.__doc__ = f"{full} over all axes (axis None), {along} along given axes."
    return rule


def _reduction_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    x = g.array(shape, -3.0, 3.0)
    ndim = len(shape)
    if ndim == 0 or g.boolean():
        axis = None
    else:
        axis = g.integers(-ndim, ndim - 1)
    return (x,), {"axis": axis, "keepdims": g.boolean()}


_ndarray = numpy.ndarray
_number = numpy.number
_empty = numpy.empty
_copyto = numpy.copyto
_intp = numpy.intp
_true_divide = numpy.true_divide
_add_reduce: Any = numpy.add.reduce


def keep_reduced_dims(ct: Array, in_shape: tuple[int, ...], axis: Axis, keepdims: bool) -> Array:
    """Reshape a reduction's cotangent so that it broadcasts against the input.

    Args:
        ct: Cotangent of the reduction's output.
        in_shape: Shape of the reduction's input.
        axis: The reduction's `axis` parameter.
        keepdims: The reduction's `keepdims` parameter.

    Returns:
        `ct` with a size-1 axis where each reduced axis was.
    """
    if keepdims:
        return ct
    axes = normalize_axis(axis, len(in_shape), "sum")
    kept = tuple(1 if i in axes else n for i, n in enumerate(in_shape))
    return reshape(ct, shape=kept)


def _sum_vjp(ct: Array, out: Array, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    shape = shape_of(x)
    if axis is None and not keepdims:
        return broadcast_to(ct, shape=shape)  # a 0-d cotangent broadcasts as it is
    return broadcast_to(keep_reduced_dims(ct, shape, axis, keepdims), shape=shape)


def _sum_forward(xp: ModuleType, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    if type(x) is _ndarray:  # numpy.sum's own call, without its Python wrapper (issue 18)
        return _add_reduce(x, axis=axis, keepdims=keepdims)
    return xp.sum(x, axis=axis if xp is numpy else _axis_for(xp, x, axis, "sum"), keepdims=keepdims)


sum_ = register(
    Primitive(
        name="sum",
        forward=_sum_forward,
        vjp=(_sum_vjp,),
        jvp=LINEAR,
        params=("axis", "keepdims"),
        sample=Sample(_reduction_sample, complex=True),
        doc="sum over axes",
        names=Names(
            numpy="sum", torch="sum", method="sum", grad_fn=_by_axis("SumBackward0", "SumBackward1")
        ),
    )
)


# --- samples -------------------------------------------------------------------


def _spread(g: Draw, shape: tuple[int, ...], low: float, high: float) -> Array:
    # Distinct values in [low, high] in random order, apart by at least
    # 0.2 * (high - low) / size: no ties (kinks) for the finite differences.
    size = 1
    for n in shape:
        size *= n
    ranks = g.array(shape, 0.0, 1.0).ravel().argsort().argsort().reshape(shape)
    return low + (high - low) * (ranks + g.array(shape, 0.1, 0.9)) / max(size, 1)


def _signs(g: Draw, shape: tuple[int, ...]) -> Array:
    return 2.0 * (g.array(shape, -1.0, 1.0) > 0) - 1.0


def _axis_sample(g: Draw, ndim: int) -> Axis:
    if ndim == 0 or g.boolean():
        return None
    if ndim > 1 and g.boolean():
        first = g.integers(0, ndim - 1)
        return (first, (first + g.integers(1, ndim - 1)) % ndim - ndim)  # 2 axes, 1 negative
    return g.integers(-ndim, ndim - 1)


def _reduced_size(shape: tuple[int, ...], axis: Axis, op: str) -> int:
    size = 1
    for a in normalize_axis(axis, len(shape), op):
        size *= shape[a] if shape else 1  # a 0-d array has one element along its axis 0
    return size


def _whole_if_0d(xp: ModuleType, x: Array, axis: Axis, op: str) -> Axis:
    # NOTE: a 0-d array takes the axes 0 and -1, as in PyTorch; NumPy's mean,
    # var, std and linalg.norm refuse them, so they reduce over all (no) axes.
    if axis is not None and xp.ndim(x) == 0:
        normalize_axis(axis, 0, op)
        return None
    return axis


def _axis_for(xp: ModuleType, x: Array, axis: Axis, op: str) -> Axis:
    """`axis` as the array module takes it: for CuPy, a 0-d array's axis 0 (or -1) is None.

    NOTE: NumPy's reductions take axis 0 of a 0-d array (as PyTorch does); CuPy's
    refuse it (an AxisError), so there it is checked here and the whole (one-entry)
    array is reduced, which is the same result. Called for non-NumPy modules only:
    the NumPy forwards pass `axis` unchanged inline (no call on their hot path).
    """
    return _whole_if_0d(xp, x, axis, op)


# --- means -----------------------------------------------------------------------


def _mean_vjp(ct: Array, out: Array, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    shape = shape_of(x)
    # (numpy.number, not numpy.generic: vmap's Batched values are NumPy scalars of bytes)
    if axis is None and type(x) is _ndarray and (type(ct) is _ndarray or isinstance(ct, _number)):
        # NOTE: a first-order pass on NumPy arrays, over every axis (a loss; W3, issue 18):
        # each entry is ct / n, the same quotient divided once and spread (broadcast_to's
        # view divided n times makes the same array, slower)
        q: Any = _by_count(ct, max(x.size, 1))
        # numpy.full's own two steps, without its Python frame (the same array)
        spread = _empty(shape, dtype=q.dtype)
        _copyto(spread, q, casting="unsafe")
        return spread
    n = _reduced_size(shape, axis, "mean")
    return _by_count(
        broadcast_to(keep_reduced_dims(ct, shape, axis, keepdims), shape=shape), max(n, 1)
    )


def _by_count(v: Any, n: int) -> Any:
    """`v / n` in `v`'s dtype; a float16 `v` divided in float32 (PyTorch's opmath).

    NOTE: NumPy would turn a count above 65504 into float16's inf, and the
    quotient (a mean's gradient) into zeros.
    """
    if getattr(v, "dtype", None) == numpy.float16:
        return astype(astype(v, dtype=numpy.float32) / n, dtype=numpy.float16)
    return v / n


def _mean_forward(xp: ModuleType, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    if axis is None and type(x) is _ndarray and x.size and x.dtype.kind in "fc" and x.itemsize > 2:
        # NOTE: numpy.mean's own steps (numpy/_core/_methods.py's _mean) for a whole
        # floating-point array, without its two Python frames (W3's loss, issue 18): the
        # sum, then the division by the count as a NumPy intp, in place in a keepdims
        # array, else in the sum's precision and cast back (the same bits). float16 (summed
        # in float32), integers and empty arrays (NumPy warns) take numpy.mean itself.
        total = _add_reduce(x, axis=None, keepdims=keepdims)
        count = _intp(x.size)
        if type(total) is _ndarray:
            return _true_divide(total, count, out=total, casting="unsafe", subok=False)
        return total.dtype.type(total / count)
    return xp.mean(x, axis=_whole_if_0d(xp, x, axis, "mean"), keepdims=keepdims)


def _mean_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    axis = _axis_sample(g, len(shape))
    return (g.array(shape, -3.0, 3.0),), {"axis": axis, "keepdims": g.boolean()}


mean = register(
    Primitive(
        name="mean",
        forward=_mean_forward,
        vjp=(_mean_vjp,),
        jvp=LINEAR,
        params=("axis", "keepdims"),
        sample=Sample(_mean_sample, complex=True),
        doc="arithmetic mean over axes",
        names=Names(
            numpy="mean",
            torch="mean",
            method="mean",
            grad_fn=_by_axis("MeanBackward0", "MeanBackward1"),
        ),
    )
)


# --- products --------------------------------------------------------------------


def _prod_others(out: Array, x: Array, axis: Axis, keepdims: bool) -> Array:
    """Return, for each element of `x`, the product of the other elements of its slice.

    NOTE: no division by zero. Slices without zeros (the usual case) use
    out / x. Otherwise, with P the product of the slice's nonzero entries,
    a nonzero entry gets P / x_i times the product of the zeros, and a zero
    entry gets P times the product of the other zeros; those products of
    zeros are spelled (1, the zero itself, or 0 for one, two or more zeros)
    so that first and second derivatives are exact.
    """
    x_v = value_of(x)
    is_zero = x_v == 0
    if not is_zero.any():
        return keep_reduced_dims(out, shape_of(x), axis, keepdims) / x
    zeros = is_zero.sum(axis=axis, keepdims=True)
    safe_x = where(is_zero, 1.0, x)
    nonzero_prod = prod(safe_x, axis=axis, keepdims=True)
    zero_sum = sum_(where(is_zero, x, 0.0), axis=axis, keepdims=True)  # 0, derivative 1 per zero
    of_zeros = where(zeros == 0, 1.0, where(zeros == 1, zero_sum, 0.0))
    of_other_zeros = where(zeros == 1, 1.0, where(zeros == 2, zero_sum - x, 0.0))
    return nonzero_prod * where(is_zero, of_other_zeros, of_zeros / safe_x)


def _prod_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0, max_side=3)
    axis = _axis_sample(g, len(shape))
    x = g.array(shape, 0.5, 1.5) * _signs(g, shape)
    return (x,), {"axis": axis, "keepdims": g.boolean()}


def _prod_vjp(ct: Array, out: Array, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    ct = keep_reduced_dims(ct, shape_of(x), axis, keepdims)
    return ct * _prod_others(out, x, axis, keepdims)


def _prod_jvp(x_t: Array, out: Array, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    return sum_(x_t * _prod_others(out, x, axis, keepdims), axis=axis, keepdims=keepdims)


prod = register(
    Primitive(
        name="prod",
        forward=lambda xp, x, *, axis, keepdims: xp.prod(
            x, axis=axis if xp is numpy else _axis_for(xp, x, axis, "prod"), keepdims=keepdims
        ),
        vjp=(_prod_vjp,),
        jvp=(_prod_jvp,),
        params=("axis", "keepdims"),
        sample=Sample(_prod_sample, complex=True),
        doc="product over axes (exact gradients where entries are 0)",
        keeps_zeros="reduction",
        names=Names(
            numpy="prod",
            torch="prod",
            method="prod",
            grad_fn=_by_axis("ProdBackward0", "ProdBackward1"),
        ),
    )
)


# --- extrema ---------------------------------------------------------------------


def _extremum_share(out: Array, x: Array, axis: Axis, keepdims: bool) -> Array:
    # 1/k at each of the k entries equal to the extremum (NaNs win: they
    # make the result), 0 elsewhere; a constant, as max is piecewise linear.
    x_v = value_of(x)
    out_v = keep_reduced_dims(value_of(out), shape_of(x), axis, keepdims)
    hit = (x_v == out_v) | (x_v != x_v)
    return (hit / hit.sum(axis=axis, keepdims=True)).astype(x_v.dtype)


def _extremum_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    axis = _axis_sample(g, len(shape))
    return (_spread(g, shape, -3.0, 3.0),), {"axis": axis, "keepdims": g.boolean()}


def _extremum_vjp(ct: Array, out: Array, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    share = _extremum_share(out, x, axis, keepdims)
    return keep_reduced_dims(ct, shape_of(x), axis, keepdims) * share


def _extremum_jvp(x_t: Array, out: Array, x: Array, *, axis: Axis, keepdims: bool) -> Array:
    return sum_(x_t * _extremum_share(out, x, axis, keepdims), axis=axis, keepdims=keepdims)


max_ = register(
    Primitive(
        name="max",
        forward=lambda xp, x, *, axis, keepdims: xp.max(
            x, axis=axis if xp is numpy else _axis_for(xp, x, axis, "max"), keepdims=keepdims
        ),
        vjp=(_extremum_vjp,),
        jvp=(_extremum_jvp,),
        params=("axis", "keepdims"),
        sample=Sample(_extremum_sample, complex=True),
        doc="largest entry over axes (ties share the gradient evenly)",
        names=Names(
            numpy=("max", "amax"),
            torch=("max", "amax"),
            method=("max", "amax"),
            grad_fn=_by_axis("MaxBackward1", "AmaxBackward0"),
        ),
    )
)

min_ = register(
    Primitive(
        name="min",
        forward=lambda xp, x, *, axis, keepdims: xp.min(
            x, axis=axis if xp is numpy else _axis_for(xp, x, axis, "min"), keepdims=keepdims
        ),
        vjp=(_extremum_vjp,),
        jvp=(_extremum_jvp,),
        params=("axis", "keepdims"),
        sample=Sample(_extremum_sample, complex=True),
        doc="smallest entry over axes (ties share the gradient evenly)",
        names=Names(
            numpy=("min", "amin"),
            torch=("min", "amin"),
            method=("min", "amin"),
            grad_fn=_by_axis("MinBackward1", "AminBackward0"),
        ),
    )
)


# PyTorch's `max(dim)` / `min(dim)` return indices as well as values; the
# gradient goes to the returned index alone (the first of tied entries, or
# the first NaN, as NumPy's argmax gives it), not shared among ties.


def _argument_share(x: Array, axis: int, keepdims: bool, arg: str) -> Array:
    # 1 at the entry `xp.argmax` (`argmin`) picks along axis, 0 elsewhere: a constant
    x_v = value_of(x)
    xp = xp_of(x_v)
    if x_v.ndim == 0:
        return xp.ones_like(x_v)
    along = normalize_axis(axis, x_v.ndim, arg)[0]
    index = getattr(xp, arg)(x_v, axis=along, keepdims=True)
    place = [1] * x_v.ndim
    place[along] = x_v.shape[along]
    if xp is numpy:
        positions = numpy.arange(x_v.shape[along])
    else:  # on x's GPU, not the current one
        positions = constant_like(numpy.arange(x_v.shape[along]), x_v)
    return (positions.reshape(place) == index).astype(x_v.dtype)


def _picked_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    axis = g.integers(-len(shape), len(shape) - 1) if shape else 0
    return (_spread(g, shape, -3.0, 3.0),), {"axis": axis, "keepdims": g.boolean()}


def _picked(name: str, arg: str, grad_fn: str) -> Primitive:
    def forward(xp: ModuleType, x: Array, *, axis: int, keepdims: bool) -> Array:
        along: Axis = axis if xp is numpy else _axis_for(xp, x, axis, f"{name}_dim")
        return getattr(xp, name)(x, axis=along, keepdims=keepdims)

    def vjp(ct: Array, out: Array, x: Array, *, axis: int, keepdims: bool) -> Array:
        share = _argument_share(x, axis, keepdims, arg)
        return keep_reduced_dims(ct, shape_of(x), axis, keepdims) * share

    def jvp(x_t: Array, out: Array, x: Array, *, axis: int, keepdims: bool) -> Array:
        return sum_(x_t * _argument_share(x, axis, keepdims, arg), axis=axis, keepdims=keepdims)

    return register(
        Primitive(
            name=f"{name}_dim",
            forward=forward,
            vjp=(vjp,),
            jvp=(jvp,),
            params=("axis", "keepdims"),
            sample=Sample(_picked_sample, complex=True),
            doc=f"{name} along one axis, the gradient to the entry `{arg}` picks "
            f"(PyTorch's `{name}(dim)`)",
            names=Names(grad_fn=grad_fn),
        )
    )


max_dim = _picked("max", "argmax", "MaxBackward0")
min_dim = _picked("min", "argmin", "MinBackward0")


# --- moments ---------------------------------------------------------------------


def _var_scale(x: Array, axis: Axis, ddof: int, op: str) -> float:
    # 1 / (n - ddof); NaN where that is undefined, as NumPy's result is
    n = _reduced_size(shape_of(x), axis, op) - ddof
    return 1.0 / n if n > 0 else float("nan")


def _var_grad(x: Array, axis: Axis, ddof: int) -> Array:
    # d var / dx = 2 (x - mean) / (n - ddof); for complex x, var = mean |x - mean|**2 is
    # real and JAX's cotangent is 2 conj(x - mean) / (n - ddof) (docs/concepts/complex.md)
    centered = _conj_if_complex(x - mean(x, axis=axis, keepdims=True))
    return centered * (2.0 * _var_scale(x, axis, ddof, "var"))


def _conj_if_complex(v: Array) -> Array:
    return conjugate(v) if value_of(v).dtype.kind == "c" else v


def _real_if_complex(v: Array) -> Array:
    # the tangent of a real output (var, std, norm) of complex inputs: Re of the complex one
    return real(v) if value_of(v).dtype.kind == "c" else v


def _std_grad(out: Array, x: Array, axis: Axis, ddof: int, keepdims: bool) -> Array:
    # d std / dx = (x - mean) / ((n - ddof) std); taken as 0 where std is 0,
    # as for the norm of the zero vector (a NaN std stays NaN: `!= 0`, not `> 0`).
    out = keep_reduced_dims(out, shape_of(x), axis, keepdims)
    live = value_of(out) != 0
    centered = _conj_if_complex(x - mean(x, axis=axis, keepdims=True))
    scale = _var_scale(x, axis, ddof, "std")
    return where(live, centered / where(live, out, 1.0) * scale, 0.0)


def _moment_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    axis = _axis_sample(g, len(shape))
    n = _reduced_size(shape, axis, "var")
    ddof = g.integers(0, 1) if n > 1 else 0
    x = _spread(g, shape, -3.0, 3.0)  # distinct, so std > 0 when n > 1
    return (x,), {"axis": axis, "ddof": ddof, "keepdims": g.boolean()}


def _var_vjp(ct: Array, out: Array, x: Array, *, axis: Axis, ddof: int, keepdims: bool) -> Array:
    ct = keep_reduced_dims(ct, shape_of(x), axis, keepdims)
    return ct * _var_grad(x, axis, ddof)


def _var_jvp(x_t: Array, out: Array, x: Array, *, axis: Axis, ddof: int, keepdims: bool) -> Array:
    return _real_if_complex(sum_(x_t * _var_grad(x, axis, ddof), axis=axis, keepdims=keepdims))


var = register(
    Primitive(
        name="var",
        forward=lambda xp, x, *, axis, ddof, keepdims: xp.var(
            x, axis=_whole_if_0d(xp, x, axis, "var"), ddof=ddof, keepdims=keepdims
        ),
        vjp=(_var_vjp,),
        jvp=(_var_jvp,),
        params=("axis", "ddof", "keepdims"),
        sample=Sample(_moment_sample, complex=True),
        doc="variance over axes, divided by n - ddof",
        keeps_zeros="reduction",
        names=Names(numpy="var", torch="var", method="var", grad_fn="VarBackward0"),
    )
)


def _std_vjp(ct: Array, out: Array, x: Array, *, axis: Axis, ddof: int, keepdims: bool) -> Array:
    d_std = _std_grad(out, x, axis, ddof, keepdims)
    ct = keep_reduced_dims(ct, shape_of(x), axis, keepdims)
    return ct * d_std


def _std_jvp(x_t: Array, out: Array, x: Array, *, axis: Axis, ddof: int, keepdims: bool) -> Array:
    return _real_if_complex(
        sum_(x_t * _std_grad(out, x, axis, ddof, keepdims), axis=axis, keepdims=keepdims)
    )


std = register(
    Primitive(
        name="std",
        forward=lambda xp, x, *, axis, ddof, keepdims: xp.std(
            x, axis=_whole_if_0d(xp, x, axis, "std"), ddof=ddof, keepdims=keepdims
        ),
        vjp=(_std_vjp,),
        jvp=(_std_jvp,),
        params=("axis", "ddof", "keepdims"),
        sample=Sample(_moment_sample, complex=True),
        doc="standard deviation over axes (gradient 0 where it is 0)",
        keeps_zeros="reduction",
        names=Names(numpy="std", torch="std", method="std", grad_fn="StdBackward0"),
    )
)


# --- cumulative sums ---------------------------------------------------------------


def _cumsum_forward(xp: ModuleType, x: Array, *, axis: Axis) -> Array:
    if not isinstance(x, xp.ndarray):
        # NOTE: a number; a CuPy x is left as it is (cupy.asarray copies an array
        # on another GPU than the current one to the current one)
        x = xp.asarray(x)
    if x.ndim == 0 and axis is not None:
        # NOTE: a 0-d array along its axis 0 (or -1) stays 0-d, as in PyTorch
        # (NumPy returns shape (1,)); axis=None flattens, as in NumPy.
        normalize_axis(axis, 0, "cumsum")
        return x.copy()
    return xp.cumsum(x, axis=axis)


def _cumsum_vjp(ct: Array, out: Array, x: Array, *, axis: Axis) -> Array:
    # the reversed cumulative sum, sum_{j >= i} ct_j, summed as such: no cancellation
    # (total - cumsum + ct loses the small entries next to a large one)
    if not shape_of(x) and axis is not None:
        return ct
    along = 0 if axis is None else axis
    rev = flip(cumsum(flip(ct, axis=along), axis=along), axis=along)
    return rev if axis is not None else reshape(rev, shape=shape_of(x))


def _cumsum_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    axis = None if not shape or g.boolean() else g.integers(-len(shape), len(shape) - 1)
    return (g.array(shape, -3.0, 3.0),), {"axis": axis}


cumsum = register(
    Primitive(
        name="cumsum",
        forward=_cumsum_forward,
        vjp=(_cumsum_vjp,),
        jvp=LINEAR,
        params=("axis",),
        sample=Sample(_cumsum_sample, complex=True),
        doc="running sum along an axis (of the flattened array if axis is None)",
        names=Names(
            numpy="cumsum",
            torch="cumsum",
            method="cumsum",
            inplace="cumsum_",
            grad_fn="CumsumBackward0",
        ),
    )
)


# --- cumulative products -------------------------------------------------------------


def _cumprod_forward(xp: ModuleType, x: Array, *, axis: Axis) -> Array:
    if not isinstance(x, xp.ndarray):
        # NOTE: a number; a CuPy x is left as it is (cupy.asarray copies an array
        # on another GPU than the current one to the current one)
        x = xp.asarray(x)
    if x.ndim == 0 and axis is not None:
        normalize_axis(axis, 0, "cumprod")  # a 0-d array stays 0-d, as in cumsum
        return x.copy()
    return xp.cumprod(x, axis=axis)


def _cumprod_flat(x: Array, axis: Axis) -> tuple[Array, int]:
    # the operand and the axis the running product goes along (axis None: flattened)
    if axis is None:
        return reshape(x, shape=(-1,)), 0
    return x, normalize_axis(axis, len(shape_of(x)), "cumprod")[0]


def _cumprod_all_terms(x: Array, along: int) -> Array:
    """Return C[..., k, i, ...] = prod_{j <= i, j != k} x_j for i >= k, else 0 (k at `along`).

    The exact partial derivatives d out_i / d x_k, zeros in `x` included, as a
    polynomial in `x` (no division): O(n^2) per slice, used where `x` has zeros
    and is being differentiated again (PyTorch does the same).
    """
    n = shape_of(x)[along]
    ndim = len(shape_of(x))
    place = (1,) * along + (n, n) + (1,) * (ndim - along - 1)
    positions = constant_like(numpy.arange(n), value_of(x))  # on x's device
    k = positions.reshape(n, 1)
    i = positions.reshape(1, n)
    others = where((k == i).reshape(place), 1.0, expand_dims(x, axis=along))
    return where((i >= k).reshape(place), cumprod(others, axis=along + 1), 0.0)


def _cumprod_zero_split(x: Array, along: int) -> tuple[Array, Array, Array, Array]:
    """Return the masks and products of the O(n) rule for slices with zeros.

    `before` marks entries before the slice's first zero, `first` the first
    zero; `head` is the product of the entries before it, and `tail_i` the
    product of the entries after it up to i (1 up to the first zero).
    """
    x_v = value_of(x)
    seen = x_v == 0
    zeros_so_far = seen.cumsum(axis=along)
    before = zeros_so_far == 0
    first = seen & (zeros_so_far == 1)
    head = prod(where(before, x, 1.0), axis=along, keepdims=True)
    tail = cumprod(where(before | first, 1.0, x), axis=along)
    return before, first, head, tail


def _cumprod_vjp(ct: Array, out: Array, x: Array, *, axis: Axis) -> Array:
    # d out_i / d x_k = prod_{j <= i, j != k} x_j for i >= k
    if not shape_of(x) and axis is not None:
        return ct
    shape = shape_of(x)
    x, along = _cumprod_flat(x, axis)
    if axis is None:
        ct, out = reshape(ct, shape=shape_of(x)), reshape(out, shape=shape_of(x))
    if not (value_of(x) == 0).any():  # sum_{i >= k} ct_i out_i / x_k
        grad = flip(cumsum(flip(ct * out, axis=along), axis=along), axis=along) / x
    elif type(x) is Node:  # differentiated again: the exact polynomial
        terms = expand_dims(ct, axis=along) * _cumprod_all_terms(x, along)
        grad = sum_(terms, axis=along + 1, keepdims=False)
    else:
        # NOTE: as PyTorch, O(n): entries after a slice's first zero get 0, the
        # first zero gets head * sum_{i >= z} ct_i tail_i, the ones before it
        # the no-zero formula over the entries before the zero.
        before, first, head, tail = _cumprod_zero_split(x, along)
        upto = flip(cumsum(flip(where(before, ct * out, 0.0), axis=along), axis=along), axis=along)
        at_zero = head * sum_(where(before, 0.0, ct * tail), axis=along, keepdims=True)
        grad = where(before, upto / where(before, x, 1.0), where(first, at_zero, 0.0))
    return reshape(grad, shape=shape) if axis is None else grad


def _cumprod_jvp(x_t: Array, out: Array, x: Array, *, axis: Axis) -> Array:
    # out_t_i = sum_{k <= i} x_t_k prod_{j <= i, j != k} x_j
    if not shape_of(x) and axis is not None:
        return x_t
    x, along = _cumprod_flat(x, axis)
    if axis is None:
        x_t, out = reshape(x_t, shape=shape_of(x)), reshape(out, shape=shape_of(x))
    if not (value_of(x) == 0).any():
        return out * cumsum(x_t / x, axis=along)
    if type(x) is Node:
        terms = expand_dims(x_t, axis=along + 1) * _cumprod_all_terms(x, along)
        return sum_(terms, axis=along, keepdims=False)
    before, first, head, tail = _cumprod_zero_split(x, along)
    upto = out * cumsum(where(before, x_t / where(before, x, 1.0), 0.0), axis=along)
    at_zero = head * sum_(where(first, x_t, 0.0), axis=along, keepdims=True) * tail
    return where(before, upto, at_zero)


def _cumprod_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    axis = None if not shape or g.boolean() else g.integers(-len(shape), len(shape) - 1)
    x = g.array(shape, 0.5, 1.5) * _signs(g, shape)
    if x.size and g.boolean():  # one or two zeros: the exact rules at zeros
        flat = x.reshape(-1)
        for _ in range(g.integers(1, 2)):
            flat[g.integers(0, flat.size - 1)] = 0.0
    return (x,), {"axis": axis}


cumprod = register(
    Primitive(
        name="cumprod",
        forward=_cumprod_forward,
        vjp=(_cumprod_vjp,),
        jvp=(_cumprod_jvp,),
        params=("axis",),
        sample=Sample(_cumprod_sample, complex=True),
        doc="running product along an axis (exact gradients where entries are 0)",
        names=Names(
            numpy="cumprod",
            torch="cumprod",
            method="cumprod",
            inplace="cumprod_",
            grad_fn="CumprodBackward0",
        ),
    )
)


# --- norms -------------------------------------------------------------------------

_INF = float("inf")
_MATRIX_ORDS = (None, "fro", 1, -1, _INF, -_INF)


def _norm_axes(ord: Any, axis: Axis, ndim: int) -> tuple[bool, tuple[int, ...]]:  # noqa: A002  (NumPy's name)
    """Return `(is_matrix, axes)` for `numpy.linalg.norm`'s arguments; axes in the given order.

    Raises:
        funcgrad.errors.OpError: For an axis out of range or an order
            funcgrad cannot differentiate.
    """
    if axis is None:
        if ord is None:
            return False, tuple(range(ndim))  # the 2-norm of the flattened array
        if ndim not in (1, 2):
            raise OpError(
                f"funcgrad.norm: ord={ord!r} with axis=None needs a 1-D or 2-D array, got "
                f"{ndim} dimensions; pass axis= (an int for vectors, a pair for matrices)"
            )
        axes = tuple(range(ndim))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(axes) not in (1, 2):
        raise OpError(f"funcgrad.norm: axis={axis!r} must be an int or a pair of ints")
    axes = tuple(normalize_axis(a, ndim, "norm")[0] for a in axes)
    if len(axes) == 2 and axes[0] == axes[1]:
        raise OpError(f"funcgrad.norm: axis={axis!r} names the same axis twice")
    if len(axes) == 1 and isinstance(ord, str):
        raise OpError(f"funcgrad.norm: ord={ord!r} is a matrix norm; vectors take a number or None")
    if len(axes) == 2 and ord not in _MATRIX_ORDS:
        raise OpError(
            f"funcgrad.norm: the matrix norm ord={ord!r} is not supported (it needs singular "
            f"values); use one of None, 'fro', 1, -1, inf, -inf"
        )
    return len(axes) == 2, axes


def _norm_forward(xp: ModuleType, x: Array, *, ord: Any, axis: Axis, keepdims: bool) -> Array:  # noqa: A002
    _norm_axes(ord, axis, xp.ndim(x))
    if xp.ndim(x) == 0:  # the norm of the one entry along axis 0 (or -1)
        return xp.linalg.norm(xp.reshape(x, (1,)), ord=ord, axis=0)
    return xp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _norm_grad(out: Array, x: Array, ord: Any, axis: Axis, keepdims: bool) -> Array:  # noqa: A002
    """Return d norm / dx, shaped like `x`."""
    shape = shape_of(x)
    is_matrix, axes = _norm_axes(ord, axis, len(shape))
    out = keep_reduced_dims(out, shape, axes, keepdims)
    out_v = value_of(out)
    x_v = value_of(x)
    if ord is None or ord == "fro" or (ord == 2 and not is_matrix):
        # x / |x|, taken as 0 at the zero vector (NaN stays NaN: `!= 0`, not `> 0`);
        # conj(x) / |x| for complex x (JAX's convention, docs/concepts/complex.md)
        live = out_v != 0
        return where(live, _conj_if_complex(x) / where(live, out, 1.0), 0.0)
    if x_v.dtype.kind == "c":
        raise DtypeError(
            f"funcgrad.norm: ord={ord!r} of a complex array ({x_v.dtype}{list(shape)}) is not "
            f"differentiated (only the 2-norm and the Frobenius norm are); differentiate "
            f"the norm of abs(x) instead"
        )
    if ord == 0:
        return sign(x_v) * 0.0  # counts nonzeros: piecewise constant
    if ord in (_INF, -_INF) or is_matrix:
        # the entries (vectors) or the columns / rows (matrices) attaining the
        # largest (smallest) |x| or absolute sum share the gradient
        chosen: int | tuple[int, ...]
        if is_matrix:
            summed, chosen = (axes[0], axes[1]) if ord in (1, -1) else (axes[1], axes[0])
            sums = absolute(x_v).sum(axis=summed, keepdims=True)
        else:
            sums, chosen = absolute(x_v), axes if shape else ()  # 0-d: nothing to share
        hit = (sums == out_v) | (sums != sums)
        share = (hit / hit.sum(axis=chosen, keepdims=True)).astype(x_v.dtype)
        return sign(x_v) * share
    if ord == 1:
        return sign(x_v)
    # general p: sign(x) (|x| / |x|_p) ** (p - 1), taken as 0 where x or the norm is 0
    live = (x_v != 0) & (out_v != 0)
    ratio = where(live, absolute(x), 1.0) / where(live, out, 1.0)
    return where(live, sign(x_v) * power(ratio, ord - 1.0), 0.0)


def _norm_sample(g: Draw) -> Drawn:
    kind = g.choice(("flat", "vector", "matrix"))
    keepdims = g.boolean()
    if g.array((), 0.0, 1.0).dtype.kind == "c":
        kind = "flat"  # complex arrays: only the 2-norm (and Frobenius) are differentiated
    ord: Any  # noqa: A001
    axis: Axis
    if kind == "flat":  # ord=None, axis=None: the 2-norm of all entries
        shape = g.shape(min_dims=0, max_dims=3, min_side=0)
        return (g.array(shape, -3.0, 3.0),), {"ord": None, "axis": None, "keepdims": keepdims}
    if kind == "vector":
        shape = g.shape(min_dims=1, max_dims=3)
        ndim = len(shape)
        axis = None if ndim == 1 and g.boolean() else g.integers(-ndim, ndim - 1)
        ord = g.choice((None, 2, 1, _INF, -_INF, 0, 3, 1.5))  # noqa: A001
        # distinct magnitudes away from 0: no kinks, no ties
        x = _spread(g, shape, 0.5, 3.0) * _signs(g, shape)
        return (x,), {"ord": ord, "axis": axis, "keepdims": keepdims}
    ord = g.choice(_MATRIX_ORDS)  # noqa: A001
    shape = (g.integers(1, 3), g.integers(1, 3))
    if ord in (None, "fro") and g.boolean():
        shape = (2, *shape)
        axis = g.choice(((0, 1), (1, 2), (2, 0), (-1, -2)))
    else:
        pairs = ((0, 1), (1, 0), (-1, -2))
        axis = g.choice(pairs if ord is None else (None, *pairs))  # ord=None, axis=None: flat
    # magnitudes 0.5 + 0.1 * 2**k for distinct k: all row sums (and column sums) differ
    ranks = g.array(shape, 0.0, 1.0).ravel().argsort().argsort().reshape(shape)
    x = (0.5 + 0.1 * 2.0**ranks) * _signs(g, shape)
    return (x,), {"ord": ord, "axis": axis, "keepdims": keepdims}


def _norm_vjp(ct: Array, out: Array, x: Array, *, ord: Any, axis: Axis, keepdims: bool) -> Array:  # noqa: A002
    axes = _norm_axes(ord, axis, len(shape_of(x)))[1]
    d_norm = _norm_grad(out, x, ord, axis, keepdims)
    ct = keep_reduced_dims(ct, shape_of(x), axes, keepdims)
    return ct * d_norm


def _norm_jvp(x_t: Array, out: Array, x: Array, *, ord: Any, axis: Axis, keepdims: bool) -> Array:  # noqa: A002
    axes = _norm_axes(ord, axis, len(shape_of(x)))[1]
    return _real_if_complex(
        sum_(x_t * _norm_grad(out, x, ord, axis, keepdims), axis=axes, keepdims=keepdims)
    )


norm = register(
    Primitive(
        name="norm",
        forward=_norm_forward,
        vjp=(_norm_vjp,),
        jvp=(_norm_jvp,),
        params=("ord", "axis", "keepdims"),
        sample=Sample(_norm_sample, complex=True),
        doc="vector or matrix norm (gradient 0 at the zero vector)",
        keeps_zeros="reduction",
        names=Names(
            numpy="linalg.norm", torch="norm", method="norm", grad_fn="LinalgVectorNormBackward0"
        ),
    )
)


# --- Node methods ------------------------------------------------------------------


def _method(prim: Primitive) -> Callable[..., Any]:
    def method(self: Node, axis: Axis = None, keepdims: bool = False) -> Array:
        return prim(self, axis=axis, keepdims=keepdims)

    method.__name__ = prim.name
    method.__doc__ = f"Return `funcgrad.numpy.{prim.name}` of this node over `axis`."
    return method


def _moment_method(prim: Primitive) -> Callable[..., Any]:
    def method(self: Node, axis: Axis = None, ddof: int = 0, keepdims: bool = False) -> Array:
        return prim(self, axis=axis, ddof=ddof, keepdims=keepdims)

    method.__name__ = prim.name
    method.__doc__ = f"Return `funcgrad.numpy.{prim.name}` of this node over `axis`."
    return method


def _cumsum_method(self: Node, axis: Axis = None) -> Array:
    """Return `funcgrad.numpy.cumsum` of this node along `axis`."""
    return cumsum(self, axis=axis)


def _cumprod_method(self: Node, axis: Axis = None) -> Array:
    """Return `funcgrad.numpy.cumprod` of this node along `axis`."""
    return cumprod(self, axis=axis)


attach(
    {
        "mean": _method(mean),
        "prod": _method(prod),
        "max": _method(max_),
        "min": _method(min_),
        "var": _moment_method(var),
        "std": _moment_method(std),
        "cumsum": _cumsum_method,
        "cumprod": _cumprod_method,
    }
)
