"""`Adam` and `AdamW`: adaptive moment estimation, with L2 or decoupled weight decay."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import (
    check_betas,
    check_flags,
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

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (PyTorch's `torch.optim.Adam`): per-coordinate steps from running moments.

    Each step `t` (from 1), with `g` the gradient (negated when `maximize`):

    ```text
    g = g + weight_decay * p                  (L2; decoupled: p = p * (1 - lr * weight_decay))
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    v_max = max(v_max, v)                     (amsgrad; then v_max is used for v below)
    p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)
    ```

    State per parameter: `step` (a 0-d float tensor), `exp_avg` (`m`),
    `exp_avg_sq` (`v`) and `max_exp_avg_sq` with `amsgrad`. Complex
    parameters are updated as pairs of reals, as in PyTorch.

    Args:
        params: Tensors to optimize, or dicts defining parameter groups.
        lr: Learning rate.
        betas: Decay rates of the first and second moments.
        eps: Added to the denominator.
        weight_decay: L2 penalty (or decoupled decay, see below).
        amsgrad: Use the maximum of the second moments (AMSGrad).
        foreach: Accepted for PyTorch's signature: the update is always one
            fused pass over each parameter's arrays.
        maximize: Maximize the objective instead of minimizing it.
        capturable: Accepted for PyTorch's signature (CUDA-graph capture is
            PyTorch's); it changes nothing here.
        differentiable: Must be False: for steps that can be differentiated
            use `funcgrad.optimizers.adam` (a pure function).
        fused: Accepted, as `foreach`.
        decoupled_weight_decay: Decay the parameters directly (AdamW)
            instead of adding `weight_decay * p` to the gradient.

    Raises:
        ValueError: For an out-of-range option (negative lr, eps or
            weight decay, a beta outside [0, 1)).
        RuntimeError: For `differentiable=True`, or `fused` with `foreach`.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.9000, -1.9000], requires_grad=True)
        >>> sorted(opt.state[w])
        ['exp_avg', 'exp_avg_sq', 'step']
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not 0.0 <= _tensors.to_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        check_flags(foreach, fused, differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        restore_options(
            self,
            {
                "amsgrad": False,
                "maximize": False,
                "foreach": None,
                "capturable": False,
                "differentiable": False,
                "decoupled_weight_decay": False,
                "fused": None,
            },
        )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform one optimization step; return the closure's loss (or None)."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, beta1, beta2, eps = numbers(group, "lr", "betas", "eps")
            amsgrad = group["amsgrad"]
            names = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
            for p, state, g, decayed, step in each_param(self, group, names):
                if not amsgrad and _fused(p, state, g, decayed, beta1, beta2, lr, eps, step):
                    continue
                m = ema(state, "exp_avg", g, p, 1 - beta1)
                v = ema_sq(state, "exp_avg_sq", g, p, beta2)
                xp = xp_of(v)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                if amsgrad:
                    v = xp.maximum(real_view(_tensors.array(state["max_exp_avg_sq"])), v)
                    _tensors.assign(state["max_exp_avg_sq"], complex_view(v, p._value))
                denom = xp.sqrt(v) / bias_correction2_sqrt + eps
                update(p, decayed, -step_size * m / denom)
        return loss


def _fused(
    p: Any,
    state: dict[str, Any],
    g: Any,
    decayed: Any,
    beta1: float,
    beta2: float,
    lr: float,
    eps: float,
    step: float,
) -> bool:
    """Adam's update of one real NumPy parameter with few new arrays; False if not one.

    The terms of `Adam.step`'s formulas in the same order (the same rounding),
    each written into an array this step made or into the moments' and the
    parameter's own arrays (`out=`, as PyTorch's in-place step) where nothing
    else can see them (`_tensors.writable`): two temporaries per step then,
    for the allocations that dominate for large parameters.
    """
    m_t, v_t = state["exp_avg"], state["exp_avg_sq"]
    m, v = m_t._value, v_t._value
    dtype = g.dtype
    if (
        type(g) is not np.ndarray
        or type(m) is not np.ndarray
        or type(v) is not np.ndarray
        or type(p._value) is not np.ndarray
        or dtype.kind != "f"
        or g.ndim == 0  # NumPy's 0-d results are scalars, not arrays to write into
        or m.dtype != dtype
        or v.dtype != dtype
        or p._value.dtype != dtype
    ):
        return False
    writes = 1 if decayed is None else 2  # PyTorch: addcdiv_, after mul_ for the decay
    if g.size > _PIECE_BYTES // dtype.itemsize and _contiguous(g, m, v, p._value, decayed):
        _in_pieces(p, m_t, v_t, g, decayed, _numbers(dtype, beta1, beta2, lr, eps, step), writes)
        return True
    small, weight, weight_, beta2_, decay2, bias2, eps_, step_size = _numbers(
        dtype, beta1, beta2, lr, eps, step
    )
    m_into, v_into = _tensors.writable(m_t), _tensors.writable(v_t)
    t = np.subtract(g, m)  # m = lerp(m, g, 1 - beta1)
    if small:
        t *= weight
        m = np.add(m, t, out=t if m_into is None else m_into)
    else:
        t *= weight_
        m = np.subtract(g, t, out=t if m_into is None else m_into)
    if m_into is None:
        _tensors.assign(m_t, m)
        t = np.square(g)  # v = beta2 * v + (1 - beta2) * g * g
    else:
        _tensors.written(m_t, m_into)
        t = np.square(g, out=t)  # g * g: the same product, one operand read
    if v_into is None:
        v = np.multiply(v, beta2_)
    else:
        v *= beta2_
    t *= decay2
    v += t
    if v_into is None:
        _tensors.assign(v_t, v)
    else:
        _tensors.written(v_t, v_into, 2)  # PyTorch: mul_, addcmul_
    denom = np.sqrt(v, out=t)  # sqrt(v) / sqrt(1 - beta2**step) + eps
    denom /= bias2
    denom += eps_
    u = np.multiply(m, step_size)
    u /= denom
    into = _tensors.writable(p)  # p = p + u (or the decayed p + u)
    if into is None:
        _tensors.write(p, np.add(p._value if decayed is None else decayed, u, out=u), writes)
    else:
        np.add(into if decayed is None else decayed, u, out=into)
        _tensors.written(p, into, writes)
    return True


# A large parameter's step runs in pieces of at most this many bytes per array, all the
# passes of a piece while it is in the core's cache (as `funcgrad.optimizers.adam`'s).
_PIECE_BYTES = 1 << 17  # 128 KiB: a float32 piece is 32,768 entries
_SCRATCH = threading.local()


def _numbers(
    dtype: np.dtype, beta1: float, beta2: float, lr: float, eps: float, step: float
) -> tuple[Any, ...]:
    """`_fused`'s numbers for one step (`_numbers_of`), kept for the step's other parameters."""
    return _kept_numbers(dtype, beta1, beta2, lr, eps, step)


def _numbers_of(
    dtype: np.dtype, beta1: float, beta2: float, lr: float, eps: float, step: float
) -> tuple[Any, ...]:
    """`_fused`'s numbers for one step: whether the lerp's weight is small, then 0-d arrays of
    `dtype`: the weight, 1 - weight, beta2, 1 - beta2, sqrt(1 - beta2**step), eps, -step size.

    NOTE: the values NumPy casts Python floats to in every ufunc call (NEP 50's weak
    scalars), cast once per step: a 0-d operand costs about 0.7 us less a call, and a
    large parameter makes six such calls per piece. The options arrive as Python floats
    whatever type they were given as (`_common.numbers`), as PyTorch computes with them.
    """
    weight = 1 - beta1
    numbers = (
        weight,
        1 - weight,
        beta2,
        1 - beta2,
        (1 - beta2**step) ** 0.5,
        eps,
        -(lr / (1 - beta1**step)),
    )
    return (abs(weight) < 0.5, *(_weak_cast(x, dtype) for x in numbers))


_kept_numbers = functools.lru_cache(maxsize=16, typed=True)(_numbers_of)


def _weak_cast(x: float, dtype: np.dtype) -> Any:
    """A Python number as a read-only 0-d array of `dtype` (its value in a ufunc with an array
    of `dtype`, NEP 50's weak scalar)."""
    a = np.array(x, dtype=dtype)
    a.flags.writeable = False
    return a


def _contiguous(*arrays: Any) -> bool:
    return all(a is None or a.flags.c_contiguous for a in arrays)


def _scratch(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """This thread's two temporaries of `_PIECE_BYTES` of `dtype`, kept between steps.

    NOTE: kept instead of two new arrays of the parameter's size per step (a
    fresh large array costs a page fault per 4 KiB page when first written).
    """
    buffers = getattr(_SCRATCH, "buffers", None)
    if buffers is None:
        buffers = _SCRATCH.buffers = {}
    n = _PIECE_BYTES // dtype.itemsize
    pair = buffers.get((dtype, n))
    if pair is None:
        pair = buffers[dtype, n] = (np.empty(n, dtype), np.empty(n, dtype))
    return pair


def _in_pieces(
    p: Any,
    m_t: Any,
    v_t: Any,
    g: np.ndarray,
    decayed: Any,
    numbers: tuple[Any, ...],
    writes: int,
) -> None:
    """`_fused`'s terms for C-contiguous arrays, piece by piece (the same operations, the same bits).

    Each piece of `_PIECE_BYTES` per array goes through every pass while it
    is in cache; the two temporaries are the thread's kept pieces. The new
    moments and parameter go into their own arrays where `_tensors.writable`
    gives them, else into arrays made here (taken as the tensors' new arrays).
    """
    # the parameter's array first: a local name holding it would count as another holder
    into = _tensors.writable(p)
    m_into, v_into = _tensors.writable(m_t), _tensors.writable(v_t)
    m, v = m_t._value, v_t._value
    new_m = np.empty_like(m) if m_into is None else m_into
    new_v = np.empty_like(v) if v_into is None else v_into
    new_p = np.empty_like(g) if into is None else into
    base = (p._value if decayed is None else decayed).reshape(-1)
    gf, mf, vf = g.reshape(-1), m.reshape(-1), v.reshape(-1)
    mo, vo, po = new_m.reshape(-1), new_v.reshape(-1), new_p.reshape(-1)
    small, weight, weight_, beta2_, decay2, bias2, eps_, step_size = numbers
    t_buf, u_buf = _scratch(g.dtype)
    piece, n = t_buf.size, g.size
    for s in range(0, n, piece):
        e = min(n, s + piece)
        gs, ms = gf[s:e], mf[s:e]
        t, u = t_buf[: e - s], u_buf[: e - s]
        np.subtract(gs, ms, out=t)  # m = lerp(m, g, 1 - beta1)
        if small:
            t *= weight
            mn = np.add(ms, t, out=mo[s:e])
        else:
            t *= weight_
            mn = np.subtract(gs, t, out=mo[s:e])
        np.square(gs, out=t)  # v = beta2 * v + (1 - beta2) * g * g
        vn = np.multiply(vf[s:e], beta2_, out=vo[s:e])
        t *= decay2
        vn += t
        np.sqrt(vn, out=t)  # sqrt(v) / sqrt(1 - beta2**step) + eps
        t /= bias2
        t += eps_
        np.multiply(mn, step_size, out=u)
        u /= t
        np.add(base[s:e], u, out=po[s:e])  # p = p + u (or the decayed p + u)
    if m_into is None:
        _tensors.assign(m_t, new_m)
    else:
        _tensors.written(m_t, m_into)
    if v_into is None:
        _tensors.assign(v_t, new_v)
    else:
        _tensors.written(v_t, v_into, 2)  # PyTorch: mul_, addcmul_
    if into is None:
        _tensors.write(p, new_p, writes)
    else:
        _tensors.written(p, into, writes)


class AdamW(Adam):
    """AdamW (PyTorch's `torch.optim.AdamW`): Adam with decoupled weight decay.

    The parameters decay directly, `p = p * (1 - lr * weight_decay)`, before
    the Adam update; the decay never enters the moments. Options as
    `Adam`'s, with `weight_decay=1e-2` by default.

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = torch.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([ 0.8500, -1.8000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
