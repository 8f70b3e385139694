"""The Tensor-layer fuzz harness itself (`torch_cases`, `torch_compare`).

A named dtype sets the precision a call computes in: `cumprod(float64 input,
dtype=torch.float32)` is a float32 computation and is judged at float32's
tolerance (`Call.floor`); it was judged at float64's, so its second order,
float32 rounding in both libraries, failed at rtol 1e-8.

An inverse-like operation loses digits with the condition number of its
matrix: `pinverse`'s cases record it (`Builder.conditioned`) and the
tolerance grows as `eps * kappa ** (order + 1)` (`conditioned_rtol`), at
most `CONDITIONED_CAP`. The condition number is the one pinv computes with
(`effective_kappa`: the singular values it keeps), not `np.linalg.cond`,
which is inf or ~1e16 for a rank-deficient matrix and accepted any number
there; draws beyond `kappa_limit` (float32: 300) are skipped.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import UnsatisfiedAssumption

import funcgrad
from tests.differential.torch_cases import Builder, Case, DtypeRef, resolve
from tests.differential.torch_compare import (
    CONDITIONED_CAP,
    RTOL,
    Mismatch,
    check,
    compare_leaf,
    conditioned_rtol,
    effective_kappa,
    kappa_limit,
)
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
    # condition number 250: float32's second order of pinverse has about one digit
    # in either library (3% apart at kappa ~1000 in tests/tensors/test_torch_api.py);
    # fails without the scaling
    g = Draw(data)
    call = _pinverse_call(g, [2.0, 0.5, 8e-3])
    assert 249 < call.kappa < 251
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


_RANK_DEFICIENT = {
    "ones": np.ones((2, 2)),
    "rank 1": np.array([[1.0, 2.0], [2.0, 4.0]]),
    "zeros": np.zeros((2, 2)),
    "rank 2 of 3": np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]]),
}


@pytest.mark.parametrize("name", list(_RANK_DEFICIENT))
def test_a_rank_deficient_matrix_is_judged_by_what_pinv_keeps(name):
    # np.linalg.cond is inf or ~1e16 there and made the tolerance infinite: a 10x
    # result passed. pinv drops the zero singular values; its kappa is that of the rest
    a = _RANK_DEFICIENT[name]
    kappa = effective_kappa(a, "float64")
    assert kappa < 100, kappa  # 1 for ones, rank 1 and zeros, 18.5 for the 3x3
    ref = np.linalg.pinv(a, rcond=1e-15).ravel() + np.arange(1.0, a.size + 1)  # no zero result
    for order in (0, 1, 2):
        for wrong in (10 * ref, 1.01 * ref, -ref):
            with pytest.raises(Mismatch):
                compare_leaf(
                    torch.tensor(ref),
                    funcgrad.tensor(wrong),
                    "g",
                    "grad",
                    order,
                    floor="float64",
                    kappa=kappa,
                )
        compare_leaf(torch.tensor(ref), funcgrad.tensor(ref), "g", "grad", order, kappa=kappa)


@pytest.mark.parametrize("name", ["ones", "rank 1", "rank 2 of 3"])
def test_a_rank_deficient_float32_matrix_is_not_compared(name):
    # torch.pinverse (rcond 1e-15) of a rank-1 float32 matrix keeps the rounding
    # noise of its zero singular value (~1e-8) and inverts it: entries ~1e7, no digit
    a = _RANK_DEFICIENT[name]
    assert effective_kappa(a.astype(np.float32), "float32") == np.inf
    # linalg.pinv's own cut (eps * max(m, n)) drops it: compared
    assert effective_kappa(a.astype(np.float32), "float32", rcond=1e-6) < 100
    assert effective_kappa(np.zeros((2, 2), np.float32), "float32") == 1.0


@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_builder_skips_a_draw_beyond_the_kappa_limit(data):
    g = Draw(data)
    with pytest.raises(UnsatisfiedAssumption):
        _pinverse_call(g, [2.0, 0.5, 2e-3])  # kappa 1000 in float32
    with pytest.raises(UnsatisfiedAssumption):
        b = Builder(g, "method")
        b.conditioned(b.tensor((2, 2), "float32", array=np.ones((2, 2), np.float32)))
    assert 999 < _pinverse_call(g, [2.0, 0.5, 2e-3], "float64").kappa < 1001  # float64: compared
    b = Builder(g, "method")
    b.conditioned(b.tensor((2, 2), "float64", array=np.ones((2, 2))))
    assert b.kappa == 1.0


@pytest.mark.parametrize("kappa", [300.0, 1000.0, 1e16, np.inf])
def test_a_large_condition_number_does_not_accept_a_wrong_result(kappa):
    # the review's case: kappa 1000 gave a second-order rtol of 119, inf gave inf
    ref = np.array([1.0, -2.0, 3.0])
    for order in (0, 1, 2):
        assert conditioned_rtol("float32", order, kappa) <= CONDITIONED_CAP
        for wrong in (10 * ref, -ref, 10 * ref + 1):
            with pytest.raises(Mismatch):
                compare_leaf(
                    torch.tensor(ref, dtype=torch.float32),
                    funcgrad.tensor(wrong.astype(np.float32)),
                    "g",
                    "grad",
                    order,
                    floor="float32",
                    kappa=kappa,
                )
    # in values (order 0) a 1% error still fails at kappa 300 and 1000 (rtol 3.6e-5, 1.2e-4)
    if kappa <= 1000:
        with pytest.raises(Mismatch):
            compare_leaf(
                torch.tensor(ref, dtype=torch.float32),
                funcgrad.tensor((1.01 * ref).astype(np.float32)),
                "g",
                "values",
                0,
                floor="float32",
                kappa=kappa,
            )


def test_the_kappa_limit_follows_the_precision():
    assert kappa_limit("float32") == 300.0
    assert 2e5 < kappa_limit("float64") < 3e5
    assert 10 < kappa_limit("float16") < 20
