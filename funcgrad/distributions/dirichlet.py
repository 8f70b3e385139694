"""The Dirichlet distribution on the simplex (`torch.distributions.Dirichlet`)."""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions._lazy import special as _sp
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.gamma import reparameterized_gamma
from funcgrad.distributions.utils import as_tensor, expand, op, shape_of, value_of, wrap

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """The Dirichlet distribution of `concentration` (..., K) > 0, over the (K-1)-simplex.

    Draws are normalised gamma draws; `rsample` differentiates them through
    the gammas' implicit gradients (an unbiased pathwise gradient, though
    not PyTorch's per draw, which goes through the Beta marginals).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Dirichlet
        >>> d = Dirichlet(torch.tensor([1.0, 2.0, 3.0]))
        >>> d.mean, d.log_prob(torch.tensor([0.2, 0.3, 0.5]))
        (tensor([0.1667, 0.3333, 0.5000]), tensor(1.5041))
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        concentration = as_tensor(concentration)
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = shape_of(batch_shape)
        new.concentration = expand(self.concentration, shape_of(batch_shape, self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return op(lambda c: c / fnp.sum(c, axis=-1, keepdims=True), self.concentration)

    @property
    def mode(self):
        c = value_of(self.concentration)
        m = np.maximum(c - 1, 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = m / m.sum(-1, keepdims=True)
        low = (c < 1).all(-1)
        if low.any():
            k = c.shape[-1]
            m = np.where(low[..., None], np.eye(k, dtype=c.dtype)[np.argmax(m, -1)], m)
        return wrap(m.astype(c.dtype))

    @property
    def variance(self):
        def f(c):
            c0 = fnp.sum(c, axis=-1, keepdims=True)
            return c * (c0 - c) / (c0 * c0 * (c0 + 1))

        return op(f, self.concentration)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = reparameterized_gamma(self.concentration, shape)
        dtype = value_of(self.concentration).dtype
        tiny, eps = float(np.finfo(dtype).tiny), float(np.finfo(dtype).eps)
        return op(lambda g: fnp.clip(g / fnp.sum(g, axis=-1, keepdims=True), tiny, 1 - eps), g)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)

        def f(v, c):
            return (
                fnp.sum(_sp.xlogy(c - 1.0, v), axis=-1)
                + _sp.gammaln(fnp.sum(c, axis=-1))
                - fnp.sum(_sp.gammaln(c), axis=-1)
            )

        return op(f, value, self.concentration)

    def entropy(self):
        k = self.event_shape[0]

        def f(c):
            a0 = fnp.sum(c, axis=-1)
            return (
                fnp.sum(_sp.gammaln(c), axis=-1)
                - _sp.gammaln(a0)
                - (k - a0) * _sp.digamma(a0)
                - fnp.sum((c - 1.0) * _sp.digamma(c), axis=-1)
            )

        return op(f, self.concentration)
