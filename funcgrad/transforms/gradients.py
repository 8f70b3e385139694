"""Reverse-mode transforms of functions: `vjp`, `grad`, `value_and_grad`.

Each call makes a fresh variable for every differentiated argument, runs
the function on them (recording a graph), and walks that graph once with
`funcgrad.transforms.reverse.walk`. A fresh variable is a new leaf, or,
when the argument is already a node of an outer transform's graph, a new
`identity` node on top of it: the inner walk stops there, while the outer
one passes through it. That is what keeps `grad(lambda x: grad(lambda y:
x * y)(x))` from confusing the two `x`s.

Values of a layer above (a `funcgrad.Tensor`) take part through a protocol
on their type, so this module never imports that layer (as `torch.func`):
`__funcgrad_node__` (the node the value holds, or None),
`__funcgrad_wrap__(v)` (a value of that type holding `v`, a node or an
array) and `__funcgrad_recording__()` (a context manager under which the
layer records its operations, entered while `f` runs). A tensor that holds
a node is treated like a node of an outer transform: `f` gets a tensor on a
fresh `identity` of it, and the gradient comes back as a tensor on the same
graph, so `.backward()` from it reaches the original tensor.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy

from funcgrad.backend import as_value, freeze_result, is_inexact
from funcgrad.errors import DtypeError, NonScalarOutputError, ShapeError
from funcgrad.graph import Node, leaf
from funcgrad.graph.node import Array
from funcgrad.ops import astype, identity
from funcgrad.ops.registry import _PLAIN
from funcgrad.transforms import _trace
from funcgrad.transforms.pytree import (
    TreeDef,
    check_same_structure,
    tree_flatten,
    tree_map,
    tree_unflatten,
)
from funcgrad.transforms.reverse import (
    GradMap,
    check_cotangent_dtype,
    one_element,
    ones_seed,
    walk,
)

_ndarray = numpy.ndarray
# NOTE: the protocol's attributes are looked up on the type of every primal, output and
# gradient; on NumPy's types the lookup misses, which costs about as much as a small NumPy
# call (the AttributeError is made and dropped), so the plain types are tested first.
_NOT_LAYERED = _PLAIN | {Node}

# Per differentiated argument: its fresh variables and the primal leaves they stand for.
Variables = list[tuple[list[Node], list[Any]]]


# The structure of an argument that is a single array (or number): the common case.
_ONE_LEAF = tree_flatten(0.0)[1]


def _unflatten(treedef: TreeDef, leaves: list[Any]) -> Any:
    """`tree_unflatten`, without its loop for a single leaf (a few us per argument)."""
    return leaves[0] if treedef == _ONE_LEAF else tree_unflatten(treedef, leaves)


def _variable(x: Any, op: str, where: str) -> Node:
    """Return a fresh node standing for the primal `x`."""
    if type(x) is Node:
        fresh: Node = identity(x)
        return fresh
    value = as_value(x)
    if not is_inexact(value.dtype):
        raise DtypeError(
            f"{op}: {where} has dtype {value.dtype} (shape {value.shape}); "
            f"gradients are defined only for floating-point inputs. Pass "
            f"floats (3.0, not 3) or convert with x.astype(float)"
        )
    return leaf(value)


def _as_output(g: Any, primal: Any, nested: bool, seen: set[int]) -> Any:
    """Give a gradient back in the primal's own kind (float for float, node when nested).

    A primal of a layer above (a tensor) gets its gradient as a value of its
    own type (`__funcgrad_wrap__`), holding the gradient's node when nested.
    """
    if type(g) is Node:
        if not nested:
            g = _owned(g.value, seen)
    elif type(primal) is float:
        return float(g)
    elif type(primal) is complex:
        return complex(g)
    else:
        g = _owned(g, seen)
    t = type(primal)
    wrap = None if t in _NOT_LAYERED else getattr(t, "__funcgrad_wrap__", None)
    return g if wrap is None else wrap(g)


def _wrap_like(value: Any, like: Any) -> Any:
    """`value` (a node or an array) as a value of `like`'s type if that is a layer above's."""
    t = type(like)
    wrap = None if t in _NOT_LAYERED else getattr(t, "__funcgrad_wrap__", None)
    return value if wrap is None else wrap(value)


def _recording(values: Iterable[Any]) -> Any:
    """The context manager under which the layers of `values` record (`__funcgrad_recording__`)."""
    for v in values:
        t = type(v)
        recording = None if t in _NOT_LAYERED else getattr(t, "__funcgrad_recording__", None)
        if recording is not None:
            return recording()
    return contextlib.nullcontext()


def _strip(tree: Any, nested: bool) -> Any:
    """Replace nodes by their values unless an outer transform is tracing."""
    if nested:
        return tree
    return tree_map(lambda v: v.value if type(v) is Node else v, tree)


def _argnums(argnums: int | Sequence[int], nargs: int, op: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(
                f"{op}: argnums={argnums!r} asks for argument {i}, but the function "
                f"was called with {nargs} positional argument(s)"
            )
    return tuple(i % nargs for i in nums)


def graph_output(x: Any) -> Any:
    """Return what a transform differentiates when `f` returns `x`.

    A node as it is; a value of a layer above (a `funcgrad.Tensor`) as the
    node it holds (`__funcgrad_node__`), or its plain value if it has none.
    """
    t = type(x)
    if t is Node or t in _PLAIN:
        return x
    if hasattr(t, "__funcgrad_node__"):
        node = x.__funcgrad_node__
        return node if node is not None else as_value(x)
    return x


def _trace_call(
    f: Callable[..., Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    argnums: Iterable[int],
    op: str,
) -> tuple[Any, Variables, list[TreeDef], bool]:
    """Replace the selected arguments by fresh variables and run `f` on them."""
    nested = _trace.depth() > 0
    args = list(args)
    variables: Variables = []
    structures = []
    layered: list[Any] = []  # values of a layer above (tensors) among the primals
    for i in argnums:
        leaves, treedef = tree_flatten(args[i])
        fresh = []
        given = []
        for v in leaves:
            t = type(v)
            if t not in _NOT_LAYERED and hasattr(t, "__funcgrad_wrap__"):
                node = v.__funcgrad_node__
                x = _variable(node if node is not None else as_value(v), op, f"argument {i}")
                nested = nested or node is not None  # a tensor's graph is an outer one
                layered.append(v)
                fresh.append(x)
                given.append(t.__funcgrad_wrap__(x))  # f gets a value of its own type
            else:
                nested = nested or t is Node
                x = _variable(v, op, f"argument {i}")
                fresh.append(x)
                given.append(x)
        variables.append((fresh, leaves))
        structures.append(treedef)
        args[i] = _unflatten(treedef, given)
    with _trace.tracing():
        if layered:
            with _recording(layered):
                out = f(*args, **kwargs)
        else:
            out = f(*args, **kwargs)
    return out, variables, structures, nested


def _gradients(
    variables: Variables, structures: list[TreeDef], grads: GradMap, nested: bool
) -> list[Any]:
    result = []
    seen: set[int] = set()
    for (fresh, primals), treedef in zip(variables, structures, strict=True):
        gs = [_as_output(grads[v], p, nested, seen) for v, p in zip(fresh, primals, strict=True)]
        result.append(_unflatten(treedef, gs))
    return result


def _owned(g: Any, seen: set[int]) -> Any:
    """Return a gradient array the caller owns: writeable, and shared with nothing else.

    NOTE: the walk hands back whatever the rules made, and rules pass
    cotangents through when they can: `add` gives both inputs the same
    array, `sum` a read-only broadcast view, `reshape` a view. Returned as
    they are, `gx -= 1` could change `gy` as well, or fail on a read-only
    view of a value the graph holds. So a NumPy gradient that is read-only,
    a view, or already returned is copied; a fresh array (the usual case)
    is not.
    """
    if type(g) is _ndarray:
        if not g.flags.writeable or g.base is not None or id(g) in seen:
            g = g.copy()
        seen.add(id(g))
    return g


def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """Evaluate `f` and return its output with a function that pulls cotangents back.

    Args:
        f: The function; its arguments and result may be pytrees of arrays.
        *primals: The point at which to differentiate.
        has_aux: If true, `f` returns `(out, aux)` and only `out` is
            differentiated.

    Returns:
        `(out, vjp_fn)`, or `(out, vjp_fn, aux)` with `has_aux`. `vjp_fn(ct)`
        takes a cotangent shaped like `out` and returns a tuple with one
        cotangent per primal, each shaped like that primal. It can be called
        any number of times.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> out, vjp_fn = fg.vjp(lambda x: fnp.sin(x) * 2.0, np.zeros(2))
        >>> vjp_fn(np.array([1.0, 3.0]))
        (array([2., 6.]),)
    """
    op = "funcgrad.vjp"
    out, variables, structures, nested = _trace_call(f, primals, {}, range(len(primals)), op)
    if has_aux:
        out, aux = out
    given_leaves = tree_flatten(out)[0]
    out = tree_map(graph_output, out)
    out_leaves, out_def = tree_flatten(out)
    roots = [(i, o) for i, o in enumerate(out_leaves) if type(o) is Node]
    wrt = tuple(v for fresh, _ in variables for v in fresh)
    primal_out = tree_unflatten(
        out_def,
        [
            _wrap_like(v, g)
            for v, g in zip(tree_flatten(_strip(out, nested))[0], given_leaves, strict=True)
        ],
    )

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        ct_leaves, ct_def = tree_flatten(cotangent)
        ct_leaves = [graph_output(c) for c in ct_leaves]  # a tensor: its node, or its value
        check_same_structure(out_def, ct_def, f"{op} (vjp_fn)", ("output", "cotangent"))
        for o, c in zip(out_leaves, ct_leaves, strict=True):
            if type(c) is complex or getattr(getattr(c, "dtype", None), "kind", "") == "c":
                check_cotangent_dtype(as_value(_value_of(c)).dtype, _dtype(o), f"{op} (vjp_fn)")
            if getattr(c, "shape", ()) != getattr(o, "shape", ()):
                raise ShapeError(
                    f"{op} (vjp_fn): a cotangent has shape {getattr(c, 'shape', ())}, "
                    f"but the output it belongs to has shape {getattr(o, 'shape', ())}"
                )
        create = nested or _trace.depth() > 0 or any(type(c) is Node for c in ct_leaves)
        grads = walk(
            tuple(o for _, o in roots),
            tuple(_cotangent(ct_leaves[i], o) for i, o in roots),
            wrt,
            create_graph=create,
        )
        return tuple(_gradients(variables, structures, grads, create))

    if has_aux:
        return primal_out, vjp_fn, _strip(aux, nested)
    return primal_out, vjp_fn


def hvp_of_values(
    f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], op: str
) -> tuple[Any, ...] | None:
    """`H v` by two walks over one graph, when nothing traces: the fast path of `hvp`.

    `vjp(grad(f), *primals)` would make a leaf per primal, an `identity` node
    on it for `grad`'s variable, and flatten and check the pytrees twice; at
    the top level (no transform tracing, primals and tangents plain values)
    one leaf per primal, a `create_graph` walk and a first-order walk from the
    gradient nodes give the same numbers. Returns one entry per primal, or
    None when the general path is needed (nested, or tensors or nodes given).
    """
    if _trace.depth() > 0:
        return None
    flat = [tree_flatten(p) for p in primals]  # each pytree flattened once (a few us each)
    t_leaves = tree_flatten(tuple(tangents))[0]
    for v in (*(v for leaves, _ in flat for v in leaves), *t_leaves):
        t = type(v)
        if t is Node or (t not in _PLAIN and hasattr(t, "__funcgrad_node__")):
            return None
    args = list(primals)
    variables: Variables = []
    structures = []
    for i, (leaves, treedef) in enumerate(flat):
        fresh = [_variable(v, op, f"argument {i}") for v in leaves]
        variables.append((fresh, leaves))
        structures.append(treedef)
        args[i] = _unflatten(treedef, fresh)
    with _trace.tracing():
        out = graph_output(f(*args))
    wrt = tuple(v for fresh, _ in variables for v in fresh)
    if type(out) is Node:
        if not one_element(out.shape):
            raise NonScalarOutputError(
                f"{op}: f must return a scalar, but returned shape {out.shape} "
                f"(dtype {out.dtype}); hvp differentiates a scalar function twice"
            )
        _check_grad_dtypes(out, variables, False, op)
        seed = freeze_result(ones_seed(out.value, out.dtype))  # taken as is
        first = walk((out,), (seed,), wrt, create_graph=True)
        roots, cts = [], []
        for v, t in zip(wrt, t_leaves, strict=True):
            g = first[v]
            if type(g) is Node:  # a constant gradient has no second derivative
                roots.append(g)
                cts.append(_cotangent(t, g))
        grads = walk(roots, cts, wrt)
    else:
        _check_constant_output(out, op)
        grads = walk((), (), wrt)
    return tuple(_gradients(variables, structures, grads, False))


def _cotangent(c: Any, out: Any) -> Array:
    c = c if type(c) is Node else as_value(c)
    if c.dtype.kind != "c" and _dtype(out).kind == "c":
        c = astype(c, dtype=_dtype(out))  # a real cotangent of a complex output
    return c


def _value_of(x: Any) -> Any:
    return x.value if type(x) is Node else x


def _dtype(x: Any) -> Any:
    return x.dtype if type(x) is Node else as_value(x).dtype


def value_and_grad(
    f: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    argnum: int | Sequence[int] | None = None,
) -> Callable[..., Any]:
    """Return a function that computes `f` and its gradient together.

    Args:
        f: Function to differentiate. It must return a scalar (shape `()`).
        argnums: Position(s) of the argument(s) to differentiate.
        argnum: HIPS autograd's name for `argnums` (keyword only), so that
            `grad(f, argnum=1)` ports by changing the import.
        has_aux: If true, `f` returns `(value, aux)`; only `value` is
            differentiated and `aux` is passed through.
        holomorphic: If true, `f` is holomorphic: complex inputs, a complex
            output, and the gradient is its complex derivative (as in JAX).

    Returns:
        A function with `f`'s signature returning `(value, gradient)` (or
        `((value, aux), gradient)`); the gradient is shaped like the selected
        argument (a tuple of them if `argnums` is a sequence).

    Raises:
        NonScalarOutputError: If `f` returns more than one element (a scalar,
            or a one-element array as HIPS autograd takes, is differentiated).
        DtypeError: If `f` returns a complex value (without `holomorphic`).

    Examples:
        >>> import funcgrad as fg
        >>> fg.value_and_grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 5.0)
        (np.float64(10.0), (5.0, 2.0))
    """
    argnums = autograd_argnum(argnums, argnum, "funcgrad.value_and_grad")
    return _value_and_grad(f, argnums, has_aux, "funcgrad.value_and_grad", holomorphic)


def autograd_argnum(
    argnums: int | Sequence[int], argnum: int | Sequence[int] | None, op: str
) -> int | Sequence[int]:
    """`argnums`, or autograd's keyword `argnum` when it is given instead."""
    if argnum is None:
        return argnums
    if argnums != 0:
        raise TypeError(f"{op}: give argnums={argnums!r} or argnum={argnum!r}, not both")
    return argnum


def _value_and_grad(
    f: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool,
    op: str,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """`value_and_grad`, with `op` (the transform the user called) named in errors."""

    @functools.wraps(f)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args), op)
        out, variables, structures, nested = _trace_call(f, args, kwargs, nums, op)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                got = f"a {type(out).__name__}" + (
                    f" of {len(out)}" if isinstance(out, (tuple, list)) else ""
                )
                raise TypeError(
                    f"{op}: with has_aux=True, f must return a pair (value, aux), but it "
                    f"returned {got}"
                )
            out, aux = out
        given = out
        out = graph_output(out)
        wrt = tuple(v for fresh, _ in variables for v in fresh)
        if type(out) is Node:
            if not one_element(out.shape):
                raise NonScalarOutputError(
                    f"{op}: f must return a scalar, but returned shape {out.shape} "
                    f"(dtype {out.dtype}). Reduce it (out.sum()), or use "
                    f"funcgrad.vjp or funcgrad.jacobian for non-scalar outputs"
                )
            _check_grad_dtypes(out, variables, holomorphic, op)
            seed = ones_seed(out.value, out.dtype)
            grads = walk((out,), (seed,), wrt, create_graph=nested)
            value = _wrap_like(out if nested else out.value, given)
        else:
            value = _check_constant_output(out, op)
            grads = walk((), (), wrt)
        g: Any = _gradients(variables, structures, grads, nested)
        g = g[0] if isinstance(argnums, int) else tuple(g)
        if has_aux:
            return (value, _strip(aux, nested)), g
        return value, g

    return value_and_grad_f


def _check_grad_dtypes(out: Node, variables: Variables, holomorphic: bool, op: str) -> None:
    """JAX's rule: `grad` needs a real output, or complex ones throughout with `holomorphic`."""
    if holomorphic:
        for fresh, _ in variables:
            for v in fresh:
                if v.dtype.kind != "c":
                    raise DtypeError(
                        f"{op}: with holomorphic=True, the differentiated inputs must be "
                        f"complex, but one has dtype {v.dtype} (shape {v.shape}); convert "
                        f"it (x.astype(complex)) or drop holomorphic=True"
                    )
        if out.dtype.kind != "c":
            raise DtypeError(
                f"{op}: with holomorphic=True, f must return a complex scalar, but "
                f"returned dtype {out.dtype}"
            )
    elif out.dtype.kind not in "fiub":
        raise DtypeError(
            f"{op}: f must return a real-valued scalar (a floating-point dtype), but "
            f"returned dtype {out.dtype}. As in JAX, grad requires real-valued outputs: "
            f"take the real part, abs or abs**2 first; for the complex derivative of a "
            f"holomorphic f pass holomorphic=True; for other complex outputs use "
            f"funcgrad.vjp directly"
        )


def _check_constant_output(out: Any, op: str) -> Any:
    if isinstance(out, (tuple, list, dict)):
        # NOTE: a pytree is not read as an array (a tuple of nodes would become
        # an array of their values, and the gradient would silently be zero).
        raise TypeError(
            f"{op}: f must return a scalar (an array of shape ()), but returned a "
            f"{type(out).__name__} of {len(out)}. Return the one value to differentiate; "
            f"pass other results out with has_aux=True (f returns (value, aux)), or use "
            f"funcgrad.vjp or funcgrad.jacobian for several outputs"
        )
    value = as_value(out) if not isinstance(out, (str, bytes)) else None
    if value is None or value.dtype == object:
        raise TypeError(f"{op}: f must return a scalar array or a number, got {type(out).__name__}")
    if not one_element(value.shape):
        raise NonScalarOutputError(
            f"{op}: f must return a scalar, but returned shape {value.shape} (dtype "
            f"{value.dtype}). Reduce it (out.sum()), or use funcgrad.vjp or "
            f"funcgrad.jacobian for non-scalar outputs"
        )
    return out


def grad(
    f: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    *,
    argnum: int | Sequence[int] | None = None,
) -> Callable[..., Any]:
    """Return a function that computes the gradient of `f`.

    Args:
        f: Function to differentiate. It must return a scalar (shape `()`).
        argnums: Position(s) of the argument(s) to differentiate.
        argnum: HIPS autograd's name for `argnums` (keyword only), so that
            `grad(f, argnum=1)` ports by changing the import.
        has_aux: If true, `f` returns `(value, aux)`; only `value` is
            differentiated and the function returns `(gradient, aux)`.
        holomorphic: If true, `f` is holomorphic: complex inputs, a complex
            output, and the gradient is its complex derivative `f'(z)` (as in
            JAX).

    Returns:
        A function with `f`'s signature returning gradients shaped like the
        selected arguments (pytrees if they are pytrees). A Python float
        argument gets a Python float gradient; an argument the output does
        not depend on gets zeros. For a complex argument of a real `f`, the
        gradient is the conjugate of the direction of steepest ascent,
        `df/dx - 1j * df/dy` (JAX's and HIPS autograd's convention; see the
        complex numbers page of the docs).

    Raises:
        NonScalarOutputError: If `f` returns more than one element (a scalar,
            or a one-element array as HIPS autograd takes, is differentiated).
        DtypeError: If a differentiated argument is not floating point or
            complex, or `f` returns a complex value (without `holomorphic`).

    Examples:
        >>> import funcgrad as fg
        >>> fg.grad(lambda x: x * x)(3.0)
        6.0
        >>> fg.grad(fg.grad(lambda x: x ** 3))(2.0)
        12.0
        >>> fg.grad(lambda z: abs(z) ** 2)(1 + 1j)
        (2-2j)
        >>> fg.grad(lambda z: z * z, holomorphic=True)(1 + 1j)
        (2+2j)
    """
    argnums = autograd_argnum(argnums, argnum, "funcgrad.grad")
    vg = _value_and_grad(f, argnums, has_aux, "funcgrad.grad", holomorphic)

    @functools.wraps(f)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = vg(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g

    return grad_f
