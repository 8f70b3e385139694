"""Linear maps of `torch.nn.functional`: `linear`, `bilinear`.

Each has PyTorch's signature and takes `Tensor`s or arrays and graph nodes:
`linear` is one `matmul` with the transposed weight (a view: BLAS reads it
transposed, nothing is copied) plus the bias, recorded as one `linear` node
for a matrix input with a bias (the weight's and the bias's gradients then
come out as fresh arrays, as PyTorch's addmm backward gives them); `bilinear`
one `einsum`.
"""

from __future__ import annotations

import numpy as np

from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add
from funcgrad.ops.linalg import einsum, matmul
from funcgrad.ops.linalg import linear as fused_linear
from funcgrad.ops.shape import transpose
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["bilinear", "linear"]


def _linear_grad_fn(input, weight, bias=None):  # noqa: A002
    # PyTorch adds the bias in addmm, and views its result back for other ranks
    if bias is None or len(shape_of(weight)) != 2:
        return None
    if _fused(input, weight, bias):
        return None  # the `linear` primitive is AddmmBackward0 itself (no node to name it)
    return "AddmmBackward0" if len(shape_of(input)) == 2 else "ViewBackward0"


def _real_float(x) -> bool:  # noqa: A002
    # a real floating-point tensor (its array), node or array
    dtype = getattr(getattr(x, "_value", x), "dtype", None)
    return dtype is not None and getattr(dtype, "kind", None) == "f"


_FLOAT_DTYPES = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _fused(input, weight, bias) -> bool:  # noqa: A002
    """Whether `linear` records the one `linear` primitive: a matrix input, a bias per output,
    real floating-point operands (arrays, nodes or tensors)."""
    w_shape = shape_of(weight)
    if len(w_shape) != 2 or len(shape_of(input)) != 2 or shape_of(bias) != (w_shape[0],):
        return False
    # NOTE: the common dtypes by one set lookup per operand (a tensor's array, a node's or
    # an array's dtype), the others by their kind
    for x in (input, weight, bias):
        v = x._value if isinstance(x, Tensor) else x
        if getattr(v, "dtype", None) not in _FLOAT_DTYPES and not _real_float(v):
            return False
    return True


@takes_tensors(grad_fn=_linear_grad_fn)
def linear(input, weight, bias=None):  # noqa: A002
    """Return `input @ weight.T + bias` (`torch.nn.functional.linear`).

    Args:
        input: `(*, in_features)`.
        weight: `(out_features, in_features)`, or `(in_features,)` for one output
            without its axis.
        bias: `(out_features,)`, a scalar, or None.

    Returns:
        `(*, out_features)`: a tensor, array or node, as the inputs.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.linear(np.ones((2, 3)), np.arange(6.0).reshape(2, 3), np.array([0.5, -0.5]))
        array([[ 3.5, 11.5],
               [ 3.5, 11.5]])
    """
    x_shape, w_shape = shape_of(input), shape_of(weight)
    if len(w_shape) not in (1, 2) or not x_shape or x_shape[-1] != w_shape[-1]:
        rows = 1
        for n in x_shape[:-1]:
            rows *= n
        raise OpError(
            f"funcgrad.nn.functional.linear: mat1 and mat2 shapes cannot be multiplied "
            f"({rows}x{x_shape[-1] if x_shape else 0} and "
            f"{'x'.join(str(n) for n in reversed(w_shape))}); input has shape "
            f"{tuple(x_shape)}, weight {tuple(w_shape)}"
        )
    if bias is not None and _fused(input, weight, bias):
        return fused_linear(bias, input, weight)  # one node, fresh gradients
    w = weight if len(w_shape) == 1 else transpose(weight, axes=(1, 0))
    out = matmul(input, w)
    return out if bias is None else add(out, bias)


@takes_tensors
def bilinear(input1, input2, weight, bias=None):
    """Return `input1^T A input2 + b` for each row (`torch.nn.functional.bilinear`).

    Args:
        input1: `(*, in1_features)`.
        input2: `(*, in2_features)`.
        weight: `(out_features, in1_features, in2_features)`.
        bias: `(out_features,)` or None.

    Returns:
        `(*, out_features)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.bilinear(np.ones((1, 2)), np.ones((1, 3)), np.ones((4, 2, 3)))
        array([[6., 6., 6., 6.]])
    """
    s1, s2, sw = shape_of(input1), shape_of(input2), shape_of(weight)
    if len(sw) != 3 or not s1 or not s2 or s1[-1] != sw[1] or s2[-1] != sw[2]:
        raise OpError(
            f"funcgrad.nn.functional.bilinear: input1 {tuple(s1)} and input2 {tuple(s2)} do "
            f"not match weight {tuple(sw)}: expected input1.size(-1) == weight.size(1) and "
            f"input2.size(-1) == weight.size(2)"
        )
    out = einsum(input1, weight, input2, subscripts="...i,oij,...j->...o", optimize=True)
    return out if bias is None else add(out, bias)
