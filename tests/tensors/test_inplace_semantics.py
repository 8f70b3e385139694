"""In-place operations, `.grad` accumulation, iteration and copying, against PyTorch.

Each test runs one program on PyTorch 2.13 (the reference) and on funcgrad,
then compares what both return: values, dtypes, `requires_grad`, gradients
(None stays None), or that both raise the same builtin error.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
from funcgrad.errors import FuncgradError
from tests.references import requires


def _plain(lib, out):
    """What a program returned, as plain Python/NumPy values comparable across libraries."""
    if isinstance(out, (list, tuple)):
        return [_plain(lib, o) for o in out]
    if isinstance(out, lib.Tensor):
        value = out.detach().cpu().numpy().copy()
        return ("tensor", str(value.dtype), bool(out.requires_grad), value)
    if isinstance(out, np.ndarray):
        return ("array", str(out.dtype), None, out.copy())
    if out is lib.float32 or out is lib.float64 or out is lib.int64:
        return ("dtype", str(out).rpartition(".")[2])
    return out


def _assert_same(got, expected, where="result"):
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for k, (g, e) in enumerate(zip(got, expected, strict=True)):
            _assert_same(g, e, f"{where}[{k}]")
    elif isinstance(expected, tuple) and expected[0] in ("tensor", "array"):
        assert isinstance(got, tuple) and got[:3] == expected[:3], (where, got, expected)
        rtol = {"float32": 1e-6, "float16": 1e-3}.get(expected[1], 1e-12)
        np.testing.assert_allclose(got[3], expected[3], rtol=rtol, atol=0, err_msg=where)
    else:
        assert got == expected, where


def same(program):
    """Run `program(lib)` on PyTorch and on funcgrad and assert both return the same."""
    torch = requires("torch")
    expected = _plain(torch, program(torch))
    got = _plain(funcgrad, program(funcgrad))
    _assert_same(got, expected)


def same_error(program, builtin):
    """Assert that `program(lib)` raises `builtin` in PyTorch, and a FuncgradError that is one here."""
    torch = requires("torch")
    with pytest.raises(builtin):
        program(torch)
    with pytest.raises(builtin) as info:
        program(funcgrad)
    assert isinstance(info.value, FuncgradError)
    return str(info.value)


# --- item 1: copy_ / fill_ / zero_ and in-place arithmetic keep the graph ---------------


def test_copy_from_a_recorded_source_into_a_non_leaf():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.copy_(x * x)
        y.sum().backward()
        return x.grad, y, y.is_leaf

    same(program)


def test_fill_with_a_0d_tensor_that_requires_grad():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        v = lib.tensor(3.0, requires_grad=True)
        y = x * 2
        y.fill_(v)
        y.sum().backward()
        return v.grad, x.grad, y  # x keeps a zero gradient through y's old history

    same(program)


def test_copy_into_a_plain_buffer_makes_it_part_of_the_graph():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        buf = lib.zeros(2)
        buf.copy_(x * 3)
        buf.sum().backward()
        return x.grad, buf, buf.is_leaf

    same(program)


def test_copy_broadcasts_the_source_and_casts_to_the_tensors_dtype():
    def program(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        buf = lib.zeros(3, 2)  # float32
        buf.copy_(x * 3)
        (buf * lib.arange(6.0).reshape(3, 2)).sum().backward()
        return buf, buf.dtype, x.grad, x.grad.dtype

    same(program)


def test_copy_of_a_recorded_float_source_into_an_integer_tensor_truncates():
    def program(lib):
        x = lib.tensor([1.2, 2.7], requires_grad=True)
        buf = lib.zeros(2, dtype=lib.int64)
        buf.copy_(x * 3)
        return buf, buf.requires_grad

    same(program)


def test_copy_and_fill_from_plain_values():
    def program(lib):
        a = lib.tensor([1, 2])
        a.copy_(lib.tensor([1.5, 2.5]))
        b = lib.tensor([1, 2])
        b.fill_(1.7)
        c = lib.zeros(2, 2)
        c.copy_(lib.tensor([1.0, 2.0], dtype=lib.float64))
        d = lib.ones(2)
        d.fill_(lib.tensor(4))
        return a, b, c, d

    same(program)


def test_copy_does_not_share_values_with_its_source():
    x = funcgrad.tensor([1.0, 2.0])
    y = funcgrad.zeros(2)
    y.copy_(x)
    assert not np.shares_memory(y.numpy(), x.numpy())
    x.numpy()[0] = 10.0
    assert y.tolist() == [1.0, 2.0]


def test_copy_under_no_grad_into_a_leaf_keeps_it_a_leaf():
    def program(lib):
        w = lib.zeros(2, requires_grad=True)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            w.copy_(x * 2)
        (w * w).sum().backward()
        return w.is_leaf, w.grad_fn is None, w.grad, x.grad

    same(program)


def test_zero_on_a_non_leaf_passes_zero_gradients():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.zero_()
        (y + x).sum().backward()
        return x.grad, y

    same(program)


def test_autograd_grad_sees_the_overwritten_history():
    def program(lib):
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        x = lib.tensor([3.0, 4.0], requires_grad=True)
        y = z * 2
        y.copy_(x * x)
        return lib.autograd.grad(y.sum(), [x, z])

    same(program)


@pytest.mark.parametrize("method", ["add_", "sub_", "mul_", "div_"])
def test_in_place_arithmetic_with_a_recorded_other(method):
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        o = lib.tensor([3.0, 4.0], requires_grad=True)
        y = x * 2
        getattr(y, method)(o)
        p = lib.tensor([5.0, 6.0])  # a plain tensor that becomes part of a graph
        getattr(p, method)(o)
        (y * p).sum().backward()
        return y, p, p.is_leaf, x.grad, o.grad

    same(program)


def test_augmented_assignment_with_a_recorded_other():
    def program(lib):
        o = lib.tensor([3.0, 4.0], requires_grad=True)
        acc = lib.zeros(2)
        acc += o * o
        acc *= o
        acc -= o
        acc /= 2
        acc.sum().backward()
        return acc, o.grad

    same(program)


# --- item 2: in-place operations keep the tensor's shape and dtype ----------------------


def test_in_place_cannot_change_the_shape():
    def program(lib):
        w = lib.ones(1, 2, requires_grad=True)
        with lib.no_grad():
            w -= 0.1 * lib.ones(2, 2)

    message = same_error(program, RuntimeError)
    assert "__isub__" in message and "output with shape [1, 2]" in message
    assert "doesn't match the broadcast shape [2, 2]" in message


@pytest.mark.parametrize(
    "op",
    [
        lambda lib, t: t.add_(lib.ones(2, 3)),
        lambda lib, t: t.mul_(lib.ones(3, 1)),
        lambda lib, t: t.copy_(lib.ones(2, 2)),
        lambda lib, t: t.copy_(lib.ones(2)),
        lambda lib, t: t.fill_(lib.ones(3)),
    ],
)
def test_in_place_shape_errors(op):
    message = same_error(lambda lib: op(lib, lib.ones(3)), RuntimeError)
    assert "funcgrad" in message and "[3]" in message


def test_a_broadcasting_other_keeps_the_shape():
    def program(lib):
        t = lib.ones(2, 3)
        t.add_(lib.tensor([1.0, 2.0, 3.0]))
        t.mul_(lib.tensor(2.0))
        t.sub_(lib.ones(2, 1))
        return t

    same(program)


def test_in_place_cannot_cast_float_to_integer():
    message = same_error(lambda lib: lib.tensor([1, 2]).add_(1.5), RuntimeError)
    assert "add_" in message and "can't be cast to the desired output type Long" in message
    same_error(lambda lib: lib.tensor([1, 2]).div_(2), RuntimeError)
    same_error(lambda lib: lib.tensor([True]).add_(1), RuntimeError)
    same_error(lambda lib: lib.tensor([1.0]).add_(1j), RuntimeError)


def test_in_place_casts_the_result_back_to_the_tensors_dtype():
    def program(lib):
        y = lib.ones(2, requires_grad=True) * 1
        o = lib.ones(2, dtype=lib.float64, requires_grad=True)
        y.add_(o * 3)
        (y * y).sum().backward()
        t = lib.tensor([1, 2])
        t.add_(lib.tensor([1, 2], dtype=lib.int8))
        s = lib.tensor([1, 2], dtype=lib.int8)
        s.add_(lib.tensor([1000, 2]))  # wraps around, as the cast does in PyTorch
        f = lib.tensor([1.0, 2.0])
        f += np.float64(0.5)
        f.mul_(lib.tensor(2.0, dtype=lib.float64))
        return y, y.dtype, o.grad, o.grad.dtype, t, s, f, f.dtype

    same(program)
