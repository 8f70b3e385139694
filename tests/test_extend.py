"""funcgrad.extend: user primitives from black-box functions, against HIPS autograd's extend."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.autograd import detect_anomaly, profiler
from funcgrad.errors import ArgumentTypeError, NotDifferentiableError, ShapeError
from funcgrad.extend import (
    defjvp,
    defjvp_argnum,
    defvjp,
    defvjp_argnum,
    defvjp_argnums,
    primitive,
)
from funcgrad.ops import registry
from tests.references import requires

ag = requires("autograd")
sp = requires("scipy.special")

RNG = np.random.default_rng(7)
X = RNG.standard_normal(4)


def _logsumexp():
    """A black-box logsumexp with autograd's rule, written the autograd way."""
    seen = []

    @primitive
    def logsumexp(x):
        seen.append(type(x))
        return sp.logsumexp(x)

    defvjp(logsumexp, lambda ans, x: lambda g: g * fnp.exp(x - ans))
    return logsumexp, seen


def test_forward_sees_plain_arrays_and_gradients_match_autograd():
    import autograd
    import autograd.scipy.special as asp

    lse, seen = _logsumexp()
    assert fg.grad(lse)(X) == pytest.approx(autograd.grad(asp.logsumexp)(X), rel=1e-12)
    assert all(t is np.ndarray for t in seen)
    # second order: the VJP rule is written with funcgrad.numpy
    np.testing.assert_allclose(
        fg.hessian(lse)(X), autograd.hessian(asp.logsumexp)(X), rtol=1e-10, atol=1e-12
    )
    fg.check_grads(lse, (X,), order=2)


def test_forward_mode_transposes_the_vjp_rule():
    lse, _ = _logsumexp()
    t = RNG.standard_normal(4)
    out, t_out = fg.jvp(lse, (X,), (t,))
    assert out == pytest.approx(sp.logsumexp(X))
    assert t_out == pytest.approx(np.dot(np.exp(X - sp.logsumexp(X)), t), rel=1e-12)
    np.testing.assert_allclose(fg.jacfwd(lse)(X), fg.jacrev(lse)(X), rtol=1e-12)


def test_reverse_mode_transposes_the_jvp_rule():
    sin = primitive(np.sin, name="black_box_sin")
    defjvp(sin, lambda g, ans, x: g * fnp.cos(x))
    np.testing.assert_allclose(fg.grad(lambda x: sin(x).sum())(X), np.cos(X), rtol=1e-12)
    np.testing.assert_allclose(
        fg.grad(fg.grad(lambda x: sin(x).sum()))(0.3), -np.sin(0.3), rtol=1e-12
    )
    fg.check_grads(sin, (X,), order=2)


def test_two_arguments_broadcast_and_kwargs_match_autograd():
    import autograd
    from autograd.extend import defvjp as a_defvjp
    from autograd.extend import primitive as a_primitive

    def scaled_pow(x, y, scale=1.0):
        return scale * np.power(x, y)

    def rules(np_, log):
        return (
            lambda ans, x, y, scale=1.0: lambda g: g * scale * y * np_.power(x, y - 1),
            lambda ans, x, y, scale=1.0: lambda g: np_.sum(g * ans * log(x)),
        )

    import autograd.numpy as anp

    ours, theirs = primitive(scaled_pow), a_primitive(scaled_pow)
    defvjp(ours, *rules(fnp, fnp.log))
    a_defvjp(theirs, *rules(anp, anp.log))
    x, y = RNG.uniform(0.5, 2.0, (3, 2)), 1.7
    for argnum in (0, 1):
        got = fg.grad(lambda x, y: ours(x, y, scale=2.5).sum(), argnums=argnum)(x, y)
        want = autograd.grad(lambda x, y: anp.sum(theirs(x, y, scale=2.5)), argnum)(x, y)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    fg.check_grads(lambda x, y: ours(x, y, scale=2.5), (x, y), order=2)


def test_static_positional_arguments_are_passed_through():
    calls = []

    @primitive
    def pick(x, how, n):
        calls.append((how, n))
        return np.sum(x**n) if how == "sum" else np.max(x**n)

    defvjp(pick, lambda ans, x, how, n: lambda g: g * n * x ** (n - 1))
    assert fg.grad(pick)(X, "sum", 3) == pytest.approx(3 * X**2)
    assert calls[-1] == ("sum", 3)


def test_a_missing_rule_names_the_primitive_and_the_argument():
    @primitive
    def mul(x, y):
        return x * y

    defvjp(mul, lambda ans, x, y: lambda g: g * y)
    assert fg.grad(mul)(2.0, 3.0) == 3.0  # argument 0 has its rule
    with pytest.raises(NotDifferentiableError, match=r"'mul'.*argument 1 \('y'\)"):
        fg.grad(mul, argnums=1)(2.0, 3.0)
    with pytest.raises(NotDifferentiableError, match=r"'mul'.*argument 1 \('y'\)"):
        fg.jvp(mul, (2.0, 3.0), (0.0, 1.0))
    bare = primitive(np.exp, name="bare")
    with pytest.raises(NotDifferentiableError, match="'bare'.*no VJP rule"):
        fg.grad(bare)(1.0)


def test_a_raw_numpy_rule_works_in_its_mode_and_explains_the_other():
    cos = primitive(np.cos, name="raw_cos")
    defvjp(cos, lambda ans, x: lambda g: np.multiply(g, -np.sin(x)))  # raw NumPy
    assert fg.grad(cos)(0.4) == pytest.approx(-np.sin(0.4))
    with pytest.raises(NotDifferentiableError, match="forward mode.*'raw_cos'.*funcgrad.numpy"):
        fg.jvp(cos, (0.4,), (1.0,))
    with pytest.raises(NotDifferentiableError, match="higher derivative.*'raw_cos'"):
        fg.grad(fg.grad(cos))(0.4)


def test_argnum_forms():
    import autograd
    import autograd.numpy as anp

    def f(x, y):
        return np.sin(x) * np.exp(y)

    def d(np_, argnum, x, y):
        return np_.cos(x) * np_.exp(y) if argnum == 0 else np_.sin(x) * np_.exp(y)

    a = primitive(f, name="f_argnum")
    defvjp_argnum(a, lambda argnum, ans, args, kw: lambda g: g * d(fnp, argnum, *args))
    b = primitive(f, name="f_argnums")
    defvjp_argnums(
        b, lambda argnums, ans, args, kw: lambda g: tuple(g * d(fnp, i, *args) for i in argnums)
    )
    c = primitive(f, name="f_jvp_argnum")
    defjvp_argnum(c, lambda argnum, g, ans, args, kw: g * d(fnp, argnum, *args))
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    want = autograd.grad(lambda x, y: anp.sum(anp.sin(x) * anp.exp(y)), (0, 1))(x, y)
    for p in (a, b, c):
        got = fg.grad(lambda x, y, p=p: p(x, y).sum(), argnums=(0, 1))(x, y)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
        fg.check_grads(p, (x, y), order=2)
    wrong = primitive(f, name="f_wrong")
    defvjp_argnums(wrong, lambda argnums, ans, args, kw: lambda g: (g,))
    with pytest.raises(ShapeError, match="'f_wrong'.*one cotangent per argnum"):
        fg.grad(lambda x, y: wrong(x, y).sum())(x, y)


def test_a_function_of_several_outputs_is_refused():
    two = primitive(lambda x: (x, x), name="two")
    with pytest.raises(ArgumentTypeError, match="'two' returned a tuple"):
        two(fg.leaf(np.ones(2)))


def test_user_primitives_stay_out_of_the_builtin_table():
    mine = primitive(np.tanh, name="users_tanh")
    defvjp(mine, lambda ans, x: lambda g: g * (1 - ans**2))
    mine(fg.leaf(X))
    assert "users_tanh" not in {p.name for p in registry.primitives()}
    twice = primitive(np.tanh, name="users_tanh")  # the same name again is fine
    defvjp(twice, lambda ans, x: lambda g: g * (1 - ans**2))
    assert fg.grad(twice)(0.2) == pytest.approx(1 - np.tanh(0.2) ** 2)


def test_grad_fn_profiler_and_anomaly_mode_see_the_primitive():
    my_log = primitive(np.log, name="my_log")
    defvjp(my_log, lambda ans, x: lambda g: g / x)
    x = fg.tensor(np.array([0.5, 2.0]), requires_grad=True)
    with profiler.profile() as prof:
        y = my_log(x)
        y.sum().backward()
    assert type(y.grad_fn).__name__ == "MyLogBackward0"
    names = [e.name for e in prof.function_events]
    assert "my_log" in names and "MyLogBackward0" in names
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.5])

    nan_rule = primitive(np.exp, name="nan_rule")
    defvjp(nan_rule, lambda ans, x: lambda g: g * fnp.log(x - 10.0))
    x = fg.tensor(np.array([0.5]), requires_grad=True)
    with (
        pytest.warns(UserWarning),
        np.errstate(invalid="ignore"),
        pytest.raises(RuntimeError, match="NanRuleBackward0"),
        detect_anomaly(),
    ):
        nan_rule(x).sum().backward()


def test_a_flag_is_static_and_a_rule_may_return_none():
    @primitive
    def signed(x, flip):
        assert flip is True or flip is False  # passed as it is, not as an array
        return -x if flip else x

    defvjp(signed, lambda ans, x, flip: lambda g: None if not flip else -g)
    assert fg.grad(lambda x: signed(x, True).sum())(X) == pytest.approx(-np.ones(4))
    assert fg.grad(lambda x: signed(x, False).sum())(X) == pytest.approx(np.zeros(4))
