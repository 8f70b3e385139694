"""The cases of the functional differential tests: one entry per public name and keyword form.

A `Case` draws an `Example`: the differentiable arguments (float arrays of
the drawn dtype) and a function `call(m, *args)` that applies the public
name, with the keywords a user passes, through the namespace `m`
(`funcgrad.numpy` or `autograd.numpy`; `m.linalg` is the linalg
namespace). Everything that is not differentiated (axes, shapes, orders,
conditions, bounds) is drawn too and closed over.

Inputs are drawn by `Gen`: half of the examples (`Gen.special`) put ties
and zeros in the arrays, where the domain allows them; shapes include 0-d
and, now and then, empty ones; the dtype is float32 or float64. Axes come
in every form users pass (`AXIS_KINDS`): None, an int, a negative int, a
tuple (empty too), a NumPy integer.

`CASES` maps a case id (`"sum[axis=tuple]"`) to its case. `EXEMPT` lists
public names with no case, each with its reason. The tests are in
`test_functional_autograd.py` (against HIPS autograd), `test_functional_fd.py`
(against central differences) and `test_functional_coverage.py`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path

import attrs
import numpy as np

from tests.strategies import Draw

# Examples per case and check (FUNCGRAD_FUZZ_EXAMPLES); 8 keeps the suite near a minute on 2 cores.
DEFAULT_EXAMPLES = 8
EXAMPLES = int(os.environ.get("FUNCGRAD_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))

DTYPES = (np.float64, np.float32)
POOL = (0.0, 0.0, 1.0, -1.0, 0.5, -0.5, 2.0)  # the ties and zeros of special examples
AXIS_KINDS = ("None", "int", "neg", "tuple", "npint")


@attrs.frozen
class Example:
    """The arguments and the call of one drawn example."""

    args: tuple  # the differentiable float arrays
    call: Callable  # call(m, *args) -> an array, or a tuple of arrays
    describe: str = ""  # the static arguments, for the failure report


@attrs.frozen
class Case:
    """One public name in one keyword form.

    Attributes:
        name: The public name under `funcgrad.numpy` (`"linalg.norm"`).
        variant: The keyword form (`"axis=tuple"`), or "".
        draw: `draw(gen) -> Example`.
        differentiable: False for names whose output is not a float (comparisons).
        smooth: Central differences are valid at ties and zeros too
            (the function is smooth there), so `test_functional_fd` draws them.
    """

    name: str
    variant: str
    draw: Callable
    differentiable: bool = True
    smooth: bool = False

    @property
    def id(self) -> str:
        return f"{self.name}[{self.variant}]" if self.variant else self.name


class Gen:
    """The drawing helper of the cases: dtype, ties and zeros, shapes, axes.

    Args:
        data: hypothesis' `data()` object.
        dtype: The float dtype of the arrays, or None to draw it.
        special: Whether to put ties and zeros in arrays, or None to draw it.
    """

    def __init__(self, data, dtype=None, special=None):
        self.d = Draw(data)
        self.dtype = np.dtype(self.d.choice(DTYPES) if dtype is None else dtype)
        self.special = self.d.boolean() if special is None else special
        self.empty = self.d.integers(0, 7) == 0  # sides of 0 now and then

    def integers(self, low, high) -> int:
        return self.d.integers(low, high)

    def choice(self, seq):
        return self.d.choice(seq)

    def boolean(self) -> bool:
        return self.d.boolean()

    def rng(self) -> np.random.Generator:
        return self.d.rng()

    def shape(self, min_dims=0, max_dims=3, max_side=3, empty=True) -> tuple:
        """Return a shape; sides may be 0 in an `empty` example."""
        low = 0 if (empty and self.empty) else 1
        ndim = self.d.integers(min_dims, max_dims)
        return tuple(self.d.integers(low, max_side) for _ in range(ndim))

    def broadcast_shapes(self, n, min_dims=0, max_dims=3) -> list:
        return self.d.broadcast_shapes(n, min_dims=min_dims, max_dims=max_dims)

    def array(self, shape, low=-2.0, high=2.0, pool=POOL, ties=True) -> np.ndarray:
        """Return an array of `shape` in `[low, high]`, with ties and zeros if special."""
        rng = self.rng()
        x = rng.uniform(low, high, size=tuple(shape))
        values = [p for p in pool if low <= p <= high]
        if self.special and ties and values and x.size:
            mask = rng.random(x.shape) < 0.5
            x = np.where(mask, rng.choice(values, size=x.shape), x)
        return np.asarray(x, dtype=self.dtype)

    def scalar(self, low=-2.0, high=2.0, pool=POOL) -> float:
        """Return a Python float in `[low, high]`, from the pool if special."""
        values = [p for p in pool if low <= p <= high]
        if self.special and values and self.d.boolean():
            return float(self.d.choice(values))
        return float(self.rng().uniform(low, high))

    def axis(self, ndim, kind, allow_empty_tuple=True):
        """Return an axis of `kind` (see `AXIS_KINDS`) for an array of `ndim` axes."""
        if kind == "None" or ndim == 0 and kind != "tuple":
            return None
        if kind == "int":
            return self.d.integers(0, ndim - 1)
        if kind == "neg":
            return self.d.integers(-ndim, -1)
        if kind == "npint":
            return self.d.choice((np.int64, np.int32, np.intp))(self.d.integers(-ndim, ndim - 1))
        low = 0 if allow_empty_tuple else min(1, ndim)
        axes = self.d.permutation(ndim)[: self.d.integers(low, ndim)]
        return tuple(a - ndim if self.d.boolean() else a for a in axes)

    def matrix(self, batch, n, spd=False) -> np.ndarray:
        """Return a well-conditioned `(*batch, n, n)` matrix (symmetric positive definite if `spd`)."""
        a = self.rng().uniform(-1.0, 1.0, size=(*batch, n, n))
        if spd:
            a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        else:
            sign = self.d.choice((1.0, -1.0))
            a = a + sign * (n + 1.0) * np.eye(n)
        return np.asarray(a, dtype=self.dtype)


CASES: dict[str, Case] = {}

# Public names of funcgrad.numpy / funcgrad.numpy.linalg that have no case, with the reason.
EXEMPT = {
    "linalg": "the namespace funcgrad.numpy.linalg: each of its names has its own entry",
    "random": "the namespace funcgrad.numpy.random: draws from funcgrad's generators, "
    "nothing to compare with a reference",
    **dict.fromkeys(
        ("shape", "size", "ndim", "isfortran", "may_share_memory", "shares_memory",
         "common_type", "iscomplexobj", "isrealobj", "min_scalar_type", "mintypecode",
         "result_type"),
        "metadata of an array (a shape, a dtype, a bool), not values: nothing to differentiate",
    ),
    **dict.fromkeys(
        ("bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift",
         "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "gcd", "lcm",
         "left_shift", "right_shift", "invert", "packbits", "unpackbits",
         "ravel_multi_index", "unravel_index"),
        "integers and bits only: NumPy's function on plain values, no float to differentiate",
    ),
    "linalg.SlogdetResult": "the named pair slogdet returns, a class: the slogdet cases cover it",
}  # fmt: skip

# Public objects that are NumPy's own (`fnp.zeros is numpy.zeros`), and classes (dtypes, ndarray):
# no funcgrad code to compare.
EXEMPT_RULE = "NumPy's own object re-exported as it is, or a class (a dtype, ndarray)"


def case(name, variant="", differentiable=True, smooth=False):
    """Register the decorated `draw(gen) -> Example` as the case `name[variant]`."""

    def register(draw):
        c = Case(name, variant, draw, differentiable, smooth)
        assert c.id not in CASES, c.id
        CASES[c.id] = c
        return draw

    return register


def _fn(m, name):
    """Return `m.<name>`, where name may be dotted (`linalg.norm`)."""
    for part in name.split("."):
        m = getattr(m, part)
    return m


# --- elementwise -------------------------------------------------------------------

# name -> (low, high): the domain the arguments are drawn from.
UNARY = {
    "negative": (-2.0, 2.0),
    "exp": (-2.0, 2.0),
    "expm1": (-2.0, 2.0),
    "log": (0.1, 3.0),
    "log1p": (-0.9, 2.0),
    "sqrt": (0.0, 3.0),
    "square": (-2.0, 2.0),
    "reciprocal": (0.2, 2.0),
    "absolute": (-2.0, 2.0),
    "abs": (-2.0, 2.0),
    "sign": (-2.0, 2.0),
    "sin": (-3.0, 3.0),
    "cos": (-3.0, 3.0),
    "tan": (-1.2, 1.2),
    "tanh": (-2.0, 2.0),
    "sinh": (-2.0, 2.0),
    "cosh": (-2.0, 2.0),
    "arcsin": (-0.9, 0.9),
    "arccos": (-0.9, 0.9),
    "arctan": (-2.0, 2.0),
    "arcsinh": (-2.0, 2.0),
    "acos": (-0.9, 0.9),
    "asin": (-0.9, 0.9),
    "asinh": (-2.0, 2.0),
    "atan": (-2.0, 2.0),
    "exp2": (-2.0, 2.0),
    "fabs": (-2.0, 2.0),
    "log10": (0.1, 3.0),
    "log2": (0.1, 3.0),
    "deg2rad": (-2.0, 2.0),
    "degrees": (-2.0, 2.0),
    "rad2deg": (-2.0, 2.0),
    "radians": (-2.0, 2.0),
    "positive": (-2.0, 2.0),
    "conj": (-2.0, 2.0),
    "conjugate": (-2.0, 2.0),
    "real": (-2.0, 2.0),
    "imag": (-2.0, 2.0),
    "copy": (-2.0, 2.0),
    "nan_to_num": (-2.0, 2.0),
    "array": (-2.0, 2.0),
    "asarray": (-2.0, 2.0),
    "asanyarray": (-2.0, 2.0),
    "ascontiguousarray": (-2.0, 2.0),
    "asarray_chkfinite": (-2.0, 2.0),
    "zeros_like": (-2.0, 2.0),
    "ones_like": (-2.0, 2.0),
    # value-only: piecewise constant, a zero derivative (autograd's too)
    "floor": (-2.0, 2.0),
    "ceil": (-2.0, 2.0),
    "rint": (-2.0, 2.0),
    "round": (-2.0, 2.0),
    "around": (-2.0, 2.0),
    "trunc": (-2.0, 2.0),
    "fix": (-2.0, 2.0),
}
SMOOTH_UNARY = {
    "negative", "exp", "expm1", "square", "sin", "cos", "tanh", "sinh", "cosh", "exp2",
    "deg2rad", "degrees", "rad2deg", "radians", "positive", "sinc", "conj", "conjugate",
    "real", "imag", "copy", "nan_to_num", "array", "asarray", "asanyarray",
    "ascontiguousarray", "asfortranarray", "asarray_chkfinite", "zeros_like", "ones_like",
}  # fmt: skip


def _unary(name, low, high):
    @case(name, smooth=name in SMOOTH_UNARY)
    def draw(g):
        x = g.array(g.shape(), low, high)
        return Example((x,), lambda m, x: _fn(m, name)(x))


for _name, (_low, _high) in UNARY.items():
    _unary(_name, _low, _high)

# name -> (low, high) of x, (low, high) of y
BINARY = {
    "add": ((-2.0, 2.0), (-2.0, 2.0)),
    "subtract": ((-2.0, 2.0), (-2.0, 2.0)),
    "multiply": ((-2.0, 2.0), (-2.0, 2.0)),
    "divide": ((-2.0, 2.0), (0.2, 2.0)),
    "true_divide": ((-2.0, 2.0), (0.2, 2.0)),
    "power": ((0.2, 2.0), (-2.0, 2.0)),
    "arctan2": ((-2.0, 2.0), (-2.0, 2.0)),
    "maximum": ((-2.0, 2.0), (-2.0, 2.0)),
    "minimum": ((-2.0, 2.0), (-2.0, 2.0)),
    "atan2": ((-2.0, 2.0), (-2.0, 2.0)),
    "pow": ((0.2, 2.0), (-2.0, 2.0)),
    "hypot": ((-2.0, 2.0), (-2.0, 2.0)),
    "logaddexp": ((-2.0, 2.0), (-2.0, 2.0)),
    "logaddexp2": ((-2.0, 2.0), (-2.0, 2.0)),
    "fmod": ((-2.0, 2.0), (0.3, 2.0)),
    "mod": ((-2.0, 2.0), (0.3, 2.0)),
    "remainder": ((-2.0, 2.0), (0.3, 2.0)),
    "floor_divide": ((-2.0, 2.0), (0.3, 2.0)),
    "heaviside": ((-2.0, 2.0), (-2.0, 2.0)),
}
SMOOTH_BINARY = {"add", "subtract", "multiply", "logaddexp", "logaddexp2"}


def _binary(name, xdom, ydom):
    @case(name, smooth=name in SMOOTH_BINARY)
    def draw(g):
        sx, sy = g.broadcast_shapes(2)
        x, y = g.array(sx, *xdom), g.array(sy, *ydom)
        return Example((x, y), lambda m, x, y: _fn(m, name)(x, y), f"shapes {sx}, {sy}")

    @case(name, "python scalar", smooth=name in SMOOTH_BINARY)
    def draw_scalar(g):
        x = g.array(g.shape(), *xdom)
        s = g.scalar(*ydom)
        if g.boolean():
            return Example((x,), lambda m, x: _fn(m, name)(x, s), f"(x, {s!r})")
        s = g.scalar(*xdom)
        y = g.array(g.shape(), *ydom)
        return Example((y,), lambda m, y: _fn(m, name)(s, y), f"({s!r}, y)")


for _name, (_xdom, _ydom) in BINARY.items():
    _binary(_name, _xdom, _ydom)


@case("power", "integer exponent")
def _power_int(g):
    x = g.array(g.shape(), -2.0, 2.0)
    k = g.choice((0, 1, 2, 3, 4, -1, -2)) if g.special else g.choice((1, 2, 3))
    if k < 0:
        x = np.where(np.abs(x) < 0.2, np.asarray(0.5, x.dtype), x)
    return Example((x,), lambda m, x: m.power(x, k), f"exponent {k}")


@case("clip")
def _clip(g):
    x = g.array(g.shape())
    lo, hi = sorted((g.scalar(), g.scalar()))
    which = g.choice(("both", "a_min", "a_max"))
    lo, hi = (lo, hi) if which == "both" else (lo, None) if which == "a_min" else (None, hi)
    if g.boolean():
        return Example((x,), lambda m, x: m.clip(x, lo, hi), f"clip(x, {lo}, {hi})")
    return Example((x,), lambda m, x: m.clip(x, a_min=lo, a_max=hi), f"a_min={lo}, a_max={hi}")


@case("where")
def _where(g):
    sc, sx, sy = g.broadcast_shapes(3)
    cond = g.rng().random(sc) < 0.5
    x, y = g.array(sx), g.array(sy)
    return Example((x, y), lambda m, x, y: m.where(cond, x, y), f"condition {cond!r}")


@case("where", "comparison condition")
def _where_compare(g):
    sx, sy = g.broadcast_shapes(2)
    x, y = g.array(sx), g.array(sy)
    return Example((x, y), lambda m, x, y: m.where(m.greater(x, y), x * y, y - x))


COMPARISONS = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")


def _comparison(name):
    @case(name, differentiable=False)
    def draw(g):
        sx, sy = g.broadcast_shapes(2)
        x, y = g.array(sx), g.array(sy)
        return Example((x, y), lambda m, x, y: _fn(m, name)(x, y))


for _name in COMPARISONS:
    _comparison(_name)


def _predicate(name):
    @case(name, differentiable=False)
    def draw(g):
        x = g.array(g.shape(), pool=(*POOL, np.inf, -np.inf, np.nan))
        return Example((x,), lambda m, x: _fn(m, name)(x))


for _name in ("isfinite", "isnan"):
    _predicate(_name)


# --- reductions ---------------------------------------------------------------------

# name -> (low, high)
REDUCTIONS = {
    "sum": (-2.0, 2.0),
    "mean": (-2.0, 2.0),
    "prod": (-2.0, 2.0),
    "max": (-2.0, 2.0),
    "amax": (-2.0, 2.0),
    "min": (-2.0, 2.0),
    "amin": (-2.0, 2.0),
}
SMOOTH_REDUCTIONS = {"sum", "mean", "prod"}
NO_IDENTITY = {"max", "amax", "min", "amin"}  # an empty reduction raises


def _keywords(g, ndim, kind):
    """Return (axis, keepdims) keywords; keepdims left out half the time."""
    axis = g.axis(ndim, kind)
    kw = {} if kind == "None" and g.boolean() else {"axis": axis}
    if g.boolean():
        kw["keepdims"] = g.boolean()
    return kw


def _reduction(name, low, high, kind):
    @case(name, f"axis={kind}", smooth=name in SMOOTH_REDUCTIONS)
    def draw(g):
        x = g.array(g.shape(empty=name not in NO_IDENTITY), low, high)
        kw = _keywords(g, x.ndim, kind)
        if kind == "None" and "axis" not in kw and not kw:
            return Example((x,), lambda m, x: _fn(m, name)(x))
        return Example((x,), lambda m, x: _fn(m, name)(x, **kw), repr(kw))


for _name, (_low, _high) in REDUCTIONS.items():
    for _kind in AXIS_KINDS:
        _reduction(_name, _low, _high, _kind)


def _moment(name, kind):
    @case(name, f"axis={kind}")
    def draw(g):
        x = g.array(g.shape(empty=False))
        kw = _keywords(g, x.ndim, kind)
        axes = kw.get("axis")
        axes = range(x.ndim) if axes is None else np.atleast_1d(axes)
        count = int(np.prod([x.shape[int(a)] for a in axes]))
        if g.boolean():
            kw["ddof"] = g.choice(tuple(range(count)))  # ddof < count: a finite moment
        return Example((x,), lambda m, x: _fn(m, name)(x, **kw), repr(kw))


for _name in ("var", "std"):
    for _kind in AXIS_KINDS:
        _moment(_name, _kind)


@case("cumsum", smooth=True)
def _cumsum(g):
    x = g.array(g.shape())
    kind = g.choice(("None", "int", "neg", "npint"))
    axis = g.axis(x.ndim, kind)
    if kind == "None" and g.boolean():
        return Example((x,), lambda m, x: m.cumsum(x))
    return Example((x,), lambda m, x: m.cumsum(x, axis=axis), f"axis={axis!r}")


# --- shapes -------------------------------------------------------------------------


@case("reshape", smooth=True)
def _reshape(g):
    x = g.array(g.shape())
    size = x.size
    divisors = [d for d in range(1, size + 1) if size % d == 0] or [1]
    d = g.choice(divisors)
    form = g.choice(("tuple", "minus one", "int", "list"))
    if form == "tuple":
        shape = (d, size // d) if size else (0, g.integers(1, 3))
    elif form == "minus one":
        shape = (d, -1) if size else (0, -1)
    elif form == "int":
        shape = size
    else:
        shape = [size]
    if size == 1 and g.boolean():
        shape = ()
    return Example((x,), lambda m, x: m.reshape(x, shape), f"shape {shape!r}")


@case("broadcast_to", smooth=True)
def _broadcast_to(g):
    x = g.array(g.shape(max_dims=2))
    shape = (g.integers(1, 3), *(s if g.boolean() or s != 1 else 3 for s in x.shape))
    return Example((x,), lambda m, x: m.broadcast_to(x, shape), f"shape {shape}")


def _axes_of(g, ndim):
    axes = g.d.permutation(ndim)
    form = g.choice(("None", "tuple", "negative", "list"))
    if form == "None":
        return None
    if form == "negative":
        return tuple(a - ndim for a in axes)
    return list(axes) if form == "list" else tuple(axes)


@case("transpose", smooth=True)
def _transpose(g):
    x = g.array(g.shape(max_dims=4))
    axes = _axes_of(g, x.ndim)
    if axes is None and g.boolean():
        return Example((x,), lambda m, x: m.transpose(x))
    return Example((x,), lambda m, x: m.transpose(x, axes), f"axes {axes!r}")


@case("permute_dims", smooth=True)
def _permute_dims(g):
    x = g.array(g.shape(max_dims=4))
    axes = _axes_of(g, x.ndim)
    return Example((x,), lambda m, x: m.permute_dims(x, axes), f"axes {axes!r}")


@case("squeeze", smooth=True)
def _squeeze(g):
    shape = list(g.shape(max_dims=4))
    ones = [i for i in range(len(shape)) if g.boolean()]
    for i in ones:
        shape[i] = 1
    x = g.array(shape)
    form = g.choice(("None", "int", "neg", "tuple", "npint"))
    if form == "None" or not ones:
        return Example((x,), lambda m, x: m.squeeze(x))
    i = g.choice(ones)
    axis = {
        "int": i,
        "neg": i - x.ndim,
        "npint": np.int64(i),
        "tuple": tuple(j for j in ones if g.boolean()),
    }[form]
    return Example((x,), lambda m, x: m.squeeze(x, axis=axis), f"axis={axis!r}")


@case("flip", smooth=True)
def _flip(g):
    x = g.array(g.shape())
    axis = g.axis(x.ndim, g.choice(AXIS_KINDS))
    return Example((x,), lambda m, x: m.flip(x, axis=axis), f"axis={axis!r}")


@case("expand_dims", smooth=True)
def _expand_dims(g):
    x = g.array(g.shape())
    n = x.ndim + 1
    form = g.choice(("int", "neg", "tuple", "npint"))
    if form == "tuple":
        k = g.integers(1, 2)
        out = x.ndim + k
        axis = tuple(a - out if g.boolean() else a for a in g.d.permutation(out)[:k])
    else:
        axis = g.axis(n, form)
    return Example((x,), lambda m, x: m.expand_dims(x, axis), f"axis={axis!r}")


@case("moveaxis", smooth=True)
def _moveaxis(g):
    x = g.array(g.shape(min_dims=1, max_dims=4))
    n = x.ndim
    if g.boolean():
        src, dst = g.integers(-n, n - 1), g.integers(-n, n - 1)
    else:
        k = g.integers(1, n)
        src = tuple(g.d.permutation(n)[:k])
        dst = tuple(g.d.permutation(n)[:k])
    return Example((x,), lambda m, x: m.moveaxis(x, src, dst), f"{src!r} -> {dst!r}")


@case("swapaxes", smooth=True)
def _swapaxes(g):
    x = g.array(g.shape(min_dims=1, max_dims=4))
    n = x.ndim
    a, b = g.integers(-n, n - 1), g.integers(-n, n - 1)
    return Example((x,), lambda m, x: m.swapaxes(x, a, b), f"axes {a}, {b}")


@case("ravel", smooth=True)
def _ravel(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.ravel(x))


def _triangle(name):
    @case(name, smooth=True)
    def draw(g):
        x = g.array(g.shape(min_dims=2, max_dims=4))
        if g.boolean():
            return Example((x,), lambda m, x: _fn(m, name)(x))
        k = g.integers(-3, 3)
        return Example((x,), lambda m, x: _fn(m, name)(x, k=k), f"k={k}")


for _name in ("tril", "triu"):
    _triangle(_name)


def _atleast(name):
    @case(name, smooth=True)
    def draw(g):
        xs = tuple(g.array(g.shape(max_dims=4)) for _ in range(g.integers(1, 3)))
        return Example(xs, lambda m, *xs: _fn(m, name)(*xs), f"{len(xs)} arrays")


for _name in ("atleast_1d", "atleast_2d", "atleast_3d"):
    _atleast(_name)


def _joined(g, min_dims, axis_of_join):
    base = list(g.shape(min_dims=min_dims, max_dims=3))
    n = g.integers(1, 3)
    shapes = []
    for _ in range(n):
        s = list(base)
        if axis_of_join is not None and s:
            s[axis_of_join] = g.integers(0 if g.empty else 1, 3)
        shapes.append(tuple(s))
    return tuple(g.array(s) for s in shapes)


@case("concatenate", smooth=True)
def _concatenate(g):
    ndim = g.integers(1, 3)
    axis = g.integers(-ndim, ndim - 1)
    base = [g.integers(1, 3) for _ in range(ndim)]
    xs = []
    for _ in range(g.integers(1, 3)):
        s = list(base)
        s[axis] = g.integers(0 if g.empty else 1, 3)
        xs.append(g.array(s))
    if g.boolean() and ndim:
        return Example(tuple(xs), lambda m, *xs: m.concatenate(xs, axis=axis), f"axis={axis}")
    if axis == 0 or axis == -ndim:
        form = g.choice(("default", "list"))
        if form == "default":
            return Example(tuple(xs), lambda m, *xs: m.concatenate(xs))
    return Example(tuple(xs), lambda m, *xs: m.concatenate(list(xs), axis), f"axis {axis}")


@case("stack", smooth=True)
def _stack(g):
    shape = g.shape()
    xs = tuple(g.array(shape) for _ in range(g.integers(1, 3)))
    n = len(shape) + 1
    axis = g.axis(n, g.choice(("int", "neg", "npint")))
    return Example(xs, lambda m, *xs: m.stack(xs, axis=axis), f"axis={axis!r}")


def _hv(name):
    @case(name, smooth=True)
    def draw(g):
        ndim = g.integers(0, 3)
        join = 0 if name == "vstack" or ndim < 2 else 1
        base = [g.integers(1, 3) for _ in range(ndim)]
        xs = []
        for _ in range(g.integers(1, 3)):
            s = list(base)
            if ndim > join:
                s[join] = g.integers(1, 3)
            xs.append(g.array(s))
        if ndim == 0 or (name == "vstack" and ndim == 1):
            xs = [g.array(base) for _ in xs]
        return Example(tuple(xs), lambda m, *xs: _fn(m, name)(list(xs)), f"{len(xs)} arrays")


for _name in ("hstack", "vstack"):
    _hv(_name)


def _split(name):
    @case(name, smooth=True)
    def draw(g):
        x = g.array(g.shape(min_dims=1, max_dims=3))
        axis = g.integers(-x.ndim, x.ndim - 1)
        n = x.shape[axis]
        if g.boolean():
            divisors = [d for d in range(1, n + 1) if n % d == 0]
            if name == "array_split" or not divisors:
                sections = g.integers(1, max(n, 1) + 1)
            else:
                sections = g.choice(divisors)
        else:
            sections = sorted(g.integers(0, n + 1) for _ in range(g.integers(0, 3)))
        if axis == 0 and g.boolean():
            return Example((x,), lambda m, x: _fn(m, name)(x, sections), f"{sections!r}")
        return Example(
            (x,), lambda m, x: _fn(m, name)(x, sections, axis=axis), f"{sections!r}, axis={axis}"
        )


for _name in ("split", "array_split"):
    _split(_name)


@case("pad", smooth=True)
def _pad(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    n = x.ndim
    form = g.choice(("int", "pair", "per axis"))
    if form == "int":
        width = g.integers(0, 2)
    elif form == "pair":
        width = (g.integers(0, 2), g.integers(0, 2))
    else:
        width = tuple((g.integers(0, 2), g.integers(0, 2)) for _ in range(n))
    if g.boolean():
        value = g.scalar()
        return Example(
            (x,), lambda m, x: m.pad(x, width, constant_values=value), f"{width!r}, {value}"
        )
    return Example((x,), lambda m, x: m.pad(x, width), f"{width!r}")


def _pad_mode(mode):
    @case("pad", f"mode={mode}", smooth=True)
    def draw(g):
        x = g.array(g.shape(min_dims=1, max_dims=2, empty=False))
        # reflect needs widths below the side; the others take any
        limit = (lambda s: min(1, s - 1)) if mode == "reflect" else (lambda s: 2)
        width = tuple((g.integers(0, limit(s)), g.integers(0, limit(s))) for s in x.shape)
        return Example((x,), lambda m, x: m.pad(x, width, mode=mode), f"{width!r}")


for _mode in ("edge", "reflect", "symmetric", "wrap"):
    _pad_mode(_mode)


# --- products -----------------------------------------------------------------------


@case("matmul", smooth=True)
def _matmul(g):
    n, k, p = g.integers(1, 3), g.integers(0 if g.empty else 1, 3), g.integers(1, 3)
    form = g.choice(("mm", "mv", "vm", "vv", "batched"))
    if form == "mm":
        sa, sb = (n, k), (k, p)
    elif form == "mv":
        sa, sb = (n, k), (k,)
    elif form == "vm":
        sa, sb = (k,), (k, p)
    elif form == "vv":
        sa, sb = (k,), (k,)
    else:
        ba, bb = g.broadcast_shapes(2, min_dims=1, max_dims=2)
        sa, sb = (*ba, n, k), (*bb, k, p)
    a, b = g.array(sa), g.array(sb)
    return Example((a, b), lambda m, a, b: m.matmul(a, b), f"{sa} @ {sb}")


@case("dot", smooth=True)
def _dot(g):
    n, k, p = g.integers(1, 3), g.integers(1, 3), g.integers(1, 3)
    sa, sb = g.choice(
        (
            ((k,), (k,)),
            ((n, k), (k, p)),
            ((n, k), (k,)),
            ((k,), (k, p)),
            ((), (n, k)),
            ((n, k), ()),
            ((2, n, k), (k,)),
            ((2, n, k), (p, k, 2)),
        )
    )
    a, b = g.array(sa), g.array(sb)
    return Example((a, b), lambda m, a, b: m.dot(a, b), f"{sa} . {sb}")


@case("inner", smooth=True)
def _inner(g):
    k = g.integers(1, 3)
    sa, sb = g.choice((((k,), (k,)), ((2, k), (k,)), ((2, k), (3, k)), ((), (2, k))))
    a, b = g.array(sa), g.array(sb)
    return Example((a, b), lambda m, a, b: m.inner(a, b), f"{sa}, {sb}")


@case("outer", smooth=True)
def _outer(g):
    a, b = g.array(g.shape(max_dims=2)), g.array(g.shape(max_dims=2))
    return Example((a, b), lambda m, a, b: m.outer(a, b), f"{a.shape}, {b.shape}")


@case("vdot", smooth=True)
def _vdot(g):
    shape = g.shape(min_dims=1)
    a = g.array(shape)
    b = g.array(shape if g.boolean() else (int(np.prod(shape)),))
    return Example((a, b), lambda m, a, b: m.vdot(a, b), f"{a.shape}, {b.shape}")


@case("tensordot", smooth=True)
def _tensordot(g):
    form = g.choice(("0", "1", "2", "default", "pairs", "int pairs"))
    i, j, k = g.integers(1, 3), g.integers(1, 3), g.integers(1, 3)
    if form == "0":
        a, b, axes = g.array((i, j)), g.array((k,)), 0
    elif form == "1":
        a, b, axes = g.array((i, j)), g.array((j, k)), 1
    elif form in ("2", "default"):
        a, b, axes = g.array((i, j, k)), g.array((j, k, 2)), 2
    elif form == "pairs":
        a, b, axes = g.array((i, j, k)), g.array((k, 2, i)), ([0, 2], [2, 0])
    else:
        a, b, axes = g.array((i, j)), g.array((k, j)), (1, 1)
    if form == "default":
        return Example((a, b), lambda m, a, b: m.tensordot(a, b), "axes default")
    return Example((a, b), lambda m, a, b: m.tensordot(a, b, axes=axes), f"axes={axes!r}")


EINSUMS = {
    "ij,jk->ik": ((2, 3), (3, 2)),
    "ij,jk": ((2, 3), (3, 2)),
    "i,i->": ((3,), (3,)),
    "i,j->ij": ((2,), (3,)),
    "ij->ji": ((2, 3),),
    "ij->": ((2, 3),),
    "ij->j": ((2, 3),),
    "bij,bjk->bik": ((2, 2, 3), (2, 3, 2)),
    "...ij,...jk->...ik": ((2, 2, 3), (3, 2)),
    "ij,ij,ij->i": ((2, 3), (2, 3), (2, 3)),
    "i,i,i": ((3,), (3,), (3,)),
}


@case("einsum", smooth=True)
def _einsum(g):
    spec = g.choice(sorted(EINSUMS))
    xs = tuple(g.array(s) for s in EINSUMS[spec])
    if g.boolean():
        return Example(xs, lambda m, *xs: m.einsum(spec, *xs), spec)
    return Example(xs, lambda m, *xs: m.einsum(spec, *xs, optimize=True), f"{spec}, optimize")


@case("einsum", "diagonal", smooth=True)
def _einsum_diagonal(g):
    spec = g.choice(("ii", "ii->i", "iij->j", "ij,ii->j"))
    n = g.integers(1, 3)
    shapes = {
        "ii": ((n, n),),
        "ii->i": ((n, n),),
        "iij->j": ((n, n, 2),),
        "ij,ii->j": ((n, 2), (n, n)),
    }
    xs = tuple(g.array(s) for s in shapes[spec])
    return Example(xs, lambda m, *xs: m.einsum(spec, *xs), spec)


# --- linalg -------------------------------------------------------------------------


def _batch(g):
    return g.shape(max_dims=2, max_side=2, empty=False)


@case("linalg.det")
def _det(g):
    a = g.matrix(_batch(g), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.det(a), f"shape {a.shape}")


@case("linalg.inv")
def _inv(g):
    a = g.matrix(_batch(g), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.inv(a), f"shape {a.shape}")


@case("linalg.solve")
def _solve(g):
    batch, n = _batch(g), g.integers(1, 3)
    a = g.matrix(batch, n)
    sb = g.choice(((*batch, n, g.integers(1, 2)), (n,) if not batch else (*batch, n, 1)))
    b = g.array(sb)
    return Example((a, b), lambda m, a, b: m.linalg.solve(a, b), f"{a.shape}, {sb}")


@case("linalg.slogdet", "logabsdet")
def _slogdet(g):
    a = g.matrix(_batch(g), g.integers(1, 3))
    if g.boolean():
        return Example((a,), lambda m, a: m.linalg.slogdet(a)[1], f"shape {a.shape}")
    return Example((a,), lambda m, a: m.linalg.slogdet(a).logabsdet, f"shape {a.shape}")


@case("linalg.slogdet", "sign", differentiable=False)
def _slogdet_sign(g):
    a = g.matrix(_batch(g), g.integers(1, 3))
    return Example((a,), lambda m, a: m.linalg.slogdet(a)[0], f"shape {a.shape}")


@case("linalg.cholesky")
def _cholesky(g):
    a = g.matrix(_batch(g), g.integers(1, 3), spd=True)
    if g.boolean():
        return Example((a,), lambda m, a: m.linalg.cholesky(a), f"shape {a.shape}")
    upper = g.boolean()
    return Example(
        (a,), lambda m, a: m.linalg.cholesky(a, upper=upper), f"{a.shape}, upper={upper}"
    )


# Vector and matrix orders: those autograd differentiates, the others, and those funcgrad refuses.
VECTOR_ORDS = (None, 2, 3, np.inf)
OTHER_VECTOR_ORDS = (1, -1, -2, 0.5, -np.inf, 0)
MATRIX_ORDS = (None, "fro")
OTHER_MATRIX_ORDS = (1, -1, np.inf, -np.inf)


def _norm_vector(variant, ords):
    @case("linalg.norm", variant)
    def draw(g):
        x = g.array(g.shape(min_dims=1, max_dims=3, empty=False))
        ord_ = g.choice(ords)
        kw = {}
        if ord_ is not None or g.boolean():
            kw["ord"] = ord_
        if x.ndim > 1 or g.boolean():
            kw["axis"] = g.axis(x.ndim, g.choice(("int", "neg", "npint")))
        if g.boolean():
            kw["keepdims"] = g.boolean()
        return Example((x,), lambda m, x: m.linalg.norm(x, **kw), repr(kw))


def _norm_matrix(variant, ords, differentiable=True):
    @case("linalg.norm", variant, differentiable=differentiable)
    def draw(g):
        x = g.array((*_batch(g)[:1], g.integers(1, 3), g.integers(1, 3)))
        ord_ = g.choice(ords)
        kw = {}
        if ord_ is not None or g.boolean():
            kw["ord"] = ord_
        if x.ndim > 2 or g.boolean():
            n = x.ndim
            a, b = g.d.permutation(n)[:2]
            kw["axis"] = (a - n if g.boolean() else a, b)
        if g.boolean():
            kw["keepdims"] = g.boolean()
        return Example((x,), lambda m, x: m.linalg.norm(x, **kw), repr(kw))


_norm_vector("vector", VECTOR_ORDS)
_norm_vector("vector, other ord", OTHER_VECTOR_ORDS)
_norm_matrix("matrix", MATRIX_ORDS)
_norm_matrix("matrix, other ord", OTHER_MATRIX_ORDS)


@case("linalg.norm", "flattened")
def _norm_all(g):
    x = g.array(g.shape(max_dims=3))
    kw = {"keepdims": g.boolean()} if g.boolean() else {}
    return Example((x,), lambda m, x: m.linalg.norm(x, **kw), repr(kw))


# --- the rest of NumPy's namespace (issue #13) ------------------------------------------

NAN_POOL = (*POOL, np.nan)


def _nan_reduction(name, kind):
    @case(name, f"axis={kind}")
    def draw(g):
        x = g.array(g.shape(min_dims=1, empty=False), pool=POOL)
        if g.special and min(x.shape) >= 2:
            # One NaN, so that no slice is all NaN (NumPy warns and gives NaN there).
            x.flat[g.integers(0, x.size - 1)] = np.nan
        axis = g.axis(x.ndim, kind, allow_empty_tuple=False)
        kw = {"axis": axis, "keepdims": g.boolean()}
        return Example((x,), lambda m, x: _fn(m, name)(x, **kw), repr(kw))


for _name in ("nansum", "nanmean", "nanmax", "nanmin"):
    for _kind in ("None", "int", "tuple"):
        _nan_reduction(_name, _kind)


@case("ptp")
def _ptp(g):
    x = g.array(g.shape(empty=False))
    kw = _keywords(g, x.ndim, g.choice(AXIS_KINDS))
    return Example((x,), lambda m, x: m.ptp(x, **kw), repr(kw))


@case("average")
def _average(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    axis = g.axis(x.ndim, g.choice(("None", "int", "neg")))
    return Example((x,), lambda m, x: m.average(x, axis=axis), f"axis={axis!r}")


@case("average", "weights")
def _average_weights(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    axis = g.axis(x.ndim, g.choice(("None", "int", "neg")))
    w = g.array(x.shape if axis is None else (x.shape[axis],), 0.5, 2.0)
    return Example((x, w), lambda m, x, w: m.average(x, axis=axis, weights=w), f"axis={axis!r}")


def _on_matrix(name, call, min_dims=2, smooth=True, describe=""):
    @case(name, smooth=smooth)
    def draw(g):
        x = g.array(g.shape(min_dims=min_dims, max_dims=max(min_dims, 3)))
        return Example((x,), lambda m, x: call(g, _fn(m, name), x), describe)


_on_matrix("fliplr", lambda g, f, x: f(x))
_on_matrix("flipud", lambda g, f, x: f(x), min_dims=1)
_on_matrix("matrix_transpose", lambda g, f, x: f(x))


@case("diagonal", smooth=True)
def _diagonal(g):
    x = g.array(g.shape(min_dims=2, max_dims=3))
    n = x.ndim
    a1, a2 = g.d.permutation(n)[:2]
    offset = g.integers(-2, 2)
    return Example(
        (x,),
        lambda m, x: m.diagonal(x, offset, a1, a2),
        f"offset {offset}, axes {a1}, {a2}",
    )


@case("trace", smooth=True)
def _trace(g):
    x = g.array(g.shape(min_dims=2, max_dims=3))
    offset = g.integers(-2, 2)
    return Example((x,), lambda m, x: m.trace(x, offset), f"offset {offset}")


def _diag(name):
    @case(name, smooth=True)
    def draw(g):
        x = g.array(g.shape(min_dims=1, max_dims=1 if name == "diagflat" else 2))
        k = g.integers(-2, 2)
        return Example((x,), lambda m, x: _fn(m, name)(x, k=k), f"k={k}")


_diag("diag")
_diag("diagflat")


@case("diff", smooth=True)
def _diff(g):
    x = g.array(g.shape(min_dims=1))
    axis = g.integers(-x.ndim, x.ndim - 1)
    n = g.integers(0, 2)
    return Example((x,), lambda m, x: m.diff(x, n=n, axis=axis), f"n={n}, axis={axis}")


@case("repeat", smooth=True)
def _repeat(g):
    x = g.array(g.shape(min_dims=1))
    axis = g.choice((None, *range(-x.ndim, x.ndim)))
    n = x.size if axis is None else x.shape[axis]
    reps = g.integers(0, 3) if g.boolean() else [g.integers(0, 2) for _ in range(n)]
    return Example((x,), lambda m, x: m.repeat(x, reps, axis=axis), f"{reps}, axis={axis}")


@case("roll", smooth=True)
def _roll(g):
    x = g.array(g.shape(min_dims=1))
    if g.boolean():
        shift = g.integers(-3, 3)
        axis = g.choice((None, *range(-x.ndim, x.ndim)))
    else:
        axis = tuple(g.d.permutation(x.ndim)[: g.integers(1, x.ndim)])
        shift = tuple(g.integers(-3, 3) for _ in axis)
    return Example((x,), lambda m, x: m.roll(x, shift, axis=axis), f"{shift}, axis={axis}")


@case("rollaxis", smooth=True)
def _rollaxis(g):
    x = g.array(g.shape(min_dims=1, max_dims=4))
    axis, start = g.integers(-x.ndim, x.ndim - 1), g.integers(0, x.ndim)
    return Example((x,), lambda m, x: m.rollaxis(x, axis, start), f"{axis}, start {start}")


@case("rot90", smooth=True)
def _rot90(g):
    x = g.array(g.shape(min_dims=2, max_dims=3))
    k = g.integers(-2, 4)
    axes = tuple(g.d.permutation(x.ndim)[:2])
    return Example((x,), lambda m, x: m.rot90(x, k, axes), f"k={k}, axes={axes}")


@case("tile", smooth=True)
def _tile(g):
    x = g.array(g.shape(max_dims=2))
    reps = g.integers(1, 2) if g.boolean() else tuple(g.integers(1, 2) for _ in range(3))
    return Example((x,), lambda m, x: m.tile(x, reps), f"reps {reps}")


@case("kron", smooth=True)
def _kron(g):
    a, b = g.array(g.shape(max_dims=2)), g.array(g.shape(max_dims=2))
    return Example((a, b), lambda m, a, b: m.kron(a, b), f"{a.shape}, {b.shape}")


@case("cross", smooth=True)
def _cross(g):
    batch = g.shape(max_dims=1, empty=False)
    a, b = g.array((*batch, 3)), g.array((*batch, 3))  # NumPy 2 deprecates 2-vectors
    return Example((a, b), lambda m, a, b: m.cross(a, b), f"{a.shape}, {b.shape}")


@case("take", smooth=True)
def _take(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    axis = g.choice((None, *range(-x.ndim, x.ndim)))
    n = x.size if axis is None else x.shape[axis]
    idx = np.asarray(g.rng().integers(-n, n, size=g.shape(max_dims=2, empty=False)))
    return Example((x,), lambda m, x: m.take(x, idx, axis=axis), f"{idx!r}, axis={axis}")


@case("take_along_axis", smooth=True)
def _take_along_axis(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    axis = g.integers(-x.ndim, x.ndim - 1)
    shape = list(x.shape)
    shape[axis] = g.integers(1, 3)
    idx = np.asarray(g.rng().integers(0, x.shape[axis], size=shape))
    return Example((x,), lambda m, x: m.take_along_axis(x, idx, axis=axis), f"{idx!r}, axis={axis}")


@case("sort")
def _sort(g):
    x = g.array(g.shape(min_dims=1))
    axis = g.choice((None, -1, *range(x.ndim)))
    return Example((x,), lambda m, x: m.sort(x, axis=axis), f"axis={axis}")


def _stack_like(name, min_dims):
    @case(name, smooth=True)
    def draw(g):
        base = [g.integers(1, 3) for _ in range(g.integers(min_dims, 3))]
        xs = tuple(g.array(base) for _ in range(g.integers(1, 3)))
        return Example(xs, lambda m, *xs: _fn(m, name)(xs), f"{len(xs)} of {base}")


for _name in ("column_stack", "row_stack", "dstack"):
    _stack_like(_name, 1)


@case("concat", smooth=True)
def _concat(g):
    shape = g.shape(min_dims=1)
    xs = tuple(g.array(shape) for _ in range(g.integers(1, 3)))
    axis = g.choice((None, *range(-len(shape), len(shape))))
    return Example(xs, lambda m, *xs: m.concat(xs, axis=axis), f"axis={axis}")


def _split_like(name, min_dims, axis):
    @case(name, smooth=True)
    def draw(g):
        shape = list(g.shape(min_dims=min_dims, max_dims=3, empty=False))
        shape[axis] = g.choice((2, 4))
        x = g.array(shape)
        sections = 2 if g.boolean() else [1]
        return Example((x,), lambda m, x: _fn(m, name)(x, sections), f"{sections}")


_split_like("hsplit", 1, 0)
_split_like("vsplit", 2, 0)
_split_like("dsplit", 3, 2)


def _spaced(name, low, high):
    @case(name, smooth=True)
    def draw(g):
        start, stop = g.array((), low, high), g.array((), low, high)
        num = g.integers(0, 5)
        kw = {"endpoint": g.boolean()} if g.boolean() else {}
        return Example(
            (start, stop), lambda m, a, b: _fn(m, name)(a, b, num, **kw), f"num {num}, {kw}"
        )


_spaced("linspace", -2.0, 2.0)
_spaced("logspace", -1.0, 1.0)
_spaced("geomspace", 0.2, 2.0)


@case("meshgrid", smooth=True)
def _meshgrid(g):
    xs = tuple(g.array((g.integers(1, 3),)) for _ in range(g.integers(1, 3)))
    indexing = g.choice(("xy", "ij"))
    return Example(xs, lambda m, *xs: m.meshgrid(*xs, indexing=indexing), indexing)


@case("full_like", smooth=True)
def _full_like(g):
    x = g.array(g.shape())
    v = g.array(())
    return Example((x, v), lambda m, x, v: m.full_like(x, v), "")


@case("full", smooth=True)
def _full(g):
    shape = g.shape()
    v = g.array(())
    return Example((v,), lambda m, v: m.full(shape, v), f"shape {shape}")


@case("empty_like", differentiable=False)
def _empty_like(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.empty_like(x).shape, "the shape: the values are undefined")


@case("sinc", smooth=True)
def _sinc(g):
    x = g.array(g.shape(), pool=(1.0, -1.0, 0.5, 2.0))  # no zeros: the "zeros" variant has them
    return Example((x,), lambda m, x: m.sinc(x))


@case("asfortranarray", smooth=True)
def _asfortranarray(g):
    x = g.array(g.shape(min_dims=1))  # 0-d: the "0-d" variant
    return Example((x,), lambda m, x: m.asfortranarray(x))


@case("sinc", "zeros", smooth=True)
def _sinc_zeros(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    x.flat[0] = 0.0
    return Example((x,), lambda m, x: m.sinc(x), "a 0 entry")


@case("heaviside", "x2 at x1 = 0", smooth=True)
def _heaviside_x2(g):
    shape = g.shape(min_dims=1, empty=False)
    x1 = np.where(g.rng().random(shape) < 0.5, 0.0, g.rng().uniform(-2, 2, shape))
    x1.flat[0] = 0.0
    x2 = g.array(shape)
    return Example((x2,), lambda m, x2: m.heaviside(x1, x2), f"x1 = {x1!r}")


@case("asfortranarray", "0-d", smooth=True)
def _asfortranarray_0d(g):
    x = g.array(())
    return Example((x,), lambda m, x: m.asfortranarray(x))


@case("histogram", "empty", differentiable=False)
def _histogram_empty(g):
    x = g.array((0,))
    return Example((x,), lambda m, x: m.histogram(x, bins=3))


# Value-only names with integer, bool or index results: values only.
def _value_only(name, args=1, call=None, pool=POOL, min_dims=0, empty=True):
    @case(name, differentiable=False)
    def draw(g):
        shapes = g.broadcast_shapes(args) if args > 1 else [g.shape(min_dims=min_dims, empty=empty)]
        xs = tuple(g.array(s, pool=pool) for s in shapes)
        f = call or (lambda m, *xs: _fn(m, name)(*xs))
        return Example(xs, f, "")


for _name in ("isinf", "isneginf", "isposinf", "isreal", "iscomplex", "signbit", "logical_not"):
    _value_only(_name, pool=(*POOL, np.inf, -np.inf, np.nan))
for _name in ("logical_and", "logical_or", "logical_xor", "isclose"):
    _value_only(_name, args=2)
for _name in ("all", "any", "count_nonzero", "nonzero", "flatnonzero", "argwhere"):
    _value_only(_name)
for _name in ("argmax", "argmin", "nanargmax", "nanargmin"):
    _value_only(_name, min_dims=1, call=lambda m, x, _n=_name: _fn(m, _n)(x, axis=-1))
for _name in ("argsort",):
    _value_only(_name, min_dims=1, call=lambda m, x: m.argsort(x, axis=-1, stable=True))
_value_only("argpartition", min_dims=1, call=lambda m, x: np.sort(m.argpartition(x, 0)))
_value_only("allclose", args=2, call=lambda m, x, y: np.asarray(m.allclose(x, y)))
_value_only("array_equal", args=2, call=lambda m, x, y: np.asarray(m.array_equal(x, y)))
_value_only("array_equiv", args=2, call=lambda m, x, y: np.asarray(m.array_equiv(x, y)))
_value_only("isin", args=2, call=lambda m, x, y: m.isin(x, y))
_value_only("spacing")
_value_only("lexsort", min_dims=2, call=lambda m, x: m.lexsort(x))
EDGES = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
_value_only("searchsorted", call=lambda m, x: m.searchsorted(EDGES, x))
_value_only("digitize", call=lambda m, x: m.digitize(x, EDGES))
_value_only("unique", call=lambda m, x: m.unique(x, return_index=True, return_counts=True))
_value_only("unique_values")
_value_only("unique_counts")
_value_only("unique_inverse")
_value_only("unique_all")
_value_only("histogram", min_dims=1, empty=False, call=lambda m, x: m.histogram(x, bins=3))
_value_only(
    "histogram_bin_edges", min_dims=1, empty=False, call=lambda m, x: m.histogram_bin_edges(x, 3)
)
_value_only("diag_indices_from", call=lambda m, x: m.diag_indices_from(np.ones((2, 2))))
_value_only("tril_indices_from", call=lambda m, x: m.tril_indices_from(np.ones((2, 3))))
_value_only("triu_indices_from", call=lambda m, x: m.triu_indices_from(np.ones((3, 2)), 1))


@case("bincount", "weights", smooth=True)
def _bincount(g):
    w = g.array((4,))
    idx = np.asarray(g.rng().integers(0, 3, size=4))
    return Example((w,), lambda m, w: m.bincount(idx, weights=w), f"{idx!r}")


# --- no autograd counterpart ----------------------------------------------------------


@case("stop_gradient")
def _stop_gradient(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.stop_gradient(x))


# Cases whose name autograd.numpy lacks: compared with a closed form and central differences.
NOT_IN_AUTOGRAD = {
    "stop_gradient": "autograd has no stop_gradient: its value is x and its derivative is 0",
}


# Each area's further cases live in a module of its own (`functional_cases_<area>.py`, which
# imports `case`, `Example`, `CASES`, `EXEMPT` and `NOT_IN_AUTOGRAD` from here), so areas can
# grow without editing one file; importing them registers their cases.
for _path in sorted(Path(__file__).parent.glob("functional_cases_*.py")):
    importlib.import_module(f"{__package__}.{_path.stem}")
