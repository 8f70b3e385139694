"""Hand-written shape functions of `funcgrad.numpy` (see the package docstring).

The functions that apply one primitive each (`reshape`, `transpose`,
`squeeze`, `flip`, ...) are generated into `_generated.py`. Here are those
with another signature (`concatenate` and `stack` take a sequence,
`expand_dims` needs its axis, `pad` has modes) and the compositions:
`swapaxes`, `moveaxis`, `ravel`, the `atleast_*d` family and the stacking
helpers. `split` returns several arrays while a graph node holds one value,
so it is one `getitem` (a slice) per piece: the pieces are independent
nodes, and each one's gradient flows back into its own slab of the input.
"""

from __future__ import annotations

from itertools import pairwise as _pairwise

import numpy as _np

from funcgrad.errors import OpError as _OpError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._adapters import axes as _axes
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import normalize_index as _normalize_index

__all__ = [
    "array_split",
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
