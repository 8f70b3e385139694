"""Differential cases of the float ufuncs of `funcgrad/ops/ufuncs.py` that have no case elsewhere.

Registered on import by `functional_cases.py` (which already has the older
names: `log2`, `hypot`, `fmod`, `mod` ... in its UNARY and BINARY tables).
HIPS autograd 1.9.1 has a gradient for `arccosh`, `arctanh`, `fmax` and
`fmin`, compared with it; it has the other names with no gradient, so their
derivatives are compared with central differences (an `"fd"` entry in
`DIFFERENCES`, added below) and their values with NumPy.
"""

from __future__ import annotations

import numpy as np

from tests.differential.functional_cases import Example, _binary, _unary, case
from tests.differential.functional_differences import DIFFERENCES

for _name, (_low, _high) in {
    "arccosh": (1.1, 3.0),
    "acosh": (1.1, 3.0),
    "arctanh": (-0.9, 0.9),
    "atanh": (-0.9, 0.9),
}.items():
    _unary(_name, _low, _high)


@case("cbrt")
def _cbrt(g):
    # |x| >= 0.2: the reference is central differences, whose truncation error near 0
    # (cbrt's curvature grows as |x|^(-5/3)) exceeded the 1e-8 tolerance at x = 0.0024
    x = g.array(g.shape(), 0.2, 2.0) * g.choice((-1.0, 1.0))
    return Example((x,), lambda m, x: m.cbrt(x), "|x| >= 0.2")


for _name, (_xdom, _ydom) in {
    "fmax": ((-2.0, 2.0), (-2.0, 2.0)),
    "fmin": ((-2.0, 2.0), (-2.0, 2.0)),
    "copysign": ((-2.0, 2.0), (-2.0, 2.0)),
    "nextafter": ((-2.0, 2.0), (-2.0, 2.0)),
    "float_power": ((0.2, 2.0), (-2.0, 2.0)),
    "divmod": ((-2.0, 2.0), (0.3, 2.0)),
}.items():
    _binary(_name, _xdom, _ydom)


def _nan_case(name):
    @case(name, "NaNs")
    def draw(g):
        sx, sy = g.broadcast_shapes(2)
        x, y = g.array(sx), g.array(sy)
        nan_in_x = g.boolean()
        a = x if nan_in_x else y
        a = np.where(g.rng().random(a.shape) < 0.4, np.asarray(np.nan, a.dtype), a)
        x, y = (a, y) if nan_in_x else (x, a)
        where = "x" if nan_in_x else "y"
        return Example((x, y), lambda m, x, y: getattr(m, name)(x, y), f"NaNs in {where}")


for _name in ("fmax", "fmin"):
    _nan_case(_name)


@case("frexp")
def _frexp(g):
    x = g.array(g.shape(), pool=(0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0))
    return Example((x,), lambda m, x: m.frexp(x))


@case("modf")
def _modf(g):
    x = g.array(g.shape(), -3.0, 3.0, pool=(0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.5))
    return Example((x,), lambda m, x: m.modf(x))


@case("ldexp")
def _ldexp(g):
    sx, si = g.broadcast_shapes(2)
    x = g.array(sx)
    exponents = g.rng().integers(-3, 4, size=si)
    if g.boolean():
        return Example((x,), lambda m, x: m.ldexp(x, exponents), f"exponents {exponents!r}")
    k = g.integers(-3, 3)
    return Example((x,), lambda m, x: m.ldexp(x, k), f"exponent {k}")


@case("float_power", "integer exponent", smooth=True)
def _float_power_int(g):
    x = g.array(g.shape(), -2.0, 2.0)
    k = g.choice((0, 1, 2, 3))
    return Example((x,), lambda m, x: m.float_power(x, k), f"exponent {k}")


_NO_AUTOGRAD_GRADIENT = (
    "autograd.numpy has {} with no gradient (NotImplementedError): derivatives are compared "
    "with central differences"
)
for _name in (
    "cbrt",
    "copysign",
    "nextafter",
    "float_power",
    "divmod",
    "frexp",
    "modf",
    "ldexp",
):
    DIFFERENCES[(_name, "fd")] = _NO_AUTOGRAD_GRADIENT.format(_name)
