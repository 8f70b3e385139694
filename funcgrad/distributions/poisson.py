"""The Poisson distribution (`torch.distributions.Poisson`)."""

from __future__ import annotations

import numbers

import numpy as np

from funcgrad.distributions import constraints
from funcgrad.distributions._lazy import special as _sp
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import broadcast_all, draw, expand, op, shape_of, value_of, wrap

__all__ = ["Poisson"]


class Poisson(Distribution):
    """The Poisson distribution of `rate` (mass `rate^k e^-rate / k!`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Poisson
        >>> d = Poisson(torch.tensor([2.0]))
        >>> d.log_prob(torch.tensor([3.0]))
        tensor([-1.7123])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = shape_of(batch_shape)
        new.rate = expand(self.rate, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return wrap(np.floor(value_of(self.rate)))

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        rate = np.broadcast_to(value_of(self.rate), tuple(shape))
        return wrap(draw("poisson", shape, self.rate, rate))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(lambda r, v: _sp.xlogy(v, r) - r - _sp.gammaln(v + 1), self.rate, value)
