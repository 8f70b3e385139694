"""`Optimizer`: the base class of `funcgrad.optim`, with PyTorch's behaviour.

An optimizer holds `param_groups` (a list of dicts: the parameters under
`"params"` and that group's options, the others filled from `defaults`)
and `state` (per parameter tensor, a dict such as `{"step": ...,
"exp_avg": ...}`). `step()` runs under `no_grad` and updates the
parameters in place; `state_dict()` has PyTorch's layout (state keyed by
the parameter's index in the order of the groups, groups listing indices),
so a checkpoint round-trips, and converted to `torch` tensors it loads into
the PyTorch optimizer of the same class (and back).
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from itertools import chain
from typing import Any

from funcgrad.tensors.dtypes import float32 as _float32
from funcgrad.tensors.engine import RemovableHandle
from funcgrad.tensors.grad_mode import enable_grad, no_grad
from funcgrad.tensors.printing import type_name
from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "Optimizer",
    "register_optimizer_step_post_hook",
    "register_optimizer_step_pre_hook",
    "required",
]


class _RequiredParameter:
    """The default of an option that every parameter group must give (`lr` of SGD, once)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_pre_hooks: dict[int, Callable] = OrderedDict()
_global_post_hooks: dict[int, Callable] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Register `hook(optimizer, args, kwargs)` to run before every optimizer's `step`.

    The hook may return `(new_args, new_kwargs)` to change the arguments of `step`.

    Returns:
        A handle whose `.remove()` unregisters the hook.
    """
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Register `hook(optimizer, args, kwargs)` to run after every optimizer's `step`.

    Returns:
        A handle whose `.remove()` unregisters the hook.
    """
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _hooked_step(step: Callable) -> Callable:
    """Wrap a `step`: the pre hooks, the step under `no_grad`, the post hooks (PyTorch's order)."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        for hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), but "
                        f"got {result}."
                    )
        with no_grad():
            out = step(self, *args, **kwargs)
        for hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    """Base class of all optimizers (PyTorch's `torch.optim.Optimizer`).

    Subclasses pass their `defaults` (the options a group may override) and
    implement `step`, which the base class wraps: the step hooks run around
    it and the update runs under `no_grad`. The closure, if any, is called
    by the subclass under `enable_grad` (`self._closure_loss(closure)`).

    Args:
        params: The tensors to optimize, `(name, tensor)` pairs (as from a
            module's `named_parameters()`), or dicts defining parameter
            groups (each with `"params"` and any options of its own).
        defaults: The default options of every group.

    Raises:
        TypeError: If `params` is a tensor, or a group holds something
            other than tensors, or a set (whose order changes between runs).
        ValueError: If `params` is empty, a tensor is not a leaf, a
            parameter is in two groups, or a group lacks a required option.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.ones(2, requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([0.8000, 0.8000], requires_grad=True)
        >>> opt.zero_grad()
        >>> w.grad is None
        True
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "hooked", False):
            cls.step = _hooked_step(step)  # type: ignore[method-assign]

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_post_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: dict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: dict[int, Callable] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + type_name(params)
            )
        if defaults.get("differentiable", False):
            raise RuntimeError(
                f"funcgrad.optim.{type(self).__name__}: differentiable=True is not supported: "
                f"the step always runs under no_grad. To differentiate through optimizer "
                f"steps (meta-learning), write the step with funcgrad.optimizers (pure "
                f"gradient transformations) and differentiate it with funcgrad.grad"
            )
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # --- pickling and printing --------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"

    # --- hooks ------------------------------------------------------------------------

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Register `hook(optimizer, args, kwargs)` to run before this optimizer's `step`.

        The hook may return `(new_args, new_kwargs)` to change the arguments of `step`.

        Returns:
            A handle whose `.remove()` unregisters the hook.
        """
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Register `hook(optimizer, args, kwargs)` to run after this optimizer's `step`.

        Returns:
            A handle whose `.remove()` unregisters the hook.
        """
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register `hook(optimizer)` to run before `state_dict()` builds the dict."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register `hook(optimizer, state_dict)`, which may return a new dict, after `state_dict()`."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register `hook(optimizer, state_dict)`, which may return a new dict, before loading."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register `hook(optimizer)` to run after `load_state_dict()`."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # --- groups -----------------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with options of its own (the others from `defaults`).

        Useful when fine-tuning: layers unfrozen during training join the optimizer.

        Args:
            param_group: A dict with the tensors under `"params"` (a tensor, or
                a list of tensors or of `(name, tensor)` pairs) and any options.

        Raises:
            TypeError: If `param_group` is not a dict, its params are a set or
                hold something other than tensors.
            ValueError: If a tensor is not a leaf, is in another group already,
                names are given for some parameters only (or for some groups
                only), or a required option (SGD's `lr`) is missing.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        if len(tensors) != len({id(p) for p in tensors}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    f"all optimizer param groups should be with/without names. cannot add "
                    f"param group {which} to the optimizer"
                )
        if not seen.isdisjoint(id(p) for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # --- gradients and steps ----------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of the optimized tensors.

        Args:
            set_to_none: Set each `.grad` to None (the default, as PyTorch's)
                instead of filling it with zeros. Optimizers skip a
                parameter whose gradient is None, but step one whose
                gradient is zero (momentum and weight decay still move it).
        """
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    with no_grad():
                        g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step (the subclass's algorithm).

        Args:
            closure: A function that re-evaluates the model and returns the
                loss; required by LBFGS, optional for the others.

        Returns:
            The closure's loss, or None.
        """
        raise NotImplementedError

    @staticmethod
    def _closure_loss(closure: Callable[[], Any] | None) -> Any:
        """Call the closure (if any) with gradients enabled, as PyTorch's `step` does."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # --- checkpoints ------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Return the optimizer's state as a dict, in PyTorch's layout.

        `{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`:
        a parameter's index is its position in the groups, in order; the
        parameters themselves are not saved. The state's tensors are the
        optimizer's own (later steps change them), as in PyTorch: copy the
        dict (`copy.deepcopy`) to keep a snapshot.

        Examples:
            >>> import funcgrad as torch
            >>> w = torch.zeros(2, requires_grad=True)
            >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
            >>> w.grad = torch.ones(2)
            >>> opt.step()
            >>> opt.state_dict()["state"]
            {0: {'momentum_buffer': tensor([1., 1.])}}
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update(
                {id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping}
            )
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state saved by `state_dict()` (this optimizer's class, the same groups).

        Floating-point state tensors take their parameter's dtype and
        device (the `step` counters keep theirs), and are copied: the loaded
        dict and the optimizer share nothing. Load it after creating any
        learning-rate scheduler, which would otherwise overwrite the loaded
        learning rates.

        Raises:
            ValueError: If the number of groups, or of parameters in a group, differs.
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )
        state: defaultdict[Any, dict[Any, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, k, state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)


def _register(table: dict[int, Callable], hook: Callable, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle


def _typename(x: Any) -> str:
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _cast(param: Tensor, value: Any, param_id: Any, param_groups: list, key: Any = None) -> Any:
    """A copy of a loaded state value: tensors on `param`'s device, floats in its dtype."""
    if isinstance(value, Tensor):
        if key == "step":
            fused = capturable = False
            for pg in param_groups:
                if param_id in pg["params"]:
                    fused = bool(pg.get("fused", False))
                    capturable = bool(pg.get("capturable", False))
                    break
            out = value.to(dtype=_float32) if (fused or capturable) else value
        elif param.dtype.kind == "f":  # floating point, not complex (PyTorch's is_floating_point)
            out = value.to(dtype=param.dtype, device=param.device)
        else:
            out = value.to(device=param.device)
        return out.detach().clone()
    if isinstance(value, dict):
        return {k: _cast(param, v, param_id, param_groups, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v, param_id, param_groups) for v in value)
    return value
