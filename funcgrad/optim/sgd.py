"""`SGD`: stochastic gradient descent, with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.optim import _tensors
from funcgrad.optim._common import numbers, restore_options
from funcgrad.optim.optimizer import Optimizer

__all__ = ["SGD"]


def _check_fused(fused: bool | None, foreach: bool | None) -> None:
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (PyTorch's `torch.optim.SGD`).

    Each step, with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p
    b = g                                  (first step)
    b = momentum * b + (1 - dampening) * g (later steps)
    g = g + momentum * b  if nesterov  else  b          (when momentum != 0)
    p = p - lr * g
    ```

    The momentum buffer is `state[p]["momentum_buffer"]`.

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        momentum: Momentum factor.
        dampening: Dampening of the momentum.
        weight_decay: L2 penalty.
        nesterov: Use Nesterov momentum (needs momentum > 0 and no dampening).
        maximize: Maximize the objective instead of minimizing it.
        foreach: Accepted for PyTorch's signature: the step updates each
            parameter and buffer in place, one array operation per term,
            as PyTorch's foreach and for-loop steps do (see `_step`).
        differentiable: Must be False: see `funcgrad.optimizers` for steps
            that can be differentiated.
        fused: Accepted for PyTorch's signature, as `foreach`.

    Raises:
        ValueError: For a negative learning rate, momentum or weight decay,
            or Nesterov without momentum or with dampening.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (w * w).sum().backward()
        ...     opt.step()
        >>> w
        tensor([ 0.4600, -0.9200], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_fused(fused, foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self,
            {
                "nesterov": False,
                "maximize": False,
                "foreach": None,
                "differentiable": False,
                "fused": False,
            },
            (),
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening, weight_decay = numbers(
                group, "lr", "momentum", "dampening", "weight_decay"
            )
            options = (lr, momentum, dampening, weight_decay, group["nesterov"], group["maximize"])
            for p in group["params"]:
                grad_t = p.grad
                if grad_t is None:
                    continue
                if momentum == 0:
                    _step(p, grad_t._value, None, options)
                    continue
                state = self.state[p]
                buf = state.get("momentum_buffer")
                b = _step(p, grad_t._value, buf, options)
                if buf is None:
                    state["momentum_buffer"] = _tensors.wrap(b)
                elif b is not buf._value:
                    _tensors.assign(buf, b)
        return loss


def _step(p: Any, g: Any, buf: Any, options: tuple[Any, ...]) -> Any:
    """SGD's step of one parameter `p` with gradient array `g` and buffer tensor `buf` (or None).

    The update goes into the parameter's and the buffer's own arrays where
    nothing else can see them (`_tensors.writable`), else into new arrays
    (in PyTorch's step every term is in place). Returns the new
    buffer array (the buffer's own one when written into), or None without
    momentum.
    """
    b = None if buf is None else buf._value
    into = buf_into = None
    if p._value.dtype == g.dtype and (b is None or b.dtype == g.dtype):  # no promotion
        into = _tensors.writable(p)
        buf_into = None if b is None else _tensors.writable(buf)
    new, b = _sgd(p._value if into is None else into, g, b, *options, into=into, buf_into=buf_into)
    if into is None:
        _tensors.write(p, new)
    else:
        _tensors.written(p, into)
    if buf_into is not None:
        _tensors.written(buf, buf_into, 2)  # PyTorch: buf.mul_(momentum).add_(grad)
    return b


def _sgd(
    param: Any,
    grad: Any,
    buf: Any,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
    *,
    into: Any = None,
    buf_into: Any = None,
) -> tuple[Any, Any]:
    """SGD's formulas on arrays: the new parameter and the new momentum buffer (None without).

    Every term is the formula's own in the same order (the same rounding);
    where the dtypes agree, a term goes into an array this step made
    (`+=`) instead of a new one: fewer allocations, which dominate for large
    parameters. `param - lr * g` is taken as `(-lr) * g + param`, the same
    number (negation is exact). `into`: the parameter's array (`param`
    itself) to write the new values into, and `buf_into` the buffer's
    (`buf`), both of the gradient's dtype; None: new arrays.
    """
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + weight_decay * param
    b = None
    if momentum != 0:
        # the first buffer is a copy of the gradient, as PyTorch's `clone().detach()`
        if buf is None:
            b = grad.copy()
        else:
            if buf_into is None:
                b = buf * momentum
            else:
                b = buf_into
                b *= momentum
            if b.dtype != grad.dtype:
                b = b + (1 - dampening) * grad
            elif dampening == 0:
                b += grad  # (1 - 0) * grad is grad
            else:
                b += (1 - dampening) * grad
        grad = grad + momentum * b if nesterov else b
    new = grad * -lr
    if into is not None:
        into += new  # param + new, in param's array
        return into, b
    if new.dtype != param.dtype:
        return param + new, b
    new += param
    return new, b
