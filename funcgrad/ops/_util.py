"""Small helpers shared by the rule modules (not primitives themselves)."""

from __future__ import annotations

from funcgrad.graph import Node


def value_of(x):
    """Return the array a node holds, or `x` itself if it is not a node.

    Rules use it for the non-differentiable parts of a formula (masks from
    comparisons, shapes), which must not extend the graph.
    """
    return x.value if type(x) is Node else x


def shape_of(x) -> tuple[int, ...]:
    """Return the shape of a node, an array or a Python number."""
    return getattr(x, "shape", ())


def normalize_axis(axis, ndim: int, op: str) -> tuple[int, ...]:
    """Return `axis` (None, an int or a tuple) as a sorted tuple of non-negative ints.

    Raises:
        funcgrad.errors.OpError: If an axis is out of range for `ndim`.
    """
    from funcgrad.errors import OpError

    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise OpError(
                f"funcgrad.{op}: axis {a} is out of range for an array of "
                f"{ndim} dimension(s); use an axis in [{-ndim}, {ndim - 1}]"
            )
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out)))


def attach(methods: dict) -> None:
    """Give `Node` methods or properties (each family of primitives attaches its own).

    Args:
        methods: Attribute name to function (or `property`).
    """
    for name, fn in methods.items():
        setattr(Node, name, fn)
