"""Indexing primitives: `x[index]` (`getitem`), its transpose `scatter_add`, and `index_update`.

`getitem` takes any NumPy index as a static parameter: ints, slices, `None`,
`Ellipsis`, integer arrays and boolean masks, alone or mixed. Its VJP puts
the cotangent back where the elements came from with `scatter_add`, which
*adds* into zeros, so an element picked twice (`x[[0, 0]]`) receives both
contributions. Each of the two is the other's transpose, so both are linear
and derivatives of any order work.

`index_update(x, values, index=)` is `x[index] = values` out of place: a copy
of `x` with `values` (broadcast) written at `index`. It is how the Tensor
layer records item assignment (`t[i] = v`) and every in-place operation on a
view: the base gets a new node, and graphs that hold the old one keep it.
It is linear in `x` and `values` together; the VJP gives `x` the cotangent
with zeros where it was overwritten and `values` the cotangent read back at
`index` (PyTorch's `IndexPutBackward0`/`CopySlices`).

Indices are normalized once, by `normalize_index`, before they become a
node's parameter: always a tuple, with lists turned into integer (or
boolean) arrays and every array read-only, so changing the user's index
array afterwards cannot change the graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy

from funcgrad.backend import freeze
from funcgrad.errors import IndexingError
from funcgrad.graph import Node
from funcgrad.graph.node import Array
from funcgrad.ops._util import attach, describe, shape_of
from funcgrad.ops.registry import (
    LINEAR,
    Draw,
    Drawn,
    GradFnName,
    Names,
    Primitive,
    RuleInputs,
    RuleParams,
    Sample,
    register,
)


def normalize_index(index: Any) -> tuple[Any, ...]:
    """Return a NumPy index as the tuple `getitem` and `scatter_add` take as `index`.

    Ints, slices, `None` and `Ellipsis` are kept (NumPy integers become
    ints); lists and tuples nested
    inside the index become arrays (an empty list an integer one); arrays
    are made read-only (copied if they were writeable); a node used as an
    index is replaced by its value (an index is never differentiated).

    Args:
        index: Anything NumPy accepts between square brackets.

    Returns:
        The index as a tuple.

    Examples:
        >>> normalize_index(1)
        (1,)
        >>> normalize_index((slice(1, 3), [0, 2]))
        (slice(1, 3, None), array([0, 2]))
    """
    if type(index) is not tuple:
        index = (index,)
    out: list[Any] = []
    for i in index:
        t = type(i)
        if t is int or t is slice or i is None or i is Ellipsis:
            out.append(i)
            continue
        if t is Node:
            i = i.value
        elif isinstance(i, _np_integer):
            out.append(int(i))  # a NumPy integer is an int (one row: PyTorch's select)
            continue
        elif t is list or t is tuple:
            # TODO(#8): these become NumPy arrays; move them to the GPU for CuPy values.
            i = freeze(i)
            if i.size == 0 and i.dtype.kind == "f":
                i = freeze(i.astype("intp"))  # NumPy reads x[[]] as an integer index
        elif hasattr(i, "shape"):
            i = freeze(i)
        out.append(i)
    return tuple(out)


_np_integer = numpy.integer


# --- sampling (for the generic tests) -----------------------------------------


def _draw_slice(g: Draw, n: int) -> slice:
    start = None if g.boolean() else g.integers(-n - 1, n)
    stop = None if g.boolean() else g.integers(-n - 1, n + 1)
    return slice(start, stop, g.choice((None, 1, 2, -1)))


def _draw_index(g: Draw, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Draw an index into an array of `shape`, mixing every kind NumPy allows."""
    if shape and g.integers(0, 3) == 0:
        # A boolean mask over the leading axes, maybe followed by `...`.
        k = g.integers(1, len(shape))
        mask = g.array(shape[:k], -1.0, 1.0) > 0
        return normalize_index((mask, Ellipsis) if g.boolean() else mask)
    length = g.integers(0, 3)  # integer-array parts broadcast: length L or (2, L)
    index: list[Any] = []
    for n in shape:
        kind = g.integers(0, 3) if n else 1  # a size-0 axis takes only a slice
        if kind == 0:
            index.append(g.integers(-n, n - 1))
        elif kind == 1:
            index.append(_draw_slice(g, n))
        elif g.boolean():
            index.append([g.integers(-n, n - 1) for _ in range(length)])  # repeats happen
        else:
            index.append([[g.integers(0, n - 1) for _ in range(length)] for _ in range(2)])
        if g.integers(0, 4) == 0:
            index.append(None)
    if index and g.integers(0, 3) == 0:
        keep = g.integers(0, len(index) - 1)
        index = index[:keep] + [Ellipsis] + index[keep + 1 :] if g.boolean() else index[:keep]
    return normalize_index(tuple(index))


def _getitem_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    return (g.array(shape, -3.0, 3.0),), {"index": _draw_index(g, shape)}


def _scatter_add_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    index = _draw_index(g, shape)
    out_shape = getitem(g.array(shape, 0.0, 1.0), index=index).shape
    return (g.array(out_shape, -3.0, 3.0),), {"index": index, "shape": shape}


# --- the primitives -------------------------------------------------------------


def _getitem_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """As PyTorch applies an index: IndexBackward0 if it has an array, else by its last part.

    SelectBackward0 (an int), SliceBackward0 (a slice), UnsqueezeBackward0 (None).
    """
    name = "SliceBackward0"
    for i in params["index"]:
        if hasattr(i, "shape"):
            return "IndexBackward0"
        if type(i) is int:
            name = "SelectBackward0"
        elif i is None:
            name = "UnsqueezeBackward0"
        elif type(i) is slice and i != slice(None):
            name = "SliceBackward0"
    return name


def _getitem_forward(xp: ModuleType, x: Array, *, index: tuple[Any, ...]) -> Array:
    try:
        return xp.asarray(x)[index]
    except IndexError as e:
        # NOTE: an IndexError (not only an OpError), as NumPy and PyTorch raise,
        # so `except IndexError` and Python's legacy iteration protocol work.
        raise IndexingError(f"funcgrad.getitem({describe(x)}, index={index!r}): {e}") from e


getitem = register(
    Primitive(
        name="getitem",
        forward=_getitem_forward,
        vjp=(lambda ct, out, x, *, index: scatter_add(ct, index=index, shape=shape_of(x)),),
        jvp=LINEAR,
        params=("index",),
        sample=Sample(_getitem_sample, complex=True),
        doc="x[index], with NumPy's basic and advanced indexing",
        names=Names(grad_fn=_getitem_grad_fn),
    )
)


_ndarray = numpy.ndarray
_ROWS: dict[int, Any] = {}  # batch size -> its `batch_rows`


def batch_rows(size: int) -> Any:
    """`numpy.arange(size)`, read-only and the same object for the same `size`.

    vmap's batching rules put it first in a batch's index (`x[rows, index]`,
    one row per example); `scatter_add` knows it by identity and then knows
    that the index names no position twice (see `_repeats_possible`).

    Examples:
        >>> batch_rows(3)
        array([0, 1, 2])
        >>> batch_rows(3) is batch_rows(3), batch_rows(3).flags.writeable
        (True, False)
    """
    rows = _ROWS.get(size)
    if rows is None:
        if len(_ROWS) >= 64:  # sizes seen: a few, unless a program tries many
            _ROWS.clear()
        rows = numpy.arange(size)
        rows.flags.writeable = False
        _ROWS[size] = rows
    return rows


def _repeats_possible(index: Any) -> bool:
    # Only integer arrays can name one position twice (ints, slices, masks cannot)
    for i in index:
        dtype = getattr(i, "dtype", None)
        if dtype is not None and dtype.kind in "iu" and i.ndim:
            return not _distinct_rows(index)
    return False


def _distinct_rows(index: Any) -> bool:
    # `batch_rows(n)` first (distinct rows) and every other integer array with one entry per
    # row (or 0-d): each row names positions of its own (vmap's per-example index, W9's labels)
    first = index[0]
    if type(first) is not _ndarray or first.ndim != 1:
        return False
    n = len(first)
    if _ROWS.get(n) is not first:
        return False
    for i in index:
        dtype = getattr(i, "dtype", None)
        if dtype is not None and dtype.kind in "iu" and i.ndim and i.shape != (n,):
            return False
    return True


def _scatter_add_forward(xp: ModuleType, ct: Array, *, index: Any, shape: tuple[int, ...]) -> Array:
    ct = xp.asarray(ct)
    out = xp.zeros(shape, dtype=ct.dtype)
    if _repeats_possible(index):
        if xp.__name__ == "numpy":
            xp.add.at(out, index, ct)  # adds once per occurrence of a position
        else:
            import cupyx  # NOTE: CuPy's ufuncs had no .at before v13; scatter_add is add.at

            cupyx.scatter_add(out, index, ct)
    else:
        out[index] = ct
    return out


scatter_add: Primitive = register(
    Primitive(
        name="scatter_add",
        forward=_scatter_add_forward,
        vjp=(lambda ct, out, values, *, index, shape: getitem(ct, index=index),),
        jvp=LINEAR,
        params=("index", "shape"),
        sample=Sample(_scatter_add_sample, complex=True),
        doc="zeros of shape with values added at index (repeated positions accumulate)",
    )
)


# --- Node methods -----------------------------------------------------------------


def _iter(self: Node) -> Iterator[Any]:
    """Iterate over the rows of a traced value (`for row in x`, `a, b = x`), each a getitem node."""
    if not self.shape:
        raise TypeError(f"iteration over a 0-d array (funcgrad: the node {self!r} is 0-d)")
    return (getitem(self, index=(i,)) for i in range(self.shape[0]))


attach(
    {
        "__getitem__": lambda self, index: getitem(self, index=normalize_index(index)),
        "__iter__": _iter,
    }
)


# --- writing at an index, out of place ----------------------------------------------


def _draw_unique_index(g: Draw, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Draw an index into `shape` that names no position twice (a write there is well defined)."""
    if shape and g.integers(0, 3) == 0:
        k = g.integers(1, len(shape))
        return normalize_index(g.array(shape[:k], -1.0, 1.0) > 0)
    index: list[Any] = []
    arrays = 0
    for n in shape:
        kind = g.integers(0, 2) if n else 1
        if kind == 0:
            index.append(g.integers(-n, n - 1))
        elif kind == 1 or arrays:
            index.append(_draw_slice(g, n))
        else:  # one integer array, without repeats (a permutation's first entries)
            arrays += 1
            index.append(g.permutation(n)[: g.integers(0, n)])
        if g.integers(0, 4) == 0:
            index.append(None)
    if index and g.integers(0, 3) == 0:
        index[g.integers(0, len(index) - 1)] = Ellipsis
    return normalize_index(tuple(index))


def _index_update_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    x = g.array(shape, -3.0, 3.0)
    index = _draw_unique_index(g, shape)
    target = getitem(x, index=index).shape
    # values broadcast to the indexed shape: all of it, its trailing axes, or a scalar
    cut = g.integers(0, len(target))
    values = g.array(target[cut:] if g.boolean() else target, -3.0, 3.0)
    return (x, values), {"index": index}


def _index_update_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """IndexPutBackward0 for an index with an array in it (`index_put_`), else CopySlices."""
    for i in params["index"]:
        if hasattr(i, "shape"):
            return "IndexPutBackward0"
    return "CopySlices"


def _index_update_forward(
    xp: ModuleType, x: Array, values: Array, *, index: tuple[Any, ...]
) -> Array:
    out = xp.array(x, copy=True)
    try:
        out[index] = values
    except (IndexError, ValueError) as e:
        raise IndexingError(
            f"funcgrad.index_update({describe(x)}, {describe(values)}, index={index!r}): {e}"
        ) from e
    return out


index_update: Primitive = register(
    Primitive(
        name="index_update",
        forward=_index_update_forward,
        vjp=(
            lambda ct, out, x, values, *, index: index_update(ct, 0.0, index=index),
            lambda ct, out, x, values, *, index: getitem(ct, index=index),
        ),
        jvp=LINEAR,
        params=("index",),
        sample=Sample(_index_update_sample, complex=True),
        doc="a copy of x with values written at index (x[index] = values, out of place)",
        names=Names(grad_fn=_index_update_grad_fn),
    )
)
