"""The categorical distribution over `0 .. K-1` (`torch.distributions.Categorical`)."""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.backend import xp_of
from funcgrad.distributions import constraints
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    as_tensor,
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
from funcgrad.ops import nn as _nn
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["Categorical"]


def _sample_indices(probs: np.ndarray, u) -> np.ndarray:
    """Inverse-CDF draws: for each `u` (shape `sample + batch`), the class it falls in."""
    xp = xp_of(probs)
    cdf = xp.cumsum(probs, axis=-1)
    k = (u[..., None] * cdf[..., -1:] >= cdf).sum(-1)
    return xp.minimum(k, probs.shape[-1] - 1).astype(np.int64)


class Categorical(Distribution):
    """The categorical distribution: class `i` with probability `probs[..., i]`.

    Give exactly one of `probs` (nonnegative, normalised along the last
    dimension) and `logits` (unnormalised log-probabilities). Samples are
    int64 class indices.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Categorical
        >>> d = Categorical(logits=torch.tensor([0.0, 1.0, 2.0], requires_grad=True))
        >>> d.log_prob(torch.tensor(2))
        tensor(-0.4076, grad_fn=<SqueezeBackward1>)
        >>> d.sample((4,)).shape, d.sample().dtype
        (funcgrad.Size([4]), dtype('int64'))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            probs = as_tensor(probs)
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = op(lambda p: p / fnp.sum(p, axis=-1, keepdims=True), probs)
        else:
            logits = as_tensor(logits)
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = op(lambda x: x - _nn.logsumexp(x, axis=-1, keepdims=True), logits)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = shape_of(batch_shape)
        param_shape = shape_of(batch_shape, (self._num_events,))
        if "probs" in self.__dict__:
            new.probs = expand(self.probs, param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = expand(self.logits, param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return wrap(np.full(self._extended_shape(), np.nan, dtype=value_of(self.probs).dtype))

    @property
    def mode(self):
        return wrap(np.argmax(value_of(self.probs), axis=-1))

    @property
    def variance(self):
        return wrap(np.full(self._extended_shape(), np.nan, dtype=value_of(self.probs).dtype))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = value_of(self.probs)
        u = uniform(shape, self.probs)
        return wrap(_sample_indices(probs, u))

    def log_prob(self, value):
        if not isinstance(value, Tensor):
            value = as_tensor(np.asarray(value, dtype=np.int64))
        if self._validate_args:
            self._validate_sample(value)
        idx = np.asarray(value_of(value)).astype(np.int64)
        k = self._num_events

        def f(logits):
            shape = np.broadcast_shapes(idx.shape, tuple(logits.shape[:-1]))
            lp = fnp.broadcast_to(logits, (*shape, k))
            i = np.broadcast_to(idx, shape)[..., None]
            return fnp.squeeze(fnp.take_along_axis(lp, i, axis=-1), axis=-1)

        return op(f, self.logits)

    def entropy(self):
        min_real = float(np.finfo(value_of(self.logits).dtype).min)
        return op(
            lambda x, p: -fnp.sum(fnp.maximum(x, min_real) * p, axis=-1), self.logits, self.probs
        )

    def enumerate_support(self, expand=True):
        n = self._num_events
        values = np.arange(n, dtype=np.int64).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = np.broadcast_to(values, (n, *self._batch_shape)).copy()
        return wrap(values)
