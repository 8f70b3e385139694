"""Per-example gradients of an MLP: `vmap(grad(loss))` against a Python loop and `torch.func`.

The MLP is W3's (tanh hidden layer, softmax cross-entropy on integer
labels), smaller; the gradients of each example must equal those of
`funcgrad.grad` applied to that example alone, and PyTorch's
`torch.func.vmap(torch.func.grad(...))`, in float64 and float32.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import func
from tests.references import requires

RNG = np.random.default_rng(9)
N, D_IN, D_HID, D_OUT = 8, 6, 10, 3
X = RNG.standard_normal((N, D_IN))
LABELS = RNG.integers(0, D_OUT, N)
PARAMS = (
    RNG.standard_normal((D_IN, D_HID)) / np.sqrt(D_IN),
    RNG.standard_normal(D_HID) * 0.1,
    RNG.standard_normal((D_HID, D_OUT)) / np.sqrt(D_HID),
    RNG.standard_normal(D_OUT) * 0.1,
)


def loss(params, x, y):
    w1, b1, w2, b2 = params
    h = fnp.tanh(fnp.matmul(x, w1) + b1)
    z = fnp.matmul(h, w2) + b2
    return -fg.nn.functional.log_softmax(z, dim=0)[y]


def _as(dtype):
    return tuple(p.astype(dtype) for p in PARAMS), X.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vmap_of_grad_equals_a_loop_of_grad(dtype):
    params, x = _as(dtype)
    per_example = fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))(params, x, LABELS)
    loop = [fg.grad(loss)(params, x[i], LABELS[i]) for i in range(N)]
    tol = 1e-12 if dtype == np.float64 else 1e-5
    for k in range(4):
        assert per_example[k].dtype == dtype
        np.testing.assert_allclose(
            per_example[k], np.stack([g[k] for g in loop]), rtol=tol, atol=tol
        )
    # the batch axis elsewhere, in and out
    moved = fg.vmap(fg.grad(loss), in_axes=(None, 1, 0), out_axes=-1)(params, x.T, LABELS)
    np.testing.assert_allclose(moved[0], np.moveaxis(per_example[0], 0, -1), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_per_example_gradients_match_torch_func(dtype):
    torch = requires("torch")
    from torch.func import grad as t_grad
    from torch.func import vmap as t_vmap

    params, x = _as(dtype)

    def t_loss(ps, xi, yi):
        w1, b1, w2, b2 = ps
        z = torch.tanh(xi @ w1 + b1) @ w2 + b2
        return torch.nn.functional.cross_entropy(z[None], yi[None])

    theirs = t_vmap(t_grad(t_loss), in_dims=(None, 0, 0))(
        tuple(torch.from_numpy(p) for p in params), torch.from_numpy(x), torch.from_numpy(LABELS)
    )
    ours = fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))(params, x, LABELS)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b.numpy(), rtol=tol, atol=tol)

    # and funcgrad.func, PyTorch's own code with tensors: the same numbers
    def f_loss(ps, xi, yi):
        w1, b1, w2, b2 = ps
        z = fg.tanh(xi @ w1 + b1) @ w2 + b2
        return fg.nn.functional.cross_entropy(z[None], yi[None])

    tensors = func.vmap(func.grad(f_loss), in_dims=(None, 0, 0))(
        tuple(fg.from_numpy(p) for p in params), fg.from_numpy(x), fg.from_numpy(LABELS)
    )
    for a, b in zip(tensors, theirs, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)


def test_per_example_gradients_of_an_nn_module_match_torch():
    torch = requires("torch")
    from funcgrad.func import functional_call

    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Linear(D_IN, D_HID), fg.nn.Tanh(), fg.nn.Linear(D_HID, D_OUT))
    t_model = torch.nn.Sequential(
        torch.nn.Linear(D_IN, D_HID), torch.nn.Tanh(), torch.nn.Linear(D_HID, D_OUT)
    ).double()
    params = {k: v.detach().double() for k, v in model.named_parameters()}
    with torch.no_grad():
        for k, v in t_model.named_parameters():
            v.copy_(torch.from_numpy(params[k].numpy()))

    def f(p, xi, yi):
        out = functional_call(model, p, (xi[None],))
        return fg.nn.functional.cross_entropy(out, yi[None])

    def g(p, xi, yi):
        out = torch.func.functional_call(t_model, p, (xi[None],))
        return torch.nn.functional.cross_entropy(out, yi[None])

    ours = func.vmap(func.grad(f), in_dims=(None, 0, 0))(params, fg.tensor(X), fg.tensor(LABELS))
    theirs = torch.func.vmap(torch.func.grad(g), in_dims=(None, 0, 0))(
        {k: v.detach() for k, v in t_model.named_parameters()},
        torch.from_numpy(X),
        torch.from_numpy(LABELS),
    )
    for k in theirs:
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-10, atol=1e-12)
