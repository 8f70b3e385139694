"""Regression tests for what the hardening work found.

Bugs fixed in the rules have their test next to the behaviour they guard
(test_numerics.py, test_errors.py); the ones here are pinned as they were
found. A test marked `xfail(strict=True)` is a bug not fixed yet, in a part
of funcgrad other work owns: it fails loudly once fixed, so the mark is
then removed.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp


def test_norm_and_std_of_nan_propagate():
    # Found by reading the rules: `out > 0` treated a NaN norm as the zero vector.
    assert np.isnan(fg.grad(fnp.linalg.norm)(np.array([np.nan, 1.0]))).all()
    assert np.isnan(fg.grad(lambda x: fnp.linalg.norm(x, ord=3))(np.array([np.nan, 1.0])))[0]
    assert np.isnan(fg.grad(fnp.std)(np.array([np.nan, 1.0]))).all()


def test_power_with_zero_exponent_at_zero():
    # 0 * 0**-1 was NaN.
    assert fg.grad(lambda x: x**0.0)(0.0) == 0.0
    assert fg.grad(fg.grad(lambda x: x**1.0))(0.0) == 0.0


def test_linalg_keeps_float16():
    # NumPy's linalg has no float16 loops; these raised OpError.
    a = (np.eye(2) * 2.0 + 0.1).astype(np.float16)
    for f in (
        fnp.linalg.inv,
        fnp.linalg.det,
        fnp.linalg.cholesky,
        lambda m: fnp.linalg.solve(m, np.ones(2, np.float16)),
    ):
        g = fg.grad(lambda m, f=f: fnp.sum(f(m)))(a)
        assert g.dtype == np.float16


def test_grad_of_a_tuple_output_is_a_type_error_not_a_silent_zero():
    # A tuple of nodes used to be read as an array of their values.
    with pytest.raises(TypeError, match="tuple of 2"):
        fg.grad(lambda x: (x, x))(1.0)


def test_det_at_a_singular_matrix_has_the_adjugate_gradient():
    # (#12) the cofactors of the zero 3x3 matrix are 0; logabsdet's gradient is infinite there
    np.testing.assert_array_equal(fg.grad(fnp.linalg.det)(np.zeros((3, 3))), np.zeros((3, 3)))
    with pytest.raises(NotImplementedError, match="logabsdet"):
        fg.grad(lambda a: fnp.linalg.slogdet(a).logabsdet)(np.zeros((3, 3)))


def test_retain_grad_downstream_of_a_hooked_tensor():
    # A hook on x makes the walk rebuild everything downstream of x; the
    # retained non-leaf h is not mapped to its rebuilt node and gets zeros.
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: g)
    h = x * 1.0
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [2.0, 4.0, 6.0])


def test_autograd_grad_of_a_non_leaf_downstream_of_a_hooked_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10.0)
    h = x * 3.0
    (gh,) = torch.autograd.grad((h * h).sum(), h)
    np.testing.assert_array_equal(gh.numpy(), [6.0, 12.0])


# --- found by the tutorial pages (regressions) ---------------------------------


def test_grad_of_a_function_returning_a_tensor_differentiates_it():
    import funcgrad as torch

    g = fg.grad(lambda t: torch.sin(t).sum())(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, np.cos([1.0, 2.0]))


def test_funcgrad_numpy_on_a_tensor_keeps_its_graph():
    import funcgrad as torch
    import funcgrad.numpy as fnp

    t = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    fnp.sum(fnp.sin(t)).backward()
    np.testing.assert_allclose(t.grad.numpy(), np.cos([0.5, 1.5]))


def test_numpy_in_a_custom_rule_under_higher_order_raises_instead_of_zero():
    @fg.custom_vjp
    def cube(x):
        return x**3

    cube.defvjp(lambda x: (cube(x), x), lambda x, ct: (ct * 3.0 * np.asarray(x) ** 2,))
    assert fg.grad(cube)(2.0) == 12.0
    with pytest.raises(TypeError, match="passed to NumPy"):
        fg.grad(fg.grad(cube))(2.0)


def test_forward_mode_refuses_a_custom_bwd_that_ignores_its_cotangent():
    # The JVP of a custom_vjp is the transpose of bwd; a bwd that returns a
    # constant (here computed from the residual's value) gave a silent zero
    # before custom_vjp, custom_jvp and autograd.Function shared one transposition.
    @fg.custom_vjp
    def double(x):
        return x * 2.0

    double.defvjp(lambda x: (double(x), x), lambda x, ct: (np.full(np.shape(x), 2.0),))
    with pytest.raises(fg.NotDifferentiableError, match="custom_vjp.*'double'.*ct"):
        fg.jvp(double, (np.ones(2),), (np.ones(2),))


def test_zero_on_a_recorded_non_leaf_gives_zero_gradient():
    import funcgrad as torch

    x = torch.ones(2, requires_grad=True)
    y = x * 3
    y.zero_()
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert y.tolist() == [0.0, 0.0]


def test_concurrent_backward_passes_lose_no_gradient():
    # Issue #12, item 1: 8 threads x 30 backward passes; PyTorch gives 480 every run.
    # Large arrays, so NumPy releases the GIL inside the add, as in the report.
    import threading

    x = torch.tensor(np.ones(200_000), requires_grad=True)
    y = (x * 2.0).sum()

    def fresh_graphs():
        for _ in range(30):
            (x * 2.0).sum().backward()

    def one_graph():
        for _ in range(30):
            y.backward()

    for work in (fresh_graphs, one_graph):
        x.grad = None
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(x.grad.numpy()[:3], [480.0, 480.0, 480.0])


def test_cumsum_gradient_sums_the_reversed_cotangent_without_cancellation():
    # Issue #12, item 5: total - cumsum + ct lost the 1 next to 1e17.
    w = np.array([1e17, 1.0, 1.0])
    g = fg.grad(lambda a: fnp.sum(fnp.cumsum(a) * w))(np.zeros(3))
    np.testing.assert_array_equal(g, [1e17, 2.0, 1.0])
    g2 = fg.grad(lambda a: fnp.sum(fnp.cumsum(a, axis=1) * w))(np.zeros((2, 3)))
    np.testing.assert_array_equal(g2, [[1e17, 2.0, 1.0]] * 2)
    # float32: exact where the old formula was off by about 1.6% (PyTorch's reversed cumsum).
    ct = np.random.default_rng(0).uniform(0.0, 1.0, 1000).astype(np.float32)
    a = np.zeros(1000, np.float32)
    g32 = fg.grad(lambda v: fnp.sum(fnp.cumsum(v) * ct))(a)
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, np.cumsum(ct[::-1])[::-1], rtol=1e-6)


def test_float_and_math_on_a_traced_value_raise_instead_of_dropping_the_gradient():
    # Issue #12, item 4: these gave 0.0 and 2.0 (true e and 4.0); JAX raises too.
    import math

    with pytest.raises(fg.NotDifferentiableError, match="math"):
        fg.grad(lambda x: math.exp(x))(1.0)
    with pytest.raises(fg.NotDifferentiableError, match="float()"):
        fg.grad(lambda x: x * float(x))(2.0)
    # int() and comparisons (piecewise constant) stay usable for control flow.
    assert fg.grad(lambda x: x * 3.0 if bool(x > 0) and int(x) == 2 else x)(2.0) == 3.0
    # NumPy functions on a node say which function to use instead.
    x = fg.leaf(np.ones(3))
    for f, name in ((np.sum, "sum"), (np.mean, "mean"), (np.dot, "dot")):
        with pytest.raises(TypeError, match=f"numpy.{name} was called on a graph node"):
            f(x) if name != "dot" else f(x, x)


def test_grad_of_a_complex_output_is_refused():
    # Issue #12, item 9: this returned the real part, with a ComplexWarning.
    # Since issue #13, complex values are differentiated, and grad refuses a complex
    # output as JAX does (grad requires real-valued outputs).
    with pytest.raises(fg.DtypeError, match="funcgrad.grad: f must return a real.*complex128"):
        fg.grad(lambda x: x * 1j)(2.0)
    assert fg.grad(lambda x: x * x)(2.0) == 4.0


def test_numpy_functions_on_a_tensor_that_requires_grad_raise():
    # Issue #12, item 3: this gave w.grad = e^w; the true gradient is (1 + w) e^w.
    w = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy.*requires grad"):
        (w * np.exp(w)).sum().backward()
    (w * torch.exp(w)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), (1 + np.array([0.5, 1.0])) * np.exp([0.5, 1.0]))
    with torch.no_grad():  # no gradient can be lost here
        np.testing.assert_allclose(np.exp(w), np.exp([0.5, 1.0]))
    np.testing.assert_allclose(np.exp(w.detach()), np.exp([0.5, 1.0]))
