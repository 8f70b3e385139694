"""The one-hot categorical distribution (`torch.distributions.OneHotCategorical`)."""

from __future__ import annotations

import numpy as np

from funcgrad.distributions import constraints
from funcgrad.distributions.categorical import Categorical
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import as_tensor, op, shape_of, value_of, wrap
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["OneHotCategorical"]


def _one_hot(idx: np.ndarray, n: int, dtype) -> np.ndarray:
    return (idx[..., None] == np.arange(n)).astype(dtype)


class OneHotCategorical(Distribution):
    """A categorical distribution whose samples are one-hot vectors of length `K`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import OneHotCategorical
        >>> d = OneHotCategorical(probs=torch.tensor([0.25, 0.75]))
        >>> d.event_shape, d.log_prob(torch.tensor([0.0, 1.0]))
        (funcgrad.Size([2]), tensor(-0.2877))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = shape_of(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = value_of(self._categorical.probs)
        return wrap(_one_hot(np.argmax(probs, axis=-1), probs.shape[-1], probs.dtype))

    @property
    def variance(self):
        return op(lambda p: p * (1 - p), self._categorical.probs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        probs = value_of(self._categorical.probs)
        idx = value_of(self._categorical.sample(sample_shape))
        return wrap(_one_hot(idx, probs.shape[-1], probs.dtype))

    def log_prob(self, value):
        if not isinstance(value, Tensor):
            value = as_tensor(value)
        if self._validate_args:
            self._validate_sample(value)
        indices = wrap(np.argmax(value_of(value), axis=-1))
        return self._categorical.log_prob(indices)

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = np.eye(n, dtype=value_of(self._param).dtype).reshape(
            (n,) + (1,) * len(self.batch_shape) + (n,)
        )
        if expand:
            values = np.broadcast_to(values, (n, *self.batch_shape, n)).copy()
        return wrap(values)
