"""`funcgrad.scipy.signal`: SciPy's N-d convolution and correlation, differentiable in both inputs.

On plain arrays these call SciPy's own functions. With a graph node among
the inputs they are a composition (`funcgrad.numpy`'s direct convolution:
zero padding, sliding windows by `getitem`, and `matmul` with the kernel),
differentiable in both inputs to any order, whatever `method` says (`'fft'`
and `'direct'` give the same values up to rounding). Its cost is the direct
method's, `output size * kernel size`.
"""

from __future__ import annotations

from typing import Any

import numpy as _np
import scipy.signal as _signal

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


def _has_node(*args: Any) -> bool:
    return any(type(a) is _Node for a in args)


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto"):
    """Return the N-d convolution of `in1` and `in2` (`scipy.signal.convolve`).

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
    """
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
