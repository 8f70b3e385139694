"""The log-normal distribution: `exp` of a normal (`torch.distributions.LogNormal`)."""

from __future__ import annotations

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.normal import Normal
from funcgrad.distributions.utils import op, shape_of

__all__ = ["LogNormal"]


class LogNormal(Distribution):
    """The distribution of `exp(X)` for `X` normal with mean `loc` and standard deviation `scale`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import LogNormal
        >>> d = LogNormal(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> d.mean, d.log_prob(torch.tensor([1.0]))
        (tensor([1.6487]), tensor([-0.9189]))
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        new.base_dist = self.base_dist.expand(batch_shape)
        Distribution.__init__(new, shape_of(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return op(lambda m, s: fnp.exp(m + s * s / 2), self.loc, self.scale)

    @property
    def mode(self):
        return op(lambda m, s: fnp.exp(m - s * s), self.loc, self.scale)

    @property
    def variance(self):
        return op(lambda m, s: fnp.expm1(s * s) * fnp.exp(2 * m + s * s), self.loc, self.scale)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = value.log()
        return op(lambda lp, y: lp - y, self.base_dist.log_prob(y), y)

    def cdf(self, value):
        return self.base_dist.cdf(value.log())

    def icdf(self, value):
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        return op(lambda h, m: h + m, self.base_dist.entropy(), self.loc)
