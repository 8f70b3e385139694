"""PyTorch's in-place functions of the `torch` namespace: `torch.sin_(x)` is `x.sin_()`.

PyTorch spells some in-place methods as functions too (`torch.relu_(x)`,
`torch.clamp_(x, 0, 1)`, `torch.zero_(x)`); each here calls the `Tensor` method
of its name, so it refuses and records what the method does and returns the
tensor itself. (Written out one by one, so that the API reference and the type
checker see each name.)
"""

from __future__ import annotations

from typing import Any

from funcgrad.tensors.tensor_class import Tensor

__all__ = [
    "abs_",
    "acos_",
    "acosh_",
    "addmv_",
    "arccos_",
    "arccosh_",
    "arcsin_",
    "arcsinh_",
    "arctan_",
    "arctanh_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "ceil_",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "conj_physical_",
    "cos_",
    "cosh_",
    "deg2rad_",
    "detach_",
    "erf_",
    "erfc_",
    "exp2_",
    "exp_",
    "expm1_",
    "fill_",
    "fix_",
    "floor_",
    "frac_",
    "i0_",
    "index_put_",
    "log10_",
    "log1p_",
    "log2_",
    "log_",
    "logit_",
    "nan_to_num_",
    "neg_",
    "negative_",
    "rad2deg_",
    "reciprocal_",
    "relu_",
    "round_",
    "rsqrt_",
    "sigmoid_",
    "sin_",
    "sinc_",
    "sinh_",
    "sqrt_",
    "square_",
    "tan_",
    "tanh_",
    "trunc_",
    "xlogy_",
    "zero_",
]


def _method(name: str, input: Any):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(
            f"funcgrad.{name}(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    return getattr(input, name)


def abs_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.abs_(*args, **kwargs)` (PyTorch's `torch.abs_`); returns `input`."""
    return _method("abs_", input)(*args, **kwargs)


def acos_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.acos_(*args, **kwargs)` (PyTorch's `torch.acos_`); returns `input`."""
    return _method("acos_", input)(*args, **kwargs)


def acosh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.acosh_(*args, **kwargs)` (PyTorch's `torch.acosh_`); returns `input`."""
    return _method("acosh_", input)(*args, **kwargs)


def addmv_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.addmv_(*args, **kwargs)` (PyTorch's `torch.addmv_`); returns `input`."""
    return _method("addmv_", input)(*args, **kwargs)


def arccos_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.arccos_(*args, **kwargs)` (PyTorch's `torch.arccos_`); returns `input`."""
    return _method("arccos_", input)(*args, **kwargs)


def arccosh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.arccosh_(*args, **kwargs)` (PyTorch's `torch.arccosh_`); returns `input`."""
    return _method("arccosh_", input)(*args, **kwargs)


def arcsin_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.arcsin_(*args, **kwargs)` (PyTorch's `torch.arcsin_`); returns `input`."""
    return _method("arcsin_", input)(*args, **kwargs)


def arcsinh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.arcsinh_(*args, **kwargs)` (PyTorch's `torch.arcsinh_`); returns `input`."""
    return _method("arcsinh_", input)(*args, **kwargs)


def arctan_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.arctan_(*args, **kwargs)` (PyTorch's `torch.arctan_`); returns `input`."""
    return _method("arctan_", input)(*args, **kwargs)


def arctanh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.arctanh_(*args, **kwargs)` (PyTorch's `torch.arctanh_`); returns `input`."""
    return _method("arctanh_", input)(*args, **kwargs)


def asin_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.asin_(*args, **kwargs)` (PyTorch's `torch.asin_`); returns `input`."""
    return _method("asin_", input)(*args, **kwargs)


def asinh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.asinh_(*args, **kwargs)` (PyTorch's `torch.asinh_`); returns `input`."""
    return _method("asinh_", input)(*args, **kwargs)


def atan_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.atan_(*args, **kwargs)` (PyTorch's `torch.atan_`); returns `input`."""
    return _method("atan_", input)(*args, **kwargs)


def atanh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.atanh_(*args, **kwargs)` (PyTorch's `torch.atanh_`); returns `input`."""
    return _method("atanh_", input)(*args, **kwargs)


def ceil_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.ceil_(*args, **kwargs)` (PyTorch's `torch.ceil_`); returns `input`."""
    return _method("ceil_", input)(*args, **kwargs)


def clamp_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.clamp_(*args, **kwargs)` (PyTorch's `torch.clamp_`); returns `input`."""
    return _method("clamp_", input)(*args, **kwargs)


def clamp_max_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.clamp_max_(*args, **kwargs)` (PyTorch's `torch.clamp_max_`); returns `input`."""
    return _method("clamp_max_", input)(*args, **kwargs)


def clamp_min_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.clamp_min_(*args, **kwargs)` (PyTorch's `torch.clamp_min_`); returns `input`."""
    return _method("clamp_min_", input)(*args, **kwargs)


def clip_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.clip_(*args, **kwargs)` (PyTorch's `torch.clip_`); returns `input`."""
    return _method("clip_", input)(*args, **kwargs)


def conj_physical_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.conj_physical_(*args, **kwargs)` (PyTorch's `torch.conj_physical_`); returns `input`."""
    return _method("conj_physical_", input)(*args, **kwargs)


def cos_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.cos_(*args, **kwargs)` (PyTorch's `torch.cos_`); returns `input`."""
    return _method("cos_", input)(*args, **kwargs)


def cosh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.cosh_(*args, **kwargs)` (PyTorch's `torch.cosh_`); returns `input`."""
    return _method("cosh_", input)(*args, **kwargs)


def deg2rad_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.deg2rad_(*args, **kwargs)` (PyTorch's `torch.deg2rad_`); returns `input`."""
    return _method("deg2rad_", input)(*args, **kwargs)


def detach_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.detach_(*args, **kwargs)` (PyTorch's `torch.detach_`); returns `input`."""
    return _method("detach_", input)(*args, **kwargs)


def erf_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.erf_(*args, **kwargs)` (PyTorch's `torch.erf_`); returns `input`."""
    return _method("erf_", input)(*args, **kwargs)


def erfc_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.erfc_(*args, **kwargs)` (PyTorch's `torch.erfc_`); returns `input`."""
    return _method("erfc_", input)(*args, **kwargs)


def exp2_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.exp2_(*args, **kwargs)` (PyTorch's `torch.exp2_`); returns `input`."""
    return _method("exp2_", input)(*args, **kwargs)


def exp_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.exp_(*args, **kwargs)` (PyTorch's `torch.exp_`); returns `input`."""
    return _method("exp_", input)(*args, **kwargs)


def expm1_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.expm1_(*args, **kwargs)` (PyTorch's `torch.expm1_`); returns `input`."""
    return _method("expm1_", input)(*args, **kwargs)


def fill_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.fill_(*args, **kwargs)` (PyTorch's `torch.fill_`); returns `input`."""
    return _method("fill_", input)(*args, **kwargs)


def fix_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.fix_(*args, **kwargs)` (PyTorch's `torch.fix_`); returns `input`."""
    return _method("fix_", input)(*args, **kwargs)


def floor_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.floor_(*args, **kwargs)` (PyTorch's `torch.floor_`); returns `input`."""
    return _method("floor_", input)(*args, **kwargs)


def frac_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.frac_(*args, **kwargs)` (PyTorch's `torch.frac_`); returns `input`."""
    return _method("frac_", input)(*args, **kwargs)


def i0_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.i0_(*args, **kwargs)` (PyTorch's `torch.i0_`); returns `input`."""
    return _method("i0_", input)(*args, **kwargs)


def index_put_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.index_put_(*args, **kwargs)` (PyTorch's `torch.index_put_`); returns `input`."""
    return _method("index_put_", input)(*args, **kwargs)


def log10_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.log10_(*args, **kwargs)` (PyTorch's `torch.log10_`); returns `input`."""
    return _method("log10_", input)(*args, **kwargs)


def log1p_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.log1p_(*args, **kwargs)` (PyTorch's `torch.log1p_`); returns `input`."""
    return _method("log1p_", input)(*args, **kwargs)


def log2_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.log2_(*args, **kwargs)` (PyTorch's `torch.log2_`); returns `input`."""
    return _method("log2_", input)(*args, **kwargs)


def log_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.log_(*args, **kwargs)` (PyTorch's `torch.log_`); returns `input`."""
    return _method("log_", input)(*args, **kwargs)


def logit_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.logit_(*args, **kwargs)` (PyTorch's `torch.logit_`); returns `input`."""
    return _method("logit_", input)(*args, **kwargs)


def nan_to_num_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.nan_to_num_(*args, **kwargs)` (PyTorch's `torch.nan_to_num_`); returns `input`."""
    return _method("nan_to_num_", input)(*args, **kwargs)


def neg_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.neg_(*args, **kwargs)` (PyTorch's `torch.neg_`); returns `input`."""
    return _method("neg_", input)(*args, **kwargs)


def negative_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.negative_(*args, **kwargs)` (PyTorch's `torch.negative_`); returns `input`."""
    return _method("negative_", input)(*args, **kwargs)


def rad2deg_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.rad2deg_(*args, **kwargs)` (PyTorch's `torch.rad2deg_`); returns `input`."""
    return _method("rad2deg_", input)(*args, **kwargs)


def reciprocal_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.reciprocal_(*args, **kwargs)` (PyTorch's `torch.reciprocal_`); returns `input`."""
    return _method("reciprocal_", input)(*args, **kwargs)


def relu_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.relu_(*args, **kwargs)` (PyTorch's `torch.relu_`); returns `input`."""
    return _method("relu_", input)(*args, **kwargs)


def round_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.round_(*args, **kwargs)` (PyTorch's `torch.round_`); returns `input`."""
    return _method("round_", input)(*args, **kwargs)


def rsqrt_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.rsqrt_(*args, **kwargs)` (PyTorch's `torch.rsqrt_`); returns `input`."""
    return _method("rsqrt_", input)(*args, **kwargs)


def sigmoid_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.sigmoid_(*args, **kwargs)` (PyTorch's `torch.sigmoid_`); returns `input`."""
    return _method("sigmoid_", input)(*args, **kwargs)


def sin_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.sin_(*args, **kwargs)` (PyTorch's `torch.sin_`); returns `input`.

    Examples:
        >>> import funcgrad as torch
        >>> b = torch.tensor([0.0, 1.5707964])
        >>> torch.sin_(b) is b, b
        (True, tensor([0., 1.]))
    """
    return _method("sin_", input)(*args, **kwargs)


def sinc_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.sinc_(*args, **kwargs)` (PyTorch's `torch.sinc_`); returns `input`."""
    return _method("sinc_", input)(*args, **kwargs)


def sinh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.sinh_(*args, **kwargs)` (PyTorch's `torch.sinh_`); returns `input`."""
    return _method("sinh_", input)(*args, **kwargs)


def sqrt_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.sqrt_(*args, **kwargs)` (PyTorch's `torch.sqrt_`); returns `input`."""
    return _method("sqrt_", input)(*args, **kwargs)


def square_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.square_(*args, **kwargs)` (PyTorch's `torch.square_`); returns `input`."""
    return _method("square_", input)(*args, **kwargs)


def tan_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.tan_(*args, **kwargs)` (PyTorch's `torch.tan_`); returns `input`."""
    return _method("tan_", input)(*args, **kwargs)


def tanh_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.tanh_(*args, **kwargs)` (PyTorch's `torch.tanh_`); returns `input`."""
    return _method("tanh_", input)(*args, **kwargs)


def trunc_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.trunc_(*args, **kwargs)` (PyTorch's `torch.trunc_`); returns `input`."""
    return _method("trunc_", input)(*args, **kwargs)


def xlogy_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.xlogy_(*args, **kwargs)` (PyTorch's `torch.xlogy_`); returns `input`."""
    return _method("xlogy_", input)(*args, **kwargs)


def zero_(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """In place: `input.zero_(*args, **kwargs)` (PyTorch's `torch.zero_`); returns `input`."""
    return _method("zero_", input)(*args, **kwargs)
