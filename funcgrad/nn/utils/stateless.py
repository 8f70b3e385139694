"""`functional_call`: run a module with its parameters and buffers taken from a dict.

The bridge from PyTorch-style models to the functional transforms:
`funcgrad.grad(lambda p: loss(functional_call(model, p, (x,))))(params)`
differentiates the module's forward with respect to a pytree (a dict) of
arrays, as `torch.func.functional_call` with `torch.func.grad` does. Values
may be tensors, arrays or graph nodes (what a transform passes in); each is
put in its parameter's or buffer's place for the call only, so the module
is unchanged afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from funcgrad.graph import Node
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["functional_call"]


def _as_tensor(value):
    if isinstance(value, Tensor):
        return value
    if type(value) is Node:
        return _new_like(Tensor, value.value, value)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return _new_like(Tensor, value, None)
    raise TypeError(
        f"functional_call: a value for a parameter or buffer must be a Tensor, an array or a "
        f"graph node, got {type(value).__name__}"
    )


def _slots(module, name: str):
    """The dict (`_parameters` or `_buffers`) of the submodule holding `name`, and its key."""
    prefix, _, attr = name.rpartition(".")
    owner = module.get_submodule(prefix)
    if attr in owner._parameters:
        return owner._parameters, attr
    if attr in owner._buffers:
        return owner._buffers, attr
    return None, attr


@contextlib.contextmanager
def _reparametrize(module, values: Mapping, tie_weights: bool, strict: bool):
    names = dict(module.named_parameters(remove_duplicate=False))
    names.update(dict(module.named_buffers(remove_duplicate=False)))
    unexpected = [k for k in values if k not in names]
    missing = [k for k in names if k not in values]
    if tie_weights:
        # a tensor reachable under several names: replacing one name replaces them all
        by_id: dict[int, list[str]] = {}
        for k, v in names.items():
            by_id.setdefault(id(v), []).append(k)
        expanded = dict(values)
        for k, v in values.items():
            if k in names:
                for other in by_id[id(names[k])]:
                    if other not in values:
                        expanded[other] = v
                    elif other != k and values[other] is not v:
                        raise ValueError(
                            f"functional_call got multiple values for keys {sorted([k, other])}, "
                            "which are tied. Consider using tie_weights=False"
                        )
        missing = [k for k in names if k not in expanded]
        values = expanded
    if strict and (missing or unexpected):
        parts = []
        if unexpected:
            parts.append("Unexpected key(s): {}.".format(", ".join(map(repr, unexpected))))
        if missing:
            parts.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
        raise RuntimeError(
            f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(parts)
        )
    if unexpected:
        raise AttributeError(
            f"functional_call: {type(module).__name__} has no parameter or buffer named "
            f"{unexpected[0]!r}"
        )
    saved = []
    try:
        for k, v in values.items():
            slots, attr = _slots(module, k)
            saved.append((slots, attr, slots[attr]))
            slots[attr] = _as_tensor(v)
        yield
    finally:
        for slots, attr, old in reversed(saved):
            slots[attr] = old


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Call `module(*args, **kwargs)` with some parameters and buffers replaced by given values.

    Args:
        module: The module to call.
        parameter_and_buffer_dicts: A dict from dotted names (`"fc.weight"`)
            to values (tensors, arrays, or graph nodes inside a transform), or
            a tuple of such dicts. Names not given keep the module's own.
        args: The positional arguments (a tuple, or one value).
        kwargs: The keyword arguments.
        tie_weights: A parameter registered under several names takes the
            value given for any one of them.
        strict: Every parameter and buffer must be given, and nothing else.

    Returns:
        What the module returns.

    Raises:
        RuntimeError: For missing or unexpected keys with `strict=True`.
        ValueError: If the dicts repeat a key.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> from funcgrad.nn.utils.stateless import functional_call
        >>> net = fg.nn.Linear(3, 1)
        >>> params = {k: v.detach().numpy() for k, v in net.named_parameters()}
        >>> x = fg.ones(2, 3)
        >>> g = fg.grad(lambda p: functional_call(net, p, (x,)).sum())(params)
        >>> sorted(g), g["weight"].tolist()
        (['bias', 'weight'], [[2.0, 2.0, 2.0]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        values = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in values:
                    raise ValueError(
                        f"{k} appeared in multiple dictionaries; behavior of functional call is "
                        "ambiguous"
                    )
                values[k] = v
    else:
        raise ValueError(
            f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values, tie_weights, strict):
        return module(*args, **kwargs)
