"""The plan's replay-speed rewrites: each gives the bits of the general path.

The reference is the function run eagerly (and, where a rewrite can be
switched off, the plan built without it): a rewrite that changed a value,
a stride or a sign would fail here.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.transforms import jit as jit_module


def _misaligned(a, offset):
    """A read-only copy of `a` starting `offset` bytes after a 64-byte boundary (kept by freeze)."""
    raw = np.empty(a.nbytes + 128, np.uint8)
    start = -raw.ctypes.data % 64 + offset
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    raw.setflags(write=False)  # read-only down to its memory: freeze keeps it, no copy
    out.setflags(write=False)
    return out


def _constants(plan):
    return {k: v for k, v in plan.fn.__globals__.items() if k[:1] == "K" and k[1:].isdigit()}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("offset", [8, 16, 32, 48])
def test_constants_are_aligned_and_products_keep_their_bits(offset, dtype):
    rng = np.random.default_rng(offset)
    A = _misaligned((rng.standard_normal((64, 48)) / 8).astype(dtype), offset)
    B = _misaligned(rng.standard_normal((5, 48, 64)).astype(dtype), offset)
    assert A.ctypes.data % 64 == offset and fg.freeze(A) is A

    def f(x, v):
        hv = fg.hvp(lambda y: fnp.sum(fnp.tanh(fnp.matmul(A, y)) ** 2), (x,), (v,))
        u = fnp.matmul(fnp.transpose(A), fnp.matmul(A, x))  # A.T and A: one base
        w = fnp.matmul(v, fnp.transpose(A))  # a vector times an F-ordered matrix
        z = fnp.sum(fnp.matmul(B, fnp.matmul(A, x)[:, None]), axis=0)  # batched
        return hv, u, w, z, fnp.dot(A, x), fnp.sum(A * x)

    x = rng.standard_normal(48).astype(dtype)
    v = rng.standard_normal(48).astype(dtype)
    jf = fg.jit(f)
    plan = jf.plan(x, v)
    consts = [
        c for c in _constants(plan).values() if isinstance(c, np.ndarray) and c.nbytes >= 4096
    ]
    assert consts and all(c.ctypes.data % 64 == 0 for c in consts)
    a_like = [c for c in consts if c.shape in ((64, 48), (48, 64))]
    assert len(a_like) >= 2 and all(np.shares_memory(a_like[0], c) for c in a_like)  # one copy
    for c in consts:  # the same numbers and layout as the trace's constants
        assert not c.flags.writeable and not np.shares_memory(c, A) and not np.shares_memory(c, B)
        assert any(
            c.shape == k.shape and c.strides == k.strides and np.array_equal(c, k)
            for k in (A, A.T, B)
        )
    want = f(x, v)
    for _ in range(2):
        got = jf(x, v)
        for g, w_ in zip(got, want, strict=True):
            assert g.dtype == w_.dtype and g.tobytes() == w_.tobytes()


def test_aligned_constants_can_be_switched_off(monkeypatch):
    A = _misaligned(np.random.default_rng(0).standard_normal((32, 32)), 16)
    monkeypatch.setattr(jit_module, "ALIGN_CONSTANTS", False)
    plan = fg.jit(lambda x: fnp.matmul(A, x)).plan(np.ones(32))
    (k,) = [c for c in _constants(plan).values() if isinstance(c, np.ndarray)]
    assert k is A


def test_a_small_view_of_a_large_array_is_not_copied():
    big = _misaligned(np.random.default_rng(1).standard_normal((512, 256)), 16)  # 1 MiB
    part = big[:, :8]  # 16 KiB, strided: aligning it would copy the whole base

    def f(x):
        return fnp.matmul(part, x)

    jf = fg.jit(f)
    x = np.ones(8)
    (k,) = [c for c in _constants(jf.plan(x)).values() if isinstance(c, np.ndarray)]
    assert np.shares_memory(k, big)
    assert jf(x).tobytes() == f(x).tobytes()


def _aligned_copies(plan, like):
    """The distinct aligned copies (their memory) of `like` among the plan's constants."""
    out = {}
    for c in _constants(plan).values():
        if isinstance(c, np.ndarray) and c.shape in (like.shape, like.T.shape):
            assert not np.shares_memory(c, like) and c.ctypes.data % 64 == 0
            base = c
            while isinstance(base.base, np.ndarray):
                base = base.base
            out[base.ctypes.data] = base
    return out


def test_plans_share_one_aligned_copy_of_a_weight():
    # The review of 24e3b58: a weight closed over and called with 4 batch sizes was copied
    # into every plan (4 copies); now one copy, shared, and the same bits as eager.
    W = _misaligned(np.random.default_rng(2).standard_normal((128, 96)) / 8, 16)

    def f(x):
        return fnp.sum(fnp.tanh(x @ W) * 2.0), fnp.matmul(x, fnp.transpose(W.T))

    jf = fg.jit(f)
    copies = {}
    for n in (1, 2, 3, 4):
        x = np.random.default_rng(n).standard_normal((n, 128))
        copies.update(_aligned_copies(jf.plan(x), W))
        for g, w in zip(jf(x), f(x), strict=True):
            assert g.tobytes() == w.tobytes()
    assert len(copies) == 1, copies
    assert jf.cache_info()["plans"] == 4
    (copy,) = copies.values()
    assert copy.nbytes < 2 * W.nbytes  # the base's bytes, once
    jg = fg.jit(lambda x: fnp.matmul(x, W) * 3.0)  # another function: the same copy
    assert set(_aligned_copies(jg.plan(np.ones((5, 128))), W)) == set(copies)


def test_only_operands_of_products_are_aligned():
    A = _misaligned(np.random.default_rng(3).standard_normal((64, 64)), 16)

    def f(x):
        return fnp.sum(fnp.tanh(A * x) + A)

    jf = fg.jit(f)
    x = np.random.default_rng(4).standard_normal(64)
    (k,) = [c for c in _constants(jf.plan(x)).values() if isinstance(c, np.ndarray)]
    assert k is A  # elementwise only: NumPy's own loops, no copy
    assert jf(x).tobytes() == f(x).tobytes()


def test_the_shared_copy_goes_with_its_base():
    import gc

    def plan_once():
        A = _misaligned(np.random.default_rng(5).standard_normal((64, 64)), 16)
        jf = fg.jit(lambda x: fnp.matmul(A, x))
        jf.plan(np.ones(64))
        assert id(A.base) in jit_module._ALIGNED_COPIES
        return id(A.base)

    key = plan_once()
    gc.collect()
    assert key not in jit_module._ALIGNED_COPIES


def test_a_base_changed_and_locked_again_is_copied_again():
    raw = np.empty(64 * 64 * 8 + 128, np.uint8)
    start = -raw.ctypes.data % 64 + 16
    A = raw[start : start + 64 * 64 * 8].view(np.float64).reshape(64, 64)
    A[...] = np.random.default_rng(6).standard_normal((64, 64))
    raw.setflags(write=False)
    A.setflags(write=False)
    f = lambda x: fnp.matmul(x, A)  # noqa: E731
    jf = fg.jit(f)
    x1, x2 = np.ones((1, 64)), np.ones((2, 64))
    assert jf(x1).tobytes() == f(x1).tobytes()
    raw.setflags(write=True)  # the owner of the memory may be unlocked, changed, locked
    A.setflags(write=True)
    A *= -2.0
    A.setflags(write=False)
    raw.setflags(write=False)
    assert jf(x2).tobytes() == f(x2).tobytes()  # a new plan: the new bytes, not the old copy


# --- products with a constant of equal rows (the ones of a sum's cotangent) -----------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_with_the_ones_of_a_sum_are_computed_on_a_few_rows(dtype, monkeypatch):
    rng = np.random.default_rng(4)
    X = (rng.standard_normal((128, 80)) / 8).astype(dtype)

    def loss(w1, w2):  # W4's loss: the cotangent of the sum is ones, (128, 64)
        return fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2))

    vg = fg.value_and_grad(loss, argnums=(0, 1))
    jvg = fg.jit(vg)
    args = [(rng.standard_normal((80, 64)) / 8).astype(dtype) for _ in range(3)]
    w2s = [(rng.standard_normal((64, 64)) / 8).astype(dtype) for _ in range(3)]
    plan = str(jvg.plan(args[0], w2s[0]))
    # ones @ w2.T and tanh(.).T @ ones (NumPy's OpenBLAS sums these rows alike; with
    # (96, 72) ones its 16-row product, and its columns of 72, sum differently)
    assert "Rrows(" in plan and "Rcols(" in plan, plan
    monkeypatch.setattr(jit_module, "REPEATED_PRODUCTS", False)
    whole = fg.jit(vg)
    assert "Rrows(" not in str(whole.plan(args[0], w2s[0]))
    for w1, w2 in zip(args, w2s, strict=True):  # new values at each replay
        (v, (g1, g2)), (jv, (jg1, jg2)) = vg(w1, w2), jvg(w1, w2)
        (_, (wg1, wg2)) = whole(w1, w2)
        assert jv == v and jg1.tobytes() == g1.tobytes() and jg2.tobytes() == g2.tobytes()
        assert jg1.tobytes() == wg1.tobytes() and jg2.tobytes() == wg2.tobytes()
        assert jg2.flags.c_contiguous and jg2.flags.writeable and jg2.shape == (64, 64)


@pytest.mark.parametrize("case", ["unequal", "signed zero", "few rows", "nan"])
def test_products_whose_rows_are_not_all_equal_stay_whole(case):
    rng = np.random.default_rng(5)
    c = np.ones((96, 40))
    if case == "unequal":
        c[50, 3] = 1.0 + 2.0**-40
    elif case == "signed zero":
        c[:, 7] = 0.0
        c[70, 7] = -0.0  # equal by ==, but not bit for bit
    elif case == "few rows":
        c = np.ones((40, 40))  # fewer than 4 x 16 rows: nothing to gain
    elif case == "nan":
        c[:, 2] = np.nan  # NaN != NaN, yet the bits are equal: the product may be computed on a few
    c.setflags(write=False)

    def f(w):
        return fnp.matmul(c, w), fnp.matmul(fnp.transpose(w), fnp.transpose(c))

    jf = fg.jit(f)
    w = rng.standard_normal((40, 24))
    plan = str(jf.plan(w))
    assert ("Rrows(" in plan) == (case == "nan") and ("Rcols(" in plan) == (case == "nan")
    for _ in range(2):
        w = rng.standard_normal((40, 24))
        for got, want in zip(jf(w), f(w), strict=True):
            assert got.tobytes() == want.tobytes()
