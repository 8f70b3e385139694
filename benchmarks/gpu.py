"""GPU benchmark: funcgrad on CuPy next to a hand-written CuPy forward and backward, in the same run.

The large-compute workload of `benchmarks/run.py`, on the GPU: the gradient
of `sum(tanh(X @ W1) @ W2)` with respect to W1 and W2 (float32, X 512x1024,
W1 1024x1024, W2 1024x256). Three ways, taking turns round by round:

* the reference: the forward and backward written by hand with CuPy;
* funcgrad: `funcgrad.backward` on a graph built from leaves;
* funcgrad: `funcgrad.value_and_grad`.

Each call is timed alone: the GPU is synchronized before it, CUDA events are
recorded around it, and the host waits for the end event, so a time is the
whole call (Python included) until its last kernel has finished. The
figures are medians; the ratio funcgrad / reference (target <= 1.1) is what
carries over between machines. A second figure runs 20 steps back to back
with one synchronization at the end (steady state: launches overlap the GPU).

Run `python benchmarks/gpu.py` (about 20 seconds after CuPy has compiled
its kernels), `--quick` for fewer repeats, `--json PATH` to also write the
figures as JSON (`scripts/gpu_check.sh` does). Without CuPy or a GPU it
prints `skipped: no GPU (...)` and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

# NOTE: benchmark the checkout this script lives in, installed or not.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402
from funcgrad.backend import cuda_skip_reason  # noqa: E402

TARGET = 1.1
SHAPES = {"X": (512, 1024), "W1": (1024, 1024), "W2": (1024, 256)}


def timed_calls(cupy, fns: dict, repeats: int) -> dict:
    """Return `{name: (wall medians in ms, CUDA-event medians in ms)}`, the functions taking turns."""
    device = cupy.cuda.Device()
    for fn in fns.values():  # warm up: kernels compiled, the memory pool filled
        for _ in range(3):
            fn()
    device.synchronize()
    walls: dict = {name: [] for name in fns}
    events: dict = {name: [] for name in fns}
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(repeats):
        for name, fn in fns.items():
            device.synchronize()
            t0 = time.perf_counter()
            start.record()
            fn()
            end.record()
            end.synchronize()
            walls[name].append((time.perf_counter() - t0) * 1e3)
            events[name].append(cupy.cuda.get_elapsed_time(start, end))
    return {n: (statistics.median(walls[n]), statistics.median(events[n])) for n in fns}


def pipelined(cupy, fns: dict, steps: int, repeats: int) -> dict:
    """Return `{name: ms per step}` for `steps` calls in a row, one synchronization at the end."""
    device = cupy.cuda.Device()
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            device.synchronize()
            t0 = time.perf_counter()
            for _ in range(steps):
                fn()
            device.synchronize()
            times[name].append((time.perf_counter() - t0) * 1e3 / steps)
    return {name: statistics.median(ts) for name, ts in times.items()}


def run(repeats: int) -> dict:
    """Run the benchmark on the current GPU; return its figures."""
    import cupy

    rng = cupy.random.RandomState(1)
    # freeze() once: the graph then shares these arrays without a copy.
    X, W1, W2 = (
        fg.freeze(rng.standard_normal(SHAPES[k], dtype=cupy.float32) / 32)
        for k in ("X", "W1", "W2")
    )

    def reference():
        H = X @ W1
        A = cupy.tanh(H)
        value = cupy.sum(A @ W2)
        ct = cupy.ones((X.shape[0], W2.shape[1]), cupy.float32)  # the VJP of sum
        dW2 = A.T @ ct
        dA = ct @ W2.T
        dH = dA * (1.0 - A * A)
        dW1 = X.T @ dH
        return value, dW1, dW2

    def loss(w1, w2):
        return fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2))

    def direct():
        w1, w2 = fg.leaf(W1), fg.leaf(W2)
        y = loss(w1, w2)
        grads = fg.backward(y)
        return y.value, grads[w1], grads[w2]

    vg = fg.value_and_grad(loss, argnums=(0, 1))

    def value_and_grad():
        value, (g1, g2) = vg(W1, W2)
        return value, g1, g2

    expected = [cupy.asnumpy(a) for a in reference()]
    same = True
    on_gpu = True
    for fn in (direct, value_and_grad):
        got = fn()
        on_gpu &= all(isinstance(a, cupy.ndarray) for a in got)
        same &= all(g.dtype == np.float32 for g in got[1:])
        same &= all(
            np.allclose(cupy.asnumpy(g), e, rtol=1e-3, atol=1e-3)
            for g, e in zip(got, expected, strict=True)
        )

    fns = {"reference": reference, "direct": direct, "value_and_grad": value_and_grad}
    per_call = timed_calls(cupy, fns, repeats)
    steady = pipelined(cupy, fns, steps=20, repeats=max(3, repeats // 4))
    ref_wall, ref_event = per_call["reference"]
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    figures = {
        "gpu": name,
        "cupy": cupy.__version__,
        "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "repeats": repeats,
        "gradients_equal_reference": bool(same),
        "results_on_gpu": bool(on_gpu),
        "target_ratio": TARGET,
        "ms": {},
    }
    for key, (wall, event) in per_call.items():
        figures["ms"][key] = {
            "wall": wall,
            "cuda_events": event,
            "steady_state": steady[key],
            "ratio_wall": wall / ref_wall,
            "ratio_cuda_events": event / ref_event,
            "ratio_steady_state": steady[key] / steady["reference"],
        }
    return figures


def report(figures: dict) -> None:
    """Print the figures as rows, like `benchmarks/run.py`."""
    print(
        f"GPU {figures['gpu']}, CuPy {figures['cupy']}, CUDA runtime "
        f"{figures['cuda_runtime']}, NumPy {figures['numpy']}, Python {figures['python']}"
    )
    print("sum(tanh(X @ W1) @ W2), float32, X 512x1024, W1 1024x1024, W2 1024x256;")
    print(f"gradient with respect to W1 and W2; medians over {figures['repeats']} calls each")
    print(
        f"  {'':<36} {'per call':>10} {'CUDA events':>12} {'20 in a row':>12}  ratio (target <= {TARGET})"
    )
    labels = {
        "reference": "CuPy by hand, forward + backward",
        "direct": "funcgrad forward + funcgrad.backward",
        "value_and_grad": "funcgrad.value_and_grad",
    }
    for key, label in labels.items():
        row = figures["ms"][key]
        ratio = (
            "reference"
            if key == "reference"
            else (f"{row['ratio_wall']:.3f}x per call, {row['ratio_steady_state']:.3f}x in a row")
        )
        print(
            f"  {label:<36} {row['wall']:>7.3f} ms {row['cuda_events']:>9.3f} ms "
            f"{row['steady_state']:>9.3f} ms  {ratio}"
        )
    print(
        f"  gradients equal the reference, float32, on the GPU: "
        f"{'yes' if figures['gradients_equal_reference'] and figures['results_on_gpu'] else 'NO'}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (about 5 seconds)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = parser.parse_args(argv)
    reason = cuda_skip_reason()
    if reason is not None:
        print(f"skipped: no GPU ({reason})")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"skipped": reason}, f)
        return 0
    figures = run(repeats=10 if args.quick else 41)
    report(figures)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0 if figures["gradients_equal_reference"] and figures["results_on_gpu"] else 1


if __name__ == "__main__":
    sys.exit(main())
