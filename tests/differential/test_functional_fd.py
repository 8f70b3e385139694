"""funcgrad.numpy against central differences: the names autograd lacks, and every case once more.

* `test_names_autograd_lacks`: `stop_gradient` (`NOT_IN_AUTOGRAD`) by its
  closed form: its value is `x`, its derivative 0, and `x * stop_gradient(x)`
  has gradient `stop_gradient(x)`.
* `test_gradient_matches_central_differences`: every differentiable case,
  in float64 at smooth points (ties and zeros only where `Case.smooth`):
  `funcgrad.grad` of `sum(f * w)` against central differences. It needs no
  reference package, so it also runs where autograd is missing, and it
  checks funcgrad where autograd and funcgrad could agree and both be wrong.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.differential.functional_cases import CASES, EXAMPLES, NOT_IN_AUTOGRAD, Gen
from tests.differential.functional_check import (
    FD_TOL,
    agree,
    fd_jacobian,
    flat_weights,
    objective,
    weights,
)
from tests.differential.functional_differences import KNOWN_MISMATCHES

fuzz = settings(max_examples=max(1, EXAMPLES // 3))


@fuzz
@given(data=st.data())
def test_names_autograd_lacks(data):
    assert set(NOT_IN_AUTOGRAD) == {"stop_gradient"}
    g = Gen(data)
    x = g.array(g.shape())
    out = fnp.stop_gradient(x)
    assert np.asarray(out).dtype == x.dtype
    np.testing.assert_array_equal(out, x)
    grad = fg.grad(lambda x: fnp.sum(fnp.stop_gradient(x) * x))(x)
    assert grad.dtype == x.dtype
    np.testing.assert_array_equal(grad, x)
    zero = fg.grad(lambda x: fnp.sum(fnp.stop_gradient(x * x)))(x)
    np.testing.assert_array_equal(zero, np.zeros_like(x))
    _, tangent = fg.jvp(fnp.stop_gradient, (x,), (np.ones_like(x),))
    np.testing.assert_array_equal(tangent, np.zeros_like(x))


def _params():
    for cid, c in CASES.items():
        if not c.differentiable or c.name in NOT_IN_AUTOGRAD:
            continue
        marks = []
        if (cid, "fd") in KNOWN_MISMATCHES:
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[cid, "fd"])]
        yield pytest.param(cid, id=cid, marks=marks)


@pytest.mark.parametrize("cid", list(_params()))
@fuzz
@given(data=st.data())
def test_gradient_matches_central_differences(cid, data):
    case = CASES[cid]
    g = Gen(data, dtype=np.float64, special=None if case.smooth else False)
    ex = case.draw(g)
    note(f"{cid}: {ex.describe}; special {g.special}")
    for i, a in enumerate(ex.args):
        note(f"arg {i}: {a!r}")
    try:
        result = ex.call(np, *ex.args)
    except Exception as e:  # NumPy refuses: the value check of the autograd test covers it
        note(f"NumPy raises {type(e).__name__}: {e}")
        return
    ws = weights(g.rng(), result, np.float64)
    n = len(ex.args)
    grads = fg.grad(objective(fnp, ex.call, ws), argnums=tuple(range(n)))(*ex.args)
    w = flat_weights(ws)
    jacobians = fd_jacobian(lambda *xs: ex.call(fnp, *xs), ex.args)
    for i, (gr, jac) in enumerate(zip(grads, jacobians, strict=True)):
        agree(gr, np.tensordot(w, jac, axes=1), FD_TOL, f"gradient {i}")
