"""`RAdam`: Adam with a rectified (variance-controlled) adaptive learning rate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim._common import (
    check_betas,
    check_nonnegative,
    each_param,
    ema,
    ema_sq,
    numbers,
    restore_options,
    update,
)
from funcgrad.optim.optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam (PyTorch's `torch.optim.RAdam`): Adam whose adaptive step waits for a good variance estimate.

    Each step `t` (from 1), with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p              (decoupled: p = p * (1 - lr * weight_decay))
    m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
    m_hat = m / (1 - beta1**t)
    rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                p = p - lr * m_hat * sqrt(1 - beta2**t) / (sqrt(v) + eps) * r
    otherwise:  p = p - lr * m_hat
    ```

    State: `step`, `exp_avg` (`m`) and `exp_avg_sq` (`v`).

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        betas: Decay rates of the first and second moments.
        eps: Added to the denominator.
        weight_decay: L2 penalty (or decoupled decay).
        decoupled_weight_decay: Decay the parameters directly (RAdamW).
        foreach: Accepted for PyTorch's signature.
        maximize: Maximize the objective instead of minimizing it.
        capturable: Accepted for PyTorch's signature; it changes nothing here.
        differentiable: Must be False.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.RAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self,
            {
                "foreach": None,
                "maximize": False,
                "differentiable": False,
                "decoupled_weight_decay": False,
                "capturable": False,
            },
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, beta1, beta2, eps = numbers(group, "lr", "betas", "eps")
            for p, state, g, decayed, step in each_param(self, group, ("exp_avg", "exp_avg_sq")):
                m = ema(state, "exp_avg", g, p, 1 - beta1)
                v = ema_sq(state, "exp_avg_sq", g, p, beta2)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                m_hat = m / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    adaptive = (bias_correction2**0.5) / (xp_of(v).sqrt(v) + eps)
                    update(p, decayed, -(m_hat * lr * adaptive * rect))
                else:
                    update(p, decayed, -(m_hat * lr))
        return loss
