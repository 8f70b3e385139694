"""Device parametrization: every test here that takes `device` runs on `"cpu"` and `"cuda"`.

The CUDA case is marked `cuda` and skipped, with a one-line reason, unless
CuPy imports and `cupy.cuda.runtime.getDeviceCount() > 0`. So on a machine
without a GPU the CUDA cases show as skipped (never as errors), and
`pytest -m cuda` selects exactly the cases that need a GPU
(`scripts/gpu_check.sh` runs them).
"""

from __future__ import annotations

from tests.gpu.devices import device_params


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs CuPy and an NVIDIA GPU (skipped without)")


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("device", device_params())
