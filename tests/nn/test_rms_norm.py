"""`F.rms_norm` and `nn.RMSNorm` against PyTorch 2.13: values, gradients, the default eps, errors."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.nn.functional as F
from funcgrad.errors import OpError
from tests.references import requires

torch = requires("torch")

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_values_and_gradients_are_pytorchs(dtype, shape, affine, eps):
    x = (RNG.standard_normal((5, *shape)) * 3).astype(dtype)
    w = RNG.standard_normal(shape).astype(dtype)
    ct = RNG.standard_normal(x.shape).astype(dtype)
    results = []
    for lib, F_ in ((torch, torch.nn.functional), (fg, F)):
        tx = lib.tensor(x, requires_grad=True)
        tw = lib.tensor(w, requires_grad=True) if affine else None
        out = F_.rms_norm(tx, list(shape), tw, eps)
        out.backward(lib.tensor(ct))
        name = type(out.grad_fn).__name__ if lib is torch else out.grad_fn.name()
        grads = [tx.grad.numpy()] + ([tw.grad.numpy()] if affine else [])
        results.append((out.detach().numpy(), grads, name))
    (theirs, their_grads, their_fn), (ours, our_grads, our_fn) = results
    assert our_fn == their_fn == "MulBackward0"
    assert ours.dtype == theirs.dtype == dtype
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    for a, b in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=10 * tol, atol=10 * tol)


def test_the_default_eps_is_the_dtypes_and_keeps_a_zero_row_finite():
    x = np.zeros((2, 3), np.float32)
    for lib, F_ in ((torch, torch.nn.functional), (fg, F)):
        out = F_.rms_norm(lib.tensor(x), (3,))
        assert np.isfinite(out.numpy()).all() and not out.numpy().any()
    y = np.full((1, 2), 1e-4, np.float32)  # mean square 1e-8 < float32 eps 1.19e-7: eps decides
    ours = F.rms_norm(fg.tensor(y), (2,)).numpy()
    np.testing.assert_allclose(ours, torch.nn.functional.rms_norm(torch.tensor(y), (2,)).numpy())
    assert ours[0, 0] < 0.5


def test_a_wrong_shape_raises_naming_rms_norm_as_pytorch_does():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(RuntimeError, match="normalized_shape"):
        torch.nn.functional.rms_norm(torch.tensor(x), [4])
    with pytest.raises(OpError, match=r"rms_norm: Given normalized_shape=\[4\]"):
        F.rms_norm(fg.tensor(x), [4])


@pytest.mark.parametrize("kw", [{}, {"eps": 1e-2}, {"elementwise_affine": False}])
def test_the_module_is_pytorchs(kw):
    theirs, ours = torch.nn.RMSNorm([3, 4], **kw), fg.nn.RMSNorm([3, 4], **kw)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if "elementwise_affine" not in kw:
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(RNG.standard_normal((3, 4)).astype(np.float32)))
        ours.load_state_dict({"weight": fg.tensor(theirs.weight.detach().numpy())})
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    t, f = theirs(torch.tensor(x)), ours(fg.tensor(x))
    np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-6)
    if "elementwise_affine" not in kw:
        t.sum().backward()
        f.sum().backward()
        np.testing.assert_allclose(
            ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("scale", [1.0, 30.0, 300.0])  # 300: x * x overflows float16
@pytest.mark.parametrize("affine", [False, True])
def test_float16_is_computed_in_float32_as_pytorch_does(scale, affine):
    rng = np.random.default_rng(int(scale) + affine)
    x = (rng.standard_normal((6, 64)) * scale).astype(np.float16)
    w = rng.standard_normal(64).astype(np.float16)
    ct = rng.standard_normal(x.shape).astype(np.float16)
    results = []
    for lib, F_ in ((torch, torch.nn.functional), (fg, F)):
        tx = lib.tensor(x, requires_grad=True)
        tw = lib.tensor(w, requires_grad=True) if affine else None
        out = F_.rms_norm(tx, (64,), tw)
        out.backward(lib.tensor(ct))
        name = type(out.grad_fn).__name__ if lib is torch else out.grad_fn.name()
        grads = [tx.grad.numpy()] + ([tw.grad.numpy()] if affine else [])
        results.append((out.detach().numpy(), grads, name))
    (theirs, their_grads, their_fn), (ours, our_grads, our_fn) = results
    assert our_fn == their_fn == "ToCopyBackward0"
    assert ours.dtype == theirs.dtype == np.float16
    assert np.isfinite(ours).all()
    np.testing.assert_array_equal(ours, theirs)  # the same float32 steps, the same rounding
    for a, b in zip(our_grads, their_grads, strict=True):
        assert a.dtype == np.float16
        np.testing.assert_allclose(a.astype(np.float64), b, rtol=2e-3, atol=2e-3 * np.abs(b).max())
    # and within float16's rounding of the float64 result
    x64 = x.astype(np.float64)
    exact = x64 / np.sqrt((x64**2).mean(-1, keepdims=True) + np.finfo(np.float32).eps)
    exact = exact * w if affine else exact
    np.testing.assert_allclose(ours.astype(np.float64), exact, rtol=2e-3, atol=1e-3)


def test_float16_rows_of_large_and_tiny_values():
    big = np.full((1, 64), 300.0, np.float16)  # before: 300 * 300 = inf in float16, so zeros
    tiny = np.full((1, 2), 1e-4, np.float16)  # the default eps is float32's, not float16's
    for x, shape in ((big, (64,)), (tiny, (2,))):
        theirs = torch.nn.functional.rms_norm(torch.tensor(x), shape).numpy()
        ours = F.rms_norm(fg.tensor(x), shape).numpy()
        np.testing.assert_array_equal(ours, theirs)
    assert (F.rms_norm(fg.tensor(big), (64,)).numpy() == 1).all()
    assert 0.25 < F.rms_norm(fg.tensor(tiny), (2,)).numpy()[0, 0] < 0.3


def test_half_module_matches_pytorch():
    x = (np.random.default_rng(7).standard_normal((3, 8)) * 100).astype(np.float16)
    theirs = torch.nn.RMSNorm(8).half()
    ours = fg.nn.RMSNorm(8).half()
    with torch.no_grad():
        theirs.weight.mul_(torch.linspace(0.5, 2, 8, dtype=torch.float16))
    with fg.no_grad():
        ours.weight.copy_(fg.tensor(theirs.weight.detach().numpy()))
    out_t, out_f = theirs(torch.tensor(x)), ours(fg.tensor(x))
    assert out_f.dtype == fg.float16
    np.testing.assert_array_equal(out_f.detach().numpy(), out_t.detach().numpy())
