"""HIPS autograd's optimizer drivers (`autograd.misc.optimizers`): `sgd`, `rmsprop`, `adam`.

Each runs a whole optimization: it calls `grad(x, i)` at each iteration
`i`, then `callback(x, i, g)` if given, and returns the final parameters.
`x0` may be any pytree of arrays (a dict of weights, say): the drivers work
on its flat vector (`funcgrad.misc.flatten`) and hand `grad` and `callback`
the nested structure, exactly as autograd's do, with the same formulas (so
the same numbers). Written with `funcgrad.numpy`, so a whole run can itself
be differentiated (meta-optimization).

For optimizers that step one batch at a time, see `funcgrad.optimizers`
(optax's style) and `funcgrad.optim` (PyTorch's).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import funcgrad.numpy as fnp
from funcgrad.misc.flatten import flatten

__all__ = ["adam", "rmsprop", "sgd", "unflatten_optimizer"]


def unflatten_optimizer(optimize: Callable[..., Any]) -> Callable[..., Any]:
    """Turn an optimizer of flat vectors into one of nested structures (autograd's decorator).

    The wrapped optimizer takes `grad(x, i)` and `callback(x, i, g)` that
    see the nested structure, and returns it.

    Examples:
        >>> import numpy as np
        >>> @unflatten_optimizer
        ... def gradient_descent(grad, x, callback=None, num_iters=10, step_size=0.5):
        ...     for i in range(num_iters):
        ...         x = x - step_size * grad(x, i)
        ...     return x
        >>> out = gradient_descent(lambda p, i: {"a": p["a"] - 1.0, "b": [p["b"][0]]},
        ...                        {"a": np.zeros(2), "b": [np.ones(1)]})
        >>> np.round(out["a"], 3), np.round(out["b"][0], 3)
        (array([0.999, 0.999]), array([0.001]))
    """

    @functools.wraps(optimize)
    def _optimize(
        grad: Callable, x0: Any, callback: Callable | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        _x0, unflatten = flatten(x0)

        def _grad(x: Any, i: int) -> Any:
            return flatten(grad(unflatten(x), i))[0]

        _callback = None
        if callback:

            def _callback(x: Any, i: int, g: Any) -> None:
                callback(unflatten(x), i, unflatten(g))

        return unflatten(optimize(_grad, _x0, _callback, *args, **kwargs))

    return _optimize


@unflatten_optimizer
def sgd(
    grad: Callable,
    x: Any,
    callback: Callable | None = None,
    num_iters: int = 200,
    step_size: float = 0.1,
    mass: float = 0.9,
) -> Any:
    """Stochastic gradient descent with momentum (autograd's form).

    `v = mass * v - (1 - mass) * g`, `x = x + step_size * v`.

    Args:
        grad: `grad(x, i)`: the gradient at `x` for iteration `i`.
        x: The starting point (a pytree of arrays).
        callback: Called as `callback(x, i, g)` before each update.
        num_iters: The number of iterations.
        step_size: The step size.
        mass: The momentum.

    Returns:
        The final point, structured like `x`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> g = fg.grad(lambda p: fnp.sum((p["w"] - 1.0) ** 2))
        >>> out = sgd(lambda p, i: g(p), {"w": np.zeros(2)}, num_iters=300)
        >>> np.round(out["w"], 4)
        array([1., 1.])
    """
    velocity = fnp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        velocity = mass * velocity - (1.0 - mass) * g
        x = x + step_size * velocity
    return x


@unflatten_optimizer
def rmsprop(
    grad: Callable,
    x: Any,
    callback: Callable | None = None,
    num_iters: int = 100,
    step_size: float = 0.1,
    gamma: float = 0.9,
    eps: float = 10**-8,
) -> Any:
    """Root mean square propagation (autograd's form: the average starts at ones).

    `a = gamma * a + (1 - gamma) * g**2`, `x = x - step_size * g / (sqrt(a) + eps)`.

    Args:
        grad: `grad(x, i)`: the gradient at `x` for iteration `i`.
        x: The starting point (a pytree of arrays).
        callback: Called as `callback(x, i, g)` before each update.
        num_iters: The number of iterations.
        step_size: The step size.
        gamma: The decay of the average of squared gradients.
        eps: Added to the denominator.

    Returns:
        The final point, structured like `x`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> g = fg.grad(lambda p: fnp.sum(p**2))
        >>> float(np.abs(rmsprop(lambda p, i: g(p), np.array([1.0]), step_size=0.01, num_iters=200))[0]) < 0.05
        True
    """
    avg_sq_grad = fnp.ones(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        avg_sq_grad = avg_sq_grad * gamma + g**2 * (1 - gamma)
        x = x - step_size * g / (fnp.sqrt(avg_sq_grad) + eps)
    return x


@unflatten_optimizer
def adam(
    grad: Callable,
    x: Any,
    callback: Callable | None = None,
    num_iters: int = 100,
    step_size: float = 0.001,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 10**-8,
) -> Any:
    """Adam (Kingma and Ba), in autograd's form.

    `m = (1 - b1) g + b1 m`, `v = (1 - b2) g^2 + b2 v`, then
    `x = x - step_size * m_hat / (sqrt(v_hat) + eps)` with the bias-corrected moments.

    Args:
        grad: `grad(x, i)`: the gradient at `x` for iteration `i`.
        x: The starting point (a pytree of arrays).
        callback: Called as `callback(x, i, g)` before each update.
        num_iters: The number of iterations.
        step_size: The step size.
        b1: The decay of the first moment.
        b2: The decay of the second moment.
        eps: Added to the denominator.

    Returns:
        The final point, structured like `x`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> loss = lambda p: fnp.sum((p[0] - 2.0) ** 2) + fnp.sum(p[1] ** 2)
        >>> seen = []
        >>> out = adam(lambda p, i: fg.grad(loss)(p), [np.zeros(2), np.ones(1)],
        ...            callback=lambda p, i, g: seen.append(i), num_iters=500, step_size=0.05)
        >>> np.round(out[0], 3), len(seen)
        (array([2., 2.]), 500)
    """
    m = fnp.zeros(len(x))
    v = fnp.zeros(len(x))
    for i in range(num_iters):
        g = grad(x, i)
        if callback:
            callback(x, i, g)
        m = (1 - b1) * g + b1 * m  # first moment
        v = (1 - b2) * (g**2) + b2 * v  # second moment
        mhat = m / (1 - b1 ** (i + 1))  # bias corrections
        vhat = v / (1 - b2 ** (i + 1))
        x = x - step_size * mhat / (fnp.sqrt(vhat) + eps)
    return x
