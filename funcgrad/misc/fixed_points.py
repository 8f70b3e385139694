"""`fixed_point`: HIPS autograd's `autograd.misc.fixed_points`, differentiable by the implicit function theorem.

`fixed_point(f, a, x0, distance, tol)` iterates `x <- f(a)(x)` from `x0`
until `distance(x_new, x_old) <= tol`. Its derivative in `a` is not that of
the iterations: at the fixed point `x* = f(a)(x*)`, the cotangent `g` of
`x*` gives `a` the cotangent `(df(a)(x*)/da)^T w`, where `w` is itself a
fixed point, `w = g + (df(a)(x)/dx)^T w` at `x*` (the implicit function
theorem), found by `fixed_point` again with the same `distance` and `tol`.
So reverse mode costs one more fixed-point solve, and higher orders work
(each solve is differentiable the same way). `a` may be a pytree.
Layer: training (it may import everything below it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from funcgrad.extend import defvjp, primitive
from funcgrad.graph import Node
from funcgrad.transforms import vjp
from funcgrad.tree import ravel

__all__ = ["fixed_point"]


def fixed_point(
    f: Callable[[Any], Callable[[Any], Any]],
    a: Any,
    x0: Any,
    distance: Callable[[Any, Any], Any],
    tol: float,
) -> Any:
    """Return the fixed point of `f(a)` reached from `x0`: differentiable in `a`.

    Args:
        f: `f(a)` returns the step `x -> x_next`, written with
            `funcgrad.numpy` (its derivatives give the gradient).
        a: The parameters (an array, a number or a pytree of them).
        x0: Where the iteration starts (an array or a number); the result
            does not depend on it (its gradient is zero).
        distance: `distance(x_new, x_old)`, a number compared with `tol`.
        tol: The iteration stops once `distance(x_new, x_old) <= tol`.

    Returns:
        The last iterate, shaped like `x0`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> babylonian = lambda a: lambda x: 0.5 * (x + a / x)  # fixed point sqrt(a)
        >>> def sqrt(a):
        ...     return fixed_point(babylonian, a, 1.0, lambda x, y: fnp.abs(x - y), 1e-12)
        >>> round(float(sqrt(2.0)), 12), round(float(fg.grad(sqrt)(2.0)), 9)  # 1 / (2 sqrt 2)
        (1.414213562373, 0.353553391)
    """
    flat_a, unflatten = ravel(a)
    return _fixed_point(_OnFlat(f, unflatten), flat_a, x0, distance, tol)


class _OnFlat:
    """`f` of the flat vector of `a`'s pytree."""

    __slots__ = ("f", "unflatten")

    def __init__(self, f: Callable[[Any], Any], unflatten: Callable[[Any], Any]):
        self.f = f
        self.unflatten = unflatten

    def __call__(self, flat_a: Any) -> Callable[[Any], Any]:
        return self.f(self.unflatten(flat_a))


def _plain(x: Any) -> Any:
    return x.value if type(x) is Node else x


def _iterate(f: _OnFlat, flat_a: Any, x0: Any, distance: Any, tol: float) -> Any:
    # NOTE: the forward of a primitive computes on plain values; a step that differentiates
    # (the adjoint's) returns nodes while an outer derivative is being traced: their values
    # are the iterates (this primitive's own VJP gives the derivative)
    step = f(flat_a)
    x_old, x = x0, _plain(step(x0))
    while _plain(distance(x, x_old)) > tol:
        x_old, x = x, _plain(step(x))
    return x


_fixed_point = primitive(_iterate, name="fixed_point")


class _AdjointStep:
    """`(a, x*, g) -> (w -> g + (df(a)(x)/dx)^T w at x*)`: the adjoint's fixed-point step."""

    __slots__ = ("f",)

    def __init__(self, f: _OnFlat):
        self.f = f

    def __call__(self, params: tuple[Any, Any, Any]) -> Callable[[Any], Any]:
        flat_a, x_star, g = params
        _, pull_x = vjp(self.f(flat_a), x_star)
        return lambda w: pull_x(w)[0] + g


def _vjp_a(ans: Any, f: _OnFlat, flat_a: Any, x0: Any, distance: Any, tol: float) -> Any:
    def pull(g: Any) -> Any:
        start = np.zeros(np.shape(g.value if type(g) is Node else g))
        w = fixed_point(_AdjointStep(f), (flat_a, ans, g), start, distance, tol)
        _, pull_a = vjp(lambda b: f(b)(ans), flat_a)
        return pull_a(w)[0]

    return pull


def _vjp_x0(ans: Any, f: _OnFlat, flat_a: Any, x0: Any, distance: Any, tol: float) -> Any:
    shape = np.shape(x0.value if type(x0) is Node else x0)
    return lambda g: np.zeros(shape)


defvjp(_fixed_point, None, _vjp_a, _vjp_x0)
