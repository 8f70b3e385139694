"""`flatten` and `flatten_func`: HIPS autograd's `autograd.misc.flatten`, over `funcgrad.tree.ravel`."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as _np

from funcgrad.tree import ravel

__all__ = ["flatten", "flatten_func"]


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


def flatten_func(
    func: Callable[..., Any], example: Any
) -> tuple[Callable[..., Any], Callable[[Any], Any], Any]:
    """Turn `func` of a pytree into a function of one flat vector (for vector optimizers).

    Args:
        func: A function `func(params, *args)` of a pytree `params`.
        example: A pytree shaped like `func`'s `params` (its flat vector is
            where an optimizer starts).

    Returns:
        `(flat_func, unflatten, flat_example)`: `flat_func(vector, *args)`
        is `func(unflatten(vector), *args)` with its result flattened too,
        differentiable in `vector`; `flat_example` is `example` flattened.

    A scalar result stays a scalar, where autograd's `flatten_func` makes it
    a vector of one number: `funcgrad.grad` takes only scalar results (of
    shape `()`), and `scipy.optimize.minimize` takes either.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> params = {"w": np.ones(2), "b": 3.0}
        >>> f, unflatten, x0 = flatten_func(lambda p: fnp.sum(p["w"] ** 2) + p["b"] ** 2, params)
        >>> x0
        array([3., 1., 1.])
        >>> fg.grad(f)(x0)
        array([6., 2., 2.])
    """
    flat_example, unflatten = flatten(example)

    def flat_func(vector: Any, *args: Any) -> Any:
        out = func(unflatten(vector), *args)
        if _np.ndim(getattr(out, "value", out)) == 0 and not isinstance(out, (tuple, list, dict)):
            return out
        return flatten(out)[0]

    return flat_func, unflatten, flat_example


class _CallableModule(types.ModuleType):
    """This module, callable as its function: `funcgrad.misc.flatten(x)`."""

    def __call__(self, value: Any) -> tuple[Any, Callable[[Any], Any]]:
        return flatten(value)


# NOTE: autograd programs write both `from autograd.misc import flatten` (then call it)
# and `from autograd.misc.flatten import flatten`. Keeping `funcgrad.misc.flatten` the
# module (no attribute shadows a module, tests/test_layers.py) and making the module
# callable serves both spellings.
sys.modules[__name__].__class__ = _CallableModule
