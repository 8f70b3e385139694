"""Where values live: the array module (NumPy or CuPy) of a value, devices, dtypes.

This is the bottom layer: it imports only NumPy (and `funcgrad.errors`), and
CuPy lazily when a CUDA device is asked for. It owns `freeze`, the one place
that decides how a value becomes read-only when a graph takes it, the
devices (`"cpu"`, `"cuda"`, `"cuda:N"`) and moving values between them.
"""

from funcgrad.backend import rng, versions
from funcgrad.backend.arrays import (
    as_value,
    freeze,
    freeze_result,
    is_inexact,
    xp_of,
)
from funcgrad.backend.devices import (
    constant_like,
    cuda_available,
    cuda_skip_reason,
    device_count,
    device_of,
    module_for,
    on_device,
    on_host,
    parse_device,
    require_cuda,
    resolve,
    to_device,
    xp_for,
)
from funcgrad.backend.versions import (
    set_write_checks,
    write_checks,
    write_checks_enabled,
)
from funcgrad.errors import DeviceError

__all__ = [
    "DeviceError",
    "as_value",
    "constant_like",
    "cuda_available",
    "cuda_skip_reason",
    "device_count",
    "device_of",
    "freeze",
    "freeze_result",
    "is_inexact",
    "module_for",
    "on_device",
    "on_host",
    "parse_device",
    "require_cuda",
    "resolve",
    "rng",
    "set_write_checks",
    "to_device",
    "versions",
    "write_checks",
    "write_checks_enabled",
    "xp_for",
    "xp_of",
]
