"""`funcgrad.autograd.gradcheck` / `gradgradcheck`: what they accept, catch and print."""

from __future__ import annotations

import re

import numpy as np
import pytest

import funcgrad as torch
from funcgrad.autograd import Function, gradcheck, gradgradcheck
from funcgrad.autograd.checks import GradcheckError, _random_grad_output
from tests.references import requires


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


class ScaledSquare(Function):
    """scale * x ** 2, with a backward that is wrong by `error` (relative)."""

    error = 0.0

    @classmethod
    def make(cls, error):
        return type(f"ScaledSquare{error}", (cls,), {"error": error})

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * scale

    @classmethod
    def backward(cls, ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x * ctx.scale * (1 + cls.error), None


# --- passing checks -------------------------------------------------------------------


def test_correct_gradients_pass():
    x = f64([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    y = f64([1.5, -0.5, 0.25])
    assert gradcheck(lambda a: (a.exp() * a.sin()).sum(1), (x,))
    assert gradcheck(lambda a, b: a * b, (x, y))  # broadcasting
    assert gradcheck(lambda a, b: (a @ b, a.tanh()), (x, y))  # two outputs
    assert gradcheck(torch.sigmoid, x)  # a single tensor as inputs


def test_non_tensor_and_constant_inputs():
    x = f64([0.5, 1.5])
    w = f64([2.0, 3.0], requires_grad=False)
    assert gradcheck(lambda a, k, c: (a**k) * c, (x, 3, w))
    assert gradcheck(ScaledSquare.apply, (x, 4.0))


def test_integer_and_non_tensor_outputs_are_ignored():
    x = f64([0.5, 3.0, 1.5])
    assert gradcheck(lambda a: (a * 2, a.argmax(), "label"), (x,))


def test_float32_inputs_are_checked_on_float64_copies():
    x = torch.tensor([0.3, -0.2, 0.9], requires_grad=True)  # float32
    before = x.tolist()
    assert gradcheck(lambda a: (a * a * a).sin(), (x,))
    assert x.dtype == np.float32 and x.tolist() == before and x.grad is None
    seen = []
    gradcheck(lambda a: seen.append(a.dtype) or a * 2, (x,))
    assert set(seen) == {np.dtype(np.float64)}


def test_callers_tensors_are_untouched():
    x = f64([1.0, 2.0])
    x.grad = f64([7.0, 7.0], requires_grad=False)
    assert gradcheck(lambda a: a * a, (x,))
    assert x.grad.tolist() == [7.0, 7.0] and x.tolist() == [1.0, 2.0]


def test_tolerances():
    x = f64([1.0, 2.0])
    slightly_wrong = ScaledSquare.make(1e-4)
    assert gradcheck(slightly_wrong.apply, (x, 1.0))  # within rtol=1e-3
    assert not gradcheck(
        slightly_wrong.apply, (x, 1.0), rtol=1e-6, atol=1e-8, raise_exception=False
    )
    assert gradcheck(slightly_wrong.apply, (x, 1.0), 1e-6, 1e-2, 0.0)  # positional, 0.3 style


def test_fast_mode():
    x = f64([[0.5, -1.0], [2.0, 0.1]])
    assert gradcheck(lambda a: a.exp() @ a, (x,), fast_mode=True)
    assert (
        gradcheck(ScaledSquare.make(0.1).apply, (x, 2.0), fast_mode=True, raise_exception=False)
        is False
    )
    with pytest.raises(GradcheckError, match=r"fast mode: u\^T J v"):
        gradcheck(ScaledSquare.make(0.1).apply, (x, 2.0), fast_mode=True)


# --- failures and their messages ---------------------------------------------------------


def test_failure_message_shows_both_jacobians_and_the_worst_element():
    x = f64([1.0, 2.0])
    with pytest.raises(GradcheckError) as info:
        gradcheck(ScaledSquare.make(0.5).apply, (x, 1.0))
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert (
        "Jacobian mismatch for output 0 with respect to input 0: 2 of 4 elements differ." in message
    )
    # d(x^2)/dx = diag(2, 4); the backward gives 1.5 times that.
    lines = message.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("numerical:"))
    assert re.fullmatch(r"numerical:\s+analytical:", lines[header])
    assert re.fullmatch(r"\[\[2\., 0\.\],\s+\[\[3\., 0\.\],", lines[header + 1])
    assert re.fullmatch(r" \[0\., 4\.\]\]\s+\[0\., 6\.\]\]", lines[header + 2])
    worst = next(line for line in lines if line.startswith("worst element"))
    assert worst.startswith("worst element: J[1, 1] = d output0[1] / d input0[1]: numerical 4.0")
    assert "analytical 6.0" in worst
    assert "atol + rtol * |numerical| = 1e-05 + 0.001 * 4 = 0.00401" in worst


def test_every_mismatching_pair_is_reported():
    class TwoWrong(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y, x + y

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            return g_prod + g_sum, g_sum  # misses x in dprod/dy (and y in dprod/dx)

    x = f64([2.0, 3.0, 4.0])
    y = f64([5.0, 6.0, 7.0])
    with pytest.raises(GradcheckError) as info:
        gradcheck(TwoWrong.apply, (x, y))
    message = str(info.value)
    assert "for output 0 with respect to input 0" in message
    assert "for output 0 with respect to input 1" in message
    assert "output 1" not in message  # d(x + y) is right
    assert "worst element: J[2, 2] = d output0[2] / d input0[2]: numerical 7.0" in message


def test_multidimensional_indices_in_the_message():
    x = f64([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(
        GradcheckError, match=re.escape("J[3, 3] = d output0[1, 1] / d input0[1, 1]: numerical 8.0")
    ):
        gradcheck(ScaledSquare.make(0.5).apply, (x, 1.0))


def test_detached_output_is_reported_as_not_requiring_grad():
    x = f64([1.0, 2.0])
    with pytest.raises(GradcheckError, match="output 0 does not require grad"):
        gradcheck(lambda a: (a * 3).detach(), (x,))


def test_lower_precision_output_is_named():
    x = f64([0.3, 0.7])
    with pytest.raises(GradcheckError, match="output 0 has dtype float32"):
        gradcheck(lambda a: (a.float() * 3.3).exp(), (x,), atol=1e-9, rtol=1e-9)


def test_non_reentrant_backward():
    class Drifting(Function):
        calls = [0]

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            Drifting.calls[0] += 1
            return g * (2 + 1e-9 * Drifting.calls[0])

    x = f64([1.0, 2.0])
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Drifting.apply, (x,))
    assert gradcheck(Drifting.apply, (x,), nondet_tol=1e-6)


def test_backward_not_zero_for_zero_grad_outputs():
    class Offset(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if not bool((g != 0).any()):
                return g + 1  # wrong: backward must be linear in g
            return g * 2

    x = f64([1.0, 2.0])
    with pytest.raises(GradcheckError, match="zero grad_outputs gave a nonzero gradient"):
        gradcheck(Offset.apply, (x,))
    assert gradcheck(Offset.apply, (x,), check_undefined_grad=False)


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (f64([1.0], requires_grad=False),))
    with pytest.raises(TypeError, match="must return a Tensor or a tuple of Tensors"):
        gradcheck(lambda a: 3.0, (f64([1.0]),))
    with pytest.raises(NotImplementedError, match="check_forward_ad=True"):
        gradcheck(lambda a: a * 2, (f64([1.0]),), check_forward_ad=True)


# --- gradgradcheck ----------------------------------------------------------------------


def test_gradgradcheck_passes_for_smooth_functions():
    x = f64([0.3, -0.8, 1.2])
    y = f64([1.1, 0.4, -0.5])
    assert gradgradcheck(lambda a: (a**3).sum(), (x,))
    assert gradgradcheck(lambda a, b: (a * b.exp(), a.sin() * b), (x, y))
    assert gradgradcheck(lambda a: a * 2, (x,))  # first derivative constant in x


def test_gradgradcheck_with_non_contiguous_grad_outputs():
    x = f64([[0.3, -0.8], [1.2, 0.5]])
    assert gradgradcheck(lambda a: a.exp() * a, (x,), gen_non_contig_grad_outputs=True)
    # the grad_outputs it draws are then strided views, as PyTorch's are
    go = _random_grad_output(np.random.default_rng(0), (2, 2), True)
    assert go.shape == (2, 2) and not go.flags.c_contiguous


def test_gradgradcheck_with_given_grad_outputs():
    x = f64([0.3, -0.8])
    go = f64([1.0, -2.0], requires_grad=False)
    assert gradgradcheck(lambda a: a.exp() * a, (x,), (go,))
    with pytest.raises(ValueError, match="1 outputs that require grad, but 2 grad_outputs"):
        gradgradcheck(lambda a: a.exp(), (x,), (go, go))


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    class CubeDetached(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # right value, but cut from the graph

    x = f64([0.5, -1.5])
    assert gradcheck(CubeDetached.apply, (x,))
    assert gradgradcheck(CubeDetached.apply, (x,), raise_exception=False) is False
    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        gradgradcheck(CubeDetached.apply, (x,))


def test_gradcheck_agrees_with_pytorch_on_the_seed_example():
    torch_ = requires("torch")
    a = torch_.tensor([2.0], dtype=torch_.float64, requires_grad=True)
    b = torch_.tensor([3.0], dtype=torch_.float64, requires_grad=True)
    expected = torch_.autograd.gradcheck(lambda p, q: p * q + p, (a, b), eps=1e-6, atol=1e-4)
    got = gradcheck(lambda p, q: p * q + p, (f64([2.0]), f64([3.0])), eps=1e-6, atol=1e-4)
    assert got is expected is True
