"""`Adadelta`: steps whose units follow from running averages of squared gradients and steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    check_nonnegative,
    each_param,
    ema_sq,
    numbers,
    real_view,
    restore_options,
    update,
)
from funcgrad.optim.optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (PyTorch's `torch.optim.Adadelta`).

    Each step, with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p
    v = rho * v + (1 - rho) * g * g
    d = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * d * d
    p = p - lr * d
    ```

    State: `step`, `square_avg` (`v`) and `acc_delta` (`u`).

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Scale of the step (1.0 is the paper's algorithm).
        rho: Decay of the running averages, in [0, 1].
        eps: Added inside both square roots.
        weight_decay: L2 penalty.
        foreach: Accepted for PyTorch's signature.
        capturable: Accepted for PyTorch's signature; it changes nothing here.
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Must be False.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.Adadelta([w])
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9968, -1.9968], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self, {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps = numbers(group, "lr", "rho", "eps")
            for p, state, g, decayed, _ in each_param(self, group, ("square_avg", "acc_delta")):
                xp = xp_of(g)
                v = ema_sq(state, "square_avg", g, p, rho)
                u = real_view(_tensors.array(state["acc_delta"]))
                delta = xp.sqrt(u + eps) / xp.sqrt(v + eps) * g
                ema_sq(state, "acc_delta", delta, p, rho)
                update(p, decayed, -lr * delta)
        return loss
