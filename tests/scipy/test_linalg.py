"""funcgrad.scipy.linalg against SciPy (values), HIPS autograd (gradients) and central differences.

The primitives (expm, sqrtm, logm, solve_sylvester) are also checked from
their Samples by tests/ops/test_rules.py (finite differences, second order,
float32).
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.linalg as fsl
from funcgrad.errors import OpError
from tests.references import requires

sl = requires("scipy.linalg")
RNG = np.random.default_rng(2)


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def _check_grad(f, x, rtol=1e-5, atol=1e-7):
    w = RNG.uniform(-1.0, 1.0, size=np.shape(f(x)))

    def scalar(y):
        return fnp.sum(f(y) * w)

    np.testing.assert_allclose(
        fg.grad(scalar)(x), _fd_grad(lambda y: float(scalar(y)), x), rtol=rtol, atol=atol
    )


def _spd(n):
    b = RNG.normal(size=(n, n))
    return b @ b.T / n + np.eye(n)


def _near_identity(n, scale=0.3):
    return 1.5 * np.eye(n) + RNG.uniform(-scale, scale, size=(n, n))


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("trans", [0, 1, "T", 2])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_solve_triangular(lower, trans, unit_diagonal):
    a = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
    for b in (RNG.normal(size=4), RNG.normal(size=(4, 2))):
        kw = {"lower": lower, "trans": trans, "unit_diagonal": unit_diagonal}
        np.testing.assert_allclose(
            fsl.solve_triangular(a, b, **kw), sl.solve_triangular(a, b, **kw), rtol=1e-10
        )
        _check_grad(lambda y, b=b: fsl.solve_triangular(y, b, **kw), a)  # noqa: B023
        _check_grad(lambda y: fsl.solve_triangular(a, y, **kw), b)  # noqa: B023
    g = fg.grad(lambda y: fnp.sum(fsl.solve_triangular(y, np.ones(4), lower=lower)))(a)
    untouched = np.triu(g, 1) if lower else np.tril(g, -1)
    np.testing.assert_array_equal(untouched, 0.0)  # the other triangle is not read


def test_solve_triangular_on_stacks():
    a = RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    b = RNG.normal(size=(2, 3, 2))
    want = np.stack([sl.solve_triangular(a[i], b[i], lower=True) for i in range(2)])
    np.testing.assert_allclose(fsl.solve_triangular(a, b, lower=True), want, rtol=1e-10)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_cho_factor_cho_solve(lower):
    a, b = _spd(3), RNG.normal(size=(3, 2))
    np.testing.assert_allclose(fsl.cholesky(a, lower=lower), sl.cholesky(a, lower=lower))
    c, low = fsl.cho_factor(a, lower=lower)
    c_ref, low_ref = sl.cho_factor(a, lower=lower)
    assert low == low_ref
    tri = np.tril if lower else np.triu
    np.testing.assert_allclose(c, tri(c_ref))  # SciPy's other triangle is leftover data
    np.testing.assert_allclose(fsl.cho_solve((c, low), b), sl.cho_solve((c_ref, low_ref), b))
    _check_grad(lambda y: fsl.cho_solve(fsl.cho_factor(y, lower=lower), b), a)
    _check_grad(lambda y: fsl.cho_solve((c, low), y), b)


def test_inv_det_solve_qr_svd_eigh_match_scipy():
    a = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    s = _spd(3)
    b = RNG.normal(size=3)
    np.testing.assert_allclose(fsl.inv(a), sl.inv(a))
    np.testing.assert_allclose(fsl.det(a), sl.det(a))
    for assume_a in (None, "general", "sym", "pos", "lower triangular", "upper triangular"):
        np.testing.assert_allclose(
            fsl.solve(np.tril(s) if assume_a == "pos" else s, b, assume_a=assume_a, lower=True),
            sl.solve(np.tril(s) if assume_a == "pos" else s, b, assume_a=assume_a, lower=True),
        )
    np.testing.assert_allclose(fsl.solve(a, b, transposed=True), sl.solve(a, b, transposed=True))
    _check_grad(lambda y: fsl.solve(y, b, assume_a="sym"), s)
    wide = RNG.normal(size=(2, 4))
    for mode in ("full", "economic", "r"):
        for got, want in zip(fsl.qr(wide, mode=mode), sl.qr(wide, mode=mode), strict=True):
            np.testing.assert_allclose(got, want, atol=1e-12)
    for got, want in zip(fsl.svd(wide), sl.svd(wide), strict=True):
        np.testing.assert_allclose(got, want, atol=1e-12)
    (w, v), (w_sp, v_sp) = fsl.eigh(s, lower=False), sl.eigh(s, lower=False)
    np.testing.assert_allclose(w, w_sp, atol=1e-12)
    # an eigenvector's sign is the LAPACK driver's choice (funcgrad's gauge, SciPy's
    # syevr): equal up to the sign of each column
    np.testing.assert_allclose(v * np.sign(np.sum(v * v_sp, axis=0)), v_sp, atol=1e-12)
    np.testing.assert_allclose(fsl.eigh(s, eigvals_only=True), sl.eigh(s, eigvals_only=True))
    with pytest.raises(OpError, match="standard problem"):
        fsl.eigh(s, np.eye(3))
    with pytest.raises(OpError, match="assume_a"):
        fsl.solve(a, b, assume_a="banded")


@pytest.mark.parametrize("name", ["expm", "sqrtm", "logm"])
def test_matrix_functions(name):
    x = _near_identity(3) if name != "expm" else RNG.normal(size=(3, 3))
    f = getattr(fsl, name)
    np.testing.assert_allclose(f(x), getattr(sl, name)(x), rtol=1e-10, atol=1e-12)
    _check_grad(f, x, rtol=1e-5)
    stack = np.stack([x, x.T])
    np.testing.assert_allclose(f(stack)[1], getattr(sl, name)(x.T), rtol=1e-10, atol=1e-12)
    # forward mode and second order
    v = RNG.normal(size=x.shape)
    eps = 1e-6
    tangent = fg.jvp(f, (x,), (v,))[1]
    np.testing.assert_allclose(
        tangent, (np.asarray(f(x + eps * v)) - f(x - eps * v)) / (2 * eps), rtol=1e-6, atol=1e-8
    )

    def h(y):
        return fnp.sum(f(y) * f(y))

    hvp = fg.jvp(fg.grad(h), (x,), (v,))[1]
    numeric = (fg.grad(h)(x + eps * v) - fg.grad(h)(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hvp, numeric, rtol=1e-5, atol=1e-7)


def test_expm_gradient_is_scipys_frechet_derivative():
    x, e = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3))
    np.testing.assert_allclose(
        fg.jvp(fsl.expm, (x,), (e,))[1], sl.expm_frechet(x, e, compute_expm=False), rtol=1e-10
    )


def test_real_results_only():
    with pytest.raises(OpError, match="complex"):
        fsl.sqrtm(np.diag([-1.0, 2.0]))
    with pytest.raises(OpError, match="complex"):
        fsl.logm(np.diag([-1.0, 2.0]))
    # a complex matrix gets the complex function (principal branch), differentiable:
    # d Re tr expm(z) = Re tr(expm(z) dz), so the gradient is expm(z)^T (JAX's convention)
    z = np.diag([1 + 1j, 0.5 - 2j])
    got = fg.grad(lambda y: fnp.real(fnp.trace(fsl.expm(y))))(z)
    np.testing.assert_allclose(got, np.diag(np.exp(np.diag(z))), atol=1e-12)


def test_solve_sylvester():
    a, b = _near_identity(3) * 2, _near_identity(2)
    q = RNG.normal(size=(3, 2))
    np.testing.assert_allclose(fsl.solve_sylvester(a, b, q), sl.solve_sylvester(a, b, q))
    _check_grad(lambda y: fsl.solve_sylvester(y, b, q), a)
    _check_grad(lambda y: fsl.solve_sylvester(a, y, q), b)
    _check_grad(lambda y: fsl.solve_sylvester(a, b, y), q)
    with pytest.raises(OpError, match=r"q must have shape \(\.\.\., 3, 2\)"):
        fsl.solve_sylvester(a, b, q.T)


def test_solve_sylvester_complex():
    a = _near_identity(3) * 2 + 0.3j * RNG.normal(size=(3, 3))
    b = _near_identity(2) - 0.2j * RNG.normal(size=(2, 2))
    q = RNG.normal(size=(3, 2)) + 1j * RNG.normal(size=(3, 2))
    np.testing.assert_allclose(fsl.solve_sylvester(a, b, q), sl.solve_sylvester(a, b, q))
    # central differences along complex directions (real and imaginary parts), both modes
    fg.check_grads(fsl.solve_sylvester, (a, b, q), order=2, modes=("fwd", "rev"))
    fg.check_grads(lambda y: fsl.solve_sylvester(y, b.real, q.real), (a,), order=1)


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_factor_and_lu_solve_complex(trans):
    a = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))
    b = RNG.normal(size=(3, 2)) + 1j * RNG.normal(size=(3, 2))
    lu, piv = fsl.lu_factor(a)
    lu_ref, piv_ref = sl.lu_factor(a)
    np.testing.assert_allclose(lu, lu_ref, rtol=1e-12)
    np.testing.assert_array_equal(piv, piv_ref)
    np.testing.assert_allclose(
        fsl.lu_solve((lu, piv), b, trans=trans), sl.lu_solve((lu_ref, piv_ref), b, trans=trans)
    )
    np.testing.assert_allclose(
        fsl.solve_triangular(a, b, trans=trans), sl.solve_triangular(a, b, trans=trans)
    )
    # central differences along complex directions (real and imaginary parts), both modes
    fg.check_grads(lambda y: fsl.lu_factor(y)[0], (a,), order=2, modes=("fwd", "rev"))
    fg.check_grads(lambda y, c: fsl.lu_solve(fsl.lu_factor(y), c, trans=trans), (a, b), order=1)


def test_gradients_agree_with_hips_autograd():
    anp = requires("autograd.numpy")
    asl = requires("autograd.scipy.linalg")
    autograd = requires("autograd")
    a = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    b = RNG.normal(size=(3, 2))
    w = RNG.normal(size=(3, 2))
    # NOTE: not unit_diagonal=True: autograd 1.9.1's rule drops it (its inner solve
    # uses the stored diagonal), a wrong gradient; ours is checked by central differences
    for kw in ({"lower": True}, {"lower": False, "trans": "T"}, {"lower": True, "trans": 1}):
        for arg in (0, 1):
            got = fg.grad(lambda x, y, kw=kw: fnp.sum(fsl.solve_triangular(x, y, **kw) * w), arg)(
                a, b
            )
            want = autograd.grad(
                lambda x, y, kw=kw: anp.sum(asl.solve_triangular(x, y, **kw) * w), arg
            )(a, b)
            # autograd's gradient in `a` is not restricted to the triangle read
            tri = (np.tril if kw.get("lower") else np.triu)(np.ones((3, 3)), 0)
            np.testing.assert_allclose(got, want * tri if arg == 0 else want, rtol=1e-10)
    x = _near_identity(3)
    wx = RNG.normal(size=(3, 3))
    np.testing.assert_allclose(
        fg.grad(lambda y: fnp.sum(fsl.sqrtm(y) * wx))(x),
        autograd.grad(lambda y: anp.sum(asl.sqrtm(y) * wx))(x),
        rtol=1e-7,
    )
    q = RNG.normal(size=(3, 3))
    for arg in (0, 1, 2):
        np.testing.assert_allclose(
            fg.grad(lambda p, r, s: fnp.sum(fsl.solve_sylvester(p, r, s) * wx), arg)(x, 2 * x, q),
            autograd.grad(lambda p, r, s: anp.sum(asl.solve_sylvester(p, r, s) * wx), arg)(
                x, 2 * x, q
            ),
            rtol=1e-8,
        )


@pytest.mark.parametrize("trans", [0, 1])
def test_lu_factor_and_lu_solve(trans):
    a = RNG.normal(size=(4, 4))
    b, b2 = RNG.normal(size=4), RNG.normal(size=(4, 2))
    lu, piv = fsl.lu_factor(a)
    lu_ref, piv_ref = sl.lu_factor(a)
    np.testing.assert_allclose(lu, lu_ref, rtol=1e-12)
    np.testing.assert_array_equal(piv, piv_ref)
    for rhs in (b, b2):
        np.testing.assert_allclose(
            fsl.lu_solve((lu, piv), rhs, trans=trans),
            sl.lu_solve((lu_ref, piv_ref), rhs, trans=trans),
            rtol=1e-10,
        )
        _check_grad(lambda y, rhs=rhs: fsl.lu_solve(fsl.lu_factor(y), rhs, trans=trans), a)
        _check_grad(lambda y: fsl.lu_solve((lu, piv), y, trans=trans), rhs)
    _check_grad(lambda y: fsl.lu_factor(y)[0], a)  # pivots fixed near a: differentiable
    stack = RNG.normal(size=(2, 3, 3))
    got = fsl.lu_factor(stack)
    for i in range(2):
        np.testing.assert_allclose(got[0][i], sl.lu_factor(stack[i])[0], rtol=1e-12)
        np.testing.assert_array_equal(got[1][i], sl.lu_factor(stack[i])[1])
