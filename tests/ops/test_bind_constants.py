"""`Primitive.bind` with array constants: a locked array of its own memory is taken as it is.

Any other array goes through `freeze` (a writeable one is copied and the copy locked; a
read-only view of writeable memory too), so a later write to the caller's array changes
neither the recorded value nor a gradient (issue 18's shortcut for W3's and W4's X @ W).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.ops import elementwise as ew
from funcgrad.ops import linalg


def _locked(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_locked_constant_is_the_node_input_itself(dtype):
    rng = np.random.default_rng(21)
    c = _locked(rng.standard_normal((3, 4)).astype(dtype))
    w = fg.leaf(rng.standard_normal((4, 2)).astype(dtype))
    out = linalg.matmul(c, w)
    assert out.inputs[0] is c and out.inputs[1] is w and type(out.inputs) is tuple
    assert out.value.tobytes() == np.matmul(c, w.value).tobytes()
    g = fg.backward(fnp_sum(out), wrt=[w])[w]
    assert g.tobytes() == np.matmul(c.T, np.ones((3, 2), dtype)).tobytes()


def fnp_sum(x):
    import funcgrad.numpy as fnp

    return fnp.sum(x)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: np.array(a),  # writeable: copied
        lambda a: _locked(np.concatenate([a, a]))[: len(a)],  # a locked view: freeze decides
        lambda a: np.array(a)[::1].view(),  # a view of writeable memory, locked below
    ],
    ids=["writeable", "locked-view", "view-of-writeable"],
)
def test_other_constants_go_through_freeze(make):
    rng = np.random.default_rng(22)
    a0 = rng.standard_normal(5)
    c = make(a0)
    if c.base is not None and c.base.flags.writeable:
        c.setflags(write=False)  # read-only view, but its memory can still change
    x = fg.leaf(rng.standard_normal(5))
    out = ew.multiply(x, c)
    held = out.inputs[1]
    assert not held.flags.writeable
    before = out.value.copy()
    # write through whatever memory the caller still has
    root = c if c.base is None else c.base
    if root.flags.writeable:
        root[...] = 7.0
        assert held is not c  # it was copied
    np.testing.assert_array_equal(out.value, before)
    np.testing.assert_array_equal(held, a0)
    g = fg.backward(fnp_sum(out), wrt=[x])[x]
    np.testing.assert_array_equal(g, a0)
