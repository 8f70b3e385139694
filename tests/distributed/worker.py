"""The program each rank runs under `mpiexec` for tests/distributed/test_distributed.py.

`python -m tests.distributed.worker CHECK [CHECK ...]` runs the named
checks in order and prints `ok CHECK` after each (an AssertionError ends
the rank with a traceback). Every rank computes every other rank's inputs
from its rank number, so each result is compared with a NumPy reference
computed in this one process. `fault-raise OUT` and `fault-kill OUT` make
rank 1 fail mid-step and write what rank 0 raised to OUT.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np

import funcgrad as fg
import funcgrad.distributed as dist
from funcgrad import nn
from funcgrad.distributed import functional as F
from funcgrad.utils.data.distributed import DistributedSampler

R = N = 0  # this rank, the world size (set in main)


def inputs(k: int, shape=(3, 4), dtype=np.float64) -> np.ndarray:
    """Rank k's input (any rank can compute any rank's)."""
    return np.random.default_rng(100 + k).uniform(0.5, 1.5, size=shape).astype(dtype)


def close(a, b, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


# --- collectives against NumPy ------------------------------------------------------------------


def check_collectives():
    xs = [inputs(k) for k in range(N)]
    stack = np.stack(xs)
    refs = {"sum": stack.sum(0), "avg": stack.mean(0), "max": stack.max(0), "min": stack.min(0)}
    refs["product"] = stack.prod(0)
    for op, ref in refs.items():
        close(dist.all_reduce(xs[R], op=op), ref)  # arrays: the result is returned
        t = fg.tensor(xs[R])
        assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op.upper())) is None
        close(t.numpy(), ref)  # Tensors: in place
    # pytrees, async handles, float32 and integers keep their dtypes
    tree = {"a": xs[R], "b": [xs[R].astype(np.float32), np.arange(3) * (R + 1)]}
    work = dist.all_reduce(tree, async_op=True)
    out = work.wait()
    close(out["a"], refs["sum"])
    close(out["b"][0], refs["sum"].astype(np.float32), rtol=1e-6)
    assert out["b"][0].dtype == np.float32 and out["b"][1].dtype == np.arange(3).dtype
    close(out["b"][1], np.arange(3) * sum(range(1, N + 1)))
    assert work.is_completed()
    # broadcast from the last rank
    close(dist.broadcast(xs[R], src=N - 1), xs[N - 1])
    t = fg.tensor(xs[R])
    dist.broadcast(t, src=N - 1)
    close(t.numpy(), xs[N - 1])
    # all_gather: a list filled, Tensors in place, into one tensor
    got = []
    dist.all_gather(got, xs[R])
    close(np.stack(got), stack)
    tensors = [fg.zeros(3, 4, dtype=fg.float64) for _ in range(N)]
    assert dist.all_gather(tensors, fg.tensor(xs[R])) is None
    close(np.stack([t.numpy() for t in tensors]), stack)
    close(dist.all_gather_into_tensor(None, xs[R]), np.concatenate(xs))
    # reduce_scatter: rank k gets slice k reduced over the ranks
    pieces = [inputs(10 * k + j, (2, 3)) for k in range(N) for j in range(N)]
    mine = [pieces[R * N + j] for j in range(N)]
    for op in ("sum", "avg", "max"):
        ref = getattr(np, {"avg": "mean"}.get(op, op))(
            np.stack([pieces[k * N + R] for k in range(N)]), axis=0
        )
        close(dist.reduce_scatter(None, mine, op=op), ref)
        out_t = fg.zeros(2, 3, dtype=fg.float64)
        dist.reduce_scatter(out_t, [fg.tensor(p) for p in mine], op=op)
        close(out_t.numpy(), ref)
    close(
        dist.reduce_scatter_tensor(None, np.concatenate(mine)),
        sum(pieces[k * N + R] for k in range(N)),
    )
    # gather to rank 1, scatter from rank 0
    got = dist.gather(xs[R], dst=1)
    if R == 1:
        close(np.stack(got), stack)
    else:
        assert got is None
    parts = [np.full((2, 2), 10.0 * k) for k in range(N)]
    close(dist.scatter(np.zeros((2, 2)), parts if R == 0 else None, src=0), parts[R])
    t = fg.zeros(2, 2, dtype=fg.float64)
    dist.scatter(t, [fg.tensor(p) for p in parts] if R == 0 else None, src=0)
    close(t.numpy(), parts[R])
    # send/recv around a ring: a pytree, then a Tensor (recv returns the sender, as PyTorch)
    nxt, prv = (R + 1) % N, (R - 1) % N
    sent = dist.isend({"x": xs[R], "n": [np.arange(R + 2.0)]}, dst=nxt)
    got = dist.recv({"x": np.zeros((3, 4)), "n": [np.zeros(prv + 2)]}, src=prv)
    sent.wait()
    close(got["x"], xs[prv])
    close(got["n"][0], np.arange(prv + 2.0))
    sent = dist.isend(fg.tensor(xs[R]), dst=nxt, tag=3)
    t = fg.zeros(3, 4, dtype=fg.float64)
    assert dist.recv(t, src=prv, tag=3) == prv
    sent.wait()
    close(t.numpy(), xs[prv])
    # irecv posted before the matching isend, on every rank at once (nothing blocks)
    pending = dist.irecv(np.zeros((3, 4)), src=prv, tag=5)
    sent = dist.isend(xs[R] * 2, dst=nxt, tag=5)
    close(pending.wait(), xs[prv] * 2)
    sent.wait()
    # a group of some ranks; barrier
    members = [0, N - 1]
    sub = dist.new_group(members)
    if R in members:
        assert dist.get_world_size(sub) == 2 and dist.get_rank(sub) == members.index(R)
        close(dist.all_reduce(xs[R], group=sub), xs[0] + xs[N - 1])
        close(dist.broadcast(xs[R], src=N - 1, group=sub), xs[N - 1])
    else:
        assert sub is None
    dist.barrier()
    assert dist.barrier(async_op=True).wait() is None


def check_mismatch():
    try:
        dist.all_reduce(np.zeros((2, 3 + R), dtype=np.float32))
    except dist.CollectiveMismatchError as e:
        for k in range(N):
            assert f"rank {k}: float32 (2, {3 + k})" in str(e), str(e)
        assert "all_reduce" in str(e)
    else:
        raise AssertionError("no CollectiveMismatchError")
    try:  # dtypes too
        dist.broadcast(np.zeros(2, dtype=np.float32 if R == 0 else np.float64), src=0)
    except dist.CollectiveMismatchError as e:
        assert "rank 0: float32 (2,)" in str(e) and "rank 1: float64 (2,)" in str(e), str(e)
    else:
        raise AssertionError("no CollectiveMismatchError")
    # a model that differs across ranks is refused when DDP is built
    try:
        nn.parallel.DistributedDataParallel(nn.Linear(3, 2 + (R == 1)))
    except dist.CollectiveMismatchError as e:
        assert "rank 0: float32 (2, 3)" in str(e) and "rank 1: float32 (3, 3)" in str(e), str(e)
    else:
        raise AssertionError("no CollectiveMismatchError")
    # recv into a tensor of another shape
    if R == 0:
        dist.send(np.ones(5), dst=1, tag=9)
    if R == 1:
        try:
            dist.recv(np.zeros(4), src=0, tag=9)
        except dist.DistError as e:
            assert "rank 0 sent float64 (5,)" in str(e) and "(4,)" in str(e), str(e)
        else:
            raise AssertionError("no DistError")
    dist.barrier()


# --- differentiable collectives ---------------------------------------------------------------


def check_functional():
    xs = [inputs(k) for k in range(N)]
    total = sum(xs)
    c = np.arange(1.0, N + 1)
    # L = sum_r c_r * sum(S**2), S = sum_k x_k: dL/dx_r = 2 S sum_r c_r
    g = fg.grad(lambda x: c[R] * (F.all_reduce(x) ** 2).sum())(xs[R])
    close(g, 2 * total * c.sum(), rtol=1e-10)
    # AVG: S/N, dL/dx_r = 2 (S/N) sum_r c_r / N
    g = fg.grad(lambda x: c[R] * (F.all_reduce(x, op="avg") ** 2).sum())(xs[R])
    close(g, 2 * (total / N) * c.sum() / N, rtol=1e-10)
    # all_gather: rank r uses rank (r+1)%N's value with weight w_r: dL/dx_k = w_{k-1}
    w = [inputs(50 + k) for k in range(N)]
    g = fg.grad(lambda x: (F.all_gather(x)[(R + 1) % N] * w[R]).sum())(xs[R])
    close(g, w[(R - 1) % N])
    # reduce_scatter: y_r = sum_k x_k[r], L = sum_r sum(y_r**2): dL/dx_k[j] = 2 y_j
    stacked = [inputs(70 + k, (N, 2)) for k in range(N)]
    y = sum(stacked)
    g = fg.grad(lambda x: (F.reduce_scatter(x) ** 2).sum())(stacked[R])
    close(g, 2 * y, rtol=1e-10)
    # forward mode: the JVP of all_reduce is the all_reduce of the tangents
    t = inputs(90 + R)
    _, t_out = fg.jvp(lambda x: F.all_reduce(x) * 2.0, (xs[R],), (t,))
    close(t_out, 2 * sum(inputs(90 + k) for k in range(N)))
    # the Tensor layer: backward through a collective
    xt = fg.tensor(xs[R], requires_grad=True)
    (c[R] * F.all_reduce(xt) ** 2).sum().backward()
    close(xt.grad.numpy(), 2 * total * c.sum(), rtol=1e-10)
    # psum / pmean of a gradient pytree
    tree = {"w": xs[R], "b": [np.float64(R)]}
    close(dist.pmean(tree)["w"], total / N)
    close(dist.psum(tree)["b"][0], sum(range(N)))


# --- DistributedDataParallel against one process on the full batch -------------------------------


def _mlp():
    return nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 4))


class LeNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.fc = nn.Linear(6 * 2 * 2, 5)

    def forward(self, x):
        x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
        x = nn.functional.relu(self.conv2(x))
        return self.fc(x.flatten(1))


def _train_and_compare(make, shape, out, steps, optim, bucket_cap_mb):
    fg.manual_seed(1000 + R)  # a different initialisation on every rank: DDP broadcasts rank 0's
    model = make()
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    ref = make()
    ref.load_state_dict(model.state_dict())
    rng = np.random.default_rng(7)
    b = 4
    X = rng.normal(size=(steps, b * N, *shape)).astype(np.float32)
    Y = rng.normal(size=(steps, b * N, out)).astype(np.float32)
    opt, ref_opt = optim(ddp.parameters()), optim(ref.parameters())
    for s in range(steps):
        opt.zero_grad()
        loss = (
            ddp(fg.tensor(X[s, R * b : (R + 1) * b])) - fg.tensor(Y[s, R * b : (R + 1) * b])
        ) ** 2
        loss.mean().backward()
        opt.step()
        ref_opt.zero_grad()
        ((ref(fg.tensor(X[s])) - fg.tensor(Y[s])) ** 2).mean().backward()
        ref_opt.step()
    for (name, p), q in zip(model.named_parameters(), ref.parameters(), strict=True):
        every = dist.all_gather(None, p.detach().numpy())
        for k in range(1, N):
            np.testing.assert_array_equal(every[k], every[0], err_msg=f"{name}: rank {k} differs")
        close(p.detach().numpy(), q.detach().numpy(), rtol=2e-5, atol=2e-6)
    return ddp


def check_ddp():
    ddp = _train_and_compare(
        _mlp, (10,), 4, 3, lambda ps: fg.optim.Adam(ps, lr=0.01), bucket_cap_mb=0.0005
    )
    assert len(ddp._buckets) > 1 and ddp._tapping  # several buckets, started one by one
    assert all(ddp._whole)  # every gradient came whole through its tap
    _train_and_compare(
        LeNetish, (1, 10, 10), 5, 2, lambda ps: fg.optim.SGD(ps, lr=0.1, momentum=0.9), None
    )


# Default buckets: the small models fit one, filled from .grad after the walk (no taps);
# tiny buckets: several, each filled through its taps and started during the walk.
CAPS = (None, 0.0005)


def check_no_sync():
    for cap in CAPS:
        _no_sync(cap)


def _no_sync(cap):
    fg.manual_seed(5)
    model = _mlp()
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap)
    assert ddp._tapping == (cap is not None)
    ref = _mlp()
    ref.load_state_dict(model.state_dict())
    rng = np.random.default_rng(3)
    A = rng.normal(size=(N, 2, 4, 10)).astype(np.float32)  # rank, micro-batch, samples
    Y = rng.normal(size=(N, 2, 4, 4)).astype(np.float32)

    def loss(m, r, k):
        return ((m(fg.tensor(A[r, k])) - fg.tensor(Y[r, k])) ** 2).mean()

    with ddp.no_sync():
        loss(ddp, R, 0).backward()
    local = [p.grad.numpy().copy() for p in model.parameters()]
    every = dist.all_gather(None, local[0])
    assert not np.array_equal(every[0], every[1]), "no_sync averaged the gradients"
    loss(ddp, R, 1).backward()  # synchronized: averages what was accumulated
    for r in range(N):
        for k in range(2):
            (loss(ref, r, k) / N).backward()
    for p, q in zip(model.parameters(), ref.parameters(), strict=True):
        close(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


class _TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.head = nn.Linear(3, 1)
        self.spare = nn.Linear(3, 1)  # used on rank 0 only, or nowhere

    def forward(self, x, use_spare):
        h = self.body(x)
        return (self.head(h) + self.spare(h)) if use_spare else self.head(h)


def check_unused():
    for cap in CAPS:
        _unused(cap)


def _unused(cap):
    fg.manual_seed(9)
    ddp = nn.parallel.DistributedDataParallel(_TwoHeads(), bucket_cap_mb=cap)
    x = fg.tensor(inputs(R, (2, 3)).astype(np.float32))
    try:
        ddp(x, False).sum().backward()
    except RuntimeError as e:
        assert "spare.weight" in str(e) and "find_unused_parameters" in str(e), str(e)
    else:
        raise AssertionError("no error for an unused parameter")
    fg.manual_seed(9)
    model = _TwoHeads()
    ddp = nn.parallel.DistributedDataParallel(model, find_unused_parameters=True, bucket_cap_mb=cap)
    ref = _TwoHeads()
    ref.load_state_dict(model.state_dict())
    ddp(x, R == 0).sum().backward()  # spare: used on rank 0 only
    for r in range(N):
        xr = fg.tensor(inputs(r, (2, 3)).astype(np.float32))
        (ref(xr, r == 0).sum() / N).backward()
    for p, q in zip(model.parameters(), ref.parameters(), strict=True):
        close(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
    model.zero_grad(set_to_none=True)
    ddp(x, False).sum().backward()  # spare unused everywhere: its .grad stays None
    assert model.spare.weight.grad is None and model.head.weight.grad is not None


def check_outside_use():
    for cap in CAPS:
        _outside_use(cap)


def _outside_use(cap):
    # a penalty on a weight outside the module's forward: its whole gradient is averaged
    fg.manual_seed(11)
    model = _mlp()
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap)
    ref = _mlp()
    ref.load_state_dict(model.state_dict())

    def loss(m, inner, r):
        x = fg.tensor(inputs(r, (4, 10)).astype(np.float32))
        return inner(x).pow(2).mean() + (r + 1) * m[0].weight.pow(2).sum()

    loss(model, ddp, R).backward()
    for r in range(N):
        (loss(ref, ref, r) / N).backward()
    # with taps, only the penalized weight takes the extra all-reduce; the others stay in
    # their buckets (without, .grad is whole: everything goes in the one bucket)
    whole = [False, True, True, True] if cap is not None else [True] * 4
    assert ddp._whole == whole, ddp._whole
    for p, q in zip(model.parameters(), ref.parameters(), strict=True):
        close(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def check_sampler():
    for n, drop_last, shuffle in [
        (10, False, True),
        (11, False, True),
        (11, True, True),
        (7, False, False),
    ]:
        sampler = DistributedSampler(range(n), shuffle=shuffle, seed=3, drop_last=drop_last)
        sampler.set_epoch(2)
        mine = list(sampler)
        every = [list(map(int, s)) for s in dist.all_gather(None, np.array(mine))]
        assert all(len(s) == len(sampler) for s in every)
        taken = [i for s in every for i in s]
        if drop_last:
            assert len(taken) == (n // N) * N and len(set(taken)) == len(taken)
        else:
            assert set(taken) == set(range(n)) and len(taken) == -(-n // N) * N
        # the same permutation on every rank, a new one each epoch
        order = [every[k % N][k // N] for k in range(len(taken))]
        sampler.set_epoch(3)
        if shuffle:
            assert list(sampler) != mine
        else:
            assert order[:n] == list(range(n))


# --- faults -----------------------------------------------------------------------------------


def _fault(kind: str, out: str):
    dist.destroy_process_group()
    dist.init_process_group("mpi", timeout=3.0 if kind == "kill" else 60.0)
    ddp = nn.parallel.DistributedDataParallel(_mlp())
    x = fg.tensor(inputs(R, (4, 10)).astype(np.float32))
    ddp(x).sum().backward()  # one good step
    if R == 1:
        if kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        raise ValueError("boom on rank 1")
    start = time.monotonic()
    try:
        ddp(x).sum().backward()
        dist.barrier()
        message = "no error"
    except dist.DistError as e:
        message = f"{type(e).__name__} after {time.monotonic() - start:.2f} s: {e}"
    with open(f"{out}.rank{R}", "w") as f:
        f.write(message)
    sys.stdout.flush()
    os._exit(0)  # an MPI job with a dead peer cannot finalize


CHECKS = {
    "collectives": check_collectives,
    "mismatch": check_mismatch,
    "functional": check_functional,
    "ddp": check_ddp,
    "no_sync": check_no_sync,
    "unused": check_unused,
    "outside_use": check_outside_use,
    "sampler": check_sampler,
}


def main(argv):
    global R, N
    dist.init_process_group("mpi", timeout=60.0)
    R, N = dist.get_rank(), dist.get_world_size()
    if argv[0].startswith("fault-"):
        _fault(argv[0][6:], argv[1])
    for name in argv:
        CHECKS[name]()
        print(f"ok {name} rank {R}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1:])
