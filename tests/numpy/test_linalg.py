"""funcgrad.numpy.linalg against NumPy (values), PyTorch (refusals, gradients) and finite differences.

The primitives' rules (eigvalsh, eigh_vectors, svdvals, svd_u, svd_vh, qr_q,
qr_r, pinv, ...) are checked from their Samples by tests/ops/test_rules.py;
here: the public functions on stacked shapes, the compositions' gradients,
every `ord` of `norm`, and the refusals.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import NotDifferentiableError, OpError
from tests.references import requires

L = fnp.linalg
RNG = np.random.default_rng(1)
INF = np.inf


def _fd_grad(f, x, eps=1e-6):
    """Central differences of the scalar function f at x."""
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def _check_grad(f, x, rtol=1e-5, atol=1e-7):
    """grad(f) at x against central differences (f reduced to a scalar by a fixed weighting)."""
    w = RNG.uniform(-1.0, 1.0, size=np.shape(f(x)))

    def scalar(y):
        return fnp.sum(f(y) * w)

    analytic = fg.grad(scalar)(x)
    numeric = _fd_grad(lambda y: float(scalar(y)), x)
    np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol)


def _spread_sym(batch, n):
    """Symmetric matrices with eigenvalues 1, 2, ..., n (well separated), rotated."""
    q = np.linalg.qr(RNG.normal(size=(*batch, n, n)))[0]
    w = np.arange(1.0, n + 1.0) + RNG.uniform(-0.2, 0.2, size=(*batch, n))
    return q @ (w[..., :, None] * np.swapaxes(q, -1, -2))


def _spread(batch, m, n):
    """Matrices with distinct singular values near 1, 2, ..., min(m, n)."""
    u = np.linalg.qr(RNG.normal(size=(*batch, m, m)))[0]
    v = np.linalg.qr(RNG.normal(size=(*batch, n, n)))[0]
    k = min(m, n)
    s = np.zeros((*batch, m, n))
    idx = np.arange(k)
    s[..., idx, idx] = np.arange(1.0, k + 1.0) + RNG.uniform(-0.2, 0.2, size=(*batch, k))
    return u @ s @ v


BATCHES = [(), (2,), (2, 3)]


# --- values on stacks of matrices ----------------------------------------------------------


@pytest.mark.parametrize("batch", BATCHES)
def test_values_match_numpy_on_stacks(batch):
    a = RNG.normal(size=(*batch, 4, 3))
    sq = RNG.normal(size=(*batch, 3, 3)) + 3 * np.eye(3)
    sym = _spread_sym(batch, 3)
    pairs = [
        (L.eigh(sym, UPLO="U").eigenvalues, np.linalg.eigh(sym, UPLO="U").eigenvalues),
        (L.eigh(sym).eigenvectors, np.linalg.eigh(sym).eigenvectors),
        (L.eigvalsh(np.tril(sym)), np.linalg.eigvalsh(np.tril(sym))),
        (L.svd(a, full_matrices=False).U, np.linalg.svd(a, full_matrices=False).U),
        (L.svd(a).Vh, np.linalg.svd(a).Vh),
        (L.svd(sym, hermitian=True).S, np.linalg.svd(sym, hermitian=True).S),
        (L.svdvals(a), np.linalg.svdvals(a)),
        (L.qr(a).Q, np.linalg.qr(a).Q),
        (L.qr(a, mode="complete").Q, np.linalg.qr(a, mode="complete").Q),
        (L.qr(a, mode="r"), np.linalg.qr(a, mode="r")),
        (L.pinv(a), np.linalg.pinv(a)),
        (L.pinv(sym, hermitian=True), np.linalg.pinv(sym, hermitian=True)),
        (L.pinv(a, rtol=0.4), np.linalg.pinv(a, rtol=0.4)),
        (L.inv(sq), np.linalg.inv(sq)),
        (L.det(sq), np.linalg.det(sq)),
        (L.slogdet(sq).logabsdet, np.linalg.slogdet(sq).logabsdet),
        (L.solve(sq, a[..., :3, :]), np.linalg.solve(sq, a[..., :3, :])),
        (L.cholesky(sym), np.linalg.cholesky(sym)),
        (L.cholesky(sym, upper=True), np.linalg.cholesky(sym, upper=True)),
        (L.matrix_power(sq, -3), np.linalg.matrix_power(sq, -3)),
        (L.matrix_power(sq, 5), np.linalg.matrix_power(sq, 5)),
        (L.matrix_power(sq, 0), np.linalg.matrix_power(sq, 0)),
        (L.cond(a), np.linalg.cond(a)),
        (L.cond(sq, -2), np.linalg.cond(sq, -2)),
        (L.matrix_rank(a), np.linalg.matrix_rank(a)),
        (L.matrix_transpose(a), np.linalg.matrix_transpose(a)),
        (L.diagonal(a, offset=1), np.linalg.diagonal(a, offset=1)),
        (L.trace(a, offset=-1), np.linalg.trace(a, offset=-1)),
        (L.matmul(a, sq), np.linalg.matmul(a, sq)),
        (L.vecdot(a, a[..., :1, :]), np.linalg.vecdot(a, a[..., :1, :])),
        (L.cross(a, sq[..., :1, :]), np.linalg.cross(a, sq[..., :1, :])),
    ]
    for p in ("fro", "nuc", INF, -INF, 1, -1):
        pairs.append((L.cond(sq, p), np.linalg.cond(sq, p)))
    for got, want in pairs:
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_two_dimensional_functions_match_numpy():
    a, b, b2 = RNG.normal(size=(5, 3)), RNG.normal(size=5), RNG.normal(size=(5, 2))
    for rhs in (b, b2):
        for got, want in zip(L.lstsq(a, rhs), np.linalg.lstsq(a, rhs), strict=True):
            assert np.shape(got) == np.shape(want)
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    wide = RNG.normal(size=(2, 4))  # rank < n: no residuals, the minimum-norm solution
    for got, want in zip(L.lstsq(wide, b[:2]), np.linalg.lstsq(wide, b[:2]), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    chain = [RNG.normal(size=s) for s in [(3,), (3, 6), (6, 2), (2, 4), (4,)]]
    np.testing.assert_allclose(L.multi_dot(chain), np.linalg.multi_dot(chain), rtol=1e-12)
    np.testing.assert_allclose(L.multi_dot(chain[1:4]), np.linalg.multi_dot(chain[1:4]), rtol=1e-12)
    t = RNG.normal(size=(2, 3, 6)) + np.eye(6).reshape(2, 3, 6)
    rhs = RNG.normal(size=(2, 3))
    np.testing.assert_allclose(L.tensorsolve(t, rhs), np.linalg.tensorsolve(t, rhs), rtol=1e-10)
    t4 = np.moveaxis(t, 2, 0)  # (6, 2, 3): axes=(0,) moves the 6 back to the end
    np.testing.assert_allclose(
        L.tensorsolve(t4, rhs, axes=(0,)), np.linalg.tensorsolve(t4, rhs, axes=(0,)), rtol=1e-10
    )
    inv_in = RNG.normal(size=(4, 2, 2)) + np.eye(4).reshape(4, 2, 2)
    np.testing.assert_allclose(
        L.tensorinv(inv_in, ind=1), np.linalg.tensorinv(inv_in, ind=1), rtol=1e-10
    )
    np.testing.assert_allclose(L.outer(b, b[:3]), np.linalg.outer(b, b[:3]))
    np.testing.assert_allclose(
        L.tensordot(a, b2, axes=([0], [0])), np.linalg.tensordot(a, b2, axes=([0], [0]))
    )


def test_every_numpy_linalg_name_is_provided():
    names = {n for n in dir(np.linalg) if not n.startswith("_")} - {"test"}
    missing = sorted(n for n in names if n not in L.__all__)
    assert not missing, missing
    assert L.LinAlgError is np.linalg.LinAlgError


# --- norms -------------------------------------------------------------------------------

VECTOR_ORDS = [None, INF, -INF, 0, 1, 2, 3.5, -1, -2, 0.5]
MATRIX_ORDS = [None, "fro", "nuc", INF, -INF, 1, -1, 2, -2]


@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norms(ord, keepdims):
    x = RNG.uniform(0.2, 1.0, size=(2, 3, 4)) * RNG.choice([-1.0, 1.0], size=(2, 3, 4))
    for axis in (0, -1, 1):
        want = np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
        np.testing.assert_allclose(L.norm(x, ord=ord, axis=axis, keepdims=keepdims), want)
    np.testing.assert_allclose(L.norm(x[0, 0], ord=ord), np.linalg.norm(x[0, 0], ord=ord))
    vord = 2 if ord is None else ord
    for axis in (None, (0, 2), 1):
        np.testing.assert_allclose(
            L.vector_norm(x, ord=vord, axis=axis, keepdims=keepdims),
            np.linalg.vector_norm(x, ord=vord, axis=axis, keepdims=keepdims),
        )
    if ord != 0:  # the count of nonzeros has a zero gradient, checked below
        _check_grad(lambda y: L.norm(y, ord=ord, axis=1, keepdims=keepdims), x)
        _check_grad(lambda y: L.vector_norm(y, ord=vord, axis=(0, 2)), x)


@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms(ord, keepdims):
    x = _spread((2,), 3, 4).transpose(1, 0, 2)  # matrices in axes (0, 2)
    for axis in ((0, 2), (2, 0), (-3, -1)):
        want = np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
        np.testing.assert_allclose(L.norm(x, ord=ord, axis=axis, keepdims=keepdims), want)
    if ord is not None:
        np.testing.assert_allclose(L.norm(x[:, 0], ord=ord), np.linalg.norm(x[:, 0], ord=ord))
        np.testing.assert_allclose(
            L.matrix_norm(x, ord=ord, keepdims=keepdims),
            np.linalg.matrix_norm(x, ord=ord, keepdims=keepdims),
        )
    # distinct singular values and no ties in the row/column sums: differentiable
    _check_grad(lambda y: L.norm(y, ord=ord, axis=(2, 0), keepdims=keepdims), x)


def test_norm_refusals_name_the_problem():
    x = np.ones((2, 3, 4))
    with pytest.raises(OpError, match="ord"):
        L.norm(x, ord=2)  # a 3-D array needs axis=
    with pytest.raises(OpError, match="same axis"):
        L.norm(x, ord="nuc", axis=(1, 1))
    with pytest.raises(OpError, match="matrix norm"):
        L.norm(x, ord="fro", axis=0)
    zero = fg.grad(lambda y: L.norm(y, ord=0))(np.array([1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(zero, 0.0)


# --- gradients of the compositions ----------------------------------------------------------


def test_composition_gradients_match_finite_differences():
    a = RNG.normal(size=(5, 3))
    b = RNG.normal(size=(5, 2))
    sq = RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    _check_grad(lambda y: L.lstsq(y, b)[0], a)
    _check_grad(lambda y: L.lstsq(a, y)[0], b)
    _check_grad(lambda y: L.lstsq(y, b)[1], a)
    _check_grad(lambda y: L.lstsq(y, b)[3], a)
    _check_grad(lambda y: L.matrix_power(y, -2), sq)
    _check_grad(lambda y: L.matrix_power(y, 3), sq)
    _check_grad(lambda y: L.cond(y), _spread((2,), 4, 3))
    _check_grad(lambda y: L.cond(y, 1), sq)
    _check_grad(lambda y: L.cond(y, "nuc"), sq)
    _check_grad(lambda y: L.multi_dot([y[0], y[1], y[0, :, 0]]), sq)
    t = RNG.normal(size=(2, 3, 6)) + np.eye(6).reshape(2, 3, 6)
    _check_grad(lambda y: L.tensorsolve(y, np.ones((2, 3))), t)
    _check_grad(lambda y: L.tensorinv(y, ind=2), t.reshape(2, 3, 3, 2))
    _check_grad(lambda y: L.vecdot(y, y[:, :1]), sq)
    _check_grad(lambda y: L.cross(y, sq[:, :1]), sq)
    _check_grad(lambda y: L.trace(y, offset=1), sq)


def test_decomposition_gradients_match_finite_differences_on_stacks():
    sym = _spread_sym((2,), 3)
    # the eigenvectors' and singular vectors' signs are arbitrary: differentiate
    # sign-free quantities (v v^T), and the values
    _check_grad(lambda y: L.eigh(y).eigenvalues, sym)
    _check_grad(lambda y: L.eigh(y, UPLO="U")[1] ** 2, sym)
    for shape in ((4, 3), (3, 4), (3, 3)):
        x = _spread((2,), *shape)
        _check_grad(lambda y: L.svd(y, full_matrices=False).U ** 2, x)
        _check_grad(lambda y: L.svd(y, full_matrices=False).Vh ** 2, x)
        _check_grad(lambda y: L.svd(y, compute_uv=False), x)
        _check_grad(lambda y: L.qr(y).Q, x)
        _check_grad(lambda y: L.qr(y, mode="r"), x)
        _check_grad(L.pinv, x)
    wide = _spread((2,), 2, 4)
    _check_grad(lambda y: L.qr(y, mode="complete").R, wide)
    _check_grad(lambda y: L.svd(y, hermitian=True).S, sym)
    _check_grad(lambda y: L.pinv(y, hermitian=True), sym)


def test_eigh_and_svd_gradients_agree_with_pytorch():
    torch = requires("torch")
    sym = _spread_sym((2,), 3)
    x = _spread((2,), 4, 3)

    def torch_grad(f, value):
        t = torch.tensor(value, requires_grad=True)
        f(t).backward()
        return t.grad.numpy()

    # PyTorch's eigh gradient treats the matrix as symmetric: compare on (a + a^T) / 2
    got = fg.grad(lambda y: fnp.sum(L.eigh((y + L.matrix_transpose(y)) / 2)[1][..., 0, :] ** 4))(
        sym
    )
    want = torch_grad(lambda t: (torch.linalg.eigh((t + t.mT) / 2)[1][..., 0, :] ** 4).sum(), sym)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    got = fg.grad(lambda y: fnp.sum(L.svd(y, full_matrices=False)[0] ** 4 * 0.5))(x)
    want = torch_grad(lambda t: (torch.linalg.svd(t, full_matrices=False)[0] ** 4 * 0.5).sum(), x)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    got = fg.grad(lambda y: fnp.sum(L.qr(y)[0][..., 0, :] * L.qr(y)[1][..., 0, :]))(x)
    want = torch_grad(
        lambda t: (torch.linalg.qr(t)[0][..., 0, :] * torch.linalg.qr(t)[1][..., 0, :]).sum(), x
    )
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def _general(rng, n, complex_=False):
    """A diagonalizable matrix (the seeds used here give complex pairs of eigenvalues too)."""
    a = rng.normal(size=(n, n)) + (1j * rng.normal(size=(n, n)) if complex_ else 0.0)
    return a + 2.0 * np.diag(np.arange(n))


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_eig_gradients_agree_with_autograd_and_pytorch(complex_):
    # Phase-invariant functions of eig (JAX's assumption): every library agrees there.
    autograd, anp = requires("autograd"), requires("autograd.numpy")
    torch = requires("torch")
    rng = np.random.default_rng(3)
    a = _general(rng, 4, complex_)
    w = rng.normal(size=(4, 4))

    def f(lib, la, a):
        vals, vecs = la.eig(a)
        return lib.sum(lib.abs(vecs) ** 2 * w) + lib.sum(lib.real(vals) ** 3 + lib.imag(vals))

    got = fg.grad(lambda a: f(fnp, L, a))(a)
    want = autograd.grad(lambda a: f(anp, anp.linalg, a))(a)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    t = torch.tensor(a, requires_grad=True)
    vals, vecs = torch.linalg.eig(t)
    ((vecs.abs() ** 2 * torch.tensor(w)).sum() + (vals.real**3 + vals.imag).sum()).backward()
    # PyTorch's .grad of a complex input is the conjugate of the functional API's gradient
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-8, atol=1e-10)


def test_eig_vectors_have_a_smooth_gauge_and_its_derivative():
    # Each eigenvector's largest entry is real and positive, so the eigenvectors
    # themselves (not only phase-invariant functions) have a derivative: central differences.
    rng = np.random.default_rng(4)
    a = _general(rng, 3)
    v = L.eig(a).eigenvectors
    top = np.take_along_axis(v, np.argmax(np.abs(v), axis=0)[None, :], axis=0)
    np.testing.assert_allclose(top.imag, 0.0, atol=1e-14)
    assert (top.real > 0).all()
    np.testing.assert_allclose(a @ v, v * L.eig(a).eigenvalues, atol=1e-12)
    c = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))

    def f(a):
        return fnp.sum(fnp.real(L.eig(a).eigenvectors * c))

    d = rng.normal(size=(3, 3))
    eps = 1e-6
    numeric = (f(a + eps * d) - f(a - eps * d)) / (2 * eps)
    np.testing.assert_allclose(np.sum(fg.grad(f)(a) * d), numeric, rtol=1e-6)


def test_second_order_through_eigh_and_svd():
    sym = _spread_sym((), 3)
    v = RNG.normal(size=sym.shape)

    def f(y):
        return fnp.sum(L.eigvalsh(y) ** 3) + fnp.sum(L.svd(y, compute_uv=False) ** 2)

    hvp = fg.jvp(fg.grad(f), (sym,), (v,))[1]
    eps = 1e-5
    numeric = (fg.grad(f)(sym + eps * v) - fg.grad(f)(sym - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hvp, numeric, rtol=1e-6, atol=1e-8)


# --- what has no gradient: refused, or non-finite, as in PyTorch -----------------------------


def test_complete_qr_of_a_tall_matrix_is_refused_like_pytorch():
    torch = requires("torch")
    x = RNG.normal(size=(4, 2))
    t = torch.tensor(x, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"
    ):
        torch.linalg.qr(t, mode="complete")[0].sum().backward()
    with pytest.raises(NotDifferentiableError, match=r"mode='complete' and nrows > ncols.*4 > 2"):
        fg.grad(lambda y: fnp.sum(L.qr(y, mode="complete").Q))(x)
    with pytest.raises(NotDifferentiableError, match="nrows > ncols"):
        fg.jvp(lambda y: L.qr(y, mode="complete").R, (x,), (x,))
    with pytest.raises(OpError, match="raw"):
        fg.grad(lambda y: fnp.sum(L.qr(y, mode="raw")[0]))(x)


def test_full_svd_refuses_a_gradient_beyond_the_reduced_part():
    x = _spread((), 4, 2)
    with pytest.raises(NotDifferentiableError, match=r"full_matrices=True.*first min\(m, n\) = 2"):
        fg.grad(lambda y: fnp.sum(L.svd(y).U))(x)
    with pytest.raises(NotDifferentiableError, match="full_matrices"):
        fg.grad(lambda y: fnp.sum(L.svd(y.T).Vh))(x)
    # the reduced part alone has a gradient (PyTorch's, which drops the rest silently)
    got = fg.grad(lambda y: fnp.sum(L.svd(y).U[:, :2] ** 2) + fnp.sum(L.svd(y).S))(x)
    want = fg.grad(
        lambda y: fnp.sum(L.svd(y, full_matrices=False).U ** 2 + 0) + fnp.sum(L.svdvals(y))
    )(x)
    np.testing.assert_allclose(got, want)


def test_degenerate_eigenvalues_give_non_finite_vector_gradients_like_pytorch():
    torch = requires("torch")
    eye = np.eye(3)
    t = torch.tensor(eye, requires_grad=True)
    torch.linalg.eigh(t)[1].sum().backward()
    assert not np.isfinite(t.grad.numpy()).all()
    got = fg.grad(lambda y: fnp.sum(L.eigh(y)[1]))(eye)
    assert not np.isfinite(got).all()
    # the eigenvalues alone stay differentiable: d sum(w) / dA = I on the triangle read
    np.testing.assert_allclose(fg.grad(lambda y: fnp.sum(L.eigvalsh(y)))(eye), eye)
    got = fg.grad(lambda y: fnp.sum(L.svd(y, full_matrices=False)[0]))(eye)
    assert not np.isfinite(got).all()


def test_eigh_reads_one_triangle_and_its_gradient_falls_on_it():
    sym = _spread_sym((), 3)
    noisy = np.tril(sym) + np.triu(RNG.normal(size=(3, 3)), 1)
    np.testing.assert_allclose(L.eigvalsh(noisy), np.linalg.eigvalsh(sym))
    g = fg.grad(lambda y: fnp.sum(L.eigvalsh(y) ** 2))(noisy)
    np.testing.assert_array_equal(np.triu(g, 1), 0.0)
    g_upper = fg.grad(lambda y: fnp.sum(L.eigvalsh(y, UPLO="U") ** 2))(sym)
    np.testing.assert_array_equal(np.tril(g_upper, -1), 0.0)
    with pytest.raises(OpError, match="UPLO"):
        fg.grad(lambda y: fnp.sum(L.eigvalsh(y, UPLO="X")))(sym)


def test_complex_cholesky_gradient_agrees_with_pytorch():
    # Both factor the Hermitian part of the matrix; PyTorch's .grad is the conjugate.
    torch = requires("torch")
    rng = np.random.default_rng(5)
    b = rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))
    a = b @ np.conj(np.swapaxes(b, -1, -2)) / 3 + np.eye(3)
    w = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    got = fg.grad(lambda a: fnp.sum(fnp.abs(L.cholesky(a) * w) ** 2))(a)
    t = torch.tensor(a, requires_grad=True)
    ((torch.linalg.cholesky(t) * torch.tensor(w)).abs() ** 2).sum().backward()
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_complex_eigh_gradients_agree_with_pytorch_and_autograd(uplo):
    # Phase-invariant functions of a Hermitian eigendecomposition. PyTorch's gradient treats
    # the matrix as Hermitian: compare on the Hermitian part, where both read the same matrix.
    torch = requires("torch")
    autograd, anp = requires("autograd"), requires("autograd.numpy")
    rng = np.random.default_rng(6)
    b = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    a = b + np.conj(b.T)
    w = rng.normal(size=(4, 4))

    def f(lib, la, h):
        vals, vecs = la.eigh(h, UPLO=uplo)
        return lib.sum(vals**3) + lib.sum(lib.abs(vecs) ** 2 * w)

    def herm(lib, y):
        return (y + lib.conj(lib.swapaxes(y, -1, -2))) / 2

    got = fg.grad(lambda y: f(fnp, L, herm(fnp, y)))(a)
    t = torch.tensor(a, requires_grad=True)
    vals, vecs = torch.linalg.eigh(herm(torch, t), UPLO=uplo)
    ((vals**3).sum() + (vecs.abs() ** 2 * torch.tensor(w)).sum()).backward()
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-8, atol=1e-10)
    want = autograd.grad(lambda y: f(anp, anp.linalg, herm(anp, y)))(a)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 4)], ids=str)
def test_complex_qr_gradients_agree_with_pytorch(shape):
    torch = requires("torch")
    rng = np.random.default_rng(7)
    a = rng.normal(size=shape) + 1j * rng.normal(size=shape) + 2.0 * np.eye(*shape)
    cq = rng.normal(size=(shape[0], min(shape))) + 1j * rng.normal(size=(shape[0], min(shape)))
    cr = rng.normal(size=(min(shape), shape[1])) + 1j * rng.normal(size=(min(shape), shape[1]))

    def f(lib, q, r, cq, cr):
        return lib.sum(lib.real(q * cq)) + lib.sum(lib.imag(r * cr))

    got = fg.grad(lambda y: f(fnp, *L.qr(y), cq, cr))(a)
    t = torch.tensor(a, requires_grad=True)
    f(torch, *torch.linalg.qr(t), torch.tensor(cq), torch.tensor(cr)).backward()
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 4)], ids=str)
def test_complex_pinv_gradient_agrees_with_pytorch(shape):
    torch = requires("torch")
    rng = np.random.default_rng(8)
    a = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    c = rng.normal(size=shape[::-1]) + 1j * rng.normal(size=shape[::-1])
    got = fg.grad(lambda y: fnp.sum(fnp.abs(L.pinv(y) * c) ** 2))(a)
    t = torch.tensor(a, requires_grad=True)
    ((torch.linalg.pinv(t) * torch.tensor(c)).abs() ** 2).sum().backward()
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 4)], ids=str)
def test_complex_svd_gradients_agree_with_pytorch(shape):
    # Phase-invariant functions (PyTorch refuses the others); funcgrad's gauge (the largest
    # entry of each v_j real and positive) gives every function a derivative.
    torch = requires("torch")
    rng = np.random.default_rng(9)
    a = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    k = min(shape)
    wu, wv = rng.normal(size=(shape[0], k)), rng.normal(size=(k, shape[1]))

    def f(lib, u, s, vh, wu, wv):
        return lib.sum(lib.abs(u) ** 2 * wu) + lib.sum(lib.abs(vh) ** 2 * wv) + lib.sum(s**3)

    got = fg.grad(lambda y: f(fnp, *L.svd(y, full_matrices=False), wu, wv))(a)
    t = torch.tensor(a, requires_grad=True)
    f(
        torch, *torch.linalg.svd(t, full_matrices=False), torch.tensor(wu), torch.tensor(wv)
    ).backward()
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-8, atol=1e-10)
    # lstsq of a complex system is differentiable through these too (central differences)
    b = rng.normal(size=shape[0]) + 1j * rng.normal(size=shape[0])
    d = rng.normal(size=shape) + 1j * rng.normal(size=shape)

    def g(y):
        return fnp.sum(fnp.abs(L.lstsq(y, b)[0]) ** 2)

    numeric = (g(a + 1e-6 * d) - g(a - 1e-6 * d)) / 2e-6
    np.testing.assert_allclose(np.real(np.sum(fg.grad(g)(a) * d)), numeric, rtol=1e-6)


def test_complex_expm_gradient_agrees_with_pytorch():
    torch = requires("torch")
    requires("scipy")
    from funcgrad.scipy import linalg as fsl

    rng = np.random.default_rng(10)
    a = (rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))) * 0.5
    c = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    got = fg.grad(lambda y: fnp.sum(fnp.abs(fsl.expm(y) * c) ** 2))(a)
    t = torch.tensor(a, requires_grad=True)
    ((torch.linalg.matrix_exp(t) * torch.tensor(c)).abs() ** 2).sum().backward()
    np.testing.assert_allclose(got, np.conj(t.grad.numpy()), rtol=1e-8, atol=1e-10)


def test_shape_errors_name_the_function_and_shapes():
    with pytest.raises(OpError, match=r"eigh.*square.*\(2, 3\)"):
        L.eigh(np.ones((2, 3)))
    with pytest.raises(OpError, match=r"lstsq.*\(3, 2\)"):
        L.lstsq(np.ones((3, 2)), np.ones(4))
    with pytest.raises(OpError, match=r"tensorinv.*not 'square'"):
        L.tensorinv(np.ones((2, 3)), ind=1)
    with pytest.raises(OpError, match="outer.*1-D"):
        L.outer(np.ones((2, 2)), np.ones(2))
    with pytest.raises(TypeError, match="integer"):
        L.matrix_power(np.eye(2), 1.5)


def test_svd_hermitian_complex():
    # a Hermitian matrix (eigenvalues of both signs) read from its lower triangle
    h = np.linalg.qr(RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)))[0]
    a = h @ np.diag([2.5, -1.2, 0.4]) @ h.conj().T
    x = np.tril(a) + np.triu(RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3)), 1)
    s = fnp.linalg.svd(x, hermitian=True, compute_uv=False)
    np.testing.assert_allclose(s, np.linalg.svd(x, hermitian=True, compute_uv=False))
    np.testing.assert_allclose(s, [2.5, 1.2, 0.4])
    svdvals = lambda y: fnp.linalg.svd(y, hermitian=True, compute_uv=False)  # noqa: E731
    fg.check_grads(svdvals, (x,), order=2, modes=("fwd", "rev"))
    # the upper triangle is not read: its gradient is zero
    g = fg.grad(lambda y: fnp.sum(svdvals(y) * np.array([1.0, -2.0, 0.5])))(x)
    assert np.all(np.triu(g, 1) == 0)


def _hermitian_input(rng, eigenvalues):
    """A complex Hermitian matrix with these eigenvalues, in the lower triangle (noise above)."""
    n = len(eigenvalues)
    h = np.linalg.qr(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)))[0]
    a = h @ np.diag(eigenvalues) @ h.conj().T
    return a, np.tril(a) + np.triu(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)), 1)


def test_svd_hermitian_complex_vectors_have_the_gauge_and_its_derivative():
    # U and Vh of svd(hermitian=True): the gauge of the complex SVD (each v_j's largest entry
    # real and positive), kept by the VJP and JVP; both checked by central differences in
    # random complex directions (real and imaginary parts), to second order
    rng = np.random.default_rng(21)
    a, x = _hermitian_input(rng, [2.5, -1.2, 0.4])
    u, s, vh = fnp.linalg.svd(x, hermitian=True)
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12)
    v = vh.conj().T
    top = v[np.argmax(np.abs(v), axis=0), np.arange(3)]
    np.testing.assert_allclose(np.imag(top), 0.0, atol=1e-14)
    assert np.all(np.real(top) > 0)
    np.testing.assert_allclose(np.abs(u), np.abs(np.linalg.svd(a)[0]), atol=1e-12)
    for part in (0, 2):
        fg.check_grads(lambda y, p=part: fnp.linalg.svd(y, hermitian=True)[p], (x,), order=2)
    # the derivative in the imaginary and in the real direction of one entry, by differences
    for d in (1j * np.eye(3, k=-1), np.eye(3, k=-1), 1j * np.eye(3)):
        f = lambda y: fnp.linalg.svd(y, hermitian=True)[0]  # noqa: E731
        numeric = (f(x + 1e-6 * d) - f(x - 1e-6 * d)) / 2e-6
        np.testing.assert_allclose(fg.jvp(f, (x,), (d,))[1], numeric, atol=1e-7)
    # the upper triangle is not read: its gradient is zero
    g = fg.grad(lambda y: fnp.sum(fnp.abs(fnp.linalg.svd(y, hermitian=True)[0][0]) ** 2))(x)
    assert np.all(np.triu(g, 1) == 0)


def test_svd_hermitian_complex_vectors_agree_with_pytorch_and_autograd():
    # gauge-invariant functions of U and Vh (PyTorch refuses the others): funcgrad's
    # gradient (JAX's convention) is the conjugate of PyTorch's; HIPS autograd's svd
    # differentiates the full matrix it is given, so it gets the mirrored one
    torch = requires("torch")
    ag = requires("autograd")
    rng = np.random.default_rng(22)
    a, x = _hermitian_input(rng, [-3.0, 1.7, 0.6, -0.2])
    wu, wv, c = rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 4))

    def f(lib, u, s, vh, wu=wu, wv=wv, c=c):
        gram = lib.abs(u @ (vh * s[:, None])) ** 2  # |A|^2 entrywise, through U and Vh
        return lib.sum(lib.abs(u) ** 2 * wu) + lib.sum(lib.abs(vh) ** 2 * wv) + lib.sum(gram * c)

    got = fg.grad(lambda y: f(fnp, *L.svd(y, hermitian=True)))(x)
    t = torch.tensor(a, requires_grad=True)
    f(torch, *torch.linalg.svd(t), *map(torch.tensor, (wu, wv, c))).backward()
    want = np.conj(t.grad.numpy())  # in the Hermitian matrix: onto the lower triangle read
    on_triangle = np.tril(want, -1) + np.tril(want.conj().T, -1) + np.diag(np.real(np.diag(want)))
    np.testing.assert_allclose(got, on_triangle, rtol=1e-8, atol=1e-10)
    anp = ag.numpy

    def mirrored(y):
        low = anp.tril(y, -1)
        return low + anp.conj(low.T) + anp.diag(anp.real(anp.diag(y)))

    want_ag = ag.grad(lambda y: f(anp, *anp.linalg.svd(mirrored(y), full_matrices=False)))(x)
    np.testing.assert_allclose(got, want_ag, rtol=1e-8, atol=1e-10)


# --- polynomials on linear algebra: vander, polyfit, roots ---------------------------------------


def test_vander_polyfit_roots_match_numpy():
    x = np.linspace(-1.0, 2.0, 7) + RNG.uniform(-0.05, 0.05, size=7)
    y = np.sin(x)
    y2 = np.stack([y, np.cos(x)], axis=1)
    w = RNG.uniform(0.5, 1.5, size=7)
    for n, inc in ((None, False), (4, True), (1, False), (0, False)):
        np.testing.assert_allclose(fnp.vander(x, n, inc), np.vander(x, n, inc))
    np.testing.assert_allclose(fnp.vander([0.0, 2.0]), np.vander([0.0, 2.0]))
    for rhs in (y, y2):
        np.testing.assert_allclose(fnp.polyfit(x, rhs, 3), np.polyfit(x, rhs, 3), rtol=1e-9)
        np.testing.assert_allclose(
            fnp.polyfit(x, rhs, 2, w=w), np.polyfit(x, rhs, 2, w=w), rtol=1e-9
        )
        for got, want in zip(
            fnp.polyfit(x, rhs, 2, full=True), np.polyfit(x, rhs, 2, full=True), strict=True
        ):
            np.testing.assert_allclose(got, want, rtol=1e-9)
        for c in (True, "unscaled"):
            for got, want in zip(
                fnp.polyfit(x, rhs, 2, cov=c), np.polyfit(x, rhs, 2, cov=c), strict=True
            ):
                np.testing.assert_allclose(got, want, rtol=1e-9)
    p = np.poly([-1.2, 0.3, 2.0]) * 1.5
    np.testing.assert_allclose(fnp.roots(p), np.roots(p))
    complex_p = np.array([1.0, 0.0, 1.0])
    np.testing.assert_allclose(fnp.roots(complex_p), np.roots(complex_p))  # plain values
    assert fg.vjp(fnp.roots, complex_p)[0].dtype == np.roots(complex_p).dtype  # on nodes


@pytest.mark.parametrize(
    "p",
    [
        np.poly([1.0 + 0.5j, 1.0 - 0.5j, -0.7]).real * 2.0,  # real, complex-conjugate roots
        np.poly([0.8 + 0.3j, -0.5 - 0.2j, 1.6 + 0.1j]) * (1.0 - 0.5j),  # complex coefficients
    ],
    ids=["real", "complex"],
)
def test_complex_roots_gradients_match_finite_differences(p):
    # check_grads draws complex directions: the real and the imaginary direction
    fg.check_grads(fnp.roots, (p,), order=2, modes=("fwd", "rev"))
    # a real objective: grad is d/dRe - i d/dIm (JAX's convention)
    w = np.array([0.3 - 0.2j, -0.8 + 0.1j, 0.5 + 0.6j])

    def loss(q):
        return fnp.sum(fnp.real(fnp.roots(q) * w))

    if p.dtype.kind == "c":
        want = _fd_grad(lambda a: float(loss(a + 1j * p.imag)), p.real)
        want = want - 1j * _fd_grad(lambda b: float(loss(p.real + 1j * b)), p.imag)
    else:  # (real coefficients: NumPy's real eigenvalue routine, its order of the roots)
        want = _fd_grad(lambda a: float(loss(a)), p)
    np.testing.assert_allclose(fg.grad(loss)(p), want, rtol=1e-6, atol=1e-8)


def test_polynomial_gradients_match_finite_differences():
    x = np.linspace(-1.0, 2.0, 6) + RNG.uniform(-0.05, 0.05, size=6)
    y = np.sin(x)
    w = RNG.uniform(0.5, 1.5, size=6)
    _check_grad(lambda t: fnp.vander(t, 4), x)
    _check_grad(lambda t: fnp.vander(t, 3, increasing=True), np.array([0.0, 1.5, -2.0]))
    _check_grad(lambda t: fnp.polyfit(t, y, 3), x)
    _check_grad(lambda t: fnp.polyfit(x, t, 2), y)
    _check_grad(lambda t: fnp.polyfit(x, y, 2, w=t), w)
    _check_grad(lambda t: fnp.polyfit(t, y, 2, full=True)[1], x)
    _check_grad(lambda t: fnp.polyfit(t, y, 2, cov=True)[1], x)
    _check_grad(fnp.roots, np.poly([-1.2, 0.3, 2.0]) * 1.5)


def test_cond_of_a_singular_matrix_is_numpys_inf():
    z = np.zeros((2, 2))
    for p in (None, 2, 1, "fro"):
        with np.errstate(all="ignore"):
            assert L.cond(z, p) == np.linalg.cond(z, p) == np.inf
    with np.errstate(all="ignore"):
        assert fg.value_and_grad(L.cond)(z)[0] == np.inf  # a node: inf, as NumPy
    with pytest.raises(OpError, match="inv"):
        fg.grad(lambda y: L.cond(y, 1))(z)
