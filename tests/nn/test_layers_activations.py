"""The activation modules and `F` activations against PyTorch's.

Modules: outputs and the gradients of inputs (and of `PReLU`'s weight),
float64 tightly and float32 at PyTorch's tolerance, over hypothesis-drawn
shapes and options, values drawn to include both sides of every kink (the
kinks themselves too: 0, +-3, the thresholds). Functions: the same on
tensors, and on arrays and nodes (the functional style: `funcgrad.grad` of
a sum against PyTorch's gradient), plus the in-place forms.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.nn.functional as F
from tests.nn.modcheck import F32, F64, check_module
from tests.references import requires

torch = requires("torch")
TF = torch.nn.functional

# (name, constructor args, keyword args): every activation module
MODULES = [
    ("ReLU", (), {}),
    ("ReLU6", (), {}),
    ("LeakyReLU", (), {}),
    ("LeakyReLU", (0.2,), {}),
    ("PReLU", (), {}),
    ("PReLU", (3,), {"init": 0.1}),
    ("ELU", (), {}),
    ("ELU", (0.5,), {}),
    ("SELU", (), {}),
    ("CELU", (), {"alpha": 0.7}),
    ("GELU", (), {}),
    ("GELU", (), {"approximate": "tanh"}),
    ("SiLU", (), {}),
    ("Mish", (), {}),
    ("Softplus", (), {}),
    ("Softplus", (), {"beta": 2.0, "threshold": 3.0}),
    ("Softsign", (), {}),
    ("Tanh", (), {}),
    ("Sigmoid", (), {}),
    ("Hardtanh", (), {}),
    ("Hardtanh", (-2.0, 0.5), {}),
    ("Hardsigmoid", (), {}),
    ("Hardswish", (), {}),
    ("Softmax", (), {"dim": 1}),
    ("Softmax", (), {"dim": -1}),
    ("LogSoftmax", (), {"dim": 1}),
    ("Softmin", (), {"dim": 0}),
    ("Threshold", (0.1, -2.0), {}),
    ("Tanhshrink", (), {}),
    ("Softshrink", (), {}),
    ("Softshrink", (1.0,), {}),
    ("Hardshrink", (), {}),
    ("LogSigmoid", (), {}),
    ("GLU", (), {"dim": 1}),
    ("RReLU", (), {}),
]

# PyTorch's float64 backward of these rounds a constant to float32 (CELU's 1/alpha,
# Hardsigmoid's 1/6): their float64 gradients agree to float32's precision.
LOOSE = {
    "CELU": {"rtol": 1e-7, "atol": 1e-10},
    "Hardsigmoid": {"rtol": 1e-7, "atol": 1e-10},
    "hardsigmoid": {"rtol": 1e-7, "atol": 1e-10},
    "celu": {"rtol": 1e-7, "atol": 1e-10},
}

KINKS = np.array([0.0, 3.0, -3.0, 0.5, -0.5, 1.0, -1.0, 0.1, 6.0, -2.0, 20.0, 25.0, -30.0])


def _values(seed: int, shape: tuple) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(scale=3.0, size=shape)
    mask = rng.random(shape) < 0.2
    return np.where(mask, rng.choice(KINKS, size=shape), x)


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=lambda v: str(v))
@settings(max_examples=8, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_activation_module_matches_pytorch(name, args, kwargs, shape, seed, dtype):
    if name == "GLU":
        shape = (shape[0], 2 * shape[1], *shape[2:])
    if name == "PReLU" and args:
        shape = (shape[0], 3, *shape[2:])
    x = _values(seed, shape)
    modes = ("eval",) if name == "RReLU" else ("train", "eval")  # RReLU draws in training

    def make(nn):
        return getattr(nn, name)(*args, **kwargs)

    tol = None
    if name in LOOSE and dtype == np.float64:
        tol = LOOSE[name]
    check_module(make, [x], dtype=dtype, modes=modes, seed=seed, tol=tol)


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=lambda v: str(v))
def test_activation_repr_matches_pytorch(name, args, kwargs):
    assert repr(getattr(fg.nn, name)(*args, **kwargs)) == repr(
        getattr(torch.nn, name)(*args, **kwargs)
    )


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("ReLU", {"inplace": True}),
        ("LeakyReLU", {"negative_slope": 0.3, "inplace": True}),
        ("ELU", {"alpha": 2.0, "inplace": True}),
        ("Hardtanh", {"min_val": -0.5, "max_val": 0.25, "inplace": True}),
        ("ReLU6", {"inplace": True}),
        ("SiLU", {"inplace": True}),
        ("Threshold", {"threshold": 0.0, "value": 1.0, "inplace": True}),
        ("Softmax2d", {}),
    ],
)
def test_more_reprs(name, kwargs):
    assert repr(getattr(fg.nn, name)(**kwargs)) == repr(getattr(torch.nn, name)(**kwargs))


# --- the F functions on tensors, arrays and nodes ------------------------------------

FUNCTIONS = [
    ("relu", {}),
    ("relu6", {}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {"alpha": 1.5}),
    ("selu", {}),
    ("celu", {"alpha": 2.0}),
    ("gelu", {}),
    ("gelu", {"approximate": "tanh"}),
    ("silu", {}),
    ("mish", {}),
    ("softplus", {}),
    ("softplus", {"beta": 0.5, "threshold": 2.0}),
    ("softsign", {}),
    ("tanh", {}),
    ("sigmoid", {}),
    ("hardtanh", {"min_val": -2.0, "max_val": 2.0}),
    ("hardsigmoid", {}),
    ("hardswish", {}),
    ("softmax", {"dim": 0}),
    ("log_softmax", {"dim": -1}),
    ("softmin", {"dim": 1}),
    ("threshold", {"threshold": 0.5, "value": 3.0}),
    ("tanhshrink", {}),
    ("softshrink", {"lambd": 0.3}),
    ("hardshrink", {"lambd": 0.3}),
    ("logsigmoid", {}),
    ("glu", {"dim": 0}),
]


def _torch_call(name, x, kwargs):
    return getattr(TF, name)(x, **kwargs)


@pytest.mark.parametrize("name,kwargs", FUNCTIONS, ids=str)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), rows=st.integers(1, 3))
def test_functional_activation_in_both_worlds(name, kwargs, seed, rows):
    x = _values(seed, (2 * rows, 5))
    ct = np.random.default_rng(seed + 1).standard_normal(
        tuple(_torch_call(name, torch.tensor(x), kwargs).shape)
    )
    tx = torch.tensor(x, requires_grad=True)
    ty = _torch_call(name, tx, kwargs)
    (ty * torch.tensor(ct)).sum().backward()
    # Tensors
    fx = fg.tensor(x, requires_grad=True)
    fy = getattr(F, name)(fx, **kwargs)
    assert isinstance(fy, fg.Tensor)
    np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), **F64)
    (fy * fg.tensor(ct)).sum().backward()
    tol = LOOSE.get(name, F64)
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), **tol)
    # arrays, and nodes through funcgrad.grad
    y = getattr(F, name)(x, **kwargs)
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, ty.detach().numpy(), **F64)
    g = fg.grad(lambda v: (getattr(F, name)(v, **kwargs) * ct).sum())(x)
    np.testing.assert_allclose(g, tx.grad.numpy(), **tol)
    # float32 stays float32 in both worlds
    x32 = x.astype(np.float32)
    y32 = getattr(F, name)(fg.tensor(x32), **kwargs)
    assert y32.dtype == fg.float32
    assert getattr(F, name)(x32, **kwargs).dtype == np.float32
    np.testing.assert_allclose(
        y32.numpy(), _torch_call(name, torch.tensor(x32), kwargs).numpy(), **F32
    )


def test_second_order_through_activations():
    x = np.linspace(-2.5, 2.5, 8)  # not the kink at 0 (PyTorch: 0 there)
    for name in ("gelu", "silu", "mish", "softplus", "elu", "logsigmoid", "softsign"):
        tx = torch.tensor(x, requires_grad=True)
        (g,) = torch.autograd.grad(getattr(TF, name)(tx).sum(), tx, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), tx)
        fn = getattr(F, name)
        ours = fg.grad(lambda v, fn=fn: fg.grad(lambda u: fn(u).sum())(v).sum())(x)
        np.testing.assert_allclose(ours, h.numpy(), **F64, err_msg=name)


def test_prelu_function_per_channel():
    x = _values(3, (2, 3, 4))
    w = np.array([0.1, -0.2, 0.3])
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    TF.prelu(tx, tw).sum().backward()
    fx, fw = fg.tensor(x, requires_grad=True), fg.tensor(w, requires_grad=True)
    F.prelu(fx, fw).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), **F64)
    np.testing.assert_allclose(fw.grad.numpy(), tw.grad.numpy(), **F64)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
        F.prelu(fx, fg.tensor([0.1, 0.2]))


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("relu_", {}),
        ("elu_", {}),
        ("leaky_relu_", {"negative_slope": 0.3}),
        ("hardtanh_", {}),
        ("threshold_", {"threshold": 0.0, "value": -1.0}),
        ("celu_", {}),
        ("selu_", {}),
    ],
)
def test_in_place_functions(name, kwargs):
    x = _values(5, (3, 4))
    tx = torch.tensor(x, requires_grad=True)
    ty = tx * 2
    tz = getattr(TF, name)(ty, **kwargs)
    assert tz is ty
    (tz * torch.tensor(x)).sum().backward()
    fx = fg.tensor(x, requires_grad=True)
    fy = fx * 2
    fz = getattr(F, name)(fy, **kwargs)
    assert fz is fy
    np.testing.assert_allclose(fz.detach().numpy(), tz.detach().numpy(), **F64)
    (fz * fg.tensor(x)).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), **F64)


def test_inplace_module_on_leaf_that_requires_grad_raises_like_pytorch():
    x = fg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        fg.nn.ReLU(inplace=True)(x)
    with pytest.raises(RuntimeError):
        torch.nn.ReLU(inplace=True)(torch.ones(3, requires_grad=True))


def test_implicit_softmax_dim_warns_and_picks_pytorchs():
    x = _values(1, (2, 3, 4))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ours = F.softmax(fg.tensor(x))
    assert any("Implicit dimension choice" in str(m.message) for m in w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = TF.softmax(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), **F64)


def test_softmax_dtype_argument():
    x = _values(2, (2, 3)).astype(np.float32)
    out = F.softmax(fg.tensor(x), dim=1, dtype=fg.float64)
    assert out.dtype == fg.float64
    np.testing.assert_allclose(
        out.numpy(), TF.softmax(torch.tensor(x), dim=1, dtype=torch.float64).numpy(), **F64
    )


def test_extreme_inputs_give_no_nan_gradients():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0])
    for name in ("elu", "selu", "celu", "softplus", "logsigmoid", "silu", "mish", "sigmoid"):
        fn = getattr(F, name)
        g = fg.grad(lambda v, fn=fn: fn(v).sum())(x)
        assert np.all(np.isfinite(g)), name
        tx = torch.tensor(x, requires_grad=True)
        getattr(TF, name)(tx).sum().backward()
        np.testing.assert_allclose(g, tx.grad.numpy(), **F64, err_msg=name)


def test_errors_match_pytorch():
    x = fg.ones(3, 5)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(x, dim=1)
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 1.0, -1.0)


def test_gumbel_softmax():
    fg.manual_seed(0)
    logits = fg.tensor(np.log([[0.1, 0.6, 0.3]] * 2000), requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(1).detach().numpy(), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    values = hard.detach().numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    np.testing.assert_allclose(values.mean(0), [0.1, 0.6, 0.3], atol=0.04)
    (hard[:, 1]).sum().backward()
    assert logits.grad is not None and np.all(np.isfinite(logits.grad.numpy()))
