"""Shape primitives: reshape, broadcast, transpose, joins and splits, padding.

All of these are linear, so their JVP is the primitive applied to the
tangent (`LINEAR`) and their VJP moves the cotangent back into place.
"""

from __future__ import annotations

from funcgrad.ops._util import shape_of
from funcgrad.ops.registry import LINEAR, Primitive, Sample, register


def _reshape_sample(g):
    shape = g.shape(min_dims=0, max_dims=3)
    size = 1
    for n in shape:
        size *= n
    return (g.array(shape, -3.0, 3.0),), {"shape": (size,) if g.boolean() else (-1, 1)}


reshape = register(Primitive(
    name="reshape",
    forward=lambda xp, x, *, shape: xp.reshape(x, shape),
    vjp=(lambda ct, out, x, *, shape: reshape(ct, shape=shape_of(x)),),
    jvp=LINEAR,
    params=("shape",),
    sample=Sample(_reshape_sample),
    doc="same values, new shape",
))


def _broadcast_sample(g):
    small, big = g.broadcast_shapes(2)
    target = tuple(max(a, b) for a, b in zip((1,) * (len(big) - len(small)) + small, big))
    target = (2,) * (len(small) > len(target)) + target
    return (g.array(small, -3.0, 3.0),), {"shape": _broadcast(small, target)}


def _broadcast(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(max(i, j) for i, j in zip(a, b))


broadcast_to = register(Primitive(
    name="broadcast_to",
    forward=lambda xp, x, *, shape: xp.broadcast_to(x, shape),
    # Output-shaped cotangent: the engine sums it back to x's shape.
    vjp=(lambda ct, out, x, *, shape: ct,),
    jvp=LINEAR,
    params=("shape",),
    sample=Sample(_broadcast_sample),
    doc="x repeated along new or size-1 axes",
))


def _transpose_sample(g):
    shape = g.shape(min_dims=0, max_dims=4)
    axes = None if g.boolean() else tuple(g.permutation(len(shape)))
    return (g.array(shape, -3.0, 3.0),), {"axes": axes}


def _inverse_permutation(axes, ndim):
    if axes is None:
        return None
    inverse = [0] * ndim
    for i, a in enumerate(axes):
        inverse[a % ndim] = i
    return tuple(inverse)


transpose = register(Primitive(
    name="transpose",
    forward=lambda xp, x, *, axes: xp.transpose(x, axes),
    vjp=(lambda ct, out, x, *, axes: transpose(ct, axes=_inverse_permutation(axes, len(shape_of(x)))),),
    jvp=LINEAR,
    params=("axes",),
    sample=Sample(_transpose_sample),
    doc="axes permuted (reversed if axes is None)",
))
