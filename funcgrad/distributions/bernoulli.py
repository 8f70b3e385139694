"""The Bernoulli distribution (`torch.distributions.Bernoulli`)."""

from __future__ import annotations

import numbers

import numpy as np

from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    broadcast_all,
    expand,
    lazy_property,
    logits_to_probs,
    op,
    probs_to_logits,
    shape_of,
    uniform,
    value_of,
    wrap,
)
from funcgrad.ops import elementwise as _ew
from funcgrad.tensors import grad_mode

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """The Bernoulli distribution: 1 with probability `probs`, else 0.

    Give exactly one of `probs` (in [0, 1]) and `logits` (log-odds).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Bernoulli
        >>> d = Bernoulli(logits=torch.tensor([0.0, 2.0]))
        >>> d.probs
        tensor([0.5000, 0.8808])
        >>> d.log_prob(torch.tensor([1.0, 0.0]))
        tensor([-0.6931, -2.1269])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = () if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = shape_of(batch_shape)
        if "probs" in self.__dict__:
            new.probs = expand(self.probs, batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = expand(self.logits, batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        p = value_of(self.probs)
        return wrap(np.where(p == 0.5, np.nan, p >= 0.5).astype(p.dtype))

    @property
    def variance(self):
        return op(lambda p: p * (1 - p), self.probs)

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
        with grad_mode.no_grad():
            p = np.broadcast_to(value_of(self.probs), shape)
            u = uniform(shape, self.probs)
            return wrap((u < p).astype(p.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # -binary_cross_entropy_with_logits(logits, value) = value * logits - softplus(logits)
        return op(lambda x, v: v * x - _ew.softplus(x), self.logits, value)

    def entropy(self):
        return op(lambda x, p: _ew.softplus(x) - p * x, self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = np.arange(2, dtype=value_of(self._param).dtype).reshape(
            (-1,) + (1,) * len(self._batch_shape)
        )
        if expand:
            values = np.broadcast_to(values, (2, *self._batch_shape)).copy()
        return wrap(values)
