"""Numerical edges: gradients finite where the math allows, documented where it does not.

* Zero cotangents stay zero (`funcgrad.ops.guard`, declared by `keeps_zeros`): the
  unselected branch of `where`, a mask, `relu` or indexing never turns a
  gradient into NaN, even where that branch is inf or NaN. No "double where".
* Kinks: `abs` at 0 has gradient 0, `maximum`/`minimum` split ties, `relu` at
  0 is 0, `norm` and `std` at zero are 0. `sqrt` at 0 is inf (the math).
* `power` at 0, `logsumexp`/`softmax`/`log_softmax` with large inputs and
  with every input -inf.
* NaN and inf inputs propagate and never crash; empty arrays differentiate;
  float16 and float32 stay float16 and float32, for every primitive.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.nn as fnn
import funcgrad.numpy as fnp
from funcgrad.errors import OpError
from funcgrad.ops import registry
from tests.call_samples import sample_of
from tests.strategies import Draw, direction, is_float_array

PRIMITIVES = registry.primitives()
X = np.array([-1.0, 0.0, 2.0])  # a negative, a zero, a positive


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log(-1), 1/0 ... in the forward
        yield


def _finite(a):
    return bool(np.all(np.isfinite(a)))


# --- where, masks and the unselected branch -----------------------------------------

SAFE_BRANCH = {
    # name: (f, exact gradient at X)
    "where sqrt": (lambda x: fnp.where(x > 0, fnp.sqrt(x), 0.0), [0.0, 0.0, 0.5 / np.sqrt(2.0)]),
    "where log": (lambda x: fnp.where(x > 0, fnp.log(x), 0.0), [0.0, 0.0, 0.5]),
    "where x log x": (lambda x: fnp.where(x > 0, x * fnp.log(x), 0.0), [0.0, 0.0, np.log(2.0) + 1]),
    "where 1 / x": (lambda x: fnp.where(x > 0, 1.0 / x, 0.0), [0.0, 0.0, -0.25]),
    "where x ** 0.5": (lambda x: fnp.where(x > 0, x**0.5, 0.0), [0.0, 0.0, 0.5 / np.sqrt(2.0)]),
    "where arcsin(x / 2)": (
        lambda x: fnp.where(x > 0, fnp.arcsin(x / 2.0), 0.0),
        [0.0, 0.0, np.inf],
    ),
    "where tanh(sqrt)": (
        lambda x: fnp.where(x > 0, fnp.tanh(fnp.sqrt(x)), 0.0),
        [0.0, 0.0, (1 - np.tanh(np.sqrt(2.0)) ** 2) * 0.5 / np.sqrt(2.0)],
    ),
    "where sqrt * sqrt": (lambda x: fnp.where(x > 0, fnp.sqrt(x) * fnp.sqrt(x), 0.0), [0, 0, 1.0]),
    "where exp(sqrt)": (
        lambda x: fnp.where(x > 0, fnp.exp(fnp.sqrt(x)), 0.0),
        [0.0, 0.0, np.exp(np.sqrt(2.0)) * 0.5 / np.sqrt(2.0)],
    ),
    "where, branches swapped": (lambda x: fnp.where(x <= 0, 0.0, fnp.log(x)), [0.0, 0.0, 0.5]),
    "mask index": (lambda x: fnp.sqrt(x)[x > 0], [0.0, 0.0, 0.5 / np.sqrt(2.0)]),
    "relu of sqrt": (lambda x: fnn.relu(fnp.sqrt(x) - 1.0), [0.0, 0.0, 0.5 / np.sqrt(2.0)]),
    "clip of log": (lambda x: fnp.clip(fnp.log(x), -1.0, 0.5), [0.0, 0.0, 0.0]),
    "maximum of log": (lambda x: fnp.maximum(fnp.log(x), 0.0), [0.0, 0.0, 0.5]),
}


@pytest.mark.parametrize("name", SAFE_BRANCH)
def test_unselected_inf_or_nan_branch_gives_zero_not_nan(name):
    f, expected = SAFE_BRANCH[name]
    g = fg.grad(lambda x: fnp.sum(f(x)))(X)
    # arcsin(2 / 2) = pi / 2 has an infinite derivative: the selected branch keeps it
    np.testing.assert_allclose(g, expected, rtol=1e-12)


@pytest.mark.parametrize("name", ["where sqrt", "where log", "where x log x", "where 1 / x"])
def test_unselected_branch_second_order_and_forward_mode(name):
    f, _ = SAFE_BRANCH[name]
    hess = fg.hessian(lambda x: fnp.sum(f(x)))(X)
    assert _finite(hess) and not hess[:2].any() and not hess[:, :2].any()
    gg = fg.grad(lambda x: fnp.sum(fg.grad(lambda y: fnp.sum(f(y)))(x)))(X)
    np.testing.assert_allclose(gg, np.diag(hess))
    _, t = fg.jvp(f, (X,), (np.ones(3),))
    assert _finite(t) and t[0] == 0 and t[1] == 0


def test_where_sqrt_second_derivative_value():
    # d2/dx2 sqrt(x) = -x**-1.5 / 4
    gg = fg.grad(
        lambda x: fnp.sum(fg.grad(lambda y: fnp.sum(fnp.where(y > 0, fnp.sqrt(y), 0.0)))(x))
    )
    np.testing.assert_allclose(gg(X), [0.0, 0.0, -0.25 * 2.0**-1.5])


def test_exp_overflow_in_the_unselected_branch():
    g = fg.grad(lambda x: fnp.sum(fnp.where(x < 100.0, fnp.exp(x), 0.0)))(np.array([0.0, 1000.0]))
    np.testing.assert_array_equal(g, [1.0, 0.0])


def test_zero_cotangents_keep_second_order_exact_where_finite():
    # The guard changes nothing where the product is finite: here the cotangent
    # of exp is (x - 1), exactly 0 at x = 1, and the second derivative needs it.
    f = lambda x: fnp.exp(x) * (x - 1.0)  # noqa: E731
    assert fg.grad(fg.grad(f))(1.0) == pytest.approx(2 * np.e, rel=1e-14)


def test_a_real_nan_or_inf_still_reaches_the_gradient():
    # Non-zero cotangents are never masked: sqrt at 0 is inf, log at 0 is inf.
    np.testing.assert_array_equal(
        fg.grad(lambda x: fnp.sum(fnp.sqrt(x)))(np.array([0.0, 4.0])), [np.inf, 0.25]
    )
    g = fg.grad(lambda x: fnp.sum(fnp.log(x)))(np.array([0.0, -1.0]))
    assert g[0] == np.inf and g[1] == -1.0


def test_tensor_layer_where_is_safe_too():
    import funcgrad as torch

    x = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    torch.where(x > 0, x.sqrt(), torch.zeros(3)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, 0.25])


# --- kinks ---------------------------------------------------------------------------


def test_kinks_take_the_usual_subgradient():
    grad_sum = lambda f: fg.grad(lambda x: fnp.sum(f(x)))  # noqa: E731
    np.testing.assert_array_equal(grad_sum(fnp.abs)(np.array([0.0, -2.0, 3.0])), [0, -1, 1])
    np.testing.assert_array_equal(grad_sum(fnn.relu)(np.array([0.0, -2.0, 3.0])), [0, 0, 1])
    np.testing.assert_array_equal(
        grad_sum(lambda x: fnp.maximum(x, 1.0))(np.array([1.0, 2.0, 0.0])), [0.5, 1, 0]
    )
    np.testing.assert_array_equal(
        grad_sum(lambda x: fnp.minimum(x, 1.0))(np.array([1.0, 2.0, 0.0])), [0.5, 0, 1]
    )
    both = fg.grad(lambda x, y: fnp.sum(fnp.maximum(x, y)), argnums=(0, 1))(np.ones(2), np.ones(2))
    np.testing.assert_array_equal(both, [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_array_equal(  # clip: 1 inside, the bounds included, 0 outside
        grad_sum(lambda x: fnp.clip(x, -1.0, 1.0))(np.array([-1.0, 1.0, 2.0])), [1, 1, 0]
    )
    np.testing.assert_array_equal(  # max ties share the gradient evenly
        fg.grad(fnp.max)(np.array([3.0, 1.0, 3.0])), [0.5, 0, 0.5]
    )


def test_norm_and_std_at_zero():
    z = np.zeros(3)
    np.testing.assert_array_equal(fg.grad(fnp.linalg.norm)(z), z)
    np.testing.assert_array_equal(fg.grad(lambda x: fnp.linalg.norm(x, ord=3))(z), z)
    np.testing.assert_array_equal(fg.grad(lambda x: fnp.linalg.norm(x, ord=1))(z), z)
    np.testing.assert_array_equal(fg.grad(fnp.std)(np.full(3, 2.0)), z)
    # the Hessian of the norm at zero does not exist; funcgrad's is finite
    assert _finite(fg.hessian(fnp.linalg.norm)(z))
    # a NaN input is not "zero": it propagates
    assert np.isnan(fg.grad(fnp.linalg.norm)(np.array([np.nan, 1.0]))).all()
    assert np.isnan(fg.grad(fnp.std)(np.array([np.nan, 1.0]))).all()


def test_sqrt_at_zero_is_inf_as_the_math():
    assert fg.grad(fnp.sqrt)(0.0) == np.inf


# --- power at 0 ----------------------------------------------------------------------


def test_power_at_zero():
    d = fg.grad
    assert d(lambda x: x**2.0)(0.0) == 0.0
    assert d(lambda x: x**1.0)(0.0) == 1.0
    assert d(lambda x: x**0.0)(0.0) == 0.0  # x**0 == 1 everywhere, 0**0 included
    assert d(lambda x: x**0.5)(0.0) == np.inf  # the math
    assert d(lambda x: x**3.0)(0.0) == 0.0
    assert d(d(lambda x: x**2.0))(0.0) == 2.0
    assert d(d(lambda x: x**1.0))(0.0) == 0.0
    assert d(d(lambda x: x**3.0))(0.0) == 0.0
    # with an array exponent, y == 0 gives 0 as well
    np.testing.assert_array_equal(
        d(lambda x: fnp.sum(x ** np.array([0.0, 1.0, 2.0])))(np.zeros(3)), [0.0, 1.0, 0.0]
    )
    # d/dy 0**y: 0 for y > 0 (0**y is constant 0 there); taken as 0 at y <= 0
    dy = d(lambda y: fnp.sum(np.zeros(3) ** y))(np.array([2.0, 0.5, 0.0]))
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.0])
    # d/dy x**y = log(x) x**y away from 0
    assert d(lambda y: 2.0**y)(3.0) == pytest.approx(np.log(2.0) * 8.0)


# --- logsumexp, softmax, log_softmax -----------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_inputs(dtype):
    x = np.array([1000.0, 1000.0, 990.0], dtype)
    p = np.exp(np.array([0.0, 0.0, -10.0])) / np.exp(np.array([0.0, 0.0, -10.0])).sum()
    g = fg.grad(fnn.logsumexp)(x)
    assert g.dtype == dtype
    np.testing.assert_allclose(g, p, rtol=1e-5)
    assert fnn.logsumexp(x) == pytest.approx(1000.0 + np.log(2.0 + np.exp(-10.0)))
    g = fg.grad(lambda x: fnn.log_softmax(x)[2])(x)
    np.testing.assert_allclose(g, np.array([0, 0, 1.0]) - p, rtol=1e-4, atol=1e-6)
    g = fg.grad(lambda x: fnn.softmax(x)[0])(x)
    assert _finite(g) and g.dtype == dtype


def test_every_input_minus_inf():
    x = np.full(3, -np.inf)
    assert fnn.logsumexp(x) == -np.inf
    np.testing.assert_array_equal(fg.grad(fnn.logsumexp)(x), np.zeros(3))
    np.testing.assert_array_equal(fnn.softmax(x), np.zeros(3))
    np.testing.assert_array_equal(fg.grad(lambda x: fnp.sum(fnn.softmax(x) * 2.0))(x), 0.0)
    assert (fnn.log_softmax(x) == -np.inf).all()
    w = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(fg.vjp(fnn.log_softmax, x)[1](w)[0], np.zeros(3))
    # a fully masked row next to a live one (attention masks)
    rows = np.array([[0.0, 1.0, -np.inf], [-np.inf, -np.inf, -np.inf]])
    g = fg.grad(lambda x: fnp.sum(fnn.logsumexp(x, axis=1) * np.array([1.0, 0.0])))(rows)
    assert _finite(g) and not g[1].any() and g[0, 2] == 0.0
    g = fg.grad(lambda x: fnp.sum(fnn.softmax(x, axis=1)[:, 0]))(rows)
    assert _finite(g) and not g[1].any()


def test_unselected_softmax_row_of_nan_gives_zero():
    x = np.array([[1.0, 2.0], [np.inf, 1.0]])
    keep = np.array([[True], [False]])
    g = fg.grad(lambda x: fnp.sum(fnp.where(keep, fnn.softmax(x, axis=1), 0.0)))(x)
    assert _finite(g)
    g = fg.grad(lambda x: fnp.sum(fnp.where(keep, fnn.log_softmax(x, axis=1), 0.0)))(x)
    assert _finite(g) and not g[1].any()


# --- NaN and inf inputs, registry-wide ---------------------------------------------------


@pytest.mark.parametrize("prim", PRIMITIVES, ids=lambda p: p.name)
@given(data=st.data())
def test_nan_and_inf_inputs_never_crash(prim, data):
    g = Draw(data)
    args, params = sample_of(prim).make(g)
    args = list(args)
    floats = [i for i, a in enumerate(args) if is_float_array(a) and np.size(a)]
    if not floats:
        return
    i = g.choice(floats)
    poisoned = np.array(args[i], dtype=np.float64)
    poisoned.flat[g.integers(0, poisoned.size - 1)] = g.choice([np.nan, np.inf, -np.inf])
    args[i] = poisoned
    leaves = {k: fg.leaf(a) for k, a in enumerate(args) if is_float_array(a)}
    try:
        node = prim(*(leaves.get(k, a) for k, a in enumerate(args)), **params)
    except OpError as e:  # e.g. a Cholesky factor of a NaN matrix: a clear error is fine
        assert f"funcgrad.{prim.name}" in str(e)
        return
    ct = direction(g, node.shape, node.dtype)
    try:
        grads = fg.backward(node, ct, wrt=list(leaves.values()))
    except (OpError, fg.NotDifferentiableError) as e:  # e.g. inv of a NaN matrix in a rule
        assert "funcgrad." in str(e)
        return
    for k, leaf in leaves.items():
        assert grads[leaf].shape == np.shape(args[k]) and grads[leaf].dtype == leaf.dtype


def test_nan_propagates_elementwise():
    g = fg.grad(lambda x: fnp.sum(fnp.sin(x) * fnp.exp(x)))(np.array([np.nan, 0.0]))
    assert np.isnan(g[0]) and g[1] == 1.0
    g = fg.grad(lambda x: fnp.sum(x @ x))(np.array([[np.nan, 1.0], [1.0, 1.0]]))
    assert np.isnan(g).any() and not np.isnan(g).all()


# --- empty arrays -----------------------------------------------------------------------

EMPTY = {
    "sum": lambda x: fnp.sum(x),
    "mean of exp": lambda x: fnp.sum(fnp.exp(x)) + fnp.sum(x * 0.0),
    "prod": lambda x: fnp.prod(x),
    "norm": lambda x: fnp.linalg.norm(x),
    "logsumexp": lambda x: fnn.logsumexp(x),
    "softmax": lambda x: fnp.sum(fnn.softmax(x, axis=-1)),
    "matmul": lambda x: fnp.sum(x @ x.T),
    "concatenate": lambda x: fnp.sum(fnp.concatenate([x, x * 2.0], axis=0)),
    "getitem": lambda x: fnp.sum(x[1:]),
    "cumsum": lambda x: fnp.sum(fnp.cumsum(x, axis=-1)),
}


@pytest.mark.parametrize("name", EMPTY)
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)], ids=str)
def test_empty_arrays_differentiate(name, shape):
    x = np.ones(shape, np.float32)
    g = fg.grad(EMPTY[name])(x)
    assert g.shape == shape and g.dtype == np.float32


def test_empty_array_reductions_without_identity_raise_clearly():
    with pytest.raises(OpError, match=r"funcgrad\.max\(float64\[0\]"):
        fg.grad(fnp.max)(np.ones(0))


# --- dtypes kept, registry-wide ---------------------------------------------------------


@pytest.mark.parametrize("prim", PRIMITIVES, ids=lambda p: p.name)
@given(data=st.data())
def test_float16_stays_float16(prim, data):
    g = Draw(data)
    args, params = sample_of(prim).make(g)
    args = tuple(a.astype(np.float16) if is_float_array(a) else a for a in args)
    leaves = {k: fg.leaf(a) for k, a in enumerate(args) if is_float_array(a)}
    node = prim(*(leaves.get(k, a) for k, a in enumerate(args)), **params)
    expected = np.dtype(params["dtype"]) if "dtype" in params else np.dtype(np.float16)
    if node.dtype.kind == "c" and "dtype" not in params:
        expected = np.dtype(np.complex64)  # NumPy has no complex32: the Fourier transforms' output
    assert node.dtype == expected, f"{prim.name}: float16 in, {node.dtype} out"
    grads = fg.backward(node, direction(g, node.shape, node.dtype), wrt=list(leaves.values()))
    for leaf in leaves.values():
        assert grads[leaf].dtype == np.float16, f"{prim.name}: gradient {grads[leaf].dtype}"


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_transforms_keep_the_dtype(dtype):
    x = np.linspace(0.5, 1.5, 4).astype(dtype)
    f = lambda x: fnp.sum(fnp.tanh(x) * fnp.exp(x) / (1.0 + x * x))  # noqa: E731
    assert fg.grad(f)(x).dtype == dtype
    assert fg.value_and_grad(f)(x)[0].dtype == dtype
    assert fg.jvp(f, (x,), (np.ones_like(x),))[1].dtype == dtype
    assert fg.hessian(f)(x).dtype == dtype
    assert fg.jacobian(lambda x: x * 2.0)(x).dtype == dtype


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_tensor_layer_keeps_the_dtype(dtype):
    import funcgrad as torch

    x = torch.ones(3, dtype=getattr(torch, dtype), requires_grad=True)
    (x.exp() * 2.0 + x.sin()).sum().backward()
    assert x.grad.dtype == np.dtype(dtype)
