"""Scale and concurrency: deep and wide graphs, threads, and long training loops.

* A 1,000,000-node chain through `funcgrad.grad` (the plain `backward` of
  one is in tests/test_transforms_core.py), and 100,000-node chains through
  the Tensor layer, forward mode and second order: every walk is iterative.
* A 10,000-wide fan-out: one node used 10,000 times, and 10,000 nodes
  joined by one `stack`.
* Eight threads differentiating one shared graph at once get identical
  results; grad mode is per thread.
* 10,000 training steps (Tensor layer and functional) leave the number of
  live objects flat, and so is the traced memory over 1,000 more; no step
  leaves reference cycles of funcgrad objects for the cyclic collector.
"""

from __future__ import annotations

import gc
import math
import sys
import threading
import tracemalloc
import types

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp

# --- deep -------------------------------------------------------------------------------


@pytest.fixture
def no_cyclic_gc():
    # Graphs have no reference cycles, so the collector only wastes time
    # rescanning a million young nodes while they are built.
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_million_node_chain_through_grad(no_cyclic_gc):
    n = 1_000_000

    def f(x):
        for _ in range(n):
            x = x * 0.99999
        return x

    assert math.isclose(fg.grad(f)(1.0), 0.99999**n, rel_tol=1e-9)


def test_deep_chains_in_the_tensor_layer_forward_mode_and_second_order(no_cyclic_gc):
    n = 100_000
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 0.9999
    y.backward()
    assert math.isclose(x.grad.item(), 0.9999**n, rel_tol=1e-9)
    del y

    def f(x):
        for _ in range(n // 4):  # four primitives per round: n nodes
            x = fnp.sin(x) * 0.5 + x * 0.5
        return x

    _, tangent = fg.jvp(f, (0.0,), (1.0,))
    assert math.isclose(tangent, 1.0, rel_tol=1e-9)  # d/dx (sin(x) + x) / 2 = 1 at 0

    def g(x):
        for _ in range(20_000):
            x = x * 0.9999
        return x * x

    # d2/dx2 (c x)**2 = 2 c**2
    assert math.isclose(fg.grad(fg.grad(g))(1.0), 2 * 0.9999**40_000, rel_tol=1e-9)


# --- wide -------------------------------------------------------------------------------


def test_ten_thousand_wide_fan_out():
    width = 10_000
    x0 = np.linspace(-1.0, 1.0, 16)
    c = np.linspace(0.0, 1.0, width)

    # one node used 10,000 times by one primitive
    g = fg.grad(lambda x: fnp.sum(fnp.stack([x] * width) * c[:, None]))(x0)
    np.testing.assert_allclose(g, np.full(16, c.sum()), rtol=1e-12)

    # 10,000 nodes, each reading x, joined by one stack
    def f(x):
        parts = [x[i % 16] * c[i] for i in range(width)]
        return fnp.sum(fnp.stack(parts))

    expected = np.array([c[j::16].sum() for j in range(16)])
    np.testing.assert_allclose(fg.grad(f)(x0), expected, rtol=1e-12)

    # 10,000 separate uses of x summed pairwise (a wide, shallow tree)
    def tree_sum(x):
        terms = [x * c[i] for i in range(width)]
        while len(terms) > 1:
            terms = [a + b for a, b in zip(terms[::2], terms[1::2], strict=False)] + terms[
                len(terms) // 2 * 2 :
            ]
        return fnp.sum(terms[0])

    np.testing.assert_allclose(fg.grad(tree_sum)(x0), np.full(16, c.sum()), rtol=1e-12)

    # the Tensor layer
    t = torch.tensor(x0, requires_grad=True)
    torch.stack([t[i % 16] * float(c[i]) for i in range(width)]).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-12)


# --- concurrent -------------------------------------------------------------------------

THREADS = 8


def _run_threads(target, n=THREADS):
    """Run `target(k)` in n threads released together; return their results in order."""
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = []

    def run(k):
        try:
            barrier.wait()
            results[k] = target(k)
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: interleave the walks finely
    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]
    return results


def _network(x, w1, w2):
    h = fnp.tanh(x @ w1)
    return fnp.sum(fnp.log1p(fnp.exp(h @ w2)) * fnp.sin(h).sum())


def test_threads_share_one_functional_graph():
    rng = np.random.default_rng(0)
    x, w1, w2 = rng.normal(size=(5, 4)), rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    l1, l2 = fg.leaf(w1), fg.leaf(w2)
    out = _network(x, l1, l2)
    for _ in range(200):  # a longer graph, so that the walks overlap
        out = out * 0.999 + fnp.sum(fnp.tanh(l1)) * 1e-3

    reference = fg.backward(out)
    ref_hess = fg.hessian(lambda w: _network(x, w, w2))(w1)

    def work(k):
        got = []
        for _ in range(5):
            grads = fg.backward(out)
            got.append((grads[l1], grads[l2]))
            second = fg.backward(out, create_graph=True)[l1]
            got.append((second.value,))
        return got, fg.hessian(lambda w: _network(x, w, w2))(w1)

    for got, hess in _run_threads(work):
        for entry in got:
            np.testing.assert_array_equal(entry[0], reference[l1])
            if len(entry) == 2:
                np.testing.assert_array_equal(entry[1], reference[l2])
        np.testing.assert_array_equal(hess, ref_hess)


def test_threads_share_one_tensor_graph():
    rng = np.random.default_rng(1)
    w = torch.tensor(rng.normal(size=(4, 4)), requires_grad=True)
    x = torch.tensor(rng.normal(size=(3, 4)))
    loss = ((x @ w).tanh() @ w).sin().sum()
    (reference,) = torch.autograd.grad(loss, w)

    def work(k):
        return [torch.autograd.grad(loss, w)[0].numpy() for _ in range(20)]

    for got in _run_threads(work):
        for g in got:
            np.testing.assert_array_equal(g, reference.numpy())


def test_threads_with_their_own_hooks_and_leaves():
    # Hooks and retain_grad live in module-level tables of the Tensor layer:
    # threads registering and firing them at once must not see each other's.
    def work(k):
        c = float(k + 1)
        results = []
        for _ in range(30):
            x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            h = x * c
            h.retain_grad()
            z = h * h
            handle = z.register_hook(lambda g, c=c: g * c)
            z.sum().backward()
            results.append((x.grad.numpy().copy(), h.grad.numpy().copy()))
            handle.remove()
        return results

    x = np.array([1.0, 2.0, 3.0])
    for k, results in enumerate(_run_threads(work)):
        c = float(k + 1)
        for xg, hg in results:
            np.testing.assert_allclose(hg, 2 * c * c * x)  # c * d(h * h)/dh
            np.testing.assert_allclose(xg, 2 * c**3 * x)


def test_grad_mode_is_per_thread():
    w = torch.ones(3, requires_grad=True)

    def work(k):
        seen = []
        for _ in range(200):
            if k % 2:
                with torch.no_grad():
                    seen.append((w * 2).requires_grad)
            else:
                seen.append((w * 2).requires_grad)
                with torch.enable_grad():
                    seen.append((w * 2).requires_grad)
        return seen

    for k, seen in enumerate(_run_threads(work)):
        assert all(s is (k % 2 == 0) for s in seen), f"thread {k} saw another thread's grad mode"
    assert torch.is_grad_enabled()


# --- long training loops ----------------------------------------------------------------

STEPS = 10_000
WARMUP = 500
TRACED_STEPS = 1_000


def _funcgrad_objects(objects) -> list:
    found = []
    for o in objects:
        t = type(o)
        if t.__module__.startswith("funcgrad"):
            found.append(o)
        elif isinstance(o, types.FunctionType) and (o.__module__ or "").startswith("funcgrad"):
            found.append(o)
    return found


def _cycles_left_by(step) -> list:
    """Run `step()` with the collector off; return the funcgrad objects only the collector frees."""
    gc.collect()
    gc.disable()
    try:
        step()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = _funcgrad_objects(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    return found


def _measure(step, steps=STEPS, warmup=WARMUP, traced_steps=TRACED_STEPS):
    """Return (growth in live objects over `steps` steps, growth in traced bytes over `traced_steps`).

    Both are counted after `warmup` steps, so one-time costs (caches filling
    up) are not growth. Objects are counted with `gc.get_objects()` (every
    container object) with the cyclic collector off, so a reference cycle
    left by a step counts as growth too, like a leak. Bytes are counted with
    `tracemalloc`, over a shorter window since tracing slows every
    allocation down about tenfold.
    """
    for _ in range(warmup):
        step()
    gc.collect()
    gc.disable()
    try:
        objects_before = len(gc.get_objects())
        for _ in range(steps):
            step()
        objects = len(gc.get_objects()) - objects_before
    finally:
        gc.enable()
    tracemalloc.start()
    try:
        for _ in range(warmup // 5):
            step()
        gc.collect()
        bytes_before = tracemalloc.get_traced_memory()[0]
        for _ in range(traced_steps):
            step()
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] - bytes_before
    finally:
        tracemalloc.stop()
    return objects, traced


def _tensor_training_step():
    rng = np.random.default_rng(2)
    x = torch.tensor(rng.normal(size=(8, 4)))
    target = torch.tensor(rng.normal(size=(8, 3)))
    w = torch.tensor(rng.normal(size=(4, 3)) * 0.1, requires_grad=True)
    b = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    w.register_hook(lambda g: g * 1.0)  # a hook that lives as long as the model
    seen = []
    b.register_post_accumulate_grad_hook(lambda t: seen.append(1) if len(seen) < 1 else None)

    def step():
        h = x @ w + b
        h.retain_grad()
        loss = ((h.tanh() - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w.sub_(0.01 * w.grad)
            b.sub_(0.01 * b.grad)
        w.grad = None
        b.grad.zero_()
        return loss

    return step


def _functional_training_step():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(8, 4))
    target = rng.normal(size=(8, 3))
    params = {"w": rng.normal(size=(4, 3)) * 0.1, "b": np.zeros(3)}

    def loss_fn(p):
        h = fnp.tanh(x @ p["w"] + p["b"])
        return fnp.mean((h - target) ** 2)

    value_and_grad = fg.value_and_grad(loss_fn)
    state = {"params": params}

    def step():
        loss, grads = value_and_grad(state["params"])
        state["params"] = fg.tree.tree_map(lambda p, g: p - 0.01 * g, state["params"], grads)
        return loss

    return step


@pytest.mark.parametrize(
    "make_step", [_tensor_training_step, _functional_training_step], ids=["tensor", "functional"]
)
def test_training_loop_does_not_grow_memory(make_step):
    step = make_step()
    first = float(step())
    objects, traced = _measure(step)
    assert float(step()) < first, "the loop should train"
    assert objects <= 50, f"{objects} more live objects after {STEPS} steps"
    assert traced <= 16 * 1024, f"{traced} more bytes traced after {TRACED_STEPS} more steps"


@pytest.mark.parametrize(
    "make_step", [_tensor_training_step, _functional_training_step], ids=["tensor", "functional"]
)
def test_a_training_step_leaves_no_reference_cycles(make_step):
    step = make_step()
    step()
    assert _cycles_left_by(step) == []


def test_transforms_leave_no_reference_cycles():
    x = np.linspace(0.1, 1.0, 4)
    f = lambda x: fnp.sum(fnp.tanh(x) ** 2 * fnp.exp(-x))  # noqa: E731

    def everything():
        fg.grad(f)(x)
        fg.value_and_grad(f)(x)
        fg.vjp(f, x)[1](1.0)
        fg.jvp(f, (x,), (x,))
        fg.hessian(f)(x)
        fg.grad(fg.grad(lambda s: fnp.sin(s) * s))(0.3)
        leaf = fg.leaf(x)
        fg.backward(fnp.sum(fg.with_hooks(leaf * 2.0, {leaf: lambda ct: ct * 3.0})))

    everything()
    assert _cycles_left_by(everything) == []
