"""Functions of `funcgrad.numpy` whose derivative is zero wherever it exists.

Two kinds, both accepting graph nodes (their values are read):

* Integer and boolean results (`argmax`, `argsort`, `nonzero`, `isclose`,
  `shape`, the logical and bitwise functions ...) are plain NumPy arrays or
  numbers: nothing can flow back through them, as in HIPS autograd and JAX.
* Piecewise constant floating-point results (`floor`, `ceil`, `round`,
  `trunc`, `rint`, `fix`, `floor_divide`, `spacing`) are nodes when a node
  goes in, with a zero gradient (`where(False, x, value)`: the value, and an
  exact zero cotangent for `x`), so `x - floor(x)` stays differentiable and
  forward mode gives zero tangents. (`heaviside`, piecewise constant in
  `x1` only, is a primitive: `funcgrad.ops.ufuncs`.)

`unique` is differentiable in its values (they are entries of the input):
with a node it returns `x[first occurrences]`. `bincount` and `histogram`,
differentiable in their `weights`, are in `_statistics.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as _np
from numpy import broadcast_shapes, ndindex

from funcgrad.errors import NotProvidedError as _NotProvidedError
from funcgrad.graph import Node as _Node
from funcgrad.graph.node import value_readers as _value_readers
from funcgrad.numpy import _kinds
from funcgrad.numpy._creation import linspace as _linspace
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import follows_values
from funcgrad.ops._util import value_of as _value_of
from funcgrad.ops.index import getitem as _getitem

# NumPy without its overloaded stubs, for calls that pass arguments through as they came.
_numpy: Any = _np

__all__ = [
    "all",
    "allclose",
    "any",
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "argwhere",
    "around",
    "array_equal",
    "array_equiv",
    "bitwise_and",
    "bitwise_count",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "broadcast_shapes",
    "ceil",
    "count_nonzero",
    "diag_indices_from",
    "digitize",
    "fix",
    "flatnonzero",
    "floor",
    "floor_divide",
    "gcd",
    "histogram_bin_edges",
    "invert",
    "iscomplex",
    "isclose",
    "isfortran",
    "isin",
    "isinf",
    "isneginf",
    "isposinf",
    "isreal",
    "lcm",
    "left_shift",
    "lexsort",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "may_share_memory",
    "nanargmax",
    "nanargmin",
    "ndim",
    "ndindex",
    "nonzero",
    "packbits",
    "ravel_multi_index",
    "right_shift",
    "rint",
    "round",
    "searchsorted",
    "shape",
    "shares_memory",
    "signbit",
    "size",
    "spacing",
    "tril_indices_from",
    "triu_indices_from",
    "trunc",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unpackbits",
    "unravel_index",
]


def _value(a: Any) -> Any:
    """Return `a` with every node (also inside lists and tuples) replaced by its value.

    NOTE: read through `value_of`, so that `funcgrad.jit` sees the read: a trace whose node
    values decide an integer or boolean result (`argmax(x)`, `isinf(x)`) runs eagerly instead
    of replaying the traced call's result as a constant.
    """
    t = type(a)
    if t is _Node:
        return _value_of(a)
    if t is list or t is tuple:
        return t(_value(i) for i in a)
    return a


def _value_only(name: str, what: str) -> Callable[..., Any]:
    """Return NumPy's `name` applied to the values of its arguments: an integer or boolean result."""
    numpy_function = getattr(_np, name)

    def function(*args: Any, **kwargs: Any) -> Any:
        return numpy_function(*_value(args), **{k: _value(v) for k, v in kwargs.items()})

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"Return {what}, computed by NumPy's `{name}` on the values (nodes are read).\n\n"
        f"The result is integer or boolean: it has no gradient."
    )
    function.__wrapped__ = numpy_function  # type: ignore[attr-defined]  # inspect.signature shows NumPy's
    return _kinds.value_only(function)


@follows_values  # under funcgrad.jit's trace, one step of the plan
def _followed_call(numpy_function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`numpy_function(*args, **kwargs)` on the arguments' values."""
    return numpy_function(*args, **kwargs)


def _zero_gradient(name: str, what: str) -> Callable[..., Any]:
    """Return NumPy's piecewise constant `name`: a node with a zero gradient when a node goes in."""
    numpy_function = getattr(_np, name)

    def function(*args: Any, **kwargs: Any) -> Any:
        if _value_readers and any(type(a) is _Node for a in args):
            # funcgrad.jit traces: the plan computes the value (not the trace's, as a constant)
            out = _followed_call(numpy_function, *args, **{k: _value(v) for k, v in kwargs.items()})
        else:
            out = numpy_function(*_value(args), **{k: _value(v) for k, v in kwargs.items()})
        nodes = [a for a in (*args, *kwargs.values()) if type(a) is _Node]
        if not nodes or _np.dtype(out.dtype).kind not in "fc":
            return out
        for x in nodes:
            # The value `out`; the cotangent of `x` is an exact zero (where's unselected branch).
            out = _ew.where(_np.False_, x, out)
        return out

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"Return {what}, elementwise (NumPy's `{name}`).\n\n"
        f"The result is piecewise constant: with a graph node as input it is a node whose\n"
        f"gradient is zero (as in HIPS autograd and JAX), so the graph is not cut."
    )
    function.__wrapped__ = numpy_function  # type: ignore[attr-defined]
    return _kinds.zero_gradient(function)


# --- rounding: piecewise constant, zero gradient -----------------------------------

floor = _zero_gradient("floor", "the largest integers not above `x`")
ceil = _zero_gradient("ceil", "the smallest integers not below `x`")
rint = _zero_gradient("rint", "`x` rounded to the nearest integers (halves to even)")
trunc = _zero_gradient("trunc", "`x` rounded towards zero")
fix = _zero_gradient("fix", "`x` rounded towards zero")
round = _zero_gradient("round", "`x` rounded to `decimals` decimals (halves to even)")  # noqa: A001
around = _zero_gradient("around", "`x` rounded to `decimals` decimals (halves to even)")
floor_divide = _zero_gradient("floor_divide", "`floor(x1 / x2)`")
spacing = _zero_gradient("spacing", "the distance from `x` to the next larger float")


# --- indices of entries -----------------------------------------------------------

argmax = _value_only("argmax", "the indices of the maxima along `axis`")
argmin = _value_only("argmin", "the indices of the minima along `axis`")
nanargmax = _value_only("nanargmax", "the indices of the maxima along `axis`, ignoring NaNs")
nanargmin = _value_only("nanargmin", "the indices of the minima along `axis`, ignoring NaNs")
argsort = _value_only("argsort", "the indices that sort `a` along `axis`")
argpartition = _value_only("argpartition", "the indices that partition `a` around its `kth` entry")
lexsort = _value_only("lexsort", "the indices that sort by several keys, the last key first")
argwhere = _value_only("argwhere", "the indices of the nonzero entries, one row each")
nonzero = _value_only("nonzero", "the indices of the nonzero entries, one array per axis")
flatnonzero = _value_only("flatnonzero", "the indices of the nonzero entries of `a` flattened")
count_nonzero = _value_only("count_nonzero", "how many entries are nonzero along `axis`")
searchsorted = _value_only("searchsorted", "where `v` would be inserted in the sorted `a`")
digitize = _value_only("digitize", "the indices of the bins each entry of `x` falls in")
ravel_multi_index = _value_only("ravel_multi_index", "flat indices of multi-indices")
unravel_index = _value_only("unravel_index", "multi-indices of flat indices")
diag_indices_from = _value_only("diag_indices_from", "the indices of the diagonal of `arr`")
tril_indices_from = _value_only("tril_indices_from", "the indices of the lower triangle of `arr`")
triu_indices_from = _value_only("triu_indices_from", "the indices of the upper triangle of `arr`")

# --- shapes -----------------------------------------------------------------------

shape = _value_only("shape", "the shape of `a`")
ndim = _value_only("ndim", "the number of dimensions of `a`")
size = _value_only("size", "the number of entries of `a` (along `axis`)")
isfortran = _value_only("isfortran", "whether `a` is Fortran-ordered and not C-ordered")
may_share_memory = _value_only("may_share_memory", "whether two arrays might share memory")
shares_memory = _value_only("shares_memory", "whether two arrays share memory")

# --- tests and comparisons ----------------------------------------------------------

allclose = _value_only("allclose", "whether all entries of `a` and `b` are close")
isclose = _value_only("isclose", "where the entries of `a` and `b` are close")
array_equal = _value_only("array_equal", "whether two arrays have one shape and equal entries")
array_equiv = _value_only("array_equiv", "whether two arrays broadcast and have equal entries")
isinf = _value_only("isinf", "where `x` is infinite")
isposinf = _value_only("isposinf", "where `x` is positive infinity")
isneginf = _value_only("isneginf", "where `x` is negative infinity")
signbit = _value_only("signbit", "where the sign bit of `x` is set")
iscomplex = _value_only("iscomplex", "where `x` has a nonzero imaginary part")
isreal = _value_only("isreal", "where `x` has a zero imaginary part")
isin = _value_only("isin", "where the entries of `element` are in `test_elements`")
all = _value_only("all", "whether all entries are true along `axis`")  # noqa: A001
any = _value_only("any", "whether any entry is true along `axis`")  # noqa: A001

# --- logical and bitwise functions ----------------------------------------------------

logical_and = _value_only("logical_and", "`x1 and x2`, elementwise")
logical_or = _value_only("logical_or", "`x1 or x2`, elementwise")
logical_xor = _value_only("logical_xor", "`x1 xor x2`, elementwise")
logical_not = _value_only("logical_not", "`not x`, elementwise")
bitwise_and = _value_only("bitwise_and", "`x1 & x2`, elementwise")
bitwise_or = _value_only("bitwise_or", "`x1 | x2`, elementwise")
bitwise_xor = _value_only("bitwise_xor", "`x1 ^ x2`, elementwise")
bitwise_not = _value_only("bitwise_not", "`~x`, elementwise")
bitwise_invert = _value_only("bitwise_invert", "`~x`, elementwise")
invert = _value_only("invert", "`~x`, elementwise")
bitwise_count = _value_only("bitwise_count", "the number of 1 bits of `|x|`")
left_shift = _value_only("left_shift", "`x1 << x2`, elementwise")
bitwise_left_shift = _value_only("bitwise_left_shift", "`x1 << x2`, elementwise")
right_shift = _value_only("right_shift", "`x1 >> x2`, elementwise")
bitwise_right_shift = _value_only("bitwise_right_shift", "`x1 >> x2`, elementwise")
gcd = _value_only("gcd", "the greatest common divisors of `x1` and `x2`")
lcm = _value_only("lcm", "the least common multiples of `x1` and `x2`")
packbits = _value_only("packbits", "the bits of a boolean array packed into bytes")
unpackbits = _value_only("unpackbits", "the bits of bytes as an array of 0 and 1")


# --- counting ---------------------------------------------------------------------


def _not_provided(what: str) -> _NotProvidedError:
    return _NotProvidedError(
        f"funcgrad.numpy.{what} is not provided yet: its result depends differentiably on a "
        f"graph node, and funcgrad has no rule for it (issue #13). Compute it on plain values "
        f"(node.value) if it needs no gradient"
    )


def _data_edges(a: Any, bins: Any, range: Any) -> bool:  # noqa: A002
    """Whether the bin edges of a histogram of node `a` come from its data (its min and max).

    Not for an empty `a`: NumPy's edges then span [0, 1], constants.
    """
    return (
        type(a) is _Node
        and a.size > 0
        and range is None
        and _np.ndim(bins) == 0
        and not isinstance(bins, str)
    )


def _edges_from_data(a: _Node, bins: int) -> Any:
    """Return NumPy's `bins + 1` edges from `a.min()` to `a.max()`, differentiable in both."""
    low = _reduce.min_(a, axis=None, keepdims=False)
    high = _reduce.max_(a, axis=None, keepdims=False)
    if _value(low) == _value(high):  # NumPy widens an empty range by 0.5 each way
        low, high = low - 0.5, high + 0.5
    return _linspace(low, high, int(bins) + 1)


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None):  # noqa: A002
    """Return the edges of the bins `histogram` uses (NumPy's `histogram_bin_edges`).

    With a node `a` and a number of bins, the edges run from `a.min()` to
    `a.max()` and are differentiable in them (as in JAX).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.histogram_bin_edges([0.0, 1.0, 4.0], bins=2)
        array([0., 2., 4.])
    """
    if _data_edges(a, bins, range):
        return _edges_from_data(a, bins)
    return _np.histogram_bin_edges(_value(a), _value(bins), range, _value(weights))


# --- unique values: entries of the input, so differentiable -------------------------


def _flat(ar: Any) -> Any:
    return _sh.reshape(ar, shape=(-1,))


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
    **kwargs: Any,
):
    """Return the sorted unique entries of `ar` (NumPy's `unique`), differentiable in them.

    With a graph node the unique values are a node, `ar`'s entries at their
    first occurrences, so their gradient flows back there; the indices,
    inverse and counts are integer arrays. `axis` (unique rows) takes plain
    values only.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fnp.unique([3.0, 1.0, 3.0])
        array([1., 3.])
        >>> fg.grad(lambda x: fnp.sum(fnp.unique(x) ** 2))(fg.numpy.array([3.0, 1.0, 3.0]))
        array([6., 2., 0.])
    """
    if type(ar) is not _Node:
        return _numpy.unique(ar, return_index, return_inverse, return_counts, axis, **kwargs)
    if axis is not None:
        raise _not_provided("unique(<node>, axis=...)")
    _, first, *rest = _numpy.unique(_value(ar), True, return_inverse, return_counts, None, **kwargs)
    values = _getitem(_flat(ar), index=(first,))
    extra = ([first] if return_index else []) + rest
    return (values, *extra) if extra else values


def unique_values(x: Any):
    """Return the sorted unique entries of `x` (the array API's `unique_values`; see `unique`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.unique_values([2.0, 2.0, 1.0])
        array([1., 2.])
    """
    return unique(x)


def _with_values(result: Any, x: Any) -> Any:
    """Return NumPy's named tuple `result` with its `values` taken from node `x` (see `unique`)."""
    if type(x) is not _Node:
        return result
    first = _np.unique(_value(x), return_index=True)[1]
    return result._replace(values=_getitem(_flat(x), index=(first,)))


def unique_counts(x: Any):
    """Return the unique entries of `x` and how often each occurs (`values`, `counts`).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.unique_counts([2.0, 2.0, 1.0]).counts
        array([1, 2])
    """
    return _with_values(_np.unique_counts(_value(x)), x)


def unique_inverse(x: Any):
    """Return the unique entries of `x` and the indices rebuilding `x` from them.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.unique_inverse([2.0, 2.0, 1.0]).inverse_indices
        array([1, 1, 0])
    """
    return _with_values(_np.unique_inverse(_value(x)), x)


def unique_all(x: Any):
    """Return the unique entries of `x` with their first indices, the inverse and the counts.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.unique_all([2.0, 2.0, 1.0]).indices
        array([2, 0])
    """
    return _with_values(_np.unique_all(_value(x)), x)
