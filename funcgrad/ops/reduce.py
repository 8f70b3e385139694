"""Reductions: sums, means, products, extrema, moments, cumulative sums.

Every reduction takes `axis` (None, an int or a tuple) and `keepdims` as
static parameters, like NumPy.
"""

from __future__ import annotations

from funcgrad.ops._util import normalize_axis, shape_of
from funcgrad.ops.registry import LINEAR, Primitive, Sample, register
from funcgrad.ops.shape import broadcast_to, reshape


def _reduction_sample(g):
    shape = g.shape(min_dims=0, max_dims=3)
    x = g.array(shape, -3.0, 3.0)
    ndim = len(shape)
    if ndim == 0 or g.boolean():
        axis = None
    else:
        axis = g.integers(-ndim, ndim - 1)
    return (x,), {"axis": axis, "keepdims": g.boolean()}


def keep_reduced_dims(ct, in_shape, axis, keepdims):
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


def _sum_vjp(ct, out, x, *, axis, keepdims):
    shape = shape_of(x)
    return broadcast_to(keep_reduced_dims(ct, shape, axis, keepdims), shape=shape)


sum_ = register(Primitive(
    name="sum",
    forward=lambda xp, x, *, axis, keepdims: xp.sum(x, axis=axis, keepdims=keepdims),
    vjp=(_sum_vjp,),
    jvp=LINEAR,
    params=("axis", "keepdims"),
    sample=Sample(_reduction_sample),
    doc="sum over axes",
))
