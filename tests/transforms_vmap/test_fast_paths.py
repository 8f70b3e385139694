"""vmap's fast paths give what its general paths give.

* The interpreter as the thread's only observer (`observe.observed_call`
  asks its `call_alone`, no closures): a primitive on plain arrays inside a
  vmapped function computes as outside, and a profile opened inside the
  vmapped function (two observers: the general path) still sees its calls
  and the walk's nodes.
"""

from __future__ import annotations

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.autograd import profiler
from funcgrad.ops import observe, registry

RNG = np.random.default_rng(20)


def test_the_interpreter_observes_calls_only_and_plain_primitives_compute_as_outside():
    a = RNG.standard_normal(5)
    seen = {}

    def f(x):
        seen["current"] = observe.current()
        seen["alone"] = registry.get("exp")(a)  # no batched value: computed as usual
        seen["node"] = fnp.exp(fg.leaf(a)).value  # a plain node inside the vmap
        return fnp.exp(x) * seen["alone"]

    xs = RNG.standard_normal((3, 5))
    got = fg.vmap(f)(xs)
    assert seen["current"] == ()  # the walk and the node makers do not call it
    assert type(seen["alone"]) is np.ndarray
    np.testing.assert_array_equal(seen["alone"], np.exp(a))
    np.testing.assert_array_equal(seen["node"], np.exp(a))
    np.testing.assert_array_equal(got, np.exp(xs) * np.exp(a))
    assert observe.active == 0 and observe.current() == ()


def test_a_profile_inside_a_vmap_sees_plain_calls_and_walks_on_the_general_path():
    a = RNG.standard_normal(4)
    counts = {}

    def f(x):
        with profiler.profile() as prof:
            assert len(observe.current()) == 1  # the profile; the interpreter is not listed
            y = fnp.sin(x) + fnp.exp(a)  # a batched sin, a plain exp
            g = fg.grad(lambda v: fnp.sum(fnp.tanh(v * x)))(a)
        counts.update({row.key: row.count for row in prof.key_averages()})
        return y + g

    xs = RNG.standard_normal((3, 4))
    got = fg.vmap(f)(xs)
    want = np.stack(
        [np.sin(x) + np.exp(a) + x * (1.0 - np.tanh(a * x) ** 2) for x in xs]  # d/dv
    )
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    # the plain exp reaches the profile through the interpreter's `call` (run()); batched
    # applications are the interpreter's own (as before); the walk's nodes are reported
    assert counts["exp"] == 1
    assert counts["TanhBackward0"] == 1 and counts["MulBackward0"] == 1
    assert observe.active == 0 and observe.current() == ()
