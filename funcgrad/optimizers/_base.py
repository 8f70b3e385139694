"""The shape of a functional optimizer: `GradientTransformation(init, update)`, `chain`, `apply_updates`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import funcgrad.numpy as fnp
from funcgrad.transforms.pytree import tree_leaves, tree_map

__all__ = [
    "EmptyState",
    "GradientTransformation",
    "apply_updates",
    "chain",
    "global_norm",
    "identity",
]

Params = Any  # a pytree of arrays
Updates = Any  # a pytree of arrays shaped like the parameters
State = Any  # a pytree (NamedTuples) of arrays


class GradientTransformation(NamedTuple):
    """A pure optimizer: a pair of functions, `init` and `update` (optax's shape).

    * `init(params) -> state`: the initial state (a pytree of arrays,
      usually NamedTuples of moments and a step count);
    * `update(updates, state, params=None) -> (updates, state)`: transform
      the gradients (or the updates of an earlier transformation) into
      updates, and return the new state. Nothing is changed in place.

    `apply_updates(params, updates)` then adds the updates. Because every
    piece is a pure function of arrays, a whole training step can be
    differentiated (`funcgrad.grad` of a step, for meta-learning).

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> opt = fo.sgd(0.1)
        >>> params = {"w": np.array([1.0, 2.0])}
        >>> state = opt.init(params)
        >>> updates, state = opt.update({"w": np.array([1.0, -1.0])}, state, params)
        >>> fo.apply_updates(params, updates)["w"]
        array([0.9, 2.1])
    """

    init: Callable[[Params], State]
    update: Callable[..., tuple[Updates, State]]


class EmptyState(NamedTuple):
    """The state of a stateless transformation."""


def identity() -> GradientTransformation:
    """A transformation that passes the updates through unchanged.

    Examples:
        >>> identity().update([1.0], EmptyState())
        ([1.0], EmptyState())
    """

    def init(params: Params) -> EmptyState:
        return EmptyState()

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        return updates, state

    return GradientTransformation(init, update)


def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """Compose transformations: each one's updates feed the next; the state is the tuple of theirs.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> opt = fo.chain(fo.clip(0.5), fo.scale(-2.0))
        >>> updates, _ = opt.update(np.array([1.0, -0.25]), opt.init(np.zeros(2)))
        >>> updates
        array([-1. ,  0.5])
    """

    def init(params: Params) -> tuple[State, ...]:
        return tuple(t.init(params) for t in transforms)

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        if len(state) != len(transforms):
            raise ValueError(
                f"funcgrad.optimizers.chain: the state has {len(state)} parts for "
                f"{len(transforms)} transformations; pass the state that init returned"
            )
        new_state = []
        for t, s in zip(transforms, state, strict=True):
            updates, s = t.update(updates, s, params)
            new_state.append(s)
        return updates, tuple(new_state)

    return GradientTransformation(init, update)


def apply_updates(params: Params, updates: Updates) -> Params:
    """Return `params + updates`, leaf by leaf, each in its parameter's dtype.

    New NumPy leaves are read-only, as the optimizers' states are (a JAX
    array is immutable too): `funcgrad.grad` then takes them as they are
    instead of copying them, and a training step never writes into them.

    Examples:
        >>> import numpy as np
        >>> apply_updates({"b": np.float32([1.0])}, {"b": np.array([0.5])})
        {'b': array([1.5], dtype=float32)}
    """

    def add(p: Any, u: Any) -> Any:
        out = p + u
        dtype = getattr(p, "dtype", None)
        if dtype is not None and getattr(out, "dtype", dtype) != dtype:
            out = fnp.astype(out, dtype)
        if type(out) is np.ndarray and out.base is None:  # made here: no one else holds it
            out.flags.writeable = False
        return out

    return tree_map(add, params, updates)


def global_norm(updates: Updates) -> Any:
    """The L2 norm of all leaves together: `sqrt(sum of squares)`.

    Examples:
        >>> import numpy as np
        >>> float(global_norm([np.array([3.0]), {"a": np.array([4.0])}]))
        5.0
    """
    leaves = tree_leaves(updates)
    if not leaves:
        return np.zeros(())
    total = sum(fnp.sum(fnp.square(x)) for x in leaves)
    return fnp.sqrt(total)


def hyperparameter(value: Any) -> Any:
    """A hyperparameter as the formulas use it: a NumPy scalar or plain 0-d array as its Python number.

    Python numbers are weak in NumPy (NEP 50): they take the leaf's dtype, so
    the states stay in the leaves' dtype, as optax's do. An np.float64 would
    promote a float32 leaf to float64 (an np.float32 a float16 one), so it is
    taken as the Python number of the same value. Python numbers, nodes (a
    hyperparameter being differentiated), batched values and schedules pass
    through.

    Examples:
        >>> import numpy as np
        >>> type(hyperparameter(np.float64(0.9))), hyperparameter(0.5)
        (<class 'float'>, 0.5)
    """
    if type(value) in (int, float, bool):
        return value
    if isinstance(value, np.generic) or (type(value) is np.ndarray and value.ndim == 0):
        return value.item()
    return value


def cast_like(value: Any, like: Any) -> Any:
    """A scalar in `like`'s dtype, on its device.

    Python numbers are weak (they take the array's dtype, as in NumPy) and
    pass through; a plain 0-d array (a schedule's value) becomes one, so it
    neither promotes a float32 leaf nor meets a CuPy leaf from the CPU. A
    node (a hyperparameter being differentiated) is cast to the leaf's dtype.
    """
    if type(value) in (int, float, bool):  # not np.float64, a float subclass that promotes
        return value
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0:
        return value.item()
    dtype = getattr(like, "dtype", None)
    if dtype is None or getattr(value, "dtype", None) == dtype:
        return value
    return fnp.astype(value, dtype)
