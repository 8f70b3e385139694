"""`Parameter`: a tensor that a `Module` registers as one of its parameters.

As in PyTorch, assigning a `Parameter` to a module attribute registers it
(`module.parameters()` yields it, `state_dict` saves it). A parameter is a
graph leaf that requires grad by default; operations on it give plain
tensors (`w * 2` is a `Tensor`, not a `Parameter`), and so do `.data`,
`.detach()` and its `.grad`.
"""

from __future__ import annotations

import numpy as np

from funcgrad.tensors.base import _init
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


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (PyTorch's lazy modules' parameter).

    It holds no values until `materialize(shape)` turns it into a
    `Parameter` of that shape (zeros, to be initialised by the module's
    `reset_parameters`). Using it before that raises.

    Examples:
        >>> import funcgrad as torch
        >>> p = torch.nn.UninitializedParameter()
        >>> p
        <UninitializedParameter>
        >>> p.materialize((2, 3))
        >>> type(p).__name__, tuple(p.shape)
        ('Parameter', (2, 3))
    """

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        super().__init__(None, requires_grad)
        self._uninit_dtype = dtype

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the parameter a shape (zero values) and make it a `Parameter`."""
        dt = dtype or getattr(self, "_uninit_dtype", None)
        dt = to_dtype(dt) if dt is not None else default_float_dtype()
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        requires_grad = self.requires_grad
        self.requires_grad_(False)
        self._value = np.zeros(shape, dtype=dt)
        self.__class__ = self.cls_to_become  # type: ignore[assignment]
        if requires_grad:
            self.requires_grad_(True)

    def __getattribute__(self, name):
        if name in _UNINITIALIZED_REFUSED:
            raise ValueError(
                f"Attempted to use an uninitialized parameter in {name}. This error happens "
                f"when you are using a `LazyModule` or explicitly manipulating "
                f"`funcgrad.nn.parameter.UninitializedParameter` objects. When using "
                f"LazyModules call `forward` with a dummy batch to initialize the "
                f"parameters before calling funcgrad functions"
            )
        return super().__getattribute__(name)


# Reading the values of an uninitialized parameter refuses (PyTorch's message).
_UNINITIALIZED_REFUSED = frozenset(
    {"shape", "size", "numpy", "tolist", "item", "sum", "mean", "dim", "numel"}
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


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (see `UninitializedParameter`)."""

    __slots__ = ()

    def __init__(self, requires_grad: bool = False, device=None, dtype=None):
        _init(self, np.zeros((0,), dtype=default_float_dtype()))

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the buffer a shape (zero values) and make it a plain tensor."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._value = np.zeros(shape, dtype=dtype or default_float_dtype())
        self.__class__ = Tensor  # type: ignore[assignment]


def is_lazy(param) -> bool:
    """Whether `param` is an uninitialized parameter or buffer."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))
