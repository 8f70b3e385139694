"""A comparison `f` takes as data (where's mask) and also reads in Python (review of a3518f8).

The mask of `x > 0` is handed to `f` as a traced array: where the graph takes it, the
plan computes it (a new mask is no new trace), and `f`'s Python reads of it or of values
derived from it are guards, so a replay never takes the trace's branch for another mask.
"""

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

_XS = [
    np.array([1.0, 2.0, 3.0, -1.0]),
    np.array([1.0, -2.0, -3.0, -1.0]),  # the reviewer's: eager 1.0, jit gave 100.0
    np.array([-1.0, -2.0, -3.0, -4.0]),
    np.array([-1.0, 2.0, 3.0, 4.0]),
    np.array([5.0, -2.0, 3.0, 4.0]),
]

_READS = {
    "m.sum() >= 3": lambda m: m.sum() >= 3,
    "bool(m.any())": lambda m: bool(m[:2].any()),
    "int(m.sum())": lambda m: int(m.sum()) >= 3,
    "m.tolist()": lambda m: m.tolist().count(True) >= 3,
    "numpy.nonzero(m)": lambda m: len(np.nonzero(m)[0]) >= 3,
    "iteration": lambda m: sum(1 for v in m if v) >= 3,
    "m[0]": lambda m: bool(m[0]),
}


def _branchy(read):
    def f(x):
        m = x > 0
        y = fnp.where(m, x, 0.0)
        if read(m):
            return fnp.sum(y) * 100.0
        return fnp.sum(y)

    return f


@pytest.mark.parametrize("name", list(_READS))
def test_a_mask_read_in_python_is_guarded(name):
    f = _branchy(_READS[name])
    jf = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # retraces past max_retraces warn
        for x in _XS + _XS[::-1]:
            assert jf(x).tobytes() == f(x).tobytes(), (name, x)
    assert jf.cache_info()["plans"] >= 2  # the branches differ: some read failed its guard


def test_the_mask_taken_only_as_data_is_not_guarded():
    def f(x):
        m = x > 0
        return fnp.sum(fnp.where(m, x, 0.0) * fnp.sum(x))

    jf = fg.jit(f)
    for x in _XS:
        assert jf(x).tobytes() == f(x).tobytes()
    assert jf.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}
    assert "raise GF" not in str(jf.plan(_XS[0]))


def test_a_read_that_agrees_replays_the_same_plan():
    # Python reads the count: a new mask with the same count keeps the plan
    f = _branchy(_READS["m.sum() >= 3"])
    jf = fg.jit(f)
    for x in (_XS[0], _XS[3], _XS[4]):  # three positive entries each, other masks
        assert jf(x).tobytes() == f(x).tobytes()
    assert jf.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}


def test_a_mask_indexing_a_node_checks_the_shape():
    def f(x):
        return fnp.sum(x[x > 0] ** 2) * 2.0

    jf = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in _XS + _XS[::-1]:
            assert jf(x).tobytes() == f(x).tobytes(), x
            assert fg.grad(jf)(x).tobytes() == fg.grad(f)(x).tobytes(), x


def test_comparing_two_nodes_hands_back_a_mask_of_both():
    def f(x, y):
        m = x > y
        out = fnp.where(m, x, y)
        return fnp.sum(out) * (2.0 if m.sum() > 1 else -1.0)

    jf = fg.jit(f)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(8):
            x, y = rng.standard_normal(3), rng.standard_normal(3)
            assert jf(x, y).tobytes() == f(x, y).tobytes()
