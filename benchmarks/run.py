"""funcgrad benchmarks: each figure next to a hand-written NumPy reference in the same run.

Run `python benchmarks/run.py` (about two minutes on 2 cores) or
`python benchmarks/run.py --quick` (under 20 seconds: fewer repeats and a
100,000-node chain in (c)). Every time is the median over repeats of
`time.perf_counter` differences, with funcgrad and the reference taking turns.
Nothing here is asserted: the figures are for reading, and the ratios
(funcgrad / reference) are what carries over between machines.

(a) µs per op, forward plus backward, of a 2,000-op elementwise chain on a (16,)
    float64 array, through `funcgrad.backward` and through `funcgrad.value_and_grad`;
    the reference runs the same primitives and VJP formulas with plain NumPy calls.
(b) ms for the gradient of `sum(tanh(X @ W1) @ W2)` with respect to W1 and W2
    (float32, X 512x1024, W1 1024x1024, W2 1024x256) against NumPy by hand.
(c) seconds and peak memory (tracemalloc) of building and differentiating a
    1,000,000-node chain `y = y * 0.99999`, and the cost of making one node with
    the attrs-generated `__init__` against `funcgrad.graph.make_node`.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import resource
import statistics
import sys
import time
import tracemalloc

import numpy as np

# NOTE: benchmark the checkout this script lives in, installed or not.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402
from funcgrad.graph import Node, make_node  # noqa: E402

_perf = time.perf_counter


def median_times(fns: dict, repeats: int) -> tuple[dict, dict]:
    """Return the median and the best wall time in seconds of each `fn()` in `fns`, by name.

    Each function is called once to warm up; then the functions take turns,
    one call each per round, so that a change in the machine's load hits all
    of them alike and the ratios between them stay meaningful.
    """
    for fn in fns.values():
        fn()
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = _perf()
            fn()
            times[name].append(_perf() - t0)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    return medians, {name: min(ts) for name, ts in times.items()}


def row(label: str, value: str, note: str = "") -> None:
    print(f"  {label:<46} {value:>14}  {note}")


# --- (a) a long elementwise chain -----------------------------------------------

# One cycle of the chain: x*0.9, sin, +0.1, tanh, exp(-x*x) (three primitives:
# multiply(t, t), negative, exp). The chain repeats it until it has N_OPS primitives.
_CYCLE = ("mul", "sin", "add", "tanh", "square", "neg", "exp")
N_OPS = 2000
_KINDS = tuple(_CYCLE[i % len(_CYCLE)] for i in range(N_OPS))


def chain_fg(x):
    """The chain on funcgrad nodes (`fnp` functions and operators), then a sum."""
    for kind in _KINDS:
        if kind == "mul":
            x = x * 0.9
        elif kind == "sin":
            x = fnp.sin(x)
        elif kind == "add":
            x = x + 0.1
        elif kind == "tanh":
            x = fnp.tanh(x)
        elif kind == "square":
            x = x * x
        elif kind == "neg":
            x = -x
        else:
            x = fnp.exp(x)
    return fnp.sum(x)


def chain_numpy(x0: np.ndarray):
    """The same chain by hand: NumPy forward keeping a tape, then the VJPs in reverse."""
    tape = []  # (kind, input, output) per primitive
    x = x0
    for kind in _KINDS:
        if kind == "mul":
            y = np.multiply(x, 0.9)
        elif kind == "sin":
            y = np.sin(x)
        elif kind == "add":
            y = np.add(x, 0.1)
        elif kind == "tanh":
            y = np.tanh(x)
        elif kind == "square":
            y = np.multiply(x, x)
        elif kind == "neg":
            y = np.negative(x)
        else:
            y = np.exp(x)
        tape.append((kind, x, y))
        x = y
    value = np.sum(x)
    ct = np.broadcast_to(np.ones((), x.dtype), x.shape)  # VJP of sum
    for kind, x, y in reversed(tape):
        if kind == "mul":
            ct = np.multiply(ct, 0.9)
        elif kind == "sin":
            ct = np.multiply(ct, np.cos(x))
        elif kind == "add":
            pass
        elif kind == "tanh":
            ct = np.multiply(ct, np.subtract(1.0, np.multiply(y, y)))
        elif kind == "square":  # x feeds both inputs: two contributions, summed
            ct = np.add(np.multiply(ct, x), np.multiply(ct, x))
        elif kind == "neg":
            ct = np.negative(ct)
        else:
            ct = np.multiply(ct, y)
    return value, ct


def bench_chain(repeats: int) -> None:
    print(f"(a) elementwise chain: {N_OPS} primitives (+1 sum) on a (16,) float64 array")
    x0 = np.random.default_rng(0).uniform(-1.0, 1.0, 16)

    ref_value, ref_grad = chain_numpy(x0)
    x = fg.leaf(x0)
    y = chain_fg(x)
    got = fg.backward(y)[x]
    value, got_vg = fg.value_and_grad(chain_fg)(x0)
    same = (
        np.allclose(y.value, ref_value, rtol=1e-12)
        and np.allclose(got, ref_grad, rtol=1e-10, atol=1e-300)
        and np.allclose(got_vg, ref_grad, rtol=1e-10, atol=1e-300)
    )

    def build():
        return chain_fg(fg.leaf(x0))

    def build_and_backward():
        x = fg.leaf(x0)
        return fg.backward(chain_fg(x))[x]

    graph_y = build()
    graph_x = fg.toposort(graph_y)[0]
    vg = fg.value_and_grad(chain_fg)
    t, _ = median_times(
        {
            "ref": lambda: chain_numpy(x0),
            "build": build,
            "bwd": lambda: fg.backward(graph_y)[graph_x],
            "direct": build_and_backward,
            "vg": lambda: vg(x0),
        },
        repeats,
    )
    t_ref, t_build, t_bwd, t_direct, t_vg = (t["ref"], t["build"], t["bwd"], t["direct"], t["vg"])

    us = 1e6 / N_OPS
    row("NumPy by hand, forward + backward", f"{t_ref * us:.2f} µs/op", "reference")
    row("funcgrad forward (building the graph)", f"{t_build * us:.2f} µs/op")
    row("funcgrad.backward on the built graph", f"{t_bwd * us:.2f} µs/op")
    row(
        "funcgrad forward + funcgrad.backward",
        f"{t_direct * us:.2f} µs/op",
        f"{t_direct / t_ref:.2f}x reference",
    )
    row(
        "funcgrad.value_and_grad",
        f"{t_vg * us:.2f} µs/op",
        f"{t_vg / t_ref:.2f}x reference",
    )
    row("gradients equal the reference", "yes" if same else "NO")


# --- (b) a small dense network ----------------------------------------------------


def bench_matmul(repeats: int) -> None:
    print("(b) sum(tanh(X @ W1) @ W2), float32, X 512x1024, W1 1024x1024, W2 1024x256;")
    print("    gradient with respect to W1 and W2")
    if not hasattr(fnp, "matmul"):
        row("funcgrad", "skipped: matmul missing")
        return
    rng = np.random.default_rng(1)
    # freeze() makes read-only arrays that the graph then shares without a copy.
    X = fg.freeze(rng.standard_normal((512, 1024), dtype=np.float32) / 32)
    W1 = fg.freeze(rng.standard_normal((1024, 1024), dtype=np.float32) / 32)
    W2 = fg.freeze(rng.standard_normal((1024, 256), dtype=np.float32) / 32)

    def reference():
        H = X @ W1
        A = np.tanh(H)
        value = np.sum(A @ W2)
        ct = np.ones((X.shape[0], W2.shape[1]), np.float32)  # VJP of sum
        dW2 = A.T @ ct
        dA = ct @ W2.T
        dH = dA * (1.0 - A * A)
        dW1 = X.T @ dH
        return value, dW1, dW2

    def loss(w1, w2):
        return fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2))

    def direct():
        w1, w2 = fg.leaf(W1), fg.leaf(W2)
        grads = fg.backward(loss(w1, w2))
        return grads[w1], grads[w2]

    vg = fg.value_and_grad(loss, argnums=(0, 1))

    value, g1, g2 = reference()
    fg_value, (h1, h2) = vg(W1, W2)
    d1, d2 = direct()
    same = all(
        np.allclose(a, b, rtol=1e-4, atol=1e-4)
        for a, b in ((value, fg_value), (g1, h1), (g2, h2), (g1, d1), (g2, d2))
    )
    same_dtype = h1.dtype == h2.dtype == d1.dtype == np.float32

    t, best = median_times({"ref": reference, "direct": direct, "vg": lambda: vg(W1, W2)}, repeats)
    t_ref, t_direct, t_vg = t["ref"], t["direct"], t["vg"]
    row("NumPy by hand, forward + backward", f"{t_ref * 1e3:.1f} ms", "reference")
    row(
        "funcgrad forward + funcgrad.backward",
        f"{t_direct * 1e3:.1f} ms",
        f"{t_direct / t_ref:.3f}x reference (target <= 1.02); "
        f"best runs {best['direct'] / best['ref']:.3f}x",
    )
    row(
        "funcgrad.value_and_grad",
        f"{t_vg * 1e3:.1f} ms",
        f"{t_vg / t_ref:.3f}x reference (target <= 1.02); "
        f"best runs {best['vg'] / best['ref']:.3f}x",
    )
    row("gradients equal the reference, float32", "yes" if same and same_dtype else "NO")


# --- (c) a very long chain, and node construction ---------------------------------


def _long_chain(n: int):
    x = fg.leaf(1.0)
    y = x
    for _ in range(n):
        y = y * 0.99999
    return x, y


def _long_chain_numpy(n: int):
    v = np.asarray(1.0)
    tape = []
    for _ in range(n):
        v = np.multiply(v, 0.99999)
        tape.append(v)
    ct = np.ones(())
    for _ in reversed(tape):
        ct = np.multiply(ct, 0.99999)
    return v, ct


def bench_long_chain(n: int, repeats: int) -> None:
    print(f"(c) a chain of {n:,} nodes, y = y * 0.99999")

    def run_fg():
        x, y = _long_chain(n)
        t0 = _perf()
        g = fg.backward(y)[x]
        return _perf() - t0, y, g

    # Times: medians of whole runs, taking turns with the reference; build and
    # backward are split within each run.
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    totals, backs, refs = [], [], []
    expected = 0.99999**n
    ok = True
    for _ in range(repeats):
        t0 = _perf()
        t_back, y, g = run_fg()
        totals.append(_perf() - t0)
        backs.append(t_back)
        ok = ok and np.isclose(float(g), expected, rtol=1e-6)
        ok = ok and np.isclose(float(y.value), expected, rtol=1e-6)
        del y, g
        t0 = _perf()
        _long_chain_numpy(n)
        refs.append(_perf() - t0)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t_ref = statistics.median(refs)
    t_total = statistics.median(totals)
    t_back = statistics.median(backs)

    # Peak memory of one build + backward, traced separately (tracemalloc slows Python down).
    gc.collect()
    tracemalloc.start()
    run_fg()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    tracemalloc.start()
    _long_chain_numpy(n)
    _, peak_ref = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    row("NumPy by hand (tape of values), fwd + bwd", f"{t_ref:.2f} s", "reference")
    row("funcgrad build", f"{t_total - t_back:.2f} s")
    row("funcgrad.backward", f"{t_back:.2f} s")
    row("funcgrad build + backward", f"{t_total:.2f} s", f"{t_total / t_ref:.2f}x reference")
    row(
        "peak memory, funcgrad (tracemalloc)",
        f"{peak / 2**20:.0f} MiB",
        f"{peak / n:.0f} bytes/node",
    )
    row(
        "peak memory, NumPy by hand (tracemalloc)",
        f"{peak_ref / 2**20:.0f} MiB",
        f"{peak_ref / n:.0f} bytes/node",
    )
    row(
        "peak RSS growth while timing (ru_maxrss)",
        f"{(rss1 - rss0) / 1024:.0f} MiB",
        "a lower bound (Linux: KiB units)",
    )
    row("gradient equals 0.99999**n", "yes" if ok else "NO")


def bench_node_construction(count: int, repeats: int) -> None:
    print(f"    making one node ({count:,} nodes per repeat)")
    value = fg.freeze(np.ones(16))
    params: dict = {}
    inputs = ()

    def with_init():
        for _ in range(count):
            Node(None, inputs, params, value)

    def with_make_node():
        for _ in range(count):
            make_node(None, inputs, params, value)

    def empty_loop():
        for _ in range(count):
            pass

    t, _ = median_times({"loop": empty_loop, "init": with_init, "make": with_make_node}, repeats)
    t_init = t["init"] - t["loop"]
    t_make = t["make"] - t["loop"]
    row("attrs-generated Node.__init__", f"{t_init / count * 1e9:.0f} ns/node", "reference")
    row(
        "funcgrad.graph.make_node",
        f"{t_make / count * 1e9:.0f} ns/node",
        f"{t_make / t_init:.2f}x reference",
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer repeats and a 100,000-node chain in (c): under 20 seconds",
    )
    parser.add_argument(
        "--only",
        choices=("a", "b", "c"),
        action="append",
        help="run only these sections (repeatable)",
    )
    args = parser.parse_args(argv)
    sections = set(args.only or ("a", "b", "c"))

    print(
        f"funcgrad {fg.__version__}, NumPy {np.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, "
        f"{datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}"
        f"{', --quick' if args.quick else ''}"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the start (other processes share the CPUs)")
    print("medians of time.perf_counter over repeats; ratios = funcgrad / reference\n")
    if "a" in sections:
        bench_chain(repeats=5 if args.quick else 31)
        print()
    if "b" in sections:
        bench_matmul(repeats=3 if args.quick else 11)
        print()
    if "c" in sections:
        bench_long_chain(100_000 if args.quick else 1_000_000, repeats=1 if args.quick else 3)
        bench_node_construction(100_000 if args.quick else 200_000, repeats=5 if args.quick else 9)
    return 0


if __name__ == "__main__":
    sys.exit(main())
