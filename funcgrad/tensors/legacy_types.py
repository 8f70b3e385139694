"""PyTorch's legacy tensor types: `funcgrad.LongTensor([1, 2])`, `isinstance(t, funcgrad.DoubleTensor)`.

As in PyTorch, `LongTensor`, `DoubleTensor` ... are not subclasses of `Tensor`:
calling one builds a plain `Tensor` of its dtype on the CPU (`LongTensor(data)`,
`LongTensor(2, 3)` for a shape, `LongTensor()` for an empty one), and
`isinstance(t, LongTensor)` asks whether `t` is an int64 tensor on the CPU.
`funcgrad.FloatTensor` is one of them (float32 whatever the default dtype, as in
PyTorch); `funcgrad.Tensor(data)` builds tensors of the default float dtype.
"""

from __future__ import annotations

import numpy as np

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


class _TensorType(type):
    """The metaclass of the legacy types: calling one makes a tensor, `isinstance` checks the dtype."""

    dtype: np.dtype

    def __call__(cls, *data, device=None):
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

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls) -> str:
        return f"<class 'funcgrad.{cls.__name__}'>"


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
    return _TensorType(name, (), {"dtype": np.dtype(dtype), "__doc__": doc, "__slots__": ()})


FloatTensor = _legacy_type("FloatTensor", np.float32)
DoubleTensor = _legacy_type("DoubleTensor", np.float64)
HalfTensor = _legacy_type("HalfTensor", np.float16)
LongTensor = _legacy_type("LongTensor", np.int64)
IntTensor = _legacy_type("IntTensor", np.int32)
ShortTensor = _legacy_type("ShortTensor", np.int16)
CharTensor = _legacy_type("CharTensor", np.int8)
ByteTensor = _legacy_type("ByteTensor", np.uint8)
BoolTensor = _legacy_type("BoolTensor", np.bool_)
