"""Functions with a zero derivative: NumPy's values on nodes, zero gradients, the graph kept.

References: NumPy for the values, HIPS autograd for the gradients (its
`floor`, `round`, ... have zero gradients too).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.graph import Node
from tests.references import requires

X = np.array([[-1.5, 0.25, 2.5], [3.7, -0.5, 1.0]])

ZERO_GRADIENT = ["floor", "ceil", "rint", "trunc", "fix", "round", "around", "spacing"]


@pytest.mark.parametrize("name", ZERO_GRADIENT)
def test_piecewise_constant_functions_are_nodes_with_zero_gradient(name):
    f = getattr(fnp, name)

    def loss(x):
        y = f(x)
        assert type(y) is Node  # the graph is not cut
        np.testing.assert_array_equal(y.value, getattr(np, name)(X))
        return fnp.sum(y * x)

    # d/dx sum(f(x) * x) = f(x): f itself contributes nothing
    np.testing.assert_array_equal(fg.grad(loss)(X), getattr(np, name)(X))
    _, tangent = fg.jvp(f, (X,), (np.ones_like(X),))
    np.testing.assert_array_equal(tangent, 0.0)


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "rint", "trunc", "fix"])
def test_gradients_match_autograd(name):
    autograd = requires("autograd")
    anp = autograd.numpy

    def f(np_, x):
        return np_.sum(np_.sin(x) * getattr(np_, name)(x * 3.0) + x - getattr(np_, name)(x))

    np.testing.assert_allclose(
        fg.grad(lambda x: f(fnp, x))(X), autograd.grad(lambda x: f(anp, x))(X), rtol=1e-13
    )


def test_float32_stays_float32():
    x32 = X.astype(np.float32)
    g = fg.grad(lambda x: fnp.sum(fnp.floor(x) * x))(x32)
    assert g.dtype == np.float32
    assert fg.grad(lambda x: fnp.sum(fnp.floor_divide(x, 2.0) * x))(x32).dtype == np.float32


def test_floor_divide_and_heaviside_on_two_nodes():
    y = np.array([2.0, 0.5, 1.5])

    def loss(x, y):
        return fnp.sum(fnp.floor_divide(x, y) + fnp.heaviside(x, y))

    gx, gy = fg.grad(loss, argnums=(0, 1))(X, y)
    np.testing.assert_array_equal(gx, 0.0)
    np.testing.assert_array_equal(gy, 0.0)


@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("argmax", (X,), {"axis": 1}),
        ("argmin", (X,), {}),
        ("argsort", (X,), {"axis": 0}),
        ("nonzero", (X > 0,), {}),
        ("flatnonzero", (X,), {}),
        ("argwhere", (X > 0,), {}),
        ("count_nonzero", (X,), {"axis": 0}),
        ("searchsorted", (np.sort(X.ravel()), X), {}),
        ("digitize", (X, [0.0, 1.0, 2.0]), {}),
        ("shape", (X,), {}),
        ("ndim", (X,), {}),
        ("size", (X,), {}),
        ("allclose", (X, X + 1e-12), {}),
        ("isclose", (X, X.T[:, :1].T), {}),
        ("array_equal", (X, X), {}),
        ("isinf", (X * np.inf,), {}),
        ("signbit", (X,), {}),
        ("logical_and", (X > 0, X < 2), {}),
        ("logical_not", (X > 0,), {}),
        ("all", (X > -2,), {}),
        ("any", (X > 3,), {"axis": 1}),
        ("isin", (X, [1.0, 2.5]), {}),
    ],
)
def test_value_only_functions_read_nodes(name, args, kwargs):
    want = getattr(np, name)(*args, **kwargs)
    seen = []

    def loss(x):
        node_args = tuple(x if a is X else a for a in args)
        got = getattr(fnp, name)(*node_args, **kwargs)
        seen.append(got)
        return fnp.sum(x)

    fg.grad(loss)(X)
    got = seen[0]
    assert type(got) is not Node
    if isinstance(want, tuple):
        for g_, w_ in zip(got, want, strict=True):
            np.testing.assert_array_equal(g_, w_)
    else:
        np.testing.assert_array_equal(got, want)


def test_bincount_and_histogram():
    ints = np.array([0, 1, 1, 4])
    np.testing.assert_array_equal(fnp.bincount(ints), np.bincount(ints))
    np.testing.assert_array_equal(
        fnp.bincount(ints, weights=np.ones(4)), np.bincount(ints, np.ones(4))
    )
    # differentiable in the weights (tests/numpy/test_statistics.py): each weight's bin count
    grad = fg.grad(lambda w: fnp.sum(fnp.bincount(ints, weights=w) ** 2))(np.ones(4))
    np.testing.assert_array_equal(grad, 2.0 * np.bincount(ints)[ints])
    counts, edges = fnp.histogram(X, bins=3)
    want_counts, want_edges = np.histogram(X, bins=3)
    np.testing.assert_array_equal(counts, want_counts)
    np.testing.assert_allclose(edges, want_edges)

    def edge_sum(x):
        c, e = fnp.histogram(x, bins=3)
        np.testing.assert_array_equal(c, want_counts)
        np.testing.assert_allclose(e.value, want_edges, rtol=1e-14)
        return fnp.sum(e)

    # edges = linspace(min, max, 4): the sum is 2 min + 2 max
    expected = np.zeros_like(X)
    expected[np.unravel_index(X.argmin(), X.shape)] = 2.0
    expected[np.unravel_index(X.argmax(), X.shape)] = 2.0
    np.testing.assert_allclose(fg.grad(edge_sum)(X), expected)


def test_unique_is_differentiable_in_its_values():
    x = np.array([3.0, 1.0, 3.0, 2.0, 1.0])
    np.testing.assert_array_equal(fnp.unique(x), np.unique(x))
    g = fg.grad(lambda x: fnp.sum(fnp.unique(x) ** 2))(x)
    np.testing.assert_array_equal(g, [6.0, 2.0, 0.0, 4.0, 0.0])

    def loss(x):
        values, index, inverse, counts = fnp.unique(x, True, True, True)
        want = np.unique(x.value, True, True, True)
        for a, b in zip((values.value, index, inverse, counts), want, strict=True):
            np.testing.assert_array_equal(a, b)
        counted = fnp.unique_counts(x)
        np.testing.assert_array_equal(counted.counts, want[3])
        return fnp.sum(values) + fnp.sum(counted.values)

    np.testing.assert_array_equal(fg.grad(loss)(x), [2.0, 2.0, 0.0, 2.0, 0.0])
