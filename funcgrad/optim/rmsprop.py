"""`RMSprop`: steps scaled by a running root mean square of the gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    check_nonnegative,
    complex_view,
    each_param,
    ema,
    ema_sq,
    numbers,
    real_view,
    restore_options,
    update,
)
from funcgrad.optim.optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (PyTorch's `torch.optim.RMSprop`), optionally centered and with momentum.

    Each step, with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p
    v = alpha * v + (1 - alpha) * g * g
    a = alpha * a + (1 - alpha) * g             (centered; then v - a * a below)
    d = sqrt(v) + eps                           (centered: sqrt(v - a * a) + eps)
    b = momentum * b + g / d; p = p - lr * b    (momentum > 0)
    p = p - lr * g / d                          (otherwise)
    ```

    `eps` is added outside the square root (Hinton's slides and optax put it
    inside or outside depending on the variant; this is PyTorch's place).
    State: `step`, `square_avg` (`v`), `momentum_buffer` (`b`, when
    momentum > 0) and `grad_avg` (`a`, when centered).

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        alpha: Smoothing constant of the running averages.
        eps: Added to the denominator.
        weight_decay: L2 penalty.
        momentum: Momentum factor.
        centered: Normalize by an estimate of the gradient's variance.
        capturable: Accepted for PyTorch's signature; it changes nothing here.
        foreach: Accepted for PyTorch's signature.
        maximize: Maximize the objective instead of minimizing it.
        differentiable: Must be False (see `funcgrad.optimizers.rmsprop`).

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.RMSprop([w], lr=0.01)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self,
            {
                "momentum": 0,
                "centered": False,
                "foreach": None,
                "maximize": False,
                "differentiable": False,
                "capturable": False,
            },
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps, momentum = numbers(group, "lr", "alpha", "eps", "momentum")
            centered = group["centered"]
            names: tuple[str, ...] = ("square_avg",)
            names += ("momentum_buffer",) if momentum > 0 else ()
            names += ("grad_avg",) if centered else ()
            for p, state, g, decayed, _ in each_param(self, group, names):
                v = ema_sq(state, "square_avg", g, p, alpha)
                xp = xp_of(v)
                if centered:
                    a = ema(state, "grad_avg", g, p, 1 - alpha)
                    avg = xp.sqrt(v - a * a)
                else:
                    avg = xp.sqrt(v)
                avg = avg + eps
                if momentum > 0:
                    b = real_view(_tensors.array(state["momentum_buffer"])) * momentum + g / avg
                    _tensors.assign(state["momentum_buffer"], complex_view(b, p._value))
                    update(p, decayed, -lr * b)
                else:
                    update(p, decayed, -lr * g / avg)
        return loss
