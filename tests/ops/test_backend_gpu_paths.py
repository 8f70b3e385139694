"""The CuPy branches of `funcgrad.backend.devices`, run on the CPU with the stand-in `cupy`.

The stand-in (`tests/ops/test_special_gpu_paths.py`: NumPy arrays of a
subclass that carries a `.device`, in `sys.modules`) is given GPUs that
record which one is current, so a test can see where a value was made.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from funcgrad.backend import devices
from tests.ops.test_special_gpu_paths import GpuArray, _gpu, fake_cupy


def _on(a, index):
    """`a` as a stand-in CuPy array on GPU `index`."""
    out = _gpu(a)
    out.device = types.SimpleNamespace(id=index)
    return out


@pytest.fixture
def gpu(monkeypatch):
    """The stand-in `cupy` with two GPUs; `asarray` makes its arrays on the current one."""
    cupy = fake_cupy()
    current = [0]

    class Device:
        def __init__(self, i=0):
            self.id = i

        def __enter__(self):
            current.append(self.id)
            return self

        def __exit__(self, *exc):
            current.pop()

    def asarray(a, dtype=None):
        return _on(np.asarray(a, dtype=dtype), current[-1])

    runtime = types.SimpleNamespace(getDeviceCount=lambda: 2, getDevice=lambda: current[-1])
    cupy.cuda = types.SimpleNamespace(runtime=runtime, Device=Device)
    cupy.asarray = asarray
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(devices, "_gpu_count", [])
    return cupy


# --- on_host ------------------------------------------------------------------------------------


def test_on_host_moves_keyword_arguments_to_the_host(gpu):
    seen = {}

    def host_fn(x, *, weights):
        seen["types"] = (type(x), type(weights))
        return x * weights

    x, w = _gpu(np.arange(3.0)), _gpu(np.array([2.0, 3.0, 4.0]))
    out = devices.on_host(host_fn, x, weights=w)
    assert seen["types"] == (np.ndarray, np.ndarray)
    assert isinstance(out, GpuArray)
    np.testing.assert_array_equal(out.view(np.ndarray), [0.0, 3.0, 8.0])


def test_on_host_with_only_a_keyword_cupy_argument_comes_back_to_its_gpu(gpu):
    seen = {}

    def host_fn(*, a):
        seen["type"] = type(a)
        return a + 1.0

    out = devices.on_host(host_fn, a=_on(np.ones(2), 1))
    assert seen["type"] is np.ndarray and isinstance(out, GpuArray)
    assert out.device.id == 1
