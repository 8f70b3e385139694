"""The imperative backward pass: `Tensor.backward` and `autograd.grad` on the functional walk.

Every gradient comes from `funcgrad.transforms.reverse.walk`. This module
only translates between tensors and nodes:

* tensor hooks become graph hooks: a hook source (`_tensor_hooks`) tells
  every walk which nodes of its graph belong to tensors with hooks, so the
  walk runs on the hooked graph (`funcgrad.with_hooks`);
* after the walk, gradients go to `.grad`: the documented order is tensor
  hooks, then `retain_grad`, then accumulation into leaves, then
  post-accumulate hooks;
* complex gradients: the walk uses the functional API's (JAX's) convention,
  the tensors PyTorch's, and `torch_convention` converts between them
  wherever a gradient crosses (seeds, hooks, `.grad`, `autograd.grad`,
  `autograd.Function`).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from sys import getrefcount as _getrefcount

import numpy

from funcgrad.backend import xp_of
from funcgrad.backend.arrays import REFCOUNTS_MEASURED
from funcgrad.graph import Node, toposort
from funcgrad.ops.elementwise import conjugate
from funcgrad.tensors.base import TensorBase, _new_like, owner_of
from funcgrad.transforms.hooks import checked_hook
from funcgrad.transforms.reverse import _needed, ones_seed, walk

_ndarray = numpy.ndarray

# Non-leaf tensors with hooks or retain_grad: id(node) -> (node, weakref(tensor)).
# Leaves need no entry: their node's params name their owner.
_TRACKED: dict[int, tuple] = {}
# Tensors that have hooks (so a walk with none anywhere pays nothing):
# id(tensor) -> weakref(tensor).
# NOTE: not a WeakSet: a set compares weak references with `==`, which on
# tensors is elementwise and cannot be turned into a bool.
_HOOKED: dict[int, weakref.ref] = {}
_ids = itertools.count()
# Held while gradients are accumulated into `.grad` (see run_backward).
_ACCUMULATING = threading.Lock()


class BackwardTask:
    """The backward pass running on this thread (PyTorch's graph task).

    `funcgrad.autograd.graph.register_multi_grad_hook` asks it which tensors'
    hooks this pass runs (PyTorch's `_will_engine_execute_node`) and keeps its
    per-pass state in `state`. What that needs is computed on the first question.
    """

    def __init__(self, order, wrt, leaves):
        self._order, self._wrt, self._leaves = order, wrt, leaves
        self._leaf_ids: set[int] | None = None
        self._needed: set[int] | None = None
        self.state: dict = {}

    def will_run_hooks(self, t: TensorBase) -> bool:
        """Whether this pass runs `t`'s tensor hooks."""
        node = t._node
        if node is None or node.prim is None:  # a leaf
            if self._leaf_ids is None:
                self._leaf_ids = {id(t) for t in self._leaves}
            return id(t) in self._leaf_ids
        if self._needed is None:
            self._needed = _needed(self._order, {id(n) for n in self._wrt})
        return id(node) in self._needed

    # NOTE: the task is its own context manager (entered once per backward pass): a
    # generator-based contextlib one costs a few microseconds more per pass (issue 18, W6)
    def __enter__(self) -> BackwardTask:
        _pushed(self)
        return self

    def __exit__(self, *exc) -> None:
        stack = _TASKS.stack
        if stack:  # entered: never empty here
            stack.pop()


class _Tasks(threading.local):
    """This thread's running backward passes (`stack`: None until its first pass)."""

    stack: list[BackwardTask] | None = None  # a class default: no AttributeError raised to read it


_TASKS = _Tasks()


def _pushed(task: BackwardTask) -> list[BackwardTask]:
    """Push `task` on this thread's stack of running passes; return the stack (to pop it)."""
    stack = _TASKS.stack
    if stack is None:
        stack = _TASKS.stack = []
    stack.append(task)
    return stack


def current_task() -> BackwardTask | None:
    """The innermost backward pass running on this thread, or None."""
    stack = _TASKS.stack
    return stack[-1] if stack else None


_task = BackwardTask  # `with _task(order, wrt, leaves):` runs a pass as the current task


def torch_convention(g):
    """Convert a complex (co)tangent between JAX's convention and PyTorch's (both ways).

    The one conversion between the two layers' conventions (see
    `docs/concepts/complex.md`): the functional walk represents the gradient
    of a real loss `L` at `z = x + iy` as `dL/dx - i dL/dy` (JAX, HIPS
    autograd), PyTorch as `dL/dx + i dL/dy` (the conjugate Wirtinger
    derivative, times 2). A seed (`backward(gradient=)`) is converted on its
    way in, a gradient on its way out (`.grad`, `autograd.grad`, what a hook
    or `autograd.Function.backward` sees), and what a hook or a `backward`
    returns on its way back in. Both directions are the complex conjugate;
    real values (arrays or nodes) pass unchanged, at no cost.
    """
    if g is None:
        return g
    dtype = getattr(g, "dtype", None)
    if dtype is None or dtype.kind != "c":
        return g
    return conjugate(g)


def track(t: TensorBase) -> None:
    """Remember a tensor whose node carries hooks or retain_grad (weakly)."""
    node = t._node
    if node is None or node.prim is None:
        return
    key = id(node)
    _TRACKED[key] = (node, weakref.ref(t, lambda _: _TRACKED.pop(key, None)))


def add_hooked(t: TensorBase) -> None:
    """Remember (weakly) a tensor that has hooks, so walks consult it."""
    key = id(t)
    _HOOKED[key] = weakref.ref(t, lambda _: _HOOKED.pop(key, None))


def _tensor_of(node: Node):
    owner = owner_of(node)
    if owner is not None:
        return owner
    entry = _TRACKED.get(id(node))
    if entry is not None and entry[0] is node:
        t = entry[1]()
        if t is not None and t._node is node:
            return t
    return None


def _tensor_hooks(order) -> dict:
    """The hooks of the non-leaf tensors whose nodes are in `order`, as walk hooks.

    They are looked up when a pass runs (a removed hook never runs again, one
    added after the forward pass does) and passed to the walk explicitly.
    Leaf tensors' hooks run in `_leaf_grads`, on the sum over their nodes.
    """
    if not _HOOKED:
        return {}
    hooked = {}
    for ref in list(_HOOKED.values()):
        t = ref()
        if t is not None and t._node is not None and t._hooks and t._node.prim is not None:
            hooked[id(t._node)] = t
    found = {}
    if hooked:
        for node in order:
            t = hooked.get(id(node))
            if t is not None and t._node is node:
                found[node] = tuple(
                    _as_graph_hook(fn, t._op_class or type(t)) for fn in t._hooks.values()
                )
    return found


_TENSOR_HOOK = "funcgrad.Tensor.register_hook: the tensor hook"


def _run_tensor_hooks(t: TensorBase, g):
    """Pass a leaf's total gradient (array or node) through its tensor hooks."""
    assert t._hooks is not None  # callers run it only on tensors with hooks
    for fn in list(t._hooks.values()):
        g = _as_graph_hook(fn, t._op_class or type(t))(g)
    return g


def _as_graph_hook(fn, cls):
    def graph_hook(ct):
        result = fn(_wrap_grad(torch_convention(ct), cls))
        if result is None:
            return None
        return torch_convention(
            result._node
            if isinstance(result, TensorBase) and result._node is not None
            else (result._value if isinstance(result, TensorBase) else result)
        )

    graph_hook.__name__ = getattr(fn, "__name__", "hook")
    return checked_hook(graph_hook, _TENSOR_HOOK)


class RemovableHandle:
    """The handle `register_hook` returns; `.remove()` unregisters the hook."""

    def __init__(self, table: dict):
        self.id = next(_ids)
        self._table = table

    def remove(self) -> None:
        """Unregister the hook (doing it twice is harmless)."""
        self._table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _wrap_grad(g, cls):
    if type(g) is Node:
        return _new_like(cls, g.value, g)
    t = _new_like(cls, g, None)
    return t


def _roots_and_seeds(tensors, grad_tensors, create_graph, op):
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(
            f"{op}: got {len(grad_tensors)} gradients for {len(tensors)} tensors; pass one "
            f"gradient (or None for a one-element tensor) per tensor"
        )
    roots, seeds = [], []
    # NOTE: indexed rather than `enumerate(zip(..., strict=True))` (the lengths are equal, checked
    # above), which costs more than the rest of a one-tensor call's bookkeeping
    for k in range(len(tensors)):
        t, g = tensors[k], grad_tensors[k]
        if not isinstance(t, TensorBase):
            raise TypeError(f"{op}: element {k} of tensors is a {type(t).__name__}, not a Tensor")
        if t._volatile:
            raise RuntimeError(f"element {k} of variables tuple is volatile")
        if t._node is None:
            raise RuntimeError(
                f"element {k} of tensors does not require grad and does not have a grad_fn "
                f"(a tensor of shape {tuple(t.shape)}). It was made from tensors that do not "
                f"require grad, under no_grad(), by .detach() or .data, or from a NumPy "
                f"array; set requires_grad=True on the inputs (the leaves), not on the result"
            )
        if g is None:
            value = t._value
            if value.dtype.kind == "c":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs (element "
                    f"{k} is complex, {value.dtype}); take .real, .abs() or "
                    f".abs() ** 2 first, or pass gradient="
                )
            if value.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (element {k} "
                    f"has shape {tuple(t.shape)}). Reduce it first (out.sum().backward()), "
                    f"pass out.backward(gradient=...) of shape {tuple(t.shape)}, or use "
                    f"funcgrad.autograd.functional.jacobian"
                )
            seed = ones_seed(value, value.dtype)
            if create_graph and type(seed) is _ndarray:
                # NOTE: this pass's own array, locked: the recorded rules take it (and
                # its broadcast views) without a copy, as `funcgrad.hvp` does
                seed.setflags(write=False)
        else:
            if isinstance(g, TensorBase):
                g_node, g_value = g._node, g._value
            else:  # an array, a list or a number: the output's dtype and device
                g_node, g_value = None, xp_of(t._value).asarray(g, dtype=t._value.dtype)
            shape = t._value.shape
            if g_value.shape != shape and tuple(g_value.shape) != tuple(shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{k}] has a shape of "
                    f"funcgrad.Size({list(g_value.shape)}) and output[{k}] has a shape of "
                    f"funcgrad.Size({list(shape)})"
                )
            seed = g_node if (create_graph and g_node is not None) else g_value
            if not create_graph and seed.dtype != t._value.dtype:
                seed = seed.astype(t._value.dtype)
            if type(seed) is not _ndarray or seed.dtype.kind == "c":
                seed = torch_convention(seed)  # PyTorch's convention in, the walk's inside
        roots.append(t._node)
        seeds.append(seed)
    return tuple(roots), tuple(seeds)


def _check_inputs(inputs, op: str) -> tuple:
    inputs = (inputs,) if isinstance(inputs, TensorBase) else tuple(inputs)
    for k, t in enumerate(inputs):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{op}: element {k} of inputs is a {type(t).__name__}, not a Tensor")
        if t._node is None:
            raise RuntimeError(
                f"{op}: one of the differentiated Tensors (input {k}, shape "
                f"{tuple(t._value.shape)}) does not require grad; set requires_grad=True on it"
            )
    return inputs


def _nodes_by_tensor(order, inputs) -> dict:
    """`{id(tensor): (tensor, [its nodes in the graph])}` for the tensors the graph touches.

    A leaf may own several nodes of one graph: a value rebound by an in-place
    update under `no_grad` (`x.data.fill_(0)`, `w -= lr * w.grad`) gets a new
    leaf node, and graphs recorded before still hold the old one. Gradients
    of all of them belong to the tensor, as in PyTorch.
    """
    found: dict[int, tuple] = {}
    tracked = _TRACKED
    for node in order:
        if node.prim is not None and (not tracked or id(node) not in tracked):
            continue  # an inner node that no tensor retains or hooks
        t = _tensor_of(node)
        if t is None or t._node is None:
            continue
        entry = found.get(id(t))
        if entry is None:
            found[id(t)] = (t, [node])
        elif node not in entry[1]:
            entry[1].append(node)
    if inputs is not None:  # non-leaf inputs need no hook or retain_grad to be found
        in_graph = set(order)  # nodes hash by identity
        for t in inputs:
            if t._node in in_graph and id(t) not in found:
                found[id(t)] = (t, [t._node])
    return found


def _sum_grads(grads, nodes):
    grads = grads._grads  # the GradMap's dict: its Mapping.get is two Python calls
    if len(nodes) == 1:
        return grads.get(nodes[0])
    total = None
    for node in nodes:
        g = grads.get(node)
        if g is not None:
            total = g if total is None else total + g
    return total


def run_backward(tensors, grad_tensors, inputs=None, create_graph: bool = False) -> None:
    """Compute gradients of `tensors` and accumulate them into leaves' `.grad`.

    Implements `Tensor.backward` and `autograd.backward`. The order of
    effects is: tensor hooks (inside the walk), then `retain_grad`, then
    accumulation into the leaves' `.grad`, then post-accumulate hooks.
    """
    op = "funcgrad.autograd.backward"
    roots, seeds = _roots_and_seeds(tensors, grad_tensors, create_graph, op)
    if inputs is not None:
        inputs = _check_inputs(inputs, op)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        chosen = {id(t) for t in inputs}
    order = toposort(*roots)
    targets = []
    for t, nodes in _nodes_by_tensor(order, inputs).values():
        if inputs is not None:
            if id(t) in chosen:
                targets.append((t, nodes))
        elif t._node.prim is None or t._retains_grad:  # a leaf, or retains its grad
            targets.append((t, nodes))
    wrt = tuple([n for _, nodes in targets for n in nodes])
    # `with _task(...)`, in one call
    stack = _pushed(BackwardTask(order, wrt, [t for t, _ in targets if t._node.prim is None]))
    try:
        grads = walk(
            roots,
            seeds,
            wrt,
            create_graph=create_graph,
            order=order,
            hooks=_tensor_hooks(order) if _HOOKED else None,
        )
        # retain_grad (non-leaves) first, then accumulation into leaves, then post hooks.
        seen: set[int] = set()
        retained, leaves = [], []
        for t, nodes in targets:
            g = _sum_grads(grads, nodes)
            if g is None:
                continue
            if t.is_leaf:
                if t._hooks:
                    g = _run_tensor_hooks(t, g)
                if type(g) is not _ndarray or g.dtype.kind == "c":  # a real array as it is
                    g = torch_convention(g)
                if t._hooks:
                    seen.add(id(g))  # maybe the user's array: `.grad` gets a copy
                leaves.append((t, g))
            else:
                retained.append((t, torch_convention(g)))
        # NOTE: `.grad += g` is a read-modify-write (NumPy releases the GIL inside
        # the add): concurrent backward passes take turns here, as PyTorch's do.
        # Both loops hold each gradient the same way (see _PRIVATE_REFS).
        with _ACCUMULATING:
            for t, g in retained:
                _accumulate(t, g, create_graph, seen)
            for t, g in leaves:
                _accumulate(t, g, create_graph, seen)
        for t, _ in leaves:
            if t._post_hooks:
                for hook in list(t._post_hooks.values()):
                    hook(t)
    finally:
        stack.pop()


# References to a gradient array that `_owned` expects when nothing outside
# this backward pass holds it: the walk's GradMap, the `leaves` list entry and
# the loop variable of `run_backward`, the arguments of `_accumulate` and of
# `_owned`, and `getrefcount`'s own argument (checked by
# tests/tensors/test_inplace_semantics.py). PyTorch's AccumulateGrad steals a
# new gradient under the same kind of rule (its use count).
_PRIVATE_REFS = 6


def _owned(g, seen: set):
    """`g`, copied unless `.grad` may own it: a writeable array that nothing else holds.

    NOTE: `.grad` is accumulated in place (see `_accumulate`), so its array
    must be its own. Rules pass arrays through (`add` gives both inputs one
    array, `x + 0` passes on the seed), and hooks return the user's tensors;
    without this `x.grad.numpy()[:] = 0` could change `y.grad`, and the next
    backward could write into the user's `gradient=`.
    """
    if type(g) is _ndarray:
        if (
            not g.flags.writeable
            or g.base is not None
            or id(g) in seen
            or not REFCOUNTS_MEASURED
            or _getrefcount(g) > _PRIVATE_REFS
        ):
            g = g.copy()
        seen.add(id(g))
    return g


def _accumulate(t: TensorBase, g, create_graph: bool, seen: set) -> None:
    cls = t._op_class or type(t)
    grad = t._grad
    if grad is None:
        t._grad = _wrap_grad(_owned(g, seen), cls)
    elif create_graph or grad._node is not None:
        old = grad._node if grad._node is not None else grad._value
        t._grad = _wrap_grad(old + g, cls)  # a node: the sum is recorded
    else:
        value = g.value if type(g) is Node else g
        old = grad._value
        if (
            type(old) is _ndarray
            and old.flags.writeable
            and old.shape == value.shape
            and old.dtype == value.dtype
        ):
            # NOTE: in place, as PyTorch accumulates: `x.grad` stays the same
            # tensor and arrays taken from it (`x.grad.numpy()`) show the sum.
            # An array a graph holds is read-only (locked when a graph took it
            # as a constant): then the sum is a new array, and the graph keeps
            # its value (PyTorch would raise "modified by an inplace operation").
            numpy.add(old, value, out=old)
        else:
            grad._set_value(old + value)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of `tensors` into the leaves' `.grad` (as `torch.autograd.backward`).

    Args:
        tensors: A tensor or a sequence of tensors.
        grad_tensors: The vectors of the vector-Jacobian products (None
            entries allowed for one-element tensors).
        retain_graph: Ignored (graphs are immutable).
        create_graph: Make the gradients differentiable.
        inputs: Accumulate only into these tensors.
    """
    tensors = (tensors,) if isinstance(tensors, TensorBase) else tuple(tensors)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    elif isinstance(grad_tensors, TensorBase):
        grad_tensors = (grad_tensors,)
    run_backward(tensors, tuple(grad_tensors), inputs=inputs, create_graph=create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=False,
    materialize_grads=False,
):
    """Return the gradients of `outputs` with respect to `inputs` (without touching `.grad`).

    Args:
        outputs: A tensor or a sequence of tensors.
        inputs: A tensor or a sequence of tensors that require grad.
        grad_outputs: The vectors of the vector-Jacobian product, one per
            output (None entries allowed for one-element outputs).
        retain_graph: Ignored (graphs are immutable and can be reused).
        create_graph: Make the returned gradients differentiable.
        allow_unused: Return None for inputs the outputs do not depend on
            (otherwise that is an error).
        materialize_grads: Return zeros instead of None for unused inputs.

    Returns:
        A tuple with one gradient tensor per input.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> torch.autograd.grad((x * x).sum(), x)
        (tensor([2., 4.]),)
    """
    single_out = isinstance(outputs, TensorBase)
    outputs = (outputs,) if single_out else tuple(outputs)
    inputs = (inputs,) if isinstance(inputs, TensorBase) else tuple(inputs)
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    elif isinstance(grad_outputs, TensorBase):
        grad_outputs = (grad_outputs,)
    op = "funcgrad.autograd.grad"
    roots, seeds = _roots_and_seeds(outputs, tuple(grad_outputs), create_graph, op)
    inputs = _check_inputs(inputs, op)
    order = toposort(*roots)
    in_graph = set(order)  # nodes hash by identity
    # Each input's nodes in this graph: its node, and for a leaf any older
    # leaf node it owned when the graph was recorded (see _nodes_by_tensor).
    owned = _nodes_by_tensor(order, None)
    nodes_of = []
    for t in inputs:
        node = t._node
        nodes = [node] if node in in_graph else []
        if node.prim is None and id(t) in owned:
            nodes += [n for n in owned[id(t)][1] if n is not node]
        nodes_of.append(nodes)
    wrt = tuple(nodes_of[0]) if len(nodes_of) == 1 else tuple(n for ns in nodes_of for n in ns)
    leaves = [t for k, t in enumerate(inputs) if nodes_of[k] and t._node.prim is None]
    stack = _pushed(BackwardTask(order, wrt, leaves))  # `with _task(...)`, in one call
    try:
        grads = walk(
            roots,
            seeds,
            wrt,
            create_graph=create_graph,
            order=order,
            hooks=_tensor_hooks(order) if _HOOKED else None,
        )
        result = []
        for k in range(len(inputs)):
            t, nodes = inputs[k], nodes_of[k]
            if not nodes:
                if materialize_grads:
                    result.append(
                        _wrap_grad(xp_of(t._value).zeros_like(t._value), t._op_class or type(t))
                    )
                    continue
                if not allow_unused:
                    raise RuntimeError(
                        f"One of the differentiated Tensors (input {k}, shape {tuple(t.shape)}) "
                        f"appears to not have been used in the graph. Set allow_unused=True if "
                        f"this is the desired behavior."
                    )
                result.append(None)
                continue
            g = _sum_grads(grads, nodes)
            if t._hooks and t.is_leaf:
                g = _run_tensor_hooks(t, g)
            if type(g) is not _ndarray or g.dtype.kind == "c":  # a real array passes as it is
                g = torch_convention(g)
            result.append(_wrap_grad(g, t._op_class or type(t)))
        return tuple(result)
    finally:
        stack.pop()
