"""funcgrad.tree.ravel against autograd.misc.flatten, both ways differentiable, with scipy.optimize."""

from collections import namedtuple

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import ShapeError
from tests.references import requires

RNG = np.random.default_rng(5)
Params = namedtuple("Params", ["w", "b"])


def _tree():
    return {
        "layer": Params(RNG.standard_normal((2, 3)), RNG.standard_normal(3)),
        "scale": 0.5,
        "list": [RNG.standard_normal(()), None, (RNG.standard_normal(4),)],
    }


def test_matches_autograd_flatten():
    requires("autograd")
    from autograd.misc import flatten

    tree = {"a": RNG.standard_normal((2, 2)), "b": [RNG.standard_normal(3), 1.5]}
    flat, unravel = fg.tree.ravel(tree)
    a_flat, a_unflatten = flatten(tree)
    np.testing.assert_array_equal(flat, a_flat)
    back, a_back = unravel(flat * 2), a_unflatten(a_flat * 2)
    np.testing.assert_array_equal(back["a"], a_back["a"])
    np.testing.assert_array_equal(back["b"][0], a_back["b"][0])
    assert float(back["b"][1]) == a_back["b"][1]


def test_round_trip_keeps_structure_shapes_and_dtypes():
    tree = _tree()
    flat, unravel = fg.tree.ravel(tree)
    leaves = fg.tree.tree_leaves(tree)
    assert flat.shape == (sum(np.size(v) for v in leaves),)
    back = unravel(flat)
    assert fg.tree.tree_structure(back) == fg.tree.tree_structure(tree)
    for got, want in zip(fg.tree.tree_leaves(back), leaves, strict=True):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)


def test_dtypes_promote_and_come_back():
    tree = {"f32": np.ones(2, np.float32), "i": np.arange(3, dtype=np.int32)}
    flat, unravel = fg.tree.ravel(tree)
    assert flat.dtype == np.result_type(np.float32, np.int32)  # NumPy's promotion
    back = unravel(flat.astype(np.float64))  # as scipy.optimize hands it back
    assert back["f32"].dtype == np.float32 and back["i"].dtype == np.int32
    np.testing.assert_array_equal(back["i"], [0, 1, 2])
    flat32, _ = fg.tree.ravel([np.ones(2, np.float32), 2.0])  # a Python float is weak
    assert flat32.dtype == np.float32
    empty, unravel_empty = fg.tree.ravel({})
    assert empty.shape == (0,) and unravel_empty(empty) == {}


def test_unravel_checks_the_length():
    _, unravel = fg.tree.ravel(_tree())
    with pytest.raises(ShapeError, match=r"expected a vector of shape \(15,\)"):
        unravel(np.zeros(13))


def test_differentiable_both_ways():
    tree = _tree()
    flat, unravel = fg.tree.ravel(tree)

    def loss_tree(t):
        return fnp.sum(fnp.sin(fg.tree.ravel(t)[0]) ** 2)

    g = fg.grad(loss_tree)(tree)
    want = unravel(2 * np.sin(flat) * np.cos(flat))
    for got, exp in zip(fg.tree.tree_leaves(g), fg.tree.tree_leaves(want), strict=True):
        np.testing.assert_allclose(got, exp, rtol=1e-12)

    def loss_vector(v):
        t = unravel(v)
        return fnp.sum(t["layer"].w @ t["layer"].b) * t["scale"] + fnp.sum(t["list"][2][0] ** 3)

    fg.check_grads(loss_vector, (flat,), order=2)
    fg.check_grads(lambda t: fg.tree.ravel(t)[0] ** 2, (tree,), order=2)


def test_scipy_minimize_with_value_and_grad():
    opt = requires("scipy.optimize")
    a = RNG.standard_normal((3, 3))
    a = a @ a.T + 3 * np.eye(3)
    target = RNG.standard_normal(3)
    init = {"x": np.zeros(3, np.float32), "c": np.zeros(())}

    def loss(p):  # minimum at x = a^-1 target, c = 2
        x = fnp.astype(p["x"], np.float64)
        return 0.5 * x @ (a @ x) - target @ x + (p["c"] - 2.0) ** 2

    x0, unravel = fg.tree.ravel(init)
    res = opt.minimize(fg.value_and_grad(lambda v: loss(unravel(v))), x0, jac=True, method="BFGS")
    best = unravel(res.x)
    assert res.success
    assert best["x"].dtype == np.float32
    np.testing.assert_allclose(best["x"], np.linalg.solve(a, target), rtol=1e-4, atol=1e-5)
    assert float(best["c"]) == pytest.approx(2.0, abs=1e-5)
