"""A probe for issue #18's CuPy work (not a test): where a small MLP step's time goes on the GPU.

Small shapes (launch overhead dominates), float32. Prints medians in us per call of the
hand-written CuPy step and funcgrad's value_and_grad of it, whether an elementwise chain
can be captured as a CUDA graph and what its replay costs, a cProfile of both steps, and
cupy.fuse of tanh's backward against its unfused form. Run on a GPU machine:
`python scripts/gpu_probe.py`.
"""

from __future__ import annotations

import statistics
import sys
import time
import traceback

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp


def med(fn, sync, n=200):
    for _ in range(10):
        fn()
    sync()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


def main() -> None:
    import cupy

    sync = cupy.cuda.Device().synchronize
    rng = np.random.default_rng(0)
    N, D, H, C = 64, 256, 256, 10
    X = cupy.asarray(rng.standard_normal((N, D), dtype=np.float32))
    W1 = cupy.asarray(rng.standard_normal((D, H), dtype=np.float32) / 16)
    W2 = cupy.asarray(rng.standard_normal((H, C), dtype=np.float32) / 16)

    def hand():
        h = cupy.tanh(X @ W1)
        y = h @ W2
        loss = (y * y).sum() / N
        gy = y * (2.0 / N)
        g2 = h.T @ gy
        gh = (gy @ W2.T) * (1 - h * h)
        g1 = X.T @ gh
        return loss, g1, g2

    def loss(w1, w2):
        y = fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2)
        return fnp.sum(y * y) / N

    vg = fg.value_and_grad(loss, argnums=(0, 1))
    ref = hand()
    print(f"hand CuPy            {med(hand, sync):8.1f} us")
    try:
        got = vg(W1, W2)
        print("eager vs hand max abs diff:", float(abs(got[1][0] - ref[1]).max()))
        print(f"funcgrad eager v&g   {med(lambda: vg(W1, W2), sync):8.1f} us")
    except Exception:
        traceback.print_exc(limit=6, file=sys.stdout)
        got = (None, (ref[1], ref[2]))

    # CUDA graphs: CuPy 14 refuses cuBLAS inside a stream capture, so capture the elementwise part only
    h = cupy.tanh(X @ W1)
    gy = cupy.ones((N, H), dtype=cupy.float32)

    def elementwise():
        return (gy * (1 - h * h)).sum()

    try:
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            elementwise()
            stream.synchronize()
            stream.begin_capture()
            try:
                out = elementwise()
            finally:
                graph = stream.end_capture()
        graph.launch(stream)
        stream.synchronize()
        print("graph result ok:", bool(cupy.allclose(out, elementwise())))
        print(f"elementwise eager    {med(elementwise, sync):8.1f} us")
        print(
            f"elementwise graph    {med(lambda: graph.launch(stream), stream.synchronize):8.1f} us"
        )
    except Exception:
        print("CUDA graph capture failed:")
        traceback.print_exc(limit=3, file=sys.stdout)

    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        vg(W1, W2)
    sync()
    prof.disable()
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(22)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        hand()
    sync()
    prof.disable()
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(8)

    try:
        fuse_part(cupy, sync, rng, X, W1, N, H)
    except Exception:
        traceback.print_exc(limit=6, file=sys.stdout)


def fuse_part(cupy, sync, rng, X, W1, N, H):
    # cupy.fuse of tanh's backward
    ct = cupy.asarray(rng.standard_normal((N, H), dtype=np.float32))
    h = cupy.tanh(X @ W1)
    fused = cupy.fuse(lambda c, o: c * (1 - o * o))
    print(f"tanh bwd unfused     {med(lambda: ct * (1 - h * h), sync):8.1f} us")
    print(f"tanh bwd cupy.fuse   {med(lambda: fused(ct, h), sync):8.1f} us")
    big_ct = cupy.asarray(rng.standard_normal((4096, 4096), dtype=np.float32))
    big_h = cupy.tanh(big_ct)
    print(f"tanh bwd 4096^2 unf  {med(lambda: big_ct * (1 - big_h * big_h), sync, 50):8.1f} us")
    print(f"tanh bwd 4096^2 fuse {med(lambda: fused(big_ct, big_h), sync, 50):8.1f} us")


if __name__ == "__main__":
    main()
