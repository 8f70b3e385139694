"""`funcgrad.numpy.linalg`: NumPy's `linalg` functions over funcgrad's primitives.

Every matrix function acts on the last two axes and broadcasts over the
leading ones ("stacked" matrices), like NumPy's. Matrices are real
(float16, float32 or float64; float16 is computed in float32 and rounded
back). `inv`, `solve` and `det` apply one primitive each and are generated
from the primitive records; the others are written here, as primitives
(`eigvalsh`, `svdvals`, `pinv`, the results of `eigh`, `svd` and `qr`) or as
compositions of primitives (`lstsq`, `matrix_power`, `multi_dot`,
`tensorsolve`, `tensorinv`, `cond`, `norm` ...), so that every result is
differentiable to any order. `matrix_rank` is value-only (an integer).

Where NumPy's function reads one triangle of a symmetric matrix (`eigh`,
`eigvalsh`, and `svd`/`pinv` with `hermitian=True`), the gradient is that of
the function NumPy computes: it falls on the triangle read (the other
triangle's is zero), as a true derivative of the result must. HIPS autograd
and PyTorch give the gradient as if the matrix were symmetric instead
(both triangles); the two agree on `(a + a.T) / 2`.

Gradients that do not exist are refused or non-finite, as in PyTorch:

* `eigh` at repeated eigenvalues, `svd` at repeated (or, for a non-square
  matrix, zero) singular values: the eigen- or singular *vectors* are not
  unique there, and their gradient is non-finite (inf or NaN), as in
  PyTorch. The eigenvalues and singular values alone (`eigvalsh`,
  `svdvals`, `norm(ord=2)`) keep finite gradients.
* `qr(mode="complete")` of a matrix with more rows than columns:
  `NotDifferentiableError` ("the QR decomposition is not differentiable when
  mode='complete' and nrows > ncols", PyTorch's words).
* `svd(full_matrices=True)`: the columns of `U` (rows of `Vh`) beyond the
  first `min(m, n)` complete an orthonormal basis arbitrarily; a gradient
  that reaches them raises `NotDifferentiableError` (PyTorch silently drops
  it instead).
"""

import math as _math
from collections import namedtuple as _namedtuple

import numpy as _np

from funcgrad.backend import as_value as _as_value
from funcgrad.backend import xp_of as _xp_of
from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _as_axes
from funcgrad.numpy._generated_linalg import *  # noqa: F403
from funcgrad.numpy._generated_linalg import __all__ as _generated_all
from funcgrad.numpy._kinds import value_only as _value_only
from funcgrad.ops import eig as _la_eig
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _la
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import shape_of as _shape_of
from funcgrad.ops._util import value_of as _value_of

LinAlgError = _np.linalg.LinAlgError

__all__ = [
    "EigResult",
    "EighResult",
    "LinAlgError",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cond",
    "cross",
    "diagonal",
    "eig",
    "eigh",
    "eigvalsh",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
    *_generated_all,
]

SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])
SlogdetResult.__doc__ = "The `(sign, logabsdet)` pair that `slogdet` returns."
EigResult = _namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EigResult.__doc__ = "The `(eigenvalues, eigenvectors)` pair that `eig` returns."
EighResult = _namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EighResult.__doc__ = "The `(eigenvalues, eigenvectors)` pair that `eigh` returns."
SVDResult = _namedtuple("SVDResult", ["U", "S", "Vh"])
SVDResult.__doc__ = "The `(U, S, Vh)` triple that `svd` returns."
QRResult = _namedtuple("QRResult", ["Q", "R"])
QRResult.__doc__ = "The `(Q, R)` pair that `qr` returns."

_INF = float("inf")
_MATRIX_ORDS = (None, "fro", "nuc", _INF, -_INF, 1, -1, 2, -2)


def _arr(x):
    """A node as it is; anything else as an array."""
    return x if type(x) is _Node else _as_value(x)


def _ndim(x):
    return len(_shape_of(x))


def _need_matrix(op, x, square=False):
    shape = _shape_of(x)
    if len(shape) < 2:
        raise _OpError(
            f"funcgrad.linalg.{op}: needs a matrix or a stack of matrices (at least 2 "
            f"dimensions), got shape {tuple(shape)}"
        )
    if square and shape[-1] != shape[-2]:
        raise _OpError(
            f"funcgrad.linalg.{op}: needs square matrices in the last two axes, got shape "
            f"{tuple(shape)}"
        )


def _fnp():
    # NOTE: cycle funcgrad.numpy imports this module first; the namespace is read at call time
    import funcgrad.numpy as fnp

    return fnp


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


def cholesky(a, /, *, upper=False):
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


# --- eigenvalues and singular values --------------------------------------------------


def eig(a):
    """Return the eigenvalues and eigenvectors of a general square matrix, as `numpy.linalg.eig`.

    `a = v @ diag(w) @ inv(v)`. The eigenvalues are in LAPACK's order;
    complex unless every eigenvalue of a real `a` is real (then real, as in
    NumPy). Each eigenvector (a column of norm 1) is turned so that its entry
    of largest modulus is real and *positive*: NumPy leaves its sign (phase)
    to LAPACK's iterations, which can flip it under a tiny change of `a`, so
    only this gauge has a derivative. Functions that do not depend on the
    phases (JAX's assumption for `jax.numpy.linalg.eig`) get JAX's gradient.

    At repeated eigenvalues the eigenvectors' gradient is non-finite, as in
    PyTorch and JAX; the eigenvalues' stays finite while `a` is
    diagonalizable.

    Args:
        a: An array or graph node of shape `(..., n, n)`, real or complex.

    Returns:
        `EigResult(eigenvalues, eigenvectors)`, of shapes `(..., n)` and
        `(..., n, n)`; nodes if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.linalg.eig([[0.0, -1.0], [1.0, 0.0]]).eigenvalues
        array([0.+1.j, 0.-1.j])
        >>> a = np.array([[2.0, 1.0], [0.5, 3.0]])
        >>> det = lambda a: fnp.real(fnp.prod(fnp.linalg.eig(a).eigenvalues))
        >>> np.allclose(fg.grad(det)(a), np.linalg.det(a) * np.linalg.inv(a).T)  # d det = det A^-T
        True
    """
    a = _arr(a)
    _need_matrix("eig", a, square=True)
    return EigResult(_la_eig.eigvals(a), _la_eig.eig_vectors(a))


def eigh(a, UPLO="L"):  # noqa: N803  (NumPy's name)
    """Return the eigenvalues and eigenvectors of the symmetric matrix read from one triangle of `a`.

    As `numpy.linalg.eigh`: the eigenvalues in ascending order, the
    eigenvectors in the columns of a matrix; only the lower (`UPLO="L"`) or
    upper (`"U"`) triangle of `a` is read, and the gradient falls on it.

    At repeated eigenvalues the eigenvectors are not unique and a gradient
    through them is non-finite (inf or NaN), as in PyTorch; the eigenvalues'
    own gradient stays finite.

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        UPLO: `"L"` or `"U"`: the triangle read.

    Returns:
        `EighResult(eigenvalues, eigenvectors)`, of shapes `(..., n)` and
        `(..., n, n)`; nodes if `a` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> w, v = fnp.linalg.eigh([[2.0, 1.0], [1.0, 2.0]])
        >>> w
        array([1., 3.])
    """
    a = _arr(a)
    _need_matrix("eigh", a, square=True)
    return EighResult(_la.eigvalsh(a, UPLO=UPLO), _la.eigh_vectors(a, UPLO=UPLO))


def eigvalsh(a, UPLO="L"):  # noqa: N803  (NumPy's name)
    """Return the eigenvalues (ascending) of the symmetric matrix read from one triangle of `a`.

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        UPLO: `"L"` or `"U"`: the triangle read (the gradient falls on it).

    Returns:
        An array of shape `(..., n)`, or a node if `a` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]])
        array([1., 3.])
    """
    a = _arr(a)
    _need_matrix("eigvalsh", a, square=True)
    return _la.eigvalsh(a, UPLO=UPLO)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Return the singular value decomposition `a = U @ diag(S) @ Vh`, as `numpy.linalg.svd`.

    The gradient through `U` and `Vh` is non-finite (inf or NaN) at
    repeated singular values (and, for non-square matrices, at a zero
    one), where the vectors are not unique, as in PyTorch. With
    `full_matrices=True` (NumPy's default) a gradient that reaches the
    columns of `U` or rows of `Vh` beyond the first `min(m, n)` raises
    `NotDifferentiableError`: they complete an orthonormal basis
    arbitrarily (PyTorch silently drops that part instead).

    Args:
        a: An array or graph node of shape `(..., m, n)`.
        full_matrices: `U` of shape `(..., m, m)` and `Vh` `(..., n, n)` if
            true, else `(..., m, k)` and `(..., k, n)`, `k = min(m, n)`.
        compute_uv: If false, return only `S` (as `svdvals`).
        hermitian: Whether `a` is symmetric: NumPy then reads only its lower
            triangle (and the gradient falls on it).

    Returns:
        `SVDResult(U, S, Vh)` (nodes if `a` is a node), or `S` alone.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False)
        array([4., 3.])
    """
    a = _arr(a)
    _need_matrix("svd", a)
    s = _la.svdvals(a, hermitian=hermitian)
    if not compute_uv:
        return s
    u = _la.svd_u(a, full_matrices=full_matrices, hermitian=hermitian)
    vh = _la.svd_vh(a, full_matrices=full_matrices, hermitian=hermitian)
    return SVDResult(u, s, vh)


def svdvals(x, /):
    """Return the singular values of `x` in descending order, as `numpy.linalg.svdvals`.

    Args:
        x: An array or graph node of shape `(..., m, n)`.

    Returns:
        An array of shape `(..., min(m, n))`, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.svdvals([[3.0, 0.0], [0.0, -4.0]])
        array([4., 3.])
    """
    x = _arr(x)
    _need_matrix("svdvals", x)
    return _la.svdvals(x, hermitian=False)


def qr(a, mode="reduced"):
    """Return the QR decomposition `a = Q @ R`, as `numpy.linalg.qr`.

    Modes: `"reduced"` (`Q` of shape `(..., m, k)`, `R` `(..., k, n)`,
    `k = min(m, n)`), `"complete"` (`Q` `(..., m, m)`, `R` `(..., m, n)`)
    and `"r"` (`R` alone, still differentiable). `"raw"` (LAPACK's
    Householder form) is computed on plain arrays only.
    `mode="complete"` with more rows than columns has no gradient: it raises
    `NotDifferentiableError`, as PyTorch does.

    Args:
        a: An array or graph node of shape `(..., m, n)`.
        mode: `"reduced"`, `"complete"`, `"r"` or `"raw"`.

    Returns:
        `QRResult(Q, R)`, or `R` for `mode="r"`; nodes if `a` is a node.

    Raises:
        funcgrad.errors.OpError: For an unknown mode, or `"raw"` on a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.qr([[3.0, 1.0], [4.0, 2.0]], mode="r")
        array([[-5. , -2.2],
               [ 0. ,  0.4]])
    """
    a = _arr(a)
    _need_matrix("qr", a)
    if mode == "raw":
        if type(a) is _Node:
            raise _OpError(
                "funcgrad.linalg.qr: mode='raw' (LAPACK's Householder reflectors) is not "
                "differentiable; use mode='reduced' or 'complete' on a graph node"
            )
        return _xp_of(a).linalg.qr(a, mode="raw")
    if mode not in ("reduced", "complete", "r"):
        raise _OpError(
            f"funcgrad.linalg.qr: mode={mode!r} must be 'reduced', 'complete', 'r' or 'raw'"
        )
    complete = mode == "complete"
    r = _la.qr_r(a, complete=complete)
    if mode == "r":
        return r
    return QRResult(_la.qr_q(a, complete=complete), r)


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Return the Moore-Penrose pseudo-inverse of `a`, as `numpy.linalg.pinv`.

    The gradient is that of Golub and Pereyra, valid where the rank does not
    change (it is what PyTorch and HIPS autograd give too).

    Args:
        a: An array or graph node of shape `(..., m, n)`.
        rcond: Singular values at most `rcond` times the largest are taken
            as zero (a number); None: `max(m, n) * eps`.
        hermitian: Whether `a` is symmetric (NumPy reads its lower triangle).
        rtol: The same as `rcond` (NumPy 2's name); give one of them.

    Returns:
        An array of shape `(..., n, m)`, or a node if `a` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.pinv([[2.0, 0.0], [0.0, 0.0]])
        array([[0.5, 0. ],
               [0. , 0. ]])
    """
    if rcond is not None and rtol is not None:
        raise _OpError("funcgrad.linalg.pinv: give rcond or rtol, not both")
    cutoff = rtol if rcond is None else rcond
    if cutoff is not None and _np.ndim(cutoff) != 0:
        raise _OpError(
            f"funcgrad.linalg.pinv: rcond must be a number, got an array of shape "
            f"{_np.shape(cutoff)} (per-matrix cutoffs are not supported)"
        )
    a = _arr(a)
    _need_matrix("pinv", a, square=bool(hermitian))
    return _la.pinv(a, rcond=None if cutoff is None else float(cutoff), hermitian=bool(hermitian))


@_value_only
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803  (NumPy's name)
    """Return the rank of `A` (value-only: an integer, whose derivative is zero).

    As `numpy.linalg.matrix_rank`, computed on the values of a node.

    Args:
        A: An array or graph node (up to 2-D, or a stack of matrices).
        tol: The absolute threshold below which singular values count as zero.
        hermitian: Whether `A` is symmetric.
        rtol: The relative threshold (NumPy 2).

    Returns:
        An integer array (never a node).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> int(fnp.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]]))
        1
    """
    value = _value_of(_arr(A))
    return _xp_of(value).linalg.matrix_rank(value, tol=tol, hermitian=hermitian, rtol=rtol)


# --- least squares and solves -------------------------------------------------------------


def lstsq(a, b, rcond=None):
    """Return the least-squares solution of `a @ x = b`, as `numpy.linalg.lstsq`.

    Returns NumPy's 4-tuple `(x, residuals, rank, s)`. `x` is
    `pinv(a, rcond) @ b`, differentiable in `a` and `b` (where the rank does
    not change); `residuals` (the squared residual norms, when `a` has full
    column rank and more rows than columns, else empty) and `s` (the
    singular values of `a`) are differentiable too; `rank` is an integer.

    Args:
        a: An array or graph node of shape `(m, n)`.
        b: An array or graph node of shape `(m,)` or `(m, k)`.
        rcond: Singular values at most `rcond` times the largest count as
            zero; None: `max(m, n) * eps`, as in NumPy.

    Returns:
        `(x, residuals, rank, s)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> x, res, rank, s = fnp.linalg.lstsq([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]], [1.0, 2.0, 2.0])
        >>> x
        array([1.16666667, 0.5       ])
    """
    a, b = _arr(a), _arr(b)
    sa, sb = _shape_of(a), _shape_of(b)
    if len(sa) != 2 or len(sb) not in (1, 2) or sb[0] != sa[0]:
        raise _OpError(
            f"funcgrad.linalg.lstsq: needs a of shape (m, n) and b of shape (m,) or (m, k), "
            f"got {tuple(sa)} and {tuple(sb)}"
        )
    m, n = sa
    dtype = _np.result_type(_value_of(a), _value_of(b), _np.float32)
    if rcond is None:
        rcond = float(_np.finfo(dtype).eps) * max(m, n)
    x = _la.matmul(_la.pinv(a, rcond=float(rcond), hermitian=False), b)
    s = _la.svdvals(a, hermitian=False)
    s_v = _value_of(s)
    rank = int((s_v > rcond * s_v.max(initial=0.0)).sum()) if min(m, n) else 0
    xp = _xp_of(_value_of(a))
    if rank == n and m > n:
        r = _ew.subtract(_la.matmul(a, x), b)
        residuals = _reduce.sum_(_ew.multiply(r, r), axis=(0,), keepdims=False)
        if len(sb) == 1:
            residuals = _sh.reshape(residuals, shape=(1,))
    else:
        residuals = xp.zeros((0,), dtype=dtype)
    return x, residuals, xp.asarray(rank, dtype=_np.int64)[()], s


def matrix_power(a, n):
    """Return the `n`-th power of the square matrix `a` (negative `n`: of its inverse).

    As `numpy.linalg.matrix_power`, by repeated squaring with `matmul`
    (`inv` first for negative `n`); `n = 0` gives the identity (a constant).

    Args:
        a: An array or graph node of shape `(..., m, m)`.
        n: An integer.

    Returns:
        An array, or a node if `a` is a node and `n != 0`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.matrix_power([[1.0, 1.0], [0.0, 1.0]], 3)
        array([[1., 3.],
               [0., 1.]])
    """
    if not isinstance(n, (int, _np.integer)) or isinstance(n, bool):
        raise TypeError(f"funcgrad.linalg.matrix_power: n must be an integer, got {n!r}")
    a = _arr(a)
    _need_matrix("matrix_power", a, square=True)
    n = int(n)
    if n == 0:
        value = _value_of(a)
        xp = _xp_of(value)
        eye = xp.eye(value.shape[-1], dtype=value.dtype)
        return xp.broadcast_to(eye, value.shape).copy()
    if n < 0:
        a, n = _la.inv(a), -n
    result = None
    power = a
    while n:
        if n & 1:
            result = power if result is None else _la.matmul(result, power)
        n >>= 1
        if n:
            power = _la.matmul(power, power)
    return result


def _chain_order(dims):
    """NumPy's matrix-chain order: split[i][j] is where to split the product of i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = _math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(arrays, *, out=None):
    """Return the product of the matrices in `arrays`, in the cheapest order, as `numpy.linalg.multi_dot`.

    The first array may be 1-D (a row vector) and the last 1-D (a column
    vector); the others must be 2-D.

    Args:
        arrays: A sequence of at least two arrays or graph nodes.
        out: Not supported (must be None).

    Returns:
        An array, or a node if any operand is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.linalg.multi_dot([np.ones(2), np.ones((2, 3)), np.ones(3)])
        np.float64(6.0)
    """
    if out is not None:
        raise _OpError("funcgrad.linalg.multi_dot: out= is not supported (results are new)")
    arrays = [_arr(x) for x in arrays]
    if len(arrays) < 2:
        raise _OpError("funcgrad.linalg.multi_dot: needs at least two arrays")
    first_1d, last_1d = _ndim(arrays[0]) == 1, _ndim(arrays[-1]) == 1
    if first_1d:
        arrays[0] = _sh.reshape(arrays[0], shape=(1, -1))
    if last_1d:
        arrays[-1] = _sh.reshape(arrays[-1], shape=(-1, 1))
    for i, x in enumerate(arrays):
        if _ndim(x) != 2:
            raise _OpError(
                f"funcgrad.linalg.multi_dot: array {i} has shape {tuple(_shape_of(x))}; only "
                f"the first and last may be 1-D, the others must be 2-D"
            )
    dims = [_shape_of(arrays[0])[0]] + [_shape_of(x)[1] for x in arrays]
    split = _chain_order(dims)

    def product(i, j):
        if i == j:
            return arrays[i]
        k = split[i][j]
        return _la.matmul(product(i, k), product(k + 1, j))

    result = product(0, len(arrays) - 1)
    if first_1d and last_1d:
        result = _sh.reshape(result, shape=())
        return result if type(result) is _Node else result[()]
    if first_1d or last_1d:
        return _sh.reshape(result, shape=(-1,))
    return result


def tensorsolve(a, b, axes=None):
    """Return `x` with `tensordot(a, x, axes=x.ndim) == b`, as `numpy.linalg.tensorsolve`.

    Args:
        a: An array or graph node whose trailing axes (after moving `axes`
            to the end) have as many entries as its leading `b.ndim` axes.
        b: An array or graph node.
        axes: Axes of `a` to move to the end first, or None.

    Returns:
        An array of shape `a.shape[b.ndim:]` (after the move), or a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> a = np.eye(6).reshape(2, 3, 6)
        >>> fnp.linalg.tensorsolve(a, np.ones((2, 3))).shape
        (6,)
    """
    a, b = _arr(a), _arr(b)
    an = _ndim(a)
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k % an)
            order.insert(an, k % an)
        a = _sh.transpose(a, axes=tuple(order))
    old = tuple(_shape_of(a)[_ndim(b) :])
    size = _math.prod(old)
    if _math.prod(_shape_of(a)) != size * size:
        raise _OpError(
            f"funcgrad.linalg.tensorsolve: a of shape {tuple(_shape_of(a))} is not 'square': "
            f"its trailing axes {old} must have as many entries ({size}) as its leading ones "
            f"(the shape of b, {tuple(_shape_of(b))})"
        )
    x = _la.solve(_sh.reshape(a, shape=(size, size)), _sh.reshape(b, shape=(size,)))
    return _sh.reshape(x, shape=old)


def tensorinv(a, ind=2):
    """Return the inverse of `a` as a tensor for `tensordot`, as `numpy.linalg.tensorinv`.

    Args:
        a: An array or graph node with `prod(a.shape[:ind]) == prod(a.shape[ind:])`.
        ind: How many leading axes are the "rows" (a positive int).

    Returns:
        An array of shape `a.shape[ind:] + a.shape[:ind]`, or a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.linalg.tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape
        (2, 2, 4)
    """
    a = _arr(a)
    if not isinstance(ind, int) or ind <= 0:
        raise _OpError(f"funcgrad.linalg.tensorinv: ind={ind!r} must be a positive int")
    shape = tuple(_shape_of(a))
    rows = _math.prod(shape[ind:])
    if _math.prod(shape) != rows * rows:
        raise _OpError(
            f"funcgrad.linalg.tensorinv: a of shape {shape} is not 'square' with ind={ind}: "
            f"prod(shape[:{ind}]) must equal prod(shape[{ind}:])"
        )
    inverse = _la.inv(_sh.reshape(a, shape=(rows, rows)))
    return _sh.reshape(inverse, shape=shape[ind:] + shape[:ind])


# --- norms and condition numbers ------------------------------------------------------------


def _singular_norm(x, ord, axes, keepdims):  # noqa: A002  (NumPy's name)
    """The matrix norms of singular values: 2 (largest), -2 (smallest), 'nuc' (sum)."""
    nd = _ndim(x)
    row, col = (a % nd for a in axes)
    rest = [i for i in range(nd) if i not in (row, col)]
    s = _la.svdvals(_sh.transpose(x, axes=(*rest, row, col)), hermitian=False)
    if ord == "nuc":
        r = _reduce.sum_(s, axis=(-1,), keepdims=False)
    elif ord == 2:
        r = _reduce.max_(s, axis=(-1,), keepdims=False)
    else:
        r = _reduce.min_(s, axis=(-1,), keepdims=False)
    if keepdims:
        shape = list(_shape_of(x))
        shape[row] = shape[col] = 1
        r = _sh.reshape(r, shape=tuple(shape))
    return r


def _matrix_axes(ord, axis, nd):  # noqa: A002
    if axis is None:
        return (0, 1) if nd == 2 and ord is not None else None
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        return tuple(axis)
    return None


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  (NumPy's name)
    """Return a vector or matrix norm, as `numpy.linalg.norm`, differentiable.

    Vector norms (`axis` an int, or a 1-D `x`): `ord` None or 2 (Euclidean),
    `inf`, `-inf`, `0` (the number of nonzero entries: zero gradient), `1`,
    any other number `p` (`sum(|x|**p)**(1/p)`). Matrix norms (`axis` a pair,
    or a 2-D `x` with `ord` given): `"fro"`, `"nuc"` (the sum of the
    singular values), `inf`, `-inf`, `1`, `-1`, `2` and `-2` (the largest
    and smallest singular value, through `svdvals`). `axis=None` with
    `ord=None` is the 2-norm of all entries. The gradient at the zero vector
    is 0 (a subgradient), as in PyTorch.

    Args:
        x: An array, a number, or a graph node.
        ord: The order of the norm.
        axis: None, an int (vector norms) or a pair of ints (matrix norms).
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.linalg.norm(np.array([[3.0, 0.0], [0.0, -4.0]]), ord=2)
        np.float64(4.0)
        >>> fnp.linalg.norm(np.array([3.0, 4.0]))
        np.float64(5.0)
    """
    x = _arr(x)
    axis = _as_axes(axis)
    axes = _matrix_axes(ord, axis, _ndim(x))
    if axes is not None and ord not in _MATRIX_ORDS:
        raise _OpError(
            f"funcgrad.linalg.norm: ord={ord!r} is not a matrix norm (axis={axis!r} names a "
            f"matrix, or x is 2-D); use one of None, 'fro', 'nuc', inf, -inf, 1, -1, 2, -2, "
            f"or an int axis for a vector norm"
        )
    if axes is not None and ord in (2, -2, "nuc"):
        for a in axes:
            if not -_ndim(x) <= a < _ndim(x):
                raise _OpError(
                    f"funcgrad.linalg.norm: axis={axis!r} is out of range for {_ndim(x)} dims"
                )
        if axes[0] % _ndim(x) == axes[1] % _ndim(x):
            raise _OpError(f"funcgrad.linalg.norm: axis={axis!r} names the same axis twice")
        return _singular_norm(x, ord, axes, keepdims)
    return _reduce.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002  (NumPy's name)
    """Return the vector norm of `x` over `axis` (all axes if None, or a tuple of axes), as `numpy.linalg.vector_norm`.

    Args:
        x: An array, a number, or a graph node.
        axis: None (all entries, flattened), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.
        ord: `inf`, `-inf`, `0`, `1`, `2` or any number `p` (see `norm`).

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.vector_norm([[3.0, 0.0], [0.0, 4.0]])
        np.float64(5.0)
    """
    x = _arr(x)
    axis = _as_axes(axis)
    shape = tuple(_shape_of(x))
    nd = len(shape)
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, (tuple, list)):
        axes = tuple(a % nd if -nd <= a < nd else a for a in axis)
    else:
        axes = (axis,)
    for a in axes:
        if not -nd <= a < max(nd, 1):
            raise _OpError(
                f"funcgrad.linalg.vector_norm: axis={axis!r} is out of range for {nd} dims"
            )
    axes = tuple(a % max(nd, 1) for a in axes)
    if len(axes) == 1 and nd:
        return _reduce.norm(x, ord=ord, axis=axes[0], keepdims=keepdims)
    # several axes (or a 0-D x): move them to the end and flatten them into one
    rest = [i for i in range(nd) if i not in axes]
    moved = _sh.transpose(x, axes=(*rest, *axes)) if nd else x
    flat = _sh.reshape(moved, shape=(*(shape[i] for i in rest), -1))
    r = _reduce.norm(flat, ord=ord, axis=-1, keepdims=False)
    if keepdims:
        r = _sh.reshape(r, shape=tuple(1 if i in axes else shape[i] for i in range(nd)))
    return r


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002  (NumPy's name)
    """Return the matrix norm of each matrix in the last two axes of `x`, as `numpy.linalg.matrix_norm`.

    Args:
        x: An array or graph node of shape `(..., m, n)`.
        keepdims: If true, the last two axes stay, with size 1.
        ord: `"fro"`, `"nuc"`, `inf`, `-inf`, `1`, `-1`, `2` or `-2` (see `norm`).

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.matrix_norm([[3.0, 0.0], [0.0, 4.0]], ord="nuc")
        np.float64(7.0)
    """
    x = _arr(x)
    _need_matrix("matrix_norm", x)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def cond(x, p=None):
    """Return the condition number of `x`, as `numpy.linalg.cond`, differentiable.

    For `p` None, 2 or -2 it is the ratio of the largest and smallest
    singular values (through `svdvals`; any shape); for the other norms
    (`"fro"`, `"nuc"`, `inf`, `-inf`, `1`, `-1`) it is
    `norm(x, p) * norm(inv(x), p)` (square matrices). On plain arrays it is
    NumPy's (inf for a singular matrix); on a node, a singular matrix with
    one of the other norms raises `OpError` (through `inv`): the condition
    number has no derivative there.

    Args:
        x: An array or graph node of shape `(..., m, n)`.
        p: The norm (see `norm`).

    Returns:
        An array of shape `(...)`, or a node if `x` is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.cond([[2.0, 0.0], [0.0, 0.5]])
        np.float64(4.0)
    """
    x = _arr(x)
    _need_matrix("cond", x, square=p not in (None, 2, -2))
    if type(x) is not _Node:  # values: NumPy's (inf for a singular matrix)
        return _xp_of(x).linalg.cond(x, p)
    if p in (None, 2, -2):
        s = _la.svdvals(x, hermitian=False)
        first = _la._slice(s, Ellipsis, 0)
        last = _la._slice(s, Ellipsis, -1)
        r = _ew.divide(last, first) if p == -2 else _ew.divide(first, last)
        # as NumPy: a NaN (0 / 0, a zero matrix) of a matrix without NaN is inf
        nan = _np.isnan(_value_of(r)) & ~_np.isnan(x.value).any(axis=(-2, -1))
        return _ew.where(nan, _INF, r) if nan.any() else r
    return _ew.multiply(norm(x, ord=p, axis=(-2, -1)), norm(_la.inv(x), ord=p, axis=(-2, -1)))


# --- NumPy 2's array-API names -----------------------------------------------------------------


def matmul(x1, x2, /):
    """Return the matrix product `x1 @ x2`, as `numpy.linalg.matmul` (the same as `funcgrad.numpy.matmul`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.matmul([[1.0, 2.0]], [[3.0], [4.0]])
        array([[11.]])
    """
    return _la.matmul(_arr(x1), _arr(x2))


def matrix_transpose(x, /):
    """Return `x` with its last two axes swapped, as `numpy.linalg.matrix_transpose`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.matrix_transpose([[1.0, 2.0]]).shape
        (2, 1)
    """
    x = _arr(x)
    _need_matrix("matrix_transpose", x)
    return _la._mT(x)


def diagonal(x, /, *, offset=0):
    """Return the diagonals (at `offset`) of the matrices in the last two axes, as `numpy.linalg.diagonal`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.diagonal([[1.0, 2.0], [3.0, 4.0]], offset=1)
        array([2.])
    """
    x = _arr(x)
    _need_matrix("diagonal", x)
    return _fnp().diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """Return the sums of the diagonals (at `offset`) of the matrices in the last two axes, as `numpy.linalg.trace`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.trace([[1.0, 2.0], [3.0, 4.0]])
        np.float64(5.0)
    """
    x = _arr(x)
    _need_matrix("trace", x)
    return _fnp().trace(x, offset, -2, -1, dtype)


def outer(x1, x2, /):
    """Return the outer product of the 1-D arrays `x1` and `x2`, as `numpy.linalg.outer`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.outer([1.0, 2.0], [3.0, 4.0])
        array([[3., 4.],
               [6., 8.]])
    """
    x1, x2 = _arr(x1), _arr(x2)
    if _ndim(x1) != 1 or _ndim(x2) != 1:
        raise _OpError(
            f"funcgrad.linalg.outer: needs 1-D arrays, got shapes {tuple(_shape_of(x1))} "
            f"and {tuple(_shape_of(x2))} (funcgrad.numpy.outer flattens them)"
        )
    return _ew.multiply(_sh.reshape(x1, shape=(-1, 1)), _sh.reshape(x2, shape=(1, -1)))


def cross(x1, x2, /, *, axis=-1):
    """Return the cross product of 3-element vectors along `axis`, as `numpy.linalg.cross`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        array([0., 0., 1.])
    """
    x1, x2 = _arr(x1), _arr(x2)
    if _shape_of(x1)[axis] != 3 or _shape_of(x2)[axis] != 3:
        raise _OpError(
            f"funcgrad.linalg.cross: needs 3-element vectors along axis {axis}, got shapes "
            f"{tuple(_shape_of(x1))} and {tuple(_shape_of(x2))}"
        )
    return _fnp().cross(x1, x2, axis=axis)


def vecdot(x1, x2, /, *, axis=-1):
    """Return the dot products of the vectors along `axis` (broadcasting the others), as `numpy.linalg.vecdot` for real arrays.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.linalg.vecdot([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])
        array([3., 7.])
    """
    x1, x2 = _arr(x1), _arr(x2)
    if _shape_of(x1)[axis] != _shape_of(x2)[axis]:
        raise _OpError(
            f"funcgrad.linalg.vecdot: the vectors along axis {axis} differ in length: shapes "
            f"{tuple(_shape_of(x1))} and {tuple(_shape_of(x2))}"
        )
    return _reduce.sum_(_ew.multiply(x1, x2), axis=(axis,), keepdims=False)


def tensordot(x1, x2, /, *, axes=2):
    """Return the sum of products over `axes`, as `numpy.linalg.tensordot` (see `funcgrad.numpy.tensordot`).

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.linalg.tensordot(np.ones((2, 3)), np.ones((3, 4)), axes=1).shape
        (2, 4)
    """
    return _fnp().tensordot(_arr(x1), _arr(x2), axes=axes)
