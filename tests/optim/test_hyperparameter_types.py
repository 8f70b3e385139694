"""Every optimizer keeps the parameters' dtype whatever type its hyperparameters are given as.

NumPy computes an np.float64 scalar times a float32 array in float64 (NEP 50),
and an np.float32 one times a float16 array in float32; PyTorch's arithmetic of
a tensor with any Python or NumPy scalar keeps the tensor's dtype, so its
optimizer state is always the parameter's dtype. Each case gives every numeric
option of one optimizer as np.float64, np.float32, Python float or int, feeds
the same gradients to funcgrad's and PyTorch's optimizer for several steps on
float32, float64 and float16 parameters (small ones, and large ones that take
Adam's fast path in pieces), and compares the parameters, the dtype and values
of every state entry, and a `state_dict` round trip after which both go on.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

# Each optimizer's numeric options with values that make every one of them matter.
OPTIONS: dict[str, list[dict]] = {
    "SGD": [
        {"lr": 0.05, "momentum": 0.9, "dampening": 0.25, "weight_decay": 0.1},
        {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.1, "nesterov": True},
        {"lr": 0.05},
    ],
    "Adam": [
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1},
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1, "amsgrad": True},
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6},
    ],
    "AdamW": [{"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}],
    "RMSprop": [
        {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "weight_decay": 0.1, "momentum": 0.5},
        {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "momentum": 0.5, "centered": True},
    ],
    "Adagrad": [
        {
            "lr": 0.1,
            "lr_decay": 0.01,
            "weight_decay": 0.1,
            "initial_accumulator_value": 0.5,
            "eps": 1e-6,
        }
    ],
    "Adadelta": [{"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1}],
    "Adamax": [{"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}],
    "NAdam": [
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1},
        {
            "lr": 0.01,
            "betas": (0.8, 0.99),
            "eps": 1e-6,
            "weight_decay": 0.1,
            "momentum_decay": 0.002,
            "decoupled_weight_decay": True,
        },
    ],
    "RAdam": [
        {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1},
        {
            "lr": 0.01,
            "betas": (0.8, 0.99),
            "eps": 1e-6,
            "weight_decay": 0.1,
            "decoupled_weight_decay": True,
        },
    ],
}
CASES = [(name, i) for name, cases in OPTIONS.items() for i in range(len(cases))]

# Options whose value stays meaningful as an int (the others keep their float value then).
INTS = {"weight_decay": 1, "initial_accumulator_value": 1, "lr_decay": 0, "dampening": 0}
KINDS = ["np.float64", "np.float32", "float", "int"]


def _typed(kwargs: dict, kind: str) -> dict:
    """`kwargs` with every numeric option given as `kind` (betas: both)."""

    def cast(name, x):
        if isinstance(x, bool):
            return x
        if kind == "np.float64":
            return np.float64(x)
        if kind == "np.float32":
            return np.float32(x)
        if kind == "int":
            return INTS.get(name, x)
        return float(x)

    out = {}
    for name, x in kwargs.items():
        out[name] = tuple(cast(name, b) for b in x) if name == "betas" else cast(name, x)
    if kind == "int" and "weight_decay" in out and "lr" in out:
        out["lr"] = out["lr"] / 10  # weight_decay=1: a smaller step keeps it stable
    if kind == "int" and kwargs.get("nesterov"):
        out.pop("dampening", None)
    return out


def _tol(dtype):
    # float32: PyTorch's `assert_close` defaults; float64: 1e-10 (see `_run` for np.float32
    # options). NOTE: float16 ten times PyTorch's float16 defaults: PyTorch's CPU kernels
    # compute a fused term (`add_(g, alpha=...)`, `addcdiv_` ...) in float32 and round once,
    # NumPy rounds each term to float16, so after a few steps entries differ by a few ulps
    # with Python-float options too (the dtypes are compared exactly all the same).
    return {
        np.float16: {"rtol": 1e-2, "atol": 1e-3},
        np.float32: {"rtol": 1.3e-6, "atol": 1e-5},
        np.complex64: {"rtol": 1.3e-6, "atol": 1e-5},
        np.float64: {"rtol": 1e-10, "atol": 1e-12},
    }[dtype]


def _check(fopt, topt, fp, tp, dtype, tol, where):
    for i, (a, b) in enumerate(zip(fp, tp, strict=True)):
        x, y = a.detach().numpy(), b.detach().numpy()
        assert x.dtype == y.dtype == dtype, (where, i, x.dtype, y.dtype)
        np.testing.assert_allclose(x, y, **tol, err_msg=f"{where}: parameter {i}")
        fs, ts = fopt.state[a], topt.state[b]
        assert sorted(fs) == sorted(ts), (where, i, sorted(fs), sorted(ts))
        for key, tv in ts.items():
            fv = fs[key]
            assert isinstance(fv, fg.Tensor), (where, i, key, type(fv))
            ours, theirs = fv.detach().numpy(), tv.detach().numpy()
            assert str(ours.dtype) == str(theirs.dtype), (where, i, key, ours.dtype, theirs.dtype)
            np.testing.assert_allclose(ours, theirs, **tol, err_msg=f"{where}: {key} of {i}")


def _run(name, kwargs, dtype, shapes, steps=4, more=2):
    rng = np.random.default_rng(0)

    def draw(shape):
        x = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)

    init = [draw(s) for s in shapes]
    tp = [torch.tensor(a.copy(), requires_grad=True) for a in init]
    fp = [fg.tensor(a.copy(), requires_grad=True) for a in init]
    tkwargs = _for_torch(name, kwargs)
    topt = getattr(torch.optim, name)(tp, **tkwargs)
    fopt = getattr(fg.optim, name)(fp, **kwargs)
    tol = _tol(dtype)
    if any(isinstance(x, np.float32) for x in _flat(kwargs)) and dtype == np.float64:
        # an np.float32 option is a float32 number in PyTorch's Python arithmetic (np.float32
        # minus a Python float is an np.float32: its bias corrections, 1 - beta ...) and a
        # float here: float32's resolution of those factors then
        tol = {"rtol": 1e-6, "atol": 1e-8}

    def step():
        for a, b in zip(fp, tp, strict=True):
            g = draw(a.shape)
            a.grad = fg.tensor(g.copy())
            b.grad = torch.tensor(g.copy())
        fopt.step()
        topt.step()

    for _ in range(steps):
        step()
    _check(fopt, topt, fp, tp, dtype, tol, "steps")
    # the group keeps the options as given, as PyTorch's does
    fsd, tsd = fopt.state_dict(), topt.state_dict()
    for fg_group, t_group in zip(fsd["param_groups"], tsd["param_groups"], strict=True):
        for key, value in kwargs.items():
            assert type(fg_group[key]) is type(value), key
            assert type(t_group[key]) is type(tkwargs[key]), key
    fopt = getattr(fg.optim, name)(fp, **kwargs)
    topt = getattr(torch.optim, name)(tp, **tkwargs)
    fopt.load_state_dict(copy.deepcopy(fsd))
    topt.load_state_dict(copy.deepcopy(tsd))
    _check(fopt, topt, fp, tp, dtype, tol, "reloaded")
    for _ in range(more):
        step()
    _check(fopt, topt, fp, tp, dtype, tol, "after reload")


def _for_torch(name, kwargs):
    """PyTorch's Adam takes betas as floats or tensors only (np.float32 is not a float
    subclass, np.float64 is): the same values as Python floats there (funcgrad takes both)."""
    if name in ("Adam", "AdamW") and "betas" in kwargs:
        return {**kwargs, "betas": tuple(float(b) for b in kwargs["betas"])}
    return kwargs


def _flat(kwargs):
    for x in kwargs.values():
        yield from (x if isinstance(x, tuple) else (x,))


SMALL = [(3, 4), (5,), ()]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_state_keeps_the_parameter_dtype(case, dtype, kind):
    name, i = case
    _run(name, _typed(OPTIONS[name][i], kind), dtype, SMALL)


@pytest.mark.parametrize("kind", ["np.float64", "np.float32"])
@pytest.mark.parametrize("case", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_float16_parameters(case, kind):
    name, i = case
    _run(name, _typed(OPTIONS[name][i], kind), np.float16, SMALL)


@pytest.mark.parametrize("kind", ["np.float64", "np.float32"])
@pytest.mark.parametrize("case", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_complex64_parameters(case, kind):
    name, i = case
    _run(name, _typed(OPTIONS[name][i], kind), np.complex64, SMALL)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("case", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_np_float64_options_give_the_bits_of_python_floats(case, dtype):
    # the same values as np.float64 and as Python floats: the same bits, state included
    name, i = case
    runs = []
    for kind in ("float", "np.float64"):
        rng = np.random.default_rng(3)
        params = [
            fg.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SMALL
        ]
        opt = getattr(fg.optim, name)(params, **_typed(OPTIONS[name][i], kind))
        for _ in range(3):
            for p in params:
                p.grad = fg.tensor(rng.standard_normal(p.shape).astype(dtype))
            opt.step()
        arrays = [p.detach().numpy().copy() for p in params]
        arrays += [v.detach().numpy().copy() for p in params for v in opt.state[p].values()]
        runs.append(arrays)
    for a, b in zip(*runs, strict=True):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b), (a, b)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_large_parameters_on_the_fast_path(name, kind):
    # 40,000 float32 entries: Adam's fast path runs them in pieces of 32,768
    _run(name, _typed(OPTIONS[name][0], kind), np.float32, [(200, 200), (7,)], steps=3, more=1)


def test_numpy_scalars_change_nothing_for_python_floats():
    # the same options as np.float64 and as Python floats give the same bits (float32)
    kwargs = OPTIONS["Adam"][0]
    results = []
    for kind in ("float", "np.float64"):
        p = fg.tensor(np.linspace(-1, 1, 50_000, dtype=np.float32), requires_grad=True)
        q = fg.tensor(np.linspace(1, -1, 6, dtype=np.float32), requires_grad=True)
        opt = fg.optim.Adam([p, q], **_typed(kwargs, kind))
        for k in range(3):
            p.grad = fg.tensor(np.cos(np.arange(50_000, dtype=np.float32) * (k + 1)))
            q.grad = fg.tensor(np.sin(np.arange(6, dtype=np.float32) * (k + 1)))
            opt.step()
        results.append([p.detach().numpy().copy(), q.detach().numpy().copy()])
        results[-1] += [opt.state[p]["exp_avg_sq"].detach().numpy().copy()]
    for a, b in zip(*results, strict=True):
        assert a.dtype == b.dtype == np.float32
        assert np.array_equal(a, b)


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop"])
def test_scheduler_lr_as_numpy_scalar(name):
    # LambdaLR multiplies the base lr by the lambda's np.float64: the group's lr is np.float64
    kwargs = {"lr": 0.05, "momentum": 0.9} if name != "Adam" else {"lr": 0.05}
    results = []
    factors = [lambda e: np.float64(0.9) ** e, lambda e: np.float64(0.9) ** e, lambda e: 0.9**e]
    for lib, factor in zip((fg, torch, fg), factors, strict=True):
        p = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32), requires_grad=True)
        opt = getattr(lib.optim, name)([p], **kwargs)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, factor)
        for k in range(4):
            p.grad = lib.tensor(np.cos(np.arange(12, dtype=np.float32) * (k + 1)))
            opt.step()
            sched.step()
        lr = opt.param_groups[0]["lr"]
        state = {k: v.detach().numpy() for k, v in opt.state[p].items()}
        results.append((p.detach().numpy(), type(lr), state))
    (fx, flr, fs), (tx, tlr, ts), (px, plr, ps) = results
    assert flr is tlr is np.float64 and plr is float
    # the np.float64 lr computes as the Python float of the same value: the same bits
    assert np.array_equal(fx, px)
    assert all(np.array_equal(fs[key], ps[key]) for key in ps)
    assert fx.dtype == np.float32
    np.testing.assert_allclose(fx, tx, rtol=1.3e-6, atol=1e-5)
    for key, value in ts.items():
        assert fs[key].dtype == value.dtype, key
        np.testing.assert_allclose(fs[key], value, rtol=1.3e-6, atol=1e-5)


def _lbfgs(lib, kwargs, steps=3):
    m = np.array([[3.0, 0.5], [0.5, 2.0]], dtype=np.float32)
    c = np.array([1.0, -2.0], dtype=np.float32)
    x = lib.tensor(np.array([2.0, -1.0], dtype=np.float32), requires_grad=True)
    opt = lib.optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x * (lib.tensor(m) @ x)).sum() - (lib.tensor(c) * x).sum()
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
    state = opt.state[x]
    # the tensors (PyTorch keeps `t`, a number, as the type lr had: np.float64 or float)
    arrays = {k: v for k, v in state.items() if isinstance(v, lib.Tensor)}
    return x.detach().numpy(), {k: str(v.dtype).replace("torch.", "") for k, v in arrays.items()}


@pytest.mark.parametrize("kind", ["np.float64", "np.float32", "float"])
@pytest.mark.parametrize("search", [None, "strong_wolfe"])
def test_lbfgs(kind, search):
    kwargs = {"lr": 0.5, "tolerance_grad": 1e-7, "tolerance_change": 1e-9}
    kwargs = {**_typed(kwargs, kind), "line_search_fn": search, "history_size": 3}
    ours, theirs = _lbfgs(fg, kwargs), _lbfgs(torch, kwargs)
    assert ours[0].dtype == np.float32
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-4)


def test_a_non_number_option_names_itself():
    p = fg.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    opt = fg.optim.Adam([p], lr=0.1)
    opt.param_groups[0]["eps"] = "tiny"
    p.grad = fg.ones(3)
    with pytest.raises(TypeError, match="'eps'.*'tiny'"):
        opt.step()
