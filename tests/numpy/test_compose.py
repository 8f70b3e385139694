"""Compositions in `funcgrad.numpy`: NumPy's values, HIPS autograd's gradients.

Each case is a function of one float64 array; the loss is a weighted sum of
the outputs, so every output entry's gradient is checked. Where HIPS
autograd has no gradient for the function, float64 central differences
are the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.references import requires

rng = np.random.default_rng(0)
A = rng.uniform(0.5, 2.0, (3, 4))
V = rng.uniform(-2.0, 2.0, (6,))
C3 = rng.uniform(-1.0, 1.0, (2, 3))

# name -> (input, function of (namespace, x)); the namespace is fnp, numpy or autograd.numpy
CASES = {
    "acos": (V / 3, lambda m, x: m.arccos(x) if m is not fnp else fnp.acos(x)),
    "fabs": (V, lambda m, x: m.fabs(x)),
    "deg2rad": (V, lambda m, x: m.deg2rad(x)),
    "rad2deg": (V, lambda m, x: m.rad2deg(x)),
    "exp2": (V, lambda m, x: m.exp2(x)),
    "log2": (A, lambda m, x: m.log2(x)),
    "log10": (A, lambda m, x: m.log10(x)),
    "logaddexp": (A, lambda m, x: m.logaddexp(x, x[::-1] * 3.0)),
    "logaddexp2": (A, lambda m, x: m.logaddexp2(x, x[::-1] * 3.0)),
    "hypot": (A, lambda m, x: m.hypot(x, x[::-1])),
    "sinc": (np.r_[V, 0.0], lambda m, x: m.sinc(x)),
    "mod": (V * 3, lambda m, x: m.mod(x, 1.3) + m.mod(2.5, x)),
    "fmod": (V * 3, lambda m, x: m.fmod(x, 1.3)),
    "nan_to_num": (V, lambda m, x: m.nan_to_num(x)),
    "average": (A, lambda m, x: m.average(x, axis=1, weights=x[0] ** 2)),
    "average_none": (A, lambda m, x: m.average(x, axis=0)),
    "ptp": (A, lambda m, x: m.ptp(x, axis=1)),
    "nansum": (A, lambda m, x: m.nansum(x, axis=0)),
    "nanmean": (A, lambda m, x: m.nanmean(x, axis=1)),
    "nanmax": (A, lambda m, x: m.nanmax(x, axis=0)),
    "nanmin": (A, lambda m, x: m.nanmin(x)),
    "take": (A, lambda m, x: m.take(x, [2, 0, 2], axis=1)),
    "take_flat": (A, lambda m, x: m.take(x, [5, 1])),
    "take_along_axis": (A, lambda m, x: m.take_along_axis(x, np.argsort(A, axis=0), axis=0)),
    "sort": (A, lambda m, x: m.sort(x, axis=0)),
    "repeat": (A, lambda m, x: m.repeat(x, 2, axis=1)),
    "repeat_flat": (V, lambda m, x: m.repeat(x, [1, 0, 2, 1, 1, 3])),
    "tile": (A, lambda m, x: m.tile(x, (2, 1, 2))),
    "roll": (A, lambda m, x: m.roll(x, 2, axis=1)),
    "roll_flat": (A, lambda m, x: m.roll(x, -3)),
    "fliplr": (A, lambda m, x: m.fliplr(x)),
    "flipud": (A, lambda m, x: m.flipud(x)),
    "rot90": (A, lambda m, x: m.rot90(x, 3)),
    "rollaxis": (A.reshape(3, 2, 2), lambda m, x: m.rollaxis(x, 2, 0)),
    "diagonal": (A, lambda m, x: m.diagonal(x, 1)),
    "diagonal_neg": (A, lambda m, x: m.diagonal(x, -1)),
    "trace": (A, lambda m, x: m.trace(x, 1)),
    "diag_vector": (V, lambda m, x: m.diag(x, -2)),
    "diag_vector_pos": (V, lambda m, x: m.diag(x, 1)),
    "diag_matrix": (A, lambda m, x: m.diag(x, 1)),
    "diagflat": (A[:2, :2], lambda m, x: m.diagflat(x)),
    "diff": (A, lambda m, x: m.diff(x, 2, axis=1)),
    "kron": (A[:2, :2], lambda m, x: m.kron(x, x[::-1] * 2.0)),
    "cross": (C3, lambda m, x: m.cross(x, x[::-1])),
    "dstack": (A, lambda m, x: m.dstack([x, x * 2.0])),
    "column_stack": (V, lambda m, x: m.column_stack([x, x * 2.0])),
}

# HIPS autograd 1.9.1 is wrong here: diag of a non-square matrix gets a gradient of the wrong
# shape, and sinc's gradient at 0 is NaN (the limit is 0). Central differences instead.
AUTOGRAD_WRONG = {"diag_matrix", "sinc"}


def _reference(name, x, f):
    autograd = requires("autograd")
    weights = np.cos(np.arange(np.size(f(np, x))) + 0.5).reshape(np.shape(f(np, x)))
    try:
        if name in AUTOGRAD_WRONG:
            raise NotImplementedError(name)
        return autograd.grad(lambda x: autograd.numpy.sum(f(autograd.numpy, x) * weights))(x)
    except (NotImplementedError, TypeError, AttributeError):
        eps = 1e-6
        out = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            d = np.zeros_like(x)
            d[i] = eps
            out[i] = (np.sum(f(np, x + d) * weights) - np.sum(f(np, x - d) * weights)) / (2 * eps)
        return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_composition_matches_numpy_and_autograd(name):
    x, f = CASES[name]
    np.testing.assert_allclose(f(fnp, x), f(np, x), rtol=1e-13, atol=1e-15)
    weights = np.cos(np.arange(np.size(f(np, x))) + 0.5).reshape(np.shape(f(np, x)))
    got = fg.grad(lambda x: fnp.sum(f(fnp, x) * weights))(x)
    np.testing.assert_allclose(got, _reference(name, x, f), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["logaddexp", "sinc", "diag_vector", "kron", "cross", "sort"])
def test_second_order_matches_autograd(name):
    autograd = requires("autograd")
    anp = autograd.numpy
    x, f = CASES[name]
    if name == "sinc":
        x = x[:-1]  # autograd's sinc has no second derivative at 0

    def make(m, grad):
        return grad(lambda x: m.sum(m.sin(f(m, x))))

    h = fg.grad(lambda x: fnp.sum(make(fnp, fg.grad)(x) ** 2))(x)
    try:
        want = autograd.grad(lambda x: anp.sum(make(anp, autograd.grad)(x) ** 2))(x)
    except (NotImplementedError, TypeError):
        pytest.skip("no second-order reference in HIPS autograd")
    np.testing.assert_allclose(h, want, rtol=1e-9, atol=1e-12)


def test_nan_functions_give_no_gradient_to_nans():
    x = np.array([1.0, np.nan, 2.0])
    np.testing.assert_array_equal(fg.grad(fnp.nansum)(x), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(fg.grad(fnp.nanmean)(x), [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(fg.grad(fnp.nanmax)(x), [0.0, 0.0, 1.0])


def test_array_api_names_are_the_same_functions():
    assert fnp.asin is fnp.arcsin and fnp.pow is fnp.power and fnp.concat is fnp.concatenate
    assert fnp.remainder is fnp.mod and fnp.radians is fnp.deg2rad
