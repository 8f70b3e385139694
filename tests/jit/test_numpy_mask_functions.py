"""funcgrad.numpy functions that take a mask compute it in the plan, not from the trace.

`piecewise`, `select`, `compress` and `extract` turned the conditions into a plain array
(`np.asarray`), which a trace cannot see: handed a mask `x < 0` that jit traces, the plan kept
the traced call's mask (`jit(piecewise(x, [x < 0, x >= 0], ...))` gave -2 for -1, eagerly 1).
They now keep the traced mask (`np.stack`, `np.asanyarray`), so the plan computes it from the
replayed values; a mask whose count changes the result's shape is a shape guard (a retrace).
The reference is the same function run eagerly, bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

CASES = {
    "piecewise": lambda x: fnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2.0]),
    "piecewise, a constant": lambda x: fnp.piecewise(x, [x < 0], [0.5, lambda v: v]),
    "piecewise, otherwise": lambda x: fnp.piecewise(x, [x < -1, x > 1], [-1.0, 1.0, 0.0]),
    "select": lambda x: fnp.select([x < 0, x >= 1], [-x, x * 2.0], default=x),
    "compress": lambda x: fnp.sum(fnp.compress(x > 0, x) ** 2),
    "extract": lambda x: fnp.sum(fnp.extract(x > 0, x * 3.0)),
}

XS = [
    np.array([1.0, 2.0, -3.0]),  # traced with this
    np.array([-1.0, 2.0, 3.0]),  # the same count of positive entries, another mask
    np.array([-1.0, -2.0, 0.5]),
    np.array([-2.0, 0.0, 1.5]),
    np.array([1.0, 2.0, -3.0]),
]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_mask_function_replays_the_new_mask(name):
    f = CASES[name]
    jf = fg.jit(f)
    jg = fg.jit(fg.grad(lambda x: fnp.sum(f(x))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # shape guards may retrace past max_retraces
        for x in XS:
            assert np.asarray(jf(x)).tobytes() == np.asarray(f(x)).tobytes(), (name, x)
            expected = fg.grad(lambda x: fnp.sum(f(x)))(x)
            assert np.asarray(jg(x)).tobytes() == np.asarray(expected).tobytes(), (name, x)


def test_nan_to_num_replaces_what_the_replay_makes_non_finite():
    # nan_to_num read the node's value itself: the plan replaced the traced call's NaNs
    def f(x):
        return fnp.nan_to_num(fnp.log(x)) * 2.0

    def total(x):
        return fnp.sum(f(x))

    jf, jg = fg.jit(f), fg.jit(fg.grad(total))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log of 0 and of negatives
        warnings.simplefilter("error", fg.transforms.jit.JitWarning)
        for v in ([1.0, 2.0, 3.0], [-1.0, 2.0, 3.0], [0.5, -2.0, 0.0], [1.0, 2.0, 3.0]):
            x = np.array(v)
            assert np.asarray(jf(x)).tobytes() == f(x).tobytes(), v
            if 0.0 not in v:  # log's VJP at 0: the documented keeps_zeros limit of a replay
                assert np.asarray(jg(x)).tobytes() == fg.grad(total)(x).tobytes(), v
    assert jf.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}


def test_a_compiled_tensor_nan_to_num_replaces_what_the_replay_makes_non_finite():
    def f(x):
        return fg.nan_to_num(fg.log(x)) * 2

    compiled = fg.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("error", message="funcgrad.compile", category=RuntimeWarning)
        for v in ([1.0, 2.0, 3.0], [-1.0, 2.0, 3.0], [0.5, -2.0, 0.0]):
            got = compiled(fg.tensor(v, requires_grad=True)).detach().numpy()
            assert got.tobytes() == f(fg.tensor(v)).numpy().tobytes(), v


NAN_READERS = {
    "nansum": lambda x: fnp.nansum(fnp.log(x)) * x,
    "nanmean": lambda x: fnp.nanmean(fnp.log(x)) * x,
    "nanmax": lambda x: fnp.nanmax(fnp.log(x)) * x,
    "nanmin": lambda x: fnp.nanmin(fnp.log(x)) * x,
    "trim_zeros": lambda x: fnp.trim_zeros(fnp.maximum(x, 0.0))[0] * x,
}


@pytest.mark.parametrize("name", sorted(NAN_READERS))
def test_nan_reductions_and_trim_zeros_read_the_replayed_values(name):
    # they read node.value themselves: the plan kept the traced call's NaN mask (the
    # nan-reductions gave NaN where log(-1) appeared after the trace) or its trimmed slice
    f = NAN_READERS[name]
    jf = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log of negatives; trim_zeros: eager
        for v in ([1.0, 2.0, 3.0], [-1.0, 2.0, 3.0], [0.5, -2.0, 4.0], [1.0, 2.0, 3.0]):
            x = np.array(v)
            assert np.asarray(jf(x)).tobytes() == np.asarray(f(x)).tobytes(), (name, v)
