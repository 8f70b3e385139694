"""Views and in-place operations, functionalized over the immutable graph (issue #14).

A view (`x[0]`, `x.view(4)`, `x.t()`, `x.detach()` ...) is an alias of its
base: `funcgrad.tensors.aliases` records how it was derived. Here are the
operations that make views and the one path every write takes:

* `write(t, result)`: `t` takes the values of `result` (its shape and
  dtype). Outside the graph (nothing recorded, grad mode off, or nothing
  requiring grad) the values are written into the root's array itself, so
  NumPy arrays and views sharing it see them, as in PyTorch. Otherwise the
  root gets a new node: an in-place operation on a view becomes an
  `index_update` of its root (the view's place in the root, `root_index`),
  whose VJP is known, so gradients flow through the write into the view's
  old values where they were kept and into the values written. Then every
  live alias is regenerated from the root, and the version counter moves.
  Graphs recorded before keep the nodes they hold, with their old values:
  there is no "modified by an inplace operation" error.
* `setitem(t, index, value)`: `t[index] = value`, one `index_update`.
* `check_inplace(t, name)`: PyTorch's refusals (a leaf that requires grad,
  or a view of one, outside `no_grad`; a view made under `no_grad`; an
  output of `split`/`unbind`).

`wrap_methods` (called by `funcgrad.tensors.methods.install`) and
`install_functions` (called by `funcgrad/__init__.py`) wrap the view
operations by name, so that their results are recorded as aliases; the
wrapper of a name is the same object on `Tensor` and in `funcgrad`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.backend import freeze, to_device, xp_of
from funcgrad.errors import IndexingError, InPlaceError, OpError
from funcgrad.graph import Node
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import index_of, normalize_axis
from funcgrad.ops.elementwise import imag as _imag
from funcgrad.ops.elementwise import real as _real
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import index_update, normalize_index
from funcgrad.ops.registry import Primitive
from funcgrad.tensors import grad_mode
from funcgrad.tensors.aliases import (
    Step,
    ViewInfo,
    assign,
    counter_of,
    derive,
    make_alias,
    refresh,
    replay,
    shares_memory,
    viewing,
)
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.devices import device_of
from funcgrad.tensors.engine import track
from funcgrad.tensors.tensor_class import Tensor, _apply, _read_value
from funcgrad.transforms.batching import Batched, check_write, vmapping

_ndarray = np.ndarray

# --- refusals -------------------------------------------------------------------------


def check_inplace(self: Tensor, name: str) -> None:
    """Refuse an in-place operation PyTorch refuses (outside `no_grad`).

    Raises:
        RuntimeError: For a leaf that requires grad, or a view of one; for a
            view made under `no_grad` of a tensor that requires grad; for an
            output of `split`, `chunk` or `unbind` of a tensor that requires grad.
    """
    if not grad_mode.is_grad_enabled():
        return
    info: Any = self._view
    if type(info) is ViewInfo:
        root = info.root._node
        if root is None or info.detached:
            return
        if root.prim is None:
            raise RuntimeError(
                f"a view of a leaf Variable that requires grad is being used in an in-place "
                f"operation ({name} on a view of shape {list(self._value.shape)}). Wrap the "
                f"update in `with funcgrad.no_grad():`, or operate on x.data"
            )
        for step in info.steps:
            if not step.record:
                raise RuntimeError(
                    f"A view was created in no_grad mode and is being modified inplace with grad "
                    f"mode enabled ({name}). Given that this use case is ambiguous and "
                    f"error-prone, it is forbidden. You can clarify your code by moving both the "
                    f"view and the inplace either both inside the no_grad block (if you don't "
                    f"want the inplace to be tracked) or both outside (if you want the inplace "
                    f"to be tracked)."
                )
            if step.multi is not None:
                fn, k = step.multi
                raise RuntimeError(
                    f"Output {k} of {fn} is a view and is being modified inplace ({name}). This "
                    f"view is the output of a function that returns multiple views. Such "
                    f"functions do not allow the output views to be modified inplace. You "
                    f"should replace the inplace operation by an out-of-place one."
                )
        return
    node = self._node
    if node is not None and node.prim is None:
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation "
            f"({name}). Wrap the update in `with funcgrad.no_grad():`, or operate on "
            f"x.data"
        )


_FILLS = frozenset({"fill_", "zero_"})  # the writes PyTorch allows into overlapping memory


def _check_overlap(t: Tensor, name: str, index: tuple[Any, ...] | None = None) -> None:
    """Refuse to write into an expanded tensor (two elements on one memory location), as PyTorch.

    PyTorch refuses when a dimension of more than one element has stride 0:
    the values' strides say so, or, below a step that gathers its values
    (`unfold`, `as_strided` ...), the positions the alias takes from its root.
    `index`: only the part of `t` that `t[index] = ...` writes.
    """
    value = t._value if index is None else t._value[index]
    if type(value) is Batched:  # under vmap: no memory of its own to overlap
        return
    strides = getattr(value, "strides", None)
    overlap = (
        bool(strides)
        and value.size
        and any(s == 0 and n > 1 for s, n in zip(strides or (), value.shape, strict=True))
    )
    info: Any = t._view
    if not overlap and type(info) is ViewInfo and any(s.kind == "expand" for s in info.steps):
        positions = flat_positions(info)
        if index is not None:
            positions = positions[index]
        overlap = positions.size and any(
            n > 1 and not np.diff(positions, axis=d).any() for d, n in enumerate(positions.shape)
        )
    if overlap:
        raise InPlaceError(
            f"funcgrad.Tensor.{name}: unsupported operation: more than one element of the "
            f"written-to tensor refers to a single memory location (an expanded tensor of "
            f"shape {list(value.shape)}). Please clone() the tensor before performing the "
            f"operation."
        )


# --- writes -----------------------------------------------------------------------------


def write(
    t: Tensor,
    result: Any,
    *,
    name: str,
    overwrites: bool = False,
    store: Callable[[Any], None] | None = None,
    recorded: bool | None = None,
    value_only: bool = False,
) -> None:
    """Make `result` the new value of `t` and of every alias of its root; move the version.

    Args:
        t: The tensor written into (a root or an alias).
        result: Its new values (a tensor of its shape and dtype), or a
            function that computes them (called only when needed).
        name: The operation, for messages.
        overwrites: `result` does not depend on `t`'s old values (`zero_`,
            `fill_`, `copy_`): a recorded root keeps its old history in the
            graph with a zero gradient, as in PyTorch.
        store: Writes the new values into `t`'s own array (`setitem` writes
            only the indexed part); default: copy all of `result`.
        recorded: Whether `result` is recorded, when `result` is a function.
        value_only: Change the values only (autograd does not see the write).

    Raises:
        InPlaceError: For a write into an expanded tensor (not `fill_`/`zero_`).
    """
    info: Any = t._view
    alias = type(info) is ViewInfo
    root = info.root if alias else t
    if name not in _FILLS and store is None:
        _check_overlap(t, name)
    memory = root._value
    recording = not value_only and grad_mode.is_grad_enabled()
    if recorded is None:
        recorded = not callable(result) and result._node is not None
    if vmapping():  # batched values cannot go into a tensor captured from outside the vmap
        result = _resolve(result)
        check_write(memory, result._value)
    if (
        root._node is None
        and type(memory) is _ndarray
        and (not recorded or not recording)
        and memory.flags.writeable
    ):
        # 1. Outside the graph: into the root's array itself (NumPy arrays sharing it see it).
        target = t._value
        if type(target) is _ndarray and target.flags.writeable and shares_memory(target, memory):
            if store is not None:
                store(target)
            else:
                np.copyto(target, _resolve(result)._value, casting="unsafe")
        else:
            new = _resolve(result)._value
            np.copyto(
                memory, _scatter_values(info, memory, new) if alias else new, casting="unsafe"
            )
        counter_of(t).n += 1
        refresh(root, memory)
        return
    # 2. A new node (or new values) for the root; graphs recorded before keep the old ones.
    result = _resolve(result)
    if not alias:
        _rebind(t, result, overwrites, recording)
    elif recording and not info.detached:
        _rebind(root, _scatter(info, root, result), False, recording)
    else:
        assign(root, _scatter_values(info, root._value, result._value))
    counter_of(t).n += 1
    refresh(root)
    if alias and recording and info.detached and result._node is not None:
        # NOTE: below `detach()` autograd sees the write into this tensor alone, as in
        # PyTorch (`d = y.detach(); d.copy_(w)`: d passes gradients to w, y does not)
        t._node = result._node
        t._value = result._node.value


def _resolve(result):
    return result if isinstance(result, Tensor) else result()


def _rebind(self: Tensor, result: Tensor, overwrites: bool, recording: bool) -> None:
    """Make root `self` stand for `result` (a new node when recorded; its values otherwise)."""
    if (
        recording
        and self._node is not None
        and self._node.prim is not None
        and (overwrites or result._node is None)
    ):
        # NOTE: an overwrite of a recorded non-leaf (zero_, fill_, copy_) is
        # recorded as in PyTorch: the tensor takes the new values, and its old
        # history stays in the graph with an exact zero gradient
        # (where(False, old, new)), so its inputs get zeros, not None.
        mask = np.zeros(self._value.shape, dtype=bool)
        result = _apply(fnp.where, mask, self, result)
    if recording and result._node is not None:
        node = result._node
        self._node = node
        self._value = node.value
        self._grad_fn = None
        if self._retains_grad:  # retain_grad follows the tensor to its new node
            track(self)
        return
    assign(self, result._value)


def root_index(info: ViewInfo) -> tuple[Any, ...]:
    """Where an alias sits in its root: the index that `index_update` writes it at.

    A view made by one basic index (`x[1:, 0]`) is written at that index;
    `detach()`, `.data`, `.real` and `.imag` cover the whole root
    (`Ellipsis`); any other chain (reshapes, transposes, diagonals, views of
    views) by the positions it takes from the root, found once by replaying
    the chain on the root's flat positions (`arange`). A 0-d root is
    written as its 1-element reshape, at the positions the alias takes.
    """
    idx: Any = info.scatter
    if idx is None:
        root = info.root._value
        shape = root.shape
        steps = [s for s in info.steps if s.kind not in ("detach", "real", "imag")]
        if not shape:
            idx = (freeze(flat_positions(info)),)
        elif not steps:
            idx = (Ellipsis,)
        elif len(steps) == 1 and steps[0].kind == "index":
            idx = steps[0].index
        else:
            xp = xp_of(root)
            positions = np.unravel_index(flat_positions(info), shape)
            idx = tuple(freeze(xp.asarray(a)) for a in positions)
        info.scatter = idx
    return idx


def flat_positions(info: ViewInfo) -> np.ndarray:
    """The row-major positions in the root of the alias's elements (an integer array of its shape)."""
    shape = info.root._value.shape
    steps = [s for s in info.steps if s.kind not in ("detach", "real", "imag")]
    positions = _new_like(Tensor, np.arange(int(np.prod(shape))).reshape(shape), None)
    return np.asarray(replay(positions, steps)._value)


def _component(info: ViewInfo) -> str | None:
    for s in info.steps:
        if s.kind in ("real", "imag"):
            return s.kind
    return None


def _scatter_values(info: ViewInfo, memory: Any, value: Any) -> Any:
    """The root's new values (an array) once the alias `info` describes holds `value`."""
    out = xp_of(memory).array(memory, copy=True)
    target = out if out.ndim else out.reshape(1)  # a 0-d root: its 1-element reshape
    part = _component(info)
    (target if part is None else getattr(target, part))[root_index(info)] = value
    return out


def _operand(t: Tensor, record: bool):
    return t._node if record and t._node is not None else t._value


def _scatter(info: ViewInfo, root: Tensor, result: Tensor) -> Tensor:
    """The root's new values once the alias holds `result`, recorded (an `index_update` node)."""
    r, v = _operand(root, True), _operand(result, True)
    idx = root_index(info)
    zero_d = not root._value.ndim
    if zero_d:  # written as its 1-element reshape
        r = _sh.reshape(r, shape=(1,))
    part = _component(info)
    if part is not None:  # the other part of the complex values stays as it was
        old = _getitem(r, index=idx)
        v = v + _imag(old) * 1j if part == "real" else _real(old) + v * 1j
    out = index_update(r, v, index=idx)
    if zero_d:
        out = _sh.reshape(out, shape=())
    if type(out) is Node:
        return _new_like(Tensor, out.value, out)
    return _new_like(Tensor, out, None)


# --- item assignment ---------------------------------------------------------------------


def setitem(self: Tensor, index: Any, value: Any) -> None:
    """`self[index] = value`, as PyTorch: recorded, differentiable in `self` and `value`.

    Every index PyTorch takes (ints, slices, `None`, `...`, boolean masks,
    integer tensors and lists, mixed); `value` a tensor (cast to `self`'s
    dtype, broadcast to the indexed shape) or a number. The overwritten
    elements pass no gradient to `self`'s old values.

    Raises:
        IndexError: For an index out of range (a `funcgrad.errors.IndexingError`).
        RuntimeError: On a leaf that requires grad (outside `no_grad`); for a
            value that does not broadcast to the indexed shape; for a complex
            number into a real tensor.
    """
    check_inplace(self, "__setitem__")
    split = _torch_split(index)
    if split is not None:  # the integers select first, as in PyTorch: write into that view
        setitem(self[split[0]], split[1], value)
        return
    idx = _setitem_index(index)
    target = self._value
    try:
        region = target[idx]
    except IndexError as e:
        raise IndexingError(
            f"funcgrad.Tensor.__setitem__: {e} (a tensor of shape {list(target.shape)}, "
            f"index {index!r})"
        ) from e
    basic = all(type(i) in (int, slice) or i is None or i is Ellipsis for i in idx)
    if basic:
        _check_overlap(self, "__setitem__", idx)
    shape = tuple(np.shape(region))
    v = _setitem_value(self, value, shape)
    info: Any = self._view
    if basic and type(info) is ViewInfo and any(s.kind == "expand" for s in info.steps):
        # NOTE: an expanded view holds one element several times: only the indexed part
        # is written (a view of it), so the other copies cannot write their old values back
        part = self[idx]
        if tuple(v._value.shape) != shape:
            v = _apply(functools.partial(_broadcast_to, shape), v)
        write(part, v, name="__setitem__", store=functools.partial(_store, (Ellipsis,), v))
        return

    def compute() -> Tensor:
        return _apply(functools.partial(_index_update, idx), self, v)

    write(
        self,
        compute,
        name="__setitem__",
        store=functools.partial(_store, idx, v),
        recorded=v._node is not None,
    )


def _store(index: tuple[Any, ...], v: Tensor, array: Any) -> None:
    array[index] = v._value


def _broadcast_to(shape, x):
    return _sh.broadcast_to(x, shape=shape)


def _index_update(index, x, values):
    return index_update(x, values, index=index)


def _as_int(i: Any) -> Any:
    return i if i is None or type(i) is int else operator.index(i)


def _setitem_index(index: Any) -> tuple[Any, ...]:
    """An index as `index_update` takes it: tensors as arrays, a 0-d integer tensor as an int."""
    parts = index if type(index) is tuple else (index,)
    out: list[Any] = []
    for p in parts:
        if isinstance(p, Tensor):
            v = _read_value(p, "__setitem__")  # a mask compile traces: a read (eager)
            out.append(int(v) if v.ndim == 0 and v.dtype.kind in "iu" else np.asarray(v))
        elif type(p) is slice:
            out.append(slice(_as_int(p.start), _as_int(p.stop), _as_int(p.step)))
        elif type(p) is list:
            out.append([q._value if isinstance(q, Tensor) else q for q in p])
        else:
            out.append(p)
    return normalize_index(tuple(out))


def _setitem_value(self: Tensor, value: Any, shape: tuple[int, ...]) -> Tensor:
    """`value` as a tensor of `self`'s dtype and device that broadcasts to `shape`."""
    dtype = self._value.dtype
    if isinstance(value, Tensor):
        v = value
        if device_of(v._value) != device_of(self._value):
            v = v.to(str(device_of(self._value)))
    else:
        if isinstance(value, (complex, np.complexfloating)) and dtype.kind != "c":
            raise OpError(
                f"value cannot be converted to type {dtype} without overflow (funcgrad.Tensor."
                f"__setitem__ of {value!r} into a tensor of dtype {dtype})"
            )
        array = np.asarray(value.item() if isinstance(value, np.generic) else value)
        if array.dtype.kind == "O":
            array = np.asarray(_plain_values(value))
        v = _new_like(Tensor, to_device(array.astype(dtype), str(device_of(self._value))), None)
    if v._value.dtype != dtype:
        v = v._astype(dtype)  # recorded where it is differentiable, as copy_
    vshape = tuple(v._value.shape)
    lead = 0
    while len(vshape) - lead > len(shape) and vshape[lead] == 1:
        lead += 1  # PyTorch drops a value's leading size-1 dimensions
    if lead:
        v = _apply(functools.partial(_reshape_to, vshape[lead:]), v)
        vshape = vshape[lead:]
    if not _broadcasts_to(vshape, shape):
        raise OpError(f"funcgrad.Tensor.__setitem__: {_expand_message(vshape, shape)}")
    return v


def _expand_message(src: tuple[int, ...], shape: tuple[int, ...]) -> str:
    """PyTorch's message for a value of shape `src` that does not broadcast to `shape`."""
    if len(src) > len(shape):
        return (
            f"the number of sizes provided ({len(shape)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(src)}) (a value of shape {list(src)} "
            f"for the indexed part of shape {list(shape)})"
        )
    lead = len(shape) - len(src)
    dim = next(
        i for i in reversed(range(len(shape))) if i >= lead and src[i - lead] not in (1, shape[i])
    )
    return (
        f"The expanded size of the tensor ({shape[dim]}) must match the existing size "
        f"({src[dim - lead]}) at non-singleton dimension {dim}.  Target sizes: {list(shape)}.  "
        f"Tensor sizes: {list(src)}"
    )


def _reshape_to(shape, x):
    return _sh.reshape(x, shape=shape)


def _plain_values(value):
    if isinstance(value, Tensor):
        return value._value
    if isinstance(value, (list, tuple)):
        return [_plain_values(v) for v in value]
    return value


def _broadcasts_to(src: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    if len(src) > len(shape):
        return False
    return all(s == 1 or s == n for s, n in zip(src, shape[len(shape) - len(src) :], strict=True))


# --- the view operations -----------------------------------------------------------------


def _same(parent: Tensor) -> Tensor:
    """A new tensor standing for `parent`'s values (a view operation that changed nothing)."""
    viewing.depth = getattr(viewing, "depth", 0) + 1
    try:
        return _apply(functools.partial(_reshape_to, tuple(parent._value.shape)), parent)
    finally:
        viewing.depth -= 1


def _stepped(fn: Callable[..., Any], args: tuple, kwargs: dict, item: int | None = None):
    """The replay of a view operation: `fn` applied to a new parent with the same arguments."""

    def again(parent: Tensor) -> Tensor:
        out = fn(parent, *args, **kwargs)
        if item is not None:
            out = out[item]
        return _same(parent) if out is parent else out

    return again


def _split_args(args: tuple, kwargs: dict):
    """The tensor a view operation was called on, and the other arguments."""
    if args:
        return args[0], args[1:], kwargs
    kwargs = dict(kwargs)
    for key in ("input", "self"):
        if key in kwargs:
            return kwargs.pop(key), (), kwargs
    return None, args, kwargs


def _view_op(fn: Callable[..., Any], maybe: bool, kind: str = "view") -> Callable[..., Any]:
    """Wrap a view operation: its result is recorded as an alias of its input.

    `maybe`: a reshape-like operation, a view only when PyTorch's is (the
    values need no copy); from a view that needs one, the result is a copy.
    """

    @functools.wraps(fn)
    def view(*args, **kwargs):
        parent, rest, kw = _split_args(args, kwargs)
        if not isinstance(parent, Tensor):
            return fn(*args, **kwargs)
        viewing.depth = getattr(viewing, "depth", 0) + 1
        try:
            out = fn(parent, *rest, **kw)
        finally:
            viewing.depth -= 1
        if not isinstance(out, Tensor):
            return out
        if out is parent:
            out = _same(parent)
        elif type(out._view) is ViewInfo:
            return out  # recorded already (a view made of views)
        elif maybe and parent._base is not None and not _reshapes(parent._value, out):
            return out  # a copy, as PyTorch's reshape of a view that is not contiguous
        return make_alias(parent, out, Step(_stepped(fn, rest, kw), kind))

    return view


def _reshapes(value: Any, out: Tensor) -> bool:
    """Whether `value` takes `out`'s shape without a copy (as PyTorch's strides would)."""
    if type(value) is _ndarray:
        try:
            np.reshape(value, out._value.shape, copy=False)
        except ValueError:
            return False
        return True
    if isinstance(value, np.generic):
        return True  # one element
    return shares_memory(out._value, value)


def _multi_view_op(fn: Callable[..., Any], label: str | None) -> Callable[..., Any]:
    """Wrap an operation that returns several views (`split`, `chunk`, `unbind` ...)."""

    @functools.wraps(fn)
    def views(*args, **kwargs):
        parent, rest, kw = _split_args(args, kwargs)
        if not isinstance(parent, Tensor):
            return fn(*args, **kwargs)
        viewing.depth = getattr(viewing, "depth", 0) + 1
        try:
            outs = fn(parent, *rest, **kw)
        finally:
            viewing.depth -= 1
        name = label
        if name == "Split" and rest and isinstance(rest[0], (list, tuple)):
            name = "SplitWithSizes"
        return type(outs)(
            make_alias(
                parent,
                o,
                Step(_stepped(fn, rest, kw, k), multi=None if name is None else (name, k)),
            )
            if isinstance(o, Tensor)
            else o
            for k, o in enumerate(outs)
        )

    return views


def _view_property(fget: Callable[[Tensor], Tensor], doc: str | None) -> property:
    def get(self: Tensor) -> Tensor:
        viewing.depth = getattr(viewing, "depth", 0) + 1
        try:
            out = fget(self)
        finally:
            viewing.depth -= 1
        if out is self:
            out = _same(self)
        elif type(out._view) is ViewInfo:
            return out  # recorded already (a view made of views)
        return make_alias(self, out, Step(_stepped(fget, (), {})))

    return property(get, doc=doc)


def _basic_index(index: Any) -> tuple[Any, ...] | None:
    """`index` normalized if it is basic (ints, slices, None, `...`): a view; else None (a copy)."""
    parts = index if type(index) is tuple else (index,)
    out: list[Any] = []
    for p in parts:
        t = type(p)
        if t is int or p is None or p is Ellipsis:
            out.append(p)
        elif t is slice:
            out.append(
                p
                if (p.start is None or type(p.start) is int)
                and (p.stop is None or type(p.stop) is int)
                and (p.step is None or type(p.step) is int)
                else slice(_as_int(p.start), _as_int(p.stop), _as_int(p.step))
            )
        elif isinstance(p, np.integer):
            out.append(int(p))
        elif isinstance(p, Tensor) or isinstance(p, _ndarray):
            v = p._value if isinstance(p, Tensor) else p
            if v.ndim or v.dtype.kind not in "iu":
                return None  # advanced indexing (a mask, an integer array): a copy
            out.append(int(v))  # a 0-d integer tensor selects, as an int does
        else:
            return None  # a list, a bool ...: advanced indexing
    return tuple(out)


def _torch_split(index: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """PyTorch's order for an index mixing integers with advanced parts: `(ints, rest)`, or None.

    PyTorch selects with every integer first (its dimension goes away) and
    then applies the advanced index (lists, integer or boolean tensors) to
    what is left, where NumPy counts an integer as one of the advanced
    parts: `x[0, :, [0, 0]]` of a (2, 3, 4) tensor is (3, 2) in PyTorch,
    (2, 3) in NumPy (whose advanced dimensions go first when the advanced
    parts are not next to each other). Returns the basic index of the
    integers (slices elsewhere, `None` dropped) and the index of the rest
    (the integers dropped), to apply one after the other; None when the
    index has no integer or no advanced part (NumPy's answer is PyTorch's).
    """
    if type(index) is not tuple:
        return None  # one part: nothing to order (the common `x[mask]`, `x[idx]`)
    kinds = [_index_kind(p) for p in index]
    if "bool" in kinds or "int" not in kinds or "advanced" not in kinds:
        return None  # a boolean scalar adds a dimension: NumPy's rules, as before
    first: list[Any] = []
    rest: list[Any] = []
    for p, kind in zip(index, kinds, strict=True):
        if kind == "int":
            first.append(int(p._value if isinstance(p, Tensor) else p))
        elif kind == "advanced":
            v = np.asarray(p._value if isinstance(p, Tensor) else p)
            first.extend([slice(None)] * (v.ndim if v.dtype == np.bool_ else 1))
            rest.append(p)
        else:  # None (a new axis, in `rest`), `...`, a slice (applied in `rest`)
            if p is not None:
                first.append(p if p is Ellipsis else slice(None))
            rest.append(p)
    return tuple(first), tuple(rest)


def _index_kind(p: Any) -> str:
    """ "int", "bool" (a scalar), "advanced" (lists, arrays), or "basic" (slices, None, `...`)."""
    t = type(p)
    if t is int:
        return "int"
    if t is slice or p is None or p is Ellipsis:
        return "basic"
    if t is bool or isinstance(p, np.bool_):
        return "bool"
    v = p._value if isinstance(p, Tensor) else p
    if isinstance(v, np.integer) or (
        isinstance(v, _ndarray) and not v.ndim and v.dtype.kind in "iu"
    ):
        return "int"
    return "advanced"


def _getitem_view(fn: Callable[[Tensor, Any], Tensor]) -> Callable[[Tensor, Any], Tensor]:
    """Wrap `Tensor.__getitem__`: a basic index gives a view, an advanced one a copy."""

    @functools.wraps(fn)
    def __getitem__(self, index):
        idx = _basic_index(index)
        if idx is None:
            split = _torch_split(index)
            if split is not None:  # the integers select first, as in PyTorch
                return __getitem__(__getitem__(self, split[0]), split[1])
            return fn(self, index)
        viewing.depth = getattr(viewing, "depth", 0) + 1
        try:
            out = fn(self, idx)
        finally:
            viewing.depth -= 1
        return make_alias(self, out, Step(functools.partial(_index_again, fn, idx), "index", idx))

    return __getitem__


def _index_again(fn, idx, parent):
    return fn(parent, idx)


# --- the view kinds this module adds (where the Tensor API has none yet) ------------------


def _dim(dim: Any, ndim: int, op: str) -> int:
    return normalize_axis(index_of(dim, op, "dim"), max(ndim, 1), op)[0]


def narrow(input, dim, start, length):  # noqa: A002
    """Return the part of `input` along `dim` from `start`, `length` long: a view.

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(6).narrow(0, 1, 3)
        tensor([1, 2, 3])
    """
    ndim = input.dim()
    if not ndim:
        raise OpError("funcgrad.narrow: narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, ndim, "narrow")
    size = input.shape[d]
    start = operator.index(start)
    length = operator.index(length)
    if start < 0:
        start += size
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise IndexingError(
            f"funcgrad.narrow: start ({start}) + length ({length}) exceeds dimension size "
            f"({size}) of dim {d} (shape {list(input.shape)})"
        )
    return input[(slice(None),) * d + (slice(start, start + length),)]


def select(input, dim, index):  # noqa: A002
    """Return the slice of `input` at `index` along `dim` (that dimension removed): a view.

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(6).reshape(2, 3).select(1, -1)
        tensor([2, 5])
    """
    ndim = input.dim()
    if not ndim:
        raise IndexingError("funcgrad.select: select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, ndim, "select")
    i = operator.index(index)
    size = input.shape[d]
    if not -size <= i < size:
        raise IndexingError(
            f"funcgrad.select: index {i} out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    return input[(slice(None),) * d + (i,)]


def unfold(input, dimension, size, step):  # noqa: A002
    """Return the windows of `size` elements along `dimension`, `step` apart, in a new last dimension.

    A view, as PyTorch's (its values are gathered; writes through it reach `input`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(5.0).unfold(0, 2, 2)
        tensor([[0., 1.],
                [2., 3.]])
    """
    ndim = input.dim()
    d = _dim(dimension, ndim, "unfold")
    n = input.shape[d] if ndim else 1
    size, step = operator.index(size), operator.index(step)
    if size > n or size < 0:
        raise OpError(
            f"funcgrad.unfold: maximum size for tensor at dimension {d} is {n} but size is {size}"
        )
    if step <= 0:
        raise OpError(f"funcgrad.unfold: step is {step} but must be > 0")
    starts = np.arange(0, n - size + 1, step)
    windows = freeze(starts[:, None] + np.arange(size))
    if not ndim:  # PyTorch: the 0-d tensor's element, `size` (0 or 1) times
        index = (slice(0, size),)
        return _apply(lambda x: _getitem(_sh.reshape(x, shape=(1,)), index=index), input)
    index = (slice(None),) * d + (windows,)
    return _apply(
        lambda x: fnp.moveaxis(_getitem(x, index=normalize_index(index)), d + 1, -1), input
    )


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """Return the diagonal of `input` over `dim1` and `dim2` (as a last dimension): a view.

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(4.0).reshape(2, 2).diagonal()
        tensor([0., 3.])
    """
    return _apply(lambda x: fnp.diagonal(x, offset, dim1, dim2), input)


def as_strided(input, size, stride, storage_offset=0):  # noqa: A002
    """Return a view of the elements under `input` with the given sizes, strides and offset.

    As in PyTorch, the strides and the offset count in the storage under a
    view: here, the elements of its base in row-major order (a tensor that
    is not a view is its own storage).

    Raises:
        funcgrad.errors.OpError: For sizes and strides of different lengths,
            or positions outside the storage.

    Examples:
        >>> import funcgrad as torch
        >>> torch.arange(6.0).as_strided((2, 2), (1, 2), 1)
        tensor([[1., 3.],
                [2., 4.]])
    """
    size = tuple(operator.index(s) for s in size)
    stride = tuple(operator.index(s) for s in stride)
    offset = operator.index(storage_offset)
    if len(size) != len(stride):
        raise OpError(
            f"funcgrad.as_strided: mismatch in length of strides and shape ({list(size)}, "
            f"{list(stride)})"
        )
    info: Any = input._view
    storage = input
    if type(info) is ViewInfo:  # the storage under a view is its root's
        storage = info.root
        if info.detached:  # below detach() or .data: with `input`'s version counter (.data's own)
            storage = storage.detach()
            storage._view.counter = info.counter
    positions = np.full(size, offset, dtype=np.intp)
    for k, (n, s) in enumerate(zip(size, stride, strict=True)):
        shape = [1] * len(size)
        shape[k] = n
        positions = positions + (np.arange(n) * s).reshape(shape)
    total = storage.numel()
    if positions.size and (positions.min() < 0 or positions.max() >= total):
        raise OpError(
            f"funcgrad.as_strided: setStorage: sizes {list(size)}, strides {list(stride)}, "
            f"storage offset {offset} reach outside the storage of {total} elements"
        )
    index = (freeze(positions),)
    gather = functools.partial(_gather_flat, index)
    if storage is input:
        return _apply(gather, input)
    out = derive(storage, functools.partial(_apply, gather), "expand")
    # PyTorch's refusals of in-place writes into `input` (an output of split, a view made
    # under no_grad) hold for this view of it too: steps that do nothing carry them
    marks = [s for s in info.steps if not s.record or s.multi is not None]
    if marks:
        steps = out._view.steps
        out._view.steps = (*steps[:-1], *map(_mark, marks), steps[-1])
    return out


def _unchanged(t):
    return t


def _mark(step: Step) -> Step:
    """A step that replays as nothing, with `step`'s grad mode and multi-output origin."""
    mark = Step(_unchanged)
    mark.record, mark.multi = step.record, step.multi
    return mark


def _gather_flat(index, x):
    return _getitem(_sh.reshape(x, shape=(-1,)), index=index)


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got "
            f"{self.dim()}-D tensor."
        )
    return self.transpose(-2, -1)


def _contiguous(t: Tensor) -> bool:
    # NOTE: a tensor that is not a view is contiguous, as PyTorch's results are (NumPy may
    # have laid its values out otherwise); a view is as its values' strides say.
    if t._base is None:
        return True
    flags = getattr(t._value, "flags", None)
    return flags is None or bool(flags.c_contiguous)


def is_contiguous(self, memory_format=None) -> bool:
    """Return whether the values are laid out row-major without gaps, as PyTorch says.

    A view that is transposed, expanded or strided (`x.t()`, `x[:, 0]`) is
    not; results of operations are.
    """
    if memory_format is not None and "channels_last" in str(memory_format):
        v = self._value
        if v.ndim not in (4, 5):
            return False
        order = (0, *range(2, v.ndim), 1)
        return bool(np.asarray(v).transpose(order).flags.c_contiguous)
    return _contiguous(self)


def contiguous(self, memory_format=None):
    """Return this tensor if it is contiguous, else a contiguous copy (in the graph)."""
    if is_contiguous(self, memory_format):
        return self
    return self.clone()


# --- installing ----------------------------------------------------------------------------

# The view operations, by name; a reshape-like one is a view only when PyTorch's is.
_VIEWS = frozenset(
    {
        "view_as", "expand", "expand_as", "broadcast_to", "transpose", "swapaxes", "swapdims",
        "permute", "movedim", "moveaxis", "t", "squeeze", "unsqueeze", "narrow", "select",
        "unfold", "diagonal", "as_strided", "unflatten", "adjoint", "view_as_real", "alias",
    }
)  # fmt: skip
_MAYBE_VIEWS = frozenset({"view", "reshape", "reshape_as", "flatten", "ravel"})
# Views that may put two elements on one memory location (see _check_overlap).
_EXPANDS = frozenset({"expand", "expand_as", "broadcast_to", "as_strided"})
# Operations returning several views, with the name PyTorch's refusal gives them (None: none).
_MULTI_VIEWS = {
    "split": "Split",
    "chunk": "Split",
    "unbind": "Unbind",
    "split_with_sizes": "SplitWithSizes",
    "tensor_split": None,
    "hsplit": None,
    "vsplit": None,
    "dsplit": None,
}
_VIEW_PROPERTIES = frozenset({"T", "mT"})
_OWN = {"contiguous": contiguous, "is_contiguous": is_contiguous}

# original function -> its wrapper (one wrapper per function, on Tensor and in funcgrad)
_WRAPPERS: dict[int, tuple[Any, Any]] = {}


def _wrapper(name: str, value: Any) -> Any:
    """The view-recording wrapper of `value`, the attribute `name` of a class or namespace."""
    if isinstance(value, property):
        if name not in _VIEW_PROPERTIES or value.fget is None:
            return value
        key = id(value.fget)
    elif callable(value) and not isinstance(value, (type, Primitive)):
        if (
            name not in _VIEWS
            and name not in _MAYBE_VIEWS
            and name not in _MULTI_VIEWS
            and name != "__getitem__"
        ):
            return value
        key = id(value)
    else:
        return value
    found = _WRAPPERS.get(key)
    if found is not None:
        return found[1]
    if isinstance(value, property):
        fget: Any = value.fget
        wrapped: Any = _view_property(fget, value.__doc__)
    elif name == "__getitem__":
        wrapped = _getitem_view(value)
    elif name in _MULTI_VIEWS:
        wrapped = _multi_view_op(value, _MULTI_VIEWS[name])
    else:
        wrapped = _view_op(value, name in _MAYBE_VIEWS, "expand" if name in _EXPANDS else "view")
    _WRAPPERS[key] = (value, wrapped)  # holds the original, so its id stays its own
    return wrapped


def wrap_methods(*classes: type) -> None:
    """Make the view methods of `classes` record their results as aliases (before installing them)."""
    for cls in classes:
        for name, value in list(vars(cls).items()):
            if name in _OWN:
                setattr(cls, name, _OWN[name])
                continue
            wrapped = _wrapper(name, value)
            if wrapped is not value:
                setattr(cls, name, wrapped)


_ADDED_METHODS = {
    "narrow": narrow,
    "select": select,
    "unfold": unfold,
    "diagonal": diagonal,
    "as_strided": as_strided,
}


def install() -> None:
    """Give `Tensor` item assignment and the view methods it lacks (after `methods.install`)."""
    setattr(Tensor, "__setitem__", setitem)  # noqa: B010  (installed, as the methods are)
    for name, fn in _ADDED_METHODS.items():
        if name not in vars(Tensor):
            # narrow and select index: their results are views already
            setattr(Tensor, name, fn if name in ("narrow", "select") else _wrapper(name, fn))
    if "mT" not in vars(Tensor):
        mT = property(_mT, doc="The transpose of the last two dimensions (a view).")
        setattr(Tensor, "mT", _wrapper("mT", mT))  # noqa: B010
    if "contiguous" not in vars(Tensor):
        Tensor.contiguous = contiguous
    if "is_contiguous" not in vars(Tensor):
        Tensor.is_contiguous = is_contiguous


def install_functions(namespace: dict[str, Any]) -> None:
    """Make the view functions of a namespace (`funcgrad`'s) record their results as aliases.

    A function that is also a `Tensor` method gets the method's wrapper.
    """
    for name, value in list(namespace.items()):
        if name.startswith("_"):
            continue
        wrapped = _wrapper(name, value)
        if wrapped is not value:
            namespace[name] = wrapped
