"""`funcgrad.special`: PyTorch's `torch.special` on tensors, over the primitives of `funcgrad.ops.special`.

PyTorch's names (`expit`, `gammaln`, `i0e`, `ndtr`, `xlog1py` ...), integer
inputs computed in the default float dtype, gradients to any order (also
where PyTorch has none, as for the Bessel functions).

Examples:
    >>> import funcgrad as torch
    >>> torch.special.expit(torch.tensor([0.0]))
    tensor([0.5000])
"""

from __future__ import annotations

import sys as _sys

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.ops import ufuncs as _uf
from funcgrad.tensors import functions as _F
from funcgrad.tensors.dtypes import default_float_dtype as _default_float
from funcgrad.tensors.tensor_class import _apply

__all__ = [
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
]

# the names torch.special shares with the top level
logit = _F.logit
logsumexp = _F.logsumexp
polygamma = _F.polygamma
round = _F.round  # noqa: A001
multigammaln = _F.mvlgamma


def _unary(name, prim, doc, example_in, example_out, grad=True):
    def f(input):  # noqa: A002
        out = _apply(prim, input)
        return out if grad else out.detach()  # PyTorch has no derivative here

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return {doc}, elementwise.

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.{name}(torch.tensor({example_in}))
        tensor({example_out})
    """
    return f


digamma = _unary(
    "digamma", _sp.digamma, "the digamma function, the derivative of lgamma", "[1.0]", "[-0.5772]"
)
psi = digamma
erf = _unary("erf", _sp.erf, "the error function", "[0.0]", "[0.]")
erfc = _unary("erfc", _sp.erfc, "the complementary error function", "[0.0]", "[1.]")
erfinv = _unary("erfinv", _sp.erfinv, "the inverse error function", "[0.0]", "[0.]")
exp2 = _unary("exp2", _uf.exp2, "`2 ** x`", "[3.0]", "[8.]")
expit = _unary(
    "expit", _ew.sigmoid, "the logistic sigmoid `1 / (1 + exp(-x))`", "[0.0]", "[0.5000]"
)
expm1 = _unary("expm1", _ew.expm1, "`exp(x) - 1`, accurate near 0", "[0.0]", "[0.]")
gammaln = _unary(
    "gammaln", _sp.gammaln, "the log of the gamma function's absolute value", "[3.0]", "[0.6931]"
)
i0 = _unary("i0", _sp.i0, "the modified Bessel function I0", "[0.0]", "[1.]")
log1p = _unary("log1p", _ew.log1p, "`log(1 + x)`, accurate near 0", "[0.0]", "[0.]")
sinc = _unary(
    "sinc", _uf.sinc, "the normalized sinc `sin(pi x) / (pi x)` (1 at 0)", "[0.0]", "[1.]"
)
entr = _unary("entr", _sp.entr, "the entropy term `-x * log(x)` (0 at 0)", "[0.5]", "[0.3466]")
ndtr = _unary("ndtr", _sp.ndtr, "the standard normal CDF", "[0.0]", "[0.5000]")
ndtri = _unary("ndtri", _sp.ndtri, "the inverse of the standard normal CDF", "[0.5]", "[0.]")
log_ndtr = _unary(
    "log_ndtr", _sp.log_ndtr, "the log of the standard normal CDF", "[0.0]", "[-0.6931]"
)
i0e = _unary("i0e", _sp.i0e, "the exponentially scaled Bessel function I0", "[0.0]", "[1.]")
i1 = _unary("i1", _sp.i1, "the modified Bessel function I1", "[0.0]", "[0.]")
modified_bessel_i0 = _unary(
    "modified_bessel_i0", _sp.i0, "the modified Bessel function I0", "[0.0]", "[1.]", grad=False
)
modified_bessel_i1 = _unary(
    "modified_bessel_i1", _sp.i1, "the modified Bessel function I1", "[0.0]", "[0.]", grad=False
)
i1e = _unary("i1e", _sp.i1e, "the exponentially scaled Bessel function I1", "[0.0]", "[0.]")
bessel_j0 = _unary("bessel_j0", _sp.j0, "the Bessel function J0", "[0.0]", "[1.]", grad=False)
bessel_j1 = _unary("bessel_j1", _sp.j1, "the Bessel function J1", "[0.0]", "[0.]", grad=False)
bessel_y0 = _unary("bessel_y0", _sp.y0, "the Bessel function Y0", "[1.0]", "[0.0883]", grad=False)
bessel_y1 = _unary("bessel_y1", _sp.y1, "the Bessel function Y1", "[1.0]", "[-0.7812]", grad=False)


def spherical_bessel_j0(input):  # noqa: A002
    """Return the spherical Bessel function j0, `sin(x) / x` (1 at 0), elementwise (no gradient, as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.spherical_bessel_j0(torch.tensor([0.0]))
        tensor([1.])
    """
    if input.dtype.kind in "biu":
        input = input.to(_default_float())
    return _apply(lambda x: _uf.sinc(x / 3.141592653589793), input).detach()


def xlogy(input, other):  # noqa: A002
    """Return `input * log(other)` (0 where `input` is 0), elementwise.

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 1.0]))
        tensor([0., 0.])
    """
    return _apply(_sp.xlogy, input, other)


def xlog1py(input, other):  # noqa: A002
    """Return `input * log1p(other)` (0 where `input` is 0), elementwise.

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 0.0]))
        tensor([0., 0.])
    """
    return _apply(_sp.xlog1py, input, other)


def gammainc(input, other):  # noqa: A002
    """Return the regularized lower incomplete gamma function P(input, other).

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.gammainc(torch.tensor([1.0]), torch.tensor([1.0]))
        tensor([0.6321])
    """
    return _apply(_sp.gammainc, input, other)


def gammaincc(input, other):  # noqa: A002
    """Return the regularized upper incomplete gamma function Q(input, other).

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.gammaincc(torch.tensor([1.0]), torch.tensor([1.0]))
        tensor([0.3679])
    """
    return _apply(_sp.gammaincc, input, other)


def softmax(input, dim, *, dtype=None):  # noqa: A002
    """Return the softmax of `input` along `dim` (`funcgrad.softmax`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.softmax(torch.tensor([0.0, 0.0]), 0)
        tensor([0.5000, 0.5000])
    """
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):  # noqa: A002
    """Return the log-softmax of `input` along `dim` (`funcgrad.log_softmax`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.special.log_softmax(torch.tensor([0.0, 0.0]), 0)
        tensor([-0.6931, -0.6931])
    """
    return _F.log_softmax(input, dim, dtype=dtype)


# `import funcgrad.special` works as `import torch.special` does (this module is funcgrad.special)
_sys.modules.setdefault("funcgrad.special", _sys.modules[__name__])
