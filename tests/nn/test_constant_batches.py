"""A constant tensor's array in a graph recorded by a `funcgrad.nn.functional` function.

`from_numpy` shares the user's array; a graph must never see later writes
into it. When nothing but the tensor holds the array (`from_numpy(x.copy())`,
a training batch), the graph shares it, locked read-only, instead of copying
it every step; when someone else holds it (the user's own variable, a view,
`.numpy()`), the graph takes a copy and the array stays writeable. Checked
against PyTorch's values and gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
import funcgrad.nn.functional as F
from tests.references import requires

torch = requires("torch")

rng = np.random.default_rng(5)
X0 = rng.standard_normal((4, 3)).astype(np.float32)
W0 = rng.standard_normal((2, 3)).astype(np.float32)
B0 = rng.standard_normal(2).astype(np.float32)


def _weights():
    w = funcgrad.from_numpy(W0.copy()).requires_grad_()
    b = funcgrad.from_numpy(B0.copy()).requires_grad_()
    return w, b


def _torch_grad(x):
    w = torch.from_numpy(W0.copy()).requires_grad_()
    b = torch.from_numpy(B0.copy()).requires_grad_()
    (torch.nn.functional.linear(torch.from_numpy(x), w, b) ** 2).sum().backward()
    return w.grad.numpy(), b.grad.numpy()


def test_from_numpy_shares_the_array_itself():
    a = X0.copy()
    t = funcgrad.from_numpy(a)
    assert t._value is a  # not a view: the graph can tell whether anyone else holds it
    a[0, 0] = 7.0
    assert t[0, 0].item() == 7.0


def test_a_private_batch_is_shared_with_the_graph_locked_not_copied():
    x = funcgrad.from_numpy(X0.copy())
    w, b = _weights()
    y = F.linear(x, w, b)
    batch = x._value
    assert not batch.flags.writeable  # locked in place
    assert any(getattr(i, "value", i) is batch for i in y._node.inputs)  # no copy
    (y**2).sum().backward()
    tw, tb = _torch_grad(X0.copy())
    np.testing.assert_allclose(w.grad.numpy(), tw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), tb, rtol=1e-5, atol=1e-6)
    # the tensor stays usable as PyTorch's: numpy() hands out a writeable array, and a
    # write there changes the tensor but not the recorded graph
    arr = x.numpy()
    assert arr.flags.writeable
    arr[...] = 100.0
    assert x[0, 0].item() == 100.0
    w.grad = None
    b.grad = None
    (y**2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "hold",
    [
        lambda a, t: a,  # the user's own variable
        lambda a, t: a[1:],  # a NumPy view of it
        lambda a, t: t.numpy(),  # the tensor's numpy()
        lambda a, t: memoryview(a),  # the buffer protocol
    ],
)
def test_a_batch_someone_else_holds_is_copied_and_stays_writeable(hold):
    a = X0.copy()
    x = funcgrad.from_numpy(a)
    holder = hold(a, x)
    del a
    w, b = _weights()
    y = F.linear(x, w, b)
    assert x._value.flags.writeable
    np.asarray(holder)[...] = -3.0  # after recording: the graph must not see it
    (y**2).sum().backward()
    tw, tb = _torch_grad(X0.copy())
    np.testing.assert_allclose(w.grad.numpy(), tw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), tb, rtol=1e-5, atol=1e-6)
    assert x[1, 0].item() == -3.0  # the tensor shares the held memory, as in PyTorch


def test_without_a_recorded_operand_nothing_is_locked():
    x = funcgrad.from_numpy(X0.copy())
    F.linear(x, funcgrad.from_numpy(W0.copy()), funcgrad.from_numpy(B0.copy()))
    assert x._value.flags.writeable
    with funcgrad.no_grad():
        w, b = _weights()
        F.linear(x, w, b)
    assert x._value.flags.writeable
