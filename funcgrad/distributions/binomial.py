"""The binomial distribution (`torch.distributions.Binomial`)."""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions._lazy import special as _sp
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    broadcast_all,
    draw,
    expand,
    lazy_property,
    logits_to_probs,
    op,
    probs_to_logits,
    shape_of,
    value_of,
    wrap,
)

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # max(x, 0) with the gradient 1/2 at 0, as PyTorch's (clamp(min=0) + x - clamp(max=0)) / 2
    return (fnp.maximum(x, 0.0) + x - fnp.minimum(x, 0.0)) / 2


class Binomial(Distribution):
    """The number of successes in `total_count` Bernoulli trials of probability `probs`.

    Give exactly one of `probs` and `logits`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Binomial
        >>> d = Binomial(10, torch.tensor([0.3]))
        >>> d.mean, d.log_prob(torch.tensor([3.0]))
        (tensor([3.]), tensor([-1.3211]))
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = shape_of(batch_shape)
        new.total_count = expand(self.total_count, batch_shape)
        if "probs" in self.__dict__:
            new.probs = expand(self.probs, batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = expand(self.logits, batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return op(lambda n, p: n * p, self.total_count, self.probs)

    @property
    def mode(self):
        n, p = value_of(self.total_count), value_of(self.probs)
        return wrap(np.minimum(np.floor((n + 1) * p), n).astype(p.dtype))

    @property
    def variance(self):
        return op(lambda n, p: n * p * (1 - p), self.total_count, self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        n = np.broadcast_to(value_of(self.total_count), tuple(shape)).astype(np.int64)
        p = np.broadcast_to(value_of(self.probs), tuple(shape))
        return wrap(draw("binomial", shape, self.probs, n, p))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)

        def f(n, x, k):
            log_factorial_n = _sp.gammaln(n + 1)
            log_factorial_k = _sp.gammaln(k + 1)
            log_factorial_nmk = _sp.gammaln(n - k + 1)
            # k log p + (n - k) log(1 - p) = k x - n max(x, 0) - n log1p(exp(-|x|)), x = logit
            normalize = (
                n * _clamp_by_zero(x) + n * fnp.log1p(fnp.exp(-fnp.abs(x))) - log_factorial_n
            )
            return k * x - normalize - log_factorial_k - log_factorial_nmk

        return op(f, self.total_count, self.logits, value)

    def entropy(self):
        n = value_of(self.total_count)
        total = int(n.max()) if n.size else 0
        if n.size and not (n == total).all():
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return op(lambda lp: -fnp.sum(fnp.exp(lp) * lp, axis=0), log_prob)

    def enumerate_support(self, expand=True):
        n = value_of(self.total_count)
        total = int(n.max()) if n.size else 0
        if n.size and not (n == total).all():
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = np.arange(1 + total, dtype=value_of(self._param).dtype).reshape(
            (-1,) + (1,) * len(self._batch_shape)
        )
        if expand:
            values = np.broadcast_to(values, (1 + total, *self._batch_shape)).copy()
        return wrap(values)
