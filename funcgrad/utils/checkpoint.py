"""`funcgrad.utils.checkpoint` is PyTorch's `torch.utils.checkpoint`: recompute, don't store.

`checkpoint(function, *args, use_reentrant=False)` runs `function` and keeps
none of its intermediate values: its outputs become `checkpoint_call` nodes
of the functional core (the primitive of `funcgrad.checkpoint`) whose inputs
are the nodes the function's graph started from (its tensor arguments and
the tensors it closed over, such as a module's parameters). The backward pass
runs `function` again, with the random numbers of the forward
(`preserve_rng_state`, funcgrad's generators), and walks that short-lived
graph. Gradients are those without checkpointing, for the arguments and for
the parameters alike.

As in PyTorch, `use_reentrant=True` (also the default when it is not given,
with PyTorch's warning) gives no gradient when no tensor argument requires
grad: the function then runs under `no_grad`, and its parameters get none.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from funcgrad.backend import rng
from funcgrad.graph import Node, leaf
from funcgrad.tensors import grad_mode
from funcgrad.tensors.missing import module_getattr as _module_getattr
from funcgrad.tensors.tensor_class import Tensor
from funcgrad.transforms.calls import Call, record
from funcgrad.transforms.pytree import tree_flatten, tree_unflatten
from funcgrad.transforms.remat import checkpoint_call
from funcgrad.transforms.reverse import walk

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]


def noop_context_fn() -> tuple[
    contextlib.AbstractContextManager, contextlib.AbstractContextManager
]:
    """The default `context_fn`: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


class _SegmentCall(Call):
    """A checkpointed call of a tensor function: its VJP runs the function again."""

    __slots__ = ("args", "boundary", "context_fn", "function", "kwargs", "positions", "rng_state")

    def __init__(self, function, args, kwargs, boundary, positions, rng_state, context_fn):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.boundary = boundary  # the nodes the function's graph started from
        self.positions = positions  # where the recorded outputs are among the output leaves
        self.rng_state = rng_state
        self.context_fn = context_fn

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        return [n.value for n in self._recompute()]

    def _recompute(self) -> list[Node]:
        """Run the function again (its forward's random numbers); return its recorded outputs."""
        replay = rng.replay(self.rng_state) if self.rng_state is not None else _nothing()
        _, recompute_context = self.context_fn()
        with replay, recompute_context, grad_mode.enable_grad():
            out = self.function(*self.args, **self.kwargs)
        leaves = tree_flatten(out)[0]
        found = []
        for p in self.positions:
            t = leaves[p] if p < len(leaves) else None
            if not isinstance(t, Tensor) or t._node is None:
                raise RuntimeError(
                    "funcgrad.utils.checkpoint: the function gave other outputs when it was run "
                    "again in the backward pass (an output that required grad does not now); a "
                    "checkpointed function must compute the same thing each time it runs"
                )
            found.append(t._node)
        return found

    def vjp(self, ct: Any, out: Any, leaves: tuple[Any, ...], index: int) -> tuple[Any, ...]:
        node = self._recompute()[index]
        create = type(out) is Node or type(ct) is Node  # a recorded gradient (create_graph)
        grads = walk((node,), (ct,), self.boundary, create_graph=create)
        return tuple(grads[b] if b in grads else None for b in self.boundary)


@contextlib.contextmanager
def _nothing():
    yield


def _boundary(outputs: Iterable[Node], start: int) -> list[Node]:
    """The nodes older than `start` that the graph of `outputs` starts from, oldest first."""
    found: dict[int, Node] = {}
    seen: set[int] = set()
    stack = [n for n in outputs if n.seq >= start]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for x in node.inputs:
            if type(x) is not Node:
                continue
            if x.seq < start:
                found[id(x)] = x
            elif id(x) not in seen:
                stack.append(x)
    return sorted(found.values(), key=lambda n: n.seq)


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    preserve_rng_state: bool = True,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """Run `function(*args, **kwargs)` without keeping its intermediate values for the backward pass.

    The backward pass runs `function` again to get them: about one extra
    forward of compute for the memory of the function's intermediates.
    Gradients are unchanged, for the tensor arguments and for the tensors
    the function uses without taking them as arguments (a module's
    parameters).

    Args:
        function: The function (a module, say) to checkpoint.
        *args: Its arguments.
        use_reentrant: False (recommended): gradients reach every tensor the
            function uses. True (PyTorch's old variant, and the default when
            not given, with PyTorch's warning): as above when a tensor
            argument requires grad; if none does, PyTorch gives no gradient at
            all, and so does funcgrad (with PyTorch's warning).
        context_fn: Returns two context managers, entered around the forward
            and around the recomputation.
        determinism_check: Accepted for PyTorch's signature.
        debug: Accepted for PyTorch's signature.
        preserve_rng_state: Draw the forward's random numbers again in the
            recomputation (funcgrad's generators: `rand`, `dropout` ...).
        **kwargs: Keyword arguments of `function`.

    Returns:
        What `function` returns; its tensors that require grad are recorded
        as checkpointed outputs.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.utils.checkpoint import checkpoint
        >>> layer = torch.nn.Linear(3, 3)
        >>> x = torch.randn(2, 3, requires_grad=True)
        >>> y = checkpoint(layer, x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad.shape, layer.weight.grad.shape
        (funcgrad.Size([2, 3]), funcgrad.Size([3, 3]))
    """
    if use_reentrant is None:
        warnings.warn(
            "funcgrad.utils.checkpoint: the use_reentrant parameter should be passed "
            "explicitly, as PyTorch asks; use_reentrant=False is recommended (the default "
            "when it is not given is True, PyTorch's old behaviour)",
            stacklevel=2,
        )
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError(
                "Unexpected keyword arguments: "
                + ",".join(kwargs)
                + " (use_reentrant=True takes none; pass use_reentrant=False)"
            )
        tensors = [a for a in args if isinstance(a, Tensor)]
        if not any(t.requires_grad for t in tensors) and grad_mode.is_grad_enabled():
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
            )
            with grad_mode.no_grad():
                return function(*args)
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    start = leaf(0.0).seq  # every node the function makes is newer
    state = rng.get_state() if preserve_rng_state else None
    forward_context, _ = context_fn()
    with forward_context:
        out = function(*args, **kwargs)
    leaves, out_def = tree_flatten(out)
    positions = [
        i
        for i, t in enumerate(leaves)
        if isinstance(t, Tensor) and t._node is not None and t._node.seq >= start
    ]
    if not positions:
        return out
    outputs = [leaves[i]._node for i in positions]
    boundary = _boundary(outputs, start)
    call = _SegmentCall(function, args, kwargs, boundary, positions, state, context_fn)
    values = [n.value for n in outputs]
    del outputs  # the function's graph is freed with its outputs
    nodes = record(checkpoint_call, call, tuple(boundary), values)
    new_leaves = list(leaves)
    for i, node in zip(positions, nodes, strict=True):
        new_leaves[i] = Tensor.__funcgrad_wrap__(node)
    return tree_unflatten(out_def, new_leaves)


def checkpoint_sequential(
    functions: Sequence[Callable[..., Any]] | Any,
    segments: int,
    input: Any,  # noqa: A002  (PyTorch's name)
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Run a sequence of functions (or an `nn.Sequential`) in `segments` checkpointed segments.

    The last segment is not checkpointed (its values are needed at once by
    the backward pass), as in PyTorch.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.utils.checkpoint import checkpoint_sequential
        >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
        >>> x = torch.ones(3, 2, requires_grad=True)
        >>> checkpoint_sequential(net, 2, x, use_reentrant=False).shape
        funcgrad.Size([3, 1])
    """
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if use_reentrant is None:
        warnings.warn(
            "funcgrad.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
            "should be passed explicitly; use_reentrant=False is recommended",
            stacklevel=2,
        )
        use_reentrant = True
    size = max(len(fns) // max(int(segments), 1), 1)

    def run(begin: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for fn in fns[begin : end + 1]:
                x = fn(x)
            return x

        return forward

    end = -1
    for begin in range(0, size * (int(segments) - 1), size):
        end = begin + size - 1
        input = checkpoint(run(begin, end), input, use_reentrant=use_reentrant, **kwargs)  # noqa: A001
    return run(end + 1, len(fns) - 1)(input)


__getattr__ = _module_getattr("torch.utils.checkpoint", "funcgrad.utils.checkpoint")
