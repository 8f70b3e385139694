"""`RMSprop`: steps scaled by a running root mean square of the gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    advance,
    check_nonnegative,
    complex_view,
    lerp,
    real_view,
    steps_as_tensors,
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
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            steps_as_tensors(self, group)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        array, assign = _tensors.array, _tensors.assign
        for group in self.param_groups:
            lr = _tensors.to_float(group["lr"])
            alpha, eps = group["alpha"], group["eps"]
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            centered, maximize = group["centered"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _tensors.step_tensor()
                    state["square_avg"] = _tensors.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _tensors.zeros_like(p)
                    if centered:
                        state["grad_avg"] = _tensors.zeros_like(p)
                param = array(p)
                grad = array(p.grad)
                if maximize:
                    grad = -grad
                advance(state["step"])
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                g = real_view(grad)
                v = real_view(array(state["square_avg"])) * alpha + (1 - alpha) * (g * g)
                assign(state["square_avg"], complex_view(v, param))
                xp = xp_of(v)
                if centered:
                    a = lerp(real_view(array(state["grad_avg"])), g, 1 - alpha)
                    assign(state["grad_avg"], complex_view(a, param))
                    avg = xp.sqrt(v - a * a)
                else:
                    avg = xp.sqrt(v)
                avg = avg + eps
                if momentum > 0:
                    b = real_view(array(state["momentum_buffer"])) * momentum + g / avg
                    assign(state["momentum_buffer"], complex_view(b, param))
                    update = -lr * b
                else:
                    update = -lr * g / avg
                _tensors.write(p, param + complex_view(update, param))
        return loss
