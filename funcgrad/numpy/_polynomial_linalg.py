"""Polynomial functions of `funcgrad.numpy` built on linear algebra: `vander`, `polyfit`, `roots`.

`vander` is built by products (so its gradient is exact at 0), `polyfit`
follows NumPy's algorithm (a scaled Vandermonde matrix and `lstsq`, so it is
differentiable in `x`, `y` and `w`), and `roots` is a primitive whose
gradient comes from the implicit function theorem: `p(r) = 0` gives
`dr = -(sum_k dp_k r^(N-k)) / p'(r)` for a simple root. (`polyval`,
`polyadd` and the other coefficient arithmetic are in `_polynomial.py`.)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as _np

from funcgrad.backend import as_value as _as_value
from funcgrad.errors import OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy import linalg as _nla
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _la
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import shape_of as _shape_of
from funcgrad.ops._util import value_of as _value_of

__all__ = ["polyfit", "roots", "vander"]


def _arr(x: Any) -> Any:
    return x if type(x) is _Node else _as_value(x)


def vander(x: Any, N: Any = None, increasing: bool = False) -> Any:  # noqa: N803  (NumPy's name)
    """Return the Vandermonde matrix of `x`, as `numpy.vander`, differentiable in `x`.

    The columns are powers of `x`: `x^(N-1), ..., x, 1` (or increasing),
    built by repeated multiplication (exact gradients at 0). As NumPy, the
    result has the type of `x` promoted with an integer (float32 gives
    float64); the gradient comes back in the dtype of `x`.

    Args:
        x: A 1-D array or graph node.
        N: The number of columns (default: `len(x)`).
        increasing: Powers from 0 up instead of down to 0.

    Returns:
        An array of shape `(len(x), N)`, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.vander([1.0, 2.0, 3.0], 3)
        array([[1., 1., 1.],
               [4., 2., 1.],
               [9., 3., 1.]])
    """
    x = _arr(x)
    if len(_shape_of(x)) != 1:
        raise OpError(f"funcgrad.numpy.vander: x must be 1-D, got shape {tuple(_shape_of(x))}")
    n = _shape_of(x)[0] if N is None else int(N)
    if n < 0:
        raise OpError(f"funcgrad.numpy.vander: N={N!r} must be non-negative")
    value = _value_of(x)
    dtype = _np.promote_types(_np.result_type(value), _np.int64)  # NumPy's: float32 -> float64
    if dtype != _np.result_type(value):
        x = _ew.astype(x, dtype=dtype)
    ones = _np.ones(_shape_of(x), dtype=dtype)
    cols: list[Any] = [ones]
    for _ in range(n - 1):
        cols.append(_ew.multiply(cols[-1], x) if len(cols) > 1 else x)
    cols = cols[:n]
    if not increasing:
        cols.reverse()
    if not cols:
        return _np.empty((_shape_of(x)[0], 0), dtype=dtype)
    if len(cols) == 1 and type(cols[0]) is not _Node:
        return _np.reshape(cols[0], (-1, 1)).copy()
    return _sh.stack(*cols, axis=1)


def polyfit(
    x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None, cov: Any = False
) -> Any:
    """Return the least-squares polynomial fit of degree `deg`, as `numpy.polyfit`, differentiable.

    NumPy's algorithm: the Vandermonde matrix of `x` (times `w`), its
    columns scaled to unit norm, `lstsq`, and the scale undone. The
    coefficients are differentiable in `x`, `y` and `w` (where the rank does
    not change); with `full=True` the residuals and singular values are
    differentiable too and the rank is an integer; with `cov` the covariance
    matrix is differentiable.

    Args:
        x: A 1-D array or graph node of sample points.
        y: An array or graph node of shape `(M,)` or `(M, K)`.
        deg: The degree of the fitted polynomial.
        rcond: The relative cutoff of small singular values (default
            `len(x) * eps`).
        full: Also return `(residuals, rank, singular_values, rcond)`.
        w: Weights of the sample points, or None.
        cov: Also return the covariance matrix (`"unscaled"`: not scaled by
            the residuals).

    Returns:
        The coefficients (highest power first), of shape `(deg + 1,)` or
        `(deg + 1, K)`; or NumPy's tuples for `full` or `cov`.

    Raises:
        funcgrad.errors.OpError: For a negative degree or mismatched shapes.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polyfit([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], 1)
        array([2., 1.])
    """
    order = int(deg) + 1
    x, y = _arr(x), _arr(y)
    if deg < 0:
        raise OpError(f"funcgrad.numpy.polyfit: deg={deg!r} must be non-negative")
    sx, sy = tuple(_shape_of(x)), tuple(_shape_of(y))
    if len(sx) != 1 or sx[0] == 0 or len(sy) not in (1, 2) or sy[0] != sx[0]:
        raise OpError(
            f"funcgrad.numpy.polyfit: needs a non-empty 1-D x and y of shape (len(x),) or "
            f"(len(x), K), got {sx} and {sy}"
        )
    dtype = _np.result_type(_value_of(x), 0.0)
    if _np.result_type(_value_of(x)).kind != "f":
        x = _np.asarray(_value_of(x), dtype=dtype)
    if _np.result_type(_value_of(y)).kind != "f":
        y = _np.asarray(_value_of(y), dtype=_np.result_type(_value_of(y), 0.0))
    if rcond is None:
        rcond = sx[0] * float(_np.finfo(dtype).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _arr(w)
        if tuple(_shape_of(w)) != sx:
            raise OpError(
                f"funcgrad.numpy.polyfit: w must have the shape of x, {sx}, got "
                f"{tuple(_shape_of(w))}"
            )
        lhs = _ew.multiply(lhs, _sh.reshape(w, shape=(-1, 1)))
        rhs = _ew.multiply(rhs, _sh.reshape(w, shape=(-1, 1)) if len(sy) == 2 else w)
    scale = _ew.sqrt(_reduce.sum_(_ew.multiply(lhs, lhs), axis=(0,), keepdims=False))
    lhs = _ew.divide(lhs, scale)
    c, resids, rank, s = _nla.lstsq(lhs, rhs, rcond)
    c = _ew.divide(c, _sh.reshape(scale, shape=(-1, 1)) if len(sy) == 2 else scale)
    if int(rank) != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    base = _la.inv(_la.matmul(_la._mT(lhs), lhs))
    base = _ew.divide(
        base, _ew.multiply(_sh.reshape(scale, shape=(-1, 1)), _sh.reshape(scale, shape=(1, -1)))
    )
    if cov == "unscaled":
        fac: Any = 1.0
    else:
        if sx[0] <= order:
            raise OpError(
                "funcgrad.numpy.polyfit: the number of data points must exceed order to scale "
                "the covariance matrix"
            )
        fac = _ew.divide(resids, float(sx[0] - order))
    if len(sy) == 1:
        return c, _ew.multiply(base, fac)
    return c, _ew.multiply(_sh.reshape(base, shape=(order, order, 1)), fac)


def roots(p: Any) -> Any:
    """Return the roots of the polynomial with coefficients `p` (highest power first), as `numpy.roots`.

    The roots are differentiable in `p`, real or complex (the eigenvalues of
    the companion matrix, as NumPy computes them): for a simple root,
    `dr = -(sum_k dp_k r^(N-k)) / p'(r)` (the implicit function theorem,
    holomorphic in `p`); a repeated root has an infinite derivative
    (non-finite gradients). Where some roots are complex the result is
    complex, as in NumPy.

    Args:
        p: A 1-D array or graph node of coefficients.

    Returns:
        An array of the roots (in NumPy's order), or a node if `p` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.roots([1.0, -3.0, 2.0])
        array([2., 1.])
    """
    return _la.roots(_arr(p))
