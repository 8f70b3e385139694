"""Hand-written shape functions of `funcgrad.numpy` (see the package docstring).

The functions that apply one primitive each (`reshape`, `transpose`,
`squeeze`, `flip`, ...) are generated into `_generated.py`. Here are those
with another signature (`concatenate` and `stack` take a sequence,
`expand_dims` needs its axis, `pad` has modes) and the compositions:
`swapaxes`, `moveaxis`, `ravel`, the `atleast_*d` family and the stacking
helpers. `split` returns several arrays while a graph node holds one value,
so it is one `getitem` (a slice) per piece: the pieces are independent
nodes, and each one's gradient flows back into its own slab of the input.

The functions that only select, repeat or rearrange entries (`append`,
`insert`, `delete`, `choose`, `select`, `compress`, `extract`, `resize`,
`block`, the `put` family) are one `getitem` each: NumPy's own function is
run on integer *labels* of the entries of the inputs, and the labels it
returns say which entry of the concatenated inputs goes where (see
`_gathered`). So their values and errors are NumPy's, and each output
entry's gradient flows back to the entry it came from. Nodes are immutable:
the functions NumPy writes in place with (`put`, `put_along_axis`, `place`,
`putmask`, `copyto`, `fill_diagonal`) take `inplace=False` to return the
updated copy instead, as in `jax.numpy`; on plain arrays `inplace=True`
(the default) writes in place as NumPy does, and on a node it is refused.
"""

from __future__ import annotations

from itertools import pairwise as _pairwise

import numpy as _np

from funcgrad.backend import freeze as _freeze
from funcgrad.errors import OpError as _OpError
from funcgrad.errors import ReadOnlyError as _ReadOnlyError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _axes
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import describe as _describe
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.ops._util import value_of as _value_of
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import normalize_index as _normalize_index

__all__ = [
    "append",
    "array_split",
    "block",
    "broadcast",
    "broadcast_arrays",
    "choose",
    "compress",
    "copyto",
    "delete",
    "extract",
    "fill_diagonal",
    "insert",
    "place",
    "put",
    "put_along_axis",
    "putmask",
    "resize",
    "select",
    "trim_zeros",
    "unstack",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "concatenate",
    "expand_dims",
    "hstack",
    "moveaxis",
    "pad",
    "permute_dims",
    "ravel",
    "split",
    "stack",
    "swapaxes",
    "vstack",
]


def _array(a):
    """Return `a` if it is a node or an array, else `a` as a NumPy array (lists, numbers)."""
    if type(a) is _Node or hasattr(a, "shape"):
        return a
    return _np.asarray(a)


def ravel(a):
    """Return the elements of `a` as a 1-D array, in row-major order.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.ravel([[1.0, 2.0], [3.0, 4.0]])
        array([1., 2., 3., 4.])
    """
    return _sh.reshape(a, shape=(-1,))


# --- permuting axes -------------------------------------------------------------


def permute_dims(a, axes=None):
    """Return `a` with its axes permuted: the array-API name of `transpose`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.permute_dims([[1.0, 2.0]], (1, 0)).shape
        (2, 1)
    """
    return _sh.transpose(a, axes=_axes(axes))


def swapaxes(a, axis1, axis2):
    """Return `a` with two axes exchanged.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.swapaxes(np.zeros((2, 3, 4)), 0, -1).shape
        (4, 3, 2)
    """
    a = _array(a)
    return _sh.transpose(a, axes=_sh.swapped_axes(len(a.shape), axis1, axis2))


def moveaxis(a, source, destination):
    """Return `a` with axes moved to new positions; the other axes keep their order.

    Args:
        a: An array or a graph node.
        source: The axis (or sequence of axes) to move.
        destination: Where each of them goes, in the same order.

    Raises:
        OpError: If an axis is out of range or the two sequences differ in
            length.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    a = _array(a)
    ndim = len(a.shape)
    # NOTE: hasattr __index__: NumPy integers (np.int64(1)) are single axes too (#12).
    source = [source] if _is_integer(source) else list(source)
    destination = [destination] if _is_integer(destination) else list(destination)
    if len(source) != len(destination):
        raise _OpError(
            f"funcgrad.moveaxis: source {source} and destination {destination} "
            f"must name the same number of axes"
        )
    src = [_normalize_axis(s, ndim, "moveaxis")[0] for s in source]
    dst = [_normalize_axis(d, ndim, "moveaxis")[0] for d in destination]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise _OpError(
            f"funcgrad.moveaxis: repeated axis in source {source} or destination {destination}"
        )
    order = [n for n in range(ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return _sh.transpose(a, axes=tuple(order))


# --- adding and removing axes ------------------------------------------------------


def expand_dims(a, axis):
    """Return `a` with new size-1 axes at the positions `axis` (an int or a tuple).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.expand_dims([1.0, 2.0], 0)
        array([[1., 2.]])
        >>> fnp.expand_dims([1.0, 2.0], (0, -1)).shape
        (1, 2, 1)
    """
    return _sh.expand_dims(a, axis=_axes(axis))


def _atleast(arys, ndim):
    out = []
    for a in arys:
        a = _array(a)
        shape = a.shape
        if len(shape) < ndim:
            if ndim == 3 and len(shape) == 2:
                shape = (*shape, 1)
            elif ndim == 3:
                shape = (1, *shape, 1) if shape else (1, 1, 1)
            else:
                shape = (1,) * (ndim - len(shape)) + tuple(shape)
            a = _sh.reshape(a, shape=shape)
        out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*arys):
    """Return each argument with at least one dimension (a scalar becomes shape `(1,)`).

    Returns:
        One array (or node) for one argument, else a tuple of them.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.atleast_1d(2.0)
        array([2.])
    """
    return _atleast(arys, 1)


def atleast_2d(*arys):
    """Return each argument with at least two dimensions (new axes go in front).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.atleast_2d([1.0, 2.0])
        array([[1., 2.]])
    """
    return _atleast(arys, 2)


def atleast_3d(*arys):
    """Return each argument with at least three dimensions, as `numpy.atleast_3d` does.

    A 1-D array of shape `(n,)` becomes `(1, n, 1)` and a 2-D one of shape
    `(m, n)` becomes `(m, n, 1)`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.atleast_3d([1.0, 2.0]).shape
        (1, 2, 1)
    """
    return _atleast(arys, 3)


# --- joining and splitting -------------------------------------------------------------


def concatenate(arrays, axis=0):
    """Join a sequence of arrays along an existing axis.

    Args:
        arrays: Arrays (or nodes) with the same shape except along `axis`.
        axis: The axis to join along; None flattens every array first.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.concatenate([[1.0, 2.0], [3.0]])
        array([1., 2., 3.])
        >>> import funcgrad as fg
        >>> x = fg.leaf([1.0, 2.0])
        >>> fg.backward(fnp.concatenate([x, x * 3.0]).sum())[x]
        array([4., 4.])
    """
    return _sh.concatenate(*arrays, axis=_axes(axis))


def stack(arrays, axis=0):
    """Join a sequence of arrays of one shape along a new axis.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.stack([[1.0, 2.0], [3.0, 4.0]], axis=1)
        array([[1., 3.],
               [2., 4.]])
    """
    return _sh.stack(*arrays, axis=_axes(axis))


def hstack(tup):
    """Join arrays column-wise: along axis 1, or axis 0 for 1-D arrays.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.hstack([[1.0], [2.0, 3.0]])
        array([1., 2., 3.])
    """
    arrs = [atleast_1d(a) for a in tup]
    axis = 0 if arrs and len(arrs[0].shape) == 1 else 1
    return _sh.concatenate(*arrs, axis=axis)


def vstack(tup):
    """Join arrays row-wise, along axis 0 (1-D arrays become rows).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.vstack([[1.0, 2.0], [3.0, 4.0]])
        array([[1., 2.],
               [3., 4.]])
    """
    return _sh.concatenate(*[atleast_2d(a) for a in tup], axis=0)


def _is_integer(value):
    """Whether `value` is one integer (a Python or NumPy int, a 0-d integer array), not a sequence."""
    return hasattr(value, "__index__") and getattr(value, "ndim", 0) == 0


def _split(ary, indices_or_sections, axis, op, equal):
    ary = _array(ary)
    shape = ary.shape
    ax = _normalize_axis(axis, len(shape), op)[0]
    n = shape[ax]
    if _is_integer(indices_or_sections):  # also a NumPy integer (#12)
        sections = indices_or_sections.__index__()
        if sections <= 0:
            raise _OpError(
                f"funcgrad.{op}: the number of sections must be positive, got {sections}"
            )
        if equal and n % sections:
            raise _OpError(
                f"funcgrad.{op}: an axis of size {n} (shape {tuple(shape)}, axis {axis}) "
                f"does not split into {sections} equal parts; use "
                f"funcgrad.numpy.array_split for unequal parts"
            )
        q, r = divmod(n, sections)
        bounds = [0]
        for i in range(sections):
            bounds.append(bounds[-1] + q + (i < r))
    else:
        bounds = [0, *(int(i) for i in indices_or_sections), n]
    lead = (slice(None),) * ax
    return [_getitem(ary, index=(*lead, slice(a, b))) for a, b in _pairwise(bounds)]


def split(ary, indices_or_sections, axis=0):
    """Split an array into several pieces along an axis.

    Each piece is its own `getitem` node (a slice of `ary`), so the pieces
    can be used, and differentiated, independently.

    Args:
        ary: An array or a graph node.
        indices_or_sections: The number of equal pieces, or the sorted
            positions along `axis` where a new piece starts.
        axis: The axis to split along.

    Returns:
        A list of arrays (or nodes).

    Raises:
        OpError: If a number of sections does not divide the axis evenly.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.split([1.0, 2.0, 3.0, 4.0], 2)
        [array([1., 2.]), array([3., 4.])]
        >>> fnp.split([1.0, 2.0, 3.0, 4.0], [1])
        [array([1.]), array([2., 3., 4.])]
    """
    return _split(ary, indices_or_sections, axis, "split", equal=True)


def array_split(ary, indices_or_sections, axis=0):
    """Split an array into pieces like `split`, allowing unequal pieces.

    With `n` sections along an axis of size `l`, the first `l % n` pieces
    have one element more than the others.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.array_split([1.0, 2.0, 3.0], 2)
        [array([1., 2.]), array([3.])]
    """
    return _split(ary, indices_or_sections, axis, "array_split", equal=False)


# --- padding ------------------------------------------------------------------------------

_GATHER_MODES = ("edge", "reflect", "symmetric", "wrap")


def pad(array, pad_width, mode="constant", constant_values=0):
    """Return `array` padded, as `numpy.pad` does.

    `"constant"` mode is the `pad` primitive; the modes `"edge"`,
    `"reflect"`, `"symmetric"` and `"wrap"` only repeat elements of `array`,
    so they are one `getitem` gathering them, and the gradient of a
    repeated element is the sum over its copies.

    Args:
        array: An array or a graph node.
        pad_width: Per axis, how many values to add before and after: an
            int, a pair, or one pair per axis.
        mode: `"constant"`, `"edge"`, `"reflect"`, `"symmetric"` or `"wrap"`.
        constant_values: The fill value(s) of `"constant"` mode (a number,
            or pairs like `pad_width`). They are constants: no gradient.

    Raises:
        OpError: For another mode, or pad widths that do not fit `array`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.pad([1.0, 2.0], (1, 2))
        array([0., 1., 2., 0., 0.])
        >>> fnp.pad([1.0, 2.0], 1, mode="reflect")
        array([2., 1., 2., 1.])
        >>> import funcgrad as fg
        >>> x = fg.leaf([1.0, 2.0])
        >>> fg.backward(fnp.pad(x, 1, mode="edge").sum())[x]
        array([2., 2.])
    """
    array = _array(array)
    ndim = len(array.shape)
    try:
        widths = _np.broadcast_to(_np.asarray(pad_width), (ndim, 2))
        if widths.size and widths.dtype.kind not in "iu":
            raise TypeError("pad widths must be integers")
        if (widths < 0).any():
            raise ValueError("pad widths must not be negative")
    except (TypeError, ValueError) as e:
        raise _OpError(
            f"funcgrad.pad: bad pad_width {pad_width!r} for an array of shape "
            f"{tuple(array.shape)}: {e}; give an int, a (before, after) pair or one "
            f"pair per axis"
        ) from None
    widths = tuple((int(b), int(a)) for b, a in widths)
    if mode == "constant":
        if not isinstance(constant_values, (int, float)):
            values = _np.broadcast_to(_np.asarray(constant_values, dtype=float), (ndim, 2))
            constant_values = tuple((float(b), float(a)) for b, a in values)
        return _sh.pad(array, pad_width=widths, constant_values=constant_values)
    if mode not in _GATHER_MODES:
        raise _OpError(
            f"funcgrad.pad: mode {mode!r} is not supported; use one of "
            f"'constant', {', '.join(map(repr, _GATHER_MODES))}"
        )
    try:
        # Each of these modes repeats elements axis by axis: pad the positions.
        positions = [
            _np.pad(_np.arange(n), w, mode=mode) for n, w in zip(array.shape, widths, strict=True)
        ]
    except ValueError as e:
        raise _OpError(
            f"funcgrad.pad: mode {mode!r} cannot pad shape {tuple(array.shape)}: {e}"
        ) from None
    if not positions:
        return _sh.reshape(array, shape=())
    return _getitem(array, index=_normalize_index(_np.ix_(*positions)))


# --- selecting entries: NumPy's function on labels, then one gather --------------------------


def _value(a):
    return a.value if type(a) is _Node else a


def _labels(values):
    """Return integer labels for the entries of each value: 0.. for the first, on from there."""
    labels, offset = [], 0
    for v in values:
        shape = _np.shape(v)
        size = int(_np.prod(shape, dtype=_np.int64))
        labels.append(_np.arange(offset, offset + size, dtype=_np.intp).reshape(shape))
        offset += size
    return labels


def _flat_as(a, dtype):
    """Return `a` (a node or a value) flattened, in `dtype`: differentiable for a node."""
    if type(a) is not _Node:
        return _np.asarray(a, dtype=dtype).reshape(-1)
    if a.dtype != dtype:
        a = _ew.astype(a, dtype=dtype)
    return _sh.reshape(a, shape=(-1,))


def _gathered(numpy_function, arrays):
    """Return `numpy_function(*arrays)` for a function that only selects entries of `arrays`.

    On plain values it is NumPy's result. With graph nodes among `arrays`,
    the function runs once on the values (NumPy's result, dtype and errors)
    and once on integer labels of the entries; the labels it returns pick
    the output's entries from the inputs, flattened and concatenated, in
    one `getitem`. An integer or boolean result has no gradient: plain values.
    """
    values = [_value(a) for a in arrays]
    result = numpy_function(*values)
    if not any(type(a) is _Node for a in arrays):
        return result
    dtype = _np.asarray(result).dtype
    if dtype.kind not in "fc":
        return result  # piecewise constant: no gradient
    # NOTE: asanyarray: a traced mask's labels (`compress(x > 0, ...)` under funcgrad.jit)
    # stay traced, so the plan computes the index (asarray made it a constant of the plan)
    index = _np.asanyarray(numpy_function(*_labels(values)))
    flat = [_flat_as(a, dtype) for a in arrays]
    source = flat[0] if len(flat) == 1 else _sh.concatenate(*flat, axis=0)
    return _getitem(source, index=(_freeze(index.astype(_np.intp)),))


def append(arr, values, axis=None):
    """Return `arr` with `values` appended (along `axis`, or both flattened if None).

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.append([1.0, 2.0], [[3.0]])
        array([1., 2., 3.])
        >>> x = fg.leaf([1.0, 2.0])
        >>> fg.backward(fnp.sum(fnp.append(x, x * 3.0)))[x]
        array([4., 4.])
    """
    return _gathered(lambda a, v: _np.append(a, v, axis=axis), [arr, values])


def insert(arr, obj, values, axis=None):
    """Return `arr` with `values` inserted before the indices `obj` (NumPy's `insert`).

    `obj` (an int, a slice or a sequence of ints) is an index: no gradient.
    `values` are broadcast and cast to `arr`'s dtype as in NumPy, and the
    gradient of a broadcast value is the sum over its copies.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.insert([1.0, 2.0, 3.0], 1, 9.0)
        array([1., 9., 2., 3.])
    """
    obj = _value(obj)
    return _gathered(lambda a, v: _np.insert(a, obj, v, axis=axis), [arr, values])


def delete(arr, obj, axis=None):
    """Return `arr` without the entries (or slabs along `axis`) at the indices `obj`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.delete([1.0, 2.0, 3.0], [0, 2])
        array([2.])
    """
    obj = _value(obj)
    return _gathered(lambda a: _np.delete(a, obj, axis=axis), [arr])


def resize(a, new_shape):
    """Return `a` with the shape `new_shape`, repeating its entries cyclically to fill it.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.resize([1.0, 2.0, 3.0], (2, 2))
        array([[1., 2.],
               [3., 1.]])
    """
    if type(a) is _Node and a.size == 0:
        return _np.resize(a.value, new_shape)  # NumPy fills with zeros: a constant
    return _gathered(lambda x: _np.resize(x, new_shape), [a])


def choose(a, choices, out=None, mode="raise"):
    """Return the entries of `choices[a]`, entry by entry (NumPy's `choose`).

    `a` (integers) has no gradient; each output entry's gradient flows back
    to the choice it came from.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.choose([0, 1, 0], [[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
        array([ 1., 20.,  3.])
    """
    if out is not None:
        raise _OpError("funcgrad.numpy.choose: out= is not supported; use the returned array")
    a = _value(a)
    if type(choices) is list or type(choices) is tuple:
        return _gathered(lambda *c: _np.choose(a, c, mode=mode), list(choices))
    return _gathered(lambda c: _np.choose(a, c, mode=mode), [choices])


def select(condlist, choicelist, default=0):
    """Return, entry by entry, the choice of the first true condition, else `default`.

    The conditions have no gradient; the choices and `default` have.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> x = fnp.array([-1.0, 0.5, 2.0])
        >>> fnp.select([x < 0, x > 1], [-x, x * 10.0], default=x)
        array([ 1. ,  0.5, 20. ])
    """
    conds = [_value(c) for c in condlist]
    return _gathered(lambda d, *c: _np.select(conds, list(c), d), [default, *choicelist])


def compress(condition, a, axis=None, out=None):
    """Return the slabs of `a` along `axis` where `condition` is true (NumPy's `compress`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.compress([True, False, True], [1.0, 2.0, 3.0])
        array([1., 3.])
    """
    if out is not None:
        raise _OpError("funcgrad.numpy.compress: out= is not supported; use the returned array")
    condition = _value(condition)
    return _gathered(lambda x: _np.compress(condition, x, axis=axis), [a])


def extract(condition, arr):
    """Return the entries of `arr` (flattened) where `condition` is true.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.extract([[True, False], [False, True]], [[1.0, 2.0], [3.0, 4.0]])
        array([1., 4.])
    """
    condition = _value(condition)
    return _gathered(lambda x: _np.extract(condition, x), [arr])


def _block_leaves(arrays, leaves):
    """Return `arrays` (nested lists) with each leaf replaced by its position in `leaves`."""
    if type(arrays) is list:
        return [_block_leaves(a, leaves) for a in arrays]
    leaves.append(arrays)
    return len(leaves) - 1


def _block_rebuild(structure, leaves):
    if type(structure) is list:
        return [_block_rebuild(s, leaves) for s in structure]
    return leaves[structure]


def block(arrays):
    """Return an array assembled from nested lists of blocks (NumPy's `block`).

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.ones((1, 1))]])
        array([[1., 0., 0.],
               [0., 1., 0.],
               [1., 1., 1.]])
    """
    leaves = []
    structure = _block_leaves(arrays, leaves)
    return _gathered(lambda *xs: _np.block(_block_rebuild(structure, xs)), leaves)


# --- writing entries: in place on plain arrays, out of place on nodes --------------------------


def _kind(a):
    return f"{'a node' if type(a) is _Node else 'an array'} {_describe(a)}"


def _written(name, numpy_function, arr, values, inplace):
    """Return `arr` with entries written by `numpy_function(out, values)`, or write in place."""
    if inplace:
        if type(arr) is _Node or type(values) is _Node:
            raise _ReadOnlyError(
                f"funcgrad.numpy.{name}: graph nodes are immutable and cannot be written in "
                f"place (got {_kind(arr)} and values {_kind(values)}); pass inplace=False to "
                f"get the updated array as a new one (differentiable, as jax.numpy's {name})"
            )
        numpy_function(arr, values)  # NumPy's in-place write: returns None
        return None

    def updated(a, v):
        out = _np.array(a, copy=True)
        numpy_function(out, v)
        return out

    return _gathered(updated, [arr, values])


def put_along_axis(arr, indices, values, axis, inplace=True):
    """Write `values` into `arr` at `indices` along `axis` (NumPy's `put_along_axis`).

    NumPy writes in place and returns None: so does this function on plain
    arrays (`inplace=True`, the default). With `inplace=False` it returns
    the updated array as a new one and leaves `arr` unchanged, as
    `jax.numpy.put_along_axis`; a graph node (immutable) takes only that
    form. Where an index repeats, the last write wins, as in NumPy, and only
    that value gets a gradient; the overwritten entries of `arr` get none.

    Raises:
        ReadOnlyError: If `arr` or `values` is a node and `inplace` is true.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.put_along_axis(fnp.zeros((2, 2)), [[1], [0]], 5.0, axis=1, inplace=False)
        array([[0., 5.],
               [5., 0.]])
    """
    indices = _np.asarray(_value(indices))
    return _written(
        "put_along_axis",
        lambda out, v: _np.put_along_axis(out, indices, v, axis),
        arr,
        values,
        inplace,
    )


def put(a, ind, v, mode="raise", *, inplace=True):
    """Write `v` into `a` (flattened) at the indices `ind` (NumPy's `put`).

    In place on plain arrays by default; `inplace=False` returns the
    updated array (the only form a graph node takes; see `put_along_axis`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.put(fnp.zeros(3), [0, 2], [1.0, 2.0], inplace=False)
        array([1., 0., 2.])
    """
    ind = _value(ind)
    return _written("put", lambda out, vals: _np.put(out, ind, vals, mode), a, v, inplace)


def place(arr, mask, vals, *, inplace=True):
    """Write `vals` (repeated cyclically) where `mask` is true (NumPy's `place`).

    In place on plain arrays by default; `inplace=False` returns the
    updated array (the only form a graph node takes; see `put_along_axis`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.place(fnp.zeros(3), [True, False, True], [7.0], inplace=False)
        array([7., 0., 7.])
    """
    mask = _value(mask)
    return _written("place", lambda out, v: _np.place(out, mask, v), arr, vals, inplace)


def putmask(a, mask, values, *, inplace=True):
    """Write `values[i % len(values)]` at each position `i` where `mask` is true.

    NumPy's `putmask` (in place); `inplace=False`, a funcgrad addition,
    returns the updated array (the only form a graph node takes; see
    `put_along_axis`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.putmask(fnp.zeros(3), [True, False, True], [1.0, 2.0, 3.0], inplace=False)
        array([1., 0., 3.])
    """
    mask = _value(mask)
    return _written("putmask", lambda out, v: _np.putmask(out, mask, v), a, values, inplace)


def copyto(dst, src, casting="same_kind", where=True, *, inplace=True):
    """Copy `src` (broadcast) into `dst` where `where` is true (NumPy's `copyto`).

    NumPy's `copyto` writes in place; `inplace=False`, a funcgrad addition,
    returns the updated array (the only form a graph node takes; see
    `put_along_axis`), which is `where(where, src, dst)` with NumPy's
    casting check.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.copyto(fnp.zeros(3), 2.0, where=[True, False, True], inplace=False)
        array([2., 0., 2.])
    """
    where = _value(where)
    return _written(
        "copyto",
        lambda out, v: _np.copyto(out, v, casting=casting, where=where),
        dst,
        src,
        inplace,
    )


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """Write `val` (repeated cyclically) on the main diagonal of `a` (NumPy's `fill_diagonal`).

    In place on plain arrays by default; `inplace=False` returns the
    updated array (the only form a graph node takes; see `put_along_axis`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.fill_diagonal(fnp.zeros((2, 2)), 3.0, inplace=False)
        array([[3., 0.],
               [0., 3.]])
    """
    return _written(
        "fill_diagonal", lambda out, v: _np.fill_diagonal(out, v, wrap=wrap), a, val, inplace
    )


# --- broadcasting, unstacking, trimming ----------------------------------------------------

broadcast = _np.broadcast


def broadcast_arrays(*args, subok=False):
    """Return the arguments broadcast to their common shape (a tuple, as NumPy 2's).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> a, b = fnp.broadcast_arrays([1.0, 2.0], [[3.0], [4.0]])
        >>> a.shape, b.shape
        ((2, 2), (2, 2))
    """
    if not any(type(a) is _Node for a in args):
        return tuple(_np.broadcast_arrays(*args, subok=subok))
    args = tuple(_array(a) for a in args)
    shape = _np.broadcast_shapes(*(tuple(a.shape) for a in args))
    return tuple(_sh.broadcast_to(a, shape=shape) if tuple(a.shape) != shape else a for a in args)


def unstack(x, /, *, axis=0):
    """Return the slices of `x` along `axis`, as a tuple (the inverse of `stack`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.unstack([[1.0, 2.0], [3.0, 4.0]], axis=1)
        (array([1., 3.]), array([2., 4.]))
    """
    if type(x) is not _Node:
        return _np.unstack(_np.asarray(x), axis=axis)
    ax = _normalize_axis(axis, len(x.shape), "unstack")[0]
    lead = (slice(None),) * ax
    return tuple(_getitem(x, index=(*lead, i)) for i in range(x.shape[ax]))


def trim_zeros(filt, trim="fb", axis=None):
    """Return `filt` without its leading (`"f"`) and/or trailing (`"b"`) zeros.

    With a graph node the result is a slice of it (its gradient flows back
    to the kept entries); which zeros are trimmed is read from the values.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.trim_zeros(np.array([0.0, 1.0, 2.0, 0.0]))
        array([1., 2.])
    """
    if type(filt) is not _Node:
        return _np.trim_zeros(filt, trim, axis)
    v = _value_of(filt)  # a read funcgrad.jit sees: the result's shape comes from the values
    result = _np.trim_zeros(v, trim, axis)
    ndim = v.ndim
    axes = (
        range(ndim)
        if axis is None
        else [_normalize_axis(a, ndim, "trim_zeros")[0] for a in _np.atleast_1d(axis)]
    )
    index = [slice(None)] * ndim
    for ax in axes:
        others = tuple(i for i in range(ndim) if i != ax)
        nonzero = _np.flatnonzero(_np.any(v != 0, axis=others))
        start = int(nonzero[0]) if "f" in trim.lower() and nonzero.size else 0
        index[ax] = slice(start, start + result.shape[ax])
    return _getitem(filt, index=tuple(index))
