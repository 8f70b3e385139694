"""Formulas and checks the optimizers share: PyTorch's `lerp`, complex views, option checks."""

from __future__ import annotations

from typing import Any

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


def steps_as_tensors(opt: Optimizer, group: dict[str, Any]) -> None:
    """Loaded Python-number `step`s become 0-d tensors, as PyTorch's `__setstate__` does."""
    for p in group["params"]:
        p_state = opt.state.get(p, {})
        if len(p_state) != 0 and "step" in p_state and not hasattr(p_state["step"], "_value"):
            p_state["step"] = _tensors.step_tensor(float(p_state["step"]))


def advance(step_t: Any) -> float:
    """Add one to a `step` counter (in its dtype, as PyTorch's `step_t += 1`); return the new count."""
    a = _tensors.array(step_t)
    step = float(a) + 1
    _tensors.assign(step_t, xp_of(a).asarray(step, dtype=a.dtype))
    return step


def check_nonnegative(**options: float) -> None:
    """PyTorch's `Invalid <name>: <value>` checks of options that must be >= 0."""
    labels = {"lr": "learning rate", "eps": "epsilon value"}
    for name, value in options.items():
        if not 0.0 <= _tensors.to_float(value):
            raise ValueError(f"Invalid {labels.get(name, name + ' value')}: {value}")
