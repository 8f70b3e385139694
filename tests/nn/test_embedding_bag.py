"""`nn.EmbeddingBag` and `F.embedding_bag` against PyTorch 2.13: values, gradients, options, errors.

PyTorch's text classification tutorial averages each text's word vectors with
`nn.EmbeddingBag(vocab_size, embed_dim)` over a 1-D batch of tokens and its offsets.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.nn.functional as F
from funcgrad.errors import OpError
from tests.gpu.stand_in import one_gpu as one_gpu  # noqa: F401  (the fixture `gpu`)
from tests.references import requires

torch = requires("torch")

RNG = np.random.default_rng(7)
W = RNG.standard_normal((9, 4)).astype(np.float32)
FLAT = np.array([0, 2, 2, 5, 1, 4, 3, 8, 2, 6])

CASES = {
    "2d": dict(input=RNG.integers(0, 9, (3, 5))),
    "offsets": dict(input=FLAT, offsets=np.array([0, 3, 3, 7])),  # an empty bag
    "last_offset": dict(input=FLAT, offsets=np.array([0, 4, 4, 10]), include_last_offset=True),
    "padding": dict(input=FLAT, offsets=np.array([0, 2, 5]), padding_idx=2),
    "only_padding": dict(input=np.array([2, 2, 1]), offsets=np.array([0, 2]), padding_idx=2),
}


def _run(lib, case, mode, weights=None, dtype=np.float32):
    F_ = torch.nn.functional if lib is torch else F
    w = lib.tensor(W.astype(dtype), requires_grad=True)
    kw = {k: v for k, v in case.items() if k not in ("input", "offsets")}
    offsets = case.get("offsets")
    psw = None
    if weights is not None:
        psw = lib.tensor(weights.astype(dtype), requires_grad=True)
    out = F_.embedding_bag(
        lib.tensor(case["input"]),
        w,
        None if offsets is None else lib.tensor(offsets),
        mode=mode,
        per_sample_weights=psw,
        **kw,
    )
    ct = np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)).astype(dtype)
    out.backward(lib.tensor(ct))
    grads = [w.grad.numpy()] + ([psw.grad.numpy()] if psw is not None else [])
    return (
        out.detach().numpy(),
        grads,
        type(out.grad_fn).__name__ if lib is torch else out.grad_fn.name(),
    )


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", list(CASES))
def test_values_and_gradients_are_pytorchs(case, mode):
    theirs, their_grads, their_fn = _run(torch, CASES[case], mode)
    ours, our_grads, our_fn = _run(fg, CASES[case], mode)
    assert our_fn == their_fn == "EmbeddingBagBackward0"
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    for a, b in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["2d", "offsets", "padding"])
def test_per_sample_weights_and_their_gradient_are_pytorchs(case):
    weights = RNG.standard_normal(CASES[case]["input"].shape)
    for dtype in (np.float32, np.float64):
        theirs, their_grads, _ = _run(torch, CASES[case], "sum", weights, dtype)
        ours, our_grads, _ = _run(fg, CASES[case], "sum", weights, dtype)
        assert ours.dtype == theirs.dtype == dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
        assert len(our_grads) == len(their_grads) == 2
        for a, b in zip(our_grads, their_grads, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_max_norm_renormalizes_the_rows_used_in_place():
    tw, fw = torch.tensor(W * 3), fg.tensor(W * 3)
    inp, off = np.array([1, 3, 3, 7]), np.array([0, 1])
    t = torch.nn.functional.embedding_bag(torch.tensor(inp), tw, torch.tensor(off), max_norm=1.0)
    f = F.embedding_bag(fg.tensor(inp), fw, fg.tensor(off), max_norm=1.0)
    np.testing.assert_allclose(f.numpy(), t.numpy(), rtol=1e-6)
    np.testing.assert_allclose(fw.numpy(), tw.numpy(), rtol=1e-6)  # rows 1, 3, 7 scaled
    assert not np.allclose(fw.numpy()[1], W[1] * 3)


ERRORS = {
    "2d with offsets": dict(input=np.zeros((2, 3), np.int64), offsets=np.array([0, 1])),
    "1d without offsets": dict(input=np.array([0, 1])),
    "offsets not from 0": dict(input=np.array([0, 1, 2]), offsets=np.array([1, 2])),
    "weights with mean": dict(
        input=np.array([0, 1]), offsets=np.array([0]), per_sample_weights=np.ones(2), mode="mean"
    ),
    "unknown mode": dict(input=np.array([0, 1]), offsets=np.array([0]), mode="median"),
    "float indices": dict(input=np.array([0.0, 1.0]), offsets=np.array([0])),
    "max by frequency": dict(
        input=np.array([0, 1]), offsets=np.array([0]), mode="max", scale_grad_by_freq=True
    ),
}

# NOTE: where PyTorch 2.13 gives inconsistent numbers, funcgrad refuses instead (OpError):
# scale_grad_by_freq (rows looked up once got a third of their gradient) and a last offset
# before the input's end with include_last_offset (a mean divides by the entries to the end).
REFUSED = {
    "by frequency": dict(input=FLAT, offsets=np.array([0, 6]), scale_grad_by_freq=True, mode="sum"),
    "entries past the last offset": dict(
        input=FLAT, offsets=np.array([0, 4, 9]), include_last_offset=True, mode="mean"
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_pytorch_computes_inconsistently_is_refused(name):
    kw = dict(REFUSED[name])
    inp, off = kw.pop("input"), kw.pop("offsets")
    with pytest.raises(OpError, match="embedding_bag"):
        F.embedding_bag(fg.tensor(inp), fg.tensor(W), fg.tensor(off), **kw)
    # PyTorch's numbers, for the record: not what the per-row counts or bag sizes give
    w = torch.eye(9, requires_grad=True)
    out = torch.nn.functional.embedding_bag(torch.tensor(inp), w, torch.tensor(off), **kw)
    if name == "by frequency":
        out.backward(torch.ones_like(out))
        assert w.grad[3].sum().item() != w.grad[0].sum().item()  # both rows looked up once
    else:
        assert abs(out[-1].sum().item() - 1.0) > 0.1  # a mean of one-hot rows sums to 1


@pytest.mark.parametrize("name", list(ERRORS))
def test_bad_arguments_raise_as_in_pytorch_naming_embedding_bag(name):
    kw = dict(ERRORS[name])
    inp, off = kw.pop("input"), kw.pop("offsets", None)
    psw = kw.pop("per_sample_weights", None)

    def call(lib, F_):
        return F_.embedding_bag(
            lib.tensor(inp),
            lib.tensor(W),
            None if off is None else lib.tensor(off),
            per_sample_weights=None if psw is None else lib.tensor(psw.astype(np.float32)),
            **kw,
        )

    with pytest.raises((RuntimeError, ValueError, NotImplementedError)):
        call(torch, torch.nn.functional)
    with pytest.raises(OpError, match="embedding_bag"):
        call(fg, F)


def test_the_module_is_pytorchs():
    torch.manual_seed(0)
    for kw in ({}, {"mode": "sum", "padding_idx": -1, "max_norm": 1.0}, {"mode": "max"}):
        theirs = torch.nn.EmbeddingBag(10, 3, **kw)
        ours = fg.nn.EmbeddingBag(10, 3, **kw)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
        if "padding_idx" in kw:
            assert not ours.weight.detach().numpy()[9].any()
        ours.load_state_dict({"weight": fg.tensor(theirs.weight.detach().numpy())})
        inp, off = np.array([1, 2, 4, 5, 4, 9]), np.array([0, 2, 2])
        t = theirs(torch.tensor(inp), torch.tensor(off))
        f = ours(fg.tensor(inp), fg.tensor(off))
        # atol: max_norm's rescaled rows may differ from PyTorch's in their last bit
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=3e-7)
        t.sum().backward()
        f.sum().backward()
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6)


def test_from_pretrained_freezes_unless_asked():
    w = fg.tensor(W)
    assert fg.nn.EmbeddingBag.from_pretrained(w).weight.requires_grad is False
    bag = fg.nn.EmbeddingBag.from_pretrained(w, freeze=False, mode="sum")
    assert bag.weight.requires_grad is True and bag.mode == "sum"
    out = bag(fg.tensor([[0, 1], [2, 2]]))
    np.testing.assert_allclose(out.detach().numpy(), [W[0] + W[1], 2 * W[2]], rtol=1e-6)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_on_a_gpu_the_bags_stay_there(mode, gpu, monkeypatch):
    """With the CuPy stand-in (tests/gpu/stand_in.py): GPU indices, offsets and weight.

    The forward only: with the stand-in, `fg.grad` seeds its cotangent on the host even for
    `(w * 2).sum()`, so a backward through the stand-in tests the core, not this function.
    """
    from tests.gpu.stand_in import GpuArray, on_gpu

    def scatter_add(a, slices, value):  # cupyx.scatter_add (cupyx/_scatter.py): add.at on a
        np.add.at(a.view(np.ndarray), tuple(np.asarray(s) for s in slices), np.asarray(value))

    # NOTE: the stand-in's cupyx lacks scatter_add, and its zeros are NumPy's (on the host);
    # funcgrad's scatter_add calls both on CuPy
    monkeypatch.setattr(sys.modules["cupyx"], "scatter_add", scatter_add, raising=False)
    monkeypatch.setattr(gpu, "zeros", lambda shape, dtype=float: on_gpu(np.zeros(shape, dtype)))

    inp, off = CASES["offsets"]["input"], CASES["offsets"]["offsets"]
    psw = RNG.standard_normal(inp.shape).astype(np.float32) if mode == "sum" else None

    def f(w, weights):
        return F.embedding_bag(on_gpu(inp), w, on_gpu(off), mode=mode, per_sample_weights=weights)

    expected = F.embedding_bag(inp, W, off, mode=mode, per_sample_weights=psw)
    got = f(on_gpu(W), None if psw is None else on_gpu(psw))
    assert isinstance(got, GpuArray)
    np.testing.assert_allclose(got.view(np.ndarray), expected, rtol=1e-6)


NONFINITE = {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}


@pytest.mark.parametrize("mode, weighted", [("sum", False), ("sum", True), ("mean", False)])
@pytest.mark.parametrize("bad", list(NONFINITE))
def test_a_non_finite_row_stays_in_its_own_bags(mode, bad, weighted):
    """Each bag sums its own rows only: an inf/NaN row does not turn other bags into NaN.

    (A 0/1 bag matrix times the rows gave 0 * inf = NaN in every bag; the reviewer's
    /tmp/s11/review/embedding_bag_inf.py.)
    """
    w = W.copy()
    w[5, 1] = NONFINITE[bad]  # row 5 is in bag 1 of FLAT's bags below (and nowhere else)
    w[7, :] = NONFINITE[bad]  # row 7 is looked up by no bag: it must not matter at all
    inp, off = FLAT, np.array([0, 3, 3, 7])
    psw = RNG.standard_normal(inp.shape).astype(np.float32) if weighted else None
    results = []
    for lib, F_ in ((torch, torch.nn.functional), (fg, F)):
        tw = lib.tensor(w, requires_grad=True)
        tp = lib.tensor(psw, requires_grad=True) if weighted else None
        out = F_.embedding_bag(
            lib.tensor(inp), tw, lib.tensor(off), mode=mode, per_sample_weights=tp
        )
        ct = np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)).astype(np.float32)
        out.backward(lib.tensor(ct))
        grads = [tw.grad.numpy()] + ([tp.grad.numpy()] if weighted else [])
        results.append((out.detach().numpy(), grads))
    (theirs, their_grads), (ours, our_grads) = results
    assert not np.isfinite(theirs[2]).all() and np.isfinite(theirs[[0, 1, 3]]).all()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)  # equal_nan: NaN where theirs
    for a, b in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_many_bags_do_not_make_a_bags_by_entries_matrix():
    """100,000 entries in 50,000 bags: a dense bag matrix would be 20 GB in float32."""
    n = 100_000
    inp = np.arange(n) % 9
    off = np.arange(0, n, 2)
    w = fg.tensor(W, requires_grad=True)
    out = F.embedding_bag(fg.tensor(inp), w, fg.tensor(off), mode="mean")
    out.sum().backward()
    expected = (W[inp[0::2]] + W[inp[1::2]]) / 2
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(
        w.grad.numpy(), np.bincount(inp, minlength=9)[:, None] / 2 * np.ones(4)
    )


@pytest.mark.parametrize(
    "column",
    [
        [np.nan, 0.0],  # a NaN first stays
        [0.0, np.nan],  # a NaN later is passed over
        [0.0, np.nan, 5.0],
        [np.nan, np.nan, -1.0],
        [-np.inf, np.nan],
        [1.0, 3.0, 3.0, np.inf, np.inf],  # ties: the first
    ],
)
def test_max_of_a_bag_with_nan_or_inf_is_pytorchs(column):
    w = np.array([column, [2.0] * len(column)], np.float32).T.copy()  # a second, finite column
    results = []
    for lib, F_ in ((torch, torch.nn.functional), (fg, F)):
        tw = lib.tensor(w, requires_grad=True)
        out = F_.embedding_bag(
            lib.tensor(np.arange(len(column))), tw, lib.tensor(np.array([0])), mode="max"
        )
        out.sum().backward()
        results.append((out.detach().numpy(), tw.grad.numpy()))
    (theirs, their_grad), (ours, our_grad) = results
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(our_grad, their_grad)
