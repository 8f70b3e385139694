"""`NAdam`: Adam with Nesterov momentum (and momentum decay)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    advance,
    check_betas,
    check_nonnegative,
    complex_view,
    lerp,
    real_view,
    steps_as_tensors,
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
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            steps_as_tensors(self, group)
            for p in group["params"]:
                p_state = self.state.get(p, {})
                if "mu_product" in p_state and not hasattr(p_state["mu_product"], "_value"):
                    p_state["mu_product"] = _tensors.step_tensor(float(p_state["mu_product"]))

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        array, assign = _tensors.array, _tensors.assign
        for group in self.param_groups:
            lr = _tensors.to_float(group["lr"])
            beta1, beta2 = group["betas"]
            eps, weight_decay = group["eps"], group["weight_decay"]
            momentum_decay, maximize = group["momentum_decay"], group["maximize"]
            decoupled = group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _tensors.step_tensor()
                    state["mu_product"] = _tensors.step_tensor(1.0)
                    state["exp_avg"] = _tensors.zeros_like(p)
                    state["exp_avg_sq"] = _tensors.zeros_like(p)
                param = array(p)
                grad = array(p.grad)
                if maximize:
                    grad = -grad
                step = advance(state["step"])
                bias_correction2 = 1 - beta2**step
                new_param = param
                if weight_decay != 0:
                    if decoupled:
                        new_param = param * (1 - lr * weight_decay)
                    else:
                        grad = grad + weight_decay * param
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                # NOTE: the product is kept in its counter's dtype (float32 by default), and
                # read back as a Python float, as PyTorch does: the same rounding.
                mu_product_t = state["mu_product"]
                product = array(mu_product_t) * mu
                assign(mu_product_t, product)
                mu_product = float(product)
                g = real_view(grad)
                xp = xp_of(g)
                m = lerp(real_view(array(state["exp_avg"])), g, 1 - beta1)
                v = real_view(array(state["exp_avg_sq"])) * beta2 + (1 - beta2) * (g * g)
                assign(state["exp_avg"], complex_view(m, param))
                assign(state["exp_avg_sq"], complex_view(v, param))
                denom = xp.sqrt(v / bias_correction2) + eps
                mu_product_next = mu_product * mu_next
                update = (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
                update = update + ((-lr * mu_next) / (1.0 - mu_product_next)) * m / denom
                _tensors.write(p, new_param + complex_view(update, param))
        return loss
