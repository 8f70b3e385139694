"""Devices of the imperative layer: `funcgrad.device('cpu')`, `'cuda'`, `'cuda:1'`.

CUDA needs CuPy and an NVIDIA GPU; without them, `.cuda()` raises a clear
`funcgrad.backend.DeviceError` (a `RuntimeError`). Moving a tensor is the
`to_device` primitive, so a tensor that requires grad can move: the result
has `grad_fn=<ToCopyBackward0>` and gradients flow back to the device the
tensor came from.
"""

from __future__ import annotations

from funcgrad.backend import device_of as _device_of
from funcgrad.errors import DeviceError
from funcgrad.tensors.base import TensorBase
from funcgrad.tensors.dtypes import to_dtype


class device:  # noqa: N801  (PyTorch's name)
    """A device: its type (`'cpu'` or `'cuda'`) and index (None, or the GPU number).

    Accepts what `torch.device` accepts: `device('cuda:1')`,
    `device('cuda', 1)`, `device('cpu')`, or another device.

    Examples:
        >>> import funcgrad as torch
        >>> torch.device("cuda:1")
        device(type='cuda', index=1)
        >>> torch.device("cuda", 0) == torch.device("cuda:0")
        True
        >>> str(torch.device("cpu"))
        'cpu'
    """

    __slots__ = ("type", "index")
    type: str  # "cpu" or "cuda"
    index: int | None

    def __init__(self, type: str | device, index: int | None = None):  # noqa: A002
        if isinstance(type, device):
            kind, idx = type.type, type.index
        else:
            text = str(type)
            kind, _, idx_text = text.partition(":")
            _refuse_unsupported(kind, "funcgrad.device")
            if kind not in ("cpu", "cuda") or (idx_text and not idx_text.isdigit()):
                raise ValueError(
                    f"funcgrad.device: expected 'cpu', 'cuda' or 'cuda:N', got {type!r}"
                )
            idx = int(idx_text) if idx_text else None
        if index is not None:
            if idx is not None:
                raise ValueError(
                    f"funcgrad.device: the index is given twice ({type!r} and {index!r})"
                )
            idx = int(index)
        object.__setattr__(self, "type", kind)
        object.__setattr__(self, "index", idx)

    def __setattr__(self, name, value):
        raise AttributeError("funcgrad.device is immutable")

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


# Device types PyTorch knows that funcgrad has no arrays for.
_UNSUPPORTED = frozenset(
    {"meta", "mps", "xpu", "xla", "hip", "hpu", "ipu", "mtia", "lazy", "vulkan", "ve", "fpga"}
    | {"opengl", "opencl", "ideep", "mkldnn", "ort", "maia", "privateuseone"}
)


def _refuse_unsupported(kind: str, op: str) -> None:
    if kind in _UNSUPPORTED:
        raise DeviceError(
            f"{op}: the {kind!r} device is not supported; funcgrad computes on 'cpu' "
            f"(NumPy) and 'cuda' / 'cuda:N' (CuPy). For shapes without data (what "
            f"PyTorch's 'meta' device gives), use funcgrad.empty or run on small inputs"
        )


def parse_device(d) -> device:
    """Return `d` (a `device`, `'cpu'`, `'cuda'`, `'cuda:N'` or an int) as a `device`.

    Raises:
        ValueError: For anything else.
    """
    if isinstance(d, device):
        return d
    if isinstance(d, int) and not isinstance(d, bool):
        return device("cuda", d)
    if isinstance(d, str):
        return device(d)
    raise ValueError(f"funcgrad.device: expected 'cpu', 'cuda' or 'cuda:N', got {d!r}")


def device_of(value) -> device:
    """Return the device an array lives on (`device('cpu')` or `device('cuda', N)`)."""
    return device(_device_of(value))


def parse_to_args(args, kwargs):
    """Read `Tensor.to(...)` arguments: returns `(device or None, dtype or None)`."""
    dev = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("copy", None)
    for a in args:
        if isinstance(a, TensorBase):
            dev, dtype = a.device, a.dtype
        elif isinstance(a, (device, int)) or (
            isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda")
        ):
            dev = a
        elif isinstance(a, str) and a.split(":")[0] in _UNSUPPORTED:
            _refuse_unsupported(a.split(":")[0], "funcgrad.Tensor.to")
        elif a is not None:
            dtype = to_dtype(a)
    return (None if dev is None else parse_device(dev)), dtype


def _already_on(current: device, target: device) -> bool:
    # 'cuda' without an index accepts any GPU the tensor is on already
    if current.type != target.type:
        return False
    return target.index is None or current.index == target.index
