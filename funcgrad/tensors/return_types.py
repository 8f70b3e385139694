"""The named tuples PyTorch's functions return (`torch.return_types`): `sort`, `max`, `slogdet` ...

Each is a tuple (so `values, indices = x.sort()` works) with named fields
(`x.sort().values`), printed as PyTorch prints it.

Examples:
    >>> import funcgrad as torch
    >>> torch.sort(torch.tensor([2.0, 1.0]))
    funcgrad.return_types.sort(
    values=tensor([1., 2.]),
    indices=tensor([1, 0]))
"""

from __future__ import annotations

from collections import namedtuple


def _make(name: str, fields: tuple[str, ...]) -> type:
    base = namedtuple(name, fields)  # type: ignore[misc]

    def __repr__(self) -> str:
        inner = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self, strict=True))
        return f"funcgrad.return_types.{name}(\n{inner})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
    cls.__module__ = "funcgrad.return_types"
    cls.__doc__ = f"The result of `{name}`: a tuple with the fields {', '.join(fields)}."
    return cls


_VALUES_INDICES = ("values", "indices")

max = _make("max", _VALUES_INDICES)  # noqa: A001
min = _make("min", _VALUES_INDICES)  # noqa: A001
sort = _make("sort", _VALUES_INDICES)
topk = _make("topk", _VALUES_INDICES)
kthvalue = _make("kthvalue", _VALUES_INDICES)
median = _make("median", _VALUES_INDICES)
nanmedian = _make("nanmedian", _VALUES_INDICES)
mode = _make("mode", _VALUES_INDICES)
cummax = _make("cummax", _VALUES_INDICES)
cummin = _make("cummin", _VALUES_INDICES)
aminmax = _make("aminmax", ("min", "max"))
frexp = _make("frexp", ("mantissa", "exponent"))
slogdet = _make("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
qr = _make("qr", ("Q", "R"))
linalg_qr = _make("linalg_qr", ("Q", "R"))
svd = _make("svd", ("U", "S", "V"))
linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _make("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_lstsq = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_inv_ex = _make("linalg_inv_ex", ("inverse", "info"))
linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
linalg_solve_ex = _make("linalg_solve_ex", ("result", "info"))
linalg_lu_factor = _make("linalg_lu_factor", ("LU", "pivots"))
linalg_lu = _make("linalg_lu", ("P", "L", "U"))
histogram = _make("histogram", ("hist", "bin_edges"))

__all__ = [
    "aminmax",
    "cummax",
    "cummin",
    "frexp",
    "histogram",
    "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eig",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_lstsq",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "max",
    "median",
    "min",
    "mode",
    "nanmedian",
    "qr",
    "slogdet",
    "sort",
    "svd",
    "topk",
]
