"""Running reductions beyond `cumsum`/`cumprod`: `logcumsumexp`.

`logcumsumexp(x, axis=a)` is `log(cumsum(exp(x)))` along `a`, computed
stably (NumPy's `logaddexp.accumulate`). Its rules are PyTorch's
(`logcumsumexp_backward`, after TensorFlow): the cotangent's positive and
negative parts are taken through `log` separately, so every sum is itself a
stable `logcumsumexp` (no `exp(x)` that could overflow), and the rules,
written with primitives, differentiate again.
"""

from __future__ import annotations

from types import ModuleType

import numpy

from funcgrad.backend import on_host
from funcgrad.graph.node import Array
from funcgrad.ops._util import normalize_axis, shape_of, value_of
from funcgrad.ops.elementwise import absolute, exp, log, subtract, where
from funcgrad.ops.registry import Draw, Drawn, Names, Primitive, Sample, register
from funcgrad.ops.shape import flip


def _logcumsumexp_forward(xp: ModuleType, x: Array, *, axis: int) -> Array:
    x = xp.asarray(x)
    if x.ndim == 0:
        normalize_axis(axis, 0, "logcumsumexp")
        return x.copy()
    if xp.__name__ == "numpy":
        return numpy.logaddexp.accumulate(x, axis=axis)
    # NOTE: CuPy's ufuncs have no accumulate: computed on the host, and the result goes back
    # to x's own GPU (on_host; xp.asarray would put it on the current one)
    return on_host(numpy.logaddexp.accumulate, x, axis=axis)


def _lowest(v: Array) -> float:
    # exp() of it is 0; a quarter of the lowest float, so that adding to it cannot overflow
    return float(numpy.finfo(value_of(v).dtype).min) / 4


def _log_parts(v: Array) -> tuple[Array, Array]:
    # log|v| where v > 0 (v < 0), the lowest float elsewhere: the parts exp() gives back
    v_v = value_of(v)
    low = _lowest(v)
    safe = log(absolute(where(v_v == 0, 1.0, v)))
    return where(v_v > 0, safe, low), where(v_v < 0, safe, low)


def _reversed(x: Array, axis: int) -> Array:
    return flip(logcumsumexp(flip(x, axis=axis), axis=axis), axis=axis)


def _logcumsumexp_vjp(ct: Array, out: Array, x: Array, *, axis: int) -> Array:
    if not shape_of(x):
        return ct
    pos, neg = _log_parts(ct)
    # d out_i / d x_j = exp(x_j - out_i) for j <= i: sum over i >= j, in log space
    return subtract(
        exp(_reversed(pos - out, axis) + x),
        exp(_reversed(neg - out, axis) + x),
    )


def _logcumsumexp_jvp(x_t: Array, out: Array, x: Array, *, axis: int) -> Array:
    if not shape_of(x):
        return x_t
    pos, neg = _log_parts(x_t)
    return subtract(
        exp(logcumsumexp(pos + x, axis=axis) - out),
        exp(logcumsumexp(neg + x, axis=axis) - out),
    )


def _logcumsumexp_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=0, max_dims=3, min_side=0)
    axis = g.integers(-len(shape), len(shape) - 1) if shape else g.choice((0, -1))
    return (g.array(shape, -3.0, 3.0),), {"axis": axis}


logcumsumexp = register(
    Primitive(
        name="logcumsumexp",
        forward=_logcumsumexp_forward,
        vjp=(_logcumsumexp_vjp,),
        jvp=(_logcumsumexp_jvp,),
        params=("axis",),
        sample=Sample(_logcumsumexp_sample),
        doc="log(cumsum(exp(x))) along axis, computed stably",
        names=Names(torch="logcumsumexp", method="logcumsumexp", grad_fn="LogcumsumexpBackward0"),
    )
)

__all__ = ["logcumsumexp"]
