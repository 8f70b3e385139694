"""Values the graph holds are read-only; gradients handed out are the caller's own.

* Every node's value is a read-only NumPy array (or an immutable NumPy
  scalar): writing into one raises NumPy's `ValueError: assignment
  destination is read-only` instead of silently changing a later gradient.
  The user's own writeable arrays are copied, never locked.
* Outputs of `vjp`/`jvp`/`value_and_grad` that the graph keeps using are
  read-only too; gradients are writeable and share memory with nothing (not
  with each other, not with the graph).
* The Tensor layer: `.numpy()` and `.data.numpy()` of a value a graph
  holds are read-only views; in-place tensor operations rebind the tensor
  to a new value, so graphs recorded earlier keep theirs.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp
from funcgrad.graph import toposort
from funcgrad.ops import registry
from tests.call_samples import sample_of


def _writeable(a) -> bool:
    return isinstance(a, np.ndarray) and a.flags.writeable


def test_every_value_in_a_graph_is_read_only():
    a = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    x = fg.leaf(a)
    y = fnp.sum(fnp.tanh(x @ x.T) * fnp.exp(x[:, :2].sum(axis=1)))
    for node in toposort(y):
        assert not _writeable(node.value), f"{node!r} holds a writeable value"
        for i in node.inputs:
            assert not _writeable(i), f"{node!r} holds a writeable constant"
    with pytest.raises(ValueError, match="read-only"):
        x.value[0, 0] = 5.0


def test_the_users_array_is_copied_not_locked():
    a = np.ones(3)
    x = fg.leaf(a)
    assert a.flags.writeable and not np.shares_memory(a, x.value)
    y = fnp.sum(x * a)  # a constant too: copied
    a[:] = 7.0
    np.testing.assert_array_equal(fg.backward(y)[x], np.ones(3))


def test_freeze_shares_without_a_copy():
    a = fg.freeze(np.arange(3.0))
    assert not a.flags.writeable
    x = fg.leaf(a)
    assert x.value is a


def test_gradients_are_writeable_and_unaliased():
    w = np.array([2.0, 3.0])
    f = lambda x, y: fnp.sum((x + y) * w)  # noqa: E731  (add passes one array to both)
    gx, gy = fg.grad(f, argnums=(0, 1))(np.ones(2), np.ones(2))
    assert _writeable(gx) and _writeable(gy) and not np.shares_memory(gx, gy)
    gx -= 1.0
    np.testing.assert_array_equal(gy, w)

    g = fg.grad(fnp.sum)(np.ones(3))  # sum's rule gives a broadcast view
    assert _writeable(g)
    g += 1.0
    np.testing.assert_array_equal(fg.grad(fnp.sum)(np.ones(3)), np.ones(3))

    _, gp = fg.value_and_grad(lambda p: fnp.sum(p["a"] + p["b"]))(
        {"a": np.ones(2), "b": np.ones(2)}
    )
    assert _writeable(gp["a"]) and not np.shares_memory(gp["a"], gp["b"])
    out, vjp_fn = fg.vjp(lambda x: fnp.reshape(x, (2, 2)), np.ones(4))
    ct = np.ones((2, 2))
    (gv,) = vjp_fn(ct)
    assert _writeable(gv) and not np.shares_memory(gv, ct)


def test_outputs_the_graph_keeps_using_are_read_only():
    out, vjp_fn = fg.vjp(lambda x: fnp.exp(x), np.zeros(2))
    assert not _writeable(out)  # exp's rule reads it: writing would change vjp_fn
    with pytest.raises(ValueError, match="read-only"):
        out[0] = 2.0
    np.testing.assert_array_equal(vjp_fn(np.ones(2))[0], np.ones(2))


@pytest.mark.parametrize("prim", registry.primitives(), ids=lambda p: p.name)
def test_no_rule_writes_into_its_arguments(prim):
    # Cotangents are computed, never written in place: a rule given read-only
    # arrays (as the walk gives it) must not fail on them.
    rng = np.random.default_rng(0)

    class G:  # a fixed drawing helper (no hypothesis: one example each)
        def shape(self, min_dims=0, max_dims=3, min_side=1, max_side=4):
            return (2,) * max(min_dims, min(2, max_dims))

        def broadcast_shapes(self, n, min_dims=0, max_dims=3):
            return [(2, 2)] * n

        def array(self, shape, low, high):
            return rng.uniform(low, high, size=tuple(shape))

        def integers(self, low, high):
            return low

        def choice(self, seq):
            return list(seq)[0]

        def boolean(self):
            return False

        def permutation(self, n):
            return list(range(n))

    args, params = sample_of(prim).make(G())
    args = tuple(fg.freeze(a) if isinstance(a, np.ndarray) else a for a in args)
    leaves = {
        i: fg.leaf(a)
        for i, a in enumerate(args)
        if isinstance(a, (np.ndarray, np.generic)) and a.dtype.kind == "f"
    }
    node = prim(*(leaves.get(i, a) for i, a in enumerate(args)), **params)
    ct = fg.freeze(np.ones(node.shape, node.dtype))
    fg.backward(node, ct, wrt=list(leaves.values()))
    fg.backward(node, ct, wrt=list(leaves.values()), create_graph=True)


# --- the Tensor layer ------------------------------------------------------------------


def test_tensor_numpy_views_of_recorded_values_are_read_only():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(ValueError, match="read-only"):
        y.detach().numpy()[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        x.data.numpy()[0] = 5.0
    plain = torch.ones(2)
    plain.numpy()[0] = 5.0  # nothing records it: writeable, as in PyTorch
    assert plain.tolist() == [5.0, 1.0]


def test_tensor_in_place_updates_do_not_change_recorded_graphs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.data.fill_(5.0)  # rebinds x to a new value; y's graph keeps [1, 2]
    with torch.no_grad():
        x.mul_(2.0)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert x.tolist() == [10.0, 10.0]


def test_tensor_grads_share_no_memory():
    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    ((x + y) * torch.tensor([2.0, 3.0])).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
