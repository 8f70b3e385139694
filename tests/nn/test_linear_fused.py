"""When `F.linear` records the one `linear` primitive (`_fused`), and the `grad_fn` it then shows.

A matrix input, a 2-D weight and a bias of one entry per output, all real
floating point, take the fused primitive; anything else takes matmul and
add. The tensor layer's `grad_fn` names are checked against PyTorch 2.13's.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.nn.functional as F
from funcgrad.graph import Node
from tests.references import requires

torch = requires("torch")

rng = np.random.default_rng(11)
X2, X3 = rng.standard_normal((4, 3)), rng.standard_normal((2, 4, 3))
W, B = rng.standard_normal((5, 3)), rng.standard_normal(5)


@pytest.mark.parametrize(
    "x, w, b, fused",
    [
        (X2, W, B, True),
        (X2.astype(np.float32), W.astype(np.float32), B.astype(np.float32), True),
        (X3, W, B, False),  # a batch of matrices
        (X2, W, np.float64(0.5), False),  # a scalar bias
        (X2, W, B[:1], False),  # a bias that broadcasts
        (X2, W[0], np.float64(0.5), False),  # a weight of one output without its axis
        (X2 + 0j, W, B, False),  # complex
        (np.arange(12).reshape(4, 3), np.arange(15).reshape(5, 3), np.arange(5), False),  # ints
    ],
)
def test_fused_exactly_for_real_float_matrices_with_a_bias_per_output(x, w, b, fused):
    recorded = []

    def f(x):
        recorded.append(F.linear(x, w, b))
        return fg.numpy.sum(fg.numpy.real(recorded[-1]))

    fg.grad(f)(x.astype(np.result_type(x, np.float64)) if x.dtype.kind in "iu" else x)
    node = recorded[0]
    assert type(node) is Node
    assert (node.prim.name == "linear") is fused
    expected = np.matmul(x, w.T if w.ndim == 2 else w) + b
    np.testing.assert_allclose(F.linear(x, w, b), expected, rtol=1e-12)


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("with_bias", [True, False])
def test_grad_fn_is_pytorchs(ndim, with_bias):
    x = X2 if ndim == 2 else X3
    ours = F.linear(
        fg.tensor(x, requires_grad=True),
        fg.tensor(W, requires_grad=True),
        fg.tensor(B, requires_grad=True) if with_bias else None,
    )
    theirs = torch.nn.functional.linear(
        torch.tensor(x, requires_grad=True),
        torch.tensor(W, requires_grad=True),
        torch.tensor(B, requires_grad=True) if with_bias else None,
    )
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "ct F", "x F", "w F"])
def test_linear_rules_on_numpy_matrices_are_the_primitives_bit_for_bit(dtype, layout):
    # the rules' NumPy calls against the primitives they stand for (sum_, matmul, _mT)
    from funcgrad.ops.linalg import _mT, linear, matmul
    from funcgrad.ops.reduce import sum_

    r = np.random.default_rng(12)
    x = r.standard_normal((37, 29)).astype(dtype)
    w = r.standard_normal((23, 29)).astype(dtype)
    b = r.standard_normal(23).astype(dtype)
    ct = r.standard_normal((37, 23)).astype(dtype)
    if layout == "ct F":
        ct = np.asfortranarray(ct)
    elif layout == "x F":
        x = np.asfortranarray(x)
    elif layout == "w F":
        w = np.asfortranarray(w)
    out = linear(b, x, w)
    expected = (sum_(ct, axis=0, keepdims=False), matmul(ct, w), matmul(_mT(ct), x))
    for rule, want in zip(linear.vjp, expected, strict=True):
        got = rule(ct, out, b, x, w)
        assert type(got) is np.ndarray and got.dtype == want.dtype
        assert got.shape == want.shape and got.flags.c_contiguous == want.flags.c_contiguous
        assert np.array_equal(got, want)


def _fused_by_definition(x, w, b) -> bool:
    # the definition (shapes, then every operand's dtype of kind "f"), read the slow way
    def shape(v):
        return tuple(getattr(v, "shape", ()))

    def real_float(v):
        dtype = getattr(getattr(v, "_value", v), "dtype", None)
        return dtype is not None and getattr(dtype, "kind", None) == "f"

    ws = shape(w)
    return (
        len(ws) == 2
        and len(shape(x)) == 2
        and shape(b) == (ws[0],)
        and all(real_float(v) for v in (x, w, b))
    )


@pytest.mark.parametrize("kind", ["array", "node", "tensor", "parameter"])
@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.complex64, np.int64, np.bool_]
)
def test_fused_check_is_its_definition(kind, dtype):
    from funcgrad.graph.node import leaf
    from funcgrad.nn.functional._linear import _fused

    def make(a):
        if kind == "node" and a.dtype.kind in "fc":  # leaves hold floating point only
            return leaf(a)
        if kind == "tensor":
            return fg.from_numpy(a)
        if kind == "parameter":
            return fg.nn.Parameter(fg.from_numpy(a), requires_grad=False)
        return a

    x, w, b = (make(a.astype(dtype)) for a in (X2, W, B))
    f64 = np.float64
    cases = [
        (x, w, b),
        (x, w, B.astype(f64)),  # one operand of another dtype
        (X2.astype(f64), w, b),
        (x, w, 0.5),  # a number
        (x, w, [0.0] * 5),  # a list
        (x, w, B[:1].astype(dtype)),  # a bias that broadcasts
        (X3.astype(dtype), w, b),  # a batch of matrices
    ]
    for case in cases:
        assert _fused(*case) == _fused_by_definition(*case), case
