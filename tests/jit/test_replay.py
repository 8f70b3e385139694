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
