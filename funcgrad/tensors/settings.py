"""PyTorch's process-wide switches: determinism, threads, matmul precision, print options.

funcgrad computes with NumPy (and CuPy), so most of these change nothing in
how it computes; they are kept, and reported back, so that programs written
for PyTorch that set or read them run unchanged:

* `use_deterministic_algorithms`: funcgrad's CPU operations are
  deterministic already; the flag is recorded (and reported by
  `are_deterministic_algorithms_enabled`).
* `set_num_threads`: limits the threads of NumPy's BLAS through
  `threadpoolctl` when it is installed; otherwise only recorded.
* `set_float32_matmul_precision`: recorded; float32 matmuls are always
  computed in float32 (no TF32 or bfloat16 passes).
* `set_printoptions`: PyTorch's, for how tensors print.
"""

from __future__ import annotations

import importlib
import math
import os
from typing import Any

from funcgrad.tensors import printing as _printing

__all__ = [
    "are_deterministic_algorithms_enabled",
    "get_deterministic_debug_mode",
    "get_float32_matmul_precision",
    "get_num_interop_threads",
    "get_num_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_warn_always_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "set_num_interop_threads",
    "set_num_threads",
    "set_printoptions",
    "set_warn_always",
    "use_deterministic_algorithms",
]

_state: dict[str, Any] = {
    "deterministic": False,
    "warn_only": False,
    "threads": None,
    "interop_threads": None,
    "matmul_precision": "highest",
    "warn_always": False,
}
_limits: list[Any] = []  # the threadpoolctl limit in force, if any


# --- determinism ---------------------------------------------------------------------------------


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (recorded: funcgrad's CPU operations are deterministic).

    Examples:
        >>> import funcgrad as torch
        >>> torch.use_deterministic_algorithms(True)
        >>> torch.are_deterministic_algorithms_enabled()
        True
        >>> torch.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(
            f"funcgrad.use_deterministic_algorithms: mode is a bool, got {type(mode).__name__}"
        )
    _state["deterministic"] = mode
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Return whether `use_deterministic_algorithms(True)` is in force."""
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Return whether `use_deterministic_algorithms(True, warn_only=True)` is in force."""
    return bool(_state["warn_only"])


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """Set the determinism debug mode: 0 or `"default"`, 1 or `"warn"`, 2 or `"error"`."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"funcgrad.set_deterministic_debug_mode: invalid mode {debug_mode!r}; "
                f"use 'default', 'warn' or 'error'"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"funcgrad.set_deterministic_debug_mode: invalid mode {debug_mode!r}; use 0, 1 or 2"
        )
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """Return the determinism debug mode (0: default, 1: warn, 2: error)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_warn_always(b: bool) -> None:
    """Ask for warnings that PyTorch gives once per process to be given every time (recorded)."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """Return what `set_warn_always` set."""
    return bool(_state["warn_always"])


# --- threads ---------------------------------------------------------------------------------------


def set_num_threads(num: int) -> None:
    """Use `num` threads for NumPy's BLAS (through `threadpoolctl` when it is installed).

    Raises:
        ValueError: For a number of threads below 1.

    Examples:
        >>> import funcgrad as torch
        >>> torch.set_num_threads(2)
        >>> torch.get_num_threads()
        2
    """
    num = int(num)
    if num < 1:
        raise ValueError(f"funcgrad.set_num_threads: the number of threads must be >= 1, got {num}")
    _state["threads"] = num
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        return
    while _limits:
        _limits.pop().restore_original_limits()
    _limits.append(threadpoolctl.threadpool_limits(limits=num))


def get_num_threads() -> int:
    """Return the number of threads set by `set_num_threads` (the CPU count until then)."""
    threads = _state["threads"]
    return int(threads) if threads is not None else (os.cpu_count() or 1)


def set_num_interop_threads(num: int) -> None:
    """Record the number of inter-op threads (funcgrad runs operations one after another)."""
    num = int(num)
    if num < 1:
        raise ValueError(f"funcgrad.set_num_interop_threads: must be >= 1, got {num}")
    _state["interop_threads"] = num


def get_num_interop_threads() -> int:
    """Return the number of inter-op threads (recorded by `set_num_interop_threads`)."""
    threads = _state["interop_threads"]
    return int(threads) if threads is not None else (os.cpu_count() or 1)


# --- matmul precision -------------------------------------------------------------------------------


def set_float32_matmul_precision(precision: str) -> None:
    """Record the float32 matmul precision (`"highest"`, `"high"` or `"medium"`).

    funcgrad always multiplies float32 matrices in float32 (`"highest"`);
    the setting is kept for `get_float32_matmul_precision`.
    """
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(
            f"funcgrad.set_float32_matmul_precision: Invalid precision {precision!r}; "
            f"use 'highest', 'high' or 'medium'"
        )
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """Return the float32 matmul precision last set (`"highest"` at start)."""
    return str(_state["matmul_precision"])


# --- print options --------------------------------------------------------------------------------

_PROFILES: dict[str, dict[str, float]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print, as `torch.set_printoptions`.

    Args:
        precision: Digits after the decimal point (4).
        threshold: Tensors of more elements than this are summarised (1000).
        edgeitems: Items shown at each end of a summarised dimension (3).
        linewidth: Characters per line (80).
        profile: `"default"`, `"short"` or `"full"` (never summarise), set first.
        sci_mode: True or False forces scientific notation on or off; None
            (the default) chooses it per tensor.

    Examples:
        >>> import funcgrad as torch
        >>> torch.set_printoptions(precision=2)
        >>> torch.tensor([1.23456])
        tensor([1.23])
        >>> torch.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"funcgrad.set_printoptions: profile {profile!r} is not one of {sorted(_PROFILES)}"
            )
        for key, value in _PROFILES[profile].items():
            setattr(_printing, f"_{key.upper()}", value)
    given: dict[str, float | None] = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
    }
    for key, option in given.items():
        if option is not None:
            setattr(_printing, f"_{key.upper()}", option)
    # NOTE: sci_mode=None keeps the per-tensor choice, as in PyTorch (so it is always set).
    _printing._SCI_MODE = sci_mode
