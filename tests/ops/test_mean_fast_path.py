"""`mean`'s forward over a whole NumPy array and its first-order VJP skip NumPy's Python frames.

The forward repeats `numpy.mean`'s own steps (the sum, then the division by a NumPy
intp count, in place for keepdims, else in the sum's precision and cast back) and the
VJP `numpy.full`'s (empty, then copyto). The reference is NumPy's function itself, bit
for bit, dtype and type included (issue 18).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import registry
from tests.references import requires

_FLOATS = [np.float32, np.float64, np.longdouble, np.complex64, np.complex128]


def _same(a, b) -> bool:
    return (
        type(a) is type(b)
        and a.dtype == b.dtype
        and np.shape(a) == np.shape(b)
        and np.asarray(a).tobytes() == np.asarray(b).tobytes()
    )


def _draw(rng, shape, dtype):
    scale = 10.0 ** rng.integers(-8, 8)
    x = rng.standard_normal(shape) * scale + rng.standard_normal() * scale * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape) * scale
    return np.asarray(x).astype(dtype)


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_over_everything_is_numpys_mean_bit_for_bit(dtype, keepdims):
    rng = np.random.default_rng(11)
    mean = registry.get("mean")
    shapes = [(), (1,), (3,), (7, 5), (64,), (2, 3, 4), (1000,), (33, 65), (100003,)]
    for shape in shapes:
        for _ in range(5):
            x = _draw(rng, shape, dtype)
            got = mean.forward(np, x, axis=None, keepdims=keepdims)
            want = np.mean(x, axis=None, keepdims=keepdims)
            assert _same(got, want), (shape, dtype, keepdims, got, want)
            # through the primitive and the graph, too
            node = mean(fg.leaf(x), axis=None, keepdims=keepdims)
            assert _same(node.value if keepdims else node.value[()], np.asarray(want)[()])


@pytest.mark.parametrize("dtype", [np.float16, np.int64, np.int8, np.bool_])
def test_other_dtypes_take_numpys_mean(dtype):
    # float16 is summed in float32 and integers give float64: numpy.mean's own rules
    rng = np.random.default_rng(12)
    x = (rng.standard_normal((9, 4)) * 5).astype(dtype)
    for keepdims in (False, True):
        got = registry.get("mean").forward(np, x, axis=None, keepdims=keepdims)
        assert _same(got, np.mean(x, keepdims=keepdims))


def test_an_empty_array_warns_and_gives_nan_as_numpy():
    x = np.zeros((0, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = registry.get("mean").forward(np, x, axis=None, keepdims=False)
    assert np.isnan(got) and any("empty" in str(w.message) for w in caught)


def test_mean_along_an_axis_is_unchanged():
    x = _draw(np.random.default_rng(13), (6, 5, 4), np.float32)
    for axis in (0, 1, -1, (0, 2)):
        for keepdims in (False, True):
            got = registry.get("mean").forward(np, x, axis=axis, keepdims=keepdims)
            assert _same(got, np.mean(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_first_order_gradient_of_a_whole_mean_is_the_spread_quotient(dtype):
    rng = np.random.default_rng(14)
    for shape in [(), (5,), (64,), (3, 7)]:
        x = _draw(rng, shape, dtype)
        ct = _draw(rng, (), dtype)
        _, pull = fg.vjp(lambda v: fnp.mean(v), x)
        (g,) = pull(ct)
        want = np.full(shape, np.asarray(ct)[()] / max(x.size, 1), dtype=dtype)
        assert g.dtype == dtype and g.shape == shape
        assert g.tobytes() == want.tobytes()
        assert g.flags.writeable and g.base is None  # its own array: `.grad` takes it as it is


def test_tensor_mean_backward_matches_pytorch():
    torch = requires("torch")
    rng = np.random.default_rng(15)
    for dtype in (np.float32, np.float64):
        x0 = _draw(rng, (16, 3), dtype)
        x = fg.tensor(x0, requires_grad=True)
        y = x.mean()
        y.backward()
        tx = torch.tensor(x0, requires_grad=True)
        ty = tx.mean()
        ty.backward()
        assert y.dtype == {np.float32: fg.float32, np.float64: fg.float64}[dtype]
        np.testing.assert_allclose(y.item(), ty.item(), rtol=4 * np.finfo(dtype).eps)
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
