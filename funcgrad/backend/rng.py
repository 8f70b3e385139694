"""Random numbers on each device, from one seed (`manual_seed`).

The CPU draws from a NumPy `Generator` (`numpy.random.default_rng(seed)`,
the stream funcgrad has always used); each GPU draws from its own CuPy
`RandomState` (cuRAND), made on that GPU on first use, so random tensors
are created on the device without passing through the host.

`get_state` and `replay` let `funcgrad.checkpoint` draw, when it recomputes
a function in the backward pass, the very numbers the forward drew (as
PyTorch's `checkpoint(preserve_rng_state=True)` does).

# NOTE: one seed, one stream per device, as in PyTorch: `manual_seed(s)`
# makes every device's numbers reproducible, but the CPU and a GPU give
# different numbers for the same seed (different generators). CuPy is
# imported only when a GPU generator is asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
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


# --- saving and replaying the generators (funcgrad.checkpoint) --------------------


class State:
    """A snapshot of every device's generator, taken by `get_state`, replayed by `replay`.

    The CPU generator's state is saved exactly (its bit generator's state).
    A CuPy `RandomState` cannot report its state, so `get_state` reseeds
    each GPU generator that exists from a number drawn from it, and saves
    that seed: the GPU streams after a snapshot are new ones (still
    determined by `manual_seed`), and replaying gives exactly them.
    """

    __slots__ = ("saved", "seed")

    def __init__(self, seed: int | None, saved: dict[str, Any]):
        self.seed = seed
        self.saved = saved


def get_state() -> State:
    """Return a snapshot of every device's generator (see `State`).

    Examples:
        >>> s = get_state()
        >>> a = uniform((2,), numpy.float64)
        >>> with replay(s):
        ...     bool((uniform((2,), numpy.float64) == a).all())
        True
    """
    saved: dict[str, Any] = {}
    for key, g in list(_generators.items()):
        if key == "cpu":
            saved[key] = g.bit_generator.state  # a fresh dict, copied by NumPy
        else:
            seed = int(g.randint(0, 2**62, size=(), dtype=numpy.int64))
            _generators[key] = _gpu_generator(key, seed)
            saved[key] = seed
    return State(_seed[0], saved)


def _gpu_generator(key: str, seed: int | None) -> Any:
    import cupy

    with cupy.cuda.Device(int(key.partition(":")[2])):
        return cupy.random.RandomState(seed)


@contextlib.contextmanager
def replay(state: State) -> Iterator[None]:
    """Draw from the generators as they were at `state` inside the block; restore them after.

    Numbers drawn in the block are those drawn after `get_state` returned
    `state`; after the block every generator continues where it was before
    it, as if the block had drawn nothing (PyTorch's `fork_rng`). A device
    whose generator did not exist at the snapshot gets a fresh one from the
    seed, as it did then.

    Examples:
        >>> s = get_state()
        >>> a, b = uniform((), numpy.float64), uniform((), numpy.float64)
        >>> with replay(s):
        ...     bool(uniform((), numpy.float64) == a)
        True
        >>> bool(uniform((), numpy.float64) != b)  # the stream went on from b
        True
    """
    seed, before = _seed[0], dict(_generators)
    cpu = before.get("cpu")
    cpu_state = None if cpu is None else cpu.bit_generator.state
    _seed[0] = state.seed
    _generators.clear()
    for key, saved in state.saved.items():
        if key == "cpu":
            g = cpu if cpu is not None else numpy.random.default_rng()
            g.bit_generator.state = saved
            _generators[key] = g
        else:
            _generators[key] = _gpu_generator(key, saved)
    try:
        yield
    finally:
        _seed[0] = seed
        _generators.clear()
        _generators.update(before)
        if cpu is not None:
            cpu.bit_generator.state = cpu_state
