"""One function, two worlds: the adapter every `funcgrad.nn.functional` function goes through.

An `F` function is written once, on arrays and graph nodes, with funcgrad's
primitives (`funcgrad.ops`, `funcgrad.numpy`), as a `jax.nn` function is.
`takes_tensors` makes it take `Tensor`s too: when any argument (positional,
keyword, or inside a list or tuple) is a `Tensor`, each tensor is replaced
by its node (when grad mode records it) or its array, the function runs,
and what it returns (a node, an array, or a tuple or list of them) comes
back as tensors, with the `grad_fn` of the last primitive applied. Without
tensors, the function runs as it is: arrays in, arrays out; nodes in, nodes
out.

Dtypes: the Tensor world passes its arrays as they are (a float32 tensor is
a float32 array); Python numbers stay weak (NEP 50), so a function that
writes `x * 0.5` or `x + eps` keeps float32 in both worlds. Operands of two
float dtypes are not promoted by the adapter (PyTorch's `F` functions
mostly refuse them); NumPy's promotion applies.

Other helpers for the `F` modules (all usable by the other families):

* `value(x)`: the array behind a tensor, node or array;
* `is_tensor(x)`: whether `x` is a `Tensor`;
* `update_(target, new)`: write `new` into `target` in place (a running
  statistic): a `Tensor` (without recording a gradient, its version bumped
  as by `copy_`) or a writeable NumPy array.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from funcgrad.graph import Node
from funcgrad.ops.named import named
from funcgrad.tensors import grad_mode as _grad_mode
from funcgrad.tensors.tensor_class import (
    Tensor,
    _any_volatile,
    _graph_constant,
    _result_class,
    _unwrap,
    _wrap,
)

__all__ = ["is_tensor", "takes_tensors", "update_", "value"]


def _has_tensor(args: Any, kwargs: dict[str, Any]) -> bool:
    for a in args:
        if isinstance(a, Tensor):
            return True
        if type(a) is list or type(a) is tuple:
            for v in a:
                if isinstance(v, Tensor):
                    return True
    for a in kwargs.values():
        if isinstance(a, Tensor):
            return True
        if type(a) is list or type(a) is tuple:
            for v in a:
                if isinstance(v, Tensor):
                    return True
    return False


def takes_tensors(
    fn: Callable[..., Any] | None = None,
    *,
    keep: tuple[str, ...] = (),
    grad_fn: str | Callable[..., str | None] | None = None,
) -> Any:
    """Make `fn` (written on arrays and nodes) take and return `Tensor`s as well.

    Args:
        fn: A function of arrays and nodes, written with funcgrad primitives.
        keep: Names of parameters passed through as they are (tensors too):
            those the function writes into in place (running statistics, an
            embedding's weight under `max_norm`) with `update_`, and reads
            with `value`. Use as `@takes_tensors(keep=("running_mean",))`.
        grad_fn: PyTorch's `grad_fn` name of the result, where PyTorch
            computes `fn` with one kernel (`"NativeLayerNormBackward0"`), or a
            function of `fn`'s arguments giving it (or None: the last
            primitive's name). A recorded result then goes through
            `funcgrad.ops.named.named`, which carries the name.

    Returns:
        The same function, which also accepts tensors (anywhere in its
        arguments) and then returns tensors.

    Examples:
        >>> import numpy as np, funcgrad as torch
        >>> from funcgrad.nn.functional._adapt import takes_tensors
        >>> from funcgrad.ops.elementwise import multiply
        >>> @takes_tensors
        ... def double(x):
        ...     return multiply(x, 2.0)
        >>> double(np.array([1.0, 2.0]))
        array([2., 4.])
        >>> t = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> double(t).grad_fn.name()
        'MulBackward0'
    """
    if fn is None:
        return functools.partial(takes_tensors, keep=keep, grad_fn=grad_fn)
    signature = inspect.signature(fn) if keep else None

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _has_tensor(args, kwargs):
            return fn(*args, **kwargs)
        name = grad_fn(*args, **kwargs) if callable(grad_fn) else grad_fn
        volatile = _any_volatile(args) or _any_volatile(tuple(kwargs.values()))
        record = not volatile and _grad_mode.is_grad_enabled()
        if signature is not None:
            bound = signature.bind(*args, **kwargs)
            args, kwargs = (), dict(bound.arguments)
            kept = {k: kwargs.pop(k) for k in keep if k in kwargs}
        else:
            kept = {}
        unwrapped = [_unwrap(a, record) for a in args]
        if record:
            _share_constants(args, unwrapped)
        out = fn(*unwrapped, **{k: _unwrap(v, record) for k, v in kwargs.items()}, **kept)
        if name is not None and type(out) is Node:
            out = named(out, grad_fn=name)
        return _wrap(out, _result_class((*args, *kwargs.values())), volatile)

    wrapper.__funcgrad_both_worlds__ = True  # type: ignore[attr-defined]
    return wrapper


def _share_constants(args: tuple[Any, ...], unwrapped: list[Any]) -> None:
    """Give the graph the writeable arrays of constant tensors as `Tensor` operations do.

    When a recorded tensor is among `args`, each constant tensor's writeable
    NumPy array in `unwrapped` is replaced by what the graph should record
    (`tensor_class._graph_constant`): the array itself, locked read-only,
    when nothing but its tensor holds it (a batch `from_numpy(x.copy())`:
    no copy per step), else a read-only copy.
    """
    if not any(isinstance(a, Tensor) and a._node is not None for a in args):
        return
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a._node is None:
            # NOTE: `v` is the local `_graph_constant`'s reference count expects (`_apply`'s)
            v = unwrapped[i]
            if type(v) is np.ndarray and v.flags.writeable:
                unwrapped[i] = _graph_constant(unwrapped, i)
            del v


def is_tensor(x: Any) -> bool:
    """Return whether `x` is a `Tensor` (of the PyTorch-style layer)."""
    return isinstance(x, Tensor)


def value(x: Any) -> Any:
    """Return the array behind `x`: a tensor's, a node's, or `x` itself."""
    if isinstance(x, Tensor):
        return x._value
    if type(x) is Node:
        return x.value
    return x


def update_(target: Any, new: Any) -> None:
    """Write `new` into `target` in place, recording no gradient (running statistics).

    Args:
        target: A `Tensor` (updated as by `target.copy_(new)` under
            `no_grad`) or a writeable NumPy array (assigned into).
        new: The new value: an array, a node (its value) or a tensor.

    Raises:
        TypeError: If `target` is a graph node or a read-only array, which
            cannot change in place.
    """
    new = value(new)
    if isinstance(target, Tensor):
        with _grad_mode.no_grad():
            target.copy_(new)
        return
    if type(target) is Node or (isinstance(target, np.ndarray) and not target.flags.writeable):
        raise TypeError(
            "funcgrad.nn.functional: running statistics are updated in place, so they must "
            "be tensors or writeable arrays, not graph nodes or read-only arrays; pass "
            "training=False, or running_mean=None and running_var=None, in traced code"
        )
    target[...] = new
