"""The normal (Gaussian) distribution (`torch.distributions.Normal`)."""

from __future__ import annotations

import math
import numbers

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions._lazy import special as _sp
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    broadcast_all,
    expand,
    op,
    shape_of,
    standard_normal,
)
from funcgrad.tensors import grad_mode

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class Normal(Distribution):
    """The normal distribution with mean `loc` and standard deviation `scale`.

    Args:
        loc: The mean (a tensor or a number).
        scale: The standard deviation, > 0.
        validate_args: Check the arguments (default: `Distribution`'s setting).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Normal
        >>> loc = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> d = Normal(loc, torch.tensor([1.0, 2.0]))
        >>> d.log_prob(torch.tensor([0.0, 0.0]))
        tensor([-0.9189, -1.7371], grad_fn=<SubBackward0>)
        >>> d.entropy()
        tensor([1.4189, 2.1121])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = ()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
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
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return op(lambda s: s * s, self.scale)

    def sample(self, sample_shape=()):
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, self.loc)
        return op(lambda loc, scale: loc + eps * scale, self.loc, self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)

        def f(v, loc, scale):
            return -((v - loc) ** 2) / (2 * scale * scale) - fnp.log(scale) - _LOG_SQRT_2PI

        return op(f, value, self.loc, self.scale)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return op(
            lambda v, loc, scale: 0.5 * (1 + _sp.erf((v - loc) / (scale * math.sqrt(2)))),
            value,
            self.loc,
            self.scale,
        )

    def icdf(self, value):
        return op(
            lambda v, loc, scale: loc + scale * _sp.erfinv(2 * v - 1) * math.sqrt(2),
            value,
            self.loc,
            self.scale,
        )

    def entropy(self):
        return op(lambda s: 0.5 + 0.5 * math.log(2 * math.pi) + fnp.log(s), self.scale)
