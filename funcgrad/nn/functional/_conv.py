"""Convolutions of `torch.nn.functional`: `conv1d/2d/3d`, `conv_transpose1d/2d/3d`, `unfold`, `fold`.

Each has PyTorch's signature and takes `Tensor`s (returning tensors, with
`grad_fn` `ConvolutionBackward0`) or arrays and graph nodes (returning
those). All of them are one primitive each of `funcgrad.ops.conv`
(`conv`, `conv_transpose`, `unfold`, `fold`), whose rules are the others, so
gradients of every order and forward mode work. Unbatched inputs
(`(C, *S)`) are accepted as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors
from funcgrad.ops import conv as _conv
from funcgrad.ops._util import shape_of
from funcgrad.ops.shape import expand_dims, squeeze

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "fold",
    "unfold",
]


def ntuple(value: Any, n: int, name: str, op: str) -> tuple[int, ...]:
    """`value` (an int or a sequence of `n` ints) as a tuple of `n` Python ints.

    Raises:
        funcgrad.errors.OpError: If a sequence has another length.
    """
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) == 1 and n != 1:
            value = value[0]
        else:
            if len(value) != n:
                raise OpError(
                    f"funcgrad.nn.functional.{op}: expected {name} to be a single integer value "
                    f"or a list of {n} values to match the convolution dimensions, but got "
                    f"{name}={list(value)}"
                )
            return tuple(int(v) for v in value)
    return (int(value),) * n


def _batched(op: str, x: Any, nd: int) -> tuple[Any, bool]:
    shape = shape_of(x)
    if len(shape) == nd + 2:
        return x, False
    if len(shape) == nd + 1:
        return expand_dims(x, axis=(0,)), True
    raise OpError(
        f"funcgrad.nn.functional.{op}: Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) "
        f"input to {op}, but got input of size: {list(shape)}"
    )


def _check_channels(
    op: str, x_shape: Any, w_shape: Any, groups: int, nd: int, transposed: bool
) -> None:
    if len(w_shape) != nd + 2:
        raise OpError(
            f"funcgrad.nn.functional.{op}: expected weight to be {nd + 2}-dimensional, but got "
            f"weight of size {list(w_shape)}"
        )
    if groups < 1:
        raise OpError(f"funcgrad.nn.functional.{op}: non-positive groups is not supported")
    c = x_shape[1]
    if transposed:
        if w_shape[0] != c:
            raise OpError(
                f"funcgrad.nn.functional.{op}: Given transposed=1, weight of size "
                f"{list(w_shape)}, expected input{list(x_shape)} to have {w_shape[0]} "
                f"channels, but got {c} channels instead"
            )
        if c % groups:
            raise OpError(
                f"funcgrad.nn.functional.{op}: in_channels ({c}) must be divisible by groups "
                f"({groups})"
            )
        return
    if w_shape[1] * groups != c:
        raise OpError(
            f"funcgrad.nn.functional.{op}: Given groups={groups}, weight of size "
            f"{list(w_shape)}, expected input{list(x_shape)} to have {w_shape[1] * groups} "
            f"channels, but got {c} channels instead"
        )
    if w_shape[0] % groups:
        raise OpError(
            f"funcgrad.nn.functional.{op}: Given groups={groups}, expected weight to be "
            f"divisible by {groups} at dimension 0, but got weight of size {list(w_shape)} "
            f"instead"
        )


def conv_padding(
    op: str, padding: Any, nd: int, kernel: Sequence[int], stride: Sequence[int],
    dilation: Sequence[int],
) -> tuple[tuple[int, int], ...]:  # fmt: skip
    """PyTorch's `padding` (ints, `"same"` or `"valid"`) as `(before, after)` pairs."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nd
        if padding == "same":
            if any(s != 1 for s in stride):
                raise OpError(
                    f"funcgrad.nn.functional.{op}: padding='same' is not supported for strided "
                    f"convolutions"
                )
            pads = []
            for k, d in zip(kernel, dilation, strict=True):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        raise OpError(
            f"funcgrad.nn.functional.{op}: Invalid padding string '{padding}', should be one "
            f"of {{'valid', 'same'}}"
        )
    p = ntuple(padding, nd, "padding", op)
    if any(q < 0 for q in p):
        raise OpError(f"funcgrad.nn.functional.{op}: negative padding is not supported")
    return tuple((q, q) for q in p)


def _convnd(nd: int, op: str, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    x, unbatched = _batched(op, input, nd)
    w_shape = shape_of(weight)
    _check_channels(op, shape_of(x), w_shape, groups, nd, transposed=False)
    kernel = tuple(w_shape[2:])
    stride = ntuple(stride, nd, "stride", op)
    dilation = ntuple(dilation, nd, "dilation", op)
    pads = conv_padding(op, padding, nd, kernel, stride, dilation)
    for n, k, d, (lo, hi) in zip(shape_of(x)[2:], kernel, dilation, pads, strict=True):
        if n + lo + hi < d * (k - 1) + 1:
            raise OpError(
                f"funcgrad.nn.functional.{op}: Calculated padded input size per channel: "
                f"({n + lo + hi}). Kernel size: ({d * (k - 1) + 1}). Kernel size can't be "
                f"greater than actual input size"
            )
    out = _conv.conv(
        x,
        weight,
        0.0 if bias is None else bias,
        stride=stride,
        padding=pads,
        dilation=dilation,
        groups=int(groups),
    )
    return squeeze(out, axis=0) if unbatched else out


@takes_tensors
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """Apply a 1-d convolution over `input` `(N, C, L)` or `(C, L)` (`torch.nn.functional.conv1d`).

    Args:
        input: `(N, C_in, L)` or unbatched `(C_in, L)`.
        weight: `(C_out, C_in / groups, K)`.
        bias: `(C_out,)` or None.
        stride: An int or a 1-tuple.
        padding: An int, a 1-tuple, `"valid"` or `"same"`.
        dilation: An int or a 1-tuple.
        groups: How many groups the channels split into.

    Returns:
        `(N, C_out, L_out)`: a tensor, array or node, as the inputs.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.conv1d(np.ones((1, 1, 4)), np.ones((1, 1, 2)))
        array([[[2., 2., 2.]]])
    """
    return _convnd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


@takes_tensors
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """Apply a 2-d convolution over `input` `(N, C, H, W)` (`torch.nn.functional.conv2d`).

    A cross-correlation, as in PyTorch: `out[n, o] = bias[o] + sum_c weight[o, c] * input[n, c]`
    slid over the image.

    Args:
        input: `(N, C_in, H, W)` or unbatched `(C_in, H, W)`.
        weight: `(C_out, C_in / groups, kH, kW)`.
        bias: `(C_out,)` or None.
        stride: An int or a pair.
        padding: An int, a pair, `"valid"` or `"same"` (zeros; other modes are
            `F.pad` first, as `nn.Conv2d(padding_mode=...)` does).
        dilation: An int or a pair.
        groups: How many groups the channels split into.

    Returns:
        `(N, C_out, H_out, W_out)`: a tensor, array or node, as the inputs.

    Examples:
        >>> import funcgrad as torch
        >>> import funcgrad.nn.functional as F
        >>> x = torch.ones(1, 1, 3, 3, requires_grad=True)
        >>> y = F.conv2d(x, torch.ones(2, 1, 2, 2), padding="same")
        >>> y.shape, y.grad_fn.name()
        (funcgrad.Size([1, 2, 3, 3]), 'ConvolutionBackward0')
    """
    return _convnd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


@takes_tensors
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """Apply a 3-d convolution over `input` `(N, C, D, H, W)` (`torch.nn.functional.conv3d`).

    Args:
        input: `(N, C_in, D, H, W)` or unbatched `(C_in, D, H, W)`.
        weight: `(C_out, C_in / groups, kD, kH, kW)`.
        bias: `(C_out,)` or None.
        stride: An int or a triple.
        padding: An int, a triple, `"valid"` or `"same"`.
        dilation: An int or a triple.
        groups: How many groups the channels split into.

    Returns:
        `(N, C_out, D_out, H_out, W_out)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.conv3d(np.ones((1, 1, 2, 2, 2)), np.ones((1, 1, 2, 2, 2))).shape
        (1, 1, 1, 1, 1)
    """
    return _convnd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(nd, op, input, weight, bias, stride, padding, output_padding, groups,  # noqa: A002
                      dilation):  # fmt: skip
    x, unbatched = _batched(op, input, nd)
    w_shape = shape_of(weight)
    _check_channels(op, shape_of(x), w_shape, groups, nd, transposed=True)
    stride = ntuple(stride, nd, "stride", op)
    dilation = ntuple(dilation, nd, "dilation", op)
    if isinstance(padding, str):
        raise OpError(
            f"funcgrad.nn.functional.{op}: padding must be an int or a tuple of ints, not a "
            f"string ({padding!r}), for transposed convolutions"
        )
    pads = ntuple(padding, nd, "padding", op)
    extra = ntuple(output_padding, nd, "output_padding", op)
    for e, s, d in zip(extra, stride, dilation, strict=True):
        if e >= s and e >= d:
            raise OpError(
                f"funcgrad.nn.functional.{op}: output padding must be smaller than either "
                f"stride or dilation, but got output_padding={list(extra)}, "
                f"stride={list(stride)}, dilation={list(dilation)}"
            )
    out = _conv.conv_transpose(
        x,
        weight,
        0.0 if bias is None else bias,
        stride=stride,
        padding=tuple((p, p - e) for p, e in zip(pads, extra, strict=True)),
        dilation=dilation,
        groups=int(groups),
    )
    return squeeze(out, axis=0) if unbatched else out


@takes_tensors
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):  # fmt: skip
    """Apply a 1-d transposed convolution (`torch.nn.functional.conv_transpose1d`).

    The adjoint of `conv1d` in its input (the gradient of a convolution),
    plus the bias; `output_padding` adds that many positions at the end.

    Args:
        input: `(N, C_in, L)` or unbatched `(C_in, L)`.
        weight: `(C_in, C_out / groups, K)`.
        bias: `(C_out,)` or None.
        stride: Ints or 1-tuples.
        padding: Ints or 1-tuples.
        output_padding: Ints or 1-tuples.
        dilation: Ints or 1-tuples.
        groups: How many groups the channels split into.

    Returns:
        `(N, C_out, (L - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.conv_transpose1d(np.ones((1, 1, 2)), np.ones((1, 1, 2)))
        array([[[1., 2., 1.]]])
    """
    return _conv_transposend(
        1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


@takes_tensors
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):  # fmt: skip
    """Apply a 2-d transposed convolution (`torch.nn.functional.conv_transpose2d`).

    Args:
        input: `(N, C_in, H, W)` or unbatched `(C_in, H, W)`.
        weight: `(C_in, C_out / groups, kH, kW)`.
        bias: `(C_out,)` or None.
        stride: Ints or pairs.
        padding: Ints or pairs.
        output_padding: Ints or pairs.
        dilation: Ints or pairs.
        groups: How many groups the channels split into.

    Returns:
        `(N, C_out, H_out, W_out)`, each size
        `(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.conv_transpose2d(np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2)), stride=2).shape
        (1, 1, 4, 4)
    """
    return _conv_transposend(
        2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


@takes_tensors
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):  # fmt: skip
    """Apply a 3-d transposed convolution (`torch.nn.functional.conv_transpose3d`).

    Args:
        input: `(N, C_in, D, H, W)` or unbatched `(C_in, D, H, W)`.
        weight: `(C_in, C_out / groups, kD, kH, kW)`.
        bias: `(C_out,)` or None.
        stride: Ints or triples.
        padding: Ints or triples.
        output_padding: Ints or triples.
        dilation: Ints or triples.
        groups: How many groups the channels split into.

    Returns:
        `(N, C_out, D_out, H_out, W_out)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.conv_transpose3d(np.ones((1, 1, 1, 1, 1)), np.ones((1, 2, 2, 2, 2))).shape
        (1, 2, 2, 2, 2)
    """
    return _conv_transposend(
        3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


@takes_tensors
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Extract sliding local blocks, im2col (`torch.nn.functional.unfold`).

    Args:
        input: `(N, C, H, W)` or unbatched `(C, H, W)`.
        kernel_size: Ints or pairs.
        dilation: Ints or pairs.
        padding: Ints or pairs.
        stride: Ints or pairs.

    Returns:
        `(N, C * kH * kW, L)`, `L` the number of blocks.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.unfold(np.arange(9.0).reshape(1, 1, 3, 3), 2)[0]
        array([[0., 1., 3., 4.],
               [1., 2., 4., 5.],
               [3., 4., 6., 7.],
               [4., 5., 7., 8.]])
    """
    x, unbatched = _batched("unfold", input, 2)
    kernel = ntuple(kernel_size, 2, "kernel_size", "unfold")
    dilation = ntuple(dilation, 2, "dilation", "unfold")
    pads = ntuple(padding, 2, "padding", "unfold")
    stride = ntuple(stride, 2, "stride", "unfold")
    out = _conv.unfold(
        x,
        kernel=kernel,
        stride=stride,
        padding=tuple((p, p) for p in pads),
        dilation=dilation,
    )
    return squeeze(out, axis=0) if unbatched else out


@takes_tensors
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Sum sliding local blocks back into an image, col2im (`torch.nn.functional.fold`).

    The adjoint of `unfold`: overlapping blocks add up.

    Args:
        input: `(N, C * kH * kW, L)` or unbatched `(C * kH * kW, L)`.
        output_size: The image's `(H, W)` (or an int).
        kernel_size: Ints or pairs.
        dilation: Ints or pairs.
        padding: Ints or pairs.
        stride: Ints or pairs.

    Returns:
        `(N, C, H, W)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.fold(np.ones((1, 4, 4)), (3, 3), 2)[0, 0]
        array([[1., 2., 1.],
               [2., 4., 2.],
               [1., 2., 1.]])
    """
    x, unbatched = _batched("fold", input, 1)
    size = ntuple(output_size, 2, "output_size", "fold")
    kernel = ntuple(kernel_size, 2, "kernel_size", "fold")
    dilation = ntuple(dilation, 2, "dilation", "fold")
    pads = ntuple(padding, 2, "padding", "fold")
    stride = ntuple(stride, 2, "stride", "fold")
    shape = shape_of(x)
    k = kernel[0] * kernel[1]
    if shape[1] % k:
        raise OpError(
            f"funcgrad.nn.functional.fold: Expected size of input's dimension 1 to be "
            f"divisible by the product of kernel_size, but got input.size(1)={shape[1]} and "
            f"kernel_size={kernel}"
        )
    blocks = [
        _conv.out_size(n, kk, s, (p, p), d)
        for n, kk, s, p, d in zip(size, kernel, stride, pads, dilation, strict=True)
    ]
    if blocks[0] * blocks[1] != shape[2]:
        raise OpError(
            f"funcgrad.nn.functional.fold: Given output_size={size}, kernel_size={kernel}, "
            f"dilation={dilation}, padding={pads}, stride={stride}, expected size of input's "
            f"dimension 2 to match the calculated number of sliding blocks {blocks[0]} * "
            f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={shape[2]}."
        )
    out = _conv.fold(
        x,
        kernel=kernel,
        stride=stride,
        padding=tuple((p, p) for p in pads),
        dilation=dilation,
        size=size,
    )
    return squeeze(out, axis=0) if unbatched else out
