"""`funcgrad.misc.fixed_points` and `funcgrad.misc.flatten.flatten_func` against HIPS autograd 1.9.1.

Both libraries get the same functions, each written with its own NumPy
namespace; values, gradients and (for `fixed_point`) second derivatives
must agree to float64 rounding, and the fixed point's derivatives must be
those of the exact solution (the implicit function theorem), not those of
the truncated iteration.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.misc.fixed_points import fixed_point
from funcgrad.misc.flatten import flatten_func
from tests.references import requires

autograd = requires("autograd")
import autograd.numpy as anp  # noqa: E402
from autograd.misc.fixed_points import fixed_point as ag_fixed_point  # noqa: E402
from autograd.misc.flatten import flatten_func as ag_flatten_func  # noqa: E402


def _sqrt_by_descent(np_, fixed, tol):
    """sqrt(a) as the fixed point of a damped gradient step on (x**2 - a)**2 / 4."""

    def step(a):
        return lambda x: x - 0.05 * (x**2 - a)

    return lambda a: fixed(step, a, 10.0, lambda x, y: np_.abs(x - y), tol)


@pytest.mark.parametrize("tol", [1e-4, 1e-10])
def test_fixed_point_value_and_two_derivatives_match_autograd(tol):
    ours, theirs = (
        _sqrt_by_descent(fnp, fixed_point, tol),
        _sqrt_by_descent(anp, ag_fixed_point, tol),
    )
    for a in (2.0, 0.7):
        assert ours(a) == theirs(a)
        np.testing.assert_allclose(fg.grad(ours)(a), autograd.grad(theirs)(a), rtol=1e-13)
        np.testing.assert_allclose(
            fg.grad(fg.grad(ours))(a), autograd.grad(autograd.grad(theirs))(a), rtol=1e-12
        )
    # at a tight tolerance the derivatives are sqrt's: 1 / (2 sqrt a) and -1 / (4 a^1.5)
    if tol < 1e-8:
        np.testing.assert_allclose(fg.grad(ours)(2.0), 0.5 / np.sqrt(2.0), rtol=1e-8)
        np.testing.assert_allclose(fg.grad(fg.grad(ours))(2.0), -0.25 * 2.0**-1.5, rtol=1e-7)


def _affine(np_, fixed):
    """x* = M x* + b (a contraction), with a = (M, b) a pytree: x* = (I - M)^-1 b."""

    def step(a):
        m, b = a
        return lambda x: np_.dot(m, x) + b

    def dist(x, y):
        return np_.max(np_.abs(x - y))

    return lambda m, b: np_.sum(np_.sin(fixed(step, (m, b), np.zeros(3), dist, 1e-13)))


def test_fixed_point_of_a_pytree_parameter_matches_autograd_and_the_exact_solution():
    rng = np.random.default_rng(0)
    m, b = 0.3 * rng.normal(size=(3, 3)) / 3, rng.normal(size=3)
    ours, theirs = _affine(fnp, fixed_point), _affine(anp, ag_fixed_point)
    np.testing.assert_allclose(ours(m, b), theirs(m, b), rtol=1e-14)

    def exact(m, b):
        return fnp.sum(fnp.sin(fnp.linalg.solve(fnp.eye(3) - m, b)))

    got = fg.grad(ours, argnums=(0, 1))(m, b)
    want = autograd.grad(theirs, 0)(m, b), autograd.grad(theirs, 1)(m, b)
    for g, w, e in zip(got, want, fg.grad(exact, argnums=(0, 1))(m, b), strict=True):
        # the adjoint is solved by iteration to the same tol: agreement to about tol
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
    # forward mode is the transpose of the rule: a JVP equals the VJP's dot product
    v = rng.normal(size=3)
    _, tangent = fg.jvp(lambda b: ours(m, b), (b,), (v,))
    np.testing.assert_allclose(tangent, got[1] @ v, rtol=1e-10)


def test_flatten_func_matches_autograds():
    params = {"w": np.array([[1.0, -2.0], [0.5, 3.0]]), "b": [np.array([0.1, 0.2]), 0.3]}

    def model(np_):
        def loss(p, scale):
            h = np_.tanh(np_.dot(p["w"], p["b"][0]) + p["b"][1])
            return scale * np_.sum(h**2)

        return loss

    f, unflatten, x0 = flatten_func(model(fnp), params)
    g, ag_unflatten, ag_x0 = ag_flatten_func(model(anp), params)
    np.testing.assert_array_equal(x0, ag_x0)
    # autograd returns a 1-vector, funcgrad the scalar (funcgrad.grad takes only scalars)
    assert np.shape(f(x0, 2.0)) == () and np.shape(g(ag_x0, 2.0)) == (1,)
    np.testing.assert_allclose(f(x0 * 0.5, 2.0), g(ag_x0 * 0.5, 2.0)[0], rtol=1e-15)
    np.testing.assert_allclose(
        fg.grad(f)(x0, 2.0), autograd.grad(lambda x: g(x, 2.0)[0])(ag_x0), rtol=1e-14
    )
    back, ag_back = unflatten(x0 + 1.0), ag_unflatten(ag_x0 + 1.0)
    np.testing.assert_array_equal(back["w"], ag_back["w"])
    np.testing.assert_array_equal(back["b"][0], ag_back["b"][0])
    # a pytree result is flattened as autograd flattens it
    h, _, _ = flatten_func(lambda p: {"u": p["w"] * 2, "v": p["b"][1]}, params)
    k, _, _ = ag_flatten_func(lambda p: {"u": p["w"] * 2, "v": p["b"][1]}, params)
    np.testing.assert_array_equal(h(x0), k(ag_x0))
