"""Pooling primitives: `max_pool`, `avg_pool` and its adjoint `avg_pool_transpose`.

Each pools the last `len(kernel)` axes of `x` (any leading axes: batch,
channels) over windows of `kernel` taps, `stride` apart, with `padding`
given as one `(before, after)` pair per pooled axis. PyTorch's `ceil_mode`
is extra `after` padding, worked out by `funcgrad.nn.functional`; the pad
value is -inf for `max_pool` (padding never wins) and 0 for `avg_pool`.

The forwards loop over the kernel's taps (a 2 x 2 window: 4 strided
slices), so each step is one vectorized operation over the whole output:
NumPy's reductions over strided window axes are several times slower.

`max_pool`'s gradient goes to the first maximum of each window (PyTorch's
choice; NaN wins, as NaN propagates), found again from `x` by the rules:
its VJP is `scatter_add` of the cotangent at those positions and its JVP a
`getitem` of the tangent there, both linear primitives, so second order
works (the positions are locally constant). `avg_pool` and
`avg_pool_transpose` are linear and each other's adjoint.
"""

from __future__ import annotations

from math import prod
from types import ModuleType
from typing import Any

import numpy

from funcgrad.backend import xp_of
from funcgrad.graph.node import Array
from funcgrad.ops._util import follows_values, shape_of, value_of
from funcgrad.ops.conv import _pad, _taps
from funcgrad.ops.index import getitem, index_update, normalize_index, scatter_add
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
from funcgrad.ops.shape import reshape

Pads = tuple[tuple[int, int], ...]
Ints = tuple[int, ...]

_NEG_INF = float("-inf")


def pool_out_size(n: int, k: int, stride: int, pad: tuple[int, int], dilation: int = 1) -> int:
    """The number of windows along an axis of size `n` padded by `pad`."""
    return (n + pad[0] + pad[1] - dilation * (k - 1) - 1) // stride + 1


def _points(x_shape: Ints, kernel: Ints, stride: Ints, padding: Pads, dilation: Ints) -> Ints:
    nd = len(kernel)
    return tuple(
        pool_out_size(n, k, s, p, d)
        for n, k, s, p, d in zip(x_shape[-nd:], kernel, stride, padding, dilation, strict=True)
    )


def _tap_index(tap: Ints, dilation: Ints, stride: Ints, points: Ints) -> tuple[Any, ...]:
    return (
        Ellipsis,
        *(
            slice(k * d, k * d + (p - 1) * s + 1, s)
            for k, d, s, p in zip(tap, dilation, stride, points, strict=True)
        ),
    )


# --- max_pool ---------------------------------------------------------------------------


def _max_pool_forward(xp: ModuleType, x: Array, *, kernel: Ints, stride: Ints, padding: Pads,
                      dilation: Ints) -> Array:  # fmt: skip
    x = xp.asarray(x)
    points = _points(x.shape, kernel, stride, padding, dilation)
    xpad = _pad(xp, x, padding, _NEG_INF)
    best: Any = None
    for tap in _taps(kernel):
        v = xpad[_tap_index(tap, dilation, stride, points)]
        best = v.copy() if best is None else xp.maximum(best, v, out=best)
    return best


@follows_values  # one step of a jit plan
def max_pool_indices(x: Any, kernel: Ints, stride: Ints, padding: Pads, dilation: Ints) -> Any:
    """Where each window's maximum is: a flat index into `x`'s pooled axes (PyTorch's indices).

    The first maximum in the window's row-major order wins, and a NaN wins
    over numbers (as NaN propagates into the output).

    Args:
        x: An array (or a node: its value), pooled over its last
            `len(kernel)` axes.
        kernel: `max_pool`'s parameters.
        stride: `max_pool`'s parameters.
        padding: `max_pool`'s parameters.
        dilation: `max_pool`'s parameters.

    Returns:
        An int64 array shaped like the pooled output.
    """
    x = value_of(x)
    xp = xp_of(x)
    nd = len(kernel)
    sizes = x.shape[-nd:]
    points = _points(x.shape, kernel, stride, padding, dilation)
    xpad = _pad(xp, x, padding, _NEG_INF)
    best: Any = None
    arg: Any = None
    taps = _taps(kernel)
    has_nan = bool(xp.isnan(x).any())
    for t, tap in enumerate(taps):
        v = xpad[_tap_index(tap, dilation, stride, points)]
        if best is None:
            best = v.copy()
            arg = xp.zeros(v.shape, dtype=xp.int8 if len(taps) < 128 else xp.int64)
            continue
        better = v > best
        if has_nan:
            better |= xp.isnan(v)  # NaN wins, as NaN propagates
        # NOTE: arg = where(better, t, arg) by arithmetic: a masked copyto or a boolean
        # assignment is about 100x slower on NumPy (1.1 ms against 0.01 for 64x6x14x14)
        arg += better * (t - arg)
        xp.maximum(best, v, out=best)
    # the chosen tap and the window's place give the position in the unpadded plane
    flat = xp.zeros(arg.shape, dtype=xp.int64)
    table = numpy.array(taps, dtype=numpy.int64).reshape(-1, nd)
    for axis in range(nd):
        k_of = xp.asarray(table[:, axis])[arg]
        shape = [1] * arg.ndim
        shape[arg.ndim - nd + axis] = points[axis]
        start = xp.arange(points[axis], dtype=xp.int64).reshape(shape) * stride[axis]
        pos = start + k_of * dilation[axis] - padding[axis][0]
        if padding[axis] != (0, 0):  # a window all padding (never with PyTorch's sizes)
            pos = xp.clip(pos, 0, sizes[axis] - 1)
        flat = flat * sizes[axis] + pos
    return flat


def _flat_index(x_shape: Ints, nd: int, idx: Any) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """The 2-d shape `(rows, plane)` of `x` and the index into it of each window's maximum."""
    lead = prod(x_shape[: len(x_shape) - nd])
    plane = prod(x_shape[len(x_shape) - nd :])
    xp = xp_of(idx)
    rows = xp.arange(lead, dtype=xp.int64).reshape(lead, 1)
    return (lead, plane), normalize_index((rows, idx.reshape(lead, -1)))


def _max_pool_vjp(
    ct: Array, out: Array, x: Array, *, kernel: Ints, stride: Ints, padding: Pads, dilation: Ints
) -> Array:
    shape = shape_of(x)
    idx = max_pool_indices(x, kernel, stride, padding, dilation)
    flat_shape, index = _flat_index(shape, len(kernel), idx)
    ct = reshape(ct, shape=(flat_shape[0], -1))
    if all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation, strict=True)):
        # NOTE: windows that do not overlap never name one position twice, so the
        # cotangents are written (index_update) rather than added (scatter_add, NumPy's
        # slow add.at): the vjp of LeNet's first pool (64x6x28x28, 2x2) 2.2 -> 1.5 ms CPU
        value = value_of(ct)
        zeros = xp_of(value).zeros(flat_shape, dtype=value.dtype)
        return reshape(index_update(zeros, ct, index=index), shape=shape)
    return reshape(scatter_add(ct, index=index, shape=flat_shape), shape=shape)


def _max_pool_jvp(
    x_t: Array, out: Array, x: Array, *, kernel: Ints, stride: Ints, padding: Pads, dilation: Ints
) -> Array:
    shape = shape_of(x)
    idx = max_pool_indices(x, kernel, stride, padding, dilation)
    flat_shape, index = _flat_index(shape, len(kernel), idx)
    picked = getitem(reshape(x_t, shape=flat_shape), index=index)
    return reshape(picked, shape=shape_of(out))


def _pool_geometry(g: Draw, dilate: bool) -> tuple[Ints, dict[str, Any]]:
    nd = g.integers(1, 3) if g.integers(0, 2) else 2
    kernel = tuple(g.integers(1, 3) for _ in range(nd))
    stride = tuple(g.integers(1, 3) for _ in range(nd))
    dilation = tuple(g.integers(1, 2) if dilate else 1 for _ in range(nd))
    padding = tuple((g.integers(0, k // 2), g.integers(0, k // 2)) for k in kernel)
    # at least one window's span of input: no window lies wholly in the padding
    sizes = tuple(
        d * (k - 1) + 1 + g.integers(0, 3 if nd < 3 else 1)
        for k, d in zip(kernel, dilation, strict=True)
    )
    lead = g.shape(min_dims=0, max_dims=2, max_side=2)
    params = {"kernel": kernel, "stride": stride, "padding": padding}
    if dilate:
        params["dilation"] = dilation
    return (*lead, *sizes), params


def _max_pool_sample(g: Draw) -> Drawn:
    shape, params = _pool_geometry(g, dilate=True)
    # distinct values: finite differences across a tie would straddle a kink
    values = g.array(shape, -3.0, 3.0)
    n = values.size
    ranks = numpy.argsort(numpy.argsort(values.reshape(-1)))
    spread = (ranks.reshape(shape) - n / 2) * 0.1 + 0.01 * values
    return (spread.astype(values.dtype),), params


def _max_pool_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """MaxPool2DWithIndicesBackward0 (3D for three pooled axes; 1-d pooling is a 2-d one)."""
    return f"MaxPool{max(len(params['kernel']), 2)}DWithIndicesBackward0"


max_pool = register(
    Primitive(
        name="max_pool",
        forward=_max_pool_forward,
        vjp=(_max_pool_vjp,),
        jvp=(_max_pool_jvp,),
        params=("kernel", "stride", "padding", "dilation"),
        sample=Sample(_max_pool_sample),
        doc="the maximum of each window over the last len(kernel) axes (padding is -inf)",
        names=Names(grad_fn=_max_pool_grad_fn),
    )
)


# --- avg_pool ---------------------------------------------------------------------------


def _divisor(xp: ModuleType, sizes: Ints, kernel: Ints, stride: Ints, padding: Pads,
             points: Ints, count_include_pad: bool, dtype: Any) -> Array:  # fmt: skip
    """PyTorch's divisor of each window: its size clipped to the padded input, or its real size."""
    div: Any = None
    for axis, (n, k, s, (lo, hi), p) in enumerate(
        zip(sizes, kernel, stride, padding, points, strict=True)
    ):
        start = numpy.arange(p) * s - lo
        end = numpy.minimum(start + k, n + hi)
        if count_include_pad:
            count = end - start
        else:
            count = numpy.minimum(end, n) - numpy.maximum(start, 0)
        shape = [1] * len(sizes)
        shape[axis] = p
        count = count.reshape(shape)
        div = count if div is None else div * count
    return xp.asarray(div.astype(dtype))


def _scale(xp: ModuleType, shape: Ints, kernel: Ints, stride: Ints, padding: Pads, points: Ints,
           count_include_pad: bool, divisor_override: int | None, dtype: Any) -> Any:  # fmt: skip
    if divisor_override:
        return 1.0 / divisor_override
    nd = len(kernel)
    # PyTorch clips a window to the input plus its symmetric padding (`before` on both sides)
    sym = tuple((lo, lo) for lo, _ in padding)
    div = _divisor(xp, shape[-nd:], kernel, stride, sym, points, count_include_pad, dtype)
    return 1.0 / div


def _avg_pool_forward(xp: ModuleType, x: Array, *, kernel: Ints, stride: Ints, padding: Pads,
                      count_include_pad: bool, divisor_override: int | None) -> Array:  # fmt: skip
    x = xp.asarray(x)
    ones = (1,) * len(kernel)
    points = _points(x.shape, kernel, stride, padding, ones)
    xpad = _pad(xp, x, padding)
    total: Any = None
    for tap in _taps(kernel):
        v = xpad[_tap_index(tap, ones, stride, points)]
        total = v.copy() if total is None else xp.add(total, v, out=total)
    scale = _scale(
        xp, x.shape, kernel, stride, padding, points, count_include_pad, divisor_override, x.dtype
    )
    total *= scale
    return total


def _avg_pool_transpose_forward(xp: ModuleType, ct: Array, *, kernel: Ints, stride: Ints,
                                padding: Pads, count_include_pad: bool,
                                divisor_override: int | None, shape: Ints) -> Array:  # fmt: skip
    ct = xp.asarray(ct)
    nd = len(kernel)
    ones = (1,) * nd
    points = ct.shape[-nd:]
    scale = _scale(
        xp, shape, kernel, stride, padding, points, count_include_pad, divisor_override, ct.dtype
    )
    ct = ct * scale
    padded = tuple(n + lo + hi for n, (lo, hi) in zip(shape[-nd:], padding, strict=True))
    out = xp.zeros((*shape[:-nd], *padded), dtype=ct.dtype)
    for tap in _taps(kernel):
        out[_tap_index(tap, ones, stride, points)] += ct
    return _pad(xp, out, tuple((-lo, -hi) for lo, hi in padding))


def _avg_pool_sample(g: Draw) -> Drawn:
    shape, params = _pool_geometry(g, dilate=False)
    params["count_include_pad"] = g.boolean()
    params["divisor_override"] = g.choice((None, None, 3))
    return (g.array(shape, -3.0, 3.0),), params


def _avg_pool_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """AvgPool2DBackward0 (3D for three pooled axes; 1-d pooling is a 2-d one)."""
    return f"AvgPool{max(len(params['kernel']), 2)}DBackward0"


def _avg_pool_vjp(ct: Array, out: Array, x: Array, **params: Any) -> Array:
    return avg_pool_transpose(ct, **params, shape=shape_of(x))


avg_pool = register(
    Primitive(
        name="avg_pool",
        forward=_avg_pool_forward,
        vjp=(_avg_pool_vjp,),
        jvp=LINEAR,
        params=("kernel", "stride", "padding", "count_include_pad", "divisor_override"),
        sample=Sample(_avg_pool_sample),
        doc="the mean of each window over the last len(kernel) axes (PyTorch's divisors)",
        names=Names(grad_fn=_avg_pool_grad_fn),
    )
)


def _avg_pool_transpose_sample(g: Draw) -> Drawn:
    (x,), params = _avg_pool_sample(g)
    out = avg_pool(x, **params)
    return (g.array(out.shape, -3.0, 3.0),), {**params, "shape": x.shape}


def _avg_pool_transpose_vjp(
    ct: Array, out: Array, c: Array, *, shape: Ints, **params: Any
) -> Array:
    return avg_pool(ct, **params)


avg_pool_transpose = register(
    Primitive(
        name="avg_pool_transpose",
        forward=_avg_pool_transpose_forward,
        vjp=(_avg_pool_transpose_vjp,),
        jvp=LINEAR,
        params=(
            "kernel",
            "stride",
            "padding",
            "count_include_pad",
            "divisor_override",
            "shape",
        ),
        sample=Sample(_avg_pool_transpose_sample),
        doc="the adjoint of avg_pool: each window's share of ct spread back over it",
        names=Names(grad_fn="AvgPool2DBackwardBackward0"),
    )
)
