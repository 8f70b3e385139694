"""Random numbers on each device: seedable streams (`Source`), one default stream per device.

A `Source` is one stream of random numbers on one device: on the CPU a
NumPy `Generator` (PCG64), on a GPU a CuPy `RandomState` (cuRAND) made on
that GPU at its first draw, so random values are made on the device
without passing through the host. Each device has a default source
(`default(device)`): `funcgrad.randn` and friends draw from it unless given
a `funcgrad.Generator`, which owns a source of its own, and `manual_seed`
reseeds every default source.

A source's state is a short byte string (`Source.get_state`), which is what
`funcgrad.Generator.get_state` returns as a uint8 tensor. `get_state` and
`replay` snapshot and replay every default source: `funcgrad.checkpoint`
uses them to draw, when it recomputes a function in the backward pass, the
very numbers the forward drew (as PyTorch's `checkpoint(preserve_rng_state=True)`
does), and `funcgrad.random.fork_rng` to restore the generators after a block.

# NOTE: the streams are NumPy's and cuRAND's, not PyTorch's (PyTorch's CPU
# generator is an mt19937, its CUDA one a Philox): for one seed funcgrad and
# PyTorch draw different numbers from the same distributions, and a state
# saved by one cannot be set in the other. The CPU and a GPU also give
# different numbers for the same seed. CuPy is imported only when a GPU
# stream is asked for.
"""

from __future__ import annotations

import contextlib
import operator
import threading
from collections.abc import Callable, Iterator
from typing import Any, SupportsInt

import numpy
from numpy.typing import DTypeLike

from funcgrad.backend.devices import parse_device, require_cuda

# The seed of a new `funcgrad.Generator`, as PyTorch's (`torch.Generator().initial_seed()`).
DEFAULT_SEED = 67280421310721
_UINT64 = 2**64

_seed: list[int | None] = [None]  # the last manual_seed (None: fresh entropy per device)
_defaults: dict[str, Source] = {}  # "cpu" / "cuda:N" -> that device's default source
# Per thread: the `State`s of get_state(own=True) whose `recording` is open in this thread;
# an owned source that draws here is snapshotted into each before its first draw.
_local = threading.local()


def check_seed(seed: SupportsInt, op: str = "funcgrad.manual_seed") -> int:
    """Return `seed` as the 64-bit unsigned number a generator is seeded with.

    As PyTorch, a seed is an integer from -2**63 to 2**64 - 1; negative
    seeds wrap around (-1 is 2**64 - 1).

    Raises:
        TypeError: For a seed that is not a number.
        OverflowError: For a seed outside that range.

    Examples:
        >>> check_seed(3), check_seed(-1) == 2**64 - 1
        (3, True)
    """
    if isinstance(seed, (str, bytes)) or not hasattr(seed, "__int__"):
        raise TypeError(f"{op}: a seed is an integer, got {type(seed).__name__} {seed!r}")
    value = int(seed)
    if not -(2**63) <= value < _UINT64:
        raise OverflowError(
            f"{op}: Overflow when unpacking long: the seed {value} is outside "
            f"[-2**63, 2**64 - 1]; give a 64-bit integer"
        )
    return value % _UINT64


def fresh_seed() -> int:
    """Return a non-deterministic 64-bit seed (from the operating system's entropy).

    Examples:
        >>> 0 <= fresh_seed() < 2**64
        True
    """
    entropy: Any = numpy.random.SeedSequence().entropy  # an int when none is given
    return int(entropy) % _UINT64


def device_key(device: object, what: str = "funcgrad: random numbers") -> str:
    """Return the full name of `device`'s stream: `"cpu"` or `"cuda:N"`.

    Raises:
        DeviceError: For a CUDA device when CuPy or that GPU is missing.

    Examples:
        >>> device_key("cpu")
        'cpu'
    """
    kind, index = parse_device(device)
    if kind == "cpu":
        return "cpu"
    cupy = require_cuda(f"{what} on {str(device)!r}", index)
    if index is None:
        index = cupy.cuda.runtime.getDevice()
    return f"cuda:{index}"


# --- one stream --------------------------------------------------------------------------

_MAGIC = b"funcgrad-rng:1:"
_CPU_STATE_SIZE = len(_MAGIC) + 1 + 8 + 16 + 16 + 1 + 4
_GPU_STATE_SIZE = len(_MAGIC) + 1 + 8 + 8


class Source:
    """One stream of random numbers on one device, with PyTorch's seeding API.

    On the CPU it draws from a NumPy `Generator` (PCG64) seeded with the
    seed; on a GPU from a CuPy `RandomState` made on that GPU when it first
    draws. `initial_seed` is the seed it was last given.

    Examples:
        >>> s = Source("cpu", 0)
        >>> a = standard_normal((3,), numpy.float64, source=s)
        >>> s.reseed(0)
        >>> bool((a == standard_normal((3,), numpy.float64, source=s)).all())
        True
    """

    __slots__ = ("__weakref__", "_raw", "_stream_seed", "device", "initial_seed", "legacy")

    def __init__(self, device: str = "cpu", seed: Any = DEFAULT_SEED, *, legacy: bool = False):
        self.device = device  # "cpu" or "cuda:N"
        self.legacy = legacy  # NumPy's legacy MT19937 stream (`Legacy`), CPU only
        self.reseed(seed)

    def snapshot(self) -> Any:
        """Return the stream's exact state, for `restore` (any kind of source).

        NumPy's legacy tuple, a PCG64 state dict, or (GPU) `get_state`'s bytes.
        """
        if self.legacy:
            return self._raw.legacy.get_state()
        if self.device == "cpu":
            return self._raw.bit_generator.state
        return self.get_state()

    def restore(self, snapshot: Any) -> None:
        """Set the stream to a state `snapshot` returned."""
        if self.legacy:
            self._raw.legacy.set_state(snapshot)
        elif self.device == "cpu":
            self._raw.bit_generator.state = snapshot
        else:
            self.set_state(snapshot)

    def reseed(self, seed: Any) -> None:
        """Start the stream again from `seed` (a 64-bit unsigned integer, see `check_seed`).

        A legacy source takes what `numpy.random.RandomState` takes (an
        integer below 2**32, an array of them, or None for fresh entropy).
        """
        self.initial_seed = seed
        self._stream_seed = seed  # GPU: the seed of the current CuPy stream
        if self.legacy:
            self._raw: Any = Legacy(seed)
        else:
            self._raw = numpy.random.default_rng(seed) if self.device == "cpu" else None

    @property
    def raw(self) -> Any:
        """The NumPy `Generator` (CPU) or CuPy `RandomState` (GPU) that draws the numbers."""
        recorders = getattr(_local, "recorders", None)
        if recorders:  # a checkpoint/jit/vmap records which owned sources this thread draws
            _touched(self, recorders)
        if self._raw is None:
            self._raw = _gpu_generator(self.device, self._stream_seed)
        return self._raw

    @property
    def index(self) -> int | None:
        """The GPU number (None on the CPU)."""
        return None if self.device == "cpu" else int(self.device.partition(":")[2])

    def get_state(self) -> bytes:
        """Return the stream's state as bytes (for `set_state`).

        The CPU state is exact (PCG64's state). A CuPy `RandomState` cannot
        report its state, so on a GPU this reseeds the stream from a number
        drawn from it and returns that seed: the numbers after a `get_state`
        are a new stream (still determined by the seed), and `set_state`
        gives exactly them.
        """
        if self.legacy:
            raise TypeError(
                "funcgrad: a NumPy legacy (MT19937) stream has no funcgrad generator state; "
                "use funcgrad.numpy.random.RandomState.get_state(), which returns NumPy's tuple"
            )
        head = _MAGIC + (b"c" if self.device == "cpu" else b"g") + _u(self.initial_seed, 8)
        if self.device == "cpu":
            st = self._raw.bit_generator.state
            return (
                head
                + _u(st["state"]["state"], 16)
                + _u(st["state"]["inc"], 16)
                + _u(st["has_uint32"], 1)
                + _u(st["uinteger"], 4)
            )
        if self._raw is not None:  # a stream in use: continue it from a seed it draws
            self._stream_seed = int(self._raw.randint(0, 2**62, size=(), dtype=numpy.int64))
            self._raw = None
        return head + _u(self._stream_seed, 8)

    def set_state(self, state: bytes, op: str = "funcgrad.Generator.set_state") -> None:
        """Set the stream's state to `state`, bytes from `get_state` of a source of this kind.

        Raises:
            ValueError: For bytes that are not such a state (PyTorch's own
                generator states are named as such).
        """
        if self.legacy:
            raise TypeError(
                f"{op}: a NumPy legacy (MT19937) stream takes NumPy's state: use "
                f"funcgrad.numpy.random.RandomState.set_state"
            )
        state = bytes(state)
        kind = b"c" if self.device == "cpu" else b"g"
        size = _CPU_STATE_SIZE if kind == b"c" else _GPU_STATE_SIZE
        if not state.startswith(_MAGIC) or len(state) != size or state[len(_MAGIC)] != kind[0]:
            raise ValueError(_bad_state(state, self.device, op))
        body = state[len(_MAGIC) + 1 :]
        self.initial_seed = _int(body[0:8])
        if kind == b"g":
            self._stream_seed = _int(body[8:16])
            self._raw = None
            return
        self._raw.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": _int(body[8:24]), "inc": _int(body[24:40])},
            "has_uint32": body[40],
            "uinteger": _int(body[41:45]),
        }


class Legacy:
    """NumPy's legacy stream (`numpy.random.RandomState`, MT19937) behind `numpy.random.Generator`'s methods.

    `funcgrad.numpy.random.RandomState(seed)` draws from one, so that code
    ported from HIPS autograd (`npr.RandomState(0)`) gets NumPy's very
    numbers. The methods whose signatures differ between the two APIs
    (`random`, `standard_normal`, `integers`, `choice` ...) take the
    `Generator` signature that funcgrad's code and `funcgrad.vmap`'s batched
    draws call with, and draw as `RandomState`'s namesake does (`integers`
    is `randint`); every other method is `RandomState`'s own.

    Examples:
        >>> g = Legacy(0)
        >>> bool((g.standard_normal(3) == numpy.random.RandomState(0).randn(3)).all())
        True
    """

    __slots__ = ("legacy",)

    def __init__(self, seed: Any = None):
        try:
            self.legacy = numpy.random.RandomState(seed)
        except (TypeError, ValueError) as e:
            raise type(e)(
                f"funcgrad.numpy.random.RandomState: bad seed {seed!r} (NumPy's legacy "
                f"RandomState takes an integer in [0, 2**32 - 1], an array of them, or None): {e}"
            ) from e

    def __getattr__(self, name: str) -> Any:
        if (
            name.startswith("__") or name == "legacy"
        ):  # copy and pickle probe before `legacy` is set
            raise AttributeError(name)
        return getattr(self.legacy, name)

    def __reduce__(self) -> Any:
        return (_restored_legacy, (self.legacy,))

    @property
    def bit_generator(self) -> Any:
        """The MT19937 bit generator the numbers come from."""
        return self.legacy._bit_generator

    @staticmethod
    def _cast(out: Any, dtype: Any) -> Any:
        dtype = numpy.dtype(dtype)
        return out if numpy.result_type(out) == dtype else numpy.asarray(out).astype(dtype)

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        """`RandomState.random_sample(size)` (cast to `dtype`, written into `out` if given)."""
        return _into(self._cast(self.legacy.random_sample(size), dtype), out)

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        """`RandomState.standard_normal(size)` (cast to `dtype`, written into `out` if given)."""
        return _into(self._cast(self.legacy.standard_normal(size), dtype), out)

    def standard_exponential(
        self, size: Any = None, dtype: Any = numpy.float64, method: str = "zig", out: Any = None
    ) -> Any:
        """`RandomState.standard_exponential(size)` (`method` is the Generator's: ignored)."""
        return _into(self._cast(self.legacy.standard_exponential(size), dtype), out)

    def standard_gamma(
        self, shape: Any, size: Any = None, dtype: Any = numpy.float64, out: Any = None
    ) -> Any:
        """`RandomState.standard_gamma(shape, size)`."""
        return _into(self._cast(self.legacy.standard_gamma(shape, size), dtype), out)

    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Any = None,
        dtype: Any = numpy.int64,
        endpoint: bool = False,
    ) -> Any:
        """`RandomState.randint(low, high, size, dtype)` (`high` included if `endpoint`)."""
        if high is None:
            low, high = 0, low
        if endpoint:
            high = numpy.add(high, 1)
        return self.legacy.randint(low, high, size, dtype)

    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> Any:
        """`RandomState.choice(a, size, replace, p)`, which picks along the first axis only."""
        if axis != 0:
            raise ValueError(
                f"funcgrad.numpy.random.RandomState.choice: NumPy's legacy RandomState picks "
                f"along axis 0 only, got axis={axis}; use default_rng(seed).choice"
            )
        return self.legacy.choice(a, size, replace, p)

    def permutation(self, x: Any, axis: int = 0) -> Any:
        """`RandomState.permutation(x)`, along the first axis only."""
        if axis != 0:
            raise ValueError(
                f"funcgrad.numpy.random.RandomState.permutation: NumPy's legacy RandomState "
                f"permutes along axis 0 only, got axis={axis}; use default_rng(seed).permutation"
            )
        return self.legacy.permutation(x)

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """`RandomState.shuffle(x)`, along the first axis only."""
        if axis != 0:
            raise ValueError(
                f"funcgrad.numpy.random.RandomState.shuffle: NumPy's legacy RandomState "
                f"shuffles along axis 0 only, got axis={axis}; use default_rng(seed).shuffle"
            )
        self.legacy.shuffle(x)


def _restored_legacy(legacy: Any) -> Legacy:
    """A `Legacy` around `legacy`, a `numpy.random.RandomState` (for copy and pickle)."""
    restored = Legacy.__new__(Legacy)
    restored.legacy = legacy
    return restored


def _into(value: Any, out: Any) -> Any:
    if out is None:
        return value
    out[...] = value
    return out


def _u(value: int, size: int) -> bytes:
    return int(value).to_bytes(size, "little")


def _int(data: bytes) -> int:
    return int.from_bytes(data, "little")


def _bad_state(state: bytes, device: str, op: str) -> str:
    what = {
        5056: "PyTorch's CPU generator state (an mt19937)",
        16: "PyTorch's CUDA generator state (Philox seed and offset)",
    }.get(len(state), f"{len(state)} bytes that no funcgrad generator on {device!r} wrote")
    if state.startswith(_MAGIC) and len(state) > len(_MAGIC):
        other = "'cpu'" if state[len(_MAGIC)] == ord("c") else "a GPU"
        what = f"the state of a funcgrad generator on {other}"
    return (
        f"{op}: expected the state of a funcgrad generator on {device!r} (a uint8 tensor "
        f"from its get_state()), got {what}. funcgrad's generators are NumPy's PCG64 and "
        f"cuRAND's, not PyTorch's, so their states do not mix; reseed with manual_seed instead"
    )


def _gpu_generator(key: str, seed: int) -> Any:
    import cupy

    with cupy.cuda.Device(int(key.partition(":")[2])):
        return cupy.random.RandomState(seed)


# --- the default streams -----------------------------------------------------------------


def default(device: object = "cpu", what: str = "funcgrad: random numbers") -> Source:
    """Return the default source of `device` (made on first use, from the last seed).

    `what` starts the error message for a missing GPU.

    Raises:
        DeviceError: For a CUDA device when CuPy or that GPU is missing.

    Examples:
        >>> default("cpu") is default("cpu")
        True
    """
    key = "cpu" if device == "cpu" else device_key(device, what)
    source = _defaults.get(key)
    if source is None:
        seed = _seed[0] if _seed[0] is not None else fresh_seed()
        source = _defaults[key] = Source(key, seed)
    return source


def manual_seed(seed: SupportsInt | None) -> Source:
    """Seed every device's default source; return the CPU's.

    `None` reseeds each from fresh entropy (as NumPy's `seed()`).

    Examples:
        >>> _ = manual_seed(0)
        >>> a = standard_normal((2,), numpy.float32)
        >>> _ = manual_seed(0)
        >>> bool((a == standard_normal((2,), numpy.float32)).all())
        True
    """
    value = None if seed is None else check_seed(seed)
    _seed[0] = value
    default("cpu")
    for source in _defaults.values():
        source.reseed(value if value is not None else fresh_seed())
    return _defaults["cpu"]


def generator(device: object = "cpu") -> Any:
    """Return the generator of `device`'s default source (a NumPy `Generator` or a CuPy `RandomState`).

    Raises:
        DeviceError: For a CUDA device when CuPy or that GPU is missing.

    Examples:
        >>> type(generator("cpu")).__name__
        'Generator'
    """
    return default(device).raw


# --- drawing -----------------------------------------------------------------------------


def _draw(
    device: object,
    source: Source | None,
    draw_cpu: Callable[[Any], Any],
    draw_gpu: Callable[[Any], Any],
) -> Any:
    """Draw with `source` (by default `device`'s default source), on the source's device."""
    given = source
    if source is None:
        source = default(device)
    if source.device == "cpu":
        out = draw_cpu(source.raw)
    else:
        import cupy

        with cupy.cuda.Device(source.index):
            out = draw_gpu(source.raw)
    for ob in draw_observers:  # funcgrad.jit, while it traces: the draw is a step of its plan
        ob(lambda: _draw(device, given, draw_cpu, draw_gpu), out)
    return out


# Observers of every draw, called as `ob(draw, out)`, where `draw()` draws the same way again
# (for `funcgrad.jit`, which replays draws); empty otherwise. An observer changes no number.
draw_observers: list[Callable[[Callable[[], Any], Any], None]] = []


class Observed:
    """A NumPy `Generator` whose draws are reported to `draw_observers` (while jit traces).

    `raw()` returns the generator to draw from, looked up at each draw (so
    that `manual_seed`, which makes a new one, is seen by a replay too).
    """

    def __init__(self, raw: Callable[[], Any]):
        self._raw = raw

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._raw(), name)
        if not callable(method):
            return method
        raw = self._raw

        def drawn(*args: Any, **kwargs: Any) -> Any:
            out = method(*args, **kwargs)
            if kwargs.get("out") is None:
                for ob in draw_observers:
                    ob(lambda: getattr(raw(), name)(*args, **kwargs), out)
            return out

        return drawn


def _gpu_float(dtype: numpy.dtype) -> Any:
    """The dtype CuPy draws floats in for `dtype` (float32 or float64, then cast)."""
    return dtype if dtype.kind == "f" and dtype.itemsize >= 4 else numpy.float64


def standard_normal(
    shape: Any, dtype: DTypeLike, device: object = "cpu", source: Source | None = None
) -> Any:
    """Return standard normal random numbers of `shape` and floating `dtype` on `device`.

    `source` draws them instead of `device`'s default source (on its own device).

    Examples:
        >>> standard_normal((2, 3), numpy.float32).dtype
        dtype('float32')
    """
    dtype = numpy.dtype(dtype)
    return _draw(
        device,
        source,
        # float64 draws, then cast: the CPU stream funcgrad has always given
        lambda g: g.standard_normal(shape).astype(dtype),
        lambda g: g.standard_normal(shape, dtype=_gpu_float(dtype)).astype(dtype, copy=False),
    )


def uniform(
    shape: Any, dtype: DTypeLike, device: object = "cpu", source: Source | None = None
) -> Any:
    """Return random numbers uniform in [0, 1) of `shape` and floating `dtype` on `device`.

    Examples:
        >>> bool(((0 <= uniform((5,), numpy.float64)) & (uniform((5,), numpy.float64) < 1)).all())
        True
    """
    dtype = numpy.dtype(dtype)
    return _draw(
        device,
        source,
        lambda g: g.random(shape).astype(dtype),
        lambda g: g.random_sample(shape, dtype=_gpu_float(dtype)).astype(dtype, copy=False),
    )


def _array(v: Any) -> Any:
    """A draw as an array (one batched by `funcgrad.vmap`, which applies its own ops, as it is)."""
    return v if hasattr(type(v), "__funcgrad_apply__") else numpy.asarray(v)


def integers(
    low: int,
    high: int,
    shape: Any,
    dtype: DTypeLike,
    device: object = "cpu",
    source: Source | None = None,
) -> Any:
    """Return random integers in [low, high) of `shape` and `dtype` on `device`.

    `high` may be up to 2**64 (uint64's range); the numbers are drawn as
    int64 or uint64 and then cast.

    Examples:
        >>> integers(0, 3, (4,), numpy.int64).dtype
        dtype('int64')
    """
    dtype = numpy.dtype(dtype)
    wide = numpy.int64 if high <= 2**63 else numpy.uint64
    return _draw(
        device,
        source,
        lambda g: _array(g.integers(low, high, size=shape, dtype=wide)).astype(dtype),
        lambda g: g.randint(low, high, size=shape, dtype=wide).astype(dtype, copy=False),
    )


def sample(
    method: str,
    shape: Any,
    dtype: DTypeLike,
    *params: Any,
    device: object = "cpu",
    source: Source | None = None,
) -> Any:
    """Return `method`'s draws of `shape`, cast to `dtype`, on `device`.

    `method` is a method both NumPy's `Generator` and CuPy's `RandomState`
    have with the same parameters (`exponential`, `geometric`,
    `standard_cauchy`, `poisson`, `standard_gamma` ...); `params` are its
    parameters (numbers, or arrays on the device for `poisson`'s rates).

    Examples:
        >>> bool((sample("exponential", (4,), numpy.float32, 2.0) > 0).all())
        True
    """
    dtype = numpy.dtype(dtype)
    return _draw(
        device,
        source,
        lambda g: _array(getattr(g, method)(*params, size=shape)).astype(dtype),
        lambda g: getattr(g, method)(*params, size=shape).astype(dtype, copy=False),
    )


def permutation(
    n: int, dtype: DTypeLike, device: object = "cpu", source: Source | None = None
) -> Any:
    """Return a random permutation of `0 .. n - 1` of `dtype` on `device`.

    Examples:
        >>> sorted(permutation(4, numpy.int64).tolist())
        [0, 1, 2, 3]
    """
    dtype = numpy.dtype(dtype)
    n = operator.index(n)
    return _draw(
        device,
        source,
        lambda g: g.permutation(n).astype(dtype),
        lambda g: g.permutation(n).astype(dtype, copy=False),
    )


# --- saving and replaying the streams (checkpoint, jit, fork_rng) --------------------------


class State:
    """A snapshot of every default source, taken by `get_state`, replayed by `replay`.

    Each source's state is its `Source.get_state` (exact on the CPU; on a
    GPU the snapshot starts a new stream from a seed it saves, see there).
    `owned` holds the owned sources (not default ones) drawn in this thread
    while `recording(state)` was open, each as it was before its first draw.
    """

    __slots__ = ("_ids", "owned", "saved", "seed")

    def __init__(
        self,
        seed: int | None,
        saved: dict[str, bytes],
        owned: list[tuple[Source, Any]] | None = None,
    ):
        self.seed = seed
        self.saved = saved
        self.owned = owned if owned is not None else []  # (source, Source.snapshot())
        self._ids = {id(src) for src, _ in self.owned}


def _touched(source: Source, recorders: list[State]) -> None:
    """Snapshot an owned `source` about to draw into each open recording that lacks it."""
    if _defaults.get(source.device) is source:
        return  # default sources are saved whole by get_state
    for state in recorders:
        if id(source) not in state._ids:
            state._ids.add(id(source))
            state.owned.append((source, source.snapshot()))


def get_state(devices: Any = None, *, own: bool = False) -> State:
    """Return a snapshot of every default source (or of the CPU's and those of `devices`).

    Args:
        devices: None for every default source made so far; else the CPU's
            and the GPU streams named (`"cuda:0"`, `1` ...).
        own: Also save the sources the user owns (`funcgrad.Generator`,
            `funcgrad.numpy.random.default_rng(seed)`, `RandomState(seed)`)
            that draw in THIS thread while `recording(state)` is open, each
            as it was before its first draw there. What recomputes a function
            (checkpoint, jit's replays, chunked vmap) runs it first inside
            `recording`, so that a replay gives the forward's numbers again
            and rewinds no generator the function did not draw from (one
            another thread draws from, say); PyTorch's `fork_rng` forks the
            default generators only.

    Examples:
        >>> s = get_state()
        >>> a = uniform((2,), numpy.float64)
        >>> with replay(s):
        ...     bool((uniform((2,), numpy.float64) == a).all())
        True
    """
    default("cpu")
    if devices is None:
        keys = list(_defaults)
    else:
        keys = ["cpu", *(device_key(d) for d in devices)]
    saved = {key: default(key).get_state() for key in keys}
    return State(_seed[0], saved)


@contextlib.contextmanager
def recording(state: State | None) -> Iterator[None]:
    """Inside the block, add to `state.owned` each owned source this thread draws from.

    Each is saved as it was before its first draw in the block; draws in
    other threads are not seen. `state` None records nothing.

    Examples:
        >>> s, g = get_state(own=True), Source("cpu", 0)
        >>> with recording(s):
        ...     a = uniform((2,), numpy.float64, source=g)
        >>> with replay(s):
        ...     bool((uniform((2,), numpy.float64, source=g) == a).all())
        True
    """
    if state is None:
        yield
        return
    recorders = getattr(_local, "recorders", None)
    if recorders is None:
        recorders = _local.recorders = []
    recorders.append(state)
    try:
        yield
    finally:
        recorders.remove(state)


@contextlib.contextmanager
def replay(state: State) -> Iterator[None]:
    """Draw from the default sources as they were at `state` inside the block; restore them after.

    Numbers drawn in the block are those drawn after `get_state` returned
    `state`; after the block every default source continues where it was
    before it, as if the block had drawn nothing (PyTorch's `fork_rng`). A
    device whose source did not exist at the snapshot is left as it is.

    Examples:
        >>> s = get_state()
        >>> a, b = uniform((), numpy.float64), uniform((), numpy.float64)
        >>> with replay(s):
        ...     bool(uniform((), numpy.float64) == a)
        True
        >>> bool(uniform((), numpy.float64) != b)  # the stream went on from b
        True
    """
    seed = _seed[0]
    before = {key: default(key).get_state() for key in state.saved}
    owned_before = [(src, src.snapshot()) for src, _ in state.owned]
    _seed[0] = state.seed
    for key, saved in state.saved.items():
        _defaults[key].set_state(saved)
    for src, snapshot in state.owned:
        src.restore(snapshot)
    try:
        yield
    finally:
        _seed[0] = seed
        for key, saved in before.items():
            _defaults[key].set_state(saved)
        for src, snapshot in owned_before:
            src.restore(snapshot)
