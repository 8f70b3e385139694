"""`Adamax`: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    check_betas,
    check_nonnegative,
    complex_view,
    each_param,
    ema,
    numbers,
    real_view,
    restore_options,
    update,
)
from funcgrad.optim.optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (PyTorch's `torch.optim.Adamax`), the infinity-norm variant of Adam.

    Each step `t` (from 1), with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p
    m = beta1 * m + (1 - beta1) * g
    u = max(beta2 * u, |g| + eps)
    p = p - lr / (1 - beta1**t) * m / u
    ```

    State: `step`, `exp_avg` (`m`) and `exp_inf` (`u`).

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        betas: Decay rates of the first moment and of the infinity norm.
        eps: Added to `|g|`.
        weight_decay: L2 penalty.
        foreach: Accepted for PyTorch's signature.
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Must be False.
        capturable: Accepted for PyTorch's signature; it changes nothing here.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.Adamax([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
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
            lr, beta1, beta2, eps = numbers(group, "lr", "betas", "eps")
            for p, state, g, decayed, step in each_param(self, group, ("exp_avg", "exp_inf")):
                xp = xp_of(g)
                m = ema(state, "exp_avg", g, p, 1 - beta1)
                u = xp.maximum(real_view(_tensors.array(state["exp_inf"])) * beta2, xp.abs(g) + eps)
                _tensors.assign(state["exp_inf"], complex_view(u, p._value))
                clr = lr / (1 - beta1**step)
                update(p, decayed, -clr * m / u)
        return loss
