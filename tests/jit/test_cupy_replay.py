"""`funcgrad.jit` on CuPy arrays, driven on the CPU with the stand-in `cupy` (tests/gpu/stand_in.py).

A CuPy array is a dynamic argument: its shape, dtype and GPU are the
signature, and the plan calls the CuPy functions the eager run calls. The
reference is the same function run eagerly on the same stand-in arrays,
bit for bit. A derivative rule that reads a CuPy value keeps the eager
fallback, with a warning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.transforms.jit import JitWarning
from tests.gpu.stand_in import GpuArray, on_gpu
from tests.gpu.stand_in import two_gpus as two_gpus  # noqa: F401  (the fixture `gpu`)


class _CudaArray(GpuArray):
    """A stand-in CuPy array that, as `cupy.ndarray`, has `__cuda_array_interface__`."""

    __cuda_array_interface__ = {}  # noqa: RUF012  (what jit's signature looks for)


def _on(a, index=0):
    return on_gpu(np.asarray(a, dtype=float), index).view(_CudaArray)


def _same_bits(got, want):
    assert isinstance(got, GpuArray), "the result left the GPU"
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.view(np.ndarray).tobytes() == want.view(np.ndarray).tobytes()
    assert got.device.id == want.device.id


def _branchy(x, y):
    z = fnp.where(x > 0, fnp.sin(x) * 2.0, y) + fnp.exp(y)  # the mask: computed and guarded
    if fnp.sum(z) > 0:  # a Python read: a guard
        return fnp.sum(fnp.tanh(z) * z), z
    return fnp.sum(fnp.cos(z)), z


def test_a_cupy_signature_is_traced_and_replayed(gpu):
    jf = fg.jit(_branchy)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)  # no eager fallback
        for shift in (2.0, 2.0, -3.0, 2.0, -3.0, 0.5):  # both paths, masks that change
            x, y = _on(rng.standard_normal(6)), _on(rng.standard_normal(6) + shift)
            for got, want in zip(jf(x, y), _branchy(x, y), strict=True):
                _same_bits(got, want)
    # On CuPy the mask is guarded too (f could read it in Python, which a trace cannot see
    # on a CuPy array): each new mask traces again, and the plan still computes it as data.
    assert jf.cache_info() == {"signatures": 1, "plans": 6, "retraces": 5}
    plan = str(jf.plan(x, y))
    assert plan.count("raise GF") == 2 and "m0 = a0.__gt__(0)" in plan, plan
    assert "not same(a0.__gt__(0), " in plan, plan


def test_the_signature_holds_the_gpu(gpu):
    jf = fg.jit(lambda x: fnp.sin(x) * 2.0)
    for index in (1, 0, 1):
        x = _on([1.0, -2.0, 3.0], index)
        _same_bits(jf(x), fnp.sin(x) * 2.0)
    assert jf.cache_info()["signatures"] == 2


def test_a_rule_reading_a_cupy_value_runs_eagerly_with_a_warning(gpu):
    def f(x):
        return fnp.sort(x) * 2.0  # sort reads the values (followed on NumPy arrays only)

    jf = fg.jit(f)
    with pytest.warns(JitWarning, match="runs eagerly .*value of a CuPy array"):
        _same_bits(jf(_on([3.0, 1.0, 2.0])), f(_on([3.0, 1.0, 2.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)  # warned once; eager from then on
        x = _on([3.0, 1.0, 5.0])
        _same_bits(jf(x), f(x))
    assert jf.cache_info()["plans"] == 0


def test_a_mask_taken_as_data_is_computed_not_guarded():
    # On NumPy arrays too: the comparison of `where(x > 0, x, 0.0)` is a step of the plan,
    # so a new mask is not a failed guard (until session 11 each new mask traced again).
    def f(x):
        return fnp.where(x > 0, x, 0.0) * fnp.sum(x)

    jf = fg.jit(f)
    rng = np.random.default_rng(1)
    for _ in range(6):
        x = rng.standard_normal(7)
        assert jf(x).tobytes() == f(x).tobytes()
    assert jf.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}
    assert "raise GF" not in str(jf.plan(x))
