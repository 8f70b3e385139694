"""The beta distribution on `[0, 1]` (`torch.distributions.Beta`)."""

from __future__ import annotations

import numbers

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions._lazy import special as _sp
from funcgrad.distributions.dirichlet import Dirichlet
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import broadcast_all, expand, op, shape_of, value_of, wrap

__all__ = ["Beta"]


class Beta(Distribution):
    """The beta distribution of `concentration1` (alpha) and `concentration0` (beta).

    `rsample` goes through the Dirichlet's (see `Dirichlet`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Beta
        >>> d = Beta(torch.tensor([2.0]), torch.tensor([3.0]))
        >>> d.mean, d.log_prob(torch.tensor([0.25]))
        (tensor([0.4000]), tensor([0.5232]))
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Number) and isinstance(
            concentration0, numbers.Number
        ):
            c1, c0 = broadcast_all(float(concentration1), float(concentration0))
            concentration = op(lambda a, b: fnp.stack([a, b]), c1, c0)
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            concentration = op(lambda a, b: fnp.stack([a, b], axis=-1), c1, c0)
        self._dirichlet = Dirichlet(concentration, validate_args=validate_args)
        self._c1, self._c0 = c1, c0
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = shape_of(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        new._c1 = expand(self._c1, batch_shape)
        new._c0 = expand(self._c0, batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._c1

    @property
    def concentration0(self):
        return self._c0

    @property
    def mean(self):
        return op(lambda a, b: a / (a + b), self._c1, self._c0)

    @property
    def mode(self):
        return wrap(np.array(value_of(self._dirichlet.mode)[..., 0]))

    @property
    def variance(self):
        return op(lambda a, b: a * b / ((a + b) ** 2 * (a + b + 1)), self._c1, self._c0)

    def rsample(self, sample_shape=()):
        return op(lambda x: x[..., 0], self._dirichlet.rsample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)

        def f(v, a, b):
            return _sp.xlogy(a - 1.0, v) + _sp.xlog1py(b - 1.0, -v) - _sp.betaln(a, b)

        return op(f, value, self._c1, self._c0)

    def entropy(self):
        return self._dirichlet.entropy()
