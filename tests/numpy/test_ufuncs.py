"""Edges of the float ufuncs of `funcgrad.numpy` (funcgrad/ops/ufuncs.py and _elementwise.py).

The generic rule tests check each primitive's rules against central
differences; here are the behaviours at the edges: NaNs in `fmax`/`fmin`,
the two-output functions (`frexp`, `modf`, `divmod`), `float_power`'s
dtype, the conventions at non-differentiable points, and the zero
gradients of the rounding functions, against NumPy and HIPS autograd.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import DtypeError
from funcgrad.graph import Node
from tests.references import requires

X = np.array([2.5, -1.25, 0.3, -3.75, 7.0])


def _grad_sum(f, *args, argnum=0):
    return fg.grad(lambda *a: fnp.sum(f(*a)), argnums=argnum)(*args)


# --- fmax, fmin: NaNs are ignored, the gradient goes to the value returned ---------------------


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_send_the_gradient_past_nans(name):
    x = np.array([1.0, np.nan, 3.0, np.nan, 2.0])
    y = np.array([np.nan, 1.0, 2.0, np.nan, 2.0])
    f = getattr(fnp, name)
    np.testing.assert_array_equal(f(x, y), getattr(np, name)(x, y))
    gx, gy = fg.grad(lambda a, b: fnp.sum(f(a, b)), argnums=(0, 1))(x, y)
    winner = 1.0 if name == "fmax" else 0.0  # entry 2: 3 vs 2
    np.testing.assert_array_equal(gx, [1.0, 0.0, winner, 0.0, 0.5])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 1.0 - winner, 0.0, 0.5])
    # the same as HIPS autograd's balanced_eq rule
    agrad = requires("autograd").grad
    anp = requires("autograd.numpy")
    ax = agrad(lambda a: anp.sum(getattr(anp, name)(a, y)))(x)
    ay = agrad(lambda b: anp.sum(getattr(anp, name)(x, b)))(y)
    np.testing.assert_array_equal(gx, ax)
    np.testing.assert_array_equal(gy, ay)


# --- two outputs ---------------------------------------------------------------------------


def test_frexp_mantissa_is_differentiable_and_exact():
    x = np.array([8.0, -3.0, 0.0, -0.0, np.inf, 5e-324, 0.1])
    mantissa, exponent = fnp.frexp(fg.leaf(x))
    expected_m, expected_e = np.frexp(x)
    np.testing.assert_array_equal(mantissa.value, expected_m)
    np.testing.assert_array_equal(np.signbit(mantissa.value), np.signbit(expected_m))
    assert exponent.dtype == expected_e.dtype and np.array_equal(exponent, expected_e)
    normal = np.isfinite(x) & (np.abs(x) != 5e-324)  # 2 ** 1073 (the subnormal's) overflows
    g = _grad_sum(lambda a: fnp.frexp(a)[0], x[normal])
    np.testing.assert_array_equal(g, np.ldexp(1.0, -expected_e[normal]))  # 2 ** -exponent
    # central differences, away from powers of two
    h = 1e-7
    y = np.array([3.0, -0.3, 6.5])
    fd = (np.frexp(y + h)[0] - np.frexp(y - h)[0]) / (2 * h)
    np.testing.assert_allclose(_grad_sum(lambda a: fnp.frexp(a)[0], y), fd, rtol=1e-6)


def test_modf_parts_and_gradients():
    x = np.array([2.5, -1.25, -2.0, -0.0, np.inf, -np.inf, np.nan, 1e300])
    fraction, integral = fnp.modf(fg.leaf(x))
    f_np, i_np = np.modf(x)
    np.testing.assert_array_equal(fraction.value, f_np)
    np.testing.assert_array_equal(np.signbit(fraction.value), np.signbit(f_np))
    np.testing.assert_array_equal(integral.value, i_np)
    assert type(integral) is Node  # piecewise constant, but the graph is not cut
    g_frac = _grad_sum(lambda a: fnp.modf(a)[0], x)
    np.testing.assert_array_equal(g_frac[:4], [1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(g_frac[4:6], [0.0, 0.0])  # a constant 0 fraction at +-inf
    np.testing.assert_array_equal(_grad_sum(lambda a: fnp.modf(a)[1], x[:4]), np.zeros(4))


def test_divmod_quotient_has_a_zero_gradient_and_the_remainder_mods():
    x, y = np.array([7.0, -7.0, 5.5]), np.array([2.0, 2.0, -1.5])
    q, r = fnp.divmod(fg.leaf(x), fg.leaf(y))
    np.testing.assert_array_equal(q.value, np.divmod(x, y)[0])
    np.testing.assert_array_equal(r.value, np.divmod(x, y)[1])
    gx, gy = fg.grad(lambda a, b: fnp.sum(fnp.divmod(a, b)[0]), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, np.zeros(3))
    np.testing.assert_array_equal(gy, np.zeros(3))
    gx, gy = fg.grad(lambda a, b: fnp.sum(fnp.divmod(a, b)[1]), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, np.ones(3))
    np.testing.assert_array_equal(gy, -np.floor(x / y))  # as HIPS autograd's mod
    agrad, anp = requires("autograd").grad, requires("autograd.numpy")
    np.testing.assert_array_equal(gy, agrad(lambda b: anp.sum(anp.mod(x, b)))(y))
    assert fnp.divmod(7.0, 2.0) == divmod(7.0, 2.0)  # plain values: NumPy's


# --- float_power computes in float64 -----------------------------------------------------------


def test_float_power_dtype_and_gradient():
    x = np.array([1.5, 0.5, 2.0], dtype=np.float32)
    out = fnp.float_power(fg.leaf(x), 3)
    assert out.dtype == np.float64 == np.float_power(x, 3).dtype
    np.testing.assert_array_equal(out.value, np.float_power(x, 3))
    g = _grad_sum(lambda a: fnp.float_power(a, 2.5), x)
    assert g.dtype == np.float32  # cast back to the input's dtype
    np.testing.assert_allclose(g, 2.5 * np.float64(x) ** 1.5, rtol=1e-6)
    # the exponent's gradient, computed in float64: log(x) * x ** y
    y = np.float32(1.7)
    gy = fg.grad(lambda b: fnp.sum(fnp.float_power(x, b)))(y)
    assert gy.dtype == np.float32
    expected = np.sum(np.log(np.float64(x)) * np.float64(x) ** np.float64(y))
    np.testing.assert_allclose(gy, expected, rtol=1e-6)
    assert fnp.float_power(2, 3) == 8.0 and fnp.float_power(2, 3).dtype == np.float64
    assert fnp.float_power([1j], 2).dtype == np.complex128  # plain values: NumPy's


def test_float_power_refuses_complex_nodes():
    with pytest.raises(DtypeError, match="float_power"):
        fnp.float_power(fg.leaf(np.array([1.0 + 1.0j])), 2.0)


# --- conventions at non-differentiable points ---------------------------------------------------


def test_hypot_at_the_origin_is_zero_like_abs():
    gx, gy = fg.grad(lambda a, b: fnp.sum(fnp.hypot(a, b)), argnums=(0, 1))(
        np.array([0.0, 3.0]), np.array([0.0, -4.0])
    )
    np.testing.assert_array_equal(gx, [0.0, 0.6])
    np.testing.assert_array_equal(gy, [0.0, -0.8])
    assert fg.grad(lambda a: fnp.hypot(a, 0.0))(-2.0) == fg.grad(fnp.abs)(-2.0) == -1.0


def test_cbrt_at_zero_is_infinite_but_a_zero_cotangent_stays_zero():
    with np.errstate(divide="ignore", invalid="ignore"):  # 1 / 0 and 0 / 0 in the rule
        assert fg.grad(fnp.cbrt)(0.0) == np.inf
        g = fg.grad(lambda a: fnp.sum(fnp.where(a > 0, fnp.cbrt(a), 0.0)))(np.array([0.0, 8.0]))
    np.testing.assert_allclose(g, [0.0, 1.0 / 12.0])


def test_sinc_derivatives_at_and_near_zero():
    assert fg.grad(fnp.sinc)(0.0) == 0.0
    np.testing.assert_allclose(fg.grad(fg.grad(fnp.sinc))(0.0), -(np.pi**2) / 3, rtol=1e-14)
    for x in (0.05, 0.0999, 0.1, 0.5, -2.3):  # both branches of the rule, and their seam
        h = 1e-6
        fd = (np.sinc(x + h) - np.sinc(x - h)) / (2 * h)
        np.testing.assert_allclose(fg.grad(fnp.sinc)(x), fd, rtol=1e-7, atol=1e-9)


def test_copysign_and_heaviside_gradients():
    x, y = np.array([1.5, -2.0, 0.0, 3.0]), np.array([-1.0, -0.0, 1.0, 2.0])
    gx, gy = fg.grad(lambda a, b: fnp.sum(fnp.copysign(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, [-1.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy, np.zeros(4))
    x1 = np.array([-1.0, 0.0, 2.0])
    g1, g2 = fg.grad(lambda a, b: fnp.sum(fnp.heaviside(a, b)), argnums=(0, 1))(x1, 0.5)
    np.testing.assert_array_equal(g1, np.zeros(3))
    assert g2 == 1.0  # x2 is the value at the one entry where x1 == 0


def test_remainders_gradients_in_the_divisor():
    x, y = np.array([5.0, -5.0, 5.0]), np.array([3.0, 3.0, -3.0])
    g_mod = fg.grad(lambda b: fnp.sum(fnp.mod(x, b)))(y)
    g_fmod = fg.grad(lambda b: fnp.sum(fnp.fmod(x, b)))(y)
    np.testing.assert_array_equal(g_mod, -np.floor(x / y))
    np.testing.assert_array_equal(g_fmod, -np.trunc(x / y))
    assert fnp.remainder is fnp.mod and fnp.acosh is fnp.arccosh and fnp.atanh is fnp.arctanh


def test_ldexp_and_nextafter_gradients():
    g = _grad_sum(lambda a: fnp.ldexp(a, [3, -2]), np.array([1.0, 5.0]))
    np.testing.assert_array_equal(g, [8.0, 0.25])
    with pytest.raises(Exception, match="ldexp"):
        fnp.ldexp(fg.leaf(np.array([1.0])), 2.5)  # NumPy refuses a float exponent too
    gx, gy = fg.grad(lambda a, b: fnp.sum(fnp.nextafter(a, b)), argnums=(0, 1))(X, -X)
    np.testing.assert_array_equal(gx, np.ones(5))
    np.testing.assert_array_equal(gy, np.zeros(5))


def test_out_and_where_keywords_are_refused_on_nodes():
    x = fg.leaf(X)
    for f in (fnp.log2, fnp.hypot, fnp.float_power):
        args = (x,) if f is fnp.log2 else (x, 2.0)
        with pytest.raises(TypeError, match="out"):
            f(*args, out=np.empty(5))
        with pytest.raises(TypeError, match="where"):
            f(*args, where=X > 0)


# --- rounding and sign functions: zero gradients, as HIPS autograd's ------------------------------


ROUNDING = {
    "floor": lambda m, x: m.floor(x),
    "ceil": lambda m, x: m.ceil(x),
    "rint": lambda m, x: m.rint(x),
    "round": lambda m, x: m.round(x, 1),
    "around": lambda m, x: m.around(x),
    "trunc": lambda m, x: m.trunc(x),
    "fix": lambda m, x: m.fix(x),
    "sign": lambda m, x: m.sign(x),
    "spacing": lambda m, x: m.spacing(x),
}


@pytest.mark.parametrize("name", sorted(ROUNDING))
def test_rounding_functions_give_zero_gradients_like_autograd(name):
    call = ROUNDING[name]
    out = call(fnp, fg.leaf(X))
    assert type(out) is Node
    np.testing.assert_array_equal(out.value, call(np, X))
    g = fg.grad(lambda a: fnp.sum(call(fnp, a) * a))(X)  # d/dx (f(x) * x) = f(x) if f' = 0
    assert g is not None and g.dtype == X.dtype
    np.testing.assert_array_equal(g, call(np, X))
    _, tangent = fg.jvp(lambda a: call(fnp, a), (X,), (np.ones(5),))
    np.testing.assert_array_equal(tangent, np.zeros(5))
    if name != "spacing":  # autograd's spacing has no gradient rule
        agrad, anp = requires("autograd").grad, requires("autograd.numpy")
        np.testing.assert_array_equal(g, agrad(lambda a: anp.sum(call(anp, a) * a))(X))


def test_signbit_reads_a_node_and_returns_booleans():
    out = fnp.signbit(fg.leaf(np.array([-1.0, 0.0, -0.0])))
    assert out.dtype == bool and out.tolist() == [True, False, True]
