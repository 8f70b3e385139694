"""The functional backward depends only on its arguments (issue #11).

A random interleaving of what the layers above do — tensor hooks registered
and removed, `retain_grad`, `Tensor.backward`, `autograd.grad`, profiles,
anomaly mode, other threads running backward passes — never changes what
`funcgrad.backward` returns on graphs built before (or during) it all.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp
from funcgrad.autograd import detect_anomaly
from funcgrad.autograd.profiler import profile
from funcgrad.ops import observe
from funcgrad.ops.registry import Primitive

_PRIMITIVE_METHODS = dict(Primitive.__dict__)
pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")


def _graphs():
    """Two graphs over tensors: a leaf, a non-leaf, a shared subexpression."""
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.5, 0.25, -0.75], dtype=torch.float64, requires_grad=True)
    h = (x * w).tanh()
    y1 = (h * h + x).sum()
    y2 = (h.exp() * w).sum()
    return {"x": x, "w": w, "h": h, "y1": y1, "y2": y2}


def _functional(t):
    """What fg.backward gives on each root, for the nodes of x, w and h."""
    nodes = [t["x"]._node, t["w"]._node, t["h"]._node]
    out = []
    for root in ("y1", "y2"):
        g = fg.backward(t[root]._node, wrt=nodes)
        out.append([np.array(g[n]) for n in nodes])
        g2 = fg.backward(t[root]._node, wrt=nodes[:2], create_graph=True)
        out.append([np.array(g2[n].value) for n in nodes[:2]])
    return out


ACTIONS = st.sampled_from(
    [
        "hook_leaf",
        "hook_nonleaf",
        "remove",
        "retain_grad",
        "tensor_backward",
        "autograd_grad",
        "profile",
        "anomaly",
        "thread",
        "post_hook",
    ]
)


def _check(t, reference):
    for got, want in zip(_functional(t), reference, strict=True):
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=25)
@given(
    actions=st.lists(ACTIONS, min_size=1, max_size=12),
    scales=st.lists(st.sampled_from([0.0, 2.0, -3.0, 10.0]), min_size=12, max_size=12),
)
def test_functional_backward_never_changes(actions, scales):
    t = _graphs()
    reference = _functional(t)
    handles = []
    for k, action in enumerate(actions):
        s = scales[k]
        if action == "hook_leaf":
            handles.append(t["x"].register_hook(lambda g, s=s: g * s))
        elif action == "hook_nonleaf":
            handles.append(t["h"].register_hook(lambda g, s=s: g * s))
        elif action == "post_hook":
            handles.append(t["w"].register_post_accumulate_grad_hook(lambda p: None))
        elif action == "remove" and handles:
            handles.pop(k % len(handles)).remove()
        elif action == "retain_grad":
            t["h"].retain_grad()
        elif action == "tensor_backward":
            t["y1"].backward()
        elif action == "autograd_grad":
            torch.autograd.grad(t["y2"], [t["x"], t["h"]], create_graph=bool(k % 2))
        elif action == "profile":
            with profile():
                _check(t, reference)
                t["y2"].backward()
        elif action == "anomaly":
            with detect_anomaly():
                _check(t, reference)
        elif action == "thread":
            errors = []

            def work(errors=errors):
                try:
                    with profile():
                        for _ in range(3):
                            t["y1"].backward()
                            _check(t, reference)
                except Exception as e:  # pragma: no cover - reported below
                    errors.append(e)

            threads = [threading.Thread(target=work) for _ in range(3)]
            for th in threads:
                th.start()
            _check(t, reference)
            for th in threads:
                th.join()
            assert not errors, errors
        _check(t, reference)
    for h in handles:
        h.remove()
    _check(t, reference)
    # Nothing was patched onto classes, and no thread is left observing.
    assert dict(Primitive.__dict__) == _PRIMITIVE_METHODS
    assert observe.active == 0


def test_hooks_seen_by_the_tensor_layer_only():
    # The reproducer: the pure backward's answer does not move.
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (t * t).sum()
    before = fg.backward(y._node)[t._node]
    h = t.register_hook(lambda g: g * 100)
    np.testing.assert_array_equal(fg.backward(y._node)[t._node], before)
    y.backward()
    np.testing.assert_array_equal(t.grad.numpy(), [200.0, 400.0])
    h.remove()
    np.testing.assert_array_equal(fg.backward(y._node)[t._node], [2.0, 4.0])


def test_double_backward_applies_a_leaf_hook_once_per_pass():
    # PyTorch 2.13 gives [600, 1200] with the hook kept, [60, 120] after remove().
    for keep, want in ((True, [600.0, 1200.0]), (False, [60.0, 120.0])):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        h = x.register_hook(lambda g: g * 10)
        (gx,) = torch.autograd.grad((x**3).sum(), x, create_graph=True)
        np.testing.assert_array_equal(gx.detach().numpy(), [30.0, 120.0])
        if not keep:
            h.remove()
        gx.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), want)


def test_double_backward_through_a_hooked_non_leaf():
    # y = 2x, z = sum(y**3); the hook on y scales every gradient arriving at y.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    (gx,) = torch.autograd.grad((y**3).sum(), x, create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), 10 * 3 * (2 * np.array([1.0, 2.0])) ** 2 * 2)
    gx.sum().backward()
    # gx = 60 y**2 (recorded), d/dx through y (hook fires again: *10) = 10 * 120 y * 2
    np.testing.assert_allclose(x.grad.numpy(), 10 * 120 * np.array([2.0, 4.0]) * 2)


def test_functional_with_hooks_double_backward():
    x = fg.leaf(np.array([1.0, 2.0]))
    g1 = fg.backward(fg.with_hooks(fnp.sum(x**3), {x: lambda ct: ct * 10}), create_graph=True)[x]
    np.testing.assert_array_equal(g1.value, [30.0, 120.0])
    np.testing.assert_array_equal(fg.backward(fnp.sum(g1))[x], [60.0, 120.0])


def test_a_hook_added_after_the_forward_pass_fires_and_a_removed_one_never_does():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    h = y.register_hook(lambda g: g * 0.5)  # after the forward pass
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [9.0, 18.0])
    h.remove()
    x.grad = None
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [18.0, 36.0])
