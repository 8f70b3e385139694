"""`funcgrad.compile` (PyTorch's `torch.compile`): `funcgrad.jit` for functions of tensors and modules.

The contract (docs/concepts/jit.md): the function is pure in its tensor
arguments (it returns tensors computed from them, and changes nothing
else); a module's forward is compiled with its parameters and buffers as
inputs. What can be detected outside the contract (reading a traced
tensor's value with `.item()`, `.numpy()`, `.tolist()`, `bool()`,
`.detach()`; an in-place change of an argument, a parameter or a buffer;
random numbers transformed outside funcgrad operations) makes that call
signature run eagerly, with a one-time warning saying why: never a
different result.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from funcgrad.graph import Node
from funcgrad.nn import Module
from funcgrad.nn.modules.module import compiled_for
from funcgrad.nn.utils.stateless import functional_call
from funcgrad.tensors import grad_mode
from funcgrad.tensors.grad_mode import is_grad_enabled
from funcgrad.tensors.tensor_class import Tensor
from funcgrad.transforms.gradients import graph_output
from funcgrad.transforms.jit import Jitted, JitWarning, jit
from funcgrad.transforms.pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["compile"]


def _is_tensor(v: Any) -> bool:
    return hasattr(type(v), "__funcgrad_wrap__") and type(v) is not Node


class _Impure(Exception):
    """The traced function went outside the contract (the message says how)."""


class CompiledFunction:
    """A function compiled by `funcgrad.compile`: call it like the function."""

    def __init__(self, fn: Any, module: Any = None):
        self.fn = fn
        self.module = module
        self._eager_reason: str | None = None
        self._jitted: Jitted = jit(self._functional)
        functools.update_wrapper(self, fn)

    def _functional(self, params: Any, args: Any, kwargs: Any) -> Any:
        """`fn` on tensors rebuilt from arrays or nodes (the jitted, functional form)."""
        wrap = self._wrap
        given: list[Any] = []

        def to_tensor(v: Any) -> Any:
            if isinstance(v, _Marker):
                return v.value
            t = wrap(v)
            given.append(t)
            return t

        t_args, t_kwargs = tree_map(to_tensor, (args, kwargs))
        with self._recording():
            if self.module is None:
                out = self.fn(*t_args, **t_kwargs)
            else:
                p = {k: to_tensor(v) for k, v in params.items()}
                out = functional_call(self.module, p, tuple(t_args), t_kwargs)
        for t in given:
            if t._version != 0:
                raise _Impure("the function changes an argument, a parameter or a buffer in place")
        return tree_map(graph_output, out)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager_reason is not None:
            return self.fn(*args, **kwargs)
        leaves, treedef = tree_flatten((args, kwargs))
        tensors = [v for v in leaves if _is_tensor(v)]
        if not tensors and self.module is None:
            return self.fn(*args, **kwargs)
        if tensors:
            self._wrap = type(tensors[0]).__funcgrad_wrap__
        else:
            self._wrap = Tensor.__funcgrad_wrap__
        payload = _payload if is_grad_enabled() else _value
        inputs = [payload(v) if _is_tensor(v) else _Marker(v) for v in leaves]
        c_args, c_kwargs = tree_unflatten(treedef, inputs)
        params = {}
        if self.module is not None:
            params = {k: payload(v) for k, v in _state(self.module).items()}
        raised = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", JitWarning)  # jit's own fallback: eager here
                out = self._jitted(params, c_args, c_kwargs)
        except _Impure as e:
            return self._fall_back(str(e), args, kwargs)
        except JitWarning as e:  # NOTE: before Exception, of which a warning is a kind
            return self._fall_back(str(e).split("signature: ", 1)[-1], args, kwargs)
        except Exception as e:  # noqa: BLE001  (the trace differs from the eager call?)
            why, raised = f"tracing it raised {type(e).__name__}: {e}", True
        if raised:
            # A trace that raises (a check of the values whose guard sent the call back to
            # tracing, binary_cross_entropy's 0 <= p <= 1): the eager call decides. When it
            # raises too, the error is the function's own, not a sign of leaving the
            # contract, and the plans stay.
            out = self.fn(*args, **kwargs)
            self._mark_eager(why, stacklevel=3)
            return out
        return tree_map(lambda v: self._wrap(v) if _is_array_or_node(v) else v, out)

    def _fall_back(self, why: str, args: Any, kwargs: Any) -> Any:
        self._mark_eager(why, stacklevel=4)
        return self.fn(*args, **kwargs)

    def _mark_eager(self, why: str, stacklevel: int) -> None:
        """Run the function eagerly from now on, with a one-time warning saying `why`."""
        self._eager_reason = why
        self._jitted.clear_cache()
        warnings.warn(
            f"funcgrad.compile: {getattr(self.fn, '__name__', 'the function')} runs eagerly "
            f"from now on: {why} (outside the contract of docs/concepts/jit.md)",
            RuntimeWarning,
            stacklevel=stacklevel,
        )

    @staticmethod
    def _recording() -> Any:
        return grad_mode.enable_grad()


class _Marker:
    """A non-tensor leaf of the arguments, passed through as it is (hashable by value)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is _Marker and _same_value(self.value, other.value)

    def __hash__(self) -> int:
        try:
            return hash((type(self.value), self.value))
        except TypeError:
            return hash((type(self.value), id(self.value)))


def _same_value(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001  (arrays and other values without a plain ==)
        return False


def _payload(t: Any) -> Any:
    """What jit sees of a tensor: its node when it is in a graph, else its array."""
    node = t.__funcgrad_node__
    return node if node is not None else t._value


def _value(t: Any) -> Any:
    return t._value


def _is_array_or_node(v: Any) -> bool:
    return type(v) is Node or hasattr(v, "dtype") and hasattr(v, "shape")


def _state(module: Any) -> dict[str, Any]:
    return {**dict(module.named_parameters()), **dict(module.named_buffers())}


class CompiledModule:
    """A module compiled by `funcgrad.compile`: calls run its forward through `funcgrad.jit`.

    Attributes and methods other than calling are the module's own
    (`compiled.parameters()`, `compiled.train()` ...). Each combination of
    the submodules' `training` flags has its own `CompiledFunction`, as
    `Module.compile`'s: a plan traced in evaluation mode is never replayed
    in training mode (where Dropout draws), and a mode that runs eagerly
    leaves the others compiled.
    """

    def __init__(self, module: Any):
        object.__setattr__(self, "_orig_mod", module)
        object.__setattr__(self, "_by_modes", {})

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module = self._orig_mod
        make = lambda: CompiledFunction(module.forward, module)  # noqa: E731
        return compiled_for(self._by_modes, module, make)(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._orig_mod, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._orig_mod, name, value)


def compile(  # noqa: A001  (PyTorch's name)
    model: Any = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: Any = "funcgrad",
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    disable: bool = False,
) -> Any:
    """Compile a function of tensors or a module with `funcgrad.jit` (PyTorch's `torch.compile`).

    The first call for a signature (shapes, dtypes and devices of the
    tensors, the other arguments by value) traces the function; later
    calls replay the plan. Tensors that require grad get outputs with a
    `grad_fn`: `loss.backward()` replays the compiled backward plan, and an
    optimizer step after it runs as usual.

    The contract: the function is pure in its tensor arguments; a module's
    forward uses only its parameters, buffers and arguments. A call that is
    detectably outside it runs eagerly with a one-time warning saying why.

    Args:
        model: A function of tensors, or a `funcgrad.nn.Module`. Without
            it, `compile(...)` returns a decorator.
        fullgraph: PyTorch's keyword, accepted and ignored (funcgrad has
            one way of compiling), as are the next four.
        dynamic: Accepted and ignored.
        backend: Accepted and ignored.
        mode: Accepted and ignored.
        options: Accepted and ignored.
        disable: Return `model` itself, uncompiled.

    Returns:
        A `CompiledFunction` or a `CompiledModule`.

    Examples:
        >>> import funcgrad as torch
        >>> f = torch.compile(lambda x: (x.sin() * 2).sum())
        >>> x = torch.ones(3, requires_grad=True)
        >>> f(x).backward()
        >>> x.grad
        tensor([1.0806, 1.0806, 1.0806])
    """
    if model is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            disable=disable,
        )
    if disable:
        return model
    if isinstance(model, Module):
        return CompiledModule(model)
    if not callable(model):
        raise TypeError(
            f"funcgrad.compile: expected a function or a Module, got {type(model).__name__}"
        )
    return CompiledFunction(model)
