"""The gamma distribution (`torch.distributions.Gamma`)."""

from __future__ import annotations

import numbers

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    broadcast_all,
    draw,
    expand,
    op,
    shape_of,
    value_of,
    wrap,
)
from funcgrad.scipy import special as _sp

__all__ = ["Gamma"]


def standard_gamma(concentration, shape):
    """Gamma(concentration, 1) draws of `shape` (concentration broadcast), clamped at `tiny`."""
    c = value_of(concentration)
    x = draw("standard_gamma", shape, concentration, np.broadcast_to(c, tuple(shape)))
    return np.maximum(x, np.finfo(c.dtype).tiny).astype(c.dtype)


class Gamma(Distribution):
    """The gamma distribution of shape `concentration` and `rate` (density `x^(c-1) e^(-rate x)`).

    `rsample` is not provided yet (PyTorch differentiates its draws
    implicitly); `sample` is.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Gamma
        >>> d = Gamma(torch.tensor([2.0]), torch.tensor([3.0]))
        >>> d.mean, d.log_prob(torch.tensor([0.5]))
        (tensor([0.6667]), tensor([0.0041]))
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = False
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape = ()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = shape_of(batch_shape)
        new.concentration = expand(self.concentration, batch_shape)
        new.rate = expand(self.rate, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return op(lambda c, r: c / r, self.concentration, self.rate)

    @property
    def mode(self):
        return op(lambda c, r: fnp.maximum((c - 1) / r, 0.0), self.concentration, self.rate)

    @property
    def variance(self):
        return op(lambda c, r: c / (r * r), self.concentration, self.rate)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = standard_gamma(self.concentration, shape) / np.broadcast_to(value_of(self.rate), shape)
        return wrap(np.maximum(x, np.finfo(x.dtype).tiny))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)

        def f(v, c, r):
            return _sp.xlogy(c, r) + _sp.xlogy(c - 1, v) - r * v - _sp.gammaln(c)

        return op(f, value, self.concentration, self.rate)

    def entropy(self):
        def f(c, r):
            return c - fnp.log(r) + _sp.gammaln(c) + (1.0 - c) * _sp.digamma(c)

        return op(f, self.concentration, self.rate)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(lambda v, c, r: _sp.gammainc(c, r * v), value, self.concentration, self.rate)
