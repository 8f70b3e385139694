"""The profiler on a GPU: CUDA-event times for device operations, NVTX ranges for Nsight.

All CUDA cases; the CPU side of the profiler is tested in
`tests/autograd/test_profiler.py`.
"""

from __future__ import annotations

import json
import warnings

import pytest

import funcgrad as torch
from funcgrad.autograd import profiler
from tests.gpu.devices import cuda_param

on_gpu = pytest.mark.parametrize("gpu", [cuda_param("cuda")])


def _step(x):
    (x @ x).tanh().sum().backward()


@on_gpu
def test_device_operations_get_gpu_time(gpu, tmp_path):
    x = torch.randn(256, 256).cuda().requires_grad_()
    _step(x)  # warm up: kernels compiled, memory pool filled
    with profiler.profile(use_cuda=True, record_shapes=True) as prof:
        _step(x)
    rows = {row.key: row for row in prof.key_averages()}
    assert rows["matmul"].cuda_time_total > 0
    assert rows["MmBackward0"].cuda_time_total > 0
    assert all(ev.cuda_time_total >= 0 for ev in prof.function_events)
    assert "CUDA total" in prof.key_averages().table(sort_by="cuda_time_total")
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    assert any(e.get("name") == "matmul" and e.get("dur", 0) > 0 for e in events)


@on_gpu
def test_host_operations_get_no_gpu_time(gpu):
    x = torch.randn(8, 8, requires_grad=True)
    with profiler.profile(use_cuda=True) as prof:
        _step(x)
    assert all(row.cuda_time_total == 0 for row in prof.key_averages())


@on_gpu
def test_emit_nvtx_marks_ranges_without_warnings(gpu):
    x = torch.randn(64, 64).cuda().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with profiler.emit_nvtx(record_shapes=True):
            _step(x)
    assert x.grad is not None and x.grad.is_cuda
