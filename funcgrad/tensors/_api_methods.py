"""`Tensor` methods of the tensor API (issue #14) that are not one primitive's declared method.

Each is the PyTorch-style function of its name with the tensor first
(`x.sort(dim)` is `funcgrad.sort(x, dim)`); each in-place method
(`x.scatter_(...)`, `x.masked_fill_(...)`) computes that function and
rebinds the tensor to the result through `funcgrad.tensors.inplace`.
`funcgrad/tensors/methods.py` installs them on `Tensor`.
"""

from __future__ import annotations

from funcgrad.tensors import functions as F
from funcgrad.tensors.inplace import inplace


def _where(self, condition, y):
    """Return `self` where `condition` holds, else `y` (`funcgrad.where(condition, self, y)`)."""
    return F.where(condition, self, y)


def _masked_fill_values(self, mask, value):
    # in place, an integer tensor takes a value that requires grad as a constant (PyTorch's
    # out-of-place masked_fill refuses it: its result could not require grad)
    if getattr(value, "requires_grad", False) and self.dtype.kind not in "fc":
        value = value.detach()
    return F.masked_fill(self, mask, value)


class ApiMethods:
    """The methods of the tensor API's functions: sorting, gathering, scattering, masking ..."""

    __slots__ = ()

    # --- extrema, sorting, order statistics
    aminmax = F.aminmax
    sort = F.sort
    argsort = F.argsort
    msort = F.msort
    topk = F.topk
    kthvalue = F.kthvalue
    median = F.median
    nanmedian = F.nanmedian
    mode = F.mode
    cummax = F.cummax
    cummin = F.cummin

    # --- elementwise math
    lerp = F.lerp
    lerp_ = inplace("lerp_", F.lerp)

    # --- masking and nonzero entries (gather and scatter declare theirs in their records)
    masked_fill = F.masked_fill
    where = _where
    nonzero = F.nonzero
    argwhere = F.argwhere

    masked_fill_ = inplace("masked_fill_", _masked_fill_values)
