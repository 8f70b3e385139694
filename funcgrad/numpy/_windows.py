"""NumPy's window functions (`bartlett`, `blackman`, `hamming`, `hanning`, `kaiser`) and `i0`.

A window of an integer size `M` is a constant array: nothing to
differentiate, so the first four are NumPy's own functions. `kaiser` also
takes a shape parameter `beta`, and its window depends smoothly on it: with
a graph node `beta` it is `i0(beta * sqrt(1 - t**2)) / i0(beta)` written
with funcgrad's `i0` (which needs SciPy), differentiable in `beta`.
`i0`, the modified Bessel function the Kaiser window is built of, is
NumPy's on plain values and the `i0` primitive (SciPy's forward) on nodes.
"""

from __future__ import annotations

from typing import Any

import numpy as _np
from numpy import bartlett, blackman, hamming, hanning

from funcgrad.graph import Node as _Node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _special

__all__ = ["bartlett", "blackman", "hamming", "hanning", "i0", "kaiser"]


def i0(x: Any):
    """Return the modified Bessel function of the first kind of order 0 (NumPy's `i0`).

    Differentiable (its derivative is `i1`) for a graph node, which needs
    SciPy (funcgrad's `i0` primitive computes with `scipy.special.i0`).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.i0([0.0])
        array([1.])
        >>> fg.grad(fnp.i0)(0.0)
        0.0
    """
    if type(x) is not _Node:
        return _np.i0(x)
    return _special.i0(x)


def kaiser(M: int, beta: Any):
    """Return the Kaiser window of `M` points with shape parameter `beta` (NumPy's `kaiser`).

    Differentiable in `beta` when it is a graph node (the window has no
    gradient in the size `M`). The result is float64, as NumPy's.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.kaiser(3, 0.0)
        array([1., 1., 1.])
        >>> fg.grad(lambda b: fnp.sum(fnp.kaiser(3, b)))(0.0)
        0.0
    """
    if type(beta) is not _Node or M <= 1:
        return _np.kaiser(M, beta.value if type(beta) is _Node else beta)
    n = _np.arange(0, M)
    alpha = (M - 1) / 2.0
    t = _np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)
    beta64 = _ew.astype(beta, dtype=_np.dtype(_np.float64)) if beta.dtype != _np.float64 else beta
    return _ew.divide(_special.i0(_ew.multiply(beta64, t)), _special.i0(beta64))
