"""`funcgrad.numpy.linalg`: NumPy's `linalg` functions over funcgrad's primitives.

Every function acts on the last two axes and broadcasts over the leading
ones, like NumPy's. Matrices must be real (float16, float32 or float64).
`inv`, `solve`, `det` and `norm` apply one primitive each and are generated
from the primitive records; `slogdet` (a pair, one of it differentiable)
and `cholesky` (its `upper` option) are written here.
"""

from collections import namedtuple as _namedtuple

from funcgrad.backend import xp_of as _xp_of
from funcgrad.graph import Node as _Node
from funcgrad.numpy._generated_linalg import *  # noqa: F403
from funcgrad.numpy._generated_linalg import __all__ as _generated_all
from funcgrad.ops import linalg as _la

__all__ = ["SlogdetResult", "cholesky", "slogdet", *_generated_all]

SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])
SlogdetResult.__doc__ = "The `(sign, logabsdet)` pair that `slogdet` returns."


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
    if type(a) is not _Node:
        value = a if hasattr(a, "shape") else _xp_of(a).asarray(a)
        return SlogdetResult(*_xp_of(value).linalg.slogdet(value))
    sign = _xp_of(a.value).linalg.slogdet(a.value)[0]
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
