"""The functional transforms on a device: same results as on the CPU, and they stay on the device.

Each test computes one transform of one function twice, on the CPU and on
`device`, and checks that every result lives on `device` and equals the
CPU result (float64, so to rounding error).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.nn as fnn
import funcgrad.numpy as fnp
from funcgrad.backend import to_device
from tests.gpu.devices import assert_on, to_dev, to_host

RTOL = 1e-10


def _close(actual, expected, what=""):
    for a, e in zip(_flat(to_host(actual)), _flat(expected), strict=True):
        np.testing.assert_allclose(a, e, rtol=RTOL, atol=1e-12, err_msg=what)


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _flat(v)]
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flat(x[k])]
    return [x]


def _rng():
    return np.random.default_rng(0)


def _mlp(w, x):
    # a small network: tanh layer, then a quadratic readout
    h = fnp.tanh(fnp.matmul(x, w["w1"]) + w["b1"])
    return fnp.sum(fnp.matmul(h, w["w2"]) ** 2) / x.shape[0]


def _weights(rng):
    return {
        "w1": rng.standard_normal((4, 5)),
        "b1": rng.standard_normal(5),
        "w2": rng.standard_normal((5, 2)),
    }


def _scalar_fn(x):
    return fnp.sum(fnp.sin(x) * fnp.exp(-x * x)) + fnp.prod(fnp.cos(x[:2]))


def _vector_fn(x):
    return fnp.concatenate([fnp.tanh(x) * x[0], fnp.cumsum(x) ** 2])


def test_grad_and_value_and_grad(device):
    rng = _rng()
    w, x = _weights(rng), rng.standard_normal((3, 4))
    expected = fg.value_and_grad(_mlp)(w, x)
    value, grads = fg.value_and_grad(_mlp)(to_dev(w, device), to_dev(x, device))
    assert_on(value, device, "value")
    assert_on(tuple(grads.values()), device, "gradients")
    _close((value, grads), expected, "value_and_grad")
    _close(fg.grad(_mlp)(to_dev(w, device), to_dev(x, device)), expected[1], "grad")


def test_vjp(device):
    x = _rng().standard_normal(4)
    ct = np.linspace(-1.0, 1.0, 8)
    out, vjp_fn = fg.vjp(_vector_fn, x)
    expected = (out, vjp_fn(ct))
    out_d, vjp_d = fg.vjp(_vector_fn, to_dev(x, device))
    cts = vjp_d(to_dev(ct, device))
    assert_on((out_d, *cts), device, "vjp")
    _close((out_d, cts), expected, "vjp")


def test_jvp_and_linearize(device):
    x, t = _rng().standard_normal(4), np.linspace(0.5, -0.5, 4)
    expected = fg.jvp(_vector_fn, (x,), (t,))
    out, t_out = fg.jvp(_vector_fn, (to_dev(x, device),), (to_dev(t, device),))
    assert_on((out, t_out), device, "jvp")
    _close((out, t_out), expected, "jvp")
    out_l, f_jvp = fg.linearize(_vector_fn, to_dev(x, device))
    assert_on(f_jvp(to_dev(t, device)), device, "linearize")
    _close(f_jvp(to_dev(t, device)), expected[1], "linearize")


@pytest.mark.parametrize("transform", ["jacobian", "jacrev", "jacfwd"])
def test_jacobians(device, transform):
    x = _rng().standard_normal(4)
    jac = getattr(fg, transform)(_vector_fn)
    expected = jac(x)
    actual = jac(to_dev(x, device))
    assert_on(actual, device, transform)
    assert to_host(actual).shape == (8, 4)
    _close(actual, expected, transform)


def test_hessian_hvp_and_grad_of_grad(device):
    x, v = _rng().standard_normal(4), np.linspace(-1.0, 1.0, 4)
    expected_h = fg.hessian(_scalar_fn)(x)
    h = fg.hessian(_scalar_fn)(to_dev(x, device))
    assert_on(h, device, "hessian")
    _close(h, expected_h, "hessian")
    hv = fg.hvp(_scalar_fn, (to_dev(x, device),), (to_dev(v, device),))
    assert_on(hv, device, "hvp")
    _close(hv, fg.hvp(_scalar_fn, (x,), (v,)), "hvp")

    def first(y):
        return fnp.sum(fg.grad(_scalar_fn)(y) ** 2)

    gg = fg.grad(first)(to_dev(x, device))
    assert_on(gg, device, "grad(grad)")
    _close(gg, fg.grad(first)(x), "grad(grad)")
    _close(fg.jacfwd(fg.jacrev(_scalar_fn))(to_dev(x, device)), expected_h, "jacfwd(jacrev)")


def test_backward_on_nodes_and_float32(device):
    x32 = _rng().standard_normal((3, 3)).astype(np.float32)
    leaf = fg.leaf(to_dev(x32, device))
    y = fnp.sum(fnn.softmax(fnp.matmul(leaf, leaf), axis=-1) * fnp.log1p(leaf * leaf))
    g = fg.backward(y)[leaf]
    assert_on(g, device, "backward")
    assert g.dtype == np.float32
    ref = fg.leaf(x32)
    y_ref = fnp.sum(fnn.softmax(fnp.matmul(ref, ref), axis=-1) * fnp.log1p(ref * ref))
    np.testing.assert_allclose(to_host(g), fg.backward(y_ref)[ref], rtol=1e-5, atol=1e-6)


def test_custom_vjp_and_checkpoint(device):
    @fg.custom_vjp
    def clipped_square(x):
        return x * x

    def fwd(x):
        return x * x, x

    def bwd(x, ct):
        return (fnp.clip(2.0 * x * ct, -1.0, 1.0),)

    clipped_square.defvjp(fwd, bwd)

    def f(x):
        return fnp.sum(fg.checkpoint(lambda y: fnp.tanh(clipped_square(y)))(x))

    x = np.linspace(-2.0, 2.0, 5)
    g = fg.grad(f)(to_dev(x, device))
    assert_on(g, device, "custom_vjp + checkpoint")
    _close(g, fg.grad(f)(x), "custom_vjp + checkpoint")


def test_a_graph_that_crosses_devices(device):
    # Start on the CPU, compute on the device, come back: gradients flow across.
    from funcgrad.ops.device import move

    def f(x):
        y = move(x, device)
        z = fnp.sum(fnp.exp(y) * y)
        return move(z, "cpu")

    x = np.array([0.5, -1.0, 2.0])
    value, g = fg.value_and_grad(f)(x)
    assert isinstance(g, np.ndarray) and isinstance(
        to_device(value, "cpu"), (np.ndarray, np.generic)
    )
    np.testing.assert_allclose(g, np.exp(x) * (1.0 + x), rtol=1e-12)
    # second order across devices: d/dx of exp(x) (1 + x) is exp(x) (2 + x)
    h = fg.jacfwd(fg.grad(f))(x)
    np.testing.assert_allclose(np.diag(h), np.exp(x) * (2.0 + x), rtol=1e-10)
