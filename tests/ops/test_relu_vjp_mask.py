"""relu's VJP on NumPy float arrays (a mask AND on the bits) against numpy.where, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import elementwise
from tests.references import requires

SPECIALS = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, -1e-30]


def _pair(dtype, shape, rng):
    x = rng.standard_normal(shape).astype(dtype)
    ct = rng.standard_normal(shape).astype(dtype)
    flat_x, flat_ct = x.reshape(-1), ct.reshape(-1)
    k = min(len(SPECIALS), flat_x.size)
    flat_x[:k] = SPECIALS[:k]
    flat_ct[-k:] = SPECIALS[:k] if k else flat_ct[-k:]
    return x, ct


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(128, 256), (9,), (3, 4, 5), (0, 3), ()])
@pytest.mark.parametrize("layout", ["C", "F", "T"])
def test_same_bits_as_where(dtype, shape, layout):
    x, ct = _pair(dtype, shape, np.random.default_rng(len(shape)))
    if layout == "F":
        x, ct = np.asfortranarray(x), np.asfortranarray(ct)
    elif layout == "T":
        x, ct = x.T, ct.T
    got = elementwise._relu_vjp(ct, None, x)
    want = np.where(x > 0, ct, 0.0)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()  # -0.0, NaN payloads and zeros at x <= 0 included


def test_mixed_dtypes_and_broadcast_take_where():
    x = np.array([1.0, -1.0, 0.0], np.float16)
    ct = np.array([np.nan, 2.0, 3.0], np.float32)
    assert elementwise._relu_vjp(ct, None, x).tobytes() == np.where(x > 0, ct, 0.0).tobytes()
    ct = np.float64(2.0)  # a broadcast cotangent takes the general path
    np.testing.assert_array_equal(elementwise._relu_vjp(ct, None, x), [2.0, 0.0, 0.0])


def test_gradient_matches_pytorch():
    torch = requires("torch")
    x = np.random.default_rng(1).standard_normal((64, 33)).astype(np.float32)
    x[0, :3] = 0.0
    w = np.random.default_rng(2).standard_normal((64, 33)).astype(np.float32)
    got = fg.grad(lambda v: fnp.sum(fg.nn.functional.relu(v) * w))(x)
    tx = torch.from_numpy(x.copy()).requires_grad_()
    (torch.relu(tx) * torch.from_numpy(w)).sum().backward()
    assert got.tobytes() == tx.grad.numpy().tobytes()
