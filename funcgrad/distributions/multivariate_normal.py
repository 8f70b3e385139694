"""The multivariate normal distribution (`torch.distributions.MultivariateNormal`)."""

from __future__ import annotations

import math

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions import constraints
from funcgrad.distributions._lazy import linalg as _sla
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.utils import (
    as_tensor,
    expand,
    lazy_property,
    op,
    shape_of,
    standard_normal,
)

__all__ = ["MultivariateNormal"]


def _diag(m):
    return fnp.diagonal(m, axis1=-2, axis2=-1)


def _mT(m):  # noqa: N802
    return fnp.swapaxes(m, -1, -2)


def batch_mahalanobis(bL, bx):
    """`x^T (L L^T)^-1 x` for lower-triangular `L` (..., n, n) and `x` (..., n), broadcasting batches."""
    n = bx.shape[-1]
    batch = np.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1]))
    L = fnp.broadcast_to(bL, (*batch, n, n))
    x = fnp.broadcast_to(bx, (*batch, n))
    y = _sla.solve_triangular(L, fnp.expand_dims(x, -1), lower=True)
    return fnp.sum(fnp.squeeze(y, axis=-1) ** 2, axis=-1)


def _half_log_det(L):
    return fnp.sum(fnp.log(_diag(L)), axis=-1)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution of mean `loc` (..., n).

    Give exactly one of `covariance_matrix` (positive definite),
    `precision_matrix` (its inverse) or `scale_tril` (the lower Cholesky
    factor of the covariance, positive diagonal: the cheapest).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import MultivariateNormal
        >>> d = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]]))
        >>> d.log_prob(torch.tensor([1.0, -1.0]))
        tensor(-3.2605)
        >>> d.rsample((5,)).shape
        funcgrad.Size([5, 2])
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        loc = as_tensor(loc)
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (
            precision_matrix is not None
        ) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        given = next(m for m in (scale_tril, covariance_matrix, precision_matrix) if m is not None)
        given = as_tensor(given)
        if given.dim() < 2:
            name = (
                "scale_tril"
                if scale_tril is not None
                else "covariance_matrix"
                if covariance_matrix is not None
                else "precision_matrix"
            )
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        batch_shape = np.broadcast_shapes(tuple(given.shape[:-2]), tuple(loc.shape[:-1]))
        n = loc.shape[-1]
        if scale_tril is not None:
            self.scale_tril = expand(given, (*batch_shape, n, n))
        elif covariance_matrix is not None:
            self.covariance_matrix = expand(given, (*batch_shape, n, n))
        else:
            self.precision_matrix = expand(given, (*batch_shape, n, n))
        self.loc = expand(loc, (*batch_shape, n))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = given
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = op(fnp.linalg.cholesky, given)
        else:
            self._unbroadcasted_scale_tril = op(
                lambda p: fnp.linalg.cholesky(fnp.linalg.inv(p)), given
            )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = shape_of(batch_shape)
        loc_shape = shape_of(batch_shape, self.event_shape)
        cov_shape = shape_of(batch_shape, self.event_shape, self.event_shape)
        new.loc = expand(self.loc, loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, expand(self.__dict__[name], cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return expand(
            self._unbroadcasted_scale_tril, shape_of(self._batch_shape, self._event_shape * 2)
        )

    @lazy_property
    def covariance_matrix(self):
        return expand(
            op(lambda L: L @ _mT(L), self._unbroadcasted_scale_tril),
            shape_of(self._batch_shape, self._event_shape * 2),
        )

    @lazy_property
    def precision_matrix(self):
        return expand(
            op(lambda L: fnp.linalg.inv(L @ _mT(L)), self._unbroadcasted_scale_tril),
            shape_of(self._batch_shape, self._event_shape * 2),
        )

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return expand(
            op(lambda L: fnp.sum(L * L, axis=-1), self._unbroadcasted_scale_tril),
            shape_of(self._batch_shape, self._event_shape),
        )

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, self.loc)

        def f(loc, L):
            return loc + fnp.squeeze(L @ fnp.expand_dims(eps, -1), axis=-1)

        return op(f, self.loc, self._unbroadcasted_scale_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self._event_shape[0]

        def f(v, loc, L):
            m = batch_mahalanobis(L, v - loc)
            return -0.5 * (n * math.log(2 * math.pi) + m) - _half_log_det(L)

        return op(f, value, self.loc, self._unbroadcasted_scale_tril)

    def entropy(self):
        n = self._event_shape[0]
        shape = tuple(self._batch_shape)

        def f(L):
            h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + _half_log_det(L)
            return fnp.broadcast_to(h, shape)

        return op(f, self._unbroadcasted_scale_tril)
