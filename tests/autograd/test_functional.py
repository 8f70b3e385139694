"""`funcgrad.autograd.functional`: closed forms, PyTorch's conventions and errors, and torch as an oracle.

The closed-form tests need only NumPy; the oracle tests at the end compare
every function (and its `create_graph` gradients) with
`torch.autograd.functional`, and skip where torch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.autograd import functional as F
from funcgrad.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from tests.references import requires

STRATEGIES = ["reverse-mode", "forward-mode"]
A = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0], [2.0, 1.0, -1.0], [0.5, 0.0, 4.0]])


def f64(values, requires_grad=False):
    return fg.tensor(values, dtype=fg.float64, requires_grad=requires_grad)


def close(t, expected):
    assert isinstance(t, fg.Tensor), type(t)
    np.testing.assert_allclose(t.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


X = [0.5, -1.0, 2.0]


# --- closed forms -----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_jacobian_of_an_elementwise_function_is_diagonal(strategy):
    x = f64(X)
    J = jacobian(lambda t: t.pow(2), x, strategy=strategy)
    close(J, np.diag(2 * np.array(X)))
    assert J.dtype == np.float64 and not J.requires_grad


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_jacobian_of_a_linear_map_is_its_matrix(strategy):
    a = f64(A)
    close(jacobian(lambda t: a @ t, f64(X), strategy=strategy), A)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_jacobian_shapes_and_tuple_conventions(strategy):
    x, y = f64(X), f64([[1.0, 2.0], [3.0, 4.0]])
    xs, ys = np.array(X), np.array([[1.0, 2.0], [3.0, 4.0]])

    # single output, single input: a tensor out.shape + in.shape
    J = jacobian(lambda t: t.sum() * t, x, strategy=strategy)
    close(J, np.full((3, 3), 1.0) * xs[:, None] + np.eye(3) * xs.sum())

    # tuple of inputs, single output: a tuple over the inputs
    Jx, Jy = jacobian(lambda a, b: a * b.sum(), (x, y), strategy=strategy)
    close(Jx, np.eye(3) * ys.sum())
    close(Jy, np.broadcast_to(xs[:, None, None], (3, 2, 2)))

    # tuple of outputs, single input: a tuple over the outputs
    J0, J1 = jacobian(lambda a: (a.sin(), a.sum()), x, strategy=strategy)
    close(J0, np.diag(np.cos(xs)))
    close(J1, np.ones(3))

    # tuples on both sides: [output][input]
    jac = jacobian(lambda a, b: (a * 2, (a.sum() * b)), (x, y), strategy=strategy)
    assert isinstance(jac, tuple) and all(isinstance(row, tuple) and len(row) == 2 for row in jac)
    assert [tuple(j.shape) for row in jac for j in row] == [
        (3, 3),
        (3, 2, 2),
        (2, 2, 3),
        (2, 2, 2, 2),
    ]
    close(jac[0][0], 2 * np.eye(3))
    close(jac[0][1], np.zeros((3, 2, 2)))
    close(jac[1][0], np.broadcast_to(ys[:, :, None], (2, 2, 3)))
    close(jac[1][1], xs.sum() * np.eye(4).reshape(2, 2, 2, 2))

    # a one-element tuple still gives tuples
    (J,) = jacobian(lambda a: a * 3, (x,), strategy=strategy)
    close(J, 3 * np.eye(3))


def test_jacobian_of_a_scalar_output_and_a_scalar_input():
    x = f64(2.0)
    close(jacobian(lambda t: t.pow(3), x), 12.0)
    assert tuple(jacobian(lambda t: t.pow(3), x).shape) == ()
    close(jacobian(lambda t: (t * f64(X)).sum(), f64(X)), X)


def test_vjp_and_jvp_closed_forms():
    x, v = f64(X), f64([1.0, 2.0, -1.0])
    xs, vs = np.array(X), np.array([1.0, 2.0, -1.0])
    out, g = vjp(lambda t: t.pow(3), x, v)
    close(out, xs**3)
    close(g, 3 * xs**2 * vs)
    out, g = vjp(lambda t: t.pow(3).sum(), x)  # v may be omitted for one element
    close(out, (xs**3).sum())
    close(g, 3 * xs**2)
    out, t = jvp(lambda a: fg.tensor(A) @ a, x, v)  # J v of a linear map
    close(out, A @ xs)
    close(t, A @ vs)
    out, t = jvp(lambda a: a.exp(), f64([0.5]))  # v may be omitted for one element
    close(t, np.exp([0.5]))


def test_vjp_and_jvp_tuple_conventions():
    x, y = f64(X), f64([2.0])
    xs = np.array(X)
    out, (gx, gy) = vjp(lambda a, b: a * b, (x, y), f64([1.0, 1.0, 1.0]))
    close(out, xs * 2.0)
    close(gx, [2.0, 2.0, 2.0])
    close(gy, [xs.sum()])
    (o0, o1), g = vjp(lambda a: (a.sum(), a * 2), x, (f64(1.0), f64([1.0, 0.0, 0.0])))
    close(o0, xs.sum())
    close(o1, 2 * xs)
    close(g, [3.0, 1.0, 1.0])
    (o0, o1), (t0, t1) = jvp(
        lambda a, b: (a * b, b.pow(2)), (x, y), (f64([1.0, 0.0, 0.0]), f64([1.0]))
    )
    close(t0, [2.0 + xs[0], xs[1], xs[2]])
    close(t1, [4.0])


def test_hessian_closed_forms():
    xs = np.array(X)
    close(hessian(lambda t: t.pow(3).sum(), f64(X)), np.diag(6 * xs))
    # x^T M x has Hessian M + M^T
    M = np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0], [0.0, 1.0, 2.0]])
    m = f64(M)
    for strategy in STRATEGIES:
        close(hessian(lambda t: t @ (m @ t), f64(X), outer_jacobian_strategy=strategy), M + M.T)
    # a (1,)-shaped output is accepted, as in PyTorch
    close(hessian(lambda t: t.pow(2).sum().reshape(1), f64(X)), 2 * np.eye(3))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_hessian_of_two_inputs_is_a_tuple_of_tuples(strategy):
    x, y = f64(X), f64([[1.0, -1.0]])
    H = hessian(lambda a, b: a.sum() * b.pow(2).sum(), (x, y), outer_jacobian_strategy=strategy)
    assert [tuple(h.shape) for row in H for h in row] == [
        (3, 3),
        (3, 1, 2),
        (1, 2, 3),
        (1, 2, 1, 2),
    ]
    close(H[0][0], np.zeros((3, 3)))
    close(H[0][1], np.broadcast_to(2 * np.array([[1.0, -1.0]]), (3, 1, 2)))
    close(H[1][0], np.broadcast_to(2 * np.array([[1.0, -1.0]])[:, :, None], (1, 2, 3)))
    close(H[1][1], 2 * sum(X) * np.eye(2).reshape(1, 2, 1, 2))
    ((h,),) = hessian(lambda a: a.pow(3).sum(), (x,), outer_jacobian_strategy=strategy)
    close(h, np.diag(6 * np.array(X)))


def test_vhp_and_hvp_closed_forms():
    M = np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0], [0.0, 1.0, 2.0]])
    m, v = f64(M), f64([1.0, -2.0, 0.5])
    vs = np.array([1.0, -2.0, 0.5])
    quad = lambda t: t @ (m @ t)  # noqa: E731
    out, r = vhp(quad, f64(X), v)
    close(out, np.array(X) @ M @ np.array(X))
    close(r, vs @ (M + M.T))
    out, r = hvp(quad, f64(X), v)
    close(r, (M + M.T) @ vs)
    # tuples, and v omitted for a one-element input
    _, (rx, ry) = vhp(
        lambda a, b: (a * b).sum(), (f64(X), f64([1.0, 2.0, 3.0])), (v, f64([0.0, 0.0, 1.0]))
    )
    close(rx, [0.0, 0.0, 1.0])
    close(ry, vs)
    _, (rx, ry) = hvp(
        lambda a, b: (a * b).sum(), (f64(X), f64([1.0, 2.0, 3.0])), (v, f64([0.0, 0.0, 1.0]))
    )
    close(rx, [0.0, 0.0, 1.0])
    close(ry, vs)
    out, r = hvp(lambda t: t.pow(4).sum(), f64([2.0]))
    close(out, 16.0)
    close(r, [48.0])


def test_functions_written_with_funcgrad_functions_and_numpy_functions():
    x = f64(X)
    close(
        jacobian(lambda t: fg.sin(t) * fnp.exp(t), x),
        np.diag(np.cos(X) * np.exp(X) + np.sin(X) * np.exp(X)),
    )
    close(hessian(lambda t: fnp.sum(fnp.sin(t)), x), np.diag(-np.sin(X)))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_autograd_grad_inside_the_function(strategy):
    x = f64(X)
    J = jacobian(
        lambda t: fg.autograd.grad(t.pow(3).sum(), t, create_graph=True)[0], x, strategy=strategy
    )
    close(J, np.diag(6 * np.array(X)))


def test_float32_is_kept():
    x = fg.tensor([1.0, 2.0])
    assert x.dtype == np.float32
    J = jacobian(lambda t: t * t, x)
    assert J.dtype == np.float32
    out, g = vjp(lambda t: t.pow(2).sum(), x)
    assert out.dtype == np.float32 and g.dtype == np.float32
    assert hessian(lambda t: t.pow(3).sum(), x).dtype == np.float32
    # a float64 v for a float32 output is cast to the output's dtype (as PyTorch does)
    _, g = vjp(lambda t: t * 2, x, f64([1.0, 1.0]))
    assert g.dtype == np.float32


def test_vectorize_is_accepted_and_changes_nothing():
    x = f64(X)
    f = lambda t: t.sin() * t.sum()  # noqa: E731
    for strategy in STRATEGIES:
        close(jacobian(f, x, vectorize=True, strategy=strategy), jacobian(f, x).numpy())
        close(
            jacobian(f, x, vectorize=True, strict=True, strategy=strategy), jacobian(f, x).numpy()
        )
    close(hessian(lambda t: t.pow(3).sum(), x, vectorize=True), np.diag(6 * np.array(X)))


def test_independent_inputs_get_zeros_when_not_strict():
    x, y = f64(X), f64([1.0, 2.0])
    _, (gx, gy) = vjp(lambda a, b: a.sum(), (x, y))
    close(gy, [0.0, 0.0])
    jx, jy = jacobian(lambda a, b: a * 2, (x, y))
    close(jy, np.zeros((3, 2)))
    close(jacobian(lambda a: fg.ones(2, dtype=fg.float64), x), np.zeros((2, 3)))
    close(hessian(lambda a: a.sum(), x), np.zeros((3, 3)))
    _, r = hvp(lambda a: a.sum(), x, x)
    close(r, np.zeros(3))
    _, t = jvp(lambda a, b: a * 2, (x, y), (x, y))
    close(t, 2 * np.array(X))


# --- detached results, create_graph -----------------------------------------------------


def test_results_are_detached_and_leave_the_inputs_alone():
    x = f64(X, requires_grad=True)
    results = [
        *vjp(lambda t: t.pow(2).sum(), x),
        *jvp(lambda t: t.pow(2), x, f64([1.0, 1.0, 1.0])),
        jacobian(lambda t: t.pow(2), x),
        hessian(lambda t: t.pow(3).sum(), x),
        *vhp(lambda t: t.pow(3).sum(), x, f64([1.0, 1.0, 1.0])),
        *hvp(lambda t: t.pow(3).sum(), x, f64([1.0, 1.0, 1.0])),
    ]
    for r in results:
        assert isinstance(r, fg.Tensor) and not r.requires_grad and r.grad_fn is None
    assert x.grad is None and x.requires_grad and x.is_leaf
    # the results own their memory: writing into one changes no other
    J = jacobian(lambda t: t * 2, x)
    J.numpy()[0, 0] = 7.0
    close(jacobian(lambda t: t * 2, x), 2 * np.eye(3))


def test_works_under_no_grad():
    x = f64(X, requires_grad=True)
    with fg.no_grad():
        close(jacobian(lambda t: t.pow(2), x), np.diag(2 * np.array(X)))
        close(hessian(lambda t: t.pow(3).sum(), x), np.diag(6 * np.array(X)))
        H = hessian(lambda t: t.pow(3).sum(), x, create_graph=True)
    assert H.requires_grad


def test_closed_over_tensors_that_require_grad_are_constants():
    w = f64(A, requires_grad=True)
    close(jacobian(lambda t: w @ t, f64(X)), A)
    _, g = vjp(lambda t: (w @ t).sum(), f64(X))
    close(g, A.sum(axis=0))
    assert w.grad is None


def test_create_graph_makes_results_differentiable_back_to_the_inputs():
    xs = np.array(X)
    x = f64(X, requires_grad=True)
    _, g = vjp(lambda t: t.pow(3).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    close(g, 3 * xs**2)
    g.sum().backward()
    close(x.grad, 6 * xs)

    x.grad = None
    H = hessian(lambda t: t.pow(4).sum(), x, create_graph=True)
    close(H, np.diag(12 * xs**2))
    H.sum().backward()
    close(x.grad, 24 * xs)

    for strategy in STRATEGIES:
        x.grad = None
        J = jacobian(lambda t: t.pow(3), x, create_graph=True, strategy=strategy)
        J.sum().backward()
        close(x.grad, 6 * xs)

    x.grad = None
    out, r = hvp(lambda t: t.pow(4).sum(), x, f64([1.0, 1.0, 1.0]), create_graph=True)
    assert out.requires_grad
    r.sum().backward()
    close(x.grad, 24 * xs)

    x.grad = None
    out, t = jvp(lambda a: a.pow(3), x, f64([1.0, 1.0, 1.0]), create_graph=True)
    t.sum().backward()
    close(x.grad, 6 * xs)

    x.grad = None
    out, r = vhp(lambda t: t.pow(4).sum(), x, f64([1.0, 1.0, 1.0]), create_graph=True)
    r.sum().backward()
    close(x.grad, 24 * xs)


def test_create_graph_differentiates_through_v_too():
    x = f64(X)
    v = f64([1.0, 2.0, 3.0], requires_grad=True)
    _, g = vjp(lambda t: t.pow(2), x, v, create_graph=True)
    g.sum().backward()
    close(v.grad, 2 * np.array(X))


def test_create_graph_without_inputs_that_require_grad_still_records():
    x = f64(X)
    J = jacobian(lambda t: t.pow(2), x, create_graph=True)
    assert J.requires_grad
    assert not x.requires_grad
    assert not jacobian(lambda t: t * 2, x, create_graph=True).requires_grad  # constant


def test_the_backward_error_for_non_scalar_outputs_points_here():
    x = f64(X, requires_grad=True)
    with pytest.raises(RuntimeError, match="funcgrad.autograd.functional.jacobian"):
        (x * x).backward()
    import funcgrad.autograd

    suggested = funcgrad.autograd
    for part in "functional.jacobian".split("."):
        suggested = getattr(suggested, part)
    close(suggested(lambda t: t * t, x), np.diag(2 * np.array(X)))
    assert "functional" in funcgrad.autograd.__all__


# --- errors -----------------------------------------------------------------------------


def test_v_shape_errors_name_the_function_and_the_shapes():
    x = f64(X)
    with pytest.raises(
        RuntimeError, match=r"functional\.vjp: v has invalid size: should be \(3,\).*got \(2,\)"
    ):
        vjp(lambda t: t * 2, x, f64([1.0, 2.0]))
    with pytest.raises(
        RuntimeError,
        match=r"functional\.jvp: entry 1 in v has invalid size: should be \(2,\).*input 1.*got \(3,\)",
    ):
        jvp(lambda a, b: a, (x, f64([1.0, 2.0])), (x, x))
    with pytest.raises(
        RuntimeError, match=r"functional\.vjp: v is a tuple of invalid length: should be 2"
    ):
        vjp(lambda t: (t, t), x, (x,))
    with pytest.raises(
        RuntimeError, match=r"functional\.hvp: the given v should contain a single Tensor"
    ):
        hvp(lambda t: t.sum(), x, (x, x))
    with pytest.raises(
        RuntimeError, match=r"functional\.vhp: v has invalid size: should be \(3,\)"
    ):
        vhp(lambda t: t.sum(), x, f64([1.0]))


def test_v_can_be_omitted_only_for_one_element():
    x = f64(X)
    with pytest.raises(
        RuntimeError, match=r"functional\.vjp: the vector v can only be None.*\(3,\)"
    ):
        vjp(lambda t: t * 2, x)
    with pytest.raises(RuntimeError, match=r"functional\.jvp: the vector v can only be None"):
        jvp(lambda t: t.sum(), x)
    with pytest.raises(RuntimeError, match=r"functional\.vhp: the vector v can only be None"):
        vhp(lambda t: t.sum(), x)
    with pytest.raises(RuntimeError, match=r"functional\.hvp: the vector v can only be None"):
        hvp(lambda t: t.sum(), (f64([1.0]), f64([2.0])))


def test_non_tensors_are_refused():
    x = f64(X)
    with pytest.raises(
        TypeError, match=r"functional\.jacobian: the inputs must be either a Tensor.*list"
    ):
        jacobian(lambda t: t, [x])
    with pytest.raises(TypeError, match=r"index 1 has type ndarray"):
        jacobian(lambda a, b: a, (x, np.ones(3)))
    with pytest.raises(TypeError, match=r"outputs of the user-provided function.*float"):
        vjp(lambda t: 1.0, x)
    with pytest.raises(TypeError, match=r"functional\.vjp: the v must be"):
        vjp(lambda t: t, x, np.ones(3))
    with pytest.raises(
        RuntimeError, match=r"functional\.jacobian: input 0 has dtype int64.*floating-point"
    ):
        jacobian(lambda t: t, fg.tensor([1, 2]))


def test_hessian_needs_a_single_one_element_output():
    x = f64(X)
    for fn in (hessian, lambda f, x: vhp(f, x, x), lambda f, x: hvp(f, x, x)):
        with pytest.raises(RuntimeError, match="should contain a single element.*\\(3,\\)"):
            fn(lambda t: t * 2, x)
        with pytest.raises(RuntimeError, match="should return a single Tensor.*tuple of 2"):
            fn(lambda t: (t.sum(), t.sum()), x)


def test_unknown_strategies_are_refused():
    with pytest.raises(
        ValueError,
        match=r'functional\.jacobian: strategy must be "forward-mode" or "reverse-mode", got \'fwd\'',
    ):
        jacobian(lambda t: t, f64(X), strategy="fwd")
    with pytest.raises(ValueError, match="outer_jacobian_strategy"):
        hessian(lambda t: t.sum(), f64(X), outer_jacobian_strategy="forward")


def test_strict_refuses_outputs_independent_of_an_input():
    x, y = f64(X), f64([1.0, 2.0])
    with pytest.raises(
        RuntimeError, match=r"functional\.vjp: the output .* independent of input 1"
    ):
        vjp(lambda a, b: a.sum(), (x, y), strict=True)
    with pytest.raises(
        RuntimeError, match=r"functional\.jvp: the output .* independent of input 1"
    ):
        jvp(lambda a, b: a * 2, (x, y), (x, y), strict=True)
    with pytest.raises(
        RuntimeError, match=r"functional\.jvp: output 1 .* independent of the inputs"
    ):
        w = f64(X, requires_grad=True)
        jvp(lambda a: (a * 2, w * 2), x, x, strict=True)
    for strategy in STRATEGIES:
        with pytest.raises(
            RuntimeError, match=r"functional\.jacobian: output 0 .* independent of input 1"
        ):
            jacobian(lambda a, b: a * 2, (x, y), strict=True, strategy=strategy)
        with pytest.raises(
            RuntimeError, match=r"output 0 of the user-provided function does not require gradients"
        ):
            jacobian(lambda a: fg.ones(2), x, strict=True, strategy=strategy)
    for fn in (hessian, lambda f, x, **k: vhp(f, x, x, **k), lambda f, x, **k: hvp(f, x, x, **k)):
        with pytest.raises(RuntimeError, match="independent of input 1"):
            fn(lambda a, b: a.pow(2).sum(), (x, y), strict=True)
        with pytest.raises(
            RuntimeError,
            match="jacobian of the user-provided function with respect to input 0 is independent",
        ):
            fn(lambda a: a.sum() * 3, x, strict=True)  # linear: the gradient is constant
    with pytest.raises(
        RuntimeError, match=r"hessian: the gradient .* input 0 is independent of input 1"
    ):
        hessian(lambda a, b: a.pow(2).sum() + b.pow(2).sum(), (x, y), strict=True)


def test_strict_accepts_what_depends_on_everything():
    x, y = f64(X), f64([1.0, 2.0])
    f = lambda a, b: a.pow(2).sum() * b.pow(2).sum()  # noqa: E731
    vjp(f, (x, y), strict=True)
    jvp(f, (x, y), (x, y), strict=True)
    jacobian(f, (x, y), strict=True)
    hessian(f, (x, y), strict=True)
    vhp(f, (x, y), (x, y), strict=True)
    hvp(f, (x, y), (x, y), strict=True)
    vhp(f, (x, y), (x, y), strict=True, create_graph=True)


def test_strict_with_create_graph_refuses_constant_results():
    x = f64(X)
    with pytest.raises(
        RuntimeError, match=r"vjp: the jacobian .* independent of input 0.*create_graph=True"
    ):
        vjp(lambda t: t * 2, x, x, create_graph=True, strict=True)
    with pytest.raises(
        RuntimeError, match=r"jacobian: the jacobian .* independent of input 0.*create_graph=True"
    ):
        jacobian(lambda t: t * 2, x, create_graph=True, strict=True)
    with pytest.raises(RuntimeError, match=r"jvp: .*create_graph=True"):
        jvp(lambda t: t * 2, x, x, create_graph=True, strict=True)
    with pytest.raises(RuntimeError, match=r"hessian: the hessian .*create_graph=True"):
        hessian(lambda t: (t * t).sum(), x, create_graph=True, strict=True)
    with pytest.raises(RuntimeError, match=r"hvp: the hessian .*create_graph=True"):
        hvp(lambda t: (t * t).sum(), x, x, create_graph=True, strict=True)
    with pytest.raises(RuntimeError, match=r"vhp: the hessian .*create_graph=True"):
        vhp(lambda t: (t * t).sum(), x, x, create_graph=True, strict=True)
    # (PyTorch agrees on these: the Hessian of a quadratic is a constant.)


def test_the_module_is_documented():
    for name in F.__all__:
        doc = getattr(F, name).__doc__
        assert "Examples:" in doc and "Args:" in doc and "Returns:" in doc, name


# --- torch as an oracle -----------------------------------------------------------------


def _torch():
    return requires("torch")


B = np.array([[0.3, -0.7], [1.1, 0.2], [-0.4, 0.9]])

# name -> (builder(lib) -> func, input shapes); the func uses only what both libraries share.
VECTOR_FUNCS = {
    "elementwise": (lambda lib: lambda x: x.sin() * x.exp(), [(3,)]),
    "matvec_tanh": (lambda lib: lambda x: (lib.tensor(A, dtype=lib.float64) @ x).tanh(), [(3,)]),
    "matrix_input": (lambda lib: lambda x: (x @ x.t()).reshape(-1).sigmoid(), [(2, 3)]),
    "two_in_two_out": (
        lambda lib: lambda x, y: (x * y.sum(), (x.pow(2) @ lib.tensor(B, dtype=lib.float64)) * y),
        [(3,), (2,)],
    ),
    "scalar_out": (lambda lib: lambda x, y: (x.cos() * y).sum(), [(3,), (3,)]),
}

SCALAR_FUNCS = {
    "cubic": (lambda lib: lambda x: x.pow(3).sum(), [(4,)]),
    "logsumexp": (lambda lib: lambda x: x.exp().sum().log(), [(2, 3)]),
    "two_inputs": (
        lambda lib: lambda x, y: (x.sin() * y).sum() + x.pow(2).sum() * y.pow(2).sum(),
        [(3,), (3,)],
    ),
    "quadratic_one": (
        lambda lib: lambda x: ((lib.tensor(A, dtype=lib.float64) @ x).pow(2).sum()).reshape(1),
        [(3,)],
    ),
}


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) for s in shapes]


def _both(values, as_tuple, requires_grad=False):
    torch = _torch()
    ours = tuple(f64(v, requires_grad=requires_grad) for v in values)
    theirs = tuple(
        torch.tensor(v, dtype=torch.float64, requires_grad=requires_grad) for v in values
    )
    if not as_tuple:
        assert len(values) == 1
        return ours[0], theirs[0]
    return ours, theirs


def _compare(ours, theirs):
    torch = _torch()
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, fg.Tensor), type(ours)
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12
        )
        return
    assert isinstance(ours, tuple) and isinstance(theirs, tuple), (type(ours), type(theirs))
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        _compare(o, t)


def _cases(table):
    for name, (builder, shapes) in table.items():
        yield pytest.param(builder, shapes, True, id=f"{name}-tuple")
        if len(shapes) == 1:
            yield pytest.param(builder, shapes, False, id=f"{name}-tensor")


def _vectors_like(values, seed):
    return _inputs([np.shape(v) for v in values], seed)


@pytest.mark.parametrize("builder, shapes, as_tuple", list(_cases(VECTOR_FUNCS)))
def test_jacobian_vjp_jvp_match_torch(builder, shapes, as_tuple):
    torch = _torch()
    TF = torch.autograd.functional
    ours_f, theirs_f = builder(fg), builder(torch)
    values = _inputs(shapes, 0)
    x, tx = _both(values, as_tuple)
    expected = TF.jacobian(theirs_f, tx)
    for strategy in STRATEGIES:
        _compare(jacobian(ours_f, x, strategy=strategy), expected)
    # vjp: v shaped like the outputs
    out_t = theirs_f(*(tx if as_tuple else (tx,)))
    outs = out_t if isinstance(out_t, tuple) else (out_t,)
    vs = _inputs([tuple(o.shape) for o in outs], 1)
    v, tv = _both(vs, isinstance(out_t, tuple))
    _compare(vjp(ours_f, x, v), TF.vjp(theirs_f, tx, tv))
    # jvp: v shaped like the inputs
    u, tu = _both(_vectors_like(values, 2), as_tuple)
    _compare(jvp(ours_f, x, u), TF.jvp(theirs_f, tx, tu))


@pytest.mark.parametrize("builder, shapes, as_tuple", list(_cases(SCALAR_FUNCS)))
def test_hessian_vhp_hvp_match_torch(builder, shapes, as_tuple):
    torch = _torch()
    TF = torch.autograd.functional
    ours_f, theirs_f = builder(fg), builder(torch)
    values = _inputs(shapes, 3)
    x, tx = _both(values, as_tuple)
    expected = TF.hessian(theirs_f, tx)
    for strategy in STRATEGIES:
        _compare(hessian(ours_f, x, outer_jacobian_strategy=strategy), expected)
    u, tu = _both(_vectors_like(values, 4), as_tuple)
    _compare(vhp(ours_f, x, u), TF.vhp(theirs_f, tx, tu))
    _compare(hvp(ours_f, x, u), TF.hvp(theirs_f, tx, tu))
    _compare(vjp(ours_f, x), TF.vjp(theirs_f, tx))
    _compare(jacobian(ours_f, x), TF.jacobian(theirs_f, tx))


def _grads_after(result, inputs):
    """Backward through a weighted sum of every tensor in `result`; return the inputs' gradients.

    A gradient nothing reached is zeros: whether a constant block (the Hessian
    of a quadratic) is recorded as depending on the inputs differs between
    the libraries' rules, and its gradient is zero either way.
    """
    flat = []

    def walk(r):
        if isinstance(r, tuple):
            for e in r:
                walk(e)
        elif r.requires_grad:
            flat.append(r)

    walk(result)
    if flat:
        total = sum((r * (k + 1)).sin().sum() for k, r in enumerate(flat))
        total.backward()
    return tuple(
        np.zeros(tuple(t.shape)) if t.grad is None else t.grad.detach().numpy() for t in inputs
    )


@pytest.mark.parametrize("builder, shapes, as_tuple", list(_cases(SCALAR_FUNCS)))
def test_create_graph_gradients_match_torch(builder, shapes, as_tuple):
    torch = _torch()
    TF = torch.autograd.functional
    ours_f, theirs_f = builder(fg), builder(torch)
    values = _inputs(shapes, 5)
    vecs = _vectors_like(values, 6)
    calls = [
        ("hessian", lambda F, f, x, v: F.hessian(f, x, create_graph=True)),
        ("vhp", lambda F, f, x, v: F.vhp(f, x, v, create_graph=True)),
        ("hvp", lambda F, f, x, v: F.hvp(f, x, v, create_graph=True)),
        ("vjp", lambda F, f, x, v: F.vjp(f, x, create_graph=True)),
        ("jacobian", lambda F, f, x, v: F.jacobian(f, x, create_graph=True)),
    ]
    for name, call in calls:
        x, tx = _both(values, as_tuple, requires_grad=True)
        v, tv = _both(vecs, as_tuple, requires_grad=True)
        xs, txs = (x, tx) if as_tuple else ((x,), (tx,))
        vs, tvs = (v, tv) if as_tuple else ((v,), (tv,))
        ours = _grads_after(call(F, ours_f, x, v), xs + vs)
        theirs = _grads_after(call(TF, theirs_f, tx, tv), txs + tvs)
        for o, t in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("builder, shapes, as_tuple", list(_cases(VECTOR_FUNCS)))
def test_create_graph_gradients_of_first_order_results_match_torch(builder, shapes, as_tuple):
    torch = _torch()
    TF = torch.autograd.functional
    ours_f, theirs_f = builder(fg), builder(torch)
    values = _inputs(shapes, 7)
    x, tx = _both(values, as_tuple, requires_grad=True)
    xs, txs = (x, tx) if as_tuple else ((x,), (tx,))
    ours = _grads_after(jacobian(ours_f, x, create_graph=True), xs)
    theirs = _grads_after(TF.jacobian(theirs_f, tx, create_graph=True), txs)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)
    x, tx = _both(values, as_tuple, requires_grad=True)
    xs, txs = (x, tx) if as_tuple else ((x,), (tx,))
    u, tu = _both(_vectors_like(values, 8), as_tuple)
    ours = _grads_after(jvp(ours_f, x, u, create_graph=True), xs)
    theirs = _grads_after(TF.jvp(theirs_f, tx, tu, create_graph=True), txs)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


def test_strict_errors_match_torch_on_the_same_functions():
    torch = _torch()
    TF = torch.autograd.functional
    cases = [
        ("vjp", lambda lib: lambda a, b: a.sum(), True),
        ("jacobian", lambda lib: lambda a, b: a * 2, True),
        ("jacobian", lambda lib: lambda a, b: a * b, False),
        ("hessian", lambda lib: lambda a, b: a.sum() * 3 + b.pow(2).sum(), True),
        ("hessian", lambda lib: lambda a, b: a.pow(2).sum() * b.pow(2).sum(), False),
        ("vhp", lambda lib: lambda a, b: a.pow(2).sum(), True),
        ("hvp", lambda lib: lambda a, b: (a * b).sum(), False),
    ]
    values = _inputs([(3,), (3,)], 9)
    for name, builder, raises in cases:
        x, tx = _both(values, True)
        args = {"vhp": (x,), "hvp": (x,)}.get(name, ())
        targs = {"vhp": (tx,), "hvp": (tx,)}.get(name, ())
        ours = getattr(F, name)
        theirs = getattr(TF, name)
        for fn, f, inp, extra in (
            (ours, builder(fg), x, args),
            (theirs, builder(torch), tx, targs),
        ):
            if raises:
                with pytest.raises(RuntimeError, match="independent"):
                    fn(f, inp, *extra, strict=True)
            else:
                fn(f, inp, *extra, strict=True)
