"""`vmap`: run a function on every example of a batch at once, one batched primitive at a time.

The idea is JAX's batching interpreter. Inside `vmap(f)`, each mapped
argument is a `Batched` value: the whole batch (`val`) with the axis that
holds it (`bdim`) and the vmap it belongs to (`level`, 1 for the outermost).
`f` computes with it as with an array of one example's shape; every
primitive applied to it runs its batching rule (`funcgrad.ops.batching`)
once, on the whole batch, and gives a new `Batched` value. Where the batch
is not mapped (`None` in `in_axes`, closures, constants) values stay as they
are and broadcast against it. At the end, the batch axis of each output is
moved to `out_axes`.

Composition with the differentiating transforms needs no change to them:

* `vmap` inside a transform (`grad(lambda p: vmap(f)(p, xs).sum())`): the
  batched value holds the transform's graph node, and the batching rules
  apply primitives to nodes, so the transform records batched operations.
* a transform inside `vmap` (`vmap(grad(f))`): the transform makes a leaf
  holding the `Batched` value (a node *over* it) and records its graph as
  for one example; the values of that graph are batched, so its backward
  pass (VJP rules applied to batched values) computes every example's
  gradient at once. `Primitive.__call__` hands such nodes to this module
  (an observer of `funcgrad.ops.observe`, scoped to the thread while a
  vmap runs), which computes the batched value and records the node.

When values of several levels meet (nested vmaps, transforms between them),
the one of the innermost transform decides, as in JAX: a `Batched` value of
level L ranks above everything of lower levels; a node whose value belongs
to level L (one of a transform running inside that vmap) ranks above
`Batched` values of level L. Plain nodes made inside a vmap belong to the
level their inputs belong to (a new leaf to the vmap that made it), so a
transform inside a vmap never confuses its own variables with an outer
graph's.

`Batched` derives from a NumPy scalar type (`numpy.bytes_`) only so that
funcgrad's own code, which lets NumPy scalars pass unchanged where it
freezes or converts values, lets it pass too (an index computed from batched
values, a leaf holding one). Every method and operator is its own, and
NumPy converting it to an array (`numpy.asarray(x)`) raises, naming the
line: never a silently wrong number. Python control flow on it
(`if x.sum() > 0:`) raises `BatchingError` naming the line; funcgrad's own
checks of values (a rule's fast path for finite values, say) get the answer
every example agrees on.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy

from funcgrad.backend import freeze, rng, to_device
from funcgrad.errors import AxisError, BatchingError, FuncgradError, TreeStructureError
from funcgrad.graph import Node
from funcgrad.graph.node import _next_seq, make_node
from funcgrad.ops import batching as _table
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import observe
from funcgrad.ops import registry as _registry
from funcgrad.ops import shape as _shapes
from funcgrad.ops import ufuncs as _uf
from funcgrad.ops._util import all_finite, value_of
from funcgrad.ops.batching import Mapped, move
from funcgrad.ops.elementwise import identity
from funcgrad.ops.index import getitem
from funcgrad.ops.registry import Primitive
from funcgrad.ops.shape import broadcast_to, concatenate, reshape, stack
from funcgrad.transforms.forward import apply_jvp
from funcgrad.transforms.gradients import graph_output
from funcgrad.transforms.pytree import _handler, tree_flatten, tree_unflatten
from funcgrad.transforms.reverse import _fit

_SCALARS = (float, int, bool, complex)
_ndarray = numpy.ndarray


class BatchingWarning(UserWarning):
    """A primitive without a batching rule ran once per example inside `funcgrad.vmap`."""


# --- the batched value ---------------------------------------------------------------------


if TYPE_CHECKING:  # NOTE: the checker sees a plain class: Batched redefines what NumPy's stubs type
    _ScalarBase = object
else:
    # NOTE: funcgrad.ops.elementwise.guard recognises a batched cotangent by this base class
    _ScalarBase = numpy.bytes_


class Batched(_ScalarBase):
    """A value inside `funcgrad.vmap`: the whole batch, seen as one example.

    Attributes:
        val: The values of every example (an array, a graph node, or a
            `Batched` value of an outer vmap), stacked along `bdim`.
        bdim: The axis of `val` that holds the batch, or None if every
            example has the same value (`val` itself).
        level: The vmap it belongs to (1 for the outermost one running).
        how: `"any"` or `"all"` for the result of `.any()` or `.all()`: what
            funcgrad's own checks read of it (`if not mask.any():` is true
            when no example has a true entry), None otherwise.
    """

    # NOTE: a bytes subclass cannot have slots; the four attributes live in the instance dict
    val: Any
    bdim: int | None
    level: int
    how: str | None

    # NOTE: NumPy calls these for `array + x`, `np.exp(x)`, `np.zeros_like(x)`.
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__" and not kwargs and ufunc.__name__ not in _NOT_DIFFERENTIABLE:
            # `array * x`, `np.exp(x)`: funcgrad's primitive of that name, which batches
            prim = _ufunc_primitive(ufunc.__name__)
            if prim is not None:
                return prim(*inputs)
        if method != "__call__" or kwargs or ufunc.signature is not None:
            raise BatchingError(
                f"funcgrad.vmap: numpy.{ufunc.__name__}{'' if method == '__call__' else '.' + method}"
                f" was called on a batched value{' with ' + ', '.join(kwargs) if kwargs else ''}; "
                f"use the funcgrad.numpy function (fnp.{ufunc.__name__}), which batches"
            )
        return _value_level(ufunc, inputs, ufunc.__name__ in _NOT_DIFFERENTIABLE)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # whether funcgrad.numpy called it (which records on nodes) or the user's own code
        return _numpy_function(func, args, kwargs, _internal(sys._getframe(1)))

    @staticmethod
    def __funcgrad_apply__(prim: Primitive, args: tuple[Any, ...], params: dict[str, Any]) -> Any:
        return _apply(prim, args, params)

    # --- what an example looks like ----------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of one example."""
        v = self.val
        s: tuple[int, ...] = v.shape if type(v) is _ndarray else getattr(v, "shape", ())
        d = self.bdim
        if d is None:
            return s
        return s[1:] if d == 0 else s[:d] + s[d + 1 :]

    @property
    def dtype(self) -> Any:
        """The dtype of the values."""
        v = self.val
        if type(v) is _ndarray:
            return v.dtype
        return getattr(v, "dtype", None) or numpy.result_type(v)

    @property
    def ndim(self) -> int:
        """The number of axes of one example."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of entries of one example."""
        n = 1
        for k in self.shape:
            n *= k
        return n

    def __len__(self) -> int:
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d batched value (each example is a scalar)")
        return s[0]

    def __repr__(self) -> str:
        axis = "not mapped" if self.bdim is None else f"axis {self.bdim}"
        return (
            f"Batched(level {self.level}, {axis} of {type(self.val).__name__}, "
            f"example shape {self.shape}, dtype {self.dtype})"
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if not spec:
            return repr(self)
        raise _concretization("format()", sys._getframe(1))

    def __hash__(self) -> int:
        return id(self)

    def __copy__(self) -> Batched:
        return self

    def __deepcopy__(self, memo: Any) -> Batched:
        return self

    def __bytes__(self) -> bytes:
        # NOTE: what NumPy calls when it converts this value to an array (numpy.asarray)
        frame = sys._getframe(1)
        raise BatchingError(
            f"funcgrad.vmap: a batched value was converted to a NumPy array (numpy.asarray or "
            f"numpy.array) at {frame.f_code.co_filename}, line {frame.f_lineno}; that code "
            f"reads one array where vmap has one per example, so it has no batched form. Use "
            f"funcgrad.numpy functions (which batch), or compute this outside the vmapped "
            f"function"
        )

    def __reduce__(self) -> Any:
        raise BatchingError(
            "funcgrad.vmap: a batched value cannot be pickled; return it from the vmapped "
            "function and save the result"
        )

    # --- Python reading a value: only where every example agrees -------------------------------

    def __bool__(self) -> bool:
        return bool(_concrete(self, "bool()", sys._getframe(1)))

    def __int__(self) -> int:
        return int(_concrete(self, "int()", sys._getframe(1)))

    def __index__(self) -> int:
        return int(_concrete(self, "operator.index()", sys._getframe(1)).__index__())

    def __float__(self) -> float:
        frame = sys._getframe(1)
        if frame.f_code is _ALL_FINITE:
            # NOTE: `all_finite`'s math.isfinite(v) (the guard of zero cotangents, on every
            # batched cotangent): its answer for the whole batch, NaN meaning "look closer"
            v = _innermost(self)
            if type(v) is _ndarray:
                return 0.0 if math.isfinite(numpy.vdot(v, v).real) else math.nan
        return float(_concrete(self, "float()", frame))

    def __complex__(self) -> complex:
        return complex(_concrete(self, "complex()", sys._getframe(1)))

    def item(self, *args: Any) -> Any:
        """Refused for a batched value (one number per example), unless every example agrees.

        funcgrad's own code that takes a NumPy scalar as a number (`x.item()`,
        the Tensor layer's weak scalars) gets the batched value itself, which
        computes like one.
        """
        frame = sys._getframe(1)
        if args or not _internal(frame):
            return _concrete(self, ".item()", frame).item(*args)
        return self

    def tolist(self) -> Any:
        """Refused for a batched value, unless every example agrees."""
        return _concrete(self, ".tolist()", sys._getframe(1)).tolist()

    # --- comparisons and masks: computed on the values, no gradient ---------------------------

    def __lt__(self, other: Any) -> Any:
        return _value_level(numpy.less, (self, other), True)

    def __le__(self, other: Any) -> Any:
        return _value_level(numpy.less_equal, (self, other), True)

    def __gt__(self, other: Any) -> Any:
        return _value_level(numpy.greater, (self, other), True)

    def __ge__(self, other: Any) -> Any:
        return _value_level(numpy.greater_equal, (self, other), True)

    def __eq__(self, other: Any) -> Any:
        return _value_level(numpy.equal, (self, other), True)

    def __ne__(self, other: Any) -> Any:
        return _value_level(numpy.not_equal, (self, other), True)

    def __and__(self, other: Any) -> Any:
        return _value_level(numpy.bitwise_and, (self, other), True)

    __rand__ = __and__

    def __or__(self, other: Any) -> Any:
        return _value_level(numpy.bitwise_or, (self, other), True)

    __ror__ = __or__

    def __xor__(self, other: Any) -> Any:
        return _value_level(numpy.bitwise_xor, (self, other), True)

    __rxor__ = __xor__

    def __invert__(self) -> Any:
        return _value_level(numpy.invert, (self,), True)

    def __floordiv__(self, other: Any) -> Any:
        return _value_level(numpy.floor_divide, (self, other), False)

    def __rfloordiv__(self, other: Any) -> Any:
        return _value_level(numpy.floor_divide, (other, self), False)

    def __mod__(self, other: Any) -> Any:
        return _uf.remainder(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _uf.remainder(other, self)

    def any(self, axis: Any = None, keepdims: bool = False) -> Any:
        """Whether any entry is true, over `axis` of each example (a batched boolean)."""
        return _reduce_values(self, numpy.any, axis, keepdims, "any")

    def all(self, axis: Any = None, keepdims: bool = False) -> Any:
        """Whether every entry is true, over `axis` of each example (a batched boolean)."""
        return _reduce_values(self, numpy.all, axis, keepdims, "all")

    def argmax(self, axis: Any = None, keepdims: bool = False) -> Any:
        """The position of the largest entry of each example (no gradient)."""
        return _arg_values(self, numpy.argmax, axis, keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False) -> Any:
        """The position of the smallest entry of each example (no gradient)."""
        return _arg_values(self, numpy.argmin, axis, keepdims)

    def astype(self, dtype: Any, copy: bool = True, **kwargs: Any) -> Any:
        """The values in `dtype`: a floating-point one through the `astype` primitive
        (differentiable), another (an integer index, a mask) on the values."""
        target = numpy.dtype(dtype)
        if target.kind in "fc":
            return _ew.astype(self, dtype=target)
        return _value_level(functools.partial(_astype_values, target=target), (self,), True)

    def copy(self) -> Any:
        """A copy (the `copy` primitive)."""
        return _shapes.copy(self)

    def conj(self) -> Any:
        """The complex conjugate."""
        return _ew.conjugate(self)

    conjugate = conj

    @property
    def real(self) -> Any:
        """The real part."""
        return _ew.real(self)

    @property
    def imag(self) -> Any:
        """The imaginary part."""
        return _ew.imag(self)


_new_bytes: Any = numpy.bytes_.__new__
_EMPTY_BYTES = b""


def _batched(val: Any, bdim: int | None, level: int, how: str | None = None) -> Batched:
    b: Batched = _new_bytes(Batched, _EMPTY_BYTES)
    d = b.__dict__
    d["val"] = val
    d["bdim"] = bdim
    d["level"] = level
    d["how"] = how
    return b


# Node's methods and operators apply primitives to `self`: they are Batched's too.
for _name in (
    "__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __pow__ "
    "__rpow__ __neg__ __pos__ __abs__ __matmul__ __rmatmul__ __getitem__ __iter__ T "
    "cumprod cumsum dot flatten max mean min prod ravel reshape squeeze std sum swapaxes "
    "transpose var"
).split():
    setattr(Batched, _name, getattr(Node, _name))


_NO_PARAMS: dict[str, Any] = {}  # read only


def _binary(prim: Primitive, flip: bool) -> Callable[[Any, Any], Any]:
    """An arithmetic operator of `Batched`: what `Primitive.__call__` does with a batched
    first argument (observers skip it), without its frames (the batched hot path)."""
    if flip:
        return lambda self, other: _apply(prim, (other, self), _NO_PARAMS)
    return lambda self, other: _apply(prim, (self, other), _NO_PARAMS)


for _name, _prim in (
    ("add", _ew.add),
    ("sub", _ew.subtract),
    ("mul", _ew.multiply),
    ("truediv", _ew.divide),
):
    setattr(Batched, f"__{_name}__", _binary(_prim, False))
    setattr(Batched, f"__r{_name}__", _binary(_prim, True))
setattr(Batched, "__neg__", lambda self: _apply(_ew.negative, (self,), _NO_PARAMS))  # noqa: B010


def _refused(name: str) -> Any:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise BatchingError(
            f"funcgrad.vmap: {name} is not defined for a batched value (one per example); "
            f"compute it with funcgrad.numpy functions, which batch"
        )

    return refuse


# Everything else bytes would answer about the placeholder is refused.
_KEEP = frozenset(
    "__class__ __new__ __init__ __getattribute__ __setattr__ __delattr__ __init_subclass__ "
    "__subclasshook__ __sizeof__ __dir__ __doc__ __module__ __slots__ __reduce_ex__ "
    "__class_getitem__ __array_priority__ __dict__ __weakref__ __annotations__".split()
)
for _name in sorted(set(dir(numpy.bytes_)) | set(dir(bytes))):
    if _name in _KEEP or _name in Batched.__dict__:
        continue
    _attr = getattr(numpy.bytes_, _name, None)
    if callable(_attr) or callable(getattr(bytes, _name, None)):
        setattr(Batched, _name, _refused(_name))
    else:
        setattr(Batched, _name, property(_refused(_name)))
del _name, _attr


# NumPy's ufuncs whose funcgrad primitive has another name
_UFUNC_NAMES = {"absolute": "abs"}


@functools.cache
def _ufunc_primitive(name: str) -> Primitive | None:
    """The primitive computing NumPy's ufunc `name`, or None."""
    try:
        return _registry.get(_UFUNC_NAMES.get(name, name))
    except KeyError:
        return None


_NOT_DIFFERENTIABLE = frozenset(
    "less less_equal greater greater_equal equal not_equal logical_and logical_or "
    "logical_xor logical_not isnan isinf isfinite isposinf isneginf signbit bitwise_and "
    "bitwise_or bitwise_xor invert floor ceil trunc rint sign floor_divide".split()
)


def _value_level(fn: Any, inputs: Sequence[Any], strip: bool) -> Any:
    """`fn` (an elementwise NumPy function) on batched values, computed on their arrays."""
    level = 0
    for a in inputs:
        if type(a) is Batched and a.level > level:
            level = a.level
    if not level:
        return fn(*[value_of(a) if strip else a for a in inputs])
    if len(inputs) == 1:  # one batched value: no lining up, the batch stays on its axis
        (a,) = inputs
        out = fn(value_of(a.val) if strip else a.val)
        if isinstance(out, tuple):
            return tuple(_batched(o, a.bdim, level) for o in out)
        return _batched(out, a.bdim, level)
    nds = []
    for a in inputs:
        nds.append(
            len(a.shape) if type(a) is Batched and a.level == level else numpy.ndim(value_of(a))
        )
    top = max(nds)
    mapped = any(type(a) is Batched and a.level == level and a.bdim is not None for a in inputs)
    lined = []
    for a, nd in zip(inputs, nds, strict=True):
        if type(a) is Batched and a.level == level:
            v = a.val
            if strip:
                v = value_of(v)
            if a.bdim is None:
                lined.append(v)
                continue
            if a.bdim:
                v = numpy.moveaxis(v, a.bdim, 0) if type(v) is _ndarray else move(v, a.bdim, 0)
            if nd < top:
                s = v.shape
                v = v.reshape((s[0], *((1,) * (top - nd)), *s[1:]))
            lined.append(v)
        else:
            lined.append(value_of(a) if strip else a)
    out = fn(*lined)
    if isinstance(out, tuple):
        return tuple(_batched(o, 0 if mapped else None, level) for o in out)
    return _batched(out, 0 if mapped else None, level)


def _astype_values(v: Any, *, target: Any) -> Any:
    return v.astype(target) if type(v) is Batched else numpy.asarray(v).astype(target)


def _front_values(b: Batched) -> tuple[Any, bool]:
    """A batched value's arrays with the batch on axis 0 (graph nodes stripped), and whether mapped."""
    v = value_of(b.val)
    if b.bdim is None:
        return v, False
    if not b.bdim:
        return v, True
    return (numpy.moveaxis(v, b.bdim, 0) if type(v) is _ndarray else move(v, b.bdim, 0)), True


def _reduce_values(b: Batched, fn: Any, axis: Any, keepdims: bool, how: str) -> Batched:
    v = value_of(b.val)
    nd = b.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        one = not isinstance(axis, (tuple, list))
        axes = tuple(sorted((a + nd if a < 0 else a) for a in ((axis,) if one else axis)))
    d = b.bdim
    if d is None:
        return _batched(fn(v, axis=axes, keepdims=keepdims), None, b.level, how)
    # the example's axes, past the batch axis where it sits; the batch stays where it was,
    # less the reduced axes before it
    full = tuple(a + (a >= d) for a in axes)
    out_d = d if keepdims else d - sum(1 for a in full if a < d)
    return _batched(fn(v, axis=full, keepdims=keepdims), out_d, b.level, how)


def _arg_values(b: Batched, fn: Any, axis: Any, keepdims: bool) -> Batched:
    v, mapped = _front_values(b)
    if not mapped:
        return _batched(fn(v, axis=axis, keepdims=keepdims), None, b.level)
    if axis is None:
        v = v.reshape(v.shape[0], -1)
        out = fn(v, axis=1)
        if keepdims:
            out = out.reshape((out.shape[0], *((1,) * b.ndim)))
        return _batched(out, 0, b.level)
    a = axis + b.ndim if axis < 0 else axis
    return _batched(fn(v, axis=a + 1, keepdims=keepdims), 0, b.level)


def _numpy_function(func: Any, args: Any, kwargs: Any, internal: bool) -> Any:
    name = getattr(func, "__name__", str(func))
    if name in ("zeros_like", "ones_like", "empty_like", "full_like"):
        proto = args[0]
        if type(proto) is Batched:
            proto = numpy.empty(proto.shape, dtype=proto.dtype)
        rest = [value_of(a) for a in args[1:]]
        return func(proto, *rest, **kwargs)
    if name in ("shape", "ndim", "size"):
        a = args[0]
        return getattr(a, name) if type(a) is Batched else func(a)
    if name in ("result_type", "iscomplexobj", "isrealobj", "can_cast", "min_scalar_type"):
        return func(
            *[numpy.empty((), dtype=a.dtype) if type(a) is Batched else a for a in args], **kwargs
        )
    if name in ("where", "isclose"):
        return _value_level(functools.partial(func, **kwargs), args, name == "isclose")
    if name in ("any", "all", "argmax", "argmin", "sum", "mean", "max", "min", "prod"):
        a = args[0]
        if kwargs.get("out") is not None:
            raise _writes_error(name, "out=")
        if type(a) is Batched:
            return getattr(a, name)(*args[1:], **kwargs)
    if name in _ALONG_AXIS and args and type(args[0]) is Batched:
        return _along_axis(func, internal, args[0], *args[1:], **kwargs)
    if name in ("array2string", "array_repr", "array_str"):
        return repr(args[0])
    if name in _DATA_SHAPED:
        raise BatchingError(
            f"funcgrad.vmap: numpy.{name} (fnp.{name}) was called on a batched value, but the "
            f"shape of its result depends on the values, and vmap gives every example one "
            f"shape (as jax.vmap and torch.func.vmap refuse it); compute it outside the "
            f"vmapped function, or use a fixed-size form (fnp.nonzero(x, size=n), fnp.where)"
        )
    if func not in _BY_EXAMPLE:
        raise BatchingError(
            f"funcgrad.vmap: numpy.{name} was called on a batched value, and vmap runs only "
            f"NumPy functions known to write nothing once per example; use the funcgrad.numpy "
            f"function (fnp.{name}), which batches, or compute it outside the vmapped function"
        )
    try:
        bound = inspect.signature(func).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):  # NumPy reports a wrong call itself, per example
        bound = kwargs
    if bound.get("out") is not None or bound.get("overwrite_input"):
        raise _writes_error(
            name, "out=" if bound.get("out") is not None else "overwrite_input=True"
        )
    return _by_example(func, name, internal, args, kwargs)


def _writes_error(name: str, how: str) -> BatchingError:
    return BatchingError(
        f"funcgrad.vmap: numpy.{name} was called on a batched value with {how}: it would write "
        f"once per example, leaving the last example's values; use its result instead "
        f"(y = numpy.{name}(x) without out= or overwrite_input)"
    )


# The NumPy functions vmap runs once per example on the values: those funcgrad.numpy calls
# on values (positions, counts, statistics of plain arrays), each computing a new result and
# writing nothing (with out= or overwrite_input=True refused). Any other NumPy function on a
# batched value raises: one that writes (numpy.copyto, put, place, putmask, fill_diagonal,
# save) would, run per example, keep only the last example's writes.
_BY_EXAMPLE = frozenset(
    [
        *(
            getattr(numpy, n)
            for n in (
                "median nanmedian quantile nanquantile percentile nanpercentile interp "
                "searchsorted digitize cov corrcoef convolve correlate histogram "
                "histogram_bin_edges histogram2d histogramdd count_nonzero polyval stack "
                "broadcast_to clip sort argsort partition argpartition lexsort"
            ).split()
        ),
        numpy.linalg.slogdet,
    ]
)


# NumPy functions whose result's shape depends on the values: no batched form
_DATA_SHAPED = frozenset(
    "unique unique_values unique_counts unique_inverse unique_all nonzero flatnonzero argwhere "
    "extract compress trim_zeros setdiff1d union1d intersect1d setxor1d bincount".split()
)


def _by_example(func: Any, name: str, internal: bool, args: Any, kwargs: Any) -> Any:
    """A NumPy function (one funcgrad.numpy computes on values: positions, counts, statistics
    of plain arrays) on batched values: applied to each example's values, results stacked.

    Where the batch holds the nodes of a transform outside the vmap (`grad(lambda x:
    vmap(fnp.median)(x).sum())`) and funcgrad.numpy made the call (`internal`), its own
    function runs on each example's nodes instead, recording ordinary nodes there, and the
    results are stacked by the `stack` primitive, so the transform differentiates through
    them. Called from the user's code, a floating-point result would lose the derivative:
    that raises (integer and boolean results, which have none, are computed).
    """
    leaves, treedef = tree_flatten((args, kwargs))
    level = max(v.level for v in leaves if type(v) is Batched)
    size = _state.frames[level - 1].size
    over_nodes = False
    for v in leaves:
        if type(v) is Batched and v.level == level:
            inner = v.val
            while type(inner) is Batched:
                inner = inner.val
            over_nodes = over_nodes or type(inner) is Node
    twin = _recording_twin(func) if over_nodes and internal else None
    outs = []
    for k in range(size):
        leaves_k = []
        for v in leaves:
            if type(v) is Batched and v.level == level:
                # over an outer transform's nodes: each example's nodes go to the
                # funcgrad.numpy function, which records them (else values, checked below)
                val = value_of(v.val) if over_nodes and twin is None else v.val
                v = val if v.bdim is None else _take(val, v.bdim, k)
            leaves_k.append(v)
        args_k, kwargs_k = tree_unflatten(treedef, leaves_k)
        outs.append((func if twin is None else twin)(*args_k, **kwargs_k))
    flat = [tree_flatten(o) for o in outs]
    out_def = flat[0][1]
    stacked = []
    for parts in zip(*[f[0] for f in flat], strict=True):
        kinds = {numpy.result_type(value_of(p)).kind for p in parts}
        if over_nodes and twin is None and kinds & set("fc"):
            raise _lost_error(name)
        try:
            stacked.append(_batched(stack(*parts, axis=0), 0, level))
        except FuncgradError as e:
            raise BatchingError(
                f"funcgrad.vmap: numpy.{name} gave results of different shapes for the "
                f"examples of the batch ({', '.join(str(numpy.shape(p)) for p in parts[:4])} "
                f"...); vmap needs one shape"
            ) from e
    return tree_unflatten(out_def, stacked)


def _lost_error(name: str) -> BatchingError:
    return BatchingError(
        f"funcgrad.vmap: numpy.{name} was called on batched values that a transform outside "
        f"the vmap differentiates (grad of a vmapped function); it computes on values, so "
        f"their derivative would be lost. Use the funcgrad.numpy function (fnp.{name}), which "
        f"records it"
    )


def _recording_twin(func: Any) -> Any:
    """The funcgrad.numpy function of the NumPy function `func` (the one that recorded its
    call on graph nodes, and called `func` on the batched values it was given), or None.

    NOTE: read from `sys.modules`, not imported: `funcgrad.numpy` is a layer above this one,
    and a batched value reaches `func` only through it, so it is loaded by then.
    """
    module = getattr(func, "__module__", None) or ""
    space = sys.modules.get("funcgrad.numpy.linalg" if "linalg" in module else "funcgrad.numpy")
    twin = getattr(space, getattr(func, "__name__", ""), None)
    return twin if callable(twin) else None


# NumPy functions of one array along one axis (-1 by default, None: flattened), computed per
# example on the values (sorting orders, positions: what funcgrad.numpy reads to pick entries)
_ALONG_AXIS = frozenset({"sort", "argsort", "argpartition", "partition"})
_VALUED = frozenset({"sort", "partition"})  # of those, the ones whose result has a derivative


def _along_axis(func: Any, internal: bool, b: Batched, *args: Any, **kwargs: Any) -> Batched:
    if args:  # partition's kth, or sort's axis given by position
        if func.__name__ in ("partition", "argpartition"):
            kwargs["kth"] = args[0]
            args = args[1:]
        if args:
            kwargs["axis"] = args[0]
    axis = kwargs.pop("axis", -1)
    inner = b.val
    while type(inner) is Batched:
        inner = inner.val
    twin = None
    if type(inner) is Node and func.__name__ in _VALUED:
        twin = _recording_twin(func) if internal else None
        if twin is None:
            raise _lost_error(func.__name__)
    if twin is not None:
        # over an outer transform's nodes: its funcgrad.numpy function records the values'
        # path (a take_along_axis), once for the whole batch
        func = twin
        v, mapped = (b.val, False) if b.bdim is None else (move(b.val, b.bdim, 0), True)
    else:
        v, mapped = _front_values(b)
    if not mapped:
        return _batched(func(v, axis=axis, **kwargs), None, b.level)
    nd = b.ndim
    if axis is None:
        out = func(reshape(v, shape=(v.shape[0], int(numpy.prod(b.shape)))), axis=1, **kwargs)
    else:
        out = func(v, axis=(axis + nd if axis < 0 else axis) + 1, **kwargs)
    return _batched(out, 0, b.level)


# --- Python reading a batched value ---------------------------------------------------------


def _internal(frame: Any) -> bool:
    """Whether `frame` runs funcgrad's own code (its fast-path checks, say), not the user's."""
    return str(frame.f_code.co_filename).startswith(_PACKAGE)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _concretization(what: str, frame: Any) -> BatchingError:
    where = f"{frame.f_code.co_filename}, line {frame.f_lineno}"
    if what == "bool()":
        what = "bool() of a batched value (the truth of a comparison, an `if` or `while` on it)"
    else:
        what = f"{what} of a batched value"
    return BatchingError(
        f"funcgrad.vmap: {what} at {where}: each example may have its own answer, so Python "
        f"cannot branch on it or turn it into one number. Compute both branches and pick with "
        f"funcgrad.numpy.where (fnp.where(cond, a, b)), or move the test out of the vmapped "
        f"function"
    )


def _concrete(b: Batched, what: str, frame: Any) -> Any:
    """The one value every example has, for funcgrad's own checks; user code gets the error.

    NOTE: funcgrad's rules test values for fast paths (`if not (x == 0).any():`,
    `if all_finite(v):`), whose careful path is right for every input. For a
    batch: `any()` is true if it is for some example, `all()` if for every one,
    anything else only if every example agrees; otherwise the check raises.
    """
    if not _internal(frame):
        raise _concretization(what, frame)
    if b.how is not None and type(b.val) is _ndarray:  # the common case, without moving axes
        return b.val.any() if b.how == "any" else b.val.all()
    if b.how is None and what != "bool()" and b.bdim is not None:
        # a number of a mapped value: one per example (checks that want one, as
        # `all_finite`'s math.isfinite, take their array path on this TypeError)
        raise TypeError(
            f"funcgrad.vmap: {what} of a batched value ({frame.f_globals.get('__name__')} "
            f"line {frame.f_lineno})"
        )
    v = _all_values(b)
    if b.how == "any":
        return numpy.any(v)
    if b.how == "all":
        return numpy.all(v)
    v = numpy.asarray(v)
    first = v.reshape(-1, *b.shape)[0] if v.size else v
    if v.size and not (v == first).all():
        if what != "bool()":
            # a TypeError, as float() of what has no one number: callers that test for
            # one (`all_finite`'s math.isfinite) then take their array path
            raise TypeError(
                f"funcgrad.vmap: {what} of a batched value whose examples differ "
                f"({frame.f_globals.get('__name__')} line {frame.f_lineno})"
            )
        raise BatchingError(
            f"funcgrad.vmap: {frame.f_globals.get('__name__')} line {frame.f_lineno} reads "
            f"a batched value whose examples differ ({what}); it has no batching rule for this "
            f"case. Compute this part outside vmap, or loop over the batch"
        )
    return numpy.asarray(first)


_ALL_FINITE = all_finite.__code__


def _innermost(v: Any) -> Any:
    """The array under a batched value's levels and nodes: every example's entries (of every level)."""
    while True:
        t = type(v)
        if t is Batched:
            v = v.val
        elif t is Node:
            v = v.value
        else:
            return v


def _all_values(b: Any) -> Any:
    """Every example's values, batch axes first (all levels), as a plain array."""
    if type(b) is not Batched:
        v = value_of(b)
        # a CuPy value comes to the host with cupy.asnumpy (numpy.asarray refuses it)
        return numpy.asarray(v if type(v) is _ndarray else to_device(v, "cpu"))
    inner = _all_values(b.val)
    if b.bdim is None:
        return inner
    # the batch axis of `val` sits after the axes of outer levels already in front
    outer = inner.ndim - len(getattr(b.val, "shape", ()))
    return numpy.moveaxis(inner, outer + b.bdim, 0)


# --- the interpreter ---------------------------------------------------------------------------


class _Frame:
    """One running vmap: its level, batch size, randomness, and where its nodes start."""

    __slots__ = ("level", "randomness", "size", "start")

    def __init__(self, level: int, size: int, randomness: str):
        self.level = level
        self.size = size
        self.randomness = randomness
        self.start = _next_seq()


class _State(threading.local):
    def __init__(self) -> None:
        self.frames: list[_Frame] = []
        self.body = 0  # the level whose function (not a rule) runs now
        self.memo: dict[int, int] = {}  # id(plain node made inside a vmap) -> its level
        self.kept: list[Node] = []  # those nodes, so that their ids stay theirs
        self.scope: Any = None  # the observing() context while a vmap runs
        self.rule_level = 0
        self.lowered: dict[int, tuple[Node, Batched]] = {}  # outer call nodes, batched again


_state = _State()
# `_apply`'s answer when no batched value is involved: the observers' own "compute as usual"
_PLAIN = observe.UNOBSERVED


def _created_at(seq: int) -> int:
    for f in reversed(_state.frames):
        if f.start < seq:
            return f.level
    return 0


def _level_of(n: Node) -> int:
    """The level a node belongs to: its batched value's, or (plain) where it was made."""
    v = n.value
    if type(v) is Batched:
        lv: int = v.level
        if n.prim is None:
            made = _created_at(n.seq)
            if made > lv:
                return made
        return lv
    frames = _state.frames
    if not frames or n.seq < frames[0].start:
        return 0
    return _plain_level(n)


def _plain_level(n: Node) -> int:
    memo = _state.memo
    got = memo.get(id(n))
    if got is not None:
        return got
    first = _state.frames[0].start
    stack_ = [n]
    while stack_:
        m = stack_[-1]
        if id(m) in memo:
            stack_.pop()
            continue
        if m.prim is None:
            lv = _created_at(m.seq)
        else:
            lv = 0
            pending = False
            for i in m.inputs:
                if type(i) is not Node:
                    continue
                if type(i.value) is Batched:
                    lv = max(lv, _level_of(i))
                elif i.seq >= first:
                    got = memo.get(id(i))
                    if got is None:
                        stack_.append(i)
                        pending = True
                    else:
                        lv = max(lv, got)
            if pending:
                continue
        memo[id(m)] = lv
        _state.kept.append(m)
        stack_.pop()
    return memo[id(n)]


def _rank(a: Any) -> int:
    """Where a value ranks among levels: 2L for `Batched` of level L, 2L + 1 for a node of level L."""
    t = type(a)
    if t is Batched:
        r: int = a.level << 1
        return r
    if t is Node:
        return (_level_of(a) << 1) | 1
    return -1


def _apply(prim: Primitive, args: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Apply `prim` where batched values (or nodes over them) are among its arguments."""
    top = -1
    plain = 0
    for a in args:
        t = type(a)
        if t is Batched:
            r = a.level << 1
        elif t is Node:
            v = a.value
            if type(v) is Batched:
                p = a.prim
                if p is None:  # a leaf: _level_of's answer (made later than its value's level?)
                    r = (_level_of(a) << 1) | 1
                else:  # (_level_of's answer, inlined: its value's level)
                    if p.params == _CALL_PARAMS and _outer_call(a):
                        return _apply(prim, tuple(_as_batched(b) for b in args), params)
                    r = (v.level << 1) | 1
            else:
                plain += 1
                continue
        else:
            continue
        if r > top:
            top = r
    if params:
        for v in params.values():
            if type(v) is Batched:
                top = max(top, v.level << 1)
            elif type(v) is tuple:
                for i in v:
                    if type(i) is Batched:
                        top = max(top, i.level << 1)
    if plain:
        body = _state.body
        if prim is identity and top < 0 and body and len(args) == 1:
            # a transform's fresh variable inside a vmap: it belongs to that vmap's level
            if _rank(args[0]) < (body << 1) | 1:
                c = _batched(args[0], None, body)
                return _node(prim, (c,), params, _batched(args[0], None, body))
            return _PLAIN
        if top >= 0 or plain > 1:
            batched = top >= 0
            low = None
            for a in args:
                if type(a) is Node and type(a.value) is not Batched:
                    r = (_level_of(a) << 1) | 1
                    low = r if low is None else min(low, r)
                    if r > top:
                        top = r
            if not batched and low == top:
                return _PLAIN  # plain nodes of one level: an ordinary operation
    if top < 0:
        return _PLAIN
    if top & 1:
        return _recorded(prim, top >> 1, args, params)
    return _batched_apply(prim, top >> 1, args, params)


_CALL_PARAMS = ("fn", "index")


def _outer_call(n: Node) -> bool:
    """Whether `n` is a call node (custom_vjp, checkpoint ...) that an outer graph recorded
    around batched values: its value is batched, and nodes of an outer graph are among its
    inputs (a transform inside the vmap would have recorded them as constants)."""
    got = _state.memo.get(~id(n))
    if got is not None:
        return got >= 0
    level = n.value.level
    outer = any(type(i) is Node and _level_of(i) < level for i in n.inputs) and not any(
        type(i) is Node and _level_of(i) >= level for i in n.inputs
    )
    _state.memo[~id(n)] = 1 if outer else -1
    _state.kept.append(n)
    return outer


def _as_batched(a: Any) -> Any:
    """An outer graph's call node over batched values as its batched value, computed again
    from its inputs, so that the outer graph records it (NOTE: through the function's own
    operations: the custom rule applies to the batch only under a transform inside vmap)."""
    if type(a) is not Node or type(a.value) is not Batched:
        return a
    if a.prim is None or a.prim.params != _CALL_PARAMS or not _outer_call(a):
        return a
    got = _state.lowered.get(id(a))
    if got is not None:
        return got[1]
    level = a.value.level
    body = _state.body
    _state.body = level
    try:
        out = a.prim.forward(numpy, *a.inputs, **a.params)
    finally:
        _state.body = body
    if type(out) is not Batched or out.level != level:
        out = _batched(out, None, level)
    _state.lowered[id(a)] = (a, out)
    return out


def _node(prim: Primitive, inputs: tuple[Any, ...], params: Any, value: Any) -> Node:
    node = make_node(prim, inputs, params or {}, value)
    if observe.active:
        observe.node_made(node)
    return node


def _recorded(prim: Primitive, level: int, args: tuple[Any, ...], params: dict[str, Any]) -> Node:
    """Record `prim` as a node of a transform running inside the vmap of `level`.

    The node's value is the batched result. Its inputs are the nodes of that
    transform; values of lower levels (an outer graph's nodes among them)
    are constants to it, wrapped as unmapped values of `level`, so that its
    backward pass stops at them and carries them along in its values.
    """
    decomposed = _table.DECOMPOSED.get(prim.name)
    if decomposed is not None:
        result: Node = decomposed(*args, **params)
        return result
    values = []
    inputs = []
    top = 0  # the highest level of a batched value among the values
    simple = True  # no node among the values, no batched or tuple parameter: `_apply` is
    for a in args:  # `_batched_apply` of `top` (or the primitive, where `top` is 0)
        t = type(a)
        if t is Node:
            v = a.value
            # (_level_of(a), inlined where it is its value's level)
            if (v.level if type(v) is Batched and a.prim is not None else _level_of(a)) == level:
                values.append(v)
                inputs.append(a)
                if type(v) is Batched and v.level > top:
                    top = v.level
            else:
                values.append(a)
                inputs.append(_batched(a, None, level))
                simple = False
        elif t is Batched:
            values.append(a)
            inputs.append(a if a.level == level else _batched(a, None, level))
            if a.level > top:
                top = a.level
        else:
            values.append(a)
            inputs.append(a if t in _SCALARS else freeze(a))
    vals = tuple(values)
    if simple and params:
        for v in params.values():
            t = type(v)
            if t is Batched or t is tuple:
                simple = False
                break
    out: Any
    if simple and top:
        out = _batched_apply(prim, top, vals, params)
    else:
        out = _PLAIN if simple else _apply(prim, vals, params)  # (not through the call: faster)
        if out is _PLAIN:
            out = prim(*vals, **params)
    if type(out) is not Batched or out.level != level:
        out = _batched(out, None, level)
    got = _stacked_twins.get(id(prim))
    if got is not None:
        prim = got[1]
    elif prim.name in _table.STACKED_RULES:
        prim = _twin(prim)
    elif prim.name in _STACKED_VJPS:
        prim = _stacked_twin(prim)
    node = make_node(prim, tuple(inputs), params or {}, out)
    if observe.active:
        observe.node_made(node)
    return node


# --- rules that read values with NumPy: applied to the stacked batch ---------------------------

_twins: dict[str, Primitive] = {}


def _twin(prim: Primitive) -> Primitive:
    """`prim` with VJP and JVP rules that apply its own to the batch's stacked values.

    For the primitives whose rules compute with NumPy on the values they get
    (`funcgrad.ops.batching.STACKED_RULES`): a node of a transform inside
    vmap records this twin (not registered), so its backward and forward
    sweeps hand the primitive's rules plain values with the batch as one
    more leading axis (or one example at a time, where the parameters have
    no batched form). First order only: a rule applied to graph nodes here
    (a second derivative) raises.
    """
    twin = _twins.get(prim.name)
    if twin is None:
        twin = Primitive(
            name=prim.name,
            forward=prim.forward,
            vjp=functools.partial(_twin_vjp, prim),
            jvp=functools.partial(_twin_jvp, prim),
            params=prim.params,
            sample=prim.sample,
            doc=prim.doc,
            names=prim.names,
        )
        _twins[prim.name] = twin
    return twin


class _Stacked:
    """The values of one rule call, with the batch of `level` as a leading axis (or by example)."""

    def __init__(self, prim: Primitive, what: str, values: Sequence[Any], params: Any):
        level = 0
        for v in (*values, *params.values()):
            if type(v) is Node:
                raise BatchingError(
                    f"funcgrad.vmap: the {what} rule of {prim.name!r} reads values with NumPy, "
                    f"so under vmap it runs on the stacked batch, which it can do to first "
                    f"order only; a higher derivative through it inside vmap is not supported"
                )
            if type(v) is Batched and v.level > level:
                level = v.level
        self.level = level
        self.size = _state.frames[level - 1].size if 0 < level <= len(_state.frames) else 1
        lowered = {
            k: (v.val if v.bdim is None else Mapped(v.val, v.bdim))
            if type(v) is Batched and v.level == level
            else v
            for k, v in params.items()
        }
        self.lowered = lowered
        self.params = None if level == 0 else _table.STACKED_RULES[prim.name](self.size, lowered)

    def stacked(self, v: Any) -> Any:
        """`v` with the batch on axis 0 (broadcast if it is the same for every example)."""
        if type(v) is Batched and v.level == self.level:
            return _table.front(v.val, v.bdim, self.size)
        if v is None or isinstance(v, _SCALARS):
            return v
        return _table.front(v, None, self.size)

    def example(self, v: Any, k: int) -> Any:
        if type(v) is Batched and v.level == self.level:
            return v.val if v.bdim is None else _take(v.val, v.bdim, k)
        return v

    def example_params(self, k: int) -> dict[str, Any]:
        return {n: _take_param(v, k) for n, v in self.lowered.items()}

    def wrap(self, v: Any) -> Any:
        return v if v is None or self.level == 0 else _batched(v, 0, self.level)


def _vjp_once(prim: Primitive, ct: Any, out: Any, args: Sequence[Any], params: Any) -> list[Any]:
    rules = prim.vjp
    if type(rules) is tuple:
        cts = [None if r is None else r(ct, out, *args, **params) for r in rules]
    else:
        cts = list(rules(ct, out, *args, **params))
    if prim.keeps_zeros:
        cts = [c if c is None else _ew.guard(prim, ct, c, params) for c in cts]
    return cts


def _twin_vjp(prim: Primitive, ct: Any, out: Any, *args: Any, **params: Any) -> tuple[Any, ...]:
    st = _Stacked(prim, "VJP", (ct, out, *args), params)
    if st.level == 0:
        return tuple(_vjp_once(prim, ct, out, args, params))
    if st.params is not None:
        stacked_args = [st.stacked(a) for a in args]
        cts = _vjp_once(prim, st.stacked(ct), st.stacked(out), stacked_args, st.params)
        return tuple(st.wrap(c) for c in cts)
    per: list[list[Any]] = [[] for _ in args]
    for k in range(st.size):
        args_k = [st.example(a, k) for a in args]
        cts = _vjp_once(prim, st.example(ct, k), st.example(out, k), args_k, st.example_params(k))
        for i, c in enumerate(cts):
            shape = getattr(args_k[i], "shape", ())
            per[i].append(c if c is None or c.shape == shape else _fit(c, shape, prim.name))
    return tuple(None if all(c is None for c in cs) else st.wrap(stack(*cs, axis=0)) for cs in per)


def _twin_jvp(
    prim: Primitive, tangents: tuple[Any, ...], out: Any, *args: Any, **params: Any
) -> Any:
    st = _Stacked(prim, "JVP", (*[t for t in tangents if t is not None], out, *args), params)
    if st.level == 0:
        return apply_jvp(prim, tangents, out, args, params)
    if st.params is not None:
        ts = tuple(None if t is None else st.stacked(t) for t in tangents)
        stacked_args = tuple(st.stacked(a) for a in args)
        return st.wrap(apply_jvp(prim, ts, st.stacked(out), stacked_args, st.params))
    outs = []
    for k in range(st.size):
        t_k = tuple(None if t is None else st.example(t, k) for t in tangents)
        args_k = tuple(st.example(a, k) for a in args)
        outs.append(apply_jvp(prim, t_k, st.example(out, k), args_k, st.example_params(k)))
    if all(o is None for o in outs):
        return None
    zero = numpy.zeros(getattr(out, "shape", ()), dtype=getattr(out, "dtype", numpy.float64))
    return st.wrap(stack(*[zero if o is None else o for o in outs], axis=0))


# --- first-order VJPs on the stacked batch (a fast path) -------------------------------------------

# Tests set it to False to compare with the general path.
FIRST_ORDER_STACKED = True

_stacked_twins: dict[int, tuple[Primitive, Primitive]] = {}  # id(prim) -> (prim, its twin)
_numbers = numpy.number


def _stacked_twin(prim: Primitive) -> Primitive:
    """`prim` with VJP rules that, in a first-order walk, run once on the batch's stacked arrays.

    A node of a transform inside vmap records this twin (not registered):
    where every value a rule gets is a NumPy array (batched ones of one
    level, holding arrays), its rule computes on plain arrays with the batch
    on axis 0 (`funcgrad.ops.batching.STACKED_VJPS` gives the parameters'
    stacked form; matmul has its own, `_MATMUL_STACKED`), which is what the
    batching interpreter would do one primitive at a time, without it.
    Anything else (nodes: a higher derivative; nested vmaps; CuPy) takes
    the primitive's own rule on the batched values. Forward, JVP and the
    rest are the primitive's.
    """
    got = _stacked_twins.get(id(prim))
    if got is not None:
        return got[1]
    rules = prim.vjp
    special = _MATMUL_STACKED if prim.name == "matmul" else None
    stacker = _STACKED_VJPS.get(prim.name)
    if (
        type(rules) is not tuple
        or prim.name not in _STACKED_VJPS
        or (stacker is _elementwise and len(rules) != 1)
    ):
        # (several inputs: the general path lines them up, and `add` passes ct on)
        _stacked_twins[id(prim)] = (prim, prim)  # the primitive is its own
        return prim
    twin = Primitive(
        name=prim.name,
        forward=prim.forward,
        vjp=tuple(
            None
            if r is None
            else _stacked_rule(r, stacker if special is None else None, special, i)
            for i, r in enumerate(rules)
        ),
        jvp=prim.jvp,
        params=prim.params,
        sample=prim.sample,
        doc=prim.doc,
        names=prim.names,
        keeps_zeros=prim.keeps_zeros,
        batch=prim.batch,
    )
    _stacked_twins[id(prim)] = (prim, twin)
    _stacked_twins[id(twin)] = (twin, twin)
    return twin


def _stacked_rule(
    rule: Callable[..., Any],
    stacker: _table.StackedParams | None,
    special: Any,
    i: int,
) -> Callable[..., Any]:
    """`rule` (input `i`'s), applied to the stacked batch where it can be (see `_stacked_twin`)."""

    def stacked_rule(ct: Any, out: Any, *args: Any, **params: Any) -> Any:
        if FIRST_ORDER_STACKED:
            if special is not None:
                got = special(i, ct, out, *args)
                if got is not None:
                    return got
            elif type(ct) is Batched or stacker is not _elementwise:
                # (an elementwise rule's cotangent the same for all: its own path is cheaper)
                got = _stacked_values((ct, out, *args))
                if got is not None:
                    level, size, stacked = got
                    p = _stacked_params(stacker, level, size, args, params, stacked)
                    if p is not None:
                        c = rule(*stacked, **p)
                        return None if c is None else _batched(c, 0, level)
        return rule(ct, out, *args, **params)

    return stacked_rule


def _stacked_values(values: Sequence[Any]) -> tuple[int, int, list[Any]] | None:
    """`(level, size, arrays)`: the values as plain arrays with the batch on axis 0 (broadcast
    where not mapped), or None unless all are NumPy arrays or numbers, batched ones of one
    level, holding arrays."""
    level = 0
    for v in values:
        t = type(v)
        if t is Batched:
            if type(v.val) is not _ndarray or (level and v.level != level):
                return None
            level = v.level
        elif t is not _ndarray and not isinstance(v, _numbers):
            return None  # a node (a higher derivative), a Python number, CuPy ...
    frames = _state.frames
    if not level or level > len(frames):
        return None
    size = frames[level - 1].size
    stacked = []
    for v in values:
        if type(v) is Batched:
            a, d = v.val, v.bdim
            if d is None:
                a = _copies(a, size)
            elif d:
                axes = list(range(a.ndim))
                del axes[d]
                a = a.transpose((d, *axes))  # (numpy.moveaxis, without its checks)
        else:
            a = _copies(v, size)
        stacked.append(a)
    return level, size, stacked


def _copies(a: Any, size: int) -> Any:
    """`size` copies of the array (or NumPy number) `a` along a new axis 0: written out when
    small (the same numbers; numpy.broadcast_to costs a few µs), else a broadcast view."""
    n = a.size * size
    if n > _COPIES_WRITTEN:
        return numpy.broadcast_to(a, (size, *a.shape))
    out = numpy.empty((size, *a.shape), dtype=a.dtype)
    out[...] = a
    return out


_COPIES_WRITTEN = 4096  # entries up to which `_copies` writes them out


def _stacked_params(
    stacker: _table.StackedParams | None,
    level: int,
    size: int,
    args: Sequence[Any],
    params: dict[str, Any],
    stacked: Sequence[Any],
) -> dict[str, Any] | None:
    """A rule's parameters for the stacked batch, or None where they have no such form."""
    if stacker is None:
        return None
    lowered = params
    batched = False
    for v in params.values():
        t = type(v)
        if t is tuple:
            for i in v:
                ti = type(i)
                if ti is Node or (
                    ti is Batched and (i.level != level or type(i.val) is not _ndarray)
                ):
                    return None  # a node, or batched by another vmap: the general path
                batched = batched or ti is Batched
        elif t is Node or (t is Batched and (v.level != level or type(v.val) is not _ndarray)):
            return None
        else:
            batched = batched or t is Batched
    if batched:
        lowered, _ = _lowered_params(params, level)
    nd = len(stacked[2].shape) - 1 if len(stacked) > 2 else 0
    return stacker(size, nd, lowered, stacked)


def _matmul_stacked(i: int, ct: Any, out: Any, x: Any, y: Any) -> Any:
    """matmul's VJP rules on the stacked batch, for a batch of vectors or matrices `x` times one
    matrix `y` (a layer's weight: an array, or a batched value that is not mapped) with a
    mapped cotangent: the NumPy calls the batching interpreter makes for `_matmul_vjp_x` /
    `_matmul_vjp_y` there (the same numbers), or None."""
    if type(ct) is not Batched or type(x) is not Batched:
        return None
    level = ct.level
    if x.level != level or level > len(_state.frames):
        return None
    if type(y) is Batched:  # the same for every example: not mapped, of this level
        if y.level != level or y.bdim is not None:
            return None
        yv = y.val
    else:
        yv = y
    c, xv = ct.val, x.val
    if type(c) is not _ndarray or type(xv) is not _ndarray or type(yv) is not _ndarray:
        return None
    if ct.bdim is None or x.bdim is None or yv.ndim != 2:
        return None
    nx = xv.ndim - 1
    if nx not in (1, 2):
        return None
    if ct.bdim:
        c = numpy.moveaxis(c, ct.bdim, 0)
    if i == 0:  # matmul(ct, _mT(y)): the batch of rows (or of matrices) times y^T
        return _batched(numpy.matmul(c, yv.transpose(1, 0)), 0, level)
    if x.bdim:
        xv = numpy.moveaxis(xv, x.bdim, 0)
    if nx == 1:  # multiply(reshape(x, (k, 1)), reshape(ct, (1, m))): each example's outer product
        return _batched(_outer_products(xv, c), 0, level)
    return _batched(numpy.matmul(numpy.swapaxes(xv, 1, 2), c), 0, level)  # matmul(_mT(x), ct)


def _outer_products(x: Any, c: Any) -> Any:
    """`x[b, i] * c[b, j]` for every example `b`, a `(B, k, m)` array: one product, rounded
    once, per entry.

    Rows of at least `_UNBUFFERED_ROWS` same-dtype entries (NumPy 2.3 on): NumPy's multiply of the broadcast
    operands with the ufunc buffer at its minimum (`numpy.setbufsize`, restored by the
    `numpy.errstate` around it), so that its iterator walks them row by row instead of first
    copying both into 8192-entry buffers: each entry is `x[b, i] * c[b, j]`, as the loop of
    `grad`'s multiply gives it, sign of zero included. CPU time, 64 x 64 x 128 float64: about
    0.65x of the einsum below (about 260 against 400 us, minima). Shorter rows: the multiply
    rule's `einsum("bi,bj->bij")` (cheaper there: 60 against 90 us at 64 x 128 x 10), which
    gives the same real numbers except +0.0 where the product is -0.0 (it adds the product to
    a zero), and complex ones within rounding.
    """
    if (
        c.shape[1] >= _UNBUFFERED_ROWS
        and x.dtype == c.dtype
        and x.dtype.kind in "fc"
        and _ITERATOR_CORE
    ):
        with numpy.errstate():
            numpy.setbufsize(_SMALLEST_BUFFER)
            return numpy.multiply(x[:, :, None], c[:, None, :])
    return numpy.einsum("bi,bj->bij", x, c, optimize=False)


_UNBUFFERED_ROWS = 128  # (64 entries: einsum and the unbuffered multiply cost about the same)
_SMALLEST_BUFFER = 16  # numpy.setbufsize's smallest (a multiple of 16)
# NOTE: NumPy 2.3 reworked the iterator's buffering: an operand that is iterated row by row
# without a copy stays uncopied when the buffer is no longer than a row. Before it, a small
# buffer means copies in chunks of 16; there einsum stays (measured on NumPy 2.4 only).
_ITERATOR_CORE = tuple(int(p) for p in numpy.__version__.split(".")[:2]) >= (2, 3)


_MATMUL_STACKED = _matmul_stacked
_elementwise = _table.elementwise_stacked
_STACKED_VJPS: dict[str, Any] = {**_table.STACKED_VJPS, "matmul": None}


def _batched_apply(
    prim: Primitive, level: int, args: tuple[Any, ...], params: dict[str, Any]
) -> Batched:
    """Apply `prim`'s batching rule to the values of `level` (others are the same for all examples)."""
    vals = []
    dims: list[int | None] = []
    mapped = False
    for a in args:
        if type(a) is Batched and a.level == level:
            vals.append(a.val)
            d = a.bdim
            dims.append(d)
            if d is not None:
                mapped = True
        else:
            vals.append(a)
            dims.append(None)
    p = params
    if params:
        for v in params.values():
            if type(v) is Batched or (type(v) is tuple and any(type(i) is Batched for i in v)):
                p, in_params = _lowered_params(params, level)
                mapped = mapped or in_params
                break
    # NOTE: the rule computes on the values below `level`: no function of `level` runs in
    # it, so `identity` on an outer graph's node there (a batched leaf's value under
    # `jit(vmap(hessian(f)))`) is that graph's operation, not a fresh variable of `level`.
    body = _state.body
    lowered = body >= level
    if lowered:
        _state.body = level - 1
    try:
        if not mapped:
            return _batched(prim(*vals, **p), None, level)
        size = _state.frames[level - 1].size
        rule = prim.batch if prim.batch is not None else _table.rule_for(prim)
        if prim.params == _CALL_PARAMS:
            rule_level = _state.rule_level
            _state.rule_level = level  # for the call primitives' rule, which batches their function
            try:
                res = None if rule is None else rule(size, vals, dims, **p)
            finally:
                _state.rule_level = rule_level
        else:
            res = None if rule is None else rule(size, vals, dims, **p)
        if res is None:
            res = _loop(prim, size, vals, dims, p)
    finally:
        if lowered:
            _state.body = body
    return _batched(res[0], res[1], level)


def _lowered_params(params: dict[str, Any], level: int) -> tuple[dict[str, Any], bool]:
    """Parameters with the batched values of `level` as `Mapped` (or their value where not mapped)."""
    p = {}
    mapped = False
    for k, v in params.items():
        if type(v) is Batched and v.level == level:
            v = v.val if v.bdim is None else Mapped(v.val, v.bdim)
            mapped = mapped or isinstance(v, Mapped)
        elif type(v) is tuple and any(type(i) is Batched and i.level == level for i in v):
            v = tuple(
                (i.val if i.bdim is None else Mapped(i.val, i.bdim))
                if type(i) is Batched and i.level == level
                else i
                for i in v
            )
            mapped = mapped or any(isinstance(i, Mapped) for i in v)
        p[k] = v
    return p, mapped


_looped: dict[str, str] = {}  # primitive name -> why it ran once per example
_warned: set[str] = set()


def _loop(
    prim: Primitive, size: int, vals: Sequence[Any], dims: Sequence[int | None], params: Any
) -> tuple[Any, int]:
    """The fallback: apply `prim` to each example and stack the results (never a wrong result)."""
    name = prim.name
    why = "no batching rule" if _table.rule_for(prim) is None else "a case its rule leaves out"
    _looped.setdefault(name, why)
    if name not in _warned:
        _warned.add(name)
        warnings.warn(
            f"funcgrad.vmap: the primitive {name!r} has {why}; it runs once per example "
            f"(a loop over the batch of {size}), which gives the right result slowly",
            BatchingWarning,
            stacklevel=4,
        )
    outs = []
    for k in range(size):
        args_k = [v if d is None else _take(v, d, k) for v, d in zip(vals, dims, strict=True)]
        params_k = {n: _take_param(v, k) for n, v in params.items()}
        outs.append(prim(*args_k, **params_k))
    return stack(*outs, axis=0), 0


def _take(v: Any, d: int, k: int) -> Any:
    return getitem(v, index=(*((slice(None),) * d), k))


def _take_param(v: Any, k: int) -> Any:
    if isinstance(v, Mapped):
        return freeze(numpy.take(numpy.asarray(value_of(v.val)), k, axis=v.dim))
    if type(v) is tuple:
        return tuple(_take_param(i, k) for i in v)
    return v


class _Interpreter:
    """The observer (`funcgrad.ops.observe`) through which nodes over batched values are applied.

    An observer of calls only: the backward walk and the node makers do not
    call it (`observe.current()` leaves it out).
    """

    __slots__ = ()

    def call(self, prim: Primitive, args: tuple[Any, ...], params: dict[str, Any], run: Any) -> Any:
        out = _apply(prim, args, params)
        if out is not _PLAIN:
            return out
        return run()

    # NOTE: while it is the thread's only observer (the usual case), `observe.observed_call`
    # asks this instead of `call`: the batched result, or UNOBSERVED (`_PLAIN`) for the
    # primitive to compute as usual; no closures are made (the batched hot path)
    call_alone = staticmethod(_apply)


_INTERPRETER = _Interpreter()


# --- random numbers ------------------------------------------------------------------------------

_RANDOMNESS = ("error", "different", "same")
_draw_lock = threading.Lock()
_installed = [0, 0]  # vmaps running (in all threads), and those drawing 'different'
_proxies: dict[int, Any] = {}


def _on_draw(draw: Any, out: Any) -> None:
    """Every draw from funcgrad's generators while a vmap runs (`funcgrad.backend.rng.draw_observers`)."""
    frames = _state.frames
    if not frames or _state.body == 0:
        return
    kinds = {f.randomness for f in frames[: _state.body]}
    if "error" in kinds:
        raise BatchingError(
            "funcgrad.vmap: a random number was drawn inside the vmapped function with "
            "randomness='error' (the default). Pass randomness='different' (independent "
            "numbers per example) or 'same' (one draw shared by the batch), or draw outside "
            "and pass the numbers in"
        )
    if "different" in kinds and type(out) is not Batched:
        raise BatchingError(
            "funcgrad.vmap: with randomness='different', a draw that does not batch was made "
            "(a GPU generator's, or a generator method other than a distribution's); draw "
            "from funcgrad's CPU generators (funcgrad.randn, a funcgrad.Generator, "
            "funcgrad.numpy.random's functions or default_rng(seed), dropout), or draw "
            "outside vmap and pass the numbers in"
        )


# NumPy Generator methods and the number of distribution parameters before `size`.
_DRAWS = {
    "random": 0,
    "standard_normal": 0,
    "standard_exponential": 0,
    "standard_cauchy": 0,
    "normal": 2,
    "uniform": 2,
    "exponential": 1,
    "laplace": 2,
    "logistic": 2,
    "lognormal": 2,
    "gumbel": 2,
    "gamma": 2,
    "standard_gamma": 1,
    "beta": 2,
    "chisquare": 1,
    "rayleigh": 1,
    "weibull": 1,
    "pareto": 1,
    "power": 1,
    "vonmises": 2,
    "wald": 2,
    "triangular": 3,
    "standard_t": 1,
    "f": 2,
    "binomial": 2,
    "negative_binomial": 2,
    "poisson": 1,
    "geometric": 1,
    "integers": 2,
}


class _BatchedDraws:
    """The default CPU generator while a vmap with `randomness="different"` runs in some thread.

    In that thread, each draw is made for every example at once (the batch
    sizes of the `"different"` vmaps in front of its shape) and comes back
    `Batched`; other threads, and draws outside such a vmap, go to the
    generator unchanged.
    """

    def __init__(self, raw: Any):
        self._raw = raw

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._raw, name)
        frames = _state.frames
        if not frames or not callable(attr) or (name not in _DRAWS and name not in _UNBATCHED):
            return attr
        active = [f for f in frames[: _state.body] if f.randomness == "different"]
        if not active:
            return attr
        if name == "permutation":
            return functools.partial(_permutation_batched, self._raw, active)
        if name in _UNBATCHED:
            raise BatchingError(
                f"funcgrad.vmap: the draw {name!r} (randperm, choice, multinomial, dirichlet "
                f"...) does not batch with randomness='different'; draw the numbers outside "
                f"vmap and pass them in with in_axes"
            )
        return functools.partial(_draw_batched, attr, name, active)


def _permutation_batched(raw: Any, frames: list[_Frame], n: Any) -> Any:
    """`randperm(n)` for every example: the order of `n` uniform numbers of each (a uniformly
    random permutation)."""
    if not isinstance(n, (int, numpy.integer)):
        raise BatchingError(
            "funcgrad.vmap: the draw 'permutation' of an array does not batch with "
            "randomness='different'; permute by an index (randperm(n)) instead"
        )
    out = raw.random((*[f.size for f in frames], int(n))).argsort(axis=-1, kind="stable")
    for f in frames:
        out = _batched(out, 0, f.level)
    return out


# NumPy Generator methods with no batched form here (their size is not a leading batch)
_UNBATCHED = frozenset(
    "permutation permuted shuffle choice multinomial multivariate_normal dirichlet "
    "hypergeometric multivariate_hypergeometric logseries zipf noncentral_chisquare "
    "noncentral_f".split()
)


def _draw_batched(method: Any, name: str, frames: list[_Frame], *given: Any, **kwargs: Any) -> Any:
    n = _DRAWS[name]
    args = list(given)
    size = kwargs.pop("size", None)
    if size is None and len(args) > n:
        size = args.pop(n)
    params = args[:n]
    rest = args[n:]
    names = ("low", "high") if name == "integers" else ()
    for k in list(kwargs):
        if k in names or k in ("loc", "scale", "lam", "p", "n", "a", "b", "shape", "df"):
            params.append(kwargs.pop(k))
    batch = tuple(f.size for f in frames)
    per = None if size is None else ((size,) if numpy.ndim(size) == 0 else tuple(size))
    plain = []
    shapes = []
    for p in params:
        if type(p) is Batched:
            if len(frames) != 1 or p.level != frames[0].level:
                raise BatchingError(
                    f"funcgrad.vmap: a batched parameter of {name} under nested vmaps with "
                    f"randomness='different' is not supported; draw outside"
                )
            v, mapped = _front_values(p)
            shapes.append(p.shape)
            plain.append((v, mapped, p.ndim))
        else:
            v = value_of(p)
            shapes.append(numpy.shape(v))
            plain.append((v, False, numpy.ndim(v)))
    if per is None:
        per = numpy.broadcast_shapes(*shapes) if shapes else ()
    lined = []
    for v, mapped, nd in plain:
        if mapped:
            v = numpy.asarray(v).reshape((v.shape[0], *((1,) * (len(per) - nd)), *v.shape[1:]))
        lined.append(v)
    out = method(*lined, *rest, size=batch + tuple(per), **kwargs)
    for f in frames:
        out = _batched(out, 0, f.level)
    return out


def _install_draws(randomness: str) -> None:
    """Watch funcgrad's draws while a vmap runs; for `"different"`, batch the CPU ones.

    For `"different"`, `Source.raw` (the NumPy generator every CPU draw uses, of the
    default source or of a `funcgrad.Generator`) hands out a `_BatchedDraws` while such a
    vmap runs in some thread; the generator's state stays its own.
    """
    with _draw_lock:
        _installed[0] += 1
        if _installed[0] == 1:
            rng.draw_observers.append(_on_draw)
        if randomness == "different":
            _installed[1] += 1
            if _installed[1] == 1:
                plain = rng.Source.raw
                _proxies[0] = plain
                rng.Source.raw = property(  # type: ignore[method-assign,assignment]
                    lambda self: _batched_raw(self, plain)
                )


def _batched_raw(source: Any, plain: Any) -> Any:
    raw = plain.fget(source)
    return _BatchedDraws(raw) if source.device == "cpu" else raw


def _uninstall_draws(randomness: str) -> None:
    with _draw_lock:
        _installed[0] -= 1
        if _installed[0] == 0 and _on_draw in rng.draw_observers:
            rng.draw_observers.remove(_on_draw)
        if randomness == "different":
            _installed[1] -= 1
            if _installed[1] == 0:
                rng.Source.raw = _proxies.pop(0)  # type: ignore[method-assign]


# --- vmap ------------------------------------------------------------------------------------------


def _is_axis(a: Any) -> bool:
    return a is None or (isinstance(a, (int, numpy.integer)) and not isinstance(a, bool))


def _leaves_with_paths(tree: Any, path: str) -> Iterator[tuple[Any, str]]:
    """The leaves of `tree` in flattening order, each with a readable path."""
    h = _handler(tree)
    if h is None:
        yield tree, path
        return
    if isinstance(tree, dict):
        for k in sorted(tree):
            yield from _leaves_with_paths(tree[k], f"{path}[{k!r}]")
        return
    children, _ = h.flatten(tree)
    for k, c in enumerate(children):
        yield from _leaves_with_paths(c, f"{path}[{k}]")


def _prefix_axes(axes: Any, tree: Any, path: str, what: str, op: str) -> list[Any]:
    """One axis per leaf of `tree` (flattening order) from `axes`, a prefix of its structure."""
    if _is_axis(axes):
        return [axes for _ in _leaves_with_paths(tree, path)]
    if isinstance(axes, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(axes) != len(tree):
            raise TreeStructureError(
                f"{op}: {what} has {len(axes)} entries at {path}, but the value there has "
                f"{len(tree)}; give one axis (an int or None) per entry, or one for all"
            )
        out: list[Any] = []
        for k, (a, t) in enumerate(zip(axes, tree, strict=True)):
            out.extend(_prefix_axes(a, t, f"{path}[{k}]", what, op))
        return out
    if isinstance(axes, dict) and isinstance(tree, dict):
        if set(axes) != set(tree):
            raise TreeStructureError(
                f"{op}: {what} at {path} has the keys {sorted(axes, key=repr)}, but the value "
                f"there has {sorted(tree, key=repr)}; give an axis for each key, or one for all"
            )
        out = []
        for k in sorted(tree):
            out.extend(_prefix_axes(axes[k], tree[k], f"{path}[{k!r}]", what, op))
        return out
    kind = type(tree).__name__
    raise TreeStructureError(
        f"{op}: {what} at {path} is a {type(axes).__name__}, but the value there is a "
        f"{kind}; {what} must be an int, None, or a container with the value's structure "
        f"(a prefix of it)"
    )


def _lowered(v: Any) -> tuple[Any, Any]:
    """A value as the core sees it (a tensor as its node or array) and the type to wrap back into."""
    t = type(v)
    if t is _ndarray:  # (the usual case; hasattr's miss below formats an exception message)
        return v, None
    if t is not Node and t is not Batched and hasattr(t, "__funcgrad_wrap__"):
        # NOTE: a tensor made inside vmap holds a batched value, which it cannot hand out
        # as an array (`graph_output` asks NumPy for one): its `_value` is that value
        held = getattr(v, "_value", None)
        if type(held) is Batched and v.__funcgrad_node__ is None:
            return held, t
        return graph_output(v), t
    return v, None


def _shape(v: Any) -> tuple[int, ...]:
    s = getattr(v, "shape", None)
    if s is None:
        s = numpy.shape(v)
    return tuple(s)


def vmap(
    f: Callable[..., Any],
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_size: int | None = None,
    chunk_size: int | None = None,
    *,
    randomness: str = "error",
    in_dims: Any = None,
    out_dims: Any = None,
) -> Callable[..., Any]:
    """Return `f` mapped over an axis of its arguments: one call computes every example at once.

    `vmap(f)(xs)` equals `stack([f(x) for x in xs])`, computed with each
    primitive applied once to the whole batch (its batching rule). It
    composes with every transform: `vmap(grad(loss), in_axes=(None, 0, 0))`
    gives per-example gradients, `grad` of a function that calls `vmap`
    differentiates through it, and vmaps nest.

    Args:
        f: A function of arrays, graph nodes or tensors (pytrees of them).
        in_axes: The axis of each argument to map over: an int (negative
            counts from the end), None (not mapped: the same for every
            example), or a tuple with one entry per positional argument,
            each an int, None or a container matching that argument's
            structure (a prefix of it). Keyword arguments are mapped over
            their axis 0.
        out_axes: Where the batch axis goes in each output: an int, None
            (for outputs that do not depend on the batch) or a prefix of
            the output's structure. Outputs that do not depend on the batch
            are broadcast to it.
        axis_size: The batch size, needed only when no argument is mapped.
        chunk_size: Compute at most this many examples at once (less
            memory for large batches), the chunks one after another.
        randomness: What a random draw inside `f` does (as `torch.func.vmap`):
            `"error"` raises, `"different"` draws independently for each
            example, `"same"` draws once for the whole batch.
        in_dims: PyTorch's name for `in_axes` (also accepted).
        out_dims: PyTorch's name for `out_axes`.

    Returns:
        A function taking `f`'s arguments with the batch axes added.

    Raises:
        BatchingError: If mapped arguments differ in size along their axes,
            an output that depends on the batch has `out_axes` None, or `f`
            branches in Python on a batched value (use `funcgrad.numpy.where`).
        AxisError: If an axis is out of range for its argument or output.
        TreeStructureError: If `in_axes` or `out_axes` does not match the
            structure of the arguments or outputs.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.vmap(lambda x: fnp.sum(x * x))(np.arange(6.0).reshape(3, 2))
        array([ 1., 13., 41.])
        >>> fg.vmap(fnp.dot, in_axes=(0, None))(np.eye(2), np.array([3.0, 4.0]))
        array([3., 4.])
        >>> fg.vmap(fg.grad(lambda w, x: fnp.sum(w * x) ** 2), in_axes=(None, 0))(
        ...     np.ones(2), np.array([[1.0, 0.0], [1.0, 2.0]]))
        array([[ 2.,  0.],
               [ 6., 12.]])
    """
    if in_dims is not None:
        in_axes = in_dims
    if out_dims is not None:
        out_axes = out_dims
    return _vmapped(f, in_axes, out_axes, axis_size, chunk_size, randomness, True, "funcgrad.vmap")


def _vmapped(
    f: Callable[..., Any],
    in_axes: Any,
    out_axes: Any,
    axis_size: int | None,
    chunk_size: int | None,
    randomness: str,
    map_kwargs: bool,
    op: str,
) -> Callable[..., Any]:
    if randomness not in _RANDOMNESS:
        raise ValueError(
            f"{op}: randomness must be 'error', 'different' or 'same', got {randomness!r}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"{op}: chunk_size must be a positive int or None, got {chunk_size!r}")
    if not callable(f):
        raise TypeError(f"{op}: f must be callable, got {type(f).__name__}")

    # the axis of each leaf, by the structure of the arguments: worked out once per structure
    cache: dict[Any, list[Any]] = {}

    @functools.wraps(f)
    def vmapped(*args: Any, **kwargs: Any) -> Any:
        leaves, args_def = tree_flatten(args)
        kw_leaves, kw_def = tree_flatten(kwargs) if kwargs else ([], _NO_KWARGS)
        key = (args_def, kw_def)
        all_axes = cache.get(key)
        if all_axes is None:
            all_axes = _leaf_axes(args, in_axes, op) + [0 if map_kwargs else None] * len(kw_leaves)
            if len(cache) > 64:
                cache.clear()
            cache[key] = all_axes
        all_leaves = leaves + kw_leaves

        def paths() -> list[str]:
            named = [
                p for i, a in enumerate(args) for _, p in _leaves_with_paths(a, f"argument {i}")
            ]
            return named + [p for _, p in _leaves_with_paths(kwargs, "keyword argument")]

        size, norm_axes = _batch_size(all_leaves, all_axes, paths, axis_size, op)

        def run(vals: list[Any], n: int) -> Any:
            return _run(
                f, vals, norm_axes, n, args_def, kw_def, len(leaves), out_axes, randomness, op
            )

        if chunk_size is None or size <= chunk_size:
            return run(all_leaves, size)
        return _chunked(run, all_leaves, norm_axes, size, chunk_size, out_axes, randomness, op)

    return vmapped


def _leaf_axes(args: tuple[Any, ...], in_axes: Any, op: str) -> list[Any]:
    """The `in_axes` entry of each leaf of `args` (in flattening order), checked against them."""
    axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    if isinstance(axes, tuple) and len(axes) != len(args):
        raise TreeStructureError(
            f"{op}: in_axes has {len(axes)} entries but the function was called with "
            f"{len(args)} positional argument(s); give one entry per argument, or one "
            f"int (or None) for all"
        )
    if not _is_axis(axes) and not isinstance(axes, tuple):
        raise TreeStructureError(
            f"{op}: in_axes must be an int, None or a tuple with one entry per positional "
            f"argument, got {type(axes).__name__} (for a single argument, write "
            f"in_axes=({axes!r},))"
        )
    per_arg = axes if isinstance(axes, tuple) else (axes,) * len(args)
    out: list[Any] = []
    for i, (a, ax) in enumerate(zip(args, per_arg, strict=True)):
        out.extend(_prefix_axes(ax, a, f"argument {i}", "in_axes", op))
    return out


def _batch_size(
    leaves: list[Any],
    axes: list[Any],
    paths: Callable[[], list[str]],
    axis_size: int | None,
    op: str,
) -> tuple[int, list[Any]]:
    sizes = []
    norm: list[Any] = []
    for k, (leaf, axis) in enumerate(zip(leaves, axes, strict=True)):
        if axis is None:
            norm.append(None)
            continue
        lowered, _ = _lowered(leaf)
        shape = _shape(lowered)
        nd = len(shape)
        a = int(axis)
        if not -nd <= a < nd:
            what = "a scalar" if nd == 0 else f"shape {shape}"
            hint = " (use None for values that are not batched)" if nd == 0 else ""
            raise AxisError(
                f"{op}: in_axes={a} for {paths()[k]}, which has {what}; the axis must be in "
                f"[{-nd}, {nd - 1}]{hint}"
            )
        a %= nd
        norm.append(a)
        sizes.append((shape[a], k, a))
    if not sizes:
        if axis_size is None:
            raise BatchingError(
                f"{op}: no argument is mapped (every in_axes entry is None), so the batch size "
                f"is unknown; pass axis_size=, or map at least one argument"
            )
        return int(axis_size), norm
    first = sizes[0][0]
    if any(n != first for n, _, _ in sizes) or (axis_size is not None and axis_size != first):
        names = paths()
        listing = "; ".join(f"{names[k]} has size {n} along axis {a}" for n, k, a in sizes)
        extra = f" (axis_size={axis_size})" if axis_size is not None else ""
        raise BatchingError(f"{op}: the mapped axes must all have one size{extra}, but {listing}")
    return first, norm


def _run(
    f: Callable[..., Any],
    leaves: list[Any],
    axes: list[Any],
    size: int,
    args_def: Any,
    kw_def: Any,
    n_args: int,
    out_axes: Any,
    randomness: str,
    op: str,
) -> Any:
    frames = _state.frames
    level = len(frames) + 1
    frame = _Frame(level, size, randomness)
    wrapped = []
    for leaf, axis in zip(leaves, axes, strict=True):
        if axis is None:
            wrapped.append(leaf)
            continue
        lowered, kind = _lowered(leaf)
        b = _batched(lowered, axis, level)
        wrapped.append(b if kind is None else kind.__funcgrad_wrap__(b))
    args = tree_unflatten(args_def, wrapped[:n_args])
    kwargs = {} if kw_def is _NO_KWARGS else tree_unflatten(kw_def, wrapped[n_args:])
    outermost = not frames
    if outermost:
        _state.scope = observe.observing(_INTERPRETER)
        _state.scope.__enter__()
    body = _state.body
    frames.append(frame)
    _state.body = level
    _install_draws(randomness)
    try:
        out = f(*args, **kwargs)
        return _outputs(out, out_axes, level, size, op)
    finally:
        _uninstall_draws(randomness)
        _state.body = body
        frames.pop()
        if outermost:
            scope, _state.scope = _state.scope, None
            scope.__exit__(None, None, None)
            _state.memo.clear()
            _state.kept.clear()
            _state.lowered.clear()


_NO_KWARGS = tree_flatten({})[1]  # the structure of no keyword arguments


def _outputs(out: Any, out_axes: Any, level: int, size: int, op: str) -> Any:
    if type(out) is tuple and type(out_axes) is int and out_axes >= 0:
        # NOTE: the usual case first (a tuple of arrays batched where they go, as per-example
        # gradients are), without flattening: the loop below gives the same for it
        vals = []
        for leaf in out:
            if type(leaf) is not Batched:
                break
            d = leaf.__dict__
            v = d["val"]
            if d["level"] != level or d["bdim"] != out_axes or type(v) is not _ndarray:
                break
            vals.append(v)
        else:
            return tuple(vals)
    leaves, out_def = tree_flatten(out)
    if _is_axis(out_axes):
        axes = [out_axes] * len(leaves)
    else:
        if isinstance(out_axes, list) and isinstance(out, tuple):
            out_axes = tuple(out_axes)
        axes = _prefix_axes(out_axes, out, "output", "out_axes", op)
    result = []
    for k, (leaf, axis) in enumerate(zip(leaves, axes, strict=True)):
        if (
            type(leaf) is Batched
            and leaf.level == level
            and leaf.bdim == axis
            and type(axis) is int
            and type(leaf.val) is _ndarray
            and axis >= 0
        ):
            result.append(leaf.val)  # an array batched where it goes (what _unbatch returns)
            continue
        path = functools.partial(_output_path, out, k)
        result.append(_unbatch(leaf, axis, level, size, path, op))
    return tree_unflatten(out_def, result)


def _output_path(out: Any, k: int) -> str:
    """The readable path of output leaf `k` (for error messages)."""
    return [p for _, p in _leaves_with_paths(out, "output")][k]


def _unbatch(o: Any, axis: Any, level: int, size: int, path: Callable[[], str], op: str) -> Any:
    o, kind = _lowered(o)
    o = _as_batched(o)
    # nodes of transforms that ran inside this vmap are done: keep their values
    while type(o) is Node and _level_of(o) >= level:
        o = o.value
    if type(o) is Batched and o.level == level:
        val, d = o.val, o.bdim
    elif type(o) is Batched and o.level > level:
        raise BatchingError(f"{op}: {path()} escaped an inner vmap (a value of its level)")
    else:
        val, d = o, None
        if isinstance(val, (str, bytes)) or not (
            hasattr(val, "shape") or isinstance(val, (*_SCALARS, numpy.generic))
        ):
            raise BatchingError(
                f"{op}: {path()} is a {type(val).__name__}; a vmapped function returns arrays, "
                f"numbers or graph nodes (pytrees of them)"
            )
    if axis is None:
        if d is not None:
            raise BatchingError(
                f"{op}: out_axes is None for {path()}, but it depends on the mapped axis (a "
                f"value for each example); give it an axis, or return only values that "
                f"are the same for every example there"
            )
        return val if kind is None else kind.__funcgrad_wrap__(val)
    nd = len(_shape(val)) + (d is None)
    a = int(axis)
    if not -nd <= a < nd:
        raise AxisError(
            f"{op}: out_axes={a} for {path()}, whose batched result has {nd} axes (a batch of "
            f"{size} examples of shape {_example_shape(val, d)}); the axis must be in "
            f"[{-nd}, {nd - 1}]"
        )
    a %= nd
    if d is None:
        if isinstance(val, _SCALARS):
            val = numpy.asarray(val)
        shape = _shape(val)
        val = broadcast_to(
            reshape(val, shape=shape[:a] + (1,) + shape[a:]), shape=shape[:a] + (size,) + shape[a:]
        )
    else:
        val = move(val, d, a)
    return val if kind is None else kind.__funcgrad_wrap__(val)


def _example_shape(val: Any, d: int | None) -> tuple[int, ...]:
    s = _shape(val)
    return s if d is None else s[:d] + s[d + 1 :]


def _chunked(
    run: Callable[[list[Any], int], Any],
    leaves: list[Any],
    axes: list[Any],
    size: int,
    chunk: int,
    out_axes: Any,
    randomness: str,
    op: str,
) -> Any:
    """Run the batch `chunk` examples at a time and join the outputs along their batch axes.

    With randomness='same' every chunk after the first draws the first chunk's
    numbers again (from the generators the user owns too, those the first chunk
    drew from in this thread), and the generators
    end where the first chunk left them: as one vmap over the whole batch.
    """
    state = rng.get_state(own=True) if randomness == "same" else None
    parts = []
    for start in range(0, size, chunk):
        stop = min(start + chunk, size)
        part = [
            leaf if axis is None else _slice_leaf(leaf, axis, start, stop)
            for leaf, axis in zip(leaves, axes, strict=True)
        ]
        if state is not None and start > 0:
            with rng.replay(state):
                parts.append(run(part, stop - start))
        else:  # the owned generators the first chunk draws from in this thread
            with rng.recording(state):
                parts.append(run(part, stop - start))
    first_leaves, out_def = tree_flatten(parts[0])
    per_part = [tree_flatten(p)[0] for p in parts]
    if _is_axis(out_axes):
        axes_out = [out_axes] * len(first_leaves)
    else:
        axes_out = _prefix_axes(out_axes, parts[0], "output", "out_axes", op)
    joined = []
    for k, axis in enumerate(axes_out):
        pieces = [p[k] for p in per_part]
        if axis is None:
            joined.append(pieces[0])
            continue
        lowered = [_lowered(p) for p in pieces]
        kind = lowered[0][1]
        nd = len(_shape(lowered[0][0]))
        out = concatenate(*[v for v, _ in lowered], axis=int(axis) % nd)
        joined.append(out if kind is None else kind.__funcgrad_wrap__(out))
    return tree_unflatten(out_def, joined)


def _slice_leaf(leaf: Any, axis: int, start: int, stop: int) -> Any:
    lowered, kind = _lowered(leaf)
    part = getitem(lowered, index=(*((slice(None),) * axis), slice(start, stop)))
    return part if kind is None else kind.__funcgrad_wrap__(part)


# --- the call primitives (custom_vjp, custom_jvp, checkpoint, autograd.Function) -----------------


def _call_rule(prim: Primitive) -> Callable[..., Any]:
    """A call primitive's rule: its function run on the batched values (it batches itself)."""

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        level = _state.rule_level
        args = [v if d is None else _batched(v, d, level) for v, d in zip(vals, dims, strict=True)]
        body = _state.body
        _state.body = level
        try:
            out = prim.forward(numpy, *args, **params)
        finally:
            _state.body = body
        while type(out) is Node and _level_of(out) >= level:
            out = out.value
        if type(out) is Batched and out.level == level:
            return out.val, out.bdim
        return front_of(out, size), 0

    return rule


def over_transform(leaves: Sequence[Any]) -> bool:
    """Whether a function with a custom rule meets a vmap inside a transform
    (`grad(lambda p: vmap(f)(p, xs).sum())`): a batched value over the transform's node,
    or batched values beside a node of an outer level. The rule must then apply to the batch."""
    if not _state.frames:
        return False
    top = 0
    for v in leaves:
        if type(v) is Batched:
            top = max(top, v.level)
            while type(v) is Batched:
                v = v.val
            if type(v) is Node:
                return True
    return bool(top) and any(type(v) is Node and _level_of(v) < top for v in leaves)


def summed_where_unmapped(cts: Any, in_axes: Any) -> Any:
    """Per-argument cotangents with the batch on axis 0, summed over it where `in_axes` is None
    (an argument the same for every example, a Python number)."""
    flat, treedef = tree_flatten(tuple(cts), is_leaf=lambda x: x is None)
    dims = tree_flatten(tuple(in_axes), is_leaf=lambda x: x is None)[0]
    if len(dims) != len(flat):
        return cts  # the rule's own structure: its check names the mismatch
    summed = [
        c if c is None or d is not None else _table.sum_(c, axis=(0,), keepdims=False)
        for c, d in zip(flat, dims, strict=True)
    ]
    return tree_unflatten(treedef, summed)


def lifted_call(rebuild: Callable[[Any, int], Callable[..., Any]], args: tuple[Any, ...]) -> Any:
    """Call a function with a custom rule (`custom_vjp`, `custom_jvp`, `checkpoint`) on
    batched values over an outer transform's nodes, so that the transform uses the rule.

    The innermost vmap's batch is taken off the arguments (moved to axis 0; an array
    the same for every example is broadcast, so the outer transform sums its cotangent
    over the batch) and `rebuild(in_axes, size)` gives the function with its rule
    batched (both under `vmap`); called on the outer nodes, it records one call node
    there, whose output is batched again. The levels below are handled the same way when
    the rebuilt function meets them.
    """
    leaves, args_def = tree_flatten(args)
    level = max(v.level for v in leaves if type(v) is Batched)
    size = _state.frames[level - 1].size
    vals = []
    dims: list[int | None] = []
    for v in leaves:
        if type(v) is Batched and v.level == level:
            vals.append(_table.front(v.val, v.bdim, size))
            dims.append(0)
        elif type(v) in (Node, Batched, _ndarray):  # the same for every example: broadcast,
            vals.append(_table.front(v, None, size))  # so its cotangent sums over the batch
            dims.append(0)
        else:
            vals.append(v)
            dims.append(None)
    fn = rebuild(tree_unflatten(args_def, dims), size)
    out = fn(*tree_unflatten(args_def, vals))
    leaves_out, out_def = tree_flatten(out)
    return tree_unflatten(out_def, [_batched(o, 0, level) for o in leaves_out])


def vmapping() -> bool:
    """Whether a vmap runs in this thread."""
    return bool(_state.frames)


def check_write(memory: Any, value: Any) -> None:
    """Refuse, as torch.func.vmap does, an in-place write of batched values into a tensor
    that is not batched as deeply (one the vmapped function captured): its one array
    cannot hold a value per example.

    Args:
        memory: The written tensor's (root's) value.
        value: The value written (a node's value is looked through).
    """
    if not _state.frames:
        return
    if type(value) is Node:
        value = value.value
    if type(value) is not Batched:
        return
    if type(memory) is not Batched or memory.level < value.level:
        raise BatchingError(
            "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists "
            "a Tensor `other` in extra_args that has more elements than `self`. This happened "
            "due to `other` being vmapped over but `self` not being vmapped over in a vmap. "
            "Please try to use out-of-place operators instead of inplace arithmetic. "
            "(funcgrad.func.vmap: write into a tensor made inside the vmapped function, or "
            "clone() the captured one there)"
        )


def front_of(v: Any, size: int) -> Any:
    """`v`, the same for every example, broadcast to a batch on axis 0."""
    return _table.front(v, None, size)


for _call in ("checkpoint_call", "custom_vjp_call", "custom_jvp_call", "function_call", "jit_call"):
    _table.FACTORIES[_call] = _call_rule


def fallback_primitives() -> list[str]:
    """Return the names of the registered primitives without a batching rule.

    `funcgrad.vmap` applies those once per example (a loop over the batch,
    with a one-time `BatchingWarning` naming the primitive): right, but slow.

    Examples:
        >>> from funcgrad.transforms.batching import fallback_primitives
        >>> "matmul" in fallback_primitives()
        False
    """
    return [p.name for p in _registry.primitives() if _table.rule_for(p) is None]


def looped_primitives() -> dict[str, str]:
    """Return the primitives that ran once per example in this process, and why."""
    return dict(_looped)


__all__ = [
    "Batched",
    "BatchingWarning",
    "check_write",
    "vmapping",
    "fallback_primitives",
    "looped_primitives",
    "vmap",
]
