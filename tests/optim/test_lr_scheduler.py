"""Every scheduler of `funcgrad.optim.lr_scheduler` against PyTorch's: the same learning rates.

Each case builds the scheduler in both libraries on an optimizer with two
parameter groups (different learning rates), steps the optimizer and the
scheduler ~100 times, and compares every `get_last_lr()` and every group's
`lr` and momentum (SGD's `momentum`, Adam's `beta1`: OneCycleLR and CyclicLR
cycle them) to 1e-12 relative. Checkpoints (`state_dict` mid-schedule) load
within a library and across the two.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

STEPS = 100


def _optimizer(lib, kind="SGD"):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    if kind == "Adam":
        return lib.optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.02}], lr=0.1)
    return lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.02}], lr=0.1, momentum=0.9)


# name -> (optimizer kind, factory(lr_scheduler_module, optimizer) -> scheduler)
CASES = {
    "StepLR": ("SGD", lambda m, o: m.StepLR(o, step_size=7, gamma=0.5)),
    "MultiStepLR": ("SGD", lambda m, o: m.MultiStepLR(o, milestones=[10, 30, 30, 75], gamma=0.3)),
    "ExponentialLR": ("SGD", lambda m, o: m.ExponentialLR(o, gamma=0.97)),
    "CosineAnnealingLR": ("SGD", lambda m, o: m.CosineAnnealingLR(o, T_max=30, eta_min=1e-3)),
    "CosineAnnealingLR-zero": ("SGD", lambda m, o: m.CosineAnnealingLR(o, T_max=40)),
    "CosineAnnealingWarmRestarts": (
        "SGD",
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=2, eta_min=1e-4),
    ),
    "CosineAnnealingWarmRestarts-1": ("SGD", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=7)),
    "LambdaLR": ("SGD", lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + 0.1 * e))),
    "LambdaLR-per-group": (
        "SGD",
        lambda m, o: m.LambdaLR(o, [lambda e: 0.95**e, lambda e: (e // 10) + 1]),
    ),
    "MultiplicativeLR": ("SGD", lambda m, o: m.MultiplicativeLR(o, lambda e: 0.98)),
    "LinearLR": ("SGD", lambda m, o: m.LinearLR(o, start_factor=0.2, total_iters=30)),
    "LinearLR-down": (
        "SGD",
        lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=60),
    ),
    "ConstantLR": ("SGD", lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=20)),
    "PolynomialLR": ("SGD", lambda m, o: m.PolynomialLR(o, total_iters=80, power=2.0)),
    "OneCycleLR": ("SGD", lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=STEPS)),
    "OneCycleLR-linear-three-phase": (
        "SGD",
        lambda m, o: m.OneCycleLR(
            o, max_lr=0.3, epochs=10, steps_per_epoch=10, anneal_strategy="linear", three_phase=True
        ),
    ),
    "OneCycleLR-Adam": (
        "Adam",
        lambda m, o: m.OneCycleLR(o, max_lr=0.1, total_steps=STEPS, pct_start=0.25),
    ),
    "CyclicLR": ("SGD", lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=12)),
    "CyclicLR-triangular2": (
        "SGD",
        lambda m, o: m.CyclicLR(
            o,
            base_lr=[0.01, 0.001],
            max_lr=0.2,
            step_size_up=8,
            step_size_down=5,
            mode="triangular2",
        ),
    ),
    "CyclicLR-exp-range-Adam": (
        "Adam",
        lambda m, o: m.CyclicLR(
            o, base_lr=0.001, max_lr=0.01, step_size_up=10, mode="exp_range", gamma=0.99
        ),
    ),
    "CyclicLR-no-momentum": (
        "SGD",
        lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=6, cycle_momentum=False),
    ),
    "SequentialLR": (
        "SGD",
        lambda m, o: m.SequentialLR(
            o,
            [m.LinearLR(o, start_factor=0.1, total_iters=10), m.CosineAnnealingLR(o, T_max=50)],
            milestones=[10],
        ),
    ),
    "SequentialLR-three": (
        "SGD",
        lambda m, o: m.SequentialLR(
            o,
            [
                m.ConstantLR(o, factor=0.5, total_iters=5),
                m.ExponentialLR(o, gamma=0.9),
                m.StepLR(o, step_size=10),
            ],
            milestones=[20, 50],
        ),
    ),
    "ChainedScheduler": (
        "SGD",
        lambda m, o: m.ChainedScheduler(
            [m.ConstantLR(o, factor=0.1, total_iters=5), m.ExponentialLR(o, gamma=0.95)]
        ),
    ),
}


def _trace(lib, kind, factory, steps=STEPS, reload_at=None, state_from=None):
    opt = _optimizer(lib, kind)
    sched = factory(lib.optim.lr_scheduler, opt)
    out = []
    for step in range(steps):
        if step == reload_at:
            state = state_from() if state_from else copy.deepcopy(sched.state_dict())
            opt_state = copy.deepcopy(opt.state_dict())
            opt = _optimizer(lib, kind)
            sched = factory(lib.optim.lr_scheduler, opt)
            opt.load_state_dict(opt_state)
            sched.load_state_dict(state)
        opt.step()
        groups = opt.param_groups
        momentum = [g["betas"][0] if "betas" in g else g["momentum"] for g in groups]
        out.append(list(sched.get_last_lr()) + [g["lr"] for g in groups] + momentum)
        sched.step()
    return np.array(out, dtype=float), sched


@pytest.mark.parametrize("name", list(CASES))
def test_learning_rates_match_pytorch(name):
    kind, factory = CASES[name]
    ours, _ = _trace(fg, kind, factory)
    theirs, _ = _trace(torch, kind, factory)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", list(CASES))
def test_a_checkpoint_mid_schedule_resumes_it(name):
    kind, factory = CASES[name]
    ours, _ = _trace(fg, kind, factory, reload_at=STEPS // 2 - 3)
    theirs, _ = _trace(torch, kind, factory)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", list(CASES))
def test_a_pytorch_checkpoint_resumes_the_funcgrad_schedule(name):
    kind, factory = CASES[name]
    at = STEPS // 2 - 3
    _, torch_sched = _trace(torch, kind, factory, steps=at)
    # the state of the PyTorch scheduler after `at` steps, as a checkpoint would hold it
    state = copy.deepcopy(torch_sched.state_dict())
    ours, _ = _trace(fg, kind, factory, reload_at=at, state_from=lambda: copy.deepcopy(state))
    theirs, _ = _trace(torch, kind, factory)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


def test_the_state_dict_holds_pytorchs_keys():
    for name, (kind, factory) in CASES.items():
        _, ours = _trace(fg, kind, factory, steps=3)
        _, theirs = _trace(torch, kind, factory, steps=3)
        assert sorted(ours.state_dict()) == sorted(theirs.state_dict()), name


# --- ReduceLROnPlateau: a given metric sequence ----------------------------------------------

METRICS = [5.0, 4.0, 4.0, 4.1, 3.99999, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.5, 2.5, 2.5]
METRICS = METRICS + [2.5 - 0.01 * i for i in range(20)] + [2.3] * 30 + [1.0, 5.0] * 10


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"patience": 2, "factor": 0.5},
        {"patience": 1, "factor": 0.3, "cooldown": 3, "min_lr": 1e-3},
        {"mode": "max", "patience": 2},
        {"threshold_mode": "abs", "threshold": 0.05, "patience": 1},
        {"mode": "max", "threshold_mode": "abs", "threshold": 0.1, "patience": 0},
        {"patience": 0, "factor": 0.5, "min_lr": [1e-2, 1e-4], "eps": 1e-3},
    ],
    ids=str,
)
def test_reduce_lr_on_plateau(kwargs):
    def run(lib, reload_at=None):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        out = []
        for i, metric in enumerate(METRICS):
            if i == reload_at:
                state = copy.deepcopy(sched.state_dict())
                sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
                sched.load_state_dict(state)
            opt.step()
            sched.step(lib.tensor(metric) if i % 3 == 0 else metric)
            out.append(sched.get_last_lr() + [sched.num_bad_epochs, sched.cooldown_counter])
        return np.array(out, dtype=float)

    theirs = run(torch)
    np.testing.assert_allclose(run(fg), theirs, rtol=1e-12, atol=0)
    np.testing.assert_allclose(run(fg, reload_at=30), theirs, rtol=1e-12, atol=0)


# --- behaviour ------------------------------------------------------------------------------


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("lib", [fg, torch], ids=["funcgrad", "torch"])
def test_stepping_the_scheduler_first_warns(lib):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
    messages = _warnings_of(sched.step)
    assert any("before `optimizer.step()`" in m for m in messages), messages


def test_the_warning_texts_are_pytorchs():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        return _warnings_of(sched.step) + _warnings_of(sched.get_lr)

    assert run(fg) == run(torch)


def test_the_right_order_does_not_warn():
    opt = _optimizer(fg)
    sched = fg.optim.lr_scheduler.StepLR(opt, step_size=2)
    assert _warnings_of(lambda: (opt.step(), sched.step())) == []


def test_an_epoch_argument_uses_the_closed_form_and_warns():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        opt.step()
        messages = _warnings_of(lambda: sched.step(7))
        return sched.get_last_lr(), sched.last_epoch, messages

    assert run(fg) == run(torch)


@pytest.mark.parametrize(
    "make",
    [
        lambda m, o: m.CosineAnnealingLR(o, T_max=10, last_epoch=4),
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=10, last_epoch=3),
        lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, last_epoch=5),
        lambda m, o: m.StepLR(o, step_size=2, last_epoch=0),
    ],
)
def test_resuming_needs_initial_lr_as_in_pytorch(make):
    def error(lib):
        with pytest.raises(KeyError) as e:
            make(lib.optim.lr_scheduler, _optimizer(lib))
        return str(e.value)

    assert error(fg) == error(torch)


def test_scheduler_errors_are_pytorchs():
    for make in (
        lambda m, o: m.OneCycleLR(o, max_lr=1.0),
        lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=2.0),
        lambda m, o: m.CyclicLR(o, 0.1, 1.0, mode="other"),
        lambda m, o: m.LinearLR(o, start_factor=0.0),
        lambda m, o: m.ConstantLR(o, factor=2.0),
        lambda m, o: m.ReduceLROnPlateau(o, factor=1.5),
        lambda m, o: m.ReduceLROnPlateau(o, mode="sideways"),
        lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
        lambda m, o: m.LambdaLR(o, [lambda e: 1.0]),
        lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2)], milestones=[3]),
        lambda m, o: m.ChainedScheduler([]),
    ):
        messages = []
        for lib in (fg, torch):
            with pytest.raises((ValueError, TypeError)) as e:
                make(lib.optim.lr_scheduler, _optimizer(lib))
            messages.append((type(e.value), str(e.value)))
        assert messages[0] == messages[1]


def test_one_cycle_refuses_steps_past_its_end():
    opt = _optimizer(fg)
    sched = fg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(2):
        opt.step()
        sched.step()
    opt.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        sched.step()


def test_a_tensor_learning_rate_is_updated_in_place():
    a = fg.zeros(2, requires_grad=True)
    lr = fg.tensor(0.5)
    opt = fg.optim.Adam([a], lr=lr)
    sched = fg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and float(lr) == 0.25
    assert float(sched.get_last_lr()[0]) == 0.25
