"""`funcgrad.cuda`, `funcgrad.backends`, the default device and PyTorch's process-wide switches.

Without a GPU (CuPy missing, or no device) `funcgrad.cuda` answers as PyTorch
does on a CPU-only machine: `is_available()` is False and never raises,
seeding does nothing, and what needs a GPU to answer raises a clear
`DeviceError` (a `RuntimeError`). The GPU cases run where CuPy sees a GPU.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import funcgrad as torch
from funcgrad.backend import cuda_available
from tests.gpu.devices import cuda_param
from tests.references import requires

no_gpu = pytest.mark.skipif(cuda_available(), reason="checks the answers without a GPU")

# what tutorials and training scripts use of torch.cuda
TUTORIAL_NAMES = (
    "is_available device_count current_device set_device device manual_seed manual_seed_all "
    "synchronize Event Stream stream current_stream empty_cache get_device_name "
    "get_device_properties get_device_capability is_bf16_supported memory_allocated "
    "max_memory_allocated memory_reserved reset_peak_memory_stats mem_get_info seed seed_all "
    "initial_seed get_rng_state set_rng_state get_rng_state_all set_rng_state_all "
    "default_generators is_initialized"
).split()


def test_the_names_tutorials_use_exist_in_pytorch_and_here():
    real = requires("torch")
    for name in TUTORIAL_NAMES:
        assert hasattr(real.cuda, name), name
        assert hasattr(torch.cuda, name), name


@no_gpu
def test_without_a_gpu_cuda_is_unavailable_and_seeding_does_nothing():
    start = time.perf_counter()
    assert torch.cuda.is_available() is False
    assert time.perf_counter() - start < 1.0  # cheap, and cached
    assert torch.cuda.device_count() == 0 and torch.cuda.default_generators == ()
    assert not torch.cuda.is_initialized()
    state = torch.get_rng_state()
    torch.cuda.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    torch.cuda.seed()
    torch.cuda.seed_all()
    assert (torch.get_rng_state() == state).all()  # the CPU generator is untouched
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.ipc_collect()
    assert torch.cuda.memory_allocated() == torch.cuda.max_memory_allocated() == 0
    assert torch.cuda.memory_reserved() == 0 and torch.cuda.get_rng_state_all() == []
    torch.cuda.reset_peak_memory_stats()
    torch.cuda.set_device(-1)  # PyTorch: a negative index does nothing
    with torch.cuda.device(None):
        pass
    with torch.cuda.device_of(torch.ones(1)):
        pass


@no_gpu
@pytest.mark.parametrize(
    "ask",
    [
        torch.cuda.current_device,
        torch.cuda.get_device_name,
        torch.cuda.get_device_properties,
        torch.cuda.get_device_capability,
        torch.cuda.mem_get_info,
        torch.cuda.initial_seed,
        torch.cuda.get_rng_state,
        torch.cuda.init,
    ],
)
def test_without_a_gpu_questions_about_the_gpu_raise_clearly(ask):
    with pytest.raises(RuntimeError, match=r"funcgrad\.cuda\.\w+: .*(CuPy|GPU)"):
        ask()


def test_tutorial_device_branch_runs_on_the_cpu_without_a_gpu():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.ones(2, 2, device=device, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.device == device and x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_precision_checks():
    assert torch.cuda.is_bf16_supported() is False
    assert torch.cuda.is_tf32_supported() is False
    assert torch.cuda.is_current_stream_capturing() is False


def test_events_time_work_and_streams_run_blocks():
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record()
    torch.cuda.synchronize()
    assert end.query() and start.elapsed_time(end) >= 15.0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        torch.cuda.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        torch.cuda.Event(enable_timing=True).elapsed_time(end)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = torch.ones(3) * 2
    s.synchronize()
    assert s.query() and y.tolist() == [2.0, 2.0, 2.0]
    s.wait_stream(torch.cuda.current_stream())
    s.wait_event(s.record_event())
    with torch.cuda.stream(None):
        pass
    assert isinstance(torch.cuda.default_stream(), torch.cuda.Stream)


# --- on a GPU -------------------------------------------------------------------------------------


@pytest.mark.parametrize("gpu", [cuda_param("cuda")])
def test_on_a_gpu_the_answers_are_cupys(gpu):
    import cupy

    assert torch.cuda.is_available() and torch.cuda.device_count() >= 1
    assert torch.cuda.current_device() == cupy.cuda.runtime.getDevice()
    assert isinstance(torch.cuda.get_device_name(), str) and torch.cuda.get_device_name()
    major, _ = torch.cuda.get_device_capability(0)
    assert major >= 3 and torch.cuda.get_device_properties(0).total_memory > 0
    free, total = torch.cuda.mem_get_info()
    assert 0 < free <= total
    x = torch.ones(1000, device="cuda")
    assert torch.cuda.memory_allocated() >= 4000
    torch.cuda.manual_seed(3)
    a = torch.randn(5, device="cuda")
    torch.cuda.manual_seed_all(3)
    assert (torch.randn(5, device="cuda") == a).all().item()
    state = torch.cuda.get_rng_state()
    b = torch.rand(4, device="cuda")
    torch.cuda.set_rng_state(state)
    assert (torch.rand(4, device="cuda") == b).all().item()
    assert torch.cuda.initial_seed() == 3 and len(torch.cuda.default_generators) >= 1
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    (x * 2).sum()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = x + 1
    s.synchronize()
    assert y.sum().item() == 2000.0
    g = torch.Generator(device="cuda").manual_seed(1)
    assert g.device.type == "cuda"
    u = torch.rand(3, device="cuda", generator=g)
    g.manual_seed(1)
    assert (torch.rand(3, device="cuda", generator=g) == u).all().item()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


# --- torch.backends --------------------------------------------------------------------------------


def test_backend_flags_read_and_set_like_pytorchs():
    real = requires("torch")
    cudnn = torch.backends.cudnn
    for name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(cudnn, name) == getattr(real.backends.cudnn, name), name
    cudnn.benchmark = True
    cudnn.deterministic = True
    assert cudnn.benchmark and cudnn.deterministic
    cudnn.benchmark = False
    cudnn.deterministic = False
    with cudnn.flags(enabled=False, deterministic=True):
        assert not cudnn.enabled and cudnn.deterministic
    assert cudnn.enabled and not cudnn.deterministic
    assert not cudnn.is_available() and cudnn.version() is None
    matmul = torch.backends.cuda.matmul
    assert matmul.allow_tf32 == real.backends.cuda.matmul.allow_tf32
    matmul.allow_tf32 = True
    assert torch.backends.cuda.matmul.allow_tf32
    matmul.allow_tf32 = False
    assert torch.backends.mps.is_available() is False and torch.backends.mps.is_built() is False
    assert torch.backends.mkldnn.is_available() is False
    assert torch.backends.openmp.is_available() is False
    assert isinstance(torch.backends.cuda.is_built(), bool)
    torch.backends.cuda.enable_flash_sdp(False)
    assert not torch.backends.cuda.flash_sdp_enabled()
    torch.backends.cuda.enable_flash_sdp(True)


# --- process-wide switches ---------------------------------------------------------------------------


def test_deterministic_algorithms_switch():
    assert not torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.is_deterministic_algorithms_warn_only_enabled()
        assert torch.get_deterministic_debug_mode() == 1
        torch.set_deterministic_debug_mode("error")
        assert torch.get_deterministic_debug_mode() == 2
    finally:
        torch.use_deterministic_algorithms(False)
    assert torch.get_deterministic_debug_mode() == 0


def test_threads_and_matmul_precision():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    with pytest.raises(ValueError, match=">= 1"):
        torch.set_num_threads(0)
    assert torch.get_float32_matmul_precision() == "highest"
    torch.set_float32_matmul_precision("high")
    assert torch.get_float32_matmul_precision() == "high"
    torch.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError, match="Invalid precision"):
        torch.set_float32_matmul_precision("fast")


@pytest.mark.parametrize(
    "options",
    [
        {"precision": 2},
        {"precision": 6},
        {"sci_mode": True},
        {"sci_mode": False},
        {"threshold": 5},
        {"threshold": 5, "edgeitems": 1},
        {"profile": "short"},
        {"linewidth": 30},
    ],
)
def test_set_printoptions_prints_as_pytorch(options):
    real = requires("torch")
    data = [[1.23456789, 2.5, 1e-3, 100.0, 7.0, 8.0], [9.0, 10.5, 11.0, 0.5, 0.25, 1.0]]
    try:
        torch.set_printoptions(**options)
        real.set_printoptions(**options)
        assert repr(torch.tensor(data)) == repr(real.tensor(data))
        assert repr(torch.arange(20.0)) == repr(real.arange(20.0))
    finally:
        torch.set_printoptions(profile="default")
        real.set_printoptions(profile="default")


def test_default_device():
    assert torch.get_default_device() == torch.device("cpu")
    torch.set_default_device("cpu")
    try:
        assert torch.zeros(2).device == torch.device("cpu")
    finally:
        torch.set_default_device(None)
    if not cuda_available():
        torch.set_default_device("cuda")
        try:
            assert torch.get_default_device() == torch.device("cuda")
            for make in (
                lambda: torch.zeros(2),
                lambda: torch.tensor([1.0]),
                lambda: torch.rand(2),
                lambda: torch.arange(3),
            ):
                with pytest.raises(RuntimeError, match="CuPy"):
                    make()
            # from_numpy stays on the CPU, the *_like functions follow their input
            assert torch.from_numpy(np.ones(2)).device.type == "cpu"
        finally:
            torch.set_default_device(None)
    assert torch.zeros(1).device.type == "cpu"


def test_set_default_tensor_type():
    try:
        torch.set_default_tensor_type("torch.DoubleTensor")
        assert torch.zeros(1).dtype == torch.float64 and torch.tensor(1.5).dtype == torch.float64
        torch.set_default_tensor_type(torch.FloatTensor)
        assert torch.zeros(1).dtype == torch.float32
        with pytest.raises(TypeError, match="floating-point"):
            torch.set_default_tensor_type("torch.LongTensor")
    finally:
        torch.set_default_dtype(torch.float32)
        torch.set_default_device(None)
