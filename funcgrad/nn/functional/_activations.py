"""Activation functions of `torch.nn.functional`: `F.relu`, `F.gelu`, `F.softmax`, ...

Each has PyTorch's signature and takes `Tensor`s (returning tensors) or
arrays and graph nodes (returning those), through the `takes_tensors`
adapter. Gradients match PyTorch's at the kinks too: at a boundary the
side PyTorch's backward picks (`relu'(0) = 0`, `leaky_relu'(0) = slope`,
`elu'(0) = alpha`, `hardswish'(3) = 1`, `hardtanh` 0 on its bounds).
Branches are selected with `where` on a safe input, so a large input in the
branch not taken never turns a gradient into NaN.

`inplace=True` (and the `relu_`-style functions) rebinds a tensor to the
result and returns it, as PyTorch's in-place activations do; arrays and
nodes are never changed in place (the result is returned).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

import funcgrad.numpy as fnp
from funcgrad.backend import rng as _rng
from funcgrad.backend.devices import device_of
from funcgrad.nn.functional._adapt import takes_tensors
from funcgrad.nn.functional._adapt import value as _value_of
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import nn as _nn
from funcgrad.ops.special import erf
from funcgrad.tensors.dtypes import to_dtype
from funcgrad.tensors.inplace import check_inplace, rebind
from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "celu",
    "celu_",
    "elu",
    "elu_",
    "gelu",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "leaky_relu",
    "leaky_relu_",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


def _in_place(input, result, name: str):
    """Rebind a tensor `input` to `result` (PyTorch's in-place activation); else return `result`."""
    if isinstance(input, Tensor):
        check_inplace(input, name)
        rebind(input, result)
        return input
    return result


def _negative_part(x):
    """`x` where `x <= 0`, else 0: a safe input for branches meant for non-positive values."""
    return fnp.where(x > 0, 0.0, x)


# --- rectifiers ---------------------------------------------------------------------


@takes_tensors
def _relu(x):
    return _ew.relu(x)


def relu(input, inplace: bool = False):
    """Return `max(input, 0)`, elementwise (gradient 0 at 0).

    Examples:
        >>> import numpy as np, funcgrad as torch
        >>> import funcgrad.nn.functional as F
        >>> F.relu(torch.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
        >>> F.relu(np.array([-1.0, 3.0]))
        array([0., 3.])
    """
    out = _relu(input)
    return _in_place(input, out, "relu_") if inplace else out


def relu_(input):
    """In-place `relu`: rebinds the tensor and returns it."""
    return relu(input, inplace=True)


@takes_tensors(grad_fn="HardtanhBackward0")
def _hardtanh(x, min_val, max_val):
    return fnp.where(x <= min_val, min_val, fnp.where(x >= max_val, max_val, x))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """Return `input` clipped to `[min_val, max_val]` (gradient 0 on and beyond the bounds).

    Raises:
        ValueError: If `min_val > max_val`.
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    out = _hardtanh(input, min_val, max_val)
    return _in_place(input, out, "hardtanh_") if inplace else out


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    """In-place `hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace: bool = False):
    """Return `min(max(input, 0), 6)`."""
    return hardtanh(input, 0.0, 6.0, inplace)


@takes_tensors(grad_fn="LeakyReluBackward0")
def _leaky_relu(x, negative_slope):
    return fnp.where(x > 0, x, x * negative_slope)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """Return `input` where positive, `negative_slope * input` elsewhere (slope at 0, as PyTorch)."""
    out = _leaky_relu(input, negative_slope)
    return _in_place(input, out, "leaky_relu_") if inplace else out


def leaky_relu_(input, negative_slope: float = 0.01):
    """In-place `leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


@takes_tensors(grad_fn="PreluKernelBackward0")
def _prelu(x, weight):
    ndim = len(fnp.shape(x))
    wshape = fnp.shape(weight)
    if ndim >= 2 and len(wshape) == 1 and wshape[0] != 1:
        weight = fnp.reshape(weight, (wshape[0],) + (1,) * (ndim - 2))
    return fnp.where(x > 0, x, x * weight)


def prelu(input, weight):
    """Return `input` where positive, `weight * input` elsewhere (weight per channel, dim 1).

    Raises:
        ValueError: If `weight` has more than one element and not one per channel.
    """
    shape = tuple(input.shape)
    n = int(np.prod(weight.shape, dtype=np.int64))
    if n != 1:
        channels = shape[1] if len(shape) >= 2 else (shape[0] if shape else 1)
        if n != channels:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {n} and channel size = {channels}."
            )
        if len(shape) == 1:
            return _leaky_like_1d(input, weight)
    return _prelu(input, weight)


@takes_tensors
def _leaky_like_1d(x, weight):
    return fnp.where(x > 0, x, x * weight)


@takes_tensors(grad_fn="RreluWithNoiseBackward0")
def _rrelu_eval(x, lower, upper):
    return fnp.where(x > 0, x, x * ((lower + upper) / 2.0))


@takes_tensors(grad_fn="RreluWithNoiseBackward0")
def _rrelu_train(x, slopes):
    return fnp.where(x > 0, x, x * slopes)


def rrelu(
    input,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
):
    """Randomized leaky ReLU: a slope drawn from U(lower, upper) per element in training, their mean in eval."""
    if training:
        v = _value_of(input)
        dtype = v.dtype if v.dtype.kind == "f" else np.dtype(np.float64)
        u = _rng.uniform(tuple(v.shape), dtype, str(device_of(v)))
        out = _rrelu_train(input, u * (upper - lower) + lower)
    else:
        out = _rrelu_eval(input, lower, upper)
    return _in_place(input, out, "rrelu_") if inplace else out


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    """In-place `rrelu`."""
    return rrelu(input, lower, upper, training, inplace=True)


# --- exponential units --------------------------------------------------------------


@takes_tensors(grad_fn="EluBackward0")
def _elu(x, alpha, scale, input_scale):
    neg = _ew.expm1(_negative_part(x) * input_scale) * (alpha * scale)
    return fnp.where(x > 0, x * scale, neg)


_celu = takes_tensors(_elu.__wrapped__, grad_fn="CeluBackward0")


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """Return `input` where positive, `alpha * (exp(input) - 1)` elsewhere."""
    out = _elu(input, alpha, 1.0, 1.0)
    return _in_place(input, out, "elu_") if inplace else out


def elu_(input, alpha: float = 1.0):
    """In-place `elu`."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace: bool = False):
    """Return `scale * elu(input, alpha)` with SELU's constants (self-normalizing)."""
    out = _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)
    return _in_place(input, out, "selu_") if inplace else out


def selu_(input):
    """In-place `selu`."""
    return selu(input, inplace=True)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """Return `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`.

    Raises:
        ValueError: If `alpha` is 0.
    """
    if alpha == 0:
        raise ValueError("ZeroDivisionError: alpha cannot be 0 for CELU")
    out = _celu(input, alpha, 1.0, 1.0 / alpha)
    return _in_place(input, out, "celu_") if inplace else out


def celu_(input, alpha: float = 1.0):
    """In-place `celu`."""
    return celu(input, alpha, inplace=True)


@takes_tensors(grad_fn="GeluBackward0")
def _gelu(x, approximate):
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
        return x * (_ew.tanh(inner) + 1.0) * 0.5
    return x * (erf(x * _SQRT_HALF) + 1.0) * 0.5


def gelu(input, approximate: str = "none"):
    """Return the Gaussian error linear unit `x * Phi(x)` (`approximate="tanh"`: the tanh form).

    The exact form calls SciPy's `erf` (`pip install funcgrad[scipy]`).

    Raises:
        ValueError: If `approximate` is neither "none" nor "tanh".

    Examples:
        >>> import funcgrad as torch
        >>> import funcgrad.nn.functional as F
        >>> F.gelu(torch.tensor([-1.0, 0.0, 1.0]), approximate="tanh")
        tensor([-0.1588,  0.0000,  0.8412])
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate argument must be either none or tanh (got {approximate!r})")
    return _gelu(input, approximate)


@takes_tensors(grad_fn="SiluBackward0")
def _silu(x):
    return x * _ew.sigmoid(x)


def silu(input, inplace: bool = False):
    """Return `x * sigmoid(x)` (the swish)."""
    out = _silu(input)
    return _in_place(input, out, "silu_") if inplace else out


@takes_tensors(grad_fn="MishBackward0")
def _mish(x):
    return x * _ew.tanh(_ew.softplus(x))


def mish(input, inplace: bool = False):
    """Return `x * tanh(softplus(x))`."""
    out = _mish(input)
    return _in_place(input, out, "mish_") if inplace else out


@takes_tensors(grad_fn="SoftplusBackward0")
def _softplus(x, beta, threshold):
    scaled = x * beta if beta != 1 else x
    soft = _ew.softplus(scaled)
    if beta != 1:
        soft = soft / beta
    return fnp.where(scaled > threshold, x, soft)


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """Return `log(1 + exp(beta * x)) / beta`, and `x` itself where `beta * x > threshold`."""
    return _softplus(input, beta, threshold)


@takes_tensors
def _softsign(x):
    return x / (fnp.abs(x) + 1.0)


def softsign(input):
    """Return `x / (1 + |x|)`."""
    return _softsign(input)


@takes_tensors
def _tanh(x):
    return _ew.tanh(x)


def tanh(input):
    """Return `tanh(x)`, elementwise."""
    return _tanh(input)


@takes_tensors
def _sigmoid(x):
    return _ew.sigmoid(x)


def sigmoid(input):
    """Return `1 / (1 + exp(-x))`, elementwise (stable for large `|x|`)."""
    return _sigmoid(input)


@takes_tensors(grad_fn="LogSigmoidBackward0")
def _logsigmoid(x):
    return -_ew.softplus(-x)


def logsigmoid(input):
    """Return `log(sigmoid(x))`, computed stably as `-softplus(-x)`."""
    return _logsigmoid(input)


@takes_tensors(grad_fn="HardsigmoidBackward0")
def _hardsigmoid(x):
    return fnp.where(x <= -3.0, 0.0, fnp.where(x >= 3.0, 1.0, x / 6.0 + 0.5))


def hardsigmoid(input, inplace: bool = False):
    """Return `relu6(x + 3) / 6` (gradient 1/6 strictly inside (-3, 3), else 0)."""
    out = _hardsigmoid(input)
    return _in_place(input, out, "hardsigmoid_") if inplace else out


@takes_tensors(grad_fn="HardswishBackward0")
def _hardswish(x):
    return fnp.where(x <= -3.0, 0.0, fnp.where(x < 3.0, x * (x + 3.0) / 6.0, x))


def hardswish(input, inplace: bool = False):
    """Return `x * relu6(x + 3) / 6` (gradient `x/3 + 1/2` strictly inside (-3, 3), as PyTorch)."""
    out = _hardswish(input)
    return _in_place(input, out, "hardswish_") if inplace else out


@takes_tensors(grad_fn="ThresholdBackward0")
def _threshold(x, threshold, value):
    return fnp.where(x > threshold, x, value)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """Return `input` where it exceeds `threshold`, `value` elsewhere."""
    out = _threshold(input, threshold, value)
    return _in_place(input, out, "threshold_") if inplace else out


def threshold_(input, threshold: float, value: float):
    """In-place `threshold`."""
    return globals()["threshold"](input, threshold, value, inplace=True)


@takes_tensors
def _tanhshrink(x):
    return x - _ew.tanh(x)


def tanhshrink(input):
    """Return `x - tanh(x)`."""
    return _tanhshrink(input)


@takes_tensors(grad_fn="SoftshrinkBackward0")
def _softshrink(x, lambd):
    return fnp.where(x > lambd, x - lambd, fnp.where(x < -lambd, x + lambd, 0.0))


def softshrink(input, lambd: float = 0.5):
    """Return `x - lambd` above `lambd`, `x + lambd` below `-lambd`, 0 between.

    Raises:
        RuntimeError: If `lambd` is negative.
    """
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _softshrink(input, lambd)


@takes_tensors(grad_fn="HardshrinkBackward0")
def _hardshrink(x, lambd):
    return fnp.where((x > lambd) | (x < -lambd), x, 0.0)


def hardshrink(input, lambd: float = 0.5):
    """Return `x` where `|x| > lambd`, 0 elsewhere."""
    return _hardshrink(input, lambd)


@takes_tensors(grad_fn="GluBackward0")
def _glu(x, dim):
    a, b = fnp.split(x, 2, axis=dim)
    return a * _ew.sigmoid(b)


def glu(input, dim: int = -1):
    """Return `a * sigmoid(b)`, `a` and `b` the two halves of `input` along `dim`.

    Raises:
        RuntimeError: If that dimension's size is odd (or `input` is 0-d).
    """
    shape = tuple(input.shape)
    if not shape:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if shape[dim] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % len(shape)} is size {shape[dim]}"
        )
    return _glu(input, dim)


# --- softmax family -----------------------------------------------------------------


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _cast(input, dtype):
    if dtype is None:
        return input
    if isinstance(input, Tensor):
        return input.to(dtype)
    return fnp.astype(input, to_dtype(dtype)) if hasattr(fnp, "astype") else input


@takes_tensors
def _softmax(x, dim):
    return _nn.softmax(x, axis=dim)


@takes_tensors
def _log_softmax(x, dim):
    return _nn.log_softmax(x, axis=dim)


@takes_tensors
def _softmin(x, dim):
    return _nn.softmax(-x, axis=dim)


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """Return `exp(x) / sum(exp(x))` along `dim` (computed stably).

    Args:
        input: A tensor, array or node.
        dim: The dimension that sums to 1 (None: PyTorch's deprecated
            implicit choice, with its warning).
        dtype: Cast `input` to this dtype first.

    Examples:
        >>> import funcgrad as torch
        >>> import funcgrad.nn.functional as F
        >>> F.softmax(torch.tensor([[0.0, 0.6931472]]), dim=1)
        tensor([[0.3333, 0.6667]])
    """
    if dim is None:
        dim = _get_softmax_dim("softmax", len(input.shape), _stacklevel)
    return _softmax(_cast(input, dtype), dim)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """Return `x - logsumexp(x, dim)` (computed stably)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", len(input.shape), _stacklevel)
    return _log_softmax(_cast(input, dtype), dim)


def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """Return `softmax(-x, dim)`."""
    if dim is None:
        dim = _get_softmax_dim("softmin", len(input.shape), _stacklevel)
    return _softmin(_cast(input, dtype), dim)


@takes_tensors
def _gumbel(logits, gumbels, tau, hard, dim):
    y_soft = _nn.softmax((logits + gumbels) / tau, axis=dim)
    if not hard:
        return y_soft
    values = np.asarray(_value_of(y_soft))
    axis = dim % values.ndim
    index = np.expand_dims(np.argmax(values, axis=axis), axis)
    ranks = np.arange(values.shape[axis]).reshape(
        [-1 if i == axis else 1 for i in range(values.ndim)]
    )
    y_hard = (ranks == index).astype(values.dtype)
    return y_soft - _ew.stop_gradient(y_soft) + y_hard


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """Sample from the Gumbel-softmax distribution (differentiable in `logits`).

    With `hard=True` the result is one-hot (the argmax), with the gradient
    of the soft sample (the straight-through estimator), as in PyTorch.
    """
    v = _value_of(logits)
    dtype = v.dtype if v.dtype.kind == "f" else np.dtype(np.float64)
    u = _rng.uniform(tuple(v.shape), dtype, str(device_of(v)))
    gumbels = -np.log(-np.log1p(-u))  # -log(Exponential(1))
    return _gumbel(logits, gumbels.astype(dtype), tau, hard, dim)
