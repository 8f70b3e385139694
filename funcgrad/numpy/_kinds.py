"""What a function of `funcgrad.numpy` or `funcgrad.scipy` gives to differentiation.

A function that applies primitives (one, generated from its record, or a
composition written by hand) is differentiable, and needs no mark. The two
other kinds are marked where they are defined, so the names page of the
documentation (`docs/api/names.md`, generated) can say, for every name,
what a user gets from its gradient:

* `value_only`: the result is an integer, a boolean, a shape or text,
  computed from the values of nodes: nothing flows back (`argmax`, `isclose`).
* `zero_gradient`: the result is floating point with a zero derivative:
  piecewise constant (`floor`, `round`: with a node in, it is a node whose
  gradient is zero, so a graph is not cut), or not depending on the values
  of its input at all (`zeros_like`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

ATTRIBUTE = "__funcgrad_gradient__"
VALUE_ONLY = "value-only"
ZERO_GRADIENT = "zero gradient"


def value_only(function: _F) -> _F:
    """Mark `function` as value-only: its integer, boolean or text result has no gradient."""
    setattr(function, ATTRIBUTE, VALUE_ONLY)
    return function


def zero_gradient(function: _F) -> _F:
    """Mark `function` as having a zero derivative: its floats are piecewise constant or constant."""
    setattr(function, ATTRIBUTE, ZERO_GRADIENT)
    return function


def kind_of(function: Any) -> str | None:
    """Return the mark of `function` (`VALUE_ONLY`, `ZERO_GRADIENT`), or None if unmarked."""
    return getattr(function, ATTRIBUTE, None)
