"""Dropout of `torch.nn.functional`: `dropout`, `dropout1d/2d/3d`, `alpha_dropout`, `feature_alpha_dropout`.

Each has PyTorch's signature and takes `Tensor`s or arrays and graph nodes.
The mask is drawn from funcgrad's random generator (`funcgrad.manual_seed`
seeds it; on a GPU, that GPU's), as `x`'s dtype and device; the result is
`x * mask` (`grad_fn` `MulBackward0`, as PyTorch's), so the gradient is the
same mask. With `training=False` the input comes back unchanged.
`inplace=True` rebinds a tensor to the result (arrays and nodes are never
changed in place).
"""

from __future__ import annotations

import math
from typing import Any

from funcgrad.backend import device_of, xp_of
from funcgrad.backend import rng as _rng
from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors, value
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add, multiply
from funcgrad.tensors.inplace import check_inplace, rebind
from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "alpha_dropout",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "feature_alpha_dropout",
]

# SELU's alpha * scale: the value alpha dropout drops to
_ALPHA = 1.7580993408473766


def _check_p(p: float, op: str) -> float:
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise OpError(
            f"funcgrad.nn.functional.{op}: dropout probability has to be between 0 and 1, but "
            f"got {p}"
        )
    return p


def _keep(x: Any, p: float, shape: tuple[int, ...]) -> Any:
    """A boolean array of `shape`: true (kept) with probability `1 - p`, on `x`'s device."""
    v = value(x)
    return _rng.uniform(shape, v.dtype if v.dtype.kind == "f" else "float32", device_of(v)) >= p


def _dropped(x: Any, p: float, shape: tuple[int, ...]) -> Any:
    v = value(x)
    xp = xp_of(v)
    if p == 1.0:
        return multiply(x, xp.zeros(shape, dtype=v.dtype))
    keep = _keep(x, p, shape)
    return multiply(x, (keep * (1.0 / (1.0 - p))).astype(v.dtype))


def _alpha_dropped(x: Any, p: float, shape: tuple[int, ...]) -> Any:
    # PyTorch's: x * a * keep + (a * alpha * p - a * alpha * (1 - keep)), a keeping mean and variance
    v = value(x)
    if p == 1.0:
        return multiply(x, xp_of(v).zeros(shape, dtype=v.dtype))
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1.0) * (1.0 - p))
    keep = _keep(x, p, shape).astype(v.dtype)
    shift = (keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p
    return add(multiply(x, keep * a), shift.astype(v.dtype))


def _in_place(input, out, inplace: bool, op: str):  # noqa: A002
    if inplace and isinstance(input, Tensor):
        check_inplace(input, op)
        rebind(input, out)
        return input
    return out


def _feature_shape(op: str, x_shape: tuple[int, ...], nd: int | None) -> tuple[int, ...]:
    """The mask's shape for channel dropout: one draw per channel, `(N, C, 1, ...)` or `(C, 1, ...)`."""
    if nd is not None and len(x_shape) not in (nd + 1, nd + 2):
        raise OpError(
            f"funcgrad.nn.functional.{op}: Expected {nd + 1}D or {nd + 2}D input, but received "
            f"a {len(x_shape)}D input"
        )
    if len(x_shape) < 2:
        raise OpError(
            f"funcgrad.nn.functional.{op}: feature dropout needs at least 2 dimensions, got "
            f"input of size {list(x_shape)}"
        )
    batched = nd is None or len(x_shape) == nd + 2
    lead = 2 if batched else 1
    return (*x_shape[:lead], *(1,) * (len(x_shape) - lead))


def _dropout_any(input, p, training, inplace, op, alpha, nd, feature):  # noqa: A002
    p = _check_p(p, op)
    if not training or p == 0.0:
        return input
    x = input
    shape = tuple(shape_of(x))
    mask_shape = _feature_shape(op, shape, nd) if feature else shape
    return (_alpha_dropped if alpha else _dropped)(x, p, mask_shape)


@takes_tensors
def _dropout(input, p, training, inplace):  # noqa: A002
    return _dropout_any(input, p, training, inplace, "dropout", False, None, False)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero each element with probability `p` and scale the others by `1 / (1 - p)` (`F.dropout`).

    Args:
        input: A tensor, array or node.
        p: The probability of an element being zeroed.
        training: Apply dropout (else return `input` unchanged).
        inplace: Rebind a tensor `input` to the result.

    Returns:
        `input * mask`, the mask drawn from funcgrad's generator.

    Examples:
        >>> import funcgrad as torch
        >>> import funcgrad.nn.functional as F
        >>> _ = torch.manual_seed(0)
        >>> y = F.dropout(torch.ones(1000), p=0.25)
        >>> sorted(set(y.tolist()))  # float32: 1 / 0.75 rounded
        [0.0, 1.3333333730697632]
    """
    if not training or _check_p(p, "dropout") == 0.0:
        return input
    return _in_place(input, _dropout(input, p, training, inplace), inplace, "dropout")


@takes_tensors
def _alpha(input, p, training, inplace):  # noqa: A002
    return _dropout_any(input, p, training, inplace, "alpha_dropout", True, None, False)


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """Apply alpha dropout (`F.alpha_dropout`): dropped elements go to SELU's negative limit.

    The kept ones are scaled and shifted so the mean and variance of a
    self-normalizing activation stay as they were.

    Args:
        input: A tensor, array or node.
        p: The probability of an element being dropped.
        training: Apply dropout (default False, as in PyTorch).
        inplace: Rebind a tensor `input` to the result.

    Returns:
        The result, `input` itself when not training.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.alpha_dropout(np.ones(3), 0.5)  # not training: unchanged
        array([1., 1., 1.])
    """
    if not training or _check_p(p, "alpha_dropout") == 0.0:
        return input
    return _in_place(input, _alpha(input, p, training, inplace), inplace, "alpha_dropout")


@takes_tensors
def _feature_alpha(input, p, training, inplace):  # noqa: A002
    return _dropout_any(input, p, training, inplace, "feature_alpha_dropout", True, None, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """Apply alpha dropout to whole channels (`F.feature_alpha_dropout`).

    Args:
        input: `(N, C, *)`: one draw per `(n, c)`.
        p: The probability of a channel being dropped.
        training: Apply dropout (default False, as in PyTorch).
        inplace: Rebind a tensor `input` to the result.

    Returns:
        The result, `input` itself when not training.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.feature_alpha_dropout(np.ones((1, 2, 2)), 0.5).shape
        (1, 2, 2)
    """
    if not training or _check_p(p, "feature_alpha_dropout") == 0.0:
        return input
    return _in_place(
        input, _feature_alpha(input, p, training, inplace), inplace, "feature_alpha_dropout"
    )


def _channel(nd: int, op: str):
    @takes_tensors
    def run(input, p, training, inplace):  # noqa: A002
        return _dropout_any(input, p, training, inplace, op, False, nd, True)

    return run


_dropout1d, _dropout2d, _dropout3d = (
    _channel(1, "dropout1d"),
    _channel(2, "dropout2d"),
    _channel(3, "dropout3d"),
)


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero whole channels of `(N, C, L)` or `(C, L)` with probability `p` (`F.dropout1d`).

    Args:
        input: `(N, C, L)` or `(C, L)`.
        p: The probability of a channel being zeroed; the others are scaled by `1 / (1 - p)`.
        training: Apply dropout (else return `input` unchanged).
        inplace: Rebind a tensor `input` to the result.

    Returns:
        `input * mask`, one draw per channel.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.dropout1d(np.ones((2, 3)), 0.5, training=False)
        array([[1., 1., 1.],
               [1., 1., 1.]])
    """
    if not training or _check_p(p, "dropout1d") == 0.0:
        return input
    return _in_place(input, _dropout1d(input, p, training, inplace), inplace, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero whole channels of `(N, C, H, W)` or `(C, H, W)` with probability `p` (`F.dropout2d`).

    Args:
        input: `(N, C, H, W)` or `(C, H, W)`.
        p: The probability of a channel being zeroed; the others are scaled by `1 / (1 - p)`.
        training: Apply dropout (else return `input` unchanged).
        inplace: Rebind a tensor `input` to the result.

    Returns:
        `input * mask`, one draw per channel.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> y = F.dropout2d(np.ones((4, 8, 2, 2)), 0.5)
        >>> bool(((y == 0) | (y == 2)).all()) and bool((y[:, :, :1, :1] == y).all())
        True
    """
    if not training or _check_p(p, "dropout2d") == 0.0:
        return input
    return _in_place(input, _dropout2d(input, p, training, inplace), inplace, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero whole channels of `(N, C, D, H, W)` or `(C, D, H, W)` with probability `p` (`F.dropout3d`).

    Args:
        input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        p: The probability of a channel being zeroed; the others are scaled by `1 / (1 - p)`.
        training: Apply dropout (else return `input` unchanged).
        inplace: Rebind a tensor `input` to the result.

    Returns:
        `input * mask`, one draw per channel.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.dropout3d(np.ones((1, 2, 1, 1, 1)), 0.0).ravel()
        array([1., 1.])
    """
    if not training or _check_p(p, "dropout3d") == 0.0:
        return input
    return _in_place(input, _dropout3d(input, p, training, inplace), inplace, "dropout3d")
