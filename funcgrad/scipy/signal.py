"""`funcgrad.scipy.signal`: SciPy's N-d convolution and correlation, differentiable in both inputs.

On plain arrays these call SciPy's own functions. With a graph node among
the inputs they are a composition (`funcgrad.numpy`'s direct convolution:
zero padding, sliding windows by `getitem`, and `matmul` with the kernel),
differentiable in both inputs to any order, whatever `method` says (`'fft'`
and `'direct'` give the same values up to rounding). Its cost is the direct
method's, `output size * kernel size`.

`convolve` also takes HIPS autograd's `axes` and `dot_axes` (its
generalisation to batches of images and kernels), as `autograd.scipy.signal`.
"""

from __future__ import annotations

from typing import Any

import numpy as _np
import scipy.signal as _signal

import funcgrad.numpy as _fnp
from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._statistics import _full_convolution
from funcgrad.ops import elementwise as _ew

# SciPy without its overloaded stubs, for calls that pass arguments through as they came.
_scipy_signal: Any = _signal

__all__ = ["convolve", "correlate", "fftconvolve"]

_MODES = ("full", "valid", "same")
_METHODS = ("auto", "direct", "fft")


def _arr(a: Any) -> Any:
    return a if type(a) is _Node or hasattr(a, "shape") else _np.asarray(a)


def _nd(name: str, in1: Any, in2: Any, mode: str, method: str, correlate: bool) -> Any:
    """The convolution (or correlation) of nodes or arrays `in1`, `in2`, as SciPy places it."""
    if mode not in _MODES:
        raise _OpError(f"funcgrad.scipy.signal.{name}: mode must be one of {_MODES}, got {mode!r}")
    if method not in _METHODS:
        raise _OpError(
            f"funcgrad.scipy.signal.{name}: method must be one of {_METHODS}, got {method!r}"
        )
    in1, in2 = _arr(in1), _arr(in2)
    s1, s2 = tuple(in1.shape), tuple(in2.shape)
    if len(s1) != len(s2):
        raise _OpError(
            f"funcgrad.scipy.signal.{name}: in1 and in2 should have the same dimensionality, "
            f"got shapes {s1} and {s2}"
        )
    if not s1:
        return _ew.multiply(in1, in2)
    if 0 in s1 or 0 in s2:
        raise _OpError(
            f"funcgrad.scipy.signal.{name}: empty inputs (shapes {s1} and {s2}) with graph nodes"
        )
    if mode == "valid":
        # fftconvolve leaves out the axes where an input has size 1 (they broadcast)
        pairs = [(a, b) for a, b in zip(s1, s2, strict=True)]
        if name == "fftconvolve":
            pairs = [(a, b) for a, b in pairs if a != 1 and b != 1]
        ok1 = all(a >= b for a, b in pairs)
        ok2 = all(b >= a for a, b in pairs)
        if not (ok1 or ok2):
            raise _OpError(
                f"funcgrad.scipy.signal.{name}: for 'valid' mode, one must be at least as large "
                f"as the other in every dimension, got shapes {s1} and {s2}"
            )
    starts, sizes = [], []
    for n, m in zip(s1, s2, strict=True):
        if mode == "full":
            starts.append(0)
            sizes.append(n + m - 1)
        elif mode == "same":  # centred on the full result, the size of in1
            starts.append((m - 1) // 2)
            sizes.append(n)
        else:
            starts.append(min(n, m) - 1)
            sizes.append(abs(n - m) + 1)
    return _full_convolution(in1, in2, tuple(starts), tuple(sizes), correlate=correlate)


def _tensor_convolve(a: Any, b: Any, axes: Any, dot_axes: Any, mode: str) -> Any:
    """autograd's `convolve(a, b, axes, dot_axes, mode)`: see `convolve`.

    A sum over the taps of the operand with fewer convolved entries: each
    tap's slice contracted with the other operand (`tensordot` over
    `dot_axes`) and padded into its place of the full convolution, which is
    then cut to `mode`. Differentiable in both inputs.
    """
    op = "funcgrad.scipy.signal.convolve"
    if mode not in _MODES:
        raise _OpError(f"{op}: mode must be one of {_MODES}, got {mode!r}")
    if axes is None:
        axes = (list(range(a.ndim)), list(range(b.ndim)))
    conv_a, conv_b = (list(map(int, x)) for x in axes)
    dot_a, dot_b = (list(map(int, x)) for x in dot_axes)
    if len(conv_a) != len(conv_b) or len(dot_a) != len(dot_b):
        raise _OpError(
            f"{op}: axes={axes!r} and dot_axes={dot_axes!r} must pair as many axes of in1 as of in2"
        )
    if [a.shape[i] for i in dot_a] != [b.shape[i] for i in dot_b]:
        raise _OpError(
            f"{op}: dot_axes={dot_axes!r} pair axes of different sizes "
            f"(in1 {tuple(a.shape)}, in2 {tuple(b.shape)})"
        )
    n_a = [a.shape[i] for i in conv_a]
    n_b = [b.shape[i] for i in conv_b]
    if mode == "valid" and not (
        all(x >= y for x, y in zip(n_a, n_b, strict=True))
        or all(y >= x for x, y in zip(n_a, n_b, strict=True))
    ):
        raise _OpError(
            f"{op}: for 'valid' mode, one must be at least as large as the other along every "
            f"convolved axis, got sizes {n_a} and {n_b}"
        )
    keep_a = [i for i in range(a.ndim) if i not in conv_a and i not in dot_a]
    keep_b = [i for i in range(b.ndim) if i not in conv_b and i not in dot_b]
    # Move each operand's axes to (kept, contracted, convolved).
    a = _fnp.transpose(a, keep_a + dot_a + conv_a)
    b = _fnp.transpose(b, keep_b + dot_b + conv_b)
    k, nd = len(conv_a), len(dot_a)
    swap = int(_np.prod(n_b)) > int(_np.prod(n_a))
    big, taps = (b, a) if swap else (a, b)
    n_taps = n_a if swap else n_b
    full = [x + y - 1 for x, y in zip(n_a, n_b, strict=True)]
    n_big_keep = big.ndim - nd - k
    out: Any = None
    for tap in _np.ndindex(*n_taps):
        piece = taps[(Ellipsis,) + tuple(tap)]  # (kept, contracted) of the tap operand
        dots = (
            list(range(n_big_keep, n_big_keep + nd)),
            list(range(piece.ndim - nd, piece.ndim)),
        )
        term = _fnp.tensordot(big, piece, axes=dots)  # (big kept, conv, tap kept)
        # term's axes: big's kept, the convolved ones, the tap operand's kept; in1's kept first.
        big_kept = list(range(n_big_keep))
        conv = list(range(n_big_keep, n_big_keep + k))
        tap_kept = list(range(n_big_keep + k, term.ndim))
        kept = tap_kept + big_kept if swap else big_kept + tap_kept
        term = _fnp.transpose(term, kept + conv)
        lead = term.ndim - k
        width = [(0, 0)] * lead + [
            (t, f - t - m) for t, f, m in zip(tap, full, term.shape[lead:], strict=True)
        ]
        term = _fnp.pad(term, width)
        out = term if out is None else out + term
    lead = out.ndim - k
    cut = []
    for x, y, f in zip(n_a, n_b, full, strict=True):
        if mode == "full":
            cut.append(slice(0, f))
        elif mode == "same":
            cut.append(slice((y - 1) // 2, (y - 1) // 2 + x))
        else:
            cut.append(slice(min(x, y) - 1, min(x, y) - 1 + abs(x - y) + 1))
    return out[(slice(None),) * lead + tuple(cut)]


def _has_node(*args: Any) -> bool:
    return any(type(a) is _Node for a in args)


def convolve(
    in1: Any,
    in2: Any,
    mode: str = "full",
    method: str = "auto",
    *,
    axes: Any = None,
    dot_axes: Any = ((), ()),
):
    """Return the N-d convolution of `in1` and `in2` (`scipy.signal.convolve`; autograd's `axes`).

    With `axes` or `dot_axes` it is HIPS autograd's generalisation
    (`autograd.scipy.signal.convolve`, used by its convnet example):
    `axes=(axes1, axes2)` pairs the axes of `in1` and `in2` to convolve
    along, `dot_axes=(dots1, dots2)` pairs axes to contract (sum over, as
    `tensordot`), and every other axis is kept; the result's axes are
    `in1`'s kept axes, then `in2`'s, then the convolved ones. A
    convolution layer is `convolve(images, kernels, axes=([2, 3], [2, 3]),
    dot_axes=([1], [0]), mode="valid")`.

    Args:
        in1: An array or a graph node.
        in2: An array or a graph node with as many axes as `in1`.
        mode: `'full'` (every overlap), `'valid'` (complete overlaps only:
            one input must be at least as large as the other in every axis)
            or `'same'` (the size of `in1`, centred on `'full'`).
        method: `'auto'`, `'direct'` or `'fft'`: SciPy's choice on arrays;
            with nodes the direct composition, whatever it says.

    Returns:
        An array, or a node if an input is a node (differentiable in both).

    Examples:
        >>> import funcgrad.scipy.signal as fss
        >>> fss.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
        array([0. , 1. , 2.5, 4. , 1.5])
        >>> import numpy as np
        >>> images, kernels = np.ones((2, 3, 5, 5)), np.ones((3, 4, 2, 2))
        >>> fss.convolve(images, kernels, axes=([2, 3], [2, 3]), dot_axes=([1], [0]), mode="valid").shape
        (2, 4, 4, 4)
    """
    if axes is not None or tuple(map(tuple, dot_axes)) != ((), ()):
        return _tensor_convolve(_arr(in1), _arr(in2), axes, dot_axes, mode)
    if not _has_node(in1, in2):
        return _scipy_signal.convolve(in1, in2, mode=mode, method=method)
    return _nd("convolve", in1, in2, mode, method, correlate=False)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto"):
    """Return the N-d cross-correlation of `in1` and `in2` (`scipy.signal.correlate`, real values).

    `convolve(in1, in2 flipped along every axis, mode)`, as SciPy places it;
    differentiable in both inputs.

    Examples:
        >>> import funcgrad.scipy.signal as fss
        >>> fss.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
        array([0.5, 2. , 3.5, 3. , 0. ])
    """
    if not _has_node(in1, in2):
        return _scipy_signal.correlate(in1, in2, mode=mode, method=method)
    return _nd("correlate", in1, in2, mode, method, correlate=True)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None):
    """Return the N-d convolution of `in1` and `in2` (`scipy.signal.fftconvolve`).

    With graph nodes this is `convolve` (the direct composition, same values
    up to rounding), and `axes` must be None (every axis).

    Examples:
        >>> import funcgrad.scipy.signal as fss
        >>> import numpy as np
        >>> np.allclose(fss.fftconvolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]), [0.0, 1.0, 2.5, 4.0, 1.5])
        True
    """
    if not _has_node(in1, in2):
        return _scipy_signal.fftconvolve(in1, in2, mode=mode, axes=axes)
    if axes is not None:
        raise _OpError(
            "funcgrad.scipy.signal.fftconvolve: axes= is not supported with graph nodes; "
            "convolve along every axis (axes=None)"
        )
    return _nd("fftconvolve", in1, in2, mode, "fft", correlate=False)
