"""Pytree utilities with JAX's names (`funcgrad.tree`).

Every transform accepts and returns pytrees: nested tuples, lists, dicts,
`None` and registered classes of arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as _np

from funcgrad.errors import ShapeError
from funcgrad.ops import elementwise as _elementwise
from funcgrad.ops import shape as _shape_ops
from funcgrad.ops.shape import concatenate as _concatenate
from funcgrad.transforms.pytree import (
    TreeDef,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)


def ravel(tree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """Flatten a pytree of arrays into one vector, and return the way back (JAX's `ravel_pytree`).

    The leaves are raveled and concatenated in `tree_flatten`'s order, in
    the dtype they promote to (NumPy's `result_type`; Python numbers are
    weak, so float32 leaves and a Python float give float32). Both ways are
    differentiable: leaves that are graph nodes give a vector node, and
    `unravel` of a vector node gives nodes, so a function of the tree can
    be written as a function of the vector for an optimizer or
    `scipy.optimize.minimize(fun, x0, jac=True)` with `value_and_grad`.
    This is autograd's `misc.flatten` too.

    Args:
        tree: A pytree of arrays (and numbers).

    Returns:
        `(flat, unravel)`: the 1-D vector and the function mapping a vector
        of the same length back to a tree of the same structure, each leaf
        with its shape and dtype (a vector of another float dtype, such as
        SciPy's float64, is cast to each leaf's dtype). An empty tree gives
        an empty float64 vector.

    Raises:
        ShapeError: If `unravel` is given something other than a vector of
            the length of `flat`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> params = {"w": np.ones((2, 2)), "b": np.zeros(2)}
        >>> flat, unravel = fg.tree.ravel(params)
        >>> flat
        array([0., 0., 1., 1., 1., 1.])
        >>> unravel(flat)["w"].shape
        (2, 2)
        >>> def loss(p):
        ...     return fnp.sum(p["w"] ** 2) + fnp.sum(p["b"])
        >>> fg.grad(lambda v: loss(unravel(v)))(flat)
        array([1., 1., 2., 2., 2., 2.])
    """
    leaves, treedef = tree_flatten(tree)
    values = [getattr(v, "value", v) for v in leaves]  # a node's value
    shapes = [tuple(_np.shape(v)) for v in values]
    dtypes = [
        _np.result_type(v) if hasattr(v, "dtype") else _np.result_type(type(v)) for v in values
    ]
    if not leaves:
        dtype = _np.dtype(_np.float64)
        flat: Any = _np.zeros(0, dtype)
    else:
        dtype = _np.result_type(*[v if not hasattr(v, "dtype") else v.dtype for v in values])
        pieces = [
            _reshape(_astype(_np.asarray(leaf) if v is leaf else leaf, d, dtype), (-1,))
            for leaf, v, d in zip(leaves, values, dtypes, strict=True)
        ]
        flat = pieces[0] if len(pieces) == 1 else _concatenate(*pieces, axis=0)
    sizes = [int(_np.prod(s)) for s in shapes]
    total = sum(sizes)

    def unravel(vector: Any) -> Any:
        shape = tuple(_np.shape(getattr(vector, "value", vector)))
        if shape != (total,):
            raise ShapeError(
                f"funcgrad.tree.ravel (unravel): expected a vector of shape ({total},), the "
                f"length of the raveled tree, got shape {shape}"
            )
        out, start = [], 0
        for size, leaf_shape, d in zip(sizes, shapes, dtypes, strict=True):
            piece = _reshape(vector[start : start + size], leaf_shape)
            vdtype = getattr(getattr(vector, "value", vector), "dtype", None)
            out.append(_astype(piece, vdtype, d))
            start += size
        return tree_unflatten(treedef, out)

    return flat, unravel


def _reshape(x: Any, shape: tuple[int, ...]) -> Any:
    return _shape_ops.reshape(x, shape=shape)


def _astype(x: Any, have: Any, want: Any) -> Any:
    return x if have == want else _elementwise.astype(x, dtype=want)


__all__ = [
    "TreeDef",
    "ravel",
    "register_pytree_node",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_structure",
    "tree_unflatten",
]
