"""`funcgrad.distributions.kl_divergence` against `torch.distributions.kl_divergence`.

For every pair of types with a rule, hypothesis draws a batch shape and
the parameters of both distributions; the KL divergences and their
gradients with respect to every parameter of both must agree in float64
(infinite where PyTorch's is infinite).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.distributions as fd
from tests.references import requires

torch = requires("torch")
td = torch.distributions


def _u(rng, lo, hi, shape):
    return np.asarray(rng.uniform(lo, hi, size=shape), dtype=np.float64)


def _spd(rng, b, n):
    a = rng.normal(size=(*b, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# type name -> parameters for (rng, batch, k); k is the event size where there is one
MAKE = {
    "Normal": lambda r, b, k: {"loc": r.normal(size=b), "scale": _u(r, 0.5, 2.0, b)},
    "Bernoulli": lambda r, b, k: {"probs": _u(r, 0.05, 0.95, b)},
    "Categorical": lambda r, b, k: {"logits": r.normal(size=(*b, k))},
    "OneHotCategorical": lambda r, b, k: {"probs": _u(r, 0.1, 1.0, (*b, k))},
    "MultivariateNormal": lambda r, b, k: {
        "loc": r.normal(size=(*b, k)),
        "scale_tril": np.linalg.cholesky(_spd(r, b, k)),
    },
    "Uniform": lambda r, b, k: (lambda lo: {"low": lo, "high": lo + _u(r, 0.5, 2.0, b)})(
        r.normal(size=b) * 0.3
    ),
    "Beta": lambda r, b, k: {
        "concentration1": _u(r, 0.5, 3.0, b),
        "concentration0": _u(r, 0.5, 3.0, b),
    },
    "Binomial": lambda r, b, k: {"total_count": 4.0, "probs": _u(r, 0.05, 0.95, b)},
    "Dirichlet": lambda r, b, k: {"concentration": _u(r, 0.5, 3.0, (*b, k))},
    "Exponential": lambda r, b, k: {"rate": _u(r, 0.5, 2.0, b)},
    "Gamma": lambda r, b, k: {"concentration": _u(r, 0.5, 3.0, b), "rate": _u(r, 0.5, 2.0, b)},
    "Laplace": lambda r, b, k: {"loc": r.normal(size=b), "scale": _u(r, 0.5, 2.0, b)},
    "Poisson": lambda r, b, k: {"rate": _u(r, 0.5, 4.0, b)},
    "LogNormal": lambda r, b, k: {"loc": r.normal(size=b) * 0.5, "scale": _u(r, 0.3, 1.0, b)},
    "Uniform01": lambda r, b, k: {"low": _u(r, 0.0, 0.3, b), "high": _u(r, 0.6, 1.0, b)},
    "UniformPositive": lambda r, b, k: {"low": _u(r, 0.1, 1.0, b), "high": _u(r, 1.5, 3.0, b)},
}

PAIRS = [
    ("Normal", "Normal"),
    ("Bernoulli", "Bernoulli"),
    ("Categorical", "Categorical"),
    ("OneHotCategorical", "OneHotCategorical"),
    ("MultivariateNormal", "MultivariateNormal"),
    ("Uniform", "Uniform"),
    ("Beta", "Beta"),
    ("Binomial", "Binomial"),
    ("Dirichlet", "Dirichlet"),
    ("Exponential", "Exponential"),
    ("Gamma", "Gamma"),
    ("Laplace", "Laplace"),
    ("Poisson", "Poisson"),
    ("LogNormal", "LogNormal"),
    ("Normal", "Uniform"),
    ("Uniform", "Normal"),
    ("Laplace", "Normal"),
    ("Exponential", "Normal"),
    ("Exponential", "Gamma"),
    ("Gamma", "Exponential"),
    ("Gamma", "Normal"),
    ("Beta", "Normal"),
    ("Beta", "Uniform01"),
    ("Beta", "Uniform"),
    ("UniformPositive", "Exponential"),
    ("Uniform", "Exponential"),
    ("UniformPositive", "Gamma"),
    ("Uniform01", "Beta"),
]

# trigamma-based gradients: SciPy's polygamma against PyTorch's own
LOOSE = {"Beta", "Gamma", "Dirichlet"}


def _type(name):
    return "Uniform" if name.startswith("Uniform") else name


def _build(lib, name, kw):
    mod = td if lib is torch else fd
    args = {}
    for k, v in kw.items():
        if isinstance(v, (np.ndarray, np.generic)):
            args[k] = lib.tensor(np.asarray(v), requires_grad=True)
        else:
            args[k] = v
    return getattr(mod, _type(name))(**args, validate_args=False), args


@pytest.mark.parametrize(("p_name", "q_name"), PAIRS, ids=[f"{p}-{q}" for p, q in PAIRS])
@given(data=st.data())
def test_kl_matches_torch(p_name, q_name, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    batch = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2), label="batch"))
    k = data.draw(st.integers(2, 3), label="k")
    p_kw, q_kw = MAKE[p_name](rng, batch, k), MAKE[q_name](rng, batch, k)
    tp, tpa = _build(torch, p_name, p_kw)
    tq, tqa = _build(torch, q_name, q_kw)
    fp, fpa = _build(fg, p_name, p_kw)
    fq, fqa = _build(fg, q_name, q_kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = td.kl_divergence(tp, tq)
    got = fd.kl_divergence(fp, fq)
    assert tuple(got.shape) == tuple(want.shape)
    tol = (
        {"rtol": 1e-7, "atol": 1e-9}
        if {_type(p_name), q_name} & LOOSE
        else {"rtol": 1e-9, "atol": 1e-11}
    )
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), err_msg="kl", **tol)
    if not want.requires_grad or not np.isfinite(want.detach().numpy()).all():
        return
    t_params = [*tpa.values(), *tqa.values()]
    f_params = [*fpa.values(), *fqa.values()]
    keep = [i for i, t in enumerate(t_params) if isinstance(t, torch.Tensor)]
    t_grads = torch.autograd.grad(want.sum(), [t_params[i] for i in keep], allow_unused=True)
    f_grads = fg.autograd.grad(got.sum(), [f_params[i] for i in keep], allow_unused=True)
    names = [*(f"p.{n}" for n in tpa), *(f"q.{n}" for n in tqa)]
    for i, tg, fgr in zip(keep, t_grads, f_grads, strict=True):
        shape = t_params[i].shape
        tg = np.zeros(shape) if tg is None else tg.numpy()
        fgr = np.zeros(shape) if fgr is None else fgr.numpy()
        np.testing.assert_allclose(fgr, tg, err_msg=f"gradient of {names[i]}", **tol)


def test_independent_kl_sums_the_reinterpreted_dims():
    p = fd.Independent(fd.Normal(fg.zeros(4, 3), fg.ones(4, 3)), 1)
    q = fd.Independent(fd.Normal(fg.ones(4, 3), 2 * fg.ones(4, 3)), 1)
    tp = td.Independent(td.Normal(torch.zeros(4, 3), torch.ones(4, 3)), 1)
    tq = td.Independent(td.Normal(torch.ones(4, 3), 2 * torch.ones(4, 3)), 1)
    np.testing.assert_allclose(
        fd.kl_divergence(p, q).numpy(), td.kl_divergence(tp, tq).numpy(), rtol=1e-6
    )
    with pytest.raises(NotImplementedError):
        fd.kl_divergence(p, fd.Independent(fd.Normal(fg.zeros(4, 3), 1.0), 2))


def test_uniform_kl_is_infinite_outside_the_support():
    p, q = (
        fd.Uniform(fg.tensor([0.0]), fg.tensor([2.0])),
        fd.Uniform(fg.tensor([0.5]), fg.tensor([3.0])),
    )
    assert np.isinf(fd.kl_divergence(p, q).numpy()).all()


def test_register_kl_picks_the_most_specific_rule():
    class MyNormal(fd.Normal):
        pass

    @fd.register_kl(MyNormal, fd.Normal)
    def _kl(p, q):
        return p.loc * 0.0 + 42.0

    p, q = MyNormal(fg.zeros(2), 1.0), fd.Normal(fg.zeros(2), 1.0)
    np.testing.assert_array_equal(fd.kl_divergence(p, q).numpy(), [42.0, 42.0])
    np.testing.assert_array_equal(fd.kl_divergence(q, q).numpy(), [0.0, 0.0])  # the base rule


def test_kl_without_a_rule_raises():
    with pytest.raises(NotImplementedError, match="No KL"):
        fd.kl_divergence(fd.Poisson(1.0), fd.Normal(0.0, 1.0))
    with pytest.raises(TypeError):
        fd.register_kl(int, fd.Normal)
