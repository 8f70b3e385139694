"""funcgrad.scipy.stats against scipy.stats (values) and autograd / finite differences (gradients)."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.scipy.stats as fst
from funcgrad.errors import NotDifferentiableError
from tests.references import requires

ss = requires("scipy.stats")

RNG = np.random.default_rng(1)
X = RNG.uniform(0.1, 0.9, size=4)  # inside every continuous support used below

# distribution -> (function names, data, parameters as SciPy takes them, differentiable positions)
DENSITIES = {
    "norm": (X * 4 - 2, (0.3, 1.7)),
    "t": (X * 4 - 2, (3.5, 0.3, 1.7)),
    "gamma": (X * 3, (2.5, -0.2, 1.3)),
    "chi2": (X * 3, (3.5, -0.2, 1.3)),
    "beta": (X, (2.0, 3.5, -0.05, 1.1)),
    "expon": (X * 3, (-0.2, 1.3)),
    "laplace": (X * 4 - 2, (0.3, 1.7)),
    "cauchy": (X * 4 - 2, (0.3, 1.7)),
    "logistic": (X * 4 - 2, (0.3, 1.7)),
}
# distribution functions: every argument but SciPy's shape parameters is differentiated
SHAPES = {"t": 1, "gamma": 1, "chi2": 1, "beta": 2}
CDFS = ["cdf", "logcdf", "sf", "logsf"]


def _fd(f, args, i, eps=1e-6):
    x = np.array(args[i], dtype=np.float64)
    out = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        out[j] = (
            np.sum(f(*args[:i], up, *args[i + 1 :])) - np.sum(f(*args[:i], down, *args[i + 1 :]))
        ) / (2 * eps)
    return out


def _grads(fn, args, positions):
    return fg.grad(lambda *a: fn(*a).sum(), argnums=tuple(positions))(*args)


def _compare(dist, fname, args, positions):
    ours = getattr(getattr(fst, dist), fname)
    ref = getattr(getattr(ss, dist), fname)
    np.testing.assert_allclose(ours(*args), ref(*args), rtol=1e-10, err_msg=f"{dist}.{fname}")
    grads = _grads(ours, args, positions)
    ag_dist = getattr(requires("autograd.scipy.stats", "autograd"), dist, None)
    ag_fn = getattr(ag_dist, fname, None) if ag_dist is not None else None
    for i, g in zip(positions, grads, strict=True):
        expected = None
        if ag_fn is not None and not (dist == "t" and fname == "cdf"):
            try:  # autograd lacks loc and scale, or a gradient, for some
                expected = requires("autograd").grad(lambda *a: ag_fn(*a).sum(), argnum=i)(*args)
            except (TypeError, NotImplementedError, KeyError):  # not in autograd
                pass
        if expected is None:
            expected = _fd(ref, args, i)
        np.testing.assert_allclose(
            g, expected, rtol=1e-5, atol=1e-8, err_msg=f"{dist}.{fname} d/arg{i}"
        )


@pytest.mark.parametrize("dist", sorted(DENSITIES))
@pytest.mark.parametrize("fname", ["logpdf", "pdf"])
def test_densities(dist, fname):
    x, params = DENSITIES[dist]
    args = (x, *params)
    _compare(dist, fname, args, range(len(args)))


@pytest.mark.parametrize("dist", sorted(DENSITIES))
@pytest.mark.parametrize("fname", CDFS)
def test_distribution_functions(dist, fname):
    assert hasattr(getattr(fst, dist), fname), f"{dist}.{fname} is not provided"
    x, params = DENSITIES[dist]
    args = (x, *params)
    shapes = SHAPES.get(dist, 0)
    positions = [0, *range(1 + shapes, len(args))]
    _compare(dist, fname, args, positions)


@pytest.mark.parametrize(
    ("dist", "fname", "args", "positions"),
    [
        ("poisson", "logpmf", (np.array([0.0, 1.0, 3.0, 7.0]), 2.5), [1]),
        ("poisson", "pmf", (np.array([0.0, 1.0, 3.0, 7.0]), 2.5), [1]),
        ("poisson", "cdf", (np.array([0.0, 1.5, 3.0, 7.0]), 2.5), [1]),
        ("poisson", "sf", (np.array([0.0, 1.5, 3.0, 7.0]), 2.5), [1]),
        ("bernoulli", "logpmf", (np.array([0.0, 1.0]), 0.3), [1]),
        ("bernoulli", "pmf", (np.array([0.0, 1.0]), 0.3), [1]),
        ("bernoulli", "cdf", (np.array([-1.0, 0.0, 0.5, 1.0]), 0.3), [1]),
        ("binom", "logpmf", (np.array([0.0, 2.0, 5.0]), 7.0, 0.35), [2]),
        ("binom", "pmf", (np.array([0.0, 2.0, 5.0]), 7.0, 0.35), [2]),
        ("binom", "cdf", (np.array([0.0, 2.0, 5.5]), 7.0, 0.35), [2]),
        ("binom", "sf", (np.array([0.0, 2.0, 5.5]), 7.0, 0.35), [2]),
    ],
)
def test_discrete(dist, fname, args, positions):
    _compare(dist, fname, args, positions)


def test_discrete_outside_support_is_minus_inf():
    assert fst.poisson.logpmf(1.5, 2.0) == -np.inf
    assert fst.binom.logpmf(8.0, 7, 0.3) == -np.inf
    assert fst.bernoulli.logpmf(2.0, 0.3) == -np.inf
    assert fst.gamma.logpdf(-1.0, 2.0) == ss.gamma.logpdf(-1.0, 2.0)


def test_dirichlet():
    alpha = np.array([1.5, 2.0, 3.0])
    x = RNG.dirichlet(alpha, size=4).T  # (K, N), SciPy's layout
    np.testing.assert_allclose(
        fst.dirichlet.logpdf(x, alpha), ss.dirichlet.logpdf(x, alpha), rtol=1e-10
    )
    np.testing.assert_allclose(
        fst.dirichlet.pdf(x[:, 0], alpha), ss.dirichlet.pdf(x[:, 0], alpha), rtol=1e-10
    )
    g_alpha = fg.grad(lambda a: fst.dirichlet.logpdf(x, a).sum())(alpha)
    np.testing.assert_allclose(
        g_alpha, _fd(lambda x, a: ss.dirichlet.logpdf(x, a), (x, alpha), 1), rtol=1e-5
    )
    g_x = fg.grad(lambda x: fst.dirichlet.logpdf(x, alpha).sum())(x)
    np.testing.assert_allclose(g_x, (alpha - 1)[:, None] / x, rtol=1e-10)


def test_multivariate_normal():
    ag = requires("autograd")
    ags = requires("autograd.scipy.stats", "autograd")
    d = 3
    a = RNG.normal(size=(d, d))
    cov = a @ a.T + d * np.eye(d)
    mean = RNG.normal(size=d)
    x = RNG.normal(size=(5, d))
    mvn = fst.multivariate_normal
    np.testing.assert_allclose(
        mvn.logpdf(x, mean, cov), ss.multivariate_normal.logpdf(x, mean, cov), rtol=1e-10
    )
    np.testing.assert_allclose(
        mvn.pdf(x[0], mean, cov), ss.multivariate_normal.pdf(x[0], mean, cov), rtol=1e-10
    )
    np.testing.assert_allclose(
        mvn.logpdf(x, cov=2.0),
        ss.multivariate_normal.logpdf(x, np.zeros(d), 2.0 * np.eye(d)),
        rtol=1e-10,
    )
    ours = fg.grad(lambda *a: mvn.logpdf(*a).sum(), argnums=(0, 1, 2))(x, mean, cov)
    for i in range(3):
        theirs = ag.grad(lambda *a: ags.multivariate_normal.logpdf(*a).sum(), argnum=i)(
            x, mean, cov
        )
        if i == 2:  # autograd symmetrizes the gradient in cov; ours is the formula's
            ours_i = 0.5 * (ours[2] + ours[2].T)
            theirs = 0.5 * (theirs + theirs.T)
        else:
            ours_i = ours[i]
        np.testing.assert_allclose(ours_i, theirs, rtol=1e-8, err_msg=f"argument {i}")
    np.testing.assert_allclose(
        mvn.cdf(x[0], mean, cov), ss.multivariate_normal.cdf(x[0], mean, cov), rtol=1e-4
    )
    with pytest.raises(NotDifferentiableError, match="multivariate_normal.cdf: no gradient in x"):
        fg.grad(lambda x: mvn.cdf(x, mean, cov))(x[0])


def test_shape_parameters_of_distribution_functions_refuse_gradients():
    with pytest.raises(NotDifferentiableError, match="gammainc: no gradient in a"):
        fg.grad(lambda a: fst.gamma.cdf(1.0, a), argnums=0)(2.0)
    with pytest.raises(NotDifferentiableError, match="betainc: no gradient in a"):
        fg.grad(lambda a: fst.beta.cdf(0.3, a, 2.0), argnums=0)(2.0)


def test_float32_stays_float32():
    x = np.array([0.2, 0.7], dtype=np.float32)
    for f in (fst.norm.logpdf, fst.expon.logpdf, fst.logistic.cdf, fst.cauchy.logpdf):
        assert f(x).dtype == np.float32
        assert fg.grad(lambda v, f=f: f(v, 0.5, 2.0).sum())(x).dtype == np.float32
    assert fst.gamma.logpdf(x, 2.0).dtype == np.float32
    assert fst.t.logpdf(x, 3.0).dtype == np.float32
