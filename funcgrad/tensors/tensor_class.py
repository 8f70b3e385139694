"""The PyTorch-style `Tensor`: a thin, mutable shell around an immutable node.

A tensor holds a value and, when it requires grad, a graph node. Every
operation goes through `funcgrad.numpy` on the tensor's node (or its plain
value when nothing requires grad or grad mode is off) and wraps the result
in a new tensor. In-place operations rebind the tensor to a new node; the
nodes themselves never change, so graphs built earlier keep their values.

Leaf tensors that require grad own a leaf node; a weak table of this layer
(`owner_of`) maps it back to the tensor, which is how a backward pass finds
where to accumulate `.grad`. The graph itself holds no reference to tensors.
"""

from __future__ import annotations

import warnings
from sys import getrefcount as _getrefcount
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from funcgrad.backend import freeze, to_device
from funcgrad.backend.arrays import REFCOUNTS_MEASURED
from funcgrad.errors import AxisError, DtypeError, OpError
from funcgrad.graph import Node
from funcgrad.graph.node import _report
from funcgrad.graph.node import value_readers as _value_readers
from funcgrad.ops import astype
from funcgrad.ops import observe as _observe
from funcgrad.ops._util import index_of, normalize_axis
from funcgrad.ops.device import move as _move_op
from funcgrad.ops.elementwise import imag as _imag
from funcgrad.ops.elementwise import real as _real
from funcgrad.ops.registry import Primitive
from funcgrad.ops.shape import copy as _copy
from funcgrad.tensors import grad_mode
from funcgrad.tensors.aliases import (
    Counter,
    Step,
    Storage,
    ViewInfo,
    assign,
    derive,
    make_alias,
    refresh,
    viewing,
)
from funcgrad.tensors.base import TensorBase, _init, _new_like, _own_leaf
from funcgrad.tensors.devices import _already_on, device_of, parse_device, parse_to_args
from funcgrad.tensors.dtypes import (
    FLOATING,
    REFUSES_COMPLEX,
    REFUSES_INTEGERS,
    SAME_DTYPE,
    default_float_dtype,
    parse_type_name,
    result_dtype,
    to_dtype,
    torch_name,
)
from funcgrad.tensors.engine import RemovableHandle, add_hooked, run_backward, track
from funcgrad.tensors.grad_fn import grad_fn_of
from funcgrad.tensors.missing import missing as _missing
from funcgrad.tensors.printing import format_tensor, type_name

if TYPE_CHECKING:
    from funcgrad.tensors.methods import TensorMethods as _Methods
else:
    # NOTE: cycle tensor_class <-> methods: the methods need Tensor, so
    # funcgrad.tensors.methods installs them on it when it loads (see there).
    _Methods = object

_grad_enabled = grad_mode.is_grad_enabled
_grad_mode_state = grad_mode._state  # `.enabled`: is_grad_enabled() without the call
# Keyword values `_unwrap` passes as they are (a primitive's static parameters).
_STATIC = frozenset({type(None), bool, int, float, str})


class Size(tuple):
    """A tensor's shape: a tuple that prints as `funcgrad.Size([2, 3])`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2, 3).size()
        funcgrad.Size([2, 3])
    """

    def __repr__(self) -> str:
        return f"funcgrad.Size({list(self)})"

    def numel(self) -> int:
        """Return the number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n


class Tensor(TensorBase, _Methods):
    """A multi-dimensional array that can record the operations applied to it.

    Mirrors `torch.Tensor`: `requires_grad`, `.backward()`, `.grad`,
    `.grad_fn`, hooks, operators and the usual methods. Calling
    `Tensor(data)` builds a tensor of the default float dtype (float32 unless
    changed), `Tensor(2, 3)` or `Tensor(x.shape)` one of that shape, as the
    legacy PyTorch constructor does; prefer `funcgrad.tensor(data)`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, 2, requires_grad=True)
        >>> y = x + 2
        >>> y
        tensor([[3., 3.],
                [3., 3.]], grad_fn=<AddBackward0>)
        >>> (y * y * 3).mean().backward()
        >>> x.grad
        tensor([[4.5000, 4.5000],
                [4.5000, 4.5000]])
    """

    __slots__ = ()
    # NOTE: PyTorch's `type(t)` prints <class 'torch.Tensor'>; ours prints <class 'funcgrad.Tensor'>
    # (the public path, which pickle also finds), not the private module that defines it
    __module__ = "funcgrad"
    _printed_name = "tensor"
    _data_class: ClassVar[type[Tensor] | None] = None  # the class of `.data` (None: its own)
    # NumPy defers binary operators to the tensor (`np.float64(2) * t` is
    # `t.__rmul__`), so NumPy scalars and arrays on the left act as on the right.
    __array_priority__ = 1000

    def __init__(self, *data, dtype=None, device=None, requires_grad: bool = False):
        if len(data) == 1 and isinstance(data[0], Size):
            # Tensor(x.shape): a new tensor of that shape, as PyTorch (the sizes are not data)
            value = np.zeros(
                tuple(data[0]),
                dtype=to_dtype(dtype) if dtype is not None else default_float_dtype(),
            )
        elif len(data) == 1 and not isinstance(data[0], int):
            # NOTE: the legacy constructor always gives the default float dtype
            # (`Tensor([1])` is float32 in PyTorch), unlike `funcgrad.tensor`.
            value = np.array(
                _to_array(data[0], dtype or default_float_dtype()),
                dtype=to_dtype(dtype) if dtype is not None else default_float_dtype(),
            )
        elif not data:  # Tensor(): an empty tensor, as in PyTorch
            value = np.zeros(
                (0,), dtype=to_dtype(dtype) if dtype is not None else default_float_dtype()
            )
        else:  # Tensor(2, 3): a new tensor of that shape (zeros here)
            value = np.zeros(tuple(int(d) for d in data), dtype=dtype or default_float_dtype())
        if device is not None:
            value = to_device(value, str(parse_device(device)), op="funcgrad.Tensor")
        _init(self, value)
        if requires_grad:
            self.requires_grad_(True)

    # --- identity and state -------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for differentiation."""
        return self._node is not None

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set `requires_grad` in place (only on leaves); return the tensor itself.

        Raises:
            RuntimeError: On a non-leaf tensor (use `.detach()` first), or
                for a dtype that is neither floating point nor complex (complex
                gradients follow PyTorch's convention: see the complex numbers
                page of the docs).
        """
        if requires_grad == self.requires_grad:
            return self
        if not self.is_leaf:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want "
                "to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach()."
            )
        if requires_grad:
            if self._value.dtype.kind not in "fc":
                raise RuntimeError(
                    f"only Tensors of floating point and complex dtype can require "
                    f"gradients (got dtype {self._value.dtype} for a tensor of shape "
                    f"{tuple(self._value.shape)})"
                )
            # The leaf node holds a read-only value (a copy if the array was
            # writeable), and so does the tensor: writing into
            # `x.detach().numpy()` cannot change a value a gradient uses.
            self._value = freeze(self._value)
            self._node = _own_leaf(self, self._value)
        else:
            self._node = None
        return self

    @property
    def is_leaf(self) -> bool:
        """Whether this tensor was made by the user rather than by an operation."""
        return self._node is None or self._node.prim is None

    @property
    def grad_fn(self):
        """The backward function of the operation that made this tensor (None on leaves).

        Its name is PyTorch's, declared in the primitive's record (`x * y` gives `MulBackward0`).
        """
        node = self._node
        if node is None or node.prim is None:
            return None
        if self._grad_fn is None or self._grad_fn._node is not node:
            self._grad_fn = grad_fn_of(node)
        return self._grad_fn

    @property
    def grad(self):
        """The accumulated gradient (a tensor), or None.

        Reading `.grad` of a non-leaf tensor that did not call `retain_grad()`
        warns and returns None, as in PyTorch.
        """
        if self._grad is None and not self.is_leaf and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                "accessed. Its .grad attribute won't be populated during "
                "autograd.backward(). If you indeed want the .grad field to be "
                "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                "Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None, got {type(value).__name__}"
            )
        if value is not None and tuple(value.shape) != tuple(self.shape):
            raise RuntimeError(
                f"assigned grad has data of a different size: {tuple(value.shape)} "
                f"versus {tuple(self.shape)}"
            )
        self._grad = value

    @property
    def data(self) -> Tensor:
        """The same values without the history: a tensor that does not require grad.

        It shares its values with this tensor, as in PyTorch: in-place
        operations on it (`x.data.fill_(0)`) change this tensor, and the other
        way round (graphs recorded before keep the old values). Unlike
        `detach()` it has its own version counter, and autograd does not see
        what is done through it.
        """
        if _value_readers and self._node is not None:  # funcgrad.compile: a value read
            _report(self._node, "tensor.data", None)
        t = _new_like(self._data_class or type(self), self._value, None)
        return make_alias(self, t, _DETACH, public=False, counter=Counter())

    @data.setter
    def data(self, other) -> None:
        # NOTE: the tensor takes the new values; its old aliases keep the old ones, as in PyTorch
        info = self._view
        if type(info) is ViewInfo:
            self._view = self._base = None
        elif info is not None:
            self._view = Storage(info.counter)
        assign(self, _unwrap_value(other))

    def detach(self) -> Tensor:
        """Return a tensor with the same values, cut from the graph.

        It shares its values with this tensor, as in PyTorch: an in-place
        operation on either shows in both (`x.detach().zero_()` zeroes `x`,
        which autograd does not see; graphs recorded before keep the old
        values).

        Examples:
            >>> import funcgrad as torch
            >>> torch.ones(1, requires_grad=True).detach().requires_grad
            False
        """
        if _value_readers and self._node is not None:  # funcgrad.compile: a value read
            _report(self._node, "tensor.detach()", None)
        t = _new_like(self._op_class or type(self), self._value, None)
        return make_alias(self, t, _DETACH, public=False)

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph, in place; return it.

        Raises:
            RuntimeError: On a view (as in PyTorch): use `detach()`.
        """
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead (funcgrad.Tensor.detach_ "
                f"on a view of shape {list(self._value.shape)})"
            )
        self._node = None
        return self

    @property
    def _version(self) -> int:
        """How many in-place operations changed this tensor's values (shared by a base and its views)."""
        info = self._view
        return 0 if info is None else info.counter.n

    def _is_view(self) -> bool:
        """Return whether this tensor is a view of another (`_base`), as PyTorch's `_is_view()`."""
        return self._base is not None

    def retain_grad(self) -> None:
        """Make a non-leaf tensor keep its `.grad` after backward."""
        if self._node is None:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if not self.is_leaf:
            self._retains_grad = True

            track(self)

    @property
    def retains_grad(self) -> bool:
        """Whether `retain_grad()` was called on this non-leaf tensor."""
        return self._retains_grad

    def register_hook(self, hook):
        """Register `hook(grad) -> Tensor or None`, called with this tensor's gradient.

        The hook may return a replacement gradient. It applies in every later
        backward pass through this tensor, including graphs recorded before
        it was registered. Returns a handle whose `.remove()` unregisters it.

        Raises:
            RuntimeError: If the tensor does not require grad.
        """
        if self._node is None:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")

        if self._hooks is None:
            self._hooks = {}
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        add_hooked(self)
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """Register `hook(tensor)`, called on a leaf after its `.grad` has been accumulated.

        Returns a handle whose `.remove()` unregisters it.
        """
        if not self.is_leaf or self._node is None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors "
                "or tensors that do not require grad"
            )

        if self._post_hooks is None:
            self._post_hooks = {}
        handle = RemovableHandle(self._post_hooks)
        self._post_hooks[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Accumulate the gradient of this tensor into the `.grad` of the leaves.

        The graph is immutable, so `backward` can run any number of times;
        `retain_graph` is accepted for compatibility and ignored.

        Args:
            gradient: The vector of the vector-Jacobian product (shaped like
                this tensor); may be omitted for a one-element tensor.
            retain_graph: Ignored (always possible).
            create_graph: Make the gradients themselves differentiable.
            inputs: Accumulate only into these tensors.

        Raises:
            RuntimeError: If this tensor does not require grad, or is not a
                one-element tensor and no `gradient` is given.
        """

        run_backward((self,), (gradient,), inputs=inputs, create_graph=create_graph)

    # --- values -------------------------------------------------------------

    def _set_value(self, value) -> None:
        """Rebind to a new value, keeping the history; the aliases see it (`aliases.assign`).

        On an alias, the values are written into its base (not recorded, as
        through `.data`).
        """
        info = self._view
        if type(info) is ViewInfo:
            # NOTE: cycle tensor_class <-> views (views needs Tensor); a rare path
            from funcgrad.tensors.views import write

            write(self, _new_like(Tensor, value, None), name="_set_value", value_only=True)
            return
        assign(self, value)
        if info is not None:
            refresh(self)

    @property
    def shape(self) -> Size:
        """The shape, as a `funcgrad.Size`."""
        return Size(self._value.shape)

    def size(self, dim: int | None = None):
        """Return the shape (or the length of dimension `dim`).

        Raises:
            funcgrad.errors.AxisError: If `dim` is out of range (a 0-d tensor has
                no dimensions), an `IndexError` as in PyTorch.
        """
        shape = self._value.shape
        if dim is None:
            return Size(shape)
        if not shape:
            raise AxisError(
                f"funcgrad.Tensor.size: Dimension specified as {dim} but tensor has no "
                f"dimensions; call size() for the (empty) shape"
            )
        axis = normalize_axis(index_of(dim, "Tensor.size", "dim"), len(shape), "Tensor.size")
        return shape[axis[0]]

    @property
    def dtype(self):
        """The NumPy dtype of the values."""
        return self._value.dtype

    @property
    def real(self) -> Tensor:
        """The real part: a view, as in PyTorch (writing into it changes this tensor).

        A real tensor's real part is the tensor itself, as in PyTorch.
        """
        if self._value.dtype.kind != "c":
            return self
        return _part(self, "real")

    @property
    def imag(self) -> Tensor:
        """The imaginary part: a view, as in PyTorch (writing into it changes this tensor).

        Raises:
            RuntimeError: For a tensor that is not complex (as PyTorch).
        """
        if self._value.dtype.kind != "c":
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        return _part(self, "imag")

    @property
    def device(self):
        """The device the values live on (`funcgrad.device('cpu')` or a CUDA device)."""

        return device_of(self._value)

    @property
    def is_cuda(self) -> bool:
        """Whether the values live on a CUDA device."""
        return self.device.type == "cuda"

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._value.ndim

    def dim(self) -> int:
        """Return the number of dimensions."""
        return self._value.ndim

    def numel(self) -> int:
        """Return the number of elements."""
        return int(self._value.size)

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._value)

    def __iter__(self):
        """Iterate over the first dimension: `t[0]`, `t[1]` ... (each in the graph).

        Raises:
            TypeError: For a 0-d tensor, as in PyTorch.
        """
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        # NOTE: taken at once (PyTorch unbinds), so an in-place update during
        # the loop does not change the rows still to come.
        return iter([self[i] for i in range(self._value.shape[0])])

    def item(self):
        """Return the value of a one-element tensor as a Python number."""
        if _value_readers and self._node is not None:  # funcgrad.compile: a value read
            _report(self._node, "tensor.item()", None)
        v = self._value
        if v.size != 1:
            raise RuntimeError(f"a Tensor with {v.size} elements cannot be converted to Scalar")
        # NumPy's item() takes any one-element array or scalar (a loss is often a scalar)
        return v.item() if isinstance(v, (np.ndarray, np.generic)) else v.reshape(()).item()

    def tolist(self):
        """Return the values as (nested) Python lists (copied from the GPU if there)."""
        if _value_readers and self._node is not None:  # funcgrad.compile: a value read
            _report(self._node, "tensor.tolist()", None)
        return self._value.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """Return the values as a NumPy array that shares memory with the tensor, as in PyTorch.

        Writing into the array changes the tensor (and its views), and an
        in-place operation on the tensor shows in the array. Values a graph
        recorded never change: when a graph holds this tensor's array
        (locked read-only, see `_graph_constant`), the tensor first moves to
        a writable copy, which it then shares with the array returned. The
        values of a tensor that requires grad are the graph's: through
        `x.detach().numpy()` they are read-only.

        Args:
            force: Return a copy for a tensor that requires grad or lives on
                a GPU, instead of raising (PyTorch's `force=True`).

        Raises:
            RuntimeError: If the tensor requires grad (call `.detach()` first),
                or lives on a GPU (call `.cpu()` first).
        """
        if _value_readers:  # funcgrad.compile: a value read (of a node or a traced mask)
            _read_value(self, "numpy()")
        if force and (self._node is not None or not isinstance(self._value, np.ndarray)):
            return np.array(to_device(self._value, "cpu"), copy=True)
        if self._node is not None:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        if not isinstance(self._value, (np.ndarray, np.generic)):
            raise TypeError(
                "can't convert cuda tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
            )
        value = self._value
        if type(value) is not np.ndarray or not value.flags.writeable:
            value = _writable(self)
        return value

    @staticmethod
    def __funcgrad_apply__(prim, args, params):
        """Apply a primitive to arguments that include tensors (`fnp.sin(t)`): a tensor back."""
        return _apply(lambda *xs: prim(*xs, **params), *args)

    @property
    def __funcgrad_node__(self):
        """The node the functional transforms see when a function returns this tensor."""
        return self._node

    @classmethod
    def __funcgrad_wrap__(cls, value):
        """A tensor holding what a functional transform gives back (`fg.grad(f)(t)`).

        A node keeps its graph (the tensor has a `grad_fn`, as with
        `torch.func.grad`); an array becomes a tensor that does not require grad.
        """
        if type(value) is Node:
            return _new_like(cls, value.value, value)
        return _new_like(cls, value, None)

    def __deepcopy__(self, memo):
        """A new tensor with a copy of the value: a leaf's copy is a new leaf, with its own `.grad`.

        As in PyTorch, only graph leaves (and tensors outside any graph) can be
        deep-copied; `requires_grad` is kept and `.grad` is deep-copied too
        (hooks are not). `copy.deepcopy` of a list or dict of parameters
        (target networks, EMA) copies each once.

        Raises:
            funcgrad.errors.OpError: On a non-leaf (a `RuntimeError`, as in PyTorch).
        """
        import copy

        if self._node is not None and self._node.prim is not None:
            raise OpError(
                f"Only Tensors created explicitly by the user (graph leaves) support the "
                f"deepcopy protocol at the moment (copy.deepcopy of a tensor of shape "
                f"{list(self._value.shape)} with grad_fn={self.grad_fn.name()}); deep-copy "
                f"x.detach() (and call requires_grad_() on the copy) instead"
            )
        t = _fresh_leaf(type(self), copy.deepcopy(self._value, memo), self._node is not None)
        t._volatile = self._volatile
        memo[id(self)] = t
        if self._grad is not None:
            t._grad = copy.deepcopy(self._grad, memo)
        if getattr(self, "__dict__", None):
            t.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return t

    def __getattr__(self, name: str):
        # only for names the class lacks: NotProvidedError for a name of torch.Tensor (#14)
        what = f"'{type(self).__name__}' object has no attribute '{name}'"
        raise _missing("torch.Tensor", name, "funcgrad.Tensor", what)

    def __reduce_ex__(self, protocol):
        """Pickle (and `copy.copy`) a tensor as its values and `requires_grad`, as PyTorch does.

        The history is not saved: a non-leaf comes back as a leaf that
        requires grad, and `.grad` and hooks are dropped. `copy.copy(t)` is
        a new leaf sharing `t`'s (immutable) values, so its gradient lands
        on the copy, not on `t`.
        """
        state = getattr(self, "__dict__", None) or None
        return (_rebuild, (type(self), self._value, self._node is not None, self._volatile), state)

    @staticmethod
    def __funcgrad_recording__():
        """The grad mode functional transforms run `f` in: on (torch.func ignores an outer no_grad)."""
        return grad_mode.enable_grad()

    def __array__(self, dtype=None, copy=None):
        if _value_readers and self._node is not None:  # funcgrad.compile: a value read
            _report(self._node, "tensor.__array__", None)
        if self._node is not None and _grad_enabled():
            # NOTE: NumPy reading a tensor that requires grad (np.exp(w)) would cut
            # it from the graph and silently drop that path's gradient (PyTorch raises).
            raise RuntimeError(
                f"Can't call numpy() on Tensor that requires grad (a NumPy function was "
                f"given a tensor of shape {tuple(self._value.shape)}): its gradient would be "
                f"silently lost. Use the funcgrad function (torch.exp, not np.exp) to keep "
                f"it, or tensor.detach() for a constant."
            )
        if not isinstance(self._value, (np.ndarray, np.generic)):
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                f"to copy the tensor to host memory first."
            )
        return np.asarray(self._value, dtype=dtype)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if _value_readers and self._node is not None:  # funcgrad.compile: a value read
            _report(self._node, "tensor.__bool__", None)
        if self._value.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous (shape "
                f"{tuple(self._value.shape)})"
            )
        return bool(self._value.reshape(()))

    def __index__(self) -> int:
        # NOTE: only integer tensors are indices (a float 2.5 as a size or dim would be
        # silently cut to 2); the TypeError is PyTorch's
        if self._value.dtype.kind not in "iub" or self._value.size != 1:
            raise TypeError(
                f"only integer tensors of a single element can be converted to an index "
                f"(got dtype {self._value.dtype}, shape {tuple(self._value.shape)})"
            )
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:

        return format_tensor(self)

    def __format__(self, spec: str) -> str:
        # NOTE: PyTorch's rule: a 0-dim plain Tensor formats as its Python number, whatever
        # the spec ('{}'.format(loss) prints 2.3075..., not tensor(2.3075)); anything else
        # (a 1-element tensor, a Parameter) formats as its str, and refuses a spec. PyTorch's
        # Variable(...), Variable.data, Buffer(...) and every result of them are plain Tensors,
        # so funcgrad's classes for them (which keep their class through operations:
        # `_op_class` None) format as numbers too; a Parameter (its operations give Tensors,
        # `_op_class` set) is a subclass in PyTorch as well, and refuses
        if self._value.ndim == 0 and self._op_class is None:
            return format(self._value.item(), spec)
        return object.__format__(self, spec)

    # --- devices and dtypes -------------------------------------------------

    def to(self, *args, **kwargs) -> Tensor:
        """Return the tensor converted to a dtype and/or moved to a device.

        Accepts `to(dtype)`, `to(device)`, `to(device, dtype)`, `to(other)`
        and the keywords `dtype=` and `device=`, as PyTorch does. The result
        stays in the graph (gradients flow back through the conversion).
        """

        device, dtype = parse_to_args(args, kwargs)
        out = self
        if dtype is not None and np.dtype(dtype) != self.dtype:
            out = out._astype(dtype)
        if device is not None:
            out = _move(out, device)
        return out

    def cpu(self) -> Tensor:
        """Return the tensor on the CPU (itself if already there)."""
        return self.to("cpu")

    def cuda(self, device=None) -> Tensor:
        """Return the tensor on a CUDA device (needs CuPy and an NVIDIA GPU)."""
        return self.to(
            "cuda"
            if device is None
            else f"cuda:{int(device)}"
            if isinstance(device, int)
            else device
        )

    def _astype(self, dtype) -> Tensor:
        dtype = to_dtype(dtype)
        if dtype.kind in "fc":
            return _apply(_astype_op, self, dtype)
        value = _read_value(self, "to")  # no node: under funcgrad.compile, a read (eager)
        return _new_like(self._op_class or type(self), value.astype(dtype), None)

    def type(self, dtype=None, non_blocking: bool = False):
        """Return the type name (`'funcgrad.FloatTensor'`), or convert to `dtype`.

        `dtype` may be a dtype, a type name in PyTorch's or funcgrad's
        spelling (`'torch.DoubleTensor'`, `'funcgrad.LongTensor'`,
        `'torch.cuda.FloatTensor'`, which also moves the tensor) or a legacy
        type (`funcgrad.DoubleTensor`, `funcgrad.cuda.FloatTensor`, moving too). The tensor
        itself is returned when it already has that type, as in PyTorch.

        Raises:
            funcgrad.errors.DtypeError: If `dtype` names no type.

        Examples:
            >>> import funcgrad as torch
            >>> torch.ones(2).type("torch.DoubleTensor").type()
            'funcgrad.DoubleTensor'
        """
        if dtype is None:
            return type_name(self)
        target = None
        if isinstance(dtype, str):
            parsed = parse_type_name(dtype)
            if parsed is None and "Tensor" in dtype:
                raise DtypeError(
                    f"funcgrad.Tensor.type: invalid type {dtype!r}; use a name like "
                    f"'torch.FloatTensor', 'torch.DoubleTensor', 'torch.LongTensor' (or "
                    f"'funcgrad.' ...), or a dtype"
                )
            if parsed is not None:
                dtype, kind = parsed
                target = None if kind == self.device.type else kind
        elif isinstance(getattr(dtype, "dtype", None), np.dtype) and hasattr(dtype, "is_cuda"):
            # a legacy type: funcgrad.DoubleTensor (the CPU), funcgrad.cuda.FloatTensor (a GPU)
            kind = "cuda" if dtype.is_cuda else "cpu"
            target = None if kind == self.device.type else kind
            dtype = dtype.dtype
        out = self if to_dtype(dtype) == self.dtype else self._astype(dtype)
        return out if target is None else out.to(target)

    def double(self) -> Tensor:
        """Return the tensor as float64."""
        return self._astype(np.float64)

    def float(self) -> Tensor:
        """Return the tensor as float32."""
        return self._astype(np.float32)

    def half(self) -> Tensor:
        """Return the tensor as float16."""
        return self._astype(np.float16)

    def long(self) -> Tensor:
        """Return the tensor as int64 (cut from the graph)."""
        return self._astype(np.int64)

    def int(self) -> Tensor:
        """Return the tensor as int32 (cut from the graph)."""
        return self._astype(np.int32)

    def bool(self) -> Tensor:
        """Return the tensor as bool (cut from the graph)."""
        return self._astype(np.bool_)

    def clone(self, *, memory_format=None) -> Tensor:  # every copy is row-major
        """Return a copy that stays in the graph (gradients flow back to this tensor).

        The copy never shares its values with this tensor (`.grad` is
        accumulated in place, so `x.grad.clone()` must stay as it was).
        """
        return _apply(_copy, self)


def _detached(parent: Tensor) -> Tensor:
    return _new_like(Tensor, parent._value, None)


_DETACH = Step(_detached, "detach")  # the step of `detach()` and `.data`


def _real_part(parent: Tensor) -> Tensor:
    return _apply(_real, parent)


def _imag_part(parent: Tensor) -> Tensor:
    return _apply(_imag, parent)


def _part(t: Tensor, kind: str) -> Tensor:
    """The real or imaginary part of a complex tensor, as a view."""
    return derive(t, _real_part if kind == "real" else _imag_part, kind)


def _rebuild(cls, value, requires_grad: bool, volatile: bool = False):
    """Make the tensor a pickle (or `copy.copy`) of a tensor saved (see `Tensor.__reduce_ex__`)."""
    t = _fresh_leaf(cls, value, requires_grad)
    t._volatile = volatile
    return t


def _astype_op(x, dtype):
    return astype(x, dtype=dtype)


def _to_array(data, float_dtype):
    """Convert tensor-constructor data to an array, PyTorch-style dtypes."""
    if isinstance(data, Tensor):
        return _read_value(data, "tensor()")  # under funcgrad.compile: a read (eager)
    if isinstance(data, (np.ndarray, np.generic)):
        return np.array(data)  # a NumPy array keeps its dtype (copied, as torch.tensor does)
    value = np.array(_plain(data))
    if value.dtype.kind == "f":
        value = value.astype(float_dtype)
    elif value.dtype.kind == "c" and float_dtype.kind != "c":
        # Python complex numbers: complex64 by default, as in PyTorch (complex128 with float64)
        value = value.astype(np.complex128 if float_dtype == np.float64 else np.complex64)
    return value


def _plain(data):
    if isinstance(data, Tensor):
        return _read_value(data, "tensor()")
    if isinstance(data, (list, tuple)):
        return [_plain(d) for d in data]
    return data


def _unwrap_value(x):
    return x._value if isinstance(x, Tensor) else x


def _read_value(x, what: str):
    """`x`'s values for a function that computes on them without recording (a comparison,
    the index of a maximum, `nonzero`, `any`, ...).

    Under `funcgrad.compile`'s trace such a result would be a constant of the plan, computed
    once from the traced call's values; the read is reported (`tensor.<what>`), so that
    signature runs eagerly with a warning instead of replaying a stale result.
    """
    if isinstance(x, Tensor):
        if _value_readers:
            if x._node is not None:
                _report(x._node, f"tensor.{what}", None)
            elif _is_traced(x._value):
                _report(None, f"tensor.{what}", None)  # type: ignore[arg-type]  # no node needed
        return x._value
    return x


def _is_traced(value) -> bool:
    """Whether `value` is a mask (or a value derived from one) that `funcgrad.jit` follows.

    `_traced_compare`'s masks are such arrays (they have `__funcgrad_value_call__`): ufuncs,
    followed methods and funcgrad operations on them are steps of the plan, but a function
    computing on their values otherwise would make a constant of the plan, so it reads them
    (`_read_value`), as a recorded tensor's.
    """
    return type(value) is not np.ndarray and hasattr(type(value), "__funcgrad_value_call__")


# The node comparison giving `a <op> b` from `b`'s side (`2 < x` is `x > 2`).
_FLIPPED = {"__lt__": "__gt__", "__le__": "__ge__", "__gt__": "__lt__", "__ge__": "__le__"}
_FLIPPED.update({v: k for k, v in _FLIPPED.items()}, __eq__="__eq__", __ne__="__ne__")


def _compare_operand(x, operand):
    """(node or None, value) of a comparison's operand; None when the traced route does not apply."""
    if isinstance(x, Tensor):
        node, value = x._node, x._value
        if type(value) is not np.ndarray or value.dtype.kind not in "biuf":
            return None  # a mask computed in the trace, a CuPy array, a complex tensor
        return node, (value if node is None else node)
    value = operand(x)
    if type(value) in (bool, int, float):
        return None, value
    if (type(value) is np.ndarray or isinstance(value, np.generic)) and value.dtype.kind in "biuf":
        return None, value
    return None


def _traced_compare(op: str, a, b, operand):
    """`a <op> b` (`op`: "__gt__", ..., "__eq__", "__ne__") as a mask `funcgrad.compile` traces.

    Under `funcgrad.compile`'s trace (a value reader is active) with a recorded, non-0-d
    operand, the comparison is computed by the graph node's operator, which `funcgrad.jit`
    hands back as a traced mask: the plan computes it where the graph takes it as data
    (`where(x > 0, x, 0)`), and Python reads of it are guards. `==` is `(a <= b) & (a >= b)`
    and `!=` its negation (nodes compare by identity), the same booleans as NumPy's for real
    dtypes, NaN included. Returns the mask array (plain when no trace is running in this
    thread: the eager values), or None where the route does not apply (no node, a 0-d node,
    a complex or non-NumPy operand): the caller reads the values (`_read_value`) instead.
    `operand` gives a non-tensor operand's value as the eager comparison sees it.
    """
    if not _value_readers:
        return None
    x, y = _compare_operand(a, operand), _compare_operand(b, operand)
    if x is None or y is None:
        return None
    if x[0] is None or not x[0].value.ndim:
        if y[0] is None or not y[0].value.ndim:
            return None  # no node, or 0-d ones: a read (guarding a 0-d mask is no gain)
        x, y, op = y, x, _FLIPPED[op]
    node, other = x[0], y[1]
    if op == "__eq__" or op == "__ne__":
        same = node.__le__(other) & node.__ge__(other)
        return same if op == "__eq__" else ~same
    return getattr(node, op)(other)


def _unwrap(x, record: bool):
    """What an operation sees of an argument: a node when recording, else a value."""
    if isinstance(x, Tensor):
        if record and x._node is not None:
            return x._node
        return x._value
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        # NOTE: a NumPy scalar acts as a Python number (PyTorch's rule), so
        # `x * np.float64(2)` stays float32 for a float32 `x`.
        return x.item()
    if isinstance(x, (list, tuple)):
        return _rebuilt(x, [_unwrap(v, record) for v in x])
    return x


def _rebuilt(seq, items):
    """`items` in a sequence of `seq`'s type: a list, a tuple or a namedtuple (`torch.return_types.max`)."""
    return type(seq)(*items) if hasattr(type(seq), "_fields") else type(seq)(items)


def _result_class(args) -> type:
    for a in args:
        if isinstance(a, Tensor):
            if type(a) is not Tensor and (a._op_class or type(a)) is not Tensor:
                return a._op_class or type(a)
        elif isinstance(a, (list, tuple)):
            for v in a:
                if isinstance(v, Tensor) and (v._op_class or type(v)) is not Tensor:
                    return v._op_class or type(v)
    return Tensor


def _any_volatile(args) -> bool:
    for a in args:
        if isinstance(a, Tensor) and a._volatile:
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(v, Tensor) and v._volatile for v in a):
            return True
    return False


def _wrap(result, cls, volatile: bool = False):
    if type(result) is Node:
        return _new_like(cls, result.value, result)
    if isinstance(result, (tuple, list)):
        return _rebuilt(result, [_wrap(r, cls, volatile) for r in result])
    t = _new_like(cls, result, None)
    t._volatile = volatile
    return t


def _apply(fn, *args, **kwargs):
    """Run `fn` (a funcgrad.numpy function) on tensors' nodes or values and wrap the result."""
    record = _grad_mode_state.enabled
    if record and type(fn) is Primitive and 0 < len(args) < 3 and not _observe.active:
        # NOTE: the commonest case first (issue 18, W3/W6): a primitive recorded on one or
        # two plain `Tensor`s of one floating-point dtype, or on one and a Python number,
        # with static parameters. What the loop below does then, without its bookkeeping.
        a = args[0]
        if type(a) is Tensor and not a._volatile and a._value.dtype.kind == "f":
            node = a._node
            if len(args) == 1:
                inputs = None if node is None else (node,)
            else:
                b = args[1]
                tb = type(b)
                if tb is Tensor:
                    other = b._node
                    if b._volatile or b._value.dtype is not a._value.dtype:
                        inputs = None
                    elif node is not None:
                        if other is not None:
                            inputs = (node, other)
                        else:  # a constant: its array as it is, when a graph may share it
                            v = b._value
                            locked = type(v) is np.ndarray and not v.flags.writeable
                            inputs = (node, v) if locked else None
                    elif other is not None:  # a constant first (X @ W)
                        v = a._value
                        locked = type(v) is np.ndarray and not v.flags.writeable
                        inputs = (v, other) if locked else None
                    else:
                        inputs = None
                elif (tb is float or tb is int) and node is not None:
                    inputs = (node, b)  # weak: the tensor's dtype (NEP 50, as PyTorch)
                else:
                    inputs = None
            if inputs is not None:
                for v in kwargs.values():
                    if type(v) not in _STATIC:
                        break
                else:
                    result = fn.bind(inputs, kwargs)
                    t = _object_new(Tensor)
                    _init(t, result.value, result)
                    return t
    # NOTE: otherwise tensors and numbers are handled in one pass; sequences of tensors
    # (cat, stack) and volatile Variables take the general path below.
    recorded = False
    constants = []  # where the arrays of constant tensors are in `unwrapped`
    cls = Tensor
    unwrapped = []
    append = unwrapped.append
    dtype = None  # the tensors' dtype, while they all have the same one
    mixed = False
    for a in args:
        if isinstance(a, Tensor):
            if a._volatile:
                break
            if cls is Tensor and type(a) is not Tensor:
                cls = a._op_class or type(a)
            if a._value.dtype is not dtype:
                if dtype is None:
                    dtype = a._value.dtype
                else:
                    mixed = True
            node = a._node
            if record and node is not None:
                append(node)
                recorded = True
            else:
                constants.append(len(unwrapped))
                append(a._value)
        elif type(a) is float or type(a) is int:
            append(a)
        elif isinstance(a, (list, tuple)):
            break
        else:
            append(_unwrap(a, record))
    else:
        # NOTE: PyTorch's type promotion. Tensors of one floating-point dtype with
        # Python numbers need none (NumPy keeps numbers weak, NEP 50): one check.
        # (Complex ones are checked: PyTorch refuses some operations on them.)
        if mixed or dtype is None or dtype.kind != "f":
            _promote_operands(fn, args, unwrapped, kwargs)
        if recorded and constants:
            for i in constants:
                v = unwrapped[i]
                if type(v) is np.ndarray and v.flags.writeable:
                    unwrapped[i] = _graph_constant(unwrapped, i)
        if kwargs:
            if recorded and type(fn) is Primitive and not _observe.active:
                for v in kwargs.values():
                    if type(v) not in _STATIC:
                        kwargs = {k: _unwrap(v, record) for k, v in kwargs.items()}
                        break
                # NOTE: as below, `Primitive.__call__`'s work for node arguments; static
                # parameters (axis=, keepdims=) are what `_unwrap` would give (mean, log_softmax)
                result = fn.bind(tuple(unwrapped), kwargs)
            else:
                result = fn(*unwrapped, **{k: _unwrap(v, record) for k, v in kwargs.items()})
        elif recorded and type(fn) is Primitive and not _observe.active:
            # NOTE: what `Primitive.__call__` does when an argument is a node
            # (`unwrapped` holds no Tensor), without its dispatch loop
            result = fn.bind(tuple(unwrapped), {})
        else:
            result = fn(*unwrapped)
        if type(result) is Node:
            t = object.__new__(cls)
            _init(t, result.value, result)
            return t
        if type(result) is np.ndarray:
            if result.base is not None:
                result = _unshared(result, args)
        elif isinstance(result, (tuple, list)):
            result = _rebuilt(result, [_unshared(r, args) for r in result])
        return _wrap(result, cls)
    return _apply_general(fn, args, kwargs)


_object_new = object.__new__


def _unshared(result, args):
    """`result` (a non-view operation's), copied if it shares memory with a writable input.

    NOTE: in-place operations write into a tensor's array when no graph
    holds it, so that NumPy arrays and views sharing it see the change, as in
    PyTorch. NumPy computes some operations that PyTorch copies (`flip`,
    `diag`, `rot90` ...) as views of their input: such a result would see
    the next write into its input too. View operations (`viewing.depth`)
    keep theirs: they are recorded as aliases (funcgrad.tensors.aliases).
    """
    if type(result) is not np.ndarray or result.base is None or getattr(viewing, "depth", 0):
        return result
    for a in args:
        for t in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(t, Tensor):
                v = t._value
                if type(v) is np.ndarray and v.flags.writeable and np.may_share_memory(result, v):
                    return result.copy()
    return result


def _writable(t) -> np.ndarray:
    """The array `t.numpy()` hands out: `t`'s own, made writable and shared if it can be.

    A tensor outside the graph whose root's array a graph locked (or a NumPy
    scalar) moves to a writable copy, which its aliases then share; the
    graph keeps the locked array. A recorded root's values stay read-only.
    """
    info = t._view
    root = info.root if type(info) is ViewInfo else t
    value = root._value
    if root._node is None and isinstance(value, (np.ndarray, np.generic)):
        if type(value) is not np.ndarray or not value.flags.writeable:
            root._value = np.array(value, copy=True)
            refresh(root)
    return np.asarray(t._value)


_TAKES_DTYPE = frozenset({"mean", "softmax", "log_softmax"})


def _promote_operands(fn, args, unwrapped: list, kwargs) -> list:
    """Cast the operands in `unwrapped` (what `fn` gets for `args`) to PyTorch's result dtype, in place.

    The result dtype is `torch.result_type` of the tensors and Python numbers
    among `args` (the condition of `where` aside); integer and bool operands
    of a floating-point primitive (`FLOATING`: exp, divide ...) give the
    default float dtype. Tensors of another dtype are converted (recorded, so
    their gradients flow back in their own dtype); numbers stay weak, so
    NumPy's result has that dtype too. Returns `unwrapped`.

    Raises:
        funcgrad.errors.OpError: For integer or bool input to an operation PyTorch
            refuses it to (`REFUSES_INTEGERS`: mean, var, softmax ...).
    """
    # a primitive's name, or a function's (`funcgrad.numpy.dot`)
    name = getattr(fn, "name", None) or getattr(fn, "__name__", None)
    start = 1 if name == "where" else 0  # the condition stays bool
    operands = []
    tensors = False  # whether a tensor is among the operands
    for a in args[start:]:
        if isinstance(a, Tensor):
            operands.append(a._value)
            tensors = True
        elif isinstance(a, np.generic) and a.dtype.kind in "biufc":
            operands.append(a.item())  # a NumPy scalar acts as a Python number (see _unwrap)
        elif isinstance(a, (bool, int, float, complex)):
            operands.append(a)
    if name == "clamp":  # a bound that is not given is a placeholder 0.0
        bounds = kwargs.get("bounds")
        if bounds != "both" and len(operands) == 3:
            del operands[2 if bounds == "min" else 1]
    elif name == "clip":  # number bounds are parameters
        operands.extend(b for b in (kwargs.get("a_min"), kwargs.get("a_max")) if b is not None)
    target = result_dtype(operands)
    if target is None or not (tensors or start):
        return unwrapped
    if name in SAME_DTYPE:
        _check_same_dtype(name, [v for v in operands if hasattr(v, "dtype")])
    if target.kind == "c" and name in REFUSES_COMPLEX:
        raise DtypeError(
            f'funcgrad.{name}: "{REFUSES_COMPLEX[name]}" not implemented for '
            f"'{torch_name(target)}', as in PyTorch; funcgrad.scipy.special.{name} computes "
            f"it at complex points (functional API)"
        )
    if target.kind in "biu":
        if name in FLOATING:
            target = default_float_dtype()
        elif name in REFUSES_INTEGERS:
            value = next(v for v in operands if not isinstance(v, (bool, int, float, complex)))
            raise OpError(
                f"funcgrad.{name}: "
                + REFUSES_INTEGERS[name].format(name=torch_name(value.dtype))
                + f" (a tensor of shape {list(value.shape)}); convert it first with x.float()"
                + (", or pass dtype=funcgrad.float32" if name in _TAKES_DTYPE else "")
            )
    for i in range(start, len(args)):
        a = args[i]
        if isinstance(a, Tensor):
            if a._value.dtype != target:
                v = unwrapped[i]
                unwrapped[i] = astype(v, dtype=target) if type(v) is Node else v.astype(target)
        elif not tensors and type(unwrapped[i]) in (bool, int, float, complex):
            # only numbers besides `where`'s condition: one carries the dtype (a 0-d
            # array is not weak), `where(c, 2.5, 0.0)` is float32 as in PyTorch
            unwrapped[i] = np.asarray(unwrapped[i], dtype=target)
            tensors = True
    return unwrapped


def _check_same_dtype(name: str, values: list) -> None:
    """Refuse operands of different dtypes, as PyTorch's `matmul`/`dot` do (they do not promote)."""
    for v in values[1:]:
        if v.dtype != values[0].dtype:
            a, b = values[0], v
            raise OpError(
                f"funcgrad.{name}: expected both operands to have the same dtype, but found "
                f"{torch_name(a.dtype)} and {torch_name(b.dtype)} (shapes {list(a.shape)} and "
                f"{list(b.shape)}); PyTorch does not promote here: convert one first, e.g. "
                f"b.to(a.dtype)"
            )


# References to a constant's array while `_graph_constant` looks at it: the
# tensor's `_value` slot, the `unwrapped` list, the local `v` of `_apply` and
# of `_graph_constant`, and `getrefcount`'s own argument (checked by
# tests/tensors/test_inplace_semantics.py). One more means some other object holds it:
# a NumPy view made before (`t.numpy()[:]`), the user's own variable, a
# second tensor sharing it (`t.detach()`) or a memoryview.
_PRIVATE_REFS = 5


def _graph_constant(unwrapped: list, i: int):
    """The array a graph records for the writeable array of a constant tensor, `unwrapped[i]`.

    NOTE: recorded values must stay as they were (DESIGN: read-only values).
    A tensor never writes into its array (in-place operations rebind), so
    the graph may share it, locked in place, when nothing else can write
    into it: it owns its memory and no other object (a NumPy view, the
    user's variable, another tensor) holds it. Otherwise the graph takes a
    read-only copy and the tensor keeps its array, so writing through a view
    taken earlier (`v = t.numpy()[:]`) still changes the tensor, as in
    PyTorch, but never a recorded value. Locking in place is the common case
    (a fresh result or a tensor made from data): no copy, and later uses
    find the array read-only and do nothing.
    """
    v = unwrapped[i]
    if REFCOUNTS_MEASURED and v.base is None and _getrefcount(v) <= _PRIVATE_REFS:
        v.setflags(write=False)
        return v
    return freeze(v)


def _apply_general(fn, args, kwargs):
    volatile = _any_volatile(args)
    record = not volatile and _grad_enabled()
    unwrapped = [_unwrap(a, record) for a in args]
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)) and any(isinstance(v, Tensor) for v in a):
            unwrapped[i] = _rebuilt(a, _promote_operands(fn, a, list(unwrapped[i]), {}))
    if not any(isinstance(a, (list, tuple)) for a in args):
        _promote_operands(fn, args, unwrapped, kwargs)
    result = fn(*unwrapped, **{k: _unwrap(v, record) for k, v in kwargs.items()})
    return _wrap(result, _result_class(args), volatile)


def _fresh_leaf(cls, value, requires_grad: bool):
    t = _new_like(cls, value, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _move(t, target):
    """Return tensor `t` on `target`, recorded in the graph (`t` itself if it is there).

    When `t` requires grad (and grad mode is on) the result is a new
    tensor with a `grad_fn` (`ToCopyBackward0`, as in PyTorch); backward moves its gradient
    back to `t`'s device.

    Raises:
        funcgrad.backend.DeviceError: If CUDA is asked for and CuPy or a
            GPU is missing.
    """
    if _already_on(device_of(t._value), target):
        return t
    return _apply(_move_op, t, str(target))
