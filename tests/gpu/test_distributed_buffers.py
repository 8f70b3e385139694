"""Receive buffers of `funcgrad.distributed`'s collectives, with a stand-in CuPy (no GPU here).

A NCCL receive buffer is allocated by CuPy on the communicator's (current)
GPU: `cupy.empty`, never a NumPy buffer copied to the GPU.
`tests/distributed/test_nccl.py` runs the collectives on real GPUs.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from funcgrad.distributed._group import empty_for


class _Recorder:
    """A stand-in `cupy` that records allocations and refuses host-to-GPU copies."""

    def __init__(self):
        self.calls = []
        self.ndarray = type("ndarray", (np.ndarray,), {})

    def empty(self, shape, dtype=float):
        self.calls.append(("empty", shape, np.dtype(dtype)))
        return np.empty(shape, dtype=dtype).view(self.ndarray)

    def array(self, *args, **kwargs):
        raise AssertionError("a host buffer was copied to the GPU")

    asarray = array


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_nccl_receive_buffers_are_allocated_by_cupy(dtype):
    cupy = _Recorder()
    g = types.SimpleNamespace(backend="nccl", comm=types.SimpleNamespace(cupy=cupy))
    like = np.zeros((2, 3), dtype=dtype).view(cupy.ndarray)
    buf = empty_for(g, [4, 2, 3], dtype, like=like)
    assert isinstance(buf, cupy.ndarray) and buf.shape == (4, 2, 3) and buf.dtype == dtype
    assert cupy.calls == [("empty", (4, 2, 3), np.dtype(dtype))]


def test_mpi_receive_buffers_are_numpy():
    g = types.SimpleNamespace(backend="mpi")
    buf = empty_for(g, (3,), np.float64, like=np.zeros(3))
    assert type(buf) is np.ndarray and buf.shape == (3,)
