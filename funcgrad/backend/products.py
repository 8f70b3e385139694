"""Matrix products with a repeated operand: one row (column) computed, then copied.

A NumPy matrix whose rows all share one row of memory (a zero row stride:
the `broadcast_to` view that a sum's or a mean's VJP hands on as its
cotangent) gives a product whose rows are all equal; so does a right operand
whose columns share one column of memory, across the columns. `matmul`
computes such a product on a few of the rows (columns) and copies the first
one down (across), when that gives the whole product's bits. Whether it does
is a property of the BLAS and of the shapes, dtypes and layouts, not of the
values (a GEMM's order of summation does not read them): it is checked once
per signature on several random operands of that signature, whose entries
make sums in another order round otherwise (`order_sensitive`: the whole
product's rows must all be equal, and the few rows' first row must be the
whole product's, bit for bit) and remembered; products whose rows have
fewer than 4 entries keep the whole product. A BLAS that sums a row differently by its place
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

__all__ = [
    "FEW",
    "MIN_WIDTH",
    "draws_for",
    "first_column_across",
    "first_row_down",
    "matmul",
    "order_sensitive",
    "rows_equal",
]

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


def order_sensitive(rng: Any, shape: tuple[int, ...], dtype: numpy.dtype) -> Any:
    """Random entries whose sums round differently when summed in another order.

    Mixed signs and magnitudes spread over 2**-10 .. 2**11: with standard
    normal entries two orders of summation give the same rounded sum often
    enough that one draw approves a product whose few rows are summed in
    another order (review of 5f18d51: a float64 (128, 257) @ (257, 33)
    signature passed with 16 of 200 seeds).
    """

    def part() -> Any:
        signs = rng.choice((-1.0, 1.0), size=shape)
        return signs * numpy.exp2(rng.uniform(-10.0, 10.0, size=shape)) * (1.0 + rng.random(shape))

    x = part()
    if dtype.kind == "c":
        x = x + 1j * part()
    return numpy.asarray(x).astype(dtype)


def draws_for(width: int) -> int:
    """How many random draws check a product whose rows have `width` entries.

    Enough that `_COMPARED` entries are compared in all (each draw compares
    one row), at least 4 and at most `_MAX_DRAWS` (each costs one whole
    product, once per signature).
    """
    return min(_MAX_DRAWS, max(4, -(-_COMPARED // max(width, 1))))


MIN_WIDTH = 4  # a product's rows with fewer entries (matrix-vector products): the whole product
_COMPARED = 256
_MAX_DRAWS = 16


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

    Checked on `draws_for` random operands of the signature (entries from
    `order_sensitive`): the repeated operand broadcast from one random row
    (column), or from one random value when its memory is one value
    (`inner_zero`), the other in its `order`. Every draw's whole product
    must have equal rows, and the few rows must give its first row; 16, 32,
    64, ... are tried, up to a quarter of the lines. Products whose rows
    have fewer than `MIN_WIDTH` entries keep the whole product (one row
    compares too few sums to tell two orders apart).
    """
    rep_shape, other_shape = (a_shape, b_shape) if side == 0 else (b_shape, a_shape)
    width = other_shape[1] if side == 0 else other_shape[0]
    if width < MIN_WIDTH:
        return 0
    rng = numpy.random.default_rng(0)
    line = () if inner_zero else (rep_shape[1],) if side == 0 else (rep_shape[0], 1)
    cases = []
    for _ in range(draws_for(width)):
        repeated = numpy.broadcast_to(order_sensitive(rng, line, dtype), rep_shape)
        other = order_sensitive(rng, other_shape, dtype)
        if order == "F":
            other = numpy.asfortranarray(other)
        a, b = (repeated, other) if side == 0 else (other, repeated)
        full = _np_matmul(a, b)
        lines = full if side == 0 else full.T
        if not rows_equal(lines):
            return 0
        cases.append((a, b, lines[0].tobytes()))
    m = FEW
    while 4 * m <= rep_shape[side]:
        if all(
            (few if side == 0 else few.T)[0].tobytes() == first
            for a, b, first in cases
            for few in (_few_product(side, a, b, m),)
        ):
            return m
        m *= 2
    return 0
