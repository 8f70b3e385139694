"""funcgrad.check_grads: it passes on correct rules and fails, precisely, on wrong ones."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import DtypeError
from funcgrad.extend import defjvp, defvjp, primitive

RNG = np.random.default_rng(3)
X = RNG.uniform(0.5, 1.5, 3)


@pytest.mark.parametrize(
    "f, args",
    [
        (fnp.sin, (X,)),
        (lambda x, y: fnp.exp(x) * y, (X, 2.0)),
        (lambda x: {"a": fnp.tanh(x), "b": [x * x]}, (X,)),  # pytree output
        (lambda d: fnp.log(d["p"]) @ d["q"], ({"p": X, "q": X[::-1].copy()},)),  # pytree input
        (fnp.sin, (X.astype(np.float32),)),  # checked in float64
    ],
)
def test_correct_rules_pass(f, args):
    fg.check_grads(f, args, order=3)


def _with_vjp(rule):
    p = primitive(np.sin, name="sin_vjp")
    defvjp(p, rule)
    return p


def _with_jvp(rule):
    p = primitive(np.sin, name="sin_jvp")
    defjvp(p, rule)
    return p


def test_a_wrong_vjp_fails_in_reverse_mode_with_both_numbers():
    bad = _with_vjp(lambda ans, x: lambda g: g * fnp.sin(x))
    with pytest.raises(AssertionError) as info:
        fg.check_grads(bad, (X,), order=1, modes=("rev",))
    msg = str(info.value)
    assert "reverse mode (VJP), order 1" in msg
    numbers = [float(w) for w in msg.replace(",", " ").split() if _is_number(w)]
    assert len(numbers) >= 2 and not np.isclose(numbers[0], numbers[1])
    # forward mode transposes the same wrong rule: it fails there too
    with pytest.raises(AssertionError, match=r"forward mode \(JVP\), order 1"):
        fg.check_grads(bad, (X,), order=1, modes=("fwd",))


def test_a_wrong_jvp_fails_in_forward_mode_naming_the_entry():
    bad = _with_jvp(lambda g, ans, x: g * fnp.cos(2 * x))
    with pytest.raises(AssertionError, match=r"forward mode \(JVP\), order 1 at index \(\d,\)"):
        fg.check_grads(bad, (X,), order=1, modes=("fwd",))


def test_a_first_order_rule_that_is_not_differentiable_fails_at_order_two():
    # Right at first order, but the rule's own derivative is wrong: it cuts x
    # out of the graph (its value only), so the derivative of the VJP misses a term.
    def value(v):
        return v.value if isinstance(v, fg.Node) else v

    bad = _with_vjp(lambda ans, x: lambda g: g * np.cos(value(x)))
    fg.check_grads(bad, (X,), order=1)
    with pytest.raises(AssertionError, match=r"reverse mode \(VJP of the VJP\), order 2"):
        fg.check_grads(bad, (X,), order=2, modes=("rev",))
    good = _with_vjp(lambda ans, x: lambda g: g * fnp.cos(x))
    fg.check_grads(good, (X,), order=2)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="modes"):
        fg.check_grads(fnp.sin, (X,), modes=("bwd",))
    with pytest.raises(DtypeError, match="close over integer arguments"):
        fg.check_grads(lambda x, n: x**n, (X, 2))


def _is_number(word):
    try:
        float(word)
    except ValueError:
        return False
    return "." in word
