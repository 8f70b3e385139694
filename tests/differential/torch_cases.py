"""The cases of the Tensor-layer differential fuzzer: one per public Tensor method and torch function.

A `Case` draws a `Call`: the input arrays (which become leaf tensors, the
float ones requiring grad), and `fn(lib, tensors)`, which applies the name
through `lib` (funcgrad or torch, see `torch_compare.Lib`) with the drawn
arguments. Arguments are drawn as *references* (`T(i)`: the i-th tensor,
`Dim`: a dim in one of the forms users pass, `Zd`: a 0-d tensor) and resolved
for each library, so both run the very same call.

Draws: shapes of 0 to 3 (sometimes 4) dimensions, sides 1 to 4 and now and
then an empty side; float32 or float64; half of the calls take their values
from a small set with ties and zeros (`TIES`, edges of the domain
included); `dim` as an int, a negative int, a NumPy integer, a 0-d tensor
or a tuple, now and then out of range; keywords positional or by name.

Variants: for an operation `op`, `torch.op` (function), `Tensor.op`
(method) and `Tensor.op_` (in-place) are separate cases. The in-place case
runs in one of three modes: on a non-leaf (`x * 1`, gradients flow to `x`
and to the other operands), on a leaf under `no_grad` (the value changes,
the leaf stays a leaf), on a leaf that requires grad (PyTorch raises).

`CASES` maps each case name (`"torch.sum"`, `"Tensor.sum"`, `"Tensor.add_"`,
`"Tensor.__add__"`) to its case. `EXEMPT` lists the public names that have
no case, each with its reason. `EXAMPLES` is the number of examples per
case (from `FUNCGRAD_FUZZ_EXAMPLES`, see `tests/hardening/fuzz.py`).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tests.hardening.fuzz import EXAMPLES as _FUZZ_EXAMPLES
from tests.strategies import Draw

# Examples per case: a tenth of the fuzzer's count (20 at the default 200).
EXAMPLES = max(4, int(os.environ.get("FUNCGRAD_TORCH_EXAMPLES", _FUZZ_EXAMPLES // 10)))

FLOATS = ("float32", "float64")
TIES = (-2.0, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 2.0)


@dataclass(frozen=True)
class Domain:
    """Where values are drawn: uniform in `[low, high]`, or from `ties` (with repeats)."""

    low: float = -2.0
    high: float = 2.0
    ties: tuple = TIES


REAL = Domain()
WIDE = Domain(-3.0, 3.0)
POSITIVE = Domain(0.2, 3.0, (0.0, 0.5, 1.0, 1.0, 2.0, -1.0))
UNIT = Domain(-0.95, 0.95, (-1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 1.5))
TAN = Domain(-1.3, 1.3, (-1.0, 0.0, 0.0, 0.5, 1.0))
LOG1P = Domain(-0.9, 3.0, (-1.0, -0.5, 0.0, 0.0, 1.0, 2.0))


# --- references to the drawn arguments ----------------------------------------------------


@dataclass(frozen=True)
class T:
    """The `i`-th input tensor of the call."""

    i: int

    def resolve(self, lib, ts):
        return ts[self.i]


@dataclass(frozen=True)
class Dim:
    """A dim (or tuple of dims) in the form a user passes it (`FORMS`)."""

    value: object
    form: str = "int"

    def resolve(self, lib, ts):
        v, form = self.value, self.form
        if lib.canonical or form == "int":
            return v
        if form == "numpy":
            return tuple(np.int64(d) for d in v) if isinstance(v, tuple) else np.int64(v)
        if form == "tensor":
            return lib.tensor(v)
        if form == "list":
            return list(v)
        return v

    def __repr__(self):
        return {"numpy": f"np.int64({self.value})", "tensor": f"tensor({self.value})"}.get(
            self.form, repr(self.value)
        )


@dataclass(frozen=True)
class Zd:
    """A 0-d tensor holding `value` (no grad): a bound, an exponent, a dim."""

    value: float
    dtype: str = "float32"

    def resolve(self, lib, ts):
        return lib.tensor(np.asarray(self.value, dtype=self.dtype))

    def __repr__(self):
        return f"tensor({self.value}, {self.dtype})"


@dataclass(frozen=True)
class DtypeRef:
    """A dtype, `lib.<name>` (`torch.float64` / `funcgrad.float64`)."""

    name: str

    def resolve(self, lib, ts):
        return getattr(lib, self.name)

    def __repr__(self):
        return self.name


def is_float(t) -> bool:
    """Whether a tensor (of either library) has a floating-point dtype."""
    return str(t.dtype).removeprefix("torch.").startswith(("float", "bfloat"))


def resolve(obj, lib, ts):
    """Replace the references in `obj` (nested tuples, lists, dicts) for `lib`."""
    if hasattr(obj, "resolve"):
        return obj.resolve(lib, ts)
    if isinstance(obj, tuple):
        return tuple(resolve(o, lib, ts) for o in obj)
    if isinstance(obj, list):
        return [resolve(o, lib, ts) for o in obj]
    if isinstance(obj, dict):
        return {k: resolve(v, lib, ts) for k, v in obj.items()}
    return obj


# --- calls and cases ----------------------------------------------------------------------


@dataclass
class Call:
    """One drawn call: its input arrays, which require grad, and how to apply it."""

    arrays: list
    grads: list
    fn: Callable
    text: str
    ties: bool = False
    dtypes: tuple = ()  # the dtypes the call names (dtype=torch.float32): it computes in them
    kappa: float = 1.0  # the condition number of its input matrix, where the case records it

    def floor(self) -> str:
        """The lowest float precision among the inputs and named dtypes (it bounds every result's).

        `cumprod(float64 input, dtype=torch.float32)` computes in float32, so
        it is judged at float32's tolerance.
        """
        kinds = {str(a.dtype) for a in self.arrays} | set(self.dtypes)
        return "float32" if kinds & {"float32", "float16"} or not kinds & {"float64"} else "float64"

    def cotangent(self, g: Draw, shape, dtype) -> np.ndarray:
        """Draw a cotangent (or second-order weight), with zeros when the call has ties."""
        if dtype not in FLOATS:
            dtype = "float64" if dtype == "float64" else "float32"
        return values(g, shape, dtype, REAL, self.ties)


@dataclass(frozen=True)
class Case:
    """A case of the fuzzer: a name (`torch.sum`, `Tensor.add_`) and how to draw a call."""

    name: str
    draw: Callable[[Draw], Call]
    grads: bool = True
    order2: bool = True
    unspecified: Callable | None = None  # a validity check instead of equality
    note: str = ""


def values(g: Draw, shape, dtype, dom: Domain = REAL, ties: bool = False) -> np.ndarray:
    """Draw an array: uniform in the domain, or (`ties`) from its tie values."""
    rng = g.rng()
    shape = tuple(shape)
    if ties:
        a = rng.choice(np.asarray(dom.ties, dtype=np.float64), size=shape)
    else:
        a = rng.uniform(dom.low, dom.high, size=shape)
    if np.dtype(dtype).kind in "iu":
        a = np.round(a * 2)
    return np.asarray(a, dtype=dtype)


class Builder:
    """Collects the input arrays of one call while its arguments are drawn."""

    def __init__(self, g: Draw, kind: str = "custom"):
        self.g = g
        self.kind = kind  # "function", "method", "inplace" or "custom": forms differ
        self.arrays: list = []
        self.grads: list = []
        self.ties = g.boolean()
        self.dtype = g.choice(FLOATS)
        self.named_dtypes: tuple = ()
        self.kappa = 1.0

    def tensor(self, shape, dtype=None, dom: Domain = REAL, grad=None, array=None) -> T:
        """Add an input tensor and return its reference."""
        dtype = dtype or self.dtype
        a = values(self.g, shape, dtype, dom, self.ties) if array is None else array
        self.arrays.append(a)
        if grad is None:
            grad = np.dtype(a.dtype).kind == "f"
        self.grads.append(bool(grad))
        return T(len(self.arrays) - 1)

    def shape(self, min_dims=0, max_dims=3, empty=True, max_side=4) -> tuple:
        g = self.g
        nd = g.integers(min_dims, max_dims)
        sides = [g.integers(1, max_side) for _ in range(nd)]
        if empty and nd and g.integers(0, 9) == 0:
            sides[g.integers(0, nd - 1)] = 0
        return tuple(sides)

    def dim(self, ndim, forms=("int", "neg", "numpy", "tensor"), bad=True) -> Dim:
        """Draw one dim of a tensor of `ndim` dimensions (out of range 1 time in 12)."""
        g = self.g
        n = max(ndim, 1)
        if bad and g.integers(0, 11) == 0:
            d = g.choice((n, -n - 1, n + 2))
        else:
            d = g.integers(0, n - 1)
        form = g.choice(forms)
        if form == "neg" and d >= 0:
            d -= n
        return Dim(d, "int" if form == "neg" else form)

    def dims(self, ndim, allow_empty=True, forms=("tuple", "tuple", "list", "numpy")) -> Dim:
        """Draw a tuple of distinct dims (sometimes empty, sometimes with a repeat)."""
        g = self.g
        n = max(ndim, 1)
        k = g.integers(0 if allow_empty else 1, n)
        chosen = g.permutation(n)[:k]
        out = [d - n if g.boolean() else d for d in chosen]
        if out and g.integers(0, 11) == 0:
            out.append(out[0])  # a repeated dim: PyTorch refuses
        form = g.choice(forms)
        return Dim(
            tuple(out), "list" if form == "list" else ("numpy" if form == "numpy" else "int")
        )

    def call(self, fn, text) -> Call:
        return Call(self.arrays, self.grads, fn, text, self.ties, self.named_dtypes, self.kappa)

    def conditioned(self, t: T, rcond: float = 1e-15) -> T:
        """Record the condition number of the matrix (or stack) `t` for the tolerance; return `t`.

        For inverse-like operations (pinverse), whose float32 results lose
        digits as the condition number grows (`torch_compare.conditioned_rtol`).
        The condition number is the one pinv computes with
        (`torch_compare.effective_kappa`: singular values at most `rcond`
        times the largest dropped, `torch.pinverse`'s default); a draw beyond
        `torch_compare.kappa_limit` of its dtype (rounding noise inverted,
        no digit left in the second order) is skipped (`hypothesis.assume`).
        """
        from hypothesis import assume

        from tests.differential.torch_compare import effective_kappa, kappa_limit

        a = self.arrays[t.i]
        dtype = a.dtype if np.dtype(a.dtype).kind == "f" else np.float64
        k = effective_kappa(a, dtype, rcond)
        assume(k <= kappa_limit(dtype))
        self.kappa = max(self.kappa, k)
        return t

    def describe(self, args, kwargs) -> str:
        """The call's text; also notes the dtypes it names (`Call.floor`), which `call` passes on."""
        self.named_dtypes = tuple(_named_dtypes((args, kwargs)))

        def show(o):
            if isinstance(o, T):
                a = self.arrays[o.i]
                return f"t{o.i}:{a.dtype}{list(a.shape)}" + ("~" if self.grads[o.i] else "")
            if isinstance(o, tuple) and any(isinstance(x, T) for x in o):
                return "(" + ", ".join(show(x) for x in o) + ")"
            if isinstance(o, list) and any(isinstance(x, T) for x in o):
                return "[" + ", ".join(show(x) for x in o) + "]"
            return repr(o)

        parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
        arrays = "; ".join(
            f"t{i}={np.array2string(a, precision=4, threshold=40)}"
            for i, a in enumerate(self.arrays)
        )
        return "(" + ", ".join(parts) + ")  " + arrays + (" [ties]" if self.ties else "")


def _named_dtypes(obj):
    """The names of the `DtypeRef`s in `obj` (nested tuples, lists, dicts)."""
    if isinstance(obj, DtypeRef):
        yield obj.name
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _named_dtypes(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _named_dtypes(o)


# A spec draws the arguments of an operation: `spec(b) -> (args, kwargs)`, args[0] the input.
Spec = Callable[[Builder], tuple]

CASES: dict[str, Case] = {}


def _add(case: Case) -> None:
    assert case.name not in CASES, case.name
    CASES[case.name] = case


def function(name: str, spec: Spec, **opts) -> None:
    """Add the case `torch.<name>(*args, **kwargs)`."""

    def draw(g):
        b = Builder(g, "function")
        args, kwargs = spec(b)

        def fn(lib, ts):
            return getattr(lib, name)(*resolve(args, lib, ts), **resolve(kwargs, lib, ts))

        return b.call(fn, f"torch.{name}" + b.describe(args, kwargs))

    _add(Case(f"torch.{name}", draw, **opts))


def method(name: str, spec: Spec, **opts) -> None:
    """Add the case `args[0].<name>(*args[1:], **kwargs)`."""

    def draw(g):
        b = Builder(g, "method")
        args, kwargs = spec(b)

        def fn(lib, ts):
            self, *rest = resolve(args, lib, ts)
            return getattr(self, name)(*rest, **resolve(kwargs, lib, ts))

        return b.call(fn, f"Tensor.{name}" + b.describe(args, kwargs))

    _add(Case(f"Tensor.{name}", draw, **opts))


def inplace(name: str, spec: Spec, **opts) -> None:
    """Add the case `Tensor.<name>` (in place), in its three modes (see the module docstring)."""

    def draw(g):
        b = Builder(g, "inplace")
        args, kwargs = spec(b)
        x = args[0]
        mode = g.choice(("nonleaf", "nonleaf", "leaf_no_grad", "leaf_grad"))
        if mode == "leaf_no_grad" and g.boolean():
            # an integer tensor: PyTorch refuses results it cannot cast back
            a = b.arrays[x.i]
            b.arrays[x.i] = np.round(a * 2).astype(np.int64)
            b.grads[x.i] = False
        if mode == "leaf_grad" and not b.grads[x.i]:
            mode = "nonleaf"

        def fn(lib, ts):
            rest = resolve(args[1:], lib, ts)
            kw = resolve(kwargs, lib, ts)
            t = ts[x.i]
            if mode == "nonleaf":
                y = t * 1
                r = getattr(y, name)(*rest, **kw)
                return y, r is y, y.is_leaf
            if mode == "leaf_no_grad":
                with lib.no_grad():
                    r = getattr(t, name)(*rest, **kw)
                return t * 1, r is t, t.is_leaf, t.requires_grad
            r = getattr(t, name)(*rest, **kw)  # PyTorch: "a leaf Variable that requires grad"
            return t * 1, r is t

        return b.call(fn, f"[{mode}] Tensor.{name}" + b.describe(args, kwargs))

    _add(Case(f"Tensor.{name}", draw, **opts))


def op(name: str, spec: Spec, *, inplace_name: str | None = None, **opts) -> None:
    """Add `torch.<name>` and `Tensor.<name>` (each if funcgrad has it) and the in-place method."""
    import funcgrad

    if name in funcgrad.__all__:
        function(name, spec, **opts)
    if hasattr(funcgrad.Tensor, name):
        method(name, spec, **opts)
    if inplace_name and hasattr(funcgrad.Tensor, inplace_name):
        inplace(inplace_name, spec, **opts)


def one(expr, max_dims=3, dtypes=None):
    """A `custom` draw: one input tensor `t`, and the call `expr(lib, t)`."""

    def draw_fn(b):
        dtype = b.g.choice(dtypes) if dtypes else None
        x = b.tensor(b.shape(max_dims=max_dims), dtype)
        return (lambda lib, ts: expr(lib, ts[x.i])), ""

    return draw_fn


def custom(name: str, draw_fn: Callable[[Builder], tuple], **opts) -> None:
    """Add a case whose call is written out: `draw_fn(b) -> (fn(lib, ts), text)`."""

    def draw(g):
        b = Builder(g)
        fn, text = draw_fn(b)
        return b.call(fn, f"{name}: {text}  " + b.describe((), {}))

    _add(Case(name, draw, **opts))


# === the table ============================================================================

# --- elementwise, one input ---------------------------------------------------------------

UNARY = {
    "abs": REAL,
    "acos": UNIT,
    "asin": UNIT,
    "asinh": WIDE,
    "atan": WIDE,
    "cos": WIDE,
    "cosh": WIDE,
    "exp": WIDE,
    "expm1": WIDE,
    "log": POSITIVE,
    "log1p": LOG1P,
    "neg": REAL,
    "reciprocal": Domain(0.3, 3.0, TIES),
    "relu": REAL,
    "sigmoid": WIDE,
    "sign": REAL,
    "sin": WIDE,
    "sinh": WIDE,
    "sqrt": POSITIVE,
    "square": REAL,
    "tan": TAN,
    "tanh": WIDE,
}


def _unary(dom):
    def spec(b):
        if b.g.integers(0, 9) == 0:
            return (b.tensor(b.shape(), "int64", dom),), {}
        return (b.tensor(b.shape(), dom=dom),), {}

    return spec


for _name, _dom in UNARY.items():
    op(_name, _unary(_dom), inplace_name=_name + "_")


# --- elementwise, two inputs ---------------------------------------------------------------


def _other(b, shape, dom=REAL, scalars=(2.0, 0.5, -1.0, 0.0, 3, 1)):
    """The second operand: a tensor (same or other dtype), a 0-d tensor or a Python number."""
    kind = b.g.choice(("tensor", "tensor", "tensor", "dtype", "int", "zd", "scalar"))
    if kind == "scalar" and scalars:
        return b.g.choice(scalars)
    if kind == "zd":
        return b.tensor((), dom=dom)
    if kind == "int":
        return b.tensor(shape, "int64", dom)
    if kind == "dtype":
        return b.tensor(shape, "float64" if b.dtype == "float32" else "float32", dom)
    return b.tensor(shape, dom=dom)


def _pair_shapes(b):
    shapes = b.g.broadcast_shapes(2, 0, 3)
    if b.g.integers(0, 11) == 0:
        shapes[1] = (*shapes[1][:-1], 5) if shapes[1] else (5,)  # usually not broadcastable
    if b.g.integers(0, 9) == 0 and shapes[0]:
        shapes[0] = (*shapes[0][:-1], 0)
        shapes[1] = shapes[1][:-1] + (1,) if shapes[1] else ()
    return shapes


def _binary(dom_x=REAL, dom_y=REAL, scalars=(2.0, 0.5, -1.0, 0.0, 3, 1), keywords=None):
    def spec(b):
        sx, sy = _pair_shapes(b)
        x = b.tensor(sx, dom=dom_x)
        y = _other(b, sy, dom_y, scalars)
        kwargs = keywords(b) if keywords else {}
        return (x, y), kwargs

    return spec


def _alpha(b):
    return {"alpha": b.g.choice((2, 0.5, -1))} if b.g.integers(0, 3) == 0 else {}


def _rounding(b):
    return {"rounding_mode": b.g.choice(("trunc", "floor"))} if b.g.integers(0, 7) == 0 else {}


op("add", _binary(keywords=_alpha), inplace_name="add_")
op("sub", _binary(keywords=_alpha), inplace_name="sub_")
op("mul", _binary(), inplace_name="mul_")
op("div", _binary(dom_y=Domain(0.3, 2.0, TIES), keywords=_rounding), inplace_name="div_")
op(
    "pow",
    _binary(
        Domain(0.2, 2.0, TIES),
        Domain(-2.0, 3.0, (0.0, 0.5, 1.0, 2.0, 3.0, -1.0)),
        scalars=(2, 3, 0.5, 0, -1, 2.5, 1.0),
    ),
    inplace_name="pow_",
)
# torch.atan2/maximum/minimum take a tensor `other` only
op("atan2", _binary(scalars=()), inplace_name="atan2_")
op("maximum", _binary(scalars=()))
op("minimum", _binary(scalars=()))


def _where(b):
    sc, sx, sy = b.g.broadcast_shapes(3, 0, 3)
    cond = b.tensor(sc, "bool", array=values(b.g, sc, "float64", REAL, b.ties) > 0)
    if b.g.integers(0, 9) == 0:
        b.arrays[cond.i] = b.arrays[cond.i].astype(b.dtype)  # a float condition: refused
    return (cond, b.tensor(sx), _other(b, sy)), {}


function("where", _where)


def _clamp(b):
    x = b.tensor(b.shape())
    lo, hi = b.g.choice(
        (
            (-0.5, 0.5),
            (None, 0.0),
            (0.0, None),
            (1.0, -1.0),
            ("t", "t"),
            ("t", None),
            (None, "t"),
            ("zd", 1.0),
        )
    )

    def bound(v):
        if v == "t":
            return b.tensor(b.g.broadcast_shapes(1, 0, 1)[0][: len(b.arrays[x.i].shape)])
        if v == "zd":
            return Zd(-0.5, b.dtype)
        return v

    lo, hi = bound(lo), bound(hi)
    if b.g.boolean():
        return (x,), {"min": lo, "max": hi}
    return (x, lo, hi), {}


def _one_bound(b):
    x = b.tensor(b.shape())
    kind = b.g.choice(("scalar", "scalar", "tensor", "zd"))
    if kind == "tensor":
        bound = b.tensor(b.g.broadcast_shapes(1, 0, 1)[0][: b.arrays[x.i].ndim])
    elif kind == "zd":
        bound = Zd(0.5, b.dtype)
    else:
        bound = b.g.choice((0.0, -0.5, 1, 2.5))
    return (x, bound), {}


op("clamp_min", _one_bound, inplace_name="clamp_min_")
op("clamp_max", _one_bound, inplace_name="clamp_max_")
op("clamp", _clamp, inplace_name="clamp_")
op("clip", _clamp, inplace_name="clip_")


# --- reductions -----------------------------------------------------------------------------


def _dim_kw(b, args, kwargs, name, value):
    """Pass `value` positionally or by keyword `name` (a coin flip)."""
    if b.g.boolean():
        kwargs[name] = value
        return args
    return (*args, value)


def _reduce(dim_forms="any", keepdim=True, ints=True, dim_required=False):
    """A reduction `f(x, dim, keepdim)`; dim_forms: "any" (None/int/tuple), "int" or "none"."""

    def spec(b):
        dtype = "int64" if ints and b.g.integers(0, 7) == 0 else None
        x = b.tensor(b.shape(), dtype)
        nd = b.arrays[x.i].ndim
        args, kwargs = (x,), {}
        which = b.g.choice(("none", "one", "tuple") if dim_forms == "any" else ("none", "one"))
        if dim_required and which == "none" and b.g.integers(0, 3):
            which = "one"
        if which == "one":
            args = _dim_kw(b, args, kwargs, "dim", b.dim(nd))
        elif which == "tuple":
            args = _dim_kw(b, args, kwargs, "dim", b.dims(nd))
        if keepdim and which != "none" and b.g.boolean():
            if "dim" in kwargs or b.g.boolean():
                kwargs["keepdim"] = b.g.boolean()
            else:
                args = (*args, b.g.boolean())
        return args, kwargs

    return spec


op("sum", _reduce())
op("mean", _reduce(ints=True))
op("prod", _reduce(dim_forms="int"))  # torch: one dim only
op("logsumexp", _reduce(dim_required=True))
op("cumsum", _reduce(dim_forms="int", keepdim=False, dim_required=True))
op("softmax", _reduce(dim_forms="int", keepdim=False, ints=False, dim_required=True))
op("log_softmax", _reduce(dim_forms="int", keepdim=False, ints=False, dim_required=True))
op("argmax", _reduce(dim_forms="int"), grads=False)
op("argmin", _reduce(dim_forms="int"), grads=False)
op("all", _reduce(), grads=False)
op("any", _reduce(), grads=False)


def _extremum(b):
    if b.g.integers(0, 4) == 0:  # max(a, b): elementwise
        sx, sy = _pair_shapes(b)
        return (b.tensor(sx), b.tensor(sy)), {}
    return _reduce(dim_forms="int")(b)


op("max", _extremum)
op("min", _extremum)


def _var(b):
    x = b.tensor(b.shape())
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    which = b.g.choice(("none", "one", "tuple"))
    if which != "none":
        d = b.dim(nd) if which == "one" else b.dims(nd)
        args = _dim_kw(b, args, kwargs, "dim", d)
    style = b.g.choice(("", "unbiased", "correction"))
    if style == "unbiased":
        if "dim" not in kwargs and b.g.boolean():
            args = (*args, b.g.boolean())
        else:
            kwargs["unbiased"] = b.g.boolean()
    elif style == "correction":
        kwargs["correction"] = b.g.choice((0, 1, 2))
    # torch's overloads: var(x, dim, unbiased, keepdim), var(x, dim=None, *, correction,
    # keepdim), var(x, unbiased): no keepdim with `unbiased` and no dim
    if b.g.boolean() and (which != "none" or style != "unbiased"):
        kwargs["keepdim"] = b.g.boolean()
    return args, kwargs


op("var", _var)
op("std", _var)


def _norm(b):
    x = b.tensor(b.shape())
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    p = b.g.choice(("fro", 1, 2, 3, 0.5, 0, float("inf"), float("-inf"), -1, "nuc", None))
    if p is not None:
        args = _dim_kw(b, args, kwargs, "p", p)
    which = b.g.choice(("none", "one", "tuple"))
    if which == "one":
        kwargs["dim"] = b.dim(nd, forms=("int", "neg"))
    elif which == "tuple":
        kwargs["dim"] = b.dims(nd, allow_empty=False, forms=("tuple", "list"))
    if which != "none" and b.g.boolean():
        kwargs["keepdim"] = b.g.boolean()
    return args, kwargs


op("norm", _norm)


# --- shapes ---------------------------------------------------------------------------------


def _reshape_target(b, shape):
    n = int(np.prod(shape))
    g = b.g
    if g.integers(0, 9) == 0:
        return (n + 1,)  # wrong size
    target = []
    rest = n
    for _ in range(g.integers(0, 3)):
        divisors = [d for d in range(1, 5) if rest % d == 0] if rest else [0, 1, 2]
        d = g.choice(divisors)
        target.append(d)
        rest = rest // d if d else rest
    if rest or n:
        target.append(rest)
    if target and g.boolean():
        target[g.integers(0, len(target) - 1)] = -1
    return tuple(target)


def _reshape(b):
    x = b.tensor(b.shape())
    target = _reshape_target(b, b.arrays[x.i].shape)
    if b.g.boolean() or b.kind == "function":  # torch.reshape(x, shape) takes a tuple only
        return (x, target), {}
    return (x, *target), {}


op("reshape", _reshape)
method("view", _reshape)


def _as(b):
    x = b.tensor(b.shape())
    target = _reshape_target(b, b.arrays[x.i].shape)
    if -1 in target:
        target = b.arrays[x.i].shape
    return (x, b.tensor(target)), {}


method("view_as", _as)
method("reshape_as", _as)


def _expand_sizes(b, shape):
    g = b.g
    sizes = [g.choice((n, -1)) if n != 1 else g.choice((1, 2, 3, -1)) for n in shape]
    lead = [g.integers(0, 3) for _ in range(g.integers(0, 2))]
    if lead and g.integers(0, 5) == 0:
        lead[0] = -1  # -1 on a new leading dim: PyTorch refuses
    if sizes and g.integers(0, 9) == 0:
        sizes[-1] = 5  # not expandable
    return tuple(lead + sizes)


def _expand(b):
    x = b.tensor(b.shape())
    sizes = _expand_sizes(b, b.arrays[x.i].shape)
    return ((x, sizes) if b.g.boolean() else (x, *sizes)), {}


method("expand", _expand)


def _expand_as(b):
    x = b.tensor(b.shape())
    sizes = [
        abs(s) if s != -1 else n
        for s, n in zip(
            _expand_sizes(b, b.arrays[x.i].shape)[
                -b.arrays[x.i].ndim or len(b.arrays[x.i].shape) :
            ],
            b.arrays[x.i].shape,
            strict=False,
        )
    ]
    lead = [b.g.integers(1, 3) for _ in range(b.g.integers(0, 1))]
    return (x, b.tensor(tuple(lead + sizes), grad=False)), {}


method("expand_as", _expand_as)


def _flatten(b):
    x = b.tensor(b.shape(max_dims=4))
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    if b.g.boolean():
        args = _dim_kw(b, args, kwargs, "start_dim", b.dim(nd, forms=("int", "neg")).value)
        if "start_dim" not in kwargs and b.g.boolean():
            args = (*args, b.dim(nd, forms=("int", "neg")).value)
        elif b.g.boolean():
            kwargs["end_dim"] = b.dim(nd, forms=("int", "neg")).value
    return args, kwargs


op("flatten", _flatten)


def _t(b):
    return (b.tensor(b.shape(max_dims=3)),), {}


op("t", _t)
custom("Tensor.T", one(lambda lib, t: t.T, max_dims=2))


def _transpose(b):
    x = b.tensor(b.shape(max_dims=4))
    nd = b.arrays[x.i].ndim
    return (x, b.dim(nd), b.dim(nd)), {}


op("transpose", _transpose)


def _permute(b):
    x = b.tensor(b.shape(max_dims=4))
    nd = b.arrays[x.i].ndim
    perm = tuple(b.g.permutation(nd))
    if perm and b.g.boolean():
        perm = tuple(p - nd for p in perm)
    if b.g.integers(0, 9) == 0:
        perm = perm[:-1] if perm else (0,)
    return ((x, perm) if b.g.boolean() or b.kind == "function" else (x, *perm)), {}


op("permute", _permute)


def _squeeze(b):
    shape = tuple(b.g.choice((1, 1, 2, 3)) for _ in range(b.g.integers(0, 4)))
    x = b.tensor(shape)
    nd = len(shape)
    which = b.g.choice(("none", "one", "tuple"))
    if which == "one":
        return (x, b.dim(nd)), {}
    if which == "tuple":
        return (x, b.dims(nd, forms=("tuple",))), {}
    return (x,), {}


op("squeeze", _squeeze)


def _unsqueeze(b):
    x = b.tensor(b.shape())
    nd = b.arrays[x.i].ndim
    args, kwargs = (x,), {}
    return _dim_kw(b, args, kwargs, "dim", b.dim(nd + 1)), kwargs


op("unsqueeze", _unsqueeze)


def _flip(b):
    x = b.tensor(b.shape())
    nd = b.arrays[x.i].ndim
    if b.g.integers(0, 3) == 0 and b.kind != "function":  # torch.flip takes a sequence only
        return (x, b.dim(nd).value), {}
    d = b.dims(nd, forms=("tuple", "list"))
    return ((x, d) if b.g.boolean() or b.kind == "function" else (x, *d.value)), {}


op("flip", _flip)


def _joined(new_dim):
    def spec(b):
        shape = b.shape(min_dims=0 if new_dim else 1)
        n = b.g.integers(1, 3)
        nd = len(shape)
        d = b.dim(nd + (1 if new_dim else 0), forms=("int", "neg"))
        ts = []
        for _ in range(n):
            s = list(shape)
            if not new_dim and s and d.value in range(-nd, nd) and b.g.boolean():
                s[d.value] = b.g.integers(0, 3)
            ts.append(b.tensor(tuple(s)))
        seq = list(ts) if b.g.boolean() else tuple(ts)
        args, kwargs = (seq,), {}
        if d.value != 0 or b.g.boolean():
            args = _dim_kw(b, args, kwargs, "dim", d)
        return args, kwargs

    return spec


function("cat", _joined(False))
function("concatenate", _joined(False))
function("stack", _joined(True))


def _tri(b):
    x = b.tensor(b.shape(min_dims=1, max_dims=3))
    if b.g.boolean():
        k = b.g.integers(-3, 3)
        return ((x, k) if b.g.boolean() else (x,)), ({} if b.g.boolean() else {"diagonal": k})
    return (x,), {}


op("tril", _tri, inplace_name="tril_")
op("triu", _tri, inplace_name="triu_")


def _plain(b):
    return (b.tensor(b.shape()),), {}


op("clone", _plain)
method("contiguous", _plain)
method("detach", _plain, grads=False)


# --- products and linear algebra --------------------------------------------------------------


def _matmul_shapes(b, lo=1, hi=3):
    g = b.g
    n, k, m = g.integers(0, 3), g.integers(1, 3), g.integers(1, 3)
    ra, rb = g.integers(lo, hi), g.integers(lo, hi)
    batch = tuple(g.integers(1, 2) for _ in range(max(ra, rb) - 2))
    sa = {1: (k,), 2: (n, k)}.get(ra, batch[len(batch) - (ra - 2) :] + (n, k))
    sb = {1: (k,), 2: (k, m)}.get(rb, batch[len(batch) - (rb - 2) :] + (k, m))
    if g.integers(0, 9) == 0:
        sb = (*sb[:-2], k + 1, m) if len(sb) >= 2 else (k + 1,)
    return sa, sb


def _matmul(lo, hi):
    def spec(b):
        sa, sb = _matmul_shapes(b, lo, hi)
        return (b.tensor(sa), b.tensor(sb)), {}

    return spec


op("matmul", _matmul(1, 4))
op("mm", _matmul(1, 3))
op("bmm", _matmul(2, 4))


def _vectors(b):
    n = b.g.integers(0, 4)
    m = n if b.g.integers(0, 7) else n + 1
    dt = b.dtype if b.g.integers(0, 7) else "float64"
    return (b.tensor((n,)), b.tensor((m,), dt)), {}


op("dot", _vectors)
op("outer", _vectors)


def _square_matrix(b):
    n = b.g.integers(0, 4)
    batch = tuple(b.g.integers(1, 2) for _ in range(b.g.integers(0, 2)))
    shape = (*batch, n, n if b.g.integers(0, 11) else n + 1)
    a = values(b.g, shape, b.dtype, REAL, b.ties)
    if not b.ties and shape[-1] == shape[-2]:
        a = a + 3.0 * np.eye(n, dtype=a.dtype)
    return (b.tensor(shape, array=a.astype(b.dtype)),), {}


def _invertible(b):
    (x,), _ = _square_matrix(b)
    a = b.arrays[x.i]
    if b.ties and a.shape[-1] == a.shape[-2]:
        n = a.shape[-1]
        # ties make near-singular matrices (the answer depends on rounding): the zero
        # matrix (singular: both refuse) or a well-conditioned one
        b.arrays[x.i] = (0.0 * a if b.g.boolean() else a + 4.0 * np.eye(n)).astype(a.dtype)
    return (x,), {}


op("inverse", _invertible)


def _nonsingular(b):
    (x,), _ = _square_matrix(b)
    a = b.arrays[x.i]
    if b.ties and a.shape[-1] == a.shape[-2]:
        # NOTE: at an exactly singular matrix PyTorch 2.13's det backward gives 0 where the
        # derivative is the adjugate (funcgrad's answer): tests/hardening has those
        b.arrays[x.i] = (a + 4.0 * np.eye(a.shape[-1])).astype(a.dtype)
    return (x,), {}


op("det", _nonsingular)

EINSUM = {
    "ij,jk->ik": ((2, 3), (3, 4)),
    "ij->j": ((2, 3),),
    "ii->i": ((3, 3),),
    "ii": ((3, 3),),
    "i,i->": ((3,), (3,)),
    "bij,bjk->bik": ((2, 2, 3), (2, 3, 2)),
    "i,j->ij": ((2,), (3,)),
    "...i,i->...": ((2, 3), (3,)),
    "ij->ji": ((2, 3),),
    "ij,ij->ij": ((2, 3), (2, 3)),
    "ij,jk": ((2, 3), (4, 2)),
}


def _einsum(b):
    eq = b.g.choice(sorted(EINSUM))
    ts = [b.tensor(s) for s in EINSUM[eq]]
    if b.g.boolean():
        return (eq, ts), {}
    return (eq, *ts), {}


function("einsum", _einsum)


# --- comparisons of whole tensors ---------------------------------------------------------------


def _close_pair(b):
    sx, sy = b.g.broadcast_shapes(2, 0, 2)
    x = b.tensor(sx, grad=False)
    a = b.arrays[x.i] + values(b.g, sx, b.dtype, Domain(-1e-6, 1e-6, (0.0, 1e-9, 1.0)), b.ties)
    y = b.tensor(sx if b.g.integers(0, 3) else sy, array=a.astype(b.dtype), grad=False)
    kwargs = {}
    if b.g.boolean():
        kwargs["rtol"] = b.g.choice((1e-5, 0.0, 1e-3))
    if b.g.boolean():
        kwargs["atol"] = b.g.choice((1e-8, 0.0, 1e-3))
    return (x, y), kwargs


op("allclose", _close_pair, grads=False)
op("equal", lambda b: (lambda p: (p[0], {}))(_close_pair(b)), grads=False)


# --- operators ---------------------------------------------------------------------------------

BINARY_OPERATORS = {
    "__add__": operator.add,
    "__sub__": operator.sub,
    "__mul__": operator.mul,
    "__truediv__": operator.truediv,
    "__pow__": operator.pow,
    "__matmul__": operator.matmul,
    "__eq__": operator.eq,
    "__ne__": operator.ne,
    "__lt__": operator.lt,
    "__le__": operator.le,
    "__gt__": operator.gt,
    "__ge__": operator.ge,
}
INPLACE_OPERATORS = {
    "__iadd__": operator.iadd,
    "__isub__": operator.isub,
    "__imul__": operator.imul,
    "__itruediv__": operator.itruediv,
    "__ipow__": operator.ipow,
}
REFLECTED = {
    "__radd__": operator.add,
    "__rsub__": operator.sub,
    "__rmul__": operator.mul,
    "__rtruediv__": operator.truediv,
    "__rpow__": operator.pow,
}


def _operator_case(name, fn_op, dom_y=REAL):
    def draw_fn(b):
        if name == "__matmul__":
            (x, y), _ = _matmul(1, 4)(b)
        else:
            (x, y), _ = _binary(REAL if name != "__pow__" else POSITIVE, dom_y)(b)
        return (lambda lib, ts: fn_op(resolve(x, lib, ts), resolve(y, lib, ts))), name

    custom(f"Tensor.{name}", draw_fn)


for _name, _fn in BINARY_OPERATORS.items():
    _operator_case(_name, _fn, Domain(0.3, 2.0, TIES) if _name == "__truediv__" else REAL)


def _reflected_case(name, fn_op):
    def draw_fn(b):
        x = b.tensor(b.shape(), dom=POSITIVE if name == "__rtruediv__" else REAL)
        s = b.g.choice((2.0, 0.5, -1.0, 0.0, 3, 1))
        return (lambda lib, ts: fn_op(s, ts[x.i])), f"{s!r} {name} t0"

    custom(f"Tensor.{name}", draw_fn)


for _name, _fn in REFLECTED.items():
    _reflected_case(_name, _fn)


def _rmatmul(b):
    (x, y), _ = _matmul(1, 3)(b)
    a = b.arrays[x.i]

    def fn(lib, ts):
        return (lib.tensor(a) if lib.canonical else a) @ ts[y.i]

    return fn, "ndarray @ t1"


def _inplace_operator_case(name, fn_op):
    def draw_fn(b):
        (x, y), _ = _binary(POSITIVE if name == "__ipow__" else REAL, REAL)(b)
        leaf = b.g.integers(0, 3) == 0

        def fn(lib, ts):
            other = resolve(y, lib, ts)
            if leaf:
                t = ts[x.i]
                with lib.no_grad():
                    r = fn_op(t, other)
                return t * 1, r is t
            t = ts[x.i] * 1
            r = fn_op(t, other)
            return r, r is t

        return fn, f"{name} ({'leaf, no_grad' if leaf else 'non-leaf'})"

    custom(f"Tensor.{name}", draw_fn)


for _name, _fn in INPLACE_OPERATORS.items():
    _inplace_operator_case(_name, _fn)


def _unary_operator(fn_op):
    def draw_fn(b):
        x = b.tensor(b.shape())
        return (lambda lib, ts: fn_op(ts[x.i])), ""

    return draw_fn


custom("Tensor.__neg__", _unary_operator(operator.neg))
custom("Tensor.__pos__", _unary_operator(operator.pos))
custom("Tensor.__abs__", _unary_operator(abs))


def _scalar_conversion(conv):
    def draw_fn(b):
        shape = b.g.choice(((), (1,), (1, 1), (2,), (0,)))
        dtype = b.g.choice(("float32", "float64", "int64"))
        x = b.tensor(shape, dtype, grad=False)
        return (lambda lib, ts: conv(ts[x.i])), ""

    return draw_fn


custom("Tensor.__float__", _scalar_conversion(float), grads=False)
custom("Tensor.__int__", _scalar_conversion(int), grads=False)
custom("Tensor.__bool__", _scalar_conversion(bool), grads=False)
custom("Tensor.__index__", _scalar_conversion(operator.index), grads=False)
custom("Tensor.__len__", one(lambda lib, t: len(t)))


def _iterate(b):
    x = b.tensor(b.shape())
    how = b.g.choice(("list", "comprehension", "sum", "stack"))

    def fn(lib, ts):
        t = ts[x.i]
        if how == "list":
            return tuple(list(t))
        if how == "comprehension":
            return tuple(v * 2 for v in t)
        if how == "sum":
            return sum(t)
        return lib.stack(list(t))

    return fn, how


custom("Tensor.__iter__", _iterate)
custom("Tensor.item", _scalar_conversion(lambda t: t.item()), grads=False)
custom("Tensor.tolist", _scalar_conversion(lambda t: t.tolist()), grads=False)


def _index(b):
    shape = b.shape(min_dims=1, max_dims=3)
    x = b.tensor(shape)
    g = b.g
    idx = []
    for n in shape[: g.integers(0, len(shape))]:
        kind = g.choice(("int", "slice", "slice", "none", "list"))
        if kind == "int":
            idx.append(g.integers(-n - (g.integers(0, 9) == 0), max(n - 1, 0)))
        elif kind == "slice":
            idx.append(
                slice(g.choice((None, 0, 1, -1)), g.choice((None, 2, -1)), g.choice((None, 1, 2)))
            )
        elif kind == "none":
            idx.append(None)
        elif n:
            idx.append([g.integers(-n, n - 1) for _ in range(g.integers(1, 3))])
        else:
            idx.append(slice(None))
    if g.integers(0, 5) == 0:
        idx.insert(g.integers(0, len(idx)), Ellipsis)
    if g.integers(0, 7) == 0:
        mask = values(g, shape, "float64", REAL, b.ties) > 0
        return (lambda lib, ts: ts[x.i][lib.tensor(mask)]), "[bool mask]"
    key = tuple(idx) if g.boolean() or len(idx) != 1 else idx[0]
    return (lambda lib, ts: ts[x.i][key]), f"[{key!r}]"


custom("Tensor.__getitem__", _index)


# --- metadata, conversions, grad state ---------------------------------------------------------


def _meta(expr):
    def draw_fn(b):
        x = b.tensor(b.shape(), b.g.choice(("float32", "float64", "int64", "bool")))
        return (lambda lib, ts: expr(lib, ts[x.i])), ""

    return draw_fn


for _name, _expr in {
    "Tensor.dim": lambda lib, t: t.dim(),
    "Tensor.ndim": lambda lib, t: t.ndim,
    "Tensor.numel": lambda lib, t: t.numel(),
    "torch.numel": lambda lib, t: lib.numel(t),
    "Tensor.nelement": lambda lib, t: t.nelement(),
    "Tensor.shape": lambda lib, t: t.shape,
    "Tensor.dtype": lambda lib, t: t.dtype,
    "Tensor.device": lambda lib, t: t.device,
    "Tensor.is_cuda": lambda lib, t: t.is_cuda,
    "Tensor.is_contiguous": lambda lib, t: t.is_contiguous(),
    "Tensor.is_leaf": lambda lib, t: (t.is_leaf, (t * 1).is_leaf if is_float(t) else True),
    "Tensor.requires_grad": lambda lib, t: t.requires_grad,
    "Tensor.data": lambda lib, t: t.data,
    "Tensor.numpy": lambda lib, t: t.detach().numpy(),
    "Tensor.cpu": lambda lib, t: t.cpu(),
    "torch.is_tensor": lambda lib, t: (lib.is_tensor(t), lib.is_tensor(t.tolist())),
}.items():
    custom(_name, _meta(_expr), grads=_name in ("Tensor.cpu",))


def _size(b):
    x = b.tensor(b.shape(), grad=False)
    nd = b.arrays[x.i].ndim
    if b.g.boolean():
        d = b.dim(nd, forms=("int", "neg"))
        return (lambda lib, ts: ts[x.i].size(d.value)), f"size({d!r})"
    return (lambda lib, ts: ts[x.i].size()), "size()"


custom("Tensor.size", _size, grads=False)

CONVERSIONS = ("double", "float", "half", "int", "long", "bool")
for _name in CONVERSIONS:
    custom(f"Tensor.{_name}", one(lambda lib, t, n=_name: getattr(t, n)()), order2=False)


def _to(b):
    x = b.tensor(b.shape())
    g = b.g
    kind = g.choice(("dtype", "dtype_kw", "device", "tensor", "device_dtype"))
    dt = DtypeRef(g.choice(("float32", "float64", "float16", "int64", "bool")))
    if kind == "dtype":
        return (lambda lib, ts: ts[x.i].to(resolve(dt, lib, ts))), f"to({dt!r})"
    if kind == "dtype_kw":
        return (lambda lib, ts: ts[x.i].to(dtype=resolve(dt, lib, ts))), f"to(dtype={dt!r})"
    if kind == "device":
        return (lambda lib, ts: ts[x.i].to("cpu")), "to('cpu')"
    if kind == "device_dtype":
        return (lambda lib, ts: ts[x.i].to("cpu", resolve(dt, lib, ts))), f"to('cpu', {dt!r})"
    other = b.tensor((), g.choice(FLOATS), grad=False)
    return (lambda lib, ts: ts[x.i].to(ts[other.i])), "to(other)"


custom("Tensor.to", _to, order2=False)


def _type(b):
    x = b.tensor(b.shape())
    g = b.g
    if g.boolean():
        return (lambda lib, ts: ts[x.i].type().split(".")[-1]), "type()"
    dt = DtypeRef(g.choice(("float32", "float64", "int64")))
    return (lambda lib, ts: ts[x.i].type(resolve(dt, lib, ts))), f"type({dt!r})"


custom("Tensor.type", _type, order2=False)


def _detach_(b):
    x = b.tensor(b.shape())
    y = b.tensor(b.arrays[x.i].shape)

    def fn(lib, ts):
        h = ts[x.i] * 2
        r = h.detach_()
        return h * ts[y.i], r is h, h.requires_grad, h.is_leaf

    return fn, "(x * 2).detach_() * y"


custom("Tensor.detach_", _detach_)


def _requires_grad_(b):
    x = b.tensor(b.shape(), grad=False)
    flag = b.g.choice((True, False, None))

    def fn(lib, ts):
        t = ts[x.i]
        r = t.requires_grad_() if flag is None else t.requires_grad_(flag)
        return (t * 3, r is t, t.requires_grad) if is_float(t) else (r is t,)

    return fn, f"requires_grad_({'' if flag is None else flag})"


custom("Tensor.requires_grad_", _requires_grad_, grads=False)


def _retain_grad(b):
    x = b.tensor(b.shape())
    ct = values(b.g, b.arrays[x.i].shape, b.dtype, REAL, b.ties)

    def fn(lib, ts):
        h = ts[x.i].sin()
        h.retain_grad()
        (h * h).backward(lib.tensor(ct.copy()))
        return h.grad, h.retains_grad, ts[x.i].retains_grad, ts[x.i].grad

    return fn, "h = x.sin(); h.retain_grad(); (h * h).backward(ct)"


custom("Tensor.retain_grad", _retain_grad, grads=False)
custom("Tensor.retains_grad", _retain_grad, grads=False)
custom("Tensor.grad", _retain_grad, grads=False)


def _grad_fn(b):
    x = b.tensor(b.shape(min_dims=1))
    name = b.g.choice(("exp", "sum", "mul", "add", "reshape", "t", "mean", "pow"))
    calls = {
        "exp": lambda t: t.exp(),
        "sum": lambda t: t.sum(),
        "mul": lambda t: t * t,
        "add": lambda t: t + 1,
        "reshape": lambda t: t.reshape(-1),
        "t": lambda t: t.t() if t.dim() <= 2 else t.transpose(0, -1),
        "mean": lambda t: t.mean(),
        "pow": lambda t: t**2,
    }

    def fn(lib, ts):
        out = calls[name](ts[x.i])
        return type(out.grad_fn).__name__, ts[x.i].grad_fn is None

    return fn, name


custom("Tensor.grad_fn", _grad_fn, grads=False)


def _hook(b):
    x = b.tensor(b.shape())
    scale = b.g.choice((2.0, 0.0, -1.0))

    def fn(lib, ts):
        handle = ts[x.i].register_hook(lambda gr: gr * scale)
        out = (ts[x.i] * ts[x.i]).sum()
        out.backward()
        first = ts[x.i].grad.clone()
        handle.remove()
        ts[x.i].grad = None
        (ts[x.i] * 3).sum().backward()
        return first, ts[x.i].grad

    return fn, f"register_hook(g * {scale})"


custom("Tensor.register_hook", _hook, grads=False)


def _post_hook(b):
    x = b.tensor(b.shape())

    def fn(lib, ts):
        seen = []
        ts[x.i].register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
        (ts[x.i] * 2).sum().backward()
        (ts[x.i] * 2).sum().backward()
        return seen[0], seen[1], len(seen)

    return fn, "post-accumulate hook over two backwards"


custom("Tensor.register_post_accumulate_grad_hook", _post_hook, grads=False)


def _copy_(b):
    x = b.tensor(b.shape())
    shape = b.arrays[x.i].shape
    src_shape = b.g.choice((shape, shape[1:], (1,) * len(shape), (5,)))
    src = b.tensor(src_shape, b.g.choice((b.dtype, "float64", "int64")))
    target = b.g.choice(("nonleaf", "zeros", "leaf_no_grad"))

    def fn(lib, ts):
        s = ts[src.i] * 1 if is_float(ts[src.i]) else ts[src.i]
        if target == "nonleaf":
            y = ts[x.i] * 2
            r = y.copy_(s * s)
        elif target == "zeros":
            y = lib.zeros(*shape)
            r = y.copy_(s * 3)
        else:
            y = ts[x.i]
            with lib.no_grad():
                r = y.copy_(s)
            y = y * 1
        return y, r is y or target == "leaf_no_grad"

    return fn, f"copy_ into {target}"


custom("Tensor.copy_", _copy_)


def _fill_(b):
    x = b.tensor(b.shape())
    kind = b.g.choice(("scalar", "zd_grad", "zd"))
    v = b.tensor((), grad=kind == "zd_grad") if kind != "scalar" else None
    s = b.g.choice((0.0, 1.5, -2))

    def fn(lib, ts):
        y = ts[x.i] * 1
        r = y.fill_(s if v is None else ts[v.i])
        return y, r is y

    return fn, f"fill_({s!r})" if v is None else f"fill_({kind})"


custom("Tensor.fill_", _fill_)


def _zero_(b):
    x = b.tensor(b.shape())
    z = b.tensor(b.arrays[x.i].shape)

    def fn(lib, ts):
        y = ts[x.i] * 1
        r = y.zero_()
        return y * ts[z.i], r is y

    return fn, "(x * 1).zero_() * z"


custom("Tensor.zero_", _zero_)


# --- creation functions --------------------------------------------------------------------------


def _size_args(b):
    shape = b.shape(max_dims=3)
    if b.g.integers(0, 11) == 0:
        shape = (*shape, -1)
    return shape


def _creation(name, with_value=False):
    def draw_fn(b):
        g = b.g
        shape = _size_args(b)
        args = (shape,) if g.boolean() or name == "full" else shape
        if with_value:
            args = (*args, g.choice((1.5, 0, -2, True)))
        kwargs = {}
        if g.boolean():
            kwargs["dtype"] = DtypeRef(g.choice(("float32", "float64", "int64")))
        if g.integers(0, 3) == 0:
            kwargs["requires_grad"] = True

        def fn(lib, ts):
            return getattr(lib, name)(*args, **resolve(kwargs, lib, ts))

        return fn, f"{name}{args!r} {kwargs!r}"

    return draw_fn


custom("torch.zeros", _creation("zeros"), grads=False)
custom("torch.ones", _creation("ones"), grads=False)
custom("torch.full", _creation("full", with_value=True), grads=False)


def _shape_only(name, lo=0.0, hi=1.0):
    """Random or uninitialised tensors: compare shape, dtype, requires_grad, and the value range."""

    def draw_fn(b):
        inner = _creation(name)(b)[0]

        def fn(lib, ts):
            t = inner(lib, ts)
            v = t.detach().double() if is_float(t) else t.detach()
            inside = bool((v >= lo).all()) and bool((v < hi).all()) if name == "rand" else True
            return tuple(t.shape), t.dtype, t.requires_grad, inside

        return fn, name

    return draw_fn


custom("torch.rand", _shape_only("rand"), grads=False)
custom("torch.randn", _shape_only("randn"), grads=False)
custom("torch.empty", _shape_only("empty"), grads=False)


def _randint(b):
    g = b.g
    low, high = g.choice(((0, 5), (-3, 3), (2, 2), (5, None)))
    shape = b.shape(max_dims=2)

    def fn(lib, ts):
        t = lib.randint(low, high, shape) if high is not None else lib.randint(low, size=shape)
        hi = high if high is not None else low
        lo = low if high is not None else 0
        return tuple(t.shape), t.dtype, bool((t >= lo).all()) and bool((t < hi).all())

    return fn, f"randint({low}, {high}, {shape})"


custom("torch.randint", _randint, grads=False)


def _like(name, with_value=False, compare_values=True):
    def draw_fn(b):
        x = b.tensor(b.shape(), b.g.choice(("float32", "float64", "int64")), grad=False)
        g = b.g
        extra = (g.choice((2.5, 0, -1)),) if with_value else ()
        kwargs = {}
        if g.boolean():
            kwargs["dtype"] = DtypeRef(g.choice(("float32", "float64", "int64")))
        if g.integers(0, 3) == 0:
            kwargs["requires_grad"] = True

        def fn(lib, ts):
            t = getattr(lib, name)(ts[x.i], *extra, **resolve(kwargs, lib, ts))
            if compare_values:
                return t
            return tuple(t.shape), t.dtype, t.requires_grad

        return fn, f"{name}(t0, {extra}, {kwargs!r})"

    return draw_fn


custom("torch.zeros_like", _like("zeros_like"), grads=False)
custom("torch.ones_like", _like("ones_like"), grads=False)
custom("torch.full_like", _like("full_like", with_value=True), grads=False)
custom("torch.empty_like", _like("empty_like", compare_values=False), grads=False)
custom("torch.rand_like", _like("rand_like", compare_values=False), grads=False)
custom("torch.randn_like", _like("randn_like", compare_values=False), grads=False)


def _eye(b):
    g = b.g
    n = g.integers(-1, 4)
    args = (n,) if g.boolean() else (n, g.integers(0, 4))
    kwargs = {"dtype": DtypeRef(g.choice(FLOATS))} if g.boolean() else {}
    return (lambda lib, ts: lib.eye(*args, **resolve(kwargs, lib, ts))), f"eye{args}"


custom("torch.eye", _eye, grads=False)


def _arange(b):
    g = b.g
    args = g.choice(((5,), (0, 3), (1, 4, 0.5), (0.0, 1.0, 0.25), (3, 0, -1), (2.5,), (0, 1, 0)))
    kwargs = {"dtype": DtypeRef(g.choice(("float32", "float64", "int64")))} if g.boolean() else {}
    return (lambda lib, ts: lib.arange(*args, **resolve(kwargs, lib, ts))), f"arange{args}"


custom("torch.arange", _arange, grads=False)


def _linspace(b):
    g = b.g
    args = (g.choice((0, -1.5, 2)), g.choice((1, 3.0, -2)), g.choice((0, 1, 2, 5)))
    kwargs = {"dtype": DtypeRef(g.choice(FLOATS))} if g.boolean() else {}
    return (lambda lib, ts: lib.linspace(*args, **resolve(kwargs, lib, ts))), f"linspace{args}"


custom("torch.linspace", _linspace, grads=False)


def _tensor(b):
    g = b.g
    data = g.choice(
        (
            1.0,
            2,
            True,
            [1, 2],
            [1.0, 2],
            [[1, 2], [3, 4]],
            [],
            [[1], [2, 3]],
            np.float64(1.5),
            np.arange(3, dtype=np.float64),
            np.arange(3, dtype=np.int32),
            [True, False],
            "array",
        )
    )
    if isinstance(data, str):
        data = values(g, b.shape(), b.dtype, REAL, b.ties)
    kwargs = {}
    if g.boolean():
        kwargs["dtype"] = DtypeRef(g.choice(("float32", "float64", "int64")))
    if g.integers(0, 3) == 0:
        kwargs["requires_grad"] = True

    def fn(lib, ts):
        d = data.copy() if isinstance(data, np.ndarray) else data
        return lib.tensor(d, **resolve(kwargs, lib, ts))

    return fn, f"tensor({data!r}, {kwargs!r})"


custom("torch.tensor", _tensor, grads=False)


def _from_numpy(b):
    a = values(b.g, b.shape(), b.g.choice(("float32", "float64", "int64")), REAL, b.ties)
    return (lambda lib, ts: lib.from_numpy(a.copy())), "from_numpy"


custom("torch.from_numpy", _from_numpy, grads=False)


def _tensor_ctor(name):
    def draw_fn(b):
        g = b.g
        args = g.choice(((2, 3), ([1.0, 2.0],), ([[1, 2]],), (0,), ()))

        def fn(lib, ts):
            t = getattr(lib, name)(*args)
            return (tuple(t.shape), t.dtype) if args and isinstance(args[0], int) else t

        return fn, f"{name}{args!r}"

    return draw_fn


custom("torch.Tensor", _tensor_ctor("Tensor"), grads=False)
custom("torch.FloatTensor", _tensor_ctor("FloatTensor"), grads=False)


def _size_ctor(b):
    s = b.shape()
    return (lambda lib, ts: (lib.Size(s), lib.Size(s) == s, lib.ones(s).shape == lib.Size(s))), ""


custom("torch.Size", _size_ctor, grads=False)


def _device(b):
    spec = b.g.choice(("cpu", "cpu:0"))
    return (lambda lib, ts: (str(lib.device(spec)), lib.device(spec).type)), spec


custom("torch.device", _device, grads=False)


# --- grad modes --------------------------------------------------------------------------------


def _grad_mode(kind):
    def draw_fn(b):
        x = b.tensor(b.shape())
        flag = b.g.boolean()

        def fn(lib, ts):
            t = ts[x.i]
            if kind == "no_grad":
                with lib.no_grad():
                    y = t * 2
                    inner = lib.is_grad_enabled()
                return y.requires_grad, inner, lib.is_grad_enabled(), t * 2
            if kind == "enable_grad":
                with lib.no_grad(), lib.enable_grad():
                    y = t * 2
                return y.requires_grad, y
            if kind == "set_grad_enabled":
                with lib.set_grad_enabled(flag):
                    y = t * 2
                    inner = lib.is_grad_enabled()
                return y.requires_grad, inner, lib.is_grad_enabled()
            with lib.inference_mode():
                y = t * 2
                inner = lib.is_inference_mode_enabled()
            return y.requires_grad, inner, lib.is_inference_mode_enabled()

        return fn, kind

    return draw_fn


for _name in ("no_grad", "enable_grad", "set_grad_enabled", "inference_mode"):
    custom(f"torch.{_name}", _grad_mode(_name))
CASES["torch.is_grad_enabled"] = CASES["torch.no_grad"]
CASES["torch.is_inference_mode_enabled"] = CASES["torch.inference_mode"]


def _default_dtype(b):
    dt = DtypeRef(b.g.choice(FLOATS))

    def fn(lib, ts):
        old = lib.get_default_dtype()
        lib.set_default_dtype(resolve(dt, lib, ts))
        try:
            return lib.get_default_dtype(), lib.tensor(1.5).dtype, lib.ones(2).dtype
        finally:
            lib.set_default_dtype(old)

    return fn, f"set_default_dtype({dt!r})"


custom("torch.set_default_dtype", _default_dtype, grads=False)
CASES["torch.get_default_dtype"] = CASES["torch.set_default_dtype"]


# --- Python protocols ------------------------------------------------------------------------


custom("Tensor.__rmatmul__", _rmatmul)


def _array(b):
    x = b.tensor(b.shape(), grad=b.g.boolean())
    return (lambda lib, ts: np.asarray(ts[x.i])), "np.asarray(t0)"


custom("Tensor.__array__", _array, grads=False)


def _pickle(b):
    import copy
    import pickle

    x = b.tensor(b.shape(), grad=b.g.boolean())
    how = b.g.choice(("deepcopy", "pickle", "copy"))

    def fn(lib, ts):
        t = ts[x.i]
        if how == "deepcopy":
            c = copy.deepcopy(t)
        elif how == "copy":
            c = copy.copy(t)
        else:
            c = pickle.loads(pickle.dumps(t))
        out = [c.detach(), c.requires_grad, c.is_leaf, c is t]
        if c.requires_grad:
            (c * 2).sum().backward()
            out += [c.grad, t.grad]
        return tuple(out)

    return fn, how


for _name in ("__reduce_ex__", "__reduce__", "__getstate__", "__deepcopy__"):
    custom(f"Tensor.{_name}", _pickle, grads=False)


def _printing(conv):
    def draw_fn(b):
        shape = b.g.choice(((), (2,), (2, 2), (0,)))
        x = b.tensor(shape, b.g.choice(("float32", "int64", "float64")), grad=b.g.boolean())
        a = np.round(b.arrays[x.i] * 4) / 4
        b.arrays[x.i] = a

        def fn(lib, ts):
            t = ts[x.i]
            return conv(t * 2 if t.requires_grad else t).replace("funcgrad", "torch")

        return fn, ""

    return draw_fn


custom("Tensor.__repr__", _printing(repr), grads=False)
custom("Tensor.__str__", _printing(str), grads=False)
custom(
    "Tensor.__format__",
    _printing(lambda t: format(t, ".3f") if t.dim() == 0 else format(t)),
    grads=False,
)


# === names without a case =====================================================================

EXEMPT: dict[str, str] = {
    "Tensor.backward": "the driver of every case (first-order gradients)",
    "Tensor.real": "complex tensors only (the fuzzer draws real ones): tests/tensors/test_complex.py "
    "compares values and gradients with PyTorch",
    "Tensor.imag": "complex tensors only (the fuzzer draws real ones): tests/tensors/test_complex.py "
    "compares values and gradients with PyTorch",
    "Tensor.cuda": "needs a GPU (tests/gpu)",
    "Tensor.__hash__": "identity hash in both; nothing to compare",
    "Tensor.__array_priority__": "a NumPy protocol constant (its effect: Tensor.__rmatmul__ etc.)",
    "torch.manual_seed": "the generators differ: random values are compared by shape and range",
    "torch.Node": "not the same object: torch.Node is autograd's graph node, funcgrad.Node the graph",
    "torch.autograd": "a namespace (autograd.grad drives the second-order checks)",
    "torch.nn": "a namespace, not a function of the Tensor layer",
    "torch.builtins": "not PyTorch's: torch.builtins is Python's builtins module seen through "
    "torch's namespace; funcgrad.builtins is HIPS autograd's (tests/differential/"
    "test_autograd_operators.py)",
}


# Names of session 5 (#14, #15, #16) whose behaviour is compared with PyTorch in their own tests,
# where a single-call differential case cannot say what matters (aliasing, randomness, state).
_VIEWS = "a view or a write into one: tests/tensors/test_views.py compares values, versions and gradients with PyTorch"
_RANDOM = (
    "random draws: funcgrad's streams are not PyTorch's (same distributions): "
    "tests/tensors/test_random.py checks moments, seeding and generators"
)
_RUNTIME = (
    "a runtime switch or namespace: tests/tensors/test_cuda_api.py compares it with PyTorch's"
)
_SAVE = "files: tests/tensors/test_serialization.py round-trips with real PyTorch both ways"
_NAMESPACE = "a namespace whose names have their own tests against PyTorch ({})"
EXEMPT.update(
    {
        **dict.fromkeys(
            [
                "Tensor.__setitem__",
                "Tensor.as_strided",
                "Tensor.diagonal",
                "Tensor.mT",
                "Tensor.narrow",
                "Tensor.select",
                "Tensor.unfold",
            ],
            _VIEWS,
        ),
        **dict.fromkeys(
            [
                "Tensor.bernoulli",
                "Tensor.bernoulli_",
                "Tensor.cauchy_",
                "Tensor.exponential_",
                "Tensor.geometric_",
                "Tensor.log_normal_",
                "Tensor.multinomial",
                "Tensor.normal_",
                "Tensor.random_",
                "Tensor.uniform_",
                "torch.Generator",
                "torch.bernoulli",
                "torch.default_generator",
                "torch.get_rng_state",
                "torch.initial_seed",
                "torch.multinomial",
                "torch.normal",
                "torch.poisson",
                "torch.randint_like",
                "torch.random",
                "torch.randperm",
                "torch.seed",
                "torch.set_rng_state",
            ],
            _RANDOM,
        ),
        **dict.fromkeys(
            [
                "torch.are_deterministic_algorithms_enabled",
                "torch.backends",
                "torch.cuda",
                "torch.get_default_device",
                "torch.get_deterministic_debug_mode",
                "torch.get_float32_matmul_precision",
                "torch.get_num_interop_threads",
                "torch.get_num_threads",
                "torch.is_deterministic_algorithms_warn_only_enabled",
                "torch.is_warn_always_enabled",
                "torch.set_default_device",
                "torch.set_default_tensor_type",
                "torch.set_deterministic_debug_mode",
                "torch.set_float32_matmul_precision",
                "torch.set_num_interop_threads",
                "torch.set_num_threads",
                "torch.set_printoptions",
                "torch.set_warn_always",
                "torch.use_deterministic_algorithms",
            ],
            _RUNTIME,
        ),
        **dict.fromkeys(["torch.save", "torch.load", "torch.serialization"], _SAVE),
        "torch.distributions": _NAMESPACE.format("tests/distributions"),
        "torch.func": _NAMESPACE.format("tests/test_func.py"),
        "torch.optim": _NAMESPACE.format("tests/optim"),
        "torch.profiler": _NAMESPACE.format("tests/autograd"),
        "torch.utils": _NAMESPACE.format("tests/utils, tests/tensors/test_checkpoint*"),
        "torch.vmap": "a function transform: tests/transforms_vmap compares it with torch.func.vmap",
        "torch.compile": "a function transform: tests/test_jit.py compares compiled functions "
        "and a compiled module's training with PyTorch eager",
        "torch.jit": "funcgrad.jit is JAX's jit (trace once, replay), not TorchScript: "
        "tests/test_jit.py checks it against eager funcgrad",
    }
)
