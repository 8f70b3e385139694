"""Random numbers on each device, from one seed (`manual_seed`).

The CPU draws from a NumPy `Generator` (`numpy.random.default_rng(seed)`,
the stream funcgrad has always used); each GPU draws from its own CuPy
`RandomState` (cuRAND), made on that GPU on first use, so random tensors
are created on the device without passing through the host.

# NOTE: one seed, one stream per device, as in PyTorch: `manual_seed(s)`
# makes every device's numbers reproducible, but the CPU and a GPU give
# different numbers for the same seed (different generators). CuPy is
# imported only when a GPU generator is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, SupportsInt

import numpy
from numpy.typing import DTypeLike

from funcgrad.backend.devices import parse_device, require_cuda

_seed: list[int | None] = [None]
_generators: dict[str, Any] = {}


def manual_seed(seed: SupportsInt | None) -> numpy.random.Generator:
    """Seed every device's generator; return the CPU generator.

    Examples:
        >>> g = manual_seed(0)
        >>> a = standard_normal((2,), numpy.float32)
        >>> _ = manual_seed(0)
        >>> bool((a == standard_normal((2,), numpy.float32)).all())
        True
    """
    _seed[0] = None if seed is None else int(seed)
    _generators.clear()
    cpu: numpy.random.Generator = generator("cpu")
    return cpu


def generator(device: object = "cpu") -> Any:
    """Return the generator of `device` (a NumPy `Generator` or a CuPy `RandomState`).

    Raises:
        DeviceError: For a CUDA device when CuPy or that GPU is missing.

    Examples:
        >>> type(generator("cpu")).__name__
        'Generator'
    """
    kind, index = parse_device(device)
    if kind == "cpu":
        key = "cpu"
    else:
        cupy = require_cuda(f"funcgrad: random numbers on {str(device)!r}", index)
        if index is None:
            index = cupy.cuda.runtime.getDevice()
        key = f"cuda:{index}"
    g = _generators.get(key)
    if g is None:
        if kind == "cpu":
            g = numpy.random.default_rng(_seed[0])
        else:
            with cupy.cuda.Device(index):
                g = cupy.random.RandomState(_seed[0])
        _generators[key] = g
    return g


def _draw(device: object, draw_cpu: Callable[[Any], Any], draw_gpu: Callable[[Any], Any]) -> Any:
    kind, index = parse_device(device)
    g = generator(device)
    if kind == "cpu":
        return draw_cpu(g)
    import cupy

    with cupy.cuda.Device(index if index is not None else cupy.cuda.runtime.getDevice()):
        return draw_gpu(g)


def standard_normal(shape: Any, dtype: DTypeLike, device: object = "cpu") -> Any:
    """Return standard normal random numbers of `shape` and floating `dtype` on `device`.

    Examples:
        >>> standard_normal((2, 3), numpy.float32).dtype
        dtype('float32')
    """
    dtype = numpy.dtype(dtype)
    return _draw(
        device,
        # float64 draws, then cast: the CPU stream funcgrad has always given
        lambda g: g.standard_normal(shape).astype(dtype),
        lambda g: g.standard_normal(
            shape, dtype=dtype if dtype.kind == "f" and dtype.itemsize >= 4 else numpy.float64
        ).astype(dtype, copy=False),
    )


def uniform(shape: Any, dtype: DTypeLike, device: object = "cpu") -> Any:
    """Return random numbers uniform in [0, 1) of `shape` and floating `dtype` on `device`.

    Examples:
        >>> bool(((0 <= uniform((5,), numpy.float64)) & (uniform((5,), numpy.float64) < 1)).all())
        True
    """
    dtype = numpy.dtype(dtype)
    return _draw(
        device,
        lambda g: g.random(shape).astype(dtype),
        lambda g: g.random_sample(
            shape, dtype=dtype if dtype.kind == "f" and dtype.itemsize >= 4 else numpy.float64
        ).astype(dtype, copy=False),
    )


def integers(low: int, high: int, shape: Any, dtype: DTypeLike, device: object = "cpu") -> Any:
    """Return random integers in [low, high) of `shape` and integer `dtype` on `device`.

    Examples:
        >>> integers(0, 3, (4,), numpy.int64).dtype
        dtype('int64')
    """
    dtype = numpy.dtype(dtype)
    return _draw(
        device,
        lambda g: numpy.asarray(g.integers(low, high, size=shape), dtype=dtype),
        lambda g: g.randint(low, high, size=shape, dtype=numpy.int64).astype(dtype, copy=False),
    )
