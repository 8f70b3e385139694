"""`funcgrad.autograd.graph` is PyTorch's `torch.autograd.graph`, in part.

`register_multi_grad_hook` is provided, with PyTorch's semantics. PyTorch's
saved-tensor hooks (`saved_tensors_hooks`, `save_on_cpu`,
`disable_saved_tensors_hooks`) act on the tensors its backward functions
save. funcgrad's graph saves no tensors: each node holds the value it
computed, read-only and shared, and the VJP rules read those values. So there
is nothing for a pack or unpack hook to act on, and looking these names up
raises `funcgrad.errors.NotProvidedError`, by design. To save memory, use
activation checkpointing (`funcgrad.utils.checkpoint`), which keeps no
intermediate value of the checkpointed function. The other names of
`torch.autograd.graph` (`Node`, `GradientEdge` ...) are not provided yet.
Layer: imperative.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from funcgrad.tensors.engine import current_task
from funcgrad.tensors.missing import module_getattr as _module_getattr

__all__ = ["register_multi_grad_hook"]

__getattr__ = _module_getattr("torch.autograd.graph", "funcgrad.autograd.graph")

_OP = "funcgrad.autograd.graph.register_multi_grad_hook"


class _MultiHandle:
    """The handle `register_multi_grad_hook` returns: `.remove()` removes every tensor hook."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        """Unregister the hook from every tensor (doing it twice is harmless)."""
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _task_state(key: object) -> dict:
    task = current_task()
    if task is None:
        raise RuntimeError(f"{_OP}: expected this hook to be called inside a backward call")
    return task.state.setdefault(key, {})


def register_multi_grad_hook(
    tensors: Sequence[Any], fn: Callable[..., None], *, mode: str = "all"
) -> _MultiHandle:
    """Register a hook called once per backward pass with the gradients of several tensors.

    As `torch.autograd.graph.register_multi_grad_hook`. With `mode="all"`,
    `fn(grads)` is called once the gradient of every tensor that this
    backward pass reaches has been computed, with one entry per tensor
    (`None` for a tensor the pass does not reach, or whose gradient it does
    not compute because of `inputs=`). With `mode="any"`, `fn(grad)` is
    called once per pass, with the first of those gradients computed
    (tensors that do not require grad are skipped). Gradients arrive as a
    tensor hook sees them (PyTorch's convention for complex values).
    Unlike PyTorch, `autograd.grad` may be run with leaves among `tensors`
    (their gradients are those of the `inputs` it returns).

    Args:
        tensors: The tensors to watch.
        fn: The hook; its return value is ignored.
        mode: `"all"` or `"any"`.

    Returns:
        A handle whose `.remove()` removes the hook from every tensor.

    Raises:
        ValueError: For another `mode`.
        RuntimeError: In `"all"` mode, if one of `tensors` does not require grad.

    Examples:
        >>> import funcgrad as torch
        >>> a = torch.ones(2, requires_grad=True)
        >>> b = torch.ones(2, requires_grad=True)
        >>> c = a * 3
        >>> seen = []
        >>> h = torch.autograd.graph.register_multi_grad_hook(
        ...     (a, b, c), lambda grads: seen.append([g is not None for g in grads])
        ... )
        >>> c.sum().backward()
        >>> seen
        [[True, False, True]]
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    tensors = tuple(tensors)
    key = object()  # this registration's state within each backward pass
    lock = threading.Lock()
    if mode == "all":
        for i, t in enumerate(tensors):
            if not t.requires_grad:
                raise RuntimeError(
                    f"{_OP}: tensor {i} (shape {tuple(t.shape)}) does not require grad; "
                    f"mode='all' waits for a gradient of every tensor"
                )

        def inner(i: int) -> Callable:
            def hook(grad: Any) -> None:
                state = _task_state(key)
                with lock:
                    if not state:  # the first call in this pass: how many to expect
                        task = current_task()
                        assert task is not None  # _task_state checked it
                        state["expected"] = sum(task.will_run_hooks(t) for t in tensors)
                        state["count"] = 0
                        state["buffer"] = [None] * len(tensors)
                    state["buffer"][i] = grad
                    state["count"] += 1
                    done = state["count"] == state["expected"]
                if done:
                    fn(state["buffer"])

            return hook

        handles = tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors))
    else:

        def any_hook(grad: Any) -> None:
            state = _task_state(key)
            with lock:
                ran, state["ran"] = state.get("ran", False), True
            if not ran:
                fn(grad)

        handles = tuple(t.register_hook(any_hook) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
