"""The CuPy branches of the linear-algebra, FFT and reduction forwards, run with a CuPy stand-in.

There is no GPU here, so each forward is called with `xp` the stand-in
`cupy` of tests/gpu/stand_in.py, NumPy with CuPy 14's signatures where they
differ from NumPy's (read from CuPy's sources, `cupy/linalg/_solve.py`,
`_decomposition.py`, `cupy/_core/_reduction.pyx`): `svd(a, full_matrices,
compute_uv)` and `pinv(a, rcond=1e-15)` without `hermitian`, a `solve` that
does not broadcast b's batch axes, no general `eig`, and reductions that
refuse axis 0 of a 0-d array. Each result must be NumPy's own. The
host-only forwards take `funcgrad.backend.on_host`, which with no CuPy
array among the arguments is the plain call (tests/gpu runs them on a GPU).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.ops import registry
from funcgrad.ops._util import all_finite
from tests.gpu import stand_in
from tests.references import requires

XP = stand_in.fake_cupy()


def _forward(name, *args, **params):
    """(the forward with the stand-in, the forward with NumPy) of primitive `name`."""
    forward = registry.get(name).forward
    return forward(XP, *args, **params), forward(np, *args, **params)


def _same(actual, expected):
    if isinstance(actual, stand_in.GpuArray):  # made by the stand-in's asarray, as CuPy's
        actual = actual.view(np.ndarray)
    assert type(actual) is type(expected)
    np.testing.assert_array_equal(actual, expected)
    assert np.asarray(actual).dtype == np.asarray(expected).dtype


def _hermitian(rng, n, complex_=False):
    a = rng.standard_normal((2, n, n))
    if complex_:
        a = a + 1j * rng.standard_normal((2, n, n))
    return a + np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("complex_", [False, True])
def test_svdvals_hermitian_is_numpys_eigvalsh_mapping(complex_):
    # CuPy's svd has no hermitian=: NumPy's own mapping, |eigvalsh| sorted descending
    x = _hermitian(np.random.default_rng(0), 3, complex_)
    x[..., 0, 2] = 7.0  # the upper triangle is not read
    _same(*_forward("svdvals", x, hermitian=True))
    _same(*_forward("svdvals", x, hermitian=False))


@pytest.mark.parametrize("name", ["svd_u", "svd_vh"])
@pytest.mark.parametrize("hermitian", [False, True])
def test_singular_vectors_are_numpys(name, hermitian):
    rng = np.random.default_rng(1)
    x = _hermitian(rng, 3) if hermitian else rng.standard_normal((2, 3, 4))
    for full in (False, True):
        _same(*_forward(name, x, full_matrices=full, hermitian=hermitian))
    z = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    _same(*_forward(name, z, full_matrices=False, hermitian=False))  # the device's own svd


def test_pinv_takes_cupys_signature_with_numpys_cutoff():
    rng = np.random.default_rng(2)
    u, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    x = u @ np.diag([3.0, 1.0, 1e-16, 0.5]) @ u.T  # one singular value below 1e-15 * 3
    for rcond in (None, 1e-3, 0.2):
        actual, expected = _forward("pinv", x, rcond=rcond, hermitian=False)
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)
    # the cutoff matters: rcond=0.2 drops 0.5 too, and None (1e-15) keeps 0.5
    assert np.linalg.matrix_rank(_forward("pinv", x, rcond=0.2, hermitian=False)[0]) == 2
    assert np.linalg.matrix_rank(_forward("pinv", x, rcond=None, hermitian=False)[0]) == 3
    _same(*_forward("pinv", _hermitian(rng, 3), rcond=None, hermitian=True))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
@pytest.mark.parametrize("rcond", [None, 1e-3, 0.3])
def test_hermitian_pinv_is_numpys_on_the_device(monkeypatch, dtype, rcond):
    # CuPy's pinv has no hermitian=: NumPy's eigh-based formula in the device's module, not
    # a host round trip; the same bits as numpy.linalg.pinv(hermitian=True) (one eigh)
    from funcgrad.ops import linalg

    def refuse(*args, **kwargs):
        raise AssertionError("pinv(hermitian=True) went through the host")

    monkeypatch.setattr(linalg, "on_host", refuse)
    rng = np.random.default_rng(12)
    u, _ = np.linalg.qr(rng.standard_normal((2, 4, 4)))
    x = u @ (np.array([3.0, -1.0, 1e-17, -0.5])[:, None] * np.swapaxes(u, -1, -2))  # rank 3
    x = np.concatenate([x, _hermitian(rng, 4, complex_=np.iscomplexobj(dtype()))[:1]])
    x = x.astype(dtype)
    x[..., 0, 3] = 9.0  # the upper triangle is not read (NumPy's eigh reads the lower)
    actual, expected = _forward("pinv", x, rcond=rcond, hermitian=True)
    _same(actual, expected)
    if rcond == 0.3:  # the cutoff drops -0.5 too
        assert np.linalg.matrix_rank(actual[:2].astype(np.complex128), tol=1e-3).tolist() == [2, 2]
    # an empty stack of matrices
    _same(*_forward("pinv", np.empty((0, 2, 2), dtype), rcond=rcond, hermitian=True))


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((1, 1, 1), (1, 1)), ((2, 3, 3), (3, 2)), ((3, 3), (2, 3, 1)), ((2, 1, 3, 3), (4, 3, 2))],
)
def test_solve_broadcasts_the_batch_axes_as_numpy_2(a_shape, b_shape):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(a_shape) + 3.0 * np.eye(a_shape[-1])
    b = rng.standard_normal(b_shape)
    actual, expected = _forward("solve", a, b)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", ["eigvals", "eig_vectors"])
def test_general_eig_is_computed_on_the_host(name):
    x = np.random.default_rng(4).standard_normal((2, 3, 3))
    _same(*_forward(name, x))


def test_roots_are_computed_on_the_host():
    _same(*_forward("roots", np.array([1.0, -3.0, 2.0])))


@pytest.mark.parametrize("name", ["expm", "sqrtm", "logm", "lu_factor"])
def test_scipy_matrix_functions_are_computed_on_the_host(name):
    # they raised DeviceError ("computed by SciPy on the CPU") for a non-NumPy module
    requires("scipy")
    x = np.random.default_rng(5).uniform(-0.3, 0.3, (2, 2, 2)) + 1.5 * np.eye(2)
    _same(*_forward(name, x))


def test_solve_sylvester_is_computed_on_the_host():
    requires("scipy")
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((2, 2)) + 3 * np.eye(2), rng.standard_normal((3, 3)) + 3 * np.eye(3)
    _same(*_forward("solve_sylvester", a, b, rng.standard_normal((2, 2, 3))))


@pytest.mark.parametrize("name", ["prod", "max", "min", "max_dim", "min_dim"])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_take_axis_0_of_a_0d_array(name, axis, keepdims):
    x = np.array(-1.25)
    actual, expected = _forward(name, x, axis=axis, keepdims=keepdims)
    assert np.shape(actual) == np.shape(expected) == ()
    assert float(actual) == float(expected) == -1.25


def test_reductions_refuse_axis_1_of_a_0d_array_on_every_module():
    with pytest.raises(fg.errors.AxisError, match="funcgrad.max_dim"):
        registry.get("max_dim").forward(XP, np.array(1.0), axis=1, keepdims=False)


def test_all_finite_looks_under_a_batched_value():
    # vmap's batched value over a CuPy array has no one float(): all_finite reads its `val`
    class Batched:
        __funcgrad_apply__ = staticmethod(lambda prim, args, params: None)

        def __init__(self, val):
            self.val = val

        def __float__(self):
            raise TypeError("float() of a batched value")

    assert all_finite(Batched(np.ones((3, 2))))
    assert not all_finite(Batched(np.array([[1.0, np.inf], [0.0, 1.0]])))
    assert not all_finite(Batched(Batched(np.array([np.nan]))))


class _DeviceLike(np.ndarray):
    """A NumPy array that is not exactly `numpy.ndarray`: `guard` takes its GPU branch."""


@pytest.mark.parametrize("keepdims", [False, True])
def test_guard_on_a_gpu_leaves_an_empty_gradient_alone(keepdims):
    # prod of an empty array on a GPU: the reduced cotangent has one entry, the gradient
    # none; the GPU branch of guard (mask without looking) reshaped the one into none
    from funcgrad.ops import guard

    prod = registry.get("prod")
    ct = np.ones((1,) if keepdims else ())
    result = np.empty(0).view(_DeviceLike)
    out = guard(prod, ct, result, {"axis": None, "keepdims": keepdims})
    assert out is result
    # a non-empty one is still masked where the cotangent is 0
    masked = guard(
        prod,
        np.zeros(()),
        np.array([np.inf, 1.0]).view(_DeviceLike),
        {"axis": None, "keepdims": False},
    )
    np.testing.assert_array_equal(masked, [0.0, 0.0])


def test_logcumsumexp_accumulates_on_the_host():
    # CuPy's ufuncs have no accumulate: NumPy's, on a host copy (on_host), back on x's GPU
    x = np.random.default_rng(11).standard_normal((3, 4))
    for axis in (0, 1, -1):
        _same(*_forward("logcumsumexp", x, axis=axis))
