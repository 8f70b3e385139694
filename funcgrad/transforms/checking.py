"""`check_grads`: compare a function's derivatives with central differences (as JAX and autograd).

The check is the one of `jax.test_util.check_grads`: in forward mode the
JVP `J t` in a random direction `t` is compared, entry by entry, with the
central difference `(f(x + eps t) - f(x - eps t)) / (2 eps)`; in reverse
mode the VJP `J^T u` for a random cotangent `u` is compared through the
identity `<t, J^T u> = <J t, u>`, the right-hand side by central
differences. Higher orders check the JVP and VJP functions themselves, the
same way: order 2 differentiates `(x, t) -> jvp(f, x, t)` and
`x -> vjp(f, x)(u)`, and so on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from funcgrad.errors import DtypeError
from funcgrad.graph import Node
from funcgrad.transforms.forward import jvp
from funcgrad.transforms.gradients import vjp
from funcgrad.transforms.pytree import tree_flatten, tree_map, tree_unflatten

_MODES = ("fwd", "rev")


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any] | None = None,
    order: int = 2,
    modes: Sequence[str] = ("fwd", "rev"),
    eps: float = 1e-4,
    atol: float = 1e-5,
    rtol: float = 1e-5,
    seed: int = 0,
    *,
    argnum: int | Sequence[int] = 0,
) -> Callable[..., None] | None:
    """Check `f`'s derivatives up to `order` against central differences (as `jax.test_util.check_grads`).

    Without `args` it is HIPS autograd's curried form: `check_grads(f,
    modes=["rev"], order=2)(*args, **kwargs)` checks the derivatives with
    respect to the positional argument(s) `argnum` only, the others held
    fixed (so they may be integers).

    Floating-point arguments are checked in float64 (float32 ones are
    converted first; a black-box primitive then computes in float64 too).
    Directions and cotangents are drawn at random (normal, from `seed`).

    Args:
        f: The function, of positional arguments; arguments and result may
            be pytrees of floating-point arrays.
        args: The point: a tuple of `f`'s positional arguments. Close over
            integer arguments (`lambda x: f(x, n)`) rather than passing them.
            None: return the checking function (autograd's form).
        order: How many times to differentiate (1: first derivatives; 2:
            also the derivatives of the JVP and VJP functions; ...).
        modes: `"fwd"` (check JVPs), `"rev"` (check VJPs), or both.
        eps: The step of the central differences.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        seed: Seed of the random directions.
        argnum: In the curried form, the position(s) of the argument(s)
            to check (autograd's default: the first).

    Returns:
        None; without `args`, a function of `f`'s arguments that runs the
        check.

    Raises:
        AssertionError: If a derivative disagrees with the central
            difference: the message names the mode and the order and gives
            the two numbers.
        DtypeError: If an argument is not of a floating-point (or complex)
            dtype.
        ValueError: If `modes` names another mode or `order` is negative.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.check_grads(fnp.sin, (np.array([0.5, 1.0]),), order=2)
        >>> @fg.custom_vjp
        ... def bad_sin(x):
        ...     return fnp.sin(x)
        >>> _ = bad_sin.defvjp(lambda x: (bad_sin(x), x), lambda x, ct: (ct * fnp.sin(x),))
        >>> fg.check_grads(bad_sin, (np.array([0.5]),), order=1, modes=("rev",))
        Traceback (most recent call last):
        ...
        AssertionError: funcgrad.check_grads: reverse mode (VJP), order 1: ...
        >>> fg.check_grads(lambda x, n: x**n, modes=["rev"])(np.array([0.5, 2.0]), 3)
    """
    if args is None:
        nums = (argnum,) if isinstance(argnum, int) else tuple(argnum)

        def checker(*given: Any, **kwargs: Any) -> None:
            def at(*xs: Any) -> Any:
                new = list(given)
                for i, x in zip(nums, xs, strict=True):
                    new[i] = x
                return f(*new, **kwargs)

            point = tuple(given[i] for i in nums)
            check_grads(at, point, order, modes, eps, atol, rtol, seed)

        return checker
    unknown = [m for m in modes if m not in _MODES]
    if unknown or isinstance(modes, str):
        raise ValueError(
            f"funcgrad.check_grads: modes={modes!r}; give a sequence of 'fwd' and 'rev'"
        )
    if order < 0:
        raise ValueError(f"funcgrad.check_grads: order={order} must be 0 or more")
    point = tuple(tree_map(_float64, tuple(args)))
    rng = np.random.default_rng(seed)
    tol = (eps, atol, rtol)
    _check(f, point, order, tuple(modes), tol, rng, "")
    return None


def _check(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    order: int,
    modes: tuple[str, ...],
    tol: tuple[float, float, float],
    rng: np.random.Generator,
    of: str,
) -> None:
    if order == 0:
        return
    level = of.count(" of ") + 1 if of else 1
    if "fwd" in modes:
        what = f"forward mode (JVP{of}), order {level}"
        tangents = _like(args, rng)
        _check_jvp(f, args, tangents, tol, what)
        if order > 1:

            def f_jvp(primals: Any, tangents: Any) -> Any:
                return jvp(f, tuple(primals), tuple(tangents))

            _check(f_jvp, (args, tangents), order - 1, modes, tol, rng, f" of the JVP{of}")
    if "rev" in modes:
        what = f"reverse mode (VJP{of}), order {level}"
        out = _plain(f(*args))
        cotangent = _like(out, rng)
        _check_vjp(f, args, cotangent, tol, rng, what)
        if order > 1:

            def f_vjp(*primals: Any) -> Any:
                return vjp(f, *primals)[1](cotangent)

            _check(f_vjp, args, order - 1, modes, tol, rng, f" of the VJP{of}")


def _check_jvp(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    tangents: tuple[Any, ...],
    tol: tuple[float, float, float],
    what: str,
) -> None:
    eps, atol, rtol = tol
    _, t_out = jvp(f, args, tangents)
    expected = _numerical_jvp(f, args, tangents, eps)
    got_leaves = [_array(v) for v in tree_flatten(_plain(t_out))[0]]
    want_leaves = tree_flatten(expected)[0]
    if len(got_leaves) != len(want_leaves):
        raise AssertionError(
            f"funcgrad.check_grads: {what}: the JVP has {len(got_leaves)} output arrays, "
            f"the function {len(want_leaves)}"
        )
    for k, (got, want) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        got = np.broadcast_to(got, want.shape)
        bad = ~np.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
        if bad.any():
            i = np.unravel_index(np.argmax(np.where(bad, np.abs(got - want), -1.0)), want.shape)
            where = f" at index {tuple(int(n) for n in i)}" if want.ndim else ""
            leaf = f" (output array {k})" if len(want_leaves) > 1 else ""
            raise AssertionError(
                f"funcgrad.check_grads: {what}{leaf}{where}: the JVP is {got[i]:.10g} but central "
                f"differences give {want[i]:.10g} (eps={eps}, atol={atol}, rtol={rtol}; "
                f"{int(bad.sum())} of {bad.size} entries differ)"
            )


def _check_vjp(
    f: Callable[..., Any],
    args: tuple[Any, ...],
    cotangent: Any,
    tol: tuple[float, float, float],
    rng: np.random.Generator,
    what: str,
) -> None:
    eps, atol, rtol = tol
    _, vjp_fn = vjp(f, *args)
    cts = _plain(vjp_fn(cotangent))
    tangents = _like(args, rng)
    got = _inner(tangents, cts)
    want = _inner(_numerical_jvp(f, args, tangents, eps), cotangent)
    if not np.isclose(got, want, atol=atol, rtol=rtol, equal_nan=True):
        raise AssertionError(
            f"funcgrad.check_grads: {what}: <t, VJP(u)> is {got:.10g} but the central "
            f"difference <(f(x + eps t) - f(x - eps t)) / (2 eps), u> is {want:.10g} "
            f"(random t and u; |difference| = {abs(got - want):.3g}, eps={eps}, "
            f"atol={atol}, rtol={rtol})"
        )


def _numerical_jvp(
    f: Callable[..., Any], args: tuple[Any, ...], tangents: tuple[Any, ...], eps: float
) -> Any:
    a_leaves, a_def = tree_flatten(args)
    t_leaves = tree_flatten(tangents)[0]
    plus = tree_unflatten(a_def, [a + eps * t for a, t in zip(a_leaves, t_leaves, strict=True)])
    minus = tree_unflatten(a_def, [a - eps * t for a, t in zip(a_leaves, t_leaves, strict=True)])
    hi, lo = _plain(f(*plus)), _plain(f(*minus))
    return tree_map(lambda h, low: (_array(h) - _array(low)) / (2 * eps), hi, lo)


def _inner(a: Any, b: Any) -> Any:
    # Re(sum(x * y)): a cotangent pairs with a tangent this way for complex values (the
    # functional API's convention, docs/concepts/complex.md); the plain sum for real ones
    total = 0.0
    for x, y in zip(tree_flatten(a)[0], tree_flatten(b)[0], strict=True):
        total = total + np.real(np.sum(_array(x) * _array(y)))
    return total


def _like(tree: Any, rng: np.random.Generator) -> Any:
    def draw(v: Any) -> Any:
        v = _array(v)
        d = rng.standard_normal(v.shape)
        if v.dtype.kind == "c":
            d = d + 1j * rng.standard_normal(v.shape)
        return d

    return tree_map(draw, tree)


def _plain(tree: Any) -> Any:
    return tree_map(lambda v: v.value if type(v) is Node else v, tree)


def _array(v: Any) -> Any:
    return np.asarray(v.value if type(v) is Node else v)


def _float64(v: Any) -> Any:
    a = np.asarray(v.value if type(v) is Node else v)
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    if a.dtype.kind != "f":
        raise DtypeError(
            f"funcgrad.check_grads: an argument has dtype {a.dtype}; every argument must be "
            f"floating-point (close over integer arguments: lambda x: f(x, n))"
        )
    return a.astype(np.float64)


__all__ = ["check_grads"]
