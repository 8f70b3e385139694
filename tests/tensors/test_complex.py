"""Complex gradients in the Tensor layer: PyTorch's conjugate-Wirtinger convention.

Each test runs the same program on PyTorch 2.13 and on funcgrad and compares
the gradients (and what hooks and `autograd.Function.backward` see). The
functional core computes in JAX's convention; `funcgrad.tensors.engine.
torch_convention` converts at the layer's boundary (docs/concepts/complex.md).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
import funcgrad.numpy as fnp
from tests.references import requires

torch = requires("torch")

Z = [1.0 + 1.0j, -0.5 + 2.0j, 0.3 - 0.7j]
W = [[0.5 - 1.0j, 2.0 + 0.1j, 1.0], [1.5j, -0.3 + 0.2j, 0.5 - 0.5j]]


def _np(t):
    return t.detach().numpy()


def _angle(lib, z):
    return torch.angle(z) if lib is torch else fnp.angle(z)


def _conj(lib, z):
    return torch.conj(z) if lib is torch else fnp.conj(z)


# real-valued losses of a complex tensor z, written once for both libraries
LOSSES = {
    "exp": lambda lib, z: (z.exp().abs() ** 2).sum(),
    "sin": lambda lib, z: z.sin().abs().sum(),
    "sqrt": lambda lib, z: (z.sqrt() * z).abs().sum(),
    "reciprocal": lambda lib, z: z.reciprocal().abs().sum(),
    "mul": lambda lib, z: (z * z * (2 - 1j)).abs().sum(),
    "abs": lambda lib, z: (z.abs() ** 3).sum(),
    "angle": lambda lib, z: (_angle(lib, z) * z.abs()).sum(),
    "conj": lambda lib, z: (_conj(lib, z) * z.exp()).abs().sum(),
    "real_imag": lambda lib, z: (z.real * z.imag**2).sum(),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_grad_matches_pytorch(name, dtype):
    grads = []
    for lib in (torch, funcgrad):
        z = lib.tensor(Z, dtype=getattr(lib, dtype), requires_grad=True)
        LOSSES[name](lib, z).backward()
        assert z.grad.dtype == z.dtype if lib is funcgrad else True
        grads.append(_np(z.grad))
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(grads[1], grads[0], rtol=rtol, atol=rtol)


def test_abs_squared_gives_2z():
    z = funcgrad.tensor(1 + 1j, requires_grad=True)
    (z.abs() ** 2).backward()
    assert z.grad.item() == pytest.approx(2 + 2j)


def test_matmul_and_complex_seed_match_pytorch():
    seed = [[1.0 - 1.0j, 0.5j], [2.0, -1.0 + 0.5j]]
    grads = []
    for lib in (torch, funcgrad):
        a = lib.tensor(W, dtype=lib.complex128, requires_grad=True)
        b = lib.tensor(np.array(W).T.tolist(), dtype=lib.complex128, requires_grad=True)
        (a @ b).backward(gradient=lib.tensor(seed, dtype=lib.complex128))
        grads.append((_np(a.grad), _np(b.grad)))
    for got, want in zip(grads[1], grads[0], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_autograd_grad_with_complex_grad_outputs_matches_pytorch():
    got = []
    for lib in (torch, funcgrad):
        z = lib.tensor(Z, dtype=lib.complex128, requires_grad=True)
        y = z.exp() * _conj(lib, z)
        (g,) = lib.autograd.grad(
            y, z, grad_outputs=lib.tensor([1j, 2.0, 1 - 1j], dtype=lib.complex128)
        )
        got.append(_np(g))
    np.testing.assert_allclose(got[1], got[0], rtol=1e-12)


def test_hooks_see_and_return_pytorch_gradients():
    seen = {}
    grads = []
    for lib in (torch, funcgrad):
        z = lib.tensor(Z, dtype=lib.complex128, requires_grad=True)
        y = z * z
        y.register_hook(lambda g, lib=lib: seen.__setitem__(lib.__name__, _np(g)) or g * 1j)
        z.register_hook(lambda g: g * (1 - 2j))
        y.abs().sum().backward()
        grads.append(_np(z.grad))
    np.testing.assert_allclose(seen["funcgrad"], seen["torch"], rtol=1e-12)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_retain_grad_of_a_complex_intermediate_matches_pytorch():
    grads = []
    for lib in (torch, funcgrad):
        z = lib.tensor(Z, dtype=lib.complex128, requires_grad=True)
        y = z.sin()
        y.retain_grad()
        (y.abs() ** 2).sum().backward()
        grads.append(_np(y.grad))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def _scale_function(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * (2 + 1j)

        @staticmethod
        def backward(ctx, grad):
            ctx.seen = grad
            # PyTorch's convention: a holomorphic f gets grad * conj(f'(z))
            return grad * (2 - 1j)

    return Scale


def test_autograd_function_sees_pytorch_convention():
    grads, seen = [], []
    for lib in (torch, funcgrad):
        z = lib.tensor(Z, dtype=lib.complex128, requires_grad=True)
        y = _scale_function(lib).apply(z)
        (y.abs() ** 2 * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        grads.append(_np(z.grad))
        seen.append(_np(y.grad_fn.seen) if lib is funcgrad else None)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
    # the incoming gradient of |y|^2 * w is PyTorch's 2 w y
    y = np.array(Z) * (2 + 1j)
    np.testing.assert_allclose(seen[1], 2 * np.array([1.0, 2.0, 3.0]) * y, rtol=1e-12)


def test_creation_and_parts_match_pytorch():
    for lib in (torch, funcgrad):
        assert str(lib.tensor([1 + 1j]).dtype).endswith("complex64")
        assert str(lib.tensor([1 + 1j], dtype=lib.complex128).dtype).endswith("complex128")
    z = funcgrad.tensor(Z, dtype=funcgrad.complex128)
    np.testing.assert_array_equal(z.real.numpy(), np.real(Z))
    np.testing.assert_array_equal(z.imag.numpy(), np.imag(Z))
    x = funcgrad.tensor([1.0, 2.0])
    assert x.real is x
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        x.imag  # noqa: B018


def test_implicit_gradient_of_a_complex_output_is_refused_as_pytorch():
    for lib in (torch, funcgrad):
        z = lib.tensor(1 + 1j, requires_grad=True)
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for real"):
            (z * z).backward()


def test_create_graph_second_order_matches_pytorch():
    got = []
    for lib in (torch, funcgrad):
        z = lib.tensor(Z, dtype=lib.complex128, requires_grad=True)
        (g,) = lib.autograd.grad((z.exp() * z).abs().sum(), z, create_graph=True)
        (g.abs() ** 2).sum().backward()
        got.append(_np(z.grad))
    np.testing.assert_allclose(got[1], got[0], rtol=1e-10)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, z: lib.digamma(z),
        lambda lib, z: z.digamma(),
        lambda lib, z: lib.special.psi(z),
        lambda lib, z: lib.lgamma(z),
        lambda lib, z: lib.special.gammaln(z),
        lambda lib, z: lib.polygamma(0, z),
        lambda lib, z: lib.polygamma(1, z),
        lambda lib, z: z.polygamma(3),
        lambda lib, z: lib.erf(z),
        lambda lib, z: lib.special.erfc(z),
        lambda lib, z: lib.special.ndtr(z),
        lambda lib, z: lib.special.log_ndtr(z),
        lambda lib, z: lib.xlogy(z, z),
        lambda lib, z: lib.special.xlog1py(z, z),
    ],
)
def test_gamma_family_refuses_complex_as_pytorch(call):
    # PyTorch has no complex lgamma/digamma/polygamma/erf/ndtr/xlogy kernels; funcgrad's
    # Tensor layer refuses with PyTorch's kernel name (funcgrad.scipy.special computes them)
    for dtype in ("complex64", "complex128"):
        messages = []
        for lib in (torch, funcgrad):
            z = lib.tensor([1.5 + 0.5j], dtype=getattr(lib, dtype), requires_grad=True)
            with pytest.raises((NotImplementedError, TypeError)) as info:
                call(lib, z)
            messages.append(str(info.value).split("\n")[0])
        assert messages[0] in messages[1], messages


def test_phase_dependent_svd_loss_refused_by_pytorch_is_differentiated_in_the_gauge():
    # PyTorch refuses a loss that depends on the phase of complex singular vectors (LAPACK's
    # are arbitrary); funcgrad's are gauged (docs/concepts/complex.md), so the Tensor layer
    # gives the gradient of the gauged U, in PyTorch's convention: dL/dRe + i dL/dIm
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    t = torch.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="depends on this phase"):
        torch.linalg.svd(t)[0][0, 1].real.backward()
    z = funcgrad.tensor(a, requires_grad=True)
    funcgrad.linalg.svd(z)[0][0, 1].real.backward()

    def loss(y):
        return np.real(fnp.linalg.svd(y)[0][0, 1])

    eps = 1e-6
    numeric = np.zeros(a.shape, dtype=complex)
    for i in np.ndindex(a.shape):
        for step in (1.0, 1j):
            d = np.zeros(a.shape, dtype=complex)
            d[i] = step * eps
            numeric[i] += step * (loss(a + d) - loss(a - d)) / (2 * eps)
    np.testing.assert_allclose(_np(z.grad), numeric, atol=1e-7)
