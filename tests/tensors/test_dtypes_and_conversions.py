"""Dtypes (PyTorch's defaults), conversions, and the tensor's plain-data accessors."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as torch


@pytest.fixture
def float64_default():
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)


# --- default dtypes --------------------------------------------------------------------


def test_default_dtypes_follow_pytorch():
    assert torch.get_default_dtype() == torch.float32
    assert torch.tensor(1.0).dtype == torch.float32
    assert torch.tensor([1.0, 2]).dtype == torch.float32
    assert torch.tensor(1).dtype == torch.int64
    assert torch.tensor(True).dtype == torch.bool
    assert torch.Tensor([1]).dtype == torch.float32
    for make in (torch.ones, torch.zeros, torch.empty, torch.randn, torch.rand):
        assert make(2).dtype == torch.float32
    assert torch.eye(2).dtype == torch.float32
    assert torch.arange(3).dtype == torch.int64
    assert torch.arange(0.0, 1.0, 0.5).dtype == torch.float32
    assert torch.full((2,), 1.5).dtype == torch.float32
    assert torch.full((2,), 2).dtype == torch.int64
    # A NumPy array keeps its dtype.
    assert torch.tensor(np.zeros(2)).dtype == torch.float64
    assert torch.tensor(np.zeros(2, np.float32)).dtype == torch.float32
    assert torch.from_numpy(np.arange(3)).dtype == torch.int64


def test_set_default_dtype(float64_default):
    assert torch.get_default_dtype() == torch.float64
    assert torch.tensor(1.0).dtype == torch.float64
    assert torch.Tensor([1]).dtype == torch.float64
    assert torch.ones(2).dtype == torch.float64 and torch.randn(2).dtype == torch.float64
    assert repr(torch.tensor([1.5])) == "tensor([1.5000])"
    assert (
        repr(torch.tensor([1.5], dtype=torch.float32)) == "tensor([1.5000], dtype=funcgrad.float32)"
    )


def test_set_default_dtype_rejects_integers():
    with pytest.raises(TypeError, match="floating-point"):
        torch.set_default_dtype(torch.int64)
    assert torch.get_default_dtype() == torch.float32


def test_explicit_float64_keeps_full_precision():
    # Regression: Python floats used to go through float32 before the requested dtype.
    assert torch.tensor(1.3, dtype=torch.float64).item() == 1.3
    assert torch.tensor([0.1, 1 / 3], dtype=torch.float64).tolist() == [0.1, 1 / 3]
    assert torch.Tensor([0.1], dtype=torch.float64).item() == 0.1
    assert (
        torch.arange(0.0, 0.3, 0.1, dtype=torch.float64).tolist()
        == np.arange(0.0, 0.3, 0.1).tolist()
    )


# --- no operation silently changes a float dtype ---------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_gradient_has_the_dtype_of_the_input(dtype):
    x = torch.tensor([0.5, 1.5], dtype=dtype, requires_grad=True)
    y = (torch.exp(x) * 2.5 + x * np.float64(3.0) - 1).sum()
    assert y.dtype == dtype
    y.backward()
    assert x.grad.dtype == dtype
    expected = np.exp([0.5, 1.5]) * 2.5 + 3.0
    np.testing.assert_allclose(
        x.grad.numpy().astype(np.float64),
        expected,
        rtol={torch.float16: 3e-3, torch.float32: 1e-6, torch.float64: 1e-14}[dtype],
    )


def test_numpy_scalars_act_as_python_numbers():
    # Regression: `x * np.float64(2)` used to promote a float32 tensor to float64.
    x = torch.ones(2)
    for scalar in (np.float64(2.0), np.float32(2.0), np.int64(2), np.float16(2.0)):
        assert (x * scalar).dtype == torch.float32
        assert (scalar * x).dtype == torch.float32
        assert (x + scalar).tolist() == [3.0, 3.0]


def test_float32_grad_with_explicit_float64_gradient_argument():
    x = torch.ones(2, requires_grad=True)
    (x * 2).backward(torch.tensor([1.0, 1.0], dtype=torch.float64))
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [2.0, 2.0]


# --- conversions -----------------------------------------------------------------------


def test_to_dtype_stays_in_the_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.to(torch.float64)
    assert y.dtype == torch.float64 and y.requires_grad and y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [2.0, 4.0]


def test_to_argument_forms():
    x = torch.tensor([1.0, 2.0])
    assert x.to(torch.float64).dtype == torch.float64
    assert x.to("cpu") is x and x.to(torch.device("cpu")) is x
    assert x.to("cpu", torch.float64).dtype == torch.float64
    assert x.to(dtype=torch.float64, device="cpu").dtype == torch.float64
    assert x.to(torch.zeros(1, dtype=torch.float16)).dtype == torch.float16
    assert x.to(torch.float32) is x
    assert x.cpu() is x


def test_dtype_conversion_methods():
    x = torch.tensor([1.7, -2.2], requires_grad=True)
    assert x.double().dtype == torch.float64 and x.double().requires_grad
    assert x.float().dtype == torch.float32
    assert x.half().dtype == torch.float16
    assert x.long().dtype == torch.int64 and x.long().tolist() == [1, -2]
    assert not x.long().requires_grad  # integers are cut from the graph
    assert x.int().dtype == torch.int32
    assert x.bool().tolist() == [True, True]
    assert x.type() == "funcgrad.FloatTensor"
    assert x.double().type() == "funcgrad.DoubleTensor"
    assert x.long().type() == "funcgrad.LongTensor"
    assert x.type(torch.float64).dtype == torch.float64


def test_numpy_item_tolist():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = x.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32 and a.shape == (2, 2)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert torch.tensor(3.5).item() == 3.5 and type(torch.tensor(3.5).item()) is float
    assert torch.tensor([7]).item() == 7 and type(torch.tensor([7]).item()) is int
    assert torch.tensor([[True]]).item() is True
    assert float(torch.tensor([2.5])) == 2.5 and int(torch.tensor(3.7)) == 3
    assert bool(torch.tensor(1.0)) is True
    np.testing.assert_array_equal(np.asarray(x), a)
    with pytest.raises(RuntimeError, match="with 2 elements cannot be converted to Scalar"):
        torch.ones(2).item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(torch.ones(2))


def test_numpy_of_a_tensor_requiring_grad_raises():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"requires grad. Use tensor.detach\(\).numpy\(\)"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_values_of_a_tensor_requiring_grad_are_read_only():
    # Regression: requires_grad_ used to give the leaf node the tensor's writeable array.
    data = np.array([1.0, 2.0])
    x = torch.tensor(data, requires_grad=True)
    with pytest.raises(ValueError, match="read-only"):
        x.detach().numpy()[0] = 10.0
    t = torch.tensor([1.0, 2.0])
    alias = t.numpy()
    t.requires_grad_()
    alias[0] = 10.0  # the tensor took its own read-only copy
    (t * t).sum().backward()
    assert t.grad.tolist() == [2.0, 4.0]


def test_from_numpy_shares_memory():
    a = np.arange(3.0)
    t = torch.from_numpy(a)
    a[0] = 7.0
    assert t.tolist() == [7.0, 1.0, 2.0]  # shared, as in PyTorch (tests/tensors/test_views.py)
    with pytest.raises(TypeError, match="np.ndarray"):
        torch.from_numpy([1.0])


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0])
    t = torch.tensor(a)
    a[0] = 9.0
    assert t.tolist() == [1.0, 2.0]


def test_shape_size_dim_numel():
    x = torch.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, torch.Size)
    assert repr(x.shape) == "funcgrad.Size([2, 3, 4])"
    assert x.size() == torch.Size([2, 3, 4]) and x.size(1) == 3 and x.size(-1) == 4
    assert x.shape.numel() == 24 == x.numel() == x.nelement()
    assert x.dim() == 3 == x.ndim and len(x) == 2
    assert torch.tensor(1.0).shape == () and torch.tensor(1.0).dim() == 0
    with pytest.raises(TypeError, match="0-d"):
        len(torch.tensor(1.0))


def test_device():
    x = torch.ones(2)
    assert x.device == torch.device("cpu") and str(x.device) == "cpu"
    assert repr(x.device) == "device(type='cpu')"
    assert not x.is_cuda
    assert torch.device("cuda:1") == torch.device("cuda", 1)
    assert torch.device("cuda:1").index == 1 and torch.device("cuda").index is None
    assert torch.device(torch.device("cpu")).type == "cpu"
    assert len({torch.device("cpu"), torch.device("cpu")}) == 1
    with pytest.raises(ValueError, match="'cpu', 'cuda' or 'cuda:N'"):
        torch.device("tpu")
    with pytest.raises(AttributeError):
        torch.device("cpu").type = "cuda"


def test_creation_with_device_cpu_and_requires_grad():
    for make in (torch.ones, torch.zeros, torch.randn):
        t = make(2, device="cpu", requires_grad=True)
        assert t.requires_grad and t.is_leaf and t.device.type == "cpu"
    t = torch.tensor([1.0], device=torch.device("cpu"))
    assert t.device.type == "cpu"


def test_numpy_operands_on_the_left_give_tensors():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], np.float32) * x
    assert isinstance(y, torch.Tensor) and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    assert isinstance(np.float64(1.0) + x, torch.Tensor)
