"""`functional_call`: a module's forward as a function of a dict of parameters.

Against `torch.func.functional_call` with `torch.func.grad` (gradients with
respect to the parameter dict), and through funcgrad's transforms
(`grad`, `hessian`, `jvp`, `vmap`-free per-example gradients by a loop),
with the module left unchanged afterwards.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.nn.utils.stateless import functional_call
from tests.nn.modcheck import copy_state
from tests.references import requires

torch = requires("torch")


def _net(nn):
    return nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))


def _pair(seed=0):
    torch.manual_seed(seed)
    t = _net(torch.nn).double()
    f = _net(fg.nn).double()
    copy_state(t, f)
    return t, f


def test_grad_of_a_loss_matches_torch_func():
    t, f = _pair()
    x = np.random.default_rng(0).standard_normal((4, 3))
    y = np.random.default_rng(1).standard_normal((4, 2))

    def t_loss(params):
        out = torch.func.functional_call(t, params, (torch.tensor(x),))
        return ((out - torch.tensor(y)) ** 2).mean()

    t_params = {k: v.detach() for k, v in t.named_parameters()}
    t_grads = torch.func.grad(t_loss)(t_params)

    def f_loss(params):
        out = functional_call(f, params, (fg.tensor(x),))
        return ((out - fg.tensor(y)) ** 2).mean()

    f_params = {k: v.detach().numpy() for k, v in f.named_parameters()}
    f_grads = fg.grad(f_loss)(f_params)
    assert sorted(f_grads) == sorted(t_grads)
    for k in t_grads:
        assert isinstance(f_grads[k], np.ndarray)
        np.testing.assert_allclose(f_grads[k], t_grads[k].numpy(), rtol=1e-10, atol=1e-12)
    # the module is unchanged and works as before
    assert all(isinstance(p, fg.nn.Parameter) for p in f.parameters())
    np.testing.assert_allclose(
        f(fg.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-12
    )


def test_hessian_and_jvp_through_a_module():
    t, f = _pair(1)
    x = np.random.default_rng(2).standard_normal((2, 3))
    w = f[2].weight.detach().numpy()

    def f_out(weight):
        return functional_call(f, {"2.weight": weight}, fg.tensor(x)).sum()

    def t_out(weight):
        return torch.func.functional_call(t, {"2.weight": weight}, torch.tensor(x)).sum()

    H = fg.hessian(f_out)(w)
    tH = torch.func.hessian(t_out)(torch.tensor(w))
    np.testing.assert_allclose(H, tH.detach().numpy(), atol=1e-12)
    v = np.ones_like(w)
    _, tangent = fg.jvp(f_out, (w,), (v,))
    _, t_tangent = torch.func.jvp(t_out, (torch.tensor(w),), (torch.tensor(v),))
    np.testing.assert_allclose(tangent, t_tangent.detach().numpy(), rtol=1e-10)


def test_buffers_kwargs_and_tuples_of_dicts():
    m = fg.nn.BatchNorm1d(3) if hasattr(fg.nn.functional, "batch_norm") else None
    lin = fg.nn.Linear(2, 2).double()
    lin.register_buffer("shift", fg.zeros(2, dtype=fg.float64))

    class WithKw(fg.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lin

        def forward(self, x, *, scale=1.0):
            return (self.lin(x) + self.lin.shift) * scale

    mod = WithKw()
    x = fg.ones(1, 2, dtype=fg.float64)
    params = {"lin.weight": np.eye(2), "lin.bias": np.zeros(2)}
    out = functional_call(mod, (params, {"lin.shift": np.array([1.0, 2.0])}), (x,), {"scale": 2.0})
    np.testing.assert_allclose(out.detach().numpy(), [[4.0, 6.0]])
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(mod, (params, params), (x,))
    with pytest.raises(RuntimeError, match="Missing key"):
        functional_call(mod, params, (x,), strict=True)
    del m


def test_tied_weights():
    class Tied(fg.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = fg.nn.Linear(2, 2, bias=False)
            self.b = fg.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m = Tied()
    x = fg.ones(1, 2)
    out = functional_call(m, {"a.weight": np.eye(2, dtype=np.float32) * 2}, (x,))
    np.testing.assert_allclose(out.detach().numpy(), [[4.0, 4.0]])  # both layers took it
    out = functional_call(m, {"a.weight": np.eye(2, dtype=np.float32) * 2}, (x,), tie_weights=False)
    assert not np.allclose(out.detach().numpy(), [[4.0, 4.0]])


def test_per_example_gradients_by_a_loop():
    t, f = _pair(3)
    xs = np.random.default_rng(5).standard_normal((3, 3))
    params = {k: v.detach().numpy() for k, v in f.named_parameters()}
    grad_fn = fg.grad(lambda p, x: functional_call(f, p, (fg.tensor(x[None]),)).sum())
    per_example = [grad_fn(params, x) for x in xs]
    t_params = {k: v.detach() for k, v in t.named_parameters()}
    t_per = torch.func.vmap(
        torch.func.grad(lambda p, x: torch.func.functional_call(t, p, (x[None],)).sum()),
        in_dims=(None, 0),
    )(t_params, torch.tensor(xs))
    for i, g in enumerate(per_example):
        for k in g:
            np.testing.assert_allclose(g[k], t_per[k][i].numpy(), rtol=1e-10, atol=1e-12)


def test_exposed_as_funcgrad_func_when_present():
    import funcgrad.func as func

    assert func.functional_call is functional_call
