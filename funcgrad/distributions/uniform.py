"""The continuous uniform distribution on `[low, high)` (`torch.distributions.Uniform`)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    broadcast_all,
    expand,
    op,
    shape_of,
    uniform,
    value_of,
)

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on the half-open interval `[low, high)`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Uniform
        >>> d = Uniform(torch.tensor([0.0]), torch.tensor([4.0]))
        >>> d.log_prob(torch.tensor([1.0])), d.cdf(torch.tensor([1.0])), d.entropy()
        (tensor([-1.3863]), tensor([0.2500]), tensor([1.3863]))
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape = ()
        else:
            batch_shape = self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = shape_of(batch_shape)
        new.low = expand(self.low, batch_shape)
        new.high = expand(self.high, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return op(lambda lo, hi: (hi + lo) / 2, self.low, self.high)

    @property
    def mode(self):
        return op(lambda hi: hi * math.nan, self.high)

    @property
    def stddev(self):
        return op(lambda lo, hi: (hi - lo) / 12**0.5, self.low, self.high)

    @property
    def variance(self):
        return op(lambda lo, hi: (hi - lo) ** 2 / 12, self.low, self.high)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = uniform(shape, self.low)
        return op(lambda lo, hi: lo + u * (hi - lo), self.low, self.high)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)

        def f(v, lo, hi):
            inside = (value_of(lo) <= value_of(v)) & (value_of(hi) > value_of(v))
            with np.errstate(divide="ignore"):
                return fnp.log(inside.astype(value_of(lo).dtype)) - fnp.log(hi - lo)

        return op(f, value, self.low, self.high)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(
            lambda v, lo, hi: fnp.clip((v - lo) / (hi - lo), 0.0, 1.0), value, self.low, self.high
        )

    def icdf(self, value):
        return op(lambda v, lo, hi: v * (hi - lo) + lo, value, self.low, self.high)

    def entropy(self):
        return op(lambda lo, hi: fnp.log(hi - lo), self.low, self.high)
