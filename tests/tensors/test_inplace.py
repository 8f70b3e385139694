"""In-place operations, `.data` and `.detach()`.

An in-place operation rebinds the tensor to a new node: a tensor never
mutates a node, so graphs recorded earlier keep the values they saw.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as torch


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def test_manual_sgd_training_loop_reduces_the_loss():
    torch.manual_seed(0)
    X = torch.randn(32, 3)
    w_true = torch.tensor([[1.0], [-2.0], [0.5]])
    Y = X @ w_true
    w = torch.zeros(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr = 0.1
    losses = []
    for _ in range(60):
        loss = ((X @ w + b - Y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert losses[-1] < 1e-3 * losses[0]
    assert all(later <= earlier for earlier, later in zip(losses, losses[1:], strict=False))
    np.testing.assert_allclose(w.detach().numpy(), w_true.numpy(), atol=0.02)
    assert w.dtype == torch.float32 and w.grad.dtype == torch.float32


def test_gradient_matches_the_closed_form_in_the_training_loop():
    # loss = mean((X w - y)^2) has gradient 2/n X^T (X w - y).
    rng = np.random.default_rng(1)
    Xn, yn, wn = (
        rng.standard_normal((5, 2)),
        rng.standard_normal((5, 1)),
        rng.standard_normal((2, 1)),
    )
    X, y, w = torch.tensor(Xn), torch.tensor(yn), torch.tensor(wn, requires_grad=True)
    ((X @ w - y) ** 2).mean().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 / 5 * Xn.T @ (Xn @ wn - yn), rtol=1e-12)


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.add_(1),
        lambda x: x.mul_(2),
        lambda x: x.sub_(1),
        lambda x: x.div_(2),
        lambda x: x.zero_(),
        lambda x: x.fill_(3.0),
        lambda x: x.copy_(torch.zeros(2)),
        lambda x: x.exp_(),
        lambda x: x.clamp_(0, 1),
    ],
)
def test_in_place_on_a_leaf_requiring_grad_raises_outside_no_grad(op):
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation",
    ):
        op(x)
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 1.0])  # unchanged
    with torch.no_grad():
        assert op(x) is x
    assert x.is_leaf and x.requires_grad


def test_augmented_assignment_on_a_leaf_requiring_grad_raises():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place operation"):
        x += 1
    with pytest.raises(RuntimeError, match="in-place operation"):
        x *= 2


def test_in_place_returns_self_and_changes_the_values():
    x = torch.tensor([1.0, 2.0])
    assert x.add_(1) is x
    y = x
    x += 1
    assert x is y
    np.testing.assert_array_equal(x.numpy(), [3.0, 4.0])
    x.mul_(torch.tensor([2.0, 0.5]))
    np.testing.assert_array_equal(x.numpy(), [6.0, 2.0])
    x.zero_()
    np.testing.assert_array_equal(x.numpy(), [0.0, 0.0])
    x.fill_(7)
    assert x.dtype == torch.float32 and x.tolist() == [7.0, 7.0]
    x.copy_(torch.tensor([1.0, 2.0], dtype=torch.float64))
    assert x.dtype == torch.float32 and x.tolist() == [1.0, 2.0]


def test_in_place_keeps_the_dtype():
    x = torch.tensor([1.0, 2.0])
    x += np.float64(0.5)
    x.mul_(torch.tensor(2.0, dtype=torch.float64))
    assert x.dtype == torch.float32


def test_in_place_on_a_non_leaf_is_recorded():
    a = f64([1.0, 2.0])
    b = a * 1
    b += a  # b = 2 a
    b.mul_(a)  # b = 2 a^2
    assert b.grad_fn.name() == "MulBackward0"
    b.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 8.0])


def test_in_place_on_a_plain_tensor_with_a_grad_tensor_makes_it_a_non_leaf():
    x = f64([1.0, 2.0])
    acc = torch.zeros(2, dtype=torch.float64)
    acc += x * x
    assert acc.requires_grad and not acc.is_leaf
    acc.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_an_earlier_graph_keeps_its_old_values_after_an_in_place_update():
    a = f64([1.0, 2.0])
    b = a * 1
    c = b * b  # recorded with b = a
    b += 1  # b is now a + 1: a new node; c's graph is untouched
    np.testing.assert_array_equal(c.detach().numpy(), [1.0, 4.0])
    c.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 4.0])  # 2 a, not 2 (a + 1)
    a.grad = None
    (b * b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 6.0])  # 2 (a + 1)


def test_in_place_on_a_plain_tensor_does_not_change_results_computed_from_it():
    a = torch.tensor([1.0, 2.0])
    b = a * 2
    a += 10
    np.testing.assert_array_equal(b.numpy(), [2.0, 4.0])


def test_a_values_array_held_by_a_graph_is_read_only():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(ValueError, match="read-only"):
        y.detach().numpy()[0] = 5.0
    np.testing.assert_array_equal(y.detach().numpy(), [2.0, 2.0])


# --- .data and .detach() -----------------------------------------------------------------


def test_data_fill_changes_the_tensor():
    x = torch.ones(3, requires_grad=True)
    x.data.fill_(2.0)
    np.testing.assert_array_equal(x.detach().numpy(), [2.0, 2.0, 2.0])
    assert x.requires_grad and x.is_leaf
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0, 4.0])


def test_data_is_cut_from_the_graph():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    d = y.data
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    np.testing.assert_array_equal(d.numpy(), [2.0, 2.0])
    assert not (d * 3).requires_grad


def test_data_setter_replaces_the_values():
    x = torch.ones(2, requires_grad=True)
    x.data = torch.tensor([5.0, 6.0])
    np.testing.assert_array_equal(x.detach().numpy(), [5.0, 6.0])
    assert x.requires_grad
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 12.0])


def test_data_of_a_non_leaf_in_place_changes_its_value():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.data.mul_(10)
    np.testing.assert_array_equal(y.detach().numpy(), [20.0, 20.0])
    assert y.grad_fn.name() == "MulBackward0"


def test_detach():
    x = f64([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    np.testing.assert_array_equal(d.numpy(), [2.0, 4.0])
    z = (d * y).sum()  # d is a constant in z
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])


def test_detach_in_place():
    x = f64([1.0, 2.0])
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.grad_fn is None


def test_requires_grad_flag_only_changes_on_leaves():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)
    assert y.requires_grad_(True) is y  # already true: allowed
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torch.tensor([1, 2]).requires_grad_()
    t = torch.ones(2)
    t.requires_grad = True
    assert t.requires_grad and t.is_leaf


# --- in-place operations and views (issue #14) ---------------------------------------


def test_in_place_on_a_view_changes_the_base_and_keeps_earlier_graphs():
    x = f64([1.0, 2.0, 3.0])
    y = x * 2
    z = (y * y).sum()  # records y = [2, 4, 6]
    head = y[:2]
    head.add_(1)
    np.testing.assert_array_equal(y.detach().numpy(), [3.0, 5.0, 6.0])
    assert y.grad_fn.name() == "CopySlices" and y._version == 1 == head._version
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 16.0, 24.0])


def test_an_in_place_activation_on_a_view_writes_into_the_base():
    from funcgrad.nn import functional as F

    x = f64([-1.0, 2.0, -3.0])
    y = x * 1
    F.relu(y[1:], inplace=True)
    np.testing.assert_array_equal(y.detach().numpy(), [-1.0, 2.0, 0.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 0.0])


def test_an_optimizer_step_updates_the_parameter_and_its_views():
    p = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    rows = p.detach().view(2, 2)
    opt = torch.optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(rows.numpy(), [[0.0, 0.0], [0.0, 0.0]])
    assert p.is_leaf and p.requires_grad


def test_no_grad_updates_through_data_views_and_augmented_assignment():
    w = torch.ones(2, 3, requires_grad=True)
    col = w[:, 0]
    with torch.no_grad():
        w -= 0.5
        col.mul_(4)
        w[1] = 7.0
    w.data[0, 1:].fill_(-1.0)
    np.testing.assert_array_equal(w.detach().numpy(), [[2.0, -1.0, -1.0], [7.0, 7.0, 7.0]])
    np.testing.assert_array_equal(col.detach().numpy(), [2.0, 7.0])
    assert w.is_leaf and w.grad_fn is None
    (w * col[:1]).sum().backward()  # col is still a view of w in the graph
    np.testing.assert_array_equal(w.grad.numpy(), [[2.0 + 21.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
