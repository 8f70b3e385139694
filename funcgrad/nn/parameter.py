"""`Parameter`: a tensor that a `Module` registers as one of its parameters.

As in PyTorch, assigning a `Parameter` to a module attribute registers it
(`module.parameters()` yields it, `state_dict` saves it). A parameter is a
graph leaf that requires grad by default; operations on it give plain
tensors (`w * 2` is a `Tensor`, not a `Parameter`), and so do `.data`,
`.detach()` and its `.grad`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from funcgrad.tensors.base import _init, _new_like
from funcgrad.tensors.creation import empty as _empty
from funcgrad.tensors.dtypes import default_float_dtype, to_dtype
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "is_lazy"]


def _value_of(data):
    if data is None:
        return np.zeros((0,), dtype=default_float_dtype())
    if isinstance(data, Tensor):
        return data._value
    if hasattr(data, "dtype") and hasattr(data, "shape"):
        # a NumPy (or CuPy) array: kept as it is, as torch.nn.Parameter keeps a tensor's storage
        return data
    raise TypeError(
        f"funcgrad.nn.Parameter: expected a Tensor (or an array) as data, got "
        f"{type(data).__name__}; wrap it first, e.g. Parameter(funcgrad.tensor(data))"
    )


class Parameter(Tensor):
    """A tensor that is a module parameter (as `torch.nn.Parameter`).

    Args:
        data: The initial values (a tensor or an array; None gives an empty
            tensor). The parameter is a new leaf sharing `data`'s values: it
            is cut from any graph `data` belongs to.
        requires_grad: Whether the parameter requires grad (default True).

    Examples:
        >>> import funcgrad as torch
        >>> p = torch.nn.Parameter(torch.ones(2))
        >>> p
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
        >>> type(p * 2).__name__, p.is_leaf
        ('Tensor', True)
    """

    _op_class = Tensor
    _data_class = Tensor

    def __init__(self, data=None, requires_grad: bool = True):
        _init(self, _value_of(data))
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class _UninitializedShapeError(RuntimeError, ValueError):
    """Reading an uninitialized parameter's shape: PyTorch's RuntimeError (a ValueError too,
    as funcgrad raised before PyTorch's class was matched)."""


def _placeholder(device, dtype):
    """The empty array an uninitialized parameter or buffer holds: its dtype and device only."""
    return _empty(0, dtype=dtype, device=device)._value


class _UninitializedMixin:
    """What uninitialized parameters and buffers share: refusals, repr, `materialize`."""

    __slots__ = ()  # so that an uninitialized buffer keeps a plain tensor's layout
    cls_to_become: type[Tensor] = Tensor

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give it a shape (zero values), then make it a `cls_to_become` (in place).

        `device` and `dtype` default to the ones it was created with (or
        moved to by `Module.to`), as PyTorch's `materialize`.
        """
        t: Any = self
        device = device if device is not None else t.device
        dtype = to_dtype(dtype) if dtype is not None else t._value.dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        requires_grad = t.requires_grad
        if requires_grad:
            t.requires_grad_(False)
        t._value = _empty(*shape, dtype=dtype, device=device)._value
        t.__class__ = self.cls_to_become
        if requires_grad:
            t.requires_grad_(True)

    def to(self, *args, **kwargs) -> Tensor:
        """The placeholder converted (`Module.to` before the first call sets what `materialize` makes)."""
        return _placeholder_tensor(self).to(*args, **kwargs)

    def double(self) -> Tensor:
        """The placeholder as float64 (see `to`)."""
        return _placeholder_tensor(self).double()

    def float(self) -> Tensor:
        """The placeholder as float32 (see `to`)."""
        return _placeholder_tensor(self).float()

    def half(self) -> Tensor:
        """The placeholder as float16 (see `to`)."""
        return _placeholder_tensor(self).half()

    def cpu(self) -> Tensor:
        """The placeholder on the CPU (see `to`)."""
        return _placeholder_tensor(self).cpu()

    def cuda(self, *args, **kwargs) -> Tensor:
        """The placeholder on a GPU (see `to`)."""
        return _placeholder_tensor(self).cuda(*args, **kwargs)

    def __getattribute__(self, name):
        if name in _UNINITIALIZED_REFUSED:
            if name == "shape":
                raise _UninitializedShapeError(
                    "Can't access the shape of an uninitialized parameter or buffer. This error "
                    "usually happens in `load_state_dict` when trying to load an uninitialized "
                    "parameter into an initialized one. Call `forward` to initialize the "
                    "parameters before accessing their attributes (funcgrad.nn lazy modules)."
                )
            what = "an operation" if name == "_op_class" else name
            raise ValueError(
                f"Attempted to use an uninitialized parameter in {what}. This error happens "
                f"when you are using a `LazyModule` or explicitly manipulating "
                f"`funcgrad.nn.parameter.{type(self).__name__}` objects. When using "
                f"LazyModules call `forward` with a dummy batch to initialize the "
                f"parameters before calling funcgrad functions"
            )
        return super().__getattribute__(name)


class UninitializedParameter(_UninitializedMixin, Parameter):  # type: ignore[misc]
    """A parameter whose shape is not known yet (PyTorch's lazy modules' parameter).

    It holds no values until `materialize(shape)` turns it into a
    `Parameter` of that shape (zeros, to be initialised by the module's
    `reset_parameters`). Before that, reading its shape or values and any
    operation on it raise, as in PyTorch; its flags (`requires_grad`,
    `is_leaf`), `dtype`, `device` and conversions (`to`, `double`, what
    `Module.to` calls: they set the dtype `materialize` gives) work.

    Args:
        requires_grad: Whether the parameter will require grad.
        device: The device it will be materialized on.
        dtype: The dtype it will be materialized with (default: the default
            float dtype).

    Examples:
        >>> import funcgrad as torch
        >>> p = torch.nn.UninitializedParameter(dtype=torch.float64)
        >>> p
        <UninitializedParameter>
        >>> p.materialize((2, 3))
        >>> type(p).__name__, tuple(p.shape), p.dtype
        ('Parameter', (2, 3), dtype('float64'))
    """

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        Parameter.__init__(self, _placeholder(device, dtype), requires_grad)


def _placeholder_tensor(t) -> Tensor:
    """A plain tensor holding an uninitialized value's (empty) placeholder array."""
    return _new_like(Tensor, object.__getattribute__(t, "_value"), None)


# Reading the values of an uninitialized parameter or buffer refuses (PyTorch's messages);
# `_op_class` is read by every operation on a tensor (the class of its result), so
# operations refuse too, instead of computing on the empty placeholder.
_UNINITIALIZED_REFUSED = frozenset(
    {"shape", "size", "numpy", "tolist", "item", "sum", "mean", "dim", "numel", "_op_class"}
)


class Buffer(Tensor):
    """Mark a tensor as a module buffer when assigned (as `torch.nn.Buffer`).

    Args:
        data: The values.
        persistent: Whether `state_dict` saves the buffer.

    Examples:
        >>> import funcgrad as torch
        >>> m = torch.nn.Module()
        >>> m.running = torch.nn.Buffer(torch.zeros(2))
        >>> list(dict(m.named_buffers()))
        ['running']
    """

    def __init__(self, data=None, *, persistent: bool = True):
        _init(self, _value_of(data))
        self.persistent = persistent


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer whose shape is not known yet (see `UninitializedParameter`).

    `materialize(shape)` turns it into a plain tensor of that shape (zeros).

    Examples:
        >>> import funcgrad as torch
        >>> b = torch.nn.UninitializedBuffer()
        >>> b
        <UninitializedBuffer>
        >>> b.materialize(3)
        >>> b
        tensor([0., 0., 0.])
    """

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device=None, dtype=None):
        _init(self, _placeholder(device, dtype))
        if requires_grad:
            self.requires_grad_(True)


def is_lazy(param) -> bool:
    """Whether `param` is an uninitialized parameter or buffer."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))
