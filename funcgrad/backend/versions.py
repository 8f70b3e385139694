"""Guarding the values a graph holds where arrays cannot be made read-only (CuPy).

NumPy values held by graph nodes are read-only (`freeze`), so writing into
one raises at once. CuPy arrays have no read-only flag, so this module does
two things for them:

* Ownership. `freeze` copies a CuPy array the graph did not make itself,
  exactly as it copies a writeable NumPy array: the user's own array is
  never the graph's, so writing into it afterwards cannot change a
  gradient. Arrays the graph made (primitive results, its copies) are
  remembered weakly (`own`, `owns`) and shared without a copy.
* Write checks (debug mode). With `set_write_checks(True)`, the
  `write_checks()` context manager or `FUNCGRAD_CHECK_WRITES=1` in the
  environment, every CuPy value the graph takes gets a fingerprint (a
  position-weighted checksum of its bits, computed on the GPU), and the
  backward pass compares it before a VJP rule reads the value
  (`check_unchanged`): a write into `node.value`, an `out` returned by
  `vjp`, or a tensor's `.data` then raises `ReadOnlyError` naming the
  operation instead of giving a silently wrong gradient.

# NOTE: a version counter in PyTorch's sense counts writes made through the
# library. funcgrad never writes into an array it holds (in-place tensor
# operations rebind the tensor to a new node), and a raw CuPy write
# (`a[0] = 1`, `out=`, a custom kernel) cannot be observed: `cupy.ndarray`
# is a Cython type with `__slots__ = []`, so neither the class nor an
# instance can be hooked. A counter would therefore never move. The
# "version" of a value is its content fingerprint instead, and it is
# checked only in debug mode, because a fingerprint costs a reduction
# kernel when the value is recorded and another plus a GPU-to-CPU sync when
# it is checked. Without debug mode the guarantee is the ownership rule
# above (no user array is ever shared) and the cost is one weak reference
# per CuPy value.

The functions also accept NumPy arrays (their fingerprints are computed the
same way), which is how the logic is tested on machines without a GPU.
"""

from __future__ import annotations

import os
import sys
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy

from funcgrad.backend.devices import device_of
from funcgrad.errors import ReadOnlyError

# id(array) -> (weak reference, fingerprint or None). The weak reference's
# callback drops the entry when the array dies, so ids are never stale.
_OWNED: dict[int, tuple[_Ref, Any]] = {}
_CHECKS = [os.environ.get("FUNCGRAD_CHECK_WRITES", "") not in ("", "0")]
_UINT_OF_SIZE = {1: numpy.uint8, 2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}
_GOLDEN = numpy.uint64(0x9E3779B97F4A7C15)  # odd, so every weight below is odd


# --- debug mode ------------------------------------------------------------------


def write_checks_enabled() -> bool:
    """Return whether CuPy values are fingerprinted and checked before backward reads them.

    Examples:
        >>> isinstance(write_checks_enabled(), bool)
        True
    """
    return _CHECKS[0]


def set_write_checks(enabled: bool) -> bool:
    """Turn the write checks (debug mode) on or off; return the previous setting.

    Only values recorded while the checks are on get a fingerprint.

    Examples:
        >>> previous = set_write_checks(True)
        >>> _ = set_write_checks(previous)
    """
    previous = _CHECKS[0]
    _CHECKS[0] = bool(enabled)
    return previous


class write_checks:  # noqa: N801  (a context manager, named like grad modes)
    """Context manager that turns the write checks on inside its block.

    Examples:
        >>> with write_checks():
        ...     write_checks_enabled()
        True
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = bool(enabled)
        self._previous = False

    def __enter__(self) -> write_checks:
        self._previous = set_write_checks(self.enabled)
        return self

    def __exit__(self, *exc: object) -> None:
        set_write_checks(self._previous)


# --- ownership -------------------------------------------------------------------


class _Ref(weakref.ref[Any]):
    __slots__ = ("key",)
    key: int


def _drop(ref: _Ref) -> None:
    entry = _OWNED.get(ref.key)
    if entry is not None and entry[0] is ref:
        del _OWNED[ref.key]


def own(value: Any) -> Any:
    """Remember `value` as an array the graph made (shared without a copy); return it.

    In debug mode its fingerprint is taken now. Call it on fresh results
    only: an array someone else can write into must be copied first (that
    is what `freeze` does).

    Examples:
        >>> import numpy as np
        >>> a = own(np.ones(3))
        >>> owns(a)
        True
    """
    key = id(value)
    entry = _OWNED.get(key)
    if entry is not None and entry[0]() is value:
        if entry[1] is None and _CHECKS[0]:
            _OWNED[key] = (entry[0], fingerprint(value))
        return value
    try:
        ref = _Ref(value, _drop)
    except TypeError:  # a NumPy scalar: immutable, nothing to guard
        return value
    ref.key = key
    _OWNED[key] = (ref, fingerprint(value) if _CHECKS[0] else None)
    return value


def owns(value: object) -> bool:
    """Return whether `value` is an array the graph made (see `own`).

    Examples:
        >>> import numpy as np
        >>> owns(np.ones(3))
        False
    """
    entry = _OWNED.get(id(value))
    return entry is not None and entry[0]() is value


# --- fingerprints and checks ---------------------------------------------------------


def fingerprint(value: Any) -> Any:
    """Return a checksum of `value`'s bits that changes when any element is written.

    The sum over elements of `bits[i] * w[i]` (mod 2**64) with odd weights
    `w[i]`: changing one element always changes it. Computed by the array's
    own module, so on a GPU it is a 0-d CuPy array (no waiting).

    Examples:
        >>> import numpy as np
        >>> a = np.arange(4.0)
        >>> before = fingerprint(a)
        >>> a[2] = -0.0
        >>> bool(fingerprint(a) != before)
        True
    """
    xp = _module_of(value)
    flat = xp.ascontiguousarray(value).reshape(-1)
    size = flat.dtype.itemsize
    if size not in _UINT_OF_SIZE:
        flat = flat.view(numpy.uint8) if size % 8 else flat.view(numpy.uint64)
    else:
        flat = flat.view(_UINT_OF_SIZE[size])
    bits = flat.astype(numpy.uint64)
    weights = (
        xp.arange(bits.size, dtype=numpy.uint64) * numpy.uint64(2) + numpy.uint64(1)
    ) * _GOLDEN
    return (bits * weights).sum(dtype=numpy.uint64)


def _module_of(value: object) -> types.ModuleType:
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        return cupy
    return numpy


def check_unchanged(op: str, *values: Any) -> None:
    """Raise if a value recorded in debug mode was written into since.

    Args:
        op: The operation whose rule is about to read the values.
        *values: The values (arrays, or anything else, which is skipped).

    Raises:
        ReadOnlyError: Naming `op`, the value's shape, dtype and device.

    Examples:
        >>> import numpy as np
        >>> with write_checks():
        ...     a = own(np.zeros(2))
        >>> check_unchanged("exp", a)
        >>> a[0] = 1.0
        >>> check_unchanged("exp", a)
        Traceback (most recent call last):
        ...
        funcgrad.errors.ReadOnlyError: funcgrad.exp: ...
    """
    for v in values:
        entry = _OWNED.get(id(v))
        if entry is None or entry[1] is None or entry[0]() is not v:
            continue
        if bool(fingerprint(v) != entry[1]):
            raise _written_into(op, v)


def _written_into(op: str, value: Any) -> ReadOnlyError:
    return ReadOnlyError(
        f"funcgrad.{op}: a value it needs ({value.dtype}{list(value.shape)} on "
        f"{device_of(value)}) was written into after the graph recorded it, so "
        f"its gradient would be wrong (CuPy arrays cannot be made read-only; "
        f"this was caught by the write checks of debug mode). Copy the array "
        f"before writing into it (x.copy()), or compute a new one"
    )


def write_checker() -> Callable[..., None] | None:
    """Return `check_unchanged` if the backward pass should check values, else None.

    None unless debug mode is on and some value has a fingerprint, so a
    backward pass pays one call per walk for this when the checks are off.

    Examples:
        >>> write_checker() is None or callable(write_checker())
        True
    """
    if not _CHECKS[0] or not _OWNED:
        return None
    return check_unchanged
