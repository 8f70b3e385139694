"""`funcgrad.backends.cuda`: PyTorch's CUDA flags (`matmul.allow_tf32`, the SDPA switches).

funcgrad multiplies float32 matrices in float32 whatever `matmul.allow_tf32`
says; `is_built()` is True when CuPy is installed.

Examples:
    >>> import funcgrad as torch
    >>> torch.backends.cuda.matmul.allow_tf32
    False
"""

from __future__ import annotations

import importlib.util

__all__ = ["cufft_plan_cache", "is_built", "matmul", "preferred_linalg_library"]
__all__ += ["cudnn_sdp_enabled", "enable_cudnn_sdp", "enable_flash_sdp", "enable_math_sdp"]
__all__ += ["enable_mem_efficient_sdp", "flash_sdp_enabled", "math_sdp_enabled"]
__all__ += ["mem_efficient_sdp_enabled"]


def is_built() -> bool:
    """Return whether funcgrad can use CUDA here: CuPy is installed (a GPU may still be missing)."""
    return importlib.util.find_spec("cupy") is not None


class _Matmul:
    """`matmul.allow_tf32` (False), `allow_fp16_reduced_precision_reduction` (True) ..."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.allow_fp16_accumulation = False


matmul = _Matmul()


class _PlanCache:
    """`cufft_plan_cache`: `size`, `max_size` and `clear()` (funcgrad keeps no cuFFT plans itself)."""

    size = 0
    max_size = 4096

    def clear(self) -> None:
        """Nothing to clear."""

    def __getitem__(self, device) -> _PlanCache:
        return self


cufft_plan_cache = _PlanCache()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    """Return the flash scaled-dot-product-attention switch (recorded only)."""
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    """Set the flash scaled-dot-product-attention switch (recorded only)."""
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Return the memory-efficient attention switch (recorded only)."""
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Set the memory-efficient attention switch (recorded only)."""
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    """Return the math attention switch (recorded only)."""
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    """Set the math attention switch (recorded only)."""
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    """Return the cuDNN attention switch (recorded only)."""
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Set the cuDNN attention switch (recorded only)."""
    _sdp["cudnn"] = bool(enabled)


_linalg = ["default"]


def preferred_linalg_library(backend: str | None = None) -> str:
    """Record and return the preferred linear algebra library (funcgrad uses NumPy's and CuPy's)."""
    if backend is not None:
        _linalg[0] = str(backend)
    return _linalg[0]
