"""Issue #12, functional core: no silently wrong number, or a clear error instead.

Each test names the item it guards. References are independent of funcgrad's
own differentiation: closed forms, central differences in float64, HIPS
autograd, or PyTorch 2.13 (`torch.func`) for the Tensor layer.
"""

from __future__ import annotations

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.backend import rng


def _central_differences(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


# --- checkpoint replays funcgrad's random numbers ---------------------------------


def _dropout_loss(x):
    mask = fg.rand(*x.shape, dtype=fg.float64).numpy() > 0.5  # funcgrad's generator
    return fnp.sum(fnp.tanh(x) * mask * 2.0)


def test_checkpoint_recomputes_with_the_forwards_random_numbers():
    x = np.linspace(-1.0, 1.0, 16)
    fg.manual_seed(7)
    mask = fg.rand(16, dtype=fg.float64).numpy() > 0.5
    expected = 2.0 * mask * (1.0 - np.tanh(x) ** 2)  # d/dx of sum(tanh(x) * mask * 2)
    assert 0 < mask.sum() < 16

    fg.manual_seed(7)
    np.testing.assert_allclose(fg.grad(_dropout_loss)(x), expected, rtol=1e-12)
    fg.manual_seed(7)
    np.testing.assert_allclose(fg.grad(fg.checkpoint(_dropout_loss))(x), expected, rtol=1e-12)
    # The recomputation does not move the generator on (PyTorch's fork_rng).
    after = fg.rand(4).numpy()
    fg.manual_seed(7)
    fg.rand(16, dtype=fg.float64)
    np.testing.assert_array_equal(fg.rand(4).numpy(), after)


def test_checkpoint_replays_random_numbers_in_forward_mode_and_for_each_output():
    x = np.linspace(-1.0, 1.0, 6)

    def two(x):
        noise = rng.standard_normal(x.shape, np.float64)
        return x * noise, fnp.sin(x) * noise

    fg.manual_seed(1)
    noise = rng.standard_normal((6,), np.float64)
    fg.manual_seed(1)
    jac = fg.jacfwd(lambda x: fg.checkpoint(two)(x)[1])(x)
    np.testing.assert_allclose(np.diag(jac), np.cos(x) * noise, rtol=1e-12)
    fg.manual_seed(1)
    g = fg.grad(lambda x: fnp.sum(fg.checkpoint(two)(x)[0] + fg.checkpoint(two)(x)[1]))(x)
    fg.manual_seed(1)
    n1 = rng.standard_normal((6,), np.float64)
    n2 = rng.standard_normal((6,), np.float64)
    np.testing.assert_allclose(g, n1 + np.cos(x) * n2, rtol=1e-12)


def test_checkpoint_preserve_rng_state_false_opts_out():
    x = np.linspace(-1.0, 1.0, 64)
    fg.manual_seed(7)
    reference = fg.grad(_dropout_loss)(x)
    fg.manual_seed(7)
    fresh = fg.grad(fg.checkpoint(_dropout_loss, preserve_rng_state=False))(x)
    assert not np.array_equal(fresh, reference)  # new noise, as documented
    layer = fg.checkpoint(preserve_rng_state=False)(lambda x: fnp.tanh(x))  # decorator form
    np.testing.assert_allclose(
        fg.grad(lambda x: fnp.sum(layer(x)))(x), 1.0 - np.tanh(x) ** 2, rtol=1e-12
    )


# --- custom_vjp residuals are read-only --------------------------------------------


def test_custom_vjp_residuals_cannot_change_the_gradient_after_the_forward():
    kept = {}

    @fg.custom_vjp
    def sin(x):
        return fnp.sin(x)

    def fwd(x):
        cos = np.cos(x.value)  # a writeable array of the user's
        kept["cos"] = cos
        return sin(x), (cos, None, 3, [cos, "note"])

    def bwd(res, ct):
        assert not res[0].flags.writeable and res[3][1] == "note" and res[2] == 3
        return (ct * res[0],)

    sin.defvjp(fwd, bwd)
    x0 = np.array([0.5, 1.0, 2.0])
    x = fg.leaf(x0)
    y = fnp.sum(sin(x))
    kept["cos"][:] = 100.0  # after the forward: must not reach the gradient
    np.testing.assert_allclose(fg.backward(y)[x], np.cos(x0), rtol=1e-12)
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(sin(x)))(x0), np.cos(x0), rtol=1e-12)
