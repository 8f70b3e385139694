"""`funcgrad.optimizers` keeps its states in the leaves' dtype whatever type the hyperparameters have.

optax documents its moments in the parameters' dtype (unless `mu_dtype` or
`accumulator_dtype` says otherwise). NumPy computes an np.float64 scalar times
a float32 array in float64 (NEP 50), and an np.float32 times a float16 array
in float32, so a NumPy-scalar hyperparameter is taken as the Python number of
the same value (`_base.hyperparameter`). The reference: the same optimizer
with Python floats of the same values (itself tested against PyTorch and
optax's formulas in tests/test_optimizers_functional.py), bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import funcgrad.optimizers as fo
from funcgrad.transforms.pytree import tree_flatten, tree_map

# name -> a function of `T` (the type each hyperparameter is given as) making the optimizer
OPTIMIZERS: dict[str, Callable] = {
    "sgd": lambda T: fo.sgd(T(0.1)),
    "sgd-momentum": lambda T: fo.sgd(T(0.1), momentum=T(0.9)),
    "sgd-nesterov": lambda T: fo.sgd(T(0.1), momentum=T(0.9), nesterov=True),
    "adam": lambda T: fo.adam(T(0.01), b1=T(0.8), b2=T(0.99), eps=T(1e-4)),
    "adam-eps_root": lambda T: fo.adam(
        T(0.01), b1=T(0.8), b2=T(0.99), eps=T(1e-4), eps_root=T(1e-6)
    ),
    "nadam": lambda T: fo.nadam(T(0.01), b1=T(0.8), b2=T(0.99), eps=T(1e-4)),
    "adamw": lambda T: fo.adamw(T(0.01), b1=T(0.8), b2=T(0.99), eps=T(1e-4), weight_decay=T(0.1)),
    "rmsprop": lambda T: fo.rmsprop(T(0.01), decay=T(0.9), eps=T(1e-4), initial_scale=T(0.5)),
    "rmsprop-centered-momentum": lambda T: fo.rmsprop(
        T(0.01), decay=T(0.9), eps=T(1e-4), centered=True, momentum=T(0.5), eps_in_sqrt=False
    ),
    "adagrad": lambda T: fo.adagrad(T(0.1), initial_accumulator_value=T(0.25), eps=T(1e-4)),
    "lamb": lambda T: fo.lamb(T(0.01), b1=T(0.8), b2=T(0.99), eps=T(1e-4), weight_decay=T(0.1)),
    "lion": lambda T: fo.lion(T(0.01), b1=T(0.8), b2=T(0.95), weight_decay=T(0.1)),
    "blocks": lambda T: fo.chain(
        fo.clip(T(2.0)),
        fo.clip_by_global_norm(T(50.0)),
        fo.scale_by_trust_ratio(min_norm=T(1e-3), trust_coefficient=T(0.9), eps=T(1e-6)),
        fo.scale(T(0.5)),
        fo.add_decayed_weights(T(0.1)),
        fo.scale_by_learning_rate(lambda count: T(0.1) / (count + 1)),
    ),
}


def _f32(x):
    # the Python float of np.float32(x): the value an np.float32 hyperparameter has
    return float(np.float32(x))


KINDS = {
    # kind: (the type given, the Python-number reference of the same values)
    "np.float64": (np.float64, float),
    "np.float32": (np.float32, _f32),
    "0-d float64 array": (lambda x: np.array(x, dtype=np.float64), float),
}


def _run(make, dtype, shapes, steps=3):
    rng = np.random.default_rng(0)
    params = {f"w{i}": rng.standard_normal(s).astype(dtype) for i, s in enumerate(shapes)}
    opt = make()
    state = opt.init(params)
    for _ in range(steps):
        grads = tree_map(lambda p: rng.standard_normal(np.shape(p)).astype(dtype), params)
        updates, state = opt.update(grads, state, params)
        params = fo.apply_updates(params, updates)
    return tree_flatten(params)[0], tree_flatten(state)[0], tree_flatten(updates)[0]


SMALL = [(3, 4), (5,), ()]
LARGE = [(200, 200), (7,)]  # 40,000 float32 entries: Adam's fast path in pieces of 32,768


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_states_in_the_leaves_dtype(name, dtype, kind):
    given, reference = KINDS[kind]
    with np.errstate(over="ignore", invalid="ignore"):  # lamb's float16 norms overflow
        ours = _run(lambda: OPTIMIZERS[name](given), dtype, SMALL)
        theirs = _run(lambda: OPTIMIZERS[name](reference), dtype, SMALL)
    for part, a_list, b_list in zip(("params", "state", "updates"), ours, theirs, strict=True):
        for a, b in zip(a_list, b_list, strict=True):
            a, b = np.asarray(a), np.asarray(b)
            if b.dtype.kind == "f":
                assert a.dtype == b.dtype == dtype, (part, a.dtype, b.dtype)
            else:
                assert a.dtype == b.dtype, (part, a.dtype, b.dtype)  # the int32 step counts
            assert np.array_equal(a, b, equal_nan=True), (part, a, b)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name", ["adam", "adamw", "nadam"])
def test_large_leaves(name, kind):
    given, reference = KINDS[kind]
    ours = _run(lambda: OPTIMIZERS[name](given), np.float32, LARGE, steps=2)
    theirs = _run(lambda: OPTIMIZERS[name](reference), np.float32, LARGE, steps=2)
    for a_list, b_list in zip(ours, theirs, strict=True):
        for a, b in zip(a_list, b_list, strict=True):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype
            assert np.array_equal(a, b)


def test_numpy_adam_takes_the_fast_path(monkeypatch):
    # an np.float64 learning rate and betas still reach `_adam_on_arrays`' fused loop
    from funcgrad.optimizers import _aliases

    calls = []
    real = _aliases._adam_on_arrays

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(_aliases, "_adam_on_arrays", spy)
    _run(lambda: OPTIMIZERS["adam"](np.float64), np.float32, SMALL, steps=2)
    assert calls == [True, True]


def test_hyperparameter():
    from funcgrad.optimizers._base import hyperparameter

    for value in (np.float64(0.1), np.float32(0.1), np.array(0.1), np.int64(3)):
        out = hyperparameter(value)
        assert type(out) in (float, int) and out == value
    schedule = fo.constant_schedule(0.1)
    assert hyperparameter(schedule) is schedule
    vector = np.array([0.1, 0.2])
    assert hyperparameter(vector) is vector  # not a scalar: left to the formulas
