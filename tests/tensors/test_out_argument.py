"""PyTorch's `out=` argument: the result is written into the given tensor, which is returned.

Checked against PyTorch 2.13: the values, the identity of the returned tensor,
the cast to `out`'s dtype, the resize (with PyTorch's warning), and the
refusals (a tensor that requires grad, a dtype that cannot be cast).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

A = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], dtype=np.float32)
B = np.array([[0.5, 4.0, -2.0], [1.0, -3.0, 2.0]], dtype=np.float32)
SQ = np.array([[1.0, 2.0], [-0.5, 3.0]], dtype=np.float32)

CALLS = {
    "add": lambda t, a, b, **o: t.add(a, b, alpha=2, **o),
    "sub": lambda t, a, b, **o: t.sub(a, b, **o),
    "div": lambda t, a, b, **o: t.div(a, b, **o),
    "div floor": lambda t, a, b, **o: t.div(a, b, rounding_mode="floor", **o),
    "mul": lambda t, a, b, **o: t.mul(a, b, **o),
    "matmul": lambda t, a, b, **o: t.matmul(a, b.T, **o),
    "mm": lambda t, a, b, **o: t.mm(a, b.T, **o),
    "bmm": lambda t, a, b, **o: t.bmm(a[None], b.T[None], **o),
    "maximum": lambda t, a, b, **o: t.maximum(a, b, **o),
    "exp": lambda t, a, b, **o: t.exp(a, **o),
    "cat": lambda t, a, b, **o: t.cat([a, b], dim=1, **o),
    "stack": lambda t, a, b, **o: t.stack([a, b], **o),
    "tensordot": lambda t, a, b, **o: t.tensordot(a, b.T, dims=1, **o),
}


@pytest.mark.parametrize("name", CALLS)
def test_out_gets_the_result_and_is_returned(name):
    call = CALLS[name]
    theirs = call(torch, torch.tensor(A), torch.tensor(B))
    our_out = fg.zeros(*theirs.shape)
    view = our_out.numpy()  # a NumPy array sharing the out tensor's memory sees the write
    returned = call(fg, fg.tensor(A), fg.tensor(B), out=our_out)
    assert returned is our_out
    their_out = torch.zeros(*theirs.shape)
    assert call(torch, torch.tensor(A), torch.tensor(B), out=their_out) is their_out
    np.testing.assert_allclose(our_out.numpy(), their_out.numpy(), rtol=1e-6)
    np.testing.assert_allclose(view, their_out.numpy(), rtol=1e-6)


def test_out_casts_to_its_dtype_where_pytorch_allows():
    for lib in (fg, torch):
        out = lib.zeros(2, 3, dtype=lib.float64)
        lib.add(lib.tensor(A), lib.tensor(B), out=out)
        assert out.dtype == lib.float64
    np.testing.assert_array_equal(out.numpy(), (A.astype(np.float64) + B))
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        torch.add(torch.tensor(A), torch.tensor(B), out=torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(
        RuntimeError,
        match=r"funcgrad.add\(\): result type Float can't be cast to the desired output type Long",
    ):
        fg.add(fg.tensor(A), fg.tensor(B), out=fg.zeros(2, 3, dtype=fg.long))


def test_out_of_another_shape_is_resized_with_pytorchs_warning():
    for lib in (fg, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.zeros(5)
            assert lib.mul(lib.tensor(A), lib.tensor(B), out=out) is out
            empty = lib.zeros(0)
            lib.mul(lib.tensor(A), lib.tensor(B), out=empty)
        assert tuple(out.shape) == tuple(empty.shape) == (2, 3)
        np.testing.assert_array_equal(out.numpy(), A * B)
        messages = [str(w.message) for w in caught]
        assert len(messages) == 1 and messages[0].startswith(
            "An output with one or more elements was resized since it had shape [5], which "
            "does not match the required output shape [2, 3]."
        )


def test_out_refuses_differentiation_as_pytorch_does():
    for lib, prefix in ((torch, ""), (fg, "funcgrad.")):
        x = lib.tensor(A, requires_grad=True)
        with pytest.raises(
            RuntimeError,
            match=rf"{prefix}mul\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
        ):
            lib.mul(x, 2.0, out=lib.zeros(2, 3))
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.add(lib.tensor(A), 1.0, out=lib.zeros(2, 3, requires_grad=True))
        with lib.no_grad():
            out = lib.zeros(2, 3)
            lib.mul(x, 2.0, out=out)
        assert not out.requires_grad
        np.testing.assert_array_equal(out.numpy(), A * 2)


def test_out_into_a_view_writes_the_base_and_itself():
    for lib in (fg, torch):
        base = lib.zeros(4)
        lib.add(lib.ones(2), 1, out=base[1:3])
        assert base.tolist() == [0.0, 2.0, 2.0, 0.0]
        out = lib.ones(2, 2)
        assert lib.add(out, 1, out=out).tolist() == [[2.0, 2.0], [2.0, 2.0]]  # out is an input
    with pytest.raises(RuntimeError, match="funcgrad does not resize a view"):
        fg.add(fg.ones(3), 1, out=fg.zeros(4)[:2])
    with pytest.raises(
        TypeError, match=r"funcgrad.add\(\): argument 'out' must be Tensor, not list"
    ):
        fg.add(fg.ones(2), 1, out=[0, 0])


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_draws_go_into_out_in_its_dtype(name):
    for lib in (fg, torch):
        out = lib.zeros(2, 2, dtype=lib.float64)
        shared = out.numpy()
        assert getattr(lib, name)(2, 2, out=out) is out
        assert out.dtype == lib.float64 and tuple(out.shape) == (2, 2)
        assert np.all(shared == out.numpy()) and np.unique(shared).size == 4  # written, all drawn
        if name == "rand":
            assert ((out >= 0) & (out < 1)).all()
        error = RuntimeError if lib is torch else fg.errors.DtypeError  # docs: diff-exception-types
        with pytest.raises(error, match='check_uniform_bounds" not implemented for'):
            lib.rand(2, out=lib.zeros(2, dtype=lib.long))
    fg.manual_seed(3)
    expected = fg.rand(3)
    fg.manual_seed(3)
    out = fg.empty(3)
    np.testing.assert_array_equal(fg.rand(3, out=out).numpy(), expected.numpy())  # the same stream


@pytest.mark.parametrize("name", ["rand", "randn", "add"])
def test_the_resize_warning_names_the_callers_line(name):
    # rand's and randn's out= go through one helper more than add's: each names this file
    args = {"rand": (2, 2), "randn": (2, 2), "add": (fg.ones(2, 2), 1.0)}[name]
    with pytest.warns(UserWarning, match="resized") as caught:
        getattr(fg, name)(*args, out=fg.empty(1))
    assert [w.filename for w in caught] == [__file__]
