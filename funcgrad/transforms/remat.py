"""Checkpointing (rematerialisation): trade compute for memory.

`checkpoint(f)` runs `f` on plain arrays in the forward pass, so none of
its inner nodes exist (or hold values) afterwards; the graph records a
single `checkpoint_call` node per output. Its VJP traces `f` again from the
saved inputs and walks that short-lived graph; its JVP does the same
forward. Gradients are identical to those without checkpointing: each
recomputation draws the random numbers the forward drew (funcgrad's
generators are saved at the forward and replayed, `funcgrad.backend.rng`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from funcgrad.backend import rng
from funcgrad.graph import Node
from funcgrad.ops._util import value_of
from funcgrad.transforms import batching
from funcgrad.transforms.calls import Call, call_primitive, record
from funcgrad.transforms.forward import jvp
from funcgrad.transforms.gradients import vjp
from funcgrad.transforms.pytree import TreeDef, tree_flatten, tree_unflatten


class _CheckpointCall(Call):
    """One checkpointed call: both rules trace the function again from its inputs."""

    __slots__ = ("args_def", "fn", "rng_state")

    def __init__(self, fn: Callable[..., Any], args_def: TreeDef, rng_state: rng.State | None):
        self.fn = fn
        self.args_def = args_def
        self.rng_state = rng_state  # the generators as the forward found them, or None

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        return [value_of(v) for v in tree_flatten(self._call(leaves))[0]]

    def _call(self, leaves: Sequence[Any]) -> Any:
        args = tree_unflatten(self.args_def, list(leaves))
        if self.rng_state is None:
            return self.fn(*args)
        with rng.replay(self.rng_state):  # the forward's random numbers, not new ones
            return self.fn(*args)

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
    return dtype is not None and dtype.kind in "fc"


checkpoint_call = call_primitive(
    "checkpoint_call", "a function recomputed in the backward pass (funcgrad.checkpoint)"
)


def checkpoint(
    f: Callable[..., Any] | None = None, *, preserve_rng_state: bool = True
) -> Callable[..., Any]:
    """Return `f` checkpointed: its intermediate values are recomputed, not stored.

    Use it on the layers of a deep model to cut the memory a gradient needs
    (about one layer's intermediates instead of all of them) for about one
    extra forward pass of compute. Gradients are unchanged. For a function
    with several outputs, each output's backward recomputes `f` once.

    Random numbers: as PyTorch's `checkpoint(preserve_rng_state=True)`, the
    state of funcgrad's generators (those `funcgrad.manual_seed` seeds and
    `funcgrad.randn`, `funcgrad.rand`, `funcgrad.randint`,
    `funcgrad.numpy.random` and `funcgrad.backend.rng` draw from, on every
    device, and those of the generators you own that `f` draws from in
    its thread: `funcgrad.Generator`, `funcgrad.numpy.random.default_rng(seed)`,
    `RandomState(seed)`; one only another thread draws from is left alone) is
    saved when `f` runs in the forward and replayed around each
    recomputation, so dropout masks drawn inside `f` are the same in both,
    and drawing in the recomputation does not move the generators on. The
    global NumPy state (`np.random.rand`, `np.random.seed`) and a
    `numpy.random.Generator` of your own are not funcgrad's and are *not*
    preserved: a recomputation draws new numbers from them and the gradient
    belongs to noise the forward never used. Draw inside checkpointed code
    with funcgrad's generator (`fnp.random.rand(*shape)`,
    `fg.rand(*shape).numpy()`), or draw outside `f` and pass the mask in as
    an argument.

    Args:
        f: A function of arrays (pytrees allowed). Without it,
            `checkpoint(preserve_rng_state=False)` returns a decorator.
        preserve_rng_state: Replay funcgrad's generators in the
            recomputation (the default). False skips saving them, for
            functions that draw no random numbers; one that does then gets
            new numbers when recomputed.

    Returns:
        A function with `f`'s signature.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> layer = fg.checkpoint(lambda x: fnp.tanh(x) * 2.0)
        >>> fg.grad(lambda x: fnp.sum(layer(x)))(np.zeros(2))
        array([2., 2.])
    """

    if f is None:
        return functools.partial(checkpoint, preserve_rng_state=preserve_rng_state)
    fn = f

    @functools.wraps(fn)
    def checkpointed(*args: Any) -> Any:
        leaves, args_def = tree_flatten(args)
        if batching.over_transform(leaves):  # vmap inside grad: checkpoint the batch
            return batching.lifted_call(
                lambda axes, size: checkpoint(
                    batching.vmap(fn, in_axes=axes, axis_size=size),
                    preserve_rng_state=preserve_rng_state,
                ),
                args,
            )
        if not any(type(v) is Node for v in leaves):
            return fn(*args)
        values = [value_of(v) for v in leaves]
        state = rng.get_state(own=True) if preserve_rng_state else None  # before f draws
        with rng.recording(state):  # the owned generators f draws from in this thread
            out = fn(*tree_unflatten(args_def, values))  # plain arrays: no graph kept
        return record(checkpoint_call, _CheckpointCall(fn, args_def, state), tuple(leaves), out)

    return checkpointed
