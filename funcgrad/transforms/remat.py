"""Checkpointing (rematerialisation): trade compute for memory.

`checkpoint(f)` runs `f` on plain arrays in the forward pass, so none of
its inner nodes exist (or hold values) afterwards; the graph records a
single `checkpoint_call` node per output. Its VJP traces `f` again from the
saved inputs and walks that short-lived graph; its JVP does the same
forward. Gradients are identical to those without checkpointing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from funcgrad.backend import xp_of
from funcgrad.graph import Node
from funcgrad.ops._util import value_of
from funcgrad.ops.registry import Primitive, Sample, register
from funcgrad.transforms.custom import _one_hot_cotangent, _outputs_as_nodes
from funcgrad.transforms.forward import jvp
from funcgrad.transforms.pytree import tree_flatten, tree_unflatten
from funcgrad.transforms.gradients import vjp


def _call(fn, args_def, leaves):
    return fn(*tree_unflatten(args_def, leaves))


def _checkpoint_forward(xp, *leaves, fn, args_def, index, out_def, avals):
    return value_of(tree_flatten(_call(fn, args_def, leaves))[0][index])


def _checkpoint_vjp(ct, out, *leaves, fn, args_def, index, out_def, avals):
    # Recompute: trace f again from the inputs, then pull ct back through it.
    diff = [i for i, a in enumerate(leaves) if _differentiable(a)]

    def g(*diff_leaves):
        full = list(leaves)
        for i, d in zip(diff, diff_leaves):
            full[i] = d
        return _call(fn, args_def, full)

    _, vjp_fn = vjp(g, *(leaves[i] for i in diff))
    cts = vjp_fn(_one_hot_cotangent(ct, index, out_def, avals))
    result = [None] * len(leaves)
    for i, c in zip(diff, cts):
        result[i] = c
    return tuple(result)


def _checkpoint_jvp(tangents, out, *leaves, fn, args_def, index, out_def, avals):
    diff = [i for i, (a, t) in enumerate(zip(leaves, tangents)) if t is not None]

    def g(*diff_leaves):
        full = list(leaves)
        for i, d in zip(diff, diff_leaves):
            full[i] = d
        return _call(fn, args_def, full)

    _, t_out = jvp(g, tuple(leaves[i] for i in diff), tuple(tangents[i] for i in diff))
    return tree_flatten(t_out)[0][index]


def _differentiable(a) -> bool:
    if type(a) is Node:
        return True
    dtype = getattr(a, "dtype", None)
    return dtype is not None and dtype.kind == "f"


def _sample_layer(x, w):
    from funcgrad import numpy as fnp

    return fnp.tanh(x * w) + x


def _checkpoint_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    w = g.array(x.shape, -2.0, 2.0)
    _, args_def = tree_flatten((x, w))
    out = _sample_layer(x, w)
    _, out_def = tree_flatten(out)
    return (x, w), {"fn": _sample_layer, "args_def": args_def, "index": 0,
                    "out_def": out_def, "avals": ((out.shape, out.dtype),)}


checkpoint_call = register(Primitive(
    name="checkpoint_call",
    forward=_checkpoint_forward,
    vjp=_checkpoint_vjp,
    jvp=_checkpoint_jvp,
    params=("fn", "args_def", "index", "out_def", "avals"),
    sample=Sample(_checkpoint_sample),
    doc="a function recomputed in the backward pass (funcgrad.checkpoint)",
))


def checkpoint(f: Callable) -> Callable:
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
    def checkpointed(*args):
        leaves, args_def = tree_flatten(args)
        if not any(type(v) is Node for v in leaves):
            return f(*args)
        values = [value_of(v) for v in leaves]
        out = f(*tree_unflatten(args_def, values))  # plain arrays: no graph kept
        return _outputs_as_nodes(checkpoint_call, out, tuple(leaves),
                                 {"fn": f, "args_def": args_def})

    return checkpointed


_ = xp_of
