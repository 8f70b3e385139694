"""Normalization of `torch.nn.functional`: `batch_norm`, `layer_norm`, `rms_norm`, `group_norm`, `instance_norm`, `local_response_norm`, `normalize`.

Each has PyTorch's signature and takes `Tensor`s or arrays and graph nodes.
All are compositions of funcgrad's reductions and elementwise primitives
(mean, a biased variance, `1 / sqrt(var + eps)`), so every order of
derivative and forward mode work. `batch_norm` and `instance_norm` in
training update the running statistics in place, as PyTorch does: with
`momentum` `m`, `running = (1 - m) * running + m * batch`, the variance
unbiased (`n / (n - 1)`); the running arrays must then be tensors or
writeable NumPy arrays (graph nodes cannot change in place).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import is_tensor, takes_tensors, update_, value
from funcgrad.ops import pooling as _pool
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add, astype, divide, maximum, multiply, power, sqrt, subtract
from funcgrad.ops.reduce import mean, norm, sum_
from funcgrad.ops.shape import reshape, transpose

__all__ = [
    "batch_norm",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "local_response_norm",
    "normalize",
    "rms_norm",
]


def _normalized(x: Any, axes: tuple[int, ...], eps: float) -> tuple[Any, Any, Any]:
    """`(x - mean) / sqrt(var + eps)` over `axes`, with the mean and the biased variance."""
    mu = mean(x, axis=axes, keepdims=True)
    centered = subtract(x, mu)
    var = mean(multiply(centered, centered), axis=axes, keepdims=True)
    return divide(centered, sqrt(add(var, float(eps)))), mu, var


def _channel_shape(ndim: int) -> tuple[int, ...]:
    return (-1,) + (1,) * (ndim - 2)


def _affine(y: Any, weight: Any, bias: Any, shape: tuple[int, ...]) -> Any:
    if weight is not None:
        y = multiply(y, reshape(weight, shape=shape))
    if bias is not None:
        y = add(y, reshape(bias, shape=shape))
    return y


@takes_tensors(grad_fn="NativeLayerNormBackward0")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalize over the last `len(normalized_shape)` axes (`torch.nn.functional.layer_norm`).

    Args:
        input: `(*, *normalized_shape)`.
        normalized_shape: The trailing shape normalized over (an int or a sequence).
        weight: Elementwise scale of shape `normalized_shape`, or None.
        bias: Elementwise shift of shape `normalized_shape`, or None.
        eps: Added to the (biased) variance.

    Returns:
        `(input - mean) / sqrt(var + eps) * weight + bias`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.layer_norm(np.array([[1.0, 2.0, 3.0]]), (3,)).round(4)
        array([[-1.2247,  0.    ,  1.2247]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    x_shape = shape_of(input)
    k = len(shape)
    if tuple(x_shape[len(x_shape) - k :]) != shape or k == 0:
        raise OpError(
            f"funcgrad.nn.functional.layer_norm: Given normalized_shape={list(shape)}, expected "
            f"input with shape [*, {', '.join(str(n) for n in shape)}], but got input of size"
            f"{list(x_shape)}"
        )
    axes = tuple(range(len(x_shape) - k, len(x_shape)))
    y, _, _ = _normalized(input, axes, eps)
    if weight is not None:
        y = multiply(y, weight)
    if bias is not None:
        y = add(y, bias)
    return y


# float16 computes in float32 and is cast back, as PyTorch's opmath does.
_OPMATH = {np.dtype(np.float16): np.dtype(np.float32)}


def _rms_norm_grad_fn(input, *args, **kwargs):  # noqa: A002
    """PyTorch's name: the cast back (`ToCopyBackward0`) for float16, else the last product."""
    return "ToCopyBackward0" if value(input).dtype in _OPMATH else "MulBackward0"


@takes_tensors(grad_fn=_rms_norm_grad_fn)
def rms_norm(input, normalized_shape, weight=None, eps=None):  # noqa: A002
    """Divide by the root mean square over the last axes (`torch.nn.functional.rms_norm`).

    Args:
        input: `(*, *normalized_shape)`.
        normalized_shape: The trailing shape normalized over (an int or a sequence).
        weight: Elementwise scale of shape `normalized_shape`, or None.
        eps: Added to the mean square; None: the machine epsilon of the input's dtype.

    Returns:
        `input * (1 / sqrt(mean(input ** 2) + eps)) * weight`, computed in that order, as
        PyTorch's CPU kernel does. A float16 input (and weight) is computed in float32 and
        the result cast back to float16, as PyTorch does (its "opmath"): `input ** 2` would
        overflow float16 above 256, and its mean lose most digits; the default eps is then
        float32's.

    Raises:
        OpError: If the input's trailing shape is not `normalized_shape`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.rms_norm(np.array([[3.0, 4.0]]), (2,)).round(4)
        array([[0.8485, 1.1314]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    x_shape = shape_of(input)
    k = len(shape)
    if tuple(x_shape[len(x_shape) - k :]) != shape or k == 0:
        raise OpError(
            f"funcgrad.nn.functional.rms_norm: Given normalized_shape={list(shape)}, expected "
            f"input with shape [*{', '.join(str(n) for n in shape)}], but got input of size"
            f"{list(x_shape)}"
        )
    dtype = value(input).dtype
    opmath = _OPMATH.get(dtype)
    if opmath is not None:
        input = astype(input, dtype=opmath)  # noqa: A001
        if weight is not None:
            weight = astype(weight, dtype=opmath)
    if eps is None:
        eps = float(np.finfo(opmath or dtype).eps)
    axes = tuple(range(len(x_shape) - k, len(x_shape)))
    ms = mean(multiply(input, input), axis=axes, keepdims=True)
    y = multiply(input, divide(1.0, sqrt(add(ms, float(eps)))))
    if weight is not None:
        y = multiply(y, weight)
    return y if opmath is None else astype(y, dtype=dtype)


def _stat(x: Any) -> Any:
    """A running statistic as computations take it: a tensor's array, else as it is."""
    return value(x) if is_tensor(x) else x


@takes_tensors(keep=("running_mean", "running_var"), grad_fn="NativeBatchNormBackward0")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,  # noqa: A002
               momentum=0.1, eps=1e-5):  # fmt: skip
    """Apply batch normalization per channel (`torch.nn.functional.batch_norm`).

    In training the batch's statistics normalize (over every axis but the
    channels, axis 1) and the running statistics, when given, are updated in
    place with `momentum`; in evaluation the running statistics normalize.

    Args:
        input: `(N, C, *)`.
        running_mean: `(C,)` or None (a tensor or writeable array, updated in training).
        running_var: `(C,)` or None.
        weight: `(C,)` scale or None.
        bias: `(C,)` shift or None.
        training: Use (and record) the batch's statistics.
        momentum: The weight of the batch in the running averages.
        eps: Added to the variance.

    Returns:
        The normalized input.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> rm, rv = np.zeros(1), np.ones(1)
        >>> F.batch_norm(np.array([[1.0], [3.0]]), rm, rv, training=True).round(4)
        array([[-1.],
               [ 1.]])
        >>> rm, rv
        (array([0.2]), array([1.1]))
    """
    x_shape = shape_of(input)
    if len(x_shape) < 2:
        raise OpError(
            f"funcgrad.nn.functional.batch_norm: expected an input of at least 2 dimensions "
            f"(N, C, ...), got input of size {list(x_shape)}"
        )
    axes = (0, *range(2, len(x_shape)))
    cshape = _channel_shape(len(x_shape))
    if training:
        count = 1
        for a in axes:
            count *= x_shape[a]
        if count <= 1:
            raise OpError(
                f"funcgrad.nn.functional.batch_norm: Expected more than 1 value per channel "
                f"when training, got input size {list(x_shape)}"
            )
        y, mu, var = _normalized(input, axes, eps)
        if running_mean is not None or running_var is not None:
            m = float(momentum)
            mv, vv = value(mu).reshape(-1), value(var).reshape(-1)
            if running_mean is not None:
                update_(running_mean, value(running_mean) * (1.0 - m) + mv * m)
            if running_var is not None:
                unbiased = vv * (count / (count - 1))
                update_(running_var, value(running_var) * (1.0 - m) + unbiased * m)
    else:
        if running_mean is None or running_var is None:
            raise OpError(
                "funcgrad.nn.functional.batch_norm: running_mean and running_var must be "
                "defined in evaluation mode (training=False)"
            )
        mu = reshape(_stat(running_mean), shape=cshape)
        inv = divide(1.0, sqrt(add(reshape(_stat(running_var), shape=cshape), float(eps))))
        y = multiply(subtract(input, mu), inv)
    return _affine(y, weight, bias, cshape)


@takes_tensors(keep=("running_mean", "running_var"), grad_fn="ViewBackward0")
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats=True, momentum=0.1, eps=1e-5):  # fmt: skip
    """Normalize each channel of each sample over its spatial axes (`torch.nn.functional.instance_norm`).

    Args:
        input: `(N, C, *)`.
        running_mean: `(C,)` or None; updated in place (the batch's mean of the
            instances' statistics) when `use_input_stats`.
        running_var: `(C,)` or None.
        weight: `(C,)` scale or None.
        bias: `(C,)` shift or None.
        use_input_stats: Normalize with each instance's statistics (else the running ones).
        momentum: The weight of the batch in the running averages.
        eps: Added to the variance.

    Returns:
        The normalized input.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.instance_norm(np.array([[[1.0, 3.0]]])).round(4)
        array([[[-1.,  1.]]])
    """
    x_shape = shape_of(input)
    if len(x_shape) < 3:
        raise OpError(
            f"funcgrad.nn.functional.instance_norm: expected an input of at least 3 "
            f"dimensions (N, C, *), got input of size {list(x_shape)}"
        )
    axes = tuple(range(2, len(x_shape)))
    cshape = _channel_shape(len(x_shape))
    if use_input_stats:
        count = 1
        for a in axes:
            count *= x_shape[a]
        if count <= 1:
            raise OpError(
                f"funcgrad.nn.functional.instance_norm: Expected more than 1 spatial element "
                f"when training, got input size {list(x_shape)}"
            )
        y, mu, var = _normalized(input, axes, eps)
        m = float(momentum)
        if running_mean is not None:
            mv = value(mu).reshape(x_shape[0], x_shape[1]).mean(axis=0)
            update_(running_mean, value(running_mean) * (1.0 - m) + mv * m)
        if running_var is not None:
            vv = value(var).reshape(x_shape[0], x_shape[1]).mean(axis=0) * (count / (count - 1))
            update_(running_var, value(running_var) * (1.0 - m) + vv * m)
    else:
        if running_mean is None or running_var is None:
            raise OpError(
                "funcgrad.nn.functional.instance_norm: Expected running_mean and running_var "
                "to be defined when use_input_stats is false"
            )
        mu = reshape(_stat(running_mean), shape=cshape)
        inv = divide(1.0, sqrt(add(reshape(_stat(running_var), shape=cshape), float(eps))))
        y = multiply(subtract(input, mu), inv)
    return _affine(y, weight, bias, cshape)


@takes_tensors(grad_fn="NativeGroupNormBackward0")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Normalize over groups of channels (`torch.nn.functional.group_norm`).

    Args:
        input: `(N, C, *)`, `C` divisible by `num_groups`.
        num_groups: How many groups the channels split into.
        weight: `(C,)` scale or None.
        bias: `(C,)` shift or None.
        eps: Added to the variance.

    Returns:
        The normalized input.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.group_norm(np.array([[1.0, 3.0, 5.0, 9.0]]), 2).round(4)
        array([[-1., 1., -1., 1.]])
    """
    x_shape = shape_of(input)
    if len(x_shape) < 2 or x_shape[1] % num_groups:
        raise OpError(
            f"funcgrad.nn.functional.group_norm: Expected number of channels in input to be "
            f"divisible by num_groups, but got input of shape {list(x_shape)} and num_groups="
            f"{num_groups}"
        )
    grouped = reshape(input, shape=(x_shape[0], num_groups, -1))
    y, _, _ = _normalized(grouped, (2,), eps)
    y = reshape(y, shape=tuple(x_shape))
    return _affine(y, weight, bias, _channel_shape(len(x_shape)))


@takes_tensors
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    """Normalize each value by its neighbours across channels (`F.local_response_norm`).

    `x / (k + alpha * mean of x^2 over size channels around it) ** beta`, the
    window zero-padded at the ends (`size // 2` before, `(size - 1) // 2` after).

    Args:
        input: `(N, C, *)`.
        size: The number of channels in each window.
        alpha: The scale of the windowed mean of squares.
        beta: The exponent.
        k: The additive constant.

    Returns:
        The normalized input.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.local_response_norm(np.ones((1, 2, 1)), 2, alpha=1.0, beta=1.0, k=1.0).ravel()
        array([0.66666667, 0.5       ])
    """
    x_shape = shape_of(input)
    if len(x_shape) < 3:
        raise OpError(
            f"funcgrad.nn.functional.local_response_norm: Expected 3D or higher dimensionality "
            f"input (got {len(x_shape)} dimensions)"
        )
    nd = len(x_shape)
    order = (0, *range(2, nd), 1)  # channels last, pooled as one axis
    sq = transpose(multiply(input, input), axes=order)
    pooled = _pool.avg_pool(
        sq,
        kernel=(int(size),),
        stride=(1,),
        padding=((size // 2, (size - 1) // 2),),
        count_include_pad=True,
        divisor_override=int(size),
    )
    back = [0, nd - 1, *range(1, nd - 1)]
    div = transpose(pooled, axes=tuple(back))
    div = power(add(multiply(div, float(alpha)), float(k)), float(beta))
    return divide(input, div)


@takes_tensors
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):  # noqa: A002
    """Divide by the `p`-norm along `dim`, at least `eps` (`torch.nn.functional.normalize`).

    Args:
        input: A tensor, array or node.
        p: The norm's exponent.
        dim: The axis (or axes) the norm runs over.
        eps: The smallest divisor.
        out: Not supported (must be None).

    Returns:
        `input / max(norm(input, p, dim), eps)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.normalize(np.array([[3.0, 4.0]]))
        array([[0.6, 0.8]])
    """
    if out is not None:
        raise OpError("funcgrad.nn.functional.normalize: out= is not supported; use the result")
    axis = dim if isinstance(dim, int) else tuple(dim)
    if len(shape_of(input)) == 0:
        axis = None
    n = _vector_norm(input, float(p), axis)
    return divide(input, maximum(n, float(eps)))


def _vector_norm(x: Any, p: float, axis: Any, keepdims: bool = True) -> Any:
    if isinstance(axis, tuple) and len(axis) != 1:
        if p == 2.0:
            return sqrt(sum_(multiply(x, x), axis=axis, keepdims=keepdims))
        raise OpError("funcgrad.nn.functional: a p-norm over several dims needs p=2")
    if isinstance(axis, tuple):
        axis = axis[0]
    return norm(x, ord=p, axis=axis, keepdims=keepdims)
