"""`funcgrad.numpy`'s reductions take NumPy's positional order and `dtype` (against NumPy and HIPS autograd).

The generated reductions took `(x, axis, keepdims)`: NumPy's third
positional argument, `dtype`, became `keepdims` (`np.sum(x, 0, np.float32)`
kept the axis, silently), and `np.prod(shape, dtype=int)` (autograd's
convnet example) raised TypeError.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import OpError
from tests.references import requires

X = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]])

# (name, positional arguments after the array) in NumPy's order
POSITIONAL = [
    ("sum", (0, np.float32)),
    ("sum", (1, None, None, True)),
    ("prod", (None, np.float32)),
    ("prod", (0, None, None, True)),
    ("mean", (1, np.float32, None, True)),
    ("max", (0, None, True)),
    ("min", (1, None, True)),
    ("amax", (None, None, True)),
    ("amin", (0,)),
    ("var", (1, np.float32, None, 1, True)),
    ("std", (0, None, None, 1)),
    ("cumsum", (1, np.float32)),
    ("cumprod", (None, np.float32)),
]


@pytest.mark.parametrize(("name", "args"), POSITIONAL, ids=lambda v: str(v))
def test_positional_arguments_mean_what_they_mean_in_numpy(name, args):
    want = getattr(np, name)(X, *args)
    for x in (X, fg.leaf(X)):
        got = getattr(fnp, name)(x, *args)
        got = got.value if type(got) is fg.graph.Node else got
        assert np.shape(got) == np.shape(want)
        assert np.result_type(got) == np.result_type(want)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_dtype_on_plain_values_as_numpys():
    assert fnp.prod((1, 28, 28), dtype=int) == 784 and np.result_type(
        fnp.prod((2, 3), dtype=int)
    ) == np.dtype(int)
    np.testing.assert_array_equal(fnp.sum([True, True, False], dtype=np.int8), np.int8(2))
    np.testing.assert_array_equal(fnp.cumsum([1, 2, 3], dtype=np.float64), [1.0, 3.0, 6.0])
    with pytest.raises(OpError, match=r"funcgrad.numpy.sum: out= is not supported"):
        fnp.sum(X, 0, None, np.empty(3))
    with pytest.raises(OpError, match=r"funcgrad.numpy.max: out= is not supported"):
        fnp.max(X, 0, np.empty(3))


def test_gradients_through_dtype_match_autograd():
    autograd = requires("autograd")
    import autograd.numpy as anp

    def f(np_):
        return lambda x: (
            np_.sum(np_.sin(x) * 2.0, 0, np.float64)[1] + np_.sum(x**2, dtype=np.float64)
        )

    np.testing.assert_allclose(fg.grad(f(fnp))(X), autograd.grad(f(anp))(X), rtol=1e-15)
    g = fg.grad(lambda x: fnp.sum(fnp.mean(x, 1, np.float32) ** 2))(X)
    assert g.dtype == np.float64  # the cast's gradient comes back in the input's dtype
    np.testing.assert_allclose(g, 2 * np.mean(X, 1, keepdims=True) / 3 * np.ones_like(X), rtol=1e-6)


@pytest.mark.parametrize("name", ["mean", "var", "std", "cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [0, -1, 1, None])
def test_an_axis_of_a_0d_input_as_numpy(name, axis):
    # NumPy refuses an axis of a 0-d input for mean/var/std (funcgrad gave NaN for var) and
    # gives shape (1,) for cumsum/cumprod (funcgrad gave ()); the same refusals and shapes
    a = np.float64(1.5) * np.ones(())
    try:
        want = getattr(np, name)(a, axis=axis)
    except Exception:  # noqa: BLE001  (NumPy's exception is the reference)
        with pytest.raises((ValueError, IndexError)):  # NumPy's AxisError is both, funcgrad's too
            getattr(fnp, name)(a, axis=axis)
        return
    got = getattr(fnp, name)(a, axis=axis)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_cumprod_of_a_0d_node_along_axis_0_is_differentiable():
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(fnp.cumprod(x, axis=0) * 3.0))(2.0), 3.0)
