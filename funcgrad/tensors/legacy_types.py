"""PyTorch's legacy tensor types: `funcgrad.LongTensor([1, 2])`, `isinstance(t, funcgrad.DoubleTensor)`.

As in PyTorch, `LongTensor`, `DoubleTensor` ... are not subclasses of `Tensor`:
calling one builds a plain `Tensor` of its dtype on the CPU (`LongTensor(data)`,
`LongTensor(2, 3)` for a shape, `LongTensor()` for an empty one), and
`isinstance(t, LongTensor)` asks whether `t` is an int64 tensor on the CPU.
`funcgrad.FloatTensor` is one of them (float32 whatever the default dtype, as in
PyTorch); `funcgrad.Tensor(data)` builds tensors of the default float dtype.

The CUDA ones (`funcgrad.cuda.FloatTensor` ...) are the same on a GPU: calling
one needs CuPy and a GPU, and without them raises `UnavailableTypeError` (a
DeviceError and a TypeError, as PyTorch's "type torch.cuda.FloatTensor not
available"); `isinstance(t, funcgrad.cuda.FloatTensor)` asks for a float32
tensor on a GPU.
"""

from __future__ import annotations

import numpy as np

from funcgrad.backend import require_cuda
from funcgrad.errors import DeviceError, UnavailableTypeError
from funcgrad.tensors.tensor_class import Tensor


def _dtype_name(dtype) -> str:
    """The dtype as funcgrad spells it: `'funcgrad.int64'`."""
    return f"funcgrad.{np.dtype(dtype).name}"


__all__ = [
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

# The CUDA types, exported by funcgrad.cuda (PyTorch's torch.cuda.FloatTensor ...): the same names.
CUDA_TYPES = tuple(__all__)


def require_cuda_type(what: str, type_name: str) -> None:
    """Check that CUDA tensor type `type_name` (`'torch.cuda.FloatTensor'`) can be used.

    Raises:
        UnavailableTypeError: Where CuPy or a GPU is missing; the message starts
            with `what` and says why.
    """
    try:
        require_cuda(what)
    except DeviceError as e:
        reason = str(e).split("\n(see ")[0].removeprefix(f"{what}: ")
        raise UnavailableTypeError(f"{what}: type {type_name} not available: {reason}") from None


class _TensorType(type):
    """The metaclass of the legacy types: calling one makes a tensor, `isinstance` checks the dtype."""

    dtype: np.dtype
    is_cuda: bool

    def __call__(cls, *data, device=None):
        if cls.is_cuda:
            return cls._make_on_gpu(data, device)
        name = f"funcgrad.{cls.__name__}"
        if device is not None and str(device).split(":")[0] != "cpu":
            raise RuntimeError(
                f"{name}: legacy constructor expects device type: cpu but device type: "
                f"{str(device).split(':')[0]} was passed (use funcgrad.tensor(data, "
                f"dtype={_dtype_name(cls.dtype)}, device={str(device)!r}))"
            )
        if len(data) == 1 and isinstance(data[0], Tensor):
            (other,) = data
            if other.dtype != cls.dtype or other.device.type != "cpu":
                raise TypeError(
                    f"{name}(tensor): expected a {_dtype_name(cls.dtype)} tensor on the CPU, "
                    f"got one of dtype {_dtype_name(other.dtype)} on {other.device} "
                    f"(convert it with tensor.to({_dtype_name(cls.dtype)}))"
                )
            return other.detach()  # PyTorch's result shares the tensor's memory, without history
        if len(data) > 1 and not all(isinstance(d, (int, np.integer)) for d in data):
            raise TypeError(
                f"{name}: expected data (a sequence or an array) or the sizes of a new tensor "
                f"(integers), got {data!r}"
            )
        return Tensor(*data, dtype=cls.dtype)

    def _make_on_gpu(cls, data, device):
        name = f"funcgrad.cuda.{cls.__name__}"
        require_cuda_type(name, f"torch.cuda.{cls.__name__}")
        if device is not None and str(device).split(":")[0] != "cuda":
            raise RuntimeError(
                f"{name}: legacy constructor expects device type: cuda but device type: "
                f"{str(device).split(':')[0]} was passed"
            )
        where = "cuda" if device is None else str(device)
        if len(data) == 1 and isinstance(data[0], Tensor):
            (other,) = data
            if other.dtype != cls.dtype or other.device.type != "cuda":
                raise TypeError(
                    f"{name}(tensor): expected a {_dtype_name(cls.dtype)} tensor on a GPU, "
                    f"got one of dtype {_dtype_name(other.dtype)} on {other.device} "
                    f"(convert it with tensor.to({_dtype_name(cls.dtype)}, 'cuda'))"
                )
            return other.detach()
        return _CPU_TYPES[cls.__name__](*data).to(where)

    def __instancecheck__(cls, obj) -> bool:
        return (
            isinstance(obj, Tensor)
            and obj.dtype == cls.dtype
            and obj.device.type == ("cuda" if cls.is_cuda else "cpu")
        )

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _legacy_type(name: str, dtype) -> _TensorType:
    doc = (
        f"Make a tensor of dtype {np.dtype(dtype).name} on the CPU: PyTorch's legacy `torch.{name}`.\n\n"
        f"`{name}(data)` converts a sequence or an array (floats are truncated towards\n"
        f"zero for an integer type, as in PyTorch), `{name}(2, 3)` makes one of that shape\n"
        f"(zeros), `{name}()` an empty one, and `{name}(t)` takes a tensor of that dtype\n"
        f"(sharing its values, without its history). `isinstance(t, funcgrad.{name})` is\n"
        f"true for a CPU tensor of that dtype. Prefer `funcgrad.tensor(data, dtype=...)`.\n\n"
        f"Examples:\n"
        f"    >>> import funcgrad as torch\n"
        f"    >>> torch.{name}([1, 0]).dtype == {_dtype_name(dtype).replace('funcgrad', 'torch')}\n"
        f"    True\n"
    )
    attrs = {"dtype": np.dtype(dtype), "is_cuda": False, "__doc__": doc, "__slots__": ()}
    return _TensorType(name, (), {**attrs, "__module__": "funcgrad"})


def _cuda_type(name: str) -> _TensorType:
    dtype = _CPU_TYPES[name].dtype
    doc = (
        f"Make a tensor of dtype {dtype.name} on a GPU: PyTorch's legacy `torch.cuda.{name}`.\n\n"
        f"As `funcgrad.{name}`, on the current GPU (or `device=`); it needs CuPy and a GPU,\n"
        f"and without them raises UnavailableTypeError (a TypeError, as PyTorch's\n"
        f"'type torch.cuda.{name} not available'). `isinstance(t, funcgrad.cuda.{name})`\n"
        f"is true for a tensor of that dtype on a GPU. Prefer\n"
        f"`funcgrad.tensor(data, dtype=..., device='cuda')`.\n\n"
        f"Examples:\n"
        f"    >>> import funcgrad as torch\n"
        f"    >>> isinstance(torch.zeros(2, dtype={_dtype_name(dtype).replace('funcgrad', 'torch')}), torch.cuda.{name})\n"
        f"    False\n"
    )
    attrs = {"dtype": dtype, "is_cuda": True, "__doc__": doc, "__slots__": ()}
    return _TensorType(name, (), {**attrs, "__module__": "funcgrad.cuda"})


FloatTensor = _legacy_type("FloatTensor", np.float32)
DoubleTensor = _legacy_type("DoubleTensor", np.float64)
HalfTensor = _legacy_type("HalfTensor", np.float16)
LongTensor = _legacy_type("LongTensor", np.int64)
IntTensor = _legacy_type("IntTensor", np.int32)
ShortTensor = _legacy_type("ShortTensor", np.int16)
CharTensor = _legacy_type("CharTensor", np.int8)
ByteTensor = _legacy_type("ByteTensor", np.uint8)
BoolTensor = _legacy_type("BoolTensor", np.bool_)


_CPU_TYPES = {
    t.__name__: t
    for t in (
        FloatTensor,
        DoubleTensor,
        HalfTensor,
        LongTensor,
        IntTensor,
        ShortTensor,
        CharTensor,
        ByteTensor,
        BoolTensor,
    )
}
cuda_types = {name: _cuda_type(name) for name in CUDA_TYPES}
