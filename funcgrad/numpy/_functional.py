"""Functions of `funcgrad.numpy` that apply a user's function: `apply_along_axis`, `vectorize` ...

These are Python loops, as in NumPy (use `funcgrad.vmap` to batch a function): the
user's function is called once per slice (or per entry), on graph nodes
where a node goes in, and the results are stacked. They are
differentiable through the user's function, as it is built of
`funcgrad.numpy` functions. On plain values they are NumPy's own
functions, unless the user's function returns a node (one it made from a
node it captured, such as a parameter being differentiated): then the
loop runs on the plain values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as _np

from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._shape import moveaxis as _moveaxis
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import index as _index
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import normalize_axis as _normalize_axis

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise", "vectorize"]


def _value(a: Any) -> Any:
    return a.value if type(a) is _Node else a


def _has_node(obj: Any) -> bool:
    if type(obj) is _Node:
        return True
    if type(obj) is list or type(obj) is tuple:
        return any(_has_node(o) for o in obj)
    if type(obj) is dict:
        return any(_has_node(o) for o in obj.values())
    return False


def _numpy_unless_nodes(numpy_call: Callable[[], Any], loop_call: Callable[[], Any]) -> Any:
    """Return NumPy's result, or the loop's where the user's function returned a graph node.

    A node made from a captured node (a parameter being differentiated)
    reaches NumPy, which refuses it (`Node.__array__`): the loop takes over.
    """
    try:
        return numpy_call()
    except TypeError as e:
        if "graph node" not in str(e):
            raise
    return loop_call()


def _stacked(results: list[Any], shape: tuple[int, ...]) -> Any:
    """Return the results (one per position of `shape`, same shape each) stacked into `shape + r`."""
    if not _has_node(results):
        out = _np.stack([_np.asarray(r) for r in results])
        return out.reshape(shape + out.shape[1:])
    stacked = _sh.stack(*[r if type(r) is _Node else _np.asarray(r) for r in results], axis=0)
    return _sh.reshape(stacked, shape=shape + tuple(stacked.shape[1:]))


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any):
    """Return `func1d` applied to the 1-D slices of `arr` along `axis` (NumPy's `apply_along_axis`).

    The result's dimensions from `func1d` replace `axis`, as in NumPy. With
    a graph node (in `arr` or in the extra arguments) the slices are
    `getitem` nodes and the results are stacked: differentiable through
    `func1d`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.apply_along_axis(fnp.sum, 1, fnp.ones((2, 3)))
        array([3., 3.])
        >>> x = fnp.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fg.grad(lambda x: fnp.sum(fnp.apply_along_axis(lambda r: r[0] * r[1], 0, x)))(x)
        array([[3., 4.],
               [1., 2.]])
    """
    if not _has_node([arr, list(args), kwargs]):
        return _numpy_unless_nodes(
            lambda: _np.apply_along_axis(func1d, axis, arr, *args, **kwargs),
            lambda: _apply_along_axis(func1d, axis, arr, *args, **kwargs),
        )
    return _apply_along_axis(func1d, axis, arr, *args, **kwargs)


def _apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any):
    if type(arr) is not _Node:
        arr = _np.asarray(arr)
    ndim = len(arr.shape)
    ax = _normalize_axis(axis, ndim, "apply_along_axis")[0]
    moved = _moveaxis(arr, ax, -1)
    outer = tuple(moved.shape[:-1])
    if 0 in outer:
        raise _OpError(
            f"funcgrad.numpy.apply_along_axis: cannot apply along axis {axis} of shape "
            f"{tuple(arr.shape)}: an iteration dimension is 0 (as NumPy)"
        )
    results = [
        func1d(
            _index.getitem(moved, index=idx) if type(moved) is _Node else moved[idx],
            *args,
            **kwargs,
        )
        for idx in _np.ndindex(*outer)
    ]
    out = _stacked(results, outer)
    rdim = len(out.shape) - len(outer)
    # the result's dimensions go where `axis` was
    order = (*range(ax), *range(len(outer), len(outer) + rdim), *range(ax, len(outer)))
    if order == tuple(range(len(order))):
        return out
    return _sh.transpose(out, axes=order) if type(out) is _Node else out.transpose(order)


def apply_over_axes(func: Callable[..., Any], a: Any, axes: Any):
    """Apply `func(a, axis)` repeatedly, over each axis of `axes` (NumPy's `apply_over_axes`).

    Each result must have `a`'s number of dimensions, or one fewer (then
    the axis is inserted back, size 1).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.apply_over_axes(fnp.sum, fnp.ones((2, 3, 4)), [0, 2]).shape
        (1, 3, 1)
    """
    if type(a) is not _Node:
        a = _np.asarray(a)
    ndim = len(a.shape)
    for axis in _np.atleast_1d(axes).tolist():
        ax = axis + ndim if axis < 0 else axis
        res = func(a, ax)
        rdim = len(_np.shape(_value(res)))
        if rdim == ndim:
            a = res
        elif rdim == ndim - 1:
            a = _sh.expand_dims(res, axis=(ax,)) if type(res) is _Node else _np.expand_dims(res, ax)
        else:
            raise _OpError(
                f"funcgrad.numpy.apply_over_axes: func returned {rdim} dimensions for an "
                f"array of {ndim}; it must keep them, or drop the one axis it reduces"
            )
    return a


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any):
    """Return `funclist[i](x)` where `condlist[i]` is true, entry by entry (NumPy's `piecewise`).

    As in NumPy, a later condition overrides an earlier one, one more
    function than conditions is the "otherwise" case, a constant instead of
    a function is that value, and entries no condition selects are 0. With
    a graph node `x` each function gets the node's selected entries and the
    result is differentiable through it; the conditions have no gradient.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> x = fnp.array([-2.0, 3.0])
        >>> fnp.piecewise(x, [x < 0], [lambda v: -v, lambda v: v * v])
        array([2., 9.])
        >>> fg.grad(lambda x: fnp.sum(fnp.piecewise(x, [x < 0], [lambda v: -v, lambda v: v * v])))(x)
        array([-1.,  6.])
    """
    if type(x) is not _Node:
        return _numpy_unless_nodes(
            lambda: _np.piecewise(x, _value(condlist), funclist, *args, **kw),
            lambda: _piecewise(_np.asarray(x), condlist, funclist, *args, **kw),
        )
    return _piecewise(x, condlist, funclist, *args, **kw)


def _piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    ndim = len(x.shape)
    condlist = _value(condlist)
    if type(condlist) is list or type(condlist) is tuple:
        condlist = [_value(c) for c in condlist]
    n2 = len(funclist)
    # NOTE: NumPy's reading of condlist, step by step (numpy/lib/_function_base_impl.py).
    if _np.isscalar(condlist) or (not isinstance(condlist[0], (list, _np.ndarray)) and ndim != 0):
        condlist = [condlist]
    # NOTE: stacked, not np.asarray(condlist): a traced mask (`x < 0` under funcgrad.jit)
    # dispatches through np.stack, so the plan computes the conditions (asarray baked them)
    conds = (
        _np.stack([_np.asanyarray(c, dtype=bool) for c in condlist])
        if len(condlist)
        else _np.asarray(condlist, dtype=bool)
    )
    n = len(conds)
    if n == n2 - 1:
        conds = _np.concatenate([conds, ~_np.any(conds, axis=0, keepdims=True)], axis=0)
        n += 1
    elif n != n2:
        raise _OpError(
            f"funcgrad.numpy.piecewise: with {n} condition(s), there should be {n} or "
            f"{n + 1} functions, got {n2}"
        )
    y: Any = _np.zeros(x.shape, dtype=x.dtype)
    for cond, func in zip(conds, funclist, strict=True):
        cond = _np.broadcast_to(cond, x.shape) if cond.shape != x.shape else cond
        if not callable(func):
            y = _ew.where(cond, _np.asarray(func, dtype=x.dtype), y)
            continue
        count = int(cond.sum())
        if count == 0:
            continue
        index = _index.normalize_index((cond,))
        vals = func(_index.getitem(x, index=index), *args, **kw)
        if type(vals) is not _Node:
            vals = _np.asarray(vals, dtype=x.dtype)
        elif vals.dtype != x.dtype:
            vals = _ew.astype(vals, dtype=x.dtype)
        if tuple(_np.shape(_value(vals))) != (count,):
            vals = (
                _sh.broadcast_to(vals, shape=(count,))
                if type(vals) is _Node
                else _np.broadcast_to(vals, (count,))
            )
        placed = _index.scatter_add(vals, index=index, shape=tuple(x.shape))
        y = _ew.where(cond, placed, y)
    return y


class vectorize:  # noqa: N801  (NumPy's name)
    """Make a function of scalars (or of core arrays) act entry by entry on arrays.

    NumPy's `vectorize`, with the same arguments. Called with a graph node
    among its arguments it is a Python loop (for a batched call, use `funcgrad.vmap`):
    `pyfunc` is called on each entry (a 0-d node), or each core slice with
    `signature=`, and the results are stacked, so the result is
    differentiable through `pyfunc`. Without nodes it is NumPy's
    `vectorize`. `otypes` and `cache` apply to plain values only.

    Args:
        pyfunc: The function to vectorize.
        otypes: NumPy's output types (plain values only).
        doc: The docstring of the vectorized function.
        excluded: Positions (ints) and names (strs) of arguments passed as
            they are, not looped over.
        cache: NumPy's `cache` (plain values only).
        signature: A generalized-ufunc signature such as `"(n),(n)->()"`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> f = fnp.vectorize(lambda a, b: a * b if a > 0 else b)
        >>> f(fnp.array([1.0, -1.0]), 3.0)
        array([3., 3.])
        >>> fg.grad(lambda x: fnp.sum(f(x, 3.0)))(fnp.array([1.0, -1.0]))
        array([3., 0.])
    """

    def __init__(
        self,
        pyfunc: Callable[..., Any],
        otypes: Any = None,
        doc: str | None = None,
        excluded: Any = None,
        cache: bool = False,
        signature: str | None = None,
    ) -> None:
        self.pyfunc = pyfunc
        self.signature = signature
        self.excluded = set(excluded or ())
        self._numpy = _np.vectorize(pyfunc, otypes, doc, excluded, cache, signature)
        self.__doc__ = pyfunc.__doc__ if doc is None else doc

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not _has_node([list(args), kwargs]):
            return _numpy_unless_nodes(
                lambda: self._numpy(*args, **kwargs), lambda: self._loop(*args, **kwargs)
            )
        return self._loop(*args, **kwargs)

    def _loop(self, *args: Any, **kwargs: Any) -> Any:
        looped = [i for i in range(len(args)) if i not in self.excluded]
        looped_kw = [k for k in kwargs if k not in self.excluded]
        arrays = [args[i] for i in looped] + [kwargs[k] for k in looped_kw]
        arrays = [a if type(a) is _Node else _np.asarray(a) for a in arrays]
        if self.signature is None:
            core_in: list[tuple[str, ...]] = [()] * len(arrays)
        else:
            core_in = self._core_dims(len(arrays))
        loop_shapes = []
        for a, core in zip(arrays, core_in, strict=True):
            shape = tuple(a.shape)
            if len(shape) < len(core):
                raise _OpError(
                    f"funcgrad.numpy.vectorize: an argument of shape {shape} has fewer "
                    f"dimensions than its core dimensions {core} (signature {self.signature!r})"
                )
            loop_shapes.append(shape[: len(shape) - len(core)])
        loop = _np.broadcast_shapes(*loop_shapes)
        full: list[Any] = [
            _sh.broadcast_to(a, shape=loop + tuple(a.shape[len(s) :]))
            if type(a) is _Node and tuple(s) != loop
            else (_np.broadcast_to(a, loop + a.shape[len(s) :]) if type(a) is not _Node else a)
            for a, s in zip(arrays, loop_shapes, strict=True)
        ]
        results = []
        for idx in _np.ndindex(*loop):
            picked = [_index.getitem(a, index=idx) if type(a) is _Node else a[idx] for a in full]
            call_args = list(args)
            for i, p in zip(looped, picked, strict=False):
                call_args[i] = p
            call_kwargs = dict(kwargs)
            for k, p in zip(looped_kw, picked[len(looped) :], strict=True):
                call_kwargs[k] = p
            results.append(self.pyfunc(*call_args, **call_kwargs))
        if not results:
            raise _OpError(
                "funcgrad.numpy.vectorize: cannot call the function on empty arrays of "
                f"graph nodes (loop shape {loop}): the shape of its result is unknown"
            )
        if type(results[0]) is tuple:
            return tuple(_stacked([r[k] for r in results], loop) for k in range(len(results[0])))
        return _stacked(results, loop)

    def _core_dims(self, n: int) -> list[tuple[str, ...]]:
        inputs = "".join(self.signature.split()).split("->")[0]  # type: ignore[union-attr]
        cores = [
            tuple(d.strip() for d in part.split(",") if d.strip())
            for part in inputs.strip()[1:-1].split("),(")
        ]
        if len(cores) != n:
            raise _OpError(
                f"funcgrad.numpy.vectorize: signature {self.signature!r} names {len(cores)} "
                f"inputs, the call passed {n}"
            )
        return cores
