"""End to end: a small MLP (plain leaf tensors) trained by each optimizer in both libraries.

Each library computes its own losses and gradients (its autograd, its
optimizer); the loss curves must agree. float64, so the curves agree to
~1e-9 relative over the 40 steps (the gradients differ by rounding only;
LBFGS, whose quasi-Newton steps amplify that rounding, to 1e-4).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

rng = np.random.default_rng(0)
X = rng.standard_normal((32, 4))
Y = np.sin(X @ np.array([1.0, -0.5, 0.3, 2.0]))[:, None]
INIT = [
    rng.standard_normal((4, 16)) * 0.5,
    np.zeros(16),
    rng.standard_normal((16, 1)) * 0.25,
    np.zeros(1),
]

OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("AdamW", {"lr": 0.01, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.003, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
    ("Adadelta", {"lr": 1.0}),
    ("Adamax", {"lr": 0.02}),
    ("NAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "decoupled_weight_decay": True, "weight_decay": 0.01}),
    ("LBFGS", {"lr": 0.5, "max_iter": 4, "history_size": 5}),
]


def _curve(lib, name, kwargs, steps=40):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in INIT]
    x, y = lib.tensor(X), lib.tensor(Y)
    opt = getattr(lib.optim, name)(params, **kwargs)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=15, gamma=0.5)

    def closure():
        opt.zero_grad()
        w1, b1, w2, b2 = params
        out = (x @ w1 + b1).tanh() @ w2 + b2
        loss = ((out - y) ** 2).mean()
        loss.backward()
        return loss

    losses = []
    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        sched.step()
    return np.array(losses)


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_the_loss_curves_match_pytorch(name, kwargs):
    ours = _curve(fg, name, kwargs)
    theirs = _curve(torch, name, kwargs)
    assert theirs[-1] < theirs[0]  # it trains
    # NOTE: LBFGS's line-search-free steps amplify rounding as the loss falls 4 decades
    rtol = 1e-4 if name == "LBFGS" else 1e-9
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-12)
