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
"""

from __future__ import annotations

import sys

import numpy

_ndarray = numpy.ndarray
_generic = numpy.generic
_INEXACT_KINDS = frozenset("fc")


def xp_of(*values):
    """Return the array module (`numpy` or `cupy`) that the given values live in.

    Args:
        *values: Arrays, scalars or anything NumPy accepts.

    Returns:
        `cupy` if any value is a CuPy array, else `numpy`.

    Examples:
        >>> import numpy as np
        >>> xp_of(np.ones(2)).__name__
        'numpy'
    """
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        for v in values:
            if isinstance(v, cupy.ndarray):
                return cupy
    return numpy


def is_inexact(dtype) -> bool:
    """Return whether `dtype` is a floating-point (or complex) dtype.

    Examples:
        >>> import numpy as np
        >>> is_inexact(np.float32), is_inexact(np.int64)
        (True, False)
    """
    return numpy.dtype(dtype).kind in _INEXACT_KINDS


def _read_only_all_the_way(arr) -> bool:
    base = arr
    while isinstance(base, _ndarray):
        if base.flags.writeable:
            return False
        base = base.base
    return True


def freeze(value):
    """Return `value` as a read-only array that no one else can write into.

    A writeable NumPy array is copied and the copy made read-only; an array
    that is read-only all the way down to the memory it views is returned as
    it is (no copy). NumPy scalars are immutable and pass through; Python
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
        value = value.copy()
        value.setflags(write=False)
        return value
    if isinstance(value, _generic):
        return value
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        # TODO(#8): CuPy has no read-only flag; the version counter lives here.
        return value
    if isinstance(value, _ndarray):  # a subclass: keep it a plain ndarray
        value = numpy.array(value)
    else:
        value = numpy.asarray(value)
    if value.flags.writeable:
        value.setflags(write=False)
    return value


def as_value(value):
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


def to_device(value, device: str):
    """Return `value` (an array or a graph node) on `device` (`'cpu'`, `'cuda'`, `'cuda:N'`).

    Raises:
        RuntimeError: If a CUDA device is asked for and CuPy or a GPU is missing.
    """
    kind, _, index = device.partition(":")
    if kind == "cpu":
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(value, cupy.ndarray):
            return cupy.asnumpy(value)
        return value
    try:
        import cupy
    except ImportError:
        raise RuntimeError(
            f"funcgrad: cannot move a value of shape {getattr(value, 'shape', ())} to "
            f"{device!r}: CuPy is not installed (pip install -e \".[gpu]\"), and CUDA "
            f"values need it and an NVIDIA GPU"
        ) from None
    try:
        with cupy.cuda.Device(int(index) if index else 0):
            return cupy.asarray(value)
    except Exception as e:  # no driver, no GPU, bad index
        raise RuntimeError(f"funcgrad: cannot move a value to {device!r}: {e}") from e
