"""`unsqueeze_`, `squeeze_`, `t_`, `transpose_`, `swapdims_`, `swapaxes_` change a tensor's shape in place, as in PyTorch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

CALLS = [
    ("unsqueeze_", (0,)),
    ("unsqueeze_", (-1,)),
    ("squeeze_", ()),
    ("squeeze_", (1,)),
    ("t_", ()),
    ("transpose_", (0, 1)),
    ("swapdims_", (1, 0)),
    ("swapaxes_", (0, -1)),
]
A = np.array([[1.5, -2.0, 0.5]], dtype=np.float32)  # (1, 3)


@pytest.mark.parametrize(("name", "args"), CALLS)
def test_a_plain_tensor_takes_the_new_shape_and_keeps_its_memory(name, args):
    results = []
    for lib in (fg, torch):
        t = lib.tensor(A.copy())
        shared = t.numpy()
        version = t._version
        assert getattr(t, name)(*args) is t
        assert t._version == version + 1
        t += 1  # writes into the memory `shared` sees, in the new shape
        results.append((tuple(t.shape), t.numpy().copy(), shared.copy()))
    (s1, v1, m1), (s2, v2, m2) = results
    assert s1 == s2
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(m1, m2)


def test_a_computed_tensor_keeps_its_gradient_through_the_shape_change():
    grads = []
    for lib in (fg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.unsqueeze_(1)
        y.t_()
        y.squeeze_(0)
        assert tuple(y.shape) == (2,) and not y.is_leaf
        (y * lib.tensor([1.0, -2.0])).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_a_leaf_that_requires_grad_is_refused_but_not_under_no_grad():
    for lib in (fg, torch):
        a = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            a.unsqueeze_(0)
        with lib.no_grad():
            a.unsqueeze_(0)
        assert tuple(a.shape) == (1, 2) and a.is_leaf and a.requires_grad
        a.sum().backward()
        assert a.grad.tolist() == [[1.0, 1.0]]


def test_a_view_or_a_tensor_with_views_is_refused_clearly():
    c = fg.arange(6.0).view(2, 3)
    with pytest.raises(
        fg.errors.InPlaceError, match=r"Tensor.transpose_: .* of a view .* x = x.transpose"
    ):
        c.transpose_(0, 1)
    base = fg.zeros(2, 3)
    row = base[0]
    with pytest.raises(fg.errors.InPlaceError, match="a tensor that has live views"):
        base.t_()
    del row
    assert tuple(base.t_().shape) == (3, 2)
