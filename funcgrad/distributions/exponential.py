"""The exponential distribution (`torch.distributions.Exponential`)."""

from __future__ import annotations

import numbers

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import broadcast_all, expand, op, shape_of, uniform

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution of `rate` (density `rate * exp(-rate * x)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Exponential
        >>> d = Exponential(torch.tensor([2.0]))
        >>> d.log_prob(torch.tensor([1.0])), d.cdf(torch.tensor([1.0]))
        (tensor([-1.3069]), tensor([0.8647]))
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = shape_of(batch_shape)
        new.rate = expand(self.rate, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return op(lambda r: 1.0 / r, self.rate)

    @property
    def mode(self):
        return op(lambda r: r * 0.0, self.rate)

    @property
    def stddev(self):
        return op(lambda r: 1.0 / r, self.rate)

    @property
    def variance(self):
        return op(lambda r: 1.0 / (r * r), self.rate)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # a standard exponential draw by inversion: -log(1 - u), u in [0, 1)
        e = -fnp.log1p(-uniform(shape, self.rate))
        return op(lambda r: e / r, self.rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(lambda v, r: fnp.log(r) - r * v, value, self.rate)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(lambda v, r: 1 - fnp.exp(-r * v), value, self.rate)

    def icdf(self, value):
        return op(lambda v, r: -fnp.log1p(-v) / r, value, self.rate)

    def entropy(self):
        return op(lambda r: 1.0 - fnp.log(r), self.rate)
