"""funcgrad.scipy.special against SciPy (values) and HIPS autograd (gradients).

The primitives' rules are checked against finite differences, at second
order and in float32 by tests/ops/test_rules.py (from each record's Sample);
here: the public functions, the compositions, and the errors.
"""

import subprocess
import sys

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.scipy.special as fsp
from funcgrad.errors import NotDifferentiableError
from tests.references import requires

sp = requires("scipy.special")

RNG = np.random.default_rng(0)


def _u(low, high, shape=(5,)):
    return RNG.uniform(low, high, size=shape)


# name -> (arguments, the position differentiated); orders and shapes as constants
UNARY = {
    "gammaln": (0.1, 5.0),
    "gamma": (0.2, 4.0),
    "rgamma": (0.2, 4.0),
    "digamma": (0.2, 5.0),
    "psi": (0.2, 5.0),
    "erf": (-2.5, 2.5),
    "erfc": (-2.5, 2.5),
    "erfinv": (-0.9, 0.9),
    "erfcinv": (0.1, 1.9),
    "expit": (-5.0, 5.0),
    "logit": (0.05, 0.95),
    "entr": (0.1, 3.0),
    "i0": (-3.0, 3.0),
    "i1": (-3.0, 3.0),
    "i0e": (-3.0, 3.0),
    "i1e": (-3.0, 3.0),
    "j0": (-5.0, 5.0),
    "j1": (-5.0, 5.0),
    "y0": (0.5, 6.0),
    "y1": (0.5, 6.0),
    "ndtr": (-3.0, 3.0),
    "ndtri": (0.05, 0.95),
    "log_ndtr": (-6.0, 3.0),
}
WITH_CONSTANTS = {  # name -> (leading constant arguments, range of x)
    "polygamma": ((2,), (0.3, 5.0)),
    "jn": ((3,), (-5.0, 5.0)),
    "yn": ((2,), (0.5, 6.0)),
    "iv": ((2,), (0.1, 4.0)),
    "ive": ((1,), (0.1, 4.0)),
    "gammainc": ((2.5,), (0.1, 5.0)),
    "gammaincc": ((0.7,), (0.1, 5.0)),
    "betainc": ((2.0, 3.5), (0.05, 0.95)),
}
BINARY = {
    "beta": ((0.3, 4.0), (0.3, 4.0)),
    "betaln": ((0.3, 4.0), (0.3, 4.0)),
    "xlogy": ((-2.0, 2.0), (0.2, 3.0)),
    "xlog1py": ((-2.0, 2.0), (-0.8, 3.0)),
}


def _autograd_special(name):
    ag = requires("autograd.scipy.special", "autograd")
    return getattr(ag, name, None)


def _fd_grad(f, args, i, eps=1e-6):
    """d sum(f) / d args[i] by central differences, entry by entry."""
    x = np.array(args[i], dtype=np.float64)
    out = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        a_up = (*args[:i], up, *args[i + 1 :])
        a_down = (*args[:i], down, *args[i + 1 :])
        out[j] = (np.sum(f(*a_up)) - np.sum(f(*a_down))) / (2 * eps)
    return out


def _check(name, args, i):
    fn = getattr(fsp, name)
    np.testing.assert_allclose(fn(*args), getattr(sp, name)(*args), rtol=1e-12, err_msg=name)
    grad = fg.grad(lambda *a: fn(*a).sum(), argnums=i)(*args)
    ag = _autograd_special(name)
    if ag is not None:
        ag_grad = requires("autograd").grad(lambda *a: ag(*a).sum(), argnum=i)(*args)
        np.testing.assert_allclose(grad, ag_grad, rtol=1e-7, atol=1e-10, err_msg=name)
    else:
        ref = _fd_grad(getattr(sp, name), args, i)
        np.testing.assert_allclose(grad, ref, rtol=1e-5, atol=1e-7, err_msg=name)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_and_gradients(name):
    _check(name, (_u(*UNARY[name]),), 0)


@pytest.mark.parametrize("name", sorted(WITH_CONSTANTS))
def test_constant_argument_functions(name):
    constants, (low, high) = WITH_CONSTANTS[name]
    args = (*constants, _u(low, high))
    _check(name, args, len(constants))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_and_gradients(name):
    r1, r2 = BINARY[name]
    args = (_u(*r1), _u(*r2))
    _check(name, args, 0)
    _check(name, args, 1)


@pytest.mark.parametrize(
    ("name", "position", "arg"),
    [("gammainc", 0, "a"), ("gammaincc", 0, "a"), ("betainc", 0, "a"), ("betainc", 1, "b")],
)
def test_shape_parameters_refuse_gradients(name, position, arg):
    fn = getattr(fsp, name)
    args = [1.5, 2.0, 0.4][: 2 if name != "betainc" else 3]
    with pytest.raises(NotDifferentiableError, match=rf"{name}: no gradient in {arg} "):
        fg.grad(lambda *a: fn(*a), argnums=position)(*args)


# (x, y) on the edges of xlogy's domain: x == 0 with y > 0, y == 0 and y < 0, y <= 0 elsewhere
XLOGY_POINTS = [
    (0.0, 0.0),
    (0.0, -1.0),
    (1.0, -1.0),
    (0.0, 2.0),
    (1.0, 0.0),
    (2.0, 3.0),
    (0.0, -2.0),
]


def _xlogy_derivatives(lib, fn, x, y):
    """The value, both gradients and the four second derivatives of fn(x, y)."""
    xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    yt = lib.tensor(y, dtype=lib.float64, requires_grad=True)
    out = fn(lib)(xt, yt)
    grads = lib.autograd.grad(out, (xt, yt), create_graph=True)
    second = [
        h.item()
        for g in grads
        for h in lib.autograd.grad(g, (xt, yt), allow_unused=True, materialize_grads=True)
    ]
    return np.array([out.item(), grads[0].item(), grads[1].item(), *second])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("name", "fn", "edge"),
    [
        ("xlogy", lambda lib: lib.xlogy, 0.0),
        ("special.xlogy", lambda lib: lib.special.xlogy, 0.0),
        ("special.xlog1py", lambda lib: lib.special.xlog1py, -1.0),
    ],
)
@pytest.mark.parametrize(("x", "y"), XLOGY_POINTS)
def test_xlogy_derivatives_match_pytorch(name, fn, edge, x, y):
    torch = requires("torch")
    y = y + edge  # xlog1py(x, y) is xlogy(x, 1 + y)
    got = _xlogy_derivatives(fg, fn, x, y)
    want = _xlogy_derivatives(torch, fn, x, y)
    if x == 0 and y == edge:
        # d/dy of the gradient in x: PyTorch's masked rule gives 0 * (1 / 0) = NaN
        # on the mask; funcgrad's mask is a constant, so its derivative is 0 there
        assert np.isnan(want[4]) and got[4] == 0
        got[4] = want[4]
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    # the functional API (SciPy's xlogy) has the same derivatives
    sp_fn = {"special.xlog1py": fsp.xlog1py}.get(name, fsp.xlogy)
    gx, gy = fg.grad(sp_fn, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([gx, gy], want[1:3], equal_nan=True)
    hxy = fg.grad(lambda a, b: fg.grad(sp_fn, argnums=1)(a, b))(x, y)
    np.testing.assert_allclose(hxy, want[5], equal_nan=True)


# complex points away from the poles, on both sides of the imaginary axis
_Z = np.array([1.5 + 0.5j, -0.3 + 2.0j, -2.6 - 0.4j, 3.0 - 1.5j, 0.2 + 0.05j])


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_complex_polygamma_matches_mpmath(n):
    # SciPy's polygamma is real only: funcgrad's complex one (recurrence, reflection and the
    # asymptotic series) against mpmath at 30 digits, and against SciPy on the real axis
    mpmath = requires("mpmath")
    rng = np.random.default_rng(n)
    z = np.concatenate([_Z, rng.uniform(-25, 25, 12) + 1j * rng.uniform(-25, 25, 12)])
    with mpmath.workdps(30):
        want = np.array([complex(mpmath.polygamma(n, complex(v))) for v in z])
    np.testing.assert_allclose(fsp.polygamma(n, z), want, rtol=1e-11)
    x = np.array([0.3, 1.7, 6.0, -2.5])
    np.testing.assert_allclose(fsp.polygamma(n, x + 0j).real, sp.polygamma(n, x), rtol=1e-12)
    assert fsp.polygamma(n, z.astype(np.complex64)).dtype == np.complex64
    np.testing.assert_allclose(fsp.polygamma(0, z), sp.psi(z), rtol=1e-14)
    # a NaN entry gives NaN there and leaves the others alone (as SciPy's psi does)
    mixed = fsp.polygamma(n, np.array([complex(np.nan, 0.0), z[0]]))
    assert np.isnan(mixed[0]) and mixed[1] == fsp.polygamma(n, z[:1])[0]


@pytest.mark.parametrize(
    ("name", "derivative"),
    [
        ("gamma", lambda z: sp.gamma(z) * sp.psi(z)),
        ("rgamma", lambda z: -sp.rgamma(z) * sp.psi(z)),
        ("loggamma", sp.psi),
        ("digamma", lambda z: fsp.polygamma(1, z)),
        ("psi", lambda z: fsp.polygamma(1, z)),
    ],
)
def test_complex_gamma_family_is_holomorphic(name, derivative):
    # values as SciPy's; the functional API's derivative is the complex derivative (JAX's
    # convention for a holomorphic function), checked by central differences along the
    # real and the imaginary axis, and to second order by check_grads
    fn = getattr(fsp, name)
    np.testing.assert_allclose(fn(_Z), getattr(sp, name)(_Z), rtol=1e-13)
    d = fg.jacobian(fn, holomorphic=True)(_Z)
    np.testing.assert_allclose(np.diag(d), derivative(_Z), rtol=1e-10)
    for step in (1e-6, 1e-6j):
        numeric = (fn(_Z + step) - fn(_Z - step)) / (2 * step)
        np.testing.assert_allclose(np.diag(d), numeric, rtol=1e-7)
    fg.check_grads(fn, (_Z,), order=2, eps=1e-5)


def test_complex_polygamma_gradients():
    for n in (0, 1, 3):
        fg.check_grads(lambda z, n=n: fsp.polygamma(n, z), (_Z,), order=2, eps=1e-5)
    # a real loss of a complex input: grad is the conjugate of the ascent direction
    g = fg.grad(lambda z: fg.numpy.sum(fg.numpy.abs(fsp.digamma(z)) ** 2))(_Z)
    want = 2 * fsp.digamma(_Z) * np.conj(fsp.polygamma(1, _Z))
    np.testing.assert_allclose(g, np.conj(want), rtol=1e-10)


def test_complex_gammaln_is_refused_as_in_scipy():
    # SciPy's gammaln is real only (loggamma is the complex one), and so is funcgrad's
    with pytest.raises(fg.OpError, match="gammaln"):
        fsp.gammaln(_Z)


def test_second_order_through_compositions():
    # d2/dx2 gammaln = polygamma(1, x); d2/dx2 erf = -2x * 2/sqrt(pi) exp(-x^2)
    x = 1.7
    assert fg.grad(fg.grad(fsp.gammaln))(x) == pytest.approx(sp.polygamma(1, x), rel=1e-12)
    expected = -2 * x * 2 / np.sqrt(np.pi) * np.exp(-x * x)
    assert fg.grad(fg.grad(fsp.erf))(x) == pytest.approx(expected, rel=1e-12)


def test_float32_stays_float32():
    x = np.array([0.5, 1.5], dtype=np.float32)
    for fn in (fsp.gammaln, fsp.digamma, fsp.erf, fsp.expit, fsp.log_ndtr, fsp.i1e):
        assert fn(x).dtype == np.float32, fn.__name__
        assert fg.grad(lambda v, fn=fn: fn(v).sum())(x).dtype == np.float32, fn.__name__
    assert fsp.polygamma(1, x).dtype == np.float32  # SciPy's is float64
    assert fsp.yn(1, x).dtype == np.float32
    assert fsp.gammainc(2.5, x).dtype == np.float32


# --- compositions -----------------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp_matches_scipy(axis, keepdims):
    a = _u(-3.0, 3.0, (3, 4))
    b = _u(-1.0, 1.0, (3, 4))
    for kw in ({}, {"b": b}, {"b": np.abs(b)}):
        for return_sign in (False, True):
            ours = fsp.logsumexp(a, axis=axis, keepdims=keepdims, return_sign=return_sign, **kw)
            ref = sp.logsumexp(a, axis=axis, keepdims=keepdims, return_sign=return_sign, **kw)
            if return_sign:
                np.testing.assert_allclose(ours[0], ref[0], rtol=1e-12)
                np.testing.assert_array_equal(ours[1], ref[1])
                assert np.shape(ours[1]) == np.shape(ref[1])
            else:
                np.testing.assert_allclose(ours, ref, rtol=1e-12)
                assert np.shape(ours) == np.shape(ref)


@pytest.mark.parametrize("b", [2.0, 3, -2.0, np.float64(2.0), np.float32(0.5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_with_a_number_b_has_scipys_dtype(b, dtype):
    # a Python b is weak (NEP 50): float32 a with b=2.0 was float64 (b became a float64 array)
    a = _u(-3.0, 3.0, (3, 4)).astype(dtype)
    for axis in (None, 1):
        for return_sign in (False, True):
            with np.errstate(invalid="ignore"):  # b < 0 without return_sign: NaN, as SciPy's
                ours = fsp.logsumexp(a, axis=axis, b=b, return_sign=return_sign)
                ref = sp.logsumexp(a, axis=axis, b=b, return_sign=return_sign)
            ours, ref = (ours, ref) if return_sign else ((ours,), (ref,))
            for o, r in zip(ours, ref, strict=True):
                assert np.asarray(o).dtype == np.asarray(r).dtype, (b, dtype, axis, return_sign)
                np.testing.assert_allclose(o, r, rtol=1e-6 if dtype == np.float32 else 1e-12)
    g = fg.grad(lambda a: fsp.logsumexp(a, b=b, return_sign=True)[0])(a)
    assert g.dtype == dtype and np.isfinite(g).all()


def test_logsumexp_gradients_match_autograd():
    ag = requires("autograd")
    ags = requires("autograd.scipy.special", "autograd")
    a = _u(-3.0, 3.0, (3, 4))
    b = _u(0.1, 1.0, (3, 4))
    ours = fg.grad(lambda a, b: fsp.logsumexp(a, axis=1, b=b).sum(), argnums=(0, 1))(a, b)
    # autograd 1.9.1 differentiates logsumexp in `a` only (in `b` it fails inside SciPy)
    theirs = ag.grad(lambda a: ags.logsumexp(a, axis=1, b=b).sum())(a)
    np.testing.assert_allclose(ours[0], theirs, rtol=1e-10)
    ref = _fd_grad(lambda b: sp.logsumexp(a, axis=1, b=b), (b,), 0)
    np.testing.assert_allclose(ours[1], ref, rtol=1e-6)
    # a negative weight: the gradient of log|s| against finite differences
    b = _u(-1.0, 1.0, (3, 4))
    grad_b = fg.grad(lambda b: fsp.logsumexp(a, b=b, return_sign=True)[0])(b)
    ref = _fd_grad(lambda b: sp.logsumexp(a, b=b, return_sign=True)[0], (b,), 0)
    np.testing.assert_allclose(grad_b, ref, rtol=1e-5)


def test_softmax_and_log_softmax_default_to_all_axes():
    x = _u(-3.0, 3.0, (2, 3))
    np.testing.assert_allclose(fsp.softmax(x), sp.softmax(x), rtol=1e-12)
    np.testing.assert_allclose(fsp.log_softmax(x), sp.log_softmax(x), rtol=1e-12)
    np.testing.assert_allclose(fsp.softmax(x, axis=1), sp.softmax(x, axis=1), rtol=1e-12)
    w = _u(-1.0, 1.0, (2, 3))
    g = fg.grad(lambda x: (fsp.log_softmax(x, axis=0) * w).sum())(x)
    ref = _fd_grad(lambda x: sp.log_softmax(x, axis=0) * w, (x,), 0)
    np.testing.assert_allclose(g, ref, rtol=1e-6)


def test_multigammaln():
    a = _u(2.0, 5.0, (4,))
    np.testing.assert_allclose(fsp.multigammaln(a, 3), sp.multigammaln(a, 3), rtol=1e-12)
    ag = requires("autograd")
    ags = requires("autograd.scipy.special", "autograd")
    ours = fg.grad(lambda a: fsp.multigammaln(a, 3).sum())(a)
    theirs = ag.grad(lambda a: ags.multigammaln(a, 3).sum())(a)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    with pytest.raises(ValueError, match="multigammaln"):
        fsp.multigammaln(np.array([0.5]), 3)


# --- the optional dependency --------------------------------------------------------------


def test_import_without_scipy_names_the_extra():
    code = (
        "import sys; sys.modules['scipy'] = None; sys.modules['scipy.special'] = None\n"
        "import funcgrad, numpy as np\n"
        "from funcgrad.ops import special\n"  # the primitives are registered without SciPy
        "try:\n"
        "    special.gammaln(np.ones(2))\n"
        "except Exception as e:\n"  # the registry's OpError, with the message
        "    print('call:', e)\n"
        "try:\n"
        "    import funcgrad.scipy\n"
        "except ImportError as e:\n"
        "    print('import:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "funcgrad.scipy.special.gammaln needs SciPy: pip install funcgrad[scipy]" in out.stdout
    assert "import: funcgrad.scipy needs SciPy" in out.stdout
    assert "pip install funcgrad[scipy]" in out.stdout.splitlines()[-1]
