"""`funcgrad.numpy.fft`: NumPy's discrete Fourier transforms, differentiable.

Every transform is one of four primitives (`fftn`, `ifftn`, `rfftn`,
`irfftn` in `funcgrad.ops.fft`) applied after NumPy's `n`/`s` cropping or
zero-padding (done with `getitem` and `pad`, so it is differentiable too);
`hfft` and `ihfft` are `irfft` and `rfft` of the conjugate, as NumPy defines
them. Gradients of complex values follow the functional API's convention
(JAX's; see the complex numbers page of the docs): the VJP of a transform is
its transpose (`fft`'s is `fft`), and a real input's gradient is the real
part. `fftshift` and `ifftshift` are rolls (differentiable); `fftfreq` and
`rfftfreq` are NumPy's sample frequencies (value-only: they do not depend on
an array, and a node `d` divides them differentiably).

Examples:
    >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
    >>> fnp.fft.fft(np.array([1.0, 0.0, 0.0, 0.0]))
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    >>> fg.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.rfft(x)) ** 2))(np.array([1.0, 2.0]))
    array([4., 8.])
"""

from __future__ import annotations

import operator as _operator
from collections.abc import Sequence
from typing import Any

import numpy as _np

from funcgrad.graph import Node as _Node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import fft as _fft
from funcgrad.ops import shape as _sh
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import normalize_index as _normalize_index

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

_OPPOSITE = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# --- arguments, as NumPy reads them --------------------------------------------------


def _arr(a: Any) -> Any:
    """A node, an array or a tensor as it is; anything else (lists, numbers) as an array."""
    return a if type(a) is _Node or hasattr(a, "shape") else _np.asarray(a)


def _norm(norm: str | None, op: str) -> str:
    if norm is None:
        return "backward"
    if norm not in _OPPOSITE:
        raise ValueError(
            f'funcgrad.numpy.fft.{op}: invalid norm value {norm!r}; should be "backward", '
            f'"ortho" or "forward"'
        )
    return norm


def _no_out(out: Any, op: str) -> None:
    if out is not None:
        raise TypeError(
            f"funcgrad.numpy.fft.{op}: out= is not supported: the transform returns a new "
            f"array (or a node), which a graph can hold"
        )


def _ndim(a: Any) -> int:
    return len(a.shape)


def _axis(axis: Any, ndim: int, op: str) -> int:
    axis = _operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim, f"funcgrad.numpy.fft.{op}")
    return axis % ndim


def _cook(a: Any, s: Any, axes: Any, op: str, *, inverse_real: bool = False) -> tuple[Any, ...]:
    """NumPy's `_cook_nd_args`: the sizes `s` and the non-negative `axes` transformed."""
    ndim = _ndim(a)
    shapeless = s is None
    if axes is None:
        axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(ndim))
    axes = tuple(_axis(ax, ndim, op) for ax in axes)
    if shapeless:
        s = [a.shape[ax] for ax in axes]
        if inverse_real and s:
            s[-1] = (s[-1] - 1) * 2
    s = [_operator.index(n) for n in s]
    if len(s) != len(axes):
        raise ValueError(f"funcgrad.numpy.fft.{op}: shape and axes have different lengths")
    for n in s:
        if n < 1:
            raise ValueError(
                f"funcgrad.numpy.fft.{op}: invalid number of data points ({n}) specified"
            )
    return tuple(s), axes


def _fit(a: Any, axes: Sequence[int], sizes: Sequence[int]) -> Any:
    """`a` cropped or zero-padded at the end of each axis to its size (NumPy's n and s)."""
    ndim = _ndim(a)
    crop = [slice(None)] * ndim
    widths = [(0, 0)] * ndim
    cropped = padded = False
    for ax, n in zip(axes, sizes, strict=True):
        have = a.shape[ax]
        if n < have:
            crop[ax], cropped = slice(0, n), True
        elif n > have:
            widths[ax], padded = (0, n - have), True
    if cropped:
        a = _getitem(a, index=_normalize_index(tuple(crop)))
    if padded:
        a = _sh.pad(a, pad_width=tuple(widths), constant_values=0)
    return a


def _c2c(a: Any, s: Any, axes: Any, norm: Any, out: Any, op: str, inverse: bool) -> Any:
    _no_out(out, op)
    a = _arr(a)
    s, axes = _cook(a, s, axes, op)
    prim = _fft.ifftn if inverse else _fft.fftn
    return prim(_fit(a, axes, s), axes=axes, norm=_norm(norm, op))


def _r2c(a: Any, s: Any, axes: Any, norm: Any, out: Any, op: str) -> Any:
    _no_out(out, op)
    a = _arr(a)
    s, axes = _cook(a, s, axes, op)
    return _fft.rfftn(_fit(a, axes, s), axes=axes, norm=_norm(norm, op))


def _c2r(a: Any, s: Any, axes: Any, norm: Any, out: Any, op: str) -> Any:
    _no_out(out, op)
    a = _arr(a)
    s, axes = _cook(a, s, axes, op, inverse_real=True)
    n = s[-1]
    sizes = (*s[:-1], n // 2 + 1)  # the input half-spectrum NumPy reads along the last axis
    return _fft.irfftn(_fit(a, axes, sizes), axes=axes, n=n, norm=_norm(norm, op))


def _one(n: Any, axis: Any) -> tuple[Any, tuple[Any]]:
    return (None if n is None else (n,)), (axis,)


# --- complex transforms --------------------------------------------------------------


def fft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """Return the one-dimensional discrete Fourier transform of `a` along `axis`.

    Args:
        a: The input (real or complex; a node or a tensor is differentiated).
        n: Length of the transformed axis: `a` is cropped or zero-padded to it.
        axis: The axis transformed.
        norm: "backward" (default), "ortho" or "forward", as NumPy's.
        out: Not supported (must be None).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.fft([1.0, 1.0])
        array([2.+0.j, 0.+0.j])
    """
    s, axes = _one(n, axis)
    return _c2c(a, s, axes, norm, out, "fft", inverse=False)


def ifft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """Return the one-dimensional inverse discrete Fourier transform of `a` along `axis`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.ifft([2.0, 0.0])
        array([1.+0.j, 1.+0.j])
    """
    s, axes = _one(n, axis)
    return _c2c(a, s, axes, norm, out, "ifft", inverse=True)


def fftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None) -> Any:
    """Return the N-dimensional discrete Fourier transform of `a` over `axes` (sizes `s`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.fftn([[1.0, 0.0], [0.0, 0.0]])
        array([[1.+0.j, 1.+0.j],
               [1.+0.j, 1.+0.j]])
    """
    return _c2c(a, s, axes, norm, out, "fftn", inverse=False)


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None) -> Any:
    """Return the N-dimensional inverse discrete Fourier transform of `a` over `axes`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.ifftn([[4.0, 0.0], [0.0, 0.0]])
        array([[1.+0.j, 1.+0.j],
               [1.+0.j, 1.+0.j]])
    """
    return _c2c(a, s, axes, norm, out, "ifftn", inverse=True)


def fft2(
    a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None
) -> Any:
    """Return the two-dimensional discrete Fourier transform of `a` over `axes`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.fft2([[1.0, 1.0], [1.0, 1.0]]).real
        array([[4., 0.],
               [0., 0.]])
    """
    return _c2c(a, s, axes, norm, out, "fft2", inverse=False)


def ifft2(
    a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None
) -> Any:
    """Return the two-dimensional inverse discrete Fourier transform of `a` over `axes`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.ifft2([[4.0, 0.0], [0.0, 0.0]]).real
        array([[1., 1.],
               [1., 1.]])
    """
    return _c2c(a, s, axes, norm, out, "ifft2", inverse=True)


# --- real input, Hermitian output ----------------------------------------------------


def rfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """Return the discrete Fourier transform of real `a` along `axis`: `n // 2 + 1` entries.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.rfft([1.0, 2.0, 3.0, 4.0])
        array([10.+0.j, -2.+2.j, -2.+0.j])
    """
    s, axes = _one(n, axis)
    return _r2c(a, s, axes, norm, out, "rfft")


def irfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """Return the inverse of `rfft`: a real array of length `n` (default `2 * (m - 1)`) along `axis`.

    The gradient folds the Hermitian spectrum: each entry but the first (and,
    for even `n`, the last) stands for two of the full spectrum.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.irfft([10.0, -2.0 + 2.0j, -2.0])
        array([1., 2., 3., 4.])
    """
    s, axes = _one(n, axis)
    return _c2r(a, s, axes, norm, out, "irfft")


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None) -> Any:
    """Return the N-dimensional discrete Fourier transform of real `a` (the last axis halved).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.rfftn([[1.0, 1.0], [1.0, 1.0]]).real
        array([[4., 0.],
               [0., 0.]])
    """
    return _r2c(a, s, axes, norm, out, "rfftn")


def irfftn(
    a: Any, s: Any = None, axes: Any = None, norm: str | None = None, out: Any = None
) -> Any:
    """Return the inverse of `rfftn`: a real array with sizes `s` over `axes`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.irfftn([[4.0, 0.0], [0.0, 0.0]])
        array([[1., 1.],
               [1., 1.]])
    """
    return _c2r(a, s, axes, norm, out, "irfftn")


def rfft2(
    a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None
) -> Any:
    """Return the two-dimensional discrete Fourier transform of real `a` over `axes`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.rfft2([[1.0, 1.0], [1.0, 1.0]]).real
        array([[4., 0.],
               [0., 0.]])
    """
    return _r2c(a, s, axes, norm, out, "rfft2")


def irfft2(
    a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None, out: Any = None
) -> Any:
    """Return the inverse of `rfft2`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.irfft2([[4.0, 0.0], [0.0, 0.0]])
        array([[1., 1.],
               [1., 1.]])
    """
    return _c2r(a, s, axes, norm, out, "irfft2")


def hfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """Return the FFT of a signal with Hermitian symmetry, given its first half: a real array.

    As NumPy: `irfft(conj(a), n, axis)` with the opposite norm.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.hfft([1.0, 2.0, 3.0])
        array([ 8., -2.,  0., -2.])
    """
    norm = _OPPOSITE[_norm(norm, "hfft")]
    s, axes = _one(n, axis)
    return _c2r(_ew.conjugate(_arr(a)), s, axes, norm, out, "hfft")


def ihfft(
    a: Any, n: int | None = None, axis: int = -1, norm: str | None = None, out: Any = None
) -> Any:
    """Return the inverse of `hfft` for real `a`: `conj(rfft(a))` with the opposite norm.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.ihfft([8.0, -2.0, 0.0, -2.0])
        array([1.-0.j, 2.-0.j, 3.-0.j])
    """
    norm = _OPPOSITE[_norm(norm, "ihfft")]
    s, axes = _one(n, axis)
    return _ew.conjugate(_r2c(a, s, axes, norm, out, "ihfft"))


# --- shifts and frequencies ----------------------------------------------------------


def _shift(x: Any, axes: Any, sign: int, op: str) -> Any:
    x = _arr(x)
    ndim = _ndim(x)
    if axes is None:
        axes = tuple(range(ndim))
    elif isinstance(axes, (int, _np.integer)):
        axes = (axes,)
    axes = tuple(_axis(ax, ndim, op) for ax in axes)
    if not axes or all(x.shape[ax] <= 1 for ax in axes):
        return x
    positions = _np.arange(_np.prod(x.shape, dtype=int)).reshape(x.shape)
    positions = _np.roll(positions, [sign * (x.shape[ax] // 2) for ax in axes], axis=axes)
    return _getitem(_sh.reshape(x, shape=(-1,)), index=(positions,))


def fftshift(x: Any, axes: Any = None) -> Any:
    """Return `x` with the zero-frequency entry moved to the centre (a roll: differentiable).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.fftshift([0.0, 1.0, 2.0, -2.0, -1.0])
        array([-2., -1.,  0.,  1.,  2.])
    """
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x: Any, axes: Any = None) -> Any:
    """Return the inverse of `fftshift` (a roll: differentiable).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.ifftshift([-2.0, -1.0, 0.0, 1.0, 2.0])
        array([ 0.,  1.,  2., -2., -1.])
    """
    return _shift(x, axes, -1, "ifftshift")


def fftfreq(n: int, d: Any = 1.0, device: Any = None) -> Any:
    """Return NumPy's sample frequencies of an `n`-point DFT with sample spacing `d`.

    Value-only (no array input); a graph node `d` divides NumPy's frequencies
    for spacing 1, so the result is differentiable in `d`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.fftfreq(4, d=0.5)
        array([ 0. ,  0.5, -1. , -0.5])
    """
    if type(d) is _Node or hasattr(type(d), "__funcgrad_node__"):
        return _ew.divide(_np.fft.fftfreq(n, 1.0, device=device), d)
    return _np.fft.fftfreq(n, d, device=device)


def rfftfreq(n: int, d: Any = 1.0, device: Any = None) -> Any:
    """Return NumPy's sample frequencies of `rfft` (`n // 2 + 1` of them) with spacing `d`.

    Value-only, as `fftfreq` (a node `d` divides them differentiably).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fft.rfftfreq(4, d=0.5)
        array([0. , 0.5, 1. ])
    """
    if type(d) is _Node or hasattr(type(d), "__funcgrad_node__"):
        return _ew.divide(_np.fft.rfftfreq(n, 1.0, device=device), d)
    return _np.fft.rfftfreq(n, d, device=device)
