"""`funcgrad.numpy.fft`: NumPy's values, and gradients by central differences.

Values are compared with `numpy.fft` for every function and keyword form
(`n`/`s` cropping and padding, `axes`, every `norm`); gradients of complex
inputs are checked along real and imaginary directions in the functional
API's (JAX's) convention: `grad` of a real loss `L` is `dL/dx - 1j dL/dy`.
(The comparison with HIPS autograd is in
`tests/differential/functional_cases_fft.py`.)
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
R = RNG.standard_normal((3, 5))
NORMS = (None, "backward", "ortho", "forward")

ONE_D = [
    ("fft", X, {}),
    ("fft", X, {"n": 6, "axis": 0}),
    ("fft", X, {"n": 2}),
    ("ifft", X, {"n": 5, "axis": -2}),
    ("rfft", R, {}),
    ("rfft", R, {"n": 8}),
    ("rfft", R, {"n": 3, "axis": 0}),
    ("irfft", X, {}),
    ("irfft", X, {"n": 7}),
    ("irfft", X, {"n": 4, "axis": 0}),
    ("irfft", X, {"n": 9}),
    ("hfft", X, {}),
    ("hfft", X, {"n": 5}),
    ("ihfft", R, {}),
    ("ihfft", R, {"n": 4, "axis": 0}),
]
N_D = [
    ("fftn", X, {}),
    ("fftn", X, {"s": (2, 6)}),
    ("fftn", X, {"axes": (1,)}),
    ("ifftn", X, {"s": (4, 3), "axes": (1, 0)}),
    ("fft2", X, {}),
    ("ifft2", X, {"s": (5, 2)}),
    ("rfftn", R, {}),
    ("rfftn", R, {"s": (2, 6), "axes": (1, 0)}),
    ("rfft2", R, {"s": (4, 4)}),
    ("irfftn", X, {}),
    ("irfftn", X, {"s": (3, 7)}),
    ("irfftn", X, {"axes": (0,)}),
    ("irfft2", X, {"s": (2, 4)}),
]
CASES = ONE_D + N_D


def _ids(c):
    return f"{c[0]}-{c[2]}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
@pytest.mark.parametrize("norm", NORMS)
def test_values_match_numpy(case, norm):
    name, x, kw = case
    got = getattr(fnp.fft, name)(x, norm=norm, **kw)
    want = getattr(np.fft, name)(x, norm=norm, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    node_value = fg.vjp(lambda x: getattr(fnp.fft, name)(x, norm=norm, **kw), x)[0]
    np.testing.assert_allclose(node_value, want, rtol=1e-12, atol=1e-12)


def _loss(name, kw, norm, w):
    def f(x):
        z = getattr(fnp.fft, name)(x, norm=norm, **kw)
        return fnp.sum(fnp.real(z * w[: z.size].reshape(z.shape)))

    return f


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = 1.0
        g[k] = (f(x + eps * e) - f(x - eps * e)) / (2 * eps)
        if np.iscomplexobj(x):
            g[k] -= 1j * (f(x + 1j * eps * e) - f(x - 1j * eps * e)) / (2 * eps)
    return g


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
@pytest.mark.parametrize("norm", NORMS)
def test_gradients_match_central_differences(case, norm):
    name, x, kw = case
    w = RNG.standard_normal(64) + 1j * RNG.standard_normal(64)
    f = _loss(name, kw, norm, w)
    g = fg.grad(f)(x)
    assert g.dtype == x.dtype and g.shape == x.shape
    np.testing.assert_allclose(g, _numeric_grad(f, x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_jvp_matches_vjp(case):
    name, x, kw = case
    f = lambda x: getattr(fnp.fft, name)(x, **kw)  # noqa: E731
    v = RNG.standard_normal(x.shape) + (
        1j * RNG.standard_normal(x.shape) if np.iscomplexobj(x) else 0
    )
    out, t = fg.jvp(f, (x,), (v,))
    u = RNG.standard_normal(out.shape) + (
        1j * RNG.standard_normal(out.shape) if np.iscomplexobj(out) else 0
    )
    (c,) = fg.vjp(f, x)[1](u)
    # JAX's pairing: Re(sum(u * J v)) == Re(sum(J^T u * v))
    np.testing.assert_allclose(np.real(np.sum(u * t)), np.real(np.sum(c * v)), rtol=1e-10)


def test_second_order_and_single_precision():
    f = lambda x: fnp.sum(fnp.abs(fnp.fft.irfft(fnp.fft.rfft(x) * x[:4], n=6)) ** 3)  # noqa: E731
    x = RNG.standard_normal(6)
    h = fg.hessian(f)(x)
    eps = 1e-6
    fd = np.stack(
        [(fg.grad(f)(x + eps * e) - fg.grad(f)(x - eps * e)) / (2 * eps) for e in np.eye(6)]
    )
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-6)
    assert fg.grad(f)(x.astype(np.float32)).dtype == np.float32
    z = X.astype(np.complex64)
    assert fnp.fft.fft2(z).dtype == np.complex64
    assert fg.grad(lambda z: fnp.sum(fnp.abs(fnp.fft.fftn(z)) ** 2))(z).dtype == np.complex64


def test_parseval_gradient():
    # sum |fft(x, norm="ortho")|^2 == sum |x|^2: the gradient is JAX's 2 conj(x)
    g = fg.grad(lambda z: fnp.sum(fnp.abs(fnp.fft.fft(z, norm="ortho")) ** 2))(X)
    np.testing.assert_allclose(g, 2 * np.conj(X), rtol=1e-12)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, (1,), (0, -1)])
def test_shifts_match_numpy_and_are_differentiable(name, axes):
    x = RNG.standard_normal((3, 4))
    np.testing.assert_array_equal(
        getattr(fnp.fft, name)(x, axes=axes), getattr(np.fft, name)(x, axes=axes)
    )
    w = RNG.standard_normal((3, 4))
    g = fg.grad(lambda x: fnp.sum(getattr(fnp.fft, name)(x, axes=axes) * w))(x)
    inverse = "ifftshift" if name == "fftshift" else "fftshift"
    np.testing.assert_array_equal(g, getattr(np.fft, inverse)(w, axes=axes))


def test_frequencies():
    for n in (1, 4, 5):
        for d in (1.0, 0.25):
            np.testing.assert_array_equal(fnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
            np.testing.assert_array_equal(fnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))
    # a node d divides them: d/dd (k / (n d)) = -k / (n d^2)
    g = fg.grad(lambda d: fnp.sum(fnp.fft.fftfreq(4, d) ** 2))(0.5)
    np.testing.assert_allclose(g, -2 * np.sum(np.fft.fftfreq(4, 1.0) ** 2) / 0.5**3)


def test_errors_as_numpy():
    with pytest.raises(ValueError, match="invalid norm value 'sideways'"):
        fnp.fft.fft(X, norm="sideways")
    with pytest.raises(ValueError, match="invalid number of data points \\(0\\)"):
        fnp.fft.fft(X, n=0)
    with pytest.raises(ValueError, match="shape and axes have different lengths"):
        fnp.fft.fftn(X, s=(2, 2), axes=(0,))
    with pytest.raises(TypeError, match="out= is not supported"):
        fnp.fft.fft(X, out=np.empty_like(X))
    with pytest.raises(np.exceptions.AxisError):
        fnp.fft.fft(X, axis=2)
