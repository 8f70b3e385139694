"""Differential cases of funcgrad.numpy.linalg and the polynomials built on it (issue #13).

HIPS autograd 1.9.1 differentiates `eigh`, `svd` (`full_matrices=False`,
`compute_uv=False`), `pinv`, `multi_dot` and `norm(ord="nuc")`: those are
compared with autograd. Its other linalg names (`eigvalsh`, `svdvals`,
`qr`, `lstsq`, `matrix_power`, `tensorsolve`, `tensorinv`, `cond`,
`vector_norm`, `matrix_norm`, `outer`, `cross`, `vecdot`, `matmul`,
`matrix_transpose`, `diagonal`, `trace`, `tensordot`) and `vander`,
`polyfit`, `roots` are NumPy's functions without a VJP (NotImplementedError):
those are compared with NumPy's values and central differences (the "fd"
entries of `functional_differences.DIFFERENCES`).

The matrices are drawn well-conditioned, with distinct eigen- and singular
values (gaps near 1), so that the decompositions are differentiable and
central differences valid. Eigen- and singular vectors have arbitrary
signs, which float32 and float64 LAPACK may choose differently: the cases
return them multiplied by their first entry (`v * v[..., :1, :]`), which is
sign-free.
"""

from __future__ import annotations

import numpy as np

from tests.differential.functional_cases import EXEMPT, Example, case

EXEMPT.update(
    {
        "linalg.EighResult": "the named pair eigh returns, a class: the eigh cases cover it",
        "linalg.SVDResult": "the named triple svd returns, a class: the svd cases cover it",
        "linalg.QRResult": "the named pair qr returns, a class: the qr cases cover it",
        "linalg.EigResult": "the named pair eig returns, a class: the eig cases cover it",
    }
)


def _batch(g):
    return g.shape(max_dims=2, max_side=2, empty=False)


def _orthogonal(g, batch, n):
    return np.linalg.qr(g.rng().normal(size=(*batch, n, n)))[0]


def _spread_values(g, batch, k, low=1.0):
    """k values per matrix, gaps near 1, in a random order."""
    base = np.arange(k, dtype=np.float64) + low
    values = base + g.rng().uniform(-0.2, 0.2, size=(*batch, k))
    return g.rng().permuted(values, axis=-1) if k else values


def _symmetric(g, batch, n, low=-1.0):
    """Symmetric matrices with distinct eigenvalues (gaps near 1)."""
    q = _orthogonal(g, batch, n)
    w = _spread_values(g, batch, n, low)
    return np.asarray(q @ (w[..., :, None] * np.swapaxes(q, -1, -2)), dtype=g.dtype)


def _rectangular(g, batch, m, n):
    """(m, n) matrices with distinct singular values near 1, 2, ..., min(m, n)."""
    k = min(m, n)
    s = np.zeros((*batch, m, n))
    idx = np.arange(k)
    s[..., idx, idx] = _spread_values(g, batch, k)
    return np.asarray(_orthogonal(g, batch, m) @ s @ _orthogonal(g, batch, n), dtype=g.dtype)


def _sign_free_columns(m, v):
    return v * v[..., :1, :]


def _sign_free_rows(m, v):
    return v * v[..., :, :1]


def _sym(m, a):
    return (a + m.swapaxes(a, -1, -2)) / 2.0


# --- decompositions ---------------------------------------------------------------------------


@case("linalg.eigh", "eigenvalues")
def _eigh_values(g):
    a = _symmetric(g, _batch(g), g.integers(1, 3))
    uplo = g.choice(("L", "U"))
    return Example((a,), lambda m, a: m.linalg.eigh(_sym(m, a), UPLO=uplo)[0], f"UPLO={uplo}")


@case("linalg.eigh", "eigenvectors")
def _eigh_vectors(g):
    # on (a + a^T) / 2: autograd's gradient treats the input as symmetric, funcgrad's falls
    # on the triangle read; through the symmetrization the two agree
    a = _symmetric(g, _batch(g), g.integers(1, 3))
    return Example((a,), lambda m, a: _sign_free_columns(m, m.linalg.eigh(_sym(m, a))[1]))


def _general(g, batch, n):
    """Diagonalizable matrices P diag(w) P^-1, P near orthogonal, w with gaps near 1."""
    p = _orthogonal(g, batch, n) + 0.1 * g.rng().uniform(-1.0, 1.0, size=(*batch, n, n))
    w = _spread_values(g, batch, n, -1.0)
    return np.asarray(p @ (w[..., :, None] * np.linalg.inv(p)), dtype=g.dtype)


@case("linalg.eig", "eigenvalues")
def _eig_values(g):
    # real eigenvalues here; sorted, so that float32 and float64 LAPACK's orders do not matter
    # (one matrix: autograd sorts 1-D arrays only)
    a = _general(g, (), g.integers(1, 3))
    return Example((a,), lambda m, a: m.sort(m.real(m.linalg.eig(a)[0]), axis=-1))


@case("linalg.eig", "eigenvectors")
def _eig_vectors(g):
    # |v|^2 does not depend on the eigenvectors' signs, which LAPACK leaves open
    a = _general(g, (), 2)
    return Example((a,), lambda m, a: m.abs(m.linalg.eig(a)[1]) ** 2)


@case("linalg.eigvals")
def _eigvals(g):
    a = _general(g, _batch(g), g.integers(1, 3))
    return Example((a,), lambda m, a: m.sort(m.real(m.linalg.eigvals(a)), axis=-1))


@case("linalg.eigvalsh")
def _eigvalsh(g):
    a = _symmetric(g, _batch(g), g.integers(1, 3))
    uplo = g.choice(("L", "U"))
    return Example((a,), lambda m, a: m.linalg.eigvalsh(a, UPLO=uplo), f"UPLO={uplo}")


@case("linalg.svd", "full_matrices=False")
def _svd_reduced(g):
    a = _rectangular(g, _batch(g), g.integers(1, 3), g.integers(1, 3))
    part = g.integers(0, 2)

    def call(m, a):
        out = m.linalg.svd(a, full_matrices=False)[part]
        return (
            _sign_free_columns(m, out)
            if part == 0
            else _sign_free_rows(m, out)
            if part == 2
            else out
        )

    return Example((a,), call, f"{a.shape}, result {part}")


@case("linalg.svd", "compute_uv=False")
def _svd_values(g):
    a = _rectangular(g, _batch(g), g.integers(1, 3), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.svd(a, compute_uv=False), f"{a.shape}")


@case("linalg.svd", "square, full_matrices=True")
def _svd_full_square(g):
    a = _rectangular(g, _batch(g), 2, 2)
    return Example(
        (a,), lambda m, a: _sign_free_rows(m, m.linalg.svd(a)[2]) + m.linalg.svd(a)[1][..., None]
    )


@case("linalg.svd", "hermitian")
def _svd_hermitian(g):
    a = _symmetric(g, _batch(g), g.integers(1, 3), low=0.5)
    return Example((a,), lambda m, a: m.linalg.svd(a, hermitian=True, compute_uv=False))


@case("linalg.svdvals")
def _svdvals(g):
    a = _rectangular(g, _batch(g), g.integers(1, 3), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.svdvals(a), f"{a.shape}")


@case("linalg.qr")
def _qr(g):
    m_, n_ = g.integers(1, 3), g.integers(1, 3)
    a = _rectangular(g, _batch(g), m_, n_)
    modes = ("reduced", "r") + (("complete",) if m_ <= n_ else ())
    mode = g.choice(modes)
    if mode == "r":
        return Example((a,), lambda m, a: m.linalg.qr(a, mode="r"), f"{a.shape}, mode=r")
    part = g.integers(0, 1)
    return Example((a,), lambda m, a: m.linalg.qr(a, mode=mode)[part], f"{a.shape}, {mode}, {part}")


@case("linalg.pinv")
def _pinv(g):
    a = _rectangular(g, _batch(g), g.integers(1, 3), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.pinv(a), f"{a.shape}")


@case("linalg.pinv", "hermitian")
def _pinv_hermitian(g):
    a = _symmetric(g, _batch(g), g.integers(1, 3), low=0.5)
    return Example((a,), lambda m, a: m.linalg.pinv(a, hermitian=True), f"{a.shape}")


@case("linalg.lstsq")
def _lstsq(g):
    n = g.integers(1, 3)
    a = _rectangular(g, (), n + g.integers(0, 2), n)
    b = g.array((a.shape[0],) if g.boolean() else (a.shape[0], 2))
    part = g.choice((0, 1, 3))
    if part == 1 and a.shape[0] == n:
        part = 0  # no residuals when a is square
    return Example(
        (a, b), lambda m, a, b: m.linalg.lstsq(a, b)[part], f"{a.shape}, {b.shape}, {part}"
    )


@case("linalg.matrix_rank", differentiable=False)
def _matrix_rank(g):
    a = _rectangular(g, _batch(g), g.integers(1, 3), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.matrix_rank(a))


# --- products, powers and tensor solves -------------------------------------------------------


@case("linalg.matrix_power")
def _matrix_power(g):
    a = g.matrix(_batch(g), g.integers(1, 3))
    n = g.integers(-3, 4)
    return Example((a,), lambda m, a: m.linalg.matrix_power(a, n), f"n={n}")


@case("linalg.multi_dot")
def _multi_dot(g):
    count = g.integers(2, 4)
    dims = [g.integers(1, 3) for _ in range(count + 1)]
    shapes = [(dims[i], dims[i + 1]) for i in range(count)]
    if g.boolean():
        shapes[0] = shapes[0][1:]
    if g.boolean():
        shapes[-1] = shapes[-1][:1] if len(shapes[-1]) == 2 else shapes[-1]
    xs = tuple(g.array(s) for s in shapes)
    return Example(xs, lambda m, *xs: m.linalg.multi_dot(list(xs)), str(shapes))


@case("linalg.tensorsolve")
def _tensorsolve(g):
    a = g.matrix((), 6).reshape(2, 3, 6)
    b = g.array((2, 3))
    if g.boolean():
        return Example((a, b), lambda m, a, b: m.linalg.tensorsolve(a, b))
    a = np.moveaxis(a, 2, 0)
    return Example((a, b), lambda m, a, b: m.linalg.tensorsolve(a, b, axes=(0,)), "axes=(0,)")


@case("linalg.tensorinv")
def _tensorinv(g):
    a = g.matrix((), 4)
    ind = g.choice((1, 2))
    a = a.reshape(4, 2, 2) if ind == 1 else a.reshape(2, 2, 2, 2)
    return Example((a,), lambda m, a: m.linalg.tensorinv(a, ind=ind), f"ind={ind}")


@case("linalg.outer")
def _outer(g):
    a, b = g.array((g.integers(1, 3),)), g.array((g.integers(1, 3),))
    return Example((a, b), lambda m, a, b: m.linalg.outer(a, b))


@case("linalg.cross", smooth=True)
def _cross(g):
    sa, sb = g.broadcast_shapes(2, max_dims=2)
    axis = g.choice((-1, 0)) if sa and sb and len(sa) == len(sb) else -1
    put = (lambda s: (3, *s)) if axis == 0 else (lambda s: (*s, 3))
    a, b = g.array(put(sa)), g.array(put(sb))
    return Example((a, b), lambda m, a, b: m.linalg.cross(a, b, axis=axis), f"axis={axis}")


@case("linalg.vecdot", smooth=True)
def _vecdot(g):
    sa, sb = g.broadcast_shapes(2, max_dims=2)
    n = g.integers(1, 3)
    a, b = g.array((*sa, n)), g.array((*sb, n))
    return Example((a, b), lambda m, a, b: m.linalg.vecdot(a, b))


@case("linalg.matmul", smooth=True)
def _matmul(g):
    n, k, p = g.integers(1, 3), g.integers(1, 3), g.integers(1, 3)
    sa, sb = g.broadcast_shapes(2, max_dims=2)
    a, b = g.array((*sa, n, k)), g.array((*sb, k, p))
    return Example((a, b), lambda m, a, b: m.linalg.matmul(a, b))


@case("linalg.matrix_transpose", smooth=True)
def _matrix_transpose(g):
    a = g.array((*_batch(g), g.integers(1, 3), g.integers(1, 3)))
    return Example((a,), lambda m, a: m.linalg.matrix_transpose(a))


@case("linalg.diagonal", smooth=True)
def _diagonal(g):
    a = g.array((*_batch(g), g.integers(1, 3), g.integers(1, 3)))
    offset = g.integers(-1, 1)
    return Example((a,), lambda m, a: m.linalg.diagonal(a, offset=offset), f"offset={offset}")


@case("linalg.trace", smooth=True)
def _trace(g):
    a = g.array((*_batch(g), g.integers(1, 3), g.integers(1, 3)))
    offset = g.integers(-1, 1)
    return Example((a,), lambda m, a: m.linalg.trace(a, offset=offset), f"offset={offset}")


@case("linalg.tensordot", smooth=True)
def _tensordot(g):
    a, b = g.array((2, 3)), g.array((3, 2))
    axes = g.choice((1, ([0, 1], [1, 0])))
    return Example((a, b), lambda m, a, b: m.linalg.tensordot(a, b, axes=axes), repr(axes))


# --- norms and condition numbers ----------------------------------------------------------------

VECTOR_ORDS = (None, 2, 3, np.inf, -np.inf, 1, -1, 0.5)
MATRIX_ORDS = ("fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2)


@case("linalg.norm", "matrix, singular values")
def _norm_singular(g):
    x = _rectangular(g, _batch(g)[:1], g.integers(1, 3), g.integers(1, 3))
    kw = {"ord": g.choice(("nuc", 2, -2))}
    if x.ndim > 2 or g.boolean():
        kw["axis"] = g.choice(((-2, -1), (-1, -2)))
    if g.boolean():
        kw["keepdims"] = g.boolean()
    return Example((x,), lambda m, x: m.linalg.norm(x, **kw), repr(kw))


@case("linalg.vector_norm")
def _vector_norm(g):
    x = g.array(g.shape(min_dims=1, max_dims=3, empty=False), ties=False)
    kw = {"ord": g.choice(VECTOR_ORDS) or 2}
    if g.boolean():
        kw["axis"] = g.choice((None, -1, tuple(range(x.ndim))))
    if g.boolean():
        kw["keepdims"] = g.boolean()
    return Example((x,), lambda m, x: m.linalg.vector_norm(x, **kw), repr(kw))


@case("linalg.matrix_norm")
def _matrix_norm(g):
    x = _rectangular(g, _batch(g), g.integers(1, 3), g.integers(1, 3))
    kw = {"ord": g.choice(MATRIX_ORDS)}
    if g.boolean():
        kw["keepdims"] = g.boolean()
    return Example((x,), lambda m, x: m.linalg.matrix_norm(x, **kw), repr(kw))


@case("linalg.cond")
def _cond(g):
    p = g.choice((None, 2, -2, "fro", "nuc", np.inf, -np.inf, 1, -1))
    n = g.integers(1, 3)
    if p in (None, 2, -2):
        x = _rectangular(g, _batch(g), n, g.integers(1, 3))
    else:
        x = _rectangular(g, _batch(g), n, n)
    return Example((x,), lambda m, x: m.linalg.cond(x, p), f"p={p!r}, {x.shape}")


# --- polynomials -----------------------------------------------------------------------------------


@case("vander", smooth=True)
def _vander(g):
    x = g.array((g.integers(1, 4),))
    n = g.choice((None, 1, 3))
    inc = g.boolean()
    return Example((x,), lambda m, x: m.vander(x, n, inc), f"N={n}, increasing={inc}")


@case("polyfit")
def _polyfit(g):
    size = g.integers(4, 6)
    x = np.asarray(np.linspace(-1.0, 1.5, size) + g.rng().uniform(-0.05, 0.05, size), g.dtype)
    y = g.array((size,) if g.boolean() else (size, 2))
    deg = g.integers(0, 2)
    w = g.array((size,), 0.5, 1.5)
    form = g.choice(("plain", "w", "full", "cov"))
    if form == "plain":
        return Example((x, y), lambda m, x, y: m.polyfit(x, y, deg), f"deg={deg}")
    if form == "w":
        return Example((x, y, w), lambda m, x, y, w: m.polyfit(x, y, deg, w=w), f"deg={deg}, w")
    if form == "full":
        return Example((x, y), lambda m, x, y: m.polyfit(x, y, deg, full=True)[3], f"deg={deg}, s")
    return Example((x, y), lambda m, x, y: m.polyfit(x, y, deg, cov=True)[1], f"deg={deg}, cov")


@case("roots")
def _roots(g):
    n = g.integers(1, 3)
    r = _spread_values(g, (), n, -1.0)
    p = np.asarray(np.poly(r) * g.choice((1.0, -2.0)), dtype=g.dtype)
    return Example((p,), lambda m, p: m.roots(p), f"roots {r}")
