"""Special-function primitives: gamma and beta, error functions, Bessel functions, ndtr.

The forwards call `scipy.special` on NumPy arrays (`cupyx.scipy.special` on
CuPy arrays), imported when first called, so funcgrad imports without SciPy;
`funcgrad.scipy.special` is where users find them. The result has the
floating-point dtype of the arguments (float32 stays float32, even where
SciPy computes in float64).

Integer orders (`polygamma`'s `n`, `jn`'s `n`, `iv`'s `v`) are arguments
without a gradient. The shape parameters of the incomplete gamma and beta
functions have no rule here: asking for their gradient raises
`NotDifferentiableError` naming the argument.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy

from funcgrad.backend import constant_like, on_host
from funcgrad.errors import DeviceError, NotDifferentiableError
from funcgrad.graph.node import Array
from funcgrad.ops._util import value_of
from funcgrad.ops.elementwise import exp, log, log1p, sign, where
from funcgrad.ops.registry import (
    ELEMENTWISE,
    Draw,
    Drawn,
    Names,
    Primitive,
    Sample,
    register,
)

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SCIPY_EXTRA = "pip install funcgrad[scipy]"


def _scipy_function(name: str) -> Callable[..., Any]:
    """SciPy's `scipy.special.<name>` (the message names the extra if SciPy is missing)."""
    try:
        import scipy.special as sp
    except ImportError as e:
        raise ImportError(f"funcgrad.scipy.special.{name} needs SciPy: {_SCIPY_EXTRA}") from e
    fn: Callable[..., Any] = getattr(sp, name)
    return fn


def special_module(xp: ModuleType, name: str) -> Callable[..., Any]:
    """Return SciPy's special function `name` for arrays of the array module `xp`.

    On CuPy arrays it is `cupyx.scipy.special.<name>`; where cupyx has none
    (`iv`, `ive`, `jn` in CuPy 14), SciPy's runs on host copies of the
    arguments and the result goes back to their GPU (`funcgrad.backend.on_host`:
    a round trip that synchronizes with the GPU, with SciPy's numbers).

    Raises:
        ImportError: If SciPy is not installed (the message names the extra).
        DeviceError: If CuPy has no `cupyx.scipy.special` at all.
    """
    if xp is numpy:
        return _scipy_function(name)
    try:
        import cupyx.scipy.special as csp
    except ImportError as e:  # pragma: no cover - a CuPy without cupyx
        raise DeviceError(
            f"funcgrad.scipy.special.{name}: cupyx.scipy.special is not available for "
            f"{xp.__name__} arrays; move the values to the CPU first"
        ) from e
    gpu_fn: Callable[..., Any] | None = getattr(csp, name, None)
    if gpu_fn is None:
        return functools.partial(on_host, _scipy_function(name))
    return gpu_fn


def _call(xp: ModuleType, name: str, *args: Any, dtype_of: tuple[Any, ...] | None = None) -> Array:
    """`scipy.special.<name>(*args)` in the floating-point dtype of `dtype_of` (default: all args)."""
    out = special_module(xp, name)(*args)
    dtype = xp.result_type(*(args if dtype_of is None else dtype_of), 1.0)
    return out if out.dtype == dtype else out.astype(dtype)


def _like(a: Any, x: Any) -> Any:
    """A Python number `a` as an array of `x`'s dtype (a NumPy float64 scalar would upcast)."""
    if type(a) in (float, int):
        return numpy.asarray(a, dtype=value_of(x).dtype)
    return a


def _xlogy_dx(ct: Any, x: Any, y: Any, logy: Any, edge: float) -> Any:
    """xlogy's (xlog1py's) cotangent in x: ct * log(y), 0 where x == 0 and y <= edge.

    PyTorch's rule (`at::xlogy(grad, y).masked_fill((x == 0) & (y <= edge), 0)`,
    edge 0 for xlogy and -1 for xlog1py): the value is 0 all along x == 0, and
    the log has no finite value there. The mask is a constant, so the
    derivative of this rule in y is ct / y (ct / (1 + y)) off the mask and 0 on it.
    """
    xv, yv = value_of(x), value_of(y)
    if numpy.iscomplexobj(xv) or numpy.iscomplexobj(yv):
        return ct * logy
    masked = (xv == 0) & (yv <= edge)
    return where(masked, 0.0, ct * logy) if numpy.any(masked) else ct * logy


def _no_rule(op: str, position: int, arg: str) -> Callable[..., Any]:
    def rule(ct: Any, out: Any, *args: Any) -> Any:
        if type(args[position]) in (float, int):
            return None  # a Python number is a constant: no gradient was asked of it
        raise NotDifferentiableError(
            f"funcgrad.scipy.special.{op}: no gradient in {arg} (argument {position}); "
            f"only in x. Pass {arg} as a constant (a number or an array that is not "
            f"being differentiated), or give your own rule with funcgrad.custom_vjp"
        )

    return rule


# fmt: off
def _unary(low: float, high: float, **kw: Any) -> Sample:
    return Sample(lambda g: ((g.array(g.shape(), low, high),), {}), **kw)


def _binary(low: float, high: float, low2: float, high2: float, **kw: Any) -> Sample:
    def make(g: Draw) -> Drawn:
        s1, s2 = g.broadcast_shapes(2)
        return (g.array(s1, low, high), g.array(s2, low2, high2)), {}
    return Sample(make, **kw)


def _order(low: int, high: int, xlow: float, xhigh: float, **kw: Any) -> Sample:
    # an integer order (a constant) and an array x
    return Sample(lambda g: ((g.integers(low, high), g.array(g.shape(), xlow, xhigh)), {}), **kw)


def _shaped(n: int, xlow: float, xhigh: float, **kw: Any) -> Sample:
    # n shape parameters as Python numbers (constants), then an array x
    def make(g: Draw) -> Drawn:
        shape = tuple(g.choice([0.5, 0.8, 1.0, 1.5, 2.5, 4.0]) for _ in range(n))
        return (*shape, g.array(g.shape(), xlow, xhigh)), {}
    return Sample(make, **kw)
# fmt: on


# --- gamma and beta ----------------------------------------------------------------
#
# At complex points gamma, rgamma, loggamma (SciPy's principal branch of log gamma;
# `gammaln` is real only, as in SciPy), digamma and polygamma are holomorphic away from
# their poles (and loggamma's cut along the negative real axis), so their rules are the
# real ones unchanged (JAX's convention, docs/concepts/complex.md). SciPy's `polygamma`
# takes real x only: complex ones go through `_complex_polygamma`.

# Bernoulli numbers B_2, B_4, ..., B_24 of the asymptotic series of polygamma
_BERNOULLI = (
    1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
    -174611 / 330, 854513 / 138, -236364091 / 2730,
)  # fmt: skip
_ASYMPTOTIC_FROM = 20.0  # Re z from which the series is used (terms below 1e-20 there)


def _cot_derivative(xp: ModuleType, n: int, z: Array) -> Array:
    """d^n/dz^n cot(pi z) for n >= 1.

    Near the real axis: pi^n P_n(cot(pi z)), P_0(c) = c, P_k+1 = -(1 + c^2) P_k'.
    Away from it (|Im z| >= 1/4), where cot(pi z) nears -i or i and P_n's
    terms cancel: -2i sum_k (2 pi i k)^n q^k with q = exp(2 pi i z), Im z > 0
    (the conjugate below the axis).
    """
    coefficients = [0.0, 1.0]  # of P_k in powers of c
    for _ in range(n):
        slope = [i * a for i, a in enumerate(coefficients)][1:]
        coefficients = [0.0] * (len(slope) + 2)
        for i, a in enumerate(slope):
            coefficients[i] -= a
            coefficients[i + 2] -= a
    c = 1.0 / xp.tan(math.pi * z)
    near = xp.zeros_like(c)
    for a in reversed(coefficients):  # Horner
        near = near * c + a
    below = z.imag < 0
    q = xp.exp(2j * math.pi * xp.where(below, xp.conj(z), z))
    far = xp.zeros_like(q)
    for k in range(120, 0, -1):  # |q| <= exp(-pi / 2): k^n q^k is negligible by then
        far = far * q + (2j * math.pi * k) ** n  # Horner: sum_k a_k q^k = q (a_1 + q (a_2 + ...))
    far = -2j * q * far
    far = xp.where(below, xp.conj(far), far)
    return xp.where(abs(z.imag) >= 0.25, far, near * math.pi**n)


def _complex_polygamma(xp: ModuleType, n: int, z: Array) -> Array:
    """psi^(n)(z) for an order n >= 1 and complex z (complex128).

    The recurrence psi^(n)(z) = psi^(n)(z + 1) - (-1)^n n! / z^(n+1) moves each
    point to Re z >= 20, where the asymptotic series (DLMF 5.15.8, to B_24)
    is exact to double precision; points with Re z < 0 are first reflected
    (DLMF 5.15.6): psi^(n)(z) = (-1)^n psi^(n)(1 - z) - pi d^n/dz^n cot(pi z).
    """
    left = z.real < 0
    w = xp.where(left, 1.0 - z, z)
    steps = xp.maximum(xp.ceil(_ASYMPTOTIC_FROM - w.real), 0.0)
    steps = xp.where(xp.isfinite(steps), steps, 0.0)  # NaN in, NaN out (not an error)
    near = xp.zeros_like(w)
    for j in range(int(steps.max()) if steps.size else 0):
        near = near + xp.where(j < steps, 1.0 / (w + j) ** (n + 1), 0.0)
    w = w + steps
    series = math.factorial(n - 1) / w**n + math.factorial(n) / (2.0 * w ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        series = series + b * (math.factorial(2 * k + n - 1) / math.factorial(2 * k)) / w ** (
            2 * k + n
        )
    sign = -1.0 if n % 2 else 1.0  # (-1)^n
    out = -sign * series - sign * math.factorial(n) * near
    if bool(left.any()):
        out = xp.where(left, sign * out - math.pi * _cot_derivative(xp, n, z), out)
    return out


def _polygamma_forward(xp: ModuleType, n: Any, x: Array) -> Array:
    if getattr(x, "dtype", numpy.dtype(float)).kind != "c" and not isinstance(x, complex):
        if xp is not numpy and not isinstance(n, xp.ndarray):
            # NOTE: cupyx's polygamma keeps a Python n through cupy.broadcast_arrays, and
            # cupy.where(n == 0, ...) then gets a Python bool: give it an array (on x's GPU;
            # x is a CuPy array here, as n is not)
            n = constant_like(n, x)
        return _call(xp, "polygamma", n, x, dtype_of=(x,))
    if not isinstance(x, xp.ndarray):
        # a Python complex x beside a CuPy order n: on n's GPU (xp.asarray would put it
        # on the current one); with NumPy, numpy.asarray
        x = constant_like(x, n)
    orders = n.get() if xp is not numpy and isinstance(n, xp.ndarray) else numpy.asarray(n)
    if orders.ndim or int(orders) != orders or orders < 0:
        raise ValueError(
            f"complex x takes one non-negative integer order n (got {n!r}); SciPy's "
            f"polygamma has no complex forward, funcgrad's computes one order at a time"
        )
    if int(orders) == 0:
        return _call(xp, "psi", x)
    with numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = _complex_polygamma(xp, int(orders), x.astype(numpy.complex128))
    return out.astype(x.dtype)


gammaln = register(
    Primitive(
        name="gammaln",
        forward=lambda xp, x: _call(xp, "gammaln", x),
        vjp=(lambda ct, out, x: ct * digamma(x),),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 5.0),
        doc="log of the absolute value of the gamma function",
        keeps_zeros="elementwise",
        names=Names(
            scipy="special.gammaln",
            torch="lgamma",
            method="lgamma",
            inplace="lgamma_",
            grad_fn="LgammaBackward0",
        ),
    )
)

gamma = register(
    Primitive(
        name="gamma",
        forward=lambda xp, x: _call(xp, "gamma", x),
        vjp=(lambda ct, out, x: ct * (out * digamma(x)),),
        jvp=ELEMENTWISE,
        sample=_unary(0.2, 4.0, complex=True),
        doc="gamma function",
        keeps_zeros="elementwise",
        names=Names(scipy="special.gamma"),
    )
)

loggamma = register(
    Primitive(
        name="loggamma",
        forward=lambda xp, x: _call(xp, "loggamma", x),
        vjp=(lambda ct, out, x: ct * digamma(x),),
        jvp=ELEMENTWISE,
        sample=_unary(0.2, 4.0, complex=True),
        doc=(
            "principal branch of the log of the gamma function (complex x; real x > 0, "
            "NaN for real x < 0)"
        ),
        keeps_zeros="elementwise",
        names=Names(scipy="special.loggamma"),
    )
)

rgamma = register(
    Primitive(
        name="rgamma",
        forward=lambda xp, x: _call(xp, "rgamma", x),
        vjp=(lambda ct, out, x: -ct * (out * digamma(x)),),
        jvp=ELEMENTWISE,
        sample=_unary(0.2, 4.0, complex=True),
        doc="reciprocal of the gamma function, 1 / gamma(x)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.rgamma"),
    )
)

digamma: Primitive = register(
    Primitive(
        name="digamma",
        forward=lambda xp, x: _call(xp, "psi", x),
        vjp=(lambda ct, out, x: ct * polygamma(1, x),),
        jvp=ELEMENTWISE,
        sample=_unary(0.2, 5.0, complex=True),
        doc="digamma function, the derivative of gammaln (and of loggamma)",
        keeps_zeros="elementwise",
        names=Names(
            scipy=("special.digamma", "special.psi"),
            torch="digamma",
            method="digamma",
            inplace="digamma_",
            grad_fn="DigammaBackward0",
        ),
    )
)

polygamma: Primitive = register(
    Primitive(
        name="polygamma",
        forward=_polygamma_forward,
        vjp=(None, lambda ct, out, n, x: ct * polygamma(n + 1, x)),
        jvp=ELEMENTWISE,
        sample=_order(0, 3, 0.3, 5.0, tol=1e-5, complex=True),
        doc="n-th derivative of the digamma function (n: an integer order, no gradient)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.polygamma", grad_fn="PolygammaBackward0"),
    )
)


def _dlogbeta(a: Any, b: Any) -> Any:
    # d/da log B(a, b) = digamma(a) - digamma(a + b)
    return digamma(a) - digamma(a + b)


beta = register(
    Primitive(
        name="beta",
        forward=lambda xp, a, b: _call(xp, "beta", a, b),
        vjp=(
            lambda ct, out, a, b: ct * (out * _dlogbeta(a, b)),
            lambda ct, out, a, b: ct * (out * _dlogbeta(b, a)),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(0.3, 4.0, 0.3, 4.0),
        doc="beta function, gamma(a) gamma(b) / gamma(a + b)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.beta"),
    )
)

betaln = register(
    Primitive(
        name="betaln",
        forward=lambda xp, a, b: _call(xp, "betaln", a, b),
        vjp=(
            lambda ct, out, a, b: ct * _dlogbeta(a, b),
            lambda ct, out, a, b: ct * _dlogbeta(b, a),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(0.3, 4.0, 0.3, 4.0),
        doc="log of the absolute value of the beta function",
        keeps_zeros="elementwise",
        names=Names(scipy="special.betaln"),
    )
)


# --- incomplete gamma and beta (gradient in x only) -------------------------------------


def _gammainc_density(x: Any, a: Any) -> Any:
    # d/dx P(a, x) = x**(a - 1) exp(-x) / gamma(a)
    a = _like(a, x)
    return exp(xlogy(a - 1.0, x) - x - gammaln(a))


gammainc = register(
    Primitive(
        name="gammainc",
        forward=lambda xp, a, x: _call(xp, "gammainc", a, x),
        vjp=(
            _no_rule("gammainc", 0, "a"),
            lambda ct, out, a, x: ct * _gammainc_density(x, a),
        ),
        jvp=ELEMENTWISE,
        sample=_shaped(1, 0.1, 5.0),
        doc="regularized lower incomplete gamma function P(a, x) (gradient in x only)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.gammainc"),
    )
)

gammaincc = register(
    Primitive(
        name="gammaincc",
        forward=lambda xp, a, x: _call(xp, "gammaincc", a, x),
        vjp=(
            _no_rule("gammaincc", 0, "a"),
            lambda ct, out, a, x: -ct * _gammainc_density(x, a),
        ),
        jvp=ELEMENTWISE,
        sample=_shaped(1, 0.1, 5.0),
        doc="regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (gradient in x only)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.gammaincc"),
    )
)


def _betainc_density(x: Any, a: Any, b: Any) -> Any:
    # d/dx I_x(a, b) = x**(a - 1) (1 - x)**(b - 1) / B(a, b)
    a, b = _like(a, x), _like(b, x)
    return exp(xlogy(a - 1.0, x) + xlog1py(b - 1.0, -x) - betaln(a, b))


betainc = register(
    Primitive(
        name="betainc",
        forward=lambda xp, a, b, x: _call(xp, "betainc", a, b, x),
        vjp=(
            _no_rule("betainc", 0, "a"),
            _no_rule("betainc", 1, "b"),
            lambda ct, out, a, b, x: ct * _betainc_density(x, a, b),
        ),
        jvp=ELEMENTWISE,
        sample=_shaped(2, 0.05, 0.95),
        doc="regularized incomplete beta function I_x(a, b) (gradient in x only)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.betainc"),
    )
)


# --- error functions and the normal distribution ------------------------------------------

erf = register(
    Primitive(
        name="erf",
        forward=lambda xp, x: _call(xp, "erf", x),
        vjp=(lambda ct, out, x: ct * ((2.0 / _SQRT_PI) * exp(-x * x)),),
        jvp=ELEMENTWISE,
        sample=_unary(-2.5, 2.5, complex=True),
        doc="error function",
        keeps_zeros="elementwise",
        names=Names(
            scipy="special.erf", torch="erf", method="erf", inplace="erf_", grad_fn="ErfBackward0"
        ),
    )
)

erfc = register(
    Primitive(
        name="erfc",
        forward=lambda xp, x: _call(xp, "erfc", x),
        vjp=(lambda ct, out, x: ct * ((-2.0 / _SQRT_PI) * exp(-x * x)),),
        jvp=ELEMENTWISE,
        sample=_unary(-2.5, 2.5, complex=True),
        doc="complementary error function, 1 - erf(x)",
        keeps_zeros="elementwise",
        names=Names(
            scipy="special.erfc",
            torch="erfc",
            method="erfc",
            inplace="erfc_",
            grad_fn="ErfcBackward0",
        ),
    )
)

erfinv = register(
    Primitive(
        name="erfinv",
        forward=lambda xp, x: _call(xp, "erfinv", x),
        vjp=(lambda ct, out, x: ct * ((_SQRT_PI / 2.0) * exp(out * out)),),
        jvp=ELEMENTWISE,
        sample=_unary(-0.9, 0.9),
        doc="inverse error function (gradient inf at -1 and 1)",
        keeps_zeros="elementwise",
        names=Names(
            scipy="special.erfinv",
            torch="erfinv",
            method="erfinv",
            inplace="erfinv_",
            grad_fn="ErfinvBackward0",
        ),
    )
)

erfcinv = register(
    Primitive(
        name="erfcinv",
        forward=lambda xp, x: _call(xp, "erfcinv", x),
        vjp=(lambda ct, out, x: ct * ((-_SQRT_PI / 2.0) * exp(out * out)),),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 1.9),
        doc="inverse complementary error function (gradient inf at 0 and 2)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.erfcinv"),
    )
)

ndtr = register(
    Primitive(
        name="ndtr",
        forward=lambda xp, x: _call(xp, "ndtr", x),
        vjp=(lambda ct, out, x: ct * (exp(-0.5 * (x * x)) / _SQRT_2PI),),
        jvp=ELEMENTWISE,
        sample=_unary(-3.0, 3.0, complex=True),
        doc="standard normal cumulative distribution function",
        keeps_zeros="elementwise",
        names=Names(scipy="special.ndtr"),
    )
)

ndtri = register(
    Primitive(
        name="ndtri",
        forward=lambda xp, x: _call(xp, "ndtri", x),
        vjp=(lambda ct, out, x: ct * (_SQRT_2PI * exp(0.5 * (out * out))),),
        jvp=ELEMENTWISE,
        sample=_unary(0.05, 0.95),
        doc="inverse of ndtr, the standard normal quantile function (gradient inf at 0 and 1)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.ndtri", grad_fn="SpecialNdtriBackward0"),
    )
)

log_ndtr = register(
    Primitive(
        name="log_ndtr",
        forward=lambda xp, x: _call(xp, "log_ndtr", x),
        # pdf(x) / ndtr(x) = exp(-x**2 / 2 - log_ndtr(x)) / sqrt(2 pi), stable for x << 0
        vjp=(lambda ct, out, x: ct * (exp(-0.5 * (x * x) - out) / _SQRT_2PI),),
        jvp=ELEMENTWISE,
        sample=_unary(-6.0, 3.0, complex=True),
        doc="log of ndtr, accurate far in the left tail",
        keeps_zeros="elementwise",
        names=Names(scipy="special.log_ndtr", grad_fn="SpecialLogNdtrBackward0"),
    )
)


# --- logistic, logs and entropy ------------------------------------------------------------

logit = register(
    Primitive(
        name="logit",
        forward=lambda xp, x: _call(xp, "logit", x),
        vjp=(lambda ct, out, x: ct / (x * (1.0 - x)),),
        jvp=ELEMENTWISE,
        sample=_unary(0.05, 0.95),
        doc="log(x / (1 - x)), the inverse of expit (gradient inf at 0 and 1)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.logit", grad_fn="LogitBackward0"),
    )
)

xlogy: Primitive = register(
    Primitive(
        name="xlogy",
        forward=lambda xp, x, y: _call(xp, "xlogy", x, y),
        vjp=(
            lambda ct, out, x, y: _xlogy_dx(ct, x, y, log(y), 0.0),
            lambda ct, out, x, y: ct * x / y,
        ),
        jvp=ELEMENTWISE,
        sample=_binary(-2.0, 2.0, 0.2, 3.0, complex=True),
        doc="x * log(y), 0 where x == 0 (gradients as PyTorch's: in x 0 where also y <= 0)",
        keeps_zeros="elementwise",
        names=Names(
            scipy="special.xlogy",
            torch="xlogy",
            method="xlogy",
            inplace="xlogy_",
            grad_fn="XlogyBackward0",
        ),
    )
)

xlog1py: Primitive = register(
    Primitive(
        name="xlog1py",
        forward=lambda xp, x, y: _call(xp, "xlog1py", x, y),
        vjp=(
            lambda ct, out, x, y: _xlogy_dx(ct, x, y, log1p(y), -1.0),
            lambda ct, out, x, y: ct * x / (y + 1.0),
        ),
        jvp=ELEMENTWISE,
        sample=_binary(-2.0, 2.0, -0.8, 3.0, complex=True),
        doc="x * log1p(y), 0 where x == 0 (gradients as PyTorch's: in x 0 where also y <= -1)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.xlog1py", grad_fn="SpecialXlog1PyBackward0"),
    )
)

entr = register(
    Primitive(
        name="entr",
        forward=lambda xp, x: _call(xp, "entr", x),
        vjp=(lambda ct, out, x: -ct * (log(x) + 1.0),),
        jvp=ELEMENTWISE,
        sample=_unary(0.1, 3.0),
        doc="elementwise entropy -x log(x) (0 at 0, -inf below; gradient inf at 0)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.entr", grad_fn="SpecialEntrBackward0"),
    )
)


# --- Bessel functions ------------------------------------------------------------------------

iv: Primitive = register(
    Primitive(
        name="iv",
        forward=lambda xp, v, x: _call(xp, "iv", v, x, dtype_of=(x,)),
        # I_v' = (I_{v-1} + I_{v+1}) / 2
        vjp=(None, lambda ct, out, v, x: ct * (0.5 * (iv(v - 1, x) + iv(v + 1, x)))),
        jvp=ELEMENTWISE,
        sample=_order(0, 3, 0.1, 4.0, complex=True),
        doc="modified Bessel function of the first kind of order v (v: no gradient)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.iv"),
    )
)

ive: Primitive = register(
    Primitive(
        name="ive",
        forward=lambda xp, v, x: _call(xp, "ive", v, x, dtype_of=(x,)),
        # ive = exp(-|x|) I_v: ive' = (ive_{v-1} + ive_{v+1}) / 2 - sign(x) ive
        vjp=(
            None,
            lambda ct, out, v, x: (
                ct * (0.5 * (ive(v - 1, x) + ive(v + 1, x)) - sign(value_of(x)) * out)
            ),
        ),
        jvp=ELEMENTWISE,
        sample=_order(0, 3, 0.1, 4.0),
        doc="exponentially scaled modified Bessel function exp(-|x|) iv(v, x) (v: no gradient)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.ive"),
    )
)

i0 = register(
    Primitive(
        name="i0",
        forward=lambda xp, x: _call(xp, "i0", x),
        vjp=(lambda ct, out, x: ct * i1(x),),
        jvp=ELEMENTWISE,
        sample=_unary(-3.0, 3.0),
        doc="modified Bessel function of the first kind of order 0",
        keeps_zeros="elementwise",
        names=Names(
            scipy="special.i0", torch="i0", method="i0", inplace="i0_", grad_fn="I0Backward0"
        ),
    )
)

i1: Primitive = register(
    Primitive(
        name="i1",
        forward=lambda xp, x: _call(xp, "i1", x),
        vjp=(lambda ct, out, x: ct * (0.5 * (i0(x) + iv(2, x))),),
        jvp=ELEMENTWISE,
        sample=_unary(-3.0, 3.0),
        doc="modified Bessel function of the first kind of order 1",
        keeps_zeros="elementwise",
        names=Names(scipy="special.i1", grad_fn="SpecialI1Backward0"),
    )
)

i0e = register(
    Primitive(
        name="i0e",
        forward=lambda xp, x: _call(xp, "i0e", x),
        vjp=(lambda ct, out, x: ct * (i1e(x) - sign(value_of(x)) * out),),
        jvp=ELEMENTWISE,
        sample=_unary(-3.0, 3.0),
        doc="exponentially scaled modified Bessel function exp(-|x|) i0(x)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.i0e", grad_fn="SpecialI0EBackward0"),
    )
)

i1e: Primitive = register(
    Primitive(
        name="i1e",
        forward=lambda xp, x: _call(xp, "i1e", x),
        vjp=(lambda ct, out, x: ct * (0.5 * (i0e(x) + ive(2, x)) - sign(value_of(x)) * out),),
        jvp=ELEMENTWISE,
        sample=_unary(-3.0, 3.0),
        doc="exponentially scaled modified Bessel function exp(-|x|) i1(x)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.i1e", grad_fn="SpecialI1EBackward0"),
    )
)

jn: Primitive = register(
    Primitive(
        name="jn",
        forward=lambda xp, n, x: _call(xp, "jn", n, x, dtype_of=(x,)),
        # J_n' = (J_{n-1} - J_{n+1}) / 2
        vjp=(None, lambda ct, out, n, x: ct * (0.5 * (jn(n - 1, x) - jn(n + 1, x)))),
        jvp=ELEMENTWISE,
        sample=_order(0, 3, -5.0, 5.0, complex=True),
        doc="Bessel function of the first kind of integer order n (n: no gradient)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.jn"),
    )
)


def _yn_forward(xp: ModuleType, n: Any, x: Array) -> Array:
    if xp is numpy or (type(n) is int and n >= 0):
        return _call(xp, "yn", n, x, dtype_of=(x,))
    # NOTE: CUDA's yn (cupyx's) is NaN for n < 0, where SciPy's (cephes) reflects:
    # Y_{-n} = (-1)^n Y_n, exactly (the VJP at n = 0 asks for Y_{-1}). SciPy truncates a
    # float order, as does CuPy's (int) cast.
    order = n if isinstance(n, xp.ndarray) else constant_like(n, x)  # on x's GPU
    if order.dtype.kind == "f":
        order = xp.trunc(order)
    out = _call(xp, "yn", abs(order), x, dtype_of=(x,))
    return xp.where((order < 0) & (abs(order) % 2 == 1), -out, out)


yn: Primitive = register(
    Primitive(
        name="yn",
        forward=_yn_forward,
        # Y_n' = (Y_{n-1} - Y_{n+1}) / 2
        vjp=(None, lambda ct, out, n, x: ct * (0.5 * (yn(n - 1, x) - yn(n + 1, x)))),
        jvp=ELEMENTWISE,
        sample=_order(0, 3, 0.5, 6.0),
        doc="Bessel function of the second kind of integer order n (n: no gradient)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.yn"),
    )
)

j0 = register(
    Primitive(
        name="j0",
        forward=lambda xp, x: _call(xp, "j0", x),
        vjp=(lambda ct, out, x: -ct * j1(x),),
        jvp=ELEMENTWISE,
        sample=_unary(-5.0, 5.0),
        doc="Bessel function of the first kind of order 0",
        keeps_zeros="elementwise",
        names=Names(scipy="special.j0"),
    )
)

j1: Primitive = register(
    Primitive(
        name="j1",
        forward=lambda xp, x: _call(xp, "j1", x),
        vjp=(lambda ct, out, x: ct * (0.5 * (j0(x) - jn(2, x))),),
        jvp=ELEMENTWISE,
        sample=_unary(-5.0, 5.0),
        doc="Bessel function of the first kind of order 1",
        keeps_zeros="elementwise",
        names=Names(scipy="special.j1"),
    )
)

y0 = register(
    Primitive(
        name="y0",
        forward=lambda xp, x: _call(xp, "y0", x),
        vjp=(lambda ct, out, x: -ct * y1(x),),
        jvp=ELEMENTWISE,
        sample=_unary(0.5, 6.0),
        doc="Bessel function of the second kind of order 0 (x > 0)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.y0"),
    )
)

y1: Primitive = register(
    Primitive(
        name="y1",
        forward=lambda xp, x: _call(xp, "y1", x),
        vjp=(lambda ct, out, x: ct * (0.5 * (y0(x) - yn(2, x))),),
        jvp=ELEMENTWISE,
        sample=_unary(0.5, 6.0),
        doc="Bessel function of the second kind of order 1 (x > 0)",
        keeps_zeros="elementwise",
        names=Names(scipy="special.y1"),
    )
)
