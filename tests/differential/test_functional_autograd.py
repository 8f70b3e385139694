"""funcgrad.numpy and the transforms against HIPS autograd, case by case (`functional_cases.py`).

For every case (a public name in one keyword form) and every check:

* `value`: the result on plain arrays, and on graph nodes, against NumPy
  (`autograd.numpy` on plain arrays): values, shape and dtype; where NumPy
  raises, funcgrad raises too.
* `grad`: `funcgrad.grad` of `sum(f * w)` against `autograd.grad`.
* `jvp`: `funcgrad.jvp` against `autograd.make_jvp` (forward mode); where
  autograd has no JVP rule, against its reverse mode through
  `<w, J t> = <J^T w, t>`.
* `jacobian`: `funcgrad.jacobian` and `funcgrad.jacfwd` against `autograd.jacobian`.
* `hvp`: `funcgrad.hvp` of `sum(f * w)` against autograd's grad of grad.
* `hessian`: `funcgrad.hessian` against `autograd.hessian` (first argument).

funcgrad runs in the drawn dtype (float32 stays float32: checked); autograd
in float64. Allowed differences and known funcgrad bugs are in
`functional_differences.py`.

funcgrad.scipy against autograd.scipy: one case per shared name (values and
gradients at random points), and a test that every name both provide has one.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import FuncgradError
from tests.differential.functional_cases import CASES, EXAMPLES, NOT_IN_AUTOGRAD, Gen
from tests.differential.functional_check import (
    DERIVATIVE_TOL,
    SECOND_ORDER_TOL,
    VALUE_TOL,
    Namespace,
    agree,
    fd_jacobian,
    flat_weights,
    objective,
    outputs,
    plain,
    upcast,
    weights,
)
from tests.differential.functional_differences import (
    KNOWN_MISMATCHES,
    REFERENCES,
    difference,
)
from tests.references import requires

autograd = requires("autograd")
anp = autograd.numpy

SMALL = 40  # the largest argument size for the jacobian and hessian checks

fuzz = settings(max_examples=EXAMPLES)


def _params(check):
    for cid, c in CASES.items():
        if c.name in NOT_IN_AUTOGRAD or not (c.differentiable or check == "value"):
            continue
        marks = []
        if (cid, check) in KNOWN_MISMATCHES:
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[cid, check])]
        yield pytest.param(cid, id=cid, marks=marks)


def _reference(case):
    """Return autograd.numpy, with a composite where a difference says so."""
    if difference(case, "reference"):
        return Namespace(anp, {case.name: REFERENCES[case.name](anp)})
    return anp


def _draw(case, data):
    # Central differences need smooth points: no ties or zeros where they are not.
    smooth_only = difference(case, "fd") and not case.smooth
    g = Gen(data, special=False if smooth_only else None)
    ex = case.draw(g)
    note(f"{case.id}: {ex.describe}; dtype {g.dtype}, special {g.special}")
    for i, a in enumerate(ex.args):
        note(f"arg {i}: {a!r}")
    return g, ex


def _run(cid, check, data):
    case = CASES[cid]
    g, ex = _draw(case, data)
    if check != "value":
        try:
            ex.call(anp, *ex.args)
        except Exception as e:  # NumPy refuses: the value check covers it
            note(f"NumPy raises {type(e).__name__}: {e}")
            return
    CHECK_FUNCTIONS[check](case, g, ex)


# NOTE: one test function per check: hypothesis 6.155 nests the settings of a test one
# level deeper per parametrized run under the derandomized `ci` profile, and a function
# with ~950 parameters hits the recursion limit.
@pytest.mark.parametrize("cid", list(_params("value")))
@fuzz
@given(data=st.data())
def test_value(cid, data):
    _run(cid, "value", data)


@pytest.mark.parametrize("cid", list(_params("grad")))
@fuzz
@given(data=st.data())
def test_grad(cid, data):
    _run(cid, "grad", data)


@pytest.mark.parametrize("cid", list(_params("jvp")))
@fuzz
@given(data=st.data())
def test_jvp(cid, data):
    _run(cid, "jvp", data)


@pytest.mark.parametrize("cid", list(_params("jacobian")))
@fuzz
@given(data=st.data())
def test_jacobian(cid, data):
    _run(cid, "jacobian", data)


@pytest.mark.parametrize("cid", list(_params("hvp")))
@fuzz
@given(data=st.data())
def test_hvp(cid, data):
    _run(cid, "hvp", data)


@pytest.mark.parametrize("cid", list(_params("hessian")))
@fuzz
@given(data=st.data())
def test_hessian(cid, data):
    _run(cid, "hessian", data)


def _check_value(case, g, ex):
    tol = VALUE_TOL[g.dtype]
    leaves = [fg.leaf(a) for a in ex.args]
    try:
        expected = ex.call(anp, *ex.args)
    except Exception as e:  # NumPy refuses: so must funcgrad.
        note(f"NumPy raises {type(e).__name__}: {e}")
        for args in (ex.args, leaves):
            with pytest.raises(Exception):  # noqa: B017
                ex.call(fnp, *args)
        return
    expected = outputs(expected)
    refused = difference(case, "raises")
    for how, args in (("arrays", ex.args), ("nodes", leaves)):
        if refused:  # an allowed refusal: on nodes always, on arrays maybe
            try:
                got = ex.call(fnp, *args)
            except FuncgradError:
                continue
            assert how == "arrays", f"funcgrad computes on nodes; remove the difference: {refused}"
        got = outputs(ex.call(fnp, *args))
        assert len(got) == len(expected), f"{how}: {len(got)} outputs, NumPy {len(expected)}"
        for k, (a, e) in enumerate(zip(got, expected, strict=True)):
            e = np.asarray(e)
            dtype = plain(a).dtype
            assert dtype == e.dtype, f"{how} output {k}: dtype {dtype} != NumPy's {e.dtype}"
            agree(a, e, tol, f"value on {how}, output {k}")


def _setup(case, g, ex):
    """Return the reference namespace, the weights in the dtype and in float64."""
    ref = _reference(case)
    ws = weights(g.rng(), ex.call(anp, *ex.args), g.dtype)
    ws64 = [np.asarray(w, np.float64) for w in ws]
    return ref, ws, ws64


def _use_fd(case, second_order=False):
    return difference(case, "fd") is not None or (second_order and difference(case, "fd2"))


def _expect(case, g, actual, expected, what, second_order=False):
    tol = (SECOND_ORDER_TOL if second_order else DERIVATIVE_TOL)[g.dtype]
    agree(actual, expected, tol, what, bool(difference(case, "nan")))


def _check_dtypes(args, grads, what):
    for i, (a, gr) in enumerate(zip(args, grads, strict=True)):
        gr = plain(gr)
        assert gr.shape == a.shape, f"{what} {i}: shape {gr.shape} != {a.shape}"
        assert gr.dtype == a.dtype, f"{what} {i}: dtype {gr.dtype} != {a.dtype}"


def _jacobians(case, ex, args64):
    """Per argument, the Jacobian of the flattened outputs: `(n_out, *arg.shape)`, in float64.

    From autograd's reverse mode, or central differences for an "fd" difference.
    """
    f = lambda *xs: ex.call(fnp, *xs)  # noqa: E731
    if _use_fd(case):
        return fd_jacobian(f, args64)
    ref = _reference(case)
    n_out = sum(np.size(o) for o in outputs(ex.call(anp, *args64)))

    def flat(*xs):
        return anp.concatenate([anp.ravel(o) for o in outputs(ex.call(ref, *xs))])

    return [
        np.zeros((n_out, *a.shape))  # autograd.jacobian cannot stack no rows
        if n_out == 0 or a.size == 0
        else np.reshape(autograd.jacobian(flat, i)(*args64), (n_out, *a.shape))
        for i, a in enumerate(args64)
    ]


def _check_grad(case, g, ex):
    ref, ws, ws64 = _setup(case, g, ex)
    n = len(ex.args)
    L = objective(fnp, ex.call, ws)
    grads = fg.grad(L, argnums=tuple(range(n)))(*ex.args)
    _check_dtypes(ex.args, grads, "gradient")
    args64 = upcast(ex.args)
    if _use_fd(case):
        w = flat_weights(ws64)
        expected = [
            np.tensordot(w, j, axes=1) for j in fd_jacobian(lambda *xs: ex.call(fnp, *xs), args64)
        ]
    else:
        L64 = objective(ref, ex.call, ws64)
        expected = autograd.grad(lambda xs: L64(*xs))(list(args64))
    for i, (a, e) in enumerate(zip(grads, expected, strict=True)):
        _expect(case, g, a, e, f"gradient {i}")


def _check_jvp(case, g, ex):
    rng = g.rng()
    ts = tuple(np.asarray(rng.uniform(-1, 1, np.shape(a)), a.dtype) for a in ex.args)
    out, t_out = fg.jvp(lambda *xs: ex.call(fnp, *xs), ex.args, ts)
    t_out = outputs(t_out)
    for k, (o, t) in enumerate(zip(outputs(out), t_out, strict=True)):
        assert plain(t).shape == plain(o).shape, f"tangent {k}: shape"
        # a tangent has its output's dtype (float32 in, float32 out, unless NumPy computes in float64)
        assert plain(t).dtype == plain(o).dtype, (
            f"tangent {k}: dtype {plain(t).dtype} != {plain(o).dtype}"
        )
    args64, ts64 = upcast(ex.args), upcast(ts)
    jacs = _jacobians(case, ex, args64)
    expected = sum(np.tensordot(j, t, axes=t.ndim) for j, t in zip(jacs, ts64, strict=True))
    got = [np.ravel(plain(t)).astype(np.float64) for t in t_out]
    got = np.concatenate(got) if got else np.zeros(0)
    expected = np.array(np.reshape(expected, got.shape), dtype=np.float64)
    # Where a value is NaN (a mean over an empty axis), so may its tangent be.
    values = [np.ravel(plain(o)).astype(np.float64) for o in outputs(out)]
    nan = np.isnan(np.concatenate(values)) if values else np.zeros(0, bool)
    got[nan] = expected[nan] = np.nan
    _expect(case, g, got, expected, "tangent (flattened)")


def _check_jacobian(case, g, ex):
    out = ex.call(anp, *ex.args)
    if isinstance(out, (tuple, list)) or sum(a.size for a in ex.args) > SMALL:
        return  # tuple outputs: `grad` and `jvp` cover them
    n = len(ex.args)
    args64 = upcast(ex.args)
    expected = _jacobians(case, ex, args64)
    f = lambda *xs: ex.call(fnp, *xs)  # noqa: E731
    for name, transform in (("jacobian", fg.jacobian), ("jacfwd", fg.jacfwd)):
        got = transform(f, argnums=tuple(range(n)))(*ex.args)
        for i, (a, e) in enumerate(zip(got, expected, strict=True)):
            dtypes = {np.dtype(g.dtype), np.asarray(out).dtype}  # the input's, or NumPy's output's
            assert plain(a).dtype in dtypes, f"{name} {i}: dtype {plain(a).dtype}"
            shape = (*np.shape(out), *args64[i].shape)
            assert plain(a).shape == shape, f"{name} {i}: shape {plain(a).shape} != {shape}"
            _expect(case, g, a, np.reshape(e, shape), f"{name} {i}")


def _grad_fd_jacobian(L, args64):
    """The Hessian by central differences of funcgrad's own (float64) gradient."""
    n = len(args64)
    grad = fg.grad(L, argnums=tuple(range(n)))
    return fd_jacobian(lambda *xs: grad(*xs), args64)


def _check_hvp(case, g, ex):
    ref, ws, ws64 = _setup(case, g, ex)
    rng = g.rng()
    vs = tuple(np.asarray(rng.uniform(-1, 1, np.shape(a)), a.dtype) for a in ex.args)
    L = objective(fnp, ex.call, ws)
    got = fg.hvp(L, ex.args, vs)
    got = (got,) if len(ex.args) == 1 else got  # hvp returns H v shaped like the primals
    _check_dtypes(ex.args, got, "hvp")
    args64, vs64 = upcast(ex.args), upcast(vs)
    if _use_fd(case, second_order=True):
        L64 = objective(fnp, ex.call, ws64)
        hess = _grad_fd_jacobian(L64, args64)  # rows: the flattened gradients
        rows = sum(np.tensordot(h, v, axes=v.ndim) for h, v in zip(hess, vs64, strict=True))
        sizes = np.cumsum([0, *(a.size for a in args64)])
        for i, a in enumerate(args64):
            expected = np.asarray(rows)[sizes[i] : sizes[i + 1]].reshape(a.shape)
            _expect(case, g, got[i], expected, f"hvp {i}", second_order=True)
        return
    L64 = objective(ref, ex.call, ws64)
    grad = autograd.grad(lambda xs: L64(*xs))

    def along(xs):
        return sum(anp.sum(gr * v) for gr, v in zip(grad(xs), vs64, strict=True))

    expected = autograd.grad(along)(list(args64))
    for i, (a, e) in enumerate(zip(got, expected, strict=True)):
        _expect(case, g, a, e, f"hvp {i}", second_order=True)


def _check_hessian(case, g, ex):
    if ex.args[0].size > SMALL // 2:
        return
    ref, ws, ws64 = _setup(case, g, ex)
    L = objective(fnp, ex.call, ws)
    got = fg.hessian(L)(*ex.args)
    x = ex.args[0]
    assert plain(got).shape == x.shape * 2, f"hessian: shape {plain(got).shape}"
    assert plain(got).dtype == g.dtype, f"hessian: dtype {plain(got).dtype}"
    args64 = upcast(ex.args)
    if x.size == 0:
        expected = np.zeros(x.shape * 2)
    elif _use_fd(case, second_order=True):
        L64 = objective(fnp, ex.call, ws64)
        grad0 = fg.grad(L64)
        (jac,) = fd_jacobian(lambda x0: grad0(x0, *args64[1:]), args64[:1])
        expected = jac.reshape(x.shape * 2)
    else:
        expected = autograd.hessian(objective(ref, ex.call, ws64))(*args64)
    _expect(case, g, got, expected, "hessian", second_order=True)


CHECK_FUNCTIONS = {
    "value": _check_value,
    "grad": _check_grad,
    "jvp": _check_jvp,
    "jacobian": _check_jacobian,
    "hvp": _check_hvp,
    "hessian": _check_hessian,
}


# --- funcgrad.scipy against autograd.scipy ----------------------------------------------
#
# One case per name that both `autograd.scipy.<module>` and `funcgrad.scipy.<module>`
# provide (SciPy's public names; a distribution's methods one by one), so that a name both
# libraries have cannot go untested (`test_every_shared_scipy_name_has_a_case`). A case
# draws float64 arguments from a generator and returns them with a call through `s`, a
# namespace with `special`, `stats`, `linalg`, `signal`, `integrate` and `np` (funcgrad's
# or autograd's), and the argument positions differentiated (both libraries have rules
# for them). Values and `grad` of `sum(f * w)` are compared at SCIPY_DRAWS random points.

SCIPY_MODULES = ("special", "stats", "linalg", "signal", "integrate")
SCIPY_DRAWS = 3


def _namespace(np_module, package):
    import importlib

    mods = {m: importlib.import_module(f"{package}.{m}") for m in SCIPY_MODULES}
    return type("Scipy", (), {"np": np_module, **mods})


def _spd(r, n=3):
    a = r.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _u(r, low, high, shape=(4,)):
    return r.uniform(low, high, size=shape)


# name -> draw(r) -> (args, call(s, *args), argnums)
def _unary(name, low, high):
    return lambda r: ((_u(r, low, high),), lambda s, x: getattr(s.special, name)(x), (0,))


SCIPY_CASES = {
    **{
        f"special.{n}": _unary(n, lo, hi)
        for n, lo, hi in [
            ("gammaln", 0.1, 5.0), ("gamma", 0.2, 4.0), ("rgamma", 0.2, 4.0),
            ("digamma", 0.2, 5.0), ("psi", 0.2, 5.0), ("erf", -2.5, 2.5), ("erfc", -2.5, 2.5),
            ("erfinv", -0.9, 0.9), ("erfcinv", 0.1, 1.9), ("expit", -5.0, 5.0),
            ("logit", 0.05, 0.95), ("i0", -3.0, 3.0), ("i1", -3.0, 3.0), ("j0", -5.0, 5.0),
            ("j1", -5.0, 5.0), ("y0", 0.3, 5.0), ("y1", 0.3, 5.0),
        ]
    },  # fmt: skip
    "special.beta": lambda r: (
        (_u(r, 0.3, 4.0), _u(r, 0.3, 4.0)), lambda s, a, b: s.special.beta(a, b), (0, 1)
    ),
    "special.betaln": lambda r: (
        (_u(r, 0.3, 4.0), _u(r, 0.3, 4.0)), lambda s, a, b: s.special.betaln(a, b), (0, 1)
    ),
    "special.betainc": lambda r: (
        (_u(r, 0.05, 0.95),), lambda s, x: s.special.betainc(2.0, 3.5, x), (0,)
    ),
    "special.gammainc": lambda r: (
        (_u(r, 0.1, 5.0),), lambda s, x: s.special.gammainc(2.5, x), (0,)
    ),
    "special.gammaincc": lambda r: (
        (_u(r, 0.1, 5.0),), lambda s, x: s.special.gammaincc(0.7, x), (0,)
    ),
    "special.polygamma": lambda r: (
        (_u(r, 0.3, 5.0),), lambda s, x: s.special.polygamma(2, x), (0,)
    ),
    "special.multigammaln": lambda r: (
        (_u(r, 2.0, 5.0, ()),), lambda s, a: s.special.multigammaln(a, 3), (0,)
    ),
    "special.gammasgn": lambda r: (  # piecewise constant: values only
        (_u(r, -3.0, 3.0),), lambda s, x: s.special.gammasgn(x), ()
    ),
    "special.jn": lambda r: ((_u(r, -4.0, 4.0),), lambda s, x: s.special.jn(2, x), (0,)),
    "special.yn": lambda r: ((_u(r, 0.5, 4.0),), lambda s, x: s.special.yn(2, x), (0,)),
    "special.iv": lambda r: ((_u(r, 0.2, 4.0),), lambda s, x: s.special.iv(1.5, x), (0,)),
    "special.ive": lambda r: ((_u(r, 0.2, 4.0),), lambda s, x: s.special.ive(1.5, x), (0,)),
    "special.logsumexp": lambda r: (
        (r.normal(size=(3, 4)),), lambda s, x: s.special.logsumexp(x, axis=1), (0,)
    ),
    # distributions: every method both provide, gradients in what both differentiate
    **{
        f"stats.norm.{m}": (
            lambda r, m=m: (
                (r.normal(size=4), r.normal(size=4), _u(r, 0.5, 2.0)),
                lambda s, x, loc, scale: getattr(s.stats.norm, m)(x, loc, scale),
                (0, 1, 2),
            )
        )
        for m in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
    },
    **{
        f"stats.t.{m}": (
            lambda r, m=m: (
                (r.normal(size=4), _u(r, 1.5, 6.0), r.normal(size=4), _u(r, 0.5, 2.0)),
                lambda s, x, df, loc, scale: getattr(s.stats.t, m)(x, df, loc, scale),
                (0, 1, 2, 3) if m in ("pdf", "logpdf") else (),  # autograd: no cdf rules
            )
        )
        for m in ("pdf", "logpdf", "cdf", "logcdf")
    },
    **{
        f"stats.beta.{m}": (
            lambda r, m=m: (
                (_u(r, 0.05, 0.95), _u(r, 0.5, 4.0), _u(r, 0.5, 4.0)),
                lambda s, x, a, b: getattr(s.stats.beta, m)(x, a, b),
                (0, 1, 2) if m != "cdf" else (0,),
            )
        )
        for m in ("pdf", "logpdf", "cdf")
    },
    **{
        f"stats.gamma.{m}": (
            lambda r, m=m: (
                (_u(r, 0.2, 5.0), _u(r, 0.5, 4.0)),
                lambda s, x, a: getattr(s.stats.gamma, m)(x, a),
                (0, 1) if m != "cdf" else (0,),
            )
        )
        for m in ("pdf", "logpdf", "cdf")
    },
    **{
        f"stats.chi2.{m}": (  # autograd's rule in x is 0 unless df is an integer; none in df
            lambda r, m=m: (
                (_u(r, 0.2, 5.0),),
                lambda s, x: getattr(s.stats.chi2, m)(x, np.array([1.0, 2.0, 3.0, 5.0])),
                (0,),
            )
        )
        for m in ("pdf", "logpdf", "cdf")
    },
    **{
        f"stats.poisson.{m}": (
            lambda r, m=m: (
                (_u(r, 0.5, 6.0),),
                lambda s, mu: getattr(s.stats.poisson, m)(np.array([0, 1, 3, 7]), mu),
                (0,),
            )
        )
        for m in ("pmf", "logpmf", "cdf")
    },
    **{
        f"stats.dirichlet.{m}": (
            lambda r, m=m: (
                (r.dirichlet(np.ones(3)), _u(r, 0.5, 3.0, (3,))),
                lambda s, x, alpha: getattr(s.stats.dirichlet, m)(x, alpha),
                (0, 1),
            )
        )
        for m in ("pdf", "logpdf")
    },
    **{
        f"stats.multivariate_normal.{m}": (
            lambda r, m=m: (
                (r.normal(size=(2, 3)), r.normal(size=3), r.normal(size=(3, 3))),
                lambda s, x, mean, a: getattr(s.stats.multivariate_normal, m)(
                    x, mean, s.np.dot(a, a.T) + 3.0 * np.eye(3)
                ),
                (0, 1, 2),
            )
        )
        for m in ("pdf", "logpdf")
    },
    "stats.multivariate_normal.entropy": lambda r: (
        (r.normal(size=3), r.normal(size=(3, 3))),
        lambda s, mean, a: s.stats.multivariate_normal.entropy(
            mean, s.np.dot(a, a.T) + 3.0 * np.eye(3)
        ),
        (1,),
    ),
    # linear algebra (matrices built inside the call, so both see the same function);
    # autograd.scipy.linalg wraps SciPy's det, inv, cholesky, expm, solve, eigh, svd and qr
    # without rules: values only here (their gradients: funcgrad.numpy.linalg's cases)
    "linalg.sqrtm": lambda r: ((r.normal(size=(3, 3)),), lambda s, a: s.linalg.sqrtm(
        s.np.dot(a, a.T) + 3.0 * np.eye(3)), (0,)),
    "linalg.solve_triangular": lambda r: (
        (r.normal(size=(3, 3)) + 4.0 * np.eye(3), r.normal(size=(3, 2))),
        lambda s, a, b: s.linalg.solve_triangular(a, b, lower=True),
        (0, 1),
    ),
    "linalg.solve_sylvester": lambda r: (
        (_spd(r), _spd(r), r.normal(size=(3, 3))),
        lambda s, a, b, q: s.linalg.solve_sylvester(a, b, q),
        (0, 1, 2),
    ),
    **{
        f"linalg.{n}": (
            lambda r, n=n: ((_spd(r),), lambda s, a: getattr(s.linalg, n)(a), ())
        )
        for n in ("det", "inv", "cholesky", "expm")
    },
    "linalg.solve": lambda r: (
        (_spd(r), r.normal(size=3)), lambda s, a, b: s.linalg.solve(a, b), ()
    ),
    "linalg.eigh": lambda r: ((_spd(r),), lambda s, a: s.linalg.eigh(a)[0], ()),
    "linalg.svd": lambda r: (
        (r.normal(size=(3, 2)),), lambda s, a: s.linalg.svd(a, compute_uv=False), ()
    ),
    "linalg.qr": lambda r: (
        (r.normal(size=(3, 3)) + 3.0 * np.eye(3),),
        lambda s, a: s.np.abs(s.linalg.qr(a)[1]),
        (),
    ),
    "signal.convolve": lambda r: (
        (r.normal(size=(4, 3)), r.normal(size=(2, 2))),
        lambda s, a, b: s.signal.convolve(a, b, mode="full"),
        (0, 1),
    ),
    "integrate.odeint": lambda r: (
        (_u(r, 0.5, 1.5, (2,)), _u(r, -0.5, 0.5, ())),
        lambda s, y0, k: s.integrate.odeint(  # JAX's *args; autograd's one tuple `args`
            lambda y, t, k: s.np.array([y[1], -k * y[0] - 0.1 * y[1]]), y0,
            np.array([0.0, 0.5, 1.0]), *((k,) if s.np is fnp else ((k,),)),
            rtol=1e-10, atol=1e-10,
        ),
        (0,),  # autograd differentiates `args` only as one tuple: tests/scipy/test_integrate.py
    ),
}  # fmt: skip

# Names both provide that are not compared here, each with the reason.
SCIPY_EXEMPT = {
    "linalg.LinAlgError": "an exception class (funcgrad's is NumPy's LinAlgError and a RuntimeError)",
    "linalg.logm": "autograd has no rule for logm (it wraps SciPy's without one); funcgrad's "
    "is checked against central differences in tests/scipy/test_linalg.py",
    "linalg.cho_factor": "autograd has no rule for cho_factor; funcgrad's (with cho_solve) is "
    "checked against central differences in tests/scipy/test_linalg.py",
    "linalg.cho_solve": "autograd has no rule for cho_solve of a factor; see cho_factor",
    "linalg.lu_factor": "autograd has no rule for lu_factor; funcgrad's (with lu_solve) is "
    "checked against central differences in tests/scipy/test_linalg.py",
    "linalg.lu_solve": "autograd has no rule for lu_solve of a factor; see lu_factor",
}


def _scipy_shared():
    """`module.name` (a distribution's methods: `stats.norm.cdf`) that both libraries provide."""
    import importlib

    shared = set()
    for m in SCIPY_MODULES:
        theirs = importlib.import_module(f"autograd.scipy.{m}")
        ours = importlib.import_module(f"funcgrad.scipy.{m}")
        scipys = importlib.import_module(f"scipy.{m}")
        for n in dir(theirs):
            if n.startswith("_") or not hasattr(ours, n) or not hasattr(scipys, n):
                continue
            if m == "stats":
                methods = set(dir(getattr(theirs, n))) & set(dir(getattr(ours, n)))
                shared |= {f"stats.{n}.{k}" for k in methods if k in _DIST_METHODS}
            elif callable(getattr(theirs, n)):
                shared.add(f"{m}.{n}")
    return shared


_DIST_METHODS = {"pdf", "logpdf", "pmf", "logpmf", "cdf", "logcdf", "sf", "logsf", "entropy"}


def test_every_shared_scipy_name_has_a_case():
    requires("scipy")
    missing = sorted(_scipy_shared() - set(SCIPY_CASES) - set(SCIPY_EXEMPT))
    assert not missing, (
        f"names both funcgrad.scipy and autograd.scipy have, with no case: {missing}"
    )
    stale = sorted((set(SCIPY_CASES) | set(SCIPY_EXEMPT)) - _scipy_shared())
    assert not stale, f"cases for names that are not shared: {stale}"


@pytest.mark.parametrize("name", sorted(SCIPY_CASES))
def test_scipy_against_autograd(name):
    requires("scipy")
    ours = _namespace(fnp, "funcgrad.scipy")
    theirs = _namespace(anp, "autograd.scipy")
    rng = np.random.default_rng(sorted(SCIPY_CASES).index(name))
    for _ in range(SCIPY_DRAWS):
        args, call, argnums = SCIPY_CASES[name](rng)
        expected = np.asarray(call(theirs, *args))
        got = call(ours, *args)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12, err_msg=name)
        w = rng.normal(size=expected.shape)
        for i in argnums:
            g = fg.grad(lambda *a, c=call, w=w: fnp.sum(c(ours, *a) * w), argnums=i)(*args)
            want = autograd.grad(lambda *a, c=call, w=w: anp.sum(c(theirs, *a) * w), i)(*args)
            np.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-10, err_msg=f"{name} d/d{i}")
