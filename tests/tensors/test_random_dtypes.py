"""Random draws with an integer or bool dtype, against PyTorch 2.13.

PyTorch refuses them with NotImplementedError (`"normal_kernel_cpu" not
implemented for 'Long'`), except where its kernel is never called: an empty
`randn`, `randn_like`, `normal`, `normal_`, `log_normal_` or `exponential_`
returns an empty tensor of that dtype (`rand`'s and `uniform_`'s bound check
comes first, so they refuse even an empty one). funcgrad does the same and
its error is both NotImplementedError and funcgrad's DtypeError.
(Found by tests/differential/test_torch_fuzz.py: `randn(0, dtype=int64)`.)
"""

from __future__ import annotations

import pytest

import funcgrad
from tests.references import requires

torch = requires("torch")

CASES = {
    "randn": lambda T, n, dt: T.randn(n, 3, dtype=dt),
    "randn size=": lambda T, n, dt: T.randn(size=(2, n), dtype=dt),
    "randn generator": lambda T, n, dt: T.randn(n, dtype=dt, generator=T.Generator()),
    "randn out=": lambda T, n, dt: T.randn(n, out=T.empty(n, dtype=dt)),
    "randn_like": lambda T, n, dt: T.randn_like(T.zeros(n, 2), dtype=dt),
    "randn_like input": lambda T, n, dt: T.randn_like(T.zeros(n, 2, dtype=dt)),
    "rand": lambda T, n, dt: T.rand(n, dtype=dt),
    "rand_like": lambda T, n, dt: T.rand_like(T.zeros(n), dtype=dt),
    "normal size=": lambda T, n, dt: T.normal(0.0, 1.0, size=(n,), dtype=dt),
    "normal mean": lambda T, n, dt: T.normal(T.zeros(n, dtype=dt), 2.0),
    "normal std": lambda T, n, dt: T.normal(1.0, T.zeros(n, dtype=dt)),
    "normal_": lambda T, n, dt: T.zeros(n, dtype=dt).normal_(),
    "log_normal_": lambda T, n, dt: T.zeros(n, dtype=dt).log_normal_(),
    "exponential_": lambda T, n, dt: T.zeros(n, dtype=dt).exponential_(),
    "uniform_": lambda T, n, dt: T.zeros(n, dtype=dt).uniform_(),
}


def _run(lib, case, n, dtype):
    try:
        return CASES[case](lib, n, getattr(lib, dtype)), None
    except Exception as e:  # noqa: BLE001
        return None, e


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("case", sorted(CASES))
def test_integer_dtypes_as_pytorch(case, n, dtype):
    want, t_err = _run(torch, case, n, dtype)
    got, f_err = _run(funcgrad, case, n, dtype)
    if t_err is not None:
        assert f_err is not None, f"PyTorch raises {t_err!r}; funcgrad returns {got!r}"
        # NotImplementedError, or RuntimeError (exponential_'s "continuous probability
        # distribution"): funcgrad's is a NotImplementedError, a RuntimeError
        assert isinstance(f_err, type(t_err)) and isinstance(f_err, funcgrad.DtypeError)
        assert "funcgrad." in str(f_err)
        if isinstance(t_err, NotImplementedError):  # PyTorch's words
            assert str(t_err) in str(f_err)
        return
    assert f_err is None, f"funcgrad raises {f_err!r}; PyTorch returns {want!r}"
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    assert got.numel() == 0


def test_an_empty_integer_draw_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        torch.randn(0, dtype=torch.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match="(?i)only Tensors of floating point"):
        funcgrad.randn(0, dtype=funcgrad.int64, requires_grad=True)
