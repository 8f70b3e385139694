"""The CuPy branches of `funcgrad.backend.devices`, run on the CPU with the stand-in `cupy`.

The stand-in (tests/gpu/stand_in.py: NumPy arrays of a subclass that
carries a `.device`, in `sys.modules`) is given two GPUs; it records which
one is current when it makes a value (`made_on`) and the arrays it copies to
the current one (`moved`), so a test can see where a value was made.
"""

from __future__ import annotations

import numpy as np

from funcgrad.backend import devices
from tests.gpu.stand_in import GpuArray, on_gpu
from tests.gpu.stand_in import two_gpus as two_gpus  # noqa: F401  (the fixture `gpu`)

_gpu = on_gpu


# --- on_host ------------------------------------------------------------------------------------


def test_on_host_moves_keyword_arguments_to_the_host(gpu):
    seen = {}

    def host_fn(x, *, weights):
        seen["types"] = (type(x), type(weights))
        return x * weights

    x, w = _gpu(np.arange(3.0)), _gpu(np.array([2.0, 3.0, 4.0]))
    out = devices.on_host(host_fn, x, weights=w)
    assert seen["types"] == (np.ndarray, np.ndarray)
    assert isinstance(out, GpuArray)
    np.testing.assert_array_equal(out.view(np.ndarray), [0.0, 3.0, 8.0])


def test_on_host_with_only_a_keyword_cupy_argument_comes_back_to_its_gpu(gpu):
    seen = {}

    def host_fn(*, a):
        seen["type"] = type(a)
        return a + 1.0

    out = devices.on_host(host_fn, a=on_gpu(np.ones(2), 1))
    assert seen["type"] is np.ndarray and isinstance(out, GpuArray)
    assert out.device.id == 1


# --- constant_like: constants on the GPU of the value they go with ---------------------------------


def test_constant_like_makes_the_constant_on_like_s_gpu_not_the_current_one(gpu):
    c = devices.constant_like(np.arange(3), on_gpu(np.ones(2, dtype=np.float32), 1), np.float32)
    assert isinstance(c, GpuArray) and c.device.id == 1 and c.dtype == np.float32
    assert gpu.made_on == [1]
    np.testing.assert_array_equal(c.view(np.ndarray), [0.0, 1.0, 2.0])


def test_constant_like_of_host_values_is_numpy_asarray(gpu):
    for like in (np.ones(2), np.float32(1.0), 2.0):
        c = devices.constant_like([1, 2], like, np.float32)
        assert type(c) is np.ndarray and c.dtype == np.float32
    assert gpu.made_on == []


def _made_on_gpu_1(gpu, fn, *args, **kwargs):
    gpu.made_on.clear()
    out = fn(*args, **kwargs)
    assert gpu.made_on, "no constant was made"
    assert set(gpu.made_on) == {1}, f"constants made on GPU {gpu.made_on}, x is on GPU 1"
    return out


def test_fft_hermitian_weights_go_to_the_values_gpu(gpu):
    from funcgrad.ops import fft

    like = on_gpu(np.ones((2, 3), dtype=np.float32), 1)
    w = _made_on_gpu_1(gpu, fft._hermitian_weights, 4, 3, 1, 2, like)
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w.view(np.ndarray), [[1.0, 2.0, 1.0]])


def test_special_orders_go_to_x_s_gpu(gpu):
    import scipy.special as sp

    from funcgrad.ops import special

    x = on_gpu(np.array([0.5, 1.5]), 1)
    got = _made_on_gpu_1(gpu, special.yn.forward, gpu, -1, x)
    np.testing.assert_allclose(got.view(np.ndarray), sp.yn(-1, [0.5, 1.5]), rtol=1e-15)
    got = _made_on_gpu_1(gpu, special.polygamma.forward, gpu, 1, x)
    np.testing.assert_allclose(got.view(np.ndarray), sp.polygamma(1, [0.5, 1.5]), rtol=1e-14)


def test_where_s_python_bool_condition_goes_to_the_values_gpu(gpu):
    from funcgrad.ops import elementwise

    x = on_gpu(np.array([1.0, -2.0]), 1)
    got = _made_on_gpu_1(gpu, elementwise.where.forward, gpu, True, x, 0.0)
    np.testing.assert_array_equal(got.view(np.ndarray), [1.0, -2.0])
    _made_on_gpu_1(gpu, elementwise.where.forward, gpu, False, 0.0, x)


def test_linalg_constants_go_to_the_values_gpu(gpu):
    from funcgrad.ops import linalg, reduce

    v = on_gpu(np.array([[2.0, -1.0], [0.5, 3.0]]), 1)
    mask, _ = _made_on_gpu_1(gpu, linalg._real_row, v, True)
    np.testing.assert_array_equal(mask.view(np.ndarray), [[1.0], [0.0]])
    mask, _ = _made_on_gpu_1(gpu, linalg._largest_entries, v)
    np.testing.assert_array_equal(mask.view(np.ndarray), [[1.0, 0.0], [0.0, 1.0]])
    eye = _made_on_gpu_1(gpu, linalg._eye_like, v, 2)
    np.testing.assert_array_equal(eye.view(np.ndarray), np.eye(2))
    share = _made_on_gpu_1(gpu, reduce._argument_share, v, 0, False, "argmax")
    np.testing.assert_array_equal(share.view(np.ndarray), [[1.0, 0.0], [0.0, 1.0]])


def test_permutation_indices_go_to_the_values_gpu(gpu):
    from funcgrad.ops import linalg, reduce

    x = on_gpu(np.arange(12.0).reshape(2, 3, 2), 1)
    perm = np.array([[2, 0, 1], [1, 2, 0]])
    rows = _made_on_gpu_1(gpu, linalg._permuted_rows, x, perm)
    want = np.take_along_axis(np.arange(12.0).reshape(2, 3, 2), perm[..., None], axis=1)
    np.testing.assert_array_equal(rows.view(np.ndarray), want)
    order = np.array([[1, 0], [0, 1], [1, 0]])
    cols = _made_on_gpu_1(gpu, linalg._permuted, x[0], on_gpu(order, 1))
    want = np.take_along_axis(np.arange(6.0).reshape(3, 2), order, axis=1)
    np.testing.assert_array_equal(cols.view(np.ndarray), want)
    terms = _made_on_gpu_1(gpu, reduce._cumprod_all_terms, on_gpu(np.array([2.0, 0.0, 3.0]), 1), 0)
    np.testing.assert_array_equal(terms.view(np.ndarray), [[1, 0, 0], [0, 2, 6], [0, 0, 0]])


def test_lu_factor_pivots_go_to_a_s_gpu(gpu):
    import scipy.linalg

    import funcgrad.scipy.linalg as fsl

    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    lu, piv = _made_on_gpu_1(gpu, fsl.lu_factor, on_gpu(a, 1))
    assert isinstance(piv, GpuArray) and piv.device.id == 1
    want_lu, want_piv = scipy.linalg.lu_factor(a)
    np.testing.assert_array_equal(piv.view(np.ndarray), want_piv)
    np.testing.assert_allclose(lu.view(np.ndarray), want_lu, rtol=1e-15)


def test_cumulative_forwards_leave_a_cupy_array_on_its_gpu(gpu):
    from funcgrad.ops import reduce

    x = on_gpu(np.array([[1.0, 2.0], [3.0, 4.0]]), 1)
    for prim, fn in ((reduce.cumsum, np.cumsum), (reduce.cumprod, np.cumprod)):
        for axis in (0, 1, None):
            out = prim.forward(gpu, x, axis=axis)
            assert isinstance(out, GpuArray) and out.device.id == 1, (prim.name, axis)
            np.testing.assert_array_equal(out.view(np.ndarray), fn(x.view(np.ndarray), axis=axis))
    assert gpu.moved == []


def test_complex_polygamma_stays_on_x_s_gpu(gpu):
    from funcgrad.ops import special
    from tests.references import requires

    mpmath = requires("mpmath")

    z = np.array([0.5 + 1.0j, 2.0 - 0.5j])
    out = special.polygamma.forward(gpu, 1, on_gpu(z, 1))
    assert isinstance(out, GpuArray) and out.device.id == 1
    want = [complex(mpmath.polygamma(1, complex(v))) for v in z]
    np.testing.assert_allclose(out.view(np.ndarray), want, rtol=1e-12)
    assert gpu.moved == []
    # a Python complex x with a CuPy order n: x goes to n's GPU, not the current one
    out = special.polygamma.forward(gpu, on_gpu(np.array(2), 1), 0.5 + 1.0j)
    assert isinstance(out, GpuArray) and out.device.id == 1
    np.testing.assert_allclose(
        out.view(np.ndarray), complex(mpmath.polygamma(2, 0.5 + 1.0j)), rtol=1e-12
    )
    assert gpu.made_on in ([], [1])
