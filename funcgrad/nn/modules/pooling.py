"""Pooling modules: max, average and adaptive pooling over 1, 2 and 3 spatial dims.

Each stores its arguments as PyTorch does (so `repr`s agree: `MaxPool2d`
keeps `kernel_size=2` as given, `AvgPool1d` makes 1-tuples) and calls its
`F` function.
"""

from __future__ import annotations

from funcgrad.nn import functional as F
from funcgrad.nn.modules.module import Module
from funcgrad.nn.modules.utils import _single

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
]


class _MaxPoolNd(Module):
    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def _pool(self, *args, **kwargs):
        raise NotImplementedError

    def forward(self, input):
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            "kernel_size={kernel_size}, stride={stride}, padding={padding}"
            ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__)
        )


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling over `(N, C, L)` inputs (see `F.max_pool1d`)."""

    def _pool(self, *args, **kwargs):
        return F.max_pool1d(*args, **kwargs)


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling over `(N, C, H, W)` inputs (see `F.max_pool2d`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> pool = nn.MaxPool2d(2)
        >>> pool
        MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
        >>> pool(torch.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """

    def _pool(self, *args, **kwargs):
        return F.max_pool2d(*args, **kwargs)


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling over `(N, C, D, H, W)` inputs."""

    def _pool(self, *args, **kwargs):
        return F.max_pool3d(*args, **kwargs)


class _AvgPoolNd(Module):
    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-d average pooling over `(N, C, L)` inputs (see `F.avg_pool1d`)."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad,
        )  # fmt: skip


class AvgPool2d(_AvgPoolNd):
    """2-d average pooling over `(N, C, H, W)` inputs (see `F.avg_pool2d`)."""

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad, self.divisor_override,
        )  # fmt: skip


class AvgPool3d(AvgPool2d):
    """3-d average pooling over `(N, C, D, H, W)` inputs."""

    def forward(self, input):
        return F.avg_pool3d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad, self.divisor_override,
        )  # fmt: skip


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output length, whatever the input's."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size `(H_out, W_out)` (None keeps that dim's size)."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output length."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size `(H_out, W_out)` (None keeps that dim's size).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> nn.AdaptiveAvgPool2d((5, 7))(torch.randn(1, 64, 8, 9)).shape
        funcgrad.Size([1, 64, 5, 7])
    """

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)
