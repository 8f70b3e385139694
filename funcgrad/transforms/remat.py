"""Checkpointing (rematerialisation): trade compute for memory.

`checkpoint(f)` runs `f` on plain arrays in the forward pass, so none of
its inner nodes exist (or hold values) afterwards; the graph records a
single `checkpoint_call` node per output. Its VJP traces `f` again from the
saved inputs and walks that short-lived graph; its JVP does the same
forward. Gradients are identical to those without checkpointing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from funcgrad.graph import Node
from funcgrad.ops._util import value_of
from funcgrad.transforms.calls import Call, call_primitive, record
from funcgrad.transforms.forward import jvp
from funcgrad.transforms.gradients import vjp
from funcgrad.transforms.pytree import TreeDef, tree_flatten, tree_unflatten


class _CheckpointCall(Call):
    """One checkpointed call: both rules trace the function again from its inputs."""

    __slots__ = ("args_def", "fn")

    def __init__(self, fn: Callable[..., Any], args_def: TreeDef):
        self.fn = fn
        self.args_def = args_def

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        return [value_of(v) for v in tree_flatten(self._call(leaves))[0]]

    def _call(self, leaves: Sequence[Any]) -> Any:
        return self.fn(*tree_unflatten(self.args_def, list(leaves)))

    def _on(self, leaves: tuple[Any, ...], positions: list[int]) -> Callable[..., Any]:
        """`f` of the leaves at `positions` (the others held at their values in `leaves`)."""

        def g(*chosen: Any) -> Any:
            full = list(leaves)
            for i, d in zip(positions, chosen, strict=True):
                full[i] = d
            return self._call(full)

        return g

    def vjp(self, ct: Any, out: Any, leaves: tuple[Any, ...], index: int) -> tuple[Any, ...]:
        # Recompute: trace f again from the inputs, then pull ct back through it.
        diff = [i for i, a in enumerate(leaves) if _differentiable(a)]
        _, vjp_fn = vjp(self._on(leaves, diff), *(leaves[i] for i in diff))
        cts = vjp_fn(self.one_hot(ct, index))
        result: list[Any] = [None] * len(leaves)
        for i, c in zip(diff, cts, strict=True):
            result[i] = c
        return tuple(result)

    def jvp(self, tangents: tuple[Any, ...], out: Any, leaves: tuple[Any, ...], index: int) -> Any:
        diff = [i for i, t in enumerate(tangents) if t is not None]
        _, t_out = jvp(
            self._on(leaves, diff), tuple(leaves[i] for i in diff), tuple(tangents[i] for i in diff)
        )
        return tree_flatten(t_out)[0][index]


def _differentiable(a: Any) -> bool:
    if type(a) is Node:
        return True
    dtype = getattr(a, "dtype", None)
    return dtype is not None and dtype.kind == "f"


checkpoint_call = call_primitive(
    "checkpoint_call", "a function recomputed in the backward pass (funcgrad.checkpoint)"
)


def checkpoint(f: Callable[..., Any]) -> Callable[..., Any]:
    """Return `f` checkpointed: its intermediate values are recomputed, not stored.

    Use it on the layers of a deep model to cut the memory a gradient needs
    (about one layer's intermediates instead of all of them) for about one
    extra forward pass of compute. Gradients are unchanged. For a function
    with several outputs, each output's backward recomputes `f` once.

    Args:
        f: A function of arrays (pytrees allowed).

    Returns:
        A function with `f`'s signature.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> layer = fg.checkpoint(lambda x: fnp.tanh(x) * 2.0)
        >>> fg.grad(lambda x: fnp.sum(layer(x)))(np.zeros(2))
        array([2., 2.])
    """

    @functools.wraps(f)
    def checkpointed(*args: Any) -> Any:
        leaves, args_def = tree_flatten(args)
        if not any(type(v) is Node for v in leaves):
            return f(*args)
        values = [value_of(v) for v in leaves]
        out = f(*tree_unflatten(args_def, values))  # plain arrays: no graph kept
        return record(checkpoint_call, _CheckpointCall(f, args_def), tuple(leaves), out)

    return checkpointed
