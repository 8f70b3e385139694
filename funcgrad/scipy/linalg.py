"""`funcgrad.scipy.linalg`: SciPy's linear algebra, differentiable.

`expm`, `sqrtm`, `logm` and `solve_sylvester` are primitives whose forwards
call SciPy (on the CPU: CuPy arrays make a round trip through the host,
`funcgrad.backend.on_host`); the gradients of the matrix functions are their
Fréchet derivatives by the block-triangular method (Van Loan; Higham,
"Functions of Matrices" 3.2): `f([[A, E], [0, A]])` has `L_f(A, E)` in its
upper right block, and the VJP is `L_f(A^T, G)` (the functions have real
power series). So the rules are the same primitives again, and
differentiable to any order. The others are compositions of the
`funcgrad.numpy.linalg` primitives: `solve_triangular` (a `solve` of the
triangle read), `cho_factor`, `cho_solve`, `cholesky`, `inv`, `det`,
`solve`, `qr`, `svd`, `eigh`.

Matrices are real; stacks of matrices (`(..., n, n)`) are accepted wherever
the NumPy function is batched (SciPy's own batching rules for 1-D right-hand
sides differ: here, as in `numpy.linalg.solve`, a 1-D `b` is one vector and
an N-D `b` a stack of matrices).

`lu_factor` is a primitive too (its gradient: `L^-1 P^T dA U^-1` split into
its strictly lower and upper parts), with SciPy's pivots as a plain array
(on the GPU of a CuPy `a`, as `cupyx.scipy.linalg.lu_factor` gives them);
`lu_solve` is two triangular solves and a row permutation.
"""

import numpy as _np

from funcgrad.backend import device_of as _device_of
from funcgrad.backend import to_device as _to_device
from funcgrad.errors import NotDifferentiableError as _NotDifferentiableError
from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy import linalg as _nla
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _la
from funcgrad.ops._util import shape_of as _shape_of

__all__ = [
    "LinAlgError",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "expm",
    "inv",
    "logm",
    "lu_factor",
    "lu_solve",
    "qr",
    "solve",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
    "svd",
]

LinAlgError = _np.linalg.LinAlgError

_arr = _nla._arr
_need_matrix = _nla._need_matrix


def _triangle(a, lower, unit_diagonal):
    """The triangle of `a` that SciPy reads (with ones on the diagonal if `unit_diagonal`)."""
    k = -1 if unit_diagonal else 0
    t = _la.tril(a, k=k) if lower else _la.triu(a, k=-k)
    if unit_diagonal:
        t = _ew.add(t, _la._eye_like(a, _shape_of(a)[-1]))
    return t


def _conjugated(a):
    """`a` conjugated if complex (a real matrix's conjugate transpose is its transpose)."""
    return _ew.conjugate(a) if _np.iscomplexobj(_nla._value_of(a)) else a


def _trans(trans):
    """None for `a x = b`, "T" for `a^T x = b`, "C" for `a^H x = b` (SciPy's `trans`)."""
    if trans in (0, "N", "n"):
        return None
    if trans in (1, "T", "t"):
        return "T"
    if trans in (2, "C", "c"):
        return "C"
    raise _OpError(
        f"funcgrad.scipy.linalg.solve_triangular: trans={trans!r} must be 0, 1, 2, 'N', 'T' or 'C'"
    )


def solve_triangular(
    a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True
):
    """Return `x` solving `T x = b` (or `T^T x = b`) with `T` a triangle of `a`, as `scipy.linalg.solve_triangular`.

    Only the triangle read is used (and gets a gradient): the lower one if
    `lower`, else the upper one, without its diagonal if `unit_diagonal`
    (taken as ones). Differentiable in `a` and `b`.

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        b: An array or graph node of shape `(n,)` or `(..., n, k)`.
        trans: 0 or `"N"` (`T x = b`), 1 or `"T"` (`T^T x = b`), 2 or `"C"` (`T^H x = b`).
        lower: Read the lower triangle (default: the upper one).
        unit_diagonal: Take the diagonal as ones.
        overwrite_b: Ignored (funcgrad never overwrites).
        check_finite: Ignored.

    Returns:
        An array shaped like `b`, or a node if an argument is a node.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.solve_triangular([[2.0, 0.0], [1.0, 1.0]], [2.0, 3.0], lower=True)
        array([1., 2.])
    """
    del overwrite_b, check_finite
    a, b = _arr(a), _arr(b)
    _need_matrix("solve_triangular", a, square=True)
    t = _triangle(a, bool(lower), bool(unit_diagonal))
    mode = _trans(trans)
    if mode is not None:
        t = _la._mT(t) if mode == "T" else _conjugated(_la._mT(t))
    return _la.solve(t, b)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """Return the Cholesky factor of `a`: upper `U` with `a = U^T U` (SciPy's default), or lower `L`.

    As `funcgrad.numpy.linalg.cholesky` (which factors `(a + a^T) / 2`).

    Args:
        a: An array or graph node of shape `(..., n, n)`, symmetric positive definite.
        lower: Return the lower factor `L` (default: the upper one, as SciPy).
        overwrite_a: Ignored.
        check_finite: Ignored.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.cholesky([[4.0, 2.0], [2.0, 5.0]])
        array([[2., 1.],
               [0., 2.]])
    """
    del overwrite_a, check_finite
    return _nla.cholesky(_arr(a), upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """Return `(c, lower)`: the Cholesky factor of `a` in a triangle of `c`, for `cho_solve`.

    Unlike SciPy, whose other triangle holds leftover entries of `a`
    ("random data", its documentation says), the other triangle of `c` is
    zero: `c` is the factor itself.

    Args:
        a: An array or graph node of shape `(..., n, n)`, symmetric positive definite.
        lower: Whether `c` is the lower factor (default: upper, as SciPy).
        overwrite_a: Ignored.
        check_finite: Ignored.

    Returns:
        The pair `(c, lower)`.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.cho_factor([[4.0, 2.0], [2.0, 5.0]])
        (array([[2., 1.],
               [0., 2.]]), False)
    """
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), bool(lower)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Return `x` solving `a x = b` from the Cholesky factor of `a`, as `scipy.linalg.cho_solve`.

    Two triangular solves; differentiable in the factor and in `b`.

    Args:
        c_and_lower: The pair `(c, lower)` of `cho_factor`.
        b: An array or graph node of shape `(n,)` or `(..., n, k)`.
        overwrite_b: Ignored.
        check_finite: Ignored.

    Returns:
        An array shaped like `b`, or a node.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.cho_solve(fsl.cho_factor([[4.0, 2.0], [2.0, 5.0]]), [6.0, 7.0])
        array([1., 1.])
    """
    del overwrite_b, check_finite
    c, lower = c_and_lower
    if lower:  # L L^T x = b
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans=1, lower=True)
    y = solve_triangular(c, b, trans=1, lower=False)  # U^T U x = b
    return solve_triangular(c, y, lower=False)


def inv(a, overwrite_a=False, check_finite=True):
    """Return the inverse of `a`, as `scipy.linalg.inv` (`funcgrad.numpy.linalg.inv`).

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.inv([[2.0, 0.0], [0.0, 4.0]])
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """
    del overwrite_a, check_finite
    return _la.inv(_arr(a))


def det(a, overwrite_a=False, check_finite=True):
    """Return the determinant of `a`, as `scipy.linalg.det` (`funcgrad.numpy.linalg.det`).

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.det([[2.0, 1.0], [1.0, 3.0]])
        np.float64(5.000000000000001)
    """
    del overwrite_a, check_finite
    return _la.det(_arr(a))


_SYMMETRIC = ("sym", "symmetric", "her", "hermitian", "pos", "positive definite")


def solve(
    a,
    b,
    lower=False,
    overwrite_a=False,
    overwrite_b=False,
    check_finite=True,
    assume_a=None,
    transposed=False,
):
    """Return `x` solving `a x = b`, as `scipy.linalg.solve`, differentiable in `a` and `b`.

    `assume_a` None or `"general"` uses all of `a`; `"sym"`, `"her"`,
    `"pos"` (and their long names) read one triangle (`lower`), as SciPy
    does, and the gradient falls on it; `"lower triangular"`, `"upper
    triangular"` and `"diagonal"` read that part.

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        b: An array or graph node of shape `(n,)` or `(..., n, k)`.
        lower: Which triangle a symmetric `a` is read from.
        overwrite_a: Ignored.
        overwrite_b: Ignored.
        check_finite: Ignored.
        assume_a: The structure of `a` (see above).
        transposed: Solve `a^T x = b`.

    Returns:
        An array shaped like `b`, or a node.

    Raises:
        funcgrad.errors.OpError: For an `assume_a` funcgrad does not know.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.solve([[2.0, 0.0], [0.0, 4.0]], [2.0, 2.0])
        array([1. , 0.5])
    """
    del overwrite_a, overwrite_b, check_finite
    a, b = _arr(a), _arr(b)
    _need_matrix("solve", a, square=True)
    if assume_a in (None, "gen", "general"):
        m = a
    elif assume_a in _SYMMETRIC:
        m = _la._mirror(a, bool(lower))
    elif assume_a in ("lower triangular", "upper triangular"):
        m = _triangle(a, assume_a.startswith("lower"), False)
    elif assume_a == "diagonal":
        m = _la.multiply(a, _la._eye_like(a, _shape_of(a)[-1]))
    else:
        raise _OpError(
            f"funcgrad.scipy.linalg.solve: assume_a={assume_a!r} is not supported; use "
            f"None, 'general', 'sym', 'her', 'pos', 'lower triangular', 'upper triangular' "
            f"or 'diagonal'"
        )
    if transposed:
        m = _la._mT(m)
    return _la.solve(m, b)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """Return the QR decomposition of `a`, as `scipy.linalg.qr`.

    Modes: `"full"` (`Q` `(m, m)`; with more rows than columns it has no
    gradient, as in PyTorch), `"economic"` (`Q` `(m, k)`), `"r"` (returns
    the 1-tuple `(R,)`, as SciPy). `pivoting=True` and `"raw"` are computed
    on plain arrays only.

    Args:
        a: An array or graph node of shape `(..., m, n)`.
        overwrite_a: Ignored.
        lwork: Ignored.
        mode: `"full"`, `"economic"`, `"r"` or `"raw"`.
        pivoting: Column pivoting (plain arrays only).
        check_finite: Ignored.

    Returns:
        `(Q, R)`, or `(R,)` for `mode="r"`.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> q, r = fsl.qr([[3.0, 1.0], [4.0, 2.0]])
        >>> r
        array([[-5. , -2.2],
               [ 0. ,  0.4]])
    """
    del overwrite_a, lwork, check_finite
    a = _arr(a)
    if pivoting or mode == "raw":
        if type(a) is _Node:
            raise _NotDifferentiableError(
                f"funcgrad.scipy.linalg.qr: pivoting={pivoting!r}, mode={mode!r} is not "
                f"differentiable; use mode='full' or 'economic' without pivoting on a node"
            )
        import scipy.linalg

        return scipy.linalg.qr(a, mode=mode, pivoting=pivoting)
    modes = {"full": "complete", "economic": "reduced", "r": "r"}
    if mode not in modes:
        raise _OpError(
            f"funcgrad.scipy.linalg.qr: mode={mode!r} must be 'full', 'economic', 'r' or 'raw'"
        )
    result = _nla.qr(a, mode=modes[mode])
    return (result,) if mode == "r" else tuple(result)


def svd(
    a,
    full_matrices=True,
    compute_uv=True,
    overwrite_a=False,
    check_finite=True,
    lapack_driver="gesdd",
):
    """Return the SVD `(U, s, Vh)` of `a` (or `s`), as `scipy.linalg.svd` (see `funcgrad.numpy.linalg.svd`).

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False)
        array([4., 3.])
    """
    del overwrite_a, check_finite, lapack_driver
    result = _nla.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return result if not compute_uv else tuple(result)


def eigh(
    a,
    b=None,
    *,
    lower=True,
    eigvals_only=False,
    subset_by_index=None,
    subset_by_value=None,
    **kwargs,
):
    """Return the eigenvalues (and eigenvectors) of the symmetric `a`, as `scipy.linalg.eigh`.

    Only the standard problem (`b=None`) over all eigenvalues; the triangle
    read is the lower one if `lower` (SciPy's default), and the gradient
    falls on it (see `funcgrad.numpy.linalg.eigh`).

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        b: Must be None (the generalized problem is not supported).
        lower: Read the lower triangle (else the upper one).
        eigvals_only: Return the eigenvalues only.
        subset_by_index: Must be None.
        subset_by_value: Must be None.
        **kwargs: SciPy's `overwrite_a`, `overwrite_b`, `type`, `check_finite`,
            `driver`: ignored.

    Returns:
        `(w, v)`, or `w` if `eigvals_only`.

    Raises:
        funcgrad.errors.OpError: For `b`, `subset_by_index` or `subset_by_value`.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.eigh([[2.0, 1.0], [1.0, 2.0]], eigvals_only=True)
        array([1., 3.])
    """
    if b is not None or subset_by_index is not None or subset_by_value is not None:
        raise _OpError(
            "funcgrad.scipy.linalg.eigh: only the standard problem over all eigenvalues is "
            "supported (b, subset_by_index and subset_by_value must be None)"
        )
    uplo = "L" if lower else "U"
    if eigvals_only:
        return _nla.eigvalsh(a, UPLO=uplo)
    return tuple(_nla.eigh(a, UPLO=uplo))


def _square(op, a):
    a = _arr(a)
    _need_matrix(op, a, square=True)
    return a


def expm(A):  # noqa: N803  (SciPy's name)
    """Return the matrix exponential of `A` (of each matrix in a stack), as `scipy.linalg.expm`.

    The gradient is the Fréchet derivative by the block method (see the
    module's description). Computed by SciPy on the CPU (CuPy arrays make a round trip
    through the host: `funcgrad.backend.on_host`).

    Examples:
        >>> import numpy as np, funcgrad.scipy.linalg as fsl
        >>> fsl.expm(np.zeros((2, 2)))
        array([[1., 0.],
               [0., 1.]])
    """
    return _la.expm(_square("expm", A))


def sqrtm(A, disp=True, blocksize=64):  # noqa: N803  (SciPy's name)
    """Return the principal square root of `A`, as `scipy.linalg.sqrtm`, for real results.

    A matrix with an eigenvalue on the closed negative real axis has no real
    square root: that raises `OpError` (complex results are not supported).
    `disp` and `blocksize` (deprecated in SciPy) are ignored.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.sqrtm([[4.0, 0.0], [0.0, 9.0]])
        array([[2., 0.],
               [0., 3.]])
    """
    del disp, blocksize
    return _la.sqrtm(_square("sqrtm", A))


def logm(A, disp=True):  # noqa: N803  (SciPy's name)
    """Return the principal logarithm of `A`, as `scipy.linalg.logm`, for real results.

    A matrix with an eigenvalue on the closed negative real axis has no real
    logarithm: that raises `OpError`. `disp` (deprecated in SciPy) is ignored.

    Examples:
        >>> import numpy as np, funcgrad.scipy.linalg as fsl
        >>> fsl.logm(np.eye(2) * np.e)
        array([[1., 0.],
               [0., 1.]])
    """
    del disp
    return _la.logm(_square("logm", A))


def solve_sylvester(a, b, q):
    """Return `X` solving `a @ X + X @ b = q`, as `scipy.linalg.solve_sylvester`.

    Differentiable in `a`, `b` and `q`: each rule solves another Sylvester
    equation (`a^T Y + Y b^T = X_bar` for the cotangent).

    Args:
        a: An array or graph node of shape `(..., m, m)`.
        b: An array or graph node of shape `(..., n, n)`.
        q: An array or graph node of shape `(..., m, n)`.

    Returns:
        An array of shape `(..., m, n)`, or a node.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.solve_sylvester([[1.0]], [[2.0]], [[6.0]])
        array([[2.]])
    """
    a, b, q = _square("solve_sylvester", a), _square("solve_sylvester", b), _arr(q)
    m, n = _shape_of(a)[-1], _shape_of(b)[-1]
    if len(_shape_of(q)) < 2 or tuple(_shape_of(q)[-2:]) != (m, n):
        raise _OpError(
            f"funcgrad.scipy.linalg.solve_sylvester: q must have shape (..., {m}, {n}) for a "
            f"of shape {tuple(_shape_of(a))} and b of shape {tuple(_shape_of(b))}, got "
            f"{tuple(_shape_of(q))}"
        )
    return _la.solve_sylvester(a, b, q)


def _perm_of(piv):
    """The row order `perm` with `P^T a = a[perm]` from LAPACK's pivots (row i swapped with piv[i])."""
    piv = _np.asarray(_to_device(piv, "cpu"))  # a CuPy piv (lu_factor's on a GPU) too
    n = piv.shape[-1]
    perms = _np.empty(piv.shape, dtype=_np.intp)
    for i in _np.ndindex(*piv.shape[:-1]):
        perm = _np.arange(n)
        for row, other in enumerate(piv[i]):
            perm[row], perm[other] = perm[other], perm[row]
        perms[i] = perm
    return perms


def lu_factor(a, overwrite_a=False, check_finite=True):
    """Return `(lu, piv)`: the LU factorization of `a` with partial pivoting, as `scipy.linalg.lu_factor`.

    `lu` holds `U` in its upper triangle and the unit lower `L` below it
    (`P^T a = L U`); it is differentiable in `a` (where the pivots do not
    change). `piv` is SciPy's pivot array (row `i` was swapped with row
    `piv[i]`), a plain integer array. Square matrices, and stacks of them.

    Args:
        a: An array or graph node of shape `(..., n, n)`.
        overwrite_a: Ignored.
        check_finite: Ignored.

    Returns:
        The pair `(lu, piv)`.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> lu, piv = fsl.lu_factor([[1.0, 2.0], [3.0, 4.0]])
        >>> lu, piv
        (array([[3.        , 4.        ],
               [0.33333333, 0.66666667]]), array([1, 1], dtype=int32))
    """
    del overwrite_a, check_finite
    import scipy.linalg

    a = _square("lu_factor", a)
    lu = _la.lu_factor(a)
    on_device = _nla._value_of(a)
    value = _np.asarray(_to_device(on_device, "cpu"))  # SciPy's pivots, from a host copy
    piv = _np.empty((*value.shape[:-2], value.shape[-1]), dtype=_np.int32)
    for i in _np.ndindex(*value.shape[:-2]):
        work = value[i].astype(_np.float32) if value.dtype == _np.float16 else value[i]
        piv[i] = scipy.linalg.lu_factor(work, check_finite=False)[1]
    return lu, _to_device(piv, _device_of(on_device))  # on a's GPU, as cupyx.scipy's


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Return `x` solving `a x = b` (or `a^T x = b`) from `lu_factor(a)`, as `scipy.linalg.lu_solve`.

    Differentiable in `lu` and `b`.

    Args:
        lu_and_piv: The pair `(lu, piv)` of `lu_factor`.
        b: An array or graph node of shape `(n,)` or `(n, k)` (or a stack
            of `(n, k)` matrices for a stack of factorizations).
        trans: 0 (`a x = b`), 1 (`a^T x = b`) or 2 (`a^H x = b`).
        overwrite_b: Ignored.
        check_finite: Ignored.

    Returns:
        An array shaped like `b`, or a node.

    Examples:
        >>> import funcgrad.scipy.linalg as fsl
        >>> fsl.lu_solve(fsl.lu_factor([[1.0, 2.0], [3.0, 4.0]]), [5.0, 11.0])
        array([1., 2.])
    """
    del overwrite_b, check_finite
    lu, piv = lu_and_piv
    lu, b = _arr(lu), _arr(b)
    perm = _perm_of(piv)
    vector = len(_shape_of(b)) == 1
    col = _la.reshape(b, shape=(*_shape_of(b), 1)) if vector else b
    if trans in (0, "N"):
        y = solve_triangular(lu, _la._permuted_rows(col, perm), lower=True, unit_diagonal=True)
        x = solve_triangular(lu, y, lower=False)
    elif trans in (1, 2, "T", "C"):
        if trans in (2, "C"):  # a^H = conj(a)^T, and conj(lu) factors conj(a)
            lu = _conjugated(lu)
        z = solve_triangular(lu, col, trans=1, lower=False)
        w = solve_triangular(lu, z, trans=1, lower=True, unit_diagonal=True)
        x = _la._permuted_rows(w, _np.argsort(perm, axis=-1))
    else:
        raise _OpError(f"funcgrad.scipy.linalg.lu_solve: trans={trans!r} must be 0, 1 or 2")
    return _la.reshape(x, shape=_shape_of(b)) if vector else x
