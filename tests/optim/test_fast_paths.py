"""The optimizers' fast paths give the numbers of their general paths, bit for bit, and PyTorch's.

Adam writes its terms into arrays the step made or into the moments' own
(`adam._fused`) where the arrays allow it and falls back to the general
formulas otherwise: the same numbers. The large-parameter paths (which
tests/optim/test_against_torch.py's small shapes do not reach) must be
PyTorch's. (tests/optim/test_in_place.py: steps into the parameters' own
memory against steps into new arrays.)
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.optim import adam as adam_module
from tests.references import requires

SHAPES = [(40, 30), (3,), (600,), ()]

SGD_OPTIONS = [
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.3, "weight_decay": 0.1},
    {"momentum": 0.9, "nesterov": True, "maximize": True},
    {},
]
ADAM_OPTIONS = [
    {"betas": (0.9, 0.99)},
    {"betas": (0.3, 0.9), "weight_decay": 0.1, "maximize": True},
    {"weight_decay": 0.1, "decoupled_weight_decay": True},
]


def _run(make, dtype, steps: int = 4) -> list:
    """Parameters and state after `steps` steps of fixed random gradients."""
    rng = np.random.default_rng(5)
    ps = [fg.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    opt = make(ps)
    for _ in range(steps):
        for p in ps:
            p.grad = fg.tensor(rng.standard_normal(p.shape).astype(dtype))
        opt.step()
    state = [v.numpy().copy() for s in opt.state.values() for v in s.values()]
    return [p.detach().numpy().copy() for p in ps] + state


def _same(a: list, b: list) -> bool:
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
def test_adam_fused_and_general_paths_agree_bit_for_bit(options, dtype, monkeypatch):
    def make(ps):
        return fg.optim.Adam(ps, lr=0.05, **options)

    fused = _run(make, dtype)
    monkeypatch.setattr(adam_module, "_fused", lambda *args: False)
    assert _same(_run(make, dtype), fused)


@pytest.mark.parametrize(
    "name, options",
    [("SGD", SGD_OPTIONS[1]), ("SGD", SGD_OPTIONS[2]), ("Adam", ADAM_OPTIONS[1])],
    ids=str,
)
def test_large_parameter_paths_are_pytorchs(name, options):
    torch = requires("torch")
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal(s) for s in SHAPES]
    ours = [fg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    opt_ours = getattr(fg.optim, name)(ours, lr=0.05, **options)
    opt_theirs = getattr(torch.optim, name)(theirs, lr=0.05, **options)
    for _ in range(5):
        for p, q in zip(ours, theirs, strict=True):
            g = rng.standard_normal(p.shape)
            p.grad, q.grad = fg.tensor(g), torch.tensor(g)
        opt_ours.step()
        opt_theirs.step()
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12, atol=1e-14)


LARGE_SHAPES = [(300, 200), (70001,), (5,)]


def _run_held(make, dtype, shapes, hold: bool, steps: int = 3) -> list:
    """`_run` over `shapes`; with `hold`, a graph holds the parameters through each step."""
    rng = np.random.default_rng(7)
    ps = [fg.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in shapes]
    opt = make(ps)
    for _ in range(steps):
        for p in ps:
            p.grad = fg.tensor(rng.standard_normal(p.shape).astype(dtype))
        held = [p * 2.0 for p in ps] if hold else []  # their graphs hold the parameters' arrays
        opt.step()
        del held
    state = [v.numpy().copy() for s in opt.state.values() for v in s.values()]
    return [p.detach().numpy().copy() for p in ps] + state


@pytest.mark.parametrize("hold", [False, True], ids=["into_own", "new_arrays"])
@pytest.mark.parametrize("piece_bytes", [None, 4096], ids=["default", "4KiB"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
def test_adam_in_pieces_and_general_paths_agree_bit_for_bit(
    options, dtype, piece_bytes, hold, monkeypatch
):
    # parameters larger than a piece (and one smaller), the last piece partial; the
    # parameters' arrays written into (nothing holds them) or replaced (a graph holds them)
    if piece_bytes is not None:
        monkeypatch.setattr(adam_module, "_PIECE_BYTES", piece_bytes)
    calls = []
    in_pieces = adam_module._in_pieces
    monkeypatch.setattr(
        adam_module, "_in_pieces", lambda *args: calls.append(1) or in_pieces(*args)
    )

    def make(ps):
        return fg.optim.Adam(ps, lr=0.05, **options)

    pieces = _run_held(make, dtype, LARGE_SHAPES, hold)
    assert len(calls) == 2 * 3  # the two large parameters, each step
    monkeypatch.setattr(adam_module, "_fused", lambda *args: False)
    assert _same(_run_held(make, dtype, LARGE_SHAPES, hold), pieces)


@pytest.mark.parametrize("shapes", [SHAPES, LARGE_SHAPES], ids=["small", "large"])
@pytest.mark.parametrize(
    "kind", ["python floats", "numpy float64", "0-d array", "int eps", "float16 lr"], ids=str
)
def test_adam_numbers_cast_once_are_the_numbers_cast_in_each_call(shapes, kind, monkeypatch):
    # `_numbers` casts the hyperparameters to the parameters' dtype once per step, as NumPy
    # casts Python floats (weak scalars) in every ufunc call; NumPy scalars and 0-d arrays
    # arrive as Python floats too (`_common.numbers`, as PyTorch computes with them)
    options = {"lr": 0.05, "betas": (0.9, 0.99), "eps": 1e-8}
    if kind == "numpy float64":
        options = {"lr": np.float64(0.05), "betas": (np.float64(0.9), 0.99), "eps": 1e-8}
    elif kind == "0-d array":
        options["eps"] = np.array(1e-3)
    elif kind == "int eps":
        options["eps"] = 1
    elif kind == "float16 lr":
        options["lr"] = np.float16(0.05)

    def make(ps):
        return fg.optim.Adam(ps, **options)

    for dtype in (np.float32, np.float64):
        adam_module._kept_numbers.cache_clear()
        once = _run_held(make, dtype, shapes, hold=False)
        with monkeypatch.context() as m:
            m.setattr(adam_module, "_weak_cast", lambda x, dtype: x)  # the numbers as given
            adam_module._kept_numbers.cache_clear()
            each = _run_held(make, dtype, shapes, hold=False)
        adam_module._kept_numbers.cache_clear()
        assert _same(once, each)


def test_adam_kept_numbers_serve_python_floats_and_numpy_scalars(monkeypatch):
    # np.float64 options reach `_numbers` as the Python floats of the same values: the
    # numbers kept for 0.9 are np.float64(0.9)'s, the same as computed alone
    python = {"lr": 0.05, "betas": (0.9, 0.99), "eps": 1e-8}
    numpy_ = {"lr": np.float64(0.05), "betas": (np.float64(0.9), np.float64(0.99)), "eps": 1e-8}
    adam_module._kept_numbers.cache_clear()
    _run_held(lambda ps: fg.optim.Adam(ps, **python), np.float32, LARGE_SHAPES, hold=False)
    after = _run_held(lambda ps: fg.optim.Adam(ps, **numpy_), np.float32, LARGE_SHAPES, hold=False)
    monkeypatch.setattr(adam_module, "_weak_cast", lambda x, dtype: x)
    adam_module._kept_numbers.cache_clear()
    alone = _run_held(lambda ps: fg.optim.Adam(ps, **numpy_), np.float32, LARGE_SHAPES, hold=False)
    adam_module._kept_numbers.cache_clear()
    assert _same(after, alone)
