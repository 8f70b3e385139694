"""In-place `Tensor` methods: compute the out-of-place result, then write it into the tensor.

`inplace(name, fn)` makes the method `name` (`add_`, `exp_`, `zero_` ...)
from the function `fn` that computes its result. The generated methods of
the primitive records (`_generated.DeclaredMethods`) and the hand-written
ones (`methods.TensorMethods`) both use it, so every in-place method goes
through the same three steps:

1. refuse what PyTorch refuses outside `no_grad` (`check_inplace`): a leaf
   that requires grad, a view of one, a view made under `no_grad`, an
   output of `split`/`unbind`;
2. fit the result to the tensor (`fit`): its shape must be the tensor's,
   and its dtype is cast to the tensor's where PyTorch's `canCast` allows;
3. write the result into the tensor (`rebind`, which is
   `funcgrad.tensors.views.write`). A recorded result (one that depends on
   a tensor that requires grad) is a new node, and the tensor becomes that
   node's non-leaf: gradients flow through the in-place operation, into the
   tensor's old history and into the other operands.

NOTE: views share writes, as in PyTorch, but the graph stays immutable
(funcgrad.tensors.views, docs/concepts/views.md): a write into a view is an
`index_update` node for its base, every alias of the base (the base, its
views, views of views, `detach()`, `.data`) reads the new values, and
graphs recorded before keep their old nodes and values, so no "modified by
an inplace operation" error can arise. A tensor outside any graph is written
into its own array (which NumPy arrays from `from_numpy`/`numpy()` share);
an array a graph holds is never written into.

The optimizers' doors (`funcgrad.optim`) write arrays their step computed:
`rebind_array` for a new array, and `writable`/`written` around an update
that goes into the tensor's own array (NumPy's `out=`, as PyTorch's
`param.add_`), taken only where no one but the tensor can see that array.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, Concatenate, ParamSpec

import numpy as np

from funcgrad.errors import InPlaceError
from funcgrad.tensors.aliases import ViewInfo, assign, counter_of, refresh, storage_of
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.dtypes import torch_name as torch_dtype_name
from funcgrad.tensors.tensor_class import Tensor
from funcgrad.tensors.views import check_inplace, write

_P = ParamSpec("_P")


def can_cast(from_dtype, to_dtype) -> bool:
    """Return whether an in-place result of `from_dtype` may be written into `to_dtype`.

    PyTorch's `canCast`: every cast is allowed except complex to non-complex,
    floating-point to integral and non-bool to bool. (NumPy's `same_kind`
    differs: it refuses int8 to uint8, which PyTorch allows.)

    Examples:
        >>> import numpy as np
        >>> can_cast(np.float64, np.float32), can_cast(np.float32, np.int64)
        (True, False)
    """
    src, dst = np.dtype(from_dtype).kind, np.dtype(to_dtype).kind
    if src == "c" and dst != "c":
        return False
    if src in "fc" and dst in "biu":
        return False
    return not (src != "b" and dst == "b")


def broadcast_error(name: str, shape: tuple, src_shape: tuple) -> InPlaceError:
    """The error for a value of shape `src_shape` that cannot be written into `shape`."""
    return InPlaceError(
        f"funcgrad.Tensor.{name}: output with shape {list(shape)} doesn't match the "
        f"broadcast shape {list(np.broadcast_shapes(shape, src_shape))}: an in-place "
        f"operation cannot change the shape of its tensor. Use the out-of-place "
        f"operation (t = t op other) to get the broadcast shape"
        if _broadcasts(shape, src_shape)
        else f"funcgrad.Tensor.{name}: a value of shape {list(src_shape)} cannot be "
        f"broadcast to the tensor's shape {list(shape)}"
    )


def _broadcasts(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def broadcasts_to(src_shape: tuple, shape: tuple) -> bool:
    """Return whether a value of shape `src_shape` broadcasts to exactly `shape`."""
    return _broadcasts(src_shape, shape) and np.broadcast_shapes(src_shape, shape) == shape


def fit(self: Tensor, result: Tensor, name: str) -> Tensor:
    """Return `result` with `self`'s dtype, checking it has `self`'s shape.

    Raises:
        InPlaceError: If the shapes differ, or if PyTorch's `canCast` refuses
            the cast of the result's dtype to the tensor's.
    """
    if not isinstance(result, Tensor):  # a Python number from a user's function
        raise TypeError(f"funcgrad.Tensor.{name}: expected a Tensor result, got {result!r}")
    shape, dtype = self._value.shape, self._value.dtype
    if result._value.shape != shape:
        raise broadcast_error(name, tuple(shape), tuple(result._value.shape))
    if result._value.dtype != dtype:
        if not can_cast(result._value.dtype, dtype):
            raise InPlaceError(
                f"funcgrad.Tensor.{name}: result type {torch_dtype_name(result.dtype)} "
                f"can't be cast to the desired output type {torch_dtype_name(dtype)} "
                f"(a tensor of shape {list(shape)} and dtype {dtype}; the result has dtype "
                f"{result.dtype}). An in-place operation keeps its tensor's dtype: convert "
                f"first (t = t.to({result.dtype}) or t = t.float()), or use the "
                f"out-of-place operation"
            )
        result = result._astype(dtype)  # recorded where it is differentiable
    return result


def inplace(
    name: str, out_of_place: Callable[Concatenate[Tensor, _P], Tensor], overwrites: bool = False
) -> Callable[Concatenate[Tensor, _P], Tensor]:
    """Return the in-place method `name`: `out_of_place`'s result, fitted and rebound into the tensor.

    Args:
        name: The method's name (`add_`), used in error messages.
        out_of_place: Computes the result from the tensor and the arguments.
        overwrites: The result does not depend on the tensor's old values
            (`zero_`, `fill_`, `copy_`): the tensor's old history is kept
            in the graph with a zero gradient, as in PyTorch.
    """

    def method(self: Tensor, *args: _P.args, **kwargs: _P.kwargs) -> Tensor:
        check_inplace(self, name)
        result = fit(self, out_of_place(self, *args, **kwargs), name)
        write(self, result, name=name, overwrites=overwrites)
        return self

    method.__name__ = name
    method.__doc__ = (
        f"In-place version of `{name.rstrip('_')}`: writes the result into this tensor."
    )
    return method


def rebind(self: Tensor, result: Tensor, overwrites: bool = False, name: str = "in-place") -> None:
    """Make `result` the new value of `self` (and of its views and base): an in-place write.

    `result` has `self`'s shape and dtype (see `fit`). It is recorded when
    it depends on a tensor that requires grad (and grad mode is on); then
    `self` becomes a non-leaf standing for its node. `overwrites`: see
    `inplace`. The common step of every in-place operation
    (`funcgrad.tensors.views.write`).
    """
    write(self, result, name=name, overwrites=overwrites)


def rebind_array(self: Tensor, value: Any, name: str = "in-place", writes: int = 1) -> None:
    """`rebind` for a new array: make `value` the new value of `self` (under `no_grad`).

    `value` has `self`'s shape and nothing else holds it: a NumPy array is
    locked read-only and taken as it is (the graph may keep it). A root leaf
    that requires grad (a parameter) takes the last steps of every write
    (`funcgrad.tensors.views.write` under `no_grad`: a new leaf node, the
    version moved, the aliases regenerated) without the checks and the
    dispatch, which cannot apply there (about 2 us instead of 5). `writes`:
    see `written`.
    """
    old, node = self._value, self._node
    if (
        node is not None
        and node.prim is None
        and type(value) is np.ndarray
        and type(old) is np.ndarray
        and type(self._view) is not ViewInfo
        and value.dtype == old.dtype
        and value.shape == old.shape
        and old.flags.c_contiguous  # no stride 0: nothing for `_check_overlap` to refuse
    ):
        value.setflags(write=False)  # so that `freeze` takes it without a copy
        assign(self, value)
        written(self, None, writes)
        return
    rebind(self, fit(self, _new_like(Tensor, value, None), name), name=name)
    counter_of(self).n += writes - 1


# sys.getrefcount(array) in `writable` when only the tensor (`_value`) and its leaf node
# (`value`) hold the array: those two, the local name and the call's argument
_ARRAY_REFS = 4
# sys.getrefcount(node) there when only the tensor (`_node`) holds its leaf node (the
# owner table `base._OWNERS` holds it weakly): that one, the local name and the argument
_NODE_REFS = 3


def writable(self: Tensor) -> np.ndarray | None:
    """The NumPy array of root `self`, made writable, when no one else can see it; else None.

    Then an update may be written into the array itself (`out=`), as
    PyTorch's in-place optimizer steps write into a parameter's storage,
    instead of into a new array: nothing but `self` holds the array and, for
    a leaf that requires grad, its leaf node. Not a graph (which holds the
    leaf node, or the array as a constant: it keeps its values, the write
    gets a new array), not an alias, a view or a `.numpy()` result (NumPy
    views hold their base), not another tensor. A tensor outside the graph
    whose array is writable is written into as every in-place operation
    writes into it (NumPy arrays sharing it see the change). Call
    `written(self, array)` after the update; only write arrays of the
    array's shape and dtype into it.
    """
    a = self._value
    if type(a) is not np.ndarray or type(self._view) is ViewInfo:
        return None
    node = self._node
    if node is None:
        return a if a.flags.writeable and a.flags.c_contiguous else None
    if (
        node.prim is not None
        or node.value is not a
        or a.base is not None  # then views of its base would not count below
        or not _COUNTS_HOLD[0]
        or sys.getrefcount(node) != _NODE_REFS
        or sys.getrefcount(a) != _ARRAY_REFS
    ):
        return None
    a.setflags(write=True)
    return a


def written(self: Tensor, array: np.ndarray | None, writes: int = 1) -> None:
    """Close an update into `array`, the array `writable(self)` gave: lock it, move the version.

    `writes`: the in-place operations PyTorch's version of the update makes
    (each moves `_version` by one). `array` None: `self` took a new array
    (`rebind_array`); live aliases are regenerated from it.
    """
    if array is not None and self._node is not None:
        array.setflags(write=False)
    storage: Any = self._view  # a root's: None or a `Storage`
    if storage is None:
        storage = storage_of(self)
    storage.counter.n += writes
    if storage.aliases:
        refresh(self, array)


def _counts_hold() -> bool:
    """Whether `writable`'s reference counts tell an unshared leaf from a shared one here.

    Checked once, on stand-ins with a tensor's and a leaf node's fields: on
    an interpreter whose counts differ (not CPython, or one that counts
    local names otherwise) every update takes a new array.
    """
    if sys.implementation.name != "cpython":
        return False
    a = np.zeros(1)
    probe: Any = SimpleNamespace(_value=a, _view=None, _node=SimpleNamespace(prim=None, value=a))
    del a
    alone = writable(probe) is not None
    probe._value.setflags(write=False)
    keep = [probe._value]  # someone else holds the array, then the node
    array_held = writable(probe) is None
    keep[0] = probe._node
    node_held = writable(probe) is None
    return alone and array_held and node_held


_COUNTS_HOLD = [True]
_COUNTS_HOLD[0] = _counts_hold()
