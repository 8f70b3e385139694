"""Pytree utilities with JAX's names (`funcgrad.tree`).

Every transform accepts and returns pytrees: nested tuples, lists, dicts,
`None` and registered classes of arrays.
"""

from funcgrad.transforms.pytree import (
    TreeDef,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__all__ = [
    "TreeDef",
    "register_pytree_node",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]
