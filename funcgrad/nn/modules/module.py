"""`Module`: the base class of every layer, with PyTorch's registration, state and hooks.

A module registers the `Parameter`s, buffers and submodules assigned to its
attributes, in order; `parameters()`, `state_dict()` and `repr` walk them in
that order, so the names and order of a state dict are PyTorch's and state
dicts interchange (`load_state_dict` also takes NumPy arrays and PyTorch's
own tensors). Hooks run in PyTorch's order: forward pre-hooks, `forward`,
forward hooks; the full backward hooks ride on `autograd.Function` nodes
around the module's inputs and outputs, as PyTorch's `BackwardHook` does.
"""

from __future__ import annotations

import functools
import itertools
import threading
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from funcgrad.nn.modules._hooks import BackwardHook
from funcgrad.nn.parameter import Buffer, Parameter, is_lazy
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.devices import parse_to_args
from funcgrad.tensors.dtypes import to_dtype, torch_name
from funcgrad.tensors.grad_mode import is_grad_enabled, no_grad
from funcgrad.tensors.tensor_class import Size, Tensor

__all__ = [
    "Module",
    "RemovableHandle",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys it missed and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """The handle a hook registration returns: `.remove()` unregisters the hook.

    Also a context manager (the hook is removed on exit), as in PyTorch.
    """

    _next_id = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extra = () if extra_dict is None else extra_dict
        if isinstance(extra, dict):
            extra = (extra,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        """Unregister the hook (doing it twice is harmless)."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        # the dicts themselves: a copied module's handle then removes the copy's hook,
        # not the original's (a weak reference is copied as it is)
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        hooks, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(hooks if hooks is not None else OrderedDict())
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


# Hooks of every module (PyTorch's `register_module_forward_hook` and friends).
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """Register a forward pre-hook run before every module's own (`hook(module, args)`)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook: Callable, *, always_call: bool = False) -> RemovableHandle:
    """Register a forward hook run before every module's own (`hook(module, args, output)`)."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def typename(obj) -> str:
    """PyTorch's `torch.typename`: `'funcgrad.FloatTensor'` for a tensor, else the qualified class."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = getattr(cls, "__module__", "") or ""
    if module in ("", "builtins"):
        return cls.__qualname__
    return f"{module}.{cls.__qualname__}"


def _addindent(s: str, spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(spaces * " " + line for line in lines)


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def _is_tensor_like(value) -> bool:
    return isinstance(value, Tensor) or (hasattr(value, "shape") and hasattr(value, "__array__"))


class Module:
    """Base class of all neural network modules (as `torch.nn.Module`).

    Subclasses set their parameters, buffers and submodules as attributes in
    `__init__` (after `super().__init__()`) and define `forward`; calling
    the module runs the hooks and `forward`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> class Net(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = nn.Linear(2, 1)
        ...         self.register_buffer("steps", torch.zeros(()))
        ...     def forward(self, x):
        ...         return self.fc(x)
        >>> net = Net()
        >>> list(net.state_dict())
        ['steps', 'fc.weight', 'fc.bias']
        >>> net
        Net(
          (fc): Linear(in_features=2, out_features=1, bias=True)
        )
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _modules: dict[str, Module | None]
    _non_persistent_buffers_set: set[str]
    _is_full_backward_hook: bool | None
    _forward_hooks: OrderedDict[int, Callable]
    _forward_pre_hooks: OrderedDict[int, Callable]
    _backward_hooks: OrderedDict[int, Callable]
    _backward_pre_hooks: OrderedDict[int, Callable]

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and bool(args):
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # --- registration ---------------------------------------------------------

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (BatchNorm's running mean).

        Args:
            name: The attribute name.
            tensor: A tensor, or None (then `state_dict` leaves it out).
            persistent: Whether `state_dict` saves it.

        Raises:
            KeyError: For a name with a dot, an empty name, or one that is
                already another attribute.
            TypeError: If `tensor` is not a tensor or None.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            tensor = _plain_tensor(tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter under `name` (None: a placeholder `state_dict` leaves out).

        Raises:
            KeyError: For a name with a dot, an empty name, or one that is
                already another attribute.
            TypeError: If `param` is not a `Parameter` or None.
            ValueError: If `param` is not a graph leaf.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                f"parameters must be created explicitly. To express '{name}' "
                "as a function of another Tensor, compute the value in "
                "the forward() method."
            )
        else:
            self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under `name` (reachable as an attribute).

        Raises:
            TypeError: If `module` is not a Module (or None).
            KeyError: For a name with a dot, an empty name, or one that is
                already another attribute.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """Return the submodule at the dotted path `target` (`""` is the module itself).

        Raises:
            AttributeError: If a step of the path is missing or not a Module.
        """
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Set the submodule at the dotted path `target` to `module`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        mod = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(mod, atoms[-1]):
            raise AttributeError(mod._get_name() + " has no attribute `" + atoms[-1] + "`")
        setattr(mod, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """Return the parameter at the dotted path `target` (`"fc.weight"`).

        Raises:
            AttributeError: If the path is missing or names no parameter.
        """
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """Return the buffer at the dotted path `target`.

        Raises:
            AttributeError: If the path is missing or names no buffer.
        """
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """Return extra state for `state_dict` (define it with `set_extra_state`)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state: Any) -> None:
        """Set the extra state `get_extra_state` returned (define both in a subclass)."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    # --- attributes -----------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d:
            if name in d["_parameters"]:
                return d["_parameters"][name]
        if "_buffers" in d:
            if name in d["_buffers"]:
                return d["_buffers"][name]
        if "_modules" in d:
            if name in d["_modules"]:
                return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*dicts_or_sets) -> None:
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(
                self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set
            )
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(
                self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set
            )
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._modules)
            self.register_buffer(name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = dir(self.__class__) + list(self.__dict__)
        keys += list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    # --- iteration ------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Yield the parameters, this module's first, then each submodule's, in order.

        Examples:
            >>> from funcgrad import nn
            >>> [tuple(p.shape) for p in nn.Linear(3, 2).parameters()]
            [(2, 3), (2,)]
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Yield `(dotted name, parameter)` pairs (a shared parameter once, unless told)."""
        yield from self._named_members(
            lambda module: module._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Yield the buffers (persistent or not), in order."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """Yield `(dotted name, buffer)` pairs."""
        yield from self._named_members(
            lambda module: module._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self) -> Iterator[Module]:
        """Yield the direct submodules (each once)."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """Yield `(name, submodule)` for the direct submodules (each once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        """Yield this module and every submodule, depth first (each once)."""
        for _, module in self.named_modules():
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ):
        """Yield `(dotted name, module)` for this module (`""`) and every submodule."""
        if memo is None:
            memo = set()
        if id(self) not in memo:
            if remove_duplicate:
                memo.add(id(self))
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # --- modes and gradients ----------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Set training mode (`mode=True`) or evaluation mode on this module and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode (Dropout passes through, BatchNorm uses its running statistics)."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set `requires_grad` of every parameter; return the module."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (default) or to zeros."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def share_memory(self) -> Module:
        """Return the module (values are shared between processes by pickling here)."""
        return self

    # --- conversions ------------------------------------------------------------

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if applied is not param:
                _rebind_value(param, applied)
            if param._grad is not None:
                with no_grad():
                    g = fn(param._grad)
                if g is not param._grad:
                    param._grad = _plain_tensor(g)
        for key, buf in self._buffers.items():
            if buf is not None:
                with no_grad():
                    self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call `fn` on every submodule (children first), then on this module; return it.

        Examples:
            >>> from funcgrad import nn
            >>> net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
            >>> names = []
            >>> _ = net.apply(lambda m: names.append(type(m).__name__))
            >>> names
            ['Linear', 'ReLU', 'Sequential']
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Move and/or cast the parameters and buffers, in place; return the module.

        `to(device)`, `to(dtype)`, `to(device, dtype)`, `to(tensor)` and the
        keywords, as PyTorch: a dtype applies to floating-point (and
        complex) values only; integer buffers keep theirs.
        """
        kwargs = dict(kwargs)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        args = tuple(a for a in args if not isinstance(a, bool))  # non_blocking positionally
        device, dtype = parse_to_args(args, kwargs)
        if dtype is not None:
            dtype = to_dtype(dtype)
            if dtype.kind not in "fc":
                raise TypeError(
                    f"nn.Module.to only accepts floating point or complex dtypes, but got "
                    f"desired dtype={_torch_dtype_name(dtype)}"
                )

        def convert(t: Tensor) -> Tensor:
            if dtype is not None and t.dtype.kind in "fc" and t.dtype != dtype:
                if t.dtype.kind == "c" and dtype.kind == "f":
                    warnings.warn(
                        "Complex modules are a new feature under active development whose "
                        "design may change, and some modules might not work as expected "
                        "when using complex tensors as parameters or buffers.",
                        stacklevel=3,
                    )
                target = dtype if t.dtype.kind == dtype.kind else _as_kind(dtype, t.dtype.kind)
                t = t.to(target)
            if device is not None:
                t = t.to(device)
            return t

        return self._apply(convert)

    def cpu(self) -> Module:
        """Move every parameter and buffer to the CPU."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        """Move every parameter and buffer to a CUDA device (needs CuPy and a GPU)."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type) -> Module:
        """Cast every parameter and buffer to `dst_type`."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        """Cast floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.dtype.kind == "f" else t)

    def double(self) -> Module:
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.dtype.kind == "f" else t)

    def half(self) -> Module:
        """Cast floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.dtype.kind == "f" else t)

    def bfloat16(self) -> Module:
        """Refused: NumPy has no bfloat16."""
        raise TypeError(
            "funcgrad.nn.Module.bfloat16: NumPy has no bfloat16 dtype; use half() or float()"
        )

    # --- hooks ------------------------------------------------------------------

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Register `hook(module, args)` (or `(module, args, kwargs)`) run before `forward`.

        It may return new args (a tuple, or one value), or with `with_kwargs`
        a pair `(args, kwargs)`.
        """
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Register `hook(module, args, output)` run after `forward` (it may replace the output)."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """Register `hook(module, grad_output)` run when the outputs' gradients are known.

        It may return new `grad_output` (a tuple of the same length).
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Register `hook(module, grad_input, grad_output)` run when the inputs' gradients are known.

        `grad_input` holds the gradients with respect to the positional
        tensor inputs of `forward` (None for the others), `grad_output` with
        respect to its tensor outputs; the hook may return a new
        `grad_input`. Implemented as PyTorch does, with identity
        `autograd.Function`s around the inputs and the outputs.

        Raises:
            RuntimeError: If the module already has a (non-full) backward hook.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a "
                "single Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated in PyTorch: registered here as a full backward hook."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a "
                "single Module. Please use only one of them."
            )
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Register `hook(module, prefix, keep_vars)` run before `state_dict` collects."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Register `hook(module, state_dict, prefix, local_metadata)` run after `state_dict`."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    _register_state_dict_hook = register_state_dict_post_hook

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Register `hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)`."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self)
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Register `hook(module, incompatible_keys)` run after `load_state_dict` (it may edit the keys)."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # --- calling ----------------------------------------------------------------

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (
            self._backward_hooks
            or self._backward_pre_hooks
            or self._forward_hooks
            or self._forward_pre_hooks
            or _global_forward_hooks
            or _global_forward_pre_hooks
        ):
            return forward_call(*args, **kwargs)

        if type(forward_call) is _CompiledForward and forward_call.tracing:
            # the compiled forward's trace calls the module again: the hooks ran outside
            return forward_call(*args, **kwargs)
        result = None
        called_always = set()
        try:
            for hook_id, hook in (
                *_global_forward_pre_hooks.items(),
                *self._forward_pre_hooks.items(),
            ):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple "
                                f"of (new_args, new_kwargs), but got {res}."
                            )
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)

            bw_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                bw_hook = BackwardHook(
                    self,
                    list(self._backward_hooks.values()),
                    list(self._backward_pre_hooks.values()),
                )
                args = bw_hook.setup_input_hook(args)

            result = forward_call(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or (
                    hook_id in _global_forward_hooks_always_called
                ):
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res

            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or "
                        f"a tuple of Tensors but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                always = hook_id in self._forward_hooks_always_called or (
                    hook_id in _global_forward_hooks_always_called
                )
                if always and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            res = hook(self, args, kwargs, result)
                        else:
                            res = hook(self, args, result)
                        if res is not None:
                            result = res
                    except Exception as e:
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an exception "
                            f"that was silenced as another error was raised in forward: {e}",
                            stacklevel=2,
                        )
            raise

    __call__: Callable[..., Any] = _call_impl

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's forward in place with `funcgrad.compile` (as PyTorch's `Module.compile`).

        Calling the module afterwards runs its hooks as before (eagerly, on
        every call) around the compiled forward: the first call with a
        signature (the arguments' shapes, dtypes and devices, every
        submodule's `training` flag) traces `forward` with the parameters
        and buffers as inputs, later calls replay the plan. Results are the
        eager ones (the plan makes the same NumPy calls, docs/concepts/jit.md),
        and gradients reach the parameters. The module stays the same object:
        its class, `repr`, `state_dict` keys and `parameters()` do not change,
        and a later `compile` replaces the compiled forward.

        A forward outside `funcgrad.compile`'s contract (one that reads a
        value with `.item()`, changes a buffer in place as `BatchNorm` does
        in training mode, draws random numbers as `Dropout` does, ...) runs
        eagerly from its first call on, with a one-time warning saying why;
        each combination of the `training` flags is compiled on its own, so
        a model whose training mode runs eagerly keeps its evaluation mode
        compiled.

        Args:
            *args: Refused: `funcgrad.compile`'s options are keywords.
            **kwargs: `funcgrad.compile`'s keywords (`fullgraph`, `dynamic`,
                `backend`, `mode`, `options`: accepted and ignored;
                `disable=True` makes the module eager again).

        Raises:
            TypeError: For positional arguments or unknown keywords.

        Examples:
            >>> import funcgrad as torch
            >>> from funcgrad import nn
            >>> net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
            >>> x = torch.randn(5, 3)
            >>> eager = net(x)
            >>> net.compile()
            >>> out = net(x)
            >>> torch.equal(out, eager), out.grad_fn is not None
            (True, True)
            >>> out.sum().backward()
            >>> net[0].weight.grad.shape
            funcgrad.Size([4, 3])
        """
        # NOTE: cycle: funcgrad._compile imports funcgrad.nn (its CompiledModule wraps modules)
        from funcgrad import _compile

        if args:
            raise TypeError(
                f"funcgrad.nn.Module.compile: funcgrad.compile's options are keywords "
                f"(fullgraph, dynamic, backend, mode, options, disable); got {len(args)} "
                f"positional argument(s)"
            )
        known = {"fullgraph", "dynamic", "backend", "mode", "options", "disable"}
        unknown = sorted(set(kwargs) - known)
        if unknown:
            raise TypeError(
                f"funcgrad.nn.Module.compile got unexpected keyword argument(s) {unknown}; "
                f"funcgrad.compile takes {sorted(known)}"
            )
        self.__dict__.pop("forward", None)
        if kwargs.get("disable", False):
            return
        self.__dict__["forward"] = _CompiledForward(
            self, lambda forward: _compile.CompiledFunction(forward, self)
        )

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if type(state.get("forward")) is _CompiledForward:
            del state["forward"]  # as PyTorch drops `_compiled_call_impl`: copies are eager
        return state

    # --- state dicts ------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Return an `OrderedDict` of every parameter and persistent buffer, by dotted name.

        The values are detached tensors (the parameters themselves with
        `keep_vars=True`). Names and order are PyTorch's, so state dicts
        move between the two libraries (through NumPy).

        Examples:
            >>> from funcgrad import nn
            >>> list(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)).state_dict())
            ['0.weight', '0.bias', '2.weight', '2.bias']
        """
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            if destination is None and len(args) > 0:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                destination = result
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not _is_tensor_like(input_param):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}"
                )
                continue
            lazy = is_lazy(param)
            in_shape = tuple(input_param.shape)
            if not lazy and len(param.shape) == 0 and len(in_shape) == 1:
                input_param = input_param[0]  # PyTorch's backward compatibility for 0-d values
                in_shape = tuple(input_param.shape)
            if not lazy and in_shape != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{_size_repr(input_param)} from checkpoint, the shape in current model is "
                    f"{param.shape}."
                )
                continue
            try:
                value = _as_value(input_param)
                with no_grad():
                    if lazy:
                        param.materialize(in_shape)
                    if assign:
                        new = _as_tensor(input_param, value)
                        if isinstance(param, Parameter):
                            if not isinstance(new, Parameter):
                                new = Parameter(new, requires_grad=param.requires_grad)
                            else:
                                new.requires_grad_(param.requires_grad)
                        setattr(self, name, new)
                    else:
                        param.copy_(_as_tensor(input_param, value))
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{_size_repr(input_param)}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    input_name = key[len(prefix) :].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ):
        """Copy parameters and buffers from `state_dict` into this module (in place).

        Values may be funcgrad tensors, NumPy arrays or PyTorch tensors
        (anything with `shape` and `__array__`); each is converted to the
        dtype and device of the parameter it fills.

        Args:
            state_dict: Dotted names to values, as `state_dict()` gives.
            strict: Whether the keys must match this module's exactly.
            assign: Make the values the parameters themselves, instead of
                copying into the existing ones.

        Returns:
            `_IncompatibleKeys(missing_keys, unexpected_keys)`, a namedtuple.

        Raises:
            RuntimeError: With PyTorch's text (`Error(s) in loading
                state_dict for Linear: ...`) for missing or unexpected keys
                (when `strict`) and for size mismatches.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]

        def load(module: Module, local_state_dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict,
                prefix,
                local_metadata,
                True,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {
                        k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not"
                        "expected to return new values, if incompatible_keys need to be modified,"
                        "it should be done inplace."
                    )

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)
                    ),
                )
            if missing_keys:
                error_msgs.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in missing_keys)
                    ),
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    type(self).__name__, "\n\t".join(error_msgs)
                )
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # --- printing ---------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """Return the module's own settings for its `repr` (override in a subclass)."""
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"


class _CompiledForward:
    """A module's compiled forward: what `Module.compile` puts in the module's `forward`.

    Calls go to one `funcgrad.compile` `CompiledFunction` of the module per
    combination of the submodules' `training` flags (`by_modes`): the flags
    are part of the signature, and a mode whose forward runs eagerly
    (dropout's draws in training) leaves the other modes compiled. A trace
    calls the module again (through `functional_call`): that call, seen by
    `tracing`, runs the class's own `forward` without the hooks, which ran
    outside. Keeping this in the instance's `forward` (not in `__call__`)
    leaves the calls of modules that are not compiled as fast as before.
    """

    def __init__(self, module: Module, make: Callable[[Callable[..., Any]], Any]):
        self.module = module
        self.make = make  # forward -> a CompiledFunction of the module
        self.by_modes: dict[tuple, Any] = {}
        self.materialized = False  # no lazy parameter or buffer left (checked until so)
        self._local = threading.local()
        name = f"{type(module).__name__}.forward"

        def forward(*args, **kwargs):  # the eager fallback, named for compile's warning
            return type(module).forward(module, *args, **kwargs)

        forward.__name__ = forward.__qualname__ = name
        self.forward = forward

    @property
    def tracing(self) -> bool:
        """Whether this thread is inside the compiled call (its trace re-enters the module)."""
        return getattr(self._local, "tracing", False)

    def __call__(self, *args, **kwargs):
        local = self._local
        if getattr(local, "tracing", False):
            return self.forward(*args, **kwargs)
        module = self.module
        if not self.materialized:
            # lazy submodules materialize in an eager call (a trace would see stand-ins)
            values = itertools.chain(module.parameters(), module.buffers())
            if any(is_lazy(v) for v in values):
                return self.forward(*args, **kwargs)
            self.materialized = True
        compiled = compiled_for(self.by_modes, module, lambda: self.make(self.forward))
        local.tracing = True
        try:
            return compiled(*args, **kwargs)
        finally:
            local.tracing = False


def _training_flags(module: Module) -> tuple:
    """What a compiled module's plan depends on besides its tensors, depth first, per submodule.

    Each submodule's `training` flag and, for funcgrad's own layers, their
    plain Python settings (public attributes that are numbers, strings,
    None or tuples of those: `LeakyReLU.negative_slope`, `Dropout.p`, `eps`,
    ...): a plan traced with one value replays that value, so a changed
    setting selects another plan (review R, session 12: `negative_slope` set
    after the first call was ignored). NOTE: a module class of the user's own
    is not read: its public attributes may be counters its forward changes
    at every call (a retrace each call); a setting of such a class that its
    forward reads is fixed at the trace (docs/concepts/jit.md).
    """
    key: list = []
    stack = [module]
    while stack:
        m = stack.pop()
        key.append(m.training)
        if type(m).__module__.startswith(_OWN_LAYERS):
            for name, value in m.__dict__.items():
                if name[0] != "_" and _plain_setting(value):
                    key.append((name, value))
        stack.extend(c for c in m._modules.values() if c is not None)
    return tuple(key)


_SETTING_TYPES = (bool, int, float, str, type(None))
_OWN_LAYERS = "funcgrad.nn."
_MAX_MODES = 64  # compiled functions kept per module (a setting changed at every call: no leak)


def compiled_for(by_modes: dict, module: Module, make: Callable[[], Any]) -> Any:
    """The compiled function of `module` for its current `_training_flags` key (made by `make`).

    `by_modes` maps keys to compiled functions; it is cleared when it holds
    `_MAX_MODES` of them (a setting that changes at every call retraces
    instead of keeping every plan).
    """
    key = _training_flags(module)
    compiled = by_modes.get(key)
    if compiled is None:
        if len(by_modes) >= _MAX_MODES:
            by_modes.clear()
        compiled = by_modes[key] = make()
    return compiled


def _plain_setting(value) -> bool:
    if type(value) in _SETTING_TYPES:
        return True
    return type(value) is tuple and all(type(v) in _SETTING_TYPES for v in value)


def _size_repr(value) -> str:
    shape = value.shape
    if isinstance(value, Tensor) or isinstance(value, np.ndarray):
        return repr(Size(tuple(shape)))
    return repr(shape)  # a PyTorch tensor: torch.Size([...])


def _as_value(value):
    if isinstance(value, Tensor):
        return value._value
    return np.asarray(value.detach().cpu() if hasattr(value, "detach") else value)


def _as_tensor(original, value) -> Tensor:
    if isinstance(original, Tensor):
        return original
    return _new_like(Tensor, value, None)


def _plain_tensor(t: Tensor) -> Tensor:
    if type(t) is Tensor:
        return t
    out = _new_like(Tensor, t._value, t._node)
    return out


def _rebind_value(param: Tensor, applied: Tensor) -> None:
    """Give `param` the values of `applied` (a new dtype or device), keeping it the same object."""
    requires_grad = param.requires_grad
    if requires_grad:
        param.requires_grad_(False)
    param._value = applied._value
    if requires_grad:
        param.requires_grad_(True)


def _as_kind(dtype, kind: str):
    """The complex dtype matching a float dtype (or back), for `Module.to` on complex values."""
    return np.result_type(dtype, np.complex64) if kind == "c" else dtype


def _torch_dtype_name(dtype) -> str:
    return torch_name(dtype)


def _grad_enabled() -> bool:
    return is_grad_enabled()
