"""`funcgrad.nn.init`: PyTorch's initialisation functions (`torch.nn.init`).

Each fills a tensor in place, without recording a gradient, and returns it,
drawing from the same distribution as PyTorch (the streams of random
numbers differ: funcgrad's generator is NumPy's, or CuPy's on a GPU).
`generator=` takes a NumPy `Generator` (or anything with `random` and
`standard_normal`); None uses funcgrad's default generator, seeded by
`funcgrad.manual_seed`.
"""

import math as _math
import warnings as _warnings

import numpy as _np

from funcgrad.backend import rng as _rng
from funcgrad.backend import to_device as _to_device
from funcgrad.backend.devices import device_of as _device_of
from funcgrad.tensors.grad_mode import no_grad as _no_grad
from funcgrad.tensors.tensor_class import Tensor as _Tensor

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "sparse",
    "sparse_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]


def _device(tensor: _Tensor) -> str:
    return str(_device_of(tensor._value))


def _uniform(tensor: _Tensor, shape, generator=None) -> _np.ndarray:
    """Draws in [0, 1) of the tensor's float dtype (float64 draws for a lower precision)."""
    dtype = tensor._value.dtype if tensor._value.dtype.kind == "f" else _np.dtype(_np.float64)
    if generator is not None:
        return _to_device(_np.asarray(generator.random(shape)).astype(dtype), _device(tensor))
    return _rng.uniform(tuple(shape), dtype, _device(tensor))


def _normal(tensor: _Tensor, shape, generator=None):
    dtype = tensor._value.dtype if tensor._value.dtype.kind == "f" else _np.dtype(_np.float64)
    if generator is not None:
        draws = _np.asarray(generator.standard_normal(shape)).astype(dtype)
        return _to_device(draws, _device(tensor))
    return _rng.standard_normal(tuple(shape), dtype, _device(tensor))


def _write(tensor: _Tensor, value) -> _Tensor:
    """Write `value` into `tensor` in place, recording nothing (`copy_` under `no_grad`)."""
    if not isinstance(tensor, _Tensor):
        raise TypeError(
            f"funcgrad.nn.init: expected a _Tensor to fill in place, got {type(tensor).__name__}"
        )
    with _no_grad():
        tensor.copy_(value)
    return tensor


def _check_float(tensor: _Tensor, name: str) -> None:
    if tensor._value.dtype.kind not in "fc":
        raise TypeError(
            f"funcgrad.nn.init.{name}: draws floating-point numbers, but the tensor has dtype "
            f"{tensor._value.dtype}; convert it first (tensor.float())"
        )


def calculate_gain(nonlinearity: str, param=None) -> float:
    """Return the recommended gain for a nonlinearity (PyTorch's table).

    Examples:
        >>> from funcgrad import nn
        >>> nn.init.calculate_gain("tanh"), round(nn.init.calculate_gain("leaky_relu", 0.2), 4)
        (1.6666666666666667, 1.3868)
    """
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return _math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return _math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor) -> tuple[int, int]:
    dimensions = len(tensor.shape)
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.shape[1]
    num_output_fmaps = tensor.shape[0]
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: _Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> _Tensor:
    """Fill `tensor` with draws from U(a, b).

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.nn.init.uniform_(torch.empty(1000), -2.0, 3.0)
        >>> bool(w.min() >= -2.0) and bool(w.max() < 3.0)
        True
    """
    _check_float(tensor, "uniform_")
    u = _uniform(tensor, tensor.shape, generator)
    return _write(tensor, u * (b - a) + a)


def normal_(tensor: _Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> _Tensor:
    """Fill `tensor` with draws from N(mean, std^2)."""
    _check_float(tensor, "normal_")
    return _write(tensor, _normal(tensor, tensor.shape, generator) * std + mean)


def trunc_normal_(
    tensor: _Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> _Tensor:
    """Fill `tensor` with draws from N(mean, std^2) truncated to [a, b] (redrawn until inside).

    Examples:
        >>> import funcgrad as torch
        >>> w = torch.nn.init.trunc_normal_(torch.empty(2000), std=1.0, a=-0.5, b=0.5)
        >>> bool(w.abs().max() <= 0.5)
        True
    """
    _check_float(tensor, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        _warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    n = int(_np.prod(tensor.shape, dtype=_np.int64))
    out = _np.empty(n, dtype=_np.float64)
    filled = 0
    lo_p = _norm_cdf((a - mean) / std)
    hi_p = _norm_cdf((b - mean) / std)
    if hi_p - lo_p < 1e-3:  # a narrow window far out: draw from its (almost flat) width
        out[:] = (
            _np.asarray(_host(_uniform(tensor, (n,), generator)), dtype=_np.float64) * (b - a) + a
        )
    else:
        while filled < n:
            want = max(16, int((n - filled) / (hi_p - lo_p) * 1.1))
            draws = _np.asarray(_host(_normal(tensor, (want,), generator)), dtype=_np.float64)
            draws = draws * std + mean
            draws = draws[(draws >= a) & (draws <= b)][: n - filled]
            out[filled : filled + draws.size] = draws
            filled += draws.size
    value = _to_device(
        out.reshape(tuple(tensor.shape)).astype(tensor._value.dtype), _device(tensor)
    )
    return _write(tensor, value)


def _host(x):
    return x.get() if hasattr(x, "get") else x


def _norm_cdf(x: float) -> float:
    return (1.0 + _math.erf(x / _math.sqrt(2.0))) / 2.0


def constant_(tensor: _Tensor, val: float) -> _Tensor:
    """Fill `tensor` with `val`."""
    with _no_grad():
        tensor.fill_(val)
    return tensor


def ones_(tensor: _Tensor) -> _Tensor:
    """Fill `tensor` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: _Tensor) -> _Tensor:
    """Fill `tensor` with zeros."""
    with _no_grad():
        tensor.zero_()
    return tensor


def eye_(tensor: _Tensor) -> _Tensor:
    """Fill a 2-D `tensor` with the identity matrix (ones on the diagonal).

    Raises:
        ValueError: If `tensor` is not 2-D.
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    return _write(tensor, _np.eye(rows, cols, dtype=tensor._value.dtype))


def dirac_(tensor: _Tensor, groups: int = 1) -> _Tensor:
    """Fill a 3-, 4- or 5-D `tensor` with the Dirac delta (a convolution that keeps its input).

    Raises:
        ValueError: For another number of dimensions, or `size(0)` not divisible by `groups`.
    """
    dimensions = tensor.ndim
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    value = _np.zeros(sizes, dtype=tensor._value.dtype)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            value[(g * out_chans_per_grp + d, d) + centre] = 1
    return _write(tensor, value)


def xavier_uniform_(tensor: _Tensor, gain: float = 1.0, generator=None) -> _Tensor:
    """Fill `tensor` from U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * _math.sqrt(2.0 / float(fan_in + fan_out))
    a = _math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: _Tensor, gain: float = 1.0, generator=None) -> _Tensor:
    """Fill `tensor` from N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)) (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * _math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: _Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> _Tensor:
    """Fill `tensor` from U(-bound, bound), bound = gain * sqrt(3 / fan) (He).

    `Linear` and the convolutions initialise their weight with `a=sqrt(5)`.
    """
    if 0 in tuple(tensor.shape):
        _warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / _math.sqrt(fan)
    bound = _math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: _Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> _Tensor:
    """Fill `tensor` from N(0, std^2), std = gain / sqrt(fan) (He)."""
    if 0 in tuple(tensor.shape):
        _warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / _math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: _Tensor, gain: float = 1, generator=None) -> _Tensor:
    """Fill `tensor` with a (semi-)orthogonal matrix (QR of a Gaussian one), times `gain`.

    A tensor of more than 2 dimensions is flattened to `(size(0), -1)`.

    Raises:
        ValueError: If `tensor` has fewer than 2 dimensions.

    Examples:
        >>> import numpy as np, funcgrad as torch
        >>> q = torch.nn.init.orthogonal_(torch.empty(3, 5, dtype=torch.float64)).numpy()
        >>> np.allclose(q @ q.T, np.eye(3))
        True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _np.asarray(_host(_normal(tensor, (rows, cols), generator)), dtype=_np.float64)
    if rows < cols:
        flat = flat.T
    q, r = _np.linalg.qr(flat)
    q = q * _np.sign(_np.diag(r))
    if rows < cols:
        q = q.T
    value = (q * gain).reshape(tuple(tensor.shape)).astype(tensor._value.dtype)
    return _write(tensor, _to_device(value, _device(tensor)))


def sparse_(tensor: _Tensor, sparsity: float, std: float = 0.01, generator=None) -> _Tensor:
    """Fill a 2-D `tensor` from N(0, std^2), then zero a `sparsity` fraction of each column.

    Raises:
        ValueError: If `tensor` is not 2-D.
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(_math.ceil(sparsity * rows))
    value = _np.asarray(_host(_normal(tensor, (rows, cols), generator)), dtype=_np.float64) * std
    for col in range(cols):
        if generator is not None:
            perm = _np.asarray(generator.permutation(rows))
        else:
            perm = _np.asarray(_host(_rng.permutation(rows, _np.int64, "cpu")))
        value[perm[:num_zeros], col] = 0
    return _write(tensor, _to_device(value.astype(tensor._value.dtype), _device(tensor)))


def _deprecated(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        _warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated alias of `{new_name}`."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
