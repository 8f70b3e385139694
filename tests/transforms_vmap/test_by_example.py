"""grad, vjp and jvp of `vmap` of the functions vmap runs once per example (`_BY_EXAMPLE`).

funcgrad.numpy computes some functions with NumPy on the values (medians,
quantiles, interpolation, covariances ...), and under `vmap` those NumPy
calls run once per example. A transform outside the vmap
(`grad(lambda x: vmap(fnp.median)(x).sum())`) must still get the
derivative: each is checked against a Python loop of `grad` (and of `jvp`)
and against float64 central differences, for every function of the
allowlist. The ones whose results have no derivative (positions, counts,
orders) are checked to compute under the transform, their integer result
used as a weight.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.transforms.batching import _BY_EXAMPLE

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 6))  # 3 examples of 6 distinct entries
T = RNG.standard_normal((3, 6))
GRID = np.array([-1.0, -0.2, 0.4, 1.1])


def _pair(v):
    return fnp.stack([v, v * v + 0.5 * v[::-1]])


# name -> one example's function (6 entries -> a float result with a derivative)
DIFFERENTIABLE = {
    "median": fnp.median,
    "nanmedian": fnp.nanmedian,
    "quantile": lambda v: fnp.quantile(v, np.array([0.3, 0.8])),
    "nanquantile": lambda v: fnp.nanquantile(v, 0.3),
    "percentile": lambda v: fnp.percentile(v, 65.0),
    "nanpercentile": lambda v: fnp.nanpercentile(v, [10.0, 65.0]),
    "interp": lambda v: fnp.interp(GRID, fnp.sort(v), fnp.tanh(v)),
    "cov": lambda v: fnp.cov(_pair(v)),
    "corrcoef": lambda v: fnp.corrcoef(_pair(v)),
    "convolve": lambda v: fnp.convolve(v, v[:3]),
    "correlate": lambda v: fnp.correlate(v, v[:3], mode="full"),
    "histogram": lambda v: fnp.histogram(v, bins=3)[1],  # the edges (min to max)
    "histogram_bin_edges": lambda v: fnp.histogram_bin_edges(v, bins=4),
    "polyval": lambda v: fnp.polyval(v, fnp.sum(v) * 0.1),
    "stack": lambda v: fnp.stack([v, fnp.exp(v)]),
    "broadcast_to": lambda v: fnp.broadcast_to(v, (2, 6)) * GRID[:2, None],
    "clip": lambda v: fnp.clip(v, -0.5, 0.5),
    "sort": lambda v: fnp.sort(v) * np.arange(6.0),
    "partition": lambda v: fnp.partition(v, 2) * np.arange(6.0),
    "slogdet": lambda v: fnp.linalg.slogdet(fnp.reshape(v[:4], (2, 2)) + 2 * np.eye(2))[1],
}

# NOTE: these give positions, counts or orders (integers): piecewise constant, with no
# derivative, in JAX too. Under a transform they compute on the values; here their result
# weighs a differentiable term.
NOT_DIFFERENTIABLE = {
    "searchsorted": lambda v: fnp.searchsorted(GRID, v),
    "digitize": lambda v: fnp.digitize(v, GRID),
    "count_nonzero": lambda v: fnp.count_nonzero(v > 0),
    "argsort": fnp.argsort,
    "argpartition": lambda v: fnp.argpartition(v, 2),
    "lexsort": lambda v: fnp.lexsort((v, -v)),
    # value-only in the sample (its docstring): the counts, 3 x 2 bins
    "histogramdd": lambda v: fnp.reshape(
        fnp.histogramdd(fnp.reshape(v, (3, 2)), bins=(3, 2))[0], 6
    ),
}

# NOTE: fnp.histogram2d reads `numpy.asarray` of its sample's values, which vmap refuses
# (funcgrad/numpy/_statistics.py); value-only in the sample, like histogramdd
UNSUPPORTED = {"histogram2d"}


def test_every_function_of_the_allowlist_is_classified():
    names = {getattr(f, "__name__", "") for f in _BY_EXAMPLE}
    assert names == set(DIFFERENTIABLE) | set(NOT_DIFFERENTIABLE) | UNSUPPORTED
    assert not set(DIFFERENTIABLE) & set(NOT_DIFFERENTIABLE)
    with pytest.raises(fg.BatchingError, match="converted to a NumPy array"):
        fg.vmap(lambda v: fnp.histogram2d(v[:3], v[3:], bins=2)[0])(X)


def _scalar(f):
    return lambda v: fnp.sum(f(v) * 1.0)


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_grad_jvp_vjp_of_vmap_match_a_loop_and_finite_differences(name):
    one = _scalar(DIFFERENTIABLE[name])
    total = lambda x: fnp.sum(fg.vmap(one)(x))  # noqa: E731
    loop = np.stack([fg.grad(one)(x) for x in X])
    got = fg.grad(total)(X)
    np.testing.assert_allclose(got, loop, rtol=1e-12, atol=1e-12)
    out, pull = fg.vjp(fg.vmap(one), X)
    np.testing.assert_allclose(pull(np.arange(1.0, 4.0))[0], loop * np.arange(1.0, 4.0)[:, None])
    _, tangent = fg.jvp(fg.vmap(one), (X,), (T,))
    loop_t = [fg.jvp(one, (x,), (t,))[1] for x, t in zip(X, T, strict=True)]
    np.testing.assert_allclose(tangent, loop_t, rtol=1e-12, atol=1e-12)
    # float64 central differences of the summed results along T
    eps = 1e-6
    numeric = (total(X + eps * T) - total(X - eps * T)) / (2 * eps)
    np.testing.assert_allclose(np.sum(got * T), numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(NOT_DIFFERENTIABLE))
def test_integer_results_compute_under_a_transform(name):
    f = NOT_DIFFERENTIABLE[name]

    def one(v):
        return fnp.sum(fnp.sin(v) * f(v))

    got = fg.grad(lambda x: fnp.sum(fg.vmap(one)(x)))(X)
    np.testing.assert_allclose(got, np.stack([fg.grad(one)(x) for x in X]), rtol=1e-12)


def test_numpy_called_by_the_user_still_refuses_to_lose_the_derivative():
    for f in (np.median, np.sort):
        with pytest.raises(fg.BatchingError, match=f"numpy.{f.__name__}.*would be lost"):
            fg.grad(lambda x, f=f: fnp.sum(fg.vmap(lambda v: f(v))(x)))(X)
    # without the transform it computes each example's values
    np.testing.assert_allclose(fg.vmap(lambda v: np.sort(v))(X), np.sort(X, axis=1))
