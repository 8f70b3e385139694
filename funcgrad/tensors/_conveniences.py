"""Tensor conveniences: `new_*` constructors, `type_as`, sizes in bytes, strides, predicates, `apply_`.

The `Tensor` methods PyTorch programs use for bookkeeping rather than
math: `x.new_zeros(...)` (a tensor like `x`: its dtype and device unless
given), `x.type_as(y)`, `element_size()`/`nbytes`/`itemsize`, `stride()`
and `storage_offset()` (as PyTorch reports them: a result of an operation
is contiguous, a view is as its values are laid out), `is_floating_point()`
& co, and the Python-function loops `apply_`/`map_` (CPU tensors that do
not require grad, as in PyTorch). Also PyTorch's memory-format constants,
which funcgrad accepts where PyTorch takes them (every result is
contiguous).
"""

from __future__ import annotations

import numpy as np

from funcgrad.backend import device_of, to_device
from funcgrad.errors import OpError as _OpError
from funcgrad.ops._util import index_of, normalize_axis
from funcgrad.tensors import creation as _creation
from funcgrad.tensors.dtypes import to_dtype
from funcgrad.tensors.tensor_class import Tensor, _new_like

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "is_complex",
    "is_floating_point",
    "is_nonzero",
    "is_same_size",
    "memory_format",
    "preserve_format",
]


class memory_format:  # noqa: N801  (PyTorch's name)
    """A memory layout (`funcgrad.contiguous_format` ...): accepted, every result is row-major.

    Examples:
        >>> import funcgrad as torch
        >>> torch.channels_last
        funcgrad.channels_last
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"funcgrad.{self._name}"

    def __reduce__(self):
        return (_memory_format, (self._name,))


def _memory_format(name: str) -> memory_format:
    return globals()[name]


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


# --- predicates ------------------------------------------------------------------------------


def is_floating_point(input) -> bool:  # noqa: A002
    """Return whether `input` has a floating-point dtype.

    Examples:
        >>> import funcgrad as torch
        >>> torch.is_floating_point(torch.ones(1)), torch.is_floating_point(torch.tensor([1]))
        (True, False)
    """
    return np.dtype(input.dtype).kind == "f"


def is_complex(input) -> bool:  # noqa: A002
    """Return whether `input` has a complex dtype.

    Examples:
        >>> import funcgrad as torch
        >>> torch.is_complex(torch.tensor([1j]))
        True
    """
    return np.dtype(input.dtype).kind == "c"


def is_nonzero(input) -> bool:  # noqa: A002
    """Return whether the one element of `input` is not zero.

    Raises:
        RuntimeError: For an empty tensor or one of several elements (PyTorch's words).

    Examples:
        >>> import funcgrad as torch
        >>> torch.is_nonzero(torch.tensor([0.5]))
        True
    """
    n = int(np.prod(input.shape, dtype=np.int64))
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_same_size(input, other) -> bool:  # noqa: A002
    """Return whether two tensors have the same shape.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2, 3).is_same_size(torch.zeros(2, 3))
        True
    """
    return tuple(input.shape) == tuple(other.shape)


def _is_signed(self) -> bool:
    """Return whether the dtype is signed (floating point, complex and signed integers)."""
    return np.dtype(self.dtype).kind in "fci"


# --- new tensors like this one -----------------------------------------------------------------


def _like(self, dtype, device):
    return (
        self.dtype if dtype is None else to_dtype(dtype),
        str(self.device) if device is None else device,
    )


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, **_):
    """Return a tensor of `size` filled with `fill_value`, of this tensor's dtype and device unless given.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2, dtype=torch.float64).new_full((2,), 3)
        tensor([3., 3.], dtype=funcgrad.float64)
    """
    dtype, device = _like(self, dtype, device)
    size = (size,) if isinstance(size, int) else tuple(size)
    return _creation.full(size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def _sizes(size) -> tuple:
    if not size:
        raise TypeError('missing 1 required positional arguments: "size"')
    if len(size) == 1 and not isinstance(size[0], int) and not hasattr(size[0], "__index__"):
        return tuple(size[0])
    return tuple(size)


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False, **_):
    """Return a tensor of ones of `size`, of this tensor's dtype and device unless given.

    Examples:
        >>> import funcgrad as torch
        >>> torch.zeros(1).new_ones(2, 2)
        tensor([[1., 1.],
                [1., 1.]])
    """
    return _new_full(self, _sizes(size), 1, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False, **_):
    """Return a tensor of zeros of `size`, of this tensor's dtype and device unless given.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(1, dtype=torch.int64).new_zeros(3)
        tensor([0, 0, 0])
    """
    return _new_full(self, _sizes(size), 0, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False, **_):
    """Return an uninitialised tensor of `size` (zeros here), of this tensor's dtype and device.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(1).new_empty((2, 0)).shape
        funcgrad.Size([2, 0])
    """
    return _new_full(self, _sizes(size), 0, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, **_):
    """Return a new tensor of `data` (copied), of this tensor's dtype and device unless given.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(1).new_tensor([1, 2])
        tensor([1., 2.])
    """
    dtype, device = _like(self, dtype, device)
    if isinstance(data, Tensor):
        data = data.detach()
    return _creation.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def _type_as(self, other):
    """Return this tensor converted to `other`'s dtype (itself if it has it).

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(1).type_as(torch.tensor([1])).dtype
        dtype('int64')
    """
    return self if self.dtype == other.dtype else self.to(other.dtype)


# --- sizes and layout -------------------------------------------------------------------------


def _element_size(self) -> int:
    """Return the size of one element in bytes.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(1).element_size()
        4
    """
    return int(np.dtype(self.dtype).itemsize)


def _nbytes(self) -> int:
    return _element_size(self) * self.numel()


def _ndimension(self) -> int:
    """Return the number of dimensions (`dim()`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2, 3).ndimension()
        2
    """
    return self.dim()


def _contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _stride(self, dim=None):
    """Return the strides (in elements), or the stride of `dim`, as PyTorch reports them.

    The result of an operation is contiguous (row-major); a view has the
    strides of its values' layout (`x.t().stride()` is `(1, n)`).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, 3)
        >>> x.stride(), x.t().stride()
        ((3, 1), (1, 3))
    """
    shape = tuple(self.shape)
    v = self._value
    if self._base is not None and hasattr(v, "strides") and v.size:
        item = v.dtype.itemsize
        plain = _contiguous_strides(shape)
        # a dimension of size 1 that NumPy broadcast has stride 0 there, its stride in PyTorch
        strides = tuple(
            p if n == 1 and s == 0 else int(s) // item
            for s, n, p in zip(v.strides, shape, plain, strict=True)
        )
    else:
        strides = _contiguous_strides(shape)
    if dim is None:
        return strides
    if not shape:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides[normalize_axis(index_of(dim, "stride", "dim"), len(shape), "stride")[0]]


def _storage_offset(self) -> int:
    """Return the position of the first element in the storage under this tensor (0 unless a view).

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(6.0)[2:].storage_offset()
        2
    """
    if self._base is None:
        return 0
    v = self._value
    root = v
    while isinstance(getattr(root, "base", None), np.ndarray):
        root = root.base
    if not isinstance(root, np.ndarray) or root is v:
        return 0
    start = v.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return int(start // v.dtype.itemsize)


# --- Python loops over the elements ---------------------------------------------------------------


def _check_loop(self, name):
    if self.requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            f"instead."
        )
    if device_of(self._value) != "cpu":
        raise _OpError(f"funcgrad.Tensor.{name}: {name}_ is implemented for CPU tensors only")


def _apply_loop(self, callable):  # noqa: A002
    """Apply a Python function to each element, in place (CPU, no grad: slow, as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> torch.tensor([1.0, 2.0]).apply_(lambda v: v * 10)
        tensor([10., 20.])
    """
    _check_loop(self, "apply_")
    v = np.array(self._value, copy=True)
    flat = v.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] = callable(flat[i].item())
    return self.copy_(_new_like(Tensor, v, None))


def _map_loop(self, tensor, callable):  # noqa: A002
    """Set each element to `callable(self_element, tensor_element)` (`tensor` broadcast), in place.

    Examples:
        >>> import funcgrad as torch
        >>> torch.tensor([1.0, 2.0]).map_(torch.tensor([10.0, 20.0]), lambda a, b: a + b)
        tensor([11., 22.])
    """
    _check_loop(self, "map_")
    if tensor.dtype != self.dtype:
        raise TypeError(
            f"map_: expected a tensor of dtype {self.dtype} for 'other' (got {tensor.dtype})"
        )
    v = np.array(self._value, copy=True)
    other = np.broadcast_to(np.asarray(to_device(tensor._value, "cpu")), v.shape)
    flat, flat_o = v.reshape(-1), other.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] = callable(flat[i].item(), flat_o[i].item())
    return self.copy_(_new_like(Tensor, v, None))
