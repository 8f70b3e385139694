"""`kl_divergence(p, q)` and `register_kl`: the KL divergence of two distributions (`torch.distributions.kl`).

Rules are registered per pair of types; `kl_divergence` picks the most
specific one by the types' method resolution orders (as PyTorch does) and
warns when two rules match equally well.
"""

from __future__ import annotations

import math
import warnings
from functools import total_ordering

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions._lazy import linalg as _sla
from funcgrad.distributions._lazy import special as _sp
from funcgrad.distributions.bernoulli import Bernoulli
from funcgrad.distributions.beta import Beta
from funcgrad.distributions.binomial import Binomial
from funcgrad.distributions.categorical import Categorical
from funcgrad.distributions.dirichlet import Dirichlet
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.exponential import Exponential
from funcgrad.distributions.gamma import Gamma
from funcgrad.distributions.independent import Independent
from funcgrad.distributions.laplace import Laplace
from funcgrad.distributions.log_normal import LogNormal
from funcgrad.distributions.multivariate_normal import MultivariateNormal, _diag, batch_mahalanobis
from funcgrad.distributions.normal import Normal
from funcgrad.distributions.one_hot_categorical import OneHotCategorical
from funcgrad.distributions.poisson import Poisson
from funcgrad.distributions.uniform import Uniform
from funcgrad.distributions.utils import op, sum_rightmost, value_of
from funcgrad.ops import elementwise as _ew

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}  # (type_p, type_q) -> rule
_KL_MEMOIZE: dict = {}  # (type_p, type_q) -> the rule chosen for them


def register_kl(type_p, type_q):
    """Return a decorator that registers a rule `kl(p, q)` for `p` of `type_p` and `q` of `type_q`.

    Examples:
        >>> from funcgrad.distributions import Normal, register_kl
        >>> class MyNormal(Normal):
        ...     pass
        >>> @register_kl(MyNormal, MyNormal)
        ... def kl_mine(p, q):
        ...     return p.loc * 0.0
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types, strict=True):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [
        (super_p, super_q)
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl("
            f"{left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return left_fun


def kl_divergence(p, q):
    """Return `KL(p || q)`, the expectation under `p` of `log p - log q`, of shape `batch_shape`.

    Raises:
        NotImplementedError: If no rule is registered for the types of `p` and `q`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Normal, kl_divergence
        >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
        tensor(0.4431)
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p of type {type(p).__name__} and q of type "
            f"{type(q).__name__}"
        )
    return fun(p, q)


def _infinite_like(t):
    return op(lambda x: x * 0.0 + math.inf, t)


# --- same families -----------------------------------------------------------------------


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    def f(pl, ps, ql, qs):
        var_ratio = (ps / qs) ** 2
        t1 = ((pl - ql) / qs) ** 2
        return 0.5 * (var_ratio + t1 - 1 - fnp.log(var_ratio))

    return op(f, p.loc, p.scale, q.loc, q.scale)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    def f(pp, px, qp, qx):
        pv, qv = value_of(pp), value_of(qp)
        t1 = pp * (_ew.softplus(-qx) - _ew.softplus(-px))
        t1 = fnp.where(pv == 0, 0.0, fnp.where(qv == 0, math.inf, t1))
        t2 = (1 - pp) * (_ew.softplus(qx) - _ew.softplus(px))
        t2 = fnp.where(pv == 1, 0.0, fnp.where(qv == 1, math.inf, t2))
        return t1 + t2

    return op(f, p.probs, p.logits, q.probs, q.logits)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    def f(pp, pl, qp, ql):
        t = pp * (pl - ql)
        shape = np.broadcast_shapes(value_of(pp).shape, value_of(qp).shape)
        t = fnp.where(np.broadcast_to(value_of(qp) == 0, shape), math.inf, t)
        t = fnp.where(np.broadcast_to(value_of(pp) == 0, shape), 0.0, t)
        return fnp.sum(t, axis=-1)

    return op(f, p.probs, p.logits, q.probs, q.logits)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes "
            "cannot be computed"
        )
    n = p.event_shape[0]

    def f(pL, qL, pl, ql):
        half_term1 = fnp.sum(fnp.log(_diag(qL)), axis=-1) - fnp.sum(fnp.log(_diag(pL)), axis=-1)
        batch = np.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2]))
        qb = fnp.broadcast_to(qL, (*batch, n, n))
        pb = fnp.broadcast_to(pL, (*batch, n, n))
        term2 = fnp.sum(_sla.solve_triangular(qb, pb, lower=True) ** 2, axis=(-2, -1))
        term3 = batch_mahalanobis(qL, ql - pl)
        return half_term1 + 0.5 * (term2 + term3 - n)

    return op(f, p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril, p.loc, q.loc)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    def f(pl, ph, ql, qh):
        result = fnp.log((qh - ql) / (ph - pl))
        outside = (value_of(ql) > value_of(pl)) | (value_of(qh) < value_of(ph))
        return fnp.where(outside, math.inf, result)

    return op(f, p.low, p.high, q.low, q.high)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    def f(pa, pb, qa, qb):
        sp, sq = pa + pb, qa + qb
        t1 = _sp.gammaln(qa) + _sp.gammaln(qb) + _sp.gammaln(sp)
        t2 = _sp.gammaln(pa) + _sp.gammaln(pb) + _sp.gammaln(sq)
        t3 = (pa - qa) * _sp.digamma(pa)
        t4 = (pb - qb) * _sp.digamma(pb)
        t5 = (sq - sp) * _sp.digamma(sp)
        return t1 - t2 + t3 + t4 + t5

    return op(f, p.concentration1, p.concentration0, q.concentration1, q.concentration0)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if (value_of(p.total_count) < value_of(q.total_count)).any():
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )

    def f(pn, qn, pp, pl, ql, qp):
        kl = pn * (pp * (pl - ql) + fnp.log1p(-pp) - fnp.log1p(-qp))
        return fnp.where(value_of(pn) > value_of(qn), math.inf, kl)

    return op(f, p.total_count, q.total_count, p.probs, p.logits, q.logits, q.probs)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    def f(pc, qc):
        sp, sq = fnp.sum(pc, axis=-1), fnp.sum(qc, axis=-1)
        t1 = _sp.gammaln(sp) - _sp.gammaln(sq)
        t2 = fnp.sum(_sp.gammaln(pc) - _sp.gammaln(qc), axis=-1)
        t3 = pc - qc
        t4 = _sp.digamma(pc) - fnp.expand_dims(_sp.digamma(sp), -1)
        return t1 - t2 + fnp.sum(t3 * t4, axis=-1)

    return op(f, p.concentration, q.concentration)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    def f(pr, qr):
        ratio = qr / pr
        return -fnp.log(ratio) + ratio - 1

    return op(f, p.rate, q.rate)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    def f(pc, pr, qc, qr):
        t1 = qc * fnp.log(pr / qr)
        t2 = _sp.gammaln(qc) - _sp.gammaln(pc)
        t3 = (pc - qc) * _sp.digamma(pc)
        t4 = (qr - pr) * (pc / pr)
        return t1 + t2 + t3 + t4

    return op(f, p.concentration, p.rate, q.concentration, q.rate)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    def f(pl, ps, ql, qs):
        scale_ratio = ps / qs
        loc_abs_diff = fnp.abs(pl - ql)
        return (
            -fnp.log(scale_ratio)
            + loc_abs_diff / qs
            + scale_ratio * fnp.exp(-loc_abs_diff / ps)
            - 1
        )

    return op(f, p.loc, p.scale, q.loc, q.scale)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return op(lambda pr, qr: pr * (fnp.log(pr) - fnp.log(qr)) - (pr - qr), p.rate, q.rate)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


# --- across families ---------------------------------------------------------------------


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p, q):
    return _infinite_like(p.loc)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    def f(lo, hi, ql, qs):
        common = hi - lo
        t1 = fnp.log(math.sqrt(math.pi * 2) * qs / common)
        t2 = common * common / 12
        t3 = ((hi + lo - 2 * ql) / 2) ** 2
        return t1 + 0.5 * (t2 + t3) / (qs * qs)

    return op(f, p.low, p.high, q.loc, q.scale)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    def f(pl, ps, ql, qs):
        var_normal = qs * qs
        scale_sqr_var_ratio = ps * ps / var_normal
        t1 = 0.5 * fnp.log(2 * scale_sqr_var_ratio / math.pi)
        t2 = 0.5 * pl * pl
        t3 = pl * ql
        t4 = 0.5 * ql * ql
        return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1

    return op(f, p.loc, p.scale, q.loc, q.scale)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    def f(r, ql, qs):
        var_normal = qs * qs
        rate_sqr = r * r
        t1 = 0.5 * fnp.log(rate_sqr * var_normal * 2 * math.pi)
        t2 = 1.0 / rate_sqr
        t3 = ql / r
        t4 = ql * ql / 2
        return t1 - 1 + (t2 - t3 + t4) / var_normal

    return op(f, p.rate, q.loc, q.scale)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    def f(r, qc, qr):
        ratio = qr / r
        t1 = -qc * fnp.log(ratio)
        return t1 + ratio + _sp.gammaln(qc) + qc * np.euler_gamma - (1 + np.euler_gamma)

    return op(f, p.rate, q.concentration, q.rate)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return _kl_gamma_gamma(p, Gamma(q.rate * 0.0 + 1.0, q.rate, validate_args=False))


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    def f(pc, pr, ql, qs):
        var_normal = qs * qs
        beta_sqr = pr * pr
        t1 = 0.5 * fnp.log(beta_sqr * var_normal * 2 * math.pi) - pc - _sp.gammaln(pc)
        t2 = 0.5 * (pc * pc + pc) / beta_sqr
        t3 = ql * pc / pr
        t4 = 0.5 * ql * ql
        return t1 + (pc - 1) * _sp.digamma(pc) + (t2 - t3 + t4) / var_normal

    return op(f, p.concentration, p.rate, q.loc, q.scale)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    def f(a, b, ql, qs):
        e_beta = a / (a + b)
        var_normal = qs * qs
        t1 = -(_sp.gammaln(a) + _sp.gammaln(b) - _sp.gammaln(a + b))
        t2 = 0.5 * fnp.log(var_normal * 2 * math.pi)
        t3 = (e_beta * (1 - e_beta) / (a + b + 1) + e_beta * e_beta) * 0.5
        t4 = ql * e_beta
        t5 = ql * ql * 0.5
        entropy_term = (
            (a - 1) * _sp.digamma(a) + (b - 1) * _sp.digamma(b) - (a + b - 2) * _sp.digamma(a + b)
        )
        return t1 + entropy_term + t2 + (t3 - t4 + t5) / var_normal

    return op(f, p.concentration1, p.concentration0, q.loc, q.scale)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    def f(a, b, lo, hi, h):
        result = -h + fnp.log(hi - lo)
        outside = (value_of(lo) > 0) | (value_of(hi) < 1)
        return fnp.where(outside, math.inf, result)

    return op(f, p.concentration1, p.concentration0, q.low, q.high, p.entropy())


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    def f(lo, hi, r):
        result = r * (hi + lo) / 2 - fnp.log((hi - lo) * r)
        return fnp.where(value_of(lo) < 0, math.inf, result)

    return op(f, p.low, p.high, q.rate)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    def f(lo, hi, qc, qr):
        common = hi - lo
        t1 = fnp.log(common)
        t2 = qc * fnp.log(qr) - _sp.gammaln(qc)
        t3 = (1 - qc) * (_xlogx(hi) - _xlogx(lo) - common) / common
        t4 = qr * (hi + lo) / 2
        result = -t1 - t2 + t3 + t4
        return fnp.where(value_of(lo) < 0, math.inf, result)

    return op(f, p.low, p.high, q.concentration, q.rate)


def _xlogx(x):
    return _sp.xlogy(x, x)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    def f(lo, hi, a, b):
        common = hi - lo
        t1 = fnp.log(common)
        t2 = (a - 1) * (_xlogx(hi) - _xlogx(lo) - common) / common
        t3 = (b - 1) * (_xlogx(1 - hi) - _xlogx(1 - lo) + common) / common
        t4 = _sp.gammaln(a) + _sp.gammaln(b) - _sp.gammaln(a + b)
        result = t3 + t4 - t1 - t2
        outside = (value_of(hi) > 1) | (value_of(lo) < 0)
        return fnp.where(outside, math.inf, result)

    return op(f, p.low, p.high, q.concentration1, q.concentration0)
