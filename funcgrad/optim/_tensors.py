"""How the optimizers read and write tensors: the one place that touches a tensor's array.

An optimizer step computes on the arrays of the parameters, gradients and
state (NumPy or CuPy, whatever the tensors hold), which costs a few
microseconds per parameter tensor instead of one `Tensor` operation per
formula term. The results go into the tensors through the doors of
`funcgrad.tensors.inplace` (the in-place writes of the Tensor layer):

* `writable(t)`: the array of a parameter or state tensor, writable, when the
  update may go into it (`out=`, as PyTorch's in-place steps): nothing but
  the tensor can see it (no graph recorded it, no alias, `.numpy()` result
  or other tensor holds it); then `written(t, array)` after the update.
  Otherwise None, and the step computes a new array:
* `write(p, new)`: a parameter takes a new array as every in-place method
  ends (`funcgrad.tensors.inplace.rebind_array`, under `no_grad`), so
  `param.data`, aliases, views and a module's `state_dict` see the update
  as in PyTorch, and graphs recorded before keep the old values;
* `assign(t, new)`: an optimizer's own state tensor (`exp_avg`, `step` ...)
  is rebound to its new array.

Either way the version counter moves (`_version`, as in PyTorch) and no
array a graph or anyone else holds is ever written into.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.dtypes import get_default_dtype
from funcgrad.tensors.inplace import rebind_array
from funcgrad.tensors.inplace import writable as writable
from funcgrad.tensors.inplace import written as written
from funcgrad.tensors.tensor_class import Tensor


def array(t: Tensor) -> Any:
    """Return the array a tensor holds (read-only when the graph holds it)."""
    return t._value


def wrap(value: Any) -> Tensor:
    """Return a tensor (not requiring grad) holding `value` as it is."""
    return _new_like(Tensor, value, None)


def assign(t: Tensor, value: Any) -> None:
    """Rebind an optimizer's own state tensor to a new array."""
    t._set_value(value)


def write(p: Tensor, value: Any, writes: int = 1) -> None:
    """Give parameter `p` the values of `value`, a new array nothing else holds (under `no_grad`).

    `writes`: how many in-place operations PyTorch's step makes there (see `written`).
    """
    rebind_array(p, value, "optimizer step", writes)


def scalar_dtype() -> np.dtype:
    """The dtype of a `step` counter: float64 under a float64 default dtype, else float32."""
    return np.dtype(np.float64) if get_default_dtype() == np.float64 else np.dtype(np.float32)


def step_tensor(value: float = 0.0) -> Tensor:
    """A new `step` counter: a 0-d tensor on the CPU, as PyTorch's (not capturable) one."""
    return wrap(np.asarray(value, dtype=scalar_dtype()))


def zeros_like(p: Tensor) -> Tensor:
    """A state tensor of zeros with `p`'s shape, dtype and device."""
    a = p._value
    xp = np if type(a) is np.ndarray else _xp(a)
    return wrap(xp.zeros_like(a))


def full_like(p: Tensor, fill: complex) -> Tensor:
    """A state tensor filled with `fill`, with `p`'s shape, dtype and device."""
    a = p._value
    xp = np if type(a) is np.ndarray else _xp(a)
    return wrap(xp.full_like(a, fill))


def copy_of(value: Any) -> Tensor:
    """A state tensor holding a copy of an array (a momentum buffer's first value)."""
    return wrap(value.copy())


def _xp(a: Any) -> Any:
    return xp_of(a)


def to_float(x: Any) -> float:
    """A hyperparameter as a Python float (a 1-element tensor's value, as PyTorch's `_to_scalar`).

    NumPy scalars and 0-d arrays become Python floats too: NumPy computes an
    np.float64 times a float32 array in float64 (NEP 50), where PyTorch's
    arithmetic of a tensor with any scalar keeps the tensor's dtype, so a
    NumPy hyperparameter would otherwise turn the state's dtype.
    """
    if type(x) is float:
        return x
    if isinstance(x, Tensor):
        return float(x.item())
    return float(x)
