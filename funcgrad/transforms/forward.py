"""Forward mode: push tangents from the inputs through a traced graph.

`jvp` traces the function once (as `vjp` does), then visits the graph in
topological order, applying each primitive's JVP rule to the tangents of
its inputs (`apply_jvp`, the one place that knows the JVP rule forms, as
`funcgrad.transforms.reverse` is for the VJP rules). Nodes no tangent
reaches are skipped. Inside another transform the rules run on nodes, so
the tangents are themselves differentiable (`grad` of a `jvp`,
`jacfwd(jacrev(f))`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from funcgrad.backend import as_value, xp_of
from funcgrad.errors import DtypeError, ShapeError
from funcgrad.graph import Node, toposort
from funcgrad.graph.node import Array
from funcgrad.ops import astype, broadcast_to, guard
from funcgrad.ops.elementwise import real
from funcgrad.ops.registry import ELEMENTWISE, LINEAR, Primitive
from funcgrad.transforms import _trace
from funcgrad.transforms.gradients import _strip, _trace_call, _wrap_like, graph_output
from funcgrad.transforms.pytree import check_same_structure, tree_flatten, tree_map, tree_unflatten


def apply_jvp(
    prim: Primitive,
    tangents: tuple[Any, ...],
    out: Array,
    args: tuple[Any, ...],
    params: Mapping[str, Any],
) -> Any:
    """Push input tangents through one application of `prim` (its JVP rule).

    This is the one place that knows the JVP rule forms (per-input rules,
    one rule on all tangents, `LINEAR`, `ELEMENTWISE`). A per-input rule's
    contribution is guarded (`funcgrad.ops.guard`) when the primitive
    declares `keeps_zeros`, as the backward walk guards a VJP rule's result.

    Args:
        prim: The primitive.
        tangents: One tangent per argument, `None` where it is zero (or the
            argument is a constant).
        out: The primitive's output (a value, or a node when tracing).
        args: The primitive's arguments (values, or nodes when tracing).
        params: Its static parameters.

    Returns:
        The output tangent, shaped and typed like `out`, or `None` if it is
        zero.
    """
    rule = prim.jvp
    if rule is LINEAR:
        filled = tuple(
            t if t is not None else xp_of(_value(a)).zeros_like(_value(a))
            for t, a in zip(tangents, args, strict=True)
        )
        result = prim(*filled, **params)
    elif rule is ELEMENTWISE or type(rule) is tuple:
        rules: Any = prim.vjp if rule is ELEMENTWISE else rule
        result = None
        for t, r in zip(tangents, rules, strict=True):
            if t is None or r is None:
                continue
            contribution = r(t, out, *args, **params) if params else r(t, out, *args)
            if prim.keeps_zeros:
                contribution = guard(prim, t, contribution, params)
            result = contribution if result is None else result + contribution
    else:
        result = rule(tangents, out, *args, **params)
    if result is None:
        return None
    out_value = _value(out)
    if result.shape != out_value.shape:
        result = broadcast_to(result, shape=out_value.shape)
    if result.dtype != out_value.dtype:
        # NOTE: a real output's tangent is the real part of a complex one (the JAX
        # convention, docs/concepts/complex.md: as reverse mode does for cotangents)
        if result.dtype.kind == "c" and out_value.dtype.kind != "c":
            result = real(result)
        if result.dtype != out_value.dtype:
            result = astype(result, dtype=out_value.dtype)
    return result


def _value(a: Any) -> Any:
    return a.value if type(a) is Node else a


def push_tangents(
    roots: tuple[Node, ...], seeds: dict[int, Any], *, create_graph: bool
) -> dict[int, Any]:
    """Propagate tangents forward from the nodes in `seeds` to everything after them.

    Args:
        roots: The output nodes (the sweep covers the nodes they depend on).
        seeds: `id(node) -> tangent` for the variables.
        create_graph: Run the JVP rules on nodes (differentiable tangents).

    Returns:
        `id(node) -> tangent` for every node a tangent reached (zero tangents
        are absent).
    """
    tangents = dict(seeds)
    for node in toposort(*roots):
        prim = node.prim
        if prim is None or id(node) in seeds:
            continue
        ins = tuple(tangents.get(id(i)) if type(i) is Node else None for i in node.inputs)
        if all(t is None for t in ins):
            continue  # no tangent reaches this node
        if create_graph:
            t = apply_jvp(prim, ins, node, node.inputs, node.params)
        else:
            args = tuple(i.value if type(i) is Node else i for i in node.inputs)
            t = apply_jvp(prim, ins, node.value, args, node.params)
        if t is not None:
            tangents[id(node)] = t
    return tangents


def check_primals_and_tangents(primals: Any, tangents: Any, op: str) -> tuple[list[Any], list[Any]]:
    """Check that `primals` and `tangents` are tuples of one structure and shapes; flatten them.

    Raises:
        TypeError: If either is not a tuple (or list) with one entry per argument.
        TreeStructureError: If their structures differ.
        ShapeError: If a tangent's shape is not its primal's.
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            f"{op}: primals and tangents must be tuples (one entry per argument), "
            f"got {type(primals).__name__} and {type(tangents).__name__}; for one "
            f"argument write {op.rpartition('.')[2]}(f, (x,), (v,))"
        )
    p_leaves, p_def = tree_flatten(tuple(primals))
    t_leaves, t_def = tree_flatten(tuple(tangents))
    check_same_structure(p_def, t_def, op, ("primals", "tangents"))
    for p, t in zip(p_leaves, t_leaves, strict=True):
        _check_tangent(p, t, op)
    return p_leaves, t_leaves


def _check_tangent(p: Any, t: Any, op: str) -> None:
    p_shape = getattr(p, "shape", None)
    if p_shape is None:
        p_shape = as_value(p).shape
    t_shape = t.shape if hasattr(t, "shape") else as_value(t).shape
    if getattr(getattr(t, "dtype", None), "kind", "") == "c" or type(t) is complex:
        p = graph_output(p)  # a tensor: its node, or its value
        p_dtype = p.dtype if type(p) is Node else as_value(p).dtype
        if p_dtype.kind != "c":
            raise DtypeError(
                f"{op}: a complex tangent ({as_value(getattr(t, 'value', t)).dtype}) was "
                f"given for a real primal ({p_dtype}); a real input moves only along "
                f"real directions. Pass the tangent's real part, or make the primal complex"
            )
    if t_shape != p_shape:
        raise ShapeError(
            f"{op}: a tangent has shape {t_shape}, but its primal has shape "
            f"{p_shape}; each tangent must match its primal's shape"
        )


def _seed(v: Node, t: Any) -> Any:
    """The tangent `t` of the fresh variable `v`; a real one of a complex `v` made complex."""
    t = t if type(t) is Node else as_value(t)
    if v.dtype.kind == "c" and t.dtype.kind != "c":
        t = astype(t, dtype=v.dtype)
    return t


def _tangent_out(o: Any, tangents: dict[int, Any], create: bool) -> Any:
    if type(o) is not Node:
        value = as_value(o)
        return xp_of(value).zeros_like(value)
    t = tangents.get(id(o))
    if t is None:
        return xp_of(o.value).zeros_like(o.value)
    if type(t) is Node and not create:
        return t.value
    return t


def jvp(
    f: Callable[..., Any],
    primals: tuple[Any, ...],
    tangents: tuple[Any, ...],
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """Evaluate `f` and its directional derivative along `tangents` (forward mode).

    Args:
        f: The function; arguments and result may be pytrees of arrays.
        primals: A tuple with the point at which to differentiate (one entry
            per positional argument of `f`).
        tangents: A tuple of the same structure: the direction.
        has_aux: If true, `f` returns `(out, aux)` and `aux` is passed through.

    Returns:
        `(out, tangent_out)` (and `aux` with `has_aux`): `tangent_out = J v`,
        shaped like `out`.

    Raises:
        TreeStructureError: If `tangents` does not have the structure of `primals`.
        ShapeError: If a tangent's shape differs from its primal's.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.jvp(fnp.sin, (np.zeros(2),), (np.array([1.0, 2.0]),))
        (array([0., 0.]), array([1., 2.]))
    """
    op = "funcgrad.jvp"
    p_leaves, t_leaves = check_primals_and_tangents(primals, tangents, op)
    out, variables, _, nested = _trace_call(f, tuple(primals), {}, range(len(primals)), op)
    if has_aux:
        out, aux = out
    given = tree_flatten(out)[0]  # what f returned: tensors are given back as tensors
    out = tree_map(graph_output, out)
    fresh = [v for vs, _ in variables for v in vs]
    t_leaves = [graph_output(t) for t in t_leaves]  # a tensor: its node, or its value
    create = nested or any(type(t) is Node for t in t_leaves)
    seeds = {id(v): _seed(v, t) for v, t in zip(fresh, t_leaves, strict=True)}
    o_leaves, o_def = tree_flatten(out)
    roots = tuple(o for o in o_leaves if type(o) is Node)
    tangents_map = push_tangents(roots, seeds, create_graph=create)
    t_out = tree_unflatten(
        o_def,
        [
            _wrap_like(_tangent_out(o, tangents_map, create), g)
            for o, g in zip(o_leaves, given, strict=True)
        ],
    )
    primal_out = tree_flatten(_strip(out, nested))[0]
    result = (
        tree_unflatten(o_def, [_wrap_like(o, g) for o, g in zip(primal_out, given, strict=True)]),
        t_out,
    )
    if has_aux:
        return (*result, _strip(aux, nested))
    return result


def linearize(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """Evaluate `f` once and return a function that applies its Jacobian.

    The function is traced once; each call of the returned `f_jvp` only runs
    the forward sweep of tangents over the recorded graph.

    Args:
        f: The function.
        *primals: The point at which to linearize.

    Returns:
        `(out, f_jvp)` where `f_jvp(*tangents)` returns `J @ tangents`,
        shaped like `out`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> out, f_jvp = fg.linearize(lambda x: x * x, np.array([1.0, 3.0]))
        >>> f_jvp(np.array([1.0, 1.0]))
        array([2., 6.])
    """
    op = "funcgrad.linearize"
    p_leaves, p_def = tree_flatten(tuple(primals))
    out, variables, _, nested = _trace_call(f, tuple(primals), {}, range(len(primals)), op)
    out = tree_map(graph_output, out)
    fresh = [v for vs, _ in variables for v in vs]
    o_leaves, o_def = tree_flatten(out)
    roots = tuple(o for o in o_leaves if type(o) is Node)

    def f_jvp(*tangents: Any) -> Any:
        t_leaves, t_def = tree_flatten(tuple(tangents))
        check_same_structure(p_def, t_def, f"{op} (f_jvp)", ("primals", "tangents"))
        for p, t in zip(p_leaves, t_leaves, strict=True):
            _check_tangent(p, t, op)
        create = nested or _trace.depth() > 0 or any(type(t) is Node for t in t_leaves)
        seeds = {id(v): _seed(v, t) for v, t in zip(fresh, t_leaves, strict=True)}
        tangents_map = push_tangents(roots, seeds, create_graph=create)
        return tree_unflatten(o_def, [_tangent_out(o, tangents_map, create) for o in o_leaves])

    return _strip(out, nested), f_jvp
