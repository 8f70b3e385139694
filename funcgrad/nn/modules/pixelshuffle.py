"""`PixelShuffle`, `PixelUnshuffle`, `CosineSimilarity` and `PairwiseDistance` (over their `F` functions)."""

from __future__ import annotations

from funcgrad.nn import functional as F
from funcgrad.nn.modules.module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """Rearrange `(*, C * r^2, H, W)` into `(*, C, H * r, W * r)`.

    Examples:
        >>> from funcgrad import nn
        >>> nn.PixelShuffle(3)
        PixelShuffle(upscale_factor=3)
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearrange `(*, C, H * r, W * r)` into `(*, C * r^2, H, W)` (the inverse of `PixelShuffle`)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class CosineSimilarity(Module):
    """The cosine of the angle between `x1` and `x2` along `dim`."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The `p`-norm distance between `x1` and `x2` along the last dim."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
