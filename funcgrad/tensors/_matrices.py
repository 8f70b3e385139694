"""Matrix functions at the top level of `funcgrad` (PyTorch's older names of `torch.linalg`'s).

`svd`, `qr`, `cholesky`, `slogdet`, `logdet`, `pinverse`, `matrix_power`,
`matrix_exp`, `cholesky_solve`, `cholesky_inverse`, with the signatures and
conventions of those names (`svd` returns `V`, not `Vh`, and is reduced by
default; `qr` takes `some`; `cholesky` takes `upper`).
"""

from __future__ import annotations

import numpy as np

from funcgrad.tensors import return_types as _rt
from funcgrad.tensors.tensor_class import Tensor, _new_like

__all__ = [
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "logdet",
    "matrix_exp",
    "matrix_power",
    "pinverse",
    "qr",
    "slogdet",
    "svd",
]


class _Linalg:
    """`funcgrad.tensors.linalg`, looked up when first used."""

    def __getattr__(self, name):
        # NOTE: cycle: linalg imports functions, which re-exports this module
        from funcgrad.tensors import linalg

        return getattr(linalg, name)


_la = _Linalg()


def _mT(t):  # noqa: N802
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import transpose

    return transpose(t, -2, -1)


def svd(input, some=True, compute_uv=True):  # noqa: A002
    """Return `(U, S, V)` with `input = U @ diag(S) @ V^H` (reduced if `some`).

    With `compute_uv=False`, `U` and `V` are zeros (as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> torch.svd(torch.tensor([[3.0, 0.0], [0.0, 4.0]])).S
        tensor([4., 3.])
    """
    if not compute_uv:
        S = _la.svdvals(input)
        m, n = input.shape[-2:]
        k = min(m, n)
        shape_u = (*input.shape[:-2], m, k if some else m)
        shape_v = (*input.shape[:-2], n, k if some else n)
        zeros = lambda s: _new_like(Tensor, np.zeros(s, dtype=input.dtype), None)  # noqa: E731
        return _rt.svd(zeros(shape_u), S, zeros(shape_v))
    U, S, Vh = _la.svd(input, full_matrices=not some)
    V = _mT(Vh)
    if np.dtype(V.dtype).kind == "c":
        V = _la._conj(V)
    return _rt.svd(U, S, V)


def qr(input, some=True):  # noqa: A002
    """Return `(Q, R)` of (each matrix in) `input`, reduced if `some`, else complete.

    Examples:
        >>> import funcgrad as torch
        >>> torch.qr(torch.eye(2)).R
        tensor([[1., 0.],
                [0., 1.]])
    """
    Q, R = _la.qr(input, "reduced" if some else "complete")
    return _rt.qr(Q, R)


def cholesky(input, upper=False):  # noqa: A002
    """Return the Cholesky factor of (each positive-definite matrix in) `input`: lower, or `upper`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    return _la.cholesky(input, upper=bool(upper))


def cholesky_solve(B, L, upper=False):  # noqa: N803
    """Return `X` with `A @ X = B`, given the Cholesky factor `L` of `A` (`upper`: `A = U^H U`).

    Examples:
        >>> import funcgrad as torch
        >>> L = torch.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> torch.cholesky_solve(torch.tensor([[4.0], [2.0]]), L)
        tensor([[1.],
                [0.]])
    """
    Lh = _la._conj(_mT(L))
    A = (Lh @ L) if upper else (L @ Lh)
    return _la.solve(A, B)


def cholesky_inverse(L, upper=False):  # noqa: N803
    """Return the inverse of `A` from its Cholesky factor `L` (`upper`: `A = U^H U`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.cholesky_inverse(torch.tensor([[2.0, 0.0], [0.0, 1.0]]))
        tensor([[0.2500, 0.0000],
                [0.0000, 1.0000]])
    """
    Lh = _la._conj(_mT(L))
    return _la.inv((Lh @ L) if upper else (L @ Lh))


def slogdet(input):  # noqa: A002
    """Return `(sign, logabsdet)` of (each matrix in) `input` (`torch.linalg.slogdet`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.slogdet(torch.eye(2)).logabsdet
        tensor(0.)
    """
    sign, logabs = _la.slogdet(input)
    return _rt.slogdet(sign, logabs)


def logdet(input):  # noqa: A002
    """Return the log of the determinant: NaN for a negative one, -inf for a singular matrix.

    Examples:
        >>> import funcgrad as torch
        >>> torch.logdet(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
    """
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import where

    sign, logabs = _la.slogdet(input)
    if np.dtype(input.dtype).kind == "c":
        # NOTE: cycle: functions re-exports _math and this module
        from funcgrad.tensors._math import angle

        return logabs + 1j * angle(sign)
    return where(sign.detach() < 0, float("nan"), logabs)


def pinverse(input, rcond=1e-15):  # noqa: A002
    """Return the pseudo-inverse, singular values below `rcond` times the largest taken as zero.

    Examples:
        >>> import funcgrad as torch
        >>> torch.pinverse(torch.tensor([[2.0, 0.0], [0.0, 0.0]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.0000]])
    """
    return _la.pinv(input, rtol=rcond)


def matrix_power(input, n):  # noqa: A002
    """Return `input` to the integer power `n` (`torch.linalg.matrix_power`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.matrix_power(torch.tensor([[1.0, 1.0], [0.0, 1.0]]), 2)
        tensor([[1., 2.],
                [0., 1.]])
    """
    return _la.matrix_power(input, n)


def matrix_exp(input):  # noqa: A002
    """Return the matrix exponential (`torch.linalg.matrix_exp`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.matrix_exp(torch.zeros(1, 1))
        tensor([[1.]])
    """
    return _la.matrix_exp(input)
