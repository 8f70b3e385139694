"""Shape primitives: reshape, broadcast, transpose, size-1 axes, joins, flips, padding, copies.

All of these move values without changing them, so they are linear (`pad`
is affine: its constant does not move with `x`), their JVP is the primitive
applied to the tangent (`LINEAR`), and their VJP moves the cotangent back
into place, slicing it with `getitem` where pieces were joined or padded.
Splitting is in `funcgrad.numpy.split`: a node holds one value, so each
piece is its own `getitem` node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from funcgrad.graph.node import Array, Node
from funcgrad.ops._util import Axis, attach, normalize_axis, shape_of
from funcgrad.ops.index import getitem
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


def _reshape_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3)
    size = 1
    for n in shape:
        size *= n
    return (g.array(shape, -3.0, 3.0),), {"shape": (size,) if g.boolean() else (-1, 1)}


reshape: Primitive = register(
    Primitive(
        name="reshape",
        forward=lambda xp, x, *, shape: xp.reshape(x, shape),
        vjp=(lambda ct, out, x, *, shape: reshape(ct, shape=shape_of(x)),),
        jvp=LINEAR,
        params=("shape",),
        sample=Sample(_reshape_sample, complex=True),
        doc="x with the same values in a new shape",
        names=Names(
            numpy="reshape", torch="reshape", method=("reshape", "view"), grad_fn="ViewBackward0"
        ),
    )
)


def _broadcast_sample(g: Draw) -> Drawn:
    small, big = g.broadcast_shapes(2)
    target = _broadcast(small, big)
    if g.boolean():
        target = (2, *target)  # a new leading axis as well
    return (g.array(small, -3.0, 3.0),), {"shape": target}


def _broadcast(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(max(i, j) for i, j in zip(a, b, strict=True))


broadcast_to = register(
    Primitive(
        name="broadcast_to",
        forward=lambda xp, x, *, shape: xp.broadcast_to(x, shape),
        # Output-shaped cotangent: the engine sums it back to x's shape.
        vjp=(lambda ct, out, x, *, shape: ct,),
        jvp=LINEAR,
        params=("shape",),
        sample=Sample(_broadcast_sample, complex=True),
        doc="x repeated along new or size-1 axes",
        names=Names(
            numpy="broadcast_to", torch="expand", method="expand", grad_fn="ExpandBackward0"
        ),
    )
)


def _transpose_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=4)
    axes = None if g.boolean() else tuple(g.permutation(len(shape)))
    return (g.array(shape, -3.0, 3.0),), {"axes": axes}


def _inverse_permutation(axes: Sequence[int] | None, ndim: int) -> tuple[int, ...] | None:
    if axes is None:
        return None
    inverse = [0] * ndim
    for i, a in enumerate(axes):
        inverse[a % ndim] = i
    return tuple(inverse)


class Swap(tuple[int, ...]):
    """The `axes` of a transpose that exchanges two axes (`swapaxes`, PyTorch's `transpose`).

    A tuple like any other, which keeps how the node was made for its PyTorch name.
    """

    __slots__ = ()


def _transpose_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """TBackward0 (axes None, 2-D at most), TransposeBackward0 (a Swap), else PermuteBackward0."""
    axes = params["axes"]
    if axes is None:
        return "TBackward0" if len(shape_of(inputs[0])) <= 2 else "PermuteBackward0"
    return "TransposeBackward0" if type(axes) is Swap else "PermuteBackward0"


transpose: Primitive = register(
    Primitive(
        name="transpose",
        forward=lambda xp, x, *, axes: xp.transpose(x, axes),
        vjp=(
            lambda ct, out, x, *, axes: transpose(
                ct, axes=_inverse_permutation(axes, len(shape_of(x)))
            ),
        ),
        jvp=LINEAR,
        params=("axes",),
        sample=Sample(_transpose_sample, complex=True),
        doc="x with its axes permuted (reversed if axes is None)",
        names=Names(
            numpy="transpose",
            torch=("t", "transpose", "permute"),
            method=("t", "transpose", "permute"),
            grad_fn=_transpose_grad_fn,
        ),
    )
)


# --- adding and removing size-1 axes ---------------------------------------


def _squeeze_sample(g: Draw) -> Drawn:
    shape = list(g.shape(min_dims=0, max_dims=3, min_side=0))
    for _ in range(g.integers(0, 2)):
        shape.insert(g.integers(0, len(shape)), 1)
    ones = [i for i, n in enumerate(shape) if n == 1]
    axis: Axis
    if not ones or g.boolean():
        axis = None
    elif g.boolean():
        axis = g.choice(ones) - len(shape) * g.integers(0, 1)  # maybe negative
    else:
        axis = tuple(ones)
    return (g.array(tuple(shape), -3.0, 3.0),), {"axis": axis}


def _squeeze_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """SqueezeBackward0 (axis None), SqueezeBackward1 (one axis), SqueezeBackward2 (a tuple)."""
    axis = params["axis"]
    if axis is None:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if type(axis) is tuple else "SqueezeBackward1"


squeeze = register(
    Primitive(
        name="squeeze",
        forward=lambda xp, x, *, axis: xp.squeeze(x, axis=axis),
        vjp=(lambda ct, out, x, *, axis: reshape(ct, shape=shape_of(x)),),
        jvp=LINEAR,
        params=("axis",),
        sample=Sample(_squeeze_sample, complex=True),
        doc="x without its size-1 axes (all of them if axis is None)",
        names=Names(numpy="squeeze", torch="squeeze", method="squeeze", grad_fn=_squeeze_grad_fn),
    )
)


def _expand_dims_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    axis: Axis
    if g.boolean():
        ndim = len(shape) + 1
        axis = g.integers(-ndim, ndim - 1)
    else:
        ndim = len(shape) + 2
        first = g.integers(0, ndim - 1)
        axis = (first, (first + g.integers(1, ndim - 1)) % ndim - ndim)  # distinct, one negative
    return (g.array(shape, -3.0, 3.0),), {"axis": axis}


expand_dims = register(
    Primitive(
        name="expand_dims",
        forward=lambda xp, x, *, axis: xp.expand_dims(x, axis),
        vjp=(lambda ct, out, x, *, axis: reshape(ct, shape=shape_of(x)),),
        jvp=LINEAR,
        params=("axis",),
        sample=Sample(_expand_dims_sample, complex=True),
        doc="x with new size-1 axes at the given positions",
        names=Names(
            numpy="expand_dims", torch="unsqueeze", method="unsqueeze", grad_fn="UnsqueezeBackward0"
        ),
    )
)


# --- joining -----------------------------------------------------------------


def _concatenate_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=1, max_dims=3)
    ndim = len(shape)
    axis = g.integers(-ndim, ndim - 1)
    arrays = []
    for _ in range(g.integers(1, 3)):
        piece = list(shape)
        piece[axis] = g.integers(0, 3)
        arrays.append(g.array(tuple(piece), -3.0, 3.0))
    return tuple(arrays), {"axis": None if g.integers(0, 4) == 0 else axis}


def _concatenate_vjp(ct: Array, out: Array, *arrays: Array, axis: Axis) -> tuple[Array, ...]:
    # Each input gets back its own slab of the cotangent.
    if axis is None:
        flat = reshape(ct, shape=(-1,))
        pieces, start = [], 0
        for a in arrays:
            a_shape = shape_of(a)
            size = 1
            for n in a_shape:
                size *= n
            piece = getitem(flat, index=(slice(start, start + size),))
            pieces.append(reshape(piece, shape=a_shape))
            start += size
        return tuple(pieces)
    ax = normalize_axis(axis, len(shape_of(out)), "concatenate")[0]
    lead = (slice(None),) * ax
    pieces, start = [], 0
    for a in arrays:
        n = shape_of(a)[ax]
        pieces.append(getitem(ct, index=(*lead, slice(start, start + n))))
        start += n
    return tuple(pieces)


concatenate = register(
    Primitive(
        name="concatenate",
        forward=lambda xp, *arrays, axis: xp.concatenate(arrays, axis=axis),
        vjp=_concatenate_vjp,
        jvp=LINEAR,
        params=("axis",),
        sample=Sample(_concatenate_sample, complex=True),
        doc="arrays joined along an existing axis (flattened first if axis is None)",
        names=Names(numpy="concatenate", torch=("cat", "concatenate"), grad_fn="CatBackward0"),
    )
)


def _stack_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    ndim = len(shape) + 1
    arrays = tuple(g.array(shape, -3.0, 3.0) for _ in range(g.integers(1, 3)))
    return arrays, {"axis": g.integers(-ndim, ndim - 1)}


def _stack_vjp(ct: Array, out: Array, *arrays: Array, axis: int) -> tuple[Array, ...]:
    ax = normalize_axis(axis, len(shape_of(out)), "stack")[0]
    lead = (slice(None),) * ax
    return tuple(getitem(ct, index=(*lead, i)) for i in range(len(arrays)))


stack = register(
    Primitive(
        name="stack",
        forward=lambda xp, *arrays, axis: xp.stack(arrays, axis=axis),
        vjp=_stack_vjp,
        jvp=LINEAR,
        params=("axis",),
        sample=Sample(_stack_sample, complex=True),
        doc="arrays of one shape joined along a new axis",
        names=Names(numpy="stack", torch="stack", grad_fn="StackBackward0"),
    )
)


# --- reversing and padding ---------------------------------------------------


def _flip_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    ndim = len(shape)
    axis: Axis
    if ndim == 0 or g.integers(0, 2) == 0:
        axis = None
    elif g.boolean():
        axis = g.integers(-ndim, ndim - 1)
    else:
        axis = tuple(sorted({g.integers(0, ndim - 1), g.integers(-ndim, -1) % ndim}))
    return (g.array(shape, -3.0, 3.0),), {"axis": axis}


flip: Primitive = register(
    Primitive(
        name="flip",
        forward=lambda xp, x, *, axis: xp.flip(x, axis=axis),
        vjp=(lambda ct, out, x, *, axis: flip(ct, axis=axis),),
        jvp=LINEAR,
        params=("axis",),
        sample=Sample(_flip_sample, complex=True),
        doc="x with the order of its elements reversed along axes (all if axis is None)",
        names=Names(numpy="flip", torch="flip", method="flip", grad_fn="FlipBackward0"),
    )
)


def _pad_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=1, max_dims=3, min_side=0)
    pad_width = tuple((g.integers(0, 2), g.integers(0, 2)) for _ in shape)
    value = 0.0 if g.boolean() else 1.5
    return (g.array(shape, -3.0, 3.0),), {"pad_width": pad_width, "constant_values": value}


def _pad_vjp(ct: Array, out: Array, x: Array, *, pad_width: Any, constant_values: Any) -> Array:
    widths = zip(pad_width, shape_of(x), strict=True)
    return getitem(ct, index=tuple(slice(before, before + n) for (before, _), n in widths))


pad: Primitive = register(
    Primitive(
        name="pad",
        forward=lambda xp, x, *, pad_width, constant_values: xp.pad(
            x,
            pad_width or 0,  # `or 0`: 0-d x
            mode="constant",
            constant_values=constant_values,
        ),
        vjp=(_pad_vjp,),
        # The padding constant does not move with x: tangents are padded with 0.
        jvp=(
            lambda x_t, out, x, *, pad_width, constant_values: pad(
                x_t, pad_width=pad_width, constant_values=0
            ),
        ),
        params=("pad_width", "constant_values"),
        sample=Sample(_pad_sample, complex=True),
        doc="x surrounded by a constant; pad_width is one (before, after) pair per axis",
        names=Names(numpy="pad", grad_fn="ConstantPadNdBackward0"),
    )
)


# --- copying -------------------------------------------------------------------


copy = register(
    Primitive(
        name="copy",
        # NOTE: a copy, never the input array: a tensor's clone must not see writes into
        # the original's array (`identity` returns its input, for the transforms' nodes)
        forward=lambda xp, x: xp.array(x, copy=True),
        vjp=(lambda ct, out, x: ct,),
        jvp=LINEAR,
        sample=Sample(
            lambda g: ((g.array(g.shape(min_dims=0, min_side=0), -3.0, 3.0),), {}), complex=True
        ),
        doc="a copy of x that shares no memory with it",
        names=Names(torch="clone", grad_fn="CloneBackward0"),
    )
)


# --- Node methods --------------------------------------------------------------


def _transpose_method(self: Node, *axes: Any) -> Array:
    if not axes or (len(axes) == 1 and axes[0] is None):
        return transpose(self, axes=None)
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = axes[0]
    return transpose(self, axes=tuple(axes))


def _squeeze_method(self: Node, axis: int | Sequence[int] | None = None) -> Array:
    return squeeze(self, axis=tuple(axis) if isinstance(axis, list) else axis)


def _swapaxes_method(self: Node, axis1: int, axis2: int) -> Array:
    return transpose(self, axes=swapped_axes(self.ndim, axis1, axis2))


def swapped_axes(ndim: int, axis1: int, axis2: int) -> tuple[int, ...]:
    """Return the permutation (for `transpose`) that exchanges two axes.

    Raises:
        funcgrad.errors.AxisError: If an axis is out of range for `ndim`.
    """
    perm = list(range(ndim))
    a = normalize_axis(axis1, ndim, "swapaxes")[0]
    b = normalize_axis(axis2, ndim, "swapaxes")[0]
    if ndim:  # a 0-d value takes the axes -1 and 0 and stays as it is, as in PyTorch
        perm[a], perm[b] = perm[b], perm[a]
    return Swap(perm)


attach(
    {
        "T": property(
            lambda self: transpose(self, axes=None), doc="The transpose (axes reversed)."
        ),
        "transpose": _transpose_method,
        "squeeze": _squeeze_method,
        "swapaxes": _swapaxes_method,
        "flatten": lambda self: reshape(self, shape=(-1,)),
        "ravel": lambda self: reshape(self, shape=(-1,)),
    }
)
