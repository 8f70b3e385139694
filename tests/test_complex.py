"""Complex differentiation in the functional API: JAX's (and HIPS autograd's) convention.

For a real-valued `f`, `grad(f)(z)` is `df/dx - 1j * df/dy` (the conjugate of
the direction of steepest ascent); a VJP rule of a holomorphic primitive is
the real one unchanged (`ct * f'(z)`); `jacobian(..., holomorphic=True)` is
the complex derivative. Every value is compared with HIPS autograd 1.9.1
(the reference implementation of this convention) or with central
differences in the real and the imaginary direction.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import DtypeError
from tests.references import requires

autograd = requires("autograd")
anp = requires("autograd.numpy")

Z = np.array([1.0 + 1.0j, -0.5 + 2.0j, 0.3 - 0.7j])
W = np.array([[0.5 - 1.0j, 2.0 + 0.1j], [1.5j, -0.3 + 0.2j]])


def _numeric_grad(f, z, eps=1e-6):
    """df/dx - 1j df/dy for real f, by central differences."""
    g = np.zeros_like(z)
    for k in np.ndindex(z.shape):
        e = np.zeros_like(z)
        e[k] = 1.0
        dx = (f(z + eps * e) - f(z - eps * e)) / (2 * eps)
        dy = (f(z + 1j * eps * e) - f(z - 1j * eps * e)) / (2 * eps)
        g[k] = dx - 1j * dy
    return g


# (funcgrad function, autograd function) pairs: real-valued functions of complex arrays
REAL_VALUED = {
    "abs2": (lambda z: fnp.sum(fnp.abs(z) ** 2), lambda z: anp.sum(anp.abs(z) ** 2)),
    "abs_exp": (lambda z: fnp.sum(fnp.abs(fnp.exp(z))), lambda z: anp.sum(anp.abs(anp.exp(z)))),
    "real_sin": (lambda z: fnp.sum(fnp.real(fnp.sin(z))), lambda z: anp.sum(anp.real(anp.sin(z)))),
    "imag_sq": (lambda z: fnp.sum(fnp.imag(z * z)), lambda z: anp.sum(anp.imag(z * z))),
    "angle": (lambda z: fnp.sum(fnp.angle(z)), lambda z: anp.sum(anp.angle(z))),
    "conj": (
        lambda z: fnp.sum(fnp.real(fnp.conj(z) * fnp.exp(z))),
        lambda z: anp.sum(anp.real(anp.conj(z) * anp.exp(z))),
    ),
    "sqrt_log": (
        lambda z: fnp.sum(fnp.abs(fnp.sqrt(z) + fnp.log(z))),
        lambda z: anp.sum(anp.abs(anp.sqrt(z) + anp.log(z))),
    ),
    "divide_power": (
        lambda z: fnp.sum(fnp.abs(1.0 / z + z**2.5)),
        lambda z: anp.sum(anp.abs(1.0 / z + z**2.5)),
    ),
    "tanh_cos": (
        lambda z: fnp.sum(fnp.real(fnp.tanh(z) * fnp.cos(z))),
        lambda z: anp.sum(anp.real(anp.tanh(z) * anp.cos(z))),
    ),
    "mean": (lambda z: fnp.abs(fnp.mean(z * z)), lambda z: anp.abs(anp.mean(z * z))),
    "norm": (lambda z: fnp.linalg.norm(z), lambda z: anp.linalg.norm(z)),
}


@pytest.mark.parametrize("name", sorted(REAL_VALUED))
def test_grad_of_real_valued_functions_matches_autograd(name):
    f, af = REAL_VALUED[name]
    g = fg.grad(f)(Z)
    assert g.dtype == np.complex128 and g.shape == Z.shape
    np.testing.assert_allclose(g, autograd.grad(af)(Z), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, _numeric_grad(f, Z), rtol=1e-6, atol=1e-8)


def test_the_documented_examples():
    assert fg.grad(lambda z: abs(z) ** 2)(1 + 1j) == 2 - 2j
    assert fg.grad(lambda z: z * z, holomorphic=True)(1 + 1j) == 2 + 2j


def test_matmul_uses_the_transpose_not_the_conjugate_transpose():
    def f(a):
        return fnp.sum(fnp.abs(a @ W) ** 2)

    def af(a):
        return anp.sum(anp.abs(anp.dot(a, W)) ** 2)

    np.testing.assert_allclose(fg.grad(f)(W.T), autograd.grad(af)(W.T), rtol=1e-10)
    out, vjp_fn = fg.vjp(lambda a: a @ W, W.T)
    ct = np.array([[1.0 + 2.0j, -1.0j], [0.5, 2.0 - 1.0j]])
    np.testing.assert_allclose(vjp_fn(ct)[0], ct @ W.T)  # ct W^T, no conjugate


@pytest.mark.parametrize("name", ["inv", "det", "solve", "einsum", "var", "std"])
def test_linalg_and_moments_match_autograd(name):
    fns = {
        "inv": (
            lambda a: fnp.sum(fnp.abs(fnp.linalg.inv(a))),
            lambda a: anp.sum(anp.abs(anp.linalg.inv(a))),
        ),
        "det": (lambda a: fnp.abs(fnp.linalg.det(a)), lambda a: anp.abs(anp.linalg.det(a))),
        "solve": (
            lambda a: fnp.sum(fnp.abs(fnp.linalg.solve(a, Z[:2]))),
            lambda a: anp.sum(anp.abs(anp.linalg.solve(a, Z[:2]))),
        ),
        "einsum": (
            lambda a: fnp.sum(fnp.abs(fnp.einsum("ij,jk->ik", a, a))),
            lambda a: anp.sum(anp.abs(anp.einsum("ij,jk->ik", a, a))),
        ),
        "var": (lambda a: fnp.var(a), None),
        "std": (lambda a: fnp.std(a, axis=0)[1], None),
    }
    f, af = fns[name]
    g = fg.grad(f)(W)
    np.testing.assert_allclose(g, _numeric_grad(f, W), rtol=1e-6, atol=1e-8)
    if af is not None:
        np.testing.assert_allclose(g, autograd.grad(af)(W), rtol=1e-10, atol=1e-12)


def test_var_of_complex_is_real_as_numpy():
    assert fnp.var(Z).dtype == np.float64
    np.testing.assert_allclose(fnp.var(Z), np.var(Z))
    # d var = 2 Re(conj(z - mean) dz) / n: the cotangent is 2 conj(z - mean) / n
    np.testing.assert_allclose(fg.grad(fnp.var)(Z), 2 * np.conj(Z - Z.mean()) / Z.size)


def test_a_real_input_meeting_a_complex_value_gets_the_real_part():
    x = np.array([0.5, 2.0])
    f = lambda x: fnp.sum(fnp.abs(x * (1 + 2j)) ** 2)  # noqa: E731
    af = lambda x: anp.sum(anp.abs(x * (1 + 2j)) ** 2)  # noqa: E731
    g = fg.grad(f)(x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, autograd.grad(af)(x), rtol=1e-12)
    # forward mode: a real tangent pushed into a complex value and back to a real output
    _, t = fg.jvp(f, (x,), (np.array([1.0, 0.0]),))
    np.testing.assert_allclose(t, g[0], rtol=1e-12)
    x32 = x.astype(np.float32)
    assert fg.grad(f)(x32).dtype == np.float32


def test_complex64_stays_complex64():
    z = Z.astype(np.complex64)
    g = fg.grad(lambda z: fnp.sum(fnp.abs(fnp.exp(z) * 1j) ** 2))(z)
    assert g.dtype == np.complex64


def test_vjp_with_complex_cotangents_matches_autograd():
    f = lambda z: fnp.exp(z) * fnp.conj(z)  # noqa: E731
    af = lambda z: anp.exp(z) * anp.conj(z)  # noqa: E731
    ct = np.array([1.0 - 1.0j, 0.5j, 2.0])
    _, vjp_fn = fg.vjp(f, Z)
    a_vjp, _ = autograd.make_vjp(af)(Z)
    np.testing.assert_allclose(vjp_fn(ct)[0], a_vjp(ct), rtol=1e-12)
    # a real cotangent of a complex output is a complex one with zero imaginary parts
    np.testing.assert_allclose(vjp_fn(ct.real)[0], a_vjp(ct.real + 0j), rtol=1e-12)


def test_jvp_of_a_non_holomorphic_function_in_both_directions():
    f = lambda z: fnp.abs(z) * fnp.conj(z) + fnp.angle(z)  # noqa: E731
    eps = 1e-6
    for v in (np.array([1.0, -0.5, 0.2]) + 0j, 1j * np.array([0.3, 1.0, -2.0])):
        _, t = fg.jvp(f, (Z,), (v,))
        fd = (f(Z + eps * v) - f(Z - eps * v)) / (2 * eps)
        np.testing.assert_allclose(t, fd, rtol=1e-6, atol=1e-8)


def test_holomorphic_jacobians_and_hessian():
    f = lambda z: fnp.sin(z) * z[0]  # noqa: E731
    # d(sin(z_j) z_0)/dz_k = cos(z_j) z_0 [j == k] + sin(z_j) [k == 0]
    expected = np.diag(np.cos(Z) * Z[0])
    expected[:, 0] += np.sin(Z)
    for jac in (fg.jacrev, fg.jacfwd, fg.jacobian):
        np.testing.assert_allclose(jac(f, holomorphic=True)(Z), expected, rtol=1e-12)
    h = fg.hessian(lambda z: fnp.sum(z**3), holomorphic=True)(Z)
    np.testing.assert_allclose(h, np.diag(6 * Z), rtol=1e-12)
    g = fg.grad(lambda z: fnp.sum(fnp.exp(z)), holomorphic=True)(Z)
    np.testing.assert_allclose(g, np.exp(Z), rtol=1e-12)


def test_jacobian_of_complex_output_of_real_inputs_uses_forward_mode():
    x = np.array([0.5, 2.0])
    jac = fg.jacobian(lambda x: fnp.exp(1j * x))(x)
    np.testing.assert_allclose(jac, np.diag(1j * np.exp(1j * x)))
    np.testing.assert_allclose(fg.jacfwd(lambda x: fnp.exp(1j * x))(x), jac)


def test_refusals_name_the_operation_and_the_dtype():
    with pytest.raises(
        DtypeError,
        match=r"funcgrad.grad: f must return a real-valued.*complex128.*holomorphic=True",
    ):
        fg.grad(lambda z: fnp.sum(z * z))(Z)
    with pytest.raises(
        DtypeError,
        match=r"funcgrad.grad: with holomorphic=True.*complex, but one has dtype float64",
    ):
        fg.grad(lambda z: fnp.sum(z * 1j), holomorphic=True)(np.ones(2))
    with pytest.raises(DtypeError, match=r"funcgrad.jacrev: an input is complex.*holomorphic=True"):
        fg.jacrev(fnp.exp)(Z)
    with pytest.raises(DtypeError, match=r"funcgrad.jacrev: an output is complex"):
        fg.jacrev(lambda x: x * 1j)(np.ones(2))
    with pytest.raises(DtypeError, match=r"funcgrad.jacfwd: with holomorphic=True, every input"):
        fg.jacfwd(fnp.exp, holomorphic=True)(np.ones(2))
    with pytest.raises(DtypeError, match=r"funcgrad.jacrev: with holomorphic=True, every output"):
        fg.jacrev(fnp.abs, holomorphic=True)(Z)
    with pytest.raises(DtypeError, match=r"funcgrad.backward: the output is complex"):
        fg.backward(fnp.sum(fg.leaf(Z)))
    with pytest.raises(DtypeError, match=r"funcgrad.norm: ord=1 of a complex array"):
        fg.grad(lambda z: fnp.linalg.norm(z, ord=1))(Z)


def test_a_primitive_not_checked_on_complex_values_refuses_them():
    from funcgrad.ops import nn

    assert not nn.logsumexp.sample.complex
    with pytest.raises(DtypeError, match=r"funcgrad.logsumexp: a complex value \(complex128\[\]\)"):
        fg.grad(lambda z: fnp.abs(nn.logsumexp(z, axis=None, keepdims=False)))(Z)
    # a real output from a complex input is refused as well: real-only rules would be wrong
    # (a primitive made here: every such primitive of funcgrad's takes complex values now)
    from funcgrad.ops import registry

    modulus = registry.Primitive(
        name="modulus_test",
        forward=lambda xp, x: xp.abs(x),
        vjp=(lambda ct, out, x: ct * x / out,),
        jvp=registry.ELEMENTWISE,
        sample=registry.Sample(lambda g: ((g.array(g.shape(), 0.5, 2.0),), {})),
        doc="|x|, with rules for real x only",
    )
    with pytest.raises(
        DtypeError, match=r"funcgrad.modulus_test: a complex value \(complex128\[3\]\)"
    ):
        fg.grad(lambda z: fnp.sum(modulus(z)))(Z)
    np.testing.assert_allclose(modulus(Z), np.abs(Z))  # on values, no graph: computed


def test_second_order_through_a_non_holomorphic_primitive():
    # d2/dx2 and d2/dy2 of |z|**3 summed: checked against differences of the gradient
    f = lambda z: fnp.sum(fnp.abs(z) ** 3)  # noqa: E731
    v = np.array([0.3 + 0.1j, -1.0j, 0.5])
    h = fg.hvp(f, (Z,), (v,))
    eps = 1e-6
    g = fg.grad(f)
    # JAX's convention (a symmetric real Hessian H): hvp is the change of grad along v
    fd = (g(Z + eps * v) - g(Z - eps * v)) / (2 * eps)
    np.testing.assert_allclose(h, fd, rtol=1e-5, atol=1e-7)


def test_checkpoint_hooks_custom_vjp_and_check_grads_take_complex_values():
    def f(z):
        return fnp.sum(fnp.abs(fnp.exp(z) * z) ** 2)

    expected = fg.grad(f)(Z)
    np.testing.assert_allclose(fg.grad(fg.checkpoint(f))(Z), expected, rtol=1e-12)
    _, t = fg.jvp(fg.checkpoint(fnp.exp), (Z,), (1j * Z,))
    np.testing.assert_allclose(t, np.exp(Z) * 1j * Z, rtol=1e-12)

    z = fg.leaf(Z)
    y = f(z)
    hooked = fg.backward(fg.with_hooks(y, {z: lambda c: c * 1j}))[z]
    np.testing.assert_allclose(hooked, expected * 1j, rtol=1e-12)

    @fg.custom_vjp
    def square(z):
        return z * z

    square.defvjp(lambda z: (z * z, z), lambda z, ct: (2 * z * ct,))  # the holomorphic rule
    g = fg.grad(lambda z: fnp.sum(fnp.abs(square(z)) ** 2))(Z)
    np.testing.assert_allclose(g, fg.grad(lambda z: fnp.sum(fnp.abs(z * z) ** 2))(Z), rtol=1e-12)

    fg.check_grads(lambda z: fnp.exp(z) * fnp.conj(z), (Z,), order=2, modes=("fwd", "rev"))
    with pytest.raises(AssertionError, match="check_grads"):  # a conjugated rule is caught
        square.defvjp(lambda z: (z * z, z), lambda z, ct: (2 * fnp.conj(z) * ct,))
        fg.check_grads(square, (Z,), order=1, modes=("rev",))
