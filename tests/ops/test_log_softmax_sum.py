"""log_softmax's forward sums with `numpy.add.reduce` on NumPy arrays: `numpy.sum`'s own call.

The reference is the formula with `numpy.sum` (the forward before issue 18's change), bit
for bit: dtypes, axes, rows of -inf, +inf and NaN, shapes on both sides of the short-row
threshold.
"""

from __future__ import annotations

import numpy as np
import pytest

from funcgrad.ops import nn


def _reference(x, axis):
    shifted = nn._shifted(np, x, axis)
    s = np.sum(np.exp(shifted), axis=axis, keepdims=True)
    return shifted - np.log(np.where(s == 0, 1, s))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(10,), (64, 10), (128, 10), (5, 40), (3, 4, 5), (1, 1)])
def test_log_softmax_forward_equals_the_numpy_sum_formula(shape, dtype):
    rng = np.random.default_rng(31)
    for trial in range(6):
        x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3)).astype(dtype)
        if trial == 4 and x.ndim > 1:
            x[0] = -np.inf  # a slice that is all -inf stays -inf
            x[-1, ..., 0] = np.inf
        if trial == 5:
            x.flat[0] = np.nan
        for axis in range(-x.ndim, x.ndim):
            with np.errstate(invalid="ignore"):
                got = nn._log_softmax_forward(np, x, axis=axis)
                want = _reference(x, axis)
            assert got.dtype == want.dtype == dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), (shape, axis, trial)
