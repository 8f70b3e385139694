"""Elementwise primitives: arithmetic, powers and logs, trigonometry, activations.

Binary rules return output-shaped cotangents; the engine sums them back to
each input's (possibly broadcast) shape.
"""

from __future__ import annotations

from funcgrad.ops._util import value_of
from funcgrad.ops.registry import ELEMENTWISE, LINEAR, Primitive, Sample, register

# fmt: off
def _unary(low=-3.0, high=3.0, **kw):
    return Sample(lambda g: ((g.array(g.shape(), low, high),), {}), **kw)


def _binary(low=-3.0, high=3.0, low2=None, high2=None, **kw):
    def make(g):
        s1, s2 = g.broadcast_shapes(2)
        lo2 = low if low2 is None else low2
        hi2 = high if high2 is None else high2
        return (g.array(s1, low, high), g.array(s2, lo2, hi2)), {}
    return Sample(make, **kw)
# fmt: on


# --- arithmetic -----------------------------------------------------------

add = register(Primitive(
    name="add",
    forward=lambda xp, x, y: xp.add(x, y),
    vjp=(lambda ct, out, x, y: ct, lambda ct, out, x, y: ct),
    jvp=LINEAR,
    sample=_binary(),
    doc="x + y",
))

subtract = register(Primitive(
    name="subtract",
    forward=lambda xp, x, y: xp.subtract(x, y),
    vjp=(lambda ct, out, x, y: ct, lambda ct, out, x, y: -ct),
    jvp=LINEAR,
    sample=_binary(),
    doc="x - y",
))

multiply = register(Primitive(
    name="multiply",
    forward=lambda xp, x, y: xp.multiply(x, y),
    vjp=(lambda ct, out, x, y: ct * y, lambda ct, out, x, y: ct * x),
    jvp=ELEMENTWISE,
    sample=_binary(),
    doc="x * y",
))

divide = register(Primitive(
    name="divide",
    forward=lambda xp, x, y: xp.divide(x, y),
    vjp=(lambda ct, out, x, y: ct / y, lambda ct, out, x, y: -ct * out / y),
    jvp=ELEMENTWISE,
    sample=_binary(low2=0.5, high2=3.0),
    doc="x / y",
))

negative = register(Primitive(
    name="negative",
    forward=lambda xp, x: xp.negative(x),
    vjp=(lambda ct, out, x: -ct,),
    jvp=LINEAR,
    sample=_unary(),
    doc="-x",
))


def _power_vjp_base(ct, out, x, y):
    # d/dx x**y = y * x**(y - 1)
    return ct * y * power(x, y - 1)


def _power_vjp_exponent(ct, out, x, y):
    # d/dy x**y = log(x) * x**y; taken as 0 where x <= 0 (x**y is 0 at x == 0)
    x_v = value_of(x)
    safe_x = where(x_v > 0, x, 1.0)
    return ct * out * log(safe_x)


power = register(Primitive(
    name="power",
    forward=lambda xp, x, y: xp.power(x, y),
    vjp=(_power_vjp_base, _power_vjp_exponent),
    jvp=ELEMENTWISE,
    sample=_binary(low=0.5, high=2.0, low2=-2.0, high2=2.0),
    doc="x ** y",
))


# --- exponentials and logarithms -------------------------------------------

exp = register(Primitive(
    name="exp",
    forward=lambda xp, x: xp.exp(x),
    vjp=(lambda ct, out, x: ct * out,),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="e ** x",
))

log = register(Primitive(
    name="log",
    forward=lambda xp, x: xp.log(x),
    vjp=(lambda ct, out, x: ct / x,),
    jvp=ELEMENTWISE,
    sample=_unary(0.1, 10.0),
    doc="natural logarithm",
))

log1p = register(Primitive(
    name="log1p",
    forward=lambda xp, x: xp.log1p(x),
    vjp=(lambda ct, out, x: ct / (x + 1.0),),
    jvp=ELEMENTWISE,
    sample=_unary(-0.9, 3.0),
    doc="log(1 + x), accurate near 0",
))

expm1 = register(Primitive(
    name="expm1",
    forward=lambda xp, x: xp.expm1(x),
    vjp=(lambda ct, out, x: ct * (out + 1.0),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="exp(x) - 1, accurate near 0",
))

sqrt = register(Primitive(
    name="sqrt",
    forward=lambda xp, x: xp.sqrt(x),
    vjp=(lambda ct, out, x: ct / (out * 2.0),),
    jvp=ELEMENTWISE,
    sample=_unary(0.1, 10.0),
    doc="square root",
))


# --- signs and magnitudes ----------------------------------------------------

absolute = register(Primitive(
    name="abs",
    forward=lambda xp, x: xp.abs(x),
    # NOTE: at 0 the gradient is sign(0) = 0, the subgradient PyTorch and JAX use.
    vjp=(lambda ct, out, x: ct * sign(value_of(x)),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="|x| (gradient 0 at 0)",
))

sign = register(Primitive(
    name="sign",
    forward=lambda xp, x: xp.sign(x),
    vjp=(None,),  # piecewise constant: zero gradient
    jvp=(None,),
    sample=_unary(second_order=False),
    doc="-1, 0 or 1 (zero gradient)",
))


# --- trigonometric and hyperbolic --------------------------------------------

sin = register(Primitive(
    name="sin",
    forward=lambda xp, x: xp.sin(x),
    vjp=(lambda ct, out, x: ct * cos(x),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="sine",
))

cos = register(Primitive(
    name="cos",
    forward=lambda xp, x: xp.cos(x),
    vjp=(lambda ct, out, x: -ct * sin(x),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="cosine",
))

tan = register(Primitive(
    name="tan",
    forward=lambda xp, x: xp.tan(x),
    vjp=(lambda ct, out, x: ct * (out * out + 1.0),),  # 1 + tan(x)**2
    jvp=ELEMENTWISE,
    sample=_unary(-1.2, 1.2),
    doc="tangent",
))

tanh = register(Primitive(
    name="tanh",
    forward=lambda xp, x: xp.tanh(x),
    vjp=(lambda ct, out, x: ct * (1.0 - out * out),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="hyperbolic tangent",
))

sinh = register(Primitive(
    name="sinh",
    forward=lambda xp, x: xp.sinh(x),
    vjp=(lambda ct, out, x: ct * cosh(x),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="hyperbolic sine",
))

cosh = register(Primitive(
    name="cosh",
    forward=lambda xp, x: xp.cosh(x),
    vjp=(lambda ct, out, x: ct * sinh(x),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="hyperbolic cosine",
))

arcsin = register(Primitive(
    name="arcsin",
    forward=lambda xp, x: xp.arcsin(x),
    vjp=(lambda ct, out, x: ct / sqrt(1.0 - x * x),),
    jvp=ELEMENTWISE,
    sample=_unary(-0.9, 0.9),
    doc="inverse sine",
))

arccos = register(Primitive(
    name="arccos",
    forward=lambda xp, x: xp.arccos(x),
    vjp=(lambda ct, out, x: -ct / sqrt(1.0 - x * x),),
    jvp=ELEMENTWISE,
    sample=_unary(-0.9, 0.9),
    doc="inverse cosine",
))

arctan = register(Primitive(
    name="arctan",
    forward=lambda xp, x: xp.arctan(x),
    vjp=(lambda ct, out, x: ct / (x * x + 1.0),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="inverse tangent",
))

arctan2 = register(Primitive(
    name="arctan2",
    forward=lambda xp, y, x: xp.arctan2(y, x),
    vjp=(
        lambda ct, out, y, x: ct * x / (x * x + y * y),
        lambda ct, out, y, x: -ct * y / (x * x + y * y),
    ),
    jvp=ELEMENTWISE,
    sample=_binary(low=0.3, high=3.0),
    doc="angle of the point (x, y)",
))


# --- activations -------------------------------------------------------------

sigmoid = register(Primitive(
    name="sigmoid",
    # exp(-log(1 + exp(-x))) never overflows
    forward=lambda xp, x: xp.exp(-xp.logaddexp(0.0, -x)),
    vjp=(lambda ct, out, x: ct * out * (1.0 - out),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="1 / (1 + exp(-x)), stable for large |x|",
))

relu = register(Primitive(
    name="relu",
    forward=lambda xp, x: xp.maximum(x, 0),
    vjp=(lambda ct, out, x: where(value_of(x) > 0, ct, 0.0),),
    jvp=ELEMENTWISE,
    sample=_unary(second_order=False),
    doc="max(x, 0) (gradient 0 at 0)",
))

softplus = register(Primitive(
    name="softplus",
    forward=lambda xp, x: xp.logaddexp(0.0, x),
    vjp=(lambda ct, out, x: ct * sigmoid(x),),
    jvp=ELEMENTWISE,
    sample=_unary(),
    doc="log(1 + exp(x)), stable for large |x|",
))


# --- selection ---------------------------------------------------------------

def _winner_vjp(ct, x, y):
    # ct where x wins, ct / 2 at ties (as PyTorch and JAX split them), else 0;
    # `where` keeps ct's dtype, so float32 stays float32.
    x, y = value_of(x), value_of(y)
    return where(x > y, ct, where(x == y, ct * 0.5, 0.0))


maximum = register(Primitive(
    name="maximum",
    forward=lambda xp, x, y: xp.maximum(x, y),
    vjp=(
        lambda ct, out, x, y: _winner_vjp(ct, x, y),
        lambda ct, out, x, y: _winner_vjp(ct, y, x),
    ),
    jvp=ELEMENTWISE,
    sample=_binary(second_order=False),
    doc="elementwise larger value (ties split the gradient)",
))

minimum = register(Primitive(
    name="minimum",
    forward=lambda xp, x, y: xp.minimum(x, y),
    vjp=(
        lambda ct, out, x, y: _winner_vjp(ct, y, x),
        lambda ct, out, x, y: _winner_vjp(ct, x, y),
    ),
    jvp=ELEMENTWISE,
    sample=_binary(second_order=False),
    doc="elementwise smaller value (ties split the gradient)",
))


def _clip_vjp(ct, out, x, *, a_min, a_max):
    x = value_of(x)
    inside = True
    if a_min is not None:
        inside = inside & (x >= a_min)
    if a_max is not None:
        inside = inside & (x <= a_max)
    return where(inside, ct, 0.0)


def _clip_sample(g):
    x = g.array(g.shape(), -3.0, 3.0)
    return (x,), {"a_min": -1.0, "a_max": 1.5}


clip = register(Primitive(
    name="clip",
    forward=lambda xp, x, *, a_min, a_max: xp.clip(x, a_min, a_max),
    vjp=(_clip_vjp,),
    jvp=ELEMENTWISE,
    params=("a_min", "a_max"),
    sample=Sample(_clip_sample, second_order=False),
    doc="x limited to [a_min, a_max] (gradient 1 inside, 0 outside)",
))


def _where_sample(g):
    s0, s1, s2 = g.broadcast_shapes(3)
    cond = g.array(s0, -1.0, 1.0) > 0
    return (cond, g.array(s1, -3.0, 3.0), g.array(s2, -3.0, 3.0)), {}


where = register(Primitive(
    name="where",
    forward=lambda xp, cond, x, y: xp.where(cond, x, y),
    # The unselected branch gets an exact 0, never 0 * (its derivative).
    vjp=(
        None,
        lambda ct, out, cond, x, y: where(cond, ct, 0.0),
        lambda ct, out, cond, x, y: where(cond, 0.0, ct),
    ),
    jvp=ELEMENTWISE,
    sample=Sample(_where_sample),
    doc="x where cond is true, else y (cond gets no gradient)",
))


# --- dtype and identity ------------------------------------------------------

astype = register(Primitive(
    name="astype",
    forward=lambda xp, x, *, dtype: x.astype(dtype),
    vjp=(lambda ct, out, x, *, dtype: ct,),  # the engine casts back to x's dtype
    jvp=LINEAR,
    params=("dtype",),
    sample=Sample(lambda g: ((g.array(g.shape(), -3.0, 3.0),), {"dtype": "float64"})),
    doc="x converted to a floating-point dtype",
))

identity = register(Primitive(
    name="identity",
    forward=lambda xp, x: x,
    vjp=(lambda ct, out, x: ct,),
    jvp=LINEAR,
    sample=_unary(),
    doc="x itself as a new node (a fresh variable for nested transforms)",
))

stop_gradient = register(Primitive(
    name="stop_gradient",
    forward=lambda xp, x: x,
    vjp=(None,),
    jvp=(None,),
    sample=_unary(second_order=False),
    doc="x, with no gradient flowing through",
))
