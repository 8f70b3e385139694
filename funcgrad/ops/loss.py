"""Loss primitives: the losses PyTorch computes in one kernel, with its `grad_fn` names.

`mse_loss`, `smooth_l1_loss`, `huber_loss`, `soft_margin_loss`,
`binary_cross_entropy`, `binary_cross_entropy_with_logits` and `nll_loss`
each take their `reduction` (`"none"`, `"mean"`, `"sum"`) as a static
parameter, so the reduced loss is one node whose `grad_fn` is PyTorch's
(`MseLossBackward0`, `NllLossBackward0` ...) and whose inputs are the
loss's inputs, as in PyTorch's graphs. `funcgrad.nn.functional` checks the
arguments and calls them; options PyTorch computes by composition
(weights of `mse_loss`, label smoothing ...) stay compositions there.

Optional weights are inputs that may be the Python number 1.0 (no weight).
Class indices (`nll_loss`'s target) are integer arrays, never
differentiated. `binary_cross_entropy`'s gradient in its input is
PyTorch's `w (x - t) / max(x (1 - x), 1e-12)`, finite at probabilities of
exactly 0 and 1 where each log is clamped at -100.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from types import ModuleType
from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.graph.node import Array
from funcgrad.ops._util import shape_of, value_of
from funcgrad.ops.elementwise import (
    absolute,
    log,
    log1p,
    maximum,
    sigmoid,
    sign,
    softplus,
    where,
)
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import Draw, Drawn, Names, Primitive, Sample, register
from funcgrad.ops.shape import expand_dims, reshape

REDUCTIONS = ("none", "mean", "sum")


# --- reductions, shared by the rules ---------------------------------------------------


def _reduce_forward(xp: ModuleType, loss: Array, reduction: str) -> Array:
    if reduction == "none":
        return loss
    if reduction == "sum":
        return xp.sum(loss)
    return xp.mean(loss)


def _numel(*args: Any) -> int:
    return prod(np.broadcast_shapes(*(shape_of(a) for a in args)))


def _ct(ct: Array, reduction: str, n: int) -> Array:
    """The cotangent of each unreduced entry: `ct`, or `ct / n` for a mean (it broadcasts)."""
    return ct / n if reduction == "mean" else ct


def _reduce(t: Array, reduction: str, n: int) -> Array:
    """A tangent of the unreduced entries, reduced as the loss is."""
    if reduction == "none":
        return t
    total = sum_(t, axis=None, keepdims=False)
    return total / n if reduction == "mean" else total


def _difference_rules(
    slope: Callable[..., Array],
) -> tuple[Callable[..., tuple[Array, Array]], Callable[..., Array | None]]:
    """The VJP and JVP rules of a reduced loss of `d = x - t`, from its derivative in d.

    `slope(x, t, **params)` is that derivative at each entry (`2 d` for mse_loss).
    """

    def vjp(
        ct: Array, out: Array, x: Array, t: Array, *, reduction: str, **params: Any
    ) -> tuple[Array, Array]:
        g = _ct(ct, reduction, _numel(x, t)) * slope(x, t, **params)
        return g, -g

    def jvp(
        tangents: tuple[Array | None, Array | None],
        out: Array,
        x: Array,
        t: Array,
        *,
        reduction: str,
        **params: Any,
    ) -> Array | None:
        x_t, t_t = tangents
        if x_t is None and t_t is None:
            return None
        d_t = x_t if t_t is None else (-t_t if x_t is None else x_t - t_t)
        return _reduce(slope(x, t, **params) * d_t, reduction, _numel(x, t))

    return vjp, jvp


def _none_out(xp: ModuleType, shape: tuple[int, ...], dtype: Any) -> Array:
    return xp.zeros(shape, dtype=dtype)


def _regression_sample(g: Draw, **params: Any) -> Drawn:
    shapes = g.broadcast_shapes(2, max_dims=3)
    x = g.array(shapes[0], -3.0, 3.0)
    t = g.array(shapes[1], -3.0, 3.0)
    return (x, t), {"reduction": g.choice(REDUCTIONS), **params}


# --- mse_loss ----------------------------------------------------------------------------


def _mse_forward(xp: ModuleType, x: Array, t: Array, *, reduction: str) -> Array:
    d = x - t
    return _reduce_forward(xp, d * d, reduction)


_mse_vjp, _mse_jvp = _difference_rules(lambda x, t: 2.0 * (x - t))


mse_loss = register(
    Primitive(
        name="mse_loss",
        forward=_mse_forward,
        vjp=_mse_vjp,
        jvp=_mse_jvp,
        params=("reduction",),
        sample=Sample(_regression_sample),
        doc="(x - t) ** 2, reduced (mean, sum or none)",
        names=Names(grad_fn="MseLossBackward0"),
    )
)


# --- smooth_l1_loss and huber_loss -------------------------------------------------------


def _smooth_l1_forward(xp: ModuleType, x: Array, t: Array, *, reduction: str, beta: float) -> Array:
    d = x - t
    a = xp.abs(d)
    return _reduce_forward(xp, xp.where(a < beta, (0.5 / beta) * d * d, a - 0.5 * beta), reduction)


def _smooth_l1_slope(x: Array, t: Array, beta: float) -> Array:
    # d/dd of the loss: d / beta inside |d| < beta, sign(d) outside
    d = x - t
    return where(value_of(absolute(d)) < beta, d / beta, sign(d))


_smooth_l1_vjp, _smooth_l1_jvp = _difference_rules(_smooth_l1_slope)


def _smooth_l1_sample(g: Draw) -> Drawn:
    return _regression_sample(g, beta=g.choice([0.5, 1.0, 2.0]))


smooth_l1_loss = register(
    Primitive(
        name="smooth_l1_loss",
        forward=_smooth_l1_forward,
        vjp=_smooth_l1_vjp,
        jvp=_smooth_l1_jvp,
        params=("reduction", "beta"),
        sample=Sample(_smooth_l1_sample),
        doc="0.5 d ** 2 / beta where |d| < beta, else |d| - beta / 2 (d = x - t), reduced",
        names=Names(grad_fn="SmoothL1LossBackward0"),
    )
)


def _huber_forward(xp: ModuleType, x: Array, t: Array, *, reduction: str, delta: float) -> Array:
    d = x - t
    a = xp.abs(d)
    return _reduce_forward(
        xp, xp.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta)), reduction
    )


def _huber_slope(x: Array, t: Array, delta: float) -> Array:
    d = x - t
    return where(value_of(absolute(d)) < delta, d, delta * sign(d))


_huber_vjp, _huber_jvp = _difference_rules(_huber_slope)


def _huber_sample(g: Draw) -> Drawn:
    return _regression_sample(g, delta=g.choice([0.5, 1.0, 2.0]))


huber_loss = register(
    Primitive(
        name="huber_loss",
        forward=_huber_forward,
        vjp=_huber_vjp,
        jvp=_huber_jvp,
        params=("reduction", "delta"),
        sample=Sample(_huber_sample),
        doc="0.5 d ** 2 where |d| < delta, else delta (|d| - delta / 2) (d = x - t), reduced",
        names=Names(grad_fn="HuberLossBackward0"),
    )
)


# --- soft_margin_loss --------------------------------------------------------------------


def _soft_margin_forward(xp: ModuleType, x: Array, y: Array, *, reduction: str) -> Array:
    return _reduce_forward(xp, xp.logaddexp(0.0, -y * x), reduction)


def _soft_margin_vjp(
    ct: Array, out: Array, x: Array, y: Array, *, reduction: str
) -> tuple[Array, Array]:
    g = -_ct(ct, reduction, _numel(x, y)) * sigmoid(-y * x)
    return g * y, g * x


def _soft_margin_jvp(
    tangents: tuple[Array | None, Array | None], out: Array, x: Array, y: Array, *, reduction: str
) -> Array | None:
    x_t, y_t = tangents
    if x_t is None and y_t is None:
        return None
    s = -sigmoid(-y * x)
    d = (0.0 if x_t is None else y * x_t) + (0.0 if y_t is None else x * y_t)
    return _reduce(s * d, reduction, _numel(x, y))


soft_margin_loss = register(
    Primitive(
        name="soft_margin_loss",
        forward=_soft_margin_forward,
        vjp=_soft_margin_vjp,
        jvp=_soft_margin_jvp,
        params=("reduction",),
        sample=Sample(_regression_sample),
        doc="log(1 + exp(-y x)), stable, reduced",
        names=Names(grad_fn="SoftMarginLossBackward0"),
    )
)


# --- binary_cross_entropy ----------------------------------------------------------------


def _clamped_logs(x: Array) -> tuple[Array, Array]:
    # PyTorch clamps each log at -100: a probability of exactly 0 or 1 costs 100, not inf
    with np.errstate(divide="ignore"):
        return maximum(log(x), -100.0), maximum(log1p(-x), -100.0)


def _bce_forward(xp: ModuleType, x: Array, t: Array, w: Array, *, reduction: str) -> Array:
    with np.errstate(divide="ignore"):
        log_x = xp.maximum(xp.log(x), -100.0)
        log_1mx = xp.maximum(xp.log1p(-x), -100.0)
    return _reduce_forward(xp, -w * (t * log_x + (1.0 - t) * log_1mx), reduction)


def _bce_vjp(
    ct: Array, out: Array, x: Array, t: Array, w: Array, *, reduction: str
) -> tuple[Array, Array, Array]:
    c = _ct(ct, reduction, _numel(x, t, w))
    log_x, log_1mx = _clamped_logs(x)
    grad_x = c * w * (x - t) / maximum(x * (1.0 - x), 1e-12)
    grad_t = c * w * (log_1mx - log_x)
    grad_w = -c * (t * log_x + (1.0 - t) * log_1mx)
    return grad_x, grad_t, grad_w


def _bce_jvp(
    tangents: tuple[Array | None, Array | None, Array | None],
    out: Array,
    x: Array,
    t: Array,
    w: Array,
    *,
    reduction: str,
) -> Array | None:
    x_t, t_t, w_t = tangents
    if x_t is None and t_t is None and w_t is None:
        return None
    log_x, log_1mx = _clamped_logs(x)
    total: Any = 0.0
    if x_t is not None:
        total = total + w * (x - t) / maximum(x * (1.0 - x), 1e-12) * x_t
    if t_t is not None:
        total = total + w * (log_1mx - log_x) * t_t
    if w_t is not None:
        total = total - (t * log_x + (1.0 - t) * log_1mx) * w_t
    return _reduce(total, reduction, _numel(x, t, w))


def _bce_sample(g: Draw) -> Drawn:
    shape = g.shape(max_dims=3)
    x = g.array(shape, 0.05, 0.95)
    t = g.array(shape, 0.0, 1.0)
    w = g.array(shape[len(shape) // 2 :], 0.1, 2.0) if g.boolean() else 1.0
    return (x, t, w), {"reduction": g.choice(REDUCTIONS)}


def _bce_grad_fn(inputs: Any, params: Any) -> tuple[str, tuple[int, ...]]:
    """BinaryCrossEntropyBackward0; `next_functions` lists the input and the target only.

    (PyTorch's weight cannot require grad, so its backward never lists it.)
    """
    return "BinaryCrossEntropyBackward0", (0, 1)


def _bcel_grad_fn(inputs: Any, params: Any) -> tuple[str, tuple[int, ...]]:
    """BinaryCrossEntropyWithLogitsBackward0; `next_functions` lists the input and the target only.

    (PyTorch's weight and pos_weight cannot require grad, so its backward never lists them.)
    """
    return "BinaryCrossEntropyWithLogitsBackward0", (0, 1)


binary_cross_entropy = register(
    Primitive(
        name="binary_cross_entropy",
        forward=_bce_forward,
        vjp=_bce_vjp,
        jvp=_bce_jvp,
        params=("reduction",),
        sample=Sample(_bce_sample),
        doc="-w (t log p + (1 - t) log(1 - p)), each log clamped at -100, reduced",
        names=Names(grad_fn=_bce_grad_fn),
    )
)


# --- binary_cross_entropy_with_logits ----------------------------------------------------


def _bcel_forward(
    xp: ModuleType, x: Array, t: Array, w: Array, pw: Array, *, reduction: str
) -> Array:
    log_sig = -xp.logaddexp(0.0, -x)
    loss = (1.0 - t) * x - (1.0 + (pw - 1.0) * t) * log_sig
    return _reduce_forward(xp, w * loss, reduction)


def _bcel_parts(x: Array, t: Array, pw: Array) -> tuple[Array, Array]:
    log_sig = -softplus(-x)
    return log_sig, 1.0 + (pw - 1.0) * t


def _bcel_vjp(
    ct: Array, out: Array, x: Array, t: Array, w: Array, pw: Array, *, reduction: str
) -> tuple[Array, Array, Array, Array]:
    c = _ct(ct, reduction, _numel(x, t, w, pw))
    log_sig, lw = _bcel_parts(x, t, pw)
    cw = c * w
    grad_x = cw * ((1.0 - t) - lw * sigmoid(-x))
    grad_t = cw * (-x - (pw - 1.0) * log_sig)
    grad_w = c * ((1.0 - t) * x - lw * log_sig)
    grad_pw = -cw * t * log_sig
    return grad_x, grad_t, grad_w, grad_pw


def _bcel_jvp(
    tangents: tuple[Array | None, Array | None, Array | None, Array | None],
    out: Array,
    x: Array,
    t: Array,
    w: Array,
    pw: Array,
    *,
    reduction: str,
) -> Array | None:
    x_t, t_t, w_t, pw_t = tangents
    if x_t is None and t_t is None and w_t is None and pw_t is None:
        return None
    log_sig, lw = _bcel_parts(x, t, pw)
    total: Any = 0.0
    if x_t is not None:
        total = total + w * ((1.0 - t) - lw * sigmoid(-x)) * x_t
    if t_t is not None:
        total = total + w * (-x - (pw - 1.0) * log_sig) * t_t
    if w_t is not None:
        total = total + ((1.0 - t) * x - lw * log_sig) * w_t
    if pw_t is not None:
        total = total - w * t * log_sig * pw_t
    return _reduce(total, reduction, _numel(x, t, w, pw))


def _bcel_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=1, max_dims=3)
    x = g.array(shape, -4.0, 4.0)
    t = g.array(shape, 0.0, 1.0)
    w = g.array(shape[len(shape) // 2 :], 0.1, 2.0) if g.boolean() else 1.0
    pw = g.array(shape[-1:], 0.1, 3.0) if g.boolean() else 1.0
    return (x, t, w, pw), {"reduction": g.choice(REDUCTIONS)}


binary_cross_entropy_with_logits = register(
    Primitive(
        name="binary_cross_entropy_with_logits",
        forward=_bcel_forward,
        vjp=_bcel_vjp,
        jvp=_bcel_jvp,
        params=("reduction",),
        sample=Sample(_bcel_sample),
        doc="w ((1 - t) x + (1 + (pw - 1) t) softplus(-x)), reduced",
        names=Names(grad_fn=_bcel_grad_fn),
    )
)


# --- nll_loss ------------------------------------------------------------------------------


def _class_dim(logp: Any) -> int:
    return 0 if len(shape_of(logp)) == 1 else 1


def _masks(logp: Any, target: Array, ignore_index: int) -> tuple[Array, Array, Array]:
    """`(valid, onehot, counted)`: the targets not ignored, the one-hot mask of the valid
    targets (logp's shape, 1 at each valid target's class) and `valid` in logp's dtype."""
    v = value_of(logp)
    xp = xp_of(v)
    cd = _class_dim(logp)
    valid = target != ignore_index
    safe = xp.where(valid, target, 0)
    counted = valid.astype(v.dtype)
    if v.ndim == 2:  # (N, C): one fancy-indexed write
        onehot = xp.zeros(v.shape, dtype=v.dtype)
        onehot[xp.arange(v.shape[0]), safe] = counted
        return valid, onehot, counted
    classes = xp.arange(v.shape[cd]).reshape((-1,) + (1,) * (v.ndim - cd - 1))
    onehot = (xp.expand_dims(safe, cd) == classes) & xp.expand_dims(valid, cd)
    return valid, onehot.astype(v.dtype), counted


def _class_weights(w: Array, onehot: Array, counted: Array, cd: int) -> Array:
    """`w[t]` per target (0 where ignored); `counted` (0 or 1) where there is no weight."""
    if type(w) is float or type(w) is int:
        return counted if w == 1 else counted * w
    shape = [1] * len(shape_of(onehot))
    shape[cd] = shape_of(onehot)[cd]
    return sum_(onehot * reshape(w, shape=tuple(shape)), axis=cd, keepdims=False)


# Where every target counts with weight 1 (no class weights, none ignored) and the mean is
# asked for, nll_loss's rules take a shorter path on NumPy matrices: the same numbers (the
# weights are ones, their sum the row count exactly: float32 counts to 2**24), without
# building the weights and the one-hot mask (cross_entropy's usual case, W8's loss).
_EXACT_COUNT = 1 << 24
_SHORT_DTYPES = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_add_reduce = np.add.reduce
_arange = np.arange


def _every_target_counted(logp: Any, w: Any, valid: Any, reduction: str) -> bool:
    """Whether `_nll_forward`/`_nll_vjp` may take their short path (see above)."""
    return (
        type(logp) is np.ndarray
        and logp.ndim == 2
        and reduction == "mean"
        and (type(w) is float or type(w) is int)
        and w == 1
        and logp.dtype in _SHORT_DTYPES
        and 0 < logp.shape[0] < _EXACT_COUNT
        and type(valid) is np.ndarray
        and bool(valid.all())
    )


def _nll_forward(
    xp: ModuleType, logp: Array, target: Array, w: Array, *, ignore_index: int, reduction: str
) -> Array:
    valid = target != ignore_index
    if _every_target_counted(logp, w, valid, reduction):
        # sum(-picked * 1) / sum(ones): the weights' product and sum are exact
        picked = logp[_arange(logp.shape[0]), target]
        return _add_reduce(-picked) / logp.dtype.type(logp.shape[0])
    safe = xp.where(valid, target, 0)
    if logp.ndim == 2:
        picked = logp[xp.arange(logp.shape[0]), safe]
    else:
        cd = _class_dim(logp)
        picked = xp.squeeze(xp.take_along_axis(logp, xp.expand_dims(safe, cd), axis=cd), axis=cd)
    if isinstance(w, (int, float)):
        wt = valid.astype(logp.dtype)
        if w != 1:
            wt = wt * logp.dtype.type(w)
    else:
        wt = xp.where(valid, w[safe], 0).astype(logp.dtype)
    loss = -picked * wt
    if reduction == "none":
        return loss
    total = xp.sum(loss)
    if reduction == "sum":
        return total
    denom = xp.sum(wt)
    if isinstance(denom, np.generic) and denom != 0:  # NumPy's scalar: a target counted
        return total / denom
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / denom  # 0 / 0 = nan when every target is ignored, as in PyTorch


def _nll_scale(ct: Array, reduction: str, wt: Array) -> Array | None:
    """The cotangent of each entry (before its weight), or None when every target is ignored."""
    if reduction != "mean":
        return ct
    total = sum_(wt, axis=None, keepdims=False)
    if float(value_of(total)) == 0:
        return None
    return ct / total


def _expand(x: Array, cd: int, ndim: int) -> Array:
    """A per-target array (the input's shape without the class dimension) with that dimension back."""
    if len(shape_of(x)) != ndim - 1:
        return x
    if type(x) is np.ndarray:  # the same view, without numpy.expand_dims's Python (~4 us)
        return x.reshape((*x.shape[:cd], 1, *x.shape[cd:]))
    return expand_dims(x, axis=cd)


def _nll_vjp(
    ct: Array,
    out: Array,
    logp: Array,
    target: Array,
    w: Array,
    *,
    ignore_index: int,
    reduction: str,
) -> tuple[Array | None, None, Array | None]:
    if (
        type(ct) in (np.ndarray, getattr(logp, "dtype", np.dtype(object)).type)
        and ct.ndim == 0
        and ct.dtype == logp.dtype
        and type(target) is np.ndarray
        and _every_target_counted(logp, w, target != ignore_index, reduction)
    ):
        # -onehot * (c * 1): -1 * c at each target, -0.0 * c elsewhere (the same products)
        n = logp.shape[0]
        one = logp.dtype.type
        c = ct / one(n)
        grad = np.full(logp.shape, one(-0.0) * c, dtype=logp.dtype)
        grad[_arange(n), target] = one(-1.0) * c
        return grad, None, None
    cd = _class_dim(logp)
    ndim = len(shape_of(logp))
    valid, onehot, counted = _masks(logp, target, ignore_index)
    wt = _class_weights(w, onehot, counted, cd)
    c = _nll_scale(ct, reduction, wt)
    if c is None:  # every target ignored: the loss is nan, its gradient 0 (as in PyTorch)
        zeros = 0.0 * logp
        return zeros, None, (None if type(w) in (int, float) else 0.0 * w)
    grad_logp = -onehot * _expand(c * wt, cd, ndim)
    if type(w) is float or type(w) is int:
        return grad_logp, None, None
    picked = sum_(onehot * logp, axis=cd, keepdims=False)  # logp at each valid target
    axes = tuple(i for i in range(ndim) if i != cd)
    if reduction == "mean":
        loss = -sum_(picked * wt, axis=None, keepdims=False) / sum_(wt, axis=None, keepdims=False)
        per = _expand(c * (picked + loss), cd, ndim)  # d mean / d w_c = -(P_c + L N_c) / W
    else:
        per = _expand(c * picked, cd, ndim)
    grad_w = -sum_(onehot * per, axis=axes, keepdims=False) if axes else -(onehot * per)
    return grad_logp, None, grad_w


def _nll_jvp(
    tangents: tuple[Array | None, Array | None, Array | None],
    out: Array,
    logp: Array,
    target: Array,
    w: Array,
    *,
    ignore_index: int,
    reduction: str,
) -> Array | None:
    logp_t, _, w_t = tangents
    if logp_t is None and w_t is None:
        return None
    cd = _class_dim(logp)
    valid, onehot, counted = _masks(logp, target, ignore_index)
    wt = _class_weights(w, onehot, counted, cd)
    total: Any = 0.0
    if logp_t is not None:
        total = total - wt * sum_(onehot * logp_t, axis=cd, keepdims=False)
    if w_t is not None:
        picked = sum_(onehot * logp, axis=cd, keepdims=False)
        total = total - picked * _class_weights(w_t, onehot, counted, cd)
    if reduction == "none":
        return total
    s = sum_(total, axis=None, keepdims=False)
    if reduction == "sum":
        return s
    big_w = sum_(wt, axis=None, keepdims=False)
    if float(value_of(big_w)) == 0:
        return 0.0 * s
    if w_t is not None:
        loss = -sum_(sum_(onehot * logp, axis=cd, keepdims=False) * wt, axis=None, keepdims=False)
        s = s - loss / big_w * sum_(
            _class_weights(w_t, onehot, counted, cd), axis=None, keepdims=False
        )
    return s / big_w


def _nll_grad_fn(inputs: Any, params: Any) -> str:
    """NllLoss2DBackward0 for inputs of 3 or more dimensions, else NllLossBackward0."""
    return "NllLoss2DBackward0" if len(shape_of(inputs[0])) >= 3 else "NllLossBackward0"


def _nll_sample(g: Draw) -> Drawn:
    n_classes = g.integers(1, 4)
    kind = g.choice(["vector", "batch", "spatial"])
    if kind == "vector":
        shape: tuple[int, ...] = (n_classes,)
    elif kind == "batch":
        shape = (g.integers(1, 4), n_classes)
    else:
        shape = (g.integers(1, 3), n_classes, *g.shape(min_dims=1, max_dims=2, max_side=3))
    logp = g.array(shape, -3.0, 0.0)
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    target = np.asarray(g.array(tshape, 0.0, n_classes - 1e-9)).astype(np.int64)
    ignore_index = -100
    if g.boolean():  # ignore one class (its targets contribute nothing)
        ignore_index = g.integers(0, n_classes - 1)
        if (target == ignore_index).all():  # keep one target: an all-ignored mean is nan
            ignore_index = -100
    w = g.array((n_classes,), 0.2, 2.0) if g.boolean() else 1.0
    return (logp, target, w), {"ignore_index": ignore_index, "reduction": g.choice(REDUCTIONS)}


nll_loss = register(
    Primitive(
        name="nll_loss",
        forward=_nll_forward,
        vjp=_nll_vjp,
        jvp=_nll_jvp,
        params=("ignore_index", "reduction"),
        sample=Sample(_nll_sample),
        doc="-w[t] logp[t] at class indices t (ignore_index skipped), reduced (mean over w[t])",
        names=Names(grad_fn=_nll_grad_fn),
    )
)
