"""`funcgrad.nn.utils` against `torch.nn.utils`: clipping, parameter vectors, padding and packing."""

from __future__ import annotations

import math

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.nn.utils import rnn as fg_rnn
from tests.references import requires

torch = requires("torch")


def _params_with_grads(lib, seed, dtype):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (5,), (2, 2, 2)]
    params = []
    for shape in shapes:
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape), dtype=dtype))
        p.grad = lib.tensor(rng.standard_normal(shape) * 3, dtype=dtype)
        params.append(p)
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0, 0.5])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e3])
@pytest.mark.parametrize("dtypes", [(fg.float64, torch.float64), (fg.float32, torch.float32)])
def test_clip_grad_norm(norm_type, max_norm, dtypes):
    ours = _params_with_grads(fg, 0, dtypes[0])
    theirs = _params_with_grads(torch, 0, dtypes[1])
    n_ours = fg.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    n_theirs = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    tol = {"rtol": 1e-12} if dtypes[0] == fg.float64 else {"rtol": 1e-5}
    assert n_ours.dtype == dtypes[0]
    np.testing.assert_allclose(float(n_ours), float(n_theirs), **tol)
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), **tol)


def test_clip_grad_norm_edges():
    assert float(fg.nn.utils.clip_grad_norm_([fg.nn.Parameter(fg.ones(2))], 1.0)) == 0.0
    p = fg.nn.Parameter(fg.ones(2))
    p.grad = fg.tensor([math.inf, 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        fg.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    single = fg.nn.Parameter(fg.ones(4))
    single.grad = fg.full((4,), 3.0)
    assert float(fg.nn.utils.clip_grad_norm_(single, 1.0)) == pytest.approx(6.0)
    gen = (q for q in [single])  # a generator is consumed once, as PyTorch's
    fg.nn.utils.clip_grad_norm_(gen, 1.0)
    with pytest.warns(FutureWarning):
        fg.nn.utils.clip_grad_norm([single], 1.0)


def test_clip_grad_value():
    ours = _params_with_grads(fg, 1, fg.float64)
    theirs = _params_with_grads(torch, 1, torch.float64)
    fg.nn.utils.clip_grad_value_(ours, 0.7)
    torch.nn.utils.clip_grad_value_(theirs, 0.7)
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_parameters_to_vector_and_back():
    torch.manual_seed(0)
    t = torch.nn.Linear(3, 2)
    f = fg.nn.Linear(3, 2)
    f.load_state_dict(t.state_dict())
    tv = torch.nn.utils.parameters_to_vector(t.parameters())
    fv = fg.nn.utils.parameters_to_vector(f.parameters())
    np.testing.assert_array_equal(fv.detach().numpy(), tv.detach().numpy())
    (fv * fg.arange(8.0)).sum().backward()  # differentiable
    np.testing.assert_array_equal(f.weight.grad.numpy().ravel(), np.arange(6.0))
    fg.nn.utils.vector_to_parameters(fg.arange(8.0), f.parameters())
    torch.nn.utils.vector_to_parameters(torch.arange(8.0), t.parameters())
    np.testing.assert_array_equal(f.weight.detach().numpy(), t.weight.detach().numpy())
    np.testing.assert_array_equal(f.bias.detach().numpy(), t.bias.detach().numpy())
    assert f.weight.requires_grad and f.weight.is_leaf
    with pytest.raises(TypeError, match="expected torch.Tensor, but got"):
        fg.nn.utils.vector_to_parameters([1.0], f.parameters())


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    rng = np.random.default_rng(0)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 1, 4)]
    fs = [fg.tensor(s, requires_grad=True) for s in seqs]
    ts = [torch.tensor(s, requires_grad=True) for s in seqs]
    fo = fg_rnn.pad_sequence(fs, batch_first, -1.0, padding_side)
    to = torch.nn.utils.rnn.pad_sequence(ts, batch_first, -1.0, padding_side)
    np.testing.assert_array_equal(fo.detach().numpy(), to.detach().numpy())
    ct = rng.standard_normal(tuple(to.shape))
    (fo * fg.tensor(ct)).sum().backward()
    (to * torch.tensor(ct)).sum().backward()
    for a, b in zip(fs, ts, strict=True):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_unpack(enforce_sorted, batch_first):
    rng = np.random.default_rng(1)
    lengths = [4, 2, 2, 1] if enforce_sorted else [2, 4, 1, 2]
    shape = (4, 4, 3) if batch_first else (4, 4, 3)
    x = rng.standard_normal(shape)
    fp = fg_rnn.pack_padded_sequence(fg.tensor(x), lengths, batch_first, enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(
        torch.tensor(x), lengths, batch_first, enforce_sorted
    )
    np.testing.assert_array_equal(fp.data.numpy(), tp.data.numpy())
    np.testing.assert_array_equal(fp.batch_sizes.numpy(), tp.batch_sizes.numpy())
    for a, b in (
        (fp.sorted_indices, tp.sorted_indices),
        (fp.unsorted_indices, tp.unsorted_indices),
    ):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    fu, fl = fg_rnn.pad_packed_sequence(fp, batch_first, 9.0, total_length=6)
    tu, tl = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first, 9.0, total_length=6)
    np.testing.assert_array_equal(fu.numpy(), tu.numpy())
    np.testing.assert_array_equal(fl.numpy(), tl.numpy())
    seqs = [fg.tensor(x[:n, 0]) for n in (3, 1, 2)]
    packed = fg_rnn.pack_sequence(seqs, enforce_sorted=False)
    for a, b in zip(fg_rnn.unpack_sequence(packed), seqs, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_pack_errors_match_pytorch():
    x = np.zeros((3, 2, 1))
    for lengths, kw in (([1, 3], {}), ([3, 0], {})):
        with pytest.raises(RuntimeError) as ours:
            fg_rnn.pack_padded_sequence(fg.tensor(x), lengths, **kw)
        with pytest.raises(RuntimeError) as theirs:
            torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), lengths, **kw)
        assert str(ours.value) == str(theirs.value)


def test_length_beyond_the_padded_input_is_refused():
    # PyTorch reads past the input here; funcgrad refuses
    with pytest.raises(RuntimeError, match="Expected sequence length to be at most 3, but got 4"):
        fg_rnn.pack_padded_sequence(fg.zeros(3, 2, 1), [4, 1])
