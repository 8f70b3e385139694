"""The building blocks: gradient transformations that scale, clip, decay and keep moments (optax's).

Each returns a `GradientTransformation`; its state is a NamedTuple of arrays
(new arrays every step, never written in place). The formulas are optax's,
written with `funcgrad.numpy`, so they run on plain arrays and on the nodes
of a `funcgrad.grad` trace alike.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

import funcgrad.numpy as fnp
from funcgrad.backend import freeze, xp_of
from funcgrad.optimizers._base import (
    EmptyState,
    GradientTransformation,
    Params,
    State,
    Updates,
    cast_like,
    global_norm,
    hyperparameter,
)
from funcgrad.transforms.pytree import tree_flatten, tree_map, tree_unflatten

__all__ = [
    "AddDecayedWeightsState",
    "ClipByGlobalNormState",
    "ClipState",
    "ScaleByAdamState",
    "ScaleByLionState",
    "ScaleByRmsState",
    "ScaleByRssState",
    "ScaleByScheduleState",
    "ScaleByRStdDevState",
    "ScaleByTrustRatioState",
    "ScaleState",
    "TraceState",
    "add_decayed_weights",
    "clip",
    "clip_by_global_norm",
    "scale",
    "scale_by_adam",
    "scale_by_learning_rate",
    "scale_by_lion",
    "scale_by_rms",
    "scale_by_rss",
    "scale_by_schedule",
    "scale_by_stddev",
    "scale_by_trust_ratio",
    "trace",
]

ScalarOrSchedule = Any  # a number (or a scalar node) or a Schedule

# Stateless transformations keep an empty state, as in optax.
ScaleState = EmptyState
ClipState = EmptyState
ClipByGlobalNormState = EmptyState
AddDecayedWeightsState = EmptyState
ScaleByTrustRatioState = EmptyState


def _zeros_like(params: Params, dtype: Any = None) -> Any:
    # A moment's first value: read-only zeros shaped like each parameter.
    def zeros(p: Any) -> Any:
        value = getattr(p, "value", p)  # a node's value (init under a trace)
        if not hasattr(value, "dtype"):
            value = np.asarray(value)
        return freeze(xp_of(value).zeros_like(value, dtype=dtype))

    return tree_map(zeros, params)


def _count() -> Any:
    return freeze(np.zeros((), np.int32))


def _moment(updates: Updates, moments: Any, decay: float, order: int) -> Any:
    # (1 - decay) * g**order + decay * m, leaf by leaf
    return tree_map(lambda g, t: (1 - decay) * (g**order) + decay * t, updates, moments)


def _bias_correction(moment: Any, decay: float, count: Any) -> Any:
    # m / (1 - decay**count), the scalar in each leaf's dtype (the count is a plain int array)
    if not isinstance(count, (np.ndarray, np.number)):  # a node (jit) or batched (vmap)
        c: Any = count  # a node or batched value (its operators are attached at import)
        correction = 1 - fnp.power(decay, c * 1.0)  # c * 1.0: float64
    else:
        correction = 1 - decay ** float(count)
    return tree_map(lambda t: t / cast_like(correction, t), moment)


_INT32_MAX = int(np.iinfo(np.int32).max)


def _increment(count: Any) -> Any:
    # count + 1, stopping at int32's largest value instead of wrapping around
    limit = _INT32_MAX
    if not isinstance(count, (np.ndarray, np.number)):  # a node (jit, grad) or batched (vmap)
        c: Any = count
        return fnp.where(c < limit, c + 1, c)
    return freeze(np.asarray(np.where(count < limit, count + 1, limit), dtype=np.int32))


# --- scaling ----------------------------------------------------------------------------------


def scale(step_size: Any) -> GradientTransformation:
    """Multiply the updates by `step_size` (a number, or a scalar node to differentiate).

    Examples:
        >>> import numpy as np
        >>> scale(-0.5).update(np.array([2.0]), ScaleState())[0]
        array([-1.])
    """
    step_size = hyperparameter(step_size)

    def init(params: Params) -> EmptyState:
        return EmptyState()

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        return tree_map(lambda g: cast_like(step_size, g) * g, updates), state

    return GradientTransformation(init, update)


class ScaleByScheduleState(NamedTuple):
    """The step count of `scale_by_schedule`."""

    count: Any


def scale_by_schedule(step_size_fn: Callable[[Any], Any]) -> GradientTransformation:
    """Multiply the updates by `step_size_fn(count)`, the count starting at 0.

    Examples:
        >>> import numpy as np
        >>> t = scale_by_schedule(lambda count: 1.0 / (count + 1))
        >>> s = t.init(np.zeros(1))
        >>> u, s = t.update(np.ones(1), s)
        >>> u, s = t.update(np.ones(1), s)
        >>> u
        array([0.5])
    """

    def init(params: Params) -> ScaleByScheduleState:
        return ScaleByScheduleState(count=_count())

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        step_size = step_size_fn(state.count)
        updates = tree_map(lambda g: cast_like(step_size, g) * g, updates)
        return updates, ScaleByScheduleState(count=_increment(state.count))

    return GradientTransformation(init, update)


def scale_by_learning_rate(
    learning_rate: ScalarOrSchedule, *, flip_sign: bool = True
) -> GradientTransformation:
    """Multiply by `-learning_rate` (descent), or `learning_rate` without `flip_sign`.

    A callable learning rate is a schedule of the step count.

    Examples:
        >>> import numpy as np
        >>> t = scale_by_learning_rate(0.1)
        >>> t.update(np.array([1.0, -2.0]), t.init(None))[0]
        array([-0.1,  0.2])
    """
    sign = -1 if flip_sign else 1
    learning_rate = hyperparameter(learning_rate)
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    return scale(sign * learning_rate)


# --- moments --------------------------------------------------------------------------------------


class ScaleByAdamState(NamedTuple):
    """Adam's state: the step count and the first (`mu`) and second (`nu`) moments."""

    count: Any
    mu: Any
    nu: Any


# Adam's fast path runs a large leaf in pieces of at most this many bytes per array, so that
# its thirteen passes read and write the pieces while they are in the core's cache.
_ADAM_CHUNK_BYTES = 1 << 17  # 128 KiB: a float32 piece is 32,768 entries
_ADAM_SCRATCH = threading.local()


def _adam_scratch(dtype: np.dtype) -> np.ndarray:
    """This thread's temporary for `_adam_on_arrays`: `_ADAM_CHUNK_BYTES` of `dtype`, kept.

    NOTE: a temporary that never leaves the step is taken from one kept
    buffer instead of a fresh array per leaf (a fresh large array costs a
    page fault per 4 KiB page when it is first written).
    """
    buffers = getattr(_ADAM_SCRATCH, "buffers", None)
    if buffers is None:
        buffers = _ADAM_SCRATCH.buffers = {}
    t = buffers.get(dtype)
    if t is None:
        t = buffers[dtype] = np.empty(_ADAM_CHUNK_BYTES // dtype.itemsize, dtype)
    return t


def _adam_piece(
    g: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    t: np.ndarray,
    mu: np.ndarray,
    nu: np.ndarray,
    u: np.ndarray,
    k: tuple[Any, ...],
) -> None:
    """Adam's terms for arrays of one shape, each into `t` (a temporary), `mu`, `nu` or `u`.

    `k` holds `_adam_numbers`' constants, 0-d arrays of the leaves' dtype.
    """
    b1, b1_, b2, b2_, c1, c2, eps, eps_root, step_size = k
    np.multiply(m, b1, out=t)
    np.multiply(g, b1_, out=mu)
    mu += t  # (1 - b1) g + b1 m
    np.square(g, out=nu)  # g * g: the same product, one operand read
    nu *= b2_
    nu += np.multiply(v, b2, out=t)  # (1 - b2) g^2 + b2 v
    np.divide(nu, c2, out=t)
    if eps_root is not None:  # (adding 0.0 changes nothing that `+ eps` keeps)
        t += eps_root
    np.sqrt(t, out=t)
    t += eps
    np.divide(mu, c1, out=u)
    u /= t  # m_hat / (sqrt(v_hat + eps_root) + eps)
    if step_size is not None:
        u *= step_size


def _adam_numbers(dtype: np.dtype, numbers: tuple[float | None, ...]) -> tuple[Any, ...]:
    """Adam's Python numbers as 0-d arrays of `dtype` (None stays None).

    NOTE: the same values as the Python floats, which a ufunc casts to the
    array's dtype (NEP 50's weak scalars), each cast once per step instead
    of in every ufunc call (a 0-d array operand costs about 0.2 us less).
    """
    return tuple(None if x is None else np.array(x, dtype=dtype) for x in numbers)


def _adam_on_arrays(
    updates: Updates,
    state: Any,
    b1: float,
    b2: float,
    eps: float,
    eps_root: float,
    step_size: float | None,
) -> tuple[Updates, ScaleByAdamState] | None:
    """Adam's step on plain NumPy leaves in few passes, or None where the general path must run.

    The same operations in the same order as `scale_by_adam`'s formulas (then
    `* step_size`, the learning rate's scaling, when given), so the same
    numbers bit for bit, written into three arrays made here per leaf (the
    new moments and the update) and a temporary kept by the thread, instead
    of one fresh array per operation: the gradients and the old state are
    only read. A C-contiguous leaf is computed in pieces of
    `_ADAM_CHUNK_BYTES` per array, each piece's passes while it is in cache
    (elementwise operations: the same numbers as whole). The new moments are
    made read-only, as `init`'s.
    """
    if not isinstance(state, ScaleByAdamState) or type(state.count) is not np.ndarray:
        return None
    if any(type(x) not in (int, float) for x in (b1, b2, eps, eps_root)):
        return None  # a hyperparameter being differentiated
    gs, treedef = tree_flatten(updates)
    ms, m_def = tree_flatten(state.mu)
    vs, v_def = tree_flatten(state.nu)
    if m_def != treedef or v_def != treedef:
        return None
    for g, m, v in zip(gs, ms, vs, strict=True):
        if not (type(g) is type(m) is type(v) is np.ndarray) or g.dtype.kind != "f":
            return None
        if not (g.dtype == m.dtype == v.dtype) or not (g.shape == m.shape == v.shape):
            return None
    count = _increment(state.count)
    c1, c2 = 1 - b1 ** float(count), 1 - b2 ** float(count)
    numbers = (b1, 1 - b1, b2, 1 - b2, c1, c2, eps, eps_root or None, step_size)
    constants: dict[np.dtype, tuple[Any, ...]] = {}
    us, mus, nus = [], [], []
    for g, m, v in zip(gs, ms, vs, strict=True):
        scratch = _adam_scratch(g.dtype)
        k = constants.get(g.dtype)
        if k is None:
            k = constants[g.dtype] = _adam_numbers(g.dtype, numbers)
        # out=: 0-d leaves stay arrays (a ufunc on 0-d operands returns a scalar)
        mu, nu, u = np.empty_like(g), np.empty_like(g), np.empty_like(g)
        n = g.size
        piece = scratch.size
        if n <= piece:  # whole arrays, the kept temporary's first entries in their shape
            _adam_piece(g, m, v, scratch[:n].reshape(g.shape), mu, nu, u, k)
        elif g.flags.c_contiguous and m.flags.c_contiguous and v.flags.c_contiguous:
            # flat views: pieces of at most the temporary's size
            gf, mf, vf = g.reshape(-1), m.reshape(-1), v.reshape(-1)
            muf, nuf, uf = mu.reshape(-1), nu.reshape(-1), u.reshape(-1)
            for s in range(0, n, piece):
                e = min(n, s + piece)
                _adam_piece(
                    gf[s:e], mf[s:e], vf[s:e], scratch[: e - s], muf[s:e], nuf[s:e], uf[s:e], k
                )
        else:  # a large leaf of another layout: whole arrays, a temporary made for it
            _adam_piece(g, m, v, np.empty_like(g), mu, nu, u, k)
        mu.flags.writeable = nu.flags.writeable = False
        us.append(u)
        mus.append(mu)
        nus.append(nu)
    new = ScaleByAdamState(count, tree_unflatten(treedef, mus), tree_unflatten(treedef, nus))
    return tree_unflatten(treedef, us), new


def scale_by_adam(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Any = None,
    *,
    nesterov: bool = False,
) -> GradientTransformation:
    """Adam's rescaling: `m_hat / (sqrt(v_hat + eps_root) + eps)` with bias-corrected moments.

    `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g^2`, `m_hat = m / (1 - b1^t)`,
    `v_hat = v / (1 - b2^t)`. With `nesterov` (NAdam), `m_hat` is
    `b1 m / (1 - b1^(t+1)) + (1 - b1) g / (1 - b1^t)`. Use `eps_root > 0`
    when differentiating through the step: the square root's derivative at
    zero is infinite.

    Args:
        b1: Decay of the first moment.
        b2: Decay of the second moment.
        eps: Added to the denominator, outside the square root.
        eps_root: Added inside the square root.
        mu_dtype: The dtype of the first moment (default: the parameters').
        nesterov: Use Nesterov momentum (NAdam).

    Examples:
        >>> import numpy as np
        >>> t = scale_by_adam()
        >>> u, state = t.update(np.array([0.5, -2.0]), t.init(np.zeros(2)))
        >>> np.round(u, 6), int(state.count)
        (array([ 1., -1.]), 1)
    """
    b1, b2, eps, eps_root = (hyperparameter(x) for x in (b1, b2, eps, eps_root))

    def init(params: Params) -> ScaleByAdamState:
        return ScaleByAdamState(
            count=_count(), mu=_zeros_like(params, mu_dtype), nu=_zeros_like(params)
        )

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        if not nesterov and mu_dtype is None:
            fast = _adam_on_arrays(updates, state, b1, b2, eps, eps_root, None)
            if fast is not None:
                return fast
        mu = _moment(updates, state.mu, b1, 1)
        nu = _moment(updates, state.nu, b2, 2)
        count = _increment(state.count)
        if nesterov:
            mu_hat = tree_map(
                lambda m, g: m + g,
                _bias_correction(tree_map(lambda m: b1 * m, mu), b1, count + 1),
                _bias_correction(tree_map(lambda g: (1 - b1) * g, updates), b1, count),
            )
        else:
            mu_hat = _bias_correction(mu, b1, count)
        nu_hat = _bias_correction(nu, b2, count)
        updates = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        if mu_dtype is not None:
            mu = tree_map(lambda m: fnp.astype(m, mu_dtype), mu)
        return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

    return GradientTransformation(init, update)


class ScaleByRmsState(NamedTuple):
    """RMSprop's state: the running average of the squared gradients."""

    nu: Any


def scale_by_rms(
    decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0, eps_in_sqrt: bool = True
) -> GradientTransformation:
    """Divide by the root of a running average of squared gradients (RMSprop).

    `nu = decay nu + (1 - decay) g^2`; the update is `g / sqrt(nu + eps)`
    (optax's default, `eps_in_sqrt=True`) or `g / (sqrt(nu) + eps)` (PyTorch's
    placement, `eps_in_sqrt=False`).

    Args:
        decay: Decay of the average (PyTorch's `alpha`).
        eps: Keeps the denominator away from zero.
        initial_scale: The average's first value.
        eps_in_sqrt: Where `eps` goes (see above).

    Examples:
        >>> import numpy as np
        >>> t = scale_by_rms(decay=0.9)
        >>> u, state = t.update(np.array([0.5, -2.0]), t.init(np.zeros(2)))
        >>> np.round(u, 4)
        array([ 3.1623, -3.1623])
    """
    decay, eps, initial_scale = (hyperparameter(x) for x in (decay, eps, initial_scale))

    def init(params: Params) -> ScaleByRmsState:
        nu = tree_map(lambda z: freeze(np.asarray(z + initial_scale)), _zeros_like(params))
        return ScaleByRmsState(nu=nu)

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        nu = _moment(updates, state.nu, decay, 2)
        if eps_in_sqrt:
            updates = tree_map(lambda g, n: g / fnp.sqrt(n + eps), updates, nu)
        else:
            updates = tree_map(lambda g, n: g / (fnp.sqrt(n) + eps), updates, nu)
        return updates, ScaleByRmsState(nu=nu)

    return GradientTransformation(init, update)


class ScaleByRStdDevState(NamedTuple):
    """Centered RMSprop's state: running averages of the gradients and their squares."""

    mu: Any
    nu: Any


def scale_by_stddev(
    decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0, eps_in_sqrt: bool = True
) -> GradientTransformation:
    """Divide by a running estimate of the gradients' standard deviation (centered RMSprop).

    `mu = decay mu + (1 - decay) g`, `nu = decay nu + (1 - decay) g^2`; the
    update is `g / sqrt(nu - mu^2 + eps)` or, with `eps_in_sqrt=False`,
    `g / (sqrt(nu - mu^2) + eps)` (PyTorch's centered RMSprop).

    Examples:
        >>> import numpy as np
        >>> t = scale_by_stddev(decay=0.9)
        >>> u, state = t.update(np.array([0.5, -2.0]), t.init(np.zeros(2)))
        >>> np.round(u, 4)
        array([ 3.3333, -3.3333])
    """
    decay, eps, initial_scale = (hyperparameter(x) for x in (decay, eps, initial_scale))

    def init(params: Params) -> ScaleByRStdDevState:
        nu = tree_map(lambda z: freeze(np.asarray(z + initial_scale)), _zeros_like(params))
        return ScaleByRStdDevState(mu=_zeros_like(params), nu=nu)

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        mu = _moment(updates, state.mu, decay, 1)
        nu = _moment(updates, state.nu, decay, 2)
        if eps_in_sqrt:
            updates = tree_map(lambda g, m, n: g / fnp.sqrt(n - m * m + eps), updates, mu, nu)
        else:
            updates = tree_map(lambda g, m, n: g / (fnp.sqrt(n - m * m) + eps), updates, mu, nu)
        return updates, ScaleByRStdDevState(mu=mu, nu=nu)

    return GradientTransformation(init, update)


class ScaleByRssState(NamedTuple):
    """Adagrad's state: the sum of the squared gradients."""

    sum_of_squares: Any


def scale_by_rss(
    initial_accumulator_value: float = 0.1, eps: float = 1e-7
) -> GradientTransformation:
    """Divide by the root of the summed squared gradients (Adagrad).

    `s = s + g^2`; the update is `g / sqrt(s + eps)` where `s > 0`, else 0 (optax's).

    Examples:
        >>> import numpy as np
        >>> t = scale_by_rss()
        >>> u, state = t.update(np.array([0.5, -2.0]), t.init(np.zeros(2)))
        >>> np.round(u, 4)
        array([ 0.8452, -0.9877])
    """
    initial_accumulator_value, eps = (hyperparameter(x) for x in (initial_accumulator_value, eps))

    def init(params: Params) -> ScaleByRssState:
        s = tree_map(
            lambda z: freeze(np.asarray(z + initial_accumulator_value)), _zeros_like(params)
        )
        return ScaleByRssState(sum_of_squares=s)

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        s = tree_map(lambda g, t: g * g + t, updates, state.sum_of_squares)
        updates = tree_map(
            lambda g, t: fnp.where(t > 0, g / fnp.sqrt(fnp.where(t > 0, t, 1) + eps), 0 * g),
            updates,
            s,
        )
        return updates, ScaleByRssState(sum_of_squares=s)

    return GradientTransformation(init, update)


class TraceState(NamedTuple):
    """The momentum (`trace`) of `trace`."""

    trace: Any


def trace(
    decay: float, nesterov: bool = False, accumulator_dtype: Any = None
) -> GradientTransformation:
    """Momentum: `t = g + decay t`; the update is `t` (or `g + decay t` with `nesterov`).

    PyTorch's SGD momentum without dampening, the first buffer being the gradient.

    Examples:
        >>> import numpy as np
        >>> t = trace(decay=0.9)
        >>> state = t.init(np.zeros(1))
        >>> u, state = t.update(np.ones(1), state)
        >>> u, state = t.update(np.ones(1), state)
        >>> u
        array([1.9])
    """
    decay = hyperparameter(decay)

    def init(params: Params) -> TraceState:
        return TraceState(trace=_zeros_like(params, accumulator_dtype))

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        new_trace = tree_map(lambda g, t: g + decay * t, updates, state.trace)
        if nesterov:
            updates = tree_map(lambda g, t: g + decay * t, updates, new_trace)
        else:
            updates = new_trace
        if accumulator_dtype is not None:
            new_trace = tree_map(lambda t: fnp.astype(t, accumulator_dtype), new_trace)
        return updates, TraceState(trace=new_trace)

    return GradientTransformation(init, update)


class ScaleByLionState(NamedTuple):
    """Lion's state: the step count and the momentum `mu`."""

    count: Any
    mu: Any


def scale_by_lion(
    b1: float = 0.9, b2: float = 0.99, mu_dtype: Any = None
) -> GradientTransformation:
    """Lion's update direction: `sign((1 - b1) g + b1 mu)`, then `mu = (1 - b2) g + b2 mu`.

    Args:
        b1: The interpolation of the update's direction.
        b2: Decay of the momentum.
        mu_dtype: The dtype of the momentum.

    Examples:
        >>> import numpy as np
        >>> t = scale_by_lion()
        >>> t.update(np.array([0.5, -2.0]), t.init(np.zeros(2)))[0]
        array([ 1., -1.])
    """
    b1, b2 = hyperparameter(b1), hyperparameter(b2)

    def init(params: Params) -> ScaleByLionState:
        return ScaleByLionState(count=_count(), mu=_zeros_like(params, mu_dtype))

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        direction = tree_map(lambda g, m: fnp.sign((1 - b1) * g + b1 * m), updates, state.mu)
        mu = _moment(updates, state.mu, b2, 1)
        if mu_dtype is not None:
            mu = tree_map(lambda m: fnp.astype(m, mu_dtype), mu)
        return direction, ScaleByLionState(count=_increment(state.count), mu=mu)

    return GradientTransformation(init, update)


# --- decay, clipping, trust ratio ---------------------------------------------------------------


def add_decayed_weights(weight_decay: Any = 0.0, mask: Any = None) -> GradientTransformation:
    """Add `weight_decay * params` to the updates (decoupled weight decay once scaled by -lr).

    Args:
        weight_decay: The factor (a number or a scalar node).
        mask: A pytree of bools shaped like the parameters (or a function of
            the parameters returning one): decay only where True.

    Raises:
        ValueError: If `params` is not given to `update`.

    Examples:
        >>> import numpy as np
        >>> t = add_decayed_weights(0.1)
        >>> t.update(np.array([1.0, 1.0]), t.init(None), params=np.array([2.0, -3.0]))[0]
        array([1.2, 0.7])
    """
    weight_decay = hyperparameter(weight_decay)

    def init(params: Params) -> EmptyState:
        return EmptyState()

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        if params is None:
            raise ValueError(
                "funcgrad.optimizers.add_decayed_weights: update needs params "
                "(call update(grads, state, params))"
            )
        decay = tree_map(lambda g, p: g + weight_decay * p, updates, params)
        if mask is None:
            return decay, state
        flags = mask(params) if callable(mask) else mask
        return tree_map(lambda d, g, m: d if m else g, decay, updates, flags), state

    return GradientTransformation(init, update)


def clip(max_delta: float) -> GradientTransformation:
    """Clip every update entry to `[-max_delta, max_delta]`."""
    max_delta = hyperparameter(max_delta)

    def init(params: Params) -> EmptyState:
        return EmptyState()

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        return tree_map(lambda g: fnp.clip(g, -max_delta, max_delta), updates), state

    return GradientTransformation(init, update)


def clip_by_global_norm(max_norm: float) -> GradientTransformation:
    """Scale all updates by `max_norm / global_norm` when their global norm exceeds `max_norm`.

    Examples:
        >>> import numpy as np
        >>> t = clip_by_global_norm(1.0)
        >>> t.update([np.array([3.0, 4.0])], t.init(None))[0]
        [array([0.6, 0.8])]
    """
    max_norm = hyperparameter(max_norm)

    def init(params: Params) -> EmptyState:
        return EmptyState()

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        g_norm = global_norm(updates)
        trigger = g_norm < max_norm
        # NOTE: divide by the norm only where it exceeds max_norm (no 0/0 in either branch)
        safe = fnp.where(trigger, max_norm, g_norm)
        updates = tree_map(
            lambda g: fnp.where(trigger, g, g * cast_like(max_norm / safe, g)), updates
        )
        return updates, state

    return GradientTransformation(init, update)


def scale_by_trust_ratio(
    min_norm: float = 0.0, trust_coefficient: float = 1.0, eps: float = 0.0
) -> GradientTransformation:
    """Scale each leaf's update by `|p| / |u|` (LARS/LAMB's layer-wise trust ratio).

    The norms are floored at `min_norm`; where either is zero the ratio is 1.

    Raises:
        ValueError: If `params` is not given to `update`.

    Examples:
        >>> import numpy as np
        >>> t = scale_by_trust_ratio()
        >>> t.update(np.array([0.0, 1.0]), t.init(None), params=np.array([3.0, 4.0]))[0]
        array([0., 5.])
    """
    min_norm, trust_coefficient, eps = (
        hyperparameter(x) for x in (min_norm, trust_coefficient, eps)
    )

    def init(params: Params) -> EmptyState:
        return EmptyState()

    def update(updates: Updates, state: State, params: Params = None) -> tuple[Updates, State]:
        if params is None:
            raise ValueError(
                "funcgrad.optimizers.scale_by_trust_ratio: update needs params "
                "(call update(grads, state, params))"
            )

        def ratio(u: Any, p: Any) -> Any:
            param_norm = fnp.maximum(fnp.sqrt(fnp.sum(p * p)), min_norm)
            update_norm = fnp.maximum(fnp.sqrt(fnp.sum(u * u)), min_norm)
            zero = fnp.logical_or(param_norm == 0.0, update_norm == 0.0)
            safe_update_norm = fnp.where(zero, 1.0, update_norm)
            trust = trust_coefficient * param_norm / (safe_update_norm + eps)
            return u * cast_like(fnp.where(zero, 1.0, trust), u)

        return tree_map(ratio, updates, params), state

    return GradientTransformation(init, update)
