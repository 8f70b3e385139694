"""`funcgrad.jit` never replays a `funcgrad.numpy` value-only result as a constant.

`argmax`, `isinf`, `signbit`, `nonzero`, `isclose` ... compute integer or boolean results from a
node's values. Traced by `funcgrad.jit`, they read the values without telling the trace, so
the plan kept the traced call's result: `jit(lambda x: x[fnp.argmax(x)])` gave -inf for
[4, 2.5, -inf] after a trace on [1.5, -2.5, 3] (eagerly 4.0). Their reads now go through
`value_of`, which the trace sees: such a signature runs eagerly (correct) with a JitWarning.
The reference is the same function run eagerly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

CASES = {
    "argmax": lambda x: x[fnp.argmax(x)],
    "argmin": lambda x: x[fnp.argmin(x)] * 2.0,
    "argsort": lambda x: fnp.sum(x[fnp.argsort(x)] * fnp.arange(3.0)),
    "isinf": lambda x: fnp.sum(fnp.where(fnp.isinf(x), 0.0, x)),
    "signbit": lambda x: fnp.sum(fnp.where(fnp.signbit(x), 0.0, x)),
    "isclose": lambda x: fnp.sum(fnp.where(fnp.isclose(x, 3.0), 0.0, x)),
    "nonzero": lambda x: fnp.sum(x[fnp.nonzero(x > 2.0)]),
    "count_nonzero": lambda x: fnp.sum(x) * fnp.count_nonzero(x > 0),
    "searchsorted": lambda x: x[fnp.searchsorted(np.array([0.0, 2.0]), x[0])],
    "unique": lambda x: fnp.sum(fnp.unique(fnp.floor(x)) ** 2) + fnp.sum(x),
}
INPUTS = ([1.5, -2.5, 3.0], [4.0, 2.5, -np.inf], [-1.0, 0.5, 1.0], [3.0, 3.0, -0.0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_equals_eager_for_every_input(name):
    f = CASES[name]
    jitted = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in INPUTS:
            x = np.array(v)
            assert np.array_equal(jitted(x), f(x), equal_nan=True), (name, v)


def test_jit_of_grad_through_argmax_equals_eager():
    f = fg.grad(lambda x: x[fnp.argmax(x)] * fnp.sum(x))
    jitted = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in INPUTS[:1] + INPUTS[2:]:
            x = np.array(v)
            np.testing.assert_array_equal(jitted(x), f(x))
