"""Dropout modules: active in training mode only (`module.eval()` passes the input through).

The masks come from funcgrad's generator (`funcgrad.manual_seed`), so a run
is reproducible, though not the same draws as PyTorch's.
"""

from __future__ import annotations

from funcgrad.nn import functional as F
from funcgrad.nn.modules.module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability `p` in training, scaling the rest by `1 / (1 - p)`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> drop = nn.Dropout(0.5)
        >>> drop
        Dropout(p=0.5, inplace=False)
        >>> drop.eval()(torch.ones(3))
        tensor([1., 1., 1.])
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of `(N, C, L)` inputs with probability `p` in training."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of `(N, C, H, W)` inputs with probability `p` in training."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of `(N, C, D, H, W)` inputs with probability `p` in training."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalization (mean and variance) in training."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
