"""The loss functions of `funcgrad.nn.functional`, with PyTorch's signatures.

Each loss takes `Tensor`s (the result is a `Tensor` with a `grad_fn`, dtypes
promoted by PyTorch's rules) and arrays, numbers or graph nodes (the result
is an array or a node, NumPy's dtype rules), with the same arguments either
way. The math is written once, on nodes and arrays (`_*_impl`); a call on
tensors runs it once through the tensor layer's `_apply`, which hands it the
tensors' nodes (or values) and wraps the result.

`reduction` is `'mean'`, `'sum'` or `'none'` everywhere (`kl_div` also takes
`'batchmean'`); PyTorch's legacy `size_average` and `reduce` still work and
warn, as in PyTorch. Class-index targets are integers (int64 or uint8 for
tensors, as PyTorch wants; any integer dtype for arrays) and are never
differentiated. Everything is computed stably: `cross_entropy` through
`log_softmax`, the logistic losses through `softplus`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.distributions._lazy import special as _sp
from funcgrad.errors import IndexingError, OpError
from funcgrad.graph import Node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import loss as _lp
from funcgrad.ops import nn as _nn
from funcgrad.ops._util import checked_value, value_of
from funcgrad.ops.named import named
from funcgrad.tensors.dtypes import torch_name
from funcgrad.tensors.tensor_class import Tensor, _apply
from funcgrad.transforms.batching import Batched

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

_F = "funcgrad.nn.functional."


# --- shared helpers ---------------------------------------------------------------


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's mapping of the deprecated `size_average`/`reduce` to a `reduction` (with its warning)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return ret


def _check_reduction(name: str, reduction: str, extra: tuple[str, ...] = ()) -> str:
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            UserWarning,
            stacklevel=3,
        )
        return "mean"
    if reduction not in ("none", "mean", "sum", *extra):
        allowed = ", ".join(repr(r) for r in ("none", "mean", "sum", *extra))
        raise OpError(
            f"{_F}{name}: {reduction} is not a valid value for reduction (use one of {allowed})"
        )
    return reduction


def _reduction(name: str, size_average, reduce, reduction: str) -> str:
    return _check_reduction(name, _legacy_reduction(size_average, reduce, reduction))


def _shape(x) -> tuple[int, ...]:
    shape = getattr(x, "shape", None)
    return () if shape is None else tuple(shape)


def _ndim(x) -> int:
    return len(_shape(x))


def _value(x):
    """The array behind a tensor, node, array or number (for checks on values)."""
    if isinstance(x, Tensor):
        return x._value
    if type(x) is Node:
        return x.value
    return np.asarray(x)


def _checked(x):
    """`_value(x)` for a check that raises on bad values: a guard under jit and compile.

    A tensor's node (or a node) is read through `ops._util.checked_value`, so that in a
    trace the check is computed by the plan and its `bool()` is a guard: a replay with
    values the check refuses raises as the eager call does.
    """
    if isinstance(x, Tensor):
        return checked_value(x._node if x._node is not None else x._value)
    if type(x) is Node:
        return checked_value(x)
    return np.asarray(x)


def _arg(x):
    """An argument of the functional API: lists become arrays; arrays, numbers and nodes stay."""
    return np.asarray(x) if isinstance(x, (list, tuple)) else x


def _run(impl, args: tuple, static: dict):
    """Run `impl(*args, **static)`: once through `_apply` if a tensor is among them, else directly.

    `args` are the floating-point operands, promoted together by PyTorch's
    rules on tensors; `static` holds options and integer targets (not
    promoted, never differentiated).
    """
    for a in args:  # loops, not any() over generators: this runs on every loss call
        if isinstance(a, Tensor):
            return _apply(impl, *args, **static)
    for a in static.values():
        if isinstance(a, Tensor):
            return _apply(impl, *args, **static)
    return impl(*[_arg(a) for a in args], **{k: _arg(v) for k, v in static.items()})


def _check_float(name: str, *xs) -> None:
    """Refuse integer or bool tensors where PyTorch's kernel needs floating point."""
    for x in xs:
        if isinstance(x, Tensor) and x._value.dtype.kind not in "fc":
            raise OpError(
                f"{_F}{name}: expected a floating-point tensor, got {torch_name(x._value.dtype)} "
                f"(shape {list(x._value.shape)}); convert it first with x.float()"
            )


def _size_warning(name: str, input, target) -> None:  # noqa: A002
    if _shape(input) != _shape(target):
        warnings.warn(
            f"{_F}{name}: Using a target size ({list(_shape(target))}) that is different to the "
            f"input size ({list(_shape(input))}). This will likely lead to incorrect results due "
            "to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _reduce(loss, reduction: str):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return fnp.sum(loss)
    return fnp.mean(loss)


def _clamp_min(x, low):
    """`max(x, low)` with PyTorch's `clamp_min` gradient: it passes where `x >= low`."""
    return fnp.where(value_of(x) >= low, x, low)


def _log_sigmoid(x):
    return -_ew.softplus(-x)


def _class_indices(name: str, target, input_shape, class_dim: int | None) -> np.ndarray:  # noqa: A002
    """A class-index target as an integer array, checked as PyTorch checks it."""
    if isinstance(target, Tensor):
        kind = target._value.dtype
        if kind not in (np.int64, np.uint8):
            raise OpError(
                f"{_F}{name}: expected target dtype to be Long or Byte, but got "
                f"{torch_name(kind)} (a class-index target must "
                "be int64; convert it with target.long())"
            )
        return target._value
    value = np.asarray(value_of(target))
    if value.dtype.kind not in "biu":
        raise OpError(
            f"{_F}{name}: class-index targets must be integers, got {value.dtype} of shape "
            f"{list(value.shape)} (class probabilities need the input's shape)"
        )
    return value


_INT64, _UINT64 = np.dtype(np.int64), np.dtype(np.uint64)
_max_reduce = np.maximum.reduce


def _check_bounds(name: str, idx: np.ndarray, n_classes: int, ignore_index: int | None) -> None:
    while type(idx) is Batched:  # under vmap: every example's labels at once, as one array
        idx = value_of(idx.val)
    if not idx.size:
        return
    if type(idx) is np.ndarray and idx.dtype == _INT64:
        # NOTE: as unsigned, a negative index is above every class: one reduction checks both
        # bounds (the usual case: int64 labels)
        if _max_reduce(idx.view(_UINT64), axis=None) < n_classes:
            return
    elif idx.min() >= 0 and idx.max() < n_classes:
        return  # every index a class (two reductions)
    valid = idx if ignore_index is None else idx[idx != ignore_index]
    bad = valid[(valid < 0) | (valid >= n_classes)]
    if bad.size:
        also = "" if ignore_index is None else f", or equal ignore_index={ignore_index}"
        raise IndexingError(
            f"{_F}{name}: Target {int(bad.flat[0])} is out of bounds. Class indices must be in "
            f"[0, {n_classes}) for an input of {n_classes} classes{also}"
        )


def _batch_shape(name: str, input_shape, target_shape) -> None:  # noqa: A002
    """Check a class-index target against an input of shape (C,), (N, C) or (N, C, d1, ...)."""
    if len(input_shape) < 1:
        raise OpError(f"{_F}{name}: input tensor should be 1D or more, got a 0-d input")
    if len(input_shape) == 1:
        if len(target_shape) > 1 or math.prod(target_shape) != 1:
            raise OpError(
                f"{_F}{name}: 0D or 1D target tensor expected, multi-target not supported "
                f"(input {list(input_shape)}, target {list(target_shape)})"
            )
        return
    if not target_shape or target_shape[0] != input_shape[0]:
        batch = target_shape[0] if target_shape else "none (a 0-d target)"
        raise OpError(
            f"{_F}{name}: Expected input batch_size ({input_shape[0]}) to match target "
            f"batch_size ({batch})."
        )
    expected = (input_shape[0], *input_shape[2:])
    if tuple(target_shape) != expected:
        raise OpError(
            f"{_F}{name}: Expected target size {list(expected)}, got {list(target_shape)} "
            f"(for an input of shape {list(input_shape)})"
        )


def _check_class_weight(name: str, weight, n_classes: int) -> None:
    if weight is not None and (_ndim(weight) != 1 or _shape(weight)[0] != n_classes):
        raise OpError(
            f"{_F}{name}: weight tensor should be defined either for all {n_classes} classes or "
            f"no classes but got weight tensor of shape: {list(_shape(weight))}"
        )


# --- regression losses --------------------------------------------------------------


def _weighted(loss, weight, reduction: str, mean_by_weight: bool):
    if weight is None:
        return _reduce(loss, reduction)
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return fnp.sum(loss) / fnp.sum(weight)
    return _reduce(loss, reduction)


def _check_elementwise_weight(name: str, weight, input) -> None:  # noqa: A002
    if weight is not None and _shape(weight) != _shape(input):
        raise OpError(
            f"{_F}{name}: Weights and input must have the same size (weight "
            f"{list(_shape(weight))}, input {list(_shape(input))})."
        )


def _mse_impl(x, t, w, *, reduction):
    if w is None:  # PyTorch's kernel: one node, MseLossBackward0
        return _lp.mse_loss(x, t, reduction=reduction)
    d = x - t
    return _weighted(d * d, w, reduction, mean_by_weight=True)


def mse_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
    weight=None,
):
    """Return the (optionally weighted) mean squared error `(input - target) ** 2`, reduced.

    Args:
        input: Predictions: a `Tensor`, an array, a number or a graph node.
        target: Targets of the same shape (others broadcast, with PyTorch's warning).
        size_average: Deprecated (see `reduction`).
        reduce: Deprecated (see `reduction`).
        reduction: `'mean'` (the default), `'sum'` or `'none'`.
        weight: Optional weights of the input's shape; `'mean'` then divides
            by their sum, as PyTorch does.

    Returns:
        A `Tensor` if a tensor was given, else an array or a node.

    Examples:
        >>> import numpy as np, funcgrad as torch, funcgrad.nn.functional as F
        >>> x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
        >>> F.mse_loss(x, torch.tensor([1.0, 1.0, 1.0]))
        tensor(3.3333, grad_fn=<MseLossBackward0>)
        >>> F.mse_loss(np.array([1.0, 2.0]), np.array([0.0, 0.0]), reduction="none")
        array([1., 4.])
    """
    _size_warning("mse_loss", input, target)
    reduction = _reduction("mse_loss", size_average, reduce, reduction)
    _check_float("mse_loss", input)
    _check_elementwise_weight("mse_loss", weight, input)
    return _run(_mse_impl, (input, target, weight), {"reduction": reduction})


def _l1_impl(x, t, w, *, reduction):
    return _weighted(fnp.abs(x - t), w, reduction, mean_by_weight=True)


def l1_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
    weight=None,
):
    """Return the (optionally weighted) absolute error `|input - target|`, reduced.

    Arguments as `mse_loss`; the gradient at `input == target` is 0.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.l1_loss(torch.tensor([1.0, 3.0]), torch.tensor([0.0, 0.0]), reduction="sum")
        tensor(4.)
    """
    _size_warning("l1_loss", input, target)
    reduction = _reduction("l1_loss", size_average, reduce, reduction)
    _check_float("l1_loss", input)
    _check_elementwise_weight("l1_loss", weight, input)
    return _run(_l1_impl, (input, target, weight), {"reduction": reduction})


def _smooth_l1_impl(x, t, *, reduction, beta):
    if beta == 0.0:  # the L1 loss, as PyTorch computes it
        return _reduce(fnp.abs(x - t), reduction)
    return _lp.smooth_l1_loss(x, t, reduction=reduction, beta=beta)


def smooth_l1_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
    beta: float = 1.0,
):
    """Return the smooth L1 loss: `0.5 d**2 / beta` where `|d| < beta`, else `|d| - beta / 2`.

    `d = input - target`; `beta=0` is the L1 loss.

    Raises:
        funcgrad.errors.OpError: For a negative `beta` or an invalid `reduction`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), reduction="none")
        tensor([0.1250, 2.5000])
    """
    _size_warning("smooth_l1_loss", input, target)
    reduction = _reduction("smooth_l1_loss", size_average, reduce, reduction)
    if beta < 0:
        raise OpError(
            f"{_F}smooth_l1_loss: smooth_l1_loss does not support negative values for beta "
            f"(got {beta})."
        )
    _check_float("smooth_l1_loss", input)
    return _run(_smooth_l1_impl, (input, target), {"reduction": reduction, "beta": float(beta)})


def _huber_impl(x, t, w, *, reduction, delta):
    if w is None:
        return _lp.huber_loss(x, t, reduction=reduction, delta=delta)
    loss = _lp.huber_loss(x, t, reduction="none", delta=delta)
    return _weighted(loss, w, reduction, mean_by_weight=False)


def huber_loss(
    input,  # noqa: A002
    target,
    reduction: str = "mean",
    delta: float = 1.0,
    weight=None,
):
    """Return the Huber loss: `0.5 d**2` where `|d| < delta`, else `delta * (|d| - delta / 2)`.

    `d = input - target`. With `weight`, `'mean'` is the mean of the
    weighted losses (not divided by the weights' sum), as in PyTorch.

    Raises:
        funcgrad.errors.OpError: For `delta <= 0` or an invalid `reduction`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.huber_loss(torch.tensor([0.5, 3.0]), torch.zeros(2), reduction="none", delta=2.0)
        tensor([0.1250, 4.0000])
    """
    _size_warning("huber_loss", input, target)
    reduction = _check_reduction("huber_loss", reduction)
    if delta <= 0:
        raise OpError(
            f"{_F}huber_loss: huber_loss does not support non-positive values for delta "
            f"(got {delta})."
        )
    _check_float("huber_loss", input)
    _check_elementwise_weight("huber_loss", weight, input)
    return _run(_huber_impl, (input, target, weight), {"reduction": reduction, "delta": delta})


# --- classification: negative log likelihood, cross entropy -------------------------


def _pick(logp, idx, class_dim: int):
    """`logp` at the class `idx` (same shape as `logp` without `class_dim`) along `class_dim`."""
    if class_dim == 0 and _ndim(logp) == 1:
        return logp[int(idx.reshape(()))]
    return fnp.squeeze(
        fnp.take_along_axis(logp, np.expand_dims(idx, class_dim), axis=class_dim), axis=class_dim
    )


def _nll_parts(logp, w, idx, ignore_index, class_dim):
    """The unreduced loss `-w[t] * logp[t]` (0 where ignored) and the weights `w[t]` (0 there)."""
    valid = idx != ignore_index
    safe = np.where(valid, idx, 0).astype(np.intp)
    if _ndim(logp) == 1:
        safe, valid = safe.reshape(()), valid.reshape(())
    picked = _pick(logp, safe, class_dim)
    if w is None:
        wt = valid.astype(value_of(logp).dtype)
        loss = fnp.where(valid, -picked, 0.0)
    else:
        wt = fnp.where(valid, w[safe], 0.0)
        loss = -picked * wt
    return loss, wt, valid


def _weighted_mean(total, wt, valid, weighted: bool):
    """`total` over the weight of the targets not ignored; nan (gradient 0) when that is 0, as PyTorch."""
    denom = fnp.sum(wt) if weighted else float(np.count_nonzero(valid))
    if value_of(denom) == 0:
        return fnp.stop_gradient(total) * math.nan
    return total / denom


def _nll_impl(logp, w, *, target, ignore_index, reduction):
    w = 1.0 if w is None else w
    return _lp.nll_loss(logp, target, w, ignore_index=ignore_index, reduction=reduction)


def _index_target(name: str, input, target, weight, ignore_index) -> np.ndarray:  # noqa: A002
    shape = _shape(input)
    idx = _class_indices(name, target, shape, None)
    _batch_shape(name, shape, idx.shape)
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    _check_class_weight(name, weight, n_classes)
    _check_bounds(name, idx, n_classes, ignore_index)
    return idx.astype(np.intp, copy=False)


def nll_loss(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the negative log likelihood loss `-weight[t] * input[n, t]` of class indices `t`.

    Args:
        input: Log-probabilities of shape `(C,)`, `(N, C)` or `(N, C, d1, ..., dK)`.
        target: Class indices (int64 tensors, any integer array) of shape
            `()`, `(N,)` or `(N, d1, ..., dK)`, each in `[0, C)` or equal to
            `ignore_index`.
        weight: Optional weight per class, shape `(C,)`.
        size_average: Deprecated (see `reduction`).
        ignore_index: A target value that contributes nothing (nor to the
            mean's denominator).
        reduce: Deprecated (see `reduction`).
        reduction: `'mean'` (divides by the total weight of the targets not
            ignored), `'sum'` or `'none'`.

    Raises:
        funcgrad.errors.IndexingError: A class index out of range (an `IndexError`, as in PyTorch).
        funcgrad.errors.OpError: Shapes that do not fit, a target of another dtype.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> logp = torch.tensor([[-0.5, -1.0], [-2.0, -0.1]], requires_grad=True)
        >>> F.nll_loss(logp, torch.tensor([0, 1]))
        tensor(0.3000, grad_fn=<NllLossBackward0>)
    """
    reduction = _reduction("nll_loss", size_average, reduce, reduction)
    _check_float("nll_loss", input)
    idx = _index_target("nll_loss", input, target, weight, ignore_index)
    static = {"target": idx, "ignore_index": ignore_index, "reduction": reduction}
    return _run(_nll_impl, (input, weight), static)


def _ce_index_impl(x, w, *, target, ignore_index, reduction, label_smoothing):
    class_dim = 0 if _ndim(x) == 1 else 1
    logp = _nn.log_softmax(x, axis=class_dim)
    nll = _lp.nll_loss(
        logp, target, 1.0 if w is None else w, ignore_index=ignore_index, reduction=reduction
    )
    if label_smoothing == 0.0:
        return nll
    _, wt, valid = _nll_parts(logp, w, target, ignore_index, class_dim)
    n_classes = _shape(x)[class_dim]
    if w is None:
        smooth = -fnp.sum(logp, axis=class_dim)
    else:
        shape = [1] * _ndim(x)
        shape[class_dim] = n_classes
        smooth = -fnp.sum(logp * fnp.reshape(w, tuple(shape)), axis=class_dim)
    smooth = fnp.where(valid, smooth, 0.0)
    if reduction == "sum":
        smooth = fnp.sum(smooth)
    elif reduction == "mean":
        smooth = _weighted_mean(fnp.sum(smooth), wt, valid, w is not None)
    return (1.0 - label_smoothing) * nll + (label_smoothing / n_classes) * smooth


def _ce_prob_impl(x, t, w, *, reduction, label_smoothing):
    class_dim = 0 if _ndim(x) == 1 else 1
    n_classes = _shape(x)[class_dim]
    logp = _nn.log_softmax(x, axis=class_dim)
    if label_smoothing > 0.0:
        t = t * (1.0 - label_smoothing) + label_smoothing / n_classes
    terms = logp * t
    if w is not None:
        shape = [1] * _ndim(x)
        shape[class_dim] = n_classes
        terms = terms * fnp.reshape(w, tuple(shape))
    if reduction == "none":
        return -fnp.sum(terms, axis=class_dim)
    total = -fnp.sum(terms)
    if reduction == "sum":
        return total
    numel = math.prod(_shape(x))
    return total * math.nan if numel == 0 else total / (numel // n_classes)


def cross_entropy(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    """Return the cross entropy between logits `input` and class indices or class probabilities.

    Computed as `nll_loss(log_softmax(input, 1), target)`, so large logits
    neither overflow nor lose precision. A floating-point `target` of the
    input's shape holds class probabilities; otherwise `target` holds class
    indices, as in `nll_loss`.

    Args:
        input: Logits of shape `(C,)`, `(N, C)` or `(N, C, d1, ..., dK)`.
        target: Class indices (shape `()`, `(N,)`, `(N, d1, ..., dK)`) or
            class probabilities (the input's shape).
        weight: Optional weight per class, shape `(C,)`.
        size_average: Deprecated (see `reduction`).
        ignore_index: A class index that contributes nothing (indices only).
        reduce: Deprecated (see `reduction`).
        reduction: `'mean'`, `'sum'` or `'none'`. With indices, `'mean'`
            divides by the total weight of the targets not ignored; with
            probabilities by the number of samples `N * d1 * ... * dK`.
        label_smoothing: In `[0, 1]`: the target is mixed with the uniform
            distribution by this amount.

    Raises:
        funcgrad.errors.IndexingError: A class index out of range.
        funcgrad.errors.OpError: Shapes that do not fit, a target of another
            dtype, `label_smoothing` outside `[0, 1]`.

    Examples:
        >>> import numpy as np, funcgrad as torch, funcgrad.nn.functional as F
        >>> logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 0.0, 3.0]], requires_grad=True)
        >>> F.cross_entropy(logits, torch.tensor([0, 2]))
        tensor(0.1681, grad_fn=<NllLossBackward0>)
        >>> F.cross_entropy(np.array([[1000.0, 0.0]]), np.array([1]))
        np.float64(1000.0)
    """
    reduction = _reduction("cross_entropy", size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise OpError(
            f"{_F}cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: "
            f"{label_smoothing}"
        )
    _check_float("cross_entropy", input)
    shape = _shape(input)
    if _shape(target) == shape and len(shape) >= 1:
        kind = _value(target).dtype.kind
        if kind not in "fc":
            raise OpError(
                f"{_F}cross_entropy: Expected floating point type for target with class "
                f"probabilities, got {_value(target).dtype} (a class-index target has the "
                f"input's shape without the class dimension: {list(shape[:1] + shape[2:])})"
            )
        if ignore_index >= 0:
            raise OpError(
                f"{_F}cross_entropy: ignore_index is not supported for floating point target "
                f"(class probabilities); got ignore_index={ignore_index}"
            )
        n_classes = shape[0] if len(shape) == 1 else shape[1]
        _check_class_weight("cross_entropy", weight, n_classes)
        static = {"reduction": reduction, "label_smoothing": float(label_smoothing)}
        return _run(_ce_prob_impl, (input, target, weight), static)
    idx = _index_target("cross_entropy", input, target, weight, ignore_index)
    static = {
        "target": idx,
        "ignore_index": ignore_index,
        "reduction": reduction,
        "label_smoothing": float(label_smoothing),
    }
    return _run(_ce_index_impl, (input, weight), static)


# --- binary classification ----------------------------------------------------------


def _bce_impl(x, t, w, *, reduction):
    # PyTorch clamps each log at -100, so a probability of exactly 0 or 1 costs 100, not inf
    return _lp.binary_cross_entropy(x, t, 1.0 if w is None else w, reduction=reduction)


def binary_cross_entropy(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the binary cross entropy `-(t log(p) + (1 - t) log(1 - p))` of probabilities `p`.

    Each log is clamped at -100, as in PyTorch. Prefer
    `binary_cross_entropy_with_logits` on logits: it is stable where
    `sigmoid` saturates.

    Args:
        input: Probabilities in `[0, 1]`.
        target: Targets in `[0, 1]`, of the input's shape.
        weight: Optional weights, broadcast to the target's shape.
        size_average: Deprecated (see `reduction`).
        reduce: Deprecated (see `reduction`).
        reduction: `'mean'`, `'sum'` or `'none'`.

    Raises:
        funcgrad.errors.OpError: An input outside `[0, 1]`, shapes or dtypes that differ.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.binary_cross_entropy(torch.tensor([0.9, 0.2]), torch.tensor([1.0, 0.0]))
        tensor(0.1643)
    """
    reduction = _reduction("binary_cross_entropy", size_average, reduce, reduction)
    if _shape(target) != _shape(input):
        raise OpError(
            f"{_F}binary_cross_entropy: Using a target size ({list(_shape(target))}) that is "
            f"different to the input size ({list(_shape(input))}) is deprecated. Please ensure "
            "they have the same size."
        )
    _check_float("binary_cross_entropy", input)
    if isinstance(input, Tensor) and isinstance(target, Tensor):
        if input._value.dtype != target._value.dtype:
            raise OpError(
                f"{_F}binary_cross_entropy: Found dtype {torch_name(target._value.dtype)} but "
                f"expected {torch_name(input._value.dtype)} (the target's dtype must be the "
                "input's; convert it with target.to(input.dtype))"
            )
    v = _checked(input)
    if not ((v >= 0) & (v <= 1)).all():
        raise OpError(
            f"{_F}binary_cross_entropy: all elements of input should be between 0 and 1 "
            f"(got values in [{np.nanmin(v) if v.size else 0}, {np.nanmax(v) if v.size else 0}]"
            "); pass probabilities, or logits to binary_cross_entropy_with_logits"
        )
    if weight is not None and _shape(weight) != _shape(target):
        weight = _broadcast_to(weight, np.broadcast_shapes(_shape(target), _shape(weight)))
    return _run(_bce_impl, (input, target, weight), {"reduction": reduction})


def _broadcast_to(x, shape):
    if isinstance(x, Tensor):
        return x.expand(*shape)
    return fnp.broadcast_to(_arg(x), shape)


def _bce_logits_impl(x, t, w, pw, *, reduction):
    w = 1.0 if w is None else w
    pw = 1.0 if pw is None else pw
    return _lp.binary_cross_entropy_with_logits(x, t, w, pw, reduction=reduction)


def binary_cross_entropy_with_logits(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
    pos_weight=None,
):
    """Return the binary cross entropy of `sigmoid(input)`, computed stably from the logits.

    The loss is `(1 - t) x + l * softplus(-x)` with `l = 1 + (pos_weight - 1) t`
    (PyTorch's log-sum-exp form), so no logit overflows.

    Args:
        input: Logits.
        target: Targets in `[0, 1]`, of the input's shape.
        weight: Optional weights, broadcast against the loss.
        size_average: Deprecated (see `reduction`).
        reduce: Deprecated (see `reduction`).
        reduction: `'mean'`, `'sum'` or `'none'`.
        pos_weight: Optional weight of the positive examples, broadcast
            against the target (one per class along the last dimension).

    Examples:
        >>> import numpy as np, funcgrad as torch, funcgrad.nn.functional as F
        >>> x = torch.tensor([3.0, -2.0, 0.0], requires_grad=True)
        >>> F.binary_cross_entropy_with_logits(x, torch.tensor([1.0, 0.0, 1.0]), reduction="none")
        tensor([0.0486, 0.1269, 0.6931],
               grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
        >>> F.binary_cross_entropy_with_logits(np.array([1000.0]), np.array([0.0]))
        np.float64(1000.0)
    """
    reduction = _reduction("binary_cross_entropy_with_logits", size_average, reduce, reduction)
    if _shape(target) != _shape(input):
        raise OpError(
            f"{_F}binary_cross_entropy_with_logits: Target size ({list(_shape(target))}) must "
            f"be the same as input size ({list(_shape(input))})"
        )
    _check_float("binary_cross_entropy_with_logits", input)
    return _run(_bce_logits_impl, (input, target, weight, pos_weight), {"reduction": reduction})


# --- divergences and likelihoods ----------------------------------------------------


def _kl_div_impl(x, t, *, reduction, log_target):
    if log_target:
        loss = fnp.exp(t) * (t - x)
    else:
        loss = _sp.xlogy(t, t) - t * x
    if reduction == "batchmean":
        total = fnp.sum(loss)
        return total / _shape(x)[0] if _ndim(x) != 0 else total
    return _reduce(loss, reduction)


def kl_div(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
    log_target: bool = False,
):
    """Return the Kullback-Leibler divergence loss `t * (log t - input)` of log-probabilities `input`.

    Args:
        input: Log-probabilities.
        target: Probabilities, or log-probabilities if `log_target`.
        size_average: Deprecated (see `reduction`).
        reduce: Deprecated (see `reduction`).
        reduction: `'batchmean'` (the sum divided by the batch size: the
            KL divergence per sample), `'sum'`, `'mean'` (divides by every
            element, with PyTorch's warning) or `'none'`.
        log_target: Whether `target` holds log-probabilities.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> p = torch.tensor([[0.5, 0.5]])
        >>> F.kl_div(torch.tensor([[0.25, 0.75]]).log(), p, reduction="batchmean")
        tensor(0.1438)
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    reduction = _check_reduction("kl_div", reduction, ("batchmean",))
    _check_float("kl_div", input)
    static = {"reduction": reduction, "log_target": bool(log_target)}
    return _run(_kl_div_impl, (input, target), static)


def _poisson_nll_impl(x, t, *, log_input, full, eps, reduction):
    if log_input:
        loss = fnp.exp(x) - t * x
    else:
        loss = x - t * fnp.log(x + eps)
    if full:
        # Stirling's term t log t - t + log(2 pi t) / 2, for t > 1 only (0 elsewhere)
        big = value_of(t) > 1
        ts = fnp.where(big, t, 2.0)
        stirling = ts * fnp.log(ts) - ts + 0.5 * fnp.log((2.0 * math.pi) * ts)
        loss = loss + fnp.where(big, stirling, 0.0)
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input,  # noqa: A002
    target,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the negative log likelihood of `target` under a Poisson of rate `input`.

    `exp(input) - target * input` if `log_input`, else
    `input - target * log(input + eps)`; `full` adds Stirling's
    approximation of `log(target!)` where `target > 1`. Its gradient with
    respect to `target` is 0 where that term is left out (PyTorch's is nan
    at a target of 0, from the `log` it masks).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.poisson_nll_loss(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
        tensor(0.8591)
    """
    reduction = _reduction("poisson_nll_loss", size_average, reduce, reduction)
    _check_float("poisson_nll_loss", input)
    static = {
        "log_input": bool(log_input),
        "full": bool(full),
        "eps": eps,
        "reduction": reduction,
    }
    return _run(_poisson_nll_impl, (input, target), static)


def _gaussian_nll_impl(x, t, var, *, full, eps, reduction):
    # var is clamped at eps for its value only (PyTorch clamps in place under no_grad):
    # the gradient reaches var unchanged
    if not isinstance(var, float):
        var = var + fnp.stop_gradient(fnp.maximum(var, eps) - var)
    d = x - t
    log_var = math.log(var) if isinstance(var, float) else fnp.log(var)  # a number stays weak
    loss = 0.5 * (log_var + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input,  # noqa: A002
    target,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
):
    """Return the Gaussian negative log likelihood `(log var + (input - target)**2 / var) / 2`.

    Args:
        input: Means.
        target: Samples.
        var: Positive variances: the input's shape, one dimension short (one
            per sample), broadcastable with one dimension of size 1, or a number.
        full: Add the constant `log(2 pi) / 2`.
        eps: The variance is clamped at `eps` (for its value; the gradient
            passes unchanged, as in PyTorch).
        reduction: `'mean'`, `'sum'` or `'none'`.

    Raises:
        funcgrad.errors.OpError: A negative variance, or `var` of a shape that does not fit.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.gaussian_nll_loss(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0]), 1.0)
        tensor(0.2500)
    """
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise OpError(f"{_F}gaussian_nll_loss: var has negative entry/entries (var={var})")
        var = max(float(var), eps)  # a Python number: weak, so float32 inputs stay float32
    else:
        if (_checked(var) < 0).any():
            raise OpError(f"{_F}gaussian_nll_loss: var has negative entry/entries")
        vshape, ishape = _shape(var), _shape(input)
        if vshape != ishape:
            if ishape[:-1] == vshape:
                var = (
                    var.unsqueeze(-1) if isinstance(var, Tensor) else fnp.expand_dims(_arg(var), -1)
                )
            elif not (
                len(ishape) == len(vshape)
                and sum(v for i, v in zip(ishape, vshape, strict=True) if i != v) == 1
            ):
                raise OpError(
                    f"{_F}gaussian_nll_loss: var is of incorrect size {list(vshape)} for an input "
                    f"of size {list(ishape)} (use the input's size, its size without the last "
                    "dimension, or a size with one dimension of 1)"
                )
    reduction = _check_reduction("gaussian_nll_loss", reduction)
    _check_float("gaussian_nll_loss", input)
    return _run(
        _gaussian_nll_impl,
        (input, target, var),
        {"full": bool(full), "eps": eps, "reduction": reduction},
    )


# --- margin and embedding losses ----------------------------------------------------


def _cosine_embedding_impl(x1, x2, y, *, margin, reduction):
    dim = _ndim(y)
    prod = fnp.sum(x1 * x2, axis=dim)
    mag1 = fnp.sum(x1 * x1, axis=dim) + 1e-12
    mag2 = fnp.sum(x2 * x2, axis=dim) + 1e-12
    cos = prod / fnp.sqrt(mag1 * mag2)
    yv = value_of(y)
    loss = fnp.where(yv == 1, 1.0 - cos, 0.0) + fnp.where(
        yv == -1, _clamp_min(cos - margin, 0.0), 0.0
    )
    return _reduce(loss, reduction)


def cosine_embedding_loss(
    input1,
    input2,
    target,
    margin: float = 0,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the cosine embedding loss: `1 - cos` where `target == 1`, `max(0, cos - margin)` where -1.

    `cos` is the cosine similarity of `input1` and `input2` along their last
    dimension (shapes `(N, D)` with a target `(N,)`, or `(D,)` with a 0-d target).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> a, b = torch.tensor([[1.0, 0.0], [1.0, 1.0]]), torch.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> F.cosine_embedding_loss(a, b, torch.tensor([1.0, -1.0]), reduction="none")
        tensor([1., 1.])
    """
    reduction = _reduction("cosine_embedding_loss", size_average, reduce, reduction)
    tdim = _ndim(target)
    if tdim not in (0, 1):
        raise OpError(
            f"{_F}cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not "
            f"supported (target {list(_shape(target))})"
        )
    want = 2 if tdim == 1 else 1
    if _ndim(input1) != want or _ndim(input2) != want:
        raise OpError(
            f"{_F}cosine_embedding_loss: {tdim}D target tensor expects {want}D input tensors, but "
            f"found inputs with sizes {list(_shape(input1))} and {list(_shape(input2))}."
        )
    _check_float("cosine_embedding_loss", input1, input2)
    static = {"margin": float(margin), "reduction": reduction}
    return _run(_cosine_embedding_impl, (input1, input2, target), static)


def _margin_ranking_impl(x1, x2, y, *, margin, reduction):
    return _reduce(_clamp_min(-y * (x1 - x2) + margin, 0.0), reduction)


def margin_ranking_loss(
    input1,
    input2,
    target,
    margin: float = 0,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the margin ranking loss `max(0, -target * (input1 - input2) + margin)`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.margin_ranking_loss(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]),
        ...                       torch.tensor([1.0, 1.0]), margin=0.5, reduction="none")
        tensor([0.0000, 1.5000])
    """
    reduction = _reduction("margin_ranking_loss", size_average, reduce, reduction)
    if not _ndim(input1) == _ndim(input2) == _ndim(target):
        raise OpError(
            f"{_F}margin_ranking_loss: All input tensors should have same dimension but got "
            f"sizes: input1: {list(_shape(input1))}, input2: {list(_shape(input2))}, target: "
            f"{list(_shape(target))}"
        )
    _check_float("margin_ranking_loss", input1, input2)
    static = {"margin": float(margin), "reduction": reduction}
    return _run(_margin_ranking_impl, (input1, input2, target), static)


def _pairwise_distance(x1, x2, p: float, eps: float):
    d = x1 - x2 + eps
    if p == 2:
        return fnp.sqrt(fnp.sum(d * d, axis=-1))
    a = fnp.abs(d)
    if p == 1:
        return fnp.sum(a, axis=-1)
    if p == math.inf:
        return fnp.max(a, axis=-1)
    return fnp.sum(a**p, axis=-1) ** (1.0 / p)


def _triplet_impl(a, pos, neg, *, margin, p, eps, swap, reduction):
    d_pos = _pairwise_distance(a, pos, p, eps)
    d_neg = _pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = fnp.minimum(d_neg, _pairwise_distance(pos, neg, p, eps))
    return _reduce(_clamp_min(margin + d_pos - d_neg, 0.0), reduction)


def _check_triplet(name, anchor, positive, negative) -> None:
    dims = (_ndim(anchor), _ndim(positive), _ndim(negative))
    if len(set(dims)) != 1 or dims[0] not in (1, 2):
        raise OpError(
            f"{_F}{name}: The anchor, positive, and negative tensors are expected to have the "
            f"same number of dimensions (1 or 2), but got: anchor {dims[0]}D, positive "
            f"{dims[1]}D, and negative {dims[2]}D inputs"
        )


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the triplet margin loss `max(0, margin + d(a, p) - d(a, n))`.

    `d(x, y)` is the `p`-norm of `x - y + eps` along the last dimension (as
    `pairwise_distance`); with `swap`, `d(a, n)` is replaced by `d(p, n)`
    where that is smaller.

    Raises:
        funcgrad.errors.OpError: For `margin <= 0` or inputs of different ranks.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> a = torch.tensor([[0.0, 0.0]])
        >>> F.triplet_margin_loss(a, torch.tensor([[3.0, 4.0]]), torch.tensor([[0.0, 1.0]]))
        tensor(5.0000)
    """
    reduction = _reduction("triplet_margin_loss", size_average, reduce, reduction)
    if margin <= 0:
        raise OpError(f"{_F}triplet_margin_loss: margin must be greater than 0, got {margin}")
    _check_triplet("triplet_margin_loss", anchor, positive, negative)
    _check_float("triplet_margin_loss", anchor, positive, negative)
    static = {"margin": margin, "p": p, "eps": eps, "swap": bool(swap), "reduction": reduction}
    return _run(_triplet_impl, (anchor, positive, negative), static)


def triplet_margin_with_distance_loss(
    anchor,
    positive,
    negative,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
):
    """Return the triplet margin loss with a distance function of your own.

    `distance_function(x, y)` returns the distances of the rows (the default
    is the Euclidean `pairwise_distance`); the loss is
    `max(0, margin + d(a, p) - d(a, n))`, with `swap` as in `triplet_margin_loss`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> l1 = lambda x, y: (x - y).abs().sum(-1)
        >>> F.triplet_margin_with_distance_loss(torch.zeros(1, 2), torch.ones(1, 2),
        ...                                     torch.zeros(1, 2), distance_function=l1)
        tensor(3.)
    """
    reduction = _check_reduction("triplet_margin_with_distance_loss", reduction)
    if margin <= 0:
        raise OpError(
            f"{_F}triplet_margin_with_distance_loss: margin must be greater than 0, got {margin}"
        )
    if distance_function is None:

        def distance_function(x, y):
            return _run(lambda u, v: _pairwise_distance(u, v, 2.0, 1e-6), (x, y), {})

    d_pos = distance_function(anchor, positive)
    d_neg = distance_function(anchor, negative)
    if swap:
        d_swap = distance_function(positive, negative)
        d_neg = _run(fnp.minimum, (d_neg, d_swap), {})
    return _run(
        lambda dp, dn: _reduce(_clamp_min(margin + dp - dn, 0.0), reduction), (d_pos, d_neg), {}
    )


def _hinge_embedding_impl(x, y, *, margin, reduction):
    yv = value_of(y)
    loss = fnp.where(yv != 1, _clamp_min(margin - x, 0.0), 0.0) + fnp.where(yv != -1, x, 0.0)
    return _reduce(loss, reduction)


def hinge_embedding_loss(
    input,  # noqa: A002
    target,
    margin: float = 1.0,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the hinge embedding loss: `input` where `target == 1`, `max(0, margin - input)` where -1.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.hinge_embedding_loss(torch.tensor([0.3, 0.3]), torch.tensor([1.0, -1.0]),
        ...                        reduction="none")
        tensor([0.3000, 0.7000])
    """
    reduction = _reduction("hinge_embedding_loss", size_average, reduce, reduction)
    _check_float("hinge_embedding_loss", input)
    static = {"margin": float(margin), "reduction": reduction}
    return _run(_hinge_embedding_impl, (input, target), static)


def _soft_margin_impl(x, y, *, reduction):
    return _lp.soft_margin_loss(x, y, reduction=reduction)


def soft_margin_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the two-class logistic loss `log(1 + exp(-target * input))`, computed stably.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.soft_margin_loss(torch.tensor([0.0, 1000.0]), torch.tensor([1.0, 1.0]),
        ...                    reduction="none")
        tensor([0.6931, 0.0000])
    """
    reduction = _reduction("soft_margin_loss", size_average, reduce, reduction)
    _check_float("soft_margin_loss", input)
    return _run(_soft_margin_impl, (input, target), {"reduction": reduction})


def _multilabel_soft_margin_impl(x, t, w, *, reduction):
    loss = -(t * _log_sigmoid(x) + (1.0 - t) * _log_sigmoid(-x))
    if w is not None:
        loss = loss * w
    class_dim = _ndim(x) - 1
    loss = fnp.sum(loss, axis=class_dim) / _shape(x)[class_dim]
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the multi-label one-versus-all logistic loss, averaged over the classes (last dim).

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.multilabel_soft_margin_loss(torch.tensor([[0.0, 0.0]]), torch.tensor([[1.0, 0.0]]))
        tensor(0.6931)
    """
    reduction = _reduction("multilabel_soft_margin_loss", size_average, reduce, reduction)
    _check_float("multilabel_soft_margin_loss", input)
    return _run(_multilabel_soft_margin_impl, (input, target, weight), {"reduction": reduction})


def _multi_margin_impl(x, w, *, target, p, margin, reduction):
    if _ndim(x) == 1:
        x = fnp.reshape(x, (1, -1))
        squeeze = True
    else:
        squeeze = False
    n_classes = _shape(x)[1]
    idx = np.reshape(target, (-1, 1))  # a 0-d target reaches here as a Python int
    x_y = fnp.take_along_axis(x, idx, axis=1)
    z = margin - x_y + x
    h = fnp.where(value_of(z) > 0, z, 0.0)
    if p == 2:
        h = h * h
    if w is not None:
        h = h * fnp.reshape(w[idx.reshape(-1)], (-1, 1))
    h = fnp.where(np.arange(n_classes) == idx, 0.0, h)
    loss = fnp.sum(h, axis=1) / n_classes
    if squeeze and reduction == "none":
        loss = fnp.reshape(loss, ())
    out = _reduce(loss, reduction)  # PyTorch's one kernel: its grad_fn name
    return named(out, grad_fn="MultiMarginLossBackward0") if type(out) is Node else out


def multi_margin_loss(
    input,  # noqa: A002
    target,
    p: int = 1,
    margin: float = 1.0,
    weight=None,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the multi-class hinge loss `sum_j max(0, margin - x[y] + x[j])**p / C` over `j != y`.

    Args:
        input: Scores of shape `(N, C)` or `(C,)`.
        target: Class indices of shape `(N,)` or `()`.
        p: 1 or 2.
        margin: The margin.
        weight: Optional weight per class (of the target class), shape `(C,)`.
        size_average: Deprecated (see `reduction`).
        reduce: Deprecated (see `reduction`).
        reduction: `'mean'`, `'sum'` or `'none'`.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
        tensor(0.3250)
    """
    reduction = _reduction("multi_margin_loss", size_average, reduce, reduction)
    if p not in (1, 2):
        raise OpError(f"{_F}multi_margin_loss: only p == 1 and p == 2 supported (got p={p})")
    if weight is not None and _ndim(weight) != 1:
        raise OpError(
            f"{_F}multi_margin_loss: weight must be one-dimensional (got {list(_shape(weight))})"
        )
    _check_float("multi_margin_loss", input)
    shape = _shape(input)
    if len(shape) not in (1, 2) or (len(shape) == 2 and shape[1] == 0) or 0 in shape[-1:]:
        raise OpError(
            f"{_F}multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim "
            f"batch size, but got: {list(shape)}"
        )
    idx = _class_indices("multi_margin_loss", target, shape, None)
    n = 1 if len(shape) == 1 else shape[0]
    if idx.size != n or (len(shape) == 2 and idx.ndim != 1):
        raise OpError(
            f"{_F}multi_margin_loss: inconsistent target size: {list(idx.shape)} for input of "
            f"size: {list(shape)}"
        )
    _check_bounds("multi_margin_loss", idx, shape[-1], None)
    static = {
        "target": idx.astype(np.intp),
        "p": p,
        "margin": float(margin),
        "reduction": reduction,
    }
    return _run(_multi_margin_impl, (input, weight), static)


def _multilabel_margin_impl(x, *, target, reduction):
    squeeze = _ndim(x) == 1
    if squeeze:
        x = fnp.reshape(x, (1, -1))
        target = target.reshape(1, -1)
    n_classes = _shape(x)[1]
    # the targets are the entries before the first -1 of each row
    valid = np.cumprod(target >= 0, axis=1).astype(bool)
    safe = np.where(valid, target, 0)
    is_target = np.zeros(target.shape, dtype=bool)
    rows = np.nonzero(valid)[0]
    is_target[rows, safe[valid]] = True
    x_y = fnp.take_along_axis(x, safe, axis=1)  # (N, K)
    z = 1.0 - fnp.expand_dims(x_y, 2) + fnp.expand_dims(x, 1)  # (N, K, C)
    h = fnp.where(value_of(z) > 0, z, 0.0)
    keep = valid[:, :, None] & ~is_target[:, None, :]
    loss = fnp.sum(fnp.where(keep, h, 0.0), axis=(1, 2)) / n_classes
    if squeeze and reduction == "none":
        loss = fnp.reshape(loss, ())
    return _reduce(loss, reduction)


def multilabel_margin_loss(
    input,  # noqa: A002
    target,
    size_average=None,
    reduce=None,  # noqa: A002
    reduction: str = "mean",
):
    """Return the multi-class multi-label hinge loss.

    `target` (int64, the input's shape) lists each sample's classes, ended
    by the first -1; the loss sums `max(0, 1 - (x[j] - x[i]))` over target
    classes `j` and the other classes `i`, divided by the number of classes.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> F.multilabel_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]),
        ...                          torch.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    reduction = _reduction("multilabel_margin_loss", size_average, reduce, reduction)
    _check_float("multilabel_margin_loss", input)
    shape = _shape(input)
    idx = _class_indices("multilabel_margin_loss", target, shape, None)
    if len(shape) not in (1, 2) or idx.shape != shape:
        raise OpError(
            f"{_F}multilabel_margin_loss: inconsistent target size: {list(idx.shape)} for input "
            f"of size: {list(shape)}"
        )
    if idx.size:
        valid = np.cumprod(idx.reshape(-1, shape[-1]) >= 0, axis=1).astype(bool)
        bad = idx.reshape(-1, shape[-1])[valid]
        bad = bad[bad >= shape[-1]]
        if bad.size:
            raise IndexingError(
                f"{_F}multilabel_margin_loss: Target {int(bad[0])} is out of bounds for "
                f"{shape[-1]} classes"
            )
    static = {"target": idx.astype(np.intp), "reduction": reduction}
    return _run(_multilabel_margin_impl, (input,), static)


def _lengths(name: str, lengths, what: str) -> np.ndarray:
    v = np.asarray(_value(lengths) if isinstance(lengths, (Tensor, Node)) else lengths)
    if v.dtype.kind not in "iu":
        raise OpError(f"{_F}{name}: {what} must be integers, got {v.dtype}")
    return v.astype(np.intp).reshape(-1)


def _ctc_impl(lp, *, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    n_time, batch, _ = _shape(lp)
    n_ext = 2 * targets.shape[1] + 1
    dtype = value_of(lp).dtype
    # the extended label sequences: blank, l1, blank, l2, ..., blank
    ext = np.full((batch, n_ext), blank, dtype=np.intp)
    ext[:, 1::2] = targets
    emit = fnp.take_along_axis(lp, np.broadcast_to(ext[None], (n_time, batch, n_ext)), axis=2)
    skip = np.zeros((batch, n_ext), dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg = np.full((batch, 1), -np.inf, dtype=dtype)
    alpha = fnp.where(np.arange(n_ext) < 2, emit[0], -np.inf)
    for t in range(1, n_time):  # alpha_t(s) = emit_t(s) + logsumexp over s, s - 1, s - 2
        a1 = fnp.concatenate([neg, alpha], axis=1)[:, :n_ext]
        a2 = fnp.where(skip, fnp.concatenate([neg, neg, alpha], axis=1)[:, :n_ext], -np.inf)
        new = _nn.logsumexp(fnp.stack([alpha, a1, a2]), axis=0, keepdims=False) + emit[t]
        alpha = fnp.where((t < input_lengths)[:, None], new, alpha)
    last = 2 * target_lengths
    ends = np.stack([last, np.maximum(last - 1, 0)], axis=1)
    final = fnp.take_along_axis(alpha, ends, axis=1)
    final = fnp.where(np.stack([np.ones(batch, bool), target_lengths > 0], axis=1), final, -np.inf)
    loss = -_nn.logsumexp(final, axis=1, keepdims=False)
    if zero_infinity:
        loss = fnp.where(np.isinf(value_of(loss)), 0.0, loss)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return fnp.sum(loss)
    return fnp.mean(loss / np.maximum(target_lengths, 1).astype(dtype))


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
):
    """Return the connectionist temporal classification loss: `-log p(target | log_probs)`.

    The probability sums over every alignment of the target to the input
    frames (with blanks and repeats), by the forward recursion in log space,
    so the gradient comes from differentiating that recursion.

    Args:
        log_probs: Log-probabilities `(T, N, C)` (or `(T, C)` unbatched),
            normally `log_softmax` outputs.
        targets: Class indices in `[0, C)` other than `blank`: padded `(N, S)`,
            or the target sequences concatenated `(sum(target_lengths),)`.
        input_lengths: Frames used per sample (`N` integers, each `<= T`).
        target_lengths: Target length per sample (`N` integers).
        blank: The blank class.
        reduction: `'mean'` (each loss divided by its target length, then
            averaged), `'sum'` or `'none'`.
        zero_infinity: Give impossible alignments (an infinite loss) a loss
            and gradient of 0.

    Raises:
        funcgrad.errors.OpError: Lengths out of range, or shapes that do not fit.
        funcgrad.errors.IndexingError: A target class outside `[0, C)`.

    Note:
        The gradient with respect to `log_probs` is the derivative of this
        loss. PyTorch's adds `exp(log_probs)` to it (a term the backward of
        `log_softmax` cancels), so gradients with respect to the logits
        before `log_softmax` agree with PyTorch's, those with respect to
        `log_probs` themselves do not.

    Examples:
        >>> import funcgrad as torch, funcgrad.nn.functional as F
        >>> lp = torch.zeros(3, 1, 2).log_softmax(2)
        >>> F.ctc_loss(lp, torch.tensor([[1]]), [3], [1], reduction="sum")
        tensor(0.2877)
    """
    reduction = _check_reduction("ctc_loss", reduction)
    _check_float("ctc_loss", log_probs)
    shape = _shape(log_probs)
    unbatched = len(shape) == 2
    if len(shape) not in (2, 3):
        raise OpError(
            f"{_F}ctc_loss: log_probs must be (T, N, C) or (T, C), got shape {list(shape)}"
        )
    n_time, n_classes = shape[0], shape[-1]
    in_lens = _lengths("ctc_loss", input_lengths, "input_lengths")
    tgt_lens = _lengths("ctc_loss", target_lengths, "target_lengths")
    tgt = np.asarray(_value(targets))
    if tgt.dtype.kind not in "iu":
        raise OpError(f"{_F}ctc_loss: targets must be integers, got {tgt.dtype}")
    if unbatched:
        tgt = tgt.reshape(1, -1)
    batch = 1 if unbatched else shape[1]
    if in_lens.size != batch or tgt_lens.size != batch:
        raise OpError(
            f"{_F}ctc_loss: input_lengths and target_lengths must have {batch} entries (the "
            f"batch size), got {in_lens.size} and {tgt_lens.size}"
        )
    if (in_lens > n_time).any() or (in_lens < 0).any():
        raise OpError(
            f"{_F}ctc_loss: Expected input_lengths to have value at most {n_time}, but got value "
            f"{int(in_lens.max() if (in_lens > n_time).any() else in_lens.min())}"
        )
    if tgt.ndim == 1:  # the targets concatenated: pad them into rows
        if tgt.size < tgt_lens.sum():
            raise OpError(
                f"{_F}ctc_loss: {tgt.size} concatenated targets for target_lengths summing to "
                f"{int(tgt_lens.sum())}"
            )
        rows = np.full((batch, max(int(tgt_lens.max()), 0)), blank, dtype=np.intp)
        offsets = np.concatenate([[0], np.cumsum(tgt_lens)])
        for n in range(batch):
            rows[n, : tgt_lens[n]] = tgt[offsets[n] : offsets[n + 1]]
        tgt = rows
    if (tgt_lens < 0).any() or (tgt_lens > tgt.shape[1]).any():
        raise OpError(
            f"{_F}ctc_loss: Expected tensor to have size at least {int(tgt_lens.max())} at "
            f"dimension 1, but got size {tgt.shape[1]} for argument #2 'targets'"
        )
    used = tgt[np.arange(tgt.shape[1]) < tgt_lens[:, None]]
    bad = used[(used < 0) | (used >= n_classes)]
    if bad.size:
        raise IndexingError(
            f"{_F}ctc_loss: Target {int(bad[0])} is out of bounds for {n_classes} classes"
        )
    static = {
        "targets": tgt.astype(np.intp),
        "input_lengths": in_lens,
        "target_lengths": tgt_lens,
        "blank": int(blank),
        "reduction": reduction,
        "zero_infinity": bool(zero_infinity),
    }
    if unbatched:
        log_probs = (
            log_probs.unsqueeze(1)
            if isinstance(log_probs, Tensor)
            else fnp.expand_dims(_arg(log_probs), 1)
        )
    out = _run(_ctc_impl, (log_probs,), static)
    if unbatched and reduction == "none":
        out = out.squeeze(0) if isinstance(out, Tensor) else fnp.squeeze(out, axis=0)
    return out
