"""`NAdam`: Adam with Nesterov momentum (and momentum decay)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    check_betas,
    check_nonnegative,
    each_param,
    ema,
    ema_sq,
    numbers,
    restore_options,
    update,
    zero_state,
)
from funcgrad.optim.optimizer import Optimizer

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (PyTorch's `torch.optim.NAdam`): Adam with Nesterov momentum.

    Each step `t` (from 1), with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p              (decoupled: p = p * (1 - lr * weight_decay))
    mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay));  P = P * mu_t
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    d = sqrt(v / (1 - beta2**t)) + eps
    p = p - lr * (1 - mu_t) / (1 - P) * g / d - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / d
    ```

    State: `step`, `mu_product` (`P`, a 0-d tensor in the default float
    dtype, as PyTorch's: in float32 under the default dtype), `exp_avg`
    (`m`) and `exp_avg_sq` (`v`).

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        betas: Decay rates of the first and second moments.
        eps: Added to the denominator.
        weight_decay: L2 penalty (or decoupled decay).
        momentum_decay: The momentum schedule's decay (psi in the paper).
        decoupled_weight_decay: Decay the parameters directly (NAdamW).
        foreach: Accepted for PyTorch's signature.
        maximize: Maximize the objective instead of minimizing it.
        capturable: Accepted for PyTorch's signature; it changes nothing here.
        differentiable: Must be False.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.NAdam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8944, -1.8944], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self,
            {
                "maximize": False,
                "foreach": None,
                "capturable": False,
                "differentiable": False,
                "decoupled_weight_decay": False,
            },
            ("step", "mu_product"),
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, beta1, beta2, eps, momentum_decay = numbers(
                group, "lr", "betas", "eps", "momentum_decay"
            )
            for p, state, g, decayed, step in each_param(self, group, new_state=_new_state):
                bias_correction2 = 1 - beta2**step
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                # NOTE: the product is kept in its counter's dtype (float32 by default), and
                # read back as a Python float, as PyTorch does: the same rounding.
                mu_product_t = state["mu_product"]
                product = _tensors.array(mu_product_t) * mu
                _tensors.assign(mu_product_t, product)
                mu_product = float(product)
                m = ema(state, "exp_avg", g, p, 1 - beta1)
                v = ema_sq(state, "exp_avg_sq", g, p, beta2)
                denom = xp_of(v).sqrt(v / bias_correction2) + eps
                mu_product_next = mu_product * mu_next
                delta = (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
                delta = delta + ((-lr * mu_next) / (1.0 - mu_product_next)) * m / denom
                update(p, decayed, delta, writes=2)  # PyTorch: two addcdiv_
        return loss


def _new_state(p: Any) -> dict[str, Any]:
    state = zero_state(p)
    state["mu_product"] = _tensors.step_tensor(1.0)
    state.update(zero_state(p, "exp_avg", "exp_avg_sq"))
    return state
