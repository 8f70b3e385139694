"""Constraints: the regions parameters and samples of a distribution live in (`torch.distributions.constraints`).

A constraint's `check(value)` returns a bool tensor of `value`'s shape
without its `event_dim` rightmost dimensions, True where the value is
valid. Checks look at values only (no gradient). Names, reprs and
semantics are PyTorch's: `constraints.positive` is `GreaterThan(lower_bound=0.0)`.
"""

import numpy as _np

from funcgrad.distributions.utils import fmt as _fmt
from funcgrad.distributions.utils import value_of as _value_of
from funcgrad.distributions.utils import wrap as _wrap
from funcgrad.graph import Node as _Node
from funcgrad.ops._util import checked_value as _checked_value
from funcgrad.ops._util import follows_values as _follows_values
from funcgrad.tensors.tensor_class import Tensor as _Tensor

__all__ = [
    "Constraint",
    "boolean",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "symmetric",
    "unit_interval",
]


def _v(x):
    # NOTE: a tensor's node is read by `checked_value`: under funcgrad.jit/compile's trace a
    # traced array, so a check computed on it is a step of the plan and its reads are
    # guards (a replay checks arguments and samples too); asanyarray keeps it traced.
    node = x._node if isinstance(x, _Tensor) else x if type(x) is _Node else None
    v = _value_of(x) if node is None else _checked_value(node)
    if hasattr(v, "get"):  # a CuPy array: checks run on the host
        v = v.get()
    return _np.asanyarray(v)


class Constraint:
    """The base of the constraints: a region a variable is valid in.

    Attributes:
        is_discrete: Whether the region is discrete.
        event_dim: How many rightmost dimensions make one event (`check`
            reduces over them).

    Examples:
        >>> from funcgrad.distributions import constraints
        >>> constraints.positive
        GreaterThan(lower_bound=0.0)
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Return a bool tensor: whether each event of `value` satisfies the constraint."""
        raise NotImplementedError

    def _check(self, v: _np.ndarray) -> _np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Elementwise(Constraint):
    def check(self, value):
        return _wrap(_np.asanyarray(self._check(_v(value))))


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters (it cannot be checked)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    """Return whether `constraint` is a dependent one (not checked on the parameters).

    Examples:
        >>> from funcgrad.distributions import constraints
        >>> is_dependent(constraints.dependent), is_dependent(constraints.real)
        (True, False)
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is a dependent constraint on the class (the support of `Uniform`)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """A constraint reduced over `reinterpreted_batch_ndims` more rightmost dimensions."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise AssertionError(
                f"reinterpreted_batch_ndims must be an int >= 0, got {reinterpreted_batch_ndims!r}"
            )
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = _v(self.base_constraint.check(value))
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {_v(value).ndim}")
        if n:
            result = result.reshape(result.shape[: result.ndim - n] + (-1,)).all(-1)
        return _wrap(_np.asanyarray(result))

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
            f"{self.reinterpreted_batch_ndims})"
        )


class _Boolean(_Elementwise):
    is_discrete = True

    def _check(self, v):
        return (v == 0) | (v == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        v = _v(value)
        return _wrap(_np.asanyarray((((v == 0) | (v == 1)).all(-1)) & (v.sum(-1) == 1)))


class _IntegerInterval(_Elementwise):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def _check(self, v):
        return (v % 1 == 0) & (_v(self.lower_bound) <= v) & (v <= _v(self.upper_bound))

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={_fmt(self.lower_bound)}, "
            f"upper_bound={_fmt(self.upper_bound)})"
        )


class _IntegerGreaterThan(_Elementwise):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def _check(self, v):
        return (v % 1 == 0) & (v >= _v(self.lower_bound))

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={_fmt(self.lower_bound)})"


class _Real(_Elementwise):
    def _check(self, v):
        return v == v  # False for NaNs


class _GreaterThan(_Elementwise):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def _check(self, v):
        return _v(self.lower_bound) < v

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(lower_bound={_fmt(self.lower_bound)})"


class _GreaterThanEq(_GreaterThan):
    def _check(self, v):
        return _v(self.lower_bound) <= v


class _LessThan(_Elementwise):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def _check(self, v):
        return v < _v(self.upper_bound)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}(upper_bound={_fmt(self.upper_bound)})"


class _Interval(_Elementwise):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def _check(self, v):
        return (_v(self.lower_bound) <= v) & (v <= _v(self.upper_bound))

    def __repr__(self) -> str:
        return (
            f"{self.__class__.__name__[1:]}(lower_bound={_fmt(self.lower_bound)}, "
            f"upper_bound={_fmt(self.upper_bound)})"
        )


class _HalfOpenInterval(_Interval):
    def _check(self, v):
        return (_v(self.lower_bound) <= v) & (v < _v(self.upper_bound))


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        v = _v(value)
        return _wrap(_np.asanyarray((v >= 0).all(-1) & (_np.abs(v.sum(-1) - 1) < 1e-6)))


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        v = _v(value)
        return _wrap(_np.asanyarray((_np.tril(v) == v).reshape(v.shape[:-2] + (-1,)).all(-1)))


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        v = _v(value)
        lower = (_np.tril(v) == v).reshape(v.shape[:-2] + (-1,)).all(-1)
        positive = (_np.diagonal(v, axis1=-2, axis2=-1) > 0).all(-1)
        return _wrap(_np.asanyarray(lower & positive))


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        v = _v(value)
        return _wrap(_np.full(v.shape[:-2], v.shape[-2] == v.shape[-1], dtype=bool))


class _Symmetric(_Square):
    def check(self, value):
        v = _v(value)
        if v.shape[-2] != v.shape[-1]:
            return _wrap(_np.zeros(v.shape[:-2], dtype=bool))
        close = _np.isclose(v, _np.swapaxes(v, -1, -2), atol=1e-6)
        return _wrap(_np.asanyarray(close.all(-2).all(-1)))


@_follows_values  # a step of a jit plan on a traced value (its try/except reads the values)
def _cholesky_ok(v: _np.ndarray) -> _np.ndarray:
    flat = v.reshape((-1,) + v.shape[-2:])
    ok = _np.zeros(len(flat), dtype=_np.bool_)
    for i, m in enumerate(flat):
        try:
            _np.linalg.cholesky(m)
            ok[i] = True
        except _np.linalg.LinAlgError:
            ok[i] = False
    return ok.reshape(v.shape[:-2])


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        sym = _v(super().check(value))
        if not sym.all():
            return _wrap(sym)
        return _wrap(_np.asanyarray((_np.linalg.eigvalsh(_v(value)) >= 0).all(-1)))


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        sym = _v(super().check(value))
        if not sym.all():
            return _wrap(sym)
        return _wrap(_cholesky_ok(_v(value)))


# fmt: off
dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
# fmt: on
