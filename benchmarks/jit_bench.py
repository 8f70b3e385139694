"""`funcgrad.jit` on the workloads W1-W6: jitted against hand-written NumPy and eager funcgrad.

Each workload's functions come from `benchmarks/workloads.py` (the hand-written
NumPy step and the eager functional one from its builders; the jitted one is
`funcgrad.jit` of the same funcgrad function). The timings are interleaved:
each round times every implementation once, in turn, and a ratio is the
median over rounds of that round's ratio, so load on the machine hits both
sides of a ratio alike. Also reported: trace time (ms per 1,000 nodes of the
traced graph), the cost of a cache hit (a jitted identity function), and a
jitted W3 training step (`value_and_grad` plus a `funcgrad.optimizers.sgd`
update) against PyTorch's eager step (forward, `backward()`, `optim.SGD.step`).

    python benchmarks/jit_bench.py [--only W1,W3] [--repeat 15]
    python benchmarks/jit_bench.py --instructions --only W1,W2,W3,W6   # callgrind counts
    python benchmarks/jit_bench.py --alignment   # W6's products by the matrix's alignment

`jit_columns(ids, repeat)` returns the same figures as a dict, for `run.py`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.dirname(_HERE)]  # workloads and peers; funcgrad from this checkout

import peers  # noqa: E402
import workloads  # noqa: E402

import funcgrad as fg  # noqa: E402
import funcgrad.nn as fnn  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402

# Target of jit / hand-written NumPy per workload (issue #18).
TARGETS = {"W1": 1.3, "W2": 2.0, "W3": 1.3, "W4": 1.01, "W5": 2.0, "W6": 1.3}
W5_STEPS = 10_000  # a plan of 30,000 steps (run.py's 100,000 would take long to trace)


def _interleaved(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Seconds per call of each function, one sample per round, taking turns within a round."""
    number = {}
    for name, fn in fns.items():  # warm up, and choose how many calls make ~20 ms
        fn()
        t = time.perf_counter()
        fn()
        dt = max(time.perf_counter() - t, 1e-7)
        number[name] = max(1, int(0.02 / dt))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            fn, n = fns[name], number[name]
            t = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t) / n)
    return samples


def _ratio(samples: dict[str, list[float]], a: str, b: str) -> float:
    return statistics.median(x / y for x, y in zip(samples[a], samples[b], strict=True))


def _check(a: tuple, b: tuple, what: str) -> None:
    for x, y in zip(a, b, strict=True):
        if not np.allclose(np.asarray(x), np.asarray(y), rtol=1e-4, atol=1e-6):
            raise AssertionError(f"{what}: jitted result differs from hand-written NumPy")


# --- the jitted functions ---------------------------------------------------------------


def _w1_w2(x0: np.ndarray) -> tuple[dict, Callable[[], object]]:
    impls = workloads.build_chain(x0, with_details=False)
    step = fg.jit(fg.value_and_grad(workloads.chain_fg))
    x = np.asarray(x0, dtype=np.float64)
    return impls, lambda: step(x)


def _mlp_loss(X: np.ndarray, labels: np.ndarray, rows: np.ndarray) -> Callable:
    def loss(W1, b1, W2, b2):  # the same loss as workloads.build_mlp's fg_func
        h = fnp.tanh(fnp.matmul(X, W1) + b1)
        z = fnp.matmul(h, W2) + b2
        logp = fnn.log_softmax(z, axis=1)
        return -fnp.mean(logp[rows, labels])

    return loss


def _w3() -> tuple[dict, Callable[[], object]]:
    impls = workloads.build_mlp()
    X, labels, params = workloads.mlp_data()
    loss = _mlp_loss(X, labels, np.arange(X.shape[0]))
    step = fg.jit(fg.value_and_grad(loss, argnums=(0, 1, 2, 3)))

    def run():
        value, grads = step(*params)
        return (value, *grads)

    return impls, run


def _w4() -> tuple[dict, Callable[[], object]]:
    impls = workloads.build_matmul(with_details=False)
    rng = np.random.default_rng(1)  # the arrays of workloads.build_matmul, made the same way
    X = rng.standard_normal((512, 1024), dtype=np.float32) / 32
    W1 = rng.standard_normal((1024, 1024), dtype=np.float32) / 32
    W2 = rng.standard_normal((1024, 256), dtype=np.float32) / 32

    def loss(w1, w2):
        return fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2))

    step = fg.jit(fg.value_and_grad(loss, argnums=(0, 1)))

    def run():
        value, (g1, g2) = step(W1, W2)
        return value, g1, g2

    return impls, run


def _w6() -> tuple[dict, Callable[[], object]]:
    impls = workloads.build_hvp()
    rng = np.random.default_rng(6)  # the arrays of workloads.build_hvp, made the same way
    A = rng.standard_normal((256, 256)) / 16
    x0 = rng.standard_normal(256)
    v0 = rng.standard_normal(256)

    def f(x):
        return fnp.sum(fnp.tanh(fnp.matmul(A, x)) ** 2)

    hvp = fg.jit(lambda x, v: fg.hvp(f, (x,), (v,)))
    return impls, lambda: (hvp(x0, v0),)


def _train_step_of(loss: Callable, opt, params0: list) -> Callable[[], object]:
    """A jitted functional training step (value_and_grad + `opt`'s update) from `params0`.

    Each call trains on: it returns the loss and the gradients as the
    workloads' steps do (so the first call's results agree).
    """
    vg = fg.value_and_grad(loss)

    def step(ps, state):
        value, grads = vg(ps)
        updates, state = opt.update(grads, state, ps)
        return value, grads, fg.optimizers.apply_updates(ps, updates), state

    jstep = fg.jit(step)
    ps = tuple(p.copy() for p in params0)
    held = [ps, opt.init(ps)]

    def run():
        value, grads, held[0], held[1] = jstep(held[0], held[1])
        return (value, *grads)

    return run


def _w7() -> tuple[dict, Callable[[], object]]:
    import funcgrad.nn.functional as fF

    impls = workloads.build_lenet()
    X, labels, params0 = workloads.lenet_data()
    fX, flab = fg.freeze(X.copy()), fg.freeze(labels.copy())

    def loss(p):  # the loss of workloads.build_lenet's fg_func
        return fF.cross_entropy(workloads._lenet_forward(fX, p, fF), flab)

    return impls, _train_step_of(loss, fg.optimizers.sgd(workloads.LENET_LR), params0)


def _w8() -> tuple[dict, Callable[[], object]]:
    import funcgrad.nn.functional as fF

    impls = workloads.build_adam_mlp()
    X, labels, params0 = workloads.mlp8_data()
    fX, flab = fg.freeze(X.copy()), fg.freeze(labels.copy())

    def loss(p):  # the loss of workloads.build_adam_mlp's fg_func
        h = fF.relu(fF.linear(fX, p[0], p[1]))
        h = fF.relu(fF.linear(h, p[2], p[3]))
        return fF.cross_entropy(fF.linear(h, p[4], p[5]), flab)

    return impls, _train_step_of(loss, fg.optimizers.adam(workloads.ADAM_LR), params0)


def w5_run(n: int) -> Callable[[], tuple[float, float]]:
    """W5 with `n` steps, jitted and traced already: calls replay the plan (for run.py's W5)."""
    c, d = workloads.W5_MUL, workloads.W5_ADD

    def f(x):
        for _ in range(n):
            x = x * c + d
        return x

    step = fg.jit(fg.value_and_grad(f))
    x0 = np.float64(1.0)  # a NumPy scalar is dynamic (a Python float would be static)

    def run():
        value, g = step(x0)
        return float(value), float(g)

    run()  # the trace
    return run


def _w5() -> tuple[dict, Callable[[], object]]:
    n = W5_STEPS
    impls = {"numpy": workloads.w5_impl("numpy", n), "fg_func": workloads.w5_impl("fg_func", n)}
    return impls, w5_run(n)


BUILDERS = {
    "W1": lambda: _w1_w2(np.random.default_rng(0).uniform(-1.0, 1.0, 16)),
    "W2": lambda: _w1_w2(np.asarray(0.3)),
    "W3": _w3,
    "W4": _w4,
    "W5": _w5,
    "W6": _w6,
    "W7": _w7,  # whole training steps: run.py's jit column (against its targets)
    "W8": _w8,
}


def _trace_cost() -> float:
    """Milliseconds to trace and build a plan, per 1,000 nodes (W1's value_and_grad)."""
    x = np.random.default_rng(0).uniform(-1.0, 1.0, 16)
    times = []
    for _ in range(3):
        f = fg.jit(fg.value_and_grad(workloads.chain_fg))
        plan = f.plan(x)
        times.append(plan.trace_seconds * 1e3 / plan.n_nodes * 1000)
    return min(times)


def _cache_hit() -> float:
    """Microseconds of a cache hit: a jitted function whose plan returns its argument."""
    f = fg.jit(lambda x: x * 1.0)
    x = np.ones(3)
    plain = lambda: x * 1.0  # noqa: E731  (the plan's own work)
    samples = _interleaved({"jit": lambda: f(x), "plan": plain}, 9)
    return (
        statistics.median(a - b for a, b in zip(samples["jit"], samples["plan"], strict=True)) * 1e6
    )


def _train_step(repeat: int) -> dict:
    """A jitted W3 training step (value_and_grad + sgd update) against PyTorch's eager step."""
    X, labels, params = workloads.mlp_data()
    loss = _mlp_loss(X, labels, np.arange(X.shape[0]))
    opt = fg.optimizers.sgd(0.01)
    vg = fg.value_and_grad(loss, argnums=(0, 1, 2, 3))

    def step(ps, state):
        value, grads = vg(*ps)
        updates, state = opt.update(grads, state, ps)
        return value, fg.optimizers.apply_updates(ps, updates), state

    jstep = fg.jit(step)
    state = [tuple(params), opt.init(tuple(params))]

    def fg_run():
        _, state[0], state[1] = jstep(state[0], state[1])

    fns = {"jit": fg_run}
    torch, why = peers.load("torch")
    if torch is None:
        return {"note": f"PyTorch missing: {why}"}
    tX = torch.from_numpy(np.array(X))
    tlab = torch.from_numpy(np.array(labels))
    trows = torch.arange(X.shape[0])
    tparams = [torch.from_numpy(np.array(p)).requires_grad_() for p in params]
    topt = torch.optim.SGD(tparams, lr=0.01)

    def torch_run():
        topt.zero_grad()
        loss_t = workloads._mlp_loss_tensor(tX, tlab, trows, *tparams, torch)
        loss_t.backward()
        topt.step()

    fns["torch"] = torch_run
    samples = _interleaved(fns, repeat)
    return {
        "jit_ms": statistics.median(samples["jit"]) * 1e3,
        "torch_ms": statistics.median(samples["torch"]) * 1e3,
        "jit/torch": _ratio(samples, "jit", "torch"),
        "target": 0.5,
    }


def jit_columns(ids: tuple[str, ...] = tuple(TARGETS), repeat: int = 15) -> dict:
    """Measure jitted W1-W6 (as `ids` asks) against hand-written NumPy and eager funcgrad.

    Returns:
        `{"W1": {"numpy_ms", "eager_ms", "jit_ms", "jit/numpy", "eager/numpy",
        "target", "met"}, ..., "trace_ms_per_1000_nodes": ..., "cache_hit_us": ...,
        "W3_train_step": {...}, "load": (before, after)}`. Ratios are medians of
        per-round ratios (interleaved rounds); `met` compares with the target.
    """
    load_before = os.getloadavg()[0]
    out: dict = {}
    for wid in ids:
        impls, jitted = BUILDERS[wid]()
        _check(impls["numpy"](), jitted(), wid)
        samples = _interleaved(
            {"numpy": impls["numpy"], "eager": impls["fg_func"], "jit": jitted}, repeat
        )
        ratio = _ratio(samples, "jit", "numpy")
        out[wid] = {
            "numpy_ms": statistics.median(samples["numpy"]) * 1e3,
            "eager_ms": statistics.median(samples["eager"]) * 1e3,
            "jit_ms": statistics.median(samples["jit"]) * 1e3,
            "jit/numpy": ratio,
            "eager/numpy": _ratio(samples, "eager", "numpy"),
            "target": TARGETS.get(wid),  # W7, W8: run.py's targets (steps against PyTorch)
            "met": ratio <= TARGETS[wid] if wid in TARGETS else None,
        }
    out["trace_ms_per_1000_nodes"] = _trace_cost()
    out["cache_hit_us"] = _cache_hit()
    if "W3" in ids:
        out["W3_train_step"] = _train_step(repeat)
    out["load"] = (load_before, os.getloadavg()[0])
    return out


def alignment_table(rounds: int = 30, number: int = 300) -> dict:
    """CPU time of W6's matrix-vector products by where the matrix starts (bytes past 64).

    The 256x256 float64 matrix is copied to offsets 0, 8, ..., 56 past a
    64-byte boundary; each round times `number` calls of `(A @ x, x @ A)`
    per offset, in turn. Returns `{offset: median time / offset 0's}`: why a
    plan's constants are aligned (`funcgrad.transforms.jit.ALIGN_CONSTANTS`).
    """
    rng = np.random.default_rng(6)
    A0, x = rng.standard_normal((256, 256)) / 16, rng.standard_normal(256)

    def products(off: int) -> Callable[[], object]:
        raw = np.empty(A0.nbytes + 128, np.uint8)
        start = -raw.ctypes.data % 64 + off
        A = raw[start : start + A0.nbytes].view(A0.dtype).reshape(A0.shape)
        A[...] = A0
        return lambda: (A @ x, x @ A)

    fns = {off: products(off) for off in range(0, 64, 8)}
    times: dict[int, list[float]] = {off: [] for off in fns}
    for r in range(rounds):
        offs = list(fns)[r % len(fns) :] + list(fns)[: r % len(fns)]
        for off in offs:
            t = time.process_time()
            for _ in range(number):
                fns[off]()
            times[off].append(time.process_time() - t)
    return {
        off: statistics.median(a / b for a, b in zip(times[off], times[0], strict=True))
        for off in fns
    }


def instruction_ratios(ids: tuple[str, ...], calls: int = 3) -> dict:
    """Instructions per call of jitted / hand-written NumPy, counted by callgrind (load-free).

    Runs this file in a child under `valgrind --tool=callgrind`, with the
    switch of `benchmarks/compare.py` around the timed calls only.
    """
    import subprocess
    import tempfile

    import compare

    folder = tempfile.mkdtemp(prefix="jit_bench_cg_")
    helper, why = compare.build_helper(folder)
    if helper is None:
        return {"note": why}
    dumps = os.path.join(folder, "dumps")
    os.makedirs(dumps)
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        f"--callgrind-out-file={dumps}/callgrind.out.%p",
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        ",".join(ids),
        helper,
        str(calls),
    ]
    # one BLAS thread: callgrind collects only where the switch is on (this thread)
    env = {
        **os.environ,
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    counts = compare.parse_callgrind(dumps)
    return {
        wid: {
            "numpy_instructions": counts[wid, "numpy"],
            "jit_instructions": counts[wid, "jit"],
            "jit/numpy": counts[wid, "jit"] / counts[wid, "numpy"],
        }
        for wid in ids
    }


def _child(ids: str, helper: str, calls: int) -> None:
    """Under callgrind: count `calls` calls of each workload's NumPy and jitted step."""
    import ctypes

    peers.load = lambda name: (None, "not loaded under callgrind")  # importing torch: minutes
    lib = ctypes.CDLL(helper)
    for wid in ids.split(","):
        impls, jitted = BUILDERS[wid]()
        for path, fn in (("numpy", impls["numpy"]), ("jit", jitted)):
            fn()
            fn()  # traced and replayed once: warm
            lib.fg_cg_start()
            for _ in range(calls):
                fn()
            lib.fg_cg_stop(f"{wid} {path} {calls}".encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default=",".join(TARGETS), help="workloads, e.g. W1,W3")
    parser.add_argument("--repeat", type=int, default=15, help="interleaved rounds")
    parser.add_argument(
        "--instructions", action="store_true", help="only instruction counts (callgrind)"
    )
    parser.add_argument(
        "--alignment", action="store_true", help="only W6's products by the matrix's alignment"
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], args.child[1], int(args.child[2]))
        return
    if args.alignment:
        load = os.getloadavg()[0]
        table = alignment_table()
        print(f"load (1 min) before/after: {load:.2f} / {os.getloadavg()[0]:.2f}")
        for off, ratio in table.items():
            print(f"A starts {off:2d} bytes past 64: {ratio:.3f}x the CPU time of offset 0")
        return
    if args.instructions:
        for wid, r in instruction_ratios(tuple(args.only.split(","))).items():
            print(wid, r)
        return
    res = jit_columns(tuple(args.only.split(",")), args.repeat)
    print(f"load (1 min) before/after: {res['load'][0]:.2f} / {res['load'][1]:.2f}")
    print(
        f"{'':4} {'numpy ms':>10} {'eager ms':>10} {'jit ms':>10} {'jit/np':>8} {'eager/np':>9}  target"
    )
    for wid in args.only.split(","):
        r = res[wid]
        print(
            f"{wid:4} {r['numpy_ms']:10.3f} {r['eager_ms']:10.3f} {r['jit_ms']:10.3f} "
            f"{r['jit/numpy']:8.2f} {r['eager/numpy']:9.2f}  <= {r['target']} "
            f"{'met' if r['met'] else 'missed'}"
        )
    print(f"trace: {res['trace_ms_per_1000_nodes']:.1f} ms per 1,000 nodes")
    print(f"cache hit: {res['cache_hit_us']:.2f} us beyond the plan")
    if "W3_train_step" in res:
        t = res["W3_train_step"]
        if "note" in t:
            print(f"W3 training step: {t['note']}")
        else:
            print(
                f"W3 training step: jit {t['jit_ms']:.3f} ms, PyTorch eager {t['torch_ms']:.3f} ms, "
                f"ratio {t['jit/torch']:.2f} (target <= {t['target']})"
            )


if __name__ == "__main__":
    main()
