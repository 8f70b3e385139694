"""`funcgrad.autograd.forward_ad` (dual tensors) against `torch.autograd.forward_ad`; `autograd.graph`."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.autograd.forward_ad as fwAD
from tests.references import requires

rng = np.random.default_rng(0)
X, Y, V, W = (rng.standard_normal(3) for _ in range(4))


def f(a, b):
    return (a.sin() * b + a * a).exp() / (b * b + 3) + (a @ b)


def test_tangents_match_pytorchs():
    torch = requires("torch")
    tAD = torch.autograd.forward_ad
    with fwAD.dual_level():
        out = f(
            fwAD.make_dual(fg.tensor(X), fg.tensor(V)), fwAD.make_dual(fg.tensor(Y), fg.tensor(W))
        )
        primal, tangent = fwAD.unpack_dual(out)
    with tAD.dual_level():
        tout = f(
            tAD.make_dual(torch.tensor(X), torch.tensor(V)),
            tAD.make_dual(torch.tensor(Y), torch.tensor(W)),
        )
        tprimal, ttangent = tAD.unpack_dual(tout)
    np.testing.assert_allclose(primal.numpy(), tprimal.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), ttangent.numpy(), rtol=1e-12)
    assert not primal.requires_grad  # as PyTorch's: the primal of values that need no grad


def test_the_tangent_is_funcgrad_jvps():
    x, v = fg.tensor(X), fg.tensor(V)
    _, expected = fg.func.jvp(lambda a: (a * a).tanh().sum(), (x,), (v,))
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        result = fwAD.unpack_dual((d * d).tanh().sum())
    assert isinstance(result, fwAD.UnpackedDualTensor)
    np.testing.assert_allclose(result.tangent.numpy(), expected.numpy(), rtol=1e-12)


def test_tensors_without_a_tangent_and_outside_a_level():
    x = fg.tensor(X)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, fg.tensor(V))
        assert fwAD.unpack_dual(x * 2).tangent is None  # not computed from a dual tensor
        assert fwAD.unpack_dual(3.0).tangent is None
        kept = d * 2
    assert fwAD.unpack_dual(kept).tangent is None  # the level is over: tangents forgotten


def test_a_primal_that_requires_grad_stays_differentiable():
    x = fg.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        primal, tangent = fwAD.unpack_dual((fwAD.make_dual(x, fg.tensor(V)) ** 2).sum())
    np.testing.assert_allclose(tangent.item(), float(2 * X @ V), rtol=1e-12)
    primal.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * X, rtol=1e-12)


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="enter a dual level"):
        fwAD.make_dual(fg.ones(2), fg.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(fg.ones(2), fg.ones(3))
        with pytest.raises(RuntimeError, match="floating point"):
            fwAD.make_dual(fg.tensor([1, 2]), fg.tensor([1, 2]))


def test_saved_tensor_hooks_are_refused_by_design():
    graph = fg.autograd.graph
    assert not hasattr(graph, "saved_tensors_hooks")
    with pytest.raises(fg.NotProvidedError, match="saves no tensors"):
        graph.saved_tensors_hooks  # noqa: B018
    with pytest.raises(fg.NotProvidedError, match="checkpoint"):
        graph.save_on_cpu  # noqa: B018
