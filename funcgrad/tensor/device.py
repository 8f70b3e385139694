"""Devices of the imperative layer: `funcgrad.device('cpu')`, `'cuda'`, `'cuda:1'`.

Moving a tensor keeps it in the graph. CUDA needs CuPy and an NVIDIA GPU;
without them, `.cuda()` raises a clear error.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class device:  # noqa: N801  (PyTorch's name)
    """A device: its type (`'cpu'` or `'cuda'`) and index (None, or the GPU number).

    Examples:
        >>> import funcgrad as torch
        >>> torch.device("cuda:1")
        device(type='cuda', index=1)
    """

    type: str
    index: int | None = None

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


def parse_device(d) -> device:
    """Return `d` (a `device`, `'cpu'`, `'cuda'`, `'cuda:N'` or an int) as a `device`.

    Raises:
        ValueError: For anything else.
    """
    if isinstance(d, device):
        return d
    if isinstance(d, int):
        return device("cuda", d)
    text = str(d)
    kind, _, index = text.partition(":")
    if kind not in ("cpu", "cuda") or (index and not index.isdigit()):
        raise ValueError(f"funcgrad.device: expected 'cpu', 'cuda' or 'cuda:N', got {d!r}")
    return device(kind, int(index) if index else None)


def device_of(value) -> device:
    """Return the device an array lives on."""
    import sys

    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        return device("cuda", value.device.id)
    return device("cpu")


def parse_to_args(args, kwargs):
    """Read `Tensor.to(...)` arguments: returns `(device or None, dtype or None)`."""
    from funcgrad.tensor.dtypes import to_dtype
    from funcgrad.tensor.tensor import Tensor

    dev = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("copy", None)
    for a in args:
        if isinstance(a, Tensor):
            dev, dtype = a.device, a.dtype
        elif isinstance(a, (device, int)) or (isinstance(a, str) and a.split(":")[0] in ("cpu", "cuda")):
            dev = a
        elif a is not None:
            dtype = to_dtype(a)
    return (None if dev is None else parse_device(dev)), dtype


def move(t, target: device):
    """Return tensor `t` on `target`, recorded in the graph.

    Raises:
        RuntimeError: If CUDA is asked for and CuPy or a GPU is missing.
    """
    if device_of(t._value) == target or (target.type == "cpu" and device_of(t._value).type == "cpu"):
        return t
    from funcgrad.backend import to_device
    from funcgrad.tensor.tensor import _new_like

    moved = to_device(t._value, str(target))  # raises clearly without CuPy or a GPU
    if t._node is not None:
        # TODO(#8): a device-move primitive, so that gradients flow back across devices.
        raise NotImplementedError(
            f"funcgrad: moving a tensor that requires grad to {target} is not supported yet"
        )
    return _new_like(type(t), moved, None)
