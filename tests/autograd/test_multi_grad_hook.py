"""`autograd.graph.register_multi_grad_hook` against PyTorch's, scenario by scenario."""

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
B = np.array([[1.0, 2.0, -0.5], [0.3, -1.2, 0.8]])


def _record(lib, scenario, mode):
    """Run `scenario` in `lib` (funcgrad or torch): the hook's calls, as arrays."""
    a = lib.tensor(A, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)
    c = a * b
    d = a * b
    e = c * 2.0
    calls = []

    def fn(grads):
        if mode == "all":
            calls.append([None if g is None else g.detach().numpy().copy() for g in grads])
        else:
            calls.append(grads.detach().numpy().copy())

    handle = lib.autograd.graph.register_multi_grad_hook((a, b, c, d, e), fn, mode=mode)
    scenario(lib, a, b, c, d, e)
    handle.remove()
    (a * b).sum().backward()  # removed: no further calls
    return calls, a.grad.numpy()


SCENARIOS = {
    "backward": lambda lib, a, b, c, d, e: e.sum().backward(),
    "two passes": lambda lib, a, b, c, d, e: (
        c.sum().backward(retain_graph=True),
        (c + d).sum().backward(),
    ),
    "inputs": lambda lib, a, b, c, d, e: e.sum().backward(inputs=(a,)),
    "grad of a non-leaf": lambda lib, a, b, c, d, e: lib.autograd.grad(e.sum(), (c,)),
    "only leaves reached": lambda lib, a, b, c, d, e: (a.sum() * 3).backward(),
}


@pytest.mark.parametrize("mode", ["all", "any"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_multi_grad_hook_matches_pytorch(name, mode):
    torch = requires("torch")
    got_calls, got_grad = _record(fg, SCENARIOS[name], mode)
    want_calls, want_grad = _record(torch, SCENARIOS[name], mode)
    assert len(got_calls) == len(want_calls)
    for got, want in zip(got_calls, want_calls, strict=True):
        if mode == "any":
            np.testing.assert_allclose(got, want)
            continue
        assert [g is None for g in got] == [w is None for w in want]
        for g, w in zip(got, want, strict=True):
            if w is not None:
                np.testing.assert_allclose(g, w)
    np.testing.assert_allclose(got_grad, want_grad)


def test_multi_grad_hook_with_leaves_in_autograd_grad():
    # PyTorch refuses this case; funcgrad passes the inputs' gradients.
    a = fg.tensor(A, requires_grad=True)
    b = fg.tensor(B, requires_grad=True)
    seen = []
    fg.autograd.graph.register_multi_grad_hook((a, b), seen.append)
    fg.autograd.grad((a * b).sum(), (a,))
    assert seen[0][1] is None
    np.testing.assert_allclose(seen[0][0].numpy(), B)


def test_multi_grad_hook_refusals():
    a = fg.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="mode"):
        fg.autograd.graph.register_multi_grad_hook((a,), print, mode="some")
    with pytest.raises(RuntimeError, match=r"register_multi_grad_hook.*does not require grad"):
        fg.autograd.graph.register_multi_grad_hook((a, fg.ones(2)), print)
    seen = []
    with fg.autograd.graph.register_multi_grad_hook((a, fg.ones(2)), seen.append, mode="any"):
        (a * 2).sum().backward()
    (a * 2).sum().backward()  # the context manager removed it
    assert len(seen) == 1
