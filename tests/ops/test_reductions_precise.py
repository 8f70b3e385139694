"""Reductions, norms, determinants and cumulative sums at their edges (#12).

Ties, zeros, infinities, singular matrices and 0-d inputs: the Tensor layer
against PyTorch (values, first and second order), the functional API
against exact arithmetic (`fractions`) or central differences in float64.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from tests.references import requires

INF = float("inf")


def _grads(mod, f, x, dtype, w=None, v=None):
    """Value, gradient of sum(f(x) * w) and gradient of sum(grad * v), as NumPy arrays."""
    t = mod.tensor(np.asarray(x, dtype=np.float64), dtype=getattr(mod, dtype), requires_grad=True)
    out = f(mod, t)
    w = np.ones(tuple(out.shape)) if w is None else np.asarray(w, dtype=np.float64)
    # (PyTorch's norm with p=0 leaves x out of the graph: its gradient is 0)
    kw = {"allow_unused": True, "materialize_grads": True} if mod.__name__ == "torch" else {}
    (g,) = mod.autograd.grad((out * mod.tensor(w, dtype=t.dtype)).sum(), t, create_graph=True, **kw)
    v = np.ones(tuple(t.shape)) if v is None else np.asarray(v, dtype=np.float64)
    if g.requires_grad:
        (h,) = mod.autograd.grad((g * mod.tensor(v, dtype=t.dtype)).sum(), t, **kw)
    else:  # a gradient that does not depend on x (piecewise linear functions)
        h = mod.zeros(tuple(t.shape), dtype=t.dtype)
    # (+ 0: PyTorch's zero gradients can be ZeroTensors, which .numpy() refuses)
    return [(a.detach() + 0).numpy().astype(np.float64) for a in (out, g, h)]


def _assert_like_torch(f, x, dtype, w=None, v=None):
    torch = requires("torch")
    ours = _grads(fg, f, x, dtype, w, v)
    theirs = _grads(torch, f, x, dtype, w, v)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for what, a, b in zip(("value", "gradient", "second order"), ours, theirs, strict=True):
        assert a.shape == b.shape, (what, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


# --- det at singular matrices ------------------------------------------------------


def _exact_det(m):
    n = len(m)
    if n == 0:
        return Fraction(1)
    return sum(
        (-1) ** j * m[0][j] * _exact_det([row[:j] + row[j + 1 :] for row in m[1:]])
        for j in range(n)
        if m[0][j]
    )


def _exact_cofactors(m):
    n = len(m)
    return [
        [
            (-1) ** (i + j) * _exact_det([r[:j] + r[j + 1 :] for k, r in enumerate(m) if k != i])
            for j in range(n)
        ]
        for i in range(n)
    ]


def _exact_hvp(m, v):
    # det is affine in each single entry, so each cofactor is too: the derivative of
    # sum(v * cofactors) along entry (k, l) is its value at x_kl = 1 minus that at 0
    n = len(m)

    def weighted(entry):
        c = _exact_cofactors(entry)
        return sum(v[i][j] * c[i][j] for i in range(n) for j in range(n))

    out = [[Fraction(0)] * n for _ in range(n)]
    for k, c in itertools.product(range(n), repeat=2):
        one = [row[:] for row in m]
        zero = [row[:] for row in m]
        one[k][c], zero[k][c] = Fraction(1), Fraction(0)
        out[k][c] = weighted(one) - weighted(zero)
    return out


SINGULAR = [
    [[1.0, 2.0], [2.0, 4.0]],
    [[0.0, 0.0], [0.0, 0.0]],
    [[0.0]],
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],  # rank 2
    [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]],  # rank 1
    np.zeros((3, 3)).tolist(),  # rank 0: the cofactors are 0, their derivatives too
    [[2.0, 0.0, 0.0, 1.0], [0.0, 0.0, 3.0, 0.0], [4.0, 0.0, 0.0, 2.0], [0.0, 5.0, 0.0, 0.0]],
]


@pytest.mark.parametrize("m", SINGULAR, ids=range(len(SINGULAR)))
def test_det_gradient_at_singular_matrix_is_the_exact_cofactor_matrix(m):
    exact = [[Fraction(int(a)) for a in row] for row in m]
    n = len(m)
    v = np.arange(1.0, n * n + 1).reshape(n, n)
    grad = fg.grad(fnp.linalg.det)(np.array(m))
    exact_grad = np.array(_exact_cofactors(exact), dtype=float)
    np.testing.assert_allclose(grad, exact_grad, rtol=1e-12, atol=1e-12)  # LU rounds
    hvp = fg.grad(lambda a: fnp.sum(fg.grad(fnp.linalg.det)(a) * v))(np.array(m))
    exact_v = [[Fraction(int(a)) for a in row] for row in v]
    np.testing.assert_allclose(hvp, np.array(_exact_hvp(exact, exact_v), dtype=float), atol=1e-12)
    # forward mode: <cofactors, tangent>
    _, tangent = fg.jvp(fnp.linalg.det, (np.array(m),), (v,))
    assert tangent == pytest.approx(float(np.sum(np.array(_exact_cofactors(exact), float) * v)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_det_of_singular_matrices_matches_torch(dtype):
    # PyTorch's second order at these two is finite (at a rank-0 3x3 it is NaN, funcgrad 0)
    for m in (SINGULAR[0], SINGULAR[3]):
        _assert_like_torch(
            lambda mod, a: mod.det(a), m, dtype, v=np.arange(len(m) ** 2.0).reshape(len(m), -1)
        )
    batch = [[[2.0, 1.0], [0.5, 3.0]], [[1.0, 2.0], [2.0, 4.0]]]  # one regular, one singular
    _assert_like_torch(lambda mod, a: mod.det(a), batch, dtype, w=[2.0, -1.0])


def test_det_gradient_of_a_regular_matrix_is_unchanged():
    x = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 1.0, 4.0]])
    expected = np.linalg.det(x) * np.linalg.inv(x).T
    np.testing.assert_allclose(fg.grad(fnp.linalg.det)(x), expected, rtol=1e-12)


def test_logabsdet_at_singular_matrix_raises_naming_the_operation():
    with pytest.raises(fg.errors.NotDifferentiableError, match="logabsdet"):
        fg.grad(lambda a: fnp.linalg.slogdet(a).logabsdet)(np.array(SINGULAR[0]))


# --- max(dim) / min(dim): the gradient goes to the returned index -----------------


TIES = [[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 5.0], [-INF, -INF, 0.0, -1.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_with_dim_send_the_gradient_to_the_returned_index(dtype, name, dim, keepdim):
    torch = requires("torch")
    w = np.arange(1.0, 4.0) if dim in (1, -1) else np.arange(1.0, 5.0)  # TIES is 3 x 4
    w = w.reshape((1, -1) if dim in (0, -2) else (-1, 1)) if keepdim else w

    def f(mod, a):
        return getattr(mod, name)(a, dim, keepdim=keepdim).values

    _assert_like_torch(f, TIES, dtype, w=w)
    # and funcgrad's own indices pick the entry that gets the gradient
    t = fg.tensor(TIES, dtype=getattr(fg, dtype), requires_grad=True)
    values, indices = getattr(t, name)(dim, keepdim)
    values.sum().backward()
    picked = np.zeros(t.shape)
    np.put_along_axis(
        picked, indices.numpy() if keepdim else np.expand_dims(indices.numpy(), dim), 1.0, dim
    )
    np.testing.assert_array_equal(t.grad.numpy(), picked)
    ref = getattr(torch.tensor(TIES, dtype=getattr(torch, dtype)), name)(dim, keepdim)
    np.testing.assert_array_equal(indices.numpy(), ref.indices.numpy())


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_over_all_elements_share_the_gradient_among_ties(name):
    # torch.max(x) (no dim) and the functional fnp.max share it evenly
    _assert_like_torch(lambda mod, a: getattr(mod, name)(a), [[2.0, 2.0], [2.0, 0.0]], "float64")
    x = np.array([[4.0, 4.0, 1.0]]) * (1.0 if name == "max" else -1.0)
    grad = fg.grad(lambda a: getattr(fnp, name)(a, axis=1).sum())(x)
    np.testing.assert_array_equal(grad, [[0.5, 0.5, 0.0]])


def test_max_with_dim_of_a_0d_tensor():
    _assert_like_torch(lambda mod, a: mod.max(a, 0).values, 2.5, "float64")


# --- cumsum of a 0-d tensor ----------------------------------------------------------


@pytest.mark.parametrize("dim", [0, -1])
def test_cumsum_of_0d_tensor_stays_0d(dim):
    _assert_like_torch(lambda mod, a: mod.cumsum(a * a, dim), 3.0, "float64")
    _assert_like_torch(lambda mod, a: (a * a).cumsum(dim), 3.0, "float32")


def test_cumsum_of_0d_along_a_bad_axis_raises():
    with pytest.raises(IndexError, match="cumsum"):
        fg.tensor(2.0).cumsum(1)


def test_functional_cumsum_of_0d_without_axis_flattens_as_numpy():
    assert fnp.cumsum(np.float64(2.0)).shape == np.cumsum(np.float64(2.0)).shape == (1,)
    assert fg.grad(lambda a: fnp.sum(fnp.cumsum(a) * 3.0))(2.0) == 3.0


# --- softmax and logsumexp with +inf -------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "x", [[INF, 1.0], [INF, INF, 0.0], [-INF, INF], [float("nan"), 1.0], [[INF, 1.0], [1.0, 2.0]]]
)
def test_softmax_and_log_softmax_of_a_slice_with_inf_or_nan_match_torch(dtype, x):
    w = np.arange(1.0, np.size(x) + 1).reshape(np.shape(x))
    _assert_like_torch(lambda mod, a: mod.softmax(a, -1), x, dtype, w=w)
    _assert_like_torch(lambda mod, a: mod.log_softmax(a, -1), x, dtype, w=w)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "x", [[INF, 1.0, 2.0], [INF, INF], [-INF, 1.0, 2.0], [[INF, 0.0], [1.0, 2.0]]]
)
def test_logsumexp_with_inf_matches_torch(dtype, x):
    _assert_like_torch(lambda mod, a: mod.logsumexp(a, -1), x, dtype)


def test_logsumexp_gradient_of_large_values_keeps_float32_digits():
    x = np.array([1000.0, 1000.5, 999.0], dtype=np.float32)
    _assert_like_torch(lambda mod, a: mod.logsumexp(a, 0), x, "float32", v=[1.0, -2.0, 0.5])


# --- torch.norm with several dims is a vector norm -----------------------------------


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, INF, -INF, -1])
@pytest.mark.parametrize("dim", [(0, 1), (1, 0), (-1, 0), (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm_with_several_dims_is_the_vector_norm_over_them(p, dim, keepdim):
    x = np.arange(24.0).reshape(2, 3, 4) - 11.5
    _assert_like_torch(lambda mod, a: mod.norm(a, p, dim=dim, keepdim=keepdim), x, "float64")
    _assert_like_torch(lambda mod, a: a.norm(p, dim, keepdim), x, "float32")


def test_norm_with_several_dims_and_zeros_matches_torch_to_first_order():
    torch = requires("torch")
    x = np.array([[3.0, -4.0, 0.0, 4.0], [3.0, -4.0, 0.0, 4.0]])
    for p in (1, INF, 2):
        ours = fg.tensor(x, requires_grad=True)
        theirs = torch.tensor(x, requires_grad=True)
        fg.norm(ours, p, dim=(0, 1)).backward()
        torch.norm(theirs, p, dim=(0, 1)).backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


# --- 0-d tensors take dim 0 and -1 -------------------------------------------------


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_of_a_0d_tensor_along_dim_0_match_torch(dim, keepdim):
    for f in (
        lambda m, a: a.mean(dim, keepdim=keepdim),
        lambda m, a: m.var(a, dim, keepdim=keepdim, correction=0),
        lambda m, a: m.std(a, dim, keepdim=keepdim, correction=0),
        lambda m, a: a.prod(dim, keepdim=keepdim),
        lambda m, a: m.logsumexp(a, dim, keepdim=keepdim),
    ):
        _assert_like_torch(f, 0.75, "float64")
    for p in (0, 1, 2, 3, 0.5, INF, -INF, -1):
        _assert_like_torch(
            lambda m, a, p=p: m.norm(a, p, dim=dim, keepdim=keepdim), -0.75, "float32"
        )


def test_var_of_a_0d_tensor_with_correction_1_is_nan_as_in_torch():
    torch = requires("torch")
    ours = fg.var(fg.tensor(0.75, requires_grad=True), 0)
    theirs = torch.var(torch.tensor(0.75, requires_grad=True), 0)
    assert np.isnan(ours.item()) and np.isnan(theirs.item())


# --- prod with zeros, var with a large offset (exact references) --------------------


@pytest.mark.parametrize(
    "x",
    [[2.0, 0.0, 3.0, -1.5], [2.0, 0.0, 0.0, 3.0], [0.0, 0.0, 0.0, 5.0], [0.0, 0.0, 0.0, 0.0]],
)
def test_prod_gradient_and_hessian_with_zeros_are_exact(x):
    # prod is affine in each entry: d/dx_i = prod of the others, d2/dx_i dx_j likewise
    x = np.array(x)
    n = len(x)
    exact_grad = [np.prod(np.delete(x, i)) for i in range(n)]
    exact_hess = [
        [0.0 if i == j else np.prod(np.delete(x, [i, j])) for j in range(n)] for i in range(n)
    ]
    np.testing.assert_array_equal(fg.grad(fnp.prod)(x), exact_grad)
    np.testing.assert_array_equal(fg.hessian(fnp.prod)(x), exact_hess)
    for dtype in ("float32", "float64"):
        _assert_like_torch(lambda m, a: a.prod(), x, dtype, v=np.arange(1.0, n + 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_var_and_std_with_a_large_offset_match_torch(dtype):
    x = [1e8 + 1, 1e8 + 2, 1e8 + 3]
    for correction in (0, 1):
        _assert_like_torch(lambda m, a, c=correction: m.var(a, correction=c), x, dtype)
        _assert_like_torch(lambda m, a, c=correction: m.std(a, correction=c), x, dtype)
    if dtype == "float64":  # exactly representable: var 1, gradient 2 (x - mean) / 2
        np.testing.assert_array_equal(
            fg.grad(lambda a: fnp.var(a, ddof=1))(np.array(x)), [-1, 0, 1]
        )


def test_logsumexp_gradient_in_float32_is_the_float64_softmax_rounded():
    # NOTE: deliberately more accurate than PyTorch, whose exp(x - out) loses digits
    x = np.array([10000.160075892534, 9997.862175641909, 9999.998433066854], dtype=np.float32)
    t = fg.tensor(x, requires_grad=True)
    fg.logsumexp(t, 0).backward()
    x64 = x.astype(np.float64)
    exact = np.exp(x64 - x64.max()) / np.exp(x64 - x64.max()).sum()
    np.testing.assert_allclose(t.grad.numpy(), exact, rtol=2e-7)


@pytest.mark.parametrize("axis", [None, 0])
def test_float16_mean_gradient_over_more_than_65504_entries(axis):
    # NumPy would make the count float16's inf and the gradient zeros; PyTorch divides in float32.
    torch = requires("torch")
    x = np.ones((70000, 2), dtype=np.float16)
    got = fg.grad(lambda x: fnp.sum(fnp.mean(x, axis=axis)))(x)
    t = torch.ones(70000, 2, dtype=torch.float16, requires_grad=True)
    (t.mean() if axis is None else t.mean(axis).sum()).backward()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, t.grad.numpy())
    assert got[0, 0] > 0
