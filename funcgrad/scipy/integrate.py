"""`funcgrad.scipy.integrate.odeint`: SciPy's ODE solver, differentiable by the adjoint method.

The forward is `scipy.integrate.odeint` (LSODA) on plain values. The
gradient in the initial state `y0`, the times `t` and the dynamics'
parameters `*args` integrates the adjoint system backwards in time, with
SciPy again, between consecutive output times (the algorithm of
`jax.experimental.ode.odeint`); the dynamics' VJPs in it come from
`funcgrad.vjp` of `func`. `odeint` is a `funcgrad.extend` primitive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.integrate as _integrate

import funcgrad.numpy as _fnp
from funcgrad.errors import NotDifferentiableError, ShapeError
from funcgrad.extend import primitive
from funcgrad.graph import Node
from funcgrad.transforms.gradients import vjp
from funcgrad.transforms.pytree import tree_flatten, tree_unflatten
from funcgrad.tree import ravel


def odeint(
    func: Callable[..., Any],
    y0: Any,
    t: Any,
    *args: Any,
    rtol: float = 1.49012e-8,
    atol: float = 1.49012e-8,
    mxstep: int = 0,
    **scipy_args: Any,
) -> Any:
    """Integrate `dy/dt = func(y, t, *args)` from `y(t[0]) = y0`; differentiable (adjoint method).

    The signature of `jax.experimental.ode.odeint`, and SciPy's (that of
    `autograd.scipy.integrate.odeint`) too: the parameters may come as
    `odeint(func, y0, t, a, b)` (JAX), or as the keyword `args=(a, b)`
    (SciPy). The positional parameters are passed to `func` as they are,
    as JAX passes them: a lone tuple in fourth place is ONE parameter
    (`odeint(f, y0, t, (0.5, 0.1))` calls `f(y, t, (0.5, 0.1))`), not
    SciPy's positional `args` tuple; a SciPy or autograd program that
    writes `odeint(func, y0, t, (a, b))` or `tuple((params,))` ports as
    `odeint(func, y0, t, args=(a, b))` (or `odeint(func, y0, t, a, b)`). Gradients in `y0`, `t` and `args` come from the adjoint ODE, solved
    backwards in time with SciPy at the same tolerances, so they are as
    accurate as the solver (about `rtol`), not exact.

    Reverse mode only, and first order only: forward mode (`jvp`,
    `jacfwd`) and second derivatives raise `NotDifferentiableError`, since
    the adjoint is solved on plain values.

    Args:
        func: The dynamics `func(y, t, *args)`, written with
            `funcgrad.numpy`; it returns an array (pytree) shaped like `y`.
        y0: The initial state: an array or a pytree of arrays.
        t: The times (1-D, increasing or decreasing); `t[0]` is the time
            of `y0`.
        *args: Parameters of the dynamics (arrays or pytrees of arrays),
            passed to `func` as they are (JAX's rule: a tuple is one
            parameter; SciPy's tuple of them goes to `args=`).
        rtol: Relative tolerance of the solver (forward and adjoint);
            SciPy's default (JAX's is 1.4e-8).
        atol: Absolute tolerance of the solver; SciPy's default.
        mxstep: Most steps per output interval (0: SciPy's default, 500).
        **scipy_args: `args=`, SciPy's tuple of the parameters (a single
            value is a 1-tuple, as in SciPy); no other SciPy option is
            taken.

    Returns:
        The states at the times `t`: shaped `(len(t), *y0.shape)`, or the
        pytree of `y0` with such leaves. So a scalar `y0` gives shape
        `(len(t),)`, as JAX's `odeint`, where SciPy's (and autograd's)
        gives `(len(t), 1)`.

    Raises:
        ShapeError: If `t` is not 1-D, or `func` returns a state of
            another shape.
        TypeError: For parameters given both positionally and as `args=`,
            or a SciPy option other than `args`.
        NotDifferentiableError: For forward mode or second derivatives.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> from funcgrad.scipy.integrate import odeint
        >>> t = np.array([0.0, 1.0])
        >>> decay = lambda y, t, k: -k * y
        >>> float(odeint(decay, 1.0, t, 0.5)[1])  # exp(-0.5)
        0.6065306...
        >>> float(fg.grad(lambda k: odeint(decay, 1.0, t, k)[1])(0.5))  # -exp(-0.5)
        -0.6065306...
    """
    args = _parameters(args, scipy_args)
    t_shape = np.shape(getattr(t, "value", t))
    if len(t_shape) != 1:
        raise ShapeError(f"funcgrad.scipy.integrate.odeint: t must be 1-D, got shape {t_shape}")
    y_flat, unravel = ravel(y0)
    y_shape = np.shape(getattr(y0, "value", y0))
    is_tree = bool(tree_flatten(y0)[1].nodes[0][0] != "*")
    arg_leaves, args_def = tree_flatten(args)

    def flat_func(y: Any, time: Any, *leaves: Any) -> Any:
        state = unravel(y) if is_tree else _reshape(y, y_shape)
        dy = func(state, time, *tree_unflatten(args_def, leaves))
        dy_flat = ravel(dy)[0] if is_tree else _reshape(dy, (-1,))
        if np.shape(getattr(dy_flat, "value", dy_flat)) != np.shape(getattr(y, "value", y)):
            raise ShapeError(
                f"funcgrad.scipy.integrate.odeint: func returned a state of "
                f"{np.shape(getattr(dy_flat, 'value', dy_flat))[0]} numbers for one of "
                f"{np.shape(getattr(y, 'value', y))[0]}"
            )
        return dy_flat

    options = {"func": flat_func, "rtol": rtol, "atol": atol, "mxstep": mxstep}
    ys = _odeint(y_flat, t, *arg_leaves, **options)  # (len(t), size)
    if not is_tree:
        return _reshape(ys, (t_shape[0], *y_shape))
    leaves, out_def = tree_flatten(unravel(ys[0]))
    pieces, start = [], 0
    for leaf in leaves:
        shape = np.shape(getattr(leaf, "value", leaf))
        size = int(np.prod(shape))
        pieces.append(_reshape(ys[:, start : start + size], (t_shape[0], *shape)))
        start += size
    return tree_unflatten(out_def, pieces)


def _parameters(args: tuple[Any, ...], scipy_args: dict[str, Any]) -> tuple[Any, ...]:
    """The dynamics' parameters from JAX's `*args` (as they are) or SciPy's `args=`."""
    unknown = sorted(set(scipy_args) - {"args"})
    if unknown:
        raise TypeError(
            f"funcgrad.scipy.integrate.odeint: unexpected keyword argument(s) {unknown}; it "
            f"takes the parameters (positionally or as args=), rtol, atol and mxstep"
        )
    if "args" in scipy_args:
        if args:
            raise TypeError(
                f"funcgrad.scipy.integrate.odeint: the parameters were given both positionally "
                f"({len(args)} of them) and as args=; give them one way"
            )
        given = scipy_args["args"]
        return given if type(given) is tuple else (given,)  # SciPy wraps a single value
    # NOTE: a lone positional tuple is JAX's one parameter, not SciPy's positional `args`: JAX
    # passes *args as they are, and f(y, t, params) that unpacks `a, b = params` needs that
    return args


def _reshape(x: Any, shape: tuple[int, ...]) -> Any:
    return _fnp.reshape(x, shape)


def _odeint_forward(
    y0: Any, t: Any, *args: Any, func: Any, rtol: float, atol: float, mxstep: int
) -> Any:
    dtype = np.asarray(y0).dtype
    y0 = np.asarray(y0, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)
    ys = _solve(lambda y, s: func(y, s, *args), y0, t, rtol, atol, mxstep)
    return ys.astype(dtype if dtype.kind == "f" else np.float64, copy=False)


def _solve(rhs: Any, y0: Any, t: Any, rtol: float, atol: float, mxstep: int) -> Any:
    def f(y: Any, s: float) -> Any:
        return np.asarray(rhs(y, s), dtype=np.float64)

    ys, info = _integrate.odeint(
        f, y0, t, rtol=rtol, atol=atol, mxstep=mxstep, full_output=True, tfirst=False
    )
    if info["message"] != "Integration successful.":
        raise RuntimeError(
            f"funcgrad.scipy.integrate.odeint: SciPy's solver failed: {info['message']} "
            f"(raise mxstep, or loosen rtol/atol)"
        )
    return ys


_odeint = primitive(_odeint_forward, name="odeint")


def _odeint_vjp(argnums: tuple[int, ...], ans: Any, args: tuple[Any, ...], kw: Any) -> Any:
    def pull(g: Any) -> tuple[Any, ...]:
        if any(type(v) is Node for v in (g, ans, *args)):
            raise NotDifferentiableError(
                "funcgrad.scipy.integrate.odeint: only first-order reverse mode (grad, vjp, "
                "jacrev) is implemented; forward mode (jvp, jacfwd) and second derivatives "
                "are not, since the adjoint ODE is solved by SciPy on plain values"
            )
        cts = _adjoint(np.asarray(g), np.asarray(ans), args, **kw)
        return tuple(cts[i] for i in argnums)  # static arguments (a list t) get none

    return pull


def _adjoint(
    g: Any, ys: Any, inputs: tuple[Any, ...], func: Any, rtol: float, atol: float, mxstep: int
) -> tuple[Any, ...]:
    """The cotangents of `(y0, t, *args)` for the cotangent `g` of `ys` (JAX's algorithm)."""
    y0, t, *params = inputs
    t = np.asarray(t, dtype=np.float64)
    n = ys.shape[1]
    flat_params, unravel_params = ravel(list(params))
    n_params = flat_params.shape[0]

    def aug_dynamics(state: Any, s: float) -> Any:
        # s is minus the time: the adjoint runs backwards.
        y, y_bar = state[:n], state[n : 2 * n]
        y_dot, pull = vjp(lambda y, time, p: func(y, time, *unravel_params(p)), y, -s, flat_params)
        y_cts, t_ct, p_ct = pull(y_bar)
        return np.concatenate(
            [-np.asarray(y_dot), y_cts, np.reshape(t_ct, (1,)), np.reshape(p_ct, (-1,))]
        )

    y_bar = g[-1].astype(np.float64)
    t0_bar = 0.0
    params_bar = np.zeros(n_params)
    ts_bar = np.zeros_like(t)
    for i in range(len(t) - 1, 0, -1):
        t_bar = float(np.dot(np.asarray(func(ys[i], t[i], *params)), g[i]))
        ts_bar[i] = t_bar
        t0_bar -= t_bar
        if t[i] != t[i - 1]:
            state = np.concatenate([ys[i], y_bar, [t0_bar], params_bar])
            end = _solve(aug_dynamics, state, np.array([-t[i], -t[i - 1]]), rtol, atol, mxstep)[1]
            y_bar, t0_bar, params_bar = end[n : 2 * n], end[2 * n], end[2 * n + 1 :]
        y_bar = y_bar + g[i - 1]
    ts_bar[0] = t0_bar
    params_cts = tree_flatten(unravel_params(params_bar))[0] if params else []
    return (y_bar, ts_bar, *params_cts)


_odeint.defvjp_argnums(_odeint_vjp)

__all__ = ["odeint"]
