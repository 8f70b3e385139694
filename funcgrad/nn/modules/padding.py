"""Padding modules: zero, constant, reflection, replication and circular, in 1, 2 and 3 dims (over `F.pad`)."""

from __future__ import annotations

from funcgrad.nn import functional as F
from funcgrad.nn.modules.module import Module
from funcgrad.nn.modules.utils import _ntuple

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


class _PadNd(Module):
    """Pad the last `_nd` dims by `padding` (an int, or `(left, right, top, bottom, ...)`)."""

    _nd = 1
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._nd)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with `value`.

    Examples:
        >>> from funcgrad import nn
        >>> nn.ConstantPad1d(2, 3.5)
        ConstantPad1d(padding=(2, 2), value=3.5)
    """

    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with `value`."""

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with `value`."""

    _nd = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros.

    Examples:
        >>> from funcgrad import nn
        >>> nn.ZeroPad2d((1, 1, 2, 0))
        ZeroPad2d((1, 1, 2, 0))
    """

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (the edge not repeated)."""

    _nd = 1
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last two dims with their reflection."""

    _nd = 2
    _mode = "reflect"


class ReflectionPad3d(_PadNd):
    """Pad the last three dims with their reflection."""

    _nd = 3
    _mode = "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge values."""

    _nd = 1
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last two dims by repeating their edge values."""

    _nd = 2
    _mode = "replicate"


class ReplicationPad3d(_PadNd):
    """Pad the last three dims by repeating their edge values."""

    _nd = 3
    _mode = "replicate"


class CircularPad1d(_PadNd):
    """Pad the last dim periodically (wrapping around)."""

    _nd = 1
    _mode = "circular"


class CircularPad2d(_PadNd):
    """Pad the last two dims periodically."""

    _nd = 2
    _mode = "circular"


class CircularPad3d(_PadNd):
    """Pad the last three dims periodically."""

    _nd = 3
    _mode = "circular"
