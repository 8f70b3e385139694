"""The graph and pytrees: topological order, frozen nodes, leaves, flattening."""

from __future__ import annotations

import collections
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.graph import Node, leaf, toposort
from funcgrad.tree import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten
from tests.references import requires

# --- topological order -----------------------------------------------------------


@st.composite
def graphs(draw):
    """Draw a random DAG: `(nodes, roots)`, nodes built from 1 to 3 leaves by random ops."""
    nodes = [leaf(float(i + 1)) for i in range(draw(st.integers(1, 3)))]
    for _ in range(draw(st.integers(0, 25))):
        pick = st.integers(0, len(nodes) - 1)
        kind = draw(st.sampled_from(["sin", "add", "multiply", "constant"]))
        a = nodes[draw(pick)]
        if kind == "sin":
            nodes.append(fnp.sin(a))
        elif kind == "constant":
            nodes.append(a * 0.5)  # a Python float input, which is not a node
        else:
            b = nodes[draw(pick)]
            nodes.append(fnp.add(a, b) if kind == "add" else fnp.multiply(a, b))
    roots = draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4))
    return nodes, roots


def _reachable(roots):
    seen, stack = {}, list(roots)
    while stack:
        n = stack.pop()
        if id(n) not in seen:
            seen[id(n)] = n
            stack.extend(i for i in n.inputs if type(i) is Node)
    return seen


@given(graphs())
def test_toposort_orders_each_reachable_node_once_after_its_inputs(graph):
    _, roots = graph
    order = toposort(*roots)
    position = {id(n): i for i, n in enumerate(order)}
    assert len(position) == len(order), "a node appears twice"
    assert position.keys() == _reachable(roots).keys()
    for n in order:
        for i in n.inputs:
            if type(i) is Node:
                assert position[id(i)] < position[id(n)]
    assert [id(n) for n in toposort(*roots)] == [id(n) for n in order]  # deterministic


def test_toposort_of_a_diamond():
    x = leaf(1.0)
    a, b = fnp.sin(x), fnp.cos(x)
    y = a * b
    order = toposort(y)
    assert order[0] is x and order[-1] is y and len(order) == 4
    assert toposort(y, x) == toposort(y)  # a root reached from another root is not repeated


def _depth():
    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1
    return n


def test_toposort_and_backward_are_iterative():
    # Under a recursion limit just above the current depth, a recursive walk
    # of a 5000-node chain would fail at once.
    x = leaf(1.0)
    y = x
    for _ in range(5000):
        y = fnp.sin(y)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + 60)
    try:
        order = toposort(y)
        grads = fg.backward(y)
    finally:
        sys.setrecursionlimit(limit)
    assert len(order) == 5001 and order[0] is x and order[-1] is y
    assert np.isfinite(grads[x])


# --- nodes -----------------------------------------------------------------------


def test_node_attributes_are_frozen():
    x = leaf(np.ones(3))
    y = fnp.sum(x * 2.0, axis=0)
    for node in (x, y):
        for name, value in [("value", np.zeros(3)), ("inputs", ()), ("prim", None), ("params", {})]:
            with pytest.raises(AttributeError):
                setattr(node, name, value)
            with pytest.raises(AttributeError):
                delattr(node, name)
        with pytest.raises(AttributeError):
            node.extra = 1
    assert type(y.inputs) is tuple


def test_node_params_cannot_be_changed():
    x = leaf(np.ones((2, 3)))
    y = fnp.sum(x, axis=0)
    z = fnp.exp(x)  # no params
    for node in (y, z):
        before = dict(node.params)
        try:
            with pytest.raises(TypeError):
                node.params["axis"] = 1
        finally:  # nodes without params may share one mapping: never leave it changed
            if dict(node.params) != before:
                node.params.clear()
                node.params.update(before)
    assert dict(y.params) == {"axis": 0, "keepdims": False}
    assert dict(z.params) == {}


def test_nodes_compare_and_hash_by_identity():
    a, b = leaf(1.0), leaf(1.0)
    assert (a == b) is False and a is not b
    assert (a == a) is True
    with pytest.raises(TypeError, match="not_equal"):
        a != b  # noqa: B015  (elementwise `!=` would be silently wrong: refused)
    assert len({a: 1, b: 2}) == 2 and len({a, a, b}) == 2
    assert hash(a) == object.__hash__(a)
    y = a * 1.0
    assert (y == a) is False and y in {y: 0}


def test_leaf_copies_a_writeable_user_array():
    user = np.array([1.0, 2.0, 3.0])
    x = leaf(user)
    assert user.flags.writeable  # the user's array is never locked
    assert not x.value.flags.writeable
    assert not np.shares_memory(user, x.value)
    user[0] = 100.0
    assert x.value[0] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        x.value[0] = 5.0


def test_leaf_shares_a_read_only_array():
    frozen = np.array([1.0, 2.0])
    frozen.setflags(write=False)
    assert leaf(frozen).value is frozen
    shared = fg.freeze(np.ones(2))  # the documented way to share without a copy
    assert leaf(shared).value is shared
    # A read-only view of a writeable array could still change: it is copied.
    base = np.ones(3)
    view = base[:]
    view.setflags(write=False)
    x = leaf(view)
    assert not np.shares_memory(x.value, base)


def test_leaf_of_python_values_and_dtypes():
    assert leaf(2.0).value.dtype == np.float64 and leaf(2.0).shape == ()
    assert leaf([1.0, 2.0]).value.dtype == np.float64
    assert leaf(np.ones(2, np.float32)).dtype == np.float32
    assert leaf(np.float32(1.0)).dtype == np.float32
    with pytest.raises(fg.DtypeError):
        leaf(3)


# --- pytrees ---------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")

trees = st.recursive(
    st.none() | st.integers(),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3), children, max_size=3),
        st.builds(Point, children, children),
    ),
    max_leaves=20,
)


def _same(a, b) -> bool:
    """Structural equality that also compares container types (iterative)."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            if a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif isinstance(a, (list, tuple)):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif a != b:
            return False
    return True


@given(trees)
def test_flatten_unflatten_round_trip(tree):
    leaves, treedef = tree_flatten(tree)
    assert _same(tree_unflatten(treedef, leaves), tree)
    assert treedef.num_leaves == len(leaves) and tree_leaves(tree) == leaves
    new = [("leaf", i) for i in range(len(leaves))]
    rebuilt = tree_unflatten(treedef, new)
    assert tree_flatten(rebuilt, is_leaf=lambda v: isinstance(v, tuple) and v[:1] == ("leaf",)) == (
        new,
        treedef,
    )
    assert tree_structure(rebuilt) != treedef or not leaves  # tuples are inner nodes
    assert _same(tree_map(lambda v: v, tree), tree)


@given(trees, trees)
def test_pytrees_match_optree(a, b):
    optree = requires("optree")
    for tree in (a, b):
        leaves, _ = tree_flatten(tree)
        assert leaves == optree.tree_leaves(tree)  # same order: sorted dict keys, None empty
        assert _same(
            tree_map(lambda v: ("mapped", v), tree), optree.tree_map(lambda v: ("mapped", v), tree)
        )
    assert (tree_structure(a) == tree_structure(b)) == (
        optree.tree_structure(a) == optree.tree_structure(b)
    )


def _nest(depth, bottom):
    t = bottom
    for i in range(depth):
        t = [t] if i % 3 == 0 else (t,) if i % 3 == 1 else {"k": t}
    return t


def _bottom(t):
    while isinstance(t, (list, tuple, dict)):
        t = t["k"] if isinstance(t, dict) else t[0]
    return t


def test_deep_nesting_does_not_recurse():
    depth = 10_000
    tree = _nest(depth, 1.0)
    leaves, treedef = tree_flatten(tree)
    assert leaves == [1.0] and len(treedef.nodes) == depth + 1
    assert _same(tree_unflatten(treedef, [2.0]), _nest(depth, 2.0))
    assert _bottom(tree_map(lambda v: v + 1.0, tree)) == 2.0
    assert tree_structure(_nest(depth, 5.0)) == treedef
    repr(treedef)
    other = _nest(depth, (1.0, 2.0))
    with pytest.raises(fg.TreeStructureError, match="a leaf versus a tuple of 2"):
        tree_map(lambda a, b: a, tree, other)
    # The transforms take deep trees too.
    g = fg.grad(lambda t: _bottom(t) * _bottom(t))(_nest(depth, 3.0))
    assert _bottom(g) == 6.0 and tree_structure(g) == treedef


@pytest.mark.parametrize(
    "a, b, path, what",
    [
        (
            {"a": [1, [2, (3, 4)]]},
            {"a": [1, [2, (3, 4, 5)]]},
            "['a'][1][1]",
            "tuple of 2 versus a tuple of 3",
        ),
        ({"a": 1, "b": (1, 2)}, {"a": 1, "b": [1, 2]}, "['b']", "tuple of 2 versus a list of 2"),
        ([1, None], [1, 2], "[1]", "versus a leaf"),
        ({"a": 1}, {"b": 1}, "the root", "['a'] versus a dict with keys ['b']"),
        ((1, {"x": [1]}), (1, {"x": 1}), "[1]['x']", "list of 1 versus a leaf"),
    ],
)
def test_tree_structure_error_names_the_path(a, b, path, what):
    with pytest.raises(fg.TreeStructureError) as e:
        tree_map(lambda u, v: u, a, b)
    message = str(e.value)
    assert "funcgrad.tree.tree_map" in message
    assert f"differ at {path}:" in message and what in message
