"""Discrete Fourier transforms: `fftn`, `ifftn`, `rfftn`, `irfftn` over chosen axes.

Each primitive transforms exactly the axes it is given, at the sizes its
input has (`funcgrad.numpy.fft` crops or zero-pads to NumPy's `n`/`s` first,
with `getitem` and `pad`, and builds the 1-D, 2-D and Hermitian forms from
these four). The rules follow the functional API's complex convention
(JAX's, docs/concepts/complex.md): a VJP is the *transpose* of the linear
map, not its conjugate transpose.

* `fftn`, `ifftn`: the DFT matrix is symmetric, so each is its own
  transpose: the VJP applies the same transform (same norm) to the
  cotangent.
* `rfftn`: the first `n // 2 + 1` outputs of `fftn` of a real input along
  the last axis; its transpose zero-pads the cotangent back to `n` and
  applies `fftn`; the engine takes the real part for the real input.
* `irfftn`: real-linear (not complex-linear) in its input, which stands for
  a Hermitian spectrum: entry `k` appears twice (as itself and conjugated)
  except `k = 0` and, for even `n`, `k = n / 2`. Its transpose is
  `conj(rfftn(ct))` with the opposite norm, times those multiplicities
  (the Hermitian-fold weights 1, 2, ..., 2, 1).

All four are linear in their input, so their JVP applies the primitive to
the tangent (`LINEAR`).
"""

from __future__ import annotations

from typing import Any

import numpy

from funcgrad.backend import constant_like
from funcgrad.graph.node import Array
from funcgrad.ops._util import normalize_axis, shape_of, value_of
from funcgrad.ops.elementwise import conjugate, multiply
from funcgrad.ops.registry import LINEAR, Draw, Drawn, Primitive, Sample, register
from funcgrad.ops.shape import pad

NORMS = ("backward", "ortho", "forward")
# The norm of the transpose of an inverse transform written as a forward one (and back).
_OPPOSITE = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _axes_sample(g: Draw, ndim: int) -> tuple[int, ...]:
    """A non-empty tuple of distinct axes of `ndim` dimensions, in random order, some negative."""
    k = g.integers(1, ndim)
    order = g.permutation(ndim)[:k]
    return tuple(a - ndim if g.boolean() else a for a in order)


def _c2c_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=1, max_dims=3, max_side=4)
    return (g.array(shape, -2.0, 2.0),), {
        "axes": _axes_sample(g, len(shape)),
        "norm": g.choice(NORMS),
    }


def _real_sample(g: Draw) -> Drawn:
    (x,), params = _c2c_sample(g)
    return (x.real if x.dtype.kind == "c" else x,), params  # rfftn takes real inputs only


def _irfft_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=1, max_dims=3, max_side=4)
    axes = _axes_sample(g, len(shape))
    last = axes[-1] % len(shape)
    n = g.integers(1, 7)  # the output length along the last axis: even or odd
    shape = tuple(n // 2 + 1 if i == last else side for i, side in enumerate(shape))
    return (g.array(shape, -2.0, 2.0),), {"axes": axes, "n": n, "norm": g.choice(NORMS)}


fftn: Primitive = register(
    Primitive(
        name="fftn",
        forward=lambda xp, x, *, axes, norm: xp.fft.fftn(x, axes=axes, norm=norm),
        # the DFT matrix is symmetric: its transpose is itself
        vjp=(lambda ct, out, x, *, axes, norm: fftn(ct, axes=axes, norm=norm),),
        jvp=LINEAR,
        params=("axes", "norm"),
        sample=Sample(_c2c_sample, complex=True),
        doc="discrete Fourier transform over axes (its VJP is itself: the DFT is symmetric)",
    )
)

ifftn: Primitive = register(
    Primitive(
        name="ifftn",
        forward=lambda xp, x, *, axes, norm: xp.fft.ifftn(x, axes=axes, norm=norm),
        vjp=(lambda ct, out, x, *, axes, norm: ifftn(ct, axes=axes, norm=norm),),
        jvp=LINEAR,
        params=("axes", "norm"),
        sample=Sample(_c2c_sample, complex=True),
        doc="inverse discrete Fourier transform over axes (its VJP is itself)",
    )
)


def _rfftn_vjp(ct: Array, out: Array, x: Array, *, axes: Any, norm: str) -> Array:
    # the transpose of "fftn, then keep n // 2 + 1 entries of the last axis":
    # zero-pad the cotangent back to n, then fftn (symmetric); the engine takes Re for x
    ndim = len(shape_of(x))
    last = normalize_axis(axes[-1], ndim, "rfftn")[0]
    n = shape_of(x)[last]
    m = shape_of(ct)[last]
    widths = tuple((0, n - m) if i == last else (0, 0) for i in range(ndim))
    return fftn(pad(ct, pad_width=widths, constant_values=0.0), axes=axes, norm=norm)


rfftn: Primitive = register(
    Primitive(
        name="rfftn",
        forward=lambda xp, x, *, axes, norm: xp.fft.rfftn(x, axes=axes, norm=norm),
        vjp=(_rfftn_vjp,),
        jvp=LINEAR,
        params=("axes", "norm"),
        sample=Sample(_real_sample, complex=True),
        doc="discrete Fourier transform of a real input over axes (the last: n // 2 + 1 entries)",
    )
)


def _hermitian_weights(n: int, m: int, last: int, ndim: int, like: Array) -> Array:
    """How often each of the `m` entries along the last axis appears in a length-`n` spectrum.

    A constant in the array module and dtype of `like` (the real output: float32 stays
    float32, and CuPy values get a CuPy constant).
    """
    w = numpy.full(m, 2.0)
    w[0] = 1.0
    if n % 2 == 0 and m > n // 2:
        w[n // 2] = 1.0  # the Nyquist entry appears once
    shape = tuple(m if i == last else 1 for i in range(ndim))
    return constant_like(w.reshape(shape), like, like.dtype)


def _irfftn_vjp(ct: Array, out: Array, x: Array, *, axes: Any, n: int, norm: str) -> Array:
    ndim = len(shape_of(x))
    last = normalize_axis(axes[-1], ndim, "irfftn")[0]
    m = shape_of(x)[last]
    spectrum = conjugate(rfftn(ct, axes=axes, norm=_OPPOSITE[norm]))
    return multiply(spectrum, _hermitian_weights(n, m, last, ndim, value_of(out)))


irfftn: Primitive = register(
    Primitive(
        name="irfftn",
        forward=lambda xp, x, *, axes, n, norm: _real_like(
            xp.fft.irfftn(x, s=_sizes(x, axes, n), axes=axes, norm=norm), x
        ),
        vjp=(_irfftn_vjp,),
        jvp=LINEAR,
        params=("axes", "n", "norm"),
        sample=Sample(_irfft_sample, complex=True),
        doc=(
            "inverse of rfftn: a real output of length n along the last axis (its VJP folds the "
            "Hermitian spectrum: weights 1, 2, ..., 2, 1)"
        ),
    )
)


def _real_like(out: Array, x: Array) -> Array:
    """`out` in the real dtype of `x` (NumPy's multi-axis `irfftn` turns float16 into float32)."""
    dtype = x.real.dtype
    return out.astype(dtype) if dtype.kind == "f" and out.dtype != dtype else out


def _sizes(x: Array, axes: Any, n: int) -> tuple[int, ...]:
    """The `s` of `numpy.fft.irfftn`: the input's sizes along `axes`, `n` for the last."""
    shape = numpy.shape(x)
    return tuple(shape[a] for a in axes[:-1]) + (n,)
