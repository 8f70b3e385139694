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
    "FloatTensor",
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
    # FloatTensor too: a float64 tensor is no FloatTensor (it was: FloatTensor was Tensor)
    for make in ("float", "double", "long", "half"):
        ours, theirs = getattr(fg.ones(2), make)(), getattr(torch.ones(2), make)()
        assert isinstance(ours, fg.FloatTensor) == isinstance(theirs, torch.FloatTensor)
        assert isinstance(ours, fg.Tensor) and isinstance(theirs, torch.Tensor)
    p = fg.nn.Parameter(fg.ones(2))
    assert isinstance(p, fg.FloatTensor) == isinstance(
        torch.nn.Parameter(torch.ones(2)), torch.FloatTensor
    )
    assert repr(fg.FloatTensor) == repr(torch.FloatTensor).replace("torch", "funcgrad")
    assert repr(fg.LongTensor) == repr(torch.LongTensor).replace("torch", "funcgrad")


def test_a_legacy_type_refuses_a_gpu_device():
    with pytest.raises(RuntimeError, match="expects device type: cpu but device type: cuda"):
        fg.LongTensor([1], device="cuda")
    with pytest.raises(RuntimeError, match="expects device type: cpu but device type: cuda"):
        torch.LongTensor([1], device="cuda")


@pytest.mark.parametrize("name", ["Tensor", *NAMES])
@pytest.mark.parametrize("shape", [[2], [2, 3], [], [0, 4]], ids=repr)
def test_a_size_is_a_shape_as_in_pytorch(name, shape):
    """`LongTensor(x.shape)` makes a tensor of that shape (the sizes were taken as data)."""
    theirs = getattr(torch, name)(torch.Size(shape))
    ours = getattr(fg, name)(fg.Size(shape))
    assert tuple(ours.shape) == tuple(theirs.shape) == tuple(shape)
    assert ours.dtype == theirs.numpy().dtype
    # a tuple or a list stays data, in both
    for data in (tuple(shape), list(shape)):
        np.testing.assert_array_equal(
            getattr(fg, name)(data).numpy(), getattr(torch, name)(data).numpy()
        )


@pytest.mark.parametrize("name", NAMES)
def test_set_default_tensor_type_takes_the_legacy_types(name):
    """`set_default_tensor_type(funcgrad.DoubleTensor)` raised TypeError; PyTorch accepts
    the floating-point types and refuses the others with TypeError."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch's deprecation warning
            try:
                torch.set_default_tensor_type(getattr(torch, name))
            except TypeError:
                with pytest.raises(TypeError, match="only floating-point types"):
                    fg.set_default_tensor_type(getattr(fg, name))
                return
        fg.set_default_tensor_type(getattr(fg, name))
        assert np.dtype(fg.get_default_dtype()) == torch.tensor([1.0]).numpy().dtype
        assert fg.Tensor([1]).dtype == torch.Tensor([1]).numpy().dtype
        assert fg.FloatTensor([1]).dtype == torch.FloatTensor([1]).numpy().dtype
    finally:
        fg.set_default_dtype(fg.float32)
        torch.set_default_dtype(torch.float32)


def test_set_default_tensor_type_refuses_the_tensor_class_as_pytorch():
    with pytest.raises(TypeError, match="only floating-point types"):
        torch.set_default_tensor_type(torch.Tensor)
    with pytest.raises(TypeError, match="only floating-point types"):
        fg.set_default_tensor_type(fg.Tensor)
    assert fg.get_default_dtype() == fg.float32


@pytest.mark.parametrize("name", ["Tensor", *NAMES])
def test_tensor_type_takes_the_type_objects(name):
    """`x.type(funcgrad.FloatTensor)` converts as PyTorch's (FloatTensor is no Tensor subclass now)."""
    theirs = torch.tensor([1.5, -2.0], dtype=torch.float64).type(getattr(torch, name))
    ours = fg.tensor([1.5, -2.0], dtype=fg.float64).type(getattr(fg, name))
    assert ours.dtype == theirs.numpy().dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("default", ["float32", "float64", "float16"])
@pytest.mark.parametrize("source", ["float64", "float32", "float16", "int32", "bool"])
def test_tensor_type_of_the_tensor_class_follows_the_default_dtype(default, source):
    """`x.type(funcgrad.Tensor)` gave float32 whatever the default dtype; PyTorch gives the
    default tensor type (`set_default_dtype`, or `set_default_tensor_type` below)."""
    data = [1.5, -2.0, 0.0]
    try:
        torch.set_default_dtype(getattr(torch, default))
        fg.set_default_dtype(getattr(fg, default))
        theirs = torch.tensor(data, dtype=getattr(torch, source)).type(torch.Tensor)
        ours = fg.tensor(data, dtype=getattr(fg, source)).type(fg.Tensor)
        assert ours.dtype == theirs.numpy().dtype == np.dtype(default)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert ours.type() == theirs.type().replace("torch.", "funcgrad.")
    finally:
        fg.set_default_dtype(fg.float32)
        torch.set_default_dtype(torch.float32)
    fg.set_default_tensor_type(fg.DoubleTensor)
    try:
        assert fg.tensor(data, dtype=getattr(fg, source)).type(fg.Tensor).dtype == np.float64
    finally:
        fg.set_default_tensor_type(fg.FloatTensor)


@pytest.mark.parametrize("name", ["torch.cuda.FloatTensor", "funcgrad.cuda.DoubleTensor"])
def test_set_default_tensor_type_refuses_a_cuda_type_without_a_gpu(name):
    """`set_default_tensor_type('torch.cuda.FloatTensor')` was accepted without CuPy or a
    GPU (the error came at the next tensor made); PyTorch without CUDA refuses at once."""
    import warnings

    from funcgrad.backend import cuda_available
    from funcgrad.errors import DeviceError

    if not torch.cuda.is_available():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch's deprecation warning
            with pytest.raises(TypeError, match="not available"):
                torch.set_default_tensor_type(name.replace("funcgrad.", "torch."))
    try:
        if not cuda_available():
            # a DeviceError and, as PyTorch's, a TypeError ("... not available")
            with pytest.raises(DeviceError, match=r"funcgrad\.set_default_tensor_type\(.*cuda"):
                fg.set_default_tensor_type(name)
            with pytest.raises(TypeError, match=r"type torch\.cuda\.\w+Tensor not available"):
                fg.set_default_tensor_type(name)
            assert fg.get_default_dtype() == fg.float32
            assert fg.get_default_device().type == "cpu"
            assert fg.zeros(1).device.type == "cpu"
        else:
            fg.set_default_tensor_type(name)
            assert fg.zeros(1).device.type == "cuda"
            assert fg.zeros(1).dtype == (np.float32 if "Float" in name else np.float64)
    finally:
        fg.set_default_dtype(fg.float32)
        fg.set_default_device(None)


# --- the CUDA types: funcgrad.cuda.FloatTensor ... ------------------------------------------


def _torch_cuda_names():
    return sorted(n for n in dir(torch.cuda) if n.endswith("Tensor") and n != "BFloat16Tensor")


def test_funcgrad_cuda_has_pytorchs_cuda_types():
    # BFloat16Tensor aside (funcgrad has no bfloat16: NumPy lacks it)
    assert _torch_cuda_names() == sorted(NAMES)
    for name in NAMES:
        ours, theirs = getattr(fg.cuda, name), getattr(torch.cuda, name)
        assert repr(ours) == repr(theirs).replace("torch", "funcgrad")
        assert ours.dtype == getattr(fg, str(theirs.dtype).removeprefix("torch."))
        assert ours.is_cuda is True and getattr(fg, name).is_cuda is False
        assert ours is not getattr(fg, name) and ours.__doc__


@pytest.mark.parametrize("name", NAMES)
def test_a_cuda_type_recognises_only_gpu_tensors(name):
    dtype = getattr(fg, name).dtype
    for lib in (torch, fg):
        t = lib.zeros(2, dtype=getattr(lib, dtype.name))
        assert not isinstance(t, getattr(lib.cuda, name))
        assert isinstance(t, getattr(lib, name))
    if fg.cuda.is_available():
        t = fg.zeros(2, dtype=dtype, device="cuda")
        assert isinstance(t, getattr(fg.cuda, name)) and not isinstance(t, getattr(fg, name))


@pytest.mark.skipif(fg.cuda.is_available(), reason="the behaviour without a GPU")
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("args", [([1, 0],), (2, 3), ()], ids=repr)
def test_constructing_a_cuda_type_without_a_gpu_raises_as_pytorch(name, args):
    with pytest.raises(TypeError, match=rf"type torch\.cuda\.{name} not available"):
        getattr(torch.cuda, name)(*args)
    with pytest.raises(TypeError, match=rf"type torch\.cuda\.{name} not available") as caught:
        getattr(fg.cuda, name)(*args)
    assert isinstance(caught.value, fg.errors.DeviceError)
    assert isinstance(caught.value, fg.cuda.UnavailableTypeError)
    assert str(caught.value).startswith(f"funcgrad.cuda.{name}: ")


@pytest.mark.skipif(not fg.cuda.is_available(), reason="needs CuPy and a GPU")
@pytest.mark.parametrize("name", NAMES)
def test_a_cuda_type_builds_on_the_gpu(name):
    t = getattr(fg.cuda, name)([1, 0, 3])
    want = getattr(fg, name)([1, 0, 3])
    assert t.device.type == "cuda" and t.dtype == want.dtype
    np.testing.assert_array_equal(t.cpu().numpy(), want.numpy())
    assert getattr(fg.cuda, name)(2, 3).shape == (2, 3)


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor"])
def test_set_default_tensor_type_with_a_cuda_type_object(name):
    import warnings

    if not torch.cuda.is_available():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch's deprecation warning
            with pytest.raises(TypeError, match=rf"type torch\.cuda\.{name} not available"):
                torch.set_default_tensor_type(getattr(torch.cuda, name))
    try:
        if not fg.cuda.is_available():
            with pytest.raises(TypeError, match=rf"type torch\.cuda\.{name} not available") as e:
                fg.set_default_tensor_type(getattr(fg.cuda, name))
            assert isinstance(e.value, fg.errors.DeviceError)
            assert "funcgrad.set_default_tensor_type(" in str(e.value)
            assert fg.get_default_dtype() == fg.float32
            assert fg.get_default_device().type == "cpu"
        else:
            fg.set_default_tensor_type(getattr(fg.cuda, name))
            assert fg.zeros(1).device.type == "cuda"
            assert fg.zeros(1).dtype == getattr(fg.cuda, name).dtype
    finally:
        fg.set_default_dtype(fg.float32)
        fg.set_default_device(None)


@pytest.mark.parametrize("name", NAMES)
def test_tensor_type_with_a_legacy_type_object(name):
    # x.type(funcgrad.cuda.FloatTensor) gave a CPU tensor (the type object's device ignored)
    theirs = torch.ones(2).type(getattr(torch, name))
    ours = fg.ones(2).type(getattr(fg, name))
    assert ours.type() == theirs.type().replace("torch.", "funcgrad.")
    assert ours.device.type == "cpu"
    if not fg.cuda.is_available():
        if not torch.cuda.is_available():
            with pytest.raises(RuntimeError):
                torch.ones(2).type(getattr(torch.cuda, name))
        with pytest.raises(RuntimeError, match=r"funcgrad\.to_device: .* to 'cuda'"):
            fg.ones(2).type(getattr(fg.cuda, name))
    else:
        on_gpu = fg.ones(2).type(getattr(fg.cuda, name))
        assert on_gpu.device.type == "cuda" and on_gpu.dtype == getattr(fg, name).dtype
        assert on_gpu.type(getattr(fg, name)).device.type == "cpu"
