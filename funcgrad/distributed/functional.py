"""Differentiable collectives: registry primitives with VJP and JVP rules, and `psum`/`pmean`.

PyTorch's functional collectives (`torch.distributed.nn.functional`) and
JAX's `psum`/`pmean`/`all_gather`/`psum_scatter`. Each is a primitive of
the registry, so it can sit inside `funcgrad.grad`, `vjp`, `jvp` or a
Tensor's backward: the VJP of `all_reduce` is an `all_reduce` of the
cotangent, that of `all_gather` a `reduce_scatter`, and the other way
round. Every rank must run the same forward and backward (SPMD): the rules
are collectives themselves.

In a world of one process they are the identity (`all_reduce`,
`reduce_scatter` of the only slice) and a new leading axis (`all_gather`);
the generic rule tests check them there.
"""

from __future__ import annotations

from typing import Any

from funcgrad.distributed import _api
from funcgrad.distributed._group import ProcessGroup, ReduceOp, resolve, self_group
from funcgrad.ops.registry import LINEAR, Primitive, Sample, register
from funcgrad.transforms.pytree import tree_map

_DIFFERENTIABLE = ("sum", "avg")
# The world of the primitives' samples: this process alone, no engine needed.
_SELF = self_group()


def _collective(
    name: str, forward: Any, vjp: Any, doc: str, reduces: bool, shape: Any = None
) -> Primitive:
    """Register a linear collective: its VJP rule is another collective, its JVP the same one.

    `reduces`: it takes `op` ("sum" or "avg") besides `group`. `shape`: the
    shape of its sample's input from the sample generator (default any).
    """

    def make(g: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        x = g.array(g.shape() if shape is None else shape(g), -2, 2)
        params = {"op": g.choice(_DIFFERENTIABLE)} if reduces else {}
        return (x,), {**params, "group": _SELF}

    return register(
        Primitive(
            name=name,
            forward=forward,
            vjp=(vjp,),
            jvp=LINEAR,
            params=("op", "group") if reduces else ("group",),
            sample=Sample(make=make),
            doc=doc,
        )
    )


def _all_reduce_vjp(ct: Any, out: Any, x: Any, *, op: str, group: ProcessGroup) -> Any:
    # the sum over ranks of every rank's loss: each rank's cotangent is summed (averaged) too
    return all_reduce_p(ct, op=op, group=group)


def _all_gather_vjp(ct: Any, out: Any, x: Any, *, group: ProcessGroup) -> Any:
    return reduce_scatter_p(ct, op="sum", group=group)


def _reduce_scatter_vjp(ct: Any, out: Any, x: Any, *, op: str, group: ProcessGroup) -> Any:
    gathered = all_gather_p(ct, group=group)
    return gathered / group.size if op == "avg" else gathered


all_reduce_p = _collective(
    "all_reduce",
    lambda xp, x, *, op, group: _api.all_reduce(x, ReduceOp(op), group),
    _all_reduce_vjp,
    "Sum (or mean) of the value over the ranks of a process group, on every rank.",
    reduces=True,
)
all_gather_p = _collective(
    "all_gather",
    lambda xp, x, *, group: xp.stack(_api.all_gather(None, x, group)),
    _all_gather_vjp,
    "The values of every rank of a process group, stacked along a new first axis.",
    reduces=False,
)
reduce_scatter_p = _collective(
    "reduce_scatter",
    lambda xp, x, *, op, group: _api.reduce_scatter(None, x, ReduceOp(op), group),
    _reduce_scatter_vjp,
    "Slice k (first axis) summed (or averaged) over the ranks, on rank k.",
    reduces=True,
    shape=lambda g: (1, *g.shape(max_dims=2)),
)


def _reduction(op: Any, what: str) -> str:
    name = _api._op(op, what).value
    if name not in _DIFFERENTIABLE:
        raise ValueError(
            f"funcgrad.distributed.functional.{what}: only ReduceOp.SUM and ReduceOp.AVG are "
            f"differentiable, got {op!r}; reduce values with funcgrad.distributed.{what}"
        )
    return name


def all_reduce(x: Any, op: Any = ReduceOp.SUM, group: ProcessGroup | None = None) -> Any:
    """Differentiable all-reduce of an array, node or Tensor (SUM or AVG); returns a new value.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.distributed import functional as F
        >>> F.all_reduce(np.ones(2), group=F._SELF)
        array([1., 1.])
    """
    return all_reduce_p(x, op=_reduction(op, "all_reduce"), group=resolve(group))


def all_gather(x: Any, group: ProcessGroup | None = None) -> Any:
    """Differentiable all-gather: the ranks' values stacked along a new first axis."""
    return all_gather_p(x, group=resolve(group))


def reduce_scatter(x: Any, op: Any = ReduceOp.SUM, group: ProcessGroup | None = None) -> Any:
    """Differentiable reduce-scatter: `x` has one slice per rank along axis 0; rank k gets slice k reduced."""
    return reduce_scatter_p(x, op=_reduction(op, "reduce_scatter"), group=resolve(group))


def psum(tree: Any, group: ProcessGroup | None = None) -> Any:
    """Sum every leaf of a pytree over the ranks of `group` (JAX's `psum`); differentiable."""
    g = resolve(group)
    return tree_map(lambda x: all_reduce_p(x, op="sum", group=g), tree)


def pmean(tree: Any, group: ProcessGroup | None = None) -> Any:
    """Average every leaf of a pytree over the ranks of `group` (JAX's `pmean`); differentiable.

    The gradient step of data-parallel training: `grads = pmean(grad(loss)(params, batch))`.
    """
    g = resolve(group)
    return tree_map(lambda x: all_reduce_p(x, op="avg", group=g), tree)


__all__ = ["all_gather", "all_reduce", "pmean", "psum", "reduce_scatter"]
