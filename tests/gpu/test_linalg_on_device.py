"""Linear algebra, FFT and reductions on a device: NumPy's values and gradients, kept on the device.

Each case computes a scalar function of one primitive's result and its
gradient (and, for a few, the gradient of the gradient) on the CPU and on
`device`, then checks that the device results live there and equal the CPU
ones (float64, so to rounding). The forwards without a GPU implementation
(general eig, SciPy's matrix functions, LAPACK's singular and eigenvectors)
make a round trip through the host (`funcgrad.backend.on_host`), and their
rules, built from primitives, must then compute with constants on the
device. On `"cpu"` this checks the harness; the GPU run checks the device.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import registry
from tests.gpu.devices import assert_on, to_dev, to_host
from tests.references import requires

RTOL = 1e-9


def _rng(seed):
    return np.random.default_rng(seed)


def _close(actual, expected, what):
    np.testing.assert_allclose(to_host(actual), expected, rtol=RTOL, atol=1e-11, err_msg=what)


def _weights(shape, complex_=False):
    w = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    return w * (1.0 - 0.5j) if complex_ else w


def _loss(fn, complex_out=False):
    """sum(real(w * fn(x))) with fixed weights w (of fn's result's shape)."""

    def loss(x):
        y = fn(x)
        w = _weights(y.shape, complex_out)
        if type(x) is not np.ndarray:  # the device case: the weights go along
            w = to_dev(w, _device_of(x))
        return fnp.sum(fnp.real(y * w))

    return loss


def _device_of(x):
    from funcgrad.backend import device_of

    return device_of(x.value if hasattr(x, "value") else x)


def _check(device, fn, x, what, complex_out=False, second=False):
    loss = _loss(fn, complex_out)
    value, grad = fg.value_and_grad(loss)(x)
    d_value, d_grad = fg.value_and_grad(loss)(to_dev(x, device))
    assert_on((d_value, d_grad), device, what)
    _close(d_value, value, f"{what}: value")
    _close(d_grad, grad, f"{what}: gradient")
    out = fn(to_dev(x, device))
    assert_on(out, device, f"{what}: forward")
    _close(out, fn(x), f"{what}: forward")
    if second:
        g2 = fg.grad(lambda y: fnp.sum(fnp.real(fg.grad(loss)(y) * fnp.conj(fg.grad(loss)(y)))))
        d_g2 = g2(to_dev(x, device))
        assert_on(d_g2, device, f"{what}: second order")
        _close(d_g2, g2(x), f"{what}: second order")


def _hermitian(n, complex_=False, batch=()):
    rng = _rng(n)
    a = rng.standard_normal((*batch, n, n))
    if complex_:
        a = a + 1j * rng.standard_normal((*batch, n, n))
    d = np.diag(np.arange(1.0, n + 1) * np.where(np.arange(n) % 2, -1.0, 1.0) + 0.3)
    q = np.linalg.qr(a)[0]
    return q @ d @ np.conj(np.swapaxes(q, -1, -2))


@pytest.mark.parametrize("complex_", [False, True])
def test_singular_value_decomposition(device, complex_):
    rng = _rng(1)
    x = rng.standard_normal((2, 3, 2))
    if complex_:
        x = x + 1j * rng.standard_normal((2, 3, 2))
    _check(device, lambda a: fnp.linalg.svd(a, compute_uv=False), x, "svdvals")
    _check(device, lambda a: fnp.linalg.svd(a, full_matrices=False)[0], x, "svd U", complex_)
    _check(device, lambda a: fnp.linalg.svd(a, full_matrices=False)[2], x, "svd Vh", complex_)
    _check(device, lambda a: fnp.linalg.pinv(a), x, "pinv", complex_)
    h = _hermitian(3, complex_)
    _check(device, lambda a: fnp.linalg.svd(a, hermitian=True)[0], h, "svd U (hermitian)", complex_)
    _check(device, lambda a: fnp.linalg.svd(a, hermitian=True, compute_uv=False), h, "svdvals (h)")
    _check(device, lambda a: fnp.linalg.pinv(a, hermitian=True), h, "pinv (hermitian)", complex_)


@pytest.mark.parametrize("complex_", [False, True])
def test_eigendecompositions(device, complex_):
    h = _hermitian(3, complex_, batch=(2,))
    _check(device, lambda a: fnp.linalg.eigvalsh(a), h, "eigvalsh", second=True)
    _check(device, lambda a: fnp.linalg.eigh(a)[1], h, "eigh vectors", complex_, second=True)
    x = _rng(2).standard_normal((2, 3, 3)) + 2.0 * np.diag([1.0, 2.0, 3.0])
    _check(device, lambda a: fnp.linalg.eigvals(a), x, "eigvals", True, second=True)
    _check(device, lambda a: fnp.linalg.eig(a)[1], x, "eig vectors", True)
    _check(device, lambda p: fnp.roots(p), np.array([1.0, -0.5, -2.0, 1.0]), "roots", True)


def test_solve_broadcasts_batches(device):
    rng = _rng(3)
    a = rng.standard_normal((2, 3, 3)) + 3.0 * np.eye(3)
    for b in (rng.standard_normal((3, 2)), rng.standard_normal(3), rng.standard_normal((2, 3, 1))):
        _check(device, lambda a_, b=b: fnp.linalg.solve(a_, to_like(b, a_)), a, f"a, b {b.shape}")
        _check(device, lambda b_: fnp.linalg.solve(to_like(a, b_), b_), b, f"b {b.shape}")


@pytest.mark.parametrize("name", ["expm", "sqrtm", "logm", "lu_factor"])
def test_scipy_matrix_functions(device, name):
    requires("scipy")
    import funcgrad.scipy.linalg as fsl

    x = _rng(4).uniform(-0.3, 0.3, (2, 2, 2)) + 1.5 * np.eye(2)
    fn = getattr(fsl, name)
    _check(device, (lambda a: fn(a)[0]) if name == "lu_factor" else fn, x, name)


def test_solve_sylvester(device):
    requires("scipy")
    import funcgrad.scipy.linalg as fsl

    rng = _rng(5)
    a, b = rng.standard_normal((2, 2)) + 3 * np.eye(2), rng.standard_normal((3, 3)) + 3 * np.eye(3)
    q = rng.standard_normal((2, 3))
    _check(device, lambda a_: fsl.solve_sylvester(a_, to_like(b, a_), to_like(q, a_)), a, "sylv")


def to_like(v, x):
    """`v` on the device of `x` (a NumPy array on the CPU)."""
    return v if type(x) is np.ndarray else to_dev(v, _device_of(x))


@pytest.mark.parametrize("n", [4, 5])
def test_irfftn(device, n):
    x = _rng(6).standard_normal((3, n // 2 + 1)) + 1j * _rng(7).standard_normal((3, n // 2 + 1))
    _check(device, lambda z: fnp.fft.irfftn(z, s=(3, n)), x, "irfftn")


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_reductions(device, shape):
    x = _rng(8).uniform(0.5, 1.5, shape) * np.where(_rng(9).uniform(size=shape) < 0.5, -1, 1)
    x = np.asarray(x)
    axis = None if not shape else -1
    for name, fn in [
        ("max", lambda a: fnp.max(a, axis=axis)),
        ("min", lambda a: fnp.min(a, axis=axis)),
        ("prod", lambda a: fnp.prod(a, axis=axis)),
        ("std", lambda a: fnp.std(a, axis=axis)),
        ("var", lambda a: fnp.var(a, axis=axis, ddof=0)),
        ("cumprod", lambda a: fnp.cumprod(a)),
        ("norm", lambda a: fnp.linalg.norm(a)),
    ]:
        _check(device, fn, x, f"{name} of shape {shape}")
    for name in ("max_dim", "min_dim"):
        prim = registry.get(name)
        _check(device, lambda a, p=prim: p(a, axis=0, keepdims=False), x, f"{name} {shape}")


def test_lu_factor_pivots_and_lu_solve(device):
    # SciPy's pivots come from a host copy and go back to a's device (as cupyx.scipy's)
    requires("scipy")
    import funcgrad.scipy.linalg as fsl

    rng = _rng(10)
    a = rng.uniform(-0.5, 0.5, (2, 3, 3)) + 3.0 * np.eye(3)[[2, 0, 1]]
    b = rng.standard_normal((2, 3, 2))
    lu, piv = fsl.lu_factor(a)
    d_lu, d_piv = fsl.lu_factor(to_dev(a, device))
    assert_on((d_lu, d_piv), device, "lu_factor")
    np.testing.assert_array_equal(to_host(d_piv), piv)
    _close(d_lu, lu, "lu_factor")
    for trans in (0, 1):
        _check(
            device,
            lambda a_, t=trans: fsl.lu_solve(fsl.lu_factor(a_), to_like(b, a_), trans=t),
            a,
            f"lu_solve trans={trans}",
        )
