"""Array modules and read-only values.

funcgrad never keeps a global "current backend": the array module is read
off each value (`xp_of`). CuPy is looked up only once a CuPy array has been
seen, so NumPy-only programs never pay for it.

# NOTE: the user's own arrays are *copied* when a graph takes them, unless
# they are already read-only all the way down (then they are shared). The
# graph's copy is made read-only, so writing into a value a gradient needs
# raises instead of silently changing that gradient, and the user's array is
# never locked behind their back. Pass `funcgrad.freeze(x)` to share a large
# array without a copy.
#
# NOTE: CuPy arrays follow the same rule, with ownership in place of the
# read-only flag they lack: a CuPy array the graph did not make is copied
# (on its own GPU), and the copy is remembered as the graph's
# (`funcgrad.backend.versions`), so `freeze` of it again shares it. Writes
# into a value the graph holds are caught in debug mode only (see there).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy

from funcgrad.backend.devices import _checked
from funcgrad.backend.versions import own, owns

_ndarray = numpy.ndarray
_generic = numpy.generic
_INEXACT_KINDS = frozenset("fc")


def xp_of(*values: Any) -> types.ModuleType:
    """Return the array module (`numpy` or `cupy`) that the given values live in.

    Args:
        *values: Arrays, scalars or anything NumPy accepts.

    Returns:
        `cupy` if any value is a CuPy array, else `numpy`.

    Raises:
        DeviceError: If the values live on different devices (a NumPy array
            and a CuPy array, or CuPy arrays on two GPUs); NumPy scalars and
            Python numbers go with any device. `xp_for` does the same and
            names the operation in the message.

    Examples:
        >>> import numpy as np
        >>> xp_of(np.ones(2)).__name__
        'numpy'
    """
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return numpy
    return _checked(cupy, values, None)


def is_inexact(dtype: Any) -> bool:
    """Return whether `dtype` is a floating-point (or complex) dtype.

    Examples:
        >>> import numpy as np
        >>> is_inexact(np.float32), is_inexact(np.int64)
        (True, False)
    """
    return numpy.dtype(dtype).kind in _INEXACT_KINDS


def _read_only_all_the_way(arr: Any) -> bool:
    base = arr
    while isinstance(base, _ndarray):
        if base.flags.writeable:
            return False
        base = base.base
    return True


# Whether `sys.getrefcount` counts as on the CPython versions funcgrad's reference-count
# shortcuts were measured and are tested on (3.10-3.13): `.grad` taking a gradient array
# without a copy (tensors.engine), a graph sharing a constant's array (tensors.tensor_class).
# Elsewhere (3.14 borrows local references, so counts run lower) those paths copy.
REFCOUNTS_MEASURED = sys.implementation.name == "cpython" and (3, 10) <= sys.version_info[:2] <= (
    3,
    13,
)


def freeze(value: Any) -> Any:
    """Return `value` as a read-only array that no one else can write into.

    A writeable NumPy array is copied (in its own memory order) and the copy
    made read-only; an array that is read-only all the way down to the
    memory it views is returned as it is (no copy). A CuPy array is copied (on its GPU) unless the graph
    made it, and the copy is remembered as the graph's (CuPy has no
    read-only flag; see `funcgrad.backend.versions`). NumPy scalars are immutable and pass through; Python
    numbers and lists become arrays (Python floats become float64, as in
    NumPy).

    Args:
        value: An array, a scalar, or a nested list of numbers.

    Returns:
        A read-only array (or NumPy scalar) equal to `value`.

    Examples:
        >>> import numpy as np
        >>> a = np.ones(3)
        >>> f = freeze(a)
        >>> f.flags.writeable, a.flags.writeable
        (False, True)
        >>> freeze(f) is f
        True
    """
    if type(value) is _ndarray:
        if _read_only_all_the_way(value):
            return value
        # NOTE: order="K" keeps the memory order (a transposed array stays Fortran-ordered),
        # so the graph's reductions and scans run in the order eager NumPy runs on the
        # original: the same bits (a C-order copy changed the last bits of a sum).
        value = value.copy(order="K")
        value.setflags(write=False)
        return value
    if isinstance(value, _generic):
        return value
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        if owns(value):
            return value  # the graph's own array (a result or an earlier copy)
        with cupy.cuda.Device(value.device.id):
            return own(value.copy())  # NOTE: copy() lands on the current GPU
    if isinstance(value, _ndarray):  # a subclass: keep it a plain ndarray
        keep = getattr(value, "__funcgrad_freeze__", None)  # funcgrad.jit's traced values
        if keep is not None:
            return keep()
        value = numpy.array(value)
    else:
        value = numpy.asarray(value)
    if value.flags.writeable:
        value.setflags(write=False)
    return value


def freeze_result(value: Any) -> Any:
    """Return a primitive's fresh result read-only, without a copy.

    Like `freeze`, but for an array nobody else holds yet (a forward's
    output, or a view of values the graph holds): NumPy arrays are locked in
    place and CuPy arrays are remembered as the graph's, not copied.

    Examples:
        >>> import numpy as np
        >>> r = np.ones(2)
        >>> freeze_result(r) is r, r.flags.writeable
        (True, False)
    """
    if type(value) is _ndarray:
        value.setflags(write=False)
        return value
    if isinstance(value, _generic):
        return value
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        return own(value)
    return freeze(value)


def as_value(value: Any) -> Any:
    """Return `value` as an array (or NumPy scalar), leaving arrays untouched.

    Python numbers and lists become NumPy arrays; arrays and NumPy scalars
    are returned as they are.

    Examples:
        >>> as_value([1.0, 2.0])
        array([1., 2.])
    """
    if isinstance(value, (_ndarray, _generic)):
        return value
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        return value
    return numpy.asarray(value)
