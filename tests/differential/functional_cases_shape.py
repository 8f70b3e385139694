"""Differential cases of the shape, indexing, polynomial, window, set, string and file functions.

Registered on import by `functional_cases.py`. HIPS autograd differentiates
only `append` of these; it wraps the others as primitives without a
gradient, so their derivatives are compared with central differences (an
`"fd"` entry in `DIFFERENCES`, added below) and their values with NumPy.
The functions NumPy writes in place with (`put`, `place`, ...) are called
with `inplace=False` on funcgrad, and on a copy on NumPy.
"""

from __future__ import annotations

import io

import numpy as np

from tests.differential.functional_cases import Example, case
from tests.differential.functional_differences import DIFFERENCES

_NO_AUTOGRAD_GRADIENT = (
    "autograd.numpy wraps {} as a primitive with no gradient: derivatives are compared "
    "with central differences"
)


def _funcgrad(m) -> bool:
    return getattr(m, "__name__", "").startswith("funcgrad")


def _updated(m, name, arr, *args, **kwargs):
    """`m.<name>` as a function returning the updated array: out of place on funcgrad."""
    if _funcgrad(m):
        return getattr(m, name)(arr, *args, inplace=False, **kwargs)
    out = np.array(arr, copy=True)
    assert getattr(m, name)(out, *args, **kwargs) is None
    return out


# --- joining, inserting, deleting -------------------------------------------------------------


@case("append", smooth=True)
def _append(g):
    x, v = g.array(g.shape()), g.array(g.shape())
    return Example((x, v), lambda m, x, v: m.append(x, v))


@case("append", "axis", smooth=True)
def _append_axis(g):
    shape = g.shape(min_dims=1, max_dims=3)
    axis = g.integers(-len(shape), len(shape) - 1)
    other = list(shape)
    other[axis] = g.integers(0, 3)
    x, v = g.array(shape), g.array(other)
    return Example((x, v), lambda m, x, v: m.append(x, v, axis=axis), f"axis={axis}")


@case("insert", smooth=True)
def _insert(g):
    x = g.array(g.shape(min_dims=1, max_dims=2))
    k = g.integers(1, 3)
    obj = [g.integers(0, x.size) for _ in range(k)]
    v = g.array((k,))
    return Example((x, v), lambda m, x, v: m.insert(x, obj, v), f"obj={obj}")


@case("insert", "axis", smooth=True)
def _insert_axis(g):
    x = g.array(g.shape(min_dims=2, max_dims=2))
    obj = g.integers(0, x.shape[1])
    v = g.array((x.shape[0],) if g.boolean() else ())  # a column, or one value broadcast
    return Example((x, v), lambda m, x, v: m.insert(x, obj, v, axis=1), f"obj={obj}")


@case("delete", smooth=True)
def _delete(g):
    x = g.array(g.shape(min_dims=1, max_dims=3, empty=False))
    axis = g.choice((None, g.integers(0, x.ndim - 1)))
    n = x.size if axis is None else x.shape[axis]
    obj = sorted({g.integers(0, n - 1) for _ in range(g.integers(0, 2))})
    return Example((x,), lambda m, x: m.delete(x, obj, axis=axis), f"obj={obj}, axis={axis}")


@case("resize", smooth=True)
def _resize(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    new_shape = g.shape(min_dims=1, max_dims=2)
    return Example((x,), lambda m, x: m.resize(x, new_shape), f"new_shape={new_shape}")


@case("block", smooth=True)
def _block(g):
    r0, r1, c0, c1 = (g.integers(1, 2) for _ in range(4))
    a, b = g.array((r0, c0)), g.array((r0, c1))
    c, d = g.array((r1, c0)), g.array((r1, c1))
    return Example((a, b, c, d), lambda m, a, b, c, d: m.block([[a, b], [c, d]]))


@case("broadcast_arrays", smooth=True)
def _broadcast_arrays(g):
    s1, s2 = g.broadcast_shapes(2)
    return Example((g.array(s1), g.array(s2)), lambda m, x, y: m.broadcast_arrays(x, y))


@case("unstack", smooth=True)
def _unstack(g):
    x = g.array(g.shape(min_dims=1))
    axis = g.integers(-x.ndim, x.ndim - 1)
    return Example((x,), lambda m, x: m.unstack(x, axis=axis), f"axis={axis}")


@case("trim_zeros")
def _trim_zeros(g):
    x = g.array((g.integers(1, 4),))
    trim = g.choice(("f", "b", "fb"))
    front, back = np.zeros(g.integers(0, 2), x.dtype), np.zeros(g.integers(0, 2), x.dtype)
    return Example(
        (x,),
        lambda m, x: m.trim_zeros(m.concatenate([front, x, back]), trim),
        f"trim={trim!r}, zeros {front.size} in front and {back.size} at the back",
    )


# --- picking entries ----------------------------------------------------------------------------


@case("choose", smooth=True)
def _choose(g):
    shapes = g.broadcast_shapes(3)
    c0, c1 = g.array(shapes[0]), g.array(shapes[1])
    a = g.rng().integers(0, 2, size=shapes[2])
    return Example((c0, c1), lambda m, c0, c1: m.choose(a, [c0, c1]), f"a={a!r}")


@case("select", smooth=True)
def _select(g):
    s = g.broadcast_shapes(3)
    conds = [g.rng().random(s[0]) < 0.5, g.rng().random(s[1]) < 0.5]
    c0, c1, d = g.array(s[0]), g.array(s[1]), g.array(s[2])
    return Example(
        (c0, c1, d), lambda m, c0, c1, d: m.select(conds, [c0, c1], d), f"conds={conds!r}"
    )


@case("compress", smooth=True)
def _compress(g):
    x = g.array(g.shape(min_dims=1))
    axis = g.choice((None, g.integers(0, x.ndim - 1)))
    n = x.size if axis is None else x.shape[axis]
    cond = g.rng().random(g.integers(0, n)) < 0.5
    return Example((x,), lambda m, x: m.compress(cond, x, axis=axis), f"{cond!r}, axis={axis}")


@case("extract", smooth=True)
def _extract(g):
    x = g.array(g.shape())
    cond = g.rng().random(x.shape) < 0.5
    return Example((x,), lambda m, x: m.extract(cond, x), f"{cond!r}")


# --- writing entries: out of place ---------------------------------------------------------------


@case("put_along_axis", smooth=True)
def _put_along_axis(g):
    x = g.array(g.shape(min_dims=1, max_dims=2, empty=False))
    axis = g.integers(0, x.ndim - 1)
    idx_shape = list(x.shape)
    idx_shape[axis] = 1
    indices = g.rng().integers(0, x.shape[axis], size=idx_shape)
    v = g.array(idx_shape if g.boolean() else ())
    return Example(
        (x, v),
        lambda m, x, v: _updated(m, "put_along_axis", x, indices, v, axis),
        f"indices={indices!r}, axis={axis}",
    )


@case("put", smooth=True)
def _put(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    ind = sorted({g.integers(0, x.size - 1) for _ in range(g.integers(1, 3))})
    v = g.array((len(ind),))
    return Example((x, v), lambda m, x, v: _updated(m, "put", x, ind, v), f"ind={ind}")


@case("place", smooth=True)
def _place(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    mask = g.rng().random(x.shape) < 0.5
    v = g.array((g.integers(1, 3),))
    return Example((x, v), lambda m, x, v: _updated(m, "place", x, mask, v), f"{mask!r}")


@case("putmask", smooth=True)
def _putmask(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    mask = g.rng().random(x.shape) < 0.5
    v = g.array((g.integers(1, 3),))
    return Example((x, v), lambda m, x, v: _updated(m, "putmask", x, mask, v), f"{mask!r}")


@case("copyto", smooth=True)
def _copyto(g):
    dst_shape, src_shape = g.broadcast_shapes(2)
    dst_shape = np.broadcast_shapes(dst_shape, src_shape)
    where = g.rng().random(dst_shape) < 0.5
    x, v = g.array(dst_shape), g.array(src_shape)
    return Example(
        (x, v), lambda m, x, v: _updated(m, "copyto", x, v, where=where), f"where={where!r}"
    )


@case("fill_diagonal", smooth=True)
def _fill_diagonal(g):
    n = g.integers(1, 3)
    x = g.array((g.integers(1, 5), n))
    v = g.array(g.choice(((), (n,))))
    wrap = g.boolean()
    return Example(
        (x, v), lambda m, x, v: _updated(m, "fill_diagonal", x, v, wrap=wrap), f"wrap={wrap}"
    )


# --- functions of functions ---------------------------------------------------------------------


@case("apply_along_axis", smooth=True)
def _apply_along_axis(g):
    x = g.array(g.shape(min_dims=1, max_dims=3, empty=False))
    axis = g.integers(-x.ndim, x.ndim - 1)
    vector = g.boolean()

    def call(m, x):
        f = (lambda r: r * r[0]) if vector else (lambda r: m.sum(r * r))
        return m.apply_along_axis(f, axis, x)

    return Example((x,), call, f"axis={axis}, vector result {vector}")


@case("apply_over_axes", smooth=True)
def _apply_over_axes(g):
    x = g.array(g.shape(min_dims=1))
    axes = [g.integers(0, x.ndim - 1) for _ in range(g.integers(1, 2))]
    return Example((x,), lambda m, x: m.apply_over_axes(m.sum, x * x, axes), f"axes={axes}")


@case("piecewise", smooth=True)
def _piecewise(g):
    x = g.array(g.shape())
    conds = [x < 0, x > 0.5]
    otherwise = g.boolean()
    funcs = [lambda v: v * v, lambda v: -v] + ([0.25] if otherwise else [])
    return Example((x,), lambda m, x: m.piecewise(x, conds, funcs), f"conds={conds!r}")


# --- casts and products -------------------------------------------------------------------------


@case("astype", smooth=True)
def _astype(g):
    x = g.array(g.shape())
    # NOTE: to float64 or to x's own dtype: a cast that rounds (float64 to float32) has
    # central differences that are noise (the float32 case is in tests/numpy/test_shape_more.py)
    wider = g.boolean()
    return Example(
        (x,), lambda m, x: m.astype(x, np.float64 if wider else x.dtype), f"to float64 {wider}"
    )


@case("require", smooth=True)
def _require(g):
    x = g.array(g.shape())
    kind = g.choice(("none", "float64", "own"))  # no rounding cast (see astype)

    def call(m, x):
        dtype = {"none": None, "float64": np.float64, "own": x.dtype}[kind]
        return m.require(x, dtype, "C")

    return Example((x,), call, f"dtype {kind}")


@case("vecdot", smooth=True)
def _vecdot(g):
    n = g.integers(1, 3)
    s1, s2 = g.broadcast_shapes(2, max_dims=2)
    x, y = g.array((*s1, n)), g.array((*s2, n))
    return Example((x, y), lambda m, x, y: m.vecdot(x, y))


@case("vecdot", "axis", smooth=True)
def _vecdot_axis(g):
    x, y = g.array((3, 2)), g.array((3, 1))
    return Example((x, y), lambda m, x, y: m.vecdot(x, y, axis=0))


@case("matvec", smooth=True)
def _matvec(g):
    k, n = g.integers(1, 3), g.integers(1, 3)
    s1, s2 = g.broadcast_shapes(2, max_dims=2)
    a, v = g.array((*s1, k, n)), g.array((*s2, n))
    return Example((a, v), lambda m, a, v: m.matvec(a, v))


@case("vecmat", smooth=True)
def _vecmat(g):
    k, n = g.integers(1, 3), g.integers(1, 3)
    s1, s2 = g.broadcast_shapes(2, max_dims=2)
    v, a = g.array((*s1, n)), g.array((*s2, n, k))
    return Example((v, a), lambda m, v, a: m.vecmat(v, a))


@case("einsum_path", differentiable=False)
def _einsum_path(g):
    a, b, c = g.array((2, 3)), g.array((3, 4)), g.array((4, 2))

    def call(m, a, b, c):
        path, _ = m.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
        return np.asarray([i for step in path[1:] for i in step], dtype=float)

    return Example((a, b, c), call)


# --- polynomials ----------------------------------------------------------------------------------


def _coefficients(g, min_size=1):
    return g.array((g.integers(min_size, 4),))


@case("poly", smooth=True)
def _poly(g):
    return Example((g.array((g.integers(0, 4),)),), lambda m, z: m.poly(z))


@case("polyval", smooth=True)
def _polyval(g):
    p, x = _coefficients(g, 0), g.array(g.shape())
    return Example((p, x), lambda m, p, x: m.polyval(p, x))


for _name in ("polyadd", "polysub", "polymul"):
    # NOTE: polymul drops leading zeros (NumPy's poly1d): not smooth where one is 0.

    @case(_name, smooth=_name != "polymul")
    def _combine(g, _name=_name):
        a, b = _coefficients(g), _coefficients(g)
        return Example((a, b), lambda m, a, b: getattr(m, _name)(a, b))


@case("polydiv")  # not smooth: a remainder's leading zeros are dropped
def _polydiv(g):
    u = _coefficients(g)
    v = g.array((g.integers(1, 3),))
    v[0] = g.choice((1.0, -1.0)) * (1.0 + abs(v[0]))  # a leading coefficient away from 0
    # NOTE: NumPy drops the remainder's leading terms that are close to 0 (|r| <= 1e-8), so
    # in float32 it keeps rounding residues it drops in float64: compare the last len(v) - 1
    keep = max(v.size - 1, 1)

    def call(m, u, v):
        q, r = m.polydiv(u, v)
        return q, r[-keep:]

    return Example((u, v), call)


@case("polyder", smooth=True)
def _polyder(g):
    p, order = _coefficients(g), g.integers(0, 2)
    return Example((p,), lambda m, p: m.polyder(p, order), f"m={order}")


@case("polyint", smooth=True)
def _polyint(g):
    p, order = _coefficients(g), g.integers(1, 2)
    k = g.array((order,))
    return Example((p, k), lambda m, p, k: m.polyint(p, order, k), f"m={order}")


# --- windows ------------------------------------------------------------------------------------


@case("kaiser", smooth=True)
def _kaiser(g):
    size = g.integers(0, 5)
    beta = g.array((), 0.0, 4.0)
    return Example((beta,), lambda m, beta: m.kaiser(size, beta), f"M={size}")


@case("i0", smooth=True)
def _i0(g):
    return Example((g.array(g.shape()),), lambda m, x: m.i0(x))


# --- sets: entries of the inputs -------------------------------------------------------------------


def _distinct(g, *shapes):
    """Arrays of `shapes`: ties if `g.special`, else all values 0.05 apart or more.

    Central differences then cross no tie (a tie changes which values are kept).
    """
    if g.special:
        return [g.array(shape) for shape in shapes]
    sizes = [int(np.prod(shape)) for shape in shapes]
    grid = np.linspace(-2.0, 2.0, 61)[g.rng().permutation(61)[: sum(sizes)]]
    values = grid + g.rng().uniform(-0.005, 0.005, grid.size)
    cuts = np.cumsum(sizes)[:-1]
    return [
        np.asarray(v.reshape(shape), dtype=g.dtype)
        for v, shape in zip(np.split(values, cuts), shapes, strict=True)
    ]


def _set_case(name, **kwargs):
    @case(name, ",".join(f"{k}={v}" for k, v in kwargs.items()))
    def draw(g):
        x, y = _distinct(g, g.shape(), g.shape())
        # shared entries: the first of x, now and then (the sets meet)
        shared = 1 if x.size and g.boolean() else 0

        def call(m, x, y):
            y = m.concatenate([m.ravel(y), m.ravel(x)[:shared]])
            return getattr(m, name)(x, y, **kwargs)

        return Example((x, y), call, f"{shared} shared")


for _name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
    _set_case(_name)
_set_case("intersect1d", return_indices=True)
_set_case("setdiff1d", assume_unique=True)


# --- strings and files: values only --------------------------------------------------------------


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode(), dtype=np.uint8).astype(float)


for _name in ("array2string", "array_repr", "array_str"):

    @case(_name, differentiable=False)
    def _format(g, _name=_name):
        x = g.array(g.shape())
        return Example((x,), lambda m, x: _codes(getattr(m, _name)(x)))


@case("base_repr", differentiable=False)
def _base_repr(g):
    number, base = g.integers(-50, 50), g.integers(2, 16)
    x = g.array(())
    return Example((x,), lambda m, x: _codes(m.base_repr(number, base)), f"{number} {base}")


@case("binary_repr", differentiable=False)
def _binary_repr(g):
    number = g.integers(-50, 50)
    x = g.array(())
    return Example((x,), lambda m, x: _codes(m.binary_repr(number, 8)), f"{number}")


@case("save", differentiable=False)
def _save(g):
    def call(m, x):
        buffer = io.BytesIO()
        m.save(buffer, x)
        buffer.seek(0)
        return np.load(buffer)

    return Example((g.array(g.shape()),), call)


@case("savez", differentiable=False)
def _savez(g):
    def call(m, x, y):
        buffer = io.BytesIO()
        m.savez(buffer, x, y=y)
        buffer.seek(0)
        data = np.load(buffer)
        return data["arr_0"], data["y"]

    return Example((g.array(g.shape()), g.array(g.shape())), call)


DIFFERENCES.update(
    {
        (name, "fd"): _NO_AUTOGRAD_GRADIENT.format(name)
        for name in (
            "insert delete resize block broadcast_arrays unstack trim_zeros choose select "
            "compress extract put_along_axis put place putmask copyto fill_diagonal "
            "apply_along_axis apply_over_axes piecewise astype require vecdot matvec vecmat "
            "poly polyval polyadd polysub polymul polydiv polyder polyint kaiser i0 union1d "
            "intersect1d setdiff1d setxor1d"
        ).split()
    }
)
