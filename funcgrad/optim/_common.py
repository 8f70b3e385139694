"""What the optimizers share: PyTorch's `lerp`, complex views, option checks, the common update steps."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim.optimizer import Optimizer


def lerp(start: Any, end: Any, weight: float) -> Any:
    """PyTorch's `lerp` on arrays: the formula it uses on each side of 0.5 (same rounding)."""
    if abs(weight) < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


def real_view(a: Any) -> Any:
    """A complex array as the flat real array of its interleaved parts (PyTorch's `view_as_real`).

    Real arrays pass through. Elementwise formulas then treat the real and
    imaginary parts as separate coordinates, as PyTorch's optimizers do.
    """
    if a.dtype.kind == "c":
        return xp_of(a).ascontiguousarray(a).reshape(-1).view(a.real.dtype)
    return a


def complex_view(a: Any, like: Any) -> Any:
    """The inverse of `real_view`: the complex array shaped like `like` (when it is complex)."""
    if like.dtype.kind == "c":
        return a.view(like.dtype).reshape(like.shape)
    return a


def check_flags(foreach: Any, fused: Any, differentiable: bool) -> None:
    """PyTorch's checks of the implementation flags (all accepted; the update is one path)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def check_betas(betas: Any) -> tuple[float, float]:
    """Return `betas` as floats after PyTorch's range checks."""
    b1, b2 = (_tensors.to_float(b) for b in betas)
    if not 0.0 <= b1 < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {b1}")
    if not 0.0 <= b2 < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {b2}")
    return b1, b2


def numbers(group: dict[str, Any], *names: str) -> list[float]:
    """A group's numeric options `names` as Python floats, in order (`"betas"` gives two).

    Every optimizer reads the options it computes with here, each step (a
    scheduler or the user may have written them since): a NumPy scalar, a
    0-d array or a 1-element tensor becomes a Python float (`_tensors.to_float`),
    so the arithmetic keeps the parameter's dtype whatever type the option
    was given as, as PyTorch's does (NumPy would compute an np.float64 option
    times a float32 array in float64). The group itself keeps the values as
    given, as PyTorch's `param_groups` and `state_dict` do.
    """
    out: list[float] = []
    for name in names:
        value = group[name]
        try:
            if name == "betas":
                out.extend(_tensors.to_float(b) for b in value)
            else:
                out.append(_tensors.to_float(value))
        except (TypeError, ValueError) as e:
            raise TypeError(
                f"funcgrad.optim: a param group's option {name!r} must be a real number "
                f"(betas: two), got {value!r}"
            ) from e
    return out


def restore_options(
    opt: Optimizer, options: dict[str, Any], counters: tuple[str, ...] = ("step",)
) -> None:
    """PyTorch's `__setstate__` steps: options an older checkpoint lacks take these defaults,
    and loaded Python-number counters (`step` ...) become 0-d tensors."""
    for group in opt.param_groups:
        for name, value in options.items():
            group.setdefault(name, value)
        for p in group["params"]:
            p_state = opt.state.get(p, {})
            for name in counters:
                if name in p_state and not hasattr(p_state[name], "_value"):
                    p_state[name] = _tensors.step_tensor(float(p_state[name]))


def advance(step_t: Any) -> float:
    """Add one to a `step` counter (in its dtype, as PyTorch's `step_t += 1`); return the new count."""
    a = step_t._value
    step = float(a) + 1
    if a.ndim == 0 and _tensors.writable(step_t) is not None:
        a[()] = step
        _tensors.written(step_t, a)
    else:
        _tensors.assign(step_t, xp_of(a).asarray(step, dtype=a.dtype))
    return step


def check_nonnegative(**options: float) -> None:
    """PyTorch's `Invalid <name>: <value>` checks of options that must be >= 0."""
    labels = {"lr": "learning rate", "eps": "epsilon value"}
    for name, value in options.items():
        if not 0.0 <= _tensors.to_float(value):
            raise ValueError(f"Invalid {labels.get(name, name + ' value')}: {value}")


# --- the steps an update shares ----------------------------------------------------------


def zero_state(p: Any, *names: str) -> dict[str, Any]:
    """A new state: a `step` counter at 0 and a tensor of zeros shaped like `p` per name."""
    state = {"step": _tensors.step_tensor()}
    for name in names:
        state[name] = _tensors.zeros_like(p)
    return state


def each_param(
    opt: Optimizer,
    group: dict[str, Any],
    names: tuple[str, ...] = (),
    new_state: Callable[[Any], dict[str, Any]] | None = None,
) -> Iterator[tuple[Any, dict[str, Any], Any, Any, float]]:
    """Yield `(p, state, g, decayed, step)` for each parameter of `group` that has a gradient.

    The steps every update of the family takes first, in PyTorch's order:
    the state made when it is empty (`new_state(p)`, by default
    `zero_state(p, *names)`); the gradient negated
    under `maximize`; the `step` counter advanced; weight decay, as an L2 term
    added to the gradient, or decoupled (`decoupled_weight_decay`), as the
    array `decayed = param * (1 - lr * weight_decay)` the update is added to
    (None without: the update is added to the parameter). `g` is the
    gradient as real coordinates (`real_view`). Nothing here keeps the
    parameter's array, so that `update` may write into it.
    """
    lr, weight_decay = numbers(group, "lr", "weight_decay")
    maximize = group["maximize"]
    decoupled = group.get("decoupled_weight_decay", False)
    states = opt.state
    for p in group["params"]:
        grad_t = p.grad
        if grad_t is None:
            continue
        state = states[p]
        if len(state) == 0:
            state.update(zero_state(p, *names) if new_state is None else new_state(p))
        grad = grad_t._value
        if maximize:
            grad = -grad
        step = advance(state["step"])
        decayed = None
        if weight_decay != 0:
            if decoupled:
                decayed = p._value * (1 - lr * weight_decay)
            else:
                grad = grad + weight_decay * p._value
        yield p, state, real_view(grad), decayed, step


def ema(state: dict[str, Any], name: str, g: Any, p: Any, weight: float) -> Any:
    """Move `state[name]` toward `g` by `weight` (PyTorch's `lerp_`); return its new real array.

    `p`: the parameter, whose dtype and shape a complex state takes.
    """
    t = state[name]
    new = lerp(real_view(t._value), g, weight)
    _tensors.assign(t, complex_view(new, p._value))
    return new


def ema_sq(state: dict[str, Any], name: str, g: Any, p: Any, beta: float) -> Any:
    """`state[name] = beta * state[name] + (1 - beta) * g * g`; return its new real array."""
    t = state[name]
    new = real_view(t._value) * beta + (1 - beta) * (g * g)
    _tensors.assign(t, complex_view(new, p._value))
    return new


def update(p: Any, decayed: Any, delta: Any, writes: int = 1) -> None:
    """Write `base + delta` into parameter `p`, `base` its values or `decayed` (see `each_param`).

    `delta` is in real coordinates, as `g`. The sum goes into the
    parameter's own array where nothing else can see it
    (`_tensors.writable`), else into a new array. `p._version` moves as
    PyTorch's in-place step moves it: `writes` times (the update's
    in-place operations there), once more for the decay.
    """
    delta = complex_view(delta, p._value)
    if decayed is not None:
        writes += 1
    if isinstance(delta, (np.ndarray, np.generic)) and delta.dtype == p._value.dtype:
        into = _tensors.writable(p)
        if into is not None:
            np.add(into if decayed is None else decayed, delta, out=into)
            _tensors.written(p, into, writes)
            return
    _tensors.write(p, (p._value if decayed is None else decayed) + delta, writes)
