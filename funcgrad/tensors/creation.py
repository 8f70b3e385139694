"""Creating tensors: `tensor`, `ones`, `zeros`, `arange`, `*_like` ... with PyTorch's defaults.

Python floats become the default float dtype (float32); Python ints
become int64; NumPy arrays keep their dtype. `device=` ('cpu', 'cuda',
'cuda:N') creates the tensor there: constants are made by the device's
array module. Random tensors (`rand`, `randn` ...) are in
`funcgrad.tensors.random`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from funcgrad.backend import module_for, on_device, parse_device, to_device
from funcgrad.errors import ArgumentTypeError, OpError
from funcgrad.ops._util import index_of
from funcgrad.tensors.devices import device as _torch_device
from funcgrad.tensors.devices import parse_device as _parse_torch_device
from funcgrad.tensors.dtypes import (
    default_float_dtype,
    parse_type_name,
    set_default_dtype,
    to_dtype,
)
from funcgrad.tensors.legacy_types import _TensorType, require_cuda_type
from funcgrad.tensors.tensor_class import Tensor, _fresh_leaf, _to_array


def _size(size, op):
    """`*size` as PyTorch takes it (`ones(2, 3)` or `ones((2, 3))`): a tuple of ints >= 0.

    Raises:
        funcgrad.errors.ArgumentTypeError: For no size at all, or a size that is not an integer.
        funcgrad.errors.OpError: For a negative size.
    """
    if not size:  # `ones()`: PyTorch requires a size (`ones(())` is the 0-d tensor)
        raise ArgumentTypeError(
            f'funcgrad.{op}() missing 1 required positional arguments: "size"; give the '
            f"shape, e.g. {op}(2, 3), {op}((2, 3)), or {op}(()) for a 0-d tensor"
        )
    if len(size) == 1 and not hasattr(size[0], "__index__") and isinstance(size[0], Iterable):
        size = tuple(size[0])
    shape = tuple(index_of(s, op, "size") for s in size)
    if any(n < 0 for n in shape):
        raise OpError(
            f"funcgrad.{op}: Trying to create tensor with negative dimension "
            f"{min(shape)}: {list(shape)}; sizes are >= 0"
        )
    return shape


# The device of new tensors when none is given (`set_default_device`); None is the CPU.
_default_device: list[str | None] = [None]


def _device(device) -> str:
    """The device name for the backend (the default device for None: 'cpu' at start)."""
    if device is None:
        device = _default_device[0]
        if device is None:
            return "cpu"
    kind, index = parse_device(device)
    return kind if index is None else f"{kind}:{index}"


def set_default_device(device) -> None:
    """Make `device` the device of tensors created without `device=` (None: the CPU again).

    It applies to the creation functions (`tensor`, `zeros`, `ones`, `full`,
    `empty`, `arange`, `linspace`, `eye`, `rand`, `randn` ... and the modules'
    parameters, which they create); `from_numpy` stays on the CPU, and the
    `*_like` functions follow their input, as in PyTorch.

    Examples:
        >>> import funcgrad as torch
        >>> torch.set_default_device("cpu")
        >>> torch.get_default_device()
        device(type='cpu')
        >>> torch.set_default_device(None)
    """
    if device is None:
        _default_device[0] = None
        return
    d = _parse_torch_device(device)
    _default_device[0] = None if d.type == "cpu" else str(d)


def get_default_device() -> _torch_device:
    """Return the device of tensors created without `device=` (`device('cpu')` at start)."""
    current = _default_device[0]
    return _torch_device("cpu" if current is None else current)


def set_default_tensor_type(t) -> None:
    """Set the default float dtype (and device) from a tensor type, as PyTorch's deprecated function.

    Accepts `'torch.DoubleTensor'`, `'torch.cuda.FloatTensor'`, their
    `funcgrad.` spellings and the types `funcgrad.FloatTensor`, `funcgrad.DoubleTensor` ...

    Raises:
        TypeError: For a type that is not a floating-point tensor type (`funcgrad.Tensor`
            itself included, as in PyTorch).
        funcgrad.cuda.UnavailableTypeError: For a CUDA type (`'torch.cuda.FloatTensor'`,
            `funcgrad.cuda.FloatTensor`) where CuPy or a GPU is missing; nothing is changed.
            It is a DeviceError and a TypeError (PyTorch without CUDA raises a TypeError,
            "type torch.cuda.FloatTensor not available").
    """
    parsed = parse_type_name(t) if isinstance(t, str) else None
    if isinstance(t, _TensorType):  # funcgrad.FloatTensor, funcgrad.cuda.DoubleTensor ...
        parsed = (t.dtype, "cuda" if t.is_cuda else "cpu")
    if parsed is None or parsed[0].kind != "f":
        raise TypeError(
            f"funcgrad.set_default_tensor_type: only floating-point types are supported as "
            f"the default type, got {t!r}; prefer funcgrad.set_default_dtype and "
            f"funcgrad.set_default_device"
        )
    if parsed[1] == "cuda":  # UnavailableTypeError (a DeviceError and a TypeError) without a GPU
        name = "torch.cuda." + (t.rsplit(".", 1)[-1] if isinstance(t, str) else t.__name__)
        require_cuda_type(f"funcgrad.set_default_tensor_type({t!r})", name)
    set_default_dtype(parsed[0])
    set_default_device(None if parsed[1] == "cpu" else "cuda")


def _make(value, dtype, device, requires_grad, op):
    if dtype is not None:
        value = value.astype(to_dtype(dtype), copy=False)
    if device is None:
        device = _default_device[0]
    if device is not None:
        value = to_device(value, _device(device), op=op)
    return _fresh_leaf(Tensor, value, requires_grad)


def tensor(data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return a new leaf tensor holding a copy of `data`.

    Args:
        data: A number, a (nested) list, a NumPy array or a tensor.
        dtype: The dtype; by default float32 for Python floats, int64 for
            Python ints, and the array's own dtype for NumPy arrays.
        device: `'cpu'` (for CUDA, create here and call `.to('cuda')`).
        requires_grad: Record operations on it for differentiation.

    Examples:
        >>> import funcgrad as torch
        >>> torch.tensor([0.1, 1.0, 0.0001])
        tensor([1.0000e-01, 1.0000e+00, 1.0000e-04])
        >>> torch.tensor(1.0, requires_grad=True)
        tensor(1., requires_grad=True)
    """
    # Python floats go straight to the requested dtype (not through float32).
    try:
        value = _to_array(data, to_dtype(dtype) if dtype is not None else default_float_dtype())
    except ValueError as e:  # ragged nested lists
        raise OpError(
            f"funcgrad.tensor: the data is not a (nested) list of one shape: {e}"
        ) from None
    if isinstance(data, Tensor) or value.base is not None or value is data:
        value = np.array(value, copy=True)  # else `_to_array` made a new array already
    _check_data(value, data)
    if requires_grad and type(value) is np.ndarray:
        # NOTE: the leaf's value is read-only (requires_grad_ freezes it): this new array
        # is locked instead of copied once more
        value.setflags(write=False)
    return _make(value, dtype, device, requires_grad, "funcgrad.tensor")


def _check_data(value, data) -> None:
    """Refuse tensor data that is not numbers, as PyTorch does (`tensor(None)`, `tensor("abc")`)."""
    kind = value.dtype.kind
    if kind in "USV":
        raise ArgumentTypeError(
            f"funcgrad.tensor: new(): invalid data type {type(data).__name__!r} "
            f"(dtype {value.dtype}); tensor data are numbers or bools, or (nested) lists of them"
        )
    if kind in "OMm":
        bad = data
        flat = value.reshape(-1)
        for v in flat:
            if not isinstance(v, (int, float, complex, np.generic)):
                bad = v
                break
        raise OpError(
            f"funcgrad.tensor: Could not infer dtype of {type(bad).__name__}; tensor "
            f"data are numbers or bools, or (nested) lists of them"
        )


def from_numpy(array: np.ndarray) -> Tensor:
    """Return a tensor that shares memory with `array` (its dtype kept), as in PyTorch.

    Writing into `array` changes the tensor, and an in-place operation on
    the tensor (or on a view of it) changes `array`. Values a graph
    recorded never change: a graph that uses the tensor keeps a read-only
    copy of the array, or the array itself, locked, when nothing but the
    tensor holds it (`from_numpy(x.copy())`; `docs/concepts/views.md`). An array of a dtype
    NumPy stores in another byte order, or of a non-numeric dtype, is copied.

    Examples:
        >>> import numpy as np
        >>> import funcgrad as torch
        >>> a = np.arange(3.0)
        >>> t = torch.from_numpy(a)
        >>> a[0] = 5.0
        >>> t
        tensor([5., 1., 2.], dtype=funcgrad.float64)
        >>> t.add_(1)
        tensor([6., 2., 3.], dtype=funcgrad.float64)
        >>> a
        array([6., 2., 3.])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"funcgrad.from_numpy: expected np.ndarray (got {type(array).__name__})")
    if array.dtype.isnative and array.dtype.kind in "biufc":
        # NOTE: the array itself, not a view of it: a graph that uses the tensor then shares
        # the array, locked, when nothing but the tensor holds it (`from_numpy(x.copy())`:
        # no copy per use; tensor_class._graph_constant), and copies it otherwise
        shared = array if type(array) is np.ndarray else array.view(np.ndarray)  # a subclass
        return _fresh_leaf(Tensor, shared, False)
    return _fresh_leaf(Tensor, np.array(array, copy=True), False)


def _filled(fill, size, dtype, device, requires_grad, op):
    """Make a tensor with `fill(xp, shape, dtype, device)`, on the device itself."""
    shape = _size(size, op.removeprefix("funcgrad."))
    dt = to_dtype(dtype) if dtype is not None else default_float_dtype()
    where = _device(device)
    xp = module_for(where, op=op)  # raises clearly without CuPy or a GPU
    with on_device(where, op=op):
        value = fill(xp, shape, dt, where)
    return _fresh_leaf(Tensor, value, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return a tensor of ones of the given shape.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2, 2, requires_grad=True)
        tensor([[1., 1.],
                [1., 1.]], requires_grad=True)
    """
    return _filled(
        lambda xp, s, d, _: xp.ones(s, d), size, dtype, device, requires_grad, "funcgrad.ones"
    )


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return a tensor of zeros of the given shape."""
    return _filled(
        lambda xp, s, d, _: xp.zeros(s, d), size, dtype, device, requires_grad, "funcgrad.zeros"
    )


def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return a tensor of the given shape (filled with zeros here: no uninitialised memory)."""
    return _filled(
        lambda xp, s, d, _: xp.zeros(s, d), size, dtype, device, requires_grad, "funcgrad.empty"
    )


def full(size, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return a tensor of the given shape filled with `fill_value`."""
    if dtype is None and isinstance(fill_value, bool):
        dtype = np.bool_
    elif dtype is None and isinstance(fill_value, int):
        dtype = np.int64
    return _filled(
        lambda xp, s, d, _: xp.full(s, fill_value, dtype=d),
        (size,),
        dtype,
        device,
        requires_grad,
        "funcgrad.full",
    )


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return the numbers from `start` to `end` (excluded) by `step`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(3)
        tensor([0, 1, 2])
    """
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if hasattr(v, "item") else v for v in (start, end, step))
    if dtype is not None and to_dtype(dtype).kind in "iub":
        # NOTE: as PyTorch, an integer dtype truncates the bounds and step first
        # (arange(2.5, dtype=int64) is [0, 1]; a step of 0.5 becomes 0 and is refused)
        _check_range(start, end, step)
        start, end, step = int(start), int(end), int(step)
    _check_range(start, end, step)
    value = np.arange(start, end, step)
    if value.dtype.kind == "f" and dtype is None:
        value = value.astype(default_float_dtype())
    return _make(value, dtype, device, requires_grad, "funcgrad.arange")


def _check_range(start, end, step) -> None:
    """Refuse what PyTorch's arange refuses: a zero step, a step away from `end`, inf or NaN.

    Raises:
        funcgrad.errors.OpError: Naming the bounds and the step.
    """
    lo, hi, by = start, end, step
    what = f"(start={lo}, end={hi}, step={by})"
    if not all(np.isfinite(v) for v in (lo, hi)):
        raise OpError(
            f"funcgrad.arange: unsupported range: {lo} -> {hi} {what}; give finite bounds"
        )
    if by == 0:
        raise OpError(f"funcgrad.arange: step must be nonzero {what}")
    if not ((by > 0 and hi >= lo) or (by < 0 and hi <= lo)):
        raise OpError(
            f"funcgrad.arange: upper bound and lower bound inconsistent with step sign {what}; "
            f"a positive step counts up from start to end, a negative one down"
        )


def linspace(start, end, steps, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return `steps` numbers evenly spaced from `start` to `end` (both included)."""
    value = np.linspace(start, end, steps).astype(
        to_dtype(dtype) if dtype else default_float_dtype()
    )
    return _make(value, None, device, requires_grad, "funcgrad.linspace")


def eye(n, m=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Return the `n` x `m` identity matrix."""
    value = np.eye(n, m, dtype=to_dtype(dtype) if dtype else default_float_dtype())
    return _make(value, None, device, requires_grad, "funcgrad.eye")


def _like(maker):
    def like(input, dtype=None, device=None, requires_grad: bool = False):  # noqa: A002
        # NOTE: on input's device unless told otherwise, as in PyTorch
        return maker(
            tuple(input.shape),
            dtype=dtype or input.dtype,
            device=input.device if device is None else device,
            requires_grad=requires_grad,
        )

    return like


ones_like = _like(ones)
ones_like.__name__ = "ones_like"
ones_like.__doc__ = "Return a tensor of ones shaped (and typed) like `input`."
zeros_like = _like(zeros)
zeros_like.__name__ = "zeros_like"
zeros_like.__doc__ = "Return a tensor of zeros shaped (and typed) like `input`."
empty_like = _like(empty)
empty_like.__name__ = "empty_like"
empty_like.__doc__ = "Return a tensor shaped (and typed) like `input` (zeros here)."


def full_like(input, fill_value, dtype=None, device=None, requires_grad: bool = False):  # noqa: A002
    """Return a tensor shaped like `input` filled with `fill_value`."""
    return full(
        tuple(input.shape),
        fill_value,
        dtype=dtype or input.dtype,
        device=input.device if device is None else device,
        requires_grad=requires_grad,
    )


def is_tensor(obj) -> bool:
    """Return whether `obj` is a funcgrad tensor."""
    return isinstance(obj, Tensor)


def numel(input) -> int:  # noqa: A002
    """Return the number of elements of a tensor."""
    return input.numel()
