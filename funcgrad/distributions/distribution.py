"""`Distribution`: the base class of `funcgrad.distributions`, with PyTorch's interface.

Shapes: a distribution has a `batch_shape` (independent, differently
parameterised copies) and an `event_shape` (the shape of one draw);
`sample(sample_shape)` has shape `sample_shape + batch_shape + event_shape`
and `log_prob(value)` the shape of `value` without the event dimensions.

Arguments are validated as in PyTorch (on by default,
`Distribution.set_default_validate_args(False)` or `validate_args=False`
to turn it off): a parameter outside its constraint, or a `log_prob`
value outside the support, raises `ValueError` with PyTorch's text.
"""

from __future__ import annotations

import warnings

import numpy as np

from funcgrad.distributions import constraints
from funcgrad.distributions.utils import lazy_property, shape_of
from funcgrad.tensors import grad_mode
from funcgrad.tensors.tensor_class import Size, Tensor

__all__ = ["Distribution"]


def _all_true(valid) -> bool:
    # NOTE: asanyarray keeps a traced check (constraints._v) traced: bool() is a jit guard
    return bool(np.all(np.asanyarray(valid._value if isinstance(valid, Tensor) else valid)))


def _format_param(t) -> str:
    if isinstance(t, Tensor):
        if t.numel() == 1 and t.dim() == 0:
            return format(t.item())
        if t.numel() == 1:
            return str(t)
        return repr(t.size())
    return str(t)


class Distribution:
    """The base of every distribution: shapes, validation, and the methods subclasses define.

    Attributes:
        has_rsample: Whether `rsample` (reparameterised, differentiable
            draws) is implemented.
        has_enumerate_support: Whether `enumerate_support` is implemented.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.distributions import Normal
        >>> d = Normal(torch.zeros(3), 1.0)
        >>> d.batch_shape, d.event_shape
        (funcgrad.Size([3]), funcgrad.Size([]))
        >>> d.sample((2,)).shape
        funcgrad.Size([2, 3])
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Set whether new distributions validate their arguments (True by default, as PyTorch)."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args: bool | None = None):
        self._batch_shape = shape_of(batch_shape)
        self._event_shape = shape_of(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.",
                    stacklevel=2,
                )
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param, None), lazy_property
                ):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                valid = constraint.check(value)
                if not _all_true(valid):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}"
                    )
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """Return a new distribution with the batch dimensions expanded to `batch_shape`.

        The parameters are broadcast (gradients flow back to the originals);
        arguments are not checked again.
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """The constraints each parameter satisfies, by name."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint a sample satisfies."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()) -> Tensor:
        """Return a sample of shape `sample_shape + batch_shape + event_shape` (no gradient)."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        """Return a reparameterised sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """Return `n` samples (deprecated: use `sample((n,))`)."""
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.sample(Size((n,)))

    def log_prob(self, value) -> Tensor:
        """Return the log of the density (or mass) at `value`."""
        raise NotImplementedError

    def cdf(self, value) -> Tensor:
        """Return the cumulative distribution function at `value`."""
        raise NotImplementedError

    def icdf(self, value) -> Tensor:
        """Return the inverse cumulative distribution function at `value`."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Return every value of a discrete distribution's support, along a new first dimension."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """Return the entropy, of shape `batch_shape`."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """Return `exp(entropy)`."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()) -> Size:
        return shape_of(sample_shape, self._batch_shape, self._event_shape)

    def _validate_sample(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs "
                f"{self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {Size(expected_shape)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.",
                stacklevel=2,
            )
            return
        valid = support.check(value)
        if not _all_true(valid):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        args = ", ".join(f"{p}: {_format_param(self.__dict__[p])}" for p in names)
        return self.__class__.__name__ + "(" + args + ")"
