"""In-place `Tensor` methods: compute the out-of-place result, then rebind the tensor to it.

`inplace(name, fn)` makes the method `name` (`add_`, `exp_`, `zero_` ...)
from the function `fn` that computes its result. The generated methods of
the primitive records (`_generated.DeclaredMethods`) and the hand-written
ones (`methods.TensorMethods`) both use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.tensors import grad_mode
from funcgrad.tensors.engine import track
from funcgrad.tensors.tensor_class import Tensor, _apply

_P = ParamSpec("_P")


def check_inplace(self: Tensor, name: str) -> None:
    """Refuse an in-place operation on a leaf that requires grad (outside `no_grad`)."""
    if self._node is not None and self.is_leaf and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation "
            f"({name}). Wrap the update in `with funcgrad.no_grad():`, or operate on "
            f"x.data"
        )


def inplace(
    name: str, out_of_place: Callable[Concatenate[Tensor, _P], Tensor]
) -> Callable[Concatenate[Tensor, _P], Tensor]:
    """Return the in-place method `name`: `out_of_place`'s result, rebound into the tensor."""

    def method(self: Tensor, *args: _P.args, **kwargs: _P.kwargs) -> Tensor:
        check_inplace(self, name)
        result = out_of_place(self, *args, **kwargs)
        rebind(self, result)
        return self

    method.__name__ = name
    method.__doc__ = f"In-place version of `{name.rstrip('_')}`: rebinds this tensor to the result."
    return method


def rebind(self: Tensor, result: Tensor) -> None:
    """Make `self` the result of an in-place operation (a new node; old graphs keep theirs)."""
    if result._node is not None:
        # Recorded: the tensor now stands for the new operation's node.
        self._node = result._node
        self._value = result._node.value
        self._grad_fn = None
        if self._retains_grad:  # retain_grad follows the tensor to its new node
            track(self)
        if self._base is not None:
            self._base._set_value(self._value)
        return
    value = result._value
    if value.dtype != self._value.dtype:
        value = value.astype(self._value.dtype)
    if self._node is not None and not self.is_leaf and grad_mode.is_grad_enabled():
        # NOTE: zero_/fill_/copy_ on a recorded non-leaf is recorded too, as in
        # PyTorch: the tensor becomes the new values, and its old inputs get an
        # exact zero gradient through it (where(False, old, new)).
        mask = np.zeros(self._value.shape, dtype=bool)
        rebind(self, _apply(lambda old: fnp.where(mask, old, value), self))
        return
    self._set_value(value)
