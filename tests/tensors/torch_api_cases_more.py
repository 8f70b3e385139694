"""More cases of the tensor-API differential test: linalg, fft, special, elementwise math, operators.

Registered into `torch_api_cases.API_CASES` (imported from there). The
matrix cases draw well-conditioned matrices (a multiple of the identity
added; symmetric positive-definite ones as `M M^T + n I`), so that both
libraries compute the same thing; where a result is defined only up to a
sign or phase (eigenvectors, singular vectors), the case compares what is
independent of it (`V * V`, `U @ diag(S) @ Vh`), and the gradients of that.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import numpy as np

from tests.differential.torch_cases import (
    LOG1P,
    POSITIVE,
    REAL,
    UNIT,
    WIDE,
    Domain,
    DtypeRef,
    T,
    resolve,
    values,
)
from tests.differential.torch_differences import Difference
from tests.tensors.torch_api_cases import API_DIFFERENCES, custom, function, inplace, method, op


def _lib_attr(lib, path):
    obj = lib
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def dotted(path: str, spec, **opts) -> None:
    """Add the case `torch.<path>(*args, **kwargs)` for a dotted path (`linalg.det`).

    A named tuple comes back as a plain tuple (the comparison takes PyTorch's
    named results for `(values, indices)` pairs).
    """

    def draw_fn(b):
        args, kwargs = spec(b)

        def fn(lib, ts):
            out = _lib_attr(lib, path)(*resolve(args, lib, ts), **resolve(kwargs, lib, ts))
            return tuple(out) if isinstance(out, tuple) else out

        return fn, b.describe(args, kwargs)

    custom(f"torch.{path}", draw_fn, **opts)


def _parts(lib, out):
    """Outputs with complex tensors split into real and imaginary parts (compared with tolerances)."""
    if isinstance(out, (tuple, list)):
        return tuple(p for o in out for p in _parts(lib, o))
    if hasattr(out, "dtype") and "complex" in str(out.dtype):
        return (out.real, out.imag)
    return (out,)


def complex_case(path, spec, complex_input, **opts):
    """A case whose input may be complex: drawn as real and imaginary parts, joined in the call.

    Gradients then are those of the real parts, and complex outputs are
    compared as their real and imaginary parts (with tolerances).
    """

    def draw_fn(b):
        args, kwargs = spec(b)
        x = args[0]
        cplx = complex_input(b)
        im = b.tensor(b.arrays[x.i].shape) if cplx else None

        def fn(lib, ts):
            z = ts[x.i] if im is None else ts[x.i] + ts[im.i] * 1j
            rest = resolve(args[1:], lib, ts)
            return _parts(lib, _lib_attr(lib, path)(z, *rest, **resolve(kwargs, lib, ts)))

        return fn, ("complex " if cplx else "") + b.describe(args, kwargs)

    custom(f"torch.{path}", draw_fn, **opts)


def complex_method(name, spec, complex_input, **opts):
    """`Tensor.<name>` with an input that may be complex (see `complex_case`)."""

    def draw_fn(b):
        args, kwargs = spec(b)
        x = args[0]
        cplx = complex_input(b)
        im = b.tensor(b.arrays[x.i].shape) if cplx else None

        def fn(lib, ts):
            z = ts[x.i] if im is None else ts[x.i] + ts[im.i] * 1j
            return _parts(
                lib, getattr(z, name)(*resolve(args[1:], lib, ts), **resolve(kwargs, lib, ts))
            )

        return fn, ("complex " if cplx else "") + b.describe(args, kwargs)

    custom(f"Tensor.{name}", draw_fn, **opts)


# --- matrices ----------------------------------------------------------------------------------


def _batch(b):
    return tuple(b.g.integers(1, 2) for _ in range(b.g.integers(0, 2)))


def _invertible(b, n=None):
    n = b.g.integers(1, 3) if n is None else n
    shape = (*_batch(b), n, n)
    a = values(b.g, shape, "float64", REAL, False) + 3.0 * np.eye(n)
    return b.tensor(shape, array=a.astype(b.dtype))


def _spd(b, n=None):
    n = b.g.integers(1, 3) if n is None else n
    batch = _batch(b)
    m = values(b.g, (*batch, n, n), "float64", REAL, False)
    a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
    return b.tensor((*batch, n, n), array=a.astype(b.dtype))


def _rect(b):
    shape = (*_batch(b), b.g.integers(1, 3), b.g.integers(1, 3))
    return b.tensor(shape, array=values(b.g, shape, b.dtype, REAL, False))


def _symmetric_distinct(b):
    """A symmetric matrix with well-separated eigenvalues (a stable eigenbasis)."""
    n = b.g.integers(1, 3)
    rng = b.g.rng()
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    w = np.sort(rng.uniform(-2, 2, n)) + 2.0 * np.arange(n)
    a = (q * w) @ q.T
    a = (a + a.T) / 2
    return b.tensor((n, n), array=a.astype(b.dtype))


dotted("linalg.inv", lambda b: ((_invertible(b),), {}))
dotted("linalg.inv_ex", lambda b: ((_invertible(b),), {}))
dotted("linalg.det", lambda b: ((_invertible(b),), {}))
dotted("linalg.slogdet", lambda b: ((_invertible(b),), {}))
custom(
    "torch.slogdet",
    lambda b: (lambda a: (lambda lib, ts: tuple(lib.slogdet(ts[a.i])), ""))(_invertible(b)),
)
custom(
    "Tensor.slogdet",
    lambda b: (lambda a: (lambda lib, ts: tuple(ts[a.i].slogdet()), ""))(_invertible(b)),
)
op("logdet", lambda b: ((_spd(b),), {}))
dotted("linalg.cholesky", lambda b: ((_spd(b),), {"upper": b.g.boolean()} if b.g.boolean() else {}))
dotted("linalg.cholesky_ex", lambda b: ((_spd(b),), {}))
op("cholesky", lambda b: ((_spd(b),), {"upper": b.g.boolean()} if b.g.boolean() else {}))


def _cholesky_solve(b):
    n = b.g.integers(1, 3)
    L = np.linalg.cholesky(
        (lambda m: m @ m.T + n * np.eye(n))(values(b.g, (n, n), "float64", REAL, False))
    )
    upper = b.g.boolean()
    factor = b.tensor((n, n), array=(L.T if upper else L).astype(b.dtype))
    rhs = b.tensor((n, b.g.integers(1, 2)))
    return (rhs, factor), ({"upper": True} if upper else {})


op("cholesky_solve", _cholesky_solve)
op(
    "cholesky_inverse",
    lambda b: (lambda args: ((args[0][1],), args[1]))(_cholesky_solve(b)),
)


def _solve(b):
    a = _invertible(b)
    shape = b.arrays[a.i].shape
    kind = b.g.choice(("matrix", "vector", "batch_vector", "right"))
    if kind == "vector" and len(shape) == 2:
        return (a, b.tensor((shape[-1],))), {}
    if kind == "batch_vector":
        return (a, b.tensor(shape[:-1])), {}
    if kind == "right":
        return (a, b.tensor((*shape[:-2], b.g.integers(1, 2), shape[-1]))), {"left": False}
    return (a, b.tensor((*shape[:-1], b.g.integers(1, 2)))), {}


dotted("linalg.solve", _solve)
dotted("linalg.solve_ex", _solve)


def _solve_triangular(b):
    n = b.g.integers(1, 3)
    a = values(b.g, (n, n), "float64", REAL, False) + 3.0 * np.eye(n)
    upper = b.g.boolean()
    A = b.tensor((n, n), array=a.astype(b.dtype))
    B = b.tensor((n, b.g.integers(1, 2)))
    kwargs = {"upper": upper}
    if b.g.boolean():
        kwargs["unitriangular"] = b.g.boolean()
    return (A, B), kwargs


dotted("linalg.solve_triangular", _solve_triangular)
dotted(
    "linalg.matrix_power",
    lambda b: ((_invertible(b), b.g.integers(-2, 3)), {}),
)
op("matrix_power", lambda b: ((_invertible(b), b.g.integers(0, 3)), {}))
dotted("linalg.matrix_exp", lambda b: ((_rect_square(b),), {}))
op("matrix_exp", lambda b: ((_rect_square(b),), {}))


def _rect_square(b):
    n = b.g.integers(1, 3)
    return b.tensor((n, n), array=values(b.g, (n, n), b.dtype, Domain(-1, 1), False))


def _qr(b):
    a = _rect(b)
    mode = b.g.choice(("reduced", "complete", "r"))
    return (a,), ({"mode": mode} if mode != "reduced" or b.g.boolean() else {})


def _qr_case(path):
    def draw_fn(b):
        (a,), kwargs = _qr(b)
        shape = b.arrays[a.i].shape
        if kwargs.get("mode") == "complete" and shape[-2] > shape[-1]:
            kwargs["mode"] = "reduced"  # Q's extra columns are not unique

        def fn(lib, ts):
            q, r = _lib_attr(lib, path)(ts[a.i], **kwargs)
            return q, r

        return fn, f"{shape} {kwargs}"

    return draw_fn


custom("torch.linalg.qr", _qr_case("linalg.qr"))


def _qr_old(b):
    a = _rect(b)
    shape = b.arrays[a.i].shape
    some = shape[-2] <= shape[-1] or b.g.boolean()
    return (lambda lib, ts: tuple(lib.qr(ts[a.i], some))), f"{shape} some={some}"


custom("torch.qr", _qr_old)
custom(
    "Tensor.qr", lambda b: (lambda fn_t: ((lambda lib, ts: fn_t[0](lib, ts)), fn_t[1]))(_qr_old(b))
)


def _eigh(b):
    a = _symmetric_distinct(b)
    uplo = b.g.choice(("L", "U"))

    def fn(lib, ts):
        w, v = lib.linalg.eigh(ts[a.i], UPLO=uplo)
        return w, v * v  # the eigenvectors' signs are LAPACK's choice: compare v * v

    return fn, f"UPLO={uplo}"


custom("torch.linalg.eigh", _eigh)
dotted("linalg.eigvalsh", lambda b: ((_symmetric_distinct(b),), {}))


def _eig(b):
    a = _symmetric_distinct(b)

    def fn(lib, ts):
        w = lib.linalg.eigvals(ts[a.i])
        return w.real.sort().values

    return fn, "sorted real parts of eigvals (a symmetric matrix)"


custom("torch.linalg.eigvals", _eig, grads=False)
custom(
    "torch.linalg.eig",
    lambda b: (
        lambda a: (lambda lib, ts: lib.linalg.eig(ts[a.i]).eigenvalues.real.sort().values, "")
    )(_symmetric_distinct(b)),
    grads=False,
)


def _svd(path, old=False):
    def draw_fn(b):
        a = _rect(b)
        shape = b.arrays[a.i].shape
        full = b.g.boolean() and shape[-1] == shape[-2]

        def fn(lib, ts):
            if old:
                u, s, v = _lib_attr(lib, path)(ts[a.i], some=not full)
                vh = v.transpose(-2, -1)
            else:
                u, s, vh = _lib_attr(lib, path)(ts[a.i], full_matrices=full)
            k = s.shape[-1]
            rebuilt = (u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :]
            return s, rebuilt, u[..., :k] * u[..., :k]

        return fn, f"{shape} full={full}"

    return draw_fn


custom("torch.linalg.svd", _svd("linalg.svd"))
custom("torch.svd", _svd("svd", old=True))
custom("Tensor.svd", _svd("svd", old=True))
dotted("linalg.svdvals", lambda b: ((_rect(b),), {}))
dotted(
    "linalg.pinv",
    lambda b: ((b.conditioned(_rect(b)),), {"hermitian": False} if b.g.boolean() else {}),
)
op("pinverse", lambda b: ((b.conditioned(_rect(b)),), {}))
dotted("linalg.matrix_rank", lambda b: ((_rect(b),), {}), grads=False)


def _cond(b):
    a = _invertible(b)
    p = b.g.choice((None, 2, -2, "fro", 1, math.inf))
    return ((a, p) if p is not None else (a,)), {}


dotted("linalg.cond", _cond)


def _lstsq(b):
    m, n = b.g.integers(2, 3), b.g.integers(1, 2)
    a = values(b.g, (m, n), "float64", REAL, False)
    a[:n, :n] += 3 * np.eye(n)
    A = b.tensor((m, n), array=a.astype(b.dtype))
    B = b.tensor((m, b.g.integers(1, 2)))

    def fn(lib, ts):
        r = lib.linalg.lstsq(ts[A.i], ts[B.i])
        return r.solution, r.rank

    return fn, "lstsq (solution, rank)"


custom("torch.linalg.lstsq", _lstsq)


def _vector_norm(b):
    x = b.tensor(b.shape())
    nd = b.arrays[x.i].ndim
    kwargs = {}
    if b.g.boolean():
        kwargs["ord"] = b.g.choice((1, 2, 3, 0.5, 0, math.inf, -math.inf, -1))
    which = b.g.choice(("none", "one", "tuple"))
    if which == "one":
        kwargs["dim"] = b.dim(nd, forms=("int", "neg"))
    elif which == "tuple":
        kwargs["dim"] = b.dims(nd, allow_empty=False, forms=("tuple",))
    if b.g.boolean():
        kwargs["keepdim"] = b.g.boolean()
    return (x,), kwargs


dotted("linalg.vector_norm", _vector_norm)


def _matrix_norm(b):
    x = _rect(b)
    kwargs = {}
    if b.g.boolean():
        kwargs["ord"] = b.g.choice(("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf))
    if b.g.boolean():
        kwargs["keepdim"] = b.g.boolean()
    return (x,), kwargs


dotted("linalg.matrix_norm", _matrix_norm)


def _linalg_norm(b):
    kind = b.g.choice(("vector", "matrix", "all"))
    if kind == "matrix":
        (x,), kwargs = _matrix_norm(b)
        if b.arrays[x.i].ndim > 2:
            kwargs["dim"] = (-2, -1)
        return (x,), kwargs
    if kind == "vector":
        x = b.tensor((b.g.integers(1, 4),))
        return (x,), ({"ord": b.g.choice((1, 2, math.inf, 0.5))} if b.g.boolean() else {})
    return (b.tensor(b.shape()),), {}


dotted("linalg.norm", _linalg_norm)


def _multi_dot(b):
    sizes = [b.g.integers(1, 3) for _ in range(b.g.integers(3, 5))]
    ms = [b.tensor((sizes[i], sizes[i + 1])) for i in range(len(sizes) - 1)]
    if b.g.boolean():
        ms[0] = b.tensor((sizes[1],))
    return (ms,), {}


dotted("linalg.multi_dot", _multi_dot)


def _vecdot(b):
    sx, sy = b.g.broadcast_shapes(2, 1, 3)
    return (b.tensor(sx), b.tensor(sy)), {}


dotted("linalg.vecdot", _vecdot)


def _lcross(b):
    shape = (*b.shape(max_dims=2), 3)
    return (b.tensor(shape), b.tensor(shape)), {}


dotted("linalg.cross", _lcross)
dotted(
    "linalg.diagonal",
    lambda b: ((b.tensor(b.shape(min_dims=2, max_dims=3)),), {"offset": b.g.integers(-1, 1)}),
)
dotted("linalg.matmul", lambda b: ((b.tensor((2, 3)), b.tensor((3,))), {}))
dotted("linalg.vander", lambda b: ((b.tensor((b.g.integers(1, 3),)),), {}))
dotted(
    "linalg.tensorinv",
    lambda b: (
        (b.tensor((4, 2, 2), array=(np.eye(4) * 2 + 0.1).reshape(4, 2, 2).astype(b.dtype)),),
        {"ind": 1},
    ),
)
dotted(
    "linalg.tensorsolve",
    lambda b: (
        (
            b.tensor((4, 2, 2), array=(np.eye(4) * 2 + 0.1).reshape(4, 2, 2).astype(b.dtype)),
            b.tensor((4,)),
        ),
        {},
    ),
)


# --- distances, quantiles, moments --------------------------------------------------------------


def _dist(b):
    sx, sy = b.g.broadcast_shapes(2, 0, 3)
    args = (b.tensor(sx), b.tensor(sy))
    if b.g.boolean():
        args = (*args, b.g.choice((1, 2, 3, math.inf, 0.5)))
    return args, {}


op("dist", _dist)


def _cdist(b):
    batch = b.shape(max_dims=1)
    m = b.g.integers(1, 3)
    x1 = b.tensor((*batch, b.g.integers(1, 3), m))
    x2 = b.tensor((*batch, b.g.integers(1, 3), m))
    return (x1, x2), ({"p": b.g.choice((1.0, 2.0, 3.0, math.inf))} if b.g.boolean() else {})


function("cdist", _cdist)


def _renorm(b):
    shape = b.shape(min_dims=2)
    x = b.tensor(shape)
    return (
        x,
        b.g.choice((1, 2, 3)),
        b.g.integers(0, len(shape) - 1),
        b.g.choice((0.5, 1.0, 5.0)),
    ), {}


op("renorm", _renorm, inplace_name="renorm_")


def _moment_mean(b):
    x = b.tensor(b.shape(min_dims=1))
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    if b.g.boolean():
        args = (x, b.dim(nd, forms=("int", "neg")))
    style = b.g.choice(("", "unbiased", "correction"))
    if style == "unbiased":
        kwargs["unbiased"] = b.g.boolean()
    elif style == "correction":
        kwargs["correction"] = b.g.choice((0, 1))
    if len(args) > 1 and b.g.boolean():
        kwargs["keepdim"] = b.g.boolean()
    return args, kwargs


function("std_mean", _moment_mean)
function("var_mean", _moment_mean)


@dataclass(frozen=True)
class _Grouped:
    """`take(values, index)`: an input whose tied entries are one leaf (`values[k]`) each.

    The gradient of an order statistic among tied entries is defined only up
    to which of them a sort puts first (PyTorch's default sort is not
    stable, funcgrad's is); its sum over each group of equal entries is not.
    With the distinct values as the leaf, `.grad` is that sum (take's
    backward adds up the entries of each group), so the two libraries' sums
    are compared exactly as any gradient is, and a wrong interpolation weight
    between two different values still shows.
    """

    values: T
    index: T

    def resolve(self, lib, ts):
        return lib.take(ts[self.values.i], ts[self.index.i])

    def __repr__(self):
        return f"take(t{self.values.i}, t{self.index.i})"


@dataclass(frozen=True)
class _NanConstant:
    """`where(isnan(x), x.detach(), x)`: `x` with its NaN entries constants (no gradient).

    A quantile over a slice holding NaN is NaN in both libraries; PyTorch
    passes the gradient to the NaN entries it read, funcgrad's is 0 there (a
    deliberate difference, listed in docs/api/tensor-api.md). Those entries
    made constants, both give 0 to them, and every other entry's gradient is
    compared as usual (a declared difference would let any of them pass).
    """

    x: object

    def resolve(self, lib, ts):
        t = resolve(self.x, lib, ts)
        return lib.where(lib.isnan(t), t.detach(), t)

    def __repr__(self):
        return f"nan_constant({self.x!r})"


def _quantile(b):
    shape = b.shape(min_dims=1)
    a = values(b.g, shape, b.dtype, REAL, b.ties)
    nan = bool(b.g.integers(0, 4) == 0 and a.size)
    if nan:
        a.flat[0] = np.nan
    if b.ties:  # the distinct values (NaN one of them) as the leaf: see _Grouped
        distinct, where = np.unique(a, return_inverse=True)
        leaf = b.tensor(distinct.shape, array=distinct.astype(b.dtype))
        index = b.tensor(shape, "int64", array=where.reshape(shape).astype(np.int64), grad=False)
        x = _Grouped(leaf, index)
    else:
        x = b.tensor(shape, array=a)
    if nan:
        x = _NanConstant(x)
    q = b.g.choice((0.5, 0.0, 1.0, 0.3, "t"))
    if q == "t":
        qs = np.sort(b.g.rng().uniform(0, 1, b.g.integers(1, 2))).astype(b.dtype)
        q = b.tensor(qs.shape, array=qs, grad=False)
    args, kwargs = (x, q), {}
    if b.g.boolean():
        kwargs["dim"] = b.g.integers(-len(shape), len(shape) - 1)
        if b.g.boolean():
            kwargs["keepdim"] = b.g.boolean()
    if b.g.boolean():
        kwargs["interpolation"] = b.g.choice(("linear", "lower", "higher", "midpoint", "nearest"))
    return args, kwargs


op("quantile", _quantile)
op("nanquantile", _quantile)


def _nan_reduce(b):
    x = b.tensor(b.shape())
    if b.g.integers(0, 2) == 0 and b.arrays[x.i].size:
        b.arrays[x.i].flat[0] = np.nan
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    if b.g.boolean():
        kwargs["dim"] = b.dim(nd, forms=("int", "neg"))
        if b.g.boolean():
            kwargs["keepdim"] = b.g.boolean()
    return args, kwargs


op("nansum", _nan_reduce)
op("nanmean", _nan_reduce)


def _count_nonzero(b):
    x = b.tensor(b.shape(), grad=False)
    nd = b.arrays[x.i].ndim
    if b.g.boolean():
        return (
            x,
            b.dims(nd, allow_empty=False, forms=("tuple",)) if b.g.boolean() else b.dim(nd),
        ), {}
    return (x,), {}


op("count_nonzero", _count_nonzero, grads=False)


# --- fft -----------------------------------------------------------------------------------------


def _fft1(real=None):
    def spec(b):
        shape = b.shape(min_dims=1)
        x = b.tensor(shape)
        kwargs = {}
        if b.g.boolean():
            kwargs["n"] = b.g.integers(1, 5)
        if b.g.boolean():
            kwargs["dim"] = b.g.integers(-len(shape), len(shape) - 1)
        if b.g.boolean():
            kwargs["norm"] = b.g.choice(("backward", "ortho", "forward"))
        return (x,), kwargs

    return spec


def _complex_input(real):
    """Whether a drawn input is complex: never (`real=True`), always (False), or now and then."""
    return lambda b: real is False or (real is None and b.g.boolean())


for _name, _real in (
    ("fft", None),
    ("ifft", None),
    ("rfft", True),
    ("irfft", False),
    ("hfft", False),
    ("ihfft", True),
):
    complex_case(f"fft.{_name}", _fft1(_real), _complex_input(_real))


def _fftn(two):
    def spec(b):
        shape = b.shape(min_dims=2 if two else 1)
        x = b.tensor(shape)
        kwargs = {}
        if b.g.boolean():
            k = 2 if two else b.g.integers(1, len(shape))
            dims = tuple(b.g.permutation(len(shape))[:k])
            kwargs["dim"] = dims
            if b.g.boolean():
                kwargs["s"] = tuple(b.g.integers(1, 4) for _ in dims)
        if b.g.boolean():
            kwargs["norm"] = b.g.choice(("backward", "ortho", "forward"))
        return (x,), kwargs

    return spec


for _name, _real, _two in (
    ("fft2", None, True),
    ("ifft2", False, True),
    ("rfft2", True, True),
    ("irfft2", False, True),
    ("fftn", None, False),
    ("ifftn", False, False),
    ("rfftn", True, False),
    ("irfftn", False, False),
):
    complex_case(f"fft.{_name}", _fftn(_two), _complex_input(_real))

dotted("fft.fftfreq", lambda b: ((b.g.integers(1, 5),), {"d": b.g.choice((1.0, 0.5))}), grads=False)
dotted("fft.rfftfreq", lambda b: ((b.g.integers(1, 5),), {}), grads=False)
dotted("fft.fftshift", lambda b: ((b.tensor(b.shape(min_dims=1)),), {}))
dotted(
    "fft.ifftshift",
    lambda b: ((b.tensor(b.shape(min_dims=1)),), {"dim": 0} if b.g.boolean() else {}),
)


# --- special functions and elementwise math --------------------------------------------------------

UNARY_MATH = {
    "erf": WIDE,
    "erfc": WIDE,
    "erfinv": UNIT,
    "lgamma": POSITIVE,
    "digamma": Domain(0.3, 3.0, (0.5, 1.0, 2.0)),
    "i0": WIDE,
    "sinc": WIDE,
    "log2": POSITIVE,
    "log10": POSITIVE,
    "exp2": WIDE,
    "deg2rad": WIDE,
    "rad2deg": WIDE,
    "acosh": Domain(1.2, 3.0, (1.5, 2.0)),
    "arccosh": Domain(1.2, 3.0, (1.5, 2.0)),
    "atanh": UNIT,
    "arctanh": UNIT,
    "arcsin": UNIT,
    "arccos": UNIT,
    "arctan": WIDE,
    "arcsinh": WIDE,
    "absolute": REAL,
    "negative": REAL,
    "rsqrt": Domain(0.3, 3.0, (0.5, 1.0, 2.0)),
    "frac": WIDE,
    "floor": WIDE,
    "ceil": WIDE,
    "trunc": WIDE,
    "fix": WIDE,
    "sgn": REAL,
}


def _unary_math(dom):
    def spec(b):
        if b.g.integers(0, 9) == 0:
            return (b.tensor(b.shape(), "int64", dom),), {}
        return (b.tensor(b.shape(), dom=dom),), {}

    return spec


for _name, _dom in UNARY_MATH.items():
    op(_name, _unary_math(_dom), inplace_name=_name + "_")


def _round(b):
    x = b.tensor(b.shape(), dom=Domain(-3, 3, (0.5, 1.5, 2.5, -0.5, 0.25)))
    return (x,), ({"decimals": b.g.choice((0, 1, 2))} if b.g.boolean() else {})


op("round", _round, inplace_name="round_")


def _binary_math(dom_x=REAL, dom_y=REAL, scalars=(2.0, 0.5, -1.0, 3)):
    def spec(b):
        sx, sy = b.g.broadcast_shapes(2, 0, 3)
        x = b.tensor(sx, dom=dom_x)
        kind = b.g.choice(("tensor", "tensor", "int", "scalar"))
        if kind == "scalar" and scalars:
            return (x, b.g.choice(scalars)), {}
        if kind == "int":
            return (x, b.tensor(sy, "int64", dom_y)), {}
        return (x, b.tensor(sy, dom=dom_y)), {}

    return spec


NONZERO = Domain(0.5, 2.0, (0.5, 1.0, 2.0))
for _name, _spec in {
    "xlogy": _binary_math(REAL, POSITIVE, scalars=(2.0, 0.5)),
    "logaddexp": _binary_math(scalars=()),
    "logaddexp2": _binary_math(scalars=()),
    "hypot": _binary_math(scalars=()),
    "copysign": _binary_math(),
    "fmax": _binary_math(scalars=()),
    "fmin": _binary_math(scalars=()),
    "fmod": _binary_math(REAL, NONZERO),
    "remainder": _binary_math(REAL, NONZERO),
    "nextafter": _binary_math(scalars=()),
    "arctan2": _binary_math(scalars=()),
    "multiply": _binary_math(),
    "subtract": _binary_math(),
    "divide": _binary_math(REAL, NONZERO),
    "true_divide": _binary_math(REAL, NONZERO),
    "float_power": _binary_math(POSITIVE, REAL, scalars=(2, 0.5, -1)),
}.items():
    inplace_name = None if _name in ("logaddexp", "logaddexp2", "fmax", "fmin") else _name + "_"
    op(_name, _spec, inplace_name=inplace_name)


def _rounded_div(b):
    (x, y), _ = _binary_math(REAL, NONZERO)(b)
    if b.g.integers(0, 4) == 0:
        b.arrays[x.i] = np.round(b.arrays[x.i] * 3).astype(np.int64)
        b.grads[x.i] = False
    return (x, y), {"rounding_mode": b.g.choice(("trunc", "floor"))}


function("div", _rounded_div, case_name="torch.div[rounding_mode]")
op("floor_divide", lambda b: (_rounded_div(b)[0], {}), inplace_name="floor_divide_")


def _polygamma(b):
    x = b.tensor(b.shape(), dom=Domain(0.5, 3.0, (0.5, 1.0, 2.0)))
    n = b.g.integers(0, 2)
    if b.kind in ("method", "inplace"):
        return (x, n), {}
    return (n, x), {}


function("polygamma", _polygamma)
method("polygamma", _polygamma)
inplace("polygamma_", _polygamma)


def _logit(b):
    x = b.tensor(b.shape(), dom=Domain(0.05, 0.95, (0.0, 0.5, 1.0, 0.25)))
    return (x,), ({"eps": b.g.choice((1e-6, 0.1))} if b.g.boolean() else {})


op("logit", _logit, inplace_name="logit_")


def _mvlgamma(b):
    p = b.g.integers(1, 3)
    x = b.tensor(b.shape(), dom=Domain(p, p + 2.0, (p + 0.5, p + 1.0)))
    return (x, p), {}


op("mvlgamma", _mvlgamma, inplace_name="mvlgamma_")


def _nan_to_num(b):
    x = b.tensor(b.shape())
    a = b.arrays[x.i]
    for v in (np.nan, np.inf, -np.inf):
        if a.size and b.g.boolean():
            a.flat[b.g.integers(0, a.size - 1)] = v
    kwargs = {}
    if b.g.boolean():
        kwargs["nan"] = b.g.choice((0.0, 1.5))
    if b.g.boolean():
        kwargs["posinf"] = b.g.choice((9.0, 1e3))
    if b.g.boolean():
        kwargs["neginf"] = -7.0
    return (x,), kwargs


op("nan_to_num", _nan_to_num, inplace_name="nan_to_num_")


def _compare(b):
    sx, sy = b.g.broadcast_shapes(2, 0, 3)
    x = b.tensor(sx, grad=False)
    y = b.g.choice((0.5, "t", "t", "int"))
    if y == "t":
        y = b.tensor(sy, grad=False)
    elif y == "int":
        y = b.tensor(sy, "int64", grad=False)
    return (x, y), {}


for _name in (
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
):
    op(_name, _compare, inplace_name=_name + "_", grads=False)


def _predicate(b):
    x = b.tensor(b.shape(), b.g.choice(("float32", "float64", "int64")), grad=False)
    a = b.arrays[x.i]
    if a.dtype.kind == "f":
        for v in (np.nan, np.inf, -np.inf, -0.0):
            if a.size and b.g.boolean():
                a.flat[b.g.integers(0, a.size - 1)] = v
    return (x,), {}


for _name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit"):
    op(_name, _predicate, grads=False)


def _isclose(b):
    sx, sy = b.g.broadcast_shapes(2, 0, 3)
    x = b.tensor(sx, grad=False)
    y = b.tensor(sx if b.g.boolean() else sy, grad=False)
    if b.g.boolean():
        b.arrays[y.i] = (
            (b.arrays[x.i] + 1e-6).astype(b.dtype) if sx == b.arrays[y.i].shape else b.arrays[y.i]
        )
    kwargs = {}
    if b.g.boolean():
        kwargs["rtol"] = b.g.choice((1e-5, 0.1))
    if b.g.boolean():
        kwargs["equal_nan"] = b.g.boolean()
    return (x, y), kwargs


op("isclose", _isclose, grads=False)


def _bits(b, bools=True):
    sx, sy = b.g.broadcast_shapes(2, 0, 3)
    dtype = b.g.choice(("int64", "int32", "bool") if bools else ("int64", "int32"))
    dom = Domain(0.0, 6.0, (0.0, 1.0, 3.0, 5.0))
    x = b.tensor(sx, dtype, dom, grad=False)
    if b.g.integers(0, 9) == 0:
        return (x, b.tensor(sy, dom=dom, grad=False)), {}  # float: refused
    y = b.tensor(sy, dtype, dom, grad=False) if b.g.boolean() else b.g.choice((3, 1))
    return (x, y), {}


for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    op(_name, _bits, inplace_name=_name + "_", grads=False)
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    op(_name, lambda b: _bits(b, bools=False), inplace_name=_name + "_", grads=False)
op(
    "bitwise_not",
    lambda b: ((b.tensor(b.shape(), b.g.choice(("int64", "bool", "float32")), grad=False),), {}),
    inplace_name="bitwise_not_",
    grads=False,
)


def _logical(b):
    sx, sy = b.g.broadcast_shapes(2, 0, 3)
    x = b.tensor(
        sx, b.g.choice(("bool", "float32", "int64")), Domain(-1, 1, (0.0, 1.0)), grad=False
    )
    y = b.tensor(sy, b.g.choice(("bool", "float32")), Domain(-1, 1, (0.0, 1.0)), grad=False)
    return (x, y), {}


for _name in ("logical_and", "logical_or", "logical_xor"):
    op(_name, _logical, inplace_name=_name + "_", grads=False)
op("logical_not", lambda b: (_logical(b)[0][:1], {}), inplace_name="logical_not_", grads=False)


def _real_parts(b):
    return (b.tensor(b.shape()),), {}


for _name in ("conj", "conj_physical", "resolve_conj", "resolve_neg", "angle", "real"):
    complex_case(_name, _real_parts, _complex_input(None))
    if _name != "real":
        complex_method(_name, _real_parts, _complex_input(None))
complex_case("imag", _real_parts, _complex_input(False))


def _conj_physical_(b):
    x = b.tensor(b.shape())
    im = b.tensor(b.arrays[x.i].shape)

    def fn(lib, ts):
        z = ts[x.i] + ts[im.i] * 1j
        r = z.conj_physical_()
        return z.real, z.imag, r is z

    return fn, "z.conj_physical_()"


custom("Tensor.conj_physical_", _conj_physical_)
op("positive", lambda b: ((b.tensor(b.shape(), b.g.choice((None, "bool"))),), {}))


# --- special -------------------------------------------------------------------------------------

SPECIAL = {
    "expit": WIDE,
    "erf": WIDE,
    "erfc": WIDE,
    "erfinv": UNIT,
    "gammaln": POSITIVE,
    "digamma": Domain(0.3, 3.0, (0.5, 1.0, 2.0)),
    "psi": Domain(0.3, 3.0, (0.5, 1.0, 2.0)),
    "i0": WIDE,
    "i0e": WIDE,
    "i1": WIDE,
    "i1e": WIDE,
    "ndtr": WIDE,
    "ndtri": Domain(0.05, 0.95, (0.5, 0.25)),
    "log_ndtr": WIDE,
    "entr": Domain(0.1, 3.0, (0.0, 0.5, 1.0, -1.0)),
    "sinc": WIDE,
    "log1p": LOG1P,
    "expm1": WIDE,
    "exp2": WIDE,
    "bessel_j0": WIDE,
    "bessel_j1": WIDE,
    "bessel_y0": POSITIVE,
    "bessel_y1": POSITIVE,
    "modified_bessel_i0": WIDE,
    "modified_bessel_i1": WIDE,
    "spherical_bessel_j0": WIDE,
}
for _name, _dom in SPECIAL.items():
    dotted(f"special.{_name}", _unary_math(_dom))
dotted("special.round", _round)
dotted("special.logit", _logit)
dotted("special.polygamma", lambda b: _polygamma(b))
dotted("special.multigammaln", _mvlgamma)
dotted("special.xlogy", _binary_math(REAL, POSITIVE, scalars=(2.0,)))
dotted("special.xlog1py", _binary_math(REAL, Domain(-0.5, 2.0, (0.0, 1.0)), scalars=(2.0,)))
dotted("special.gammainc", _binary_math(POSITIVE, POSITIVE, scalars=()))
dotted("special.gammaincc", _binary_math(POSITIVE, POSITIVE, scalars=()))


def _softmax_like(b):
    x = b.tensor(b.shape(min_dims=1))
    kwargs = {"dtype": DtypeRef("float64")} if b.g.boolean() else {}  # an upcast: exact
    return (x, b.dim(b.arrays[x.i].ndim, bad=False)), kwargs


dotted("special.softmax", _softmax_like)
dotted("special.log_softmax", _softmax_like)
dotted(
    "special.logsumexp",
    lambda b: (lambda x: ((x, b.dim(b.arrays[x.i].ndim, bad=False)), {}))(
        b.tensor(b.shape(min_dims=1))
    ),
)


def _namespace(module, path):
    def draw_fn(b):
        return (lambda lib, ts: sorted(n for n in getattr(lib, module).__dict__ if n == path)), path

    return draw_fn


custom("torch.linalg", _namespace("linalg", "det"), grads=False)
custom("torch.fft", _namespace("fft", "fft"), grads=False)
custom("torch.special", _namespace("special", "erf"), grads=False)
custom(
    "torch.return_types",
    lambda b: (
        (
            lambda lib, ts: (
                type(lib.sort(lib.ones(2))).__name__,
                lib.sort(lib.ones(2))._fields
                if hasattr(lib.sort(lib.ones(2)), "_fields")
                else ("values", "indices"),
            )
        ),
        "",
    ),
    grads=False,
)


# --- deliberate differences of these cases -----------------------------------------------------


def _differ(names, rule: Difference) -> None:
    """Allow `rule` for each case of `names` (added to the rules a case has already)."""
    for name in names:
        old = API_DIFFERENCES.get(name, ())
        API_DIFFERENCES[name] = (*(old if isinstance(old, tuple) else (old,)), rule)


_FFTS = (
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
    "fftn", "ifftn", "rfftn", "irfftn",
)  # fmt: skip
_differ(
    [f"torch.fft.{name}" for name in _FFTS],
    Difference(
        "accepts",
        "a transform over an empty dimension: PyTorch's MKL backend raises ('Inconsistent "
        "configuration parameters'); funcgrad returns the empty result, as NumPy",
        match=r"MKL FFT error",
    ),
)
for _aspect in ("grad", "grad2"):  # grad2: the first derivative taken with create_graph=True
    _differ(
        ("torch.fmax", "Tensor.fmax", "torch.fmin", "Tensor.fmin"),
        Difference(
            _aspect,
            "fmax/fmin at equal inputs: PyTorch gives the whole gradient to `input`; funcgrad's "
            "fmax/fmin primitives share it evenly, as maximum/minimum do in both. Only ties "
            "draw equal inputs",
            # grad2: the first derivative only (the second is 0 in both)
            match=None if _aspect == "grad" else r"^\[grad2\] autograd\.grad \d ",
            call=r"\[ties\]",
        ),
    )
_differ(
    (
        "torch.lgamma",
        "Tensor.lgamma",
        "Tensor.lgamma_",
        "torch.special.gammaln",
        "torch.digamma",
        "Tensor.digamma",
        "Tensor.digamma_",
        "torch.special.digamma",
        "torch.special.psi",
    ),  # fmt: skip
    Difference(
        "grad2",
        "at a pole of the gamma function (a non-positive integer), the second derivative is "
        "inf in funcgrad and a large finite number in PyTorch",
        match=r"np\.float64\(-?inf\) vs torch",
        call=r"\[ties\]",
    ),
)
_differ(
    ("torch.nanmean", "Tensor.nanmean"),
    Difference(
        "grad",
        "nanmean of a slice with no number: the value is NaN in both; its gradient is NaN in "
        "PyTorch, 0 in funcgrad (NaN entries take no part)",
        match=r"np\.float64\(0\.0\) vs torch np\.float64\(nan\)",
    ),
)
for _aspect in ("grad", "grad2"):  # grad2: the first derivative taken with create_graph=True
    _differ(
        ("torch.nextafter", "Tensor.nextafter", "Tensor.nextafter_"),
        Difference(
            _aspect,
            "nextafter(x, y) at x == y (where it returns y): funcgrad's gradient in x is 1 "
            "everywhere (its primitive's rule: x moved by one unit in the last place); "
            "PyTorch 2.13 gives 1 where x != y and 0 where x == y (checked: x=[1, 2], "
            "y=[1, 3] gives [0, 1]). Only ties draw x == y",
            # the first derivative in x only (y's is 0 in both, the second derivative too)
            match=r"^\[grad\] input 0 \.grad "
            if _aspect == "grad"
            else r"^\[grad2\] autograd\.grad 0 ",
            call=r"\[ties\]",
        ),
    )
_differ(
    ("torch.float_power", "Tensor.float_power", "Tensor.float_power_"),
    Difference(
        "grad2",
        "x ** y at y == 0 (x > 0), second order in y: d/dy (y * x**(y - 1)) is exactly 1/x "
        "there (central differences agree); PyTorch masks its first derivative in x with "
        "where(y == 0, 0, ...) and so gives 0 for that term (as torch.pow, see "
        "tests/differential/torch_differences.py)",
        match=r"second-order \.grad of input 1 ",
        call=r"\[ties\]",  # y == 0 exactly: the exponent's ties
    ),
)
_differ(
    ("torch.cdist",),
    Difference(
        "grad",
        "cdist with p=inf and tied largest coordinate differences: PyTorch's cdist backward "
        "gives each tied coordinate the whole gradient; funcgrad shares it, as "
        "torch.linalg.vector_norm (and funcgrad's) does",
        call=r"p=inf",
    ),
)
_differ(
    ("torch.var_mean", "torch.std_mean"),
    Difference(
        "grad2",
        "var_mean/std_mean of one element with correction 1: as torch.var (NaN in funcgrad's "
        "second derivative, None in PyTorch's)",
        match=r"np\.float64\(nan\) vs torch np\.float64\(0\.0\)",
    ),
)


# --- operators: remainders, floor division, bitwise and shifts -----------------------------------

_OPERATORS = {
    "__mod__": (operator.mod, "num"),
    "__floordiv__": (operator.floordiv, "num"),
    "__and__": (operator.and_, "bits"),
    "__or__": (operator.or_, "bits"),
    "__xor__": (operator.xor, "bits"),
    "__lshift__": (operator.lshift, "shift"),
    "__rshift__": (operator.rshift, "shift"),
}
_REFLECTED = {
    "__rmod__": (operator.mod, "num"),
    "__rfloordiv__": (operator.floordiv, "num"),
    "__rand__": (operator.and_, "bits"),
    "__ror__": (operator.or_, "bits"),
    "__rxor__": (operator.xor, "bits"),
    "__rlshift__": (operator.lshift, "shift"),
    "__rrshift__": (operator.rshift, "shift"),
}
_INPLACE_OPERATORS = {
    "__imod__": (operator.imod, "num"),
    "__ifloordiv__": (operator.ifloordiv, "num"),
    "__iand__": (operator.iand, "bits"),
    "__ior__": (operator.ior, "bits"),
    "__ixor__": (operator.ixor, "bits"),
    "__ilshift__": (operator.ilshift, "shift"),
    "__irshift__": (operator.irshift, "shift"),
}


def _operands(b, kind):
    if kind == "num":
        (x, y), _ = _binary_math(REAL, NONZERO, scalars=(2, 0.5, -3))(b)
        return x, y
    (x, y), _ = _bits(b, bools=kind == "bits")
    return x, y


def _operator_case(name, fn_op, kind, where):
    def draw_fn(b):
        x, y = _operands(b, kind)
        if where == "reflected":
            s = b.g.choice((7, 2)) if kind != "num" else b.g.choice((7.5, -3, 2))
            return (lambda lib, ts: fn_op(s, resolve(x, lib, ts))), f"{s!r} {name} t0"
        if where == "inplace":

            def fn(lib, ts):
                t = resolve(x, lib, ts)
                t = t * 1 if t.requires_grad else t.clone()
                r = fn_op(t, resolve(y, lib, ts))
                return r, r is t

            return fn, name
        return (lambda lib, ts: fn_op(resolve(x, lib, ts), resolve(y, lib, ts))), name

    custom(f"Tensor.{name}", draw_fn, grads=kind == "num")


for _name, (_fn, _kind) in _OPERATORS.items():
    _operator_case(_name, _fn, _kind, "plain")
for _name, (_fn, _kind) in _REFLECTED.items():
    _operator_case(_name, _fn, _kind, "reflected")
for _name, (_fn, _kind) in _INPLACE_OPERATORS.items():
    _operator_case(_name, _fn, _kind, "inplace")
custom(
    "Tensor.__invert__",
    lambda b: (lambda x: (lambda lib, ts: ~ts[x.i], "~t0"))(
        b.tensor(b.shape(), b.g.choice(("int64", "bool", "float32")), grad=False)
    ),
    grads=False,
)


# --- conveniences: new tensors like this one, sizes, layout, predicates --------------------------


def _new(name):
    def draw_fn(b):
        x = b.tensor(b.shape(), b.g.choice(("float32", "float64", "int64")), grad=False)
        size = b.shape(max_dims=2)
        kwargs = {}
        if b.g.boolean():
            kwargs["dtype"] = DtypeRef(b.g.choice(("float32", "float64", "int64")))
        if b.g.integers(0, 3) == 0 and "int64" not in str(kwargs.get("dtype", "")):
            kwargs["requires_grad"] = True

        def fn(lib, ts):
            t = ts[x.i]
            kw = resolve(kwargs, lib, ts)
            if kw.get("requires_grad") and "int" in str(kw.get("dtype", t.dtype)):
                kw.pop("requires_grad")
            if name == "new_full":
                out = t.new_full(size, 2.5 if "float" in str(kw.get("dtype", t.dtype)) else 3, **kw)
            elif name == "new_tensor":
                out = t.new_tensor([[1.5, 2.0]] if b.ties else [1, 2], **kw)
            elif name == "new_empty":
                out = t.new_empty(size, **kw)
                return tuple(out.shape), out.dtype, out.requires_grad
            else:
                out = getattr(t, name)(*size, **kw) if b.ties else getattr(t, name)(size, **kw)
            return out, out.requires_grad

        return fn, f"{name}({size}, {kwargs})"

    custom(f"Tensor.{name}", draw_fn, grads=False)


for _name in ("new_ones", "new_zeros", "new_full", "new_empty", "new_tensor"):
    _new(_name)


def _meta(expr, dtypes=("float32", "float64", "int64", "bool"), grads=False):
    def draw_fn(b):
        x = b.tensor(b.shape(), b.g.choice(dtypes), grad=False)
        y = b.tensor(b.g.choice((b.arrays[x.i].shape, b.shape())), b.g.choice(dtypes), grad=False)
        return (lambda lib, ts: expr(lib, ts[x.i], ts[y.i])), ""

    return draw_fn


for _name, _expr in {
    "Tensor.type_as": lambda lib, t, u: (t * 1 if t.dtype != lib.bool else t).type_as(u),
    "Tensor.element_size": lambda lib, t, u: t.element_size(),
    "Tensor.nbytes": lambda lib, t, u: t.nbytes,
    "Tensor.itemsize": lambda lib, t, u: t.itemsize,
    "Tensor.ndimension": lambda lib, t, u: t.ndimension(),
    "Tensor.is_floating_point": lambda lib, t, u: t.is_floating_point(),
    "torch.is_floating_point": lambda lib, t, u: lib.is_floating_point(t),
    "Tensor.is_complex": lambda lib, t, u: t.is_complex(),
    "torch.is_complex": lambda lib, t, u: lib.is_complex(t),
    "Tensor.is_signed": lambda lib, t, u: t.is_signed(),
    "Tensor.is_same_size": lambda lib, t, u: t.is_same_size(u),
    "torch.is_same_size": lambda lib, t, u: lib.is_same_size(t, u),
    "Tensor.is_nonzero": lambda lib, t, u: t.is_nonzero(),
    "torch.is_nonzero": lambda lib, t, u: lib.is_nonzero(t),
}.items():
    custom(_name, _meta(_expr))


def _layout(b):
    # sides of 2 or more: PyTorch's strides of size-1 dimensions are arbitrary; and views only:
    # PyTorch's elementwise results follow their inputs' layout, funcgrad's are row-major
    shape = tuple(b.g.integers(2, 4) for _ in range(b.g.integers(1, 3)))
    x = b.tensor(shape, grad=False)
    view = b.g.choice(("plain", "t", "slice", "select", "permute", "expand", "op"))

    def fn(lib, ts):
        t = ts[x.i]
        if view == "t":
            t = t.transpose(0, -1)
        elif view == "slice":
            t = t[1:]
        elif view == "select" and t.dim() > 1:  # (a 0-d element is copied out by NumPy)
            t = t[-1]
        elif view == "expand":
            t = t.unsqueeze(0).expand(2, *t.shape)
        elif view == "permute":
            t = t.permute(*reversed(range(t.dim())))
        elif view == "op":
            t = t * 2
        return t.stride(), t.storage_offset(), t.is_contiguous()

    return fn, view


custom("Tensor.stride", _layout, grads=False)
custom("Tensor.storage_offset", _layout, grads=False)


def _loop(name):
    def draw_fn(b):
        x = b.tensor(b.shape(), b.g.choice(("float32", "float64", "int64")), grad=False)
        y = b.tensor(b.arrays[x.i].shape[1:] if b.g.boolean() else b.arrays[x.i].shape, grad=False)

        def fn(lib, ts):
            t = ts[x.i].clone()
            if name == "apply_":
                r = t.apply_(lambda v: v * 2 + 1)
            else:
                r = t.map_(ts[y.i], lambda a, c: a - c)
            return t, r is t

        return fn, name

    custom(f"Tensor.{name}", draw_fn, grads=False)


_loop("apply_")
_loop("map_")


def _clone_format(b):
    x = b.tensor(b.shape())
    fmt = b.g.choice(("preserve_format", "contiguous_format"))

    def fn(lib, ts):
        return lib.clone(ts[x.i], memory_format=getattr(lib, fmt)), ts[x.i].clone(
            memory_format=getattr(lib, fmt)
        )

    return fn, fmt


custom(
    "torch.memory_format",
    lambda b: ((lambda lib, ts: repr(lib.channels_last).split(".")[-1]), ""),
    grads=False,
)
for _name in ("preserve_format", "contiguous_format", "channels_last", "channels_last_3d"):
    custom(f"torch.{_name}", _clone_format)
