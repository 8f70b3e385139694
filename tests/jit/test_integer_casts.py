"""A cast of a traced value to an integer or bool dtype is a step of the jit plan.

`funcgrad.numpy.astype(x, int)`, `fnp.array(x, dtype=int)` and a ufunc's
`dtype=` with an integer loop gave the traced call's values at every replay
(review R, session 12: `jit(lambda x: fnp.add(x, 1, dtype=int64,
casting="unsafe"))` returned [0, 1, 3] for [3.2, -0.6, -2.5], eager and NumPy
[4, 1, -1]). The reference is eager funcgrad, itself NumPy's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

INPUTS = ([1.5, 2.5, -0.5], [3.2, -0.6, -2.5], [-7.9, 0.2, 9.9])

FUNCTIONS = {
    "ufunc dtype=int64": lambda x: fnp.add(x, 1, dtype=np.int64, casting="unsafe"),
    "astype int64": lambda x: fnp.astype(x, np.int64) * 2,
    "array dtype=int32": lambda x: fnp.array(x, dtype=np.int32) + 1,
    "astype bool": lambda x: fnp.astype(x, bool),
    "sign dtype=int8 times x": lambda x: fnp.sum(fnp.sign(x, dtype=np.int8, casting="unsafe") * x),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_replays_give_eagers_values(name):
    f = FUNCTIONS[name]
    jf = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # computed in the plan, not run eagerly
        for x in INPUTS:
            x = np.array(x)
            want, got = f(x), jf(x)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)
    assert np.array_equal(
        fnp.add(np.array(INPUTS[1]), 1, dtype=np.int64, casting="unsafe"), [4, 1, -1]
    )


def test_gradient_through_an_integer_sign_is_eagers():
    f = lambda x: fnp.sum(fnp.sign(x, dtype=np.int8, casting="unsafe") * x)  # noqa: E731
    jg, g = fg.jit(fg.grad(f)), fg.grad(f)
    for x in ([1.5, 2.5, 0.5], [3.2, -0.6, 0.0], [-1.0, 0.0, 2.0]):
        x = np.array(x)
        np.testing.assert_array_equal(jg(x), g(x))
