"""`autograd.Function`: operations with a user-written backward, the PyTorch way.

A subclass defines `forward(ctx, *args)` and `backward(ctx, *grad_outputs)`
(static methods, called through `.apply`), or, in the legacy style of
PyTorch 0.3, plain methods `forward(self, ...)` / `backward(self, ...)`
called on an instance: `MyFn()(a, b)`.

Underneath it is the call mechanism of `funcgrad.custom_vjp`
(`funcgrad.transforms.calls`), with PyTorch's conventions: the forward runs
once, with grad disabled, on the tensors themselves; each differentiable
tensor it returns becomes a node of the call primitive `function_call`
whose inputs are the nodes (or frozen values) of the tensor arguments and
whose VJP rule calls the user's `backward`; forward mode is its transpose,
as for `custom_vjp`. So every gradient still comes from the functional
walk, and the rest of the imperative layer (hooks, `retain_grad`,
`autograd.grad`, `create_graph=True`) works on the outputs like on any
tensor.

What `backward` sees is rebuilt from the node at each call: `grad_outputs`
wrap the cotangents, and `ctx.saved_tensors` wraps the node's own inputs
and output where the saved tensors were inputs or outputs of `forward`.
Under `create_graph=True` these are tensors on graph nodes, so a `backward`
written with tensor operations is differentiable again (double backward),
and a tensor changed in place after `forward` cannot corrupt a gradient:
the node kept the value it had.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from funcgrad.backend import freeze, xp_of
from funcgrad.errors import ShapeError, _with_link
from funcgrad.graph import Node, make_node
from funcgrad.tensors import grad_fn as _grad_fn
from funcgrad.tensors import grad_mode
from funcgrad.tensors.engine import torch_convention
from funcgrad.tensors.grad_fn import BackwardFunction
from funcgrad.tensors.tensor_class import Tensor, _any_volatile, _new_like
from funcgrad.transforms.calls import Call, call_primitive

__all__ = ["Function", "FunctionBackward", "FunctionBackwardError", "FunctionCtx", "function_call"]


class FunctionBackwardError(ShapeError, RuntimeError):
    """A custom `Function.backward` returned the wrong number of gradients or a wrong shape.

    It is a `funcgrad.ShapeError` and, as in PyTorch, a `RuntimeError`. The
    message names the Function class, the position, and the expected and
    returned count or shape. Fix: return one gradient per argument of
    `forward` (`None` for arguments that need none), each shaped like its
    argument.

    Examples:
        >>> import funcgrad as torch
        >>> class Twice(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, y):
        ...         return x + y
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         return grad_output
        >>> x = torch.ones(2, requires_grad=True)
        >>> Twice.apply(x, x).sum().backward()
        Traceback (most recent call last):
        ...
        funcgrad.autograd.function.FunctionBackwardError: function Twice.backward returned an incorrect number of gradients (expected 2, got 1)...
    """

    def __init__(self, message: str):
        # NOTE: documented under ShapeError in docs/errors.md, so link there.
        Exception.__init__(self, _with_link(message, ShapeError))


# --- the context ---------------------------------------------------------------

# Per thread: (ctx, saved tensors) of the backward calls running now, innermost
# last. `ctx.saved_tensors` reads it, so the same ctx can serve a first-order
# and a create_graph backward (or two threads) with the right tensors each.
_local = threading.local()


def _running() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


class FunctionCtx:
    """The `ctx` handed to `forward` and `backward`: what one application remembers.

    Set any attribute on it in `forward` (`ctx.constant = 2.0`) to read it
    in `backward`. Legacy (0.3-style) Functions are their own context:
    `self.save_for_backward(...)`, `self.saved_tensors`.

    Attributes:
        needs_input_grad: One bool per argument of `forward`: whether that
            argument is a tensor that requires grad (so `backward` may skip
            the others).

    Examples:
        >>> import funcgrad as torch
        >>> class Scale(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, factor):
        ...         ctx.factor = factor
        ...         return x * factor
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         return grad_output * ctx.factor, None
        >>> x = torch.ones(2, requires_grad=True)
        >>> Scale.apply(x, 3.0).sum().backward()
        >>> x.grad
        tensor([3., 3.])
    """

    # Class-level defaults: a legacy subclass need not call super().__init__().
    needs_input_grad: tuple = ()
    _to_save: tuple | None = None
    _non_differentiable: tuple | None = None
    _materialize_grads: bool = True

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for `backward`, which reads them as `ctx.saved_tensors`.

        Save inputs and outputs of `forward` this way rather than as
        attributes: then `backward` gets them on the graph, so double
        backward works and in-place changes after `forward` do no harm.

        Raises:
            TypeError: If an argument is neither a tensor nor None.
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors or None, but argument {i} is "
                    f"of type {type(t).__name__}; keep other values as attributes of ctx "
                    f"(ctx.value = ...)"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to `save_for_backward`, as `backward` should use them.

        Inside `backward` these are rebuilt from the graph: the inputs and
        outputs of `forward` as the node recorded them (on graph nodes under
        `create_graph=True`); elsewhere, the objects that were saved.
        """
        for ctx, tensors in reversed(_running()):
            if ctx is self:
                return tensors
        return tuple(self._to_save or ())

    # PyTorch 0.3's name.
    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Declare outputs of `forward` that get no gradient (they will not require grad).

        `backward` still receives a gradient for each of them: zeros (or
        None after `set_materialize_grads(False)`).
        """
        self._non_differentiable = (self._non_differentiable or ()) + tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Choose what `backward` gets for outputs without a gradient: zeros (default) or None."""
        self._materialize_grads = bool(value)

    def mark_dirty(self, *tensors) -> None:
        """Not supported: funcgrad's forward must not change its inputs in place.

        Raises:
            NotImplementedError: Always; return a new tensor instead.
        """
        raise NotImplementedError(
            "funcgrad.autograd.Function: ctx.mark_dirty (a forward that changes its "
            "inputs in place) is not supported; return a new tensor from forward instead"
        )


# --- the primitive -----------------------------------------------------------------

_INPUT, _OUTPUT, _CONSTANT = "input", "output", "constant"
_DIFF, _NONDIFF, _OTHER = "differentiable", "non-differentiable", "not a tensor"
_TENSOR_ARG = object()  # the place of a tensor argument in _Call.template


class _Call(Call):
    """What the nodes of one application share (their `fn` parameter): a VJP-defined `Call`.

    It holds no node, so a graph holds no reference cycle through it. Its
    JVP is the transpose of `backward` (`funcgrad.transforms.calls`).
    """

    __slots__ = (
        "cls",
        "ctx",
        "name",
        "template",
        "tensor_pos",
        "arg_classes",
        "saved",
        "out_kinds",
        "out_values",
        "out_classes",
    )
    cls: type[Function]
    ctx: FunctionCtx
    name: str  # the grad_fn's name
    template: tuple[Any, ...]  # forward's arguments, _TENSOR_ARG where a tensor was
    tensor_pos: tuple[int, ...]  # where the tensors are in template
    arg_classes: tuple[type[Tensor], ...]  # the class of each tensor argument
    saved: tuple[Any, ...]  # how to rebuild each saved tensor (see _saved_spec)
    out_kinds: tuple[str, ...]  # _DIFF, _NONDIFF or _OTHER, per output
    out_values: tuple[Any, ...]  # the (frozen) value of each tensor output
    out_classes: tuple[Any, ...]  # the class of each tensor output (None: not a tensor)

    def __repr__(self) -> str:
        return f"<autograd.Function {self.cls.__name__}>"

    def outputs(self, leaves: tuple) -> list:
        """Run the user's forward again on plain arrays (the primitive's forward)."""
        args = list(self.template)
        for j, p in enumerate(self.tensor_pos):
            args[p] = _new_like(self.arg_classes[j], leaves[j], None)
        ctx = copy.copy(self.ctx)
        ctx._to_save = ctx._non_differentiable = None
        with grad_mode.no_grad():
            output = _run_forward(self.cls, ctx, tuple(args))
        outputs = tuple(output) if isinstance(output, (tuple, list)) else (output,)
        return [o._value if isinstance(o, Tensor) else o for o in outputs]

    def vjp(self, ct, out, leaves: tuple, index: int) -> tuple:
        return _call_backward(self, ct, out, leaves, index)

    def transposition_error(self, error: Exception | None) -> str:
        name = self.cls.__name__
        if error is None:
            return (
                f"funcgrad.autograd.Function: forward mode (jvp, jacfwd) transposes "
                f"{name}.backward, but it returned a nonzero gradient that does not "
                f"depend on grad_output (computed with .data, .detach(), .numpy() or "
                f"a constant?); write backward with tensor operations on grad_output"
            )
        return (
            f"funcgrad.autograd.Function: forward mode (jvp, jacfwd) transposes "
            f"{name}.backward, which needs it written with tensor operations on "
            f"grad_output, but it failed when grad_output was on a graph: {error}"
        )


def _wrap(cls, x) -> Tensor:
    if type(x) is Node:
        return _new_like(cls, x.value, x)
    return _new_like(cls, x, None)


def _resolve(call: _Call, spec, out, inputs, index: int, graph: bool):
    """Rebuild one saved tensor from the node being differentiated."""
    if spec is None:
        return None
    kind = spec[0]
    if kind is _INPUT:
        j = spec[1]
        return _wrap(call.arg_classes[j], inputs[j])
    if kind is _OUTPUT:
        p = spec[1]
        cls = call.out_classes[p]
        if p == index:
            return _wrap(cls, out)
        if type(out) is Node:
            # A sibling output: an equal node (same primitive, inputs and params).
            return _wrap(
                cls,
                make_node(
                    function_call, tuple(inputs), {"fn": call, "index": p}, call.out_values[p]
                ),
            )
        return _wrap(cls, call.out_values[p])
    _, cls, value, node = spec
    return _new_like(cls, value, node if graph else None)


def _call_backward(call: _Call, ct, out, inputs, index: int) -> tuple:
    """Call the user's backward for the cotangent `ct` of output `index`; one cotangent per input."""
    # The graph is built when differentiating again (create_graph) or when
    # forward mode transposes this rule (ct is then a node).
    graph = type(out) is Node or type(ct) is Node
    ctx = call.ctx
    grads: list[Tensor | None] = []
    for p, kind in enumerate(call.out_kinds):
        if p == index:  # backward sees PyTorch's complex convention (torch_convention)
            grads.append(_wrap(call.out_classes[p], torch_convention(ct)))
        elif kind is _OTHER or not ctx._materialize_grads:
            grads.append(None)
        else:
            v = call.out_values[p]
            grads.append(_new_like(call.out_classes[p], xp_of(v).zeros_like(v), None))
    saved = tuple(_resolve(call, s, out, inputs, index, graph) for s in call.saved)
    running = _running()
    running.append((ctx, saved))
    try:
        with grad_mode.enable_grad() if graph else grad_mode.no_grad():
            result = call.cls.backward(ctx, *grads)
    finally:
        running.pop()
    return _check_result(call, result, inputs, graph)


def _expandable(shape: tuple, to: tuple) -> bool:
    """Whether an array of `shape` broadcasts to `to` (so a gradient of shape `to` sums back)."""
    if len(shape) > len(to):
        return False
    return all(s == t or s == 1 for s, t in zip(shape[::-1], to[::-1], strict=False))


def _check_result(call: _Call, result, inputs, graph: bool) -> tuple:
    """Check what backward returned against forward's arguments; one cotangent per tensor input."""
    name = call.cls.__name__
    n_args = len(call.template)
    result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
    if len(result) > n_args and all(g is None for g in result[n_args:]):
        result = result[:n_args]  # trailing Nones are harmless (PyTorch allows them)
    if len(result) != n_args:
        raise FunctionBackwardError(
            f"function {name}.backward returned an incorrect number of gradients (expected "
            f"{n_args}, got {len(result)}): return one gradient per argument of forward, "
            f"None for arguments that need none"
        )
    tensor_index = {p: j for j, p in enumerate(call.tensor_pos)}
    cts: list[Any] = []
    for p, g in enumerate(result):
        j = tensor_index.get(p)
        if j is None:
            if g is not None:
                raise FunctionBackwardError(
                    f"function {name}.backward returned a gradient different than None at "
                    f"index {p}, but the corresponding forward input was not a Tensor (it is "
                    f"a {type(call.template[p]).__name__}); return None there"
                )
            continue
        if g is None:
            cts.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(
                f"function {name}.backward returned a {type(g).__name__} at index {p}; "
                f"expected a Tensor or None"
            )
        x = inputs[j]
        shape = tuple(x.shape) if type(x) is Node else tuple(getattr(x, "shape", ()))
        g_shape = tuple(g.shape)
        if g_shape != shape and not _expandable(shape, g_shape):
            raise FunctionBackwardError(
                f"function {name}.backward returned an invalid gradient at index {p} - got "
                f"{list(g_shape)} but expected shape compatible with {list(shape)} (the "
                f"shape of argument {p} of forward)"
            )
        cts.append(torch_convention(g._node if graph and g._node is not None else g._value))
    return tuple(cts)


function_call = call_primitive(
    "function_call", "an output of a user-defined autograd.Function (its backward is the VJP)"
)


class FunctionBackward(BackwardFunction):
    """The `grad_fn` of a Function's output, named after the class: `<MyFnBackward>`.

    As in PyTorch, the context's attributes can be read through it
    (`y.grad_fn.saved_tensors`, `y.grad_fn.needs_input_grad`).
    """

    __slots__ = ()

    def name(self) -> str:
        """Return `'<class name>Backward'`, as PyTorch names a custom Function's node."""
        return self._node.params["fn"].name

    def __getattr__(self, attr):
        if attr.startswith("__") or attr == "_node":
            raise AttributeError(attr)
        return getattr(self._node.params["fn"].ctx, attr)


# --- applying a Function -----------------------------------------------------------


def _run_forward(cls, ctx, args):
    if cls.setup_context is not Function.setup_context:
        output = cls.forward(*args)
        cls.setup_context(ctx, args, output)
        return output
    return cls.forward(ctx, *args)


def _apply_function(cls, ctx, args: tuple):
    volatile = _any_volatile(args)
    record = grad_mode.is_grad_enabled() and not volatile
    needs = tuple(record and isinstance(a, Tensor) and a._node is not None for a in args)
    ctx.needs_input_grad = needs
    tensor_pos = tuple(p for p, a in enumerate(args) if isinstance(a, Tensor))
    # The node's inputs, taken before forward runs: nodes, or frozen values.
    inputs = tuple(args[p]._node if needs[p] else freeze(args[p]._value) for p in tensor_pos)

    with grad_mode.no_grad():
        output = _run_forward(cls, ctx, args)
    single = not isinstance(output, (tuple, list))
    outputs = (output,) if single else tuple(output)
    arg_ids = {id(args[p]) for p in tensor_pos}

    if not any(needs):
        # Nothing to record; outputs are returned as forward made them.
        if volatile:
            outputs = tuple(_volatile_copy(o, arg_ids) for o in outputs)
        ctx._non_differentiable = None
        return outputs[0] if single else outputs

    non_diff = {id(t) for t in ctx._non_differentiable or ()}
    call = _Call()
    call.cls = cls
    call.ctx = ctx
    call.name = f"{cls.__name__}Backward"
    call.template = tuple(_TENSOR_ARG if isinstance(a, Tensor) else a for a in args)
    call.tensor_pos = tensor_pos
    call.arg_classes = tuple(type(args[p]) for p in tensor_pos)
    kinds: list[str] = []
    values: list[Any] = []
    classes: list[Any] = []  # a tensor class, or None for an output that is not a tensor
    for o in outputs:
        if not isinstance(o, Tensor):
            kinds.append(_OTHER)
            values.append(None)
            classes.append(None)
            continue
        value = freeze(o._value)
        diff = id(o) not in non_diff and value.dtype.kind in "fc"
        kinds.append(_DIFF if diff else _NONDIFF)
        values.append(value)
        classes.append(type(o))
    call.out_kinds, call.out_values, call.out_classes = tuple(kinds), tuple(values), tuple(classes)
    call.saved = tuple(_saved_spec(t, args, tensor_pos, outputs, kinds) for t in ctx._to_save or ())
    ctx._non_differentiable = None

    # NOTE: one node per differentiable output (nodes hold one value each, as
    # for custom_vjp), so a walk calls backward once per output that receives
    # a cotangent, the others getting zeros (or None without materialized
    # grads), and sums the results. Because backward is linear in its
    # grad_outputs this equals one call with all of them.
    results = []
    for p, o in enumerate(outputs):
        if kinds[p] is _DIFF:
            node = make_node(function_call, inputs, {"fn": call, "index": p}, values[p])
            t = _new_like(classes[p], values[p], node)
            t._grad_fn = FunctionBackward(node)
            results.append(t)
        elif kinds[p] is _NONDIFF and (id(o) in arg_ids or o._node is not None):
            results.append(_new_like(classes[p], values[p], None))
        else:
            results.append(o)
    return results[0] if single else tuple(results)


def _volatile_copy(o, arg_ids):
    if not isinstance(o, Tensor):
        return o
    if id(o) in arg_ids or o._node is not None:
        o = _new_like(type(o), o._value, None)
    o._volatile = True
    return o


def _saved_spec(t, args, tensor_pos, outputs, kinds):
    """How to rebuild a saved tensor in backward: an input, an output, or a constant."""
    if t is None:
        return None
    for j, p in enumerate(tensor_pos):
        if args[p] is t:
            return (_INPUT, j)
    for p, o in enumerate(outputs):
        if o is t and kinds[p] is _DIFF:
            return (_OUTPUT, p)
    # Anything else (an intermediate of forward, a tensor from outside) keeps
    # the value it has now, and its node, if any, for double backward.
    node = t._node
    return (_CONSTANT, type(t), node.value if node is not None else freeze(t._value), node)


class Function(FunctionCtx):
    """Base class of operations with a hand-written backward (as `torch.autograd.Function`).

    Subclass it and define `forward(ctx, *args)` and
    `backward(ctx, *grad_outputs)` as static methods; call `MyFn.apply(...)`.

    * `forward` runs with grad disabled. It may take non-tensor arguments
      and return a tensor or a tuple of tensors (other values pass through).
    * `backward` receives one gradient per output of `forward` and returns
      one per argument of `forward` (None where there is none, always for
      non-tensor arguments), each shaped like its argument (or broadcast to
      a larger shape, which is summed back).
    * `ctx.save_for_backward(*tensors)` / `ctx.saved_tensors`,
      `ctx.needs_input_grad`, `ctx.mark_non_differentiable(*outputs)`,
      `ctx.set_materialize_grads(False)`, and any attribute you set.
    * Write `backward` with tensor operations and double backward works
      (`create_graph=True`); forward mode (`jvp`) works too, as the
      transpose of `backward`.
    * The 0.3 style works as well: `forward(self, ...)`/`backward(self, ...)`
      without `@staticmethod`, called as `MyFn()(a, b)`, with
      `self.save_for_backward` / `self.saved_tensors`. Each call works on a
      shallow copy of the instance, so one instance can be called twice.

    The outputs' `grad_fn` is named after the class (`<MyFnBackward>`).
    With several outputs, `backward` runs once per output that receives a
    gradient (the others get zeros then) and the results are summed.

    Examples:
        >>> import funcgrad as torch
        >>> class Exp(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         result = x.exp()
        ...         ctx.save_for_backward(result)
        ...         return result
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         (result,) = ctx.saved_tensors
        ...         return grad_output * result
        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> y = Exp.apply(x)
        >>> y
        tensor([1.0000, 2.7183], grad_fn=<ExpBackward>)
        >>> y.sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """

    @staticmethod
    def forward(ctx, *args):
        """Compute the outputs from the inputs (override it)."""
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Return the gradients of the inputs from those of the outputs (override it)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Optionally fill `ctx` here, with `forward(*args)` taking no ctx (PyTorch 2 style)."""
        raise NotImplementedError("setup_context is not overridden")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Apply the Function to `args` and return its output(s), recorded for backward.

        Raises:
            TypeError: If keyword arguments are given (pass them positionally).
        """
        if kwargs:
            raise TypeError(
                f"{cls.__name__}.apply takes positional arguments only, got keyword "
                f"arguments {sorted(kwargs)}"
            )
        return _apply_function(cls, FunctionCtx(), args)

    def __call__(self, *args):
        """Apply a legacy (0.3-style) Function instance: `MyFn()(a, b)`."""
        return _apply_function(type(self), copy.copy(self), args)


_grad_fn._GRAD_FN_CLASSES[function_call] = FunctionBackward
