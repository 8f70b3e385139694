"""Small helpers shared by the rule modules (not primitives themselves)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy

from funcgrad.backend import xp_of
from funcgrad.errors import OpError
from funcgrad.graph import Node
from funcgrad.graph.node import Array

# The `axis` parameter of reductions and of some shape primitives: one axis, several or all.
Axis = int | tuple[int, ...] | None

_ndarray = numpy.ndarray
_vdot = numpy.vdot
_isfinite = math.isfinite


def value_of(x: Any) -> Array:
    """Return the array a node holds, or `x` itself if it is not a node.

    Rules use it for the non-differentiable parts of a formula (masks from
    comparisons, shapes), which must not extend the graph.
    """
    return x.value if type(x) is Node else x


def all_finite(v: Array) -> bool:
    """Return whether every entry of the array (or number) `v` is finite, cheaply.

    A quick test for the hot path of the VJP rules: the sum of squares of a
    NumPy array (one BLAS call) is finite when every entry is; it can also
    overflow for entries above about 1e154 (1e19 in float32), so `False`
    means "look closer", never "certainly not finite".

    Examples:
        >>> import numpy as np
        >>> all_finite(np.ones(3)), all_finite(np.array([1.0, np.nan])), all_finite(2.0)
        (True, False, True)
    """
    if type(v) is _ndarray:
        return _isfinite(_vdot(v, v).real)  # vdot flattens; .real: complex arrays too
    try:
        return _isfinite(v)  # Python and NumPy scalars
    except TypeError:  # a CuPy array, or anything else with an array interface
        return bool(xp_of(v).isfinite(v).all())


def shape_of(x: Any) -> tuple[int, ...]:
    """Return the shape of a node, an array or a Python number."""
    return getattr(x, "shape", ())


def normalize_axis(axis: int | Iterable[int] | None, ndim: int, op: str) -> tuple[int, ...]:
    """Return `axis` (None, an int or a tuple) as a sorted tuple of non-negative ints.

    Raises:
        funcgrad.errors.OpError: If an axis is out of range for `ndim`.
    """
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out: list[int] = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise OpError(
                f"funcgrad.{op}: axis {a} is out of range for an array of "
                f"{ndim} dimension(s); use an axis in [{-ndim}, {ndim - 1}]"
            )
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out)))


def attach(methods: Mapping[str, Any]) -> None:
    """Give `Node` methods or properties (each family of primitives attaches its own).

    Args:
        methods: Attribute name to function (or `property`).
    """
    for name, fn in methods.items():
        setattr(Node, name, fn)


# --- error messages (built only when a forward fails) ---------------------------


def describe(v: Any) -> str:
    """Return `dtype[shape]` for an array or node (`repr` for anything else), as in messages."""
    v = v.value if type(v) is Node else v
    shape = getattr(v, "shape", None)
    if shape is None:
        return repr(v)
    return f"{getattr(v, 'dtype', '?')}{list(shape)}"


def op_error(op: str, args: Iterable[Any], params: Mapping[str, Any], explanation: str) -> OpError:
    """Return an `OpError` for a failed forward: the call, what is wrong, and what to do.

    Raise it `from` the array module's exception, which keeps NumPy's own
    words as the cause.

    Args:
        op: The primitive's name.
        args: Its arguments (arrays or nodes).
        params: Its static parameters.
        explanation: What is wrong with them and how to fix the call.
    """
    shown = ", ".join(describe(a) for a in args)
    extra = "".join(f", {k}={v!r}" for k, v in params.items())
    return OpError(f"funcgrad.{op}({shown}{extra}): {explanation}")


def broadcast_hint(error: Exception, *args: Any) -> str:
    """Say which shapes do not broadcast and how to make them (or repeat `error` if that is not it)."""
    if "could not be broadcast together with shapes" not in str(error):
        return failure(error)  # another kind of failure (einsum, broadcast_to ...)
    shapes = " and ".join(str(tuple(shape_of(a))) for a in args)
    return (
        f"the shapes {shapes} do not broadcast. Shapes broadcast when, aligned from the "
        f"right, each pair of sides is equal or 1: reshape an operand (x.reshape(...), "
        f"x[:, None]) or reduce it first so that they do"
    )


def failure(error: Exception) -> str:
    """`failed: <the first line of the array module's message>`."""
    text = str(error).strip()
    return f"failed: {text.splitlines()[0] if text else type(error).__name__}"
