"""`flatten`: HIPS autograd's `autograd.misc.flatten`, over `funcgrad.tree.ravel`."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

from funcgrad.tree import ravel

__all__ = ["flatten"]


def flatten(value: Any) -> tuple[Any, Callable[[Any], Any]]:
    """Flatten nested tuples, lists and dicts of arrays and scalars into one vector.

    Returns the 1-D vector and `unflatten`, which maps a vector of the same
    length back to the nested structure (dicts in sorted key order, as in
    autograd). Both are differentiable, so an optimizer of vectors can work
    on a model's nested parameters.

    Args:
        value: A pytree of arrays and numbers.

    Returns:
        `(flat_vector, unflatten)`.

    Examples:
        >>> import numpy as np
        >>> flat, unflatten = flatten({"b": np.zeros(2), "a": [1.0, np.ones((1, 2))]})
        >>> flat
        array([1., 1., 1., 0., 0.])
        >>> unflatten(flat)["a"][1]
        array([[1., 1.]])
    """
    return ravel(value)


class _CallableModule(types.ModuleType):
    """This module, callable as its function: `funcgrad.misc.flatten(x)`."""

    def __call__(self, value: Any) -> tuple[Any, Callable[[Any], Any]]:
        return flatten(value)


# NOTE: autograd programs write both `from autograd.misc import flatten` (then call it)
# and `from autograd.misc.flatten import flatten`. Keeping `funcgrad.misc.flatten` the
# module (no attribute shadows a module, tests/test_layers.py) and making the module
# callable serves both spellings.
sys.modules[__name__].__class__ = _CallableModule
