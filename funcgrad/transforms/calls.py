"""Call primitives: a whole function recorded as one primitive, with rules its caller supplies.

`custom_vjp`, `custom_jvp`, `checkpoint` and `autograd.Function` record a
call of a function the same way. The function runs once on plain values;
each output leaf becomes a node of a *call primitive* (`call_primitive`),
whose inputs are the argument leaves of the call and whose parameters are
`fn`, a `Call` (what this one application knows: the user's rules,
residuals, the output structure), and `index`, the output leaf the node
holds. The primitive's forward, VJP and JVP rules ask the `Call`.

A `Call` defines one rule or both; the other is derived by transposition,
here and nowhere else:

* from a VJP, linear in the cotangent `u`: `J t = d/du <vjp(u), t>`
  (`custom_vjp`, `autograd.Function`);
* from a JVP, linear in the tangents `t`: `J^T u = d/dt <u, jvp(t)>`
  (`custom_jvp`).

Transposing runs the given rule on graph nodes and walks the result, so
the rule must be written with funcgrad operations; a rule on raw arrays
still works in its own mode, and the other mode raises
`NotDifferentiableError` with the `Call`'s explanation.
"""

from __future__ import annotations

from typing import Any

from funcgrad.backend import freeze, xp_of
from funcgrad.errors import FuncgradError, NotDifferentiableError
from funcgrad.graph import Node, leaf, make_node
from funcgrad.ops._util import value_of
from funcgrad.ops.registry import Primitive, register
from funcgrad.transforms import _trace
from funcgrad.transforms.pytree import TreeDef, tree_flatten, tree_unflatten
from funcgrad.transforms.reverse import walk


class Call:
    """One application of a function, shared by the call-primitive nodes of its outputs.

    Subclasses define `outputs` and at least one of `vjp` and `jvp` (the
    other is the transpose of the one defined). A `Call` must not hold the
    nodes of its own outputs (they hold it): no reference cycles.

    Attributes:
        out_def: The structure of the function's output (set by `record`).
        avals: `(shape, dtype)` of each output leaf (set by `record`).
    """

    __slots__ = ("avals", "out_def")

    out_def: TreeDef
    avals: tuple[tuple[tuple[int, ...], Any], ...]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.vjp is Call.vjp and cls.jvp is Call.jvp:
            raise TypeError(f"{cls.__name__} must define vjp or jvp (the other is its transpose)")

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        """Run the function on plain values; return the value of every output leaf."""
        raise NotImplementedError

    def vjp(self, ct: Any, out: Any, leaves: tuple[Any, ...], index: int) -> tuple[Any, ...]:
        """Return one cotangent per input leaf (None for zero) for the cotangent `ct` of output `index`.

        By default the transpose of `jvp`. `out` is the output's value, or
        its node when the gradient is recorded (`create_graph`); `leaves`
        and `ct` are values or nodes likewise.
        """
        return vjp_by_transposing(self, ct, out, leaves, index)

    def jvp(self, tangents: tuple[Any, ...], out: Any, leaves: tuple[Any, ...], index: int) -> Any:
        """Return the tangent of output `index` for input tangents (None for zero), or None if zero.

        By default the transpose of `vjp`.
        """
        return jvp_by_transposing(self, tangents, out, leaves, index)

    def transposition_error(self, error: Exception | None) -> str:
        """The message of the `NotDifferentiableError` when the given rule cannot be transposed.

        Args:
            error: What the rule raised on graph nodes, or None if it ran
                but returned a nonzero result that does not depend on its
                (co)tangent input.
        """
        what = "its VJP" if type(self).vjp is not Call.vjp else "its JVP"
        why = (
            f"failed on a graph node: {error}"
            if error is not None
            else ("it returned a nonzero result that does not depend on its (co)tangent")
        )
        return (
            f"funcgrad: {type(self).__name__} is differentiated in the other mode by "
            f"transposing {what}, which needs it written with funcgrad operations, but {why}"
        )

    def one_hot(self, ct: Any, index: int) -> Any:
        """The cotangent of the whole output tree: `ct` at leaf `index`, zeros elsewhere."""
        cts = [
            ct if j == index else xp_of(value_of(ct)).zeros(shape, dtype=dtype)
            for j, (shape, dtype) in enumerate(self.avals)
        ]
        return tree_unflatten(self.out_def, cts)


def _call_forward(xp: Any, *leaves: Any, fn: Call, index: int) -> Any:
    return fn.outputs(leaves)[index]


def _call_vjp(ct: Any, out: Any, *leaves: Any, fn: Call, index: int) -> tuple[Any, ...]:
    return fn.vjp(ct, out, leaves, index)


def _call_jvp(tangents: tuple[Any, ...], out: Any, *leaves: Any, fn: Call, index: int) -> Any:
    return fn.jvp(tangents, out, leaves, index)


def call_primitive(name: str, doc: str) -> Primitive:
    """Register a call primitive: its rules are those of the `Call` in each node's `fn` parameter.

    Its `sample` is None: the primitive is generic over a user's function,
    so the generic tests take their examples from `tests/call_samples.py`.
    """
    return register(
        Primitive(
            name=name,
            forward=_call_forward,
            vjp=_call_vjp,
            jvp=_call_jvp,
            params=("fn", "index"),
            doc=doc,
        )
    )


def record(prim: Primitive, call: Call, inputs: tuple[Any, ...], out_tree: Any) -> Any:
    """Make one node of `prim` per leaf of `out_tree` (values), sharing `call`; return their tree."""
    leaves, out_def = tree_flatten(out_tree)
    values = [freeze(value_of(v)) for v in leaves]
    call.out_def = out_def
    call.avals = tuple((v.shape, v.dtype) for v in values)
    nodes = [make_node(prim, inputs, {"fn": call, "index": j}, v) for j, v in enumerate(values)]
    return tree_unflatten(out_def, nodes)


# --- the transpositions ---------------------------------------------------------


def jvp_by_transposing(
    call: Call, tangents: tuple[Any, ...], out: Any, leaves: tuple[Any, ...], index: int
) -> Any:
    """`J t = d/du <vjp(u), t>`: the JVP of a call from its VJP rule, which is linear in `u`."""
    create = type(out) is Node
    value = out.value if create else out
    # NOTE: u is ones, not zeros, so that a rule that cuts u from the graph
    # (a constant, .detach(), raw NumPy) shows as a nonzero constant.
    u = leaf(xp_of(value).ones_like(value))
    try:
        with _trace.tracing():
            cts = call.vjp(u, out, leaves, index)
    except FuncgradError:
        raise
    except (TypeError, RuntimeError) as e:
        raise NotDifferentiableError(call.transposition_error(e)) from e
    total = None
    for c, t in zip(cts, tangents, strict=True):
        if c is None or t is None:
            continue
        if type(c) is not Node:
            if _nonzero(c):
                raise NotDifferentiableError(call.transposition_error(None))
            continue
        term = (c * t).sum()
        total = term if total is None else total + term
    if total is None:
        return None  # the rule ignores its cotangent: a zero derivative
    return walk((total,), (xp_of(total.value).ones((), total.dtype),), (u,), create_graph=create)[u]


def vjp_by_transposing(
    call: Call, ct: Any, out: Any, leaves: tuple[Any, ...], index: int
) -> tuple[Any, ...]:
    """`J^T u = d/dt <u, jvp(t)>`: the VJP of a call from its JVP rule, which is linear in `t`."""
    create = type(out) is Node or type(ct) is Node
    # NOTE: ones, not zeros, for the reason given in jvp_by_transposing.
    ts = tuple(
        leaf(xp_of(value_of(a)).ones_like(value_of(a))) if _differentiable(a) else None
        for a in leaves
    )
    try:
        with _trace.tracing():
            t_out = call.jvp(ts, out, leaves, index)
    except FuncgradError:
        raise
    except (TypeError, RuntimeError) as e:
        raise NotDifferentiableError(call.transposition_error(e)) from e
    if type(t_out) is not Node:
        if t_out is not None and _nonzero(t_out):
            raise NotDifferentiableError(call.transposition_error(None))
        return tuple(None for _ in leaves)  # the rule ignores its tangents: zero
    total = (t_out * ct).sum()
    wrt = tuple(t for t in ts if t is not None)
    grads = walk((total,), (xp_of(total.value).ones((), total.dtype),), wrt, create_graph=create)
    return tuple(grads[t] if t is not None else None for t in ts)


def _differentiable(a: Any) -> bool:
    if type(a) is Node:
        return True
    dtype = getattr(a, "dtype", None)
    return dtype is not None and dtype.kind in "fc"


def _nonzero(v: Any) -> bool:
    v = value_of(v)
    if not hasattr(v, "shape"):
        return bool(v != 0)
    return bool(xp_of(v).any(v != 0))
