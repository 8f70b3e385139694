"""The step writes into the parameters' own memory as PyTorch's, unless something else can see it.

`funcgrad.tensors.inplace.writable` lets an update go into a tensor's array
only when nothing but the tensor holds it; otherwise the step makes a new
array. These tests check both sides: PyTorch's observable behaviour where
the memory is reused (the same data pointer, `_version`, the numbers), and
old values kept where a graph, a NumPy array or an alias could see them,
with the same numbers bit for bit either way.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1, "nesterov": True, "momentum": 0.5}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "maximize": True, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
]
SHAPES = [(30, 20), (20,), ()]


def _pointer(t) -> int:
    """Where the tensor's values live (PyTorch's `data_ptr()`), holding nothing afterwards."""
    return t.detach().numpy().__array_interface__["data"][0]


def _grads(rng, dtype=np.float64) -> list:
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


@pytest.mark.parametrize("name, options", OPTIMIZERS, ids=str)
def test_the_step_writes_into_the_parameters_memory_with_pytorchs_versions(name, options):
    torch = requires("torch")
    rng = np.random.default_rng(0)
    arrays = _grads(rng)
    ours = [fg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    opt = getattr(fg.optim, name)(ours, **options)
    topt = getattr(torch.optim, name)(theirs, **options)
    pointers = [_pointer(p) for p in ours]
    for _ in range(3):
        for p, q, g in zip(ours, theirs, _grads(rng), strict=True):
            p.grad, q.grad = fg.tensor(g), torch.tensor(g)
        opt.step()
        topt.step()
    assert [_pointer(p) for p in ours] == pointers
    assert [p._version for p in ours] == [q._version for q in theirs]
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-10)


def _train(name, options, hold, dtype=np.float32, steps=4) -> list:
    """Parameters and state after `steps` steps; `hold(ps)` keeps something alive during each."""
    rng = np.random.default_rng(1)
    ps = [fg.tensor(a, requires_grad=True) for a in _grads(rng, dtype)]
    opt = getattr(fg.optim, name)(ps, **options)
    for _ in range(steps):
        for p, g in zip(ps, _grads(rng, dtype), strict=True):
            p.grad = fg.tensor(g)
        held = hold(ps)
        opt.step()
        del held
    state = [v.numpy().copy() for s in opt.state.values() for v in s.values()]
    return [p.detach().numpy().copy() for p in ps] + state


HOLDERS = {
    "a graph": lambda ps: [(p * 2).sum() for p in ps],
    "a NumPy array": lambda ps: [p.detach().numpy() for p in ps],
    "an alias": lambda ps: [p.data for p in ps],
    "a view": lambda ps: [p.reshape(-1) for p in ps],
}


@pytest.mark.parametrize("holder", list(HOLDERS))
@pytest.mark.parametrize("name, options", OPTIMIZERS[::2], ids=str)
def test_in_place_and_new_array_steps_agree_bit_for_bit(name, options, holder):
    in_place = _train(name, options, lambda ps: None)
    held = _train(name, options, HOLDERS[holder])
    assert all(
        a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(in_place, held, strict=True)
    )


@pytest.mark.parametrize("name, options", OPTIMIZERS[::3], ids=str)
def test_what_saw_the_old_values_keeps_them(name, options):
    (p,) = [fg.tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)]
    x = fg.tensor(np.array([0.5, 0.25, 2.0]), requires_grad=True)
    opt = getattr(fg.optim, name)([p], **options)
    old = p.detach().numpy().copy()
    y = (p * p).sum()  # a graph that saved p
    z = (p.detach() * x).sum()  # a graph that saved p's values as a constant
    array = p.detach().numpy()  # read-only: the graph's values
    alias, view = p.detach(), p[1:]
    pointer = _pointer(p)
    p.grad = fg.ones(3, dtype=fg.float64)
    opt.step()
    assert not np.array_equal(p.detach().numpy(), old)
    assert _pointer(p) != pointer  # the new values went into new memory
    np.testing.assert_array_equal(array, old)
    np.testing.assert_array_equal(alias.numpy(), p.detach().numpy())  # aliases follow p
    np.testing.assert_array_equal(view.detach().numpy(), p.detach().numpy()[1:])
    p.grad = None
    y.backward()  # PyTorch would refuse (the graph is freed, or p was modified in place)
    z.backward()
    np.testing.assert_array_equal(p.grad.numpy(), 2 * old)
    np.testing.assert_array_equal(x.grad.numpy(), old)
    del y, z, array, alias, view
    pointer = _pointer(p)
    opt.step()  # nothing sees the old values any more: into p's memory again
    assert _pointer(p) == pointer
