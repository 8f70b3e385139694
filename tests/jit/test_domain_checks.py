"""A check of input values that raises (a domain check) is repeated by a jit or compile replay.

Such a check used to read the traced values with plain NumPy (`np.any(value <= c)`), which a
trace does not see: the plan skipped it, so a replay with values the eager call refuses
returned numbers. The checks now read the value through `funcgrad.ops._util.checked_value`,
which a trace follows: the plan computes the check and its `bool()` is a guard, a failed guard
traces again, and that trace raises as the eager call does. The references: the eager call,
and PyTorch 2.13 (its error) or SciPy (its error) for what eager does.

`funcgrad.mvlgamma` had such a check, but PyTorch 2.13 has none: it is gone, and a compiled
`mvlgamma` gives the eager (and PyTorch's) numbers outside `x > (p - 1) / 2`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.nn.functional as F
import funcgrad.scipy.special as fsp
from funcgrad.errors import OpError
from funcgrad.transforms.jit import JitWarning
from tests.references import requires


def _no_fallback():
    """A context where compile's eager fallback or a jit warning fails the test.

    (Only those: NumPy's own RuntimeWarnings, `log` of a negative number, stay warnings, so
    that a plan computing on refused values is not stopped by one.)
    """
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.filterwarnings("error", message="funcgrad.compile", category=RuntimeWarning)
    warnings.simplefilter("error", JitWarning)
    return ctx


# --- funcgrad.compile: Tensor-layer checks against PyTorch's errors ---------------------------

TARGET = [1.0, 0.0, 1.0]
COMPILED_CHECKS = {
    # name: (function of one tensor, good values, bad values, PyTorch's call, its error type)
    "binary_cross_entropy": (
        lambda p: F.binary_cross_entropy(p, fg.tensor(TARGET)),
        [0.3, 0.4, 0.9],
        [0.3, 1.4, 0.9],
        lambda torch, v: torch.nn.functional.binary_cross_entropy(
            torch.tensor(v), torch.tensor(TARGET)
        ),
        RuntimeError,
    ),
    "binary_cross_entropy below 0": (
        lambda p: F.binary_cross_entropy(p, fg.tensor(TARGET)),
        [0.3, 0.4, 0.9],
        [0.3, 0.4, -0.1],
        lambda torch, v: torch.nn.functional.binary_cross_entropy(
            torch.tensor(v), torch.tensor(TARGET)
        ),
        RuntimeError,
    ),
    "gaussian_nll_loss var": (
        lambda var: F.gaussian_nll_loss(fg.tensor(TARGET), fg.tensor([0.5, 0.5, 0.5]), var),
        [1.0, 2.0, 0.5],
        [1.0, -2.0, 0.5],
        lambda torch, v: torch.nn.functional.gaussian_nll_loss(
            torch.tensor(TARGET), torch.tensor([0.5, 0.5, 0.5]), torch.tensor(v)
        ),
        ValueError,
    ),
}


@pytest.mark.parametrize("name", sorted(COMPILED_CHECKS))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_compiled_replay_checks_values_as_eager_and_pytorch(name, requires_grad):
    torch = requires("torch")
    f, good, bad, reference, torch_error = COMPILED_CHECKS[name]
    with pytest.raises(torch_error):
        reference(torch, bad)  # PyTorch refuses the bad values
    with pytest.raises(OpError) as eager:
        f(fg.tensor(bad))
    compiled = fg.compile(f)
    ctx = _no_fallback()
    try:
        for _ in range(2):  # trace, then replay
            x = fg.tensor(good, requires_grad=requires_grad)
            out = compiled(x)
            assert np.array_equal(out.detach().numpy(), f(fg.tensor(good)).detach().numpy())
        # A replay with bad values: the plan's guard fails, the new trace raises, the eager
        # call decides and raises the same error (before: the plan's numbers)
        with pytest.raises(OpError) as replayed:
            compiled(fg.tensor(bad, requires_grad=requires_grad))
        assert str(replayed.value) == str(eager.value)
        # The error is the function's own: it stays compiled, good values replay the plan.
        assert compiled._eager_reason is None
        plans = compiled._jitted.cache_info()["plans"]
        out = compiled(fg.tensor(good, requires_grad=requires_grad))
        assert np.array_equal(out.detach().numpy(), f(fg.tensor(good)).detach().numpy())
        assert compiled._jitted.cache_info()["plans"] == plans
    finally:
        ctx.__exit__(None, None, None)


def test_the_compiled_check_is_a_guard_of_the_plan():
    f = COMPILED_CHECKS["binary_cross_entropy"][0]
    compiled = fg.compile(f)
    compiled(fg.tensor([0.3, 0.4, 0.9]))
    (plan,) = compiled._jitted._cache.values().__iter__().__next__().plans
    assert "raise GF(" in str(plan) and "in a rule" in str(plan)


def test_a_trace_that_raises_where_eager_does_not_still_sends_the_function_to_eager():
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) == 1:  # the trace raises, the eager call after it does not
            raise KeyError("first call only")
        return x * 2

    compiled = fg.compile(f)
    with pytest.warns(RuntimeWarning, match="runs eagerly from now on: tracing it raised KeyError"):
        out = compiled(fg.tensor([1.0, 2.0]))
    assert out.tolist() == [2.0, 4.0] and len(calls) == 2
    assert compiled._eager_reason is not None


def test_the_value_read_warning_says_why_without_jits_own_prefix():
    compiled = fg.compile(lambda x: x * x.sum().item())
    with pytest.warns(RuntimeWarning) as record:
        compiled(fg.tensor([1.0, 2.0]))
    (w,) = [w for w in record if "funcgrad.compile" in str(w.message)]
    assert "runs eagerly from now on: tensor.item() reads a traced tensor" in str(w.message)
    assert "JitWarning" not in str(w.message) and "_functional" not in str(w.message)
    assert w.filename == __file__


# --- funcgrad.mvlgamma: no domain check, as PyTorch 2.13 -----------------------------------------

MVLGAMMA_VALUES = [-0.25, 0.5, 0.75, 1.0, 2.5, -2.0, float("nan")]


@pytest.mark.parametrize("p", [1, 2, 3])
def test_mvlgamma_outside_the_domain_is_pytorchs(p):
    torch = requires("torch")
    expected = torch.mvlgamma(torch.tensor(MVLGAMMA_VALUES, dtype=torch.float64), p).numpy()
    got = fg.mvlgamma(fg.tensor(MVLGAMMA_VALUES, dtype=fg.float64), p).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)


def test_a_compiled_mvlgamma_replays_the_eager_numbers():
    compiled = fg.compile(lambda x: fg.mvlgamma(x, 3))
    ctx = _no_fallback()
    try:
        for v in ([2.5, 3.0], [0.5, 3.0], [-0.25, 0.75], [float("nan"), 2.0]):
            got = compiled(fg.tensor(v, requires_grad=True))
            assert np.array_equal(
                got.detach().numpy(), fg.mvlgamma(fg.tensor(v), 3).numpy(), equal_nan=True
            )
        assert compiled._jitted.cache_info()["plans"] == 1
    finally:
        ctx.__exit__(None, None, None)


def test_mvlgamma_still_refuses_p_below_1():
    torch = requires("torch")
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        torch.mvlgamma(torch.tensor([2.0]), 0)
    with pytest.raises(OpError, match="p has to be greater than or equal to 1"):
        fg.mvlgamma(fg.tensor([2.0]), 0)


# --- funcgrad.jit: funcgrad.scipy.special.multigammaln against SciPy's error -------------------


def test_a_jit_replay_of_multigammaln_checks_values_as_scipy():
    sp = requires("scipy.special", "scipy")
    bad = np.array([0.5, 3.0])
    with pytest.raises(ValueError):
        sp.multigammaln(bad, 3)
    with pytest.raises(ValueError) as eager:
        fsp.multigammaln(bad, 3)
    jf = fg.jit(lambda a: fsp.multigammaln(a, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)
        good = np.array([2.5, 3.0])
        for _ in range(2):
            assert np.array_equal(jf(good), fsp.multigammaln(good, 3))
        with pytest.raises(ValueError) as replayed:
            jf(bad)
        assert str(replayed.value) == str(eager.value)
        np.testing.assert_allclose(jf(good), sp.multigammaln(good, 3), rtol=1e-14)
    assert jf.cache_info()["plans"] == 1


def test_a_jit_replay_of_binary_cross_entropy_on_arrays_checks_values():
    target = np.array(TARGET)
    jf = fg.jit(lambda p: F.binary_cross_entropy(p, target))
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)
        good = np.array([0.3, 0.4, 0.9])
        assert np.array_equal(jf(good), jf(good))
        with pytest.raises(OpError, match="between 0 and 1"):
            jf(np.array([0.3, 0.4, 1.9]))
        # NaN is refused too (PyTorch's check, `0 <= p <= 1`, is false for NaN)
        with pytest.raises(OpError, match="between 0 and 1"):
            jf(np.array([0.3, np.nan, 0.9]))
        assert np.array_equal(jf(good), F.binary_cross_entropy(good, target))
    assert jf.cache_info()["plans"] == 1


# --- the eager fallback's warning names the function the user called ---------------------------

VALUE_ONLY = {
    "argmax": lambda x: x * fg.argmax(x),
    "argmin": lambda x: x * x.argmin(),
    "argsort": lambda x: x * fg.argsort(x)[0],
    "topk": lambda x: x * fg.topk(x, 1).indices[0],
    "kthvalue": lambda x: x * fg.kthvalue(x, 1).indices,
    "median": lambda x: x * fg.median(x),
    "cummax": lambda x: x * fg.cummax(x, 0).indices,
    "count_nonzero": lambda x: x * fg.count_nonzero(x),
    "amax": lambda x: x * fg.amax(x),
}


@pytest.mark.parametrize("name", sorted(VALUE_ONLY))
def test_the_fallback_warning_names_the_function_called(name):
    f = VALUE_ONLY[name]
    compiled = fg.compile(f)
    x = fg.tensor([1.0, 3.0, 2.0])
    with pytest.warns(RuntimeWarning, match=rf"runs eagerly from now on: tensor\.{name} reads"):
        out = compiled(x)
    assert np.array_equal(out.numpy(), f(x).numpy())


# --- funcgrad.distributions: validate_args checks of parameters and samples ----------------------

DIST_CASES = {
    # name: (function of one tensor via the distribution module `D`, good, bad)
    "Normal scale": (
        lambda D, s: D.Normal(0.0, s).log_prob(s * 0 + 0.5).sum(),
        [1.0, 2.0],
        [-1.0, 2.0],
    ),
    "Exponential support": (
        lambda D, v: D.Exponential(v * 0 + 2.0).log_prob(v).sum(),
        [0.1, 0.2],
        [-0.1, 0.2],
    ),
    "Dirichlet support (simplex)": (
        lambda D, v: D.Dirichlet(v * 0 + 2.0).log_prob(v),
        [0.2, 0.3, 0.5],
        [0.2, 0.3, 0.6],
    ),
    "Uniform support (dependent interval)": (
        lambda D, v: D.Uniform(v * 0, v * 0 + 1.0).log_prob(v).sum(),
        [0.2, 0.3],
        [0.2, 1.3],
    ),
    "Bernoulli probs": (
        lambda D, p: D.Bernoulli(probs=p).log_prob(p * 0 + 1.0).sum(),
        [0.3, 0.6],
        [0.3, 1.6],
    ),
    "MultivariateNormal covariance (positive definite)": (
        lambda D, c: D.MultivariateNormal(c[0] * 0, covariance_matrix=c).log_prob(c[0] * 0),
        [[2.0, 0.5], [0.5, 1.0]],
        [[1.0, 2.0], [2.0, 1.0]],
    ),
}


@pytest.mark.parametrize("name", sorted(DIST_CASES))
def test_a_compiled_replay_validates_distribution_arguments_as_pytorch(name):
    torch = requires("torch")
    f, good, bad = DIST_CASES[name]
    with pytest.raises(ValueError):
        f(torch.distributions, torch.tensor(bad))
    expected = f(torch.distributions, torch.tensor(good)).numpy()
    with pytest.raises(ValueError) as eager:
        f(fg.distributions, fg.tensor(bad))
    compiled = fg.compile(lambda x: f(fg.distributions, x))
    ctx = _no_fallback()
    try:
        for _ in range(2):
            out = compiled(fg.tensor(good))
            assert np.array_equal(out.numpy(), f(fg.distributions, fg.tensor(good)).numpy())
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
        with pytest.raises(ValueError) as replayed:
            compiled(fg.tensor(bad))
        assert str(replayed.value) == str(eager.value)
        assert compiled._jitted.cache_info()["plans"] == 1
    finally:
        ctx.__exit__(None, None, None)


# --- integer division: computed on the values, so a read (eager), never the trace's quotient ---

INT_DIVISIONS = {
    "div floor": lambda m, a, b: m.div(a, b, rounding_mode="floor") + a,
    "div trunc": lambda m, a, b: m.div(a, b, rounding_mode="trunc") + a,
    "floor_divide": lambda m, a, b: m.floor_divide(a, b) + a,
    "//": lambda m, a, b: a // b + a,
}


@pytest.mark.parametrize("name", sorted(INT_DIVISIONS))
def test_a_compiled_integer_division_is_pytorchs_for_every_call(name):
    torch = requires("torch")
    f = INT_DIVISIONS[name]
    compiled = fg.compile(lambda a, b: f(fg, a, b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the read sends compile to eager
        for a, b in ((7, 2), (-7, 2), (12, 5), (9, -4)):
            expected = f(torch, torch.tensor(a), torch.tensor(b)).item()
            assert compiled(fg.tensor(a), fg.tensor(b)).item() == expected, (name, a, b)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            f(torch, torch.tensor(7), torch.tensor(0))
        with pytest.raises(ZeroDivisionError):
            compiled(fg.tensor(7), fg.tensor(0))
