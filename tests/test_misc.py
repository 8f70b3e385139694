"""`funcgrad.misc` gives HIPS autograd 1.9.1's `misc.flatten` and `misc.optimizers` the same numbers.

Both libraries' drivers get the same gradient function (written with plain
NumPy, so neither library differentiates anything) and the same nested
starting point; the final parameters, and every `(x, i, g)` the callback
sees, must agree to float64 rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.misc import flatten
from funcgrad.misc import optimizers as fopt
from tests.references import requires

autograd = requires("autograd")
from autograd.misc import flatten as ag_flatten  # noqa: E402
from autograd.misc import optimizers as agopt  # noqa: E402

A = np.array([[3.0, 0.5], [0.5, 1.0]])


def _x0():
    return {"w": np.array([1.0, -2.0]), "layers": [np.array([[0.5, 0.1], [0.2, -0.3]]), 0.25]}


def _grad(x, i):
    # A quadratic pull on every leaf, plus an iteration-dependent push: plain NumPy.
    return {
        "w": A @ x["w"] + np.cos(i),
        "layers": [x["layers"][0] * 2.0 - 0.1 * i, 3.0 * x["layers"][1] - 1.0],
    }


def _leaves(tree):
    return [np.asarray(v, dtype=float) for v in fg.tree.tree_leaves(tree)]


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("sgd", {}),
        ("sgd", {"num_iters": 50, "step_size": 0.05, "mass": 0.5}),
        ("rmsprop", {}),
        ("rmsprop", {"num_iters": 60, "step_size": 0.01, "gamma": 0.5, "eps": 1e-4}),
        ("adam", {}),
        ("adam", {"num_iters": 80, "step_size": 0.05, "b1": 0.8, "b2": 0.9, "eps": 1e-6}),
    ],
)
def test_drivers_match_autograd(name, kwargs):
    seen_ours, seen_theirs = [], []
    ours = getattr(fopt, name)(
        _grad,
        _x0(),
        callback=lambda x, i, g: seen_ours.append((_leaves(x), i, _leaves(g))),
        **kwargs,
    )
    theirs = getattr(agopt, name)(
        _grad,
        _x0(),
        callback=lambda x, i, g: seen_theirs.append((_leaves(x), i, _leaves(g))),
        **kwargs,
    )
    assert fg.tree.tree_structure(ours) == fg.tree.tree_structure(theirs)
    for a, b in zip(_leaves(ours), _leaves(theirs), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    assert (
        len(seen_ours) == len(seen_theirs) == kwargs.get("num_iters", 200 if name == "sgd" else 100)
    )
    for (xa, ia, ga), (xb, ib, gb) in zip(seen_ours, seen_theirs, strict=True):
        assert ia == ib
        for a, b in zip(xa + ga, xb + gb, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_drivers_take_a_plain_vector_and_no_callback():
    x0 = np.array([1.0, -1.0])
    grad = lambda x, i: A @ x  # noqa: E731
    np.testing.assert_allclose(
        fopt.adam(grad, x0, step_size=0.1), agopt.adam(grad, x0, step_size=0.1), rtol=1e-13
    )


@pytest.mark.parametrize(
    "value",
    [
        {"b": np.zeros(2), "a": [1.0, np.ones((1, 2))]},
        [np.arange(3.0), (np.eye(2), 2.5)],
        np.arange(4.0).reshape(2, 2),
    ],
    ids=["dict", "list", "array"],
)
def test_flatten_matches_autograd(value):
    flat, unflatten = flatten(value)
    their_flat, their_unflatten = ag_flatten(value)
    np.testing.assert_array_equal(flat, their_flat)
    back, their_back = unflatten(flat * 2), their_unflatten(their_flat * 2)
    for a, b in zip(_leaves(back), _leaves(their_back), strict=True):
        np.testing.assert_array_equal(a, b)


def test_flatten_is_importable_both_ways_and_differentiable():
    from funcgrad.misc.flatten import flatten as from_module

    value = {"w": np.array([1.0, 2.0]), "b": 3.0}
    flat, unflatten = from_module(value)
    np.testing.assert_array_equal(flat, flatten(value)[0])
    g = fg.grad(lambda v: fnp.sum(unflatten(v)["w"] ** 2) + unflatten(v)["b"])(flat)
    np.testing.assert_array_equal(g, [1.0, 2.0, 4.0])


def test_a_driver_run_can_be_differentiated():
    # d(final x)/d(step_size) of a whole adam run, against central differences
    def final(step_size):
        out = fopt.adam(
            lambda x, i: 2.0 * (x - 3.0), np.array([0.0]), num_iters=20, step_size=step_size
        )
        return fnp.sum(out)

    ours = fg.grad(final)(0.1)
    numeric = (final(0.1 + 1e-6) - final(0.1 - 1e-6)) / 2e-6
    assert float(ours) == pytest.approx(float(numeric), rel=1e-6)
