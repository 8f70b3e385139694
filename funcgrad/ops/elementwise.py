"""Elementwise primitives: arithmetic, powers and logs, trigonometry, activations.

Binary rules return output-shaped cotangents; the engine sums them back to
each input's (possibly broadcast) shape.

Zero cotangents stay zero. A rule of the form `ct * d(x)` gives an exact 0
wherever `ct` is exactly 0, even where the derivative `d(x)` is infinite or
NaN (`sqrt` and `log` at 0, any rule at a NaN value): 0 * inf would be NaN.
So the unselected branch of `where` (or of a mask, `relu`, `clip`, indexing)
never poisons a gradient: `grad(lambda x: sum(where(x > 0, sqrt(x), 0.0)))`
is 0, not NaN, at x <= 0, with no "double where". The rules here are the
math only: a record declares `keeps_zeros` and the engines apply `guard`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy

from funcgrad.backend import constant_like
from funcgrad.graph import Node
from funcgrad.graph.node import Array
from funcgrad.ops._util import all_finite, normalize_axis, value_of
from funcgrad.ops.registry import (
    ELEMENTWISE,
    LINEAR,
    Draw,
    Drawn,
    GradFnName,
    Names,
    Primitive,
    RuleInputs,
    RuleParams,
    Sample,
    register,
)


# fmt: off
def _unary(
    low: float = -3.0, high: float = 3.0, imag: tuple[float, float] | None = None, **kw: Any
) -> Sample:
    """A sample of one array in `[low, high]`; `imag`: the imaginary parts' range when complex."""
    def make(g: Draw) -> Drawn:
        x = g.array(g.shape(), low, high)
        return (x if imag is None else _imag_in(x, low, high, *imag),), {}
    return Sample(make, **kw)


def _imag_in(x: Array, low: float, high: float, lo: float, hi: float) -> Array:
    """A complex `x` with its imaginary parts moved from `[low, high]` to `[lo, hi]`."""
    if x.dtype.kind != "c":
        return x
    imag = lo + (x.imag - low) * ((hi - lo) / (high - low))
    return (x.real + 1j * imag).astype(x.dtype)


def _binary(
    low: float = -3.0,
    high: float = 3.0,
    low2: float | None = None,
    high2: float | None = None,
    **kw: Any,
) -> Sample:
    def make(g: Draw) -> Drawn:
        s1, s2 = g.broadcast_shapes(2)
        lo2 = low if low2 is None else low2
        hi2 = high if high2 is None else high2
        return (g.array(s1, low, high), g.array(s2, lo2, hi2)), {}
    return Sample(make, **kw)
# fmt: on


# --- zero cotangents --------------------------------------------------------

_ndarray = numpy.ndarray
_subtract = numpy.subtract
_multiply = numpy.multiply
# Entries from which a rule's temporaries are written in place (see _tanh_vjp).
_IN_PLACE_SIZE = 4096
_vdot = numpy.vdot
_isfinite = math.isfinite
_SCALARS = (numpy.generic, float, int)
# vmap's batched value, `funcgrad.transforms.batching.Batched`, is a numpy.bytes_ subclass (no
# cotangent is ever a plain bytes_): `guard` reads the array of every example in its `val`
_BATCHED_BASE = numpy.bytes_


def guard(prim: Primitive, ct: Array, result: Array, params: Mapping[str, Any]) -> Array:
    """Return a rule's `result` with an exact 0 where `prim.keeps_zeros` says the (co)tangent `ct` makes it 0.

    The engines call it on what a rule returns for one input, before
    unbroadcasting: the backward walk (`ct` the output's cotangent, `result`
    the input's cotangent) and forward mode (`ct` the input's tangent,
    `result` its contribution to the output's tangent), and only for a
    primitive that declares `keeps_zeros`. Its rules are linear in `ct`
    (`ct * d`, `ct / d`, `-ct * out / y` ...), so 0 is the right answer
    there, where IEEE arithmetic says NaN if `d` is infinite or NaN
    (0 * inf, 0 / 0). What "there" is depends on the declaration:

    * `"elementwise"`: where the entry of `ct` is 0 (`ct` broadcasts against
      `result`);
    * `"reduction"`: `prim` reduces over `params["axis"]`: a cotangent entry
      of 0 zeroes the slice of the input it was reduced from (and a tangent
      whose slice is all 0 zeroes the reduced entry);
    * `"slices"`: a whole slice along `params["axis"]` is 0 where the slice
      of `ct` is all 0 (`softmax`: every output depends on the whole slice).

    NOTE: the hot path pays one test (a single BLAS call, the sum of squares,
    on NumPy arrays) and returns `result` itself; `where` runs only when
    `result` has a non-finite entry. So gradients that are finite are
    untouched, and so are their derivatives (second order): the mask covers
    only the entries where the product was undefined (a finite entry beside
    them keeps its derivative in `ct`). Works on arrays and on nodes
    (`create_graph`).

    Examples:
        >>> import numpy as np
        >>> from funcgrad.ops import guard, registry
        >>> ct, d = np.array([0.0, 1.0]), np.array([np.inf, np.inf])
        >>> guard(registry.get("multiply"), ct, ct * d, {})
        array([ 0., inf])
    """
    v = result.value if type(result) is Node else result
    if type(v) is _ndarray:
        # all_finite, inlined: this is the hot path (dot is cheaper than vdot in 1-D)
        if _isfinite((v.dot(v) if v.ndim == 1 else _vdot(v, v)).real):
            return result
    elif isinstance(v, _BATCHED_BASE) and type(v.val) is _ndarray:  # type: ignore[attr-defined]
        # a cotangent inside vmap: every example's entries at once, the test all_finite makes
        # of it (there through float() of the batched value: four Python calls more)
        w = v.val  # type: ignore[attr-defined]
        if _isfinite((w.dot(w) if w.ndim == 1 else _vdot(w, w)).real):
            return result
    elif type(result) is Node or isinstance(v, _SCALARS):
        if all_finite(v):
            return result
    else:
        # NOTE: first order on a GPU: mask without looking, so that nothing
        # waits for the device (no second order to keep intact here). An empty
        # result has nothing to mask (and _zero_mask would take a reduction's
        # one-entry cotangent for a tangent to reduce).
        if v.size == 0:
            return result
        return where(_zero_mask(prim, ct, v, params), 0.0, result)
    # NOTE: only the non-finite entries are masked: a finite entry where ct is 0
    # keeps its product (ct * d), whose derivative in ct is d (second order: a
    # zero cotangent next to a NaN one must still carry d, as PyTorch's). A batched
    # value (vmap) keeps the mask of every zero: its entries are read as one batch.
    zero = _zero_mask(prim, ct, v, params)
    if not isinstance(v, _BATCHED_BASE):
        zero = zero & ~numpy.isfinite(v)
    if not zero.any():
        return result  # non-finite where ct is not 0: a real inf or NaN, kept
    return where(zero, 0.0, result)


def _zero_mask(prim: Primitive, ct: Array, result: Array, params: Mapping[str, Any]) -> Array:
    """Where `guard` puts zeros: `ct == 0`, carried to `result`'s shape as `prim.keeps_zeros` says."""
    zero = value_of(ct) == 0
    if type(zero) is bool:  # ct was a Python number
        return numpy.bool_(zero)
    kind = prim.keeps_zeros
    if kind == "slices":
        return zero.all(axis=params["axis"], keepdims=True)
    if kind == "reduction" and zero.shape != result.shape:
        if zero.size == result.size:  # the reduced axes have length 1
            return zero.reshape(result.shape)
        if zero.size > result.size:  # forward mode: an input tangent, the reduced tangent
            axes = normalize_axis(params["axis"], zero.ndim, prim.name)
            return zero.all(axis=axes, keepdims=True).reshape(result.shape)
        # reverse mode: the reduced cotangent, the input's: keep the reduced axes
        axes = normalize_axis(params["axis"], result.ndim, prim.name)
        return zero.reshape(tuple(1 if i in axes else n for i, n in enumerate(result.shape)))
    return zero


# --- arithmetic -----------------------------------------------------------

add = register(
    Primitive(
        name="add",
        forward=lambda xp, x, y: xp.add(x, y),
        vjp=(lambda ct, out, x, y: ct, lambda ct, out, x, y: ct),
        jvp=LINEAR,
        sample=_binary(complex=True),
        doc="x + y",
        names=Names(numpy="add", torch="add", method="add", inplace="add_", grad_fn="AddBackward0"),
    )
)


def _is_number(a: object) -> bool:
    return type(a) is float or type(a) is int


def _subtract_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """RsubBackward1 for `number - x` (only x listed, as PyTorch's rsub), else SubBackward0."""
    return ("RsubBackward1", (1,)) if _is_number(inputs[0]) else "SubBackward0"


subtract = register(
    Primitive(
        name="subtract",
        forward=lambda xp, x, y: xp.subtract(x, y),
        vjp=(lambda ct, out, x, y: ct, lambda ct, out, x, y: -ct),
        jvp=LINEAR,
        sample=_binary(complex=True),
        doc="x - y",
        names=Names(
            numpy="subtract",
            torch=("sub", "subtract"),
            method=("sub", "subtract"),
            inplace=("sub_", "subtract_"),
            grad_fn=_subtract_grad_fn,
        ),
    )
)


multiply = register(
    Primitive(
        name="multiply",
        forward=lambda xp, x, y: xp.multiply(x, y),
        vjp=(lambda ct, out, x, y: ct * y, lambda ct, out, x, y: ct * x),
        jvp=ELEMENTWISE,
        sample=_binary(complex=True),
        doc="x * y",
        keeps_zeros="elementwise",
        names=Names(
            numpy="multiply",
            torch=("mul", "multiply"),
            method=("mul", "multiply"),
            inplace=("mul_", "multiply_"),
            grad_fn="MulBackward0",
        ),
    )
)


def _divide_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """ReciprocalBackward0 for `1 / x` (only x listed), else DivBackward0.

    (PyTorch computes `2 / t` as `reciprocal(t) * 2`, and so does `Tensor`.)
    """
    if _is_number(inputs[0]) and inputs[0] == 1:
        return "ReciprocalBackward0", (1,)
    return "DivBackward0"


divide = register(
    Primitive(
        name="divide",
        forward=lambda xp, x, y: xp.divide(x, y),
        vjp=(lambda ct, out, x, y: ct / y, lambda ct, out, x, y: -ct * out / y),
        jvp=ELEMENTWISE,
        sample=_binary(low2=0.5, high2=3.0, complex=True),
        doc="x / y",
        keeps_zeros="elementwise",
        names=Names(
            numpy=("divide", "true_divide"),
            torch=("div", "divide", "true_divide"),
            method=("div", "divide", "true_divide"),
            inplace=("div_", "divide_", "true_divide_"),
            grad_fn=_divide_grad_fn,
        ),
    )
)

negative = register(
    Primitive(
        name="negative",
        forward=lambda xp, x: xp.negative(x),
        vjp=(lambda ct, out, x: -ct,),
        jvp=LINEAR,
        sample=_unary(complex=True),
        doc="-x",
        names=Names(
            numpy="negative",
            torch=("neg", "negative"),
            method=("neg", "negative"),
            inplace=("neg_", "negative_"),
            grad_fn="NegBackward0",
        ),
    )
)


def _exact_zeros(f: Array, r: Array) -> Array:
    # r = f * d, exactly 0 where the factor f is 0 even if d is inf (multiply's guard, on f)
    return guard(multiply, f, r, _NO_PARAMS)


_NO_PARAMS: dict[str, Any] = {}


def _power_vjp_base(ct: Array, out: Array, x: Array, y: Array) -> Array:
    # d/dx x**y = y * x**(y - 1); 0 where y == 0 (x**0 == 1 is constant, also at
    # x == 0, where 0 * 0**-1 would be NaN). At x == 0 with 0 < y < 1 it is
    # inf, as the math says (x**0.5 at 0).
    if type(y) is float or type(y) is int:
        if y == 0:
            return ct * 0.0
        # x ** 1 is x exactly: no power node for a square (x ** 2, the common case)
        return ct * (y * (x if y == 2 else power(x, y - 1)))
    # NOTE: ct inside the guard: where y == 0 the result is 0 even for an infinite or
    # NaN ct (as PyTorch's mask, which second order relies on: ct = log(x < 0) there),
    # while a finite result keeps its exact derivative in y (1/x at y == 0; PyTorch: 0)
    return _exact_zeros(y, ct * (y * power(x, y - 1)))


def _power_vjp_exponent(ct: Array, out: Array, x: Array, y: Array) -> Array:
    # d/dy x**y = log(x) * x**y, as PyTorch's pow_backward_exponent: 0 where x == 0
    # and y >= 0, -inf where x == 0 and y < 0 (log 0 * inf), NaN where x < 0 (not real)
    x_v = value_of(x)
    if _is_complex(x_v) or _is_complex(value_of(y)):
        # the principal log, holomorphic: d/dy x**y = log(x) * x**y (0 at x == 0, as above)
        at_zero = x_v == 0
        if not numpy.any(at_zero):
            return ct * (log(x) * out)
        return ct * where(at_zero, 0.0, log(where(at_zero, 1.0, x)) * out)
    inside = (x_v > 0) | (x_v != x_v)
    if inside is True or (type(inside) is not bool and inside.all()):
        log_x = log(x)
        return ct * _exact_zeros(log_x, log_x * out)
    # NOTE: log(x) itself (not of a masked x), so that its derivatives at x <= 0 are
    # PyTorch's (1/x; log(0) * d out = -inf * ...), as the second order sees them
    at_zero = (x_v == 0) & (value_of(y) >= 0)
    with numpy.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf, log(x < 0) = NaN
        return ct * where(at_zero, 0.0, log(x) * out)


def _power_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """PowBackward0 for `x ** number`, PowBackward2 for `number ** x`, else PowBackward1."""
    if _is_number(inputs[1]):
        return "PowBackward0", (0,)
    return ("PowBackward2", (1,)) if _is_number(inputs[0]) else "PowBackward1"


power = register(
    Primitive(
        name="power",
        forward=lambda xp, x, y: xp.power(x, y),
        vjp=(_power_vjp_base, _power_vjp_exponent),
        jvp=ELEMENTWISE,
        sample=_binary(low=0.5, high=2.0, low2=-2.0, high2=2.0, complex=True),
        doc="x ** y (d/dx taken as 0 where y == 0; d/dy as PyTorch's: 0 where x == 0 <= y)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="power", torch="pow", method="pow", inplace="pow_", grad_fn=_power_grad_fn
        ),
    )
)


# --- exponentials and logarithms -------------------------------------------

exp = register(
    Primitive(
        name="exp",
        forward=lambda xp, x: xp.exp(x),
        vjp=(lambda ct, out, x: ct * out,),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="e ** x",
        keeps_zeros="elementwise",
        names=Names(numpy="exp", torch="exp", method="exp", inplace="exp_", grad_fn="ExpBackward0"),
    )
)

log = register(
    Primitive(
        name="log",
        forward=lambda xp, x: xp.log(x),
        vjp=(lambda ct, out, x: ct / x,),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 10.0, complex=True),
        doc="natural logarithm (gradient inf at 0)",
        keeps_zeros="elementwise",
        names=Names(numpy="log", torch="log", method="log", inplace="log_", grad_fn="LogBackward0"),
    )
)

log1p = register(
    Primitive(
        name="log1p",
        forward=lambda xp, x: xp.log1p(x),
        vjp=(lambda ct, out, x: ct / (x + 1.0),),
        jvp=ELEMENTWISE,
        sample=_unary(-0.9, 3.0, complex=True),
        doc="log(1 + x), accurate near 0",
        keeps_zeros="elementwise",
        names=Names(
            numpy="log1p", torch="log1p", method="log1p", inplace="log1p_", grad_fn="Log1PBackward0"
        ),
    )
)

expm1 = register(
    Primitive(
        name="expm1",
        forward=lambda xp, x: xp.expm1(x),
        vjp=(lambda ct, out, x: ct * (out + 1.0),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="exp(x) - 1, accurate near 0",
        keeps_zeros="elementwise",
        names=Names(
            numpy="expm1", torch="expm1", method="expm1", inplace="expm1_", grad_fn="Expm1Backward0"
        ),
    )
)

sqrt = register(
    Primitive(
        name="sqrt",
        forward=lambda xp, x: xp.sqrt(x),
        # NOTE: inf at 0 (the math), but 0 where ct is 0: see guard.
        vjp=(lambda ct, out, x: ct / (out * 2.0),),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 10.0, complex=True),
        doc="square root (gradient inf at 0)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="sqrt", torch="sqrt", method="sqrt", inplace="sqrt_", grad_fn="SqrtBackward0"
        ),
    )
)


# --- signs and magnitudes ----------------------------------------------------


def _sign_or_zero(x: Array) -> Array:
    s = sign(x)
    return s if all_finite(s) else where(s != s, 0.0, s)


def _unit_conj(x: Array, out: Array) -> Array:
    # conj(z) / |z| (0 at 0): d|z| = Re(conj(z) dz) / |z|, so JAX's cotangent of z is ct * this
    at_zero = value_of(out) == 0
    if not numpy.any(at_zero):
        return conjugate(x) / out
    return where(at_zero, 0.0, conjugate(x) / where(at_zero, 1.0, out))


def _abs_vjp(ct: Array, out: Array, x: Array) -> Array:
    v = value_of(x)
    if _is_complex(v):
        return ct * _unit_conj(x, out)
    # NOTE: at 0 the gradient is sign(0) = 0, the subgradient PyTorch and JAX use;
    # at a NaN it is 0 too, as PyTorch's sgn.
    return ct * _sign_or_zero(v)


def _abs_jvp(x_t: Array, out: Array, x: Array) -> Array:
    v = value_of(x)
    if _is_complex(v):  # not holomorphic: d|z| = Re(conj(z) dz) / |z|
        return real(x_t * _unit_conj(x, out))
    return x_t * _sign_or_zero(v)


absolute = register(
    Primitive(
        name="abs",
        forward=lambda xp, x: xp.abs(x),
        vjp=(_abs_vjp,),
        jvp=(_abs_jvp,),
        sample=_unary(complex=True),
        doc="|x| (gradient 0 at 0; conj(z) / |z| for complex z)",
        keeps_zeros="elementwise",
        names=Names(
            numpy=("absolute", "abs"),
            torch=("abs", "absolute"),
            method=("abs", "absolute"),
            inplace=("abs_", "absolute_"),
            grad_fn="AbsBackward0",
        ),
    )
)


def _sign_vjp(ct: Array, out: Array, x: Array) -> tuple[Array | None]:
    if not _is_complex(value_of(x)):
        return (None,)  # piecewise constant: zero gradient
    # sign(z) = z / |z|: dw = (dz - w**2 conj(dz)) / (2 |z|), not holomorphic (0 at 0)
    inv = _half_recip_abs(x)
    return (inv * (ct - conjugate(ct) * conjugate(out * out)),)


def _sign_jvp(tangents: tuple[Array | None], out: Array, x: Array) -> Array | None:
    (x_t,) = tangents
    if x_t is None or not _is_complex(value_of(x)):
        return None
    return _half_recip_abs(x) * (x_t - out * out * conjugate(x_t))


def _half_recip_abs(x: Array) -> Array:
    # 1 / (2 |z|), 0 at z == 0 (where sign's derivative is not defined)
    r = absolute(x)
    at_zero = value_of(r) == 0
    return where(at_zero, 0.0, 0.5 / where(at_zero, 1.0, r))


sign: Primitive = register(
    Primitive(
        name="sign",
        forward=lambda xp, x: xp.sign(x),
        vjp=_sign_vjp,  # zero gradient for real x (piecewise constant)
        jvp=_sign_jvp,
        sample=_unary(second_order=False, complex=True),
        doc="-1, 0 or 1 (zero gradient); z / |z| for complex z",
        names=Names(
            numpy="sign", torch="sign", method="sign", inplace="sign_", grad_fn="SignBackward0"
        ),
    )
)


# --- complex parts (see docs/concepts/complex.md for the convention) ---------------


def _is_complex(v: Any) -> bool:
    """Whether a value (array, NumPy or Python number) is complex."""
    dtype = getattr(v, "dtype", None)
    return dtype.kind == "c" if dtype is not None else type(v) is complex


real: Primitive = register(
    Primitive(
        name="real",
        forward=lambda xp, x: xp.real(x),
        # Re is R-linear; JAX's cotangent of z for Re(z) is ct itself (as a complex number)
        vjp=(lambda ct, out, x: ct,),  # the engine casts it to x's dtype
        jvp=LINEAR,
        sample=_unary(complex=True),
        doc="real part (Re z; x itself for real x)",
        names=Names(numpy="real"),
    )
)


def _imag_vjp(ct: Array, out: Array, x: Array) -> tuple[Array | None]:
    # Im(z) = (z - conj(z)) / 2j: JAX's cotangent of z is -1j * ct (0 for real x)
    return (ct * -1j,) if _is_complex(value_of(x)) else (None,)


imag = register(
    Primitive(
        name="imag",
        forward=lambda xp, x: xp.imag(x),
        vjp=_imag_vjp,
        jvp=LINEAR,
        sample=_unary(complex=True),
        doc="imaginary part (Im z; zeros with no gradient for real x)",
        names=Names(numpy="imag"),
    )
)

conjugate: Primitive = register(
    Primitive(
        name="conjugate",
        forward=lambda xp, x: xp.conjugate(x),
        vjp=(lambda ct, out, x: conjugate(ct),),  # d conj(z) = conj(dz): not holomorphic
        jvp=LINEAR,
        sample=_unary(complex=True),
        doc="complex conjugate (x itself for real x)",
        names=Names(numpy=("conjugate", "conj")),
    )
)


def _recip_or_zero(x: Array) -> Array:
    # 1 / z, 0 at z == 0
    at_zero = value_of(x) == 0
    if not numpy.any(at_zero):
        return 1.0 / x
    return where(at_zero, 0.0, 1.0 / where(at_zero, 1.0, x))


def _angle_vjp(ct: Array, out: Array, x: Array) -> tuple[Array | None]:
    # angle(z) = Im(log z): d angle = Im(dz / z), so JAX's cotangent is -1j * ct / z (0 at 0)
    if not _is_complex(value_of(x)):
        return (None,)  # 0 or pi: piecewise constant
    return (ct * (_recip_or_zero(x) * -1j),)


def _angle_jvp(tangents: tuple[Array | None], out: Array, x: Array) -> Array | None:
    (x_t,) = tangents
    if x_t is None or not _is_complex(value_of(x)):
        return None
    return imag(x_t * _recip_or_zero(x))


angle = register(
    Primitive(
        name="angle",
        forward=lambda xp, x: xp.angle(x),
        vjp=_angle_vjp,
        jvp=_angle_jvp,
        sample=_unary(imag=(0.2, 3.0), complex=True),
        doc="counterclockwise angle of complex z from the positive real axis, in radians",
        keeps_zeros="elementwise",
    )
)


# --- trigonometric and hyperbolic --------------------------------------------

sin = register(
    Primitive(
        name="sin",
        forward=lambda xp, x: xp.sin(x),
        vjp=(lambda ct, out, x: ct * cos(x),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="sine",
        keeps_zeros="elementwise",
        names=Names(numpy="sin", torch="sin", method="sin", inplace="sin_", grad_fn="SinBackward0"),
    )
)

cos: Primitive = register(
    Primitive(
        name="cos",
        forward=lambda xp, x: xp.cos(x),
        vjp=(lambda ct, out, x: -ct * sin(x),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="cosine",
        keeps_zeros="elementwise",
        names=Names(numpy="cos", torch="cos", method="cos", inplace="cos_", grad_fn="CosBackward0"),
    )
)

tan = register(
    Primitive(
        name="tan",
        forward=lambda xp, x: xp.tan(x),
        vjp=(lambda ct, out, x: ct * (out * out + 1.0),),  # 1 + tan(x)**2
        jvp=ELEMENTWISE,
        sample=_unary(-1.2, 1.2, complex=True),
        doc="tangent",
        keeps_zeros="elementwise",
        names=Names(numpy="tan", torch="tan", method="tan", inplace="tan_", grad_fn="TanBackward0"),
    )
)


def _tanh_vjp(ct: Array, out: Array, x: Array) -> Array:
    if (
        type(out) is _ndarray
        and out.size >= _IN_PLACE_SIZE
        and type(ct) is _ndarray
        and ct.shape == out.shape
        and ct.dtype == out.dtype
    ):
        # NOTE: a first-order pass on large NumPy arrays: the same three ufuncs as below,
        # written into the one temporary the rule owns (hand-written NumPy makes three; W4,
        # issue 18). On small ones `out=` costs more than the allocations it saves (W1)
        d = out * out
        _subtract(1.0, d, out=d)
        return _multiply(ct, d, out=d)
    return ct * (1.0 - out * out)


tanh = register(
    Primitive(
        name="tanh",
        forward=lambda xp, x: xp.tanh(x),
        vjp=(_tanh_vjp,),
        jvp=ELEMENTWISE,
        sample=_unary(imag=(-1.2, 1.2), complex=True),
        doc="hyperbolic tangent",
        keeps_zeros="elementwise",
        names=Names(
            numpy="tanh", torch="tanh", method="tanh", inplace="tanh_", grad_fn="TanhBackward0"
        ),
    )
)

sinh = register(
    Primitive(
        name="sinh",
        forward=lambda xp, x: xp.sinh(x),
        vjp=(lambda ct, out, x: ct * cosh(x),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="hyperbolic sine",
        keeps_zeros="elementwise",
        names=Names(
            numpy="sinh", torch="sinh", method="sinh", inplace="sinh_", grad_fn="SinhBackward0"
        ),
    )
)

cosh: Primitive = register(
    Primitive(
        name="cosh",
        forward=lambda xp, x: xp.cosh(x),
        vjp=(lambda ct, out, x: ct * sinh(x),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="hyperbolic cosine",
        keeps_zeros="elementwise",
        names=Names(
            numpy="cosh", torch="cosh", method="cosh", inplace="cosh_", grad_fn="CoshBackward0"
        ),
    )
)

arcsin = register(
    Primitive(
        name="arcsin",
        forward=lambda xp, x: xp.arcsin(x),
        vjp=(lambda ct, out, x: ct / sqrt(1.0 - x * x),),
        jvp=ELEMENTWISE,
        sample=_unary(-0.9, 0.9, complex=True),
        doc="inverse sine",
        keeps_zeros="elementwise",
        names=Names(
            numpy="arcsin",
            torch=("asin", "arcsin"),
            method=("asin", "arcsin"),
            inplace=("asin_", "arcsin_"),
            grad_fn="AsinBackward0",
        ),
    )
)

arccos = register(
    Primitive(
        name="arccos",
        forward=lambda xp, x: xp.arccos(x),
        vjp=(lambda ct, out, x: -ct / sqrt(1.0 - x * x),),
        jvp=ELEMENTWISE,
        sample=_unary(-0.9, 0.9, complex=True),
        doc="inverse cosine",
        keeps_zeros="elementwise",
        names=Names(
            numpy="arccos",
            torch=("acos", "arccos"),
            method=("acos", "arccos"),
            inplace=("acos_", "arccos_"),
            grad_fn="AcosBackward0",
        ),
    )
)

arctan = register(
    Primitive(
        name="arctan",
        forward=lambda xp, x: xp.arctan(x),
        vjp=(lambda ct, out, x: ct / (x * x + 1.0),),
        jvp=ELEMENTWISE,
        sample=_unary(imag=(-0.5, 0.5), complex=True),
        doc="inverse tangent",
        keeps_zeros="elementwise",
        names=Names(
            numpy="arctan",
            torch=("atan", "arctan"),
            method=("atan", "arctan"),
            inplace=("atan_", "arctan_"),
            grad_fn="AtanBackward0",
        ),
    )
)

arcsinh = register(
    Primitive(
        name="arcsinh",
        forward=lambda xp, x: xp.arcsinh(x),
        vjp=(lambda ct, out, x: ct / sqrt(x * x + 1.0),),
        jvp=ELEMENTWISE,
        sample=_unary(imag=(-0.5, 0.5), complex=True),
        doc="inverse hyperbolic sine",
        keeps_zeros="elementwise",
        names=Names(
            numpy="arcsinh",
            torch=("asinh", "arcsinh"),
            method=("asinh", "arcsinh"),
            inplace=("asinh_", "arcsinh_"),
            grad_fn="AsinhBackward0",
        ),
    )
)


def _atan2_recip(y: Array, x: Array) -> Array:
    # 1 / (x**2 + y**2), taken as 0 at the origin: PyTorch's gradient of atan2(0, 0) is (0, -0)
    d = x * x + y * y
    at_origin = value_of(d) == 0
    return where(at_origin, 0.0, 1.0 / where(at_origin, 1.0, d))


arctan2 = register(
    Primitive(
        name="arctan2",
        forward=lambda xp, x, y: xp.arctan2(x, y),
        vjp=(
            lambda ct, out, y, x: ct * x * _atan2_recip(y, x),
            lambda ct, out, y, x: -ct * y * _atan2_recip(y, x),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(low=0.3, high=3.0),
        doc="angle of the point (x, y) (gradient 0 at the origin, as PyTorch's)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="arctan2",
            torch=("atan2", "arctan2"),
            method=("atan2", "arctan2"),
            inplace=("atan2_", "arctan2_"),
            grad_fn="Atan2Backward0",
        ),
    )
)


# --- activations -------------------------------------------------------------

sigmoid = register(
    Primitive(
        name="sigmoid",
        # exp(-log(1 + exp(-x))) never overflows
        forward=lambda xp, x: xp.exp(-xp.logaddexp(0.0, -x)),
        vjp=(lambda ct, out, x: ct * (out * (1.0 - out)),),
        jvp=ELEMENTWISE,
        sample=_unary(),
        doc="1 / (1 + exp(-x)), stable for large |x|",
        keeps_zeros="elementwise",
        names=Names(
            torch="sigmoid", method="sigmoid", inplace="sigmoid_", grad_fn="SigmoidBackward0"
        ),
    )
)

# The integer type of each float's width, for masks with the float's bits.
_SAME_WIDTH_INT = {
    numpy.dtype(f): numpy.dtype(i)
    for f, i in (("float16", "int16"), ("float32", "int32"), ("float64", "int64"))
}


def _relu_vjp(ct: Any, out: Any, x: Any) -> Any:
    """where(x > 0, ct, 0.0); on NumPy float arrays of one shape, the same bits by a mask.

    numpy.where branches per entry, and activations' signs are random: on a
    (128, 256) float32 batch it took 110-124 us against about 9 us for an AND
    of ct's bits with a mask of 0 or all ones (W8 runs it twice a step).
    """
    xv = value_of(x)
    if type(ct) is numpy.ndarray and type(xv) is numpy.ndarray and ct.shape == xv.shape != ():
        ints = _SAME_WIDTH_INT.get(ct.dtype)
        if ints is not None:
            mask = numpy.negative(numpy.greater(xv, 0).view(numpy.int8), dtype=ints)
            return numpy.bitwise_and(ct.view(ints), mask, out=mask).view(ct.dtype)
    return where(xv > 0, ct, 0.0)


relu = register(
    Primitive(
        name="relu",
        forward=lambda xp, x: xp.maximum(x, 0),
        # NOTE: 0 at 0, as PyTorch's; at a NaN x also 0, where PyTorch passes ct on:
        # an unselected (NaN) branch never poisons a gradient (module docstring)
        vjp=(_relu_vjp,),
        jvp=ELEMENTWISE,
        sample=_unary(second_order=False),
        doc="max(x, 0) (gradient 0 at 0)",
        names=Names(torch="relu", method="relu", inplace="relu_", grad_fn="ReluBackward0"),
    )
)

softplus = register(
    Primitive(
        name="softplus",
        forward=lambda xp, x: xp.logaddexp(0.0, x),
        vjp=(lambda ct, out, x: ct * sigmoid(x),),
        jvp=ELEMENTWISE,
        sample=_unary(),
        doc="log(1 + exp(x)), stable for large |x|",
        keeps_zeros="elementwise",
        names=Names(grad_fn="SoftplusBackward0"),
    )
)


# --- selection ---------------------------------------------------------------


def _winner_vjp(ct: Array, x: Array, y: Array) -> Array:
    # ct where x wins, ct / 2 at ties (as PyTorch and JAX split them), else 0;
    # `where` keeps ct's dtype, so float32 stays float32.
    # NOTE: a NaN gets 0 on both sides (PyTorch passes ct to both): an unselected
    # NaN branch never poisons a gradient (module docstring).
    x, y = value_of(x), value_of(y)
    return where(x > y, ct, where(x == y, ct * 0.5, 0.0))


maximum = register(
    Primitive(
        name="maximum",
        forward=lambda xp, x, y: xp.maximum(x, y),
        vjp=(
            lambda ct, out, x, y: _winner_vjp(ct, x, y),
            lambda ct, out, x, y: _winner_vjp(ct, y, x),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(second_order=False, complex=True),
        doc="elementwise larger value (ties split the gradient)",
        names=Names(numpy="maximum", torch="maximum", method="maximum", grad_fn="MaximumBackward0"),
    )
)

minimum = register(
    Primitive(
        name="minimum",
        forward=lambda xp, x, y: xp.minimum(x, y),
        vjp=(
            lambda ct, out, x, y: _winner_vjp(ct, y, x),
            lambda ct, out, x, y: _winner_vjp(ct, x, y),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(second_order=False, complex=True),
        doc="elementwise smaller value (ties split the gradient)",
        names=Names(numpy="minimum", torch="minimum", method="minimum", grad_fn="MinimumBackward0"),
    )
)


def _parts(v: Any) -> tuple[Any, Any]:
    """The real and imaginary parts of a value (a bound: a number or an array)."""
    if type(v) is float or type(v) is int:
        return v, 0.0
    return v.real, v.imag


def _lex_ge(a: Any, b: Any) -> Any:
    """`a >= b` in NumPy's order of complex numbers: real parts, then imaginary ones.

    NumPy's own definition (CGE in npymath), NaN parts included: a larger real
    part counts only where neither imaginary part is NaN (`x == x` is the NaN test).
    """
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    return ((ar > br) & (ai == ai) & (bi == bi)) | ((ar == br) & (ai >= bi))


def _complex_clip(xp: ModuleType, x: Array, a_min: Any, a_max: Any) -> Array:
    """numpy.clip of a complex CuPy array: maximum with a_min, then minimum with a_max.

    NOTE: CuPy 14.2's clip kernel (`cupy_clip`) has no complex loop (its
    types end at 'ddd->d'), so complex clip is built from real comparisons
    of the parts, in NumPy's lexicographic order; a NaN stays NaN, as in
    numpy.clip.
    """
    out = x
    if a_min is not None:
        out = xp.where(_lex_ge(out, a_min) | xp.isnan(out), out, a_min)
    if a_max is not None:
        out = xp.where(_lex_ge(a_max, out) | xp.isnan(out), out, a_max)
    return out.astype(x.dtype, copy=False)


def _clip_forward(xp: ModuleType, x: Array, *, a_min: Any, a_max: Any) -> Array:
    if xp is not numpy and getattr(x, "dtype", None) is not None and x.dtype.kind == "c":
        return _complex_clip(xp, x, a_min, a_max)
    return xp.clip(x, a_min, a_max)


def _clip_vjp(ct: Array, out: Array, x: Array, *, a_min: Any, a_max: Any) -> Array:
    x = value_of(x)
    if type(x) is not _ndarray and getattr(x, "dtype", None) is not None and x.dtype.kind == "c":
        # a complex CuPy x: the order of the forward (_complex_clip), from real comparisons
        inside = True
        if a_min is not None:
            inside = inside & _lex_ge(x, a_min)
        if a_max is not None:
            inside = inside & _lex_ge(a_max, x)
        return where(inside, ct, 0.0)
    inside = True
    if a_min is not None:
        inside = inside & (x >= a_min)
    if a_max is not None:
        inside = inside & (x <= a_max)
    return where(inside, ct, 0.0)


def _clip_sample(g: Draw) -> Drawn:
    x = g.array(g.shape(), -3.0, 3.0)
    return (x,), {"a_min": -1.0, "a_max": 1.5}


clip = register(
    Primitive(
        name="clip",
        forward=_clip_forward,
        vjp=(_clip_vjp,),
        jvp=ELEMENTWISE,
        params=("a_min", "a_max"),
        sample=Sample(_clip_sample, second_order=False, complex=True),
        doc="x limited to [a_min, a_max] (gradient 1 inside, 0 outside)",
        names=Names(
            numpy="clip",
            torch=("clamp", "clip"),
            method=("clamp", "clip"),
            inplace=("clamp_", "clip_"),
            grad_fn="ClampBackward1",
        ),
    )
)


# --- clamp with bounds that are inputs (PyTorch's clamp with tensor bounds) ----------


def _clamp_masks(x: Array, lo: Array, hi: Array, bounds: str) -> tuple[Any, Any, Any]:
    """Where x, lo and hi get the cotangent, as PyTorch's `clamp_backward_min_max` says.

    Ties go to x (x == lo or x == hi: x's gradient); with both bounds, lo
    gets it only where lo < hi and hi where hi < lo or x > hi, so where
    lo == hi and x is outside, nobody does (PyTorch's choice, matched).
    A NaN anywhere makes every comparison false: no gradient there.
    """
    x, lo, hi = value_of(x), value_of(lo), value_of(hi)
    if bounds == "min":
        return x >= lo, x < lo, False
    if bounds == "max":
        return x <= hi, False, x > hi
    return (x >= lo) & (x <= hi), (x < lo) & (lo < hi), (x > hi) | (hi < lo)


def _clamp_forward(xp: Any, x: Array, lo: Array, hi: Array, *, bounds: str, method: str) -> Array:
    if bounds == "min":
        return xp.maximum(x, lo)
    if bounds == "max":
        return xp.minimum(x, hi)
    return xp.minimum(xp.maximum(x, lo), hi)  # hi wins where lo > hi, as in PyTorch


def _clamp_rule(i: int) -> Any:
    def rule(
        ct: Array, out: Array, x: Array, lo: Array, hi: Array, *, bounds: str, method: str
    ) -> Array:
        return where(_clamp_masks(x, lo, hi, bounds)[i], ct, 0.0)

    return rule


def _clamp_sample(g: Draw) -> Drawn:
    s1, s2, s3 = g.broadcast_shapes(3)
    bounds = ("min", "max", "both")[g.integers(0, 2)]
    x = g.array(s1, -3.0, 3.0)
    lo, hi = g.array(s2, -2.0, -0.5), g.array(s3, 0.5, 2.0)
    if g.boolean():
        lo, hi = hi, lo  # lo > hi: hi wins everywhere
    # An absent bound is a number the forward ignores (what funcgrad.clamp passes).
    return (x, 0.0 if bounds == "max" else lo, 0.0 if bounds == "min" else hi), {
        "bounds": bounds,
        "method": "clamp",
    }


def _clamp_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """ClampBackward0; ClampMin/MaxBackward1 for `clamp_min`/`clamp_max` (Backward0: a number bound)."""
    method = params["method"]
    if method == "clamp_min":
        return (
            ("ClampMinBackward0", (0,)) if _is_number(inputs[1]) else ("ClampMinBackward1", (0, 1))
        )
    if method == "clamp_max":
        return (
            ("ClampMaxBackward0", (0,)) if _is_number(inputs[2]) else ("ClampMaxBackward1", (0, 2))
        )
    return "ClampBackward0"


clamp = register(
    Primitive(
        name="clamp",
        forward=_clamp_forward,
        vjp=(_clamp_rule(0), _clamp_rule(1), _clamp_rule(2)),
        jvp=ELEMENTWISE,
        params=("bounds", "method"),
        sample=Sample(_clamp_sample, second_order=False),
        doc=(
            "x limited to [lo, hi], the bounds being inputs with gradients (bounds: 'min', "
            "'max' or 'both'; the other input is ignored); ties go to x, as in PyTorch"
        ),
        names=Names(
            torch=("clamp_min", "clamp_max"),
            method=("clamp_min", "clamp_max"),
            inplace=("clamp_min_", "clamp_max_"),
            grad_fn=_clamp_grad_fn,
        ),
    )
)


def _where_sample(g: Draw) -> Drawn:
    s0, s1, s2 = g.broadcast_shapes(3)
    cond = g.array(s0, -1.0, 1.0).real > 0
    return (cond, g.array(s1, -3.0, 3.0), g.array(s2, -3.0, 3.0)), {}


def _where_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """WhereBackward0, listing x and y (the condition has no gradient, as in PyTorch)."""
    return "WhereBackward0", (1, 2)


def _where_forward(xp: Any, cond: Any, x: Any, y: Any) -> Array:
    # NOTE: CuPy's where calls cond.astype: a Python bool (a rule's `x == 0` of a number)
    # becomes an array of the values' module, on their GPU, first (NumPy takes it as it is).
    if xp is not numpy and not hasattr(cond, "astype"):
        cond = constant_like(cond, x if isinstance(x, xp.ndarray) else y)
    return xp.where(cond, x, y)


where: Primitive = register(
    Primitive(
        name="where",
        forward=_where_forward,
        # The unselected branch gets an exact 0, never 0 * (its derivative).
        vjp=(
            None,
            lambda ct, out, cond, x, y: where(cond, ct, 0.0),
            lambda ct, out, cond, x, y: where(cond, 0.0, ct),
        ),
        jvp=ELEMENTWISE,
        sample=Sample(_where_sample, complex=True),
        doc="x where cond is true, else y (cond gets no gradient)",
        names=Names(numpy="where", torch="where", grad_fn=_where_grad_fn),
        # on NumPy values _where_forward is numpy.where: the registry calls it directly
        # (one Python frame fewer: 1176 -> 956 ns a call, min process_time)
        numpy_forward=numpy.where,
    )
)


# --- dtype and identity ------------------------------------------------------


def _astype_sample(g: Draw) -> Drawn:
    x = g.array(g.shape(), -3.0, 3.0)
    return (x,), {"dtype": "complex128" if x.dtype.kind == "c" else "float64"}


astype = register(
    Primitive(
        name="astype",
        forward=lambda xp, x, *, dtype: x.astype(dtype),
        vjp=(lambda ct, out, x, *, dtype: ct,),  # the engine casts back to x's dtype
        jvp=LINEAR,
        params=("dtype",),
        sample=Sample(_astype_sample, complex=True),
        doc="x converted to a floating-point (or complex) dtype",
        names=Names(grad_fn="ToCopyBackward0"),
    )
)

identity = register(
    Primitive(
        name="identity",
        forward=lambda xp, x: x,
        vjp=(lambda ct, out, x: ct,),
        jvp=LINEAR,
        sample=_unary(complex=True),
        doc="x itself as a new node (a fresh variable for nested transforms)",
        # NOTE: no torch name: PyTorch's clone owns its values (`copy`, in shape.py)
        names=Names(grad_fn="CloneBackward0"),
    )
)

stop_gradient = register(
    Primitive(
        name="stop_gradient",
        forward=lambda xp, x: x,
        vjp=(None,),
        jvp=(None,),
        sample=_unary(second_order=False, complex=True),
        doc="x, with no gradient flowing through",
        names=Names(numpy="stop_gradient"),
    )
)
