"""Hooks: functions that see, and may replace, a node's cotangent during a backward pass.

A hook is data given to the pure walk, never state the walk looks up:

* `backward(out, hooks={node: fn})` (and the Tensor layer's
  `register_hook`, which passes its hooks this way) applies `fn` to the
  total cotangent of `node` in that one pass;
* `with_hooks(out, {node: fn})` returns a new graph whose output is a
  `hook_scope` node (forward: identity) carrying the hooks as a parameter;
  a walk that reaches it applies them from there on. The original graph is
  untouched, and both graphs can be differentiated, with different results.

Either way the walk calls the hook on the cotangent when the node is
visited. With `create_graph=True` what the hook computes is recorded like
any rule, but the gradient graph never contains a hook: differentiating a
gradient again runs only the hooks that pass gives (see
`docs/concepts/hooks.md`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from funcgrad.errors import ShapeError
from funcgrad.graph import Node
from funcgrad.graph.node import Array
from funcgrad.ops.registry import Draw, Drawn, Primitive, Sample, register

# A hook: `fn(ct)` returns a replacement cotangent, or None to keep it.
Hook = Callable[[Any], Any]


def run_hook(fn: Hook, ct: Array, where: str) -> Array:
    """Call a hook on a cotangent and check what it returns.

    Args:
        fn: The hook: `fn(ct)` returns a replacement cotangent or `None`.
        ct: The cotangent (an array, or a node when building a graph).
        where: Words naming the operation and the hook in error messages.

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
            f"{where} {getattr(fn, '__name__', fn)!r} returned "
            f"{type(result).__name__} with shape {shape} and dtype {dtype}, but the "
            f"gradient it replaces has shape {ct.shape} and dtype {ct.dtype}; return "
            f"an array of that shape and dtype, or None to keep the gradient"
        )
    return result


def checked_hook(fn: Hook, where: str) -> Hook:
    """Return `fn` as the walk calls it: `ct -> ct`, checked by `run_hook` under `where`.

    The walk calls hooks without checking them: each entry point wraps its
    hooks once, naming itself (`funcgrad.backward`, `funcgrad.with_hooks`,
    `funcgrad.Tensor.register_hook`) for the error message.
    """

    def checked(ct: Array) -> Array:
        return run_hook(fn, ct, where)

    checked.__name__ = getattr(fn, "__name__", "hook")
    return checked


def _hook_scope_sample(g: Draw) -> Drawn:
    # An empty table: the generic checks see the identity; hooks that change
    # gradients are tested in tests/test_transforms_properties.py.
    return (g.array(g.shape(), -3.0, 3.0),), {"hooks": ()}


hook_scope = register(
    Primitive(
        name="hook_scope",
        forward=lambda xp, x, *, hooks: x,
        vjp=(lambda ct, out, x, *, hooks: ct,),
        jvp=(lambda x_t, out, x, *, hooks: x_t,),  # hooks act on cotangents only
        params=("hooks",),
        sample=Sample(_hook_scope_sample, complex=True),
        doc="x itself; a backward pass that reaches it applies its hooks from there on",
    )
)


def with_hooks(out: Node | Sequence[Node], hooks: Mapping[Node, Hook | Sequence[Hook]]) -> Any:
    """Return a new graph whose gradients pass through `hooks` at the given nodes.

    Args:
        out: The output node (or a tuple of output nodes) of the graph.
        hooks: `{node: fn}` or `{node: [fn, ...]}`. During a backward pass
            that reaches the new output, the total cotangent of `node` is
            given to each `fn` in turn; `fn(ct)` returns a replacement of
            the same shape and dtype, or `None` to leave it unchanged. A
            hook may also just look (print, record). A gradient computed
            with `create_graph=True` records what the hooks computed but
            holds no hook, so differentiating it again does not re-apply
            them.

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
    roots = (out,) if single else tuple(cast("Sequence[Node]", out))
    table: list[tuple[Node, tuple[Hook, ...]]] = []
    for node, fns in hooks.items():
        if type(node) is not Node:
            raise TypeError(
                f"funcgrad.with_hooks: hooks must be keyed by graph nodes, got "
                f"{type(node).__name__}"
            )
        fns = (fns,) if callable(fns) else tuple(fns)
        table.append((node, tuple(checked_hook(fn, "funcgrad.with_hooks: the hook") for fn in fns)))
    # One table object shared by every output's scope: a walk applies it once.
    shared = tuple(table)
    new_roots = tuple(hook_scope(r, hooks=shared) for r in roots)
    return new_roots[0] if single else new_roots


__all__ = ["checked_hook", "hook_scope", "run_hook", "with_hooks"]
