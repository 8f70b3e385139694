"""The general (non-symmetric) eigendecomposition: `eigvals` and `eig_vectors`.

`A = V diag(w) V^-1` for a diagonalizable square matrix, real or complex;
the eigenvalues and eigenvectors are complex in general (NumPy returns real
arrays when every eigenvalue of a real matrix is real; so do these).

Derivatives (the functional API's convention, docs/concepts/complex.md: a
VJP is the *transpose* of the JVP, and the engine takes the real part for a
real input):

* eigenvalues: `dw = diag(V^-1 dA V)`, so `A_bar = V^-T diag(w_bar) V^T`.
* eigenvectors: `dV = V (F o (V^-1 dA V))` with `F_ij = 1 / (w_j - w_i)` off
  the diagonal, then two corrections that keep the gauge: each column keeps
  norm 1 (remove `v_j Re(v_j^H dv_j)`) and its largest entry stays real
  (remove the phase rotation `i v_j Im(dv_kj) / v_kj`).

The gauge: NumPy's eigenvectors have norm 1 and their largest entry real,
of a sign (a phase) left to LAPACK's iterations, which can flip under a
tiny change of the matrix. `eig_vectors` turns each column so that entry is
real and *positive*, which makes it a smooth function of the matrix (where
the largest entry is unique) with the derivative above. A function that
does not depend on the eigenvectors' phases (JAX's assumption) gets the
same gradient as in JAX.

Repeated eigenvalues give infinite entries of `F`, so non-finite gradients
through the eigenvectors, as in PyTorch and JAX; the eigenvalues alone stay
differentiable while the matrix is diagonalizable.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from funcgrad.backend import on_host
from funcgrad.graph.node import Array
from funcgrad.ops._util import value_of
from funcgrad.ops.elementwise import conjugate, imag, multiply, real
from funcgrad.ops.linalg import (
    _batch,
    _column,
    _inverse_gaps,
    _largest_entries,
    _largest_entry_phase,
    _mT,
    _row,
    _spread,
    inv,
    matmul,
)
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import Draw, Drawn, Names, Primitive, Sample, register


def _eig_sample(g: Draw) -> Drawn:
    """A stack of diagonalizable matrices `P D P^-1` with well-separated eigenvalues.

    `P` is a well-conditioned random matrix; for real samples `D` may hold a
    2 x 2 rotation block, whose eigenvalues are a complex pair (so a real
    matrix with complex eigenvectors is drawn too).
    """
    n = g.integers(1, 4)
    batch = _batch(g)
    mats = []
    for _ in range(int(np.prod(batch))):
        # a reflection (orthogonal, from real draws even for complex samples) plus a little
        # noise: well conditioned, so float32 gradients stay close to float64 ones
        u = np.real(g.array((n,), 0.5, 1.5)) * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        p = np.eye(n) - 2.0 * np.outer(u, u) / float(u @ u) + 0.1 * g.array((n, n), -1.0, 1.0)
        d = np.diag(np.real(_spread(g, n, -1.0)) * 1.5).astype(p.dtype)
        if n >= 2 and p.dtype.kind != "c" and g.boolean():
            a, b = d[0, 0], 0.8 + abs(float(d[1, 1]))
            d[:2, :2] = [[a, -b], [b, a]]  # eigenvalues a +- ib
        mats.append(p @ d @ np.linalg.inv(p))
    return (np.stack(mats).reshape((*batch, n, n)),), {}


def _eig_forward(which: int):  # type: ignore[no-untyped-def]
    def forward(xp, x):  # type: ignore[no-untyped-def]
        if xp is not np:
            # NOTE: NumPy's (LAPACK's geev), on the host, as PyTorch's linalg.eig on CUDA:
            # CuPy's eig (cuSOLVER's geev) returns complex arrays always, its eigenvalues in
            # an order of its own, which eigvals and eig_vectors (two calls) must share
            return on_host(forward, np, x)
        half = x.dtype == np.float16  # LAPACK has no half precision
        w, v = xp.linalg.eig(x.astype(np.float32) if half else x)
        out = w if which == 0 else _positive_gauge(xp, v)
        if half:
            return out.astype(np.complex64 if out.dtype.kind == "c" else np.float16)
        return out

    return forward


def _positive_gauge(xp: ModuleType, v: Array) -> Array:
    """`v` with each column turned so that its entry of largest modulus is real and positive.

    NOTE: LAPACK leaves the sign (real case) or phase of each eigenvector to
    its iterations, which can flip it under a tiny change of the matrix; this
    gauge makes the eigenvectors a function that is smooth wherever the
    largest entry is unique, so its derivative exists (NumPy's only keeps
    that entry real, of either sign).
    """
    return v * _largest_entry_phase(xp, v, -2)


def _eigvals_vjp(ct: Array, out: Array, x: Array) -> Array:
    v = eig_vectors(x)
    return matmul(multiply(_mT(inv(v)), _row(ct)), _mT(v))  # V^-T diag(ct) V^T


def _eigvals_jvp(x_t: Array, out: Array, x: Array) -> Array:
    v = eig_vectors(x)
    return sum_(multiply(_mT(inv(v)), matmul(x_t, v)), axis=(-2,), keepdims=False)


eigvals: Primitive = register(
    Primitive(
        name="eigvals",
        forward=_eig_forward(0),
        vjp=(_eigvals_vjp,),
        jvp=(_eigvals_jvp,),
        sample=Sample(_eig_sample, complex=True),
        doc="eigenvalues of a general square matrix (complex unless all are real)",
        names=Names(numpy="linalg.eigvals"),
    )
)


def _eig_vectors_jvp(x_t: Array, out: Array, x: Array) -> Array:
    w = eigvals(x)
    f = _inverse_gaps(_row(w) - _column(w))  # 1 / (w_j - w_i)
    dv = matmul(out, multiply(f, matmul(inv(out), matmul(x_t, out))))
    # unit norm: remove v_j Re(v_j^H dv_j)
    dv = dv - multiply(out, _row(real(sum_(conjugate(out) * dv, axis=(-2,), keepdims=False))))
    # the largest entry stays real: remove the rotation i v_j Im(dv_kj) / v_kj
    mask, vk = _largest_entries(out)
    phase = _row(sum_(multiply(imag(dv), mask), axis=(-2,), keepdims=False)) / vk
    return dv - multiply(out, phase * 1j) if _is_complex(out) else dv


def _eig_vectors_vjp(ct: Array, out: Array, x: Array) -> Array:
    # the transposes of the three maps of the JVP, in reverse order
    if _is_complex(out):
        mask, vk = _largest_entries(out)
        s = _row(sum_(multiply(ct, out), axis=(-2,), keepdims=False))
        ct = ct - multiply(mask, imag(s) / vk * 1j)
    s = _row(sum_(multiply(ct, out), axis=(-2,), keepdims=False))
    ct = ct - multiply(conjugate(out), real(s))
    w = eigvals(x)
    f = _inverse_gaps(_row(w) - _column(w))
    vi = inv(out)
    return matmul(_mT(vi), matmul(multiply(f, matmul(_mT(out), ct)), _mT(out)))


def _is_complex(v: Array) -> bool:
    return bool(np.dtype(value_of(v).dtype).kind == "c")


eig_vectors: Primitive = register(
    Primitive(
        name="eig_vectors",
        forward=_eig_forward(1),
        vjp=(_eig_vectors_vjp,),
        jvp=(_eig_vectors_jvp,),
        sample=Sample(_eig_sample, complex=True),
        doc=(
            "eigenvectors (columns of norm 1, each with its largest entry real and positive) of "
            "a general square matrix"
        ),
    )
)
