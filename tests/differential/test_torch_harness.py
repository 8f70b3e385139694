"""The Tensor-layer fuzz harness itself (`torch_cases`, `torch_compare`).

A named dtype sets the precision a call computes in: `cumprod(float64 input,
dtype=torch.float32)` is a float32 computation and is judged at float32's
tolerance (`Call.floor`); it was judged at float64's, so its second order,
float32 rounding in both libraries, failed at rtol 1e-8.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.differential.torch_cases import Builder, Case, DtypeRef, resolve
from tests.differential.torch_compare import check
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
