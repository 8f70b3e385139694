"""PyTorch's legacy tensor types (`LongTensor`, `DoubleTensor` ...) build and recognise tensors as PyTorch's do.

The NLP tutorials of PyTorch make their index tensors with `torch.LongTensor(list)`.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

NAMES = [
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "args", [([1, 0, 3],), ([[1.7, -1.2], [0.0, 2.5]],), (2, 3), (0,), ()], ids=repr
)
def test_a_legacy_type_builds_what_pytorch_builds(name, args):
    if name in ("ByteTensor", "BoolTensor") and args and isinstance(args[0], list):
        args = (
            ([[abs(v) for v in row] for row in args[0]],) if isinstance(args[0][0], list) else args
        )
    theirs = getattr(torch, name)(*args)
    ours = getattr(fg, name)(*args)
    assert type(ours) is fg.Tensor and not ours.requires_grad
    assert ours.dtype == theirs.numpy().dtype and tuple(ours.shape) == tuple(theirs.shape)
    if not (len(args) > 1 or args == (0,)):  # PyTorch leaves a new shape uninitialised
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_a_legacy_type_from_a_numpy_array_and_from_a_tensor():
    a = np.array([[3, -4], [5, 6]])
    np.testing.assert_array_equal(fg.LongTensor(a).numpy(), torch.LongTensor(a).numpy())
    t = fg.tensor([1, 2])
    u = fg.LongTensor(t)
    assert u.tolist() == torch.LongTensor(torch.tensor([1, 2])).tolist()
    with pytest.raises(TypeError, match=r"funcgrad.DoubleTensor\(tensor\).*float32"):
        fg.DoubleTensor(fg.ones(2))
    with pytest.raises(TypeError):
        torch.DoubleTensor(torch.ones(2))
    x = fg.tensor([1.0, 2.0], dtype=fg.float64, requires_grad=True)
    assert not fg.DoubleTensor(x).requires_grad  # PyTorch's result has no history either
    with pytest.raises(TypeError, match="funcgrad.LongTensor: expected data"):
        fg.LongTensor(2, 1.5)


def test_isinstance_checks_dtype_and_device_as_in_pytorch():
    for name in NAMES:
        for make in ("long", "double", "int", "bool", "half"):
            ours = getattr(fg.ones(2), make)()
            theirs = getattr(torch.ones(2), make)()
            assert isinstance(ours, getattr(fg, name)) == isinstance(theirs, getattr(torch, name))
    assert not issubclass(fg.LongTensor, fg.Tensor) and not issubclass(
        torch.LongTensor, torch.Tensor
    )
    assert repr(fg.LongTensor) == repr(torch.LongTensor).replace("torch", "funcgrad")


def test_a_legacy_type_refuses_a_gpu_device():
    with pytest.raises(RuntimeError, match="expects device type: cpu but device type: cuda"):
        fg.LongTensor([1], device="cuda")
    with pytest.raises(RuntimeError, match="expects device type: cpu but device type: cuda"):
        torch.LongTensor([1], device="cuda")
