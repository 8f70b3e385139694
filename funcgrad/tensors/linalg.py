"""`funcgrad.linalg`: PyTorch's `torch.linalg` on tensors, over `funcgrad.numpy.linalg`.

PyTorch's names, signatures and conventions: `dim` not `axis`, batches of
matrices in the leading dimensions, `vector_norm`/`matrix_norm`/`norm` with
PyTorch's `ord` semantics, named tuples for several results (`eigh`,
`slogdet`, `qr`, `svd`, `lstsq` ...), `solve(A, B, left=False)`, `*_ex`
functions returning an `info` tensor. Gradients are those of the functional
core's primitives (inverse, solve, determinant, Cholesky, QR, SVD,
eigendecompositions ...), to any order.

Examples:
    >>> import funcgrad as torch
    >>> A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> torch.linalg.det(A)
    tensor(5., grad_fn=<LinalgDetBackward0>)
    >>> torch.linalg.eigh(A).eigenvalues
    tensor([1.3820, 3.6180], grad_fn=<...>)
"""

from __future__ import annotations

import math
import sys as _sys

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import DtypeError as _DtypeError
from funcgrad.errors import LinAlgError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _linalg
from funcgrad.ops._util import index_of as _index_of
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.tensors import functions as _F
from funcgrad.tensors import return_types as _rt
from funcgrad.tensors._adapters import as_dtype as _as_dtype
from funcgrad.tensors.dtypes import torch_name as _torch_name
from funcgrad.tensors.tensor_class import Tensor, _apply, _new_like, _unwrap_value

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "inv_ex",
    "lstsq",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]


# --- helpers --------------------------------------------------------------------------


def _square(A, op: str, min_dims: int = 2) -> Tensor:
    """Check `A` is a (batch of) square matrix of a floating-point or complex dtype."""
    if not isinstance(A, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.linalg.{op}(): argument 'A' must be Tensor, not {type(A).__name__}"
        )
    if A.dim() < min_dims:
        raise _OpError(
            f"funcgrad.linalg.{op}: The input tensor A must have at least 2 dimensions (got "
            f"shape {list(A.shape)})"
        )
    if A.shape[-1] != A.shape[-2]:
        raise _OpError(
            f"funcgrad.linalg.{op}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    _floating(A, op)
    return A


def _matrix(A, op: str) -> Tensor:
    if not isinstance(A, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.linalg.{op}(): argument 'A' must be Tensor, not {type(A).__name__}"
        )
    if A.dim() < 2:
        raise _OpError(
            f"funcgrad.linalg.{op}: The input tensor A must have at least 2 dimensions (got "
            f"shape {list(A.shape)})"
        )
    _floating(A, op)
    return A


def _floating(A, op: str) -> None:
    if np.dtype(A.dtype).kind not in "fc":
        raise _DtypeError(
            f"funcgrad.linalg.{op}: Expected a floating point or complex tensor as input. Got "
            f"{_torch_name(A.dtype)}"
        )


def _conj(t) -> Tensor:
    return _apply(_ew.conjugate, t) if np.dtype(t.dtype).kind == "c" else t


def _info(A) -> Tensor:
    """The `info` of a `*_ex` function that succeeded: zeros of the batch shape (int32)."""
    return _new_like(Tensor, np.zeros(tuple(A.shape[:-2]), dtype=np.int32), None)


# --- norms --------------------------------------------------------------------------------


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Return the `ord`-norm of the entries of `x` over `dim` (every dim if None).

    `ord` is any number, `inf` (largest absolute value), `-inf` (smallest)
    or 0 (the number of nonzero entries).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.vector_norm(torch.tensor([3.0, -4.0]))
        tensor(5.)
        >>> torch.linalg.vector_norm(torch.tensor([3.0, -4.0]), ord=float("inf"))
        tensor(4.)
    """
    if not isinstance(x, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.linalg.vector_norm(): argument 'x' must be Tensor, not {type(x).__name__}"
        )
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number)):
        raise _ArgumentTypeError(
            f"funcgrad.linalg.vector_norm(): argument 'ord' must be a number, not {ord!r}"
        )
    if np.dtype(x.dtype).kind not in "fc":
        raise _DtypeError(
            f"funcgrad.linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {_torch_name(x.dtype)}"
        )
    return _F._vector_norm(_as_dtype(x, dtype), ord, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    """Return the matrix norm `ord` of (each matrix in) `A`, over the two dims `dim`.

    `ord`: `"fro"` (Frobenius), `"nuc"` (nuclear: the sum of the singular
    values), `inf`/`-inf` (largest/smallest absolute row sum), `1`/`-1`
    (column sum), `2`/`-2` (largest/smallest singular value).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.matrix_norm(torch.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
        tensor(6.)
    """
    A = _matrix(A, "matrix_norm")
    A = _as_dtype(A, dtype)
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise _OpError(
            f"funcgrad.linalg.matrix_norm: Order {ord} not supported (give 'fro', 'nuc', "
            f"inf, -inf, 1, -1, 2 or -2)"
        )
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else None
    if dims is None or len(dims) != 2:
        raise _OpError(f"funcgrad.linalg.matrix_norm: dim must be a 2-tuple. Got {dim!r}")
    nd = A.dim()
    a, b = (_normalize_axis(_index_of(d, "matrix_norm", "dim"), nd, "matrix_norm")[0] for d in dims)
    if a == b:
        raise _OpError(f"funcgrad.linalg.matrix_norm: dims must be different. Got ({a}, {b})")
    if ord == "fro":
        return _F._vector_norm(A, 2, (a, b), keepdim)
    if A.numel() == 0 and ord != "nuc":
        raise _OpError(
            "funcgrad.linalg.matrix_norm: linalg.matrix_norm cannot compute the norm of an "
            "empty matrix for this order"
        )
    moved = A if (a, b) == (nd - 2, nd - 1) else _F.movedim(A, (a, b), (nd - 2, nd - 1))
    np_ord = {"nuc": "nuc", math.inf: np.inf, -math.inf: -np.inf}.get(ord, ord)
    out = _apply(lambda m: fnp.linalg.matrix_norm(m, ord=np_ord), moved)
    if keepdim:
        for d in sorted((a, b)):
            out = _F.unsqueeze(out, d)
    return out


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Return a vector or matrix norm of `A`, as `torch.linalg.norm` chooses.

    With `dim` an int (or 1-tuple): `vector_norm(ord or 2)`; a pair:
    `matrix_norm(ord or "fro")`. With `dim=None`: the 2-norm of every entry
    if `ord` is None; otherwise `A` must be 1-D (a vector norm) or 2-D (a
    matrix norm).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.norm(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(5.)
    """
    if not isinstance(A, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.linalg.norm(): argument 'A' must be Tensor, not {type(A).__name__}"
        )
    if dim is not None:
        dims = (dim,) if hasattr(dim, "__index__") else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise _OpError(
            f"funcgrad.linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
        )
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    raise _OpError(
        f"funcgrad.linalg.norm: If dim is not specified but ord is, the input must be 1D or "
        f"2D. Got {A.dim()}D."
    )


def cond(A, p=None):  # noqa: A002
    """Return the condition number of (each matrix in) `A` in the norm `p` (None: 2).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.cond(torch.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor(2.)
    """
    A = _matrix(A, "cond")
    if p in (None, 2, -2):
        s = svdvals(A)
        big, small = _F.amax(s, -1), _F.amin(s, -1)
        return big / small if p in (None, 2) else small / big
    return matrix_norm(A, p) * matrix_norm(inv(_square(A, "cond")), p)


# --- inverses, determinants, solves --------------------------------------------------------


def inv(A):
    """Return the inverse of (each matrix in) `A`.

    Raises:
        funcgrad.errors.LinAlgError: If a matrix is singular.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.inv(torch.tensor([[2.0, 0.0], [0.0, 4.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    return _apply(_linalg.inv, _square(A, "inv"))


def inv_ex(A, *, check_errors=False):
    """Return `(inverse, info)`: the inverse, and 0 per matrix (a singular matrix raises).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.inv_ex(torch.eye(2)).info
        tensor(0, dtype=funcgrad.int32)
    """
    return _rt.linalg_inv_ex(inv(A), _info(A))


def det(A):
    """Return the determinant of (each matrix in) `A`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(-2.)
    """
    return _apply(_linalg.det, _square(A, "det"))


def slogdet(A):
    """Return `(sign, logabsdet)` of (each matrix in) `A` (the gradient flows through `logabsdet`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.slogdet(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sign
        tensor(-1.)
    """
    A = _square(A, "slogdet")
    sign, logabs = _apply(lambda a: tuple(fnp.linalg.slogdet(a)), A)
    if logabs.requires_grad and not sign.requires_grad:  # recorded, with a zero gradient
        sign = _apply(lambda s, la: _ew.add(s, _ew.multiply(la, 0.0)), sign, logabs)
    return _rt.linalg_slogdet(sign, logabs)


def _as_matrix_rhs(A, B):
    """PyTorch's rule: `B` is a (batch of) vector(s) when 1-D or of `A`'s shape less the last dim."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A, B, *, left=True):
    """Return `X` with `A @ X = B` (`X @ A = B` if not `left`); `B` may be a (batch of) vector(s).

    Raises:
        funcgrad.errors.LinAlgError: If a matrix is singular.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.solve(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), torch.tensor([2.0, 2.0]))
        tensor([1.0000, 0.5000])
    """
    A = _square(A, "solve")
    if not isinstance(B, Tensor):
        raise _ArgumentTypeError("funcgrad.linalg.solve(): argument 'B' must be Tensor")
    if A.dtype != B.dtype:
        raise _DtypeError(
            f"funcgrad.linalg.solve: Expected A and B to have the same dtype, but found A of "
            f"type {_torch_name(A.dtype)} and B of type {_torch_name(B.dtype)} instead"
        )
    vector = _as_matrix_rhs(A, B)
    if not left:
        if vector:
            raise _OpError(
                "funcgrad.linalg.solve: Vector broadcasting of the left hand side is not "
                "supported for left=False"
            )
        At, Bt = _F.transpose(A, -2, -1), _F.transpose(B, -2, -1)
        return _F.transpose(solve(At, Bt), -2, -1)
    if vector:
        Bm = _F.unsqueeze(B, -1)
        return _F.squeeze(_apply(_linalg.solve, A, Bm), -1)
    return _apply(_linalg.solve, A, B)


def solve_ex(A, B, *, left=True, check_errors=False):
    """Return `(result, info)`: `solve(A, B, left=left)` and 0 per matrix.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.solve_ex(torch.eye(2), torch.ones(2)).result
        tensor([1., 1.])
    """
    return _rt.linalg_solve_ex(solve(A, B, left=left), _info(A))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """Return `X` with `A @ X = B` (`X @ A = B` if not `left`), `A` triangular.

    Only the triangle `upper` names is read (with ones on the diagonal if `unitriangular`).

    Examples:
        >>> import funcgrad as torch
        >>> A = torch.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> torch.linalg.solve_triangular(A, torch.tensor([[2.0], [2.0]]), upper=False)
        tensor([[1.],
                [1.]])
    """
    A = _square(A, "solve_triangular")
    T = _F.triu(A) if upper else _F.tril(A)
    if unitriangular:
        eye = np.eye(A.shape[-1], dtype=A.dtype)
        T = T - T * _new_like(Tensor, eye, None) + _new_like(Tensor, eye, None)
    return solve(T, B, left=left) if B.dim() > 1 else solve(T, B)


def cholesky(A, *, upper=False):
    """Return the Cholesky factor of (each Hermitian positive-definite matrix in) `A`: lower, or `upper`.

    Raises:
        funcgrad.errors.LinAlgError: If a matrix is not positive-definite.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    L = _apply(_linalg.cholesky, _square(A, "cholesky"))
    return _conj(_F.transpose(L, -2, -1)) if upper else L


def cholesky_ex(A, *, upper=False, check_errors=False):
    """Return `(L, info)`: the Cholesky factor and 0 per matrix.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.cholesky_ex(torch.eye(2)).info
        tensor(0, dtype=funcgrad.int32)
    """
    return _rt.linalg_cholesky_ex(cholesky(A, upper=upper), _info(A))


def matrix_power(A, n):
    """Return `A` to the integer power `n` (negative: of the inverse).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.matrix_power(torch.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    if not isinstance(A, Tensor) or A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise _OpError(
            f"funcgrad.linalg.matrix_power: A must be batches of square matrices (got shape "
            f"{list(getattr(A, 'shape', ()))})"
        )
    n = _index_of(n, "matrix_power", "n")
    if n < 0:
        A, n = inv(A), -n
    if n == 0:  # the identity, recorded (a zero gradient), as in PyTorch
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), tuple(A.shape))
        return _apply(lambda a: _ew.add(_ew.multiply(a, 0.0), eye), A)
    out = None
    base = A
    while n:
        if n & 1:
            out = base if out is None else _apply(_linalg.matmul, out, base)
        n >>= 1
        if n:
            base = _apply(_linalg.matmul, base, base)
    return out


def matrix_exp(A):
    """Return the matrix exponential of (each matrix in) `A`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.matrix_exp(torch.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _apply(_linalg.expm, _square(A, "matrix_exp"))


# --- decompositions ---------------------------------------------------------------------------


def qr(A, mode="reduced"):
    """Return `(Q, R)` of (each matrix in) `A`: `mode` `"reduced"`, `"complete"` or `"r"` (Q empty).

    Examples:
        >>> import funcgrad as torch
        >>> Q, R = torch.linalg.qr(torch.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> R.shape
        funcgrad.Size([2, 2])
    """
    A = _matrix(A, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise _OpError(
            f"funcgrad.linalg.qr: qr received unrecognized mode '{mode}' but expected one of "
            f"'reduced' (default), 'r', or 'complete'"
        )
    if mode == "r":
        R = _apply(lambda a: fnp.linalg.qr(a, mode="reduced")[1], A)
        empty = _F.reshape(A, -1)[:0]  # Q is empty (recorded, as PyTorch's)
        return _rt.linalg_qr(empty, R)
    Q, R = _apply(lambda a: tuple(fnp.linalg.qr(a, mode=mode)), A)
    return _rt.linalg_qr(Q, R)


def eigh(A, UPLO="L"):  # noqa: N803
    """Return `(eigenvalues, eigenvectors)` of (each Hermitian matrix in) `A`, ascending.

    Only the triangle `UPLO` (`"L"` or `"U"`) is read.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.eigh(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues
        tensor([1., 2.])
    """
    A = _square(A, "eigh")
    _uplo(UPLO, "eigh")
    w, v = _apply(lambda a: tuple(fnp.linalg.eigh(_hermitian(a, UPLO), UPLO=UPLO)), A)
    return _rt.linalg_eigh(w, v)


def eigvalsh(A, UPLO="L"):  # noqa: N803
    """Return the eigenvalues of (each Hermitian matrix in) `A`, ascending.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.eigvalsh(torch.tensor([[2.0, 1.0], [1.0, 2.0]]))
        tensor([1., 3.])
    """
    A = _square(A, "eigvalsh")
    _uplo(UPLO, "eigvalsh")
    return _apply(lambda a: fnp.linalg.eigvalsh(_hermitian(a, UPLO), UPLO=UPLO), A)


def _hermitian(a, uplo):
    """The Hermitian matrix of `a`'s triangle `uplo`, with PyTorch's gradient.

    Its value is the triangle and its conjugate transpose (what LAPACK
    reads); its gradient is the one of `(a + a^H) / 2`, which is PyTorch's:
    the symmetric gradient, not one confined to the triangle.
    """
    half = _ew.multiply(_ew.add(a, _conj_t(a)), 0.5)
    tri = _linalg.tril(a, k=0) if uplo in ("L", "l") else _linalg.triu(a, k=0)
    strict = _linalg.tril(a, k=-1) if uplo in ("L", "l") else _linalg.triu(a, k=1)
    read = _ew.add(tri, _conj_t(strict))
    return _ew.add(half, fnp.stop_gradient(_ew.subtract(read, half)))


def _conj_t(a):
    t = fnp.swapaxes(a, -1, -2)
    return _ew.conjugate(t) if np.dtype(a.dtype).kind == "c" else t


def _uplo(uplo, op):
    if uplo not in ("L", "U", "l", "u"):
        raise _OpError(
            f"funcgrad.linalg.{op}: Expected UPLO argument to be 'L' or 'U', but got {uplo}"
        )


def eig(A):
    """Return `(eigenvalues, eigenvectors)` of (each square matrix in) `A`, complex.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.eig(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.real
        tensor([2., 1.])
    """
    A = _square(A, "eig")
    w, v = _apply(lambda a: tuple(fnp.linalg.eig(a)), A)
    return _rt.linalg_eig(_complex(w), _complex(v))


def eigvals(A):
    """Return the eigenvalues of (each square matrix in) `A`, complex.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.eigvals(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).real
        tensor([2., 1.])
    """
    return _complex(_apply(fnp.linalg.eigvals, _square(A, "eigvals")))


def _complex(t):
    if np.dtype(t.dtype).kind == "c":
        return t
    return t.to(np.complex64 if t.dtype == np.float32 else np.complex128)


def svd(A, full_matrices=True, *, driver=None):
    """Return `(U, S, Vh)` with `A = U @ diag(S) @ Vh` for (each matrix in) `A`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.svd(torch.tensor([[3.0, 0.0], [0.0, 4.0]])).S
        tensor([4., 3.])
    """
    A = _matrix(A, "svd")
    U, S, Vh = _apply(lambda a: tuple(fnp.linalg.svd(a, full_matrices=bool(full_matrices))), A)
    return _rt.linalg_svd(U, S, Vh)


def svdvals(A, *, driver=None):
    """Return the singular values of (each matrix in) `A`, descending.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.svdvals(torch.tensor([[3.0, 0.0], [0.0, 4.0]]))
        tensor([4., 3.])
    """
    return _apply(fnp.linalg.svdvals, _matrix(A, "svdvals"))


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """Return the pseudo-inverse of (each matrix in) `A`.

    Singular values at most `max(atol, rtol * largest)` are taken as zero
    (PyTorch's default `rtol`: `eps * max(m, n)` when neither is given).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.pinv(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    A = _matrix(A, "pinv")
    if atol is not None and not isinstance(atol, (int, float)):
        raise _OpError("funcgrad.linalg.pinv: a tensor atol is not supported; give a number")
    if rtol is None:
        rtol = (
            float(np.finfo(A.dtype).eps) * max(A.shape[-2:]) if atol is None or atol == 0 else 0.0
        )
    if atol:
        s = svdvals(A).detach()
        top = float(s.max()) if s.numel() else 0.0
        rtol = max(float(rtol), atol / top) if top else float(rtol)
    return _apply(lambda a: fnp.linalg.pinv(a, rtol=rtol, hermitian=hermitian), A)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """Return the number of singular values above the tolerance (int64, no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
    """
    A = _matrix(A, "matrix_rank")
    s = np.asarray(_unwrap_value(svdvals(A.detach())))
    top = s.max(axis=-1, initial=0.0) if s.size else np.zeros(s.shape[:-1])
    if tol is not None:
        atol = tol
    if rtol is None:
        rtol = np.finfo(A.dtype).eps * max(A.shape[-2:]) if not atol else 0.0
    bound = np.maximum(0.0 if atol is None else atol, rtol * top)
    rank = (s > bound[..., None]).sum(axis=-1)
    return _new_like(Tensor, np.asarray(rank, dtype=np.int64), None)


def lstsq(A, B, rcond=None, *, driver=None):
    """Return the least-squares solution of `A @ X = B` as `(solution, residuals, rank, singular_values)`.

    The solution is differentiable (through the pseudo-inverse). As with
    PyTorch's default CPU driver (`gelsy`), `residuals` and
    `singular_values` are empty and `rank` is the numerical rank.

    Examples:
        >>> import funcgrad as torch
        >>> A = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        >>> torch.linalg.lstsq(A, torch.tensor([[1.0], [2.0], [3.0]])).solution
        tensor([[1.],
                [2.]])
    """
    A = _matrix(A, "lstsq")
    if not isinstance(B, Tensor):
        raise _ArgumentTypeError("funcgrad.linalg.lstsq(): argument 'B' must be Tensor")
    vector = B.dim() == A.dim() - 1
    Bm = _F.unsqueeze(B, -1) if vector else B
    solution = _apply(_linalg.matmul, pinv(A, rtol=rcond) if rcond else pinv(A), Bm)
    if vector:
        solution = _F.squeeze(solution, -1)
    empty = _new_like(Tensor, np.zeros((0,), dtype=A.dtype), None)
    return _rt.linalg_lstsq(solution, empty, matrix_rank(A), empty)


# --- products and helpers -----------------------------------------------------------------------


def matmul(input, other):  # noqa: A002
    """Return the matrix product of two tensors (`funcgrad.matmul`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.matmul(torch.eye(2), torch.ones(2))
        tensor([1., 1.])
    """
    # NOTE: cycle: via functions
    from funcgrad.tensors._generated import matmul as _matmul

    return _matmul(input, other)


def multi_dot(tensors):
    """Return the product of the matrices (the first and last may be vectors), left to right.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.multi_dot([torch.ones(2), torch.eye(2), torch.ones(2)])
        tensor(2.)
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise _OpError("funcgrad.linalg.multi_dot: multi_dot(): expected at least 2 tensors")
    for i, t in enumerate(tensors):
        ok = t.dim() == 2 or (t.dim() == 1 and i in (0, len(tensors) - 1))
        if not ok:
            raise _OpError(
                f"funcgrad.linalg.multi_dot: tensor {i} must be 2D (the first and last may be "
                f"1D), but got {t.dim()}D"
            )
    # NOTE: cycle: via functions
    from funcgrad.tensors._generated import matmul as _matmul

    out = tensors[0]
    for t in tensors[1:]:
        out = _matmul(out, t)
    return out


def vecdot(x, y, *, dim=-1):
    """Return the dot products of the vectors along `dim` (`x` conjugated), broadcasting the rest.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.vecdot(torch.ones(2, 3), torch.ones(3))
        tensor([3., 3.])
    """
    nd = max(x.dim(), y.dim())
    axis = _normalize_axis(_index_of(dim, "vecdot", "dim"), nd, "vecdot")[0] - nd
    nx = x.shape[axis] if x.dim() >= -axis else 1
    ny = y.shape[axis] if y.dim() >= -axis else 1
    if nx != ny and x.dim() == y.dim() == 1:  # two vectors: a dot product, no broadcasting
        raise _OpError(
            f"funcgrad.linalg.vecdot: inconsistent tensor size, expected tensor [{nx}] and src "
            f"[{ny}] to have the same number of elements, but got {nx} and {ny} elements "
            f"respectively"
        )
    return _F.sum(_conj(x) * y, axis)


def cross(input, other, *, dim=-1):  # noqa: A002
    """Return the cross product of 3-vectors along `dim` (default -1), broadcasting the rest.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.cross(torch.tensor([0.0, 1.0, 0.0]), torch.tensor([0.0, 0.0, 1.0]))
        tensor([1., 0., 0.])
    """
    return _F.cross(input, other, dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """Return the `offset` diagonals of the matrices of `A` (over `dim1`, `dim2`), as the last dim.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.diagonal(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([1., 4.])
    """
    nd = A.dim()
    a = _normalize_axis(_index_of(dim1, "diagonal", "dim1"), nd, "diagonal")[0]
    b = _normalize_axis(_index_of(dim2, "diagonal", "dim2"), nd, "diagonal")[0]
    return _apply(lambda x: fnp.diagonal(x, offset, a, b), A)


def tensorinv(A, ind=2):
    """Return the tensor inverse of `A` over its first `ind` dims.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape
        funcgrad.Size([2, 2, 4])
    """
    return _apply(lambda a: fnp.linalg.tensorinv(a, ind=ind), A)


def tensorsolve(A, B, dims=None):
    """Return `X` with `tensordot(A, X, X.dim()) = B`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.tensorsolve(torch.eye(4).reshape(4, 2, 2), torch.ones(4)).shape
        funcgrad.Size([2, 2])
    """
    return _apply(lambda a, b: fnp.linalg.tensorsolve(a, b, axes=dims), A, B)


def vander(x, *, N=None):  # noqa: N803
    """Return the Vandermonde matrix of `x`: columns `x**0, x**1, ... x**(N-1)`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.linalg.vander(torch.tensor([1.0, 2.0]))
        tensor([[1., 1.],
                [1., 2.]])
    """
    n = x.shape[-1] if N is None else _index_of(N, "vander", "N")
    if n <= 1:
        raise _OpError(f"funcgrad.linalg.vander: N must be greater than 1. Got {n}")
    cols = [x**k if k else x * 0 + 1 for k in range(n)]
    return _F.stack(cols, -1)


# `import funcgrad.linalg` works as `import torch.linalg` does (this module is funcgrad.linalg)
_sys.modules.setdefault("funcgrad.linalg", _sys.modules[__name__])
