"""Plain NumPy references of the neural-network primitives (`funcgrad.ops.conv`, `pooling`).

Written the slow, obvious way (a loop over kernel taps, einsum per tap), so
`tests/ops/test_rules.py::test_forward_matches_numpy` compares the fast
forwards with something independent of them.
"""

from __future__ import annotations

import itertools

import numpy as np


def _padded(x, padding, value=0.0):
    nd = len(padding)
    for axis, (lo, hi) in zip(range(x.ndim - nd, x.ndim), padding, strict=True):
        n = x.shape[axis]
        x = np.take(x, np.arange(max(-lo, 0), n - max(-hi, 0)), axis=axis)
        width = [(0, 0)] * x.ndim
        width[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, width, constant_values=value)
    return x


def _tap_slices(tap, dilation, stride, points):
    return tuple(
        slice(k * d, k * d + (p - 1) * s + 1, s)
        for k, d, s, p in zip(tap, dilation, stride, points, strict=True)
    )


def conv(x, w, b, *, stride, padding, dilation, groups):
    xp = _padded(x, padding)
    n, c = x.shape[:2]
    o = w.shape[0]
    kernel = w.shape[2:]
    points = tuple(
        (m - d * (k - 1) - 1) // s + 1
        for m, k, s, d in zip(xp.shape[2:], kernel, stride, dilation, strict=True)
    )
    out = np.zeros((n, groups, o // groups, *points), dtype=np.result_type(x, w))
    wg = w.reshape(groups, o // groups, c // groups, *kernel)
    for tap in itertools.product(*map(range, kernel)):
        part = xp[(slice(None), slice(None), *_tap_slices(tap, dilation, stride, points))]
        part = part.reshape(n, groups, c // groups, *points)
        out += np.einsum("goc,ngc...->ngo...", wg[(..., *tap)], part)
    out = out.reshape(n, o, *points)
    if not isinstance(b, float):
        out = out + b.reshape((-1,) + (1,) * len(kernel))
    return out


def conv_transpose(x, w, b, *, stride, padding, dilation, groups):
    n, cin = x.shape[:2]
    og = w.shape[1]
    kernel = w.shape[2:]
    points = x.shape[2:]
    full = tuple(
        (p - 1) * s + d * (k - 1) + 1
        for p, s, d, k in zip(points, stride, dilation, kernel, strict=True)
    )
    out = np.zeros((n, groups, og, *full), dtype=np.result_type(x, w))
    wg = w.reshape(groups, cin // groups, og, *kernel)
    xg = x.reshape(n, groups, cin // groups, *points)
    for tap in itertools.product(*map(range, kernel)):
        where = (slice(None), slice(None), slice(None), *_tap_slices(tap, dilation, stride, points))
        out[where] += np.einsum("gco,ngc...->ngo...", wg[(..., *tap)], xg)
    out = _padded(out.reshape(n, groups * og, *full), tuple((-lo, -hi) for lo, hi in padding))
    if not isinstance(b, float):
        out = out + b.reshape((-1,) + (1,) * len(kernel))
    return out


def conv_weight(x, ct, *, stride, padding, dilation, groups, kernel):
    xp = _padded(x, padding)
    n, c = x.shape[:2]
    o = ct.shape[1]
    points = ct.shape[2:]
    dw = np.zeros((groups, o // groups, c // groups, *kernel), dtype=np.result_type(x, ct))
    cg = ct.reshape(n, groups, o // groups, *points)
    for tap in itertools.product(*map(range, kernel)):
        part = xp[(slice(None), slice(None), *_tap_slices(tap, dilation, stride, points))]
        part = part.reshape(n, groups, c // groups, *points)
        dw[(..., *tap)] = np.einsum(
            "ngop,ngcp->goc",
            cg.reshape(n, groups, o // groups, -1),
            part.reshape(n, groups, c // groups, -1),
        )
    return dw.reshape(o, c // groups, *kernel)


def _windows(x, kernel, stride, padding, dilation, value):
    """Every window of `x` (padded with `value`): an array `(..., *points, prod(kernel))`."""
    xp = _padded(x, padding, value)
    nd = len(kernel)
    points = tuple(
        (m - d * (k - 1) - 1) // s + 1
        for m, k, s, d in zip(xp.shape[-nd:], kernel, stride, dilation, strict=True)
    )
    parts = [
        xp[(..., *_tap_slices(tap, dilation, stride, points))]
        for tap in itertools.product(*map(range, kernel))
    ]
    return np.stack(parts, axis=-1)


def max_pool(x, *, kernel, stride, padding, dilation):
    return _windows(x, kernel, stride, padding, dilation, -np.inf).max(axis=-1)


def _counts(x_shape, kernel, stride, padding, count_include_pad):
    nd = len(kernel)
    sizes = x_shape[-nd:]
    ones = np.ones(sizes)
    if count_include_pad:  # clipped to the input with `before` padding on both sides
        sym = tuple((lo, lo) for lo, _ in padding)
        ones = _padded(ones, sym, 1.0)
        ones = _padded(ones, tuple((0, hi - lo) for lo, hi in padding), 0.0)
    else:
        ones = _padded(ones, padding, 0.0)
    return _windows(ones, kernel, stride, ((0, 0),) * nd, (1,) * nd, 0.0).sum(axis=-1)


def avg_pool(x, *, kernel, stride, padding, count_include_pad, divisor_override):
    nd = len(kernel)
    total = _windows(x, kernel, stride, padding, (1,) * nd, 0.0).sum(axis=-1)
    if divisor_override:
        return total / divisor_override
    return total / _counts(x.shape, kernel, stride, padding, count_include_pad)


def avg_pool_transpose(ct, *, kernel, stride, padding, count_include_pad, divisor_override, shape):
    # the adjoint, column by column: <avg_pool(e_i), ct> for each unit vector e_i
    out = np.zeros(shape, dtype=ct.dtype)
    for i in np.ndindex(*shape):
        e = np.zeros(shape)
        e[i] = 1.0
        out[i] = np.sum(
            avg_pool(
                e,
                kernel=kernel,
                stride=stride,
                padding=padding,
                count_include_pad=count_include_pad,
                divisor_override=divisor_override,
            )
            * ct
        )
    return out


def unfold(x, *, kernel, stride, padding, dilation):
    win = _windows(x, kernel, stride, padding, dilation, 0.0)  # (N, C, *P, K)
    n, c = x.shape[:2]
    win = win.reshape(n, c, -1, win.shape[-1])  # (N, C, L, K)
    return win.transpose(0, 1, 3, 2).reshape(n, c * win.shape[-1], -1)


def fold(cols, *, kernel, stride, padding, dilation, size):
    # the adjoint of unfold, entry by entry
    n = cols.shape[0]
    c = cols.shape[1] // int(np.prod(kernel))
    shape = (n, c, *size)
    out = np.zeros(shape, dtype=cols.dtype)
    for i in np.ndindex(*shape):
        e = np.zeros(shape)
        e[i] = 1.0
        out[i] = np.sum(
            unfold(e, kernel=kernel, stride=stride, padding=padding, dilation=dilation) * cols
        )
    return out


NN_REFERENCES = {
    "unfold": unfold,
    "fold": fold,
    "max_pool": max_pool,
    "avg_pool": avg_pool,
    "avg_pool_transpose": avg_pool_transpose,
    "conv": conv,
    "conv_transpose": conv_transpose,
    "conv_weight": conv_weight,
}
