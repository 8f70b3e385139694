"""Checkpointing benchmark (issue 3, part 5): memory and time of a deep MLP's gradient.

    python benchmarks/checkpoint.py             # 100 layers, width 256, batch 64, float64
    python benchmarks/checkpoint.py --repeats 3 # fewer timed repeats

The gradient (with respect to the input and every weight and bias) of
`sum(h_L ** 2)`, `h_{k+1} = tanh(h_k @ W_k + b_k)`, through `funcgrad.grad`,
once plainly and once with `funcgrad.checkpoint` around each layer. For each:

* time: median of `--repeats` calls of `grad` (tracemalloc off);
* peak: the tracemalloc peak of one `grad` call, above what was allocated
  before it (the inputs and parameters are not counted: they are frozen
  with `funcgrad.freeze` beforehand, so `grad` does not copy them; the
  returned gradients, as large as the parameters, are);
* graph: the memory the traced graph holds after the forward pass (built on
  `funcgrad.leaf` inputs), and its number of nodes (`funcgrad.toposort`).

The two gradients are compared entry by entry (max abs diff). One thread, as
in `run.py`: `OMP_NUM_THREADS`, `OPENBLAS_NUM_THREADS` and `MKL_NUM_THREADS`
are set to 1 before NumPy is imported.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

# NOTE: benchmark the checkout this script lives in, installed or not.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402
from funcgrad.tree import tree_leaves  # noqa: E402

MiB = 2**20


def layer(h, w, b):
    return fnp.tanh(h @ w + b)


def loss(params, x, checkpointed: bool):
    f = fg.checkpoint(layer) if checkpointed else layer
    h = x
    for w, b in params:
        h = f(h, w, b)
    return fnp.sum(h * h)


def make_inputs(layers: int, width: int, batch: int):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, width))
    params = [
        (rng.normal(size=(width, width)) / np.sqrt(width), rng.normal(size=width) * 0.1)
        for _ in range(layers)
    ]
    # Frozen (read-only) up front, as funcgrad.leaf would: otherwise every grad
    # call copies the 50 MiB of parameters into its leaves, inside the measurement.
    return [(fg.freeze(w), fg.freeze(b)) for w, b in params], fg.freeze(x)


def measure(params, x, checkpointed: bool, repeats: int) -> dict:
    grad_fn = fg.grad(lambda p, x: loss(p, x, checkpointed), argnums=(0, 1))
    result = grad_fn(params, x)  # warm-up, and the gradient to compare
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        grad_fn(params, x)
        times.append(time.perf_counter() - t0)

    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    g = grad_fn(params, x)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del g

    # The graph on leaves: what it holds after the forward pass, and its node count.
    leaves_p = [(fg.leaf(w), fg.leaf(b)) for w, b in params]
    leaf_x = fg.leaf(x)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    out = loss(leaves_p, leaf_x, checkpointed)
    graph = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    nodes = len(fg.toposort(out))
    return {
        "time": statistics.median(times),
        "peak": peak,
        "graph": graph,
        "nodes": nodes,
        "grad": result,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=100)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)

    params, x = make_inputs(args.layers, args.width, args.batch)
    print(
        f"# funcgrad checkpoint benchmark: {args.layers}-layer tanh MLP, width {args.width}, "
        f"batch {args.batch}, float64"
    )
    print(
        f"funcgrad {fg.__version__}, NumPy {np.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
    )
    n_param = sum(w.size + b.size for w, b in params)
    print(
        f"parameters: {n_param:,} float64 ({n_param * 8 / MiB:.1f} MiB; the gradients are as large)"
    )
    print()
    plain = measure(params, x, False, args.repeats)
    ckpt = measure(params, x, True, args.repeats)

    diffs = [
        float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
        for a, b in zip(tree_leaves(ckpt["grad"]), tree_leaves(plain["grad"]), strict=True)
    ]
    worst = max(diffs)
    identical = all(
        np.array_equal(a, b)
        for a, b in zip(tree_leaves(ckpt["grad"]), tree_leaves(plain["grad"]), strict=True)
    )

    rows = [("plain", plain), ("checkpoint on each layer", ckpt)]
    print(
        f"| variant | time of grad (s, median of {args.repeats}) | peak memory of grad (MiB, "
        "tracemalloc) | graph after forward (MiB) | graph nodes |"
    )
    print("|---|---|---|---|---|")
    for name, m in rows:
        print(
            f"| {name} | {m['time']:.3f} | {m['peak'] / MiB:.1f} | {m['graph'] / MiB:.1f} | "
            f"{m['nodes']:,} |"
        )
    print(
        f"| checkpoint / plain | {ckpt['time'] / plain['time']:.2f}x | "
        f"{ckpt['peak'] / plain['peak']:.2f}x | {ckpt['graph'] / plain['graph']:.2f}x | "
        f"{ckpt['nodes'] / plain['nodes']:.2f}x |"
    )
    print()
    print(
        f"gradients: {len(diffs)} arrays, max abs diff {worst:.1e} "
        f"({'bitwise identical' if identical else 'not bitwise identical'})"
    )
    return (
        0
        if worst
        <= 1e-12 * max(1.0, max(float(np.max(np.abs(a))) for a in tree_leaves(plain["grad"])))
        else 1
    )


if __name__ == "__main__":
    sys.exit(main())
