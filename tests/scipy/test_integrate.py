"""funcgrad.scipy.integrate.odeint: values against SciPy, adjoint gradients against HIPS autograd.

Tolerances: both solvers run at rtol = atol = 1e-10; values and gradients
are compared at rtol 1e-6 (the adjoint is solved numerically, so it agrees
with autograd's, which is the same adjoint, to about the solver's accuracy,
and with central differences to about 1e-6).
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import NotDifferentiableError
from tests.references import requires

ag = requires("autograd")
si = requires("scipy.integrate")
from funcgrad.scipy.integrate import odeint  # noqa: E402  (after the SciPy check)

KW = {"rtol": 1e-10, "atol": 1e-10}
Y0 = np.array([1.0, 0.5])
T = np.array([0.0, 0.4, 1.0, 1.7])
A = np.array([0.7, 1.3])
B = 0.8
W = np.arange(1.0, 9.0).reshape(4, 2)


def dynamics(np_):
    def f(y, t, a, b):
        return -a * y + b * np_.sin(t) * y[::-1]

    return f


def loss(y0, t, a, b):
    return fnp.sum(odeint(dynamics(fnp), y0, t, a, b, **KW) * W)


def test_values_match_scipy():
    ys = odeint(dynamics(fnp), Y0, T, A, B, **KW)
    want = si.odeint(dynamics(np), Y0, T, args=(A, B), **KW)
    np.testing.assert_allclose(ys, want, rtol=1e-12)


def test_gradients_match_autograd():
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.integrate import odeint as a_odeint

    f = dynamics(anp)

    def a_loss(y0, t, args):
        return anp.sum(a_odeint(f, y0, t, args, **KW) * W)

    got = fg.grad(loss, argnums=(0, 1, 2, 3))(Y0, T, A, B)
    want_y0, want_t, (want_a, want_b) = (autograd.grad(a_loss, i)(Y0, T, (A, B)) for i in range(3))
    for g, w in zip(got, (want_y0, want_t, want_a, want_b), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)


def test_gradients_match_central_differences():
    fg.check_grads(loss, (Y0, T, A, B), order=1, modes=("rev",), atol=1e-6, rtol=1e-6)


def test_a_pytree_state_and_pytree_parameters():
    def f(state, t, p):
        return {"x": state["v"], "v": -p["k"] * state["x"] - p["c"] * state["v"]}

    def flat_f(y, t, k, c):
        return fnp.stack([y[1], -k * y[0] - c * y[1]])

    p = {"k": 2.0, "c": 0.3}
    out = odeint(f, {"x": 1.0, "v": 0.0}, T, p, **KW)
    ref = odeint(flat_f, np.array([1.0, 0.0]), T, 2.0, 0.3, **KW)
    np.testing.assert_allclose(out["x"], ref[:, 0], rtol=1e-12)
    np.testing.assert_allclose(out["v"], ref[:, 1], rtol=1e-12)
    g = fg.grad(lambda p: fnp.sum(odeint(f, {"x": 1.0, "v": 0.0}, T, p, **KW)["x"]))(p)
    g_ref = fg.grad(
        lambda k, c: fnp.sum(odeint(flat_f, np.array([1.0, 0.0]), T, k, c, **KW)[:, 0]),
        argnums=(0, 1),
    )(2.0, 0.3)
    assert g["k"] == pytest.approx(g_ref[0], rel=1e-6)
    assert g["c"] == pytest.approx(g_ref[1], rel=1e-6)


def test_forward_mode_and_second_order_are_refused():
    with pytest.raises(NotDifferentiableError, match="odeint.*first-order reverse mode"):
        fg.jvp(lambda b: loss(Y0, T, A, b), (B,), (1.0,))
    with pytest.raises(NotDifferentiableError, match="odeint.*first-order reverse mode"):
        fg.grad(fg.grad(lambda b: loss(Y0, T, A, b)))(B)


def test_static_arguments_and_a_list_of_times():
    def decay(y, t, k, flip):
        return k * y if flip else -k * y

    def end(k):
        return odeint(decay, 1.0, [0.0, 1.0], k, False, **KW)[1]

    assert end(0.5) == pytest.approx(np.exp(-0.5), rel=1e-8)
    assert fg.grad(end)(0.5) == pytest.approx(-np.exp(-0.5), rel=1e-7)


# --- SciPy's (autograd's) ways of passing the parameters, and SciPy's default tolerances -----------


def test_scipys_args_tuple_positional_or_keyword_ports_autograd_calls():
    import autograd
    import autograd.numpy as anp
    from autograd.builtins import tuple as a_tuple
    from autograd.scipy.integrate import odeint as a_odeint

    from funcgrad.builtins import tuple as f_tuple

    def net(y, t, params):  # a parameter that is itself a list of pairs, as autograd's ode_net
        (w, b), (v, c) = params
        return fnp.tanh(y @ w + b) @ v + c

    def a_net(y, t, params):
        (w, b), (v, c) = params
        return anp.dot(anp.tanh(anp.dot(y, w) + b), v) + c

    rng = np.random.default_rng(0)
    params = [(rng.normal(size=(2, 3)), rng.normal(size=3)), (rng.normal(size=(3, 2)), np.zeros(2))]
    want = autograd.grad(lambda p: anp.sum(a_odeint(a_net, Y0, T, a_tuple((p,)), **KW) * W))(params)
    forms = {
        "args=": lambda p: odeint(net, Y0, T, args=(p,), **KW),
        "JAX's *args": lambda p: odeint(net, Y0, T, p, **KW),
    }
    ys = a_odeint(a_net, Y0, T, (params,), **KW)
    for name, solve in forms.items():
        np.testing.assert_allclose(solve(params), ys, rtol=1e-12, err_msg=name)
        got = fg.grad(lambda p, solve=solve: fnp.sum(solve(p) * W))(params)
        for g, w in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want), strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9, err_msg=name)

    # a lone positional tuple is JAX's one parameter (f unpacks it), as JAX passes *args, not
    # SciPy's positional `args`; autograd's tuple((params,)) ports as args=(params,)
    def pair(y, t, params):
        a, b = params
        return -a * y + b

    for give in (
        lambda: odeint(pair, 1.0, T, (0.5, 0.1), **KW),
        lambda: odeint(pair, 1.0, T, args=((0.5, 0.1),), **KW),
    ):
        np.testing.assert_allclose(
            give(), si.odeint(pair, 1.0, T, args=((0.5, 0.1),), **KW)[:, 0], rtol=1e-9
        )
    a, b, t1 = 0.5, 0.1, T[-1]  # y = b/a + (1 - b/a) exp(-a t): its derivative in a at T[-1]
    want = -b / a**2 * (1 - np.exp(-a * t1)) - (1 - b / a) * t1 * np.exp(-a * t1)
    k = fg.grad(lambda p: odeint(pair, 1.0, T, f_tuple((p, b)), **KW)[-1])(a)
    assert k == pytest.approx(want, rel=1e-6)
    # SciPy's args= takes a single value as a 1-tuple
    np.testing.assert_allclose(
        odeint(lambda y, t, k: -k * y, 1.0, T, args=0.5, **KW), np.exp(-0.5 * T), rtol=1e-8
    )


def test_default_tolerances_are_scipys():
    # SciPy's odeint at its defaults gives these very numbers (autograd's forward is SciPy's)
    f = dynamics(np)
    np.testing.assert_array_equal(odeint(f, Y0, T, A, B), si.odeint(f, Y0, T, args=(A, B)))


def test_parameters_given_two_ways_or_unknown_options_are_refused():
    f = dynamics(fnp)
    with pytest.raises(TypeError, match=r"both positionally \(2 of them\) and as args="):
        odeint(f, Y0, T, A, B, args=(A, B))
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['hmax'\]"):
        odeint(f, Y0, T, A, B, hmax=0.1)
