"""`Identity`, `Linear` and `Bilinear`, initialised as PyTorch initialises them."""

from __future__ import annotations

import math

from funcgrad.nn import functional as F
from funcgrad.nn import init
from funcgrad.nn.modules._factory import empty
from funcgrad.nn.modules.module import Module
from funcgrad.nn.parameter import Parameter
from funcgrad.tensors.functions import einsum

__all__ = ["Bilinear", "Identity", "Linear"]


def _linear(input, weight, bias=None):
    fn = getattr(F, "linear", None)
    if fn is not None:
        return fn(input, weight, bias)
    out = input @ weight.T
    return out if bias is None else out + bias


class Identity(Module):
    """Return the input unchanged (arguments are accepted and ignored, as in PyTorch)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """`y = x W^T + b` (as `torch.nn.Linear`).

    `weight` has shape `(out_features, in_features)` and is drawn from
    U(-1/sqrt(in_features), 1/sqrt(in_features)) (Kaiming uniform with
    `a=sqrt(5)`, PyTorch's default), as is `bias`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> fc = nn.Linear(20, 30)
        >>> fc
        Linear(in_features=20, out_features=30, bias=True)
        >>> fc(torch.randn(128, 20)).shape
        funcgrad.Size([128, 30])
    """

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device, dtype))
        if bias:
            self.bias = Parameter(empty((out_features,), device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weight and bias again from PyTorch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return _linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


def _bilinear(input1, input2, weight, bias=None):
    fn = getattr(F, "bilinear", None)
    if fn is not None:
        return fn(input1, input2, weight, bias)
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


class Bilinear(Module):
    """`y = x1^T A x2 + b` (as `torch.nn.Bilinear`); weight `(out, in1, in2)`, U(-1/sqrt(in1), 1/sqrt(in1))."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device, dtype))
        if bias:
            self.bias = Parameter(empty((out_features,), device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weight and bias again from PyTorch's default distributions."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return _bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
