"""Matrix products with a repeated operand: one row (column) computed, then copied.

A NumPy matrix whose rows all share one row of memory (a zero row stride:
the `broadcast_to` view that a sum's or a mean's VJP hands on as its
cotangent) gives a product whose rows are all equal; so does a right operand
whose columns share one column of memory, across the columns. `matmul`
computes such a product on a few of the rows (columns) and copies the first
one down (across), when that gives the whole product's bits. Whether it does
is a property of the BLAS and of the shapes, dtypes and layouts, not of the
values (a GEMM's order of summation does not read them): it is checked once
per signature on random operands of that signature (the whole product's rows
must all be equal, and the few rows' first row must be the whole product's,
bit for bit) and remembered. A BLAS that sums a row differently by its place
(OpenBLAS's small-matrix kernel takes a 16-row product of some shapes) keeps
the whole product for that signature.

NOTE: W4 (`sum(tanh(X @ W1) @ W2)`, issue 18): the VJP's two products with
the sum's ones, (512, 256) @ (256, 1024) and (1024, 512) @ (512, 256) in
float32, took 1.16 and 1.12 ms each (NumPy copies the broadcast operand for
BLAS inside the call) and take 0.28 ms on 16 rows with the copy (one BLAS
thread, `timeit` minima); the eager step went from 1.02x to 0.90-0.94x of
hand-written NumPy, the same bits. `funcgrad.jit` does the same for a
constant of equal rows (`transforms/jit.py`, `repeated_product`) with this
module's helpers. The check is made with the BLAS threads of the process at
the time: after a change of the thread count the whole product's last bits
may differ from the few rows' (by rounding: the same sums in another order),
as OpenBLAS's own products with 1 and 2 threads do.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy

__all__ = ["FEW", "first_column_across", "first_row_down", "matmul", "rows_equal"]

# Whether `matmul` computes a product with a repeated operand on a few rows (A/B switch).
ENABLED = True
FEW = 16  # rows computed of a product whose rows are equal (4 times as many at least)
_MIN_LINES = 4 * FEW
_np_matmul = numpy.matmul
_BLAS_KINDS = frozenset("fc")


def first_row_down(r: Any, shape: tuple[int, ...]) -> Any:
    """`r[0]` copied into every row of a new C-ordered array of `shape` (a product's rows)."""
    return numpy.broadcast_to(r[:1], shape).copy()


def first_column_across(r: Any, shape: tuple[int, ...]) -> Any:
    """`r[:, 0]` copied into every column of a new C-ordered array of `shape`."""
    return numpy.broadcast_to(r[:, :1], shape).copy()


def rows_equal(x: Any) -> bool:
    """Whether every row of the 2-d array `x` has the bits of its first row."""
    bits = numpy.ascontiguousarray(x).view(numpy.uint8).reshape(x.shape[0], -1)
    return bool((bits == bits[:1]).all())


def matmul(a: Any, b: Any) -> Any:
    """`numpy.matmul(a, b)` of two NumPy matrices, a repeated row (column) computed once.

    The same bits as `numpy.matmul(a, b)` (see the module's docstring); a
    fresh C-ordered array either way.

    Examples:
        >>> import numpy as np
        >>> ones = np.broadcast_to(np.float32(1), (256, 8))
        >>> w = np.arange(24, dtype=np.float32).reshape(8, 3)
        >>> r = matmul(ones, w)
        >>> r.shape, r.flags.c_contiguous, bool((r == ones @ w).all())
        ((256, 3), True, True)
    """
    if a.strides[0] == 0 and a.shape[0] >= _MIN_LINES:
        side = 0
    elif b.strides[1] == 0 and b.shape[1] >= _MIN_LINES:
        side = 1
    else:
        return _np_matmul(a, b)
    dtype = a.dtype
    if not ENABLED or b.dtype != dtype or dtype.kind not in _BLAS_KINDS or dtype.itemsize < 4:
        return _np_matmul(a, b)
    other = b if side == 0 else a
    if other.flags.c_contiguous:
        order = "C"
    elif other.flags.f_contiguous:
        order = "F"
    else:
        return _np_matmul(a, b)
    repeated = a if side == 0 else b
    inner_zero = repeated.strides[1 - side] == 0  # one value repeated, not one row
    m = _few_lines(side, a.shape, b.shape, inner_zero, order, dtype)
    if not m:
        return _np_matmul(a, b)
    return _few_product(side, a, b, m)


def _few_product(side: int, a: Any, b: Any, m: int) -> Any:
    shape = (a.shape[0], b.shape[1])
    if side == 0:
        return first_row_down(_np_matmul(numpy.ascontiguousarray(a[:m]), b), shape)
    return first_column_across(_np_matmul(a, numpy.ascontiguousarray(b[:, :m])), shape)


@functools.lru_cache(maxsize=256)
def _few_lines(
    side: int,
    a_shape: tuple[int, int],
    b_shape: tuple[int, int],
    inner_zero: bool,
    order: str,
    dtype: numpy.dtype,
) -> int:
    """How many rows (side 1: columns) give the whole product's bits, or 0 (none do).

    Checked on random operands of the signature: the repeated operand
    broadcast from one random row (column), or from one random value when
    its memory is one value (`inner_zero`), the other in its `order`.
    16, 32, 64, ... are tried, up to a quarter of the lines.
    """
    rng = numpy.random.default_rng(0)

    def draw(shape: tuple[int, ...]) -> Any:
        x = rng.standard_normal(shape)
        if dtype.kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)

    rep_shape, other_shape = (a_shape, b_shape) if side == 0 else (b_shape, a_shape)
    line = () if inner_zero else (rep_shape[1],) if side == 0 else (rep_shape[0], 1)
    repeated = numpy.broadcast_to(draw(line), rep_shape)
    other = draw(other_shape)
    if order == "F":
        other = numpy.asfortranarray(other)
    a, b = (repeated, other) if side == 0 else (other, repeated)
    full = _np_matmul(a, b)
    lines = full if side == 0 else full.T
    if not rows_equal(lines):
        return 0
    first = lines[0].tobytes()
    m = FEW
    while 4 * m <= rep_shape[side]:
        few = _few_product(side, a, b, m)
        if (few if side == 0 else few.T)[0].tobytes() == first:
            return m
        m *= 2
    return 0
