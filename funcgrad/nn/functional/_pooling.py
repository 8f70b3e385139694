"""Pooling of `torch.nn.functional`: max, average and adaptive pools in 1 and 2 (max, avg: 3) dims.

Each has PyTorch's signature and takes `Tensor`s or arrays and graph nodes.
The fixed-window pools are the primitives of `funcgrad.ops.pooling`
(`max_pool`, `avg_pool`), with PyTorch's output sizes (`ceil_mode`), its
`-inf` padding for max and its divisors for average (`count_include_pad`,
`divisor_override`). As in PyTorch, the 1-d pools are the 2-d ones on an
added axis (so their `grad_fn` is `SqueezeBackward1`), and `return_indices`
gives flat positions in each input plane (int64).

Adaptive pools split each axis of size `n` into `m` windows
`[floor(i n / m), ceil((i + 1) n / m))`: when `m` divides `n` these are a
fixed-window pool; otherwise the average is two small matrix products and
the maximum a gather of the windows (shorter windows repeat their last
element, which leaves the maximum and its gradient as they are).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors, value
from funcgrad.nn.functional._conv import ntuple
from funcgrad.ops import pooling as _pool
from funcgrad.ops._util import shape_of
from funcgrad.ops.index import getitem, normalize_index
from funcgrad.ops.linalg import matmul
from funcgrad.ops.reduce import max_
from funcgrad.ops.shape import expand_dims, squeeze

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
]


def pool_output_size(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooled size: floor or ceil, a last window starting in the right padding dropped."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _geometry(op: str, x_shape: Any, nd: int, kernel_size, stride, padding, dilation,
              ceil_mode: bool):  # fmt: skip
    if len(x_shape) not in (nd + 1, nd + 2):
        raise OpError(
            f"funcgrad.nn.functional.{op}: Expected {nd + 1}D or {nd + 2}D input, but got "
            f"input of size: {list(x_shape)}"
        )
    kernel = ntuple(kernel_size, nd, "kernel_size", op)
    stride = (
        kernel
        if stride is None or stride == [] or stride == ()
        else ntuple(stride, nd, "stride", op)
    )
    pads = ntuple(padding, nd, "padding", op)
    dilation = ntuple(dilation, nd, "dilation", op)
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise OpError(
            f"funcgrad.nn.functional.{op}: kernel_size, stride and dilation must be greater "
            f"than zero, but got kernel_size={list(kernel)}, stride={list(stride)}, "
            f"dilation={list(dilation)}"
        )
    for k, p in zip(kernel, pads, strict=True):
        if p < 0 or p > k // 2:
            raise OpError(
                f"funcgrad.nn.functional.{op}: pad should be at most half of effective kernel "
                f"size, but got pad={p}, kernel_size={k} and dilation="
                f"{dilation[0] if nd == 1 else list(dilation)}"
            )
    sizes = x_shape[-nd:]
    out = [
        pool_output_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(sizes, kernel, stride, pads, dilation, strict=True)
    ]
    if any(m <= 0 for m in out):
        raise OpError(
            f"funcgrad.nn.functional.{op}: Given input size: {tuple(x_shape[-nd - 1 :])}. "
            f"Calculated output size: {(x_shape[-nd - 1], *out)}. Output size is too small"
        )
    # PyTorch's windows, as (before, after) padding: after covers the last window exactly
    pairs = tuple(
        (p, (m - 1) * s + d * (k - 1) + 1 - n - p)
        for n, m, k, s, p, d in zip(sizes, out, kernel, stride, pads, dilation, strict=True)
    )
    return kernel, stride, pairs, dilation


def _max_poolnd(nd, op, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):  # noqa: A002
    kernel, stride, pairs, dilation = _geometry(
        op, shape_of(input), nd, kernel_size, stride, padding, dilation, ceil_mode
    )
    params: dict[str, Any] = {
        "kernel": kernel,
        "stride": stride,
        "padding": pairs,
        "dilation": dilation,
    }
    out = _pool.max_pool(input, **params)
    if not return_indices:
        return out
    return out, _pool.max_pool_indices(value(input), **params)


def _one_d(fn, input, *args):  # noqa: A002
    """A 1-d pool as PyTorch computes it: the 2-d pool of `input` with an axis added before the last."""
    out = fn(expand_dims(input, axis=(-2,)), *args)
    if isinstance(out, tuple):
        return tuple(squeeze(o, axis=-2) if i == 0 else value(o).squeeze(-2)
                     for i, o in enumerate(out))  # fmt: skip
    return squeeze(out, axis=-2)


def _pair_1d(v, default=None):
    if v is None:
        return default
    v = ntuple(v, 1, "argument", "max_pool1d")[0]
    return (1, v)


@takes_tensors
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):  # fmt: skip
    """Apply 1-d max pooling over `input` `(N, C, L)` or `(C, L)` (`torch.nn.functional.max_pool1d`).

    Args:
        input: `(N, C, L)` or `(C, L)`.
        kernel_size: The window's size.
        stride: The step between windows (default: `kernel_size`).
        padding: Implicit `-inf` on both sides (at most half the kernel).
        dilation: The step between a window's taps.
        ceil_mode: Round the output size up (a last, partial window).
        return_indices: Also return where each maximum is (int64).

    Returns:
        The pooled values, or `(values, indices)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.max_pool1d(np.array([[[1.0, 3.0, 2.0, 0.0, 5.0]]]), 2)
        array([[[3., 2.]]])
    """
    k = (1, ntuple(kernel_size, 1, "kernel_size", "max_pool1d")[0])
    s = _pair_1d(stride, None)
    p = (0, ntuple(padding, 1, "padding", "max_pool1d")[0])
    d = (1, ntuple(dilation, 1, "dilation", "max_pool1d")[0])
    if len(shape_of(input)) not in (2, 3):
        raise OpError(
            f"funcgrad.nn.functional.max_pool1d: Expected 2D or 3D input, but got input of "
            f"size: {list(shape_of(input))}"
        )
    return _one_d(
        lambda x: _max_poolnd(2, "max_pool1d", x, k, s, p, d, ceil_mode, return_indices), input
    )


@takes_tensors
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):  # fmt: skip
    """Apply 2-d max pooling over `input` `(N, C, H, W)` (`torch.nn.functional.max_pool2d`).

    The gradient goes to the first maximum of each window, as in PyTorch.

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        kernel_size: The window's size (an int or a pair).
        stride: The step between windows (default: `kernel_size`).
        padding: Implicit `-inf` on both sides (at most half the kernel).
        dilation: The step between a window's taps.
        ceil_mode: Round the output size up (a last, partial window).
        return_indices: Also return where each maximum is: a flat index into
            each `H * W` plane (int64), as `max_unpool2d` takes.

    Returns:
        The pooled values, or `(values, indices)`.

    Examples:
        >>> import funcgrad as torch
        >>> import funcgrad.nn.functional as F
        >>> x = torch.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
        >>> y = F.max_pool2d(x, 2)
        >>> y
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]], grad_fn=<MaxPool2DWithIndicesBackward0>)
    """
    return _max_poolnd(
        2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


@takes_tensors
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):  # fmt: skip
    """Apply 3-d max pooling over `input` `(N, C, D, H, W)` (`torch.nn.functional.max_pool3d`).

    Args:
        input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        kernel_size: Ints or triples (see `max_pool2d`).
        stride: Ints or triples (see `max_pool2d`).
        padding: Ints or triples (see `max_pool2d`).
        dilation: Ints or triples (see `max_pool2d`).
        ceil_mode: Round the output size up.
        return_indices: Also return the flat positions of the maxima in each volume.

    Returns:
        The pooled values, or `(values, indices)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.max_pool3d(np.arange(8.0).reshape(1, 1, 2, 2, 2), 2).ravel()
        array([7.])
    """
    return _max_poolnd(
        3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
    )


def _avg_poolnd(nd, op, input, kernel_size, stride, padding, ceil_mode, count_include_pad,  # noqa: A002
                divisor_override):  # fmt: skip
    kernel, stride, pairs, _ = _geometry(
        op, shape_of(input), nd, kernel_size, stride, padding, 1, ceil_mode
    )
    if divisor_override is not None and divisor_override == 0:
        raise OpError(f"funcgrad.nn.functional.{op}: divisor must be not zero")
    return _pool.avg_pool(
        input,
        kernel=kernel,
        stride=stride,
        padding=pairs,
        count_include_pad=bool(count_include_pad),
        divisor_override=None if divisor_override is None else int(divisor_override),
    )


@takes_tensors
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):  # fmt: skip
    """Apply 1-d average pooling (`torch.nn.functional.avg_pool1d`).

    Args:
        input: `(N, C, L)` or `(C, L)`.
        kernel_size: The window's size.
        stride: The step between windows (default: `kernel_size`).
        padding: Zeros on both sides (at most half the kernel).
        ceil_mode: Round the output size up.
        count_include_pad: Count the padding zeros in each window's divisor.

    Returns:
        The window means.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.avg_pool1d(np.array([[[1.0, 3.0, 2.0, 0.0]]]), 2)
        array([[[2., 1.]]])
    """
    if len(shape_of(input)) not in (2, 3):
        raise OpError(
            f"funcgrad.nn.functional.avg_pool1d: Expected 2D or 3D input, but got input of "
            f"size: {list(shape_of(input))}"
        )
    k = (1, ntuple(kernel_size, 1, "kernel_size", "avg_pool1d")[0])
    s = _pair_1d(stride, None)
    p = (0, ntuple(padding, 1, "padding", "avg_pool1d")[0])
    return _one_d(
        lambda x: _avg_poolnd(2, "avg_pool1d", x, k, s, p, ceil_mode, count_include_pad, None),
        input,
    )


@takes_tensors
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):  # fmt: skip
    """Apply 2-d average pooling (`torch.nn.functional.avg_pool2d`).

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        kernel_size: The window's size (an int or a pair).
        stride: The step between windows (default: `kernel_size`).
        padding: Zeros on both sides (at most half the kernel).
        ceil_mode: Round the output size up.
        count_include_pad: Count the padding zeros in each window's divisor.
        divisor_override: Divide every window's sum by this instead.

    Returns:
        The window means.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.avg_pool2d(np.arange(16.0).reshape(1, 1, 4, 4), 2)
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]])
    """
    return _avg_poolnd(
        2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override,
    )  # fmt: skip


@takes_tensors
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):  # fmt: skip
    """Apply 3-d average pooling (`torch.nn.functional.avg_pool3d`).

    Args:
        input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        kernel_size: Ints or triples (see `avg_pool2d`).
        stride: Ints or triples (see `avg_pool2d`).
        padding: Ints or triples (see `avg_pool2d`).
        ceil_mode: Round the output size up.
        count_include_pad: Count the padding zeros in each window's divisor.
        divisor_override: Divide every window's sum by this instead.

    Returns:
        The window means.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.avg_pool3d(np.ones((1, 1, 2, 2, 2)), 2).ravel()
        array([1.])
    """
    sizes, kernel = shape_of(input)[-3:], ntuple(kernel_size, 3, "kernel_size", "avg_pool3d")
    if len(shape_of(input)) in (4, 5) and any(n < k for n, k in zip(sizes, kernel, strict=True)):
        raise OpError(
            f"funcgrad.nn.functional.avg_pool3d: input image (T: {sizes[0]} H: {sizes[1]} W: "
            f"{sizes[2]}) smaller than kernel size (kT: {kernel[0]} kH: {kernel[1]} kW: "
            f"{kernel[2]})"
        )
    return _avg_poolnd(
        3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
        divisor_override,
    )  # fmt: skip


# --- adaptive pools ----------------------------------------------------------------------


def _adaptive_sizes(op: str, x_shape: Any, nd: int, output_size) -> tuple[int, ...]:
    if len(x_shape) not in (nd + 1, nd + 2):
        raise OpError(
            f"funcgrad.nn.functional.{op}: Expected {nd + 1}D or {nd + 2}D tensor, but got "
            f"input of size: {list(x_shape)}"
        )
    if output_size is None or isinstance(output_size, int):
        sizes: list[Any] = [output_size] * nd
    else:
        sizes = list(output_size)
        if len(sizes) != nd:
            raise OpError(
                f"funcgrad.nn.functional.{op}: output_size must be {nd}, but got "
                f"output_size={output_size}"
            )
    out = tuple(int(n) if m is None else int(m) for m, n in zip(sizes, x_shape[-nd:], strict=True))
    if any(m <= 0 for m in out) or any(n == 0 for n in x_shape[-nd:]):
        raise OpError(
            f"funcgrad.nn.functional.{op}: elements of output_size must be greater than 0 "
            f"and the input's pooled sizes non-zero, but got output_size={list(out)} for "
            f"input of size {list(x_shape)}"
        )
    return out


def _bounds(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(m)
    return (i * n) // m, -((-(i + 1) * n) // m)


def _averaging(xp, n: int, m: int, dtype) -> Any:
    """The `(m, n)` matrix averaging each adaptive window of an axis of size `n`."""
    start, end = _bounds(n, m)
    a = np.zeros((m, n))
    for i, (lo, hi) in enumerate(zip(start, end, strict=True)):
        a[i, lo:hi] = 1.0 / (hi - lo)
    return xp.asarray(a.astype(dtype))


def _adaptive_avg(op: str, nd: int, input, output_size):  # noqa: A002
    x_shape = shape_of(input)
    out = _adaptive_sizes(op, x_shape, nd, output_size)
    sizes = x_shape[-nd:]
    if all(n % m == 0 for n, m in zip(sizes, out, strict=True)):
        kernel = tuple(n // m for n, m in zip(sizes, out, strict=True))
        return _pool.avg_pool(
            input,
            kernel=kernel,
            stride=kernel,
            padding=((0, 0),) * nd,
            count_include_pad=True,
            divisor_override=None,
        )
    v = value(input)
    xp = xp_of(v)
    y = input
    if nd == 2:
        y = matmul(_averaging(xp, sizes[0], out[0], v.dtype), y)
    return matmul(y, _averaging(xp, sizes[-1], out[-1], v.dtype).T)


@takes_tensors
def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """Apply 1-d adaptive average pooling to `output_size` (`torch.nn.functional.adaptive_avg_pool1d`).

    Args:
        input: `(N, C, L)` or `(C, L)`.
        output_size: The output's length.

    Returns:
        `(N, C, output_size)`: the mean of each adaptive window.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.adaptive_avg_pool1d(np.array([[[1.0, 2.0, 3.0]]]), 2)
        array([[[1.5, 2.5]]])
    """
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, size)


@takes_tensors
def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Apply 2-d adaptive average pooling (`torch.nn.functional.adaptive_avg_pool2d`).

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        output_size: `(H_out, W_out)`, an int for both, or None in a place to keep that size.

    Returns:
        `(N, C, H_out, W_out)`: the mean of each adaptive window.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.adaptive_avg_pool2d(np.arange(16.0).reshape(1, 1, 4, 4), 1)
        array([[[[7.5]]]])
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def _adaptive_max(op: str, nd: int, input, output_size, return_indices: bool):  # noqa: A002
    x_shape = shape_of(input)
    out = _adaptive_sizes(op, x_shape, nd, output_size)
    sizes = x_shape[-nd:]
    if all(n % m == 0 for n, m in zip(sizes, out, strict=True)):
        kernel = tuple(n // m for n, m in zip(sizes, out, strict=True))
        params: dict[str, Any] = {
            "kernel": kernel,
            "stride": kernel,
            "padding": ((0, 0),) * nd,
            "dilation": (1,) * nd,
        }
        y = _pool.max_pool(input, **params)
        if not return_indices:
            return y
        return y, _pool.max_pool_indices(value(input), **params)
    # each window's positions, shorter windows repeating their last one: (m, longest)
    picks = []
    for n, m in zip(sizes, out, strict=True):
        start, end = _bounds(n, m)
        longest = int((end - start).max())
        picks.append(np.minimum(start[:, None] + np.arange(longest), end[:, None] - 1))
    xp = xp_of(value(input))
    ph, pw = picks
    index = (Ellipsis, xp.asarray(ph[:, :, None, None]), xp.asarray(pw[None, None, :, :]))
    windows = getitem(input, index=normalize_index(index))  # (..., mh, lh, mw, lw)
    y = max_(windows, axis=(-3, -1), keepdims=False)
    if not return_indices:
        return y
    w = value(windows)
    w = xp.moveaxis(w, -3, -2)  # (..., mh, mw, lh, lw)
    lead = w.shape[:-2]
    arg = w.reshape(*lead, -1).argmax(axis=-1)
    lw = pw.shape[1]
    a_h, a_w = arg // lw, arg % lw
    rows = xp.asarray(ph)[xp.arange(out[0])[:, None], a_h]
    cols = xp.asarray(pw)[xp.arange(out[1])[None, :], a_w]
    return y, (rows * sizes[1] + cols).astype(xp.int64)


@takes_tensors
def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """Apply 1-d adaptive max pooling (`torch.nn.functional.adaptive_max_pool1d`).

    Args:
        input: `(N, C, L)` or `(C, L)`.
        output_size: The output's length.
        return_indices: Also return where each maximum is (int64).

    Returns:
        The maxima of the adaptive windows, or `(values, indices)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.adaptive_max_pool1d(np.array([[[1.0, 5.0, 3.0]]]), 2)
        array([[[5., 5.]]])
    """
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    return _one_d(
        lambda x: _adaptive_max("adaptive_max_pool1d", 2, x, (1, size), return_indices), input
    )


@takes_tensors
def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Apply 2-d adaptive max pooling (`torch.nn.functional.adaptive_max_pool2d`).

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        output_size: `(H_out, W_out)`, an int for both, or None in a place to keep that size.
        return_indices: Also return where each maximum is (a flat index into each plane).

    Returns:
        The maxima of the adaptive windows, or `(values, indices)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.adaptive_max_pool2d(np.arange(9.0).reshape(1, 1, 3, 3), 2)
        array([[[[4., 5.],
                 [7., 8.]]]])
    """
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)
