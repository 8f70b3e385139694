"""Error messages of the Tensor layer: PyTorch's wording, plus what was wrong and what to do."""

from __future__ import annotations

import importlib.util

import pytest

import funcgrad as torch
from funcgrad.errors import FuncgradError, OpError


def test_backward_on_a_non_scalar_needs_a_gradient():
    y = torch.ones(2, 3, requires_grad=True) * 2
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ) as info:
        y.backward()
    message = str(info.value)
    assert "(2, 3)" in message and "gradient=" in message and "sum()" in message


def test_backward_on_a_one_element_tensor_needs_no_gradient():
    x = torch.ones(1, 1, requires_grad=True)
    (x * 3).backward()
    assert x.grad.tolist() == [[3.0]]


def test_backward_on_something_that_does_not_require_grad_says_why():
    with pytest.raises(
        RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"
    ) as info:
        torch.ones(2).sum().backward()
    message = str(info.value)
    assert "requires_grad=True" in message and "no_grad" in message and "detach" in message
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="does not require grad"):
        x.detach().sum().backward()
    with torch.no_grad():
        y = x.sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


def test_gradient_of_the_wrong_shape():
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(
        RuntimeError,
        match=r"Mismatch in shape: grad_output\[0\] has a shape of .*\[3\].*output\[0\] has a shape of .*\[2\]",
    ):
        y.backward(torch.ones(3))


def test_autograd_grad_errors():
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"input 0, shape \(1,\)\) does not require grad"):
        torch.autograd.grad(x * 2, torch.ones(1))
    with pytest.raises(TypeError, match="not a Tensor"):
        torch.autograd.grad(x * 2, [x, 3.0])
    with pytest.raises(TypeError, match="not a Tensor"):
        torch.autograd.backward([x * 2, 1.0])


def test_shapes_that_do_not_broadcast_name_the_operation_and_shapes():
    # Regression: without grad, `+` used to reach NumPy directly and raise its bare error.
    for a, b in (
        (torch.ones(2), torch.ones(3)),
        (torch.ones(2, requires_grad=True), torch.ones(3)),
    ):
        with pytest.raises(OpError, match=r"funcgrad\.add\(float32\[2\], float32\[3\]\)") as info:
            a + b
        assert isinstance(info.value, (FuncgradError, ValueError))
    with pytest.raises(OpError, match=r"funcgrad\.subtract\(float32\[2\], float32\[3\]\)"):
        torch.ones(2) - torch.ones(3)
    with pytest.raises(OpError, match=r"funcgrad\.matmul\(float32\[2, 3\], float32\[2, 3\]\)"):
        torch.ones(2, 3, requires_grad=True) @ torch.ones(2, 3)
    with pytest.raises(OpError, match=r"funcgrad\.reshape\(float32\[2\], shape=\(3,\)\)"):
        torch.ones(2).reshape(3)


def test_transpose_of_more_than_two_dimensions():
    with pytest.raises(
        RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"
    ):
        torch.ones(2, 2, 2).t()


def test_in_place_on_a_leaf_says_what_to_do():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place operation") as info:
        x.mul_(2)
    assert "mul_" in str(info.value) and "no_grad" in str(info.value)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.Tensor([1.0], device="cuda"),
        lambda: torch.ones(2, device="cuda"),
        lambda: torch.randn(2, device="cuda:0"),
        lambda: torch.tensor([1.0], device="cuda"),
        lambda: torch.randint(3, size=(2,), device="cuda"),
        lambda: torch.zeros_like(torch.ones(1), device="cuda"),
    ],
)
def test_cuda_device_on_creation_without_cupy_says_what_to_install(make):
    with pytest.raises(RuntimeError, match=r"funcgrad\.\w+: .*'cuda(:0)?'.*CuPy is not installed"):
        make()
