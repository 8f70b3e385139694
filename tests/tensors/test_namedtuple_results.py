"""Namedtuples through the Tensor layer's `_apply`: results and arguments keep their type.

funcgrad.numpy's linear algebra returns NumPy's namedtuples (`EighResult`,
`SlogdetResult` ...) and the Tensor layer's reductions return PyTorch's
(`torch.return_types.aminmax` ...). `_apply` wraps results and unwraps
arguments of any of them field by field; values and gradients are checked
against PyTorch.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.tensors.tensor_class import _apply
from tests.references import requires

A = np.array([[3.0, 1.0, 0.5], [1.0, 4.0, -1.0], [0.5, -1.0, 2.0]])


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize(
    ("fn", "torch_fn", "fields", "compared"),
    [
        (fnp.linalg.eigh, "eigh", ("eigenvalues", "eigenvectors"), ("eigenvalues",)),
        (fnp.linalg.slogdet, "slogdet", ("sign", "logabsdet"), ("sign", "logabsdet")),
        (fnp.linalg.svd, "svd", ("U", "S", "Vh"), ("S",)),
    ],
)
def test_namedtuple_results_are_wrapped_field_by_field(
    fn, torch_fn, fields, compared, requires_grad
):
    torch = requires("torch")
    t = fg.tensor(A, requires_grad=requires_grad)
    got = _apply(fn, t)
    assert got._fields == fields
    assert all(isinstance(v, fg.Tensor) for v in got)
    tt = torch.tensor(A, requires_grad=requires_grad)
    want = getattr(torch.linalg, torch_fn)(tt)
    for name in compared:
        np.testing.assert_allclose(
            getattr(got, name).detach().numpy(), getattr(want, name).detach().numpy()
        )
    if requires_grad:
        last = compared[-1]
        getattr(got, last).sum().backward()
        getattr(want, last).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_return_types_as_arguments(requires_grad):
    torch = requires("torch")
    t = fg.tensor(A, requires_grad=requires_grad)
    tt = torch.tensor(A, requires_grad=requires_grad)
    got = _apply(fnp.stack, fg.aminmax(t, dim=0))
    want = torch.stack(torch.aminmax(tt, dim=0))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy())
    if requires_grad:
        weights = np.arange(6.0).reshape(2, 3)
        (got * fg.tensor(weights)).sum().backward()
        (want * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy())
