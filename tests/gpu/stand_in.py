"""A stand-in for CuPy on the CPU: NumPy under the name `cupy`, with CuPy's quirks where they matter.

There is no GPU on most machines that run the tests, so the CuPy branches of
funcgrad are driven with this stand-in, put in `sys.modules["cupy"]` (the
`gpu` fixture) or passed as `xp` to a forward. Every quirk is read from
CuPy 14.2's sources (`/cupy/...` paths below) and written here once:

* its arrays are `GpuArray`s, NumPy arrays of a subclass that says which GPU
  it lives on (`.device.id`, passed on to the arrays made from them) and has
  `.get()`; a NumPy array meeting one in an operation is funcgrad's
  DeviceError, as on a GPU;
* `cuda.Device(i)` makes GPU `i` the current one, and `asarray` makes host
  values on the current GPU (recorded in `made_on`) and copies an array on
  another GPU to the current one (recorded in `moved`;
  `cupy/_creation/from_data.py`: "An array on the current device");
* `where` calls `condition.astype` (a Python bool has none;
  `cupy/_sorting/search.py`); `broadcast_arrays` leaves Python numbers as they
  are;
* `clip` has no complex loop (`cupy_clip`'s types end at 'ddd->d',
  `cupy/_core/_routines_math.pyx`): it refuses complex arrays with CuPy's
  TypeError;
* reductions refuse an axis of a 0-d array (`cupy/_core/_reduction.pyx`);
* `linalg`: `svd(a, full_matrices, compute_uv)` and `pinv(a, rcond)` have no
  `hermitian=`, `solve` does not broadcast b's batch axes, and there is no
  general `eig`/`eigvals` (nor `roots`): those raise AssertionError, as
  funcgrad must take them to the host (`cupy/linalg/_solve.py`,
  `_decomposition.py`);
* `cupyx.scipy.special` (`fake_cupyx_special`): SciPy's functions, except
  that `polygamma` keeps a Python order through `broadcast_arrays`, `yn` is
  NaN for negative orders (CUDA's), and there is no `iv`, `ive` or `jn`
  (`cupyx/scipy/special/_polygamma.py`, `_bessel.py`).

Its `linalg`, `clip` and reductions given plain NumPy arrays return plain
NumPy arrays, so the module also serves as an `xp` whose signatures are
CuPy's (tests/ops/test_linalg_gpu_paths.py); `asarray`, `where` and `empty`
make stand-in arrays, as CuPy's make CuPy arrays.

Used by tests/ops/test_{special,linalg,backend,elementwise}_gpu_paths.py,
tests/scipy/test_stats_gpu_paths.py, tests/distributed/test_self_backend_devices.py
and tests/gpu/test_devices.py.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
import scipy.special as sp

from funcgrad.backend import devices


class GpuArray(np.ndarray):
    """A NumPy array that says it lives on a GPU (`.device.id`, 0 unless made elsewhere)."""

    __module__ = "cupy"  # as cupy.ndarray's
    device = types.SimpleNamespace(id=0)

    def __array_finalize__(self, obj):
        self.device = getattr(obj, "device", GpuArray.device)

    def get(self):
        """The values on the host, as `cupy.ndarray.get()`."""
        return np.array(self.view(np.ndarray))


class NoHostArray:
    """A stand-in CuPy array that, as `cupy.ndarray`, refuses `numpy.asarray`.

    `GpuArray`, a NumPy subclass, converts silently; CuPy's `__array__` raises
    TypeError ("Implicit conversion to a NumPy array is not allowed. Please use
    `.get()` to construct a NumPy array explicitly.", `cupy/_core/core.pyx`).
    Holds its values in `.values`; `fake_cupy(..., ndarray=NoHostArray)` makes
    it the module's array type.
    """

    def __init__(self, values, index: int = 0):
        self.values = np.asarray(values)
        self.device = types.SimpleNamespace(id=index)

    shape = property(lambda self: self.values.shape)
    ndim = property(lambda self: self.values.ndim)
    dtype = property(lambda self: self.values.dtype)

    def get(self):
        """The values on the host, as `cupy.ndarray.get()`."""
        return self.values.copy()

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly."
        )


def on_gpu(a, index: int = 0) -> GpuArray:
    """`a` as a stand-in CuPy array on GPU `index`."""
    out = np.asarray(a).view(GpuArray)
    out.device = types.SimpleNamespace(id=index)
    return out


def _gpu_of(*args) -> int | None:
    """The GPU of the first stand-in array among `args` (None: only host values)."""
    return next((a.device.id for a in args if isinstance(a, GpuArray)), None)


def _like_inputs(result, *args):
    """`result` on the GPU of `args` (tuples element by element); host values for host inputs."""
    index = _gpu_of(*args)
    if index is None:
        return result
    if isinstance(result, tuple):
        return type(result)(*(_like_inputs(r, *args) for r in result))
    if isinstance(result, (np.ndarray, np.generic)):
        return on_gpu(result, index)
    return result


def _cupy_linalg() -> types.ModuleType:
    """`cupy.linalg`: NumPy's, with CuPy's signatures and without what CuPy lacks."""
    lin = types.ModuleType("cupy.linalg")
    for name in np.linalg.__all__:
        fn = getattr(np.linalg, name)
        if callable(fn) and not isinstance(fn, type):
            setattr(lin, name, lambda *a, fn=fn, **k: _like_inputs(fn(*a, **k), *a))
    lin.LinAlgError = np.linalg.LinAlgError

    def svd(a, full_matrices=True, compute_uv=True):  # no hermitian
        return _like_inputs(np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv), a)

    def pinv(a, rcond=1e-15):  # CuPy's formula (cupy/linalg/_solve.py), no hermitian
        u, s, vt = np.linalg.svd(np.asarray(a).conj(), full_matrices=False)
        cutoff = rcond * np.amax(s, axis=-1)
        leq = s <= cutoff[..., None]
        s = 1.0 / s
        s[leq] = 0
        return _like_inputs(np.matmul(vt.swapaxes(-2, -1), s[..., None] * u.swapaxes(-2, -1)), a)

    def solve(a, b):  # CuPy's shape rule: b's batch axes must be a's
        if b.ndim > 1 and a.shape[:-1] != b.shape[:-1]:
            raise ValueError(
                "a must have (..., M, M) shape and b must have (..., M, K) for multidimensional b"
            )
        return _like_inputs(np.linalg.solve(a, b), a, b)

    lin.svd, lin.pinv, lin.solve = svd, pinv, solve
    lin.eig = lin.eigvals = _host_only
    return lin


def _host_only(*args, **kwargs):
    raise AssertionError("a host-only function was called with the device module")


def _refusing_0d_axis(fn):
    def reduce(x, axis=None, **kwargs):
        if np.ndim(x) == 0 and axis is not None:
            raise np.exceptions.AxisError(axis, 0)
        return fn(x, axis=axis, **kwargs)

    return reduce


def fake_cupy(
    gpus: int = 1, error: Exception | None = None, ndarray: type = GpuArray
) -> types.ModuleType:
    """A module that is NumPy under the name `cupy`, with CuPy's quirks (module docstring).

    Args:
        gpus: What `cuda.runtime.getDeviceCount()` says.
        error: Raised by `getDeviceCount()` instead (no driver, no device).
        ndarray: The array type (`NoHostArray` for one that refuses numpy.asarray;
            the module's functions then only check types and move values).
    """
    current = [0]

    class Device:
        def __init__(self, i=0):
            self.id = i

        def __enter__(self):
            current.append(self.id)
            return self

        def __exit__(self, *exc):
            current.pop()

    def get_device_count():
        if error is not None:
            raise error
        return gpus

    fake = types.ModuleType("cupy")
    fake.__dict__.update({k: v for k, v in np.__dict__.items() if not k.startswith("__")})
    fake.__version__ = "14.2-stand-in"
    fake.ndarray = ndarray
    runtime = types.SimpleNamespace(getDeviceCount=get_device_count, getDevice=lambda: current[-1])
    fake.cuda = types.SimpleNamespace(runtime=runtime, Device=Device)
    fake.made_on = []  # the current GPU at each host-to-GPU asarray
    fake.moved = []  # (from, to) for each array asarray copied to the current GPU

    def asarray(a, dtype=None):
        if isinstance(a, GpuArray):
            if a.device.id != current[-1]:
                fake.moved.append((a.device.id, current[-1]))
                return on_gpu(np.array(a, dtype=dtype), current[-1])
            return a if dtype is None else on_gpu(a.astype(dtype), a.device.id)
        fake.made_on.append(current[-1])
        return on_gpu(np.asarray(a, dtype=dtype), current[-1])

    def where(condition, x=None, y=None):  # `_where_ufunc(condition.astype('?', copy=False), ...)`
        out = np.where(condition.astype("?", copy=False), x, y)
        index = _gpu_of(condition, x, y)
        return on_gpu(out, current[-1] if index is None else index)

    def broadcast_arrays(*args):  # arrays broadcast, Python numbers left as they are
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        index = _gpu_of(*args)
        return tuple(
            on_gpu(np.broadcast_to(a, shape), index or 0) if isinstance(a, np.ndarray) else a
            for a in args
        )

    def clip(a, a_min, a_max, out=None):
        if np.asarray(a).dtype.kind == "c":
            raise TypeError(
                f"Wrong type ({np.asarray(a).dtype}, {np.asarray(a_min).dtype}, "
                f"{np.asarray(a_max).dtype}) of arguments for cupy_clip"
            )
        return _like_inputs(np.clip(a, a_min, a_max, out=out), a)

    fake.asarray = asarray
    fake.array = lambda a, dtype=None, copy=True, order="K": asarray(
        np.array(a, dtype=dtype, copy=copy, order=order)
    )
    fake.empty = lambda shape, dtype=float: on_gpu(np.empty(shape, dtype=dtype), current[-1])
    fake.stack = lambda arrays, axis=0: _like_inputs(np.stack(arrays, axis=axis), *arrays)
    fake.asnumpy = lambda a: a.get() if isinstance(a, (GpuArray, NoHostArray)) else np.array(a)
    fake.where = where
    fake.broadcast_arrays = broadcast_arrays
    fake.clip = clip
    for name in ("sum", "prod", "max", "min", "mean", "var", "std"):
        setattr(fake, name, _refusing_0d_axis(getattr(np, name)))
    fake.linalg = _cupy_linalg()
    fake.roots = _host_only
    return fake


_NOT_IN_CUPYX = ("iv", "ive", "jn")  # CuPy 14.2's cupyx.scipy.special lacks these


def fake_cupyx_special(cupy: types.ModuleType) -> types.ModuleType:
    """`cupyx.scipy.special` of the stand-in: SciPy's functions on `GpuArray`s, CuPy's quirks."""
    module = types.ModuleType("cupyx.scipy.special")

    def polygamma(n, x):  # cupyx/scipy/special/_polygamma.py, line for line
        n, x = cupy.broadcast_arrays(n, x)
        fac2 = (-1.0) ** (n + 1) * sp.gamma(n + 1.0) * sp.zeta(n + 1.0, x)
        return cupy.where(n == 0, sp.digamma(x), fac2)

    def yn(n, x):  # CUDA's yn(n, x): NaN for n < 0
        n = np.trunc(np.asarray(n, dtype=float))
        return _like_inputs(np.where(n < 0, np.nan, sp.yn(np.abs(n), x)), x)

    def lookup(name):
        if name in _NOT_IN_CUPYX or name.startswith("__"):
            raise AttributeError(name)
        fn = getattr(sp, name)
        return lambda *args: on_gpu(fn(*args), _gpu_of(*args) or 0)

    module.polygamma = polygamma
    module.yn = yn
    module.__getattr__ = lookup
    return module


def install(monkeypatch, cupy: types.ModuleType) -> types.ModuleType:
    """Put `cupy` and its `cupyx.scipy.special` in `sys.modules` for one test; return `cupy`."""
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = types.ModuleType("cupyx.scipy")
    cupyx.scipy.special = fake_cupyx_special(cupy)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    monkeypatch.setitem(sys.modules, "cupyx.scipy", cupyx.scipy)
    monkeypatch.setitem(sys.modules, "cupyx.scipy.special", cupyx.scipy.special)
    monkeypatch.setattr(devices, "_gpu_count", [])  # funcgrad counts the GPUs again
    return cupy


# The fixtures: a test module imports the one it uses, and its tests ask for `gpu`.


@pytest.fixture(name="gpu")
def one_gpu(monkeypatch):
    """The stand-in `cupy` (one GPU) and `cupyx.scipy.special`, installed; returns `cupy`."""
    return install(monkeypatch, fake_cupy())


@pytest.fixture(name="gpu")
def two_gpus(monkeypatch):
    """The stand-in `cupy` with two GPUs, installed; returns `cupy` (`made_on`, `moved`)."""
    return install(monkeypatch, fake_cupy(gpus=2))
