"""Order statistics of a whole array: PyTorch's `median()` and `nanmedian()` (no dim).

The value is the lower median of the flattened array (`numpy.quantile(x,
0.5, method="lower")`), NaN if an entry is NaN (`skipnan=False`) or the lower
median of the entries that are not NaN (`skipnan=True`). As in PyTorch
(`evenly_distribute_backward`), its gradient is shared evenly by the
entries equal to the result: the median is piecewise linear, and a
constant share is its subgradient. The medians along a dimension return an
index too: they are `funcgrad.ops.scatter.gather` of the value at that index.
"""

from __future__ import annotations

from types import ModuleType

from funcgrad.backend import xp_of
from funcgrad.graph.node import Array
from funcgrad.ops._util import value_of
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import (
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


def _lower_median_forward(xp: ModuleType, x: Array, *, skipnan: bool) -> Array:
    flat = xp.sort(xp.reshape(xp.asarray(x), (-1,)))  # NaNs last
    n = flat.shape[0]
    if skipnan:
        n = int((~xp.isnan(flat)).sum()) if flat.dtype.kind == "f" else n
    elif n and flat.dtype.kind == "f" and bool(xp.isnan(flat[-1])):
        return flat[-1]
    if n == 0:
        return xp.asarray(xp.nan, dtype=flat.dtype)
    return flat[(n - 1) // 2]


def _share(out: Array, x: Array) -> Array:
    # 1/k at each of the k entries equal to the median (NaN ones when it is NaN), 0 elsewhere
    x_v, out_v = value_of(x), value_of(out)
    xp = xp_of(x_v)
    hit = (x_v == out_v) | (xp.isnan(x_v) & xp.isnan(out_v))
    k = hit.sum()
    return (hit / (k if k else 1)).astype(x_v.dtype)


def _median_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """MedianBackward0, or NanmedianBackward0 (skipnan)."""
    return "NanmedianBackward0" if params["skipnan"] else "MedianBackward0"


def _median_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    size = 1
    for n in shape:
        size *= n
    ranks = g.array((size,), 0.0, 1.0).argsort().argsort()
    x = (ranks + g.array((size,), 0.1, 0.9)) * (6.0 / max(size, 1)) - 3.0  # distinct: no kinks
    return (x.reshape(shape),), {"skipnan": g.boolean()}


lower_median = register(
    Primitive(
        name="lower_median",
        forward=_lower_median_forward,
        vjp=(lambda ct, out, x, *, skipnan: ct * _share(out, x),),
        jvp=(
            lambda x_t, out, x, *, skipnan: sum_(x_t * _share(out, x), axis=None, keepdims=False),
        ),
        params=("skipnan",),
        sample=Sample(_median_sample),
        doc=(
            "the lower median of all entries (NaN if one is, unless skipnan: then of the "
            "others); entries equal to it share the gradient"
        ),
        names=Names(grad_fn=_median_grad_fn),
    )
)

__all__ = ["lower_median"]
