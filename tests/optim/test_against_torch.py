"""Every optimizer of `funcgrad.optim`, each option, against PyTorch's on the same gradients.

Each case runs funcgrad's optimizer and PyTorch's for 50 steps on copies of
the same parameters, the gradients computed once per step (by PyTorch) and
copied into both `.grad`s (see `helpers.trajectories`), and compares the
parameters: float64 to 1e-10 relative, float32 to PyTorch's `assert_close`
tolerance. The cases cover weight decay, momentum buffers, `maximize`,
parameter groups with different options, parameters without a gradient at
some steps, complex parameters, checkpoints (`state_dict` round trips
mid-training) and checkpoints crossing between the libraries.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.optim.helpers import assert_same, trajectories
from tests.references import requires

torch = requires("torch")

CASES: dict[str, list[dict]] = {
    "SGD": [
        {"lr": 0.1},
        {"lr": 0.05, "momentum": 0.9},
        {"lr": 0.05, "momentum": 0.9, "dampening": 0.3},
        {"lr": 0.05, "momentum": 0.9, "nesterov": True},
        {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.05, "momentum": 0.8, "weight_decay": 0.1, "maximize": True},
        {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05},
    ],
    "Adam": [
        {"lr": 0.05},
        {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6},
        {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.05, "amsgrad": True},
        {"lr": 0.05, "maximize": True},
        {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "maximize": True},
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
    ],
    "AdamW": [
        {"lr": 0.05},
        {"lr": 0.05, "weight_decay": 0.3},
        {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1},
        {"lr": 0.05, "maximize": True, "betas": (0.5, 0.9)},
    ],
    "RMSprop": [
        {"lr": 0.01},
        {"lr": 0.01, "alpha": 0.9, "eps": 1e-6},
        {"lr": 0.01, "momentum": 0.9},
        {"lr": 0.01, "centered": True},
        {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1},
        {"lr": 0.01, "maximize": True, "weight_decay": 0.1},
    ],
    "Adagrad": [
        {"lr": 0.1},
        {"lr": 0.1, "lr_decay": 0.05},
        {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-6},
        {"lr": 0.1, "weight_decay": 0.1, "maximize": True},
    ],
    "Adadelta": [
        {},
        {"lr": 0.5, "rho": 0.7, "eps": 1e-4},
        {"weight_decay": 0.1},
        {"maximize": True},
    ],
    "Adamax": [
        {"lr": 0.05},
        {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-4},
        {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.05, "maximize": True},
    ],
    "NAdam": [
        {"lr": 0.05},
        {"lr": 0.05, "momentum_decay": 0.01},
        {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.05, "maximize": True, "betas": (0.8, 0.9)},
    ],
    "RAdam": [
        {"lr": 0.05},
        {"lr": 0.05, "betas": (0.5, 0.9)},
        {"lr": 0.05, "weight_decay": 0.1},
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
        {"lr": 0.05, "maximize": True},
    ],
}

ALL = [(name, kw) for name, cases in CASES.items() for kw in cases]


def _id(case):
    name, kw = case
    return name + "-" + ",".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("case", ALL, ids=[_id(c) for c in ALL])
def test_float64(case):
    name, kwargs = case
    ours, theirs = trajectories(name, kwargs, torch, np.float64)
    assert_same(ours, theirs, np.float64)


@pytest.mark.parametrize("case", ALL, ids=[_id(c) for c in ALL])
def test_float32(case):
    name, kwargs = case
    ours, theirs = trajectories(name, kwargs, torch, np.float32)
    assert_same(ours, theirs, np.float32)


@pytest.mark.parametrize("name", list(CASES))
def test_param_groups_with_different_options(name):
    base = CASES[name][0]
    other = CASES[name][-1]
    groups = [([0, 2], {}), ([1], dict(other)), ([3], {"lr": base.get("lr", 1.0) * 0.5})]
    ours, theirs = trajectories(name, base, torch, np.float64, groups=groups)
    assert_same(ours, theirs, np.float64)


@pytest.mark.parametrize("name", list(CASES))
def test_parameters_without_gradient_are_skipped(name):
    skip = {(s, 1) for s in range(10, 20)} | {(s, 3) for s in range(0, 5)}
    ours, theirs = trajectories(name, CASES[name][-1], torch, np.float64, skip=skip)
    assert_same(ours, theirs, np.float64)


@pytest.mark.parametrize("case", ALL, ids=[_id(c) for c in ALL])
def test_state_dict_round_trip_mid_training(case):
    name, kwargs = case
    ours, theirs = trajectories(name, kwargs, torch, np.float64, reload_at=25)
    assert_same(ours, theirs, np.float64)


@pytest.mark.parametrize("case", ALL, ids=[_id(c) for c in ALL])
def test_checkpoints_cross_between_libraries(case):
    # At step 25 funcgrad continues from PyTorch's state dict and PyTorch from funcgrad's.
    name, kwargs = case
    ours, theirs = trajectories(name, kwargs, torch, np.float64, swap_at=25)
    assert_same(ours, theirs, np.float64)


@pytest.mark.parametrize("name", [n for n in CASES if n != "SGD"] + ["SGD"])
def test_complex_parameters(name):
    ours, theirs = trajectories(name, CASES[name][-1], torch, np.float64, complex_=True)
    assert_same(ours, theirs, np.complex128)


# --- LBFGS: a deterministic closure computed in both libraries ----------------------------


def _rosenbrock(lib, x):
    a, b = x[:-1], x[1:]
    return (100 * (b - a * a) ** 2 + (1 - a) ** 2).sum()


M = np.array([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]])
C = np.array([1.0, -2.0, 0.5])


def _quadratic(lib, x):
    dtype = x.detach().numpy().dtype
    m, c = lib.tensor(M.astype(dtype)), lib.tensor(C.astype(dtype))
    return 0.5 * (x * (m @ x)).sum() - (c * x).sum()


def _lbfgs_run(lib, f, x0, kwargs, steps):
    x = lib.tensor(x0.copy(), requires_grad=True)
    opt = lib.optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        loss = f(lib, x)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return x.detach().numpy(), losses, opt.state[x]["func_evals"], opt.state[x]["n_iter"]


LBFGS_CASES = [
    {},
    {"line_search_fn": "strong_wolfe"},
    {"history_size": 3, "max_iter": 7, "lr": 0.5},
    {"line_search_fn": "strong_wolfe", "history_size": 2, "tolerance_change": 1e-5},
    {"max_iter": 4, "max_eval": 6, "tolerance_grad": 1e-3},
]


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=str)
def test_lbfgs_rosenbrock_float64(kwargs):
    x0 = np.array([-1.5, 2.0, 0.5, -0.3])
    ours = _lbfgs_run(fg, _rosenbrock, x0, kwargs, 5)
    theirs = _lbfgs_run(torch, _rosenbrock, x0, kwargs, 5)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    assert ours[2:] == theirs[2:]  # the same numbers of evaluations and iterations


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lbfgs_quadratic(kwargs, dtype):
    x0 = np.array([2.0, -1.0, 0.5], dtype=dtype)
    ours = _lbfgs_run(fg, _quadratic, x0, kwargs, 3)
    theirs = _lbfgs_run(torch, _quadratic, x0, kwargs, 3)
    if dtype == np.float64:
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    else:
        # NOTE: near the minimum float32 iterates wander by ~1e-5 (dot products summed in
        # another order than PyTorch's decide the last line-search steps); the losses,
        # flat there, agree to float32's resolution.
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=2e-6, atol=1e-6)
