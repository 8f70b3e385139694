"""`Adagrad`: steps scaled by the root of the summed squared gradients."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    check_flags,
    check_nonnegative,
    complex_view,
    each_param,
    numbers,
    real_view,
    restore_options,
    update,
)
from funcgrad.optim.optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (PyTorch's `torch.optim.Adagrad`).

    Each step `t` (from 1), with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p
    lr_t = lr / (1 + (t - 1) * lr_decay)
    s = s + g * g
    p = p - lr_t * g / (sqrt(s) + eps)
    ```

    State: `step` and `sum` (`s`, starting at `initial_accumulator_value`);
    as in PyTorch it is made when the optimizer is created.

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        lr_decay: Learning-rate decay per step.
        weight_decay: L2 penalty.
        initial_accumulator_value: The starting value of the sums.
        eps: Added to the denominator.
        foreach: Accepted for PyTorch's signature.
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Must be False (see `funcgrad.optimizers.adagrad`).
        fused: Accepted for PyTorch's signature.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.Adagrad([w], lr=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_nonnegative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        check_flags(foreach, fused, differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(_new_state(p, group))

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self, {"foreach": None, "maximize": False, "differentiable": False, "fused": None}
        )

    def share_memory(self) -> None:
        """Accepted for PyTorch's API: there are no worker processes sharing state here."""

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = numbers(group, "lr", "lr_decay", "eps")
            # a group added after the optimizer was made gets its state on its first step
            fresh = partial(_new_state, group=group)
            for p, state, g, decayed, step in each_param(self, group, new_state=fresh):
                clr = lr / (1 + (step - 1) * lr_decay)
                s = real_view(_tensors.array(state["sum"])) + g * g
                _tensors.assign(state["sum"], complex_view(s, p._value))
                update(p, decayed, -clr * g / (xp_of(s).sqrt(s) + eps))
        return loss


def _new_state(p: Any, group: dict[str, Any]) -> dict[str, Any]:
    (init,) = numbers(group, "initial_accumulator_value")
    fill = complex(init, init) if p.dtype.kind == "c" else init
    return {"step": _tensors.step_tensor(), "sum": _tensors.full_like(p, fill)}
