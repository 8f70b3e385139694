"""Products with a repeated operand (`funcgrad.backend.products`): NumPy's bits, fewer rows.

A sum's or a mean's VJP hands matmul's VJP a broadcast cotangent (a zero
row stride); `products.matmul` computes such a product on a few rows and
copies the first one down, only where a check on random operands of the
signature finds that this gives the whole product's bits. The reference is
NumPy's own `matmul` of the same operands; the check itself is tested with a
stand-in BLAS whose small products round differently.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.backend import products

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _draw(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _repeated(rng, shape, side, one_value, dtype):
    """A (k, n) or (n, k) operand whose rows (side 0) or columns (side 1) share memory."""
    if one_value:
        return np.broadcast_to(_draw(rng, (), dtype), shape)
    line = (shape[1],) if side == 0 else (shape[0], 1)
    return np.broadcast_to(_draw(rng, line, dtype), shape)


def _same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("one_value", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize(
    "n, k, m",
    # (128, 257, 33) and (64, 17, 1) float64: OpenBLAS sums 16 rows in another order, which
    # one standard normal draw did not show (review of 5f18d51)
    [(512, 256, 96), (96, 72, 40), (257, 33, 130), (64, 8, 3), (128, 257, 33), (64, 17, 1)],
)
def test_the_bits_of_numpys_product(dtype, side, one_value, order, n, k, m):
    rng = np.random.default_rng(n + k + m)
    if side == 0:  # (n, k) repeated rows @ (k, m)
        a = _repeated(rng, (n, k), 0, one_value, dtype)
        b = np.asarray(_draw(rng, (k, m), dtype), order=order)
    else:  # (m, k) @ (k, n) repeated columns
        a = np.asarray(_draw(rng, (m, k), dtype), order=order)
        b = _repeated(rng, (k, n), 1, one_value, dtype)
    got = products.matmul(a, b)
    assert _same_bits(got, np.matmul(a, b))
    assert got.flags.c_contiguous and got.flags.writeable and got.flags.owndata
    assert not np.shares_memory(got, a) and not np.shares_memory(got, b)


def test_nan_inf_and_signed_zeros_in_the_repeated_row():
    rng = np.random.default_rng(3)
    row = rng.standard_normal(200)
    row[[3, 17, 40]] = [np.nan, np.inf, -0.0]
    a = np.broadcast_to(row, (300, 200))
    b = rng.standard_normal((200, 50))
    b[5, :] = -0.0
    assert _same_bits(products.matmul(a, b), np.matmul(a, b))
    assert _same_bits(products.matmul(b.T, a.T), np.matmul(b.T, a.T))


def _recording(monkeypatch):
    """Record the rows of every product `products.matmul` hands to NumPy after its check."""
    rows = []
    real = products._np_matmul

    def spy(a, b):
        rows.append(a.shape[0])
        return real(a, b)

    products._few_lines.cache_clear()
    monkeypatch.setattr(products, "_np_matmul", spy)
    return rows


def test_a_product_that_passes_the_check_is_computed_on_few_rows(monkeypatch):
    rng = np.random.default_rng(4)
    a = np.broadcast_to(np.float64(1.0), (512, 256))
    b = rng.standard_normal((256, 100))
    rows = _recording(monkeypatch)
    expected = np.matmul(a, b)
    got = products.matmul(a, b)
    m = products._few_lines(0, a.shape, b.shape, True, "C", a.dtype)
    assert _same_bits(got, expected)
    if m:  # this BLAS sums 16 (32, ...) rows as it sums 512: the call computes m rows
        assert rows[-1] == m < 512
    else:  # it does not: the whole product
        assert rows[-1] == 512
    rows.clear()
    products.matmul(a, b)  # the second call checks nothing again
    assert rows == [m or 512]


def test_a_blas_whose_few_rows_round_otherwise_keeps_the_whole_product(monkeypatch):
    # a stand-in BLAS: products of fewer than 512 rows come out one ulp larger
    real = np.matmul

    def blas(a, b):
        r = real(a, b)
        return np.nextafter(r, np.inf) if a.shape[0] < 512 else r

    products._few_lines.cache_clear()
    monkeypatch.setattr(products, "_np_matmul", blas)
    a = np.broadcast_to(np.float64(1.0), (512, 256))
    b = np.random.default_rng(5).standard_normal((256, 100))
    assert products._few_lines(0, a.shape, b.shape, True, "C", a.dtype) == 0
    assert _same_bits(products.matmul(a, b), real(a, b))
    products._few_lines.cache_clear()


def test_a_blas_whose_rows_differ_by_place_keeps_the_whole_product(monkeypatch):
    # a stand-in BLAS whose last rows (an edge kernel) round otherwise
    real = np.matmul

    def blas(a, b):
        r = real(a, b)
        r[-3:] = np.nextafter(r[-3:], np.inf)
        return r

    products._few_lines.cache_clear()
    monkeypatch.setattr(products, "_np_matmul", blas)
    a = np.broadcast_to(np.float64(1.0), (512, 256))
    b = np.random.default_rng(6).standard_normal((256, 100))
    assert products._few_lines(0, a.shape, b.shape, True, "C", a.dtype) == 0
    products._few_lines.cache_clear()


def test_switched_off_and_unsupported_operands_take_numpys_product(monkeypatch):
    rows = _recording(monkeypatch)
    a = np.broadcast_to(np.float64(1.0), (512, 64))
    b = np.random.default_rng(7).standard_normal((64, 10))
    monkeypatch.setattr(products, "ENABLED", False)
    products.matmul(a, b)
    monkeypatch.setattr(products, "ENABLED", True)
    products.matmul(a.astype(np.float16), b.astype(np.float16))  # no BLAS for float16
    products.matmul(np.broadcast_to(np.int64(1), (512, 64)), b.astype(np.int64))
    products.matmul(
        a, np.asfortranarray(np.random.default_rng(8).standard_normal((64, 20)))[:, ::2]
    )
    assert rows == [512, 512, 512, 512]


def test_a_mismatch_raises_numpys_error_and_funcgrad_names_matmul():
    a = np.broadcast_to(np.float64(1.0), (512, 64))
    with pytest.raises(ValueError):
        products.matmul(a, np.ones((65, 3)))
    with pytest.raises(fg.errors.OpError, match="matmul"):
        fnp.matmul(a, np.ones((65, 3)))


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_gradients_through_a_sum_or_mean_are_numpys(reduce):
    # the VJPs of matmul and linear hand these products a broadcast cotangent
    rng = np.random.default_rng(9)
    X = rng.standard_normal((256, 48)).astype(np.float32)
    W = rng.standard_normal((48, 80)).astype(np.float32)
    red = getattr(fnp, reduce)
    gx, gw = fg.grad(lambda x, w: red(fnp.matmul(x, w)), argnums=(0, 1))(X, W)
    ct = np.full(
        (256, 80), 1.0 if reduce == "sum" else np.float32(1.0) / np.float32(256 * 80), np.float32
    )
    assert _same_bits(gx, ct @ W.T) and _same_bits(gw, X.T @ ct)
    tx, tw = fg.tensor(X, requires_grad=True), fg.tensor(W.T.copy(), requires_grad=True)
    getattr(fg.nn.functional.linear(tx, tw), reduce)().backward()
    assert _same_bits(tx.grad.numpy(), ct @ W.T) and _same_bits(tw.grad.numpy(), ct.T @ X)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, k, m", [(128, 257, 33), (64, 17, 1), (256, 100, 3)])
def test_signatures_one_draw_approved_by_chance_give_numpys_bits(dtype, n, k, m):
    # many value draws per signature: the check must not have approved a different order
    for seed in range(30):
        rng = np.random.default_rng(seed)
        a = np.broadcast_to(_draw(rng, (), dtype), (n, k))
        b = _draw(rng, (k, m), dtype)
        assert _same_bits(products.matmul(a, b), np.matmul(a, b))
        assert _same_bits(products.matmul(b.T, a.T), np.matmul(b.T, a.T))


def test_rows_of_fewer_than_four_entries_keep_the_whole_product(monkeypatch):
    rows = _recording(monkeypatch)
    a = np.broadcast_to(np.float64(1.0), (512, 64))
    products.matmul(a, np.random.default_rng(10).standard_normal((64, 3)))
    assert rows == [512]
    assert products._few_lines(0, (512, 64), (64, 3), True, "C", np.dtype(np.float64)) == 0


def test_the_check_draws_sums_that_round_otherwise_in_another_order():
    # a stand-in for a BLAS that sums the few rows in reverse order: with standard normal
    # entries some draws round alike; order_sensitive's draws tell the orders apart
    rng = np.random.default_rng(11)
    x = products.order_sensitive(rng, (200, 64), np.dtype(np.float64))
    forward = np.cumsum(x, axis=1)[:, -1]
    backward = np.cumsum(x[:, ::-1], axis=1)[:, -1]
    assert (forward != backward).mean() > 0.5
    assert products.draws_for(1024) == 4 and products.draws_for(4) == 16
