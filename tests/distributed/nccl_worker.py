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
    np.testing.assert_array_equal(cupy.asnumpy(dist.broadcast(mine, src=n - 1)), xs[n - 1])
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
    # DistributedDataParallel on the GPU: gradients averaged over the ranks
    fg.manual_seed(r)
    model = fg.nn.Linear(3, 2).to("cuda")
    ddp = fg.nn.parallel.DistributedDataParallel(model)
    ddp(fg.tensor(xs[r], device="cuda")).sum().backward()
    expected = np.broadcast_to(stack.sum(1).mean(0), (2, 3))  # d sum(xW^T)/dW, averaged
    np.testing.assert_allclose(model.weight.grad.cpu().numpy(), expected, rtol=1e-5)
    dist.barrier()
    print(f"ok nccl rank {r}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
