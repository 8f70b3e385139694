"""`funcgrad.freeze` copies a writeable array keeping its memory order (`order="K"`).

A constant closed over in `f`, or an argument made a leaf, is copied by `freeze`. Copied to C
order, a transposed (Fortran-ordered) array made the graph's paths (`grad`, `jit`) reduce and
scan in another memory order than eager `f` (NumPy on the original array): the last bits of a
`sum` or `cumsum` differed in most random cases. The copy now keeps the layout, so the graph
computes what eager computes, bit for bit. The reference is `f` run eagerly on plain arrays.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.backend import freeze


def test_freeze_keeps_the_layout_of_a_transposed_array():
    a = np.arange(12.0).reshape(3, 4).T
    f = freeze(a)
    assert f is not a and not np.shares_memory(f, a)
    assert f.flags.f_contiguous and not f.flags.c_contiguous and not f.flags.writeable
    assert np.array_equal(f, a)
    a[0, 0] = 99.0  # the user's array stays theirs
    assert f[0, 0] == 0.0


def test_freeze_makes_a_strided_slice_compact():
    a = np.arange(24.0).reshape(4, 6)[:, ::2]
    f = freeze(a)
    assert f.flags.c_contiguous and np.array_equal(f, a)
    p = np.arange(24.0).reshape(2, 3, 4).transpose(1, 2, 0)
    f = freeze(p)
    assert np.array_equal(f, p) and f.strides == np.empty_like(p).strides


PROGRAMS = {
    "sum(C * w)": lambda C: lambda w: fnp.sum(C * w),
    "cumsum(C * w, axis=0)": lambda C: lambda w: fnp.sum(fnp.cumsum(C * w, axis=0) ** 2),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grad_and_jit_give_eagers_bits_for_fortran_ordered_values(name):
    rng = np.random.default_rng(7)
    for _ in range(30):
        n, m = (int(v) for v in rng.integers(3, 120, 2))
        C = rng.standard_normal((m, n)).T  # a writeable constant in Fortran order
        w = np.asfortranarray(rng.standard_normal((n, m)))
        f = PROGRAMS[name](C)
        eager = f(w)
        value, _ = fg.value_and_grad(f)(w)
        jf = fg.jit(f)
        jf(w)
        assert np.asarray(value).tobytes() == eager.tobytes(), (name, n, m)
        assert np.asarray(jf(w)).tobytes() == eager.tobytes(), (name, n, m)
