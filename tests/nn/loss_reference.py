"""Plain NumPy references of the loss primitives (`funcgrad.ops.loss`), entry by entry.

Written the slow, obvious way (a Python loop over the entries, math's
functions), so `tests/ops/test_rules.py::test_forward_matches_numpy`
compares the vectorised forwards with something independent of them.
"""

from __future__ import annotations

import math

import numpy as np


def _reduce(values, shape, dtype, reduction):
    loss = np.array(values, dtype=np.float64).reshape(shape).astype(dtype)
    if reduction == "none":
        return loss
    total = np.sum(loss)
    return total / loss.size if reduction == "mean" else total


def _pairs(*arrays):
    b = np.broadcast_arrays(*arrays)
    return b[0].shape, zip(*(a.ravel().tolist() for a in b), strict=True)


def mse_loss(x, t, *, reduction):
    shape, rows = _pairs(x, t)
    return _reduce([(a - b) ** 2 for a, b in rows], shape, np.result_type(x, t), reduction)


def smooth_l1_loss(x, t, *, reduction, beta):
    shape, rows = _pairs(x, t)
    values = [
        0.5 * (a - b) ** 2 / beta if abs(a - b) < beta else abs(a - b) - 0.5 * beta for a, b in rows
    ]
    return _reduce(values, shape, np.result_type(x, t), reduction)


def huber_loss(x, t, *, reduction, delta):
    shape, rows = _pairs(x, t)
    values = [
        0.5 * (a - b) ** 2 if abs(a - b) < delta else delta * (abs(a - b) - 0.5 * delta)
        for a, b in rows
    ]
    return _reduce(values, shape, np.result_type(x, t), reduction)


def soft_margin_loss(x, y, *, reduction):
    shape, rows = _pairs(x, y)
    return _reduce(
        [math.log1p(math.exp(-b * a)) for a, b in rows], shape, np.result_type(x, y), reduction
    )


def binary_cross_entropy(x, t, w, *, reduction):
    shape, rows = _pairs(x, t, np.asarray(w))
    values = [
        -c * (b * max(math.log(a), -100.0) + (1 - b) * max(math.log(1 - a), -100.0))
        for a, b, c in rows
    ]
    return _reduce(values, shape, np.result_type(x, t), reduction)


def binary_cross_entropy_with_logits(x, t, w, pw, *, reduction):
    shape, rows = _pairs(x, t, np.asarray(w), np.asarray(pw))
    values = [
        c * ((1 - b) * a + (1 + (p - 1) * b) * math.log1p(math.exp(-a))) for a, b, c, p in rows
    ]
    return _reduce(values, shape, np.result_type(x, t), reduction)


def nll_loss(logp, target, w, *, ignore_index, reduction):
    weights = np.broadcast_to(
        np.asarray(w, dtype=np.float64), (logp.shape[0 if logp.ndim == 1 else 1],)
    )
    moved = logp[None] if logp.ndim == 1 else np.moveaxis(logp, 1, -1)  # (N, ..., C)
    targets = target.reshape(moved.shape[:-1])
    losses, total_weight = [], 0.0
    for index in np.ndindex(targets.shape):
        k = int(targets[index])
        if k == ignore_index:
            losses.append(0.0)
            continue
        losses.append(-weights[k] * float(moved[index][k]))
        total_weight += weights[k]
    loss = np.array(losses).reshape(target.shape).astype(logp.dtype)
    if reduction == "none":
        return loss
    total = np.sum(loss)
    return total if reduction == "sum" else total / logp.dtype.type(total_weight)


LOSS_REFERENCES = {
    "mse_loss": mse_loss,
    "smooth_l1_loss": smooth_l1_loss,
    "huber_loss": huber_loss,
    "soft_margin_loss": soft_margin_loss,
    "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits,
    "nll_loss": nll_loss,
}
