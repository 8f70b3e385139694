"""The CuPy branches of the special functions and of `where`, run on the CPU with stand-ins.

No GPU here: the CuPy-only code paths are driven with the stand-in `cupy`
of tests/gpu/stand_in.py (NumPy arrays of a subclass that carries a
`.device`, in `sys.modules`) and its `cupyx.scipy.special`, which has what
CuPy 14.2's has, with CuPy's quirks where they matter: `cupy.where` calls `condition.astype`
(a Python bool has none), CuPy's `polygamma` keeps a Python `n` through
`cupy.broadcast_arrays`, CUDA's `yn` is NaN for negative orders, and
there is no `iv`, `ive` or `jn` (each quirk as in CuPy's sources,
`cupy/_sorting/search.py`, `cupyx/scipy/special/_polygamma.py`,
`_bessel.py`). `tests/gpu/test_special_on_device.py` runs the same
functions on a real GPU where there is one.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.special as sp

from funcgrad.ops import elementwise, special
from tests.gpu.stand_in import GpuArray, on_gpu
from tests.gpu.stand_in import one_gpu as one_gpu  # noqa: F401  (the fixture `gpu`)

# the stand-ins (tests/gpu/stand_in.py): `gpu` installs a one-GPU `cupy` and `cupyx.scipy.special`
_gpu = on_gpu


X = np.array([0.3, 0.7, 1.5, 2.5, 4.0])


def _same(got, want, what):
    assert isinstance(got, GpuArray), f"{what}: the result left the GPU ({type(got).__name__})"
    assert got.dtype == want.dtype, f"{what}: {got.dtype} != {want.dtype}"
    np.testing.assert_array_equal(np.asarray(got.view(np.ndarray)), want, err_msg=what)


# --- where: a Python bool condition (heaviside's and clamp's rules make one) -----------------


@pytest.mark.parametrize("cond", [True, False, np.True_, np.False_])
def test_where_takes_a_python_bool_condition_on_cupy(gpu, cond):
    x = _gpu(np.array([1.0, -2.0], dtype=np.float32))
    got = elementwise.where.forward(gpu, cond, x, 0.0)
    _same(got, np.where(cond, x.view(np.ndarray), np.float32(0.0)), f"where({cond!r}, x, 0.0)")


def test_where_on_numpy_is_still_a_direct_call_of_numpy_where():
    # the CuPy fix must not cost NumPy the registry's direct call (one frame per where)
    assert elementwise.where.direct is np.where and elementwise.where.direct_arity == 3
    x, y = np.array([1.0, -2.0, 3.0]), np.float32(0.5)
    for cond in (True, False, np.array([True, False, True])):
        want = np.where(cond, x, y)
        for got in (elementwise.where(cond, x, y), elementwise.where.forward(np, cond, x, y)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_the_stand_in_where_is_as_strict_as_cupys(gpu):
    # the quirk the fix is about: without it, where(True, ...) fails as on the H200
    with pytest.raises(AttributeError, match="'bool' object has no attribute 'astype'"):
        gpu.where(True, _gpu(X), 0.0)


# --- polygamma (digamma's, gammaln's, gamma's, beta's ... rules call polygamma(1, x)) -----------


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_polygamma_with_a_python_order_on_cupy_matches_scipy(gpu, n, dtype):
    x = _gpu(X.astype(dtype))
    got = special.polygamma.forward(gpu, n, x)
    want = sp.polygamma(n, X.astype(dtype)).astype(dtype)
    assert isinstance(got, GpuArray) and got.dtype == dtype
    np.testing.assert_allclose(got.view(np.ndarray), want, rtol=1e-6 if dtype == np.float32 else 0)


# --- yn: CUDA's is NaN for n < 0 (the VJP at n = 0 asks for Y_{-1}) --------------------------------


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, -2.0, 1.0])
def test_yn_of_every_order_on_cupy_is_scipys(gpu, n):
    x = _gpu(X)
    _same(special.yn.forward(gpu, n, x), sp.yn(n, X), f"yn({n}, x)")


def test_yn_with_an_array_of_orders_on_cupy_is_scipys(gpu):
    n = _gpu(np.array([-3, -2, -1, 0, 1]))
    _same(special.yn.forward(gpu, n, _gpu(X)), sp.yn(np.array([-3, -2, -1, 0, 1]), X), "yn")


def test_the_stand_in_yn_is_nan_for_negative_orders_as_cudas(gpu):
    # what the device run met: yn(-1, x) straight from cupyx is NaN
    assert np.isnan(sys.modules["cupyx.scipy.special"].yn(-1, X)).all()


# --- iv, ive, jn: no cupyx function, SciPy's on the host and back -----------------------------------


@pytest.mark.parametrize("name", ["iv", "ive", "jn"])
@pytest.mark.parametrize("order", [0, 1, 2, -1])
def test_bessel_functions_without_a_gpu_kernel_run_on_the_host_and_come_back(gpu, name, order):
    prim = getattr(special, name)
    _same(prim.forward(gpu, order, _gpu(X)), getattr(sp, name)(order, X), f"{name}({order}, x)")


def test_complex_iv_on_cupy_is_scipys(gpu):
    z = X + 0.5j
    _same(special.iv.forward(gpu, 1, _gpu(z)), sp.iv(1, z), "iv(1, z)")


def test_float32_stays_float32_through_the_host(gpu):
    x = X.astype(np.float32)
    _same(special.jn.forward(gpu, 2, _gpu(x)), sp.jn(2, x).astype(np.float32), "jn(2, float32)")


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "j0", "j1", "y0", "y1"])
def test_fixed_order_bessel_functions_use_cupyx(gpu, name, monkeypatch):
    # cupyx has these: no host round trip (on_host would be called otherwise)
    def refuse(*args, **kwargs):
        raise AssertionError(f"{name} went through the host")

    monkeypatch.setattr(special, "on_host", refuse, raising=False)
    prim = getattr(special, name)
    _same(prim.forward(gpu, _gpu(X)), getattr(sp, name)(X), name)
