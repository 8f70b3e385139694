"""In-place shape methods: `x.unsqueeze_(0)`, `squeeze_`, `t_`, `transpose_`, `swapdims_`, `swapaxes_`.

PyTorch changes the tensor's sizes and strides and keeps its storage: the
tensor takes the shape of the view `x.unsqueeze(0)` would be, NumPy arrays
from `x.numpy()` keep sharing its memory, a tensor in a graph gets the view's
`grad_fn` (`UnsqueezeBackward1`), and the version moves. So does funcgrad,
for a tensor that owns its values (not a view) and has no live view: there
the tensor simply takes the view's array (a NumPy view of the same memory)
and, in a graph, its node.

NOTE: a view, or a tensor with live views, is refused (`InPlaceError`, naming
the out-of-place form to use): funcgrad's views are replayed from their root
(funcgrad.tensors.aliases), so the root's shape cannot change under them.
"""

from __future__ import annotations

from collections.abc import Callable

from funcgrad.errors import InPlaceError
from funcgrad.tensors import grad_mode
from funcgrad.tensors.aliases import Storage, ViewInfo, assign, counter_of
from funcgrad.tensors.engine import track
from funcgrad.tensors.tensor_class import Tensor
from funcgrad.tensors.views import check_inplace


def shape_inplace(name: str) -> Callable[..., Tensor]:
    """Return the in-place method `name` (`'unsqueeze_'`) of the view method without the `_`."""
    base = name.rstrip("_")

    def method(self: Tensor, *args, **kwargs) -> Tensor:
        check_inplace(self, name)  # a leaf that requires grad is refused outside no_grad
        info = self._view
        if type(info) is ViewInfo or (type(info) is Storage and info.live()):
            what = "a view" if type(info) is ViewInfo else "a tensor that has live views"
            raise InPlaceError(
                f"funcgrad.Tensor.{name}: changing the shape of {what} in place is not "
                f"supported (shape {list(self.shape)}; funcgrad's views are recomputed from "
                f"the tensor they view); use the out-of-place x = x.{base}(...)"
            )
        result = getattr(self, base)(*args, **kwargs)  # the view PyTorch's tensor becomes
        node = self._node
        if node is None or node.prim is None:  # a plain tensor, or a leaf (under no_grad)
            assign(self, result._value)
        elif grad_mode.is_grad_enabled():  # recorded: the tensor stands for the view's node
            self._node = result._node
            self._value = result._value
            if self._retains_grad:  # retain_grad follows the tensor to its new node
                track(self)
        else:
            raise InPlaceError(
                f"funcgrad.Tensor.{name}: changing the shape of a tensor computed with grad in "
                f"place under no_grad is not supported (shape {list(self.shape)}); use "
                f"x = x.{base}(...)"
            )
        if type(self._view) is Storage:
            self._view.aliases.clear()  # the view made above is gone with `result`
        counter_of(self).n += 1
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"In place: give this tensor the shape of `self.{base}(...)`; returns the tensor."
    )
    return method
