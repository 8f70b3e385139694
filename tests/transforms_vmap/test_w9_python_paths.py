"""W9's short paths through vmap's Python give what the general paths (and a loop of `grad`) give.

* `guard` on a batched cotangent tests the stacked array directly (no
  `float()` of the batched value): a finite one is returned as it is, a
  `0 * inf` one is still masked, a real inf kept.
* `_mapped_index` (a per-example integer index) puts `batch_rows(n)` first,
  and `scatter_add` knows from it that no position is named twice when
  every other integer array has one entry per row: plain assignment, which
  keeps a -0.0 cotangent as the loop of `grad` does (NumPy's `add.at` into
  zeros gives +0.0); repeated positions within an example still add up.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import elementwise, index
from funcgrad.transforms import batching

RNG = np.random.default_rng(11)


def _loop(f, *args):
    return np.stack([np.asarray(f(*(a[k] for a in args))) for k in range(len(args[0]))])


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a.view(np.uint64), b.view(np.uint64))


# --- guard ---------------------------------------------------------------------------------------


def test_guard_recognises_batched_values_by_their_base():
    # guard's batched branch keys on the base class (no registry in the ops layer)
    assert issubclass(batching.Batched, elementwise._BATCHED_BASE)


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


# --- batch_rows and scatter_add ------------------------------------------------------------------


def test_batch_rows_is_one_read_only_arange_per_size():
    r = index.batch_rows(7)
    assert r is index.batch_rows(7) and not r.flags.writeable
    np.testing.assert_array_equal(r, np.arange(7))
    with pytest.raises(ValueError):
        r[0] = 3


def _add_at(ct, idx, shape):
    out = np.zeros(shape, dtype=ct.dtype)
    np.add.at(out, idx, ct)
    return out


def test_scatter_add_without_repeats_assigns_and_with_repeats_adds():
    n = 6
    rows = index.batch_rows(n)
    labels = RNG.integers(0, 4, n)
    ct = RNG.standard_normal(n)
    ct[2] = -0.0
    got = index.scatter_add(ct, index=(rows, labels), shape=(n, 4))
    want = np.zeros((n, 4))
    want[np.arange(n), labels] = ct
    _same_bits(got, want)
    assert np.signbit(got[2, labels[2]])  # assigned, not 0.0 + -0.0
    # the same numbers through a fresh arange: NumPy's add.at (no identity, no promise)
    fresh = index.scatter_add(ct, index=(np.arange(n), labels), shape=(n, 4))
    _same_bits(fresh, _add_at(ct, (np.arange(n), labels), (n, 4)))
    # rows, then a per-row array with two entries each: repeats possible, so they add up
    twice = np.stack([labels, labels], axis=1)
    ct2 = RNG.standard_normal((n, 2))
    got2 = index.scatter_add(ct2, index=(rows[:, None], twice), shape=(n, 4))
    _same_bits(got2, _add_at(ct2, (rows[:, None], twice), (n, 4)))
    # rows with an array of another length that broadcasts over them: positions repeat
    col = np.array([1])
    assert index._repeats_possible((rows, col))
    got3 = index.scatter_add(ct, index=(rows, col), shape=(n, 4))
    _same_bits(got3, _add_at(ct, (rows, col), (n, 4)))
    assert not index._repeats_possible((rows, labels))
    assert not index._repeats_possible((rows, 2, slice(None)))
    assert index._repeats_possible((np.arange(n), labels))


def test_per_example_label_gradient_keeps_minus_zero_as_the_loop_of_grad():
    n, c = 8, 5
    xs = RNG.standard_normal((n, c))
    ys = RNG.integers(0, c, n)

    def loss(x, y):
        return x[y] * -0.0

    got = fg.vmap(fg.grad(loss))(xs, ys)
    _same_bits(got, _loop(fg.grad(loss), xs, ys))
    assert np.signbit(np.asarray(got)[np.arange(n), ys]).all()


def test_per_example_index_vectors_with_repeats_add_up():
    n, c = 6, 5
    xs = RNG.standard_normal((n, c))
    idx = RNG.integers(0, c, (n, 4))
    idx[:, 1] = idx[:, 0]  # every example names one position twice

    def loss(x, i):
        return fnp.sum(fnp.sin(x[i]))

    got = fg.vmap(fg.grad(loss))(xs, idx)
    want = _loop(fg.grad(loss), xs, idx)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    ref = np.zeros((n, c))  # by hand: cos at each named position, added once per naming
    np.add.at(ref, (np.arange(n)[:, None], idx), np.cos(np.take_along_axis(xs, idx, axis=1)))
    np.testing.assert_allclose(got, ref, rtol=1e-15, atol=0)


def test_w9_per_example_gradients_match_the_loop_of_grad_bit_for_bit_in_the_label_rows():
    n, d, c = 16, 7, 4
    X = RNG.standard_normal((n, d))
    y = RNG.integers(0, c, n)
    W = RNG.standard_normal((d, c))

    def loss(w, x, t):
        return -fg.nn.functional.log_softmax(fnp.matmul(x, w), dim=0)[t]

    got = fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))(W, X, y)
    want = np.stack([np.asarray(fg.grad(loss)(W, X[k], y[k])) for k in range(n)])
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


# --- _mapped_index's kept answer -----------------------------------------------------------------


def test_mapped_index_keeps_its_answer_only_for_the_same_arrays_and_reads_their_values_now():
    from funcgrad.ops import batching as table

    n = 6
    labels = RNG.integers(0, 4, n)
    first = table._mapped_index(n, (table.Mapped(labels, 0),), 1)
    again = table._mapped_index(n, (table.Mapped(labels, 0),), 1)
    assert again is first  # getitem's VJP asks again: the kept answer
    assert first[0] is index.batch_rows(n)
    np.testing.assert_array_equal(first[1], labels)
    labels[:] = (labels + 1) % 4  # the same array, written: the answer reads it
    np.testing.assert_array_equal(table._mapped_index(n, (table.Mapped(labels, 0),), 1)[1], labels)
    other = labels.copy()
    other[0] = (other[0] + 2) % 4
    got = table._mapped_index(n, (table.Mapped(other, 0),), 1)
    np.testing.assert_array_equal(got[1], other)  # another array: computed again
    # an index along axis 1 of the stacked labels, and an int after it
    cols = RNG.integers(0, 4, (3, n))
    got = table._mapped_index(n, (table.Mapped(cols, 1), 2), 2)
    np.testing.assert_array_equal(got[1], cols.T[:, :])
    assert got[2] == 2 and got[0].shape == (n, 1)
    cols[:] = 0
    np.testing.assert_array_equal(table._mapped_index(n, (table.Mapped(cols, 1), 2), 2)[1], 0)
    assert table._mapped_index(n, (table.Mapped(cols, 1), 3), 2)[2] == 3
    # a float index has no such form, and is not kept as one that has
    assert table._mapped_index(n, (table.Mapped(np.zeros(n), 0),), 1) is None


def test_per_example_labels_written_between_calls_give_the_new_gradients():
    n, c = 8, 5
    xs = RNG.standard_normal((n, c))
    ys = RNG.integers(0, c, n)

    def loss(x, y):
        return -fg.nn.functional.log_softmax(x, dim=0)[y]

    per_example = fg.vmap(fg.grad(loss))
    for _ in range(3):
        got = per_example(xs, ys)
        _same_bits(got, _loop(fg.grad(loss), xs, ys))
        ys[:] = (ys + 1) % c
