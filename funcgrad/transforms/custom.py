"""User-defined differentiation rules: `custom_vjp` and `custom_jvp`.

A function decorated with either becomes, when called on graph nodes, one
node per output leaf of a call primitive (`funcgrad.transforms.calls`)
whose rules are the user's. The other mode is derived by transposition, in
`calls`, so both modes always work:

* a `custom_vjp` function's JVP is the transpose of its (linear in the
  cotangent) backward rule: `J t = d/du <bwd(res, u), t>`;
* a `custom_jvp` function's VJP is the transpose of its (linear in the
  tangents) JVP rule: `J^T u = d/dt <u, jvp(x, t)>`.

Both need the user's rule to be written with `funcgrad.numpy`; a rule on
raw NumPy still works in its own mode, and the other mode explains why it
cannot go through.

The forward rule of a `custom_vjp` runs on the nodes, so residuals are
part of the graph and `grad(grad(f))` differentiates through them.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

from funcgrad.backend import freeze, xp_of
from funcgrad.errors import ShapeError
from funcgrad.graph import Node
from funcgrad.ops._util import value_of
from funcgrad.transforms import batching
from funcgrad.transforms.calls import Call, call_primitive, record
from funcgrad.transforms.pytree import TreeDef, tree_flatten, tree_map, tree_unflatten


def _name(fn: object) -> str:
    return getattr(fn, "__name__", repr(fn))


def _output_values(out: Any) -> list[Any]:
    return [value_of(v) for v in tree_flatten(out)[0]]


def _check_rule_result(
    result: Any, args_def: TreeDef, arg_leaves: Sequence[Any], fn_name: str
) -> list[Any]:
    """Check a user rule's per-argument result against the arguments; flatten it."""
    n_args = args_def.nodes[0][2]
    if not isinstance(result, (tuple, list)) or len(result) != n_args:
        got = len(result) if isinstance(result, (tuple, list)) else type(result).__name__
        raise ShapeError(
            f"funcgrad.custom_vjp: the bwd rule of {fn_name!r} must return a tuple "
            f"with one entry per positional argument ({n_args}), got {got}"
        )
    flat = tree_flatten(tuple(result), is_leaf=lambda x: x is None)[0]
    if len(flat) != len(arg_leaves):
        raise ShapeError(
            f"funcgrad.custom_vjp: the bwd rule of {fn_name!r} returned a structure "
            f"with {len(flat)} arrays for arguments with {len(arg_leaves)}"
        )
    for i, (c, a) in enumerate(zip(flat, arg_leaves, strict=True)):
        if c is None:
            continue
        a_shape = getattr(value_of(a), "shape", ())
        if getattr(c, "shape", ()) != a_shape:
            raise ShapeError(
                f"funcgrad.custom_vjp: the bwd rule of {fn_name!r} returned shape "
                f"{getattr(c, 'shape', ())} for argument leaf {i}, which has shape {a_shape}"
            )
        a_dtype = getattr(value_of(a), "dtype", None)
        c_dtype = getattr(value_of(c), "dtype", None)
        # NOTE: another float dtype is cast back by the engine (float32 stays
        # float32); an integer or boolean cotangent is a bug in the rule.
        if a_dtype is not None and c_dtype is not None and c_dtype.kind not in "fc":
            raise ShapeError(
                f"funcgrad.custom_vjp: the bwd rule of {fn_name!r} returned dtype "
                f"{c_dtype} for argument leaf {i}, which has dtype {a_dtype}; return "
                f"floating-point cotangents (ct.astype({str(a_dtype)!r}))"
            )
    return flat


# --- custom_vjp ----------------------------------------------------------------

_local = threading.local()


def _in_fwd() -> set[custom_vjp]:
    """The custom_vjp functions whose fwd rule is running in this thread."""
    active = getattr(_local, "active", None)
    if active is None:
        active = _local.active = set()
    return active


class _VjpCall(Call):
    """One call of a `custom_vjp` function: its residuals; the JVP is the transpose of `bwd`."""

    __slots__ = ("args_def", "fn", "residuals")

    def __init__(self, fn: custom_vjp, args_def: TreeDef, residuals: Any):
        self.fn = fn
        self.args_def = args_def
        self.residuals = residuals

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        return _output_values(self.fn.fun(*tree_unflatten(self.args_def, leaves)))

    def vjp(self, ct: Any, out: Any, leaves: tuple[Any, ...], index: int) -> tuple[Any, ...]:
        # The residuals as nodes only when the gradient itself is recorded (`out` a node);
        # a node `ct` alone (jvp_by_transposing's variable u) takes them as constants, so
        # that no node of the forward's graph leaks into the tangent (vmap of jacfwd)
        res = self.residuals if type(out) is Node else tree_map(value_of, self.residuals)
        bwd = cast("Callable[..., Any]", self.fn.bwd)  # set with fwd, which __call__ checked
        result = bwd(res, self.one_hot(ct, index))
        return tuple(_check_rule_result(result, self.args_def, leaves, _name(self.fn.fun)))

    def transposition_error(self, error: Exception | None) -> str:
        why = (
            f"it failed on a graph node: {error}"
            if error is not None
            else "it returned a nonzero cotangent that does not depend on ct (raw NumPy?)"
        )
        return (
            f"funcgrad.custom_vjp: forward mode (jvp, jacfwd, hessian) needs the bwd "
            f"rule of {_name(self.fn.fun)!r} to be written with funcgrad.numpy "
            f"(it is transposed to get the JVP), but {why}. "
            f"Write bwd with funcgrad.numpy, use reverse mode only (jacrev, "
            f"jacrev(jacrev(f)) for Hessians), or use funcgrad.custom_jvp"
        )


custom_vjp_call = call_primitive(
    "custom_vjp_call", "a function with a user-defined VJP (funcgrad.custom_vjp)"
)


class custom_vjp:
    """Give a function your own reverse-mode rule (as `jax.custom_vjp`).

    Decorate `f`, then call `f.defvjp(fwd, bwd)`:
    `fwd(*args) -> (out, residuals)` computes the output and whatever the
    backward rule needs; `bwd(residuals, ct) -> tuple` returns one cotangent
    per positional argument (shaped like it, or `None` for zero).

    Forward mode (`jvp`, `jacfwd`, `hessian`) works too when `bwd` is
    written with `funcgrad.numpy`: the JVP is the transpose of `bwd`.

    Residuals are kept read-only, like the values graph nodes hold: an array
    residual that is writeable is copied (as `funcgrad.backend.freeze`
    does), so changing it after the forward cannot change the gradient, and
    `bwd` gets read-only arrays (copy one before writing into it).

    Args:
        fun: The function. Its arguments and result may be pytrees.

    Raises:
        ShapeError: If `bwd` returns the wrong number of cotangents or a
            cotangent of the wrong shape; the message names the function.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> @fg.custom_vjp
        ... def log1pexp(x):
        ...     return fnp.log(1.0 + fnp.exp(x))
        >>> def fwd(x):
        ...     return log1pexp(x), x
        >>> def bwd(x, ct):
        ...     return (ct * (1.0 - 1.0 / (1.0 + fnp.exp(x))),)
        >>> _ = log1pexp.defvjp(fwd, bwd)
        >>> fg.grad(log1pexp)(100.0)
        1.0
    """

    def __init__(self, fun: Callable[..., Any]):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> custom_vjp:
        """Set the forward rule `fwd(*args) -> (out, res)` and backward rule `bwd(res, ct)`."""
        self.fwd, self.bwd = fwd, bwd
        return self

    def _batched(self, in_axes: Any, size: int) -> custom_vjp:
        """This function and its rules under `vmap` (batch on axis 0): for an outer transform."""
        fwd, bwd = self.fwd, self.bwd
        if fwd is None or bwd is None:
            return custom_vjp(batching.vmap(self.fun, in_axes=in_axes, axis_size=size))

        def batched_fwd(*args: Any) -> Any:
            active = _in_fwd()
            active.add(self)
            try:
                return batching.vmap(fwd, in_axes=in_axes, axis_size=size)(*args)
            finally:
                active.discard(self)

        def batched_bwd(res: Any, ct: Any) -> Any:
            cts = batching.vmap(bwd, axis_size=size)(res, ct)
            return batching.summed_where_unmapped(cts, in_axes)

        lifted = custom_vjp(batching.vmap(self.fun, in_axes=in_axes, axis_size=size))
        return lifted.defvjp(batched_fwd, batched_bwd)

    def __call__(self, *args: Any) -> Any:
        leaves, args_def = tree_flatten(args)
        if batching.over_transform(leaves) and self not in _in_fwd():
            return batching.lifted_call(self._batched, args)
        if not any(type(v) is Node for v in leaves) or self in _in_fwd():
            return self.fun(*args)  # also when fwd calls the function itself
        if self.fwd is None:
            raise TypeError(
                f"funcgrad.custom_vjp: {_name(self.fun)!r} has no rules yet; call "
                f"{_name(self.fun)}.defvjp(fwd, bwd) before differentiating it"
            )
        active = _in_fwd()
        active.add(self)
        try:
            result = self.fwd(*args)
        finally:
            active.discard(self)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise ShapeError(
                f"funcgrad.custom_vjp: the fwd rule of {_name(self.fun)!r} must return "
                f"a pair (out, residuals)"
            )
        out, residuals = result
        # NOTE: residuals are held read-only like node values (a writeable array
        # is copied), so writing into one after the forward cannot change the
        # gradient; nodes are already read-only and stay in the graph.
        residuals = tree_map(_freeze_residual, residuals)
        return record(custom_vjp_call, _VjpCall(self, args_def, residuals), tuple(leaves), out)


def _freeze_residual(v: Any) -> Any:
    if type(v) is Node or not hasattr(v, "shape") or not hasattr(v, "dtype"):
        return v  # nodes, Python numbers and other objects are kept as given
    return freeze(v)


# --- custom_jvp ----------------------------------------------------------------


class _JvpCall(Call):
    """One call of a `custom_jvp` function; the VJP is the transpose of its JVP rule."""

    __slots__ = ("args_def", "fn")

    def __init__(self, fn: custom_jvp, args_def: TreeDef):
        self.fn = fn
        self.args_def = args_def

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        return _output_values(self.fn.fun(*tree_unflatten(self.args_def, leaves)))

    def jvp(self, tangents: tuple[Any, ...], out: Any, leaves: tuple[Any, ...], index: int) -> Any:
        fn, args_def = self.fn, self.args_def
        ts = [
            t if t is not None else _zeros_like_value(a)
            for t, a in zip(tangents, leaves, strict=True)
        ]
        primals = tree_unflatten(args_def, leaves)
        rule = cast("Callable[..., Any]", fn.jvp_rule)  # __call__ checked it is set
        result = rule(tuple(primals), tuple(tree_unflatten(args_def, ts)))
        if not (isinstance(result, tuple) and len(result) == 2):
            raise ShapeError(
                f"funcgrad.custom_jvp: the JVP rule of {_name(fn.fun)!r} must return a pair "
                f"(out, tangent_out)"
            )
        t_leaves = tree_flatten(result[1])[0]
        if len(t_leaves) != len(self.avals):
            raise ShapeError(
                f"funcgrad.custom_jvp: the JVP rule of {_name(fn.fun)!r} returned "
                f"{len(t_leaves)} tangents for {len(self.avals)} outputs"
            )
        t = t_leaves[index]
        if getattr(t, "shape", ()) != self.avals[index][0]:
            raise ShapeError(
                f"funcgrad.custom_jvp: the JVP rule of {_name(fn.fun)!r} returned a tangent "
                f"of shape {getattr(t, 'shape', ())} for an output of shape {self.avals[index][0]}"
            )
        return t

    def transposition_error(self, error: Exception | None) -> str:
        why = (
            f"it failed on a graph node: {error}"
            if error is not None
            else "it returned a nonzero tangent that does not depend on the tangents (raw NumPy?)"
        )
        return (
            f"funcgrad.custom_jvp: reverse mode (grad, vjp) needs the JVP rule of "
            f"{_name(self.fn.fun)!r} to be written with funcgrad.numpy (it is "
            f"transposed to get the VJP), but {why}"
        )


def _zeros_like_value(v: Any) -> Any:
    v = value_of(v)
    return xp_of(v).zeros_like(v)


custom_jvp_call = call_primitive(
    "custom_jvp_call", "a function with a user-defined JVP (funcgrad.custom_jvp)"
)


class custom_jvp:
    """Give a function your own forward-mode rule (as `jax.custom_jvp`).

    Decorate `f`, then call `f.defjvp(rule)` with
    `rule(primals, tangents) -> (out, tangent_out)`, `primals` and
    `tangents` being tuples of the positional arguments. Reverse mode
    (`grad`, `vjp`) works too when the rule is written with
    `funcgrad.numpy`: the VJP is the transpose of the (linear) JVP.

    Args:
        fun: The function.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> @fg.custom_jvp
        ... def safe_sqrt(x):
        ...     return fnp.sqrt(x)
        >>> @safe_sqrt.defjvp
        ... def _(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     y = fnp.sqrt(x)
        ...     return y, t * fnp.where(fnp.greater(x, 0.0), 0.5 / fnp.where(fnp.greater(x, 0.0), y, 1.0), 0.0)
        >>> fg.grad(safe_sqrt)(0.0), fg.grad(safe_sqrt)(4.0)
        (0.0, 0.25)
    """

    def __init__(self, fun: Callable[..., Any]):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.jvp_rule: Callable[..., Any] | None = None

    def defjvp(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        """Set the JVP rule `rule(primals, tangents) -> (out, tangent_out)`; returns `rule`."""
        self.jvp_rule = rule
        return rule

    def _batched(self, in_axes: Any, size: int) -> custom_jvp:
        """This function and its rule under `vmap` (batch on axis 0): for an outer transform."""
        lifted = custom_jvp(batching.vmap(self.fun, in_axes=in_axes, axis_size=size))
        rule = self.jvp_rule
        if rule is not None:
            lifted.defjvp(batching.vmap(rule, in_axes=(in_axes, in_axes), axis_size=size))
        return lifted

    def __call__(self, *args: Any) -> Any:
        leaves, args_def = tree_flatten(args)
        if batching.over_transform(leaves):
            return batching.lifted_call(self._batched, args)
        if not any(type(v) is Node for v in leaves):
            return self.fun(*args)
        if self.jvp_rule is None:
            raise TypeError(
                f"funcgrad.custom_jvp: {_name(self.fun)!r} has no rule yet; decorate one "
                f"with @{_name(self.fun)}.defjvp before differentiating it"
            )
        out = self.fun(*tree_unflatten(args_def, [value_of(v) for v in leaves]))
        return record(custom_jvp_call, _JvpCall(self, args_def), tuple(leaves), out)
