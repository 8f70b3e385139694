"""`funcgrad.func` against `torch.func`: the same transforms of the same functions, the same numbers."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad import func
from tests.references import requires

rng = np.random.default_rng(0)
X = rng.standard_normal(3)
Y = rng.standard_normal(3)
M = rng.standard_normal((2, 3))


def _pair():
    torch = requires("torch")
    return torch, torch.func


def _close(mine, theirs, rtol=1e-10):
    if isinstance(theirs, (tuple, list)):
        assert isinstance(mine, (tuple, list)) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            _close(a, b, rtol)
        return
    if isinstance(theirs, dict):
        assert set(mine) == set(theirs)
        for k in theirs:
            _close(mine[k], theirs[k], rtol)
        return
    assert isinstance(mine, fg.Tensor), type(mine)
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(
        mine.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=1e-12
    )


def _both(torch, values):
    return [fg.tensor(v) for v in values], [torch.tensor(v) for v in values]


def f_scalar(lib):
    return lambda x, y: (lib.sin(x) * y).sum() + (x * x * x).sum()


def f_vector(lib):
    return lambda x, y: lib.tanh(x) * y.exp() + x.sum()


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_grad_and_grad_and_value(argnums):
    torch, tf = _pair()
    (x, y), (tx, ty) = _both(torch, [X, Y])
    _close(func.grad(f_scalar(fg), argnums)(x, y), tf.grad(f_scalar(torch), argnums)(tx, ty))
    mine = func.grad_and_value(f_scalar(fg), argnums)(x, y)
    theirs = tf.grad_and_value(f_scalar(torch), argnums)(tx, ty)
    _close(list(mine), list(theirs))


def test_has_aux():
    torch, tf = _pair()
    (x,), (tx,) = _both(torch, [X])

    def f(lib):
        return lambda x: ((x * x).sum(), {"mean": x.mean()})

    g, aux = func.grad(f(fg), has_aux=True)(x)
    tg, taux = tf.grad(f(torch), has_aux=True)(tx)
    _close(g, tg)
    _close(aux, taux)
    (g, (value, aux)) = func.grad_and_value(f(fg), has_aux=True)(x)
    (tg, (tvalue, taux)) = tf.grad_and_value(f(torch), has_aux=True)(tx)
    _close([g, value, aux["mean"]], [tg, tvalue, taux["mean"]])
    out, vjp_fn, aux = func.vjp(f(fg), x, has_aux=True)
    tout, tvjp_fn, taux = tf.vjp(f(torch), tx, has_aux=True)
    _close(
        [out, aux["mean"], *vjp_fn(fg.tensor(2.0))],
        [tout, taux["mean"], *tvjp_fn(torch.tensor(2.0))],
    )


def test_vjp_and_jvp():
    torch, tf = _pair()
    (x, y, u), (tx, ty, tu) = _both(torch, [X, Y, rng.standard_normal(3)])
    out, vjp_fn = func.vjp(f_vector(fg), x, y)
    tout, tvjp_fn = tf.vjp(f_vector(torch), tx, ty)
    _close(out, tout)
    mine, theirs = vjp_fn(u), tvjp_fn(tu)
    assert isinstance(mine, tuple) and len(mine) == 2
    _close(list(mine), list(theirs))
    _close(
        list(func.jvp(f_vector(fg), (x, y), (u, u))),
        list(tf.jvp(f_vector(torch), (tx, ty), (tu, tu))),
    )
    with pytest.raises(RuntimeError, match="same length"):
        func.jvp(f_vector(fg), (x, y), (u,))


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_jacobians(name, argnums):
    torch, tf = _pair()
    (x, y), (tx, ty) = _both(torch, [X, Y])
    mine = getattr(func, name)(f_vector(fg), argnums)(x, y)
    theirs = getattr(tf, name)(f_vector(torch), argnums)(tx, ty)
    _close(mine, theirs)


def test_jacobian_of_pytree_output_and_matrix_input():
    torch, tf = _pair()
    (m, x), (tm, tx) = _both(torch, [M, X])

    def f(lib):
        return lambda m, x: {"y": (m @ x).tanh(), "n": (m * m).sum()}

    _close(func.jacrev(f(fg))(m, x), tf.jacrev(f(torch))(tm, tx))
    _close(func.jacfwd(f(fg), argnums=1)(m, x), tf.jacfwd(f(torch), argnums=1)(tm, tx))


def test_hessian_and_nested_transforms():
    torch, tf = _pair()
    (x, y), (tx, ty) = _both(torch, [X, Y])
    _close(func.hessian(f_scalar(fg))(x, y), tf.hessian(f_scalar(torch))(tx, ty))
    _close(func.hessian(f_scalar(fg), (0, 1))(x, y), tf.hessian(f_scalar(torch), (0, 1))(tx, ty))
    _close(
        func.jacfwd(func.jacrev(f_scalar(fg)))(x, y),
        tf.jacfwd(tf.jacrev(f_scalar(torch)))(tx, ty),
    )
    s, ts = fg.tensor(0.7, dtype=fg.float64), torch.tensor(0.7, dtype=torch.float64)
    _close(
        func.grad(func.grad(func.grad(lambda v: v.sin() * v)))(s),
        tf.grad(tf.grad(tf.grad(lambda v: v.sin() * v)))(ts),
    )


def test_linearize():
    torch, tf = _pair()
    (x, u), (tx, tu) = _both(torch, [X, rng.standard_normal(3)])
    out, jvp_fn = func.linearize(lambda v: v.sin() * v, x)
    tout, tjvp_fn = tf.linearize(lambda v: v.sin() * v, tx)
    _close([out, jvp_fn(u)], [tout, tjvp_fn(tu)])


def test_results_of_tensors_that_require_grad_stay_in_their_graph():
    torch, tf = _pair()
    x = fg.tensor(X, requires_grad=True)
    tx = torch.tensor(X, requires_grad=True)
    g = func.grad(lambda v: (v**3).sum())(x)
    tg = tf.grad(lambda v: (v**3).sum())(tx)
    assert g.requires_grad and tg.requires_grad
    g.sum().backward()
    tg.sum().backward()
    _close(x.grad, tx.grad)


def test_functions_record_under_no_grad_as_in_torch_func():
    torch, tf = _pair()
    (x,), (tx,) = _both(torch, [X])
    with fg.no_grad():
        g = func.grad(lambda v: (v * v).sum())(x)
    with torch.no_grad():
        tg = tf.grad(lambda v: (v * v).sum())(tx)
    _close(g, tg)


def test_complex_gradients_follow_pytorchs_convention():
    torch, tf = _pair()
    z = X + 1j * Y

    def loss(v):  # real, not holomorphic
        return (v.real * v.real).sum() + (v * v * 3).imag.sum()

    g = func.grad(loss)(fg.tensor(z))
    tg = tf.grad(loss)(torch.tensor(z))
    _close(g, tg)
    out, vjp_fn = func.vjp(lambda v: v * v, fg.tensor(z))
    tout, tvjp_fn = tf.vjp(lambda v: v * v, torch.tensor(z))
    u = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    _close(vjp_fn(fg.tensor(u)), tvjp_fn(torch.tensor(u)))


def test_float32_stays_float32():
    x = fg.tensor([1.0, 2.0])
    assert func.grad(lambda v: (v * v).sum())(x).dtype == fg.float32
    assert func.jacrev(lambda v: v * v)(x).dtype == fg.float32


def test_vmap_is_provided():
    # issue #20; its behaviour is tested in tests/transforms_vmap
    assert func.vmap(lambda v: v * 2.0)(fg.ones(2, 3)).shape == (2, 3)
