"""Helpers of the device tests: whether CUDA runs here, and moving test data to a device."""

from __future__ import annotations

import functools
import importlib

import numpy as np
import pytest

from funcgrad.backend import device_of, resolve, to_device
from funcgrad.graph import Node


@functools.cache
def cuda_skip_reason() -> str | None:
    """Why the CUDA cases cannot run here (one line), or None if they can."""
    try:
        cupy = importlib.import_module("cupy")
    except Exception as e:  # ImportError, or a broken CuPy install
        return f"no CUDA: CuPy is not importable ({type(e).__name__}: {e})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver, or a driver older than CuPy's CUDA
        return f"no CUDA: CuPy sees no GPU ({type(e).__name__}: {e})".replace("\n", " ")
    if n <= 0:
        return "no CUDA: cupy.cuda.runtime.getDeviceCount() == 0"
    return None


def cuda_param(value: str = "cuda", min_gpus: int = 1):
    """A `pytest.param` for a CUDA case: marked `cuda`, skipped with the reason if it cannot run."""
    reason = cuda_skip_reason()
    if reason is None and gpu_count() < min_gpus:
        reason = f"needs {min_gpus} GPUs, this machine has {gpu_count()}"
    marks = [pytest.mark.cuda]
    if reason is not None:
        marks.append(pytest.mark.skip(reason=reason))
    return pytest.param(value, marks=marks, id=value)


def device_params() -> list:
    """The devices every device test runs on: `"cpu"`, and `"cuda"` where it can."""
    return [pytest.param("cpu", id="cpu"), cuda_param("cuda")]


def gpu_count() -> int:
    """The number of GPUs (0 where the CUDA cases are skipped)."""
    if cuda_skip_reason() is not None:
        return 0
    import cupy

    return int(cupy.cuda.runtime.getDeviceCount())


def full_name(device: str) -> str:
    """`"cpu"` or `"cuda:N"` (`"cuda"` resolved to the current GPU)."""
    return resolve(device)


def to_dev(x, device: str):
    """Move NumPy arrays and scalars (inside tuples, lists and dicts too) to `device`; leave the rest.

    A 0-d complex sample is a NumPy scalar (`re + 1j * im` of 0-d arrays), so scalars move too.
    """
    if isinstance(x, (np.ndarray, np.generic)):
        return to_device(x, device)
    if isinstance(x, (tuple, list)):
        return type(x)(to_dev(v, device) for v in x)
    if isinstance(x, dict):
        return {k: to_dev(v, device) for k, v in x.items()}
    return x


def to_host(x):
    """Move arrays and node values (inside tuples, lists and dicts too) to the CPU."""
    if type(x) is Node:
        x = x.value
    if isinstance(x, (tuple, list)):
        return type(x)(to_host(v) for v in x)
    if isinstance(x, dict):
        return {k: to_host(v) for k, v in x.items()}
    if x is None or isinstance(x, (int, float)):
        return x
    return to_device(x, "cpu")


def assert_on(x, device: str, what: str = "") -> None:
    """Assert that an array (or a node's value, or each of a tuple's) lives on `device`."""
    if isinstance(x, (tuple, list)):
        for v in x:
            assert_on(v, device, what)
        return
    if type(x) is Node:
        x = x.value
    if x is None or isinstance(x, (int, float)):
        return
    expected = full_name(device)
    assert device_of(x) == expected, f"{what}: lives on {device_of(x)}, not {expected}"
