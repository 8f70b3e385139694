"""HIPS autograd's top-level operators, builtins, extend and test_util, against autograd 1.9.1.

A program written for autograd ports by changing the import: every public
name of `autograd`'s top-level namespace, `autograd.extend`,
`autograd.builtins` and `autograd.test_util` exists in funcgrad's (or an
exemption below says why not), and each operator gives autograd's numbers
on the same functions and inputs.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.builtins as fbuiltins
import funcgrad.extend as fextend
import funcgrad.numpy as fnp
import funcgrad.test_util as ftest_util
from tests.references import requires

autograd = requires("autograd")
anp = requires("autograd.numpy")
# Submodules by name: `import autograd` alone need not load them.
ag_extend = requires("autograd.extend")
ag_builtins = requires("autograd.builtins")
ag_test_util = requires("autograd.test_util")

# autograd's names that funcgrad leaves out on purpose, with the reason.
EXEMPT = {
    # The container types and isinstance/type of autograd.builtins: at funcgrad's top level
    # they would shadow Python's builtins for `from funcgrad import *` (funcgrad is also
    # `import funcgrad as torch`); they are in funcgrad.builtins, as in autograd.builtins.
    "dict": "funcgrad.builtins",
    "list": "funcgrad.builtins",
    "tuple": "funcgrad.builtins",
    "isinstance": "funcgrad.builtins",
    "type": "funcgrad.builtins",
    # autograd's internals (its boxes, vector spaces, tracer), which funcgrad's graph of
    # frozen nodes replaces.
    "Box": "internals",
    "VSpace": "internals",
    "vspace": "internals",
    "JVPNode": "internals",
    "VJPNode": "internals",
    "SparseObject": "internals",
    "register_notrace": "internals",
    # A linear function's JVP is the function itself; funcgrad derives a reverse rule by
    # transposing the JVP, which for a function that is its own rule never ends: give the
    # primitive its VJP rule (`defvjp`) and JVP rule (`defjvp`) instead.
    "def_linear": "defvjp and defjvp",
    "defjvp_argnums": "defjvp_argnum",
}

SURFACES = [
    ("autograd", "funcgrad"),
    ("autograd.extend", "funcgrad.extend"),
    ("autograd.builtins", "funcgrad.builtins"),
    ("autograd.test_util", "funcgrad.test_util"),
]
# The names of these modules that autograd's users call.
OWN_SURFACE = {
    "autograd.test_util": {"check_grads"},
    "autograd.builtins": {"dict", "isinstance", "list", "tuple", "type"},
}


def _public(module) -> set[str]:
    return {
        n
        for n in dir(module)
        if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType)
    }


@pytest.mark.parametrize(("theirs", "ours"), SURFACES)
def test_every_autograd_name_exists(theirs, ours):
    import importlib

    them, us = importlib.import_module(theirs), importlib.import_module(ours)
    # autograd.test_util's helpers besides check_grads are its own test machinery, and
    # autograd.builtins' other names are its boxes and the rules behind its containers.
    names = OWN_SURFACE.get(theirs) or _public(them)
    missing = sorted(n for n in names if not hasattr(us, n) and n not in EXEMPT)
    assert not missing, f"{ours} lacks autograd's {missing}"
    if ours == "funcgrad":
        for name in EXEMPT.keys() & names:
            where = EXEMPT[name]
            if where.startswith("funcgrad."):
                assert hasattr(importlib.import_module(where), name), (name, where)


def test_exemptions_are_real_autograd_names():
    names = set()
    for theirs, _ in SURFACES:
        names |= _public(__import__(theirs, fromlist=["_"]))
    assert set(EXEMPT) <= names, sorted(set(EXEMPT) - names)


RNG = np.random.default_rng(0)
X = RNG.standard_normal(4)
V = RNG.standard_normal(4)
M = RNG.standard_normal((3, 4))


def pair(np_):
    """A function of two arguments written against a NumPy namespace (autograd's or funcgrad's)."""
    return lambda x, m: np_.tanh(np_.dot(m, np_.sin(x) * x))


def scalar(np_):
    return lambda x, m: np_.sum(np_.tanh(np_.dot(m, x)) ** 2) + np_.sum(x**3)


CASES = {
    "elementwise_grad": lambda ops, np_: ops.elementwise_grad(lambda x: np_.sin(x) * x**2)(X),
    "elementwise_grad argnum 1": lambda ops, np_: ops.elementwise_grad(pair(np_), 1)(X, M),
    "deriv": lambda ops, np_: ops.deriv(lambda x: np_.exp(np_.sin(x)))(X),
    "holomorphic_grad": lambda ops, np_: ops.holomorphic_grad(lambda z: np_.sum(np_.sin(z) * z))(
        X + 1j * V
    ),
    "make_vjp": lambda ops, np_: (lambda vjp_ans: (vjp_ans[0](np.ones(3)), vjp_ans[1]))(
        ops.make_vjp(pair(np_), 1)(X, M)
    ),
    "make_jvp": lambda ops, np_: ops.make_jvp(pair(np_))(X, M)(V),
    "make_hvp": lambda ops, np_: (lambda h_g: (h_g[0](V), h_g[1]))(ops.make_hvp(scalar(np_))(X, M)),
    "grad_and_aux": lambda ops, np_: ops.grad_and_aux(lambda x: (np_.sum(x**2), x * 2))(X),
    "grad_named": lambda ops, np_: ops.grad_named(scalar(np_), "m")(X, M),
    "hessian_tensor_product": lambda ops, np_: ops.hessian_tensor_product(scalar(np_))(X, M, V),
    "hessian_vector_product": lambda ops, np_: ops.hessian_vector_product(scalar(np_), 1)(
        X, M, M[::-1]
    ),
    "tensor_jacobian_product": lambda ops, np_: ops.tensor_jacobian_product(pair(np_))(
        X, M, np.arange(3.0)
    ),
    "vector_jacobian_product": lambda ops, np_: ops.vector_jacobian_product(pair(np_), 1)(
        X, M, np.arange(3.0)
    ),
    "make_ggnvp": lambda ops, np_: ops.make_ggnvp(lambda x: np_.tanh(np_.dot(M, x)))(X)(V),
    "make_ggnvp with g": lambda ops, np_: ops.make_ggnvp(
        lambda x, m: np_.tanh(np_.dot(m, x)), lambda y: np_.sum(np_.exp(y)), 1
    )(X, M)(M[::-1]),
    "jacobian": lambda ops, np_: ops.jacobian(pair(np_), 1)(X, M),
    "hessian": lambda ops, np_: ops.hessian(scalar(np_))(X, M),
    "value_and_grad": lambda ops, np_: ops.value_and_grad(scalar(np_), 1)(X, M),
    "grad of a checkpoint": lambda ops, np_: ops.grad(
        lambda x: np_.sum(ops.checkpoint(lambda y: np_.sin(y) ** 2)(x))
    )(X),
}


def _flat(tree):
    if isinstance(tree, tuple | list):
        return [leaf for t in tree for leaf in _flat(t)]
    return [np.asarray(tree)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_operator_gives_autograds_numbers(case):
    want = CASES[case](autograd, anp)
    got = CASES[case](fg, fnp)
    want, got = _flat(want), _flat(got)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)


def test_multigrad_dict_against_grad_per_argument():
    # autograd 1.9.1's multigrad_dict needs `funcsigs` (a Python 2 backport, not installed
    # here), so the reference is autograd's grad with respect to each argument in turn.
    def f(x, m, scale=2.0, *rest, **kw):
        return scale * anp.sum(anp.tanh(anp.dot(m, x))) + sum(r * kw["c"] for r in rest)

    def ff(x, m, scale=2.0, *rest, **kw):
        return scale * fnp.sum(fnp.tanh(fnp.dot(m, x))) + sum(r * kw["c"] for r in rest)

    got = fg.multigrad_dict(ff)(X, M, 3.0, 1.5, c=4.0)
    assert list(got) == ["x", "m", "scale", "rest", "kw"]
    for i, name in enumerate(["x", "m", "scale"]):
        want = autograd.grad(f, i)(X, M, 3.0, 1.5, c=4.0)
        np.testing.assert_allclose(got[name], want, rtol=1e-13)
    assert got["rest"] == pytest.approx((4.0,)) and got["kw"] == pytest.approx({"c": 1.5})
    assert fg.multigrad_dict(ff)(X, M)["scale"] == pytest.approx(float(fnp.sum(fnp.tanh(M @ X))))


def test_holomorphic_grad_of_a_real_input_warns_as_autograd():
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        want = autograd.holomorphic_grad(lambda x: anp.sum(anp.sin(x)))(X)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = fg.holomorphic_grad(lambda x: fnp.sum(fnp.sin(x)))(X)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


def test_errors_name_the_operator():
    with pytest.raises(fg.DtypeError, match="funcgrad.elementwise_grad"):
        fg.elementwise_grad(lambda x: x * 1j)(X)
    with pytest.raises(ValueError, match=r"funcgrad.make_vjp: argnum=2 .* 2 positional"):
        fg.make_vjp(pair(fnp), 2)(X, M)
    with pytest.raises(ValueError, match=r"grad_named: .* no positional parameter 'z'"):
        fg.grad_named(lambda x, y: x * y, "z")


def test_check_grads_both_spellings():
    # autograd's curried form checks argnum 0 and holds an integer argument fixed.
    ag_test_util.check_grads(lambda x, n: anp.sin(x) ** n, modes=["rev"], order=2)(X, 3)
    ftest_util.check_grads(lambda x, n: fnp.sin(x) ** n, modes=["rev"], order=2)(X, 3)
    fg.check_grads(lambda x, m: fnp.sin(m @ x), argnum=1)(X, M)
    fg.check_grads(lambda x, m: fnp.sin(m @ x), (X, M), order=1)

    for ext, np_, check in (
        (ag_extend, anp, ag_test_util.check_grads),
        (fextend, fnp, ftest_util.check_grads),
    ):
        wrong_sin = ext.primitive(np.sin)  # with the derivative of -cos: a wrong rule
        ext.defvjp(wrong_sin, lambda ans, x, np_=np_: lambda g: g * np_.sin(x))
        with pytest.raises(AssertionError):
            check(wrong_sin, modes=["rev"], order=1)(X)


def test_notrace_primitive_is_a_constant():
    def f(np_, notrace):
        sign = notrace(np.sign)
        return lambda x: np_.sum(sign(x) * x**2)

    want = autograd.grad(f(anp, ag_extend.notrace_primitive))(X)
    got = fg.grad(f(fnp, fextend.notrace_primitive))(X)
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_builtins_look_through_a_node():
    def f(isinstance_, type_, np_):
        def g(x):
            assert isinstance_(x, np.ndarray) and type_(x) is np.ndarray
            return np_.sum(x**2)

        return g

    want = autograd.grad(f(ag_builtins.isinstance, ag_builtins.type, anp))(X)
    got = fg.grad(f(fbuiltins.isinstance, fbuiltins.type, fnp))(X)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert fbuiltins.tuple is tuple and fbuiltins.dict is dict and fbuiltins.list is list


@pytest.mark.parametrize("name", ["grad", "value_and_grad", "jacobian", "hessian"])
def test_autograds_argnum_keyword(name):
    def f(np_):
        return lambda x, m: np_.sum(np_.tanh(np_.dot(m, x)) ** 2)

    want = getattr(autograd, name)(f(anp), argnum=1)(X, M)
    got = getattr(fg, name)(f(fnp), argnum=1)(X, M)
    for g, w in zip(_flat(got), _flat(want), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)
    with pytest.raises(TypeError, match=f"funcgrad.{name}: give argnums=1 or argnum=0"):
        getattr(fg, name)(f(fnp), 1, argnum=0)


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_grad_of_a_one_element_output_is_autograds(shape):
    # autograd's grad (and PyTorch's backward()) take a one-element output as a scalar.
    def f(np_):
        return lambda x: np_.reshape(np_.sum(np_.sin(x) * x), shape)

    want_v, want_g = autograd.value_and_grad(f(anp))(X)
    got_v, got_g = fg.value_and_grad(f(fnp))(X)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-13)
    assert np.shape(got_v) == np.shape(want_v) == shape
    np.testing.assert_allclose(fg.grad(f(fnp))(X), want_g, rtol=1e-13)
    x = fg.leaf(X)
    np.testing.assert_allclose(fg.backward(f(fnp)(x))[x], want_g, rtol=1e-13)


def test_more_than_one_element_still_refused():
    with pytest.raises(fg.NonScalarOutputError, match=r"returned shape \(1, 2\)"):
        fg.grad(lambda x: fnp.reshape(x[:2], (1, 2)))(X)
    with pytest.raises(fg.NonScalarOutputError, match=r"shape \(0,\)"):
        fg.backward(fg.leaf(X)[:0])
