"""W4's gradients (issue 18) are hand-written NumPy's, bit for bit, on every path.

`sum(tanh(X @ W1) @ W2)`: `sum`'s VJP hands matmul a broadcast cotangent
(strides 0), which NumPy's matmul copies for BLAS inside the call; its
products equal those of a contiguous `np.ones` cotangent, so funcgrad's
functional path, `Tensor.backward` and a jit plan (which computes tanh and
the VJP's temporaries in place) give hand-written NumPy's numbers exactly.
A broadcast cotangent along rows only (`sum(..., axis=0)`) is checked against
the formula, and float32 against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import linalg
from tests.references import requires

# W4's workload at a smaller size: the tanh has 128 * 96 entries, so its VJP takes the
# in-place path (elementwise._IN_PLACE_SIZE) as W4's does.
SHAPES = ((128, 64), (64, 96), (96, 48))


def _operands(dtype):
    rng = np.random.default_rng(18)
    return [fg.freeze((rng.standard_normal(s) / 8).astype(dtype)) for s in SHAPES]


def _by_hand(X, W1, W2):
    # W4's NumPy by hand (benchmarks/workloads.py)
    A = np.tanh(X @ W1)
    value = np.sum(A @ W2)
    ct = np.ones((X.shape[0], W2.shape[1]), X.dtype)
    dW2 = A.T @ ct
    dH = (ct @ W2.T) * (1.0 - A * A)
    return value, X.T @ dH, dW2


def _loss_of(X):
    return lambda w1, w2: fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2))


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_w4_gradients_are_hand_written_numpys_bit_for_bit(dtype):
    X, W1, W2 = _operands(dtype)
    value, dW1, dW2 = _by_hand(X, W1, W2)
    v, (g1, g2) = fg.value_and_grad(_loss_of(X), argnums=(0, 1))(W1, W2)
    assert _same_bits(v, value) and _same_bits(g1, dW1) and _same_bits(g2, dW2)

    t1, t2 = fg.tensor(W1, requires_grad=True), fg.tensor(W2, requires_grad=True)
    (fg.tanh(fg.from_numpy(X) @ t1) @ t2).sum().backward()
    assert _same_bits(t1.grad.numpy(), dW1) and _same_bits(t2.grad.numpy(), dW2)

    step = fg.jit(fg.value_and_grad(_loss_of(X), argnums=(0, 1)))
    for _ in range(2):  # the trace, then the plan
        v, (g1, g2) = step(W1, W2)
        assert _same_bits(v, value) and _same_bits(g1, dW1) and _same_bits(g2, dW2)


def test_a_row_broadcast_cotangent_gives_the_formula():
    # sum over axis 0 with a vector cotangent v: the matmul's cotangent is v broadcast
    # along the rows (strides (0, 8)); d/dX <v, sum(X @ W, 0)> = rows of W @ v
    rng = np.random.default_rng(5)
    X, W = rng.standard_normal((100, 100)), rng.standard_normal((100, 100))
    v = rng.standard_normal(100)
    _, pull = fg.vjp(lambda x: fnp.sum(fnp.matmul(x, W), axis=0), X)
    (dX,) = pull(v)
    np.testing.assert_allclose(dX, np.tile(W @ v, (100, 1)), rtol=1e-12, atol=1e-12)
    _, pull = fg.vjp(lambda w: fnp.sum(fnp.matmul(X, w), axis=0), W)
    (dW,) = pull(v)
    np.testing.assert_allclose(dW, np.outer(X.sum(axis=0), v), rtol=1e-12, atol=1e-12)


def test_w4_float32_gradients_match_pytorch():
    torch = requires("torch")
    X, W1, W2 = _operands(np.float32)
    v, (g1, g2) = fg.value_and_grad(_loss_of(X), argnums=(0, 1))(W1, W2)
    tW1 = torch.from_numpy(np.array(W1)).requires_grad_()
    tW2 = torch.from_numpy(np.array(W2)).requires_grad_()
    y = (torch.tanh(torch.from_numpy(np.array(X)) @ tW1) @ tW2).sum()
    y.backward()
    assert g1.dtype == g2.dtype == np.float32
    np.testing.assert_allclose(v, y.item(), rtol=1e-5)
    np.testing.assert_allclose(g1, tW1.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g2, tW2.grad.numpy(), rtol=1e-4, atol=1e-5)


# --- matmul's first-order rules on NumPy matrices: one numpy.matmul call each -----------


def _rules(ct, x, y):
    out = x @ y
    return linalg._matmul_vjp_x(ct, out, x, y), linalg._matmul_vjp_y(ct, out, x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("layout", ["C", "y transposed", "x transposed", "ct broadcast"])
def test_the_matrix_rules_fast_path_is_the_general_path_bit_for_bit(dtype, layout, monkeypatch):
    rng = np.random.default_rng(7)

    def draw(*shape):
        a = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            a = a + 1j * rng.standard_normal(shape)
        return a.astype(dtype)

    x, y, ct = draw(33, 20), draw(20, 17), draw(33, 17)
    if layout == "y transposed":  # linear's weight.T: column-major
        y = draw(17, 20).T
    elif layout == "x transposed":
        x = draw(20, 33).T
    elif layout == "ct broadcast":
        ct = np.broadcast_to(draw(17), (33, 17))
    fast = _rules(ct, x, y)
    monkeypatch.setattr(linalg, "_ndarray", type(None))  # the general path
    general = _rules(ct, x, y)
    for f, g in zip(fast, general, strict=True):
        assert _same_bits(f, g)
        assert f.flags.c_contiguous == g.flags.c_contiguous  # the same layout too
    if layout == "y transposed":
        assert fast[1].flags.f_contiguous  # y's cotangent transposes back to row-major


def test_the_matrix_rules_under_a_profiler_take_the_general_path():
    # the profiler sees the rules' matmul and transpose calls as before
    X, W1, W2 = _operands(np.float64)
    with fg.autograd.profiler.profile() as prof:
        fg.value_and_grad(_loss_of(X), argnums=(0, 1))(W1, W2)
    names = [e.name for e in prof.function_events]
    assert names.count("matmul") >= 4 and "transpose" in names
