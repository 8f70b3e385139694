"""`funcgrad.compile` never replays a value-only Tensor function's result as a constant.

A comparison, the index of a maximum, `sort`'s indices, `nonzero`, `unique`, `any`/`all`,
`allclose`/`equal` compute on a tensor's values without recording a node. Traced by
`funcgrad.compile`, their result used to be baked into the plan, so a later call with other
values replayed the first call's mask or indices (`compile(lambda x: where(x > 0, x, 0).sum())`
gave -4.0 for [1, -2, -3, -1], eagerly 1.0).

A comparison of a recorded, non-0-d tensor (`x > 0`, `torch.gt(x, 0)`, `==`, `!=`) is now
computed by the node operator, so jit hands back a traced mask: the plan computes it where the
graph takes it as data, and its Python reads are guards (tests/jit/test_mask_reads.py). Any
other value-only function, on a recorded tensor or on such a mask (`mask & other`,
`mask.long()`, `mask.numpy()`, `y[mask] = v`, `torch.isnan(x)`, `x.bool()`), reports its read,
and that signature runs eagerly with a warning. The reference is the same function run eagerly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp

CASES = {
    "gt": lambda x: torch.where(x > 0, x, torch.zeros_like(x)).sum(),
    "torch.gt": lambda x: torch.where(torch.gt(x, 0), x, torch.zeros_like(x)).sum(),
    "lt of abs": lambda x: (x * (x.abs() < 2)).sum(),
    "argmax": lambda x: x[torch.argmax(x)] * 2,
    "sort indices": lambda x: (torch.sort(x).indices.to(x.dtype) * x).sum(),
    "topk indices": lambda x: x[torch.topk(x, 2).indices].sum(),
    "nonzero": lambda x: x[torch.nonzero(x > 0).flatten()].sum(),
    "any": lambda x: x.sum() * torch.any(x < -1.5).to(x.dtype),
    "unique": lambda x: x.sum() * torch.unique(torch.sign(x)).numel(),
}
INPUTS = ([1.0, 2.0, 3.0, -1.0], [1.0, -2.0, -3.0, -1.0], [-5.0, 4.0, 0.5, 2.0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_equals_eager_for_every_input(name):
    f = CASES[name]
    compiled = torch.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in INPUTS:
            x = torch.tensor(v)
            assert float(compiled(x)) == float(f(x)), (name, v)


def test_the_eager_fallback_says_why():
    compiled = torch.compile(CASES["argmax"])
    with pytest.warns(RuntimeWarning, match=r"tensor\.\w+ reads a traced tensor.s value"):
        compiled(torch.tensor(INPUTS[0]))


# --- comparisons: a plan that computes the mask ------------------------------------------------

PLANNED = {
    "where(x > 0)": lambda x: torch.where(x > 0, x, torch.zeros_like(x)).sum(),
    "torch.gt": lambda x: torch.where(torch.gt(x, 0), x, torch.zeros_like(x)).sum(),
    "x * (abs < 2)": lambda x: (x * (x.abs() < 2)).sum(),
    "(x > 0).float()": lambda x: ((x > 0).float() * x).sum(),
    "0.5 < x": lambda x: (x * (0.5 < x)).sum(),
    "x <= 1": lambda x: (x * torch.le(x, 1)).sum(),
    "x >= y": lambda x: (x * torch.greater_equal(x, x.flip(0))).sum(),
    "const > x": lambda x: (x * (torch.tensor([0.0, 1.0, -1.0, 2.0]) > x)).sum(),
    "x < const": lambda x: (x * torch.less(x, torch.tensor([0.0, 1.0, -1.0, 2.0]))).sum(),
    "x == flip": lambda x: (x * (x == x.flip(0))).sum(),
    "torch.eq": lambda x: (x * torch.eq(x, 1.0)).sum(),
    "!=": lambda x: (x * (x != x.flip(0))).sum(),
    "torch.ne": lambda x: (x * torch.ne(x, -1)).sum(),
    "masked_fill": lambda x: x.masked_fill(x < 0, 0.5).sum(),
    "mask.sum()": lambda x: x.sum() * (x > 0).sum(),
    "2-d": lambda x: (x.reshape(2, 2) * (x.reshape(2, 2) > x.reshape(2, 2).T)).sum(),
    "grad of where": lambda x: torch.where(x > 0, x * x, -x).sum(),
    # max(dim)/min(dim)'s indices: computed by the plan too (a constant of it before)
    "max(dim).indices": lambda x: (x * x.max(0).indices.float()).sum(),
    "min(dim).indices": lambda x: (x.reshape(2, 2) * x.reshape(2, 2).min(1, True).indices).sum(),
    "gather at max": lambda x: x.reshape(2, 2).gather(1, x.reshape(2, 2).max(1, True)[1]).sum(),
}


def _flipping_inputs(seed: int = 0) -> list[np.ndarray]:
    """Random inputs, each also negated (every mask entry of `> 0` flips), with ties and NaN."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(12):
        v = rng.normal(size=4) * 2
        if i % 3 == 0:
            v = np.round(v)  # integer values: ties with 0, 1 and each other
        if i == 7:
            v[2] = np.nan
        out += [v, -v]
    out += [np.zeros(4), np.ones(4), np.array([1.0, 1.0, -1.0, -1.0])]
    return out


def _same(a, b) -> bool:
    return bool(np.array_equal(np.asarray(a.tolist()), np.asarray(b.tolist()), equal_nan=True))


@pytest.mark.parametrize("name", list(PLANNED))
def test_a_compared_mask_is_computed_by_the_plan(name):
    f = PLANNED[name]
    compiled = torch.compile(f)
    with warnings.catch_warnings(), np.errstate(all="ignore"):  # inf * 0, NaN: NumPy's warnings
        warnings.simplefilter("error")  # no eager fallback, no retrace warning
        for v in _flipping_inputs():
            x = torch.tensor(v)
            assert _same(compiled(x), f(x)), (name, v)
    assert compiled._eager_reason is None
    assert compiled._jitted.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}


def test_the_compiled_mask_gives_eagers_gradient():
    f = PLANNED["grad of where"]
    compiled = torch.compile(f)
    for v in _flipping_inputs(1)[:8]:
        a = torch.tensor(v, requires_grad=True)
        b = torch.tensor(v, requires_grad=True)
        compiled(a).backward()
        f(b).backward()
        assert _same(a.grad, b.grad), v
    assert compiled._eager_reason is None


def test_eq_and_ne_are_numpys_for_real_dtypes():
    # `==` is traced as (a <= b) & (a >= b): the same booleans, NaN, infinities, -0.0 included
    vals = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5], dtype=np.float32)
    f = lambda x: ((x == x.flip(0)).float() + 2 * (x != x.roll(1)).float() + (x == 0.0)) * x
    compiled = torch.compile(f)
    rng = np.random.default_rng(2)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error")
        for _ in range(20):
            x = torch.tensor(rng.choice(vals, size=6))
            assert _same(compiled(x), f(x))
    assert compiled._jitted.cache_info()["plans"] == 1


BRANCHES = {
    "if mask.any()": lambda x: x.sum() * 2 if (x > 1).any() else x.sum(),
    "if mask[0]": lambda x: x.sum() * 2 if bool((x > 0)[0]) else x.sum(),
    "mask.item()": lambda x: x.sum() * 2 if (x > 0)[1].item() else x.sum(),
    "mask.tolist()": lambda x: x.sum() * (x > 0).tolist().count(True),
    "mask.numpy()": lambda x: x.sum() * int((x > 0).numpy().sum()),
    "if x.sum() > 0": lambda x: x.sum() * 2 if x.sum() > 0 else -x.sum(),
}


@pytest.mark.parametrize("name", list(BRANCHES))
def test_a_python_read_of_a_compared_mask_gives_eagers_answer(name):
    f = BRANCHES[name]
    compiled = torch.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a guard's retraces, or the eager fallback
        for v in _flipping_inputs(3) + _flipping_inputs(3)[::-1]:
            x = torch.tensor(v)
            assert _same(compiled(x), f(x)), (name, v)


# --- what the plan cannot follow: eager, never a constant -------------------------------------


def _setitem(x):
    y = x * 1.0
    y[x > 0] = 0.0
    return y.sum()


def _inplace_or(x):
    m = x > 0
    m |= x < -1
    return (x * m).sum()


UNFOLLOWED = {
    "mask & mask": lambda x: (x * ((x > -1) & (x < 1))).sum(),
    "mask | mask": lambda x: (x * ((x > 1) | (x < -1))).sum(),
    "mask ^ mask": lambda x: (x * ((x > 0) ^ (x > 1))).sum(),
    "~mask": lambda x: (x * ~(x > 0)).sum(),
    "logical_and": lambda x: (x * torch.logical_and(x > -1, x < 1)).sum(),
    "logical_not": lambda x: (x * torch.logical_not(x > 0)).sum(),
    "mask == mask": lambda x: (x * ((x > 0) == (x < 1))).sum(),
    "torch.ne(mask, mask)": lambda x: (x * torch.ne(x > 0, x < 1)).sum(),
    "mask.long()": lambda x: (x * (x > 0).long()).sum(),
    "count_nonzero": lambda x: x.sum() * torch.count_nonzero(x > 0),
    "argmax of a mask": lambda x: x[(x > 0).float().argmax()],
    "y[mask] = v": _setitem,
    "m |= mask": _inplace_or,
    "new_tensor(mask)": lambda x: (x * x.new_tensor(x > 0)).sum(),
    # value-only functions of a recorded tensor (constants of the plan before)
    "isnan": lambda x: torch.where(torch.isnan(x), torch.zeros_like(x), x).sum(),
    "isinf": lambda x: torch.where(torch.isinf(x), torch.zeros_like(x), x).sum(),
    "isfinite": lambda x: torch.where(torch.isfinite(x), x, torch.zeros_like(x)).sum(),
    "isposinf": lambda x: (x * torch.isposinf(x)).nan_to_num().sum(),
    "signbit": lambda x: (x * torch.signbit(x)).sum(),
    "isclose": lambda x: (x * torch.isclose(x, torch.ones_like(x))).sum(),
    "logical_not of x": lambda x: (x * torch.logical_not(x)).sum(),
    "logical_and of x": lambda x: (x * torch.logical_and(x, x - 1)).sum(),
    "x.bool()": lambda x: x.sum() * x.bool().sum(),
    "x.long()": lambda x: x.sum() * x.long().sum(),
    "x.to(int64)": lambda x: x.sum() * x.to(torch.int64).sum(),
}


# Value-only functions of a recorded tensor: never a plan (the others may become followed).
_EAGER = {"isnan", "isinf", "isfinite", "isposinf", "signbit", "isclose", "logical_not of x"}
_EAGER |= {"logical_and of x", "x.bool()", "x.long()", "x.to(int64)"}


@pytest.mark.parametrize("name", list(UNFOLLOWED))
def test_an_unfollowed_read_runs_eagerly(name):
    f = UNFOLLOWED[name]
    compiled = torch.compile(f)
    inputs = _flipping_inputs(4)
    inputs[0] = np.array([1.0, -2.0, np.inf, np.nan])
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        for v in inputs:
            x = torch.tensor(v)
            assert _same(compiled(x), f(x)), (name, v)
    if name in _EAGER:
        assert compiled._eager_reason is not None, name
        assert any("runs eagerly" in str(w.message) for w in caught)


# --- piecewise constant functions (zero gradient): the plan computes their values -------------

ZERO_GRADIENT = ["floor", "ceil", "trunc", "rint", "fix", "round", "around", "spacing"]


@pytest.mark.parametrize("name", ZERO_GRADIENT)
def test_a_zero_gradient_function_is_computed_by_the_plan(name):
    # funcgrad.numpy's floor, round, ... made the traced call's values a constant of the plan
    # (jit(lambda x: sum(floor(x) * x)) gave 13.6 for [4, -2.5, 0.7], eagerly 23.5)
    fn = getattr(fnp, name)
    f = lambda x: fnp.sum(fn(x) * x)
    jf, jg, g = fg.jit(f), fg.jit(fg.grad(f)), fg.grad(f)
    rng = np.random.default_rng(5)
    for _ in range(20):
        v = rng.normal(size=5) * 3
        assert jf(v).tobytes() == f(v).tobytes(), (name, v)
        assert jg(v).tobytes() == g(v).tobytes(), (name, v)
    assert jf.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}


def test_floor_divide_and_round_with_decimals_are_computed_by_the_plan():
    f = lambda x, y: fnp.sum(fnp.floor_divide(x, y) * x + fnp.round(x, 1))
    jf = fg.jit(f)
    rng = np.random.default_rng(6)
    for _ in range(20):
        x, y = rng.normal(size=4) * 5, rng.normal(size=4) + 3
        assert jf(x, y).tobytes() == f(x, y).tobytes()
    assert jf.cache_info()["plans"] == 1


@pytest.mark.parametrize("name", ["round", "floor", "ceil", "trunc"])
def test_tensor_rounding_compiles_into_a_plan(name):
    f = lambda x: (getattr(x, name)() * x).sum()
    compiled = torch.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for v in _flipping_inputs(7):
            x = torch.tensor(v)
            assert _same(compiled(x), f(x)), (name, v)
    assert compiled._jitted.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}
