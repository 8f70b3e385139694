"""The optimizers: chains of building blocks, with optax's names and defaults."""

from __future__ import annotations

from typing import Any

from funcgrad.optimizers._base import GradientTransformation, chain, hyperparameter, identity
from funcgrad.optimizers._transforms import (
    ScalarOrSchedule,
    _adam_on_arrays,
    add_decayed_weights,
    scale_by_adam,
    scale_by_learning_rate,
    scale_by_lion,
    scale_by_rms,
    scale_by_rss,
    scale_by_stddev,
    scale_by_trust_ratio,
    trace,
)

__all__ = ["adagrad", "adam", "adamw", "lamb", "lion", "nadam", "rmsprop", "sgd"]


def sgd(
    learning_rate: ScalarOrSchedule,
    momentum: float | None = None,
    nesterov: bool = False,
    accumulator_dtype: Any = None,
) -> GradientTransformation:
    """Stochastic gradient descent, with optional (Nesterov) momentum.

    `p = p - lr * t` with `t = g + momentum * t` (PyTorch's SGD with
    momentum and no dampening; Nesterov uses `g + momentum * t`).

    Args:
        learning_rate: A number or a schedule of the step count.
        momentum: The momentum's decay (None: plain SGD).
        nesterov: Use Nesterov momentum.
        accumulator_dtype: The dtype of the momentum.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> import funcgrad.optimizers as fo
        >>> loss = lambda p: fnp.sum((p["w"] - 3.0) ** 2)
        >>> params = {"w": np.zeros(2)}
        >>> opt = fo.sgd(0.1, momentum=0.9)
        >>> state = opt.init(params)
        >>> for _ in range(200):
        ...     updates, state = opt.update(fg.grad(loss)(params), state, params)
        ...     params = fo.apply_updates(params, updates)
        >>> np.round(params["w"], 3)
        array([3., 3.])
    """
    return chain(
        trace(decay=momentum, nesterov=nesterov, accumulator_dtype=accumulator_dtype)
        if momentum is not None
        else identity(),
        scale_by_learning_rate(learning_rate),
    )


def adam(
    learning_rate: ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Any = None,
    *,
    nesterov: bool = False,
) -> GradientTransformation:
    """Adam: `p = p - lr * m_hat / (sqrt(v_hat + eps_root) + eps)` (see `scale_by_adam`).

    With `eps_root = 0` it is PyTorch's `Adam` (same moments, same `eps`).

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> import funcgrad.optimizers as fo
        >>> opt = fo.adam(0.1)
        >>> params = np.array([1.0, -2.0])
        >>> updates, state = opt.update(2 * params, opt.init(params))
        >>> fo.apply_updates(params, updates)
        array([ 0.9, -1.9])
    """
    # NumPy scalars as Python numbers (the leaves' dtype; `_adam_on_arrays` takes them)
    learning_rate, b1, b2, eps, eps_root = (
        hyperparameter(x) for x in (learning_rate, b1, b2, eps, eps_root)
    )
    opt = chain(
        scale_by_adam(b1, b2, eps, eps_root, mu_dtype, nesterov=nesterov),
        scale_by_learning_rate(learning_rate),
    )
    if nesterov or mu_dtype is not None or type(learning_rate) not in (int, float):
        return opt
    step_size = -learning_rate

    def update(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        # NumPy leaves: the chain's numbers in fewer passes (`_adam_on_arrays`)
        if type(state) is tuple and len(state) == 2:
            fast = _adam_on_arrays(updates, state[0], b1, b2, eps, eps_root, step_size)
            if fast is not None:
                return fast[0], (fast[1], state[1])
        return opt.update(updates, state, params)

    return GradientTransformation(opt.init, update)


def nadam(
    learning_rate: ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Any = None,
) -> GradientTransformation:
    """NAdam in optax's form: `adam(..., nesterov=True)` (not PyTorch's momentum-decay NAdam)."""
    return adam(learning_rate, b1, b2, eps, eps_root, mu_dtype, nesterov=True)


def adamw(
    learning_rate: ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Any = None,
    weight_decay: float = 1e-4,
    mask: Any = None,
    *,
    nesterov: bool = False,
) -> GradientTransformation:
    """AdamW: Adam plus decoupled weight decay, `p = p - lr * (adam_update + weight_decay * p)`.

    PyTorch's `AdamW` with the same `weight_decay` (optax's default is 1e-4,
    PyTorch's 1e-2). `mask` limits the decay (see `add_decayed_weights`).

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> params = np.array([1.0, -2.0])
        >>> opt = fo.adamw(0.1, weight_decay=0.5)
        >>> updates, state = opt.update(2 * params, opt.init(params), params)
        >>> np.round(fo.apply_updates(params, updates), 4)
        array([ 0.85, -1.8 ])

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> params = np.array([1.0, -2.0])
        >>> opt = fo.nadam(0.1)
        >>> updates, state = opt.update(2 * params, opt.init(params), params)
        >>> np.round(fo.apply_updates(params, updates), 4)
        array([ 0.8526, -1.8526])
    """
    return chain(
        scale_by_adam(b1, b2, eps, eps_root, mu_dtype, nesterov=nesterov),
        add_decayed_weights(weight_decay, mask),
        scale_by_learning_rate(learning_rate),
    )


def rmsprop(
    learning_rate: ScalarOrSchedule,
    decay: float = 0.9,
    eps: float = 1e-8,
    initial_scale: float = 0.0,
    eps_in_sqrt: bool = True,
    centered: bool = False,
    momentum: float | None = None,
    nesterov: bool = False,
) -> GradientTransformation:
    """RMSprop: `p = p - lr * g / sqrt(nu + eps)`, optionally centered and with momentum.

    PyTorch's `RMSprop(lr, alpha=decay, eps=eps, centered=..., momentum=...)`
    puts `eps` outside the square root: `rmsprop(lr, decay, eps,
    eps_in_sqrt=False, ...)` is that optimizer (optax's default keeps it
    inside). The momentum follows the scaling by the learning rate, as in
    optax (the same as PyTorch's for a constant learning rate).

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> params = np.array([1.0, -2.0])
        >>> opt = fo.rmsprop(0.01, eps_in_sqrt=False)
        >>> updates, state = opt.update(2 * params, opt.init(params), params)
        >>> np.round(fo.apply_updates(params, updates), 4)
        array([ 0.9684, -1.9684])
    """
    scaling = scale_by_stddev if centered else scale_by_rms
    return chain(
        scaling(decay=decay, eps=eps, initial_scale=initial_scale, eps_in_sqrt=eps_in_sqrt),
        scale_by_learning_rate(learning_rate),
        trace(decay=momentum, nesterov=nesterov) if momentum is not None else identity(),
    )


def adagrad(
    learning_rate: ScalarOrSchedule, initial_accumulator_value: float = 0.1, eps: float = 1e-7
) -> GradientTransformation:
    """Adagrad: `p = p - lr * g / sqrt(s + eps)` with `s` the sum of squared gradients.

    `eps` goes inside the square root (optax's); with `eps=0` it is
    PyTorch's `Adagrad(eps=0)` for the same `initial_accumulator_value`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> params = np.array([1.0, -2.0])
        >>> opt = fo.adagrad(0.5)
        >>> updates, state = opt.update(2 * params, opt.init(params), params)
        >>> np.round(fo.apply_updates(params, updates), 4)
        array([ 0.5061, -1.5016])
    """
    return chain(
        scale_by_rss(initial_accumulator_value, eps), scale_by_learning_rate(learning_rate)
    )


def lamb(
    learning_rate: ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-6,
    eps_root: float = 0.0,
    weight_decay: float = 0.0,
    mask: Any = None,
) -> GradientTransformation:
    """LAMB: Adam's direction plus weight decay, scaled per leaf by the trust ratio `|p| / |u|`.

    `u = adam_update + weight_decay * p`, `p = p - lr * (|p| / |u|) * u`
    (ratio 1 where either norm is zero). PyTorch has no LAMB.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> params = np.array([1.0, -2.0])
        >>> opt = fo.lamb(0.1)
        >>> updates, state = opt.update(2 * params, opt.init(params), params)
        >>> np.round(fo.apply_updates(params, updates), 4)
        array([ 0.8419, -1.8419])
    """
    return chain(
        scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root),
        add_decayed_weights(weight_decay=weight_decay, mask=mask),
        scale_by_trust_ratio(),
        scale_by_learning_rate(learning_rate),
    )


def lion(
    learning_rate: ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.99,
    mu_dtype: Any = None,
    weight_decay: float = 1e-3,
    mask: Any = None,
) -> GradientTransformation:
    """Lion: `p = p - lr * (sign((1 - b1) g + b1 m) + weight_decay * p)`, `m = (1 - b2) g + b2 m`.

    PyTorch has no Lion.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.optimizers as fo
        >>> params = np.array([1.0, -2.0])
        >>> opt = fo.lion(0.1, weight_decay=0.0)
        >>> updates, state = opt.update(2 * params, opt.init(params), params)
        >>> np.round(fo.apply_updates(params, updates), 4)
        array([ 0.9, -1.9])
    """
    return chain(
        scale_by_lion(b1=b1, b2=b2, mu_dtype=mu_dtype),
        add_decayed_weights(weight_decay=weight_decay, mask=mask),
        scale_by_learning_rate(learning_rate),
    )
