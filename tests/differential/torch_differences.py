"""Where funcgrad's Tensor layer may differ from PyTorch 2.13: the one list, and the bugs still open.

`DIFFERENCES` holds the *deliberate* differences, each with its reason (they
are the ones `docs/errors.md` and the "Coming from PyTorch" page list). The
comparison (`torch_compare.py`) allows exactly these:

* `GUARD` (every case, gradients only): funcgrad's NaN guard gives an exact
  0 where the incoming cotangent is 0, where PyTorch computes `0 * inf` or
  `0 * nan` and gives NaN;
* `Difference("accepts", canonical=True)`: PyTorch refuses an argument *form*
  with a TypeError (its argument parser), funcgrad accepts it; PyTorch then
  runs on the plain form (a Python int for a NumPy integer dim, a tensor for
  an array) and the answers must agree;
* `Difference(aspect, match=...)`: a mismatch of that aspect whose message
  matches `match` (funcgrad raises a given error where PyTorch returns, ...).

`KNOWN_MISMATCHES` holds the bugs the fuzzer found that are not fixed yet:
`(case, aspect) -> description`. Such a case is expected to fail on that
aspect (and only on it); once it no longer does, its test fails until the
entry is removed. The goal is an empty table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Difference:
    """One deliberate difference: which aspect of a case may differ, and why."""

    aspect: str
    reason: str
    match: str | None = None  # a regex the mismatch's message must match (None: any)
    canonical: bool = False  # "accepts": compare with PyTorch on the plain argument form


GUARD = "*"

DIFFERENCES: dict[str, Difference] = {
    GUARD: Difference(
        "grad",
        "the NaN guard: a VJP rule 'cotangent times local derivative' gives an exact 0 where the "
        "cotangent is 0, even where the local derivative is infinite or NaN (PyTorch: NaN); "
        "see funcgrad.ops.guard and docs/concepts/primitive-registry.md",
    ),
    "Tensor.__rmatmul__": Difference(
        "accepts",
        "a NumPy array as left operand of @ is taken as a tensor (funcgrad's Tensor sets "
        "__array_priority__, so NumPy defers to Tensor.__rmatmul__); PyTorch raises TypeError",
        canonical=True,
    ),
    "torch.div": Difference(
        "raises",
        "rounding_mode ('trunc', 'floor') is refused: the result is piecewise constant, "
        "funcgrad has no such primitive yet",
        match="NotImplementedError: funcgrad.div: rounding_mode",
    ),
    "Tensor.div": Difference(
        "raises",
        "as torch.div",
        match="NotImplementedError: funcgrad.div: rounding_mode",
    ),
    "Tensor.div_": Difference(
        "raises",
        "as torch.div",
        match="NotImplementedError: funcgrad.div: rounding_mode",
    ),
    "torch.randn_like": Difference(
        "raises",
        "an integer dtype is refused (issue #12: randn(dtype=int64)); PyTorch refuses it too "
        "except for an empty tensor, where no kernel runs",
        match="DtypeError: funcgrad.randn: draws floating-point numbers",
    ),
    **{
        name: Difference(
            "grad2",
            "var/std of one element with correction 1: the value and gradient are NaN in both; "
            "the second derivative is NaN in funcgrad, absent (None) in PyTorch",
            match=r"second-order .grad of input 0 \(None as zeros.*nan\) vs torch np.float64\(0.0\)",
        )
        for name in ("torch.var", "Tensor.var", "torch.std", "Tensor.std")
    },
    "Tensor.expand": Difference(
        "raises",
        "-1 for a new leading dimension is refused (issue #12); PyTorch 2.13 refuses it too, "
        "except when another size is 0, where it returns a tensor of negative size (its bug)",
        match="isn't allowed in a leading, non-existing dimension",
    ),
}

# The causes of KNOWN_MISMATCHES (each reported in /tmp/s3/mismatches-torch.md).
ARANGE_STEP0 = "arange with step 0 returns a tensor (PyTorch: ValueError)"
BMM = "bmm accepts tensors that are not 3-D (it is matmul; PyTorch: RuntimeError)"
CAT_LEGACY = (
    "cat with a 1-D empty tensor and dim=1: PyTorch (legacy rule) skips it, funcgrad raises"
)
DIM_EMPTY = "dim=() reduces nothing (PyTorch: every dim); var(x, False) takes the bool as dim (PyTorch: unbiased=False)"
DIM_REQUIRED = "no dim: PyTorch requires one (TypeError), funcgrad flattens (NumPy semantics)"
FLIP_VARARGS = "x.flip(0, 1) (dims as varargs) raises TypeError"
LIST_DIM = "all/any with a list or tuple dim raise TypeError (PyTorch: reduces those dims)"
MAX_DIM_TENSOR = "max/min(x, <0-d int tensor>, keepdim): PyTorch takes it as dim, funcgrad as other"
MEAN_INT = "mean of an integer tensor: PyTorch raises, funcgrad returns float64"
MM = "mm accepts tensors that are not 2-D (it is matmul; PyTorch: RuntimeError)"
NORM_MATRIX = "norm(p='fro'/'nuc', dim=(a, b)) of a batch raises (PyTorch: matrix norm over them)"
NO_SIZE = "no size: PyTorch raises TypeError, funcgrad returns a 0-d tensor"
POW_EDGES = "pow at base 0 or a negative base: exponent gradient 0 where PyTorch gives inf/NaN; second order at exponent 0 differs (PyTorch masks y == 0; funcgrad's is exact there)"
PROMOTION = "int->float promotion: an int tensor gives float64 (PyTorch: the default float32); float32 op int64 tensor gives float64 (PyTorch: float32)"
REPEATED_DIM = "a repeated dim is accepted (PyTorch: RuntimeError)"
TRI_1D = "tril/triu of a 1-D tensor returns a 2-D matrix (NumPy; PyTorch: RuntimeError)"
ZERO_D_DIM = "a 0-d tensor with dim 0, -1 or (-1,): PyTorch accepts, funcgrad raises AxisError"

KNOWN_MISMATCHES: dict[tuple[str, str], str] = {
    ("Tensor.__add__", "values"): PROMOTION,
    ("Tensor.__ipow__", "grad2"): POW_EDGES,
    ("Tensor.__mul__", "values"): PROMOTION,
    ("Tensor.__pow__", "grad2"): POW_EDGES,
    ("Tensor.__pow__", "values"): PROMOTION,
    ("Tensor.__rpow__", "grad2"): POW_EDGES,
    ("Tensor.__sub__", "values"): PROMOTION,
    ("Tensor.__truediv__", "values"): PROMOTION,
    ("Tensor.acos", "values"): PROMOTION,
    ("Tensor.add", "values"): PROMOTION,
    ("Tensor.all", "raises"): LIST_DIM,
    ("Tensor.any", "raises"): LIST_DIM,
    ("Tensor.asin", "values"): PROMOTION,
    ("Tensor.asinh", "values"): PROMOTION,
    ("Tensor.atan", "values"): PROMOTION,
    ("Tensor.atan2", "values"): PROMOTION,
    ("Tensor.bmm", "accepts"): BMM,
    ("Tensor.cos", "values"): PROMOTION,
    ("Tensor.cosh", "values"): PROMOTION,
    ("Tensor.cumsum", "accepts"): DIM_REQUIRED,
    ("Tensor.div", "values"): PROMOTION,
    ("Tensor.exp", "values"): PROMOTION,
    ("Tensor.expand", "accepts"): NO_SIZE,
    ("Tensor.expm1", "values"): PROMOTION,
    ("Tensor.flip", "raises"): FLIP_VARARGS,
    ("Tensor.log", "values"): PROMOTION,
    ("Tensor.log1p", "values"): PROMOTION,
    ("Tensor.log_softmax", "accepts"): DIM_REQUIRED,
    ("Tensor.logsumexp", "accepts"): DIM_REQUIRED,
    ("Tensor.logsumexp", "values"): PROMOTION,
    ("Tensor.max", "values"): MAX_DIM_TENSOR,
    ("Tensor.maximum", "values"): PROMOTION,
    ("Tensor.mean", "accepts"): MEAN_INT,
    ("Tensor.min", "values"): MAX_DIM_TENSOR,
    ("Tensor.minimum", "values"): PROMOTION,
    ("Tensor.mm", "accepts"): MM,
    ("Tensor.mul", "values"): PROMOTION,
    ("Tensor.norm", "accepts"): REPEATED_DIM,
    ("Tensor.norm", "raises"): NORM_MATRIX,
    ("Tensor.permute", "accepts"): NO_SIZE,
    ("Tensor.pow", "grad2"): POW_EDGES,
    ("Tensor.pow", "values"): PROMOTION,
    ("Tensor.reciprocal", "values"): PROMOTION,
    ("Tensor.sigmoid", "values"): PROMOTION,
    ("Tensor.sin", "values"): PROMOTION,
    ("Tensor.sinh", "values"): PROMOTION,
    ("Tensor.softmax", "accepts"): DIM_REQUIRED,
    ("Tensor.sqrt", "values"): PROMOTION,
    ("Tensor.squeeze", "accepts"): REPEATED_DIM,
    ("Tensor.std", "values"): DIM_EMPTY,
    ("Tensor.sub", "values"): PROMOTION,
    ("Tensor.sum", "raises"): ZERO_D_DIM,
    ("Tensor.tan", "values"): PROMOTION,
    ("Tensor.tanh", "values"): PROMOTION,
    ("Tensor.tril", "accepts"): TRI_1D,
    ("Tensor.triu", "accepts"): TRI_1D,
    ("Tensor.var", "values"): DIM_EMPTY,
    ("torch.acos", "values"): PROMOTION,
    ("torch.add", "values"): PROMOTION,
    ("torch.all", "raises"): LIST_DIM,
    ("torch.any", "raises"): LIST_DIM,
    ("torch.arange", "accepts"): ARANGE_STEP0,
    ("torch.asin", "values"): PROMOTION,
    ("torch.asinh", "values"): PROMOTION,
    ("torch.atan", "values"): PROMOTION,
    ("torch.atan2", "values"): PROMOTION,
    ("torch.bmm", "accepts"): BMM,
    ("torch.cat", "raises"): CAT_LEGACY,
    ("torch.concatenate", "raises"): CAT_LEGACY,
    ("torch.cos", "values"): PROMOTION,
    ("torch.cosh", "values"): PROMOTION,
    ("torch.cumsum", "accepts"): DIM_REQUIRED,
    ("torch.div", "values"): PROMOTION,
    ("torch.empty", "accepts"): NO_SIZE,
    ("torch.exp", "values"): PROMOTION,
    ("torch.expm1", "values"): PROMOTION,
    ("torch.log", "values"): PROMOTION,
    ("torch.log1p", "values"): PROMOTION,
    ("torch.log_softmax", "accepts"): DIM_REQUIRED,
    ("torch.logsumexp", "accepts"): DIM_REQUIRED,
    ("torch.logsumexp", "values"): PROMOTION,
    ("torch.max", "values"): MAX_DIM_TENSOR,
    ("torch.maximum", "values"): PROMOTION,
    ("torch.mean", "accepts"): MEAN_INT,
    ("torch.min", "values"): MAX_DIM_TENSOR,
    ("torch.minimum", "values"): PROMOTION,
    ("torch.mm", "accepts"): MM,
    ("torch.mul", "values"): PROMOTION,
    ("torch.norm", "accepts"): REPEATED_DIM,
    ("torch.norm", "raises"): NORM_MATRIX,
    ("torch.ones", "accepts"): NO_SIZE,
    ("torch.pow", "grad2"): POW_EDGES,
    ("torch.pow", "values"): PROMOTION,
    ("torch.rand", "accepts"): NO_SIZE,
    ("torch.randn", "accepts"): NO_SIZE,
    ("torch.reciprocal", "values"): PROMOTION,
    ("torch.sigmoid", "values"): PROMOTION,
    ("torch.sin", "values"): PROMOTION,
    ("torch.sinh", "values"): PROMOTION,
    ("torch.softmax", "accepts"): DIM_REQUIRED,
    ("torch.sqrt", "values"): PROMOTION,
    ("torch.squeeze", "accepts"): REPEATED_DIM,
    ("torch.std", "values"): DIM_EMPTY,
    ("torch.sub", "values"): PROMOTION,
    ("torch.sum", "raises"): ZERO_D_DIM,
    ("torch.tan", "values"): PROMOTION,
    ("torch.tanh", "values"): PROMOTION,
    ("torch.tril", "accepts"): TRI_1D,
    ("torch.triu", "accepts"): TRI_1D,
    ("torch.var", "values"): DIM_EMPTY,
    ("torch.where", "values"): PROMOTION,
    ("torch.zeros", "accepts"): NO_SIZE,
}
