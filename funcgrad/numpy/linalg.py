"""`funcgrad.numpy.linalg`: NumPy's `linalg` functions over funcgrad's primitives.

Every function acts on the last two axes and broadcasts over the leading
ones, like NumPy's. Matrices must be real (float16, float32 or float64).
"""

from __future__ import annotations

from collections import namedtuple

from funcgrad.backend import xp_of
from funcgrad.graph import Node
from funcgrad.ops import linalg as _la
from funcgrad.ops import reduce as _rd

__all__ = ["cholesky", "det", "inv", "norm", "slogdet", "solve"]

SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SlogdetResult.__doc__ = "The `(sign, logabsdet)` pair that `slogdet` returns."


def inv(a):
    """Return the inverse of the matrix `a` (of each matrix in a stack).

    The gradient of `inv(a)` with respect to `a` is `-inv(a)^T ct inv(a)^T`.

    Args:
        a: An array or graph node of shape `(..., n, n)`.

    Returns:
        An array, or a node if `a` is a node.

    Raises:
        funcgrad.errors.OpError: If a matrix is singular (NumPy's
            `LinAlgError`, with the shapes named).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.inv([[2.0, 0.0], [0.0, 4.0]])
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """
    return _la.inv(a)


def solve(a, b):
    """Return `x` such that `a @ x = b`, as `numpy.linalg.solve` (NumPy 2 rules).

    `b` is one vector if it is 1-D (the result then has shape `(..., n)`);
    otherwise it is a stack of `(n, k)` matrices whose batch axes broadcast
    against those of `a`.

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        b: An array or graph node of shape `(n,)` or `(..., n, k)`.

    Returns:
        An array, or a node if either argument is a node.

    Raises:
        funcgrad.errors.OpError: If `a` is singular or the shapes do not fit.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [1.0, 1.0])
        array([0.5 , 0.25])
    """
    return _la.solve(a, b)


def det(a):
    """Return the determinant of the matrix `a` (of each matrix in a stack).

    The gradient is `det(a) * inv(a)^T`, so it is computed through `inv`:
    at an exactly singular matrix `inv` fails and the backward pass raises
    `OpError` (the gradient there, the adjugate, is not implemented). Use
    `slogdet` for large matrices, whose determinant may overflow.

    Args:
        a: An array or graph node of shape `(..., n, n)`.

    Returns:
        An array of shape `(...)`, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.linalg.det([[2.0, 0.0], [0.0, 3.0]])
        np.float64(6.0)
        >>> fg.grad(fnp.linalg.det)(np.array([[2.0, 0.0], [0.0, 3.0]]))
        array([[3., 0.],
               [0., 2.]])
    """
    return _la.det(a)


def slogdet(a):
    """Return the sign and the log of the absolute value of the determinant of `a`.

    As `numpy.linalg.slogdet`, but only `logabsdet` is differentiable (its
    gradient is `inv(a)^T`); `sign` is a plain array, whose derivative is
    zero wherever it is defined. For a singular matrix `sign` is 0 and
    `logabsdet` is `-inf`; its gradient raises `OpError` (through `inv`).

    Args:
        a: An array or graph node of shape `(..., n, n)`.

    Returns:
        A named pair `(sign, logabsdet)`, each of shape `(...)`; `logabsdet`
        is a node if `a` is a node, `sign` never is.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> sign, logabsdet = fnp.linalg.slogdet([[-2.0, 0.0], [0.0, 3.0]])
        >>> sign, logabsdet
        (np.float64(-1.0), np.float64(1.791759469228055))
        >>> fg.grad(lambda a: fnp.linalg.slogdet(a).logabsdet)(np.array([[2.0, 1.0], [0.0, 4.0]]))
        array([[ 0.5  ,  0.   ],
               [-0.125,  0.25 ]])
    """
    if type(a) is not Node:
        value = a if hasattr(a, "shape") else xp_of(a).asarray(a)
        return SlogdetResult(*xp_of(value).linalg.slogdet(value))
    sign = xp_of(a.value).linalg.slogdet(a.value)[0]
    return SlogdetResult(sign, _la.logabsdet(a))


def cholesky(a, upper=False):
    """Return the Cholesky factor of the symmetric positive definite matrix `a`.

    `a = L @ L^T` with `L` lower triangular (or `a = U^T @ U` with
    `U = L^T` if `upper` is true), for each matrix in a stack.

    !!! note
        funcgrad factors `(a + a^T) / 2`, as JAX does, where NumPy reads only
        the lower triangle of `a`: for a symmetric `a` (the intended input)
        the two agree exactly. So the function, and its gradient, are
        symmetric in `a`: an off-diagonal cotangent is shared equally between
        `a[i, j]` and `a[j, i]` (Murray 2016's formula, symmetrised).

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        upper: Return the upper factor `L^T` instead.

    Returns:
        An array, or a node if `a` is a node.

    Raises:
        funcgrad.errors.OpError: If a matrix is not positive definite.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.cholesky([[4.0, 2.0], [2.0, 5.0]])
        array([[2., 0.],
               [1., 2.]])
    """
    factor = _la.cholesky(a)
    return _la._mT(factor) if upper else factor


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  (NumPy's name)
    """Return a vector or matrix norm of `x`, like `numpy.linalg.norm`.

    With `axis=None` and `ord=None` this is the 2-norm of all the entries,
    whatever the number of dimensions. An int `axis` (or a 1-D `x`) gives
    vector norms; a pair of axes (or a 2-D `x` with `ord` given) gives
    matrix norms.

    Orders: for vectors any number (None or 2: Euclidean; 1: sum of
    magnitudes; inf, -inf: largest, smallest magnitude; 0: number of
    nonzero entries; other p: `sum(|x|**p)**(1/p)`); for matrices None or
    `'fro'` (Frobenius), 1, -1 (largest, smallest absolute column sum) and
    inf, -inf (largest, smallest absolute row sum).

    The gradient at the zero vector is 0, not NaN, and entries, columns or
    rows that tie for the extremum share the gradient evenly.

    Args:
        x: An array, or a graph node.
        ord: The order of the norm (see above).
        axis: None, an int (vector norms) or a pair of ints (matrix norms).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `x` is a node.

    Raises:
        funcgrad.errors.OpError: For a matrix norm that needs singular
            values (`ord=2`, `-2`, `'nuc'`), or an axis out of range.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.linalg.norm(np.array([3.0, 4.0]))
        np.float64(5.0)
        >>> fnp.linalg.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        np.float64(6.0)
        >>> fg.grad(fnp.linalg.norm)(np.array([3.0, 4.0]))
        array([0.6, 0.8])
        >>> fg.grad(fnp.linalg.norm)(np.zeros(2))
        array([0., 0.])
    """
    return _rd.norm(x, ord=ord, axis=axis, keepdims=keepdims)
