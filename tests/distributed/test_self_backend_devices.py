"""The one-process (`self`) backend with values on a GPU: its collectives are copies on that GPU.

What PyTorch's single-rank gloo or NCCL group does with a CUDA tensor: the
result stays where the value was. On this machine the GPU is the stand-in
`cupy` of tests/gpu/stand_in.py (NumPy arrays that say they live on GPU 0); `tests/gpu` runs the primitives on a real GPU where there
is one, and the device-parametrized test below runs there too.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.backend import device_of, to_device
from funcgrad.distributed import _api, functional
from funcgrad.distributed._group import self_group
from funcgrad.errors import DeviceError
from tests.gpu.devices import device_params, full_name
from tests.gpu.stand_in import GpuArray
from tests.gpu.stand_in import on_gpu as _gpu
from tests.gpu.stand_in import one_gpu as one_gpu  # noqa: F401  (the fixture `gpu`)

X = np.arange(6.0).reshape(2, 3)


def _on_gpu(got, want, what):
    assert isinstance(got, GpuArray), f"{what}: the result left the GPU ({type(got).__name__})"
    np.testing.assert_array_equal(got.view(np.ndarray), want, err_msg=what)


def test_all_reduce_of_a_gpu_value_stays_on_it(gpu):
    g = self_group()
    x = _gpu(X)
    _on_gpu(_api.all_reduce(x, "sum", g), X, "all_reduce sum")
    _on_gpu(_api.all_reduce(x, "avg", g), X, "all_reduce avg")
    _on_gpu(_api.broadcast(x, 0, g), X, "broadcast")
    out = _api.all_reduce(x, "sum", g)
    assert out is not x  # a fresh copy: the engines write into their buffers


def test_all_gather_and_reduce_scatter_of_gpu_values_stay_on_it(gpu):
    g = self_group()
    (gathered,) = _api.all_gather(None, _gpu(X), g)
    _on_gpu(gathered, X, "all_gather")
    _on_gpu(_api.all_gather_into_tensor(None, _gpu(X), g), X, "all_gather_into_tensor")
    stacked = _gpu(X[None])
    _on_gpu(_api.reduce_scatter(None, stacked, "sum", g), X, "reduce_scatter")
    _on_gpu(_api.reduce_scatter(None, stacked, "avg", g), X, "reduce_scatter avg")
    _on_gpu(_api.reduce_scatter(None, [_gpu(X)], "sum", g), X, "reduce_scatter of a list")
    _on_gpu(_api.reduce_scatter_tensor(None, _gpu(X), "sum", g), X, "reduce_scatter_tensor")
    (only,) = _api.gather(_gpu(X), None, 0, g)
    _on_gpu(only, X, "gather")
    _on_gpu(_api.scatter(_gpu(np.zeros_like(X)), [_gpu(X)], 0, g), X, "scatter")


def test_the_functional_collectives_take_gpu_values(gpu):
    # the primitives' forwards, as the generic rule tests call them with group=self
    g = functional._SELF
    x = _gpu(X)
    _on_gpu(functional.all_reduce_p.forward(gpu, x, op="sum", group=g), X, "all_reduce_p")
    _on_gpu(functional.all_gather_p.forward(gpu, x, group=g), X[None], "all_gather_p")
    _on_gpu(
        functional.reduce_scatter_p.forward(gpu, _gpu(X[None]), op="avg", group=g),
        X,
        "reduce_scatter_p",
    )


def test_the_mpi_backend_still_refuses_gpu_values(gpu):
    from funcgrad.distributed._group import ProcessGroup, _SelfComm, on_device_of

    mpi_like = ProcessGroup(_SelfComm(), "mpi", 1.0, (0,))
    with pytest.raises(DeviceError, match="the mpi backend takes CPU values"):
        on_device_of(mpi_like, _gpu(X))


# --- on a real device (cpu here; cuda in the GPU runs) ------------------------------------------


@pytest.mark.parametrize("device", device_params())
def test_self_collectives_and_their_gradients_on_a_device(device):
    g = self_group()
    x = to_device(X.astype(np.float32), device)
    for name, out, want in [
        ("all_reduce", functional.all_reduce(x, group=g), X),
        ("all_gather", functional.all_gather(x, group=g), X[None]),
        ("reduce_scatter", functional.reduce_scatter(x[None], "avg", group=g), X),
    ]:
        assert device_of(out) == full_name(device), f"{name}: on {device_of(out)}"
        assert out.dtype == np.float32, name
        np.testing.assert_array_equal(to_device(out, "cpu"), want, err_msg=name)
    # d/dx sum(w * all_gather(x)) = w (one rank): the VJP is a reduce_scatter on the device
    w = to_device(np.linspace(-1, 1, 6, dtype=np.float32).reshape(1, 2, 3), device)
    grad = fg.grad(lambda v: (functional.all_gather(v, group=g) * w).sum())(x)
    assert device_of(grad) == full_name(device)
    np.testing.assert_array_equal(to_device(grad, "cpu"), to_device(w, "cpu")[0])
