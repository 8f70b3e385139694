"""The Tensor-layer fuzz harness itself (`torch_cases`, `torch_compare`).

A named dtype sets the precision a call computes in: `cumprod(float64 input,
dtype=torch.float32)` is a float32 computation and is judged at float32's
tolerance (`Call.floor`); it was judged at float64's, so its second order,
float32 rounding in both libraries, failed at rtol 1e-8.

An inverse-like operation loses digits with the condition number of its
matrix: `pinverse`'s cases record it (`Builder.conditioned`) and the
tolerance grows as `eps * kappa ** (order + 1)` (`conditioned_rtol`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad
from tests.differential.torch_cases import Builder, Case, DtypeRef, resolve
from tests.differential.torch_compare import RTOL, Mismatch, check, compare_leaf, conditioned_rtol
from tests.references import requires
from tests.strategies import Draw

torch = requires("torch")


def _cumprod_call(g, dtype, named):
    b = Builder(g, "function")
    x = b.tensor((5,), dtype, array=(np.linspace(0.3, 1.7, 5) * g.sign(5)).astype(dtype), grad=True)
    kwargs = {"dtype": DtypeRef(named)} if named else {}
    args = (x, 0)

    def fn(lib, ts):
        return lib.cumprod(*resolve(args, lib, ts), **resolve(kwargs, lib, ts))

    return b.call(fn, "torch.cumprod" + b.describe(args, kwargs))


class _G(Draw):
    def sign(self, n):
        return np.where(
            np.asarray(self._draw(st.lists(st.booleans(), min_size=n, max_size=n))), -1, 1
        )


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_named_dtype_sets_the_floor(data):
    g = _G(data)
    assert _cumprod_call(g, "float64", "float32").floor() == "float32"
    assert _cumprod_call(g, "float64", "float64").floor() == "float64"
    assert _cumprod_call(g, "float64", None).floor() == "float64"
    assert _cumprod_call(g, "float32", "float64").floor() == "float32"


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_cumprod_computed_in_float32_passes_at_float32s_tolerance(data):
    g = _G(data)
    check(Case("torch.cumprod", lambda g: None), _cumprod_call(g, "float64", "float32"), g, torch)


def _pinverse_call(g, singular_values, dtype="float32"):
    rng = np.random.default_rng(g._draw(st.integers(0, 2**16)))
    u, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    v, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    a = ((u * np.asarray(singular_values)) @ v.T).astype(dtype)
    b = Builder(g, "method")
    x = b.conditioned(b.tensor((3, 3), dtype, array=a, grad=True))
    return b.call(lambda lib, ts: ts[0].pinverse(), "Tensor.pinverse" + b.describe((x,), {}))


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_pinverse_float32_is_judged_by_its_condition_number(data):
    # condition number 1000: float32's second order of pinverse has no 3 digits
    # in either library (they were 3% apart: tests/tensors/test_torch_api.py)
    g = Draw(data)
    call = _pinverse_call(g, [2.0, 0.5, 2e-3])
    assert 999 < call.kappa < 1001
    check(Case("Tensor.pinverse", lambda g: None), call, g, torch)


def test_the_conditioned_tolerance_still_catches_a_wrong_result():
    # kappa 4 in float32: the tolerance stays float32's own (5e-4 for a gradient);
    # a 1% error fails; the tolerance grows as eps * kappa ** (order + 1): 1e-3 at kappa 100
    # (still fails), 4% at kappa 550 (passes)
    assert conditioned_rtol("float32", 1, 4.0) < RTOL["float32"][1]
    ref = torch.tensor([1.0, -2.0, 3.0])
    bad = funcgrad.tensor([1.0, -2.0, 3.03])
    with pytest.raises(Mismatch):
        compare_leaf(ref, bad, "g", "grad", 1, floor="float32", kappa=4.0)
    compare_leaf(ref, bad, "g", "grad", 1, floor="float32", kappa=550.0)
    with pytest.raises(Mismatch):
        compare_leaf(ref, bad, "g", "grad", 1, floor="float32", kappa=100.0)
