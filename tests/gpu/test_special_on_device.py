"""Special functions on a device: SciPy's values and derivatives, and the results stay there.

Each function runs on `device` ("cpu" here, "cuda" in the GPU runs): its
value against `scipy.special` on the host, and its first (and for some its
second) derivative against SciPy's closed forms (`ivp`, `jvp`, `yvp`,
`polygamma`, ...), independent of funcgrad's rules. On CUDA this covers
the cupyx kernels, the functions that go through the host (`iv`, `ive`,
`jn`, and so the rules of `i1`, `i1e`, `j1`), `polygamma`'s order, `yn` at
negative orders (its VJP at n = 0), and `where` with a Python-bool
condition (the rules of `heaviside` and `clamp` at a number).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp
from funcgrad.backend import to_device
from funcgrad.ops import elementwise
from tests.gpu.devices import assert_on, to_host

RTOL = {np.float64: 1e-9, np.float32: 2e-5}
POSITIVE = np.array([0.35, 0.8, 1.3, 2.2, 3.7])
SIGNED = np.array([-2.6, -0.9, -0.2, 0.4, 1.1, 3.2])


def _sgn(x):
    return np.sign(x)


# name: (funcgrad function of x, SciPy value, SciPy derivative, points)
# fmt: off
CASES = {
    "gammaln": (fsp.gammaln, sp.gammaln, sp.psi, POSITIVE),
    "gamma": (fsp.gamma, sp.gamma, lambda x: sp.gamma(x) * sp.psi(x), POSITIVE),
    "loggamma": (fsp.loggamma, sp.loggamma, sp.psi, POSITIVE),
    "rgamma": (fsp.rgamma, sp.rgamma, lambda x: -sp.psi(x) / sp.gamma(x), POSITIVE),
    "digamma": (fsp.digamma, sp.psi, lambda x: sp.polygamma(1, x), POSITIVE),
    "polygamma0": (lambda x: fsp.polygamma(0, x), lambda x: sp.polygamma(0, x),
                   lambda x: sp.polygamma(1, x), POSITIVE),
    "polygamma2": (lambda x: fsp.polygamma(2, x), lambda x: sp.polygamma(2, x),
                   lambda x: sp.polygamma(3, x), POSITIVE),
    "beta": (lambda a: fsp.beta(a, 1.7), lambda a: sp.beta(a, 1.7),
             lambda a: sp.beta(a, 1.7) * (sp.psi(a) - sp.psi(a + 1.7)), POSITIVE),
    "betaln": (lambda a: fsp.betaln(a, 1.7), lambda a: sp.betaln(a, 1.7),
               lambda a: sp.psi(a) - sp.psi(a + 1.7), POSITIVE),
    "i0": (fsp.i0, sp.i0, sp.i1, SIGNED),
    "i0e": (fsp.i0e, sp.i0e, lambda x: sp.i1e(x) - _sgn(x) * sp.i0e(x), SIGNED),
    "i1": (fsp.i1, sp.i1, lambda x: sp.ivp(1, x), SIGNED),
    "i1e": (fsp.i1e, sp.i1e, lambda x: sp.ivp(1, x) * np.exp(-abs(x)) - _sgn(x) * sp.i1e(x),
            SIGNED),
    "iv2": (lambda x: fsp.iv(2, x), lambda x: sp.iv(2, x), lambda x: sp.ivp(2, x), SIGNED),
    "ive1": (lambda x: fsp.ive(1, x), lambda x: sp.ive(1, x),
             lambda x: sp.ivp(1, x) * np.exp(-abs(x)) - _sgn(x) * sp.ive(1, x), SIGNED),
    "j0": (fsp.j0, sp.j0, lambda x: -sp.j1(x), SIGNED),
    "j1": (fsp.j1, sp.j1, lambda x: sp.jvp(1, x), SIGNED),
    "jn0": (lambda x: fsp.jn(0, x), lambda x: sp.jn(0, x), lambda x: sp.jvp(0, x), SIGNED),
    "jn3": (lambda x: fsp.jn(3, x), lambda x: sp.jn(3, x), lambda x: sp.jvp(3, x), SIGNED),
    "yn0": (lambda x: fsp.yn(0, x), lambda x: sp.yn(0, x), lambda x: sp.yvp(0, x), POSITIVE),
    "yn1": (lambda x: fsp.yn(1, x), lambda x: sp.yn(1, x), lambda x: sp.yvp(1, x), POSITIVE),
    "yn-2": (lambda x: fsp.yn(-2, x), lambda x: sp.yn(-2, x), lambda x: sp.yvp(-2, x), POSITIVE),
    "y0": (fsp.y0, sp.y0, lambda x: -sp.y1(x), POSITIVE),
    "y1": (fsp.y1, sp.y1, lambda x: sp.yvp(1, x), POSITIVE),
}
# second derivatives, where the first-order rule calls another special function
SECOND = {
    "gammaln": lambda x: sp.polygamma(1, x),
    "digamma": lambda x: sp.polygamma(2, x),
    "i0": lambda x: sp.ivp(0, x, 2),
    "i1": lambda x: sp.ivp(1, x, 2),
    "j1": lambda x: sp.jvp(1, x, 2),
    "jn3": lambda x: sp.jvp(3, x, 2),
    "yn0": lambda x: sp.yvp(0, x, 2),
    "yn1": lambda x: sp.yvp(1, x, 2),
}
# fmt: on


def _derivative(f):
    return fg.grad(lambda x: fnp.sum(f(x)))


def _check(got, want, device, dtype, what):
    assert_on(got, device, what)
    got = to_host(got)
    assert got.dtype == dtype, f"{what}: {got.dtype}, not {np.dtype(dtype)}"
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=RTOL[dtype], err_msg=what)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_derivative_on_device_are_scipys(device, name, dtype):
    f, value, slope, points = CASES[name]
    x = to_device(points.astype(dtype), device)
    _check(f(x), value(points), device, dtype, f"{name}(x)")
    _check(_derivative(f)(x), slope(points), device, dtype, f"d/dx {name}(x)")


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivative_on_device_is_scipys(device, name):
    f, _, _, points = CASES[name]
    x = to_device(points, device)
    got = _derivative(_derivative(f))(x)
    _check(got, SECOND[name](points), device, np.float64, f"d2/dx2 {name}(x)")


def test_jvp_of_yn_at_order_zero_on_device(device):
    # the forward-mode rule of yn(0, x) asks for yn(-1, x): NaN from CUDA's yn before
    x = to_device(POSITIVE, device)
    t = to_device(np.ones_like(POSITIVE), device)
    _, tangent = fg.jvp(lambda v: fsp.yn(0, v), (x,), (t,))
    _check(tangent, sp.yvp(0, POSITIVE), device, np.float64, "jvp yn(0, x)")


def test_heaviside_at_a_number_step_on_device(device):
    # heaviside(0.0, x2) is x2: its rule is where(0.0 == 0, ct, 0.0), a Python-bool condition
    x2 = to_device(np.array([-1.5, 0.25, 2.0]), device)
    _check(fnp.heaviside(0.0, x2), to_host(x2), device, np.float64, "heaviside(0, x2)")
    grad = _derivative(lambda v: fnp.heaviside(0.0, v))(x2)
    _check(grad, np.ones(3), device, np.float64, "d/dx2 heaviside(0, x2)")
    grad = _derivative(lambda v: fnp.heaviside(1.0, v))(x2)
    _check(grad, np.zeros(3), device, np.float64, "d/dx2 heaviside(1, x2)")


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_clamp_with_number_bounds_on_device(device, dtype):
    # the bound that funcgrad.clamp leaves out is the number 0.0; its rule masks with a bool
    points = np.array([-2.0, -0.5, 0.3, 1.5, 4.0], dtype=dtype)
    x = to_device(points, device)
    for lo, hi, bounds in [(-1.0, 0.0, "min"), (0.0, 1.0, "max"), (-1.0, 1.0, "both")]:
        lo_, hi_ = (None if bounds == "max" else lo), (None if bounds == "min" else hi)
        want = np.clip(points, lo_, hi_)
        inside = (points >= (-np.inf if lo_ is None else lo_)) & (
            points <= (np.inf if hi_ is None else hi_)
        )

        def f(v, lo=lo, hi=hi, bounds=bounds):
            return elementwise.clamp(v, lo, hi, bounds=bounds, method="clamp")

        _check(f(x), want, device, dtype, f"clamp {bounds}")
        _check(_derivative(f)(x), inside.astype(dtype), device, dtype, f"d/dx clamp {bounds}")


@pytest.mark.parametrize("cond", [True, False])
def test_where_with_a_python_bool_on_device(device, cond):
    x = to_device(np.array([1.0, -2.0], dtype=np.float32), device)
    _check(fnp.where(cond, x, 0.0), np.where(cond, [1.0, -2.0], 0.0), device, np.float32, "where")


# --- the compositions of funcgrad.scipy.special (NumPy only before: np.asarray of the values) ----


def test_gammasgn_on_device(device):
    points = np.array([-2.5, -1.5, -0.5, 0.5, 3.0])
    got = fsp.gammasgn(to_device(points, device))
    _check(got, sp.gammasgn(points), device, np.float64, "gammasgn")


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
def test_multigammaln_and_its_derivative_on_device(device, dtype):
    points = np.array([1.6, 2.0, 3.5], dtype=dtype)
    x = to_device(points, device)
    _check(fsp.multigammaln(x, 3), sp.multigammaln(points.astype(float), 3), device, dtype, "value")
    slope = sum(sp.psi(points.astype(float) - j / 2) for j in range(3))  # d/da: sum_j psi(a - j/2)
    _check(_derivative(lambda v: fsp.multigammaln(v, 3))(x), slope, device, dtype, "d/da")
    with pytest.raises(ValueError, match="multigammaln: condition a"):
        fsp.multigammaln(x, 5)


def test_logsumexp_with_weights_on_device(device):
    a_host = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
    b_host = np.array([[1.0, 2.0, 0.5], [-1.0, 0.25, 3.0]])
    a, b = to_device(a_host, device), to_device(b_host, device)
    _check(fsp.logsumexp(a, b=b), sp.logsumexp(a_host, b=b_host), device, np.float64, "lse")
    out, sign = fsp.logsumexp(a, axis=1, b=b, return_sign=True)
    want, want_sign = sp.logsumexp(a_host, axis=1, b=b_host, return_sign=True)
    _check(out, want, device, np.float64, "lse axis=1 value")
    _check(sign, want_sign, device, np.float64, "lse axis=1 sign")
    _check(fsp.logsumexp(a, b=2.0), sp.logsumexp(a_host, b=2.0), device, np.float64, "b number")
    # d/da log(sum(b e^a)) = b e^a / sum(b e^a), for positive weights
    w_host = np.abs(b_host)
    grad = fg.grad(lambda v: fsp.logsumexp(v, b=to_device(w_host, device)))(a)
    want = w_host * np.exp(a_host) / np.sum(w_host * np.exp(a_host))
    _check(grad, want, device, np.float64, "d/da lse")
    _, sign = fsp.logsumexp(a, return_sign=True)
    _check(sign, np.float64(1.0), device, np.float64, "sign without b")
