"""Your own primitive from a black-box function (`funcgrad.extend`, as `autograd.extend`).

`primitive(fun)` wraps a function that computes on plain arrays (NumPy,
SciPy, a C extension: it never sees a graph node) into a funcgrad
primitive; `defvjp` and `defjvp` give it its derivative rules, written with
`funcgrad.numpy` so that they are differentiable again (second order). The
rules have HIPS autograd's signatures, so autograd code ports verbatim:

* a VJP rule per argument: `vjp(ans, *args, **kwargs) -> (g -> cotangent)`;
* a JVP rule per argument: `jvp(g, ans, *args, **kwargs) -> tangent`.

A call with graph nodes among its arguments records one node whose
primitive is a `funcgrad.ops.registry.Primitive` record like the built-in
ones, so the engine applies its rules as it applies theirs, and the node
shows in `Tensor.grad_fn` (`LogsumexpBackward0`), in the profiler (an event
named like the primitive) and in anomaly mode. The record is not added to
the table of built-in primitives (`registry.primitives()`), which lists
funcgrad's own operations for the generic tests and the documentation;
two user primitives may share a name.

The mode with no rule is derived by transposing the other (as for
`funcgrad.custom_vjp`): with VJP rules only, forward mode (`jvp`,
`jacfwd`, `hessian`) works; with JVP rules only, reverse mode works. With
neither for an argument, differentiating with respect to it raises
`NotDifferentiableError` naming the primitive and the argument.
`funcgrad.check_grads` verifies the rules against finite differences.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as _np

from funcgrad.backend import xp_of
from funcgrad.errors import ArgumentTypeError, FuncgradError, NotDifferentiableError, ShapeError
from funcgrad.graph import Node, leaf
from funcgrad.ops.registry import Primitive
from funcgrad.transforms import _trace
from funcgrad.transforms.reverse import walk

# A VJP maker `(ans, *args, **kwargs) -> (g -> cotangent)`; a JVP rule `(g, ans, *args, **kwargs)`.
VjpMaker = Callable[..., Callable[[Any], Any]]
JvpRule = Callable[..., Any]

_NUMBERS = (int, float, complex, bool)


def _is_input(a: Any) -> bool:
    """Whether a positional argument is an array input (a node, an array, a number)."""
    t = type(a)
    if t is bool:
        return False  # a flag: static
    if t is Node or t in _NUMBERS or isinstance(a, _np.generic):
        return True
    if getattr(t, "__funcgrad_apply__", None) is not None:
        return True  # a Tensor: it applies the primitive to its node
    return hasattr(a, "shape") and hasattr(a, "dtype")


def _merge(inputs: tuple[Any, ...], static: tuple[tuple[int, Any], ...]) -> list[Any]:
    """The positional arguments: the array inputs with the static ones back in their places."""
    args = list(inputs)
    for pos, value in static:
        args.insert(pos, value)
    return args


def _argnum(j: int, static: tuple[tuple[int, Any], ...]) -> int:
    """The position among the arguments of the `j`-th array input."""
    taken = {pos for pos, _ in static}
    pos = -1
    for _ in range(j + 1):
        pos += 1
        while pos in taken:
            pos += 1
    return pos


def _value(a: Any) -> Any:
    return a.value if type(a) is Node else a


def _as_array(c: Any, like: Any) -> Any:
    """A rule's result as an array (a number becomes one of `like`'s module; None, zeros)."""
    if type(c) is Node or hasattr(c, "shape"):
        return c
    if c is None:
        return xp_of(_value(like)).zeros_like(_value(like))
    return xp_of(_value(like)).asarray(c)


class primitive:
    """Wrap a function on plain arrays into a funcgrad primitive (autograd's `primitive`).

    The function sees plain arrays, never graph nodes: it may call NumPy,
    SciPy or compiled code. Give it rules with `defvjp` (reverse mode) and
    optionally `defjvp` (forward mode; derived from the VJP rules when
    absent, and the other way round). Use it as a decorator or call it.

    Positional arguments that are arrays or numbers (or graph nodes,
    `Tensor`s) are the primitive's inputs; other positional arguments
    (strings, lists, callables, None) and the keyword arguments are static:
    passed to the function and to every rule as they are, never
    differentiated. The function must return one array (or number).

    Args:
        fun: The function, computing on plain arrays.
        name: The primitive's name (in `grad_fn`, the profiler and error
            messages); defaults to `fun.__name__`.

    Examples:
        >>> import numpy as np, scipy.special
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> from funcgrad.extend import primitive, defvjp
        >>> @primitive
        ... def logsumexp(x):
        ...     return scipy.special.logsumexp(x)
        >>> defvjp(logsumexp, lambda ans, x: lambda g: g * fnp.exp(x - ans))
        >>> fg.grad(logsumexp)(np.zeros(2))
        array([0.5, 0.5])
    """

    def __init__(self, fun: Callable[..., Any], name: str | None = None):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.name: str = name if name is not None else getattr(fun, "__name__", "primitive")
        self._vjps: dict[int, VjpMaker] = {}
        self._vjp_all: Callable[..., Any] | None = None
        self._jvps: dict[int, JvpRule] = {}
        self._records: dict[int, Primitive] = {}  # by the number of array inputs
        try:
            self._params: tuple[str, ...] | None = tuple(inspect.signature(fun).parameters)
        except (TypeError, ValueError):
            self._params = None

    # --- defining rules ---------------------------------------------------------

    def defvjp(self, *makers: VjpMaker | None, argnums: tuple[int, ...] | None = None) -> None:
        """Set VJP rules, one per positional argument (autograd's `defvjp`).

        Each rule is `maker(ans, *args, **kwargs) -> (g -> cotangent)`:
        given the output `ans` and the arguments, it returns the function
        mapping the output's cotangent `g` to the argument's cotangent
        (shaped like the argument, or like the output where the argument was
        broadcast: the engine sums it back). `None` leaves an argument's
        rule unset.

        Args:
            *makers: The rules, for arguments 0, 1, ... (or `argnums`).
            argnums: The positions the rules are for.
        """
        positions = range(len(makers)) if argnums is None else argnums
        for pos, maker in zip(positions, makers, strict=True):
            if maker is not None:
                self._vjps[pos] = maker
        self._records.clear()

    def defvjp_argnums(self, maker: Callable[..., Any]) -> None:
        """Set one VJP rule for every argument at once (autograd's `defvjp_argnums`).

        `maker(argnums, ans, args, kwargs) -> (g -> tuple)`, where `argnums`
        is the positions of the array arguments (all of them, whichever are
        differentiated) and the tuple holds one cotangent per position, in
        that order. Use it when the cotangents share work (one adjoint
        solve for all of them). It replaces per-argument VJP rules.
        """
        self._vjp_all = maker
        self._records.clear()

    def defjvp(self, *rules: JvpRule | None, argnums: tuple[int, ...] | None = None) -> None:
        """Set JVP rules, one per positional argument (autograd's `defjvp`).

        Each rule is `rule(g, ans, *args, **kwargs) -> tangent`: the output's
        tangent due to the tangent `g` of that argument (linear in `g`;
        broadcastable to the output). `None` leaves an argument's rule unset.

        Args:
            *rules: The rules, for arguments 0, 1, ... (or `argnums`).
            argnums: The positions the rules are for.
        """
        positions = range(len(rules)) if argnums is None else argnums
        for pos, rule in zip(positions, rules, strict=True):
            if rule is not None:
                self._jvps[pos] = rule
        self._records.clear()

    # --- calling --------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        static = tuple((i, a) for i, a in enumerate(args) if not _is_input(a))
        inputs = tuple(a for a in args if _is_input(a)) if static else args
        if static:
            kwargs["_static"] = static
        return self._record(len(inputs))(*inputs, **kwargs)

    def _record(self, n: int) -> Primitive:
        """The `Primitive` record for `n` array inputs, with a snapshot of the current rules."""
        record = self._records.get(n)
        if record is None:
            vjps, jvps, vjp_all = dict(self._vjps), dict(self._jvps), self._vjp_all
            vjp: Any = (
                functools.partial(_vjp_all_rule, self, vjp_all)
                if vjp_all is not None
                else tuple(functools.partial(_vjp_rule, self, vjps, jvps, j) for j in range(n))
            )
            jvp = tuple(
                functools.partial(_jvp_rule, self, vjps, vjp_all, jvps, j) for j in range(n)
            )
            record = Primitive(
                name=self.name,
                forward=functools.partial(_forward, self),
                vjp=vjp,
                jvp=jvp,
                doc=f"a user primitive (funcgrad.extend.primitive of {self.name})",
            )
            self._records[n] = record
        return record

    def _arg_name(self, pos: int) -> str:
        if self._params is not None and pos < len(self._params):
            return f"argument {pos} ({self._params[pos]!r})"
        return f"argument {pos}"

    def __repr__(self) -> str:
        return f"<funcgrad.extend.primitive {self.name}>"


# --- the rules of the records -----------------------------------------------------


def _forward(
    p: primitive, xp: Any, *inputs: Any, _static: tuple[tuple[int, Any], ...] = (), **kw: Any
) -> Any:
    out = p.fun(*_merge(inputs, _static), **kw)
    if type(out) in _NUMBERS:
        return xp.asarray(out)[()]
    if not hasattr(out, "shape") or not hasattr(out, "dtype"):
        raise ArgumentTypeError(
            f"funcgrad.extend.primitive: {p.name!r} returned a {type(out).__name__}; a "
            f"primitive returns one array (wrap a function of several outputs once per "
            f"output, or use funcgrad.custom_vjp)"
        )
    return out


def _vjp_rule(
    p: primitive,
    vjps: Mapping[int, VjpMaker],
    jvps: Mapping[int, JvpRule],
    j: int,
    ct: Any,
    out: Any,
    *inputs: Any,
    _static: tuple[tuple[int, Any], ...] = (),
    **kw: Any,
) -> Any:
    pos = _argnum(j, _static)
    args = _merge(inputs, _static)
    maker = vjps.get(pos)
    if maker is not None:
        with _on_nodes(p, pos, "VJP", out):
            return _as_array(maker(out, *args, **kw)(ct), inputs[j])
    rule = jvps.get(pos)
    if rule is None:
        raise NotDifferentiableError(
            f"funcgrad.extend: the primitive {p.name!r} has no VJP rule (nor a JVP rule to "
            f"transpose) for its {p._arg_name(pos)}; give one with "
            f"defvjp({p.name}, ...) or {p.name}.defvjp(..., argnums=({pos},))"
        )
    # J^T u = d/dt <u, jvp(t)>: the JVP rule is linear in t.
    x = _value(inputs[j])
    t = leaf(xp_of(x).ones_like(x))
    try:
        with _trace.tracing():
            t_out = rule(t, out, *args, **kw)
    except FuncgradError:
        raise
    except (TypeError, RuntimeError) as e:
        raise NotDifferentiableError(_transpose_message(p, pos, "JVP", "reverse mode", e)) from e
    if type(t_out) is not Node:
        _check_transposable(p, t_out, pos, "JVP", "reverse mode (grad, vjp)")
        return xp_of(x).zeros_like(x)
    total = (t_out * ct).sum()
    create = type(out) is Node or type(ct) is Node
    one = xp_of(total.value).ones((), total.dtype)
    return walk((total,), (one,), (t,), create_graph=create)[t]


def _vjp_all_rule(
    p: primitive,
    maker: Callable[..., Any],
    ct: Any,
    out: Any,
    *inputs: Any,
    _static: tuple[tuple[int, Any], ...] = (),
    **kw: Any,
) -> tuple[Any, ...]:
    args = _merge(inputs, _static)
    argnums = tuple(_argnum(j, _static) for j in range(len(inputs)))
    cts = maker(argnums, out, tuple(args), kw)(ct)
    if not isinstance(cts, (tuple, list)) or len(cts) != len(argnums):
        got = len(cts) if isinstance(cts, (tuple, list)) else type(cts).__name__
        raise ShapeError(
            f"funcgrad.extend: the defvjp_argnums rule of {p.name!r} must return one "
            f"cotangent per argnum ({len(argnums)}), got {got}"
        )
    return tuple(None if c is None else _as_array(c, x) for c, x in zip(cts, inputs, strict=True))


def _jvp_rule(
    p: primitive,
    vjps: Mapping[int, VjpMaker],
    vjp_all: Callable[..., Any] | None,
    jvps: Mapping[int, JvpRule],
    j: int,
    g: Any,
    out: Any,
    *inputs: Any,
    _static: tuple[tuple[int, Any], ...] = (),
    **kw: Any,
) -> Any:
    pos = _argnum(j, _static)
    args = _merge(inputs, _static)
    rule = jvps.get(pos)
    if rule is not None:
        with _on_nodes(p, pos, "JVP", out):
            return _as_array(rule(g, out, *args, **kw), out)
    if vjp_all is None and pos not in vjps:
        raise NotDifferentiableError(
            f"funcgrad.extend: the primitive {p.name!r} has no JVP rule (nor a VJP rule to "
            f"transpose) for its {p._arg_name(pos)}; give one with "
            f"defjvp({p.name}, ...) or {p.name}.defjvp(..., argnums=({pos},))"
        )
    # J t = d/du <vjp(u), t>: the VJP rule is linear in u.
    value = _value(out)
    u = leaf(xp_of(value).ones_like(value))
    try:
        with _trace.tracing():
            if vjp_all is not None:
                c = _vjp_all_rule(p, vjp_all, u, out, *inputs, _static=_static, **kw)[j]
            else:
                c = vjps[pos](out, *args, **kw)(u)
    except FuncgradError:
        raise
    except (TypeError, RuntimeError) as e:
        raise NotDifferentiableError(_transpose_message(p, pos, "VJP", "forward mode", e)) from e
    if type(c) is not Node:
        _check_transposable(p, c, pos, "VJP", "forward mode (jvp, jacfwd, hessian)")
        return xp_of(value).zeros_like(value)
    total = (c * g).sum()
    create = type(out) is Node
    one = xp_of(total.value).ones((), total.dtype)
    return walk((total,), (one,), (u,), create_graph=create)[u]


class _on_nodes:
    """Explain a rule that fails on graph nodes (higher orders run the rules on nodes)."""

    __slots__ = ("kind", "out", "p", "pos")

    def __init__(self, p: primitive, pos: int, kind: str, out: Any):
        self.p, self.pos, self.kind, self.out = p, pos, kind, out

    def __enter__(self) -> None:
        return None

    def __exit__(self, cls: Any, error: Any, tb: Any) -> None:
        if type(self.out) is Node and isinstance(error, TypeError):
            raise NotDifferentiableError(
                f"funcgrad.extend: a higher derivative runs the {self.kind} rule of the "
                f"primitive {self.p.name!r} for its {self.p._arg_name(self.pos)} on graph "
                f"nodes, and it failed there ({error}); write the rule with funcgrad.numpy"
            ) from error


def _transpose_message(p: primitive, pos: int, kind: str, mode: str, error: Any) -> str:
    why = (
        f"it failed on a graph node: {error}"
        if error is not None
        else "it returned a nonzero result that does not depend on its input g (raw NumPy?)"
    )
    return (
        f"funcgrad.extend: {mode} through the primitive {p.name!r} transposes its {kind} "
        f"rule for its {p._arg_name(pos)}, which must then be written with funcgrad.numpy, "
        f"but {why}; write the rule with funcgrad.numpy or give the other rule too"
    )


def _check_transposable(p: primitive, r: Any, pos: int, kind: str, mode: str) -> None:
    """A rule's result that does not depend on its input must be zero (else: not transposable)."""
    if r is None:
        return
    v = _value(r)
    if bool(xp_of(v).any(v != 0)) if hasattr(v, "shape") else bool(v != 0):
        raise NotDifferentiableError(_transpose_message(p, pos, kind, mode, None))


# --- autograd's module-level spellings ------------------------------------------------


def defvjp(
    fun: primitive, *makers: VjpMaker | None, argnums: tuple[int, ...] | None = None
) -> None:
    """Set the VJP rules of a primitive: `fun.defvjp(*makers, argnums=argnums)` (autograd's form).

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> from funcgrad.extend import primitive, defvjp
        >>> mul = primitive(lambda x, y: np.multiply(x, y), name="mul")
        >>> defvjp(mul, lambda ans, x, y: lambda g: g * y, lambda ans, x, y: lambda g: g * x)
        >>> fg.grad(mul, argnums=(0, 1))(2.0, 3.0)
        (3.0, 2.0)
    """
    _check_primitive(fun, "defvjp")
    fun.defvjp(*makers, argnums=argnums)


def defjvp(fun: primitive, *rules: JvpRule | None, argnums: tuple[int, ...] | None = None) -> None:
    """Set the JVP rules of a primitive: `fun.defjvp(*rules, argnums=argnums)` (autograd's form).

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> from funcgrad.extend import primitive, defjvp
        >>> sin = primitive(np.sin, name="my_sin")
        >>> defjvp(sin, lambda g, ans, x: g * fnp.cos(x))
        >>> out, tangent = fg.jvp(sin, (0.0,), (2.0,))
        >>> float(tangent)
        2.0
    """
    _check_primitive(fun, "defjvp")
    fun.defjvp(*rules, argnums=argnums)


def defvjp_argnum(fun: primitive, maker: Callable[..., Any]) -> None:
    """Set one VJP maker for every argument: `maker(argnum, ans, args, kwargs) -> (g -> cotangent)`.

    autograd's `defvjp_argnum`: the rule of argument `argnum` is
    `maker(argnum, ans, args, kwargs)`.
    """
    _check_primitive(fun, "defvjp_argnum")
    n = _n_positional(fun, "defvjp_argnum")
    fun.defvjp(*(functools.partial(_argnum_vjp, maker, i) for i in range(n)))


def defjvp_argnum(fun: primitive, rule: Callable[..., Any]) -> None:
    """Set one JVP rule for every argument: `rule(argnum, g, ans, args, kwargs) -> tangent`.

    autograd's `defjvp_argnum`.
    """
    _check_primitive(fun, "defjvp_argnum")
    n = _n_positional(fun, "defjvp_argnum")
    fun.defjvp(*(functools.partial(_argnum_jvp, rule, i) for i in range(n)))


def _argnum_vjp(maker: Callable[..., Any], i: int, ans: Any, *args: Any, **kw: Any) -> Any:
    return maker(i, ans, args, kw)


def _argnum_jvp(rule: Callable[..., Any], i: int, g: Any, ans: Any, *args: Any, **kw: Any) -> Any:
    return rule(i, g, ans, args, kw)


def defvjp_argnums(fun: primitive, maker: Callable[..., Any]) -> None:
    """Set one VJP rule giving every cotangent at once: `fun.defvjp_argnums(maker)`.

    `maker(argnums, ans, args, kwargs) -> (g -> tuple)` (autograd's
    `defvjp_argnums`); `argnums` holds the positions of all the array
    arguments, whether or not they are differentiated.
    """
    _check_primitive(fun, "defvjp_argnums")
    fun.defvjp_argnums(maker)


def notrace_primitive(fun: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a function that runs on plain values and is not differentiated (autograd's).

    Graph nodes among the arguments are replaced by their values before
    `fun` runs, so its result is a constant of every graph (zero
    gradient), as a random draw or an integer computation should be.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> from funcgrad.extend import notrace_primitive
        >>> sign = notrace_primitive(np.sign)
        >>> fg.grad(lambda x: sign(x) * x)(-3.0)
        -1.0
    """

    @functools.wraps(fun)
    def on_values(*args: Any, **kwargs: Any) -> Any:
        return fun(*map(_value, args), **{k: _value(v) for k, v in kwargs.items()})

    return on_values


def _check_primitive(fun: Any, what: str) -> None:
    if not isinstance(fun, primitive):
        raise TypeError(
            f"funcgrad.extend.{what}: expected a function wrapped with "
            f"funcgrad.extend.primitive, got {type(fun).__name__}"
        )


def _n_positional(fun: primitive, what: str) -> int:
    try:
        params = inspect.signature(fun.fun).parameters.values()
    except (TypeError, ValueError):
        params = None
    if params is None or any(q.kind is inspect.Parameter.VAR_POSITIONAL for q in params):
        raise TypeError(
            f"funcgrad.extend.{what}: cannot tell how many arguments {fun.name!r} takes; "
            f"use {fun.name}.defvjp / defjvp with one rule per argument"
        )
    return sum(
        q.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for q in params
    )


__all__ = [
    "defjvp",
    "defjvp_argnum",
    "defvjp",
    "defvjp_argnum",
    "defvjp_argnums",
    "notrace_primitive",
    "primitive",
]
