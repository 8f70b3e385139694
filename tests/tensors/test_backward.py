"""`Tensor.backward`, `.grad`, `grad_fn` and `autograd.grad`: behaviour against closed forms."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import funcgrad as torch
from funcgrad.tensors.grad_fn import AccumulateGrad, BackwardFunction


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


# --- requires_grad, is_leaf, grad_fn ---------------------------------------------------


def test_requires_grad_propagates_to_results():
    x = torch.ones(2, requires_grad=True)
    c = torch.ones(2)
    assert (x + c).requires_grad and (c + x).requires_grad
    assert (x * 2).requires_grad and (2 * x).requires_grad
    assert not (c * 2).requires_grad
    assert torch.exp(x).requires_grad and x.sum().requires_grad and x[0].requires_grad
    assert torch.cat([c, x]).requires_grad and torch.stack([c, c]).requires_grad is False


def test_is_leaf():
    x = torch.ones(2, requires_grad=True)
    c = torch.ones(2)
    assert x.is_leaf and c.is_leaf
    assert not (x * 2).is_leaf
    assert (c * 2).is_leaf  # nothing recorded: a leaf, as in PyTorch
    assert x.detach().is_leaf
    with torch.no_grad():
        assert (x * 2).is_leaf


def test_grad_fn_names_are_pytorchs():
    x = torch.ones(2, 2, requires_grad=True)
    assert x.grad_fn is None
    names = {
        "AddBackward0": x + 1,
        "SubBackward0": x - 1,
        "MulBackward0": x * 2,
        "DivBackward0": x / 2,
        "MeanBackward0": x.mean(),
        "SumBackward0": x.sum(),
        "ExpBackward0": x.exp(),
        "MmBackward0": x @ x,
        "TanhBackward0": x.tanh(),
    }
    for name, t in names.items():
        assert t.grad_fn.name() == name == type(t.grad_fn).__name__
        assert repr(t.grad_fn).startswith(f"<{name} object at 0x")
    # The same tensor gives equal grad_fn objects.
    y = x * 2
    assert y.grad_fn == y.grad_fn and hash(y.grad_fn) == hash(y.grad_fn)


def test_next_functions_walk_the_graph():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    y = a * a
    z = y + c
    (y_fn, _), (c_fn, _) = z.grad_fn.next_functions
    assert isinstance(y_fn, BackwardFunction) and y_fn == y.grad_fn
    assert c_fn is None  # c does not require grad
    (a1, k1), (a2, k2) = y_fn.next_functions
    assert isinstance(a1, AccumulateGrad) and a1.variable is a and a2.variable is a
    assert (k1, k2) == (0, 0)
    assert a1.name() == "AccumulateGrad" and a1.next_functions == ()
    # Python constants are not graph inputs of the node.
    w = a * 2
    assert all(fn is None or fn.variable is a for fn, _ in w.grad_fn.next_functions)


# --- .grad accumulates; repeated backward ---------------------------------------------


def test_grad_accumulates_across_backward_calls():
    x = f64([1.0, 2.0, 3.0])
    y = (x**2).sum()  # dy/dx = 2x
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])
    first = x.grad
    y.backward()  # the same graph, again: no retain_graph needed
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0, 12.0])
    assert x.grad is first  # accumulated into the same tensor, as in PyTorch
    (x * 10).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [14.0, 18.0, 22.0])
    x.grad = None
    y.backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_repeated_backward_on_the_same_graph_gives_the_same_gradient():
    x = f64([0.5, -1.5])
    out = (torch.sin(x) * torch.exp(x)).sum()
    expected = np.cos([0.5, -1.5]) * np.exp([0.5, -1.5]) + np.sin([0.5, -1.5]) * np.exp([0.5, -1.5])
    for _ in range(3):
        x.grad = None
        out.backward()
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_grad_of_a_leaf_used_twice_sums():
    x = f64(3.0)
    (x * x + x).backward()  # 2x + 1
    assert x.grad.item() == 7.0


def test_grad_is_zeroed_by_zero_():
    x = f64([1.0, 2.0])
    (x * 3).sum().backward()
    x.grad.zero_()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    x.grad.data.zero_()  # the 0.3 idiom
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_grad_setter_checks_type_and_shape():
    x = torch.ones(2, requires_grad=True)
    x.grad = torch.ones(2)
    assert x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"different size.*\(3,\).*\(2,\)"):
        x.grad = torch.ones(3)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = np.ones(2)


# --- non-leaf .grad, retain_grad ---------------------------------------------------


def test_non_leaf_grad_is_none_and_warns():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match=r"\.grad attribute of a Tensor that is not a leaf"):
        assert y.grad is None
    # Leaves do not warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is not None
        assert torch.ones(1).grad is None


def test_retain_grad_keeps_the_gradient_of_a_non_leaf():
    x = f64([1.0, 2.0])
    y = x * x
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad
    z = (y * 3).sum()
    z.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 12.0])
    z.backward()
    np.testing.assert_array_equal(y.grad.numpy(), [6.0, 6.0])  # accumulates too


def test_retain_grad_on_a_leaf_is_a_no_op_and_needs_requires_grad():
    x = torch.ones(1, requires_grad=True)
    x.retain_grad()
    (x * 2).backward()
    assert x.grad.item() == 2.0
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        torch.ones(1).retain_grad()


def test_retain_grad_does_not_keep_the_tensor_alive():
    x = torch.ones(1, requires_grad=True)
    y = x * 2
    y.retain_grad()
    import weakref

    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None


# --- create_graph: higher order ------------------------------------------------------


def test_create_graph_gives_a_differentiable_grad():
    x = f64(1.3)
    y = x**3 + torch.sin(x)
    y.backward(create_graph=True)
    g = x.grad  # 3x^2 + cos x
    assert g.requires_grad and g.grad_fn is not None
    np.testing.assert_allclose(g.item(), 3 * 1.3**2 + np.cos(1.3), rtol=1e-12)
    x.grad = None
    g.backward()  # d/dx (3x^2 + cos x) = 6x - sin x
    np.testing.assert_allclose(x.grad.item(), 6 * 1.3 - np.sin(1.3), rtol=1e-12)


def test_autograd_grad_create_graph_third_derivative():
    x = f64(0.7)
    y = torch.exp(2 * x)
    (g1,) = torch.autograd.grad(y, x, create_graph=True)
    (g2,) = torch.autograd.grad(g1, x, create_graph=True)
    (g3,) = torch.autograd.grad(g2, x)
    for g, k in ((g1, 2), (g2, 4), (g3, 8)):
        np.testing.assert_allclose(g.item(), k * np.exp(1.4), rtol=1e-12)
    assert not g3.requires_grad
    assert x.grad is None  # autograd.grad does not touch .grad


def test_create_graph_without_it_grad_is_constant():
    x = f64(2.0)
    (x**2).backward()
    assert not x.grad.requires_grad


def test_gradient_penalty_style_double_backward():
    # ||d/dx sum(w * x^2)||^2 = sum((2 w x)^2); its gradient in w is 8 w x^2.
    x = f64([1.0, 2.0])
    w = f64([0.5, -1.0])
    (gx,) = torch.autograd.grad((w * x**2).sum(), x, create_graph=True)
    penalty = (gx**2).sum()
    penalty.backward()
    np.testing.assert_allclose(w.grad.numpy(), 8 * np.array([0.5, -1.0]) * np.array([1.0, 4.0]))


# --- backward(inputs=...) ---------------------------------------------------------------


def test_backward_inputs_accumulates_only_into_inputs():
    a = f64(2.0)
    b = f64(3.0)
    (a * b).backward(inputs=[a])
    assert a.grad.item() == 3.0 and b.grad is None
    (a * b).backward(inputs=b)
    assert b.grad.item() == 2.0 and a.grad.item() == 3.0


def test_backward_inputs_may_name_a_non_leaf():
    a = f64([1.0, 2.0])
    h = a * 3
    (h * h).sum().backward(inputs=[h])
    np.testing.assert_array_equal(h.grad.numpy(), [6.0, 12.0])
    assert a.grad is None


def test_backward_inputs_not_in_the_graph_stay_none():
    a = f64(1.0)
    b = f64(1.0)
    (a * 2).backward(inputs=[b])
    assert b.grad is None and a.grad is None


def test_backward_inputs_errors():
    a = f64(1.0)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (a * 2).backward(inputs=[])
    with pytest.raises(RuntimeError, match="does not require grad"):
        (a * 2).backward(inputs=[torch.ones(1)])


def test_tanh_backward_leaves_the_gradient_and_the_values_as_they_were():
    # on a large array the first-order rule writes into a temporary of its own
    # (ct * (1 - y*y) in place): the seed, the output and the input keep their values,
    # and the numbers are the formula's
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((64, 80), dtype=np.float32) * 2, requires_grad=True)
    y = torch.tanh(x)
    seed = torch.tensor(rng.standard_normal((64, 80), dtype=np.float32))
    before = (x.detach().numpy().copy(), y.detach().numpy().copy(), seed.numpy().copy())
    y.backward(seed)
    for kept, now in zip(
        before, (x.detach().numpy(), y.detach().numpy(), seed.numpy()), strict=True
    ):
        np.testing.assert_array_equal(kept, now)
    t = before[1]
    want = before[2] * (np.float32(1.0) - t * t)
    assert x.grad.dtype == torch.float32
    assert x.grad.numpy().tobytes() == want.tobytes()
    y.backward(seed)  # accumulates: the first gradient was the tensor's own
    np.testing.assert_array_equal(x.grad.numpy(), want + want)


def test_autograd_backward_function_with_several_roots():
    a = f64([1.0, 2.0])
    torch.autograd.backward([a * 2, (a * a).sum()], [f64([1.0, 1.0], False), None])
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 6.0])


# --- autograd.grad ------------------------------------------------------------------


def test_autograd_grad_returns_without_touching_grad():
    x = f64([1.0, 2.0])
    y = f64([3.0, 4.0])
    gx, gy = torch.autograd.grad((x * y).sum(), (x, y))
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(gy.numpy(), [1.0, 2.0])
    assert x.grad is None and y.grad is None


def test_autograd_grad_with_respect_to_a_non_leaf():
    x = f64([1.0, 2.0])
    h = x * 2
    (gh,) = torch.autograd.grad((h**2).sum(), h)
    np.testing.assert_array_equal(gh.numpy(), [4.0, 8.0])


def test_autograd_grad_unused_inputs():
    x = f64(1.0)
    u = f64(1.0)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        torch.autograd.grad(x * 2, (x, u))
    gx, gu = torch.autograd.grad(x * 2, (x, u), allow_unused=True)
    assert gx.item() == 2.0 and gu is None
    gx, gu = torch.autograd.grad(x * 2, (x, u), materialize_grads=True)
    assert gu.item() == 0.0


def test_autograd_grad_with_grad_outputs():
    x = f64([1.0, 2.0])
    (g,) = torch.autograd.grad(x**2, x, grad_outputs=f64([1.0, 10.0], False))
    np.testing.assert_array_equal(g.numpy(), [2.0, 40.0])


# --- graphs recorded before an update (a tensor never mutates a node) -------------------


def test_leaf_updated_under_no_grad_still_receives_earlier_graphs_gradients():
    x = torch.ones(2, requires_grad=True)
    y = x * 2  # recorded with x = 1
    x.data.fill_(3.0)
    (y.sum() + (x * x).sum()).backward()
    # 2 from the earlier graph, 2 x = 6 from the later one: 8, as in PyTorch.
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 8.0])
    (g,) = torch.autograd.grad(y.sum() + (x * x).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [8.0, 8.0])


def test_graph_recorded_before_an_update_keeps_its_values():
    w = f64([1.0, 2.0])
    loss = (w * w).sum()  # gradient 2 w, with w as it was
    with torch.no_grad():
        w -= 1.0
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 1.0])
    loss.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])
    assert loss.item() == 5.0


def test_retain_grad_follows_an_in_place_update():
    # Regression: retain_grad was keyed by the node the tensor had when it was called.
    x = f64([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.add_(1)
    (y * 3).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])
    z = x * 1
    z.retain_grad()
    z.data.mul_(5)
    (z * 2).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [2.0, 2.0])
