"""`funcgrad.ops.guard`: the zero-(co)tangent guarantee a primitive declares with `keeps_zeros`.

The registry-wide consequences (no NaN from an unselected branch, in both
modes and at second order) are in tests/hardening/test_numerics.py; here is
what each declaration means, in both directions, and that the engines apply
it to user-defined primitives as well.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import ELEMENTWISE, Primitive, guard, registry
from tests.references import requires

pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")

INF, NAN = np.inf, np.nan


def test_elementwise_zeroes_where_the_cotangent_is_zero_and_keeps_a_real_inf():
    prim = registry.get("multiply")
    ct = np.array([0.0, 1.0, 0.0])
    out = guard(prim, ct, ct * np.array([INF, INF, NAN]), {})
    np.testing.assert_array_equal(out, [0.0, INF, 0.0])


def test_elementwise_broadcasts_the_cotangent_against_the_result():
    prim = registry.get("multiply")
    t = np.array([[0.0], [1.0]])  # a tangent of shape (2, 1), a result of (2, 3)
    out = guard(prim, t, t * np.full((2, 3), INF), {})
    np.testing.assert_array_equal(out, [[0.0] * 3, [INF] * 3])


def test_finite_results_are_returned_as_they_are():
    prim = registry.get("exp")
    r = np.array([1.0, 2.0])
    assert guard(prim, np.zeros(2), r, {}) is r
    node = fg.leaf(r)
    assert guard(prim, np.zeros(2), node, {}) is node


@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_reverse_mode_zeroes_the_slices_of_zero_cotangents(keepdims):
    prim = registry.get("prod")
    ct = np.array([0.0, 2.0])  # the cotangent of prod(x, axis=1), x of shape (2, 3)
    if keepdims:
        ct = ct[:, None]
    result = np.full((2, 3), NAN)
    out = guard(prim, ct, result, {"axis": 1, "keepdims": keepdims})
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out[0], 0.0)
    assert np.isnan(out[1]).all()


def test_reduction_forward_mode_zeroes_the_entries_reduced_from_zero_tangents():
    prim = registry.get("var")
    t = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # an input tangent, (2, 3)
    out = guard(prim, t, np.array([NAN, NAN]), {"axis": 1, "ddof": 0, "keepdims": False})
    np.testing.assert_array_equal(out[:1], [0.0])
    assert np.isnan(out[1])


def test_slices_zero_a_whole_slice_only_when_its_cotangent_is_all_zero():
    prim = registry.get("softmax")
    ct = np.array([[0.0, 0.0], [0.0, 1.0]])
    out = guard(prim, ct, np.full((2, 2), NAN), {"axis": -1})
    np.testing.assert_array_equal(out[0], [0.0, 0.0])
    assert np.isnan(out[1]).all()  # ct is 0 at [1, 0], but its slice is not all 0


def test_guard_on_nodes_is_differentiable():
    prim = registry.get("multiply")
    x = fg.leaf(np.array([1.0, 2.0]))
    r = x * np.array([INF, 1.0])
    out = guard(prim, np.array([0.0, 1.0]), r, {})
    assert isinstance(out, fg.Node)
    np.testing.assert_array_equal(out.value, [0.0, 2.0])
    np.testing.assert_array_equal(fg.backward(fnp.sum(out))[x], [0.0, 1.0])


def test_a_declared_value_is_checked():
    with pytest.raises(ValueError, match="keeps_zeros"):
        Primitive(
            name="bad", forward=lambda xp, x: x, vjp=(None,), jvp=ELEMENTWISE, keeps_zeros="yes"
        )


def _my_log(keeps_zeros):
    return Primitive(
        name="my_log",
        forward=lambda xp, x: xp.log(x),
        vjp=(lambda ct, out, x: ct / x,),
        jvp=ELEMENTWISE,
        doc="log",
        keeps_zeros=keeps_zeros,
    )


@pytest.mark.parametrize("declared", [None, "elementwise"])
def test_the_engines_guard_a_user_primitive_that_declares_it(declared):
    my_log = _my_log(declared)
    x0 = np.array([0.0, 2.0])

    def f(x):
        return fnp.where(x > 0, my_log(x), 0.0)

    with np.errstate(divide="ignore", invalid="ignore"):
        g = fg.grad(lambda x: fnp.sum(f(x)))(x0)
        _, t = fg.jvp(my_log, (x0,), (np.array([0.0, 1.0]),))  # a zero tangent at log's pole
    if declared is None:  # 0 / 0 where the (co)tangent is 0
        assert np.isnan(g[0]) and np.isnan(t[0])
    else:
        np.testing.assert_array_equal(g, [0.0, 0.5])
        np.testing.assert_array_equal(t, [0.0, 0.5])


def test_a_finite_entry_beside_a_masked_one_keeps_its_derivative():
    # ct = log(y) is exactly 0 at y = 1: the product ct * w is 0 * inf (masked)
    # in the first entry and a finite 0 in the second, whose derivative in y is
    # w / y = 3 (it was masked to 0 along with the first)
    prim = registry.get("multiply")
    y0, w = np.array([1.0, 1.0, 2.0]), np.array([INF, 3.0, 3.0])

    def f(y):
        ct = fnp.log(y)
        return fnp.sum(guard(prim, ct, ct * w, {}))

    with np.errstate(invalid="ignore"):
        got = fg.grad(f)(y0)
    eps = 1e-6
    fd = [(3 * np.log(y + eps) - 3 * np.log(y - eps)) / (2 * eps) for y in y0[1:]]
    np.testing.assert_allclose(got[1:], fd, rtol=1e-8)
    assert got[0] == 0.0  # 0 * inf where the cotangent is 0: masked


def test_second_order_beside_a_nan_cotangent_matches_pytorch():
    # Tensor.xlogy_ on a non-leaf (tests/tensors/test_torch_api.py's dev-profile
    # failure): the cotangent reaching `a * 1.0` is log(y) = [log 2, NaN, 0], and
    # d/dy of the 0 entry is 1 / y (PyTorch 1, funcgrad gave 0)
    torch = requires("torch")
    grads = []
    for lib in (torch, fg):
        a = lib.tensor([-1.0, 2.0, -1.0], requires_grad=True)
        b = lib.tensor([2.0, -1.0, 1.0], requires_grad=True)
        x = (a * 1.0).xlogy_(b)
        ga, gb = lib.autograd.grad([x], [a, b], [lib.ones(3)], create_graph=True)
        (ga.sum() + gb.sum()).backward()
        grads.append((a.grad.detach().numpy(), b.grad.detach().numpy()))
    for want, got in zip(*grads, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
