"""User-defined differentiation rules: `custom_vjp` and `custom_jvp`.

A function decorated with either becomes, when called on graph nodes, one
node per output leaf whose rules are the user's. The other mode is derived
by linearity, so both modes always work:

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
from collections.abc import Callable

from funcgrad.backend import freeze, xp_of
from funcgrad.errors import NotDifferentiableError, ShapeError, TreeStructureError
from funcgrad.graph import Node, leaf, make_node
from funcgrad.ops._util import value_of
from funcgrad.ops.registry import Primitive, Sample, register
from funcgrad.transforms import _trace
from funcgrad.transforms.reverse import walk
from funcgrad.transforms.pytree import tree_flatten, tree_map, tree_unflatten


def _name(fn) -> str:
    return getattr(fn, "__name__", repr(fn))


def _zeros_like_value(v):
    v = value_of(v)
    return xp_of(v).zeros_like(v)


def _outputs_as_nodes(prim, out_value_tree, inputs, params):
    """Make one node per output leaf (nodes have one value each)."""
    leaves, out_def = tree_flatten(out_value_tree)
    avals = tuple((value_of(v).shape, value_of(v).dtype) for v in leaves)
    nodes = []
    for j, v in enumerate(leaves):
        p = {**params, "index": j, "out_def": out_def, "avals": avals}
        nodes.append(make_node(prim, inputs, p, freeze(value_of(v))))
    return tree_unflatten(out_def, nodes)


def _one_hot_cotangent(ct, index, out_def, avals):
    """The cotangent of the whole output tree: `ct` at leaf `index`, zeros elsewhere."""
    cts = [ct if j == index else xp_of(value_of(ct)).zeros(shape, dtype=dtype)
           for j, (shape, dtype) in enumerate(avals)]
    return tree_unflatten(out_def, cts)


def _check_rule_result(result, args_def, arg_leaves, fn_name, what):
    """Check a user rule's per-argument result against the arguments; flatten it."""
    n_args = args_def.nodes[0][2]
    if not isinstance(result, (tuple, list)) or len(result) != n_args:
        got = len(result) if isinstance(result, (tuple, list)) else type(result).__name__
        raise ShapeError(
            f"funcgrad.custom_vjp: the {what} rule of {fn_name!r} must return a tuple "
            f"with one entry per positional argument ({n_args}), got {got}"
        )
    try:
        flat, r_def = tree_flatten(tuple(result), is_leaf=lambda x: x is None)
    except TreeStructureError:
        raise
    if len(flat) != len(arg_leaves):
        raise ShapeError(
            f"funcgrad.custom_vjp: the {what} rule of {fn_name!r} returned a structure "
            f"with {len(flat)} arrays for arguments with {len(arg_leaves)}"
        )
    for i, (c, a) in enumerate(zip(flat, arg_leaves)):
        if c is None:
            continue
        a_shape = getattr(value_of(a), "shape", ())
        if getattr(c, "shape", ()) != a_shape:
            raise ShapeError(
                f"funcgrad.custom_vjp: the {what} rule of {fn_name!r} returned shape "
                f"{getattr(c, 'shape', ())} for argument leaf {i}, which has shape {a_shape}"
            )
        a_dtype = getattr(value_of(a), "dtype", None)
        c_dtype = getattr(value_of(c), "dtype", None)
        # NOTE: another float dtype is cast back by the engine (float32 stays
        # float32); an integer or boolean cotangent is a bug in the rule.
        if a_dtype is not None and c_dtype is not None and c_dtype.kind not in "fc":
            raise ShapeError(
                f"funcgrad.custom_vjp: the {what} rule of {fn_name!r} returned dtype "
                f"{c_dtype} for argument leaf {i}, which has dtype {a_dtype}; return "
                f"floating-point cotangents (ct.astype({str(a_dtype)!r}))"
            )
    return flat


# --- custom_vjp ----------------------------------------------------------------

_local = threading.local()


def _in_fwd() -> set:
    """The custom_vjp functions whose fwd rule is running in this thread."""
    active = getattr(_local, "active", None)
    if active is None:
        active = _local.active = set()
    return active


def _custom_vjp_forward(xp, *leaves, fn, args_def, index, out_def, avals, residuals):
    out = fn.fun(*tree_unflatten(args_def, leaves))
    return value_of(tree_flatten(out)[0][index])


def _custom_vjp_vjp(ct, out, *leaves, fn, args_def, index, out_def, avals, residuals):
    create = type(out) is Node
    res = residuals if create else tree_map(value_of, residuals)
    result = fn.bwd(res, _one_hot_cotangent(ct, index, out_def, avals))
    return _check_rule_result(result, args_def, leaves, _name(fn.fun), "bwd")


def _custom_vjp_jvp(tangents, out, *leaves, **params):
    # J t = d/du <bwd(res, u), t>: the backward rule is linear in u.
    create = type(out) is Node
    u = leaf(_zeros_like_value(out))
    try:
        with _trace.tracing():
            cts = _custom_vjp_vjp(u, out if create else u, *leaves, **params)
            total = None
            for c, t in zip(cts, tangents):
                if c is None or t is None:
                    continue
                term = (c * t).sum()
                total = term if total is None else total + term
    except TypeError as e:
        raise NotDifferentiableError(
            f"funcgrad.custom_vjp: forward mode (jvp, jacfwd, hessian) needs the bwd "
            f"rule of {_name(params['fn'].fun)!r} to be written with funcgrad.numpy "
            f"(it is transposed to get the JVP), but it failed on a graph node: {e}. "
            f"Write bwd with funcgrad.numpy, use reverse mode only (jacrev, "
            f"jacrev(jacrev(f)) for Hessians), or use funcgrad.custom_jvp"
        ) from e
    if type(total) is not Node:
        return None  # the rule ignores its cotangent: zero derivative
    return walk((total,), (xp_of(total.value).ones((), total.dtype),), (u,),
                create_graph=create)[u]


def _custom_vjp_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    y = g.array(x.shape, -2.0, 2.0)
    f = _SAMPLE_VJP
    out = f.fun(x, y)
    leaves, args_def = tree_flatten((x, y))
    _, out_def = tree_flatten(out)
    return (x, y), {"fn": f, "args_def": args_def, "index": 0, "out_def": out_def,
                    "avals": ((out.shape, out.dtype),), "residuals": (x, y)}


custom_vjp_call = register(Primitive(
    name="custom_vjp_call",
    forward=_custom_vjp_forward,
    vjp=_custom_vjp_vjp,
    jvp=_custom_vjp_jvp,
    params=("fn", "args_def", "index", "out_def", "avals", "residuals"),
    sample=Sample(_custom_vjp_sample),
    doc="a function with a user-defined VJP (funcgrad.custom_vjp)",
))


class custom_vjp:
    """Give a function your own reverse-mode rule (as `jax.custom_vjp`).

    Decorate `f`, then call `f.defvjp(fwd, bwd)`:
    `fwd(*args) -> (out, residuals)` computes the output and whatever the
    backward rule needs; `bwd(residuals, ct) -> tuple` returns one cotangent
    per positional argument (shaped like it, or `None` for zero).

    Forward mode (`jvp`, `jacfwd`, `hessian`) works too when `bwd` is
    written with `funcgrad.numpy`: the JVP is the transpose of `bwd`.

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

    def __init__(self, fun: Callable):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> custom_vjp:
        """Set the forward rule `fwd(*args) -> (out, res)` and backward rule `bwd(res, ct)`."""
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args):
        leaves, args_def = tree_flatten(args)
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
        return _outputs_as_nodes(custom_vjp_call, tree_map(value_of, out), tuple(leaves),
                                 {"fn": self, "args_def": args_def, "residuals": residuals})


def _sample_f(x, y):
    from funcgrad import numpy as fnp

    return fnp.sin(x) * y


def _sample_fwd(x, y):

    return _sample_f(x, y), (x, y)


def _sample_bwd(res, ct):
    from funcgrad import numpy as fnp

    x, y = res
    return ct * fnp.cos(x) * y, ct * fnp.sin(x)


_SAMPLE_VJP = custom_vjp(_sample_f).defvjp(_sample_fwd, _sample_bwd)


# --- custom_jvp ----------------------------------------------------------------

def _custom_jvp_forward(xp, *leaves, fn, args_def, index, out_def, avals):
    out = fn.fun(*tree_unflatten(args_def, leaves))
    return value_of(tree_flatten(out)[0][index])


def _custom_jvp_jvp(tangents, out, *leaves, fn, args_def, index, out_def, avals):
    ts = [t if t is not None else _zeros_like_value(a) for t, a in zip(tangents, leaves)]
    primals = tree_unflatten(args_def, leaves)
    result = fn.jvp_rule(tuple(primals), tuple(tree_unflatten(args_def, ts)))
    if not (isinstance(result, tuple) and len(result) == 2):
        raise ShapeError(
            f"funcgrad.custom_jvp: the JVP rule of {_name(fn.fun)!r} must return a pair "
            f"(out, tangent_out)"
        )
    t_leaves = tree_flatten(result[1])[0]
    if len(t_leaves) != len(avals):
        raise ShapeError(
            f"funcgrad.custom_jvp: the JVP rule of {_name(fn.fun)!r} returned "
            f"{len(t_leaves)} tangents for {len(avals)} outputs"
        )
    t = t_leaves[index]
    if getattr(t, "shape", ()) != avals[index][0]:
        raise ShapeError(
            f"funcgrad.custom_jvp: the JVP rule of {_name(fn.fun)!r} returned a tangent "
            f"of shape {getattr(t, 'shape', ())} for an output of shape {avals[index][0]}"
        )
    return t


def _custom_jvp_vjp(ct, out, *leaves, **params):
    # J^T u = d/dt <u, J t>: the JVP rule is linear in t.
    create = type(out) is Node
    ts = tuple(leaf(_zeros_like_value(a)) if type(a) is Node or _is_float(a) else None
               for a in leaves)
    try:
        with _trace.tracing():
            t_out = _custom_jvp_jvp(ts, out, *leaves, **params)
            total = (t_out * ct).sum() if type(t_out) is Node else None
    except TypeError as e:
        raise NotDifferentiableError(
            f"funcgrad.custom_jvp: reverse mode (grad, vjp) needs the JVP rule of "
            f"{_name(params['fn'].fun)!r} to be written with funcgrad.numpy (it is "
            f"transposed to get the VJP), but it failed on a graph node: {e}"
        ) from e
    if total is None:
        return tuple(None for _ in leaves)
    wrt = tuple(t for t in ts if t is not None)
    grads = walk((total,), (xp_of(total.value).ones((), total.dtype),), wrt,
                 create_graph=create)
    return tuple(grads[t] if t is not None else None for t in ts)


def _is_float(a) -> bool:
    return getattr(value_of(a), "dtype", None) is not None and value_of(a).dtype.kind == "f"


def _custom_jvp_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    f = _SAMPLE_JVP
    out = f.fun(x)
    _, args_def = tree_flatten((x,))
    _, out_def = tree_flatten(out)
    return (x,), {"fn": f, "args_def": args_def, "index": 0, "out_def": out_def,
                  "avals": ((out.shape, out.dtype),)}


custom_jvp_call = register(Primitive(
    name="custom_jvp_call",
    forward=_custom_jvp_forward,
    vjp=_custom_jvp_vjp,
    jvp=_custom_jvp_jvp,
    params=("fn", "args_def", "index", "out_def", "avals"),
    sample=Sample(_custom_jvp_sample),
    doc="a function with a user-defined JVP (funcgrad.custom_jvp)",
))


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

    def __init__(self, fun: Callable):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.jvp_rule: Callable | None = None

    def defjvp(self, rule: Callable) -> Callable:
        """Set the JVP rule `rule(primals, tangents) -> (out, tangent_out)`; returns `rule`."""
        self.jvp_rule = rule
        return rule

    def __call__(self, *args):
        leaves, args_def = tree_flatten(args)
        if not any(type(v) is Node for v in leaves):
            return self.fun(*args)
        if self.jvp_rule is None:
            raise TypeError(
                f"funcgrad.custom_jvp: {_name(self.fun)!r} has no rule yet; decorate one "
                f"with @{_name(self.fun)}.defjvp before differentiating it"
            )
        out = self.fun(*tree_unflatten(args_def, [value_of(v) for v in leaves]))
        return _outputs_as_nodes(custom_jvp_call, out, tuple(leaves),
                                 {"fn": self, "args_def": args_def})


def _sample_g(x):
    from funcgrad import numpy as fnp

    return fnp.tanh(x) * x


_SAMPLE_JVP = custom_jvp(_sample_g)


@_SAMPLE_JVP.defjvp
def _sample_g_jvp(primals, tangents):
    from funcgrad import numpy as fnp

    (x,), (t,) = primals, tangents
    y = fnp.tanh(x)
    return y * x, t * ((1.0 - y * y) * x + y)

