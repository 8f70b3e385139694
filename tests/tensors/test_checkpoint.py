"""`funcgrad.utils.checkpoint` (PyTorch's activation checkpointing) and post-accumulate-grad hooks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as torch
from funcgrad.graph import toposort
from funcgrad.utils.checkpoint import checkpoint, checkpoint_sequential
from tests.references import requires


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))


def _grads(model, x):
    return [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in model.parameters()]


def _clear(model, x):
    x.grad = None
    for p in model.parameters():
        p.grad = None


def test_gradients_reach_arguments_and_parameters_unchanged():
    model = _model()
    x = torch.randn(5, 4, requires_grad=True)
    (model(x) ** 2).sum().backward()
    expected = _grads(model, x)
    _clear(model, x)
    y = checkpoint(model, x, use_reentrant=False)
    assert y.grad_fn.name() == "CheckpointCallBackward0"
    (y**2).sum().backward()
    for got, want in zip(_grads(model, x), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_same_as_pytorchs_checkpoint():
    real = requires("torch")
    model = _model()
    twin = real.nn.Sequential(real.nn.Linear(4, 8), real.nn.Tanh(), real.nn.Linear(8, 3))
    with real.no_grad():
        for p, q in zip(twin.parameters(), model.parameters(), strict=True):
            p.copy_(real.tensor(q.detach().numpy()))
    data = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    x = torch.tensor(data, requires_grad=True)
    tx = real.tensor(data, requires_grad=True)
    checkpoint(model, x, use_reentrant=False).sum().backward()
    real.utils.checkpoint.checkpoint(twin, tx, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5)
    for p, q in zip(model.parameters(), twin.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5)


def test_no_intermediate_is_kept():
    model = _model()
    x = torch.randn(5, 4, requires_grad=True)
    y = checkpoint(model, x, use_reentrant=False)
    kept = toposort(y._node)
    # the checkpointed output, and what the function started from: x and the four parameters
    assert len(kept) == 1 + 5
    assert {id(n) for n in kept[:-1]} == {id(x._node)} | {id(p._node) for p in model.parameters()}


def _noisy(x):
    mask = (torch.rand(*x.shape, dtype=torch.float64) > 0.5).double()
    return (x.tanh() * mask * 2).sum()


def test_random_numbers_are_replayed_in_the_recomputation():
    x = torch.linspace(-1, 1, 64, dtype=torch.float64, requires_grad=True)
    torch.manual_seed(7)
    _noisy(x).backward()
    expected = x.grad.numpy().copy()
    after = torch.rand(3)
    x.grad = None
    torch.manual_seed(7)
    checkpoint(_noisy, x, use_reentrant=False).backward()
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    # and the recomputation did not move the generator on
    np.testing.assert_array_equal(torch.rand(3).numpy(), after.numpy())
    x.grad = None
    torch.manual_seed(7)
    checkpoint(_noisy, x, use_reentrant=False, preserve_rng_state=False).backward()
    assert not np.array_equal(x.grad.numpy(), expected)  # new noise, as documented


def test_second_order_through_a_checkpoint():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = checkpoint(lambda v: (v**3).sum(), x, use_reentrant=False)
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert g.tolist() == [3.0, 12.0] and h.tolist() == [6.0, 12.0]


def test_several_outputs_keyword_arguments_and_other_values():
    a = torch.tensor([1.0, 2.0], requires_grad=True)

    def f(x, *, scale):
        return x * scale, {"n": 3, "s": (x * x).sum()}, torch.tensor([1, 2])

    first, rest, ints = checkpoint(f, a, scale=2.0, use_reentrant=False)
    assert rest["n"] == 3 and ints.tolist() == [1, 2] and not ints.requires_grad
    (first.sum() + rest["s"]).backward()
    assert a.grad.tolist() == [4.0, 6.0]
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        checkpoint(f, a, scale=2.0, use_reentrant=True)


def test_reentrant_variant_gives_no_gradient_without_an_input_that_requires_grad():
    model = _model()
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = checkpoint(model, torch.ones(2, 4, requires_grad=True))
    assert y.requires_grad
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(model, torch.ones(2, 4), use_reentrant=True)
    assert not y.requires_grad  # as in PyTorch: the parameters get no gradient
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint(model, torch.ones(2, 4), use_reentrant=False)
    assert y.requires_grad  # the non-reentrant variant reaches the parameters


def test_under_no_grad_it_just_runs():
    model = _model()
    with torch.no_grad():
        y = checkpoint(model, torch.ones(2, 4, requires_grad=True), use_reentrant=False)
    assert not y.requires_grad and y.shape == (2, 3)


def test_checkpoint_sequential_matches_the_plain_run():
    model = _model()
    x = torch.randn(6, 4, requires_grad=True)
    model(x).sum().backward()
    expected = _grads(model, x)
    _clear(model, x)
    out = checkpoint_sequential(model, 2, x, use_reentrant=False)
    out.sum().backward()
    for got, want in zip(_grads(model, x), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


# --- post-accumulate-grad hooks ---------------------------------------------------------------


def test_post_accumulate_grad_hooks_as_in_pytorch():
    real = requires("torch")
    seen, their_seen = [], []
    w = torch.ones(2, requires_grad=True)
    tw = real.ones(2, requires_grad=True)
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    their = tw.register_post_accumulate_grad_hook(lambda t: their_seen.append(t.grad.tolist()))
    for _ in range(2):
        (w * 3).sum().backward()
        (tw * 3).sum().backward()
    assert seen == their_seen == [[3.0, 3.0], [6.0, 6.0]]
    handle.remove()
    their.remove()
    (w * 3).sum().backward()
    assert len(seen) == 2
    with pytest.raises(RuntimeError, match="non-leaf"):
        (w * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_a_post_accumulate_hook_can_step_and_clear_like_an_optimizer_in_backward():
    w = torch.tensor([1.0, 2.0], requires_grad=True)

    def sgd_in_backward(t):
        with torch.no_grad():
            t.sub_(0.5 * t.grad)
        t.grad = None

    w.register_post_accumulate_grad_hook(sgd_in_backward)
    (w * w).sum().backward()
    assert w.tolist() == [0.0, 0.0] and w.grad is None
