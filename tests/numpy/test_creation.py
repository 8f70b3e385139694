"""Creation functions and constants of `funcgrad.numpy`: NumPy's values, gradients through nodes.

Values are checked against NumPy, gradients against HIPS autograd (whose
`autograd.numpy` has the same functions) or against float64 central
differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.references import requires


def _numeric_grad(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        out[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return out


def test_dtypes_and_constants_are_numpys():
    assert fnp.float32 is np.float32 and fnp.int64 is np.int64 and fnp.bool_ is np.bool_
    assert fnp.complex128 is np.complex128 and fnp.dtype is np.dtype and fnp.ndarray is np.ndarray
    assert (fnp.pi, fnp.e, fnp.euler_gamma) == (np.pi, np.e, np.euler_gamma)
    assert fnp.inf == np.inf and np.isnan(fnp.nan) and fnp.newaxis is None
    assert fnp.finfo(fnp.float32).eps == np.finfo(np.float32).eps
    assert fnp.iinfo(fnp.int32).max == 2**31 - 1
    assert fnp.float_ is np.float64
    x = fg.leaf(np.ones(2, np.float32))
    assert fnp.result_type(x, 1.0) == np.float32 and not fnp.iscomplexobj(x)


@pytest.mark.parametrize(
    "name, args",
    [
        ("zeros", ((2, 3),)),
        ("ones", (3,)),
        ("eye", (3, 4, 1)),
        ("identity", (3,)),
        ("arange", (1, 7, 2)),
        ("linspace", (0.0, 1.0, 7)),
        ("logspace", (0.0, 2.0, 5)),
        ("geomspace", (1.0, 100.0, 5)),
        ("tri", (3,)),
        ("indices", ((2, 3),)),
        ("full", ((2,), 7.0)),
    ],
)
def test_creation_on_plain_values_is_numpys(name, args):
    np.testing.assert_array_equal(getattr(fnp, name)(*args), getattr(np, name)(*args))


def test_index_tricks_are_numpys():
    np.testing.assert_array_equal(fnp.r_[[1.0, 2.0], 3.0, [4.0]], np.r_[[1.0, 2.0], 3.0, [4.0]])
    np.testing.assert_array_equal(fnp.c_[[1.0, 2.0], [3.0, 4.0]], np.c_[[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(fnp.mgrid[0:2, 0:3], np.mgrid[0:2, 0:3])
    assert [a.shape for a in fnp.ogrid[0:2, 0:3]] == [(2, 1), (1, 3)]


def test_array_of_nodes_is_differentiable_like_autograd():
    anp = requires("autograd").numpy
    autograd = requires("autograd")

    def f(np_, x):
        m = np_.array([[x[0], 1.0], [x[1] * x[0], np_.sin(x[1])]])
        return np_.sum(m * m) + np_.sum(np_.array([x[1], 2.0 * x[0]]) ** 3)

    x = np.array([0.7, -1.3])
    out = fg.grad(lambda x: f(fnp, x))(x)
    np.testing.assert_allclose(out, autograd.grad(lambda x: f(anp, x))(x), rtol=1e-12)


def test_array_and_asarray_of_a_node_return_it():
    def f(x):
        assert fnp.array(x) is x and fnp.asarray(x) is x
        return fnp.sum(fnp.array(x, ndmin=2) ** 2)

    np.testing.assert_allclose(fg.grad(f)(np.array([1.0, 2.0])), [2.0, 4.0])


def test_array_dtype_casts_differentiably():
    def f(x):
        y = fnp.array([x, x * x], dtype=fnp.float32)
        assert y.dtype == np.float32
        return fnp.sum(y)

    g = fg.grad(f)(np.float64(3.0))
    assert g == 7.0
    # an integer dtype gives plain values: no gradient flows
    fg.grad(lambda x: fnp.sum(fnp.asarray(fnp.array(x, dtype=np.int64) * x)))(2.5)


def test_full_and_full_like_broadcast_a_node():
    assert fg.grad(lambda x: fnp.sum(fnp.full((2, 3), x)))(1.5) == 6.0
    assert fg.grad(lambda x: fnp.sum(fnp.full_like(np.ones(4), x)))(1.5) == 4.0
    z = fnp.zeros_like(fg.leaf(np.ones((2, 2), np.float32)))
    assert type(z) is np.ndarray and z.dtype == np.float32 and z.shape == (2, 2)


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("name", ["linspace", "logspace", "geomspace"])
def test_ranges_of_nodes_match_numpy_and_finite_differences(name, endpoint):
    start, stop = 0.5, 2.0
    np_f = getattr(np, name)
    f = getattr(fnp, name)
    got = f(fg.leaf(start), fg.leaf(stop), 6, endpoint=endpoint)
    np.testing.assert_allclose(got.value, np_f(start, stop, 6, endpoint=endpoint), rtol=1e-13)
    w = np.arange(1.0, 7.0)

    def loss(xs):
        return fnp.sum(w * f(xs[0], xs[1], 6, endpoint=endpoint))

    expected = _numeric_grad(
        lambda xs: np.sum(w * np_f(xs[0], xs[1], 6, endpoint=endpoint)), [start, stop]
    )
    np.testing.assert_allclose(fg.grad(loss)(np.array([start, stop])), expected, rtol=1e-6)


def test_linspace_of_array_ends_with_axis():
    start, stop = np.array([0.0, 1.0]), np.array([1.0, 3.0])
    got = fnp.linspace(fg.leaf(start), stop, 4, axis=1)
    np.testing.assert_allclose(got.value, np.linspace(start, stop, 4, axis=1), rtol=1e-14)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid_of_nodes(indexing, sparse):
    a, b, c = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), np.array([6.0, 7.0, 8.0, 9.0])
    got = fnp.meshgrid(fg.leaf(a), b, fg.leaf(c), indexing=indexing, sparse=sparse)
    want = np.meshgrid(a, b, c, indexing=indexing, sparse=sparse)
    for g_, w_ in zip(got, want, strict=True):
        np.testing.assert_array_equal(getattr(g_, "value", g_), w_)

    # HIPS autograd has no meshgrid gradient: central differences
    def f(np_, x):
        xx, yy = np_.meshgrid(x, x[:2] * 2.0, indexing=indexing, sparse=sparse)
        return np_.sum(np_.sin(xx) * yy)

    np.testing.assert_allclose(
        fg.grad(lambda x: f(fnp, x))(a), _numeric_grad(lambda x: f(np, x), a), rtol=1e-7
    )


def test_r_and_c_concatenate_nodes():
    x = np.array([1.0, 2.0])
    assert np.allclose(fg.grad(lambda x: fnp.sum(fnp.r_[x, 3.0, x * 2.0] ** 2))(x), 10.0 * x)
    got = fg.grad(lambda x: fnp.sum(fnp.c_[x, x * 3.0] ** 2))(x)
    np.testing.assert_allclose(got, 20.0 * x)
    with pytest.raises(TypeError, match="slices"):
        fg.grad(lambda x: fnp.sum(fnp.r_[x, 0:3]))(x)
