"""The Laplace distribution (`torch.distributions.Laplace`)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import broadcast_all, expand, op, shape_of, uniform, value_of

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution of location `loc` and scale `scale` (density `exp(-|x - loc| / scale) / 2 scale`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Laplace
        >>> d = Laplace(torch.tensor([0.0]), torch.tensor([2.0]))
        >>> d.log_prob(torch.tensor([1.0])), d.variance
        (tensor([-1.8863]), tensor([8.]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = ()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = shape_of(batch_shape)
        new.loc = expand(self.loc, batch_shape)
        new.scale = expand(self.scale, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return op(lambda s: 2 * s * s, self.scale)

    @property
    def stddev(self):
        return op(lambda s: math.sqrt(2) * s, self.scale)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(value_of(self.loc).dtype).eps)
        # u uniform in [eps - 1, 1): the inverse CDF never sees |u| = 1
        u = (uniform(shape, self.loc) * (2.0 - eps) + (eps - 1.0)).astype(value_of(self.loc).dtype)
        t = np.sign(u) * np.log1p(-np.abs(u))
        return op(lambda loc, scale: loc - scale * t, self.loc, self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(
            lambda v, loc, s: -fnp.log(2 * s) - fnp.abs(v - loc) / s, value, self.loc, self.scale
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(
            lambda v, loc, s: 0.5 - 0.5 * fnp.sign(v - loc) * fnp.expm1(-fnp.abs(v - loc) / s),
            value,
            self.loc,
            self.scale,
        )

    def icdf(self, value):
        def f(v, loc, s):
            term = v - 0.5
            return loc - s * fnp.sign(term) * fnp.log1p(-2 * fnp.abs(term))

        return op(f, value, self.loc, self.scale)

    def entropy(self):
        return op(lambda s: 1 + fnp.log(2 * s), self.scale)
