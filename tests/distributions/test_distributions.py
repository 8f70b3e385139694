"""`funcgrad.distributions` against `torch.distributions`, on the same parameters.

For each distribution (and parameterisation), hypothesis draws bounded batch
shapes, parameters and a value in the support; funcgrad and PyTorch then
compute, in float64, the moments (`mean`, `variance`, `stddev`, `mode`),
`entropy`, `log_prob`, `cdf` and `icdf` where PyTorch has them, and the
gradients of each differentiable one with respect to the parameters.
`rsample` is checked by feeding both libraries the same base noise (or, for
the inverse-CDF draws, against the reparameterisation's own formula), and
`sample` by its shape, dtype, support and moments over many draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.distributions as fd
from tests.references import requires

torch = requires("torch")
td = torch.distributions

TOL = {"rtol": 1e-9, "atol": 1e-11}


# --- drawing parameters ----------------------------------------------------------------


def _batch(data, max_dims=2):
    return tuple(data.draw(st.lists(st.integers(1, 3), max_size=max_dims), label="batch"))


def _rng(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def _u(rng, lo, hi, shape):
    return np.asarray(rng.uniform(lo, hi, size=shape), dtype=np.float64)


def _spd(rng, batch, n):
    a = rng.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


class Spec:
    """How to build one distribution in either library and what to compare.

    `draw(data)` returns `(kwargs, diff, value)`: constructor arguments
    (float arrays become tensors), the names differentiated, and a value in
    the support of shape `batch + event` (or broadcastable to it).
    """

    def __init__(
        self,
        cls,
        draw,
        methods=("mean", "variance", "stddev", "entropy", "log_prob"),
        grad_rtol=1e-9,
        no_torch_grad=(),
    ):
        self.cls, self.draw, self.methods, self.grad_rtol = cls, draw, methods, grad_rtol
        self.no_torch_grad = no_torch_grad  # (method, parameter): PyTorch has no derivative


def _normal(data):
    rng, b = _rng(data), _batch(data)
    kw = {"loc": rng.normal(size=b), "scale": _u(rng, 0.5, 2.0, b)}
    return kw, ["loc", "scale"], rng.normal(size=b) * 2


def _probs_or_logits(data, rng, b):
    if data.draw(st.booleans(), label="logits"):
        return {"logits": rng.normal(size=b) * 2}, ["logits"]
    return {"probs": _u(rng, 0.05, 0.95, b)}, ["probs"]


def _bernoulli(data):
    rng, b = _rng(data), _batch(data)
    kw, diff = _probs_or_logits(data, rng, b)
    return kw, diff, (rng.uniform(size=b) < 0.5).astype(np.float64)


def _categorical(data):
    rng, b = _rng(data), _batch(data)
    k = data.draw(st.integers(1, 4), label="classes")
    if data.draw(st.booleans(), label="logits"):
        kw, diff = {"logits": rng.normal(size=(*b, k)) * 2}, ["logits"]
    else:
        kw, diff = {"probs": _u(rng, 0.1, 1.0, (*b, k))}, ["probs"]  # unnormalised: normalised
    return kw, diff, rng.integers(0, k, size=b).astype(np.int64)


def _one_hot(data):
    kw, diff, idx = _categorical(data)
    k = next(iter(kw.values())).shape[-1]
    return kw, diff, np.eye(k)[idx]


def _mvn(data):
    rng, b = _rng(data), _batch(data, 1)
    n = data.draw(st.integers(1, 3), label="n")
    cov = _spd(rng, b, n)
    form = data.draw(st.sampled_from(["covariance_matrix", "scale_tril", "precision_matrix"]))
    mat = {
        "covariance_matrix": cov,
        "scale_tril": np.linalg.cholesky(cov),
        "precision_matrix": np.linalg.inv(cov),
    }[form]
    loc_batch = b if data.draw(st.booleans(), label="loc batched") else ()
    kw = {"loc": rng.normal(size=(*loc_batch, n)), form: mat}
    return kw, ["loc", form], rng.normal(size=(*b, n))


def _uniform(data):
    rng, b = _rng(data), _batch(data)
    low = rng.normal(size=b)
    high = low + _u(rng, 0.5, 2.0, b)
    return {"low": low, "high": high}, ["low", "high"], low + (high - low) * _u(rng, 0.01, 0.99, b)


def _beta(data):
    rng, b = _rng(data), _batch(data)
    kw = {"concentration1": _u(rng, 0.5, 3.0, b), "concentration0": _u(rng, 0.5, 3.0, b)}
    return kw, list(kw), _u(rng, 0.05, 0.95, b)


def _gamma(data):
    rng, b = _rng(data), _batch(data)
    kw = {"concentration": _u(rng, 0.5, 3.0, b), "rate": _u(rng, 0.5, 2.0, b)}
    return kw, list(kw), _u(rng, 0.1, 3.0, b)


def _exponential(data):
    rng, b = _rng(data), _batch(data)
    return {"rate": _u(rng, 0.5, 2.0, b)}, ["rate"], _u(rng, 0.0, 3.0, b)


def _laplace(data):
    rng, b = _rng(data), _batch(data)
    kw = {"loc": rng.normal(size=b), "scale": _u(rng, 0.5, 2.0, b)}
    return kw, ["loc", "scale"], rng.normal(size=b) * 2


def _log_normal(data):
    rng, b = _rng(data), _batch(data)
    kw = {"loc": rng.normal(size=b) * 0.5, "scale": _u(rng, 0.3, 1.0, b)}
    return kw, ["loc", "scale"], _u(rng, 0.1, 4.0, b)


def _dirichlet(data):
    rng, b = _rng(data), _batch(data, 1)
    k = data.draw(st.integers(2, 4), label="k")
    c = _u(rng, 0.5, 3.0, (*b, k))
    v = _u(rng, 0.1, 1.0, (*b, k))
    return {"concentration": c}, ["concentration"], v / v.sum(-1, keepdims=True)


def _poisson(data):
    rng, b = _rng(data), _batch(data)
    return {"rate": _u(rng, 0.5, 5.0, b)}, ["rate"], rng.integers(0, 6, size=b).astype(np.float64)


def _binomial(data):
    rng, b = _rng(data), _batch(data)
    n = data.draw(st.integers(1, 6), label="total_count")
    kw, diff = _probs_or_logits(data, rng, b)
    kw["total_count"] = float(n)
    return kw, diff, rng.integers(0, n + 1, size=b).astype(np.float64)


_MOMENTS = ("mean", "variance", "stddev", "mode", "entropy", "log_prob")

SPECS = {
    "Normal": Spec(fd.Normal, _normal, (*_MOMENTS, "cdf", "icdf")),
    "Bernoulli": Spec(
        fd.Bernoulli, _bernoulli, ("mean", "variance", "mode", "entropy", "log_prob")
    ),
    "Categorical": Spec(
        fd.Categorical, _categorical, ("mean", "variance", "mode", "entropy", "log_prob")
    ),
    "OneHotCategorical": Spec(
        fd.OneHotCategorical, _one_hot, ("mean", "variance", "mode", "entropy", "log_prob")
    ),
    "MultivariateNormal": Spec(fd.MultivariateNormal, _mvn),
    "Uniform": Spec(
        fd.Uniform, _uniform, ("mean", "variance", "stddev", "entropy", "log_prob", "cdf", "icdf")
    ),
    # trigamma (SciPy's polygamma against PyTorch's own series) agrees to ~1e-9
    "Beta": Spec(fd.Beta, _beta, _MOMENTS, grad_rtol=1e-7),
    "Gamma": Spec(
        fd.Gamma,
        _gamma,
        (*_MOMENTS, "cdf"),
        grad_rtol=1e-7,
        no_torch_grad=[("cdf", "concentration")],  # PyTorch: igamma's input has no derivative
    ),
    "Exponential": Spec(fd.Exponential, _exponential, (*_MOMENTS, "cdf", "icdf")),
    "Laplace": Spec(fd.Laplace, _laplace, (*_MOMENTS, "cdf", "icdf")),
    "LogNormal": Spec(fd.LogNormal, _log_normal, (*_MOMENTS, "cdf", "icdf")),
    "Dirichlet": Spec(fd.Dirichlet, _dirichlet, _MOMENTS, grad_rtol=1e-7),
    "Poisson": Spec(fd.Poisson, _poisson, ("mean", "variance", "mode", "log_prob")),
    "Binomial": Spec(fd.Binomial, _binomial, ("mean", "variance", "mode", "entropy", "log_prob")),
}

# cdf/icdf arguments: icdf takes probabilities
_ICDF_ARG = {"Uniform": None}


# --- building and comparing --------------------------------------------------------------


def _tensor(lib, v, grad=False):
    if isinstance(v, (np.ndarray, np.generic)):
        t = lib.tensor(np.asarray(v))
        if grad and v.dtype.kind == "f":
            t.requires_grad_(True)
        return t
    return v


def _build(lib, spec, kw, diff):
    args = {k: _tensor(lib, v, k in diff) for k, v in kw.items()}
    mod = td if lib is torch else fd
    return getattr(mod, spec.cls.__name__)(**args), args


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _compare(name, got, want, what):
    got, want = _np(got), _np(want)
    assert got.shape == want.shape, f"{name}.{what}: shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got, want, err_msg=f"{name}.{what}", equal_nan=True, **TOL)


def _evaluate(d, method, value, lib):
    if method in ("log_prob", "cdf"):
        return getattr(d, method)(value)
    if method == "icdf":
        return d.icdf(value)
    if method == "entropy":
        return d.entropy()
    return getattr(d, method)


@pytest.mark.parametrize("name", list(SPECS))
@given(data=st.data())
def test_matches_torch(name, data):
    spec = SPECS[name]
    kw, diff, value = spec.draw(data)
    td_, t_args = _build(torch, spec, kw, diff)
    fd_, f_args = _build(fg, spec, kw, diff)
    assert tuple(fd_.batch_shape) == tuple(td_.batch_shape)
    assert tuple(fd_.event_shape) == tuple(td_.event_shape)
    assert fd_.has_enumerate_support == td_.has_enumerate_support
    rng = _rng(data)
    for method in spec.methods:
        if method == "icdf":
            v = _u(rng, 0.05, 0.95, tuple(td_.batch_shape))
        else:
            v = value
        tv, fv = torch.tensor(v), fg.tensor(v)
        want = _evaluate(td_, method, tv, torch)
        got = _evaluate(fd_, method, fv, fg)
        _compare(name, got, want, method)
        if method in ("mode",) or not want.requires_grad:
            continue
        cot = np.linspace(0.5, 1.5, max(want.numel(), 1))[: want.numel()].reshape(tuple(want.shape))
        wrt = [k for k in diff if (method, k) not in spec.no_torch_grad]
        t_grads = torch.autograd.grad(
            (want * torch.tensor(cot)).sum(),
            [t_args[k] for k in wrt],
            allow_unused=True,
            retain_graph=True,
        )
        assert got.requires_grad, f"{name}.{method} lost its gradient"
        f_grads = fg.autograd.grad(
            (got * fg.tensor(cot)).sum(), [f_args[k] for k in wrt], allow_unused=True
        )
        for k, tg, fgr in zip(wrt, t_grads, f_grads, strict=True):
            tg = np.zeros(kw[k].shape) if tg is None else tg.numpy()
            fgr = np.zeros(kw[k].shape) if fgr is None else fgr.numpy()
            np.testing.assert_allclose(
                fgr,
                tg,
                rtol=spec.grad_rtol,
                atol=spec.grad_rtol * 1e-2,
                err_msg=f"{name}.{method}: gradient of {k}",
            )


@pytest.mark.parametrize("name", list(SPECS))
@given(data=st.data())
def test_expand_matches_torch(name, data):
    spec = SPECS[name]
    kw, diff, value = spec.draw(data)
    td_, _ = _build(torch, spec, kw, diff)
    fd_, _ = _build(fg, spec, kw, diff)
    new_batch = (2, *td_.batch_shape)
    te, fe = td_.expand(new_batch), fd_.expand(new_batch)
    assert type(fe) is type(fd_)
    assert tuple(fe.batch_shape) == tuple(te.batch_shape)
    assert tuple(fe.event_shape) == tuple(te.event_shape)
    v = np.broadcast_to(value, (2, *value.shape)).copy()
    _compare(name, fe.log_prob(fg.tensor(v)), te.log_prob(torch.tensor(v)), "expand().log_prob")
    assert tuple(fe.sample().shape) == tuple(te.sample().shape)


# --- sampling ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SPECS))
@given(data=st.data())
def test_sample_shape_dtype_support(name, data):
    spec = SPECS[name]
    kw, diff, _ = spec.draw(data)
    td_, _ = _build(torch, spec, kw, diff)
    fd_, _ = _build(fg, spec, kw, diff)
    sample_shape = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2), label="sample_shape"))
    want = td_.sample(sample_shape)
    got = fd_.sample(sample_shape)
    assert isinstance(got, fg.Tensor)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "")
    assert not got.requires_grad
    # every draw is in the support, and a valid log_prob argument
    assert fd_.support.check(got).numpy().all()
    assert np.isfinite(fd_.log_prob(got).detach().numpy()).all()


_STAT_PARAMS = {
    "Normal": {"loc": np.array([0.5, -1.0]), "scale": np.array([1.0, 2.0])},
    "Bernoulli": {"probs": np.array([0.2, 0.7])},
    "Categorical": {"probs": np.array([0.2, 0.3, 0.5])},
    "OneHotCategorical": {"probs": np.array([0.2, 0.3, 0.5])},
    "MultivariateNormal": {
        "loc": np.array([1.0, -1.0]),
        "covariance_matrix": np.array([[2.0, 0.6], [0.6, 1.0]]),
    },
    "Uniform": {"low": np.array([-1.0, 2.0]), "high": np.array([1.0, 5.0])},
    "Beta": {"concentration1": np.array([0.7, 2.0]), "concentration0": np.array([1.5, 3.0])},
    "Gamma": {"concentration": np.array([0.6, 3.0]), "rate": np.array([1.0, 2.0])},
    "Exponential": {"rate": np.array([0.5, 2.0])},
    "Laplace": {"loc": np.array([0.0, 1.0]), "scale": np.array([1.0, 0.5])},
    "LogNormal": {"loc": np.array([0.0, 0.5]), "scale": np.array([0.5, 0.3])},
    "Dirichlet": {"concentration": np.array([0.5, 1.0, 2.0])},
    "Poisson": {"rate": np.array([0.5, 4.0])},
    "Binomial": {"total_count": 5.0, "probs": np.array([0.3, 0.8])},
}


@pytest.mark.parametrize("name", list(SPECS))
def test_sample_moments(name):
    fg.manual_seed(0)
    n = 20000
    kw = {
        k: (fg.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in _STAT_PARAMS[name].items()
    }
    d = getattr(fd, name)(**kw)
    x = d.sample((n,)).numpy().astype(np.float64)
    if name == "Categorical":  # class frequencies against the probabilities
        freq = np.bincount(x.astype(int), minlength=3) / n
        np.testing.assert_allclose(freq, _STAT_PARAMS[name]["probs"], atol=5 * math.sqrt(0.25 / n))
        return
    mean, var = d.mean.numpy(), d.variance.numpy()
    se = np.sqrt(var / n)
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 5 * se + 1e-12)
    # the sample variance, within about 5 standard errors (a fourth-moment bound)
    np.testing.assert_allclose(x.var(0), var, rtol=0.15)


def test_sample_is_seeded_by_manual_seed():
    d = fd.Normal(fg.zeros(3), 1.0)
    fg.manual_seed(7)
    a = d.sample((2,))
    fg.manual_seed(7)
    b = d.sample((2,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# --- rsample: the reparameterisation -----------------------------------------------------


def _same_noise(monkeypatch, eps):
    """Make both libraries' normal draws return `eps`."""
    import funcgrad.distributions.multivariate_normal as fmvn
    import funcgrad.distributions.normal as fnormal

    monkeypatch.setattr(fnormal, "standard_normal", lambda shape, like: eps.astype(like.dtype))
    monkeypatch.setattr(fmvn, "standard_normal", lambda shape, like: eps.astype(like.dtype))
    for mod in (td.normal, td.multivariate_normal):
        monkeypatch.setattr(
            mod, "_standard_normal", lambda shape, dtype, device: torch.tensor(eps, dtype=dtype)
        )


@pytest.mark.parametrize("name", ["Normal", "MultivariateNormal", "LogNormal"])
@given(data=st.data())
def test_rsample_same_noise_matches_torch(name, data):
    spec = SPECS[name]
    kw, diff, _ = spec.draw(data)
    td_, t_args = _build(torch, spec, kw, diff)
    fd_, f_args = _build(fg, spec, kw, diff)
    sample_shape = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2), label="sample_shape"))
    shape = (*sample_shape, *td_.batch_shape, *td_.event_shape)
    eps = _rng(data).normal(size=shape)
    with pytest.MonkeyPatch.context() as mp:
        _same_noise(mp, eps)
        want = td_.rsample(sample_shape)
        got = fd_.rsample(sample_shape)
    _compare(name, got, want, "rsample")
    # a loss of the draws, differentiated through them (the pathwise gradient)
    t_grads = torch.autograd.grad((want**2).sum(), [t_args[k] for k in diff])
    f_grads = fg.autograd.grad((got**2).sum(), [f_args[k] for k in diff])
    for k, tg, fgr in zip(diff, t_grads, f_grads, strict=True):
        np.testing.assert_allclose(fgr.numpy(), tg.numpy(), err_msg=f"{name}: d/d{k}", **TOL)


def test_rsample_uniform_same_noise_matches_torch():
    u = np.random.default_rng(1).uniform(size=(4, 2))
    low, high = np.array([0.0, -1.0]), np.array([1.0, 3.0])
    tl, th = torch.tensor(low, requires_grad=True), torch.tensor(high, requires_grad=True)
    fl, fh = fg.tensor(low, requires_grad=True), fg.tensor(high, requires_grad=True)
    import funcgrad.distributions.uniform as fu

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fu, "uniform", lambda shape, like: u.astype(like.dtype))
        mp.setattr(torch, "rand", lambda *a, **k: torch.tensor(u))
        want = td.Uniform(tl, th).rsample((4,))
        got = fd.Uniform(fl, fh).rsample((4,))
    _compare("Uniform", got, want, "rsample")
    tg = torch.autograd.grad((want**3).sum(), [tl, th])
    fgr = fg.autograd.grad((got**3).sum(), [fl, fh])
    for a, b in zip(fgr, tg, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **TOL)


@pytest.mark.parametrize(
    ("cls", "params", "noise"),
    [
        # x = loc + scale * e: dx/dloc = 1, dx/dscale = (x - loc) / scale
        (
            fd.Laplace,
            {"loc": [0.5, -1.0], "scale": [1.0, 2.0]},
            lambda x, p: (x - p["loc"]) / p["scale"],
        ),
        (
            fd.Normal,
            {"loc": [0.5, -1.0], "scale": [1.0, 2.0]},
            lambda x, p: (x - p["loc"]) / p["scale"],
        ),
    ],
)
def test_rsample_location_scale_gradients(cls, params, noise):
    p = {k: fg.tensor(v, dtype=fg.float64, requires_grad=True) for k, v in params.items()}
    x = cls(**p).rsample((5,))
    g_loc, g_scale = fg.autograd.grad(x.sum(), [p["loc"], p["scale"]])
    e = noise(x.detach().numpy(), {k: np.asarray(v) for k, v in params.items()})
    np.testing.assert_allclose(g_loc.numpy(), [5.0, 5.0])
    np.testing.assert_allclose(g_scale.numpy(), e.sum(0), rtol=1e-12)


def test_rsample_exponential_gradient():
    rate = fg.tensor([0.5, 2.0], dtype=fg.float64, requires_grad=True)
    x = fd.Exponential(rate).rsample((6,))
    (g,) = fg.autograd.grad(x.sum(), [rate])
    # x = e / rate: dx/drate = -x / rate
    np.testing.assert_allclose(g.numpy(), (-x.detach().numpy() / rate.detach().numpy()).sum(0))


def test_sample_has_no_gradient_and_rsample_has():
    loc = fg.zeros(2, requires_grad=True)
    d = fd.Normal(loc, 1.0)
    assert not d.sample().requires_grad
    assert d.rsample().requires_grad
    assert fd.Normal.has_rsample and not fd.Categorical.has_rsample


# --- validation, reprs, errors -----------------------------------------------------------


def _first_line(e):
    return str(e).splitlines()[0]


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.Normal(0.0, -1.0),
        lambda m, lib=None: m.Bernoulli(probs=1.5),
        lambda m: m.Uniform(1.0, 0.0),
        lambda m: m.Gamma(1.0, 0.0),
    ],
)
def test_validation_errors_match_torch(build):
    with pytest.raises(ValueError) as want:
        build(td)
    with pytest.raises(ValueError) as got:
        build(fd)
    assert _first_line(got.value) == _first_line(want.value)


def test_log_prob_value_errors_match_torch():
    for mod in (td, fd):
        lib = torch if mod is td else fg
        d = mod.Normal(lib.zeros(2), 1.0)
        with pytest.raises(ValueError, match="Value is not broadcastable with batch_shape"):
            d.log_prob(lib.zeros(3))
        with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
            d.log_prob(0.0)
        with pytest.raises(
            ValueError, match=r"Expected value argument .* to be within the support"
        ):
            mod.Bernoulli(probs=lib.tensor([0.5])).log_prob(lib.tensor([0.5]))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        fd.Bernoulli()
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix"):
        fd.MultivariateNormal(fg.zeros(2))
    # no validation when asked
    assert fd.Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0


def test_reprs_match_torch():
    cases = [
        lambda m, lib: m.Normal(lib.zeros(3), 1.0),
        lambda m, lib: m.Normal(0.0, 1.0),
        lambda m, lib: m.Categorical(logits=lib.zeros(2, 3)),
        lambda m, lib: m.Independent(m.Normal(lib.zeros(3), 1.0), 1),
        lambda m, lib: m.MultivariateNormal(lib.zeros(2), lib.eye(2)),
        lambda m, lib: m.Uniform(0.0, 1.0),
    ]
    for build in cases:
        want = repr(build(td, torch)).replace("torch.Size", "funcgrad.Size")
        assert repr(build(fd, fg)) == want
    assert repr(fd.constraints.positive) == repr(td.constraints.positive)
    assert repr(fd.constraints.real_vector) == repr(td.constraints.real_vector)
    assert repr(fd.constraints.simplex) == repr(td.constraints.simplex)


def test_enumerate_support_matches_torch():
    for build in (
        lambda m, lib: m.Bernoulli(probs=lib.tensor([0.2, 0.7], dtype=lib.float64)),
        lambda m, lib: m.Categorical(probs=lib.tensor([[0.2, 0.8], [0.5, 0.5]], dtype=lib.float64)),
        lambda m, lib: m.OneHotCategorical(probs=lib.tensor([0.2, 0.3, 0.5], dtype=lib.float64)),
        lambda m, lib: m.Binomial(3, lib.tensor([0.2, 0.7], dtype=lib.float64)),
    ):
        for expand in (True, False):
            want = build(td, torch).enumerate_support(expand)
            got = build(fd, fg).enumerate_support(expand)
            _compare("enumerate_support", got, want, f"expand={expand}")


def test_independent_of_normal():
    loc = fg.zeros(4, 3, requires_grad=True)
    d = fd.Independent(fd.Normal(loc, 1.0), 1)
    assert tuple(d.batch_shape) == (4,) and tuple(d.event_shape) == (3,)
    with pytest.raises(ValueError, match="Expected reinterpreted_batch_ndims <= len"):
        fd.Independent(fd.Normal(loc, 1.0), 3)


def test_categorical_reinforce_gradient():
    # REINFORCE: grad of E[r(a)] = E[r(a) grad log p(a)], exact over the enumerated support
    logits = fg.tensor([0.3, -0.2, 1.0], dtype=fg.float64, requires_grad=True)
    reward = np.array([1.0, 2.0, -1.0])
    d = fd.Categorical(logits=logits)
    actions = d.enumerate_support()
    lp = d.log_prob(actions)
    surrogate = (lp.exp().detach() * lp * fg.tensor(reward)).sum()
    (g,) = fg.autograd.grad(surrogate, [logits])
    p = np.exp(logits.detach().numpy()) / np.exp(logits.detach().numpy()).sum()
    expected = p * (reward - (p * reward).sum())  # d/dlogits of sum p * r
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)


# --- implicit reparameterisation: Gamma, Beta, Dirichlet -----------------------------------


def test_gamma_implicit_gradient_matches_torchs():
    from funcgrad.distributions.gamma import standard_gamma_grad

    rng = np.random.default_rng(0)
    a = rng.uniform(0.1, 20.0, size=200)
    x = rng.gamma(a)
    want = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    # PyTorch's series and rational approximations are good to a few 1e-4 relative (at
    # a = 11.4, x = 9.8 it is 2.4e-4 off the exact 1.466168962..., which funcgrad gives)
    np.testing.assert_allclose(standard_gamma_grad(a, x), want, rtol=5e-4, atol=1e-8)


def test_gamma_rsample_gradient_is_the_implicit_one_per_draw():
    from funcgrad.distributions.gamma import standard_gamma_grad

    a = fg.tensor([0.5, 2.0, 7.0], dtype=fg.float64, requires_grad=True)
    rate = fg.tensor([1.0, 3.0, 0.5], dtype=fg.float64, requires_grad=True)
    x = fd.Gamma(a, rate).rsample((4,))
    g_a, g_rate = fg.autograd.grad(x.sum(), [a, rate])
    xv, rv = x.detach().numpy(), rate.detach().numpy()
    np.testing.assert_allclose(
        g_a.numpy(), (standard_gamma_grad(a, xv * rv) / rv).sum(0), rtol=1e-10
    )
    np.testing.assert_allclose(g_rate.numpy(), (-xv / rv).sum(0), rtol=1e-10)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        # d/dparams of E[x]: Gamma: a / r; Beta: a / (a + b); Dirichlet: w . c / sum(c)
        (lambda p: fd.Gamma(p[0], p[1]), lambda a, b: (1 / b, -a / b**2)),
        (lambda p: fd.Beta(p[0], p[1]), lambda a, b: (b / (a + b) ** 2, -a / (a + b) ** 2)),
    ],
)
def test_implicit_rsample_gradients_are_unbiased(build, expected):
    fg.manual_seed(1)
    params = [fg.tensor([0.7, 2.5], dtype=fg.float64, requires_grad=True) for _ in range(2)]
    params[1] = fg.tensor([1.5, 0.8], dtype=fg.float64, requires_grad=True)
    x = build(params).rsample((40000,))
    grads = fg.autograd.grad(x.mean(0).sum(), params)
    a, b = (p.detach().numpy() for p in params)
    for got, want in zip(grads, expected(a, b), strict=True):
        np.testing.assert_allclose(got.numpy(), want, rtol=0.05, atol=2e-3)


def test_dirichlet_rsample_gradient_is_unbiased():
    fg.manual_seed(2)
    c = fg.tensor([0.5, 1.0, 2.0], dtype=fg.float64, requires_grad=True)
    w = np.array([1.0, 2.0, 3.0])
    x = fd.Dirichlet(c).rsample((40000,))
    (g,) = fg.autograd.grad((x.mean(0) * fg.tensor(w)).sum(), [c])
    cv = c.detach().numpy()
    expected = w / cv.sum() - (cv * w).sum() / cv.sum() ** 2
    np.testing.assert_allclose(g.numpy(), expected, rtol=0.05, atol=2e-3)
    assert fd.Gamma.has_rsample and fd.Beta.has_rsample and fd.Dirichlet.has_rsample
