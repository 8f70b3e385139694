"""Reverse mode: walk a graph from its outputs back to its leaves.

The idea (as in Autodidact and HIPS autograd): visit the nodes in reverse
topological order, so that when a node is visited every node that uses it
has already passed it its share of the cotangent. At each node, apply the
primitive's VJP rule once per input that needs a gradient, sum what each
input receives, and forget a node's cotangent as soon as it has been
passed on (peak memory stays near the forward values).

Nothing is mutated: the result is a new, immutable `GradMap`.

Two modes share this one walk:

* first order (`create_graph=False`): rules run on the nodes' plain arrays,
  so no graph is built and a backward pass costs little more than the
  NumPy calls in it;
* `create_graph=True`: rules run on the nodes themselves, so every
  gradient is a new node of the same graph and can be differentiated
  again (`grad(grad(f))`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import compress
from operator import attrgetter, not_
from typing import Any, NoReturn

import numpy

from funcgrad.backend import as_value, xp_of
from funcgrad.backend.versions import write_checker
from funcgrad.errors import DtypeError, NonScalarOutputError, ShapeError
from funcgrad.graph import Node, toposort
from funcgrad.graph.node import Array
from funcgrad.ops import astype, broadcast_to, guard, observe, reshape, sum_
from funcgrad.ops.elementwise import real
from funcgrad.ops.registry import Primitive
from funcgrad.transforms.hooks import Hook, checked_hook, hook_scope

_ndarray = numpy.ndarray
_generic = numpy.generic
_np_array = numpy.array
_add_reduce = numpy.add.reduce
_float64 = numpy.float64
_vdot = numpy.vdot
_isfinite = math.isfinite

# Hooks as callers give them: `{node: fn or fns}`, or `(node, fns)` pairs (a `hook_scope`'s table).
Hooks = Mapping[Node, Hook | Iterable[Hook]] | Iterable[tuple[Node, Hook | Iterable[Hook]]]
# Hooks as the walk looks them up: `{id(node): (fn, ...)}`.
HookTable = dict[int, tuple[Hook, ...]]


class GradMap(Mapping[Node, Any]):
    """An immutable mapping from graph nodes to their gradients.

    Returned by `backward`. Index it with a node (`grads[x]`); nodes asked
    for through `wrt` that the output does not depend on map to zeros.

    It is data: `copy.copy` shares the gradient arrays, `copy.deepcopy`
    copies them (keyed by the same nodes, which are immutable), and `pickle`
    works; pickled nodes come back as new leaves holding their values, so
    pickle a GradMap together with the nodes you will index it with
    (`pickle.dumps((x, grads))`).

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf(3.0)
        >>> grads = fg.backward(x * x)
        >>> grads[x]
        np.float64(6.0)
        >>> len(grads)
        1
    """

    __slots__ = ("_grads",)
    _grads: dict[Node, Any]

    def __init__(self, grads: dict[Node, Any]):
        object.__setattr__(self, "_grads", grads)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("funcgrad.GradMap is immutable")

    def __setitem__(self, node: object, value: object = None) -> NoReturn:
        raise TypeError(
            "funcgrad.GradMap is immutable: backward returns a new mapping and changes "
            "nothing; build a dict (dict(grads)) if you need to change entries"
        )

    def __delitem__(self, node: object) -> NoReturn:
        self.__setitem__(node)

    def __getitem__(self, node: Node) -> Any:
        try:
            return self._grads[node]
        except KeyError:
            raise KeyError(
                f"funcgrad.GradMap: no gradient for {node!r}; the output does "
                f"not depend on it. Pass it in wrt= to get zeros."
            ) from None

    def __iter__(self) -> Iterator[Node]:
        return iter(self._grads)

    def __len__(self) -> int:
        return len(self._grads)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k!r}: {_short(v)}" for k, v in self._grads.items())
        return f"GradMap({{{inner}}})"

    def __copy__(self) -> GradMap:
        """Return a new GradMap with the same nodes and gradient arrays."""
        return GradMap(dict(self._grads))

    def __deepcopy__(self, memo: dict[int, Any]) -> GradMap:
        """Return a new GradMap with copies of the gradients, keyed by the same nodes."""
        return GradMap(copy.deepcopy(self._grads, memo))

    def __reduce__(self) -> tuple[Any, tuple[dict[Node, Any]]]:
        """Pickle as a dict: the nodes come back as leaves holding their values."""
        return (GradMap, (dict(self._grads),))


_new_gradmap = object.__new__
_set_grads = GradMap._grads.__set__  # type: ignore[attr-defined]  # the slot's descriptor


def _short(v: Any) -> str:
    return repr(v) if type(v) is Node else f"array(shape={getattr(v, 'shape', ())})"


def backward(
    out: Node,
    cotangent: Array | None = None,
    wrt: Iterable[Node] | None = None,
    *,
    create_graph: bool = False,
    hooks: Mapping[Node, Hook | Iterable[Hook]] | None = None,
) -> GradMap:
    """Differentiate `out` with respect to the nodes of its graph.

    Pure: the graph is not changed, and calling `backward` again on the same
    graph gives the same result (no `retain_graph` needed).

    Args:
        out: The output node.
        cotangent: The vector to multiply the Jacobian with from the left
            (shaped like `out`). May be omitted only when `out` is a scalar.
        wrt: The nodes to differentiate with respect to (leaves or inner
            nodes). If omitted, every leaf `out` depends on.
        create_graph: If true, gradients are themselves nodes that can be
            differentiated again.
        hooks: `{node: fn}` or `{node: [fn, ...]}`, for this pass only: the
            total cotangent of `node` is given to each `fn` in turn, which
            returns a replacement of the same shape and dtype (or `None` to
            keep it), before it is passed on or returned. With
            `create_graph`, what the hooks compute is recorded.

    Returns:
        A `GradMap` from each node of `wrt` (or each leaf) to its gradient,
        which has the node's shape and dtype.

    Raises:
        NonScalarOutputError: If `out` has more than one element and no
            cotangent is given.
        ShapeError: If the cotangent's shape is not `out`'s shape.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> x = fg.leaf([0.0, 1.0])
        >>> y = fnp.sum(fnp.exp(x))
        >>> fg.backward(y)[x]
        array([1.        , 2.71828183])
        >>> fg.backward(y, hooks={x: lambda ct: 2 * ct})[x]
        array([2.        , 5.43656366])
    """
    if type(out) is not Node:
        raise TypeError(
            f"funcgrad.backward: out must be a graph node, got {type(out).__name__}; "
            f"build it from funcgrad.leaf values with funcgrad.numpy functions"
        )
    ct = _seed(out, cotangent, "funcgrad.backward")
    if wrt is not None:
        wrt = tuple(wrt)
        for k, node in enumerate(wrt):
            if type(node) is not Node:
                raise TypeError(
                    f"funcgrad.backward: wrt[{k}] is a {type(node).__name__}, not a graph "
                    f"node; pass the nodes made by funcgrad.leaf (or any node of the graph)"
                )
    checked: Hooks | None = None
    if hooks:  # checked once here, naming this entry point; the walk calls them as they are
        checked = [
            (node, [checked_hook(fn, "funcgrad.backward: the hook") for fn in _as_tuple(fns)])
            for node, fns in hooks.items()
        ]
    return walk((out,), (ct,), wrt, create_graph=create_graph, hooks=checked)


def one_element(shape: tuple[int, ...]) -> bool:
    """Whether an output of `shape` has an implicit cotangent (ones): a scalar or one element.

    HIPS autograd's `grad` and PyTorch's `backward()` take a (1,) or (1, 1)
    output as a scalar; JAX's `grad` wants shape ().
    """
    return all(d == 1 for d in shape)


def _seed(out: Node, cotangent: Array | None, op: str) -> Array:
    if cotangent is None:
        if not one_element(out.shape):
            raise NonScalarOutputError(
                f"{op}: the output has shape {out.shape}, and a gradient can be "
                f"implicitly created only for a scalar output. Reduce it first "
                f"(out.sum()), pass a cotangent of shape {out.shape}, or use "
                f"funcgrad.jacobian for the full Jacobian"
            )
        if out.dtype.kind == "c":
            raise DtypeError(
                f"{op}: the output is complex ({out.dtype}, shape {out.shape}), and a "
                f"gradient can be implicitly created only for a real scalar output. Take "
                f"the real part, abs or abs**2 first, or pass a cotangent (1.0 "
                f"differentiates the real part)"
            )
        return ones_seed(out.value, out.dtype)
    if type(cotangent) is not Node:
        cotangent = as_value(cotangent)
    check_cotangent_dtype(cotangent.dtype, out.dtype, op)
    if cotangent.shape != out.shape:
        raise ShapeError(
            f"{op}: the cotangent has shape {cotangent.shape}, but the output "
            f"has shape {out.shape}; they must match"
        )
    if out.dtype.kind == "c" and cotangent.dtype.kind != "c":
        cotangent = astype(cotangent, dtype=out.dtype)  # zero imaginary parts
    return cotangent


def ones_seed(value: Any, dtype: Any) -> Array:
    """Return the implicit cotangent of an output holding `value`: ones of its shape and `dtype`.

    On `value`'s device (NumPy or CuPy). A 0-d NumPy one (a scalar output, the
    usual case) is made by `numpy.array` in C: `numpy.ones` is a Python function
    that costs several times more (the same array: 0-d, writeable, its own memory).
    """
    if type(value) is _ndarray or isinstance(value, _generic):
        if not value.ndim:
            return _np_array(1, dtype=dtype)
    return xp_of(value).ones(value.shape, dtype=dtype)


def check_cotangent_dtype(ct_dtype: Any, out_dtype: Any, op: str) -> None:
    """Refuse a complex cotangent for a real output (JAX refuses it too).

    A real cotangent of a complex output is fine: it is a complex one with
    zero imaginary parts (the engine casts it).

    Raises:
        DtypeError: If `ct_dtype` is complex and `out_dtype` is not.
    """
    if ct_dtype.kind == "c" and out_dtype.kind != "c":
        raise DtypeError(
            f"{op}: a complex cotangent ({ct_dtype}) was given for a real output "
            f"({out_dtype}); a real output's cotangent is real (see the complex numbers "
            f"page of the docs). Pass its real part, or make the output complex"
        )


def walk(
    roots: Sequence[Node],
    cotangents: Sequence[Array],
    wrt: Sequence[Node] | None,
    *,
    create_graph: bool = False,
    order: list[Node] | None = None,
    hooks: Hooks | None = None,
) -> GradMap:
    """Run the backward pass from several roots at once (the engine of `backward`).

    The result depends on the arguments only: hooks are passed in (or are
    part of the graph, as `with_hooks` scopes), never looked up elsewhere.

    Args:
        roots: Output nodes.
        cotangents: One cotangent per root, shaped like it.
        wrt: Nodes to return gradients for, or None for every leaf reached.
        create_graph: Run the rules on nodes, so gradients are nodes.
        order: `toposort(*roots)`, if the caller has it already.
        hooks: `{node: fns}`: each node's total cotangent passes through its
            hook functions (in order) before it is used or returned. Each
            returns the cotangent to use, checked already (`checked_hook`).

    Returns:
        The `GradMap` of gradients.
    """
    if order is None:
        order = toposort(*roots)
    wanted = None if wrt is None else set(wrt)
    needed = None if wanted is None else _needed_if_pruning(order, wanted)
    hooked = _hook_table(hooks) if hooks else None
    scopes: set[int] = set()  # the with_hooks tables already applied
    observers = observe.current()
    check = write_checker()  # CuPy debug mode: values unchanged since recorded

    # Cotangents received so far, keyed by node (nodes hash by identity); each is popped
    # when its node is visited, so memory holds only the "frontier" of the walk.
    cts: dict[Node, object] = {}
    for root, ct in zip(roots, cotangents, strict=True):
        cts[root] = cts[root] + ct if root in cts else ct
    pop = cts.pop
    grads: dict[Node, object] = {}

    for node in reversed(order):
        ct = pop(node, None)
        if ct is None:
            continue  # nothing reached this node (or only zeros did)
        # 1. The node's cotangent is complete: hooks see (and may replace) it.
        if hooked is not None and id(node) in hooked:
            for fn in hooked[id(node)]:
                ct = fn(ct)
        prim = node.prim
        # 2. Report it if asked for; a leaf ends the path here.
        if wanted is None:
            if prim is None:
                grads[node] = ct
        elif node in wanted:
            grads[node] = ct
        if prim is None:
            continue
        if prim is hook_scope:  # with_hooks: its hooks apply from here on
            hooked, scopes = _enter_scope(node.params["hooks"], hooked, scopes)
        if check is not None:
            check(prim.name, node.value, *[_value(i) for i in node.inputs])
        if observers:
            tokens = [ob.before_vjp(node) for ob in observers]

        # 3. Apply the VJP rules: on nodes (create_graph) or on their values.
        inputs = node.inputs
        params = node.params
        args: Sequence[Any]  # an annotation: no code runs for it
        if create_graph:
            out, args = node, inputs
        else:  # the values; constants as they are (inlined: the hot path)
            out = node.value
            if len(inputs) == 1:
                args = (inputs[0].value,)  # a node's only input is a node
            elif len(inputs) == 2:
                a, b = inputs
                args = (a.value if type(a) is Node else a, b.value if type(b) is Node else b)
            else:
                args = [_value(i) for i in inputs]
        rules = prim.vjp
        per_input = type(rules) is tuple
        if not per_input:
            all_cts = _all_input_cts(prim, rules, ct, out, args, params, len(inputs))

        # 4. Pass each input its share, guarded, unbroadcast and cast once, here.
        i = -1
        for inp in inputs:
            i += 1
            if type(inp) is not Node:
                continue  # a constant
            if needed is not None and inp not in needed:
                continue  # no path from here to anything in wrt
            if per_input:
                rule = rules[i]
                if rule is None:
                    continue  # zero gradient for this input
                # NOTE: `**` of a read-only mapping copies it into a new dict (a few times
                # the cost of the call itself); most primitives have no parameters.
                c = rule(ct, out, *args, **params) if params else rule(ct, out, *args)
            else:
                c = all_cts[i]
                if c is None:
                    continue
            if prim.keeps_zeros:  # zero cotangents stay zero where a rule says 0 * inf
                # NOTE: guard's own first test, inlined (it is most of its cost):
                # a finite float64 scalar or NumPy array needs nothing.
                t = type(c)
                if t is _float64:
                    if not _isfinite(c):
                        c = guard(prim, ct, c, params)
                elif t is not _ndarray or not _isfinite(
                    (c.dot(c) if c.ndim == 1 else _vdot(c, c)).real
                ):
                    c = guard(prim, ct, c, params)
            value = inp.value
            if c.shape != value.shape:
                c = _fit(c, value.shape, prim.name)
            if c.dtype is not value.dtype and c.dtype != value.dtype:
                # NOTE: the one place where a real input meets a complex cotangent
                # (x * 1j with real x): its cotangent is the real part (the JAX
                # convention, docs/concepts/complex.md), so rules never take it
                if c.dtype.kind == "c" and value.dtype.kind != "c":
                    c = real(c)
                if c.dtype != value.dtype:
                    c = astype(c, dtype=value.dtype)
            prev = pop(inp, None)
            cts[inp] = c if prev is None else prev + c
            if observers:
                for ob in observers:
                    ob.cotangent(node, i, c)
        if observers:
            for ob, token in zip(observers, tokens, strict=True):
                ob.after_vjp(node, token)

    if wrt is not None:
        for node in wrt:
            if node not in grads:
                grads[node] = xp_of(node.value).zeros_like(node.value)
    result = _new_gradmap(GradMap)  # GradMap(grads) without its `__init__`'s two calls
    _set_grads(result, grads)
    return result


def _all_input_cts(
    prim: Primitive,
    rule: Callable[..., Sequence[Any]],
    ct: Array,
    out: Array,
    args: Sequence[Any],
    params: Mapping[str, Any],
    n_inputs: int,
) -> Sequence[Any]:
    """Call a rule that gives every input's cotangent at once, checking the count."""
    all_cts = rule(ct, out, *args, **params) if params else rule(ct, out, *args)
    if len(all_cts) != n_inputs:
        raise ShapeError(
            f"funcgrad.{prim.name}: the VJP rule returned {len(all_cts)} "
            f"cotangents for {n_inputs} inputs"
        )
    return all_cts


def _value(x: Any) -> Any:
    return x.value if type(x) is Node else x


def _hook_table(hooks: Hooks, base: HookTable | None = None) -> HookTable:
    """`{id(node): (fn, ...)}` from `{node: fn or fns}` (or pairs), added to `base`."""
    table = dict(base) if base else {}
    items = hooks.items() if isinstance(hooks, Mapping) else hooks
    for node, fns in items:
        if type(node) is not Node:
            raise TypeError(
                f"funcgrad.backward: hooks must be keyed by graph nodes, got {type(node).__name__}"
            )
        table[id(node)] = table.get(id(node), ()) + _as_tuple(fns)
    return table


def _as_tuple(fns: Hook | Iterable[Hook]) -> tuple[Hook, ...]:
    return (fns,) if callable(fns) else tuple(fns)


def _enter_scope(
    table: tuple[tuple[Node, tuple[Hook, ...]], ...], hooked: HookTable | None, scopes: set[int]
) -> tuple[HookTable | None, set[int]]:
    """Add a `hook_scope` node's hooks to the walk's table (once per table)."""
    if id(table) in scopes or not table:
        return hooked, scopes
    return _hook_table(table, hooked), scopes | {id(table)}


def _needed_if_pruning(order: list[Node], wanted: set[Node]) -> set[Node] | None:
    """The nodes that lead to `wanted`, or None when every node reached does anyway.

    Pruning pays off when the walk would otherwise visit leaves (or inner
    nodes) that do not lead to anything asked for.
    """
    for n in wanted:
        if n.prim is not None:
            return _reaching(order, wanted)
    # Prune unless every leaf of `order` is wanted.
    if len(order) <= _SHORT_ORDER:
        # NOTE: on a short graph a plain loop; the pipeline below costs about 5 k
        # instructions to set up (W3's and W6's graphs have 5 to 15 nodes)
        for n in order:
            if n.prim is None and n not in wanted:
                return _reaching(order, wanted)
        return None
    # NOTE: the leaves of `order` picked out in C (a generator over a long chain costs
    # more than the test)
    leaves = list(compress(order, map(not_, map(_prim_of, order))))
    if len(leaves) > len(wanted) or not wanted.issuperset(leaves):
        return _reaching(order, wanted)
    return None


_prim_of = attrgetter("prim")
_SHORT_ORDER = 32  # nodes: up to here `_needed_if_pruning` loops in Python


def _needed(order: list[Node], wanted: set[int]) -> set[int]:
    """Return the ids of the nodes from which a node whose id is in `wanted` can be reached."""
    return {id(n) for n in _reaching(order, {n for n in order if id(n) in wanted})}


def _reaching(order: list[Node], wanted: set[Node]) -> set[Node]:
    """Return the nodes from which some node in `wanted` can be reached."""
    needed = set()
    for node in order:  # inputs come first, so one forward sweep suffices
        if node in wanted:
            needed.add(node)
            continue
        for inp in node.inputs:
            if type(inp) is Node and inp in needed:
                needed.add(node)
                break
    return needed


def _fit(c: Array, shape: tuple[int, ...], op: str) -> Array:
    """Sum a broadcast cotangent back to `shape` (the inverse of broadcasting)."""
    c_shape = c.shape
    lead = len(c_shape) - len(shape)
    if lead < 0:
        return broadcast_to(c, shape=shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and c_shape[lead + i] != 1
    )
    # NOTE: on a NumPy array (first order), the calls the primitives' forwards make,
    # without their dispatch: numpy.sum is add.reduce, numpy.reshape the method (a bias's
    # cotangent, W3, issue 18)
    plain = type(c) is _ndarray
    if axes:
        if plain and shape and len(axes) == lead and c_shape[lead:] == shape:
            # NOTE: only leading axes (a bias's cotangent): reduced without keepdims, the
            # result has `shape` already, so no reshape makes it a view, and `.grad` (or
            # value_and_grad's result) takes it without a copy; the same sums
            return _add_reduce(c, axis=axes)
        c = _add_reduce(c, axis=axes, keepdims=True) if plain else sum_(c, axis=axes, keepdims=True)
    if c.shape != shape:
        try:
            c = c.reshape(shape) if plain else reshape(c, shape=shape)
        except ValueError:
            raise ShapeError(
                f"funcgrad.{op}: a VJP rule returned a cotangent of shape "
                f"{c_shape} for an input of shape {shape}"
            ) from None
    return c
