"""Tensor hooks: `register_hook`, `retain_grad` and post-accumulate hooks.

Hooks fire for `.backward()`, `autograd.grad` and the functional
`funcgrad.backward` on a tensor's node, because they are applied as graph
transforms inside the one backward walk.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


def test_hook_on_a_non_leaf_replaces_its_gradient():
    x = f64([1.0, 2.0])
    y = x * 2
    z = (y * y).sum()  # dz/dy = 2 y = 4 x
    y.register_hook(lambda g: g * 10)
    z.backward()
    # dz/dx = 10 * 4x * 2
    np.testing.assert_array_equal(x.grad.numpy(), [80.0, 160.0])


def test_hook_that_returns_none_only_looks():
    seen = []
    x = f64([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    y.sum().backward()
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_hook_registered_after_downstream_ops_were_recorded():
    x = f64(2.0)
    y = x * x
    z = y * 5  # recorded before the hook
    y.register_hook(lambda g: g + 1)  # dz/dy = 5 becomes 6
    z.backward()
    assert x.grad.item() == 6 * 2 * 2.0


def test_hook_on_a_leaf_changes_what_is_accumulated():
    x = f64([1.0, 2.0])
    x.register_hook(lambda g: g + 1)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 5.0])


def test_several_hooks_run_in_registration_order():
    calls = []
    x = f64(1.0)
    y = x * 1
    y.register_hook(lambda g: calls.append("first") or g * 2)
    y.register_hook(lambda g: calls.append("second") or g + 1)
    y.backward()
    assert calls == ["first", "second"]
    assert x.grad.item() == 3.0  # (1 * 2) + 1


def test_handle_remove_unregisters_and_is_idempotent():
    x = f64([1.0, 2.0])
    y = x * 2
    z = y.sum()
    handle = y.register_hook(lambda g: g * 100)
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [200.0, 200.0])
    handle.remove()
    handle.remove()
    x.grad = None
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_handle_as_context_manager():
    x = f64(1.0)
    with x.register_hook(lambda g: g * 0):
        (x * 3).backward()
    assert x.grad.item() == 0.0
    (x * 3).backward()
    assert x.grad.item() == 3.0


def test_several_tensors_with_hooks_and_repeated_registration():
    # Regression: tensors with hooks used to be kept in a WeakSet, which
    # compares tensors with `==` (elementwise) and raised on a second hook.
    x = f64([1.0, 2.0])
    y = x * 2
    h1 = y.register_hook(lambda g: g)
    h1.remove()
    y.register_hook(lambda g: g * 2)
    x.register_hook(lambda g: g * 3)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [12.0, 12.0])


def test_hooks_fire_for_autograd_grad():
    seen = []
    x = f64([1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: seen.append("y") or g * 10)
    (gx,) = torch.autograd.grad((y * y).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), [80.0, 160.0])
    assert seen == ["y"] and x.grad is None


def test_the_functional_backward_ignores_tensor_hooks():
    # Issue #11: fg.backward depends only on its arguments; tensor hooks belong
    # to Tensor.backward and autograd.grad (which pass them to the walk).
    seen = []
    x = f64([1.0, 2.0])
    y = x * 2
    z = (y * y).sum()
    before = fg.backward(z._node)[x._node]
    h = y.register_hook(lambda g: seen.append(1) or g * 10)
    hx = x.register_hook(lambda g: g * 100)
    np.testing.assert_array_equal(fg.backward(z._node)[x._node], before)
    np.testing.assert_array_equal(before, [8.0, 16.0])
    assert seen == [] and x.grad is None
    # The same hooks passed explicitly do apply.
    hooked = fg.backward(z._node, hooks={y._node: lambda ct: ct * 10})[x._node]
    np.testing.assert_array_equal(hooked, [80.0, 160.0])
    h.remove()
    hx.remove()


def test_hook_gets_and_may_return_a_tensor_of_the_tensors_class():
    from funcgrad.autograd import Variable

    got = []
    v = Variable(torch.Tensor([1.0]), requires_grad=True)
    (v * 2).register_hook(lambda g: got.append(type(g)))
    w = v * 2
    w.register_hook(lambda g: got.append(type(g)))
    w.backward()
    assert got == [Variable]


def test_hook_returning_the_wrong_shape_raises():
    x = f64([1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: torch.ones(3, dtype=torch.float64))
    with pytest.raises(Exception, match=r"shape \(3,\).*\(2,\)"):
        y.sum().backward()


def test_register_hook_needs_requires_grad():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        torch.ones(1).register_hook(lambda g: g)


def test_hook_does_not_keep_the_tensor_alive():
    x = torch.ones(1, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g)
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None


def test_hooks_on_one_graph_do_not_leak_into_another():
    x = f64(1.0)
    y = x * 2
    y.register_hook(lambda g: g * 100)
    (x * 5).backward()  # y is not in this graph
    assert x.grad.item() == 5.0


# --- the documented order ---------------------------------------------------------------


def test_order_tensor_hooks_then_retain_grad_then_accumulation_then_post_hooks():
    log = []
    x = f64([1.0, 2.0])
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: log.append(("y hook", y._grad)) or g * 2)
    x.register_hook(lambda g: log.append(("x hook", x.grad)) or None)
    x.register_post_accumulate_grad_hook(lambda t: log.append(("x post", t.grad.numpy().copy())))
    y.sum().backward()
    assert [entry[0] for entry in log] == ["y hook", "x hook", "x post"]
    assert log[0][1] is None  # retain_grad has not written y.grad yet
    assert log[1][1] is None  # nor has x.grad been accumulated
    np.testing.assert_array_equal(log[2][1], [6.0, 6.0])  # post hook sees the accumulated grad
    # retain_grad keeps the gradient as the hooks left it.
    np.testing.assert_array_equal(y.grad.numpy(), [2.0, 2.0])


def test_post_accumulate_grad_hook_can_update_the_parameter():
    # The optimizer-in-backward pattern.
    w = f64([1.0, 2.0])

    def sgd_step(t):
        with torch.no_grad():
            t -= 0.5 * t.grad
        t.grad = None

    handle = w.register_post_accumulate_grad_hook(sgd_step)
    (w * w).sum().backward()  # grad 2 w
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 0.0])
    assert w.grad is None
    handle.remove()
    (w + 1).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0])


def test_post_accumulate_grad_hook_only_on_leaves():
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="non-leaf"):
        torch.ones(1).register_post_accumulate_grad_hook(lambda t: None)
