"""Hooks as graph transforms.

`with_hooks(out, {node: fn})` returns a new graph in which the cotangent
flowing into `node` passes through `fn` on its way back. It inserts a
`hook` node (forward: identity) after each hooked node and rebuilds what is
downstream of it (`funcgrad.graph.substitute`), sharing everything else.
The original graph is untouched: both graphs can be differentiated, with
different results. Nothing is ever registered on a node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from funcgrad.errors import ShapeError
from funcgrad.graph import Node, substitute
from funcgrad.ops.registry import Primitive, Sample, register


def run_hook(fn: Callable, ct, where: str = "hook"):
    """Call a hook on a cotangent and check what it returns.

    Args:
        fn: The hook: `fn(ct)` returns a replacement cotangent or `None`.
        ct: The cotangent (an array, or a node when building a graph).
        where: Words naming the hook in error messages.

    Returns:
        The cotangent to use from now on.

    Raises:
        ShapeError: If the hook returns a value of another shape or dtype.
    """
    result = fn(ct)
    if result is None:
        return ct
    shape = getattr(result, "shape", None)
    dtype = getattr(result, "dtype", None)
    if shape != ct.shape or dtype != ct.dtype:
        raise ShapeError(
            f"funcgrad.with_hooks: the {where} {getattr(fn, '__name__', fn)!r} returned "
            f"{type(result).__name__} with shape {shape} and dtype {dtype}, but the "
            f"gradient it replaces has shape {ct.shape} and dtype {ct.dtype}; return "
            f"an array of that shape and dtype, or None to keep the gradient"
        )
    return result


def _hook_vjp(ct, out, x, *, fns):
    for fn in fns:
        ct = run_hook(fn, ct)
    return ct


def _hook_sample(g):
    # Hooks that keep the value, so the generic derivative checks apply; hooks
    # that change gradients are tested in tests/test_transforms_properties.py.
    return (g.array(g.shape(), -3.0, 3.0),), {"fns": (lambda ct: ct + 0.0, lambda ct: None)}


hook = register(Primitive(
    name="hook",
    forward=lambda xp, x, *, fns: x,
    vjp=(_hook_vjp,),
    jvp=(lambda x_t, out, x, *, fns: x_t,),  # hooks act on cotangents only
    params=("fns",),
    sample=Sample(_hook_sample),
    doc="x itself; its cotangent passes through the hook functions",
))


_SOURCES: list = []


def add_hook_source(source) -> None:
    """Register `source(order) -> {node: fns}`, consulted by every backward walk.

    This is how layers above the functional core (the `Tensor` layer's
    `register_hook`) attach hooks that fire for `funcgrad.backward` too:
    each walk asks the sources which nodes of its graph carry hooks and
    walks the hooked graph (`hook_graph`) instead.
    """
    _SOURCES.append(source)


def collect_hooks(order) -> dict:
    """Ask every registered hook source for the hooks on the nodes of `order`."""
    hooks: dict = {}
    for source in _SOURCES:
        for node, fns in source(order).items():
            hooks[node] = hooks.get(node, ()) + tuple(fns)
    return hooks


def hook_graph(roots: tuple, hooks: dict) -> tuple[tuple, dict]:
    """Insert hook nodes; return the new roots and `{id(old): rebuilt}` for every node.

    `rebuilt` is the node as rebuilt on replaced inputs (whose gradient, in the
    new graph, is the hooked gradient of `old`), so gradients asked for the
    old nodes can be read off the new graph.
    """
    rebuilt: dict[int, Node] = {}

    def wrap(fns):
        def replace(node_rebuilt, fns=fns):
            return hook(node_rebuilt, fns=fns)

        return replace

    replacements = {}
    for node, fns in hooks.items():
        fns = (fns,) if callable(fns) else tuple(fns)
        replacements[node] = _recording(node, wrap(fns), rebuilt)
    # Nodes downstream of a hook are rebuilt too: map them as well, so that a
    # gradient asked for one of them (retain_grad, autograd.grad) is found.
    downstream: dict[int, Node] = {}
    new_roots = substitute(roots, replacements, downstream)
    for key, node in downstream.items():
        rebuilt.setdefault(key, node)
    return new_roots, rebuilt


def _recording(node, replace, rebuilt):
    def record(node_rebuilt):
        rebuilt[id(node)] = node_rebuilt
        return replace(node_rebuilt)

    return record


def with_hooks(out, hooks: Mapping[Node, Callable | Sequence[Callable]]):
    """Return a new graph whose gradients pass through `hooks` at the given nodes.

    Args:
        out: The output node (or a tuple of output nodes) of the graph.
        hooks: `{node: fn}` or `{node: [fn, ...]}`. During a backward pass
            over the new graph, the total cotangent of `node` is given to
            each `fn` in turn; `fn(ct)` returns a replacement of the same
            shape and dtype, or `None` to leave it unchanged. A hook may
            also just look (print, record).

    Returns:
        The new output node (or tuple of them). The original graph is not
        changed and still gives the unhooked gradients.

    Raises:
        TypeError: If a key is not a node.

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf(3.0)
        >>> y = x * x
        >>> y2 = fg.with_hooks(y, {x: lambda ct: ct * 10.0})
        >>> fg.backward(y2)[x], fg.backward(y)[x]
        (np.float64(60.0), np.float64(6.0))
    """
    single = type(out) is Node
    roots = (out,) if single else tuple(out)
    for node in hooks:
        if type(node) is not Node:
            raise TypeError(
                f"funcgrad.with_hooks: hooks must be keyed by graph nodes, got "
                f"{type(node).__name__}"
            )
    new_roots, _ = hook_graph(roots, hooks)
    # A hooked root gets its hook node as the new root.
    return new_roots[0] if single else new_roots


__all__ = ["add_hook_source", "collect_hooks", "hook", "hook_graph", "run_hook", "with_hooks"]
