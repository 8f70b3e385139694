"""Vision functions of `torch.nn.functional`: `pad`, `interpolate`, `pixel_shuffle`, `pixel_unshuffle`.

Each has PyTorch's signature and takes `Tensor`s or arrays and graph nodes.
`pad` with mode `"constant"` is the `pad` primitive; `"reflect"`,
`"replicate"` and `"circular"` gather each padded axis with an integer
index (`getitem`, whose gradient adds up the positions read twice).
`interpolate` is separable: per resized axis, a gather (`"nearest"`,
`"nearest-exact"`) or two gathers mixed by constant weights (`"linear"`,
`"bilinear"`, `"trilinear"`, with PyTorch's source coordinates for
`align_corners` true and false), or four (`"bicubic"`, PyTorch's cubic
convolution with A = -0.75, the taps clamped at the edges); `"area"` is
adaptive average pooling. On tensors the result's `grad_fn` has PyTorch's
name (`UpsampleBilinear2DBackward0` ...).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors, value
from funcgrad.nn.functional._pooling import adaptive_avg_pool1d, adaptive_avg_pool2d
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add, multiply
from funcgrad.ops.index import getitem, normalize_index
from funcgrad.ops.shape import pad as _pad_op
from funcgrad.ops.shape import reshape, transpose

__all__ = ["interpolate", "pad", "pixel_shuffle", "pixel_unshuffle", "upsample"]


def _take(x: Any, axis: int, idx: np.ndarray) -> Any:
    index = (slice(None),) * axis + (xp_of(value(x)).asarray(idx),)
    return getitem(x, index=normalize_index(index))


@takes_tensors
def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """Pad the last `len(pad) // 2` axes of `input` (`torch.nn.functional.pad`).

    Args:
        input: A tensor, array or node.
        pad: `(left, right)` for the last axis, then the one before, ...; negative crops.
        mode: `"constant"`, `"reflect"`, `"replicate"` or `"circular"`.
        value: The constant of `"constant"` padding (0 when None).

    Returns:
        The padded input.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.pad(np.array([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
        array([[3., 2., 1., 2., 3., 2.]])
    """
    pads = [int(p) for p in pad]
    shape = shape_of(input)
    if len(pads) % 2 or len(pads) // 2 > len(shape):
        raise OpError(
            f"funcgrad.nn.functional.pad: Padding length must be divisible by 2 and at most "
            f"twice the number of dimensions of the input, got pad={tuple(pads)} for input of "
            f"size {list(shape)}"
        )
    k = len(pads) // 2
    pairs = [(pads[2 * i], pads[2 * i + 1]) for i in range(k)][::-1]  # first padded axis first
    axes = list(range(len(shape) - k, len(shape)))
    if mode == "constant":
        x = input
        # negative padding crops first
        if any(lo < 0 or hi < 0 for lo, hi in pairs):
            index = [slice(None)] * len(shape)
            for a, (lo, hi) in zip(axes, pairs, strict=True):
                index[a] = slice(max(-lo, 0), shape[a] - max(-hi, 0))
            x = getitem(x, index=normalize_index(tuple(index)))
            pairs = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
        width = [(0, 0)] * (len(shape) - k) + pairs
        return _pad_op(x, pad_width=tuple(width), constant_values=0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise OpError(
            f"funcgrad.nn.functional.pad: Unrecognised padding mode {mode}; use 'constant', "
            f"'reflect', 'replicate' or 'circular'"
        )
    if value is not None and value != 0:
        raise OpError(
            f'funcgrad.nn.functional.pad: Padding mode "{mode}" doesn\'t take in value argument.'
        )
    if not len(shape) - 2 <= k <= len(shape) - 1 and not (len(shape) >= 2 and k <= 3):
        raise OpError(
            f"funcgrad.nn.functional.pad: Only 2D, 3D, 4D, 5D padding with non-constant "
            f"padding are supported for now (input of size {list(shape)}, pad={tuple(pads)})"
        )
    x = input
    for a, (lo, hi) in zip(axes, pairs, strict=True):
        n = shape[a]
        pos = np.arange(-lo, n + hi)
        if mode == "reflect":
            if lo >= n or hi >= n:
                raise OpError(
                    f"funcgrad.nn.functional.pad: Argument #4: Padding size should be less than "
                    f"the corresponding input dimension, but got: padding ({lo}, {hi}) at "
                    f"dimension {a} of input {list(shape)}"
                )
            period = 2 * (n - 1) if n > 1 else 1
            m = np.mod(pos, period)
            idx = np.where(m < n, m, period - m)
        elif mode == "replicate":
            idx = np.clip(pos, 0, n - 1)
        else:
            if lo > n or hi > n:
                raise OpError(
                    "funcgrad.nn.functional.pad: Padding value causes wrapping around more "
                    "than once."
                )
            idx = np.mod(pos, n)
        x = _take(x, a, idx.astype(np.int64))
    return x


def _out_sizes(op: str, sizes, size, scale_factor) -> tuple[list[int], list[float | None]]:
    nd = len(sizes)
    if (size is None) == (scale_factor is None):
        raise OpError(
            f"funcgrad.nn.functional.{op}: only one of size or scale_factor should be defined"
        )
    if size is not None:
        out = [int(size)] * nd if isinstance(size, int) else [int(s) for s in size]
        if len(out) != nd:
            raise OpError(
                f"funcgrad.nn.functional.{op}: Input and output must have the same number of "
                f"spatial dimensions, but got input with spatial dimensions of {list(sizes)} "
                f"and output size of {out}."
            )
        return out, [None] * nd
    scales = (
        [float(scale_factor)] * nd
        if isinstance(scale_factor, (int, float))
        else [float(s) for s in scale_factor]
    )
    if len(scales) != nd:
        raise OpError(
            f"funcgrad.nn.functional.{op}: Input and scale_factor must have the same number of "
            f"spatial dimensions, but got input with spatial dimensions of {list(sizes)} and "
            f"scale_factor of shape {scales}."
        )
    return [int(math.floor(n * s)) for n, s in zip(sizes, scales, strict=True)], list(scales)


_UPSAMPLE = {
    "nearest": "UpsampleNearest",
    "nearest-exact": "UpsampleNearestExact",
    "linear": "UpsampleLinear",
    "bilinear": "UpsampleBilinear",
    "trilinear": "UpsampleTrilinear",
    "bicubic": "UpsampleBicubic",
    "area": "AdaptiveAvgPool",
}


def _interpolate_grad_fn(input, size=None, scale_factor=None, mode="nearest", *args, **kwargs):  # noqa: A002
    kind = _UPSAMPLE.get(mode)
    return None if kind is None else f"{kind}{len(shape_of(input)) - 2}DBackward0"


def _cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    # PyTorch's upsample_bicubic2d: Keys' cubic convolution with A = -0.75, taps -1 .. 2
    a = -0.75

    def near(x: np.ndarray) -> np.ndarray:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: np.ndarray) -> np.ndarray:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@takes_tensors(grad_fn=_interpolate_grad_fn)
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):  # fmt: skip
    """Resize the spatial axes of `input` (`torch.nn.functional.interpolate`).

    Args:
        input: `(N, C, *spatial)` with 1 to 3 spatial axes.
        size: The output's spatial size (an int or a sequence), or None.
        scale_factor: A multiplier per spatial axis (or one for all), or None.
        mode: `"nearest"`, `"nearest-exact"`, `"linear"` (1-d), `"bilinear"` (2-d),
            `"bicubic"` (2-d), `"trilinear"` (3-d) or `"area"`.
        align_corners: For the linear modes: map the corner pixels' centres onto
            each other (True) or the corners' edges (False, the default).
        recompute_scale_factor: Compute the source coordinates from the sizes
            rather than from `scale_factor`.
        antialias: Not supported (must be False): funcgrad has no anti-aliased
            resampling filter.

    Returns:
        The resized input.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.interpolate(np.array([[[1.0, 2.0]]]), scale_factor=2, mode="linear")
        array([[[1.  , 1.25, 1.75, 2.  ]]])
    """
    shape = shape_of(input)
    nd = len(shape) - 2
    if nd < 1 or nd > 3:
        raise OpError(
            f"funcgrad.nn.functional.interpolate: Input Error: Only 3D, 4D and 5D input "
            f"Tensors supported (got {len(shape)}D) for the modes: nearest | linear | bilinear "
            f"| bicubic | trilinear | area | nearest-exact (got {mode})"
        )
    if antialias:
        raise OpError(
            "funcgrad.nn.functional.interpolate: antialias=True is not supported (funcgrad "
            "has no anti-aliased resampling filter); resize with antialias=False"
        )
    linear = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
    if mode in linear and linear[mode] != nd:
        raise OpError(
            f"funcgrad.nn.functional.interpolate: Got {len(shape)}D input, but {mode} mode "
            f"needs {linear[mode] + 2}D input"
        )
    if mode not in linear and align_corners is not None:
        raise OpError(
            "funcgrad.nn.functional.interpolate: align_corners option can only be set with the "
            "interpolating modes: linear | bilinear | bicubic | trilinear"
        )
    sizes = shape[2:]
    out, scales = _out_sizes("interpolate", sizes, size, scale_factor)
    if recompute_scale_factor:
        scales = [None] * nd
    if mode == "area":
        if nd == 1:
            return adaptive_avg_pool1d(input, out[0])
        if nd == 2:
            return adaptive_avg_pool2d(input, out)
        raise OpError("funcgrad.nn.functional.interpolate: mode 'area' supports 3D and 4D input")
    x = input
    for i, (n, m, s) in enumerate(zip(sizes, out, scales, strict=True)):
        axis = 2 + i
        dst = np.arange(m, dtype=np.float64)
        if mode in ("nearest", "nearest-exact"):
            scale = (1.0 / s) if s else n / m
            src = (dst + 0.5) * scale if mode == "nearest-exact" else dst * scale
            idx = np.minimum(np.floor(src).astype(np.int64), n - 1)
            x = _take(x, axis, idx)
            continue
        if mode not in linear:
            raise OpError(
                f"funcgrad.nn.functional.interpolate: mode {mode!r} is not supported; use "
                f"nearest, nearest-exact, linear, bilinear, bicubic, trilinear or area"
            )
        if align_corners:
            src = dst * ((n - 1) / (m - 1)) if m > 1 else np.zeros(m)
        else:
            scale = (1.0 / s) if s else n / m
            src = (dst + 0.5) * scale - 0.5
            if mode != "bicubic":  # PyTorch clamps the linear modes' source at 0
                src = np.maximum(src, 0.0)
        i0 = np.floor(src).astype(np.int64)
        lam = src - i0
        if mode == "bicubic":
            taps = [
                (np.clip(i0 + k, 0, n - 1), w)
                for k, w in zip(range(-1, 3), _cubic_weights(lam), strict=True)
            ]
        else:
            i0 = np.minimum(i0, n - 1)
            taps = [(i0, 1.0 - lam), (np.minimum(i0 + 1, n - 1), lam)]
        dtype = value(x).dtype
        wshape = [1] * len(shape)
        wshape[axis] = m
        xp = xp_of(value(x))
        mixed = None
        for idx, w in taps:
            term = multiply(_take(x, axis, idx), xp.asarray(w.reshape(wshape).astype(dtype)))
            mixed = term if mixed is None else add(mixed, term)
        x = mixed
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """Resize `input` (the deprecated `torch.nn.functional.upsample`): `interpolate`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.upsample(np.array([[[1.0, 2.0]]]), scale_factor=2)
        array([[[1., 1., 2., 2.]]])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


@takes_tensors(grad_fn="PixelShuffleBackward0")
def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """Rearrange `(*, C r^2, H, W)` into `(*, C, H r, W r)` (`torch.nn.functional.pixel_shuffle`).

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.pixel_shuffle(np.arange(4.0).reshape(1, 4, 1, 1), 2)
        array([[[[0., 1.],
                 [2., 3.]]]])
    """
    shape = shape_of(input)
    r = int(upscale_factor)
    if len(shape) < 3 or shape[-3] % (r * r):
        raise OpError(
            f"funcgrad.nn.functional.pixel_shuffle: pixel_shuffle expects its input's "
            f"'channel' dimension to be divisible by the square of upscale_factor, but input."
            f"size(-3)={shape[-3] if len(shape) >= 3 else None} is not divisible by {r * r}"
        )
    *lead, c, h, w = shape
    k = len(lead)
    x = reshape(input, shape=(*lead, c // (r * r), r, r, h, w))
    x = transpose(x, axes=(*range(k), k, k + 3, k + 1, k + 4, k + 2))
    return reshape(x, shape=(*lead, c // (r * r), h * r, w * r))


@takes_tensors(grad_fn="PixelUnshuffleBackward0")
def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """Rearrange `(*, C, H r, W r)` into `(*, C r^2, H, W)` (`torch.nn.functional.pixel_unshuffle`).

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.pixel_unshuffle(np.arange(4.0).reshape(1, 1, 2, 2), 2).ravel()
        array([0., 1., 2., 3.])
    """
    shape = shape_of(input)
    r = int(downscale_factor)
    if len(shape) < 3 or shape[-1] % r or shape[-2] % r:
        raise OpError(
            f"funcgrad.nn.functional.pixel_unshuffle: pixel_unshuffle expects height and width "
            f"to be divisible by downscale_factor ({r}), got input of size {list(shape)}"
        )
    *lead, c, hr, wr = shape
    k = len(lead)
    h, w = hr // r, wr // r
    x = reshape(input, shape=(*lead, c, h, r, w, r))
    x = transpose(x, axes=(*range(k), k, k + 2, k + 4, k + 1, k + 3))
    return reshape(x, shape=(*lead, c * r * r, h, w))
