"""NumPy's polynomial functions (`poly`, `polyval`, `polyadd`, ...), differentiable.

Polynomials are 1-D arrays of coefficients, highest power first, as in
NumPy. On plain values every function is NumPy's own. With graph nodes
they are compositions of funcgrad's primitives, differentiable in the
coefficients, the points `x` (`polyval`), the roots (`poly`) and the
integration constants (`polyint`); their values, dtypes and errors are
NumPy's (computed on the values first). `poly1d` is NumPy's class with
plain coefficients; calling it on a node is `polyval`, differentiable in
the node. (`polyfit`, `roots` and `vander` are in `_polynomial_linalg.py`.)
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._shape import atleast_1d as _atleast_1d
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import index as _index
from funcgrad.ops import shape as _sh

__all__ = [
    "poly",
    "poly1d",
    "polyadd",
    "polyder",
    "polydiv",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
]


def _value(a: Any) -> Any:
    return a.value if type(a) is _Node else a


def _has_node(*args: Any) -> bool:
    return any(type(a) is _Node for a in args)


def _refuse_poly1d(name: str, *args: Any) -> None:
    if any(isinstance(a, _np.poly1d) for a in args):
        raise _OpError(
            f"funcgrad.numpy.{name}: a poly1d holds plain coefficients and cannot be combined "
            f"with graph nodes; pass its coefficients (p.coeffs) as an array"
        )


def _as(a: Any, dtype: Any) -> Any:
    """Return `a` in `dtype`: a differentiable cast for a node, an array otherwise."""
    if type(a) is not _Node:
        return _np.asarray(a, dtype=dtype)
    return a if a.dtype == dtype else _ew.astype(a, dtype=dtype)


def _front_padded(a: Any, n: int) -> Any:
    """Return `a` with `n` zero rows in front (along axis 0)."""
    if n == 0:
        return a
    widths = ((n, 0),) + ((0, 0),) * (len(a.shape) - 1)
    return _sh.pad(a, pad_width=widths, constant_values=0)


def _row(a: Any, i: Any) -> Any:
    return _index.getitem(a, index=(i,)) if type(a) is _Node else a[i]


def poly(seq_of_zeros: Any):
    """Return the coefficients of the monic polynomial with the given roots (NumPy's `poly`).

    With a graph node of roots the coefficients are differentiable in them
    (`(x - z)` multiplied in one root at a time). NumPy also takes a square
    matrix (the characteristic polynomial, from its eigenvalues): for a
    node, pass the eigenvalues.

    Raises:
        OpError: For a square matrix node.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.poly([1.0, 2.0])
        array([ 1., -3.,  2.])
        >>> fg.grad(lambda z: fnp.poly(z)[1])(fnp.array([1.0, 2.0]))
        array([-1., -1.])
    """
    if type(seq_of_zeros) is not _Node:
        return _np.poly(seq_of_zeros)
    ref = _np.poly(seq_of_zeros.value)  # NumPy's value, dtype and errors
    zeros = _atleast_1d(seq_of_zeros)
    if len(zeros.shape) != 1:
        raise _OpError(
            f"funcgrad.numpy.poly: a graph node of shape {tuple(seq_of_zeros.shape)} (NumPy "
            f"takes a square matrix's eigenvalues as roots): pass the roots as a 1-D node"
        )
    if zeros.shape[0] == 0:
        return ref
    a: Any = _np.ones((1,), dtype=ref.dtype)
    zeros = _as(zeros, ref.dtype)
    for k in range(zeros.shape[0]):
        z = _index.getitem(zeros, index=(k,))
        # (x - z) * a(x): the coefficients shifted up one power, less z times them
        a = _ew.subtract(_back_padded(a), _ew.multiply(z, _front_padded(a, 1)))
    return a


def _back_padded(a: Any) -> Any:
    return _sh.pad(a, pad_width=((0, 1),), constant_values=0)


def polyval(p: Any, x: Any):
    """Return the values of the polynomial `p` at `x` (NumPy's `polyval`), by Horner's rule.

    Differentiable in the coefficients `p` and the points `x`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.polyval([1.0, 0.0, -1.0], 3.0)
        np.float64(8.0)
        >>> fg.grad(lambda x: fnp.polyval(fnp.array([1.0, 0.0, -1.0]), x))(3.0)
        6.0
    """
    if not _has_node(p, x):
        return _np.polyval(p, x)
    _refuse_poly1d("polyval", p, x)
    ref = _np.polyval(_value(p), _value(x))  # NumPy's value, dtype and errors
    if type(p) is not _Node:
        p = _np.asarray(p)
    if type(x) is not _Node:
        x = _np.asanyarray(x)
    y: Any = _np.zeros_like(_value(x))
    for i in range(p.shape[0]):
        y = _ew.add(_ew.multiply(y, x), _row(p, i))
    return _as(y, _np.result_type(ref)) if type(y) is _Node else ref


def _combined(name: str, a1: Any, a2: Any, subtract: bool):
    numpy_function = _np.polysub if subtract else _np.polyadd
    if not _has_node(a1, a2):
        return numpy_function(a1, a2)
    _refuse_poly1d(name, a1, a2)
    ref = numpy_function(_value(a1), _value(a2))
    a1, a2 = _atleast_1d(a1), _atleast_1d(a2)
    diff = a2.shape[0] - a1.shape[0]
    a1 = _front_padded(a1, max(diff, 0))
    a2 = _front_padded(a2, max(-diff, 0))
    out = _ew.subtract(a1, a2) if subtract else _ew.add(a1, a2)
    return _as(out, ref.dtype)


def polyadd(a1: Any, a2: Any):
    """Return the sum of two polynomials (NumPy's `polyadd`), differentiable in both.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polyadd([1.0, 2.0], [1.0, 1.0, 1.0])
        array([1., 2., 3.])
    """
    return _combined("polyadd", a1, a2, subtract=False)


def polysub(a1: Any, a2: Any):
    """Return the difference of two polynomials, `a1 - a2` (NumPy's `polysub`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polysub([1.0, 2.0], [1.0, 1.0, 1.0])
        array([-1.,  0.,  1.])
    """
    return _combined("polysub", a1, a2, subtract=True)


def _leading_zeros_trimmed(a: Any) -> Any:
    """Return the coefficients `a` without leading zeros, or `[0]`, as NumPy's `poly1d` keeps them."""
    a = _atleast_1d(a)
    v = _np.asarray(_value(a))
    if v.ndim != 1:
        return a
    nonzero = _np.flatnonzero(v)
    if not nonzero.size:
        return _np.zeros((1,), dtype=v.dtype)
    return _index.getitem(a, index=(slice(int(nonzero[0]), None),)) if nonzero[0] else a


def polymul(a1: Any, a2: Any):
    """Return the product of two polynomials (NumPy's `polymul`): the convolution of the coefficients.

    With graph nodes it is the outer product of the coefficients summed
    along its anti-diagonals (`scatter_add`), differentiable in both. As
    NumPy (which reads them as `poly1d`), it drops leading zero coefficients
    first: they get no gradient.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polymul([1.0, 1.0], [1.0, -1.0])
        array([ 1.,  0., -1.])
    """
    if not _has_node(a1, a2):
        return _np.polymul(a1, a2)
    _refuse_poly1d("polymul", a1, a2)
    ref = _np.polymul(_value(a1), _value(a2))  # NumPy's value, dtype and errors
    a1, a2 = _as(_leading_zeros_trimmed(a1), ref.dtype), _as(_leading_zeros_trimmed(a2), ref.dtype)
    n1, n2 = a1.shape[0], a2.shape[0]
    outer = _ew.multiply(_sh.reshape(a1, shape=(n1, 1)), _sh.reshape(a2, shape=(1, n2)))
    positions = _np.add.outer(_np.arange(n1), _np.arange(n2))
    positions.flags.writeable = False
    return _index.scatter_add(outer, index=(positions,), shape=(n1 + n2 - 1,))


def polydiv(u: Any, v: Any):
    """Return the quotient and remainder of the division of two polynomials (NumPy's `polydiv`).

    With graph nodes it is NumPy's long division written with funcgrad's
    operations, differentiable in `u` and `v`; the remainder drops the
    leading terms NumPy drops (those that vanish up to rounding).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polydiv([1.0, 0.0, -1.0], [1.0, 1.0])
        (array([ 1., -1.]), array([0.]))
    """
    if not _has_node(u, v):
        return _np.polydiv(u, v)
    _refuse_poly1d("polydiv", u, v)
    ref_q, ref_r = _np.polydiv(_value(u), _value(v))  # NumPy's values, dtype and errors
    dtype = ref_q.dtype
    u, v = _as(_atleast_1d(u), dtype), _as(_atleast_1d(v), dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = _ew.divide(_np.asarray(1.0, dtype=dtype), _row(v, 0))
    r: Any = u
    q = []
    for k in range(m - n + 1):
        d = _ew.multiply(scale, _row(r, k))
        q.append(d)
        shifted = _sh.pad(v, pad_width=((k, m - n - k),), constant_values=0)
        r = _ew.subtract(r, _ew.multiply(d, shifted))
    quotient = _sh.stack(*q, axis=0) if q else _np.zeros((1,), dtype=dtype)
    start = (m + 1) - ref_r.shape[0]
    remainder = _index.getitem(r, index=(slice(start, None),)) if type(r) is _Node else ref_r
    return quotient, remainder


def polyder(p: Any, m: int = 1):
    """Return the `m`-th derivative of the polynomial `p` (NumPy's `polyder`), differentiable in `p`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polyder([1.0, 1.0, 1.0])
        array([2., 1.])
    """
    if type(p) is not _Node:
        return _np.polyder(p, m)
    ref = _np.polyder(p.value, m)  # NumPy's value, dtype and errors
    out: Any = _atleast_1d(p)
    for _ in range(int(m)):
        n = out.shape[0] - 1
        out = _ew.multiply(_index.getitem(out, index=(slice(None, -1),)), _np.arange(n, 0, -1))
    return _as(out, _np.asarray(ref).dtype)


def polyint(p: Any, m: int = 1, k: Any = None):
    """Return an `m`-th antiderivative of the polynomial `p` (NumPy's `polyint`).

    `k` holds the integration constants (one, or `m` of them), lowest
    order first as in NumPy. Differentiable in `p` and `k`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.polyint([3.0, 2.0, 1.0], k=5.0)
        array([1., 1., 1., 5.])
    """
    if not _has_node(p, k):
        return _np.polyint(p, m, k)
    ref = _np.polyint(_value(p), m, _value(k))  # NumPy's value, dtype and errors
    m = int(m)
    out: Any = p if type(p) is _Node else _np.asarray(p)
    if m == 0:
        return out
    ks: Any = _np.zeros(m, float) if k is None else _atleast_1d(k)
    if ks.shape[0] == 1 and m > 1:
        ks = _ew.multiply(_row(ks, 0), _np.ones(m, float))
    for i in range(m):
        scaled = _ew.divide(out, _np.arange(out.shape[0], 0, -1))
        constant = _sh.reshape(_row(ks, i), shape=(1,)) if type(ks) is _Node else ks[i : i + 1]
        out = _sh.concatenate(scaled, constant, axis=0)
    return _as(out, ref.dtype)


def _wrapped(method: Any) -> Any:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = method(self, *args, **kwargs)
        if type(result) is tuple:
            return tuple(poly1d(r) if type(r) is _np.poly1d else r for r in result)
        return poly1d(result) if type(result) is _np.poly1d else result

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class poly1d(_np.poly1d):  # noqa: N801  (NumPy's name)
    """A polynomial with plain coefficients (NumPy's `poly1d`), callable on graph nodes.

    The coefficients (or roots, with `r=True`) are plain values: a graph
    node there is refused (use the functions `polyval`, `polyadd`, ... on
    arrays of coefficients to differentiate in them). Calling the
    polynomial on a node is `polyval(p.coeffs, x)`, differentiable in `x`;
    arithmetic (`+`, `*`, `deriv`, ...) gives this class again.

    Raises:
        OpError: If the coefficients or roots hold a graph node.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> p = fnp.poly1d([1.0, 0.0, -1.0])
        >>> p(3.0)
        np.float64(8.0)
        >>> fg.grad(p)(3.0)
        6.0
    """

    def __init__(self, c_or_r: Any, r: bool = False, variable: Any = None) -> None:
        if type(c_or_r) is _Node or (
            isinstance(c_or_r, (list, tuple)) and any(type(c) is _Node for c in c_or_r)
        ):
            raise _OpError(
                "funcgrad.numpy.poly1d: the coefficients (or roots) are graph nodes, but a "
                "poly1d holds plain values; use funcgrad.numpy.polyval(coefficients, x) (and "
                "polyadd, polymul, polyder, ...) on arrays to differentiate in them"
            )
        super().__init__(c_or_r, r, variable)

    def __call__(self, val: Any) -> Any:
        if type(val) is _Node:
            return polyval(self.coeffs, val)
        return super().__call__(val)

    for _name in (
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__rtruediv__",
        "__neg__",
        "__pos__",
        "__pow__",
        "deriv",
        "integ",
    ):
        locals()[_name] = _wrapped(getattr(_np.poly1d, _name))
    del _name
