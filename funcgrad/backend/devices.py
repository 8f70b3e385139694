"""Devices: naming them, finding a value's device, moving values between devices.

A device is named `"cpu"`, `"cuda"` (the current GPU) or `"cuda:N"`. NumPy
values live on the CPU, CuPy values on the GPU that holds their memory.
Nothing here keeps a "current backend": a value's device is read off the
value, and the array module of an operation off its arguments (`xp_of`),
which is also where values on two devices meeting in one operation are
caught (`DeviceError`, naming the operation, shapes and devices).

CuPy is imported only when a CUDA device is asked for; a program that
never does so never imports it.

# NOTE: a missing CuPy, a CuPy without a usable GPU (no driver, no device)
# and a GPU index out of range are one error, `DeviceError` (a
# `RuntimeError`, as PyTorch raises), whose message says which of the three
# it is and what to install. The number of GPUs is asked once per process.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from funcgrad.errors import DeviceError

_ndarray = numpy.ndarray
_INSTALL_HINT = (
    'install CuPy for your CUDA version: pip install -e ".[gpu]" (CUDA 12), or '
    "pip install cupy-cuda11x for CUDA 11 (see the README)"
)
_gpu_count: list[int] = []  # [count] once known (CuPy imported and asked)


# --- names -------------------------------------------------------------------------


def parse_device(device: object) -> tuple[str, int | None]:
    """Return `device` as `(kind, index)`: `("cpu", None)`, `("cuda", None)` or `("cuda", N)`.

    Accepts `"cpu"`, `"cuda"`, `"cuda:N"`, a GPU index (an int), or anything
    whose `str()` is one of those (such as `funcgrad.device`).

    Raises:
        ValueError: For any other name.

    Examples:
        >>> parse_device("cuda:1"), parse_device("cpu"), parse_device(0)
        (('cuda', 1), ('cpu', None), ('cuda', 0))
    """
    if isinstance(device, int) and not isinstance(device, bool):
        if device < 0:
            raise ValueError(f"funcgrad: a GPU index must be >= 0, got {device}")
        return "cuda", device
    text = str(device)
    kind, sep, index = text.partition(":")
    if kind == "cpu" and not sep:
        return "cpu", None
    if kind == "cuda" and not sep:
        return "cuda", None
    if kind == "cuda" and index.isdigit():
        return "cuda", int(index)
    raise ValueError(f"funcgrad: expected a device 'cpu', 'cuda' or 'cuda:N', got {device!r}")


def device_of(value: object) -> str:
    """Return the device a value lives on: `"cpu"` or `"cuda:N"`.

    Python numbers, NumPy arrays and anything else that is not a CuPy array
    live on the CPU.

    Examples:
        >>> import numpy as np
        >>> device_of(np.ones(2)), device_of(3.0)
        ('cpu', 'cpu')
    """
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(value, cupy.ndarray):
        return f"cuda:{value.device.id}"
    return "cpu"


def _describe(value: object) -> str:
    shape = getattr(value, "shape", None)
    if shape is None:
        return f"{type(value).__name__} on {device_of(value)}"
    return f"{getattr(value, 'dtype', '?')}{list(shape)} on {device_of(value)}"


# --- CUDA availability -------------------------------------------------------------


def _import_cupy(what: str) -> types.ModuleType:
    try:
        return importlib.import_module("cupy")
    except ImportError as e:
        raise DeviceError(f"{what}: CuPy is not installed ({e}); {_INSTALL_HINT}") from None


def _count(cupy: types.ModuleType) -> int:
    if not _gpu_count:
        try:
            n = int(cupy.cuda.runtime.getDeviceCount())
        except Exception as e:  # no driver, driver too old, no device
            raise DeviceError(
                f"CuPy {getattr(cupy, '__version__', '?')} is installed but sees no usable "
                f"NVIDIA GPU ({type(e).__name__}: {e}); check the driver (nvidia-smi) and "
                f"that the CuPy wheel matches the CUDA version"
            ) from None
        _gpu_count.append(n)
    return _gpu_count[0]


def require_cuda(what: str = "funcgrad", index: int | None = None) -> types.ModuleType:
    """Return the `cupy` module, checking that a GPU (number `index`) is there.

    Args:
        what: What needs CUDA, named at the start of the error message
            (e.g. `"funcgrad.to_device: moving float32[3] to 'cuda'"`).
        index: The GPU that must exist, or None for "any GPU".

    Raises:
        DeviceError: If CuPy is missing, sees no GPU, or has no GPU `index`.
    """
    cupy = _import_cupy(what)
    try:
        n = _count(cupy)
    except DeviceError as e:
        raise DeviceError(f"{what}: {_plain_message(e)}") from None
    if n == 0:
        raise DeviceError(
            f"{what}: CuPy sees no NVIDIA GPU (getDeviceCount() == 0); run on a machine "
            f"with a GPU, or keep the values on 'cpu'"
        )
    if index is not None and index >= n:
        raise DeviceError(
            f"{what}: there is no GPU cuda:{index}; this machine has {n} (cuda:0 to cuda:{n - 1})"
        )
    return cupy


def _plain_message(error: Exception) -> str:
    # A FuncgradError's text ends with its docs link; keep the first part only.
    return str(error).split("\n(see http", 1)[0]


def cuda_available() -> bool:
    """Return whether CUDA values can be made: CuPy imports and sees at least one GPU.

    Imports CuPy if it is installed (which is why the array module lookups
    never call this).

    Examples:
        >>> isinstance(cuda_available(), bool)
        True
    """
    try:
        require_cuda()
    except DeviceError:
        return False
    return True


def device_count() -> int:
    """Return the number of GPUs CuPy sees (0 without CuPy or without a GPU).

    Examples:
        >>> device_count() >= 0
        True
    """
    try:
        cupy = _import_cupy("funcgrad.backend.device_count")
        return _count(cupy)
    except DeviceError:
        return 0


def cuda_skip_reason() -> str | None:
    """Return why CUDA cannot be used here, in one line, or None if it can.

    For test suites and scripts that run CUDA work only where it is possible.

    Examples:
        >>> reason = cuda_skip_reason()
        >>> reason is None or isinstance(reason, str)
        True
    """
    try:
        require_cuda("CUDA")
    except DeviceError as e:
        return _plain_message(e).replace("\n", " ")
    return None


def resolve(device: object) -> str:
    """Return the full name of a device: `"cpu"` or `"cuda:N"` (`"cuda"` is the current GPU).

    Raises:
        ValueError: For a name that is not a device.
        DeviceError: For a CUDA device when CuPy or that GPU is missing.

    Examples:
        >>> resolve("cpu")
        'cpu'
    """
    kind, index = parse_device(device)
    if kind == "cpu":
        return "cpu"
    cupy = require_cuda(f"funcgrad: device {str(device)!r}", index)
    if index is None:
        index = cupy.cuda.runtime.getDevice()
    return f"cuda:{index}"


def on_device(device: object, *, op: str = "funcgrad") -> contextlib.AbstractContextManager[Any]:
    """Return a context manager that makes `device` the current GPU (a no-op for `"cpu"`).

    Arrays CuPy creates inside it live on that GPU.

    Args:
        device: `"cpu"`, `"cuda"`, `"cuda:N"`, or a GPU index.
        op: The operation named in error messages.

    Examples:
        >>> with on_device("cpu"):
        ...     pass
    """
    kind, index = parse_device(device)
    if kind == "cpu":
        return contextlib.nullcontext()
    cupy = require_cuda(f"{op}: device {str(device)!r}", index)
    return cupy.cuda.Device(index) if index is not None else contextlib.nullcontext()


def module_for(device: object, *, op: str = "funcgrad") -> types.ModuleType:
    """Return the array module (`numpy` or `cupy`) whose arrays live on `device`.

    Args:
        device: `"cpu"`, `"cuda"`, `"cuda:N"`, or a GPU index.
        op: The operation named in error messages (`"funcgrad.ones"`).

    Raises:
        DeviceError: For a CUDA device when CuPy or that GPU is missing.

    Examples:
        >>> module_for("cpu").__name__
        'numpy'
    """
    kind, index = parse_device(device)
    if kind == "cpu":
        return numpy
    return require_cuda(f"{op}: device {str(device)!r}", index)


# --- moving values -------------------------------------------------------------------


def to_device(value: Any, device: object, *, op: str = "funcgrad.to_device") -> Any:
    """Return `value` on `device`: the value itself if it is there already, else a copy.

    Moving to the CPU gives a NumPy array (`cupy.asnumpy`, which waits for
    the GPU); moving to a GPU gives a CuPy array on that GPU. Python numbers
    and NumPy scalars become arrays when moved to a GPU.

    Args:
        value: An array, a NumPy scalar or a Python number.
        device: `"cpu"`, `"cuda"` (the current GPU), `"cuda:N"`, or a GPU index.
        op: The operation named in error messages.

    Returns:
        The value on `device`.

    Raises:
        ValueError: If `device` is not a device name.
        DeviceError: If a CUDA device is asked for and CuPy or that GPU is
            missing.

    Examples:
        >>> import numpy as np
        >>> a = np.ones(2)
        >>> to_device(a, "cpu") is a
        True
    """
    kind, index = parse_device(device)
    cupy = sys.modules.get("cupy")
    if kind == "cpu":
        if cupy is not None and isinstance(value, cupy.ndarray):
            return cupy.asnumpy(value)
        return value
    cupy = require_cuda(f"{op}: moving {_describe(value)} to {str(device)!r}", index)
    if isinstance(value, cupy.ndarray):
        if index is None or value.device.id == index:
            return value
        with cupy.cuda.Device(index):
            return value.copy()  # NOTE: ndarray.copy() copies onto the current GPU
    if index is None:
        return cupy.asarray(value)
    with cupy.cuda.Device(index):
        return cupy.asarray(value)


def constant_like(value: Any, like: Any, dtype: Any = None) -> Any:
    """Return `value` as an array of `like`'s array module, on `like`'s device.

    For constants an operation builds next to its values (masks, index
    arrays, weights): `cupy.asarray` alone puts them on the *current* GPU,
    which need not be the one `like` lives on, so for a CuPy `like` the array
    is made under `cupy.cuda.Device(like.device.id)`. Anything else (NumPy
    arrays, NumPy scalars, Python numbers) gives `numpy.asarray(value, dtype)`.

    Args:
        value: A NumPy array, a NumPy scalar, a Python number or a nested list.
        like: The value whose array module and device the constant takes.
        dtype: The constant's dtype; None keeps `value`'s.

    Returns:
        The constant, a NumPy or CuPy array.

    Examples:
        >>> import numpy as np
        >>> constant_like([1, 0], np.ones(2, dtype=np.float32), dtype=np.float32)
        array([1., 0.], dtype=float32)
    """
    if type(like) is not _ndarray:
        cupy: Any = sys.modules.get("cupy")
        if cupy is not None and isinstance(like, cupy.ndarray):
            with cupy.cuda.Device(like.device.id):
                return cupy.asarray(value, dtype=dtype)
    return numpy.asarray(value, dtype=dtype)


def on_host(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call `fn` on host (NumPy) copies of CuPy arguments, and move its results back to their GPU.

    For the forwards that have no GPU implementation (SciPy's matrix functions,
    a general eigendecomposition, Bessel functions of any order): as PyTorch
    does for `torch.linalg.eig` on CUDA, the values make a round trip through
    the host, which synchronizes with the GPU. With no CuPy argument this is
    `fn(*args, **kwargs)`. CuPy arrays among the keyword arguments are copied
    to the host too. Results may be arrays, NumPy scalars, or tuples and
    lists of them; other results (Python numbers, None) come back as they are.

    Args:
        fn: The host function (it takes and returns NumPy arrays).
        *args: Its positional arguments; CuPy arrays among them are copied to the host.
        **kwargs: Its keyword arguments; CuPy arrays among them are copied to the host.

    Returns:
        `fn`'s result, its arrays on the GPU of the first CuPy argument
        (positional arguments first, then keyword arguments).

    Examples:
        >>> import numpy as np
        >>> float(on_host(np.linalg.det, np.eye(2)))
        1.0
    """
    cupy: Any = sys.modules.get("cupy")
    device = None
    if cupy is not None:
        nd = cupy.ndarray
        device = next((a.device.id for a in args if isinstance(a, nd)), None)
        if device is None and kwargs:
            device = next((a.device.id for a in kwargs.values() if isinstance(a, nd)), None)
    if device is None:
        return fn(*args, **kwargs)
    host = [cupy.asnumpy(a) if isinstance(a, nd) else a for a in args]
    host_kwargs = {k: cupy.asnumpy(a) if isinstance(a, nd) else a for k, a in kwargs.items()}
    result = fn(*host, **host_kwargs)

    def back(r: Any) -> Any:
        if isinstance(r, tuple) and hasattr(r, "_fields"):  # a named tuple (np.linalg.eig's)
            return type(r)(*(back(v) for v in r))
        if isinstance(r, (tuple, list)):
            return type(r)(back(v) for v in r)
        if isinstance(r, (numpy.ndarray, numpy.generic)):
            with cupy.cuda.Device(device):
                return cupy.asarray(r)
        return r

    return back(result)


# --- the array module of an operation ------------------------------------------------


def xp_for(op: str | None, values: Iterable[Any]) -> types.ModuleType:
    """Return the array module of an operation's arguments, checking they share one device.

    NumPy scalars and Python numbers go with any device; NumPy arrays and
    CuPy arrays do not mix, nor do CuPy arrays on two GPUs.

    Args:
        op: The operation's name (`"add"`), for the error message.
        values: The operation's arguments.

    Returns:
        `cupy` if any argument is a CuPy array, else `numpy`.

    Raises:
        DeviceError: If the arguments live on different devices.

    Examples:
        >>> import numpy as np
        >>> xp_for("add", (np.ones(2), 1.0)).__name__
        'numpy'
    """
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return numpy
    return _checked(cupy, values, op)


def _checked(cupy: types.ModuleType, values: Iterable[Any], op: str | None) -> types.ModuleType:
    nd = cupy.ndarray
    first = None
    host = None
    for v in values:
        if isinstance(v, nd):
            if first is None:
                first = v
            elif v.device.id != first.device.id:
                raise _mixed(op, first, v)
        elif isinstance(v, _ndarray):
            host = v
    if first is None:
        return numpy
    if host is not None:
        raise _mixed(op, first, host)
    return cupy


def _mixed(op: str | None, a: Any, b: Any) -> DeviceError:
    if op is None:
        op = _calling_primitive()
    name = f"funcgrad.{op}" if op else "funcgrad"
    da, db = device_of(a), device_of(b)
    target = da if da != "cpu" else db
    return DeviceError(
        f"{name}: arguments live on different devices: "
        f"{_describe(a)} and {_describe(b)}. Move them to one device first, e.g. "
        f"funcgrad.backend.to_device(x, {target!r}) or tensor.to({target!r})"
    )


def _calling_primitive() -> str | None:
    # NOTE: only on the error path, and only where the caller did not name the
    # operation (xp_of called by Primitive.__call__ / bind): the primitive is
    # the `self` of a frame a few levels up. Never runs when devices agree.
    frame: types.FrameType | None = sys._getframe(2)
    for _ in range(6):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "forward") and hasattr(owner, "vjp"):
            return getattr(owner, "name", None)
        frame = frame.f_back
    return None
