"""W9's short paths through vmap's Python give what the general paths (and a loop of `grad`) give.

* `guard` on a batched cotangent tests the stacked array directly (no
  `float()` of the batched value): a finite one is returned as it is, a
  `0 * inf` one is still masked, a real inf kept.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import elementwise
from funcgrad.transforms import batching

RNG = np.random.default_rng(11)


def _loop(f, *args):
    return np.stack([np.asarray(f(*(a[k] for a in args))) for k in range(len(args[0]))])


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a.view(np.uint64), b.view(np.uint64))


# --- guard ---------------------------------------------------------------------------------------


def test_batched_values_register_with_guard():
    assert batching.Batched in elementwise.BATCHED_TYPES


def test_guard_returns_a_finite_batched_cotangent_itself():
    seen = []
    real = elementwise.guard

    def spy(prim, ct, result, params):
        out = real(prim, ct, result, params)
        seen.append((type(result), out is result))
        return out

    def loss(w, x):
        return fnp.sum(fnp.tanh(x * w))

    xs, w = RNG.standard_normal((6, 5)), RNG.standard_normal(5)
    from funcgrad.transforms import reverse

    reverse_guard = reverse.guard
    reverse.guard = spy
    try:
        got = fg.vmap(fg.grad(loss), in_axes=(None, 0))(w, xs)
    finally:
        reverse.guard = reverse_guard
    assert (batching.Batched, True) in seen
    _same_bits(got, _loop(lambda x: fg.grad(loss)(w, x), xs))


@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_guard_masks_zero_times_inf_per_example_and_keeps_a_real_inf(shape):
    # d/dx sum(m * log(x)) = m / x: 0 / 0 where m and x are 0 (masked to 0), m / 0 = inf elsewhere
    n = 5
    xs = np.abs(RNG.standard_normal((n, *shape))) + 0.5
    ms = RNG.standard_normal((n, *shape))
    xs.reshape(n, -1)[:, 0] = 0.0
    ms.reshape(n, -1)[::2, 0] = 0.0  # examples 0, 2, 4: 0 * inf
    ms.reshape(n, -1)[1::2, 0] = 1.5  # examples 1, 3: a real inf

    def loss(x, m):
        return fnp.sum(m * fnp.log(x))

    got = np.asarray(fg.vmap(fg.grad(loss))(xs, ms))
    want = _loop(fg.grad(loss), xs, ms)
    _same_bits(got, want)
    flat = got.reshape(n, -1)
    assert (flat[::2, 0] == 0).all() and np.isinf(flat[1::2, 0]).all()
    assert not np.isnan(got).any()
