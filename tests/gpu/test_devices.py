"""Devices: names, moving values, and the errors for a missing CuPy or GPU and for mixed devices.

Three kinds of tests:

* device-independent ones (names, the CPU path), which run everywhere;
* the error paths without CUDA: with CuPy really absent (skipped where it
  is installed), and with a stand-in `cupy` module put in `sys.modules`
  (CuPy installed but no GPU; arrays on two devices), so that these paths
  are checked on every machine;
* CUDA cases, marked `cuda`, which check the same errors with real CuPy
  arrays where a GPU is present.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.backend import (
    DeviceError,
    device_of,
    devices,
    parse_device,
    to_device,
    xp_for,
    xp_of,
)
from funcgrad.ops import registry
from tests.gpu import stand_in
from tests.gpu.devices import cuda_param

CUPY_INSTALLED = importlib.util.find_spec("cupy") is not None
without_cupy = pytest.mark.skipif(CUPY_INSTALLED, reason="CuPy is installed here")


# --- names and the CPU path ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "parsed"),
    [
        ("cpu", ("cpu", None)),
        ("cuda", ("cuda", None)),
        ("cuda:0", ("cuda", 0)),
        ("cuda:12", ("cuda", 12)),
        (3, ("cuda", 3)),
        (fg.device("cuda", 1), ("cuda", 1)),
        (fg.device("cpu"), ("cpu", None)),
    ],
)
def test_device_names(name, parsed):
    assert parse_device(name) == parsed


@pytest.mark.parametrize("name", ["gpu", "cuda:", "cuda:x", "cpu:0", "CUDA", -1, "tpu:1"])
def test_bad_device_names_are_refused(name):
    with pytest.raises(ValueError, match="'cpu', 'cuda' or 'cuda:N'|>= 0"):
        parse_device(name)


def test_cpu_values_stay_where_they_are():
    a = np.ones(3)
    assert to_device(a, "cpu") is a and device_of(a) == "cpu" and device_of(2.0) == "cpu"
    assert xp_of(a, 1.0) is np and xp_for("add", (a, np.float32(2))) is np


def test_the_to_device_primitive_on_the_cpu():
    from funcgrad.ops.device import move
    from funcgrad.ops.device import to_device as prim

    x = fg.leaf([1.0, -2.0])
    y = move(x, "cpu")
    assert y.prim is prim and dict(y.params) == {"device": "cpu"}
    assert fg.backward(fnp.sum(y * y))[x].tolist() == [2.0, -4.0]
    out, t = fg.jvp(lambda v: move(v, "cpu") * 3.0, (np.ones(2),), (np.full(2, 0.5),))
    assert t.tolist() == [1.5, 1.5]
    with pytest.raises(ValueError, match="'cpu', 'cuda' or 'cuda:N'"):
        move(x, "gpu")


# --- CuPy really absent -----------------------------------------------------------------------


@without_cupy
def test_moving_to_cuda_without_cupy_says_what_to_install():
    with pytest.raises(DeviceError) as info:
        to_device(np.ones((2, 3), np.float32), "cuda:0")
    message = str(info.value)
    assert "funcgrad.to_device" in message and "float32[2, 3]" in message
    assert "'cuda:0'" in message and "CuPy is not installed" in message
    assert 'pip install -e ".[gpu]"' in message and "/errors/#deviceerror" in message
    assert isinstance(info.value, RuntimeError)  # what PyTorch raises


@without_cupy
def test_tensors_and_nodes_that_require_grad_say_the_same():
    from funcgrad.ops.device import move

    x = fg.tensor([1.0], requires_grad=True)
    for call in (x.cuda, lambda: x.to("cuda:1"), lambda: x.to(fg.device("cuda"))):
        with pytest.raises(DeviceError, match="CuPy is not installed"):
            call()
    with pytest.raises(DeviceError, match=r"funcgrad\.to_device: moving float64\[2\]"):
        move(fg.leaf([1.0, 2.0]), "cuda")
    assert x.grad is None and "cupy" not in sys.modules


@without_cupy
def test_availability_queries_without_cupy():
    assert not devices.cuda_available() and devices.device_count() == 0
    assert "CuPy is not installed" in devices.cuda_skip_reason()
    with pytest.raises(DeviceError, match="CuPy is not installed"):
        devices.module_for("cuda")
    with pytest.raises(DeviceError, match="CuPy is not installed"):
        fg.backend.rng.generator("cuda:0")


# --- a stand-in CuPy ------------------------------------------------------------------------------


@pytest.fixture
def fake_cupy(monkeypatch):
    """Install the stand-in `cupy` of tests/gpu/stand_in.py with `gpus` GPUs (or a count `error`)."""

    def install(count=1, error=None):
        stand_in.install(monkeypatch, stand_in.fake_cupy(gpus=count, error=error))

    return install


def test_cupy_without_a_gpu_is_a_clear_error(fake_cupy):
    fake_cupy(error=RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected"))
    with pytest.raises(DeviceError) as info:
        to_device(np.ones(2), "cuda")
    message = str(info.value)
    assert "installed but sees no usable NVIDIA GPU" in message and "cudaErrorNoDevice" in message
    assert "funcgrad.to_device: moving float64[2] on cpu to 'cuda'" in message
    assert not devices.cuda_available()
    assert "no usable NVIDIA GPU" in devices.cuda_skip_reason()


def test_zero_gpus_and_an_index_out_of_range(fake_cupy):
    fake_cupy(count=0)
    with pytest.raises(DeviceError, match=r"getDeviceCount\(\) == 0"):
        to_device(np.ones(2), "cuda")
    fake_cupy(count=2)
    with pytest.raises(DeviceError, match=r"there is no GPU cuda:2; this machine has 2"):
        to_device(np.ones(2), "cuda:2")
    assert devices.device_count() == 2 and devices.cuda_available()


def test_values_on_two_devices_in_one_primitive(fake_cupy):
    fake_cupy(count=2)
    host = np.ones(3, np.float32)
    gpu0, gpu1 = stand_in.on_gpu(host.copy(), 0), stand_in.on_gpu(host.copy(), 1)
    assert xp_of(gpu0, gpu0, 2.0, np.float32(1)) is sys.modules["cupy"]  # scalars go anywhere
    add = registry.get("add")
    with pytest.raises(DeviceError) as info:
        add(host, gpu0)
    message = str(info.value)
    assert message.startswith("funcgrad.add: arguments live on different devices")
    assert "float32[3] on cuda:0" in message and "float32[3] on cpu" in message
    assert "to('cuda:0')" in message
    with pytest.raises(DeviceError, match=r"funcgrad\.multiply: .*cuda:0.* and .*cuda:1"):
        registry.get("multiply")(gpu0, gpu1)
    with pytest.raises(DeviceError, match=r"funcgrad\.add: .*cuda:0.*cpu"):
        fnp.add(fg.leaf(host.astype(np.float64)), gpu0)  # a node and a constant
    with pytest.raises(DeviceError, match=r"funcgrad\.matmul: "):
        xp_for("matmul", (gpu1, host))


# --- real CUDA ----------------------------------------------------------------------------------


@pytest.mark.parametrize("gpu", [cuda_param("cuda")])
def test_real_cpu_and_gpu_values_in_one_operation(gpu):
    import cupy

    with pytest.raises(DeviceError) as info:
        fnp.add(np.ones((2, 3)), cupy.ones((2, 3)))
    message = str(info.value)
    assert "funcgrad.add" in message and "float64[2, 3] on cuda:0" in message
    assert "float64[2, 3] on cpu" in message
    x = fg.leaf(cupy.arange(3.0))
    with pytest.raises(DeviceError, match=r"funcgrad\.multiply: .*cuda:0.*cpu"):
        x * np.ones(3)
    with pytest.raises(DeviceError, match="different devices"):
        fg.ones(2) + fg.ones(2).cuda()
    assert (x * 2.0).value.device.id == 0  # Python numbers go with any device


@pytest.mark.parametrize("gpu", [cuda_param("cuda")])
def test_real_moves(gpu):
    import cupy

    a = np.arange(4.0).reshape(2, 2)
    g = to_device(a, "cuda")
    assert isinstance(g, cupy.ndarray) and device_of(g) == f"cuda:{cupy.cuda.runtime.getDevice()}"
    assert to_device(g, "cuda") is g and to_device(g, "cuda:0") is g
    back = to_device(g, "cpu")
    assert isinstance(back, np.ndarray) and (back == a).all()
    assert device_of(to_device(np.float32(2), "cuda")) == "cuda:0"
    with pytest.raises(DeviceError, match="there is no GPU cuda:99"):
        to_device(a, "cuda:99")


@pytest.mark.parametrize("gpu", [cuda_param("cuda", min_gpus=2)])
def test_real_values_on_two_gpus(gpu):
    import cupy

    with cupy.cuda.Device(1):
        b = cupy.ones(3)
    with pytest.raises(DeviceError, match=r"funcgrad\.add: .*cuda:0.*cuda:1"):
        fnp.add(cupy.ones(3), b)
    moved = to_device(b, "cuda:0")
    assert moved.device.id == 0 and device_of(to_device(moved, 1)) == "cuda:1"


@pytest.mark.parametrize("gpu", [cuda_param("cuda")])
def test_random_numbers_on_the_gpu(gpu):
    import cupy

    from funcgrad.backend import rng

    rng.manual_seed(3)
    a = rng.standard_normal((1000,), np.float32, "cuda")
    rng.manual_seed(3)
    b = rng.standard_normal((1000,), np.float32, "cuda")
    assert isinstance(a, cupy.ndarray) and a.dtype == np.float32
    assert bool((a == b).all()) and abs(float(a.mean())) < 0.2
    u = rng.uniform((1000,), np.float64, "cuda:0")
    assert bool(((u >= 0) & (u < 1)).all())
    i = rng.integers(0, 5, (100,), np.int64, "cuda")
    assert i.dtype == np.int64 and int(i.min()) >= 0 and int(i.max()) < 5
