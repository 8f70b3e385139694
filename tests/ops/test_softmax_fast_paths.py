"""Fast paths of log_softmax, softmax, logsumexp and nll_loss on NumPy arrays, against the general ones.

`nn._max_keepdims` takes the maximum of a batch of short rows (logits of a
few classes) over the transposed copy; `log_softmax`'s VJP skips its `where`
when no slice is all -inf; `nll_loss`'s mean divides outside `np.errstate`
when a target counts. Each must give the same bits as the path it replaces,
and the losses PyTorch's values and gradients.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from funcgrad.ops import nn as nn_ops
from funcgrad.ops.elementwise import exp, where
from funcgrad.ops.loss import nll_loss
from funcgrad.ops.nn import log_softmax, logsumexp, softmax
from funcgrad.ops.reduce import sum_
from tests.references import requires

torch = requires("torch")


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize])


def _batch(rows, cols, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, cols)) * 4).astype(dtype)
    x[0, :] = -np.inf  # a fully masked row
    x[1, 1] = np.inf
    x[2, 2] = np.nan
    x[3, :] = -np.abs(x[3, :]) - 1
    x[3, 0], x[3, -1] = 0.0, -0.0  # the maximum a zero of either sign
    x[4, :] = -np.abs(x[4, :]) - 1
    x[4, 0], x[4, -1] = -0.0, 0.0
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "shape", [(128, 10), (32, 32), (40, 3), (31, 10), (128, 33), (64, 100), (5, 3)]
)
@pytest.mark.parametrize("axis", [1, -1, 0])
def test_max_keepdims_is_numpys_max_bit_for_bit(shape, dtype, axis):
    x = _batch(*shape, dtype)
    got = nn_ops._max_keepdims(np, x, axis)
    want = np.max(x, axis=axis, keepdims=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(_bits(got), _bits(want))


def test_max_keepdims_of_a_view_or_a_transposed_matrix():
    x = _batch(64, 20, np.float32)
    for v in (x[:, :10], np.asfortranarray(x), x[::2]):
        want = np.max(v, axis=1, keepdims=True)
        assert np.array_equal(_bits(nn_ops._max_keepdims(np, v, 1)), _bits(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forwards_on_a_batch_of_logits_match_pytorch(dtype):
    x = _batch(128, 10, dtype)[5:]  # finite rows
    t = torch.from_numpy(x)
    tol = {"rtol": 1e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 0}
    np.testing.assert_allclose(log_softmax(x, axis=1), torch.log_softmax(t, 1).numpy(), **tol)
    np.testing.assert_allclose(softmax(x, axis=-1), torch.softmax(t, -1).numpy(), **tol)
    np.testing.assert_allclose(
        logsumexp(x, axis=1, keepdims=False), torch.logsumexp(t, 1).numpy(), **tol
    )


@pytest.mark.parametrize("masked", [False, True])
def test_log_softmax_vjp_equals_the_where_form(masked):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, 10)).astype(np.float32)
    if masked:
        x[7, :] = -np.inf  # this row's gradient is 0 (where), not NaN
    out = log_softmax(x, axis=1)
    ct = rng.standard_normal((128, 10)).astype(np.float32)
    (got,) = [rule(ct, out, x, axis=1) for rule in log_softmax.vjp]
    live = (~(out <= -np.inf)).any(axis=1, keepdims=True)
    want = where(live, ct - exp(out) * sum_(ct, axis=1, keepdims=True), 0.0)
    assert got.dtype == np.float32
    assert np.array_equal(_bits(got), _bits(want))
    if masked:
        assert not got[7].any() and np.isfinite(got).all()


def test_nll_mean_divides_as_before_and_is_nan_when_every_target_is_ignored():
    rng = np.random.default_rng(4)
    logp = np.log(rng.uniform(0.05, 1.0, (128, 10))).astype(np.float32)
    target = rng.integers(0, 10, 128)
    got = nll_loss(logp, target, 1.0, ignore_index=-100, reduction="mean")
    want = torch.nn.functional.nll_loss(torch.from_numpy(logp), torch.from_numpy(target))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want.item(), rtol=1e-6)
    picked = -logp[np.arange(128), target]
    assert _bits(got) == _bits(np.sum(picked * np.float32(1)) / np.float32(128))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0 / 0 is computed without a RuntimeWarning
        empty = nll_loss(logp, np.full(128, 3), 1.0, ignore_index=3, reduction="mean")
    assert np.isnan(empty)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(128, 10), (6, 4, 3), (5,)])
def test_nll_vjp_on_arrays_equals_the_recorded_rule(reduction, shape):
    # arrays take a reshape where the recorded rule takes an expand_dims node
    import funcgrad

    rng = np.random.default_rng(6)
    logp = np.log(rng.uniform(0.05, 1.0, shape))
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    target = rng.integers(0, shape[0] if len(shape) == 1 else shape[1], tshape)
    out = nll_loss(logp, target, 1.0, ignore_index=1, reduction=reduction)
    ct = rng.standard_normal(np.shape(out))
    rule = nll_loss.vjp
    got = rule(ct, out, logp, target, 1.0, ignore_index=1, reduction=reduction)[0]
    leaf_ct, leaf_logp = funcgrad.leaf(ct), funcgrad.leaf(logp)
    want = rule(leaf_ct, out, leaf_logp, target, 1.0, ignore_index=1, reduction=reduction)[0]
    assert type(got) is np.ndarray
    assert np.array_equal(_bits(got), _bits(want.value))


def _special_logp(n, c, dtype, seed):
    rng = np.random.default_rng(seed)
    logp = np.log(rng.uniform(0.05, 1.0, (n, c))).astype(dtype)
    if n > 4:
        logp[0, :] = -np.inf
        logp[1, 0] = np.nan
        logp[2, :] = 0.0
        logp[3, :] = -0.0
        logp[4, 0] = -1e30 if dtype == np.float32 else -1e300
    return logp, rng.integers(0, c, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, c", [(128, 10), (1, 3), (37, 1), (1000, 7)])
def test_nll_short_path_is_the_general_path_bit_for_bit(dtype, n, c, monkeypatch):
    # every target counted with weight 1, reduction mean: the short path (no weights, no
    # one-hot mask) against the general one, values and cotangents of either sign, 0, -0,
    # inf and nan, rows of -inf, nan, 0 and -0
    from funcgrad.ops import loss as loss_ops

    logp, target = _special_logp(n, c, dtype, seed=n)
    opts = {"ignore_index": -100, "reduction": "mean"}
    taken = []
    short = loss_ops._every_target_counted
    monkeypatch.setattr(
        loss_ops, "_every_target_counted", lambda *a: taken.append(short(*a)) or taken[-1]
    )
    out = loss_ops._nll_forward(np, logp, target, 1.0, **opts)
    cts = [np.array(v, dtype) for v in (1.0, -2.5, 0.0, -0.0, np.inf, np.nan, 3e-42)]
    cts.append(dtype(0.75))  # a NumPy scalar cotangent
    grads = [loss_ops._nll_vjp(ct, out, logp, target, 1.0, **opts) for ct in cts]
    assert taken == [True] * (1 + len(cts))
    monkeypatch.setattr(loss_ops, "_every_target_counted", lambda *a: False)
    want = loss_ops._nll_forward(np, logp, target, 1.0, **opts)
    assert type(out) is type(want) and out.dtype == want.dtype
    assert np.array_equal(_bits(out), _bits(want))
    finite, t2 = _special_logp(n, c, dtype, seed=n)  # the same loss over finite rows only
    finite, t2 = (finite[5:], t2[5:]) if n > 5 else (finite, t2)
    monkeypatch.setattr(loss_ops, "_every_target_counted", short)
    got_finite = loss_ops._nll_forward(np, finite, t2, 1.0, **opts)
    monkeypatch.setattr(loss_ops, "_every_target_counted", lambda *a: False)
    assert np.isfinite(got_finite)
    assert _bits(got_finite) == _bits(loss_ops._nll_forward(np, finite, t2, 1.0, **opts))
    for ct, got in zip(cts, grads, strict=True):
        expected = loss_ops._nll_vjp(ct, out, logp, target, 1.0, **opts)
        assert got[1:] == expected[1:] == (None, None)
        assert got[0].dtype == expected[0].dtype and got[0].shape == expected[0].shape
        assert np.array_equal(_bits(got[0]), _bits(expected[0])), ct


@pytest.mark.parametrize(
    "case",
    ["ignored", "weight", "sum", "none", "float64 ct", "int32 target", "3-d", "float16"],
)
def test_nll_short_path_only_where_it_applies(case):
    # the other cases keep the general path and its numbers (against PyTorch's rule)
    from funcgrad.ops import loss as loss_ops

    logp, target = _special_logp(20, 4, np.float32, seed=3)
    logp = logp[5:]
    target = target[5:]
    w, opts, ct = 1.0, {"ignore_index": -100, "reduction": "mean"}, np.array(1.0, np.float32)
    if case == "ignored":
        target[2] = -100
    elif case == "weight":
        w = 2.0
    elif case in ("sum", "none"):
        opts["reduction"] = case
    elif case == "float64 ct":
        ct = np.array(1.0)
    elif case == "int32 target":
        target = target.astype(np.int32)
    elif case == "3-d":
        logp = logp.reshape(15, 2, 2)
        target = target[:, None].repeat(2, 1) % 2
    elif case == "float16":
        logp = logp.astype(np.float16)
        ct = ct.astype(np.float16)
    out = loss_ops._nll_forward(np, logp, target, w, **opts)
    if case == "none":
        ct = np.ones_like(out)
    got = loss_ops._nll_vjp(ct, out, logp, target, w, **opts)[0]
    tl = torch.from_numpy(logp.astype(np.float64)).requires_grad_()
    tw = None if w == 1.0 else torch.full((logp.shape[1],), w, dtype=torch.float64)
    want = torch.nn.functional.nll_loss(
        tl, torch.from_numpy(target.astype(np.int64)), weight=tw, **opts
    )
    want.backward(torch.from_numpy(np.asarray(ct, np.float64)))
    ok = np.isfinite(tl.grad.numpy())
    np.testing.assert_allclose(np.asarray(got, np.float64)[ok], tl.grad.numpy()[ok], rtol=1e-3)
    assert got.dtype == np.result_type(logp.dtype, np.asarray(ct).dtype)
