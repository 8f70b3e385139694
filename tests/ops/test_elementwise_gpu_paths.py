"""clip of complex values on CuPy, run on the CPU with the stand-in `cupy` (tests/gpu/stand_in.py).

CuPy 14.2's clip kernel (`cupy_clip`, `cupy/_core/_routines_math.pyx`) has
loops up to 'ddd->d' and none for complex numbers, so `cupy.clip` of a
complex array raises TypeError: what `tests/gpu/test_rules_on_device.py::
test_complex_vjp_matches_finite_differences[cuda-clip]` met on the H200. funcgrad's
clip builds the complex case from real comparisons of the parts, in NumPy's
lexicographic order; the results must be numpy.clip's, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from funcgrad.ops import elementwise
from tests.gpu.stand_in import GpuArray, on_gpu
from tests.gpu.stand_in import one_gpu as one_gpu  # noqa: F401  (the fixture `gpu`)

pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")

_PARTS = [-2.0, -1.0, -0.5, 0.0, 1.0, 1.5, 2.0, np.nan, np.inf, -np.inf]
Z = np.array([complex(a, b) for a in _PARTS for b in (-1.0, 0.0, 1.0, np.nan, np.inf)])
BOUNDS = [(-1.0, 1.5), (None, 1.5), (-1.0, None), (1.5, -1.0), (-1 + 0.5j, 1.5 - 1j), (0, 0)]


def _same_bits(got, want):
    assert isinstance(got, GpuArray), "the result left the GPU"
    got = got.view(np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(
        got.view(np.float32 if got.dtype == np.complex64 else float),
        want.view(np.float32 if want.dtype == np.complex64 else float),
    )


def test_the_stand_in_clip_refuses_complex_as_cupys(gpu):
    with pytest.raises(TypeError, match="cupy_clip"):
        gpu.clip(on_gpu(Z), -1.0, 1.5)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize(("a_min", "a_max"), BOUNDS, ids=repr)
def test_complex_clip_on_cupy_is_numpys(gpu, a_min, a_max, dtype):
    z = Z.astype(dtype)
    got = elementwise.clip.forward(gpu, on_gpu(z), a_min=a_min, a_max=a_max)
    _same_bits(got, np.clip(z, a_min, a_max))


@pytest.mark.parametrize(("a_min", "a_max"), BOUNDS, ids=repr)
def test_complex_clip_vjp_on_cupy_is_numpys(gpu, a_min, a_max):
    ct = np.arange(Z.size) + 1j * np.arange(Z.size)[::-1]
    (rule,) = elementwise.clip.vjp
    want = rule(ct, None, Z, a_min=a_min, a_max=a_max)
    got = rule(on_gpu(ct), None, on_gpu(Z), a_min=a_min, a_max=a_max)
    _same_bits(got, np.asarray(want))


def test_real_clip_on_cupy_is_still_cupys_clip(gpu):
    x = np.linspace(-3, 3, 13)
    _same_bits(elementwise.clip.forward(gpu, on_gpu(x), a_min=-1.0, a_max=1.5), np.clip(x, -1, 1.5))
