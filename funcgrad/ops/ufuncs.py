"""NumPy's other float ufuncs: logarithms and powers in other bases, angles, remainders, signs.

Every float ufunc of NumPy that `elementwise` does not declare is here, with
NumPy's name (`log2`, `hypot`, `fmod`, `copysign` ...): a primitive each,
with its VJP and JVP rules and a `Sample`, so the generic tests cover it.

Conventions at the points where a derivative does not exist:

* `hypot` at (0, 0): 0 for both inputs (the subgradient `abs` has at 0; HIPS
  autograd gives NaN);
* `cbrt` at 0: inf, as the math (and JAX) say; a zero cotangent stays 0;
* `fmod`, `remainder`: 1 in `x`, `-trunc(x / y)` (`-floor(x / y)`) in `y`,
  the one-sided value at the jumps (as HIPS autograd's `mod`);
* `fmax`, `fmin`: as `maximum` (ties split the gradient), except that a NaN
  is ignored: the gradient goes to the other input, the one returned;
* `copysign`: `sign(x) * (+-1)` in `x` (0 at `x == 0`, as `abs`), none in `y`;
* `heaviside(x1, x2)`: no gradient in `x1`, 1 in `x2` where `x1 == 0`;
* `nextafter(x, y)`: 1 in `x` (it is `x` moved by one unit in the last place),
  none in `y`.

Rules of the holomorphic functions (`log2`, `log10`, `exp2`, `sinc`,
`arccosh`, `arctanh`, `square`, `reciprocal`, `positive`) are the complex
derivative times the cotangent (`ct * f'(z)`, JAX's convention), so they are
correct for complex inputs as they stand.
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from funcgrad.graph.node import Array
from funcgrad.ops._util import value_of
from funcgrad.ops.elementwise import (
    _power_vjp_base,
    _power_vjp_exponent,
    _sign_or_zero,
    astype,
    cos,
    exp,
    sqrt,
    where,
)
from funcgrad.ops.registry import (
    ELEMENTWISE,
    LINEAR,
    Draw,
    Drawn,
    Names,
    Primitive,
    Sample,
    register,
)

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_PI = math.pi


# fmt: off
def _unary(low: float = -3.0, high: float = 3.0, **kw: Any) -> Sample:
    return Sample(lambda g: ((g.array(g.shape(), low, high),), {}), **kw)


def _signed(low: float, high: float, **kw: Any) -> Sample:
    """Arrays with `low <= |x| <= high` and either sign (away from a point where f' is infinite)."""
    def make(g: Draw) -> Drawn:
        s = g.shape()
        magnitude, sign = g.array(s, low, high), g.array(s, -1.0, 1.0)
        return (numpy.where(sign.real < 0, -magnitude, magnitude),), {}
    return Sample(make, **kw)


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


# --- logarithms and exponentials in other bases --------------------------------------

log2 = register(
    Primitive(
        name="log2",
        forward=lambda xp, x: xp.log2(x),
        vjp=(lambda ct, out, x: ct / (x * _LN2),),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 10.0, complex=True),
        doc="base-2 logarithm (gradient inf at 0)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="log2", torch="log2", method="log2", inplace="log2_", grad_fn="Log2Backward0"
        ),
    )
)

log10 = register(
    Primitive(
        name="log10",
        forward=lambda xp, x: xp.log10(x),
        vjp=(lambda ct, out, x: ct / (x * _LN10),),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 10.0, complex=True),
        doc="base-10 logarithm (gradient inf at 0)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="log10", torch="log10", method="log10", inplace="log10_", grad_fn="Log10Backward0"
        ),
    )
)

exp2: Primitive = register(
    Primitive(
        name="exp2",
        forward=lambda xp, x: xp.exp2(x),
        vjp=(lambda ct, out, x: ct * (out * _LN2),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="2 ** x",
        keeps_zeros="elementwise",
        names=Names(
            numpy="exp2", torch="exp2", method="exp2", inplace="exp2_", grad_fn="Exp2Backward0"
        ),
    )
)

logaddexp = register(
    Primitive(
        name="logaddexp",
        forward=lambda xp, x, y: xp.logaddexp(x, y),
        # d/dx log(e**x + e**y) = e**(x - out): the softmax of the two
        vjp=(
            lambda ct, out, x, y: ct * exp(x - out),
            lambda ct, out, x, y: ct * exp(y - out),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(),
        doc="log(exp(x) + exp(y)), without overflow",
        keeps_zeros="elementwise",
        names=Names(
            numpy="logaddexp", torch="logaddexp", method="logaddexp", grad_fn="LogaddexpBackward0"
        ),
    )
)

logaddexp2 = register(
    Primitive(
        name="logaddexp2",
        forward=lambda xp, x, y: xp.logaddexp2(x, y),
        vjp=(
            lambda ct, out, x, y: ct * exp2(x - out),
            lambda ct, out, x, y: ct * exp2(y - out),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(),
        doc="log2(2 ** x + 2 ** y), without overflow",
        keeps_zeros="elementwise",
        names=Names(
            numpy="logaddexp2",
            torch="logaddexp2",
            method="logaddexp2",
            grad_fn="Logaddexp2Backward0",
        ),
    )
)


def _in_dtype(a: Any, dtype: str) -> Any:
    """Return `a` in `dtype` (a Python number as it is): float_power's rules compute in it."""
    if type(a) is float or type(a) is int or value_of(a).dtype == dtype:
        return a
    return astype(a, dtype=dtype)


def _float_power_sample(g: Draw) -> Drawn:
    args, _ = _binary(0.5, 2.0, -2.0, 2.0).make(g)
    return args, {"dtype": "float64"}


float_power = register(
    Primitive(
        name="float_power",
        forward=lambda xp, x, y, *, dtype: xp.float_power(x, y, dtype=dtype),
        # power's rules (and conventions at y == 0 and x == 0) on the inputs cast to dtype
        vjp=(
            lambda ct, out, x, y, *, dtype: _power_vjp_base(
                ct, out, _in_dtype(x, dtype), _in_dtype(y, dtype)
            ),
            lambda ct, out, x, y, *, dtype: _power_vjp_exponent(
                ct, out, _in_dtype(x, dtype), _in_dtype(y, dtype)
            ),
        ),
        jvp=ELEMENTWISE,
        params=("dtype",),
        sample=Sample(_float_power_sample),
        doc="x ** y computed in dtype (float64 unless complex), as NumPy's float_power",
        keeps_zeros="elementwise",
        names=Names(numpy="float_power"),
    )
)


# --- roots and powers -----------------------------------------------------------------

cbrt = register(
    Primitive(
        name="cbrt",
        forward=lambda xp, x: xp.cbrt(x),
        # NOTE: inf at 0 (the math, and JAX's), 0 where ct is 0 (keeps_zeros)
        vjp=(lambda ct, out, x: ct / ((out * out) * 3.0),),
        jvp=ELEMENTWISE,
        sample=_signed(0.2, 3.0),
        doc="cube root (gradient inf at 0)",
        keeps_zeros="elementwise",
        names=Names(numpy="cbrt"),
    )
)

square = register(
    Primitive(
        name="square",
        forward=lambda xp, x: xp.square(x),
        vjp=(lambda ct, out, x: ct * (x * 2.0),),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="x * x",
        keeps_zeros="elementwise",
        names=Names(numpy="square"),
    )
)

reciprocal = register(
    Primitive(
        name="reciprocal",
        forward=lambda xp, x: xp.reciprocal(x),
        vjp=(lambda ct, out, x: -ct * (out * out),),
        jvp=ELEMENTWISE,
        sample=_signed(0.3, 3.0, complex=True),
        doc="1 / x (gradient -inf at 0)",
        keeps_zeros="elementwise",
        names=Names(numpy="reciprocal"),
    )
)

positive = register(
    Primitive(
        name="positive",
        forward=lambda xp, x: xp.positive(x),
        vjp=(lambda ct, out, x: ct,),
        jvp=LINEAR,
        sample=_unary(complex=True),
        doc="+x",
        names=Names(numpy="positive"),
    )
)


def _hypot_rule(ct: Array, out: Array, x: Array, y: Array) -> Array:
    # d/dx sqrt(x**2 + y**2) = x / out, taken as 0 at the origin (the subgradient abs has at 0)
    at_origin = value_of(out) == 0
    if not at_origin.any():
        return ct * (x / out)
    return ct * where(at_origin, 0.0, x / where(at_origin, 1.0, out))


hypot = register(
    Primitive(
        name="hypot",
        forward=lambda xp, x, y: xp.hypot(x, y),
        vjp=(
            lambda ct, out, x, y: _hypot_rule(ct, out, x, y),
            lambda ct, out, x, y: _hypot_rule(ct, out, y, x),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(),
        doc="sqrt(x ** 2 + y ** 2), without overflow (gradient 0 at the origin)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="hypot", torch="hypot", method="hypot", inplace="hypot_", grad_fn="HypotBackward0"
        ),
    )
)


# --- trigonometric and hyperbolic ---------------------------------------------------------


def _sinc_series_derivative(x: Array) -> Array:
    # sinc'(x) = pi * y * sum_k>=1 (-1)**k 2k y**(2k-2) / (2k+1)!, y = pi x: Horner in y**2
    y = x * _PI
    y2 = y * y
    p: Any = _SINC_COEFFS[-1]
    for c in reversed(_SINC_COEFFS[:-1]):
        p = p * y2 + c
    return y * p * _PI


# (-1)**k * 2k / (2k + 1)! for k = 1 .. 9: enough for |pi x| < 0.32 to rounding error
_SINC_COEFFS = tuple((-1) ** k * 2 * k / math.factorial(2 * k + 1) for k in range(1, 10))


def _sinc_vjp(ct: Array, out: Array, x: Array) -> Array:
    # sinc'(x) = (cos(pi x) - sinc(x)) / x; near 0 that cancels (0 / 0 at 0), so
    # there it is the derivative of sinc's Taylor series, exact at 0 to all orders
    near = numpy.abs(value_of(x)) < 0.1
    if not near.any():
        return ct * ((cos(x * _PI) - out) / x)
    safe = where(near, 1.0, x)  # neither branch divides by 0
    far = (cos(safe * _PI) - out) / safe
    return ct * where(near, _sinc_series_derivative(where(near, x, 0.0)), far)


sinc: Primitive = register(
    Primitive(
        name="sinc",
        forward=lambda xp, x: xp.sinc(x),
        vjp=(_sinc_vjp,),
        jvp=ELEMENTWISE,
        sample=_unary(complex=True),
        doc="sin(pi x) / (pi x), 1 at 0 (derivatives accurate near 0)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="sinc", torch="sinc", method="sinc", inplace="sinc_", grad_fn="SincBackward0"
        ),
    )
)

arccosh = register(
    Primitive(
        name="arccosh",
        forward=lambda xp, x: xp.arccosh(x),
        # 1 / sqrt(x**2 - 1), written so that it is the complex derivative on every branch
        vjp=(lambda ct, out, x: ct / (sqrt(x - 1.0) * sqrt(x + 1.0)),),
        jvp=ELEMENTWISE,
        sample=_unary(1.1, 4.0, complex=True),
        doc="inverse hyperbolic cosine (gradient inf at 1)",
        keeps_zeros="elementwise",
        names=Names(
            numpy=("arccosh", "acosh"),
            torch=("acosh", "arccosh"),
            method=("acosh", "arccosh"),
            inplace=("acosh_", "arccosh_"),
            grad_fn="AcoshBackward0",
        ),
    )
)

arctanh = register(
    Primitive(
        name="arctanh",
        forward=lambda xp, x: xp.arctanh(x),
        vjp=(lambda ct, out, x: ct / (1.0 - x * x),),
        jvp=ELEMENTWISE,
        sample=_unary(-0.9, 0.9, complex=True),
        doc="inverse hyperbolic tangent (gradient inf at -1 and 1)",
        keeps_zeros="elementwise",
        names=Names(
            numpy=("arctanh", "atanh"),
            torch=("atanh", "arctanh"),
            method=("atanh", "arctanh"),
            inplace=("atanh_", "arctanh_"),
            grad_fn="AtanhBackward0",
        ),
    )
)

deg2rad = register(
    Primitive(
        name="deg2rad",
        forward=lambda xp, x: xp.deg2rad(x),
        vjp=(lambda ct, out, x: ct * (_PI / 180.0),),
        jvp=LINEAR,
        sample=_unary(-200.0, 200.0),
        doc="angles in degrees to radians",
        names=Names(
            numpy=("deg2rad", "radians"),
            torch="deg2rad",
            method="deg2rad",
            inplace="deg2rad_",
            grad_fn="Deg2RadBackward0",
        ),
    )
)

rad2deg = register(
    Primitive(
        name="rad2deg",
        forward=lambda xp, x: xp.rad2deg(x),
        vjp=(lambda ct, out, x: ct * (180.0 / _PI),),
        jvp=LINEAR,
        sample=_unary(),
        doc="angles in radians to degrees",
        names=Names(
            numpy=("rad2deg", "degrees"),
            torch="rad2deg",
            method="rad2deg",
            inplace="rad2deg_",
            grad_fn="Rad2DegBackward0",
        ),
    )
)


# --- magnitudes and signs ---------------------------------------------------------------

fabs = register(
    Primitive(
        name="fabs",
        forward=lambda xp, x: xp.fabs(x),
        # NOTE: 0 at 0 and at a NaN, as abs
        vjp=(lambda ct, out, x: ct * _sign_or_zero(value_of(x)),),
        jvp=ELEMENTWISE,
        sample=_unary(),
        doc="|x| of real x (gradient 0 at 0)",
        keeps_zeros="elementwise",
        names=Names(numpy="fabs"),
    )
)


def _copysign_factor(x: Array, y: Array) -> Array:
    # copysign(x, y) = |x| * (-1 if signbit(y) else 1): d/dx = sign(x) * that (0 at x == 0)
    s = _sign_or_zero(value_of(x))
    return where(numpy.signbit(value_of(y)), -s, s)


copysign = register(
    Primitive(
        name="copysign",
        forward=lambda xp, x, y: xp.copysign(x, y),
        vjp=(lambda ct, out, x, y: ct * _copysign_factor(x, y), None),
        jvp=ELEMENTWISE,
        sample=_binary(second_order=False),
        doc="|x| with the sign of y (gradient +-1 in x, 0 at x == 0; none in y)",
        names=Names(
            numpy="copysign",
            torch="copysign",
            method="copysign",
            inplace="copysign_",
            grad_fn="CopysignBackward0",
        ),
    )
)


def _heaviside_sample(g: Draw) -> Drawn:
    s1, s2 = g.broadcast_shapes(2)
    x2 = g.array(s2, -3.0, 3.0)
    kind = g.integers(0, 2)
    if kind == 1:  # away from the step: no gradient in either input
        x1: Any = g.array(s1, 0.1, 3.0) * numpy.where(g.array(s1, -1.0, 1.0) < 0, -1.0, 1.0)
    elif kind == 0:  # on the step everywhere: x2 itself
        x1 = 0.0
    else:  # a constant with entries on the step (a boolean: False is 0, True is 1)
        x1 = g.array(s1, -1.0, 1.0) < 0
    return (x1, x2), {}


heaviside = register(
    Primitive(
        name="heaviside",
        forward=lambda xp, x1, x2: xp.heaviside(x1, x2),
        # piecewise constant in x1; x2 is the value (gradient 1) where x1 == 0
        vjp=(None, lambda ct, out, x1, x2: where(value_of(x1) == 0, ct, 0.0)),
        jvp=ELEMENTWISE,
        sample=Sample(_heaviside_sample),
        doc="0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0 (no gradient in x1)",
        names=Names(numpy="heaviside"),
    )
)


# --- remainders ---------------------------------------------------------------------------


def _quotient(x: Array, y: Array, rounding: Any) -> Array:
    """Return `rounding(x / y)` of the values: a constant (the remainders' slope in y)."""
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return rounding(value_of(x) / value_of(y))


def _by_divisor(name: str) -> Any:
    def rule(inputs: Any, params: Any) -> Any:
        if type(inputs[1]) in (int, float):
            return f"{name}Backward0", (0,)
        return f"{name}Backward1"

    rule.__doc__ = f"{name}Backward0 for a number divisor (x listed), else {name}Backward1."
    return rule


def _remainder_sample(g: Draw) -> Drawn:
    # x / y kept at least 0.04 away from an integer, where the remainders jump
    s1, s2 = g.broadcast_shapes(2)
    y = g.array(s2, 1.0, 1.04) * (-1.0 if g.boolean() else 1.0)
    whole = numpy.floor(g.array(s1, 0.0, 2.999))
    x = (whole + g.array(s1, 0.12, 0.88)) * (-1.0 if g.boolean() else 1.0)
    return (x, y), {}


fmod = register(
    Primitive(
        name="fmod",
        forward=lambda xp, x, y: xp.fmod(x, y),
        # x - trunc(x / y) * y: 1 in x, -trunc(x / y) in y
        vjp=(
            lambda ct, out, x, y: ct,
            lambda ct, out, x, y: -ct * _quotient(x, y, numpy.trunc),
        ),
        jvp=ELEMENTWISE,
        sample=Sample(_remainder_sample),
        doc="remainder of x / y with the sign of x (gradient 1 in x, -trunc(x / y) in y)",
        keeps_zeros="elementwise",
        names=Names(
            numpy="fmod", torch="fmod", method="fmod", inplace="fmod_", grad_fn=_by_divisor("Fmod")
        ),
    )
)

remainder = register(
    Primitive(
        name="remainder",
        forward=lambda xp, x, y: xp.remainder(x, y),
        # x - floor(x / y) * y: 1 in x, -floor(x / y) in y (as HIPS autograd and JAX)
        vjp=(
            lambda ct, out, x, y: ct,
            lambda ct, out, x, y: -ct * _quotient(x, y, numpy.floor),
        ),
        jvp=ELEMENTWISE,
        sample=Sample(_remainder_sample),
        doc="remainder of x / y with the sign of y (gradient 1 in x, -floor(x / y) in y)",
        keeps_zeros="elementwise",
        names=Names(
            numpy=("remainder", "mod"),
            torch="remainder",
            method="remainder",
            inplace="remainder_",
            grad_fn=_by_divisor("Remainder"),
        ),
    )
)


# --- selection ignoring NaNs --------------------------------------------------------------


def _nan_winner_vjp(ct: Array, x: Array, y: Array, wins: Any) -> Array:
    # ct where x is returned: it wins, or y is NaN and x is not; ct / 2 at ties (as maximum)
    x, y = value_of(x), value_of(y)
    returned = wins(x, y) | ((y != y) & (x == x))
    return where(returned, ct, where(x == y, ct * 0.5, 0.0))


def _greater(x: Array, y: Array) -> Any:
    return x > y


def _less(x: Array, y: Array) -> Any:
    return x < y


def _nan_sample(g: Draw) -> Drawn:
    (x, y), _ = _binary().make(g)
    kind = g.integers(0, 2)  # NaNs in one input (kind 0: x, 2: y): the other one is returned
    if kind != 1:
        a = x if kind == 0 else y
        a = numpy.where(g.array(a.shape, 0.0, 1.0) < 0.3, numpy.nan, a)
        x, y = (a, y) if kind == 0 else (x, a)
    return (x, y), {}


fmax = register(
    Primitive(
        name="fmax",
        forward=lambda xp, x, y: xp.fmax(x, y),
        vjp=(
            lambda ct, out, x, y: _nan_winner_vjp(ct, x, y, _greater),
            lambda ct, out, x, y: _nan_winner_vjp(ct, y, x, _greater),
        ),
        jvp=ELEMENTWISE,
        sample=Sample(_nan_sample, second_order=False),
        doc="elementwise larger value, ignoring NaNs (the gradient goes to the value returned)",
        names=Names(numpy="fmax", torch="fmax", method="fmax", grad_fn="FmaxBackward0"),
    )
)

fmin = register(
    Primitive(
        name="fmin",
        forward=lambda xp, x, y: xp.fmin(x, y),
        vjp=(
            lambda ct, out, x, y: _nan_winner_vjp(ct, x, y, _less),
            lambda ct, out, x, y: _nan_winner_vjp(ct, y, x, _less),
        ),
        jvp=ELEMENTWISE,
        sample=Sample(_nan_sample, second_order=False),
        doc="elementwise smaller value, ignoring NaNs (the gradient goes to the value returned)",
        names=Names(numpy="fmin", torch="fmin", method="fmin", grad_fn="FminBackward0"),
    )
)


# --- floating-point representation ----------------------------------------------------------


def _ldexp_sample(g: Draw) -> Drawn:
    s1, s2 = g.broadcast_shapes(2)
    exponent = numpy.floor(g.array(s2, -4.0, 4.999)).astype(numpy.int64)
    return (g.array(s1, -3.0, 3.0), exponent), {}


ldexp: Primitive = register(
    Primitive(
        name="ldexp",
        forward=lambda xp, x, i: xp.ldexp(x, i),
        # x * 2**i is linear in x; the integer exponent i has no gradient
        vjp=(lambda ct, out, x, i: ldexp(ct, i), None),
        jvp=ELEMENTWISE,
        sample=Sample(_ldexp_sample),
        doc="x * 2 ** i for integers i (gradient 2 ** i in x)",
        # funcgrad.numpy.ldexp is written by hand (its exponent is an integer, never a node)
        names=Names(numpy="ldexp"),
    )
)

nextafter = register(
    Primitive(
        name="nextafter",
        forward=lambda xp, x, y: xp.nextafter(x, y),
        # NOTE: x moved by one unit in the last place: its derivative in x is 1, in y 0
        vjp=(lambda ct, out, x, y: ct, None),
        jvp=ELEMENTWISE,
        sample=_binary(),
        doc="the next float after x towards y (gradient 1 in x, none in y)",
        names=Names(
            numpy="nextafter",
            torch="nextafter",
            method="nextafter",
            inplace="nextafter_",
            grad_fn="NextafterBackward0",
        ),
    )
)
