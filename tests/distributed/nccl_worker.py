"""The program each rank runs for tests/distributed/test_nccl.py (one GPU per rank, CuPy's NCCL).

Prints `ok nccl rank R` when every check passed; each result is compared
with NumPy on the host.
"""

from __future__ import annotations

import numpy as np

import funcgrad as fg
import funcgrad.distributed as dist


def main():
    import cupy  # here, so that collecting this module (doctests) needs no CuPy

    dist.init_process_group("nccl", timeout=60)
    r, n = dist.get_rank(), dist.get_world_size()
    xs = [np.random.default_rng(k).normal(size=(5, 3)).astype(np.float32) for k in range(n)]
    stack = np.stack(xs)
    mine = cupy.asarray(xs[r])
    for op, ref in [("sum", stack.sum(0)), ("avg", stack.mean(0)), ("max", stack.max(0))]:
        out = dist.all_reduce(mine, op=op)
        assert isinstance(out, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(out), ref, rtol=1e-5)
    for op, ref in [("min", stack.min(0)), ("product", stack.prod(0))]:
        out = dist.all_reduce(mine, op=op)
        np.testing.assert_allclose(cupy.asnumpy(out), ref, rtol=1e-5)
    np.testing.assert_array_equal(cupy.asnumpy(dist.broadcast(mine, src=n - 1)), xs[n - 1])
    # gather and scatter: NCCL's grouped send/recv (to itself too, so even on one GPU)
    got = dist.gather(mine, dst=0)
    if r == 0:
        np.testing.assert_array_equal(np.stack([cupy.asnumpy(a) for a in got]), stack)
    else:
        assert got is None
    parts = [cupy.asarray(x * 2) for x in xs] if r == n - 1 else None
    out = dist.scatter(cupy.empty((5, 3), dtype=cupy.float32), parts, src=n - 1)
    np.testing.assert_array_equal(cupy.asnumpy(out), xs[r] * 2)
    if n > 1:  # point to point, around a ring: even ranks send first, odd ones receive first
        right, left = (r + 1) % n, (r - 1) % n
        if r % 2 == 0:
            dist.send(mine, right)
            back = dist.recv(cupy.empty((5, 3), dtype=cupy.float32), left)
        else:
            back = dist.recv(cupy.empty((5, 3), dtype=cupy.float32), left)
            dist.send(mine, right)
        np.testing.assert_array_equal(cupy.asnumpy(back), xs[left])
    ints = dist.all_reduce(cupy.arange(4, dtype=cupy.int64) * (r + 1))
    np.testing.assert_array_equal(cupy.asnumpy(ints), np.arange(4) * n * (n + 1) // 2)
    got = dist.all_gather(None, mine)
    np.testing.assert_array_equal(np.stack([cupy.asnumpy(g) for g in got]), stack)
    parts = cupy.asarray(np.stack([xs[r] * (k + 1) for k in range(n)]))
    np.testing.assert_allclose(
        cupy.asnumpy(dist.reduce_scatter(None, parts)), stack.sum(0) * (r + 1), rtol=1e-5
    )
    # a Tensor on the GPU, in place, and a gradient through the differentiable all_reduce
    t = fg.tensor(xs[r], device="cuda")
    dist.all_reduce(t)
    np.testing.assert_allclose(t.cpu().numpy(), stack.sum(0), rtol=1e-5)
    g = fg.grad(lambda x: (dist.functional.all_reduce(x) ** 2).sum())(mine)
    np.testing.assert_allclose(cupy.asnumpy(g), 2 * n * stack.sum(0), rtol=1e-4)
    # DistributedDataParallel on the GPU: gradients averaged over the ranks, in two buckets
    # (a tiny bucket_cap_mb), so a bucket's all-reduce starts during the backward pass
    fg.manual_seed(r)
    model = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Linear(4, 2)).to("cuda")
    ddp = fg.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e-5)
    fg.manual_seed(0)
    reference = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Linear(4, 2))
    reference.load_state_dict({k: v.cpu() for k, v in model.state_dict().items()})
    ddp(fg.tensor(xs[r], device="cuda")).sum().backward()
    reference(fg.tensor(stack.reshape(-1, 3))).sum().backward()  # every rank's batch at once
    for p, q in zip(model.parameters(), reference.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy() / n, rtol=1e-4)
    dist.barrier()
    print(f"ok nccl rank {r}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
