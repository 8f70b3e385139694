"""Pytrees: nested tuples, lists, dicts and registered classes of leaves.

A tree is flattened, iteratively, into its leaves and a `TreeDef`: the
flat, pre-order list of its inner nodes. Keeping the structure flat means
that flattening, comparing and rebuilding never recurse, so a tree nested
ten thousand levels deep is no harder than a flat one.

`None` is an inner node with no children (as in JAX), so it holds no leaf.
Dicts are flattened in sorted key order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from funcgrad.errors import TreeStructureError


class _Handler(NamedTuple):
    flatten: Callable[[Any], tuple[Sequence[Any], Any]]
    unflatten: Callable[[Any, list[Any]], Any]


# One pre-order entry of a `TreeDef`: `(type or "*", aux, number_of_children)`.
_TreeNode = tuple[Any, Any, int]


_LEAF = "*"
_NONE = type(None)
_HANDLERS: dict[type, _Handler] = {}


def register_pytree_node(
    cls: type,
    flatten: Callable[[Any], tuple[Sequence[Any], Any]],
    unflatten: Callable[[Any, list[Any]], Any],
) -> None:
    """Teach every transform to look inside instances of `cls`.

    Args:
        cls: The class to register.
        flatten: `flatten(obj) -> (children, aux)`: the children (a sequence
            of subtrees) and any hashable static data.
        unflatten: `unflatten(aux, children) -> obj`: the inverse.

    Examples:
        >>> import attrs
        >>> @attrs.define
        ... class Pair:
        ...     a: object
        ...     b: object
        >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
        ...                      lambda aux, ch: Pair(*ch))
        >>> tree_leaves(Pair(1.0, [2.0, 3.0]))
        [1.0, 2.0, 3.0]
    """
    if cls in _HANDLERS:
        raise ValueError(
            f"funcgrad.tree.register_pytree_node: {cls.__name__} is registered already"
        )
    _HANDLERS[cls] = _Handler(flatten, unflatten)


def _dict_flatten(d: dict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    keys = sorted(d)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(tuple, lambda t: (t, None), lambda aux, ch: tuple(ch))
register_pytree_node(list, lambda t: (t, None), lambda aux, ch: list(ch))
register_pytree_node(dict, _dict_flatten, lambda keys, ch: dict(zip(keys, ch, strict=True)))
register_pytree_node(_NONE, lambda t: ((), None), lambda aux, ch: None)


def _handler(x: Any) -> _Handler | None:
    t = type(x)
    h = _HANDLERS.get(t)
    if h is None and issubclass(t, tuple) and hasattr(t, "_fields"):  # namedtuple
        return _namedtuple_handler(t)
    return h


def _namedtuple_handler(t: type) -> _Handler:
    return _Handler(lambda nt: (tuple(nt), None), lambda aux, ch: t(*ch))


class TreeDef:
    """The structure of a pytree, without its leaves.

    Two trees have the same structure when their `TreeDef`s are equal.

    Attributes:
        nodes: The pre-order list of `(type, aux, number_of_children)`, with
            `"*"` in place of the type for a leaf.
    """

    __slots__ = ("nodes", "num_leaves")

    def __init__(self, nodes: tuple[_TreeNode, ...]):
        self.nodes = nodes
        self.num_leaves = sum(1 for n in nodes if n[0] is _LEAF)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TreeDef) and self.nodes == other.nodes

    def __hash__(self) -> int:
        return hash(self.nodes)

    def __repr__(self) -> str:
        return f"TreeDef({_render(self.nodes)})"

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Rebuild a tree of this structure from `leaves` (see `tree_unflatten`)."""
        return tree_unflatten(self, leaves)


def tree_flatten(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[Any], TreeDef]:
    """Split a pytree into its list of leaves and its structure.

    Args:
        tree: A nested structure of tuples, lists, dicts, `None` and
            registered classes.
        is_leaf: Optional predicate; a subtree for which it is true is
            treated as a leaf.

    Returns:
        `(leaves, treedef)`.

    Examples:
        >>> leaves, treedef = tree_flatten({"b": [1, 2], "a": (3, None)})
        >>> leaves
        [3, 1, 2]
        >>> tree_unflatten(treedef, [10, 20, 30])
        {'a': (10, None), 'b': [20, 30]}
    """
    # NOTE: every transform flattens its arguments and results, so this is a hot path: the
    # handler lookup is inlined, and a tuple or list is split without calling its handler.
    leaves = []
    nodes: list[_TreeNode] = []
    stack = [tree]
    handlers = _HANDLERS
    # Pre-order: a node, then its children from left to right.
    while stack:
        x = stack.pop()
        t = type(x)
        if is_leaf is not None and is_leaf(x):
            h = None
        else:
            h = handlers.get(t)
            if h is None and issubclass(t, tuple) and hasattr(t, "_fields"):  # namedtuple
                h = _namedtuple_handler(t)
        if h is None:
            nodes.append(_LEAF_NODE)
            leaves.append(x)
            continue
        if t is tuple or t is list:
            nodes.append((t, None, len(x)))
            stack.extend(x[::-1])
            continue
        children, aux = h.flatten(x)
        children = list(children)
        nodes.append((t, aux, len(children)))
        stack.extend(reversed(children))
    treedef = _new_treedef(TreeDef)
    treedef.nodes = tuple(nodes)
    treedef.num_leaves = len(leaves)
    return leaves, treedef


_LEAF_NODE: _TreeNode = (_LEAF, None, 0)
_new_treedef = object.__new__


def tree_unflatten(treedef: TreeDef, leaves: Iterable[Any]) -> Any:
    """Build a pytree of structure `treedef` holding `leaves` (inverse of `tree_flatten`).

    Raises:
        TreeStructureError: If the number of leaves is not the structure's.
    """
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise TreeStructureError(
            f"funcgrad.tree.tree_unflatten: the structure {treedef} has "
            f"{treedef.num_leaves} leaves, but {len(leaves)} were given"
        )
    built = []
    # Reverse pre-order: every node's children are built before it, and sit
    # on top of the stack with the first child on top.
    for kind, aux, n in reversed(treedef.nodes):
        if kind is _LEAF:
            built.append(leaves.pop())
            continue
        children = [built.pop() for _ in range(n)]
        h = _HANDLERS.get(kind) or _handler_for_type(kind)
        built.append(h.unflatten(aux, children))
    return built[0]


def _handler_for_type(kind: type) -> _Handler:
    return _namedtuple_handler(kind)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """Return the leaves of a pytree, in flattening order.

    Examples:
        >>> tree_leaves([1, {"x": 2, "y": None}])
        [1, 2]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any) -> TreeDef:
    """Return the structure of a pytree."""
    return tree_flatten(tree)[1]


def tree_map(
    f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Apply `f` to every leaf (of `tree` and, leaf by leaf, of `rest`).

    Args:
        f: Function of as many arguments as there are trees.
        tree: The tree whose structure the result has.
        *rest: More trees of the same structure.
        is_leaf: Optional predicate marking subtrees as leaves.

    Raises:
        TreeStructureError: If a tree of `rest` differs in structure; the
            message names the path where they first differ.

    Examples:
        >>> tree_map(lambda a, b: a + b, {"x": 1, "y": [2]}, {"x": 10, "y": [20]})
        {'x': 11, 'y': [22]}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for other in rest:
        o_leaves, o_def = tree_flatten(other, is_leaf)
        check_same_structure(treedef, o_def, "funcgrad.tree.tree_map")
        others.append(o_leaves)
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others, strict=True)])


def check_same_structure(
    a: TreeDef, b: TreeDef, op: str, names: tuple[str, str] = ("first", "second")
) -> None:
    """Raise a `TreeStructureError` naming the first path where `a` and `b` differ."""
    if a == b:
        return
    path, what_a, what_b = _first_difference(a.nodes, b.nodes)
    raise TreeStructureError(
        f"{op}: the {names[0]} and {names[1]} trees differ at {path or 'the root'}: "
        f"{what_a} versus {what_b}"
    )


def _describe_node(node: _TreeNode) -> str:
    kind, aux, n = node
    if kind is _LEAF:
        return "a leaf"
    if kind is dict:
        return f"a dict with keys {list(aux)}"
    return f"a {kind.__name__} of {n}"


def _first_difference(a: tuple[_TreeNode, ...], b: tuple[_TreeNode, ...]) -> tuple[str, str, str]:
    # Walk both pre-order lists together, keeping the path to the current node.
    path: list[str] = []
    remaining: list[int] = []  # children still to visit, per open inner node
    keys: list[Any] = []
    for node_a, node_b in zip(a, b, strict=False):  # a difference is looked for
        while remaining and remaining[-1] == 0:
            remaining.pop()
            keys.pop()
            path.pop()
        # Name this node's place within its parent.
        if remaining:
            index = keys[-1][1] - remaining[-1]
            remaining[-1] -= 1
            label = keys[-1][0][index] if keys[-1][0] is not None else index
            path[-1] = f"[{label!r}]"
        if node_a != node_b:
            return "".join(path), _describe_node(node_a), _describe_node(node_b)
        kind, aux, n = node_a
        if n:
            remaining.append(n)
            keys.append((aux if kind is dict else None, n))
            path.append("")
    return "".join(path), f"{len(a)} nodes", f"{len(b)} nodes"


def _render(nodes: tuple[_TreeNode, ...]) -> str:
    parts = []
    for kind, _aux, n in nodes:
        parts.append("*" if kind is _LEAF else f"{kind.__name__}({n})")
    return " ".join(parts)
