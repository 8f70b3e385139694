"""Convolution modules: `Conv1d/2d/3d` and `ConvTranspose1d/2d/3d` (as `torch.nn`'s).

Their weights are `(out, in / groups, *kernel)` (`(in, out / groups,
*kernel)` when transposed), initialised by Kaiming uniform with
`a=sqrt(5)` and the bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as in
PyTorch. `padding_mode` other than "zeros" pads with `F.pad` first.
"""

from __future__ import annotations

import math

from funcgrad.nn import functional as F
from funcgrad.nn import init
from funcgrad.nn.modules._factory import empty
from funcgrad.nn.modules.module import Module
from funcgrad.nn.modules.utils import _pair, _reverse_repeat_tuple, _single, _triple
from funcgrad.nn.parameter import Parameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
]

_NTUPLE = {1: _single, 2: _pair, 3: _triple}


class _ConvNd(Module):
    """What every convolution module shares: checks, parameters, initialisation, repr."""

    _nd = 0

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: tuple,
        stride: tuple,
        padding,
        dilation: tuple,
        transposed: bool,
        output_padding: tuple,
        groups: int,
        bias: bool,
        padding_mode: str,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(
                    dilation, kernel_size, range(len(kernel_size) - 1, -1, -1), strict=True
                ):
                    total = d * (k - 1)
                    pads[2 * i] = total // 2
                    pads[2 * i + 1] = total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = list(_reverse_repeat_tuple(self.padding, 2))
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(empty(shape, device, dtype))
        if bias:
            self.bias = Parameter(empty((out_channels,), device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weight and bias again from PyTorch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    """A forward convolution of `_nd` spatial dims (`Conv1d`, `Conv2d`, `Conv3d`)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        nt = _NTUPLE[self._nd]
        super().__init__(
            in_channels,
            out_channels,
            nt(kernel_size),
            nt(stride),
            padding if isinstance(padding, str) else nt(padding),
            nt(dilation),
            False,
            nt(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv(self, *args):
        raise NotImplementedError

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(
                padded,
                weight,
                bias,
                self.stride,
                _NTUPLE[self._nd](0),
                self.dilation,
                self.groups,
            )
        return self._conv(
            input, weight, bias, self.stride, self.padding, self.dilation, self.groups
        )

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """A 1-d convolution over `(N, C_in, L)` (or unbatched `(C_in, L)`) inputs.

    Examples:
        >>> from funcgrad import nn
        >>> nn.Conv1d(16, 33, 3, stride=2)
        Conv1d(16, 33, kernel_size=(3,), stride=(2,))
    """

    _nd = 1

    def _conv(self, *args):
        return F.conv1d(*args)


class Conv2d(_Conv):
    """A 2-d convolution over `(N, C_in, H, W)` (or unbatched `(C_in, H, W)`) inputs.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> conv = nn.Conv2d(1, 6, 5)
        >>> conv
        Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
        >>> conv(torch.randn(1, 1, 32, 32)).shape
        funcgrad.Size([1, 6, 28, 28])
    """

    _nd = 2

    def _conv(self, *args):
        return F.conv2d(*args)


class Conv3d(_Conv):
    """A 3-d convolution over `(N, C_in, D, H, W)` (or unbatched) inputs."""

    _nd = 3

    def _conv(self, *args):
        return F.conv3d(*args)


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution of `_nd` spatial dims."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        nt = _NTUPLE[self._nd]
        super().__init__(
            in_channels,
            out_channels,
            nt(kernel_size),
            nt(stride),
            nt(padding),
            nt(dilation),
            True,
            nt(output_padding),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(
        self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None
    ):
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements "
                f"(got {len(output_size)})"
            )
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = (
                (input.size(d + num_non_spatial_dims) - 1) * stride[d]
                - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                + 1
            )
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for size, lo, hi in zip(output_size, min_sizes, max_sizes, strict=True):
            if size < lo or size > hi:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def _conv_t(self, *args):
        raise NotImplementedError

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, self._nd, self.dilation
        )
        return self._conv_t(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            tuple(output_padding),
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """A 1-d transposed convolution (the gradient of `Conv1d` in its input, plus a bias)."""

    _nd = 1

    def _conv_t(self, *args):
        return F.conv_transpose1d(*args)


class ConvTranspose2d(_ConvTransposeNd):
    """A 2-d transposed convolution.

    Examples:
        >>> from funcgrad import nn
        >>> nn.ConvTranspose2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2))
        ConvTranspose2d(16, 33, kernel_size=(3, 5), stride=(2, 1), padding=(4, 2))
    """

    _nd = 2

    def _conv_t(self, *args):
        return F.conv_transpose2d(*args)


class ConvTranspose3d(_ConvTransposeNd):
    """A 3-d transposed convolution."""

    _nd = 3

    def _conv_t(self, *args):
        return F.conv_transpose3d(*args)
