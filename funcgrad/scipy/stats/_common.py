"""What the distributions share: argument promotion, support masks, standardization."""

import numpy as _np

from funcgrad.backend import device_of as _device_of
from funcgrad.graph import Node as _Node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops._util import value_of as _value_of

NEG_INF = -_np.inf


def _on_gpu(a):
    """Whether `a` is a CuPy array (numpy.asarray refuses those)."""
    return type(a) is not _np.ndarray and _device_of(a) != "cpu"


def value(a):
    """The array behind `a` (a node's value, `a` as an array, or one of vmap's batches as it is).

    A CuPy array is returned as it is.
    """
    if type(a) is _Node:
        # NOTE: value_of, read by a function jit follows: support masks and the like are
        # computed by a jit plan from the replayed values (a.value was baked into the plan)
        return _value_of(a)
    if hasattr(type(a), "__funcgrad_apply__") or _on_gpu(a):
        return a
    return _np.asarray(a)


def promote(*args):
    """Return `args` with every number or list made an array of their common float dtype.

    Python numbers are weak (NEP 50), so float32 data with `loc=0` stays
    float32; nodes are returned as they are, CuPy arrays cast on their GPU.
    """
    dtype = _np.result_type(*(a if type(a) in (float, int) else value(a).dtype for a in args), 1.0)
    return tuple(
        a
        if type(a) is _Node or hasattr(type(a), "__funcgrad_apply__")
        else a.astype(dtype, copy=False)
        if _on_gpu(a)
        else _np.asarray(a, dtype=dtype)
        for a in args
    )


def standardize(x, loc, scale):
    """`(x - loc) / scale`."""
    return _ew.divide(_ew.subtract(x, loc), scale)


def on_support(inside, values, outside=NEG_INF):
    """`values` where the boolean array `inside` holds, else `outside` (no gradient there)."""
    return _ew.where(inside, values, outside)


def log(x):
    return _ew.log(x)


def exp(x):
    return _ew.exp(x)
