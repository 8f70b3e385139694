"""vmap's own reading of batched CuPy values, run on the CPU with the stand-in `cupy`.

funcgrad's checks inside a vmap (`if all_finite(ct):` on a cotangent that has
an inf or NaN, `if mask.any():`) read every example's values on the host
(`batching._all_values`). CuPy refuses `numpy.asarray` ("Implicit conversion
to a NumPy array is not allowed"): the values must come over with
`cupy.asnumpy`. The stand-in's `NoHostArray` refuses as CuPy's arrays do
(tests/gpu/stand_in.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from funcgrad.transforms import batching
from tests.gpu import stand_in

VALUES = np.array([[1.0, np.inf, 3.0], [0.0, 2.0, np.nan]])


@pytest.fixture
def strict_gpu(monkeypatch):
    return stand_in.install(monkeypatch, stand_in.fake_cupy(ndarray=stand_in.NoHostArray))


def test_the_stand_in_refuses_numpy_asarray_as_cupy(strict_gpu):
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
        np.asarray(stand_in.NoHostArray(VALUES))


@pytest.mark.parametrize("bdim", [0, 1])
def test_every_example_of_a_cupy_batch_comes_to_the_host(strict_gpu, bdim):
    val = stand_in.NoHostArray(VALUES if bdim == 0 else VALUES.T)
    got = batching._all_values(batching._batched(val, bdim, 1))
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, VALUES)


def test_nested_levels_of_a_cupy_batch_come_to_the_host(strict_gpu):
    inner = batching._batched(stand_in.NoHostArray(VALUES[None]), 1, 2)  # (1, 2, 3), level 2
    got = batching._all_values(batching._batched(inner, 0, 1))
    assert type(got) is np.ndarray and got.shape == (1, 2, 3)
    np.testing.assert_array_equal(got[0], VALUES)
