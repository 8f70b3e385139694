"""Small helpers shared by the rule modules (not primitives themselves)."""

from __future__ import annotations

import cmath
import functools
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy

from funcgrad.backend import xp_of
from funcgrad.errors import ArgumentTypeError, AxisError, LinAlgError, OpError
from funcgrad.graph import Node
from funcgrad.graph.node import Array, _report, value_readers

# The `axis` parameter of reductions and of some shape primitives: one axis, several or all.
Axis = int | tuple[int, ...] | None

_ndarray = numpy.ndarray
_vdot = numpy.vdot
_isfinite = math.isfinite
_cisfinite = cmath.isfinite
_COMPLEX_SCALARS = (complex, numpy.complex64, numpy.complex128)


def value_of(x: Any) -> Array:
    """Return the array a node holds, or `x` itself if it is not a node.

    Rules use it for the non-differentiable parts of a formula (masks from
    comparisons, shapes), which must not extend the graph.
    """
    if type(x) is Node:
        if value_readers:  # funcgrad.jit is tracing: it may hand back a traced view
            box = [x.value]
            _report(x, "value", box)
            return box[0]
        return x.value
    return x


def checked_value(x: Any) -> Array:
    """Return the value of `x` (a node or an array) for a check that raises on bad values.

    A domain check (`multigammaln`'s `a > (d - 1) / 2`, probabilities in [0, 1])
    computes on this value with NumPy and tests the answer with `bool()`.
    Outside a trace it is `value_of(x)`. Under `funcgrad.jit`'s trace it is a
    traced array: the plan computes the check from the replayed values and
    its `bool()` is a guard, so a replay with values the check refuses traces
    again and raises as the eager call does, instead of skipping the check.
    Keep the check to NumPy ufuncs, methods and `bool()` on it: `np.asarray`
    would make a plain copy whose reads the trace cannot see.

    Examples:
        >>> import numpy as np
        >>> bool((checked_value(np.array([0.5, 2.0])) <= 0).any())
        False
    """
    return value_of(x)


def follows_values(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark `fn` as a pure function of its arguments' values, for `funcgrad.jit`.

    A rule helper that computes from values with NumPy in place (indices,
    masks) is one step of a jit plan: while a trace runs, a traced value
    among its arguments (`value_of` in a trace) records the whole call.
    Otherwise the call is `fn`'s own, after one truth test.
    """

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if value_readers:  # funcgrad.jit is tracing
            args = tuple(value_of(a) for a in args)
            for a in args:
                hook = getattr(type(a), "__funcgrad_value_call__", None)
                if hook is not None:
                    return hook(fn, args, kwargs)
        return fn(*args, **kwargs)

    return call


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
    if type(v) in _COMPLEX_SCALARS:
        return _cisfinite(v)
    try:
        return _isfinite(v)  # Python and NumPy scalars
    except TypeError:  # a CuPy array, or vmap's batched value of one (one number per example)
        inner = _entries_under(v)
        return bool(xp_of(inner).isfinite(inner).all())


def _entries_under(v: Any) -> Any:
    """The array under nodes and vmap's batched values: every entry, of every example.

    NOTE: a batched value (the one type with `__funcgrad_apply__`, funcgrad.vmap's)
    keeps every example's values in `val`; its `float()` answers `all_finite` for
    NumPy values only, and NumPy's `isfinite` of it would convert a CuPy array.
    """
    while True:
        if type(v) is Node:
            v = v.value
        elif getattr(type(v), "__funcgrad_apply__", None) is not None and hasattr(v, "val"):
            v = v.val
        else:
            return v


def shape_of(x: Any) -> tuple[int, ...]:
    """Return the shape of a node, an array or a Python number."""
    return getattr(x, "shape", ())


def normalize_axis(axis: Any, ndim: int, op: str) -> tuple[int, ...]:
    """Return `axis` (None, an integer or a sequence of them) as a sorted tuple of non-negative ints.

    The one place axes (PyTorch's dims) are checked: any integer type is
    accepted (Python, NumPy, a 0-d integer array or tensor), negative axes
    count from the end, and a 0-d value takes the axes -1 and 0, as in
    PyTorch. An axis named twice (`(0, 0)`, or `(1, -1)` for 2 dimensions)
    is refused, as NumPy and PyTorch refuse it.

    Raises:
        funcgrad.errors.AxisError: If an axis is out of range for `ndim`.
        funcgrad.errors.ArgumentTypeError: If an axis is not an integer.
        funcgrad.errors.OpError: If an axis appears more than once.

    Examples:
        >>> import numpy as np
        >>> normalize_axis(np.int64(-1), 3, "sum"), normalize_axis(0, 0, "squeeze")
        ((2,), (0,))
    """
    if axis is None:
        return tuple(range(ndim))
    one = hasattr(axis, "__index__") and getattr(axis, "ndim", 0) == 0
    axes = (axis,) if one else tuple(axis)
    out: list[int] = []
    for a in axes:
        a = index_of(a, op, "axis")
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise AxisError(f"funcgrad.{op}: {axis_out_of_range(a, ndim)}")
        a = a % ndim if ndim else 0
        if a in out:
            raise OpError(
                f"funcgrad.{op}: dim {a} appears multiple times in the list of dims "
                f"({list(axes)} for {ndim} dimension(s)); give each dimension once"
            )
        out.append(a)
    return tuple(sorted(out))


def axis_out_of_range(axis: int, ndim: int) -> str:
    """Say that `axis` is out of range for `ndim` dimensions, and which range is valid (PyTorch's words)."""
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    return (
        f"axis {axis} is out of range for an array of {ndim} dimension(s): Dimension out "
        f"of range (expected to be in range of [{low}, {high}], but got {axis})"
    )


def index_of(value: Any, op: str, what: str) -> int:
    """Return `value` as a Python int: an int, a NumPy integer or a 0-d integer array/tensor.

    Raises:
        funcgrad.errors.ArgumentTypeError: For anything else (a float, a bool
            array, a list ...), naming `op` and `what` the value is.
    """
    if type(value) is int:
        return value
    try:
        return operator.index(value)
    except TypeError:
        where = f"funcgrad.{op}" if op else "funcgrad"
        raise ArgumentTypeError(
            f"{where}: {what} must be an integer, got {type(value).__name__} {value!r}"
        ) from None


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


def op_error(
    op: str,
    args: Iterable[Any],
    params: Mapping[str, Any],
    explanation: str,
    cause: Exception | None = None,
) -> OpError:
    """Return an `OpError` for a failed forward: the call, what is wrong, and what to do.

    Raise it `from` the array module's exception, which keeps NumPy's own
    words as the cause.

    Args:
        op: The primitive's name.
        args: Its arguments (arrays or nodes).
        params: Its static parameters.
        explanation: What is wrong with them and how to fix the call.
        cause: The array module's exception: for NumPy's `AxisError` (an
            axis out of range) the result is an `AxisError` (an
            `IndexError` too, as PyTorch raises).
    """
    shown = ", ".join(describe(a) for a in args)
    extra = "".join(f", {k}={v!r}" for k, v in params.items())
    if (
        isinstance(cause, numpy.exceptions.AxisError)
        and cause.axis is not None
        and cause.ndim is not None
    ):
        explanation = axis_out_of_range(cause.axis, cause.ndim)
        return AxisError(f"funcgrad.{op}({shown}{extra}): {explanation}")
    if isinstance(cause, numpy.linalg.LinAlgError):
        return LinAlgError(f"funcgrad.{op}({shown}{extra}): {explanation}")
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
