"""Random numbers in the Tensor layer: `Generator`, `manual_seed`, `rand`, `normal`, `uniform_` ...

PyTorch's random API over funcgrad's streams (`funcgrad.backend.rng`): a
`Generator` owns a stream on one device (`'cpu'`, or a GPU through CuPy's
cuRAND); each device has a default one, which the functions draw from when
they get no `generator=`, and which `manual_seed` reseeds (all devices at
once, as in PyTorch). The in-place methods (`uniform_`, `normal_`,
`bernoulli_` ...) go through the common in-place path
(`funcgrad.tensors.inplace`).

Distributions, shapes, dtypes, devices, seeding and state handling follow
PyTorch, and the same seed always gives the same numbers; the numbers
themselves differ from PyTorch's (funcgrad draws with NumPy's PCG64 and
cuRAND, PyTorch with an mt19937 and Philox), so a seed does not reproduce
a PyTorch run bit for bit. As in PyTorch, the draws are not differentiable
in their parameters: `normal(mean, std)` and `bernoulli(p)` give a zero
gradient to `mean`, `std` and `p` (write `mean + std * randn_like(std)` for a
reparameterized sample).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.backend import rng, to_device, xp_of
from funcgrad.errors import (
    ArgumentTypeError,
    DeviceError,
    NotImplementedDtypeError,
    OpError,
)
from funcgrad.ops._util import value_of
from funcgrad.tensors import grad_mode
from funcgrad.tensors._out import into as _into
from funcgrad.tensors.creation import _device, _size
from funcgrad.tensors.devices import device as _device_class
from funcgrad.tensors.dtypes import default_float_dtype, result_dtype, to_dtype, torch_name
from funcgrad.tensors.inplace import inplace
from funcgrad.tensors.tensor_class import Tensor, _apply, _fresh_leaf, _new_like
from funcgrad.transforms.batching import Batched

__all__ = [
    "Generator",
    "bernoulli",
    "default_generator",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "multinomial",
    "normal",
    "poisson",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "seed",
    "set_rng_state",
]


class Generator:
    """A random number generator on one device, as `torch.Generator`.

    Pass it as `generator=` to any random function or method to draw from
    it instead of the device's default generator. A new generator starts
    from the seed 67280421310721, as in PyTorch.

    Args:
        device: `'cpu'` (the default), `'cuda'` or `'cuda:N'` (needs CuPy and
            a GPU).

    Raises:
        funcgrad.errors.DeviceError: For a CUDA device when CuPy or that GPU
            is missing.

    Examples:
        >>> import funcgrad as torch
        >>> g = torch.Generator().manual_seed(42)
        >>> a = torch.rand(3, generator=g)
        >>> b = torch.rand(3, generator=torch.Generator().manual_seed(42))
        >>> bool((a == b).all()), g.initial_seed()
        (True, 42)
    """

    __slots__ = ("_source", "__weakref__")

    def __init__(self, device="cpu"):
        self._source = rng.Source(rng.device_key(device, "funcgrad.Generator"))

    @classmethod
    def _of(cls, source: rng.Source) -> Generator:
        g = object.__new__(cls)
        g._source = source
        return g

    @property
    def device(self) -> _device_class:
        """The device this generator draws on."""
        return _device_class(self._source.device)

    def manual_seed(self, seed) -> Generator:
        """Seed the generator with `seed` (an integer from -2**63 to 2**64 - 1); return it."""
        self._source.reseed(rng.check_seed(seed, "funcgrad.Generator.manual_seed"))
        return self

    def seed(self) -> int:
        """Seed the generator from the operating system's entropy; return that seed."""
        value = rng.fresh_seed()
        self._source.reseed(value)
        return value

    def initial_seed(self) -> int:
        """Return the seed the generator was last seeded with."""
        return self._source.initial_seed

    def get_state(self) -> Tensor:
        """Return the generator's state as a uint8 tensor (for `set_state`).

        The state is funcgrad's own (NumPy's PCG64 on the CPU; on a GPU a
        seed, see `funcgrad.backend.rng.Source.get_state`), not PyTorch's.
        """
        return _new_like(Tensor, np.frombuffer(self._source.get_state(), np.uint8).copy(), None)

    def set_state(self, new_state) -> Generator:
        """Set the generator's state to `new_state` (a uint8 tensor from `get_state`); return it.

        Raises:
            TypeError: If `new_state` is not a uint8 tensor.
            ValueError: If it is not the state of a funcgrad generator of this
                device's kind (PyTorch's own states are named as such).
        """
        self._source.set_state(_state_bytes(new_state, "funcgrad.Generator.set_state"))
        return self

    def clone_state(self) -> Generator:
        """Return a new generator on the same device, in the same state."""
        other = Generator._of(rng.Source(self._source.device, self._source.initial_seed))
        other._source.set_state(self._source.get_state())
        return other

    def __reduce__(self):
        return (_rebuild_generator, (self._source.device, self._source.get_state()))

    def __repr__(self) -> str:
        return f"<funcgrad.Generator object on {self._source.device!r} at {id(self):#x}>"


def _rebuild_generator(device: str, state: bytes) -> Generator:
    """Make the generator a pickle of a generator saved (see `Generator.__reduce__`)."""
    g = Generator(device)
    g._source.set_state(state)
    return g


def _state_bytes(state, op: str) -> bytes:
    if not isinstance(state, Tensor) or state.dtype != np.uint8:
        what = (
            f"a tensor of dtype {torch_name(state.dtype)}"
            if isinstance(state, Tensor)
            else type(state).__name__
        )
        raise TypeError(f"{op}: expected a funcgrad.ByteTensor (dtype uint8), but got {what}")
    return bytes(np.asarray(state.detach().cpu()._value).reshape(-1))


# The default generator of the CPU (PyTorch's `torch.default_generator`).
default_generator = Generator._of(rng.default("cpu"))


# --- seeding --------------------------------------------------------------------------------


def manual_seed(seed) -> Generator:
    """Seed the default generators of every device (CPU and GPUs); return the CPU's.

    Examples:
        >>> import funcgrad as torch
        >>> _ = torch.manual_seed(0)
        >>> a = torch.randn(2)
        >>> _ = torch.manual_seed(0)
        >>> bool((a == torch.randn(2)).all())
        True
    """
    rng.manual_seed(rng.check_seed(seed))
    return default_generator


def seed() -> int:
    """Seed the default generators of every device from fresh entropy; return the seed.

    Examples:
        >>> import funcgrad as torch
        >>> s = torch.seed()
        >>> torch.initial_seed() == s
        True
    """
    value = rng.fresh_seed()
    rng.manual_seed(value)
    return value


def initial_seed() -> int:
    """Return the seed of the CPU's default generator (random at start, as in PyTorch)."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """Return the state of the CPU's default generator as a uint8 tensor.

    Examples:
        >>> import funcgrad as torch
        >>> state = torch.get_rng_state()
        >>> a = torch.rand(2)
        >>> torch.set_rng_state(state)
        >>> bool((torch.rand(2) == a).all())
        True
    """
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Set the state of the CPU's default generator (a uint8 tensor from `get_rng_state`)."""
    rng.default("cpu").set_state(_state_bytes(new_state, "funcgrad.set_rng_state"))


@contextlib.contextmanager
def fork_rng(
    devices=None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """Restore the default generators after the block, as `torch.random.fork_rng`.

    Numbers drawn inside the block from the default generators are drawn as
    usual; when the block ends, the CPU's default generator and those of
    `devices` (by default every GPU whose generator was used) are put back
    as they were when it began.

    Args:
        devices: GPUs (indices or names) whose default generators to restore.
        enabled: False makes the block a no-op.

    Examples:
        >>> import funcgrad as torch
        >>> _ = torch.manual_seed(0)
        >>> with torch.random.fork_rng():
        ...     inside = torch.rand(2)
        >>> bool((torch.rand(2) == inside).all())
        True
    """
    if not enabled:
        yield
        return
    if device_type not in (None, "cuda", "cpu"):
        raise DeviceError(
            f"funcgrad.random.{_caller}: device_type {device_type!r} is not supported; "
            f"funcgrad has 'cpu' and 'cuda' generators"
        )
    state = rng.get_state(None if devices is None else [_gpu(d) for d in devices])
    with rng.replay(state):
        yield


def _gpu(d) -> str:
    return f"cuda:{d}" if isinstance(d, int) else str(d)


# --- where the numbers come from --------------------------------------------------------------


def _source(generator, where: str, op: str) -> rng.Source:
    """The stream a function drawing on device `where` uses: `generator`'s, or the default."""
    if generator is None:
        return rng.default(where, f"{op}: random numbers")
    if not isinstance(generator, Generator):
        raise ArgumentTypeError(
            f"{op}: generator must be a funcgrad.Generator, got {type(generator).__name__}; "
            f"make one with funcgrad.Generator().manual_seed(seed)"
        )
    source = generator._source
    kind, gkind = where.partition(":")[0], source.device.partition(":")[0]
    if kind != gkind:
        raise DeviceError(
            f"{op}: Expected a '{kind}' device type for generator but found '{gkind}'; "
            f"use a generator made with funcgrad.Generator(device={kind!r})"
        )
    return source


def _on(value, where: str):
    """`value` on device `where` ('cuda' accepts any GPU; a generator's GPU may differ)."""
    if where == "cpu" or where == "cuda":
        return value
    return to_device(value, where)


# PyTorch's kernels that leave an empty tensor of any dtype alone (they are never
# called on no numbers); the others check the dtype first (uniform's bounds)
_EMPTY_ANY_DTYPE = frozenset(("normal_kernel_cpu", "log_normal_cpu", "exponential_cpu"))


def _float_dtype(dtype, op: str, kernel: str, shape: tuple | None = None) -> np.dtype:
    """The float dtype to draw in: `dtype` (the default float dtype if None), or an error.

    An integer or bool `dtype` is refused as PyTorch refuses it, except for an
    empty `shape` with a kernel that PyTorch never calls then (`randn(0,
    dtype=torch.int64)` is an empty int64 tensor in PyTorch).
    """
    dt = to_dtype(dtype) if dtype is not None else default_float_dtype()
    if dt.kind not in "fc":
        if shape is not None and kernel in _EMPTY_ANY_DTYPE and math.prod(shape) == 0:
            return dt
        raise NotImplementedDtypeError(
            f'{op}: "{kernel}" not implemented for {torch_name(dt)!r} (dtype {dt}, as in '
            f"PyTorch): it draws floating-point numbers; use a float dtype, or funcgrad.randint "
            f"for integers"
        )
    return dt


def _sizes(sizes: tuple, size, op: str) -> tuple:
    if size is not None:
        if sizes:
            raise ArgumentTypeError(f"{op}: the size is given twice (positionally and as size=)")
        sizes = (size,)
    return _size(sizes, op.removeprefix("funcgrad."))


def _leaf(value, requires_grad: bool) -> Tensor:
    return _fresh_leaf(Tensor, value, requires_grad)


def _draw_float(method: str, shape, dt: np.dtype, source: rng.Source):
    """Standard normal or uniform numbers of dtype `dt`; complex ones as PyTorch draws them."""
    draw = rng.standard_normal if method == "normal" else rng.uniform
    if dt.kind not in "fc":  # no numbers (an empty shape; _float_dtype allowed it)
        return draw(shape, np.dtype(np.float32), source=source).astype(dt)
    if dt.kind != "c":
        return draw(shape, dt, source=source)
    part = np.dtype(np.float32 if dt == np.complex64 else np.float64)
    re, im = draw(shape, part, source=source), draw(shape, part, source=source)
    if method == "normal":  # unit variance in all: each part has variance 1/2
        re, im = re * part.type(math.sqrt(0.5)), im * part.type(math.sqrt(0.5))
    return (re + 1j * im).astype(dt)


def _zero_gradient(value, *inputs) -> Tensor:
    """A tensor of `value`, recorded with a zero gradient into the `inputs` that require grad.

    PyTorch's random functions are not differentiable in their parameters:
    their `grad_fn` (`NormalBackward3`, `BernoulliBackward0` ...) gives zeros.
    """
    recorded = [t for t in inputs if isinstance(t, Tensor) and t._node is not None]
    if not recorded or not grad_mode.is_grad_enabled():
        return _new_like(Tensor, value, None)

    def zero_gradient(*xs):
        out = value
        for x in xs:
            out = fnp.where(np.False_, x, out)
        return out

    return _apply(zero_gradient, *recorded)


# --- functions --------------------------------------------------------------------------------


def _drawn_into(draw, sizes, size, generator, dtype, device, out) -> Tensor:
    """PyTorch's out= of `draw` (rand, randn): drawn in out's dtype, on its device, written into it."""
    drawn = draw(
        *sizes,
        size=size,
        generator=generator,
        dtype=dtype if dtype is not None else getattr(out, "dtype", None),
        device=getattr(out, "device", device),
    )
    return _into(draw.__name__, drawn, out, stacklevel=4)  # the warning names the caller


def rand(
    *sizes,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Return a tensor of random numbers uniform in [0, 1) (float32 by default).

    Takes the size as PyTorch does: `rand(2, 3)`, `rand((2, 3))` or `rand(size=(2, 3))`.
    With `out=`, the numbers are drawn in that tensor's dtype and written into it (returned).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.rand(2, 3)
        >>> x.shape, x.dtype, bool((x >= 0).all() and (x < 1).all())
        (funcgrad.Size([2, 3]), dtype('float32'), True)
    """
    if out is not None:
        return _drawn_into(rand, sizes, size, generator, dtype, device, out)
    shape = _sizes(sizes, size, "funcgrad.rand")
    dt = _float_dtype(dtype, "funcgrad.rand", "check_uniform_bounds")
    where = _device(device)
    value = _draw_float("uniform", shape, dt, _source(generator, where, "funcgrad.rand"))
    return _leaf(_on(value, where), requires_grad)


def randn(
    *sizes,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Return a tensor of standard normal random numbers (float32 by default).

    A complex dtype gives complex normal numbers of variance 1 (each part
    has variance 1/2), as in PyTorch. With `out=`, the numbers are drawn in that
    tensor's dtype and written into it (returned).

    Examples:
        >>> import funcgrad as torch
        >>> torch.randn(2, 3, dtype=torch.float64).dtype
        dtype('float64')
    """
    if out is not None:
        return _drawn_into(randn, sizes, size, generator, dtype, device, out)
    shape = _sizes(sizes, size, "funcgrad.randn")
    dt = _float_dtype(dtype, "funcgrad.randn", "normal_kernel_cpu", shape)
    where = _device(device)
    value = _draw_float("normal", shape, dt, _source(generator, where, "funcgrad.randn"))
    return _leaf(_on(value, where), requires_grad)


def _check_range(low, high, op: str) -> None:
    if not low < high:
        raise OpError(
            f"{op}: random_ expects 'from' to be less than 'to', but got from={low} >= "
            f"to={high}; integers are drawn from [low, high)"
        )


def _integers(low, high, shape, dt: np.dtype, where: str, generator, op: str):
    _check_range(low, high, op)
    source = _source(generator, where, op)
    return _on(rng.integers(low, high, shape, dt, source=source), where)


def randint(
    low=0,
    high=None,
    size=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
) -> Tensor:
    """Return a tensor of random integers uniform in [low, high) (int64 by default).

    Accepts PyTorch's forms `randint(high, size)` and `randint(low, high, size)`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.randint(3, 10, (5,))
        >>> x.dtype, bool((x >= 3).all() and (x < 10).all())
        (dtype('int64'), True)
        >>> torch.randint(5, (2, 2)).shape
        funcgrad.Size([2, 2])
    """
    if size is None and isinstance(high, (tuple, list)) or high is None:
        # randint(high, size): PyTorch's other overload
        low, high, size = 0, low, high if size is None else size
    if size is None:
        raise ArgumentTypeError(
            "funcgrad.randint: missing the size; call randint(high, size) or "
            "randint(low, high, size), e.g. randint(0, 10, (3,))"
        )
    low, high = (int(v.item()) if isinstance(v, Tensor) else int(v) for v in (low, high))
    shape = _size((size,), "randint")
    dt = to_dtype(dtype) if dtype is not None else np.dtype(np.int64)
    where = _device(device)
    value = _integers(low, high, shape, dt, where, generator, "funcgrad.randint")
    return _leaf(value, requires_grad)


def randperm(
    n,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Return a random permutation of the integers `0 .. n - 1` (int64 by default).

    Examples:
        >>> import funcgrad as torch
        >>> sorted(torch.randperm(5).tolist())
        [0, 1, 2, 3, 4]
    """
    n = int(n)
    if n < 0:
        raise OpError(f"funcgrad.randperm: n must be non-negative, got {n}")
    dt = to_dtype(dtype) if dtype is not None else np.dtype(np.int64)
    where = _device(device)
    source = _source(generator, where, "funcgrad.randperm")
    return _leaf(_on(rng.permutation(n, dt, source=source), where), requires_grad)


def _like(input, dtype, device):  # noqa: A002
    """The shape, dtype and device of a tensor `*_like(input)` makes."""
    if not isinstance(input, Tensor):
        raise ArgumentTypeError(f"expected a funcgrad.Tensor as input, got {type(input).__name__}")
    return (
        tuple(input.shape),
        dtype if dtype is not None else input.dtype,
        (input.device if device is None else device),
    )


def rand_like(
    input,  # noqa: A002
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    memory_format=None,
) -> Tensor:
    """Return uniform random numbers in [0, 1) shaped (and typed) like `input`."""
    shape, dt, dev = _like(input, dtype, device)
    return rand(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


def randn_like(
    input,  # noqa: A002
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    memory_format=None,
) -> Tensor:
    """Return standard normal random numbers shaped (and typed) like `input`."""
    shape, dt, dev = _like(input, dtype, device)
    return randn(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad)


def randint_like(
    input,  # noqa: A002
    low=0,
    high=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: bool = False,
    memory_format=None,
) -> Tensor:
    """Return random integers in [low, high) shaped (and typed) like `input`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.randint_like(torch.zeros(3), 10).dtype
        dtype('float32')
    """
    if high is None:
        low, high = 0, low
    shape, dt, dev = _like(input, dtype, device)
    return randint(
        low, high, shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad
    )


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Return normal random numbers of means `mean` and standard deviations `std`.

    PyTorch's overloads: `normal(mean_tensor, std_tensor)` (broadcast
    together), `normal(mean_tensor, std=1.0)`, `normal(mean, std_tensor)`,
    and `normal(mean, std, size)` for numbers. The result has a zero
    gradient into `mean` and `std`, as in PyTorch (for a reparameterized
    sample write `mean + std * funcgrad.randn_like(std)`).

    Raises:
        funcgrad.errors.OpError: For a negative standard deviation.

    Examples:
        >>> import funcgrad as torch
        >>> torch.normal(2.0, 3.0, size=(2, 2)).shape
        funcgrad.Size([2, 2])
        >>> torch.normal(torch.zeros(3), 1.0).shape
        funcgrad.Size([3])
    """
    op = "funcgrad.normal"
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not tensors:
        if size is None:
            raise ArgumentTypeError(
                f"{op}: with numbers for mean and std, give the size: "
                f"normal({mean}, {std}, size=(2, 3)); or pass tensors of means or stds"
            )
        _check_std(std, op)
        shape = _size((size,), "normal")
        dt = _float_dtype(dtype, op, "normal_kernel_cpu", shape)
        where = _device(device)
        eps = _draw_float("normal", shape, dt, _source(generator, where, op))
        return _leaf(_on(eps * dt.type(std) + dt.type(mean), where), requires_grad)
    if size is not None:
        raise ArgumentTypeError(f"{op}: size= is only for numbers as mean and std, not tensors")
    values = [t._value if isinstance(t, Tensor) else t for t in (mean, std)]
    for t in tensors:
        if t.dtype.kind not in "fc" and t.numel():
            raise NotImplementedDtypeError(
                f'{op}: "normal_kernel_cpu" not implemented for {torch_name(t.dtype)!r}: '
                f"mean and std are floating point (convert with .float())"
            )
    dt = result_dtype(values) or default_float_dtype()
    if any(t.dtype.kind not in "fc" for t in tensors):  # empty: the tensors' dtype, as PyTorch
        dt = result_dtype([t._value for t in tensors]) or dt
    _check_std(values[1], op)
    xp = xp_of(tensors[0]._value)
    shape = np.broadcast_shapes(*(np.shape(v) for v in values))
    where = str(tensors[0].device)
    eps = _draw_float("normal", shape, dt, _source(generator, where, op))
    value = (_on(eps, where) * xp.asarray(values[1], dt) + xp.asarray(values[0], dt)).astype(dt)
    return _zero_gradient(value, mean, std)


def _check_std(std, op: str) -> None:
    bad = np.asarray(std < 0 if not hasattr(std, "get") else (std < 0).get())
    if bad.any():
        raise OpError(
            f"{op}: normal expects std >= 0.0, but found std {np.min(std)}; a standard "
            f"deviation is not negative"
        )


def _check_probabilities(p, op: str) -> None:
    while type(p) is Batched:  # under vmap: every example's probabilities, as one array
        p = value_of(p.val)
    v = np.asarray(p.get() if hasattr(p, "get") else p)
    if not ((v >= 0) & (v <= 1)).all():
        raise OpError(
            f"{op}: Expected p_in >= 0 && p_in <= 1 to be true, but got false; the "
            f"probabilities must lie in [0, 1] (found {v[~((v >= 0) & (v <= 1))][:3].tolist()})"
        )


def bernoulli(input, p=None, *, generator=None) -> Tensor:  # noqa: A002
    """Return 0s and 1s drawn with the probabilities in `input` (or with probability `p`).

    The result has `input`'s shape and dtype, and a zero gradient into `input`.

    Raises:
        funcgrad.errors.OpError: For probabilities outside [0, 1].

    Examples:
        >>> import funcgrad as torch
        >>> torch.bernoulli(torch.tensor([0.0, 1.0, 1.0])).tolist()
        [0.0, 1.0, 1.0]
    """
    op = "funcgrad.bernoulli"
    probs = input._value if p is None else (p._value if isinstance(p, Tensor) else p)
    if p is None and input.dtype.kind not in "fc":
        raise NotImplementedDtypeError(
            f'{op}: "bernoulli_tensor_cpu_self_" not implemented for '
            f"{torch_name(input.dtype)!r}: the probabilities are floating point"
        )
    _check_probabilities(probs, op)
    value = _bernoulli_value(input, probs, generator, op)
    return _zero_gradient(value, input, p)


def _bernoulli_value(like: Tensor, probs, generator, op: str):
    where = str(like.device)
    u = rng.uniform(tuple(like.shape), np.float64, source=_source(generator, where, op))
    xp = xp_of(like._value)
    probs = probs.astype(np.float64) if type(probs) is Batched else xp.asarray(probs, np.float64)
    return (_on(u, where) < probs).astype(like.dtype)


def multinomial(input, num_samples, replacement: bool = False, *, generator=None) -> Tensor:  # noqa: A002
    """Return indices drawn from the categories of `input`, weighted by its rows (int64).

    `input` is a 1-D tensor of non-negative weights (they need not sum to
    one) or a 2-D tensor of one distribution per row; the result has
    `num_samples` indices per row. Without replacement, the indices of a row
    are distinct (drawn one after the other, each proportionally to the
    weights of the categories left).

    Raises:
        funcgrad.errors.OpError: For weights that are negative, infinite or
            NaN, a row that sums to zero, or more samples without replacement
            than categories of positive weight.

    Examples:
        >>> import funcgrad as torch
        >>> torch.multinomial(torch.tensor([0.0, 0.0, 1.0]), 2, replacement=True).tolist()
        [2, 2]
    """
    op = "funcgrad.multinomial"
    if input.dim() not in (1, 2):
        raise OpError(
            f"{op}: prob_dist must be 1 or 2 dim, got a tensor of shape {list(input.shape)}"
        )
    if input.dtype.kind != "f":
        raise NotImplementedDtypeError(
            f'{op}: "multinomial" not implemented for {torch_name(input.dtype)!r}; the '
            f"weights are floating point (convert with .float())"
        )
    n = int(num_samples)
    if n <= 0:
        raise OpError(f"{op}: cannot sample n_sample <= 0 samples (got {n})")
    w = input._value.astype(np.float64)
    xp = xp_of(w)
    rows = w.reshape(-1, w.shape[-1])
    cats = rows.shape[-1]
    if not replacement and n > cats:
        raise OpError(
            f"{op}: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({n} > {cats}); pass replacement=True or fewer samples"
        )
    bad = not bool(xp.all(xp.isfinite(rows) & (rows >= 0)))
    total = rows.sum(axis=-1)
    if bad or not bool(xp.all(total > 0)):
        raise OpError(
            f"{op}: invalid multinomial distribution (sum of probabilities <= 0, or a weight "
            f"that is negative, inf or NaN) in a tensor of shape {list(input.shape)}"
        )
    if not replacement and not bool(xp.all((rows > 0).sum(axis=-1) >= n)):
        raise OpError(
            f"{op}: invalid multinomial distribution (with replacement=False, not enough "
            f"non-negative category to sample): a row has fewer than {n} positive weights"
        )
    where = str(input.device)
    source = _source(generator, where, op)
    r = rows.shape[0]
    if replacement:
        # inverse CDF: one searchsorted over the rows' CDFs shifted apart by the row index
        running = xp.cumsum(rows, axis=-1)
        cdf = running / running[:, -1:] + xp.arange(r)[:, None]  # each row ends at exactly r + 1
        u = _on(rng.uniform((r, n), np.float64, source=source), where) + xp.arange(r)[:, None]
        idx = xp.searchsorted(cdf.reshape(-1), u.reshape(-1), side="right").reshape(r, n)
        # never past a row's last category of positive weight (u + r may round up to r + 1)
        last = cats - 1 - xp.argmax(rows[:, ::-1] > 0, axis=-1)
        idx = xp.minimum(idx - (xp.arange(r) * cats)[:, None], last[:, None])
    else:
        # exponential races: the n smallest E / w (E ~ Exp(1)) are drawn without replacement
        e = _on(rng.sample("exponential", (r, cats), np.float64, source=source), where)
        with np.errstate(divide="ignore"):
            keys = xp.where(rows > 0, e / xp.where(rows > 0, rows, 1.0), xp.inf)
        idx = xp.argsort(keys, axis=-1, kind="stable")[:, :n]
    out = idx.astype(np.int64).reshape((*w.shape[:-1], n))
    return _new_like(Tensor, out, None)


def poisson(input, generator=None) -> Tensor:  # noqa: A002
    """Return Poisson counts with the rates in `input` (same shape and dtype, zero gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.poisson(torch.zeros(3)).tolist()
        [0.0, 0.0, 0.0]
    """
    op = "funcgrad.poisson"
    if input.dtype.kind != "f":
        raise NotImplementedDtypeError(
            f'{op}: "poisson_cpu" not implemented for {torch_name(input.dtype)!r}'
        )
    lam = input._value
    if not bool(xp_of(lam).all(lam >= 0)):
        raise OpError(f"{op}: the rates must be >= 0 (a tensor of shape {list(input.shape)})")
    where = str(input.device)
    source = _source(generator, where, op)
    src_lam = (
        lam if source.device == "cpu" or where == source.device else to_device(lam, source.device)
    )
    value = rng.sample("poisson", tuple(input.shape), input.dtype, src_lam, source=source)
    return _zero_gradient(_on(value, where), input)


# --- in-place methods -------------------------------------------------------------------------


def _fill_float(self: Tensor, op: str, kernel: str, make) -> Tensor:
    """The tensor of `make(source, shape, float dtype)`'s draws, shaped and typed like `self`."""
    dt = self.dtype
    if dt.kind not in "fc":
        if kernel in _EMPTY_ANY_DTYPE and self.numel() == 0:
            return _new_like(Tensor, xp_of(self._value).empty(tuple(self.shape), dt), None)
        raise NotImplementedDtypeError(
            f'funcgrad.Tensor.{op}: "{kernel}" not implemented for {torch_name(dt)!r}; '
            f"it draws floating-point numbers: use a float tensor"
        )
    return _new_like(Tensor, make(dt), None)


def _where_of(self: Tensor) -> str:
    return str(self.device)


def _uniform(self: Tensor, from_=0.0, to=1.0, *, generator=None, **kwargs) -> Tensor:
    low, high = kwargs.pop("from", from_), to
    _no_more(kwargs, "uniform_")
    if not low <= high:
        raise OpError(
            f"funcgrad.Tensor.uniform_: uniform_ expects to return a [from, to) range, but "
            f"found from={low} > to={high}"
        )
    where = _where_of(self)
    source = _source(generator, where, "funcgrad.Tensor.uniform_")

    def make(dt):
        u = _on(_draw_float("uniform", tuple(self.shape), dt, source), where)
        if dt.kind == "c":  # each part uniform in [from, to)
            return ((u.real * (high - low) + low) + 1j * (u.imag * (high - low) + low)).astype(dt)
        return (u * (high - low) + low).astype(dt)

    return _fill_float(self, "uniform_", "check_uniform_bounds", make)


def _normal(self: Tensor, mean=0.0, std=1.0, *, generator=None) -> Tensor:
    _check_std(std, "funcgrad.Tensor.normal_")
    where = _where_of(self)
    source = _source(generator, where, "funcgrad.Tensor.normal_")

    def make(dt):
        z = _on(_draw_float("normal", tuple(self.shape), dt, source), where)
        return (z * std + mean).astype(dt)

    return _fill_float(self, "normal_", "normal_kernel_cpu", make)


def _log_normal(self: Tensor, mean=1.0, std=2.0, *, generator=None) -> Tensor:
    if not std > 0:
        raise OpError(
            f"funcgrad.Tensor.log_normal_: log_normal_ expects std > 0.0, but found std={std}"
        )
    where = _where_of(self)
    source = _source(generator, where, "funcgrad.Tensor.log_normal_")

    def make(dt):
        z = _on(rng.standard_normal(tuple(self.shape), np.float64, source=source), where)
        return xp_of(z).exp(z * std + mean).astype(dt)

    return _fill_float(self, "log_normal_", "log_normal_cpu", make)


def _exponential(self: Tensor, lambd=1.0, *, generator=None) -> Tensor:
    if not lambd > 0:
        raise OpError(
            f"funcgrad.Tensor.exponential_: exponential_ expects lambda > 0.0, but found "
            f"lambda={lambd}"
        )
    where = _where_of(self)
    source = _source(generator, where, "funcgrad.Tensor.exponential_")

    def make(dt):
        e = rng.sample("exponential", tuple(self.shape), np.float64, 1.0 / lambd, source=source)
        return _on(e, where).astype(dt)

    return _fill_float(self, "exponential_", "exponential_cpu", make)


def _cauchy(self: Tensor, median=0.0, sigma=1.0, *, generator=None) -> Tensor:
    where = _where_of(self)
    source = _source(generator, where, "funcgrad.Tensor.cauchy_")

    def make(dt):
        c = rng.sample("standard_cauchy", tuple(self.shape), np.float64, source=source)
        return (_on(c, where) * sigma + median).astype(dt)

    return _fill_float(self, "cauchy_", "cauchy_cpu", make)


def _geometric(self: Tensor, p, *, generator=None) -> Tensor:
    if not 0 < p < 1:
        raise OpError(
            f"funcgrad.Tensor.geometric_: geometric_ expects p to be in (0, 1), but got p={p}"
        )
    where = _where_of(self)
    source = _source(generator, where, "funcgrad.Tensor.geometric_")
    value = rng.sample("geometric", tuple(self.shape), self.dtype, p, source=source)
    return _new_like(Tensor, _on(value, where), None)


def _bernoulli_fill(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    op = "funcgrad.Tensor.bernoulli_"
    probs = p._value if isinstance(p, Tensor) else p
    _check_probabilities(probs, op)
    if np.ndim(probs) and np.broadcast_shapes(np.shape(probs), tuple(self.shape)) != tuple(
        self.shape
    ):
        raise OpError(
            f"{op}: the probabilities of shape {list(np.shape(probs))} do not broadcast to the "
            f"tensor's shape {list(self.shape)}"
        )
    return _new_like(Tensor, _bernoulli_value(self, probs, generator, op), None)


def _random(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """`random_(to)`, `random_(from, to=None)` or `random_()`: integers in [from, to)."""
    op = "funcgrad.Tensor.random_"
    if len(args) > 2:
        raise ArgumentTypeError(f"{op}: takes at most 2 positional arguments ({len(args)} given)")
    if len(args) == 1 and "to" not in kwargs and "from" not in kwargs:
        args = (0, args[0])  # random_(to)
    named = dict(zip(("from", "to"), args, strict=False))
    for key in ("from", "to"):
        if key in kwargs:
            if key in named:
                raise ArgumentTypeError(f"{op}: {key!r} is given twice")
            named[key] = kwargs.pop(key)
    _no_more(kwargs, "random_")
    dt = self.dtype
    low = int(named.get("from", 0))
    high = named.get("to")
    high = _random_top(dt) if high is None else int(high)
    where = _where_of(self)
    value = _integers(low, high, tuple(self.shape), dt, where, generator, op)
    return _new_like(Tensor, value, None)


def _random_top(dt: np.dtype) -> int:
    """One past the largest number `random_()` draws for dtype `dt` (PyTorch's bounds)."""
    if dt.kind == "b":
        return 2
    if dt.kind in "iu":
        return int(np.iinfo(dt).max) + 1
    if dt.kind == "f":  # every integer up to 2**digits is exact
        return 2 ** (np.finfo(dt).nmant + 1) + 1
    raise NotImplementedDtypeError(
        f'funcgrad.Tensor.random_: "random_" not implemented for {torch_name(dt)!r}'
    )


def _no_more(kwargs: dict, name: str) -> None:
    if kwargs:
        raise ArgumentTypeError(
            f"funcgrad.Tensor.{name}() got an unexpected keyword argument {next(iter(kwargs))!r}"
        )


def _method(name: str, fn, doc: str):
    method = inplace(name, fn, overwrites=True)
    method.__doc__ = doc
    return method


uniform_ = _method(
    "uniform_",
    _uniform,
    """Fill the tensor with numbers uniform in [from, to) (`uniform_(from=0, to=1, *, generator=None)`).

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.empty(4).uniform_(-1, 1)
        >>> bool((x >= -1).all() and (x < 1).all())
        True
    """,
)
normal_ = _method(
    "normal_",
    _normal,
    """Fill the tensor with normal numbers (`normal_(mean=0, std=1, *, generator=None)`).""",
)
log_normal_ = _method(
    "log_normal_",
    _log_normal,
    """Fill the tensor with numbers whose log is normal(mean, std) (`log_normal_(mean=1, std=2)`).""",
)
exponential_ = _method(
    "exponential_",
    _exponential,
    """Fill the tensor with exponential numbers of rate `lambd` (`exponential_(lambd=1)`).""",
)
cauchy_ = _method(
    "cauchy_",
    _cauchy,
    """Fill the tensor with Cauchy numbers (`cauchy_(median=0, sigma=1, *, generator=None)`).""",
)
geometric_ = _method(
    "geometric_",
    _geometric,
    """Fill the tensor with the number of Bernoulli(p) trials to the first success (1, 2, ...).""",
)
bernoulli_ = _method(
    "bernoulli_",
    _bernoulli_fill,
    """Fill the tensor with 0s and 1s, 1 with probability `p` (a number or a tensor).

    Examples:
        >>> import funcgrad as torch
        >>> torch.zeros(3).bernoulli_(1.0).tolist()
        [1.0, 1.0, 1.0]
    """,
)
random_ = _method(
    "random_",
    _random,
    """Fill the tensor with integers uniform in [from, to - 1].

    `random_(to)`, `random_(from, to)`, or `random_()`: then up to the
    dtype's largest number (for floating point, up to 2**mantissa, every
    integer of which is exact), as in PyTorch.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.zeros(5, dtype=torch.int64).random_(3)
        >>> bool((x >= 0).all() and (x < 3).all())
        True
    """,
)


def _bernoulli_method(self: Tensor, p=None, *, generator=None) -> Tensor:
    """Return 0s and 1s drawn with this tensor's probabilities (or with probability `p`)."""
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self: Tensor, num_samples, replacement: bool = False, *, generator=None):
    """Return indices drawn from the categories weighted by this tensor (see `funcgrad.multinomial`)."""
    return multinomial(self, num_samples, replacement, generator=generator)


class RandomMethods:
    """`Tensor`'s random methods, installed by `funcgrad.tensors.methods` (through `TensorMethods`)."""

    __slots__ = ()

    uniform_ = uniform_
    normal_ = normal_
    log_normal_ = log_normal_
    exponential_ = exponential_
    cauchy_ = cauchy_
    geometric_ = geometric_
    bernoulli_ = bernoulli_
    random_ = random_
    bernoulli = _bernoulli_method
    multinomial = _multinomial_method
