"""funcgrad benchmarks: issues 7 and 18's table, funcgrad next to its peers in the same run.

    python benchmarks/run.py                  # the full table, several minutes on 2 shared cores
    python benchmarks/run.py --quick          # fewer rounds, smaller W5 and C: a smoke test
    python benchmarks/run.py --only W1,W4     # a selection (W1-W9, OPT-SGD, OPT-Adam, CV1-CV3, C, N)
    python benchmarks/run.py --mode process   # each framework in its own fresh process
    python benchmarks/run.py --markdown       # and the table in the README's format
    python benchmarks/run.py --profile        # and a profile of funcgrad for every target not met

Each workload runs one step (forward plus full backward; W7 and W8 also
the optimizer's update) in funcgrad's functional path (`value_and_grad`,
`hvp`, `funcgrad.optimizers`), its imperative path (`Tensor.backward()`,
`autograd.grad`, `funcgrad.optim`), `funcgrad.jit` when
`benchmarks/jit_bench.py` provides it (`build(wid)`; else the column says
n/a), PyTorch eager, HIPS autograd and written by hand with NumPy. W9 comes
from `benchmarks/vmap_bench.py` (`build()`), n/a until it exists.

Modes (`--mode`): `turns` (default; all implementations in this process, a
block of calls each per round, the order rotating between rounds, so that
the machine's load hits all alike), `interleaved` (the same, each call
timed and a round's figure the median of its calls) and `process` (each
implementation in a fresh process per round that imports no other peer:
how a user experiences it). The garbage collector stays on. Figures are
medians over rounds; ratios are funcgrad / peer, each with a bootstrap 95%
interval over the rounds (resampled in pairs) and a verdict against its
target: met (the interval at or below it), missed (above), undecided. The
1-minute load is recorded at the start and the end; above 0.5 at the start
(1.5 at the end, where this run counts about 1) the run is "not a verdict".
Every funcgrad result is checked against the NumPy one (max abs diff, and
relative to the largest reference entry); nothing is asserted.

Targets: W1-W3, W5 (time and memory), W6, W8, OPT, W9: funcgrad <= torch;
W4: <= 1.02 x hand-written NumPy; W7: <= hand-written NumPy (moonshot:
torch, the fg/torch column). jit: W1, W3, W6 <= 1.3 x NumPy, W2, W5 <= 2 x,
W4 <= 1.01 x. docs/developer/performance.md explains the table.

One thread: when run as a script this module sets `OMP_NUM_THREADS`,
`OPENBLAS_NUM_THREADS` and `MKL_NUM_THREADS` to 1 at the top, before NumPy
or PyTorch is imported, and calls `torch.set_num_threads(1)`.
`OPENBLAS_CORETYPE` is left as it is (and printed).

The peers are optional (`pip install -e ".[bench]"`): a missing one gets the
line "skipped: torch not installed" and its columns say "skipped".

W5 (a chain of 200,000 scalar primitives: 100,000 steps
`x = x*0.99999 + 0.00001`, one multiply and one add each) runs each
implementation in a fresh process (this script with `--w5-child NAME`),
taking turns over the rounds: its time, and its peak memory above the
baseline as the growth of the peak resident set size (`ru_maxrss`; on
Linux read as `VmHWM`, see `_maxrss_bytes`) from after the imports and a
small warm-up to the end of the run, the same measure for all (PyTorch's
allocations are invisible to tracemalloc).

Details kept from the earlier version of this script: the split of W1/W2
into graph building and `funcgrad.backward`, W4 through `funcgrad.backward`,
C (a 1,000,000-node chain `y = y * 0.99999`, time and tracemalloc peak) and
N (the cost of making one node, `make_node` against the attrs `__init__`).
"""

from __future__ import annotations

import os
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_NUMPY_PRELOADED = "numpy" in sys.modules
if __name__ == "__main__":
    # One thread, set before NumPy (OpenBLAS) and PyTorch (OpenMP, MKL) are imported:
    # they read these variables once, when they load.
    for _var in _THREAD_VARS:
        os.environ[_var] = "1"

import argparse  # noqa: E402
import cProfile  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

# NOTE: benchmark the checkout this script lives in, installed or not.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_HERE))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import conv_bench  # noqa: E402
import peers  # noqa: E402
import workloads  # noqa: E402
from workloads import N_OPS, chain_fg  # noqa: E402, F401  (used by tests/hardening/bench_rules.py)

import funcgrad as fg  # noqa: E402
from funcgrad.graph import Node, make_node  # noqa: E402

_perf = time.perf_counter

FG_PATHS = ("fg_func", "fg_imp")
PATH_LABEL = {"fg_func": "functional", "fg_imp": "imperative"}
COLUMNS = ("torch", "autograd", "numpy")
COLUMN_LABEL = {"torch": "torch", "autograd": "autograd", "numpy": "NumPy"}
DETAIL_LABEL = {
    "fg_build": "funcgrad forward only (building the graph)",
    "fg_bwd_only": "funcgrad.backward on a graph built once",
    "fg_backward": "fg.leaf + forward + funcgrad.backward",
}


# --- timing --------------------------------------------------------------------------------


def _snapshot(result):
    """A copy of an implementation's results (later calls may write into the arrays)."""
    if isinstance(result, tuple):
        return tuple(np.array(r, copy=True) for r in result)
    return np.array(result, copy=True) if isinstance(result, np.ndarray) else result


def timed_rounds(fns: dict, rounds: int, inner: int = 1, per_call: bool = False):
    """Time each `fn()` in `fns` over `rounds` rounds, taking turns; return (times, first results).

    Each function is called once to warm up (its result, copied, is returned
    for the correctness check). In each round every function runs `inner`
    calls in a row, one function after the other, the order rotating from
    round to round, so that a change of the machine's load hits all alike.
    A round's figure is the mean time per call of the block, or with
    `per_call` the median of the calls timed one by one (interleaved mode:
    a call the scheduler interrupted does not move it). The garbage
    collector stays on. `times[name]` lists the figures in seconds, one per
    round, so that round `r` of every function ran back to back.
    """
    first = {name: _snapshot(fn()) for name, fn in fns.items()}
    names = list(fns)
    times: dict = {name: [] for name in names}
    gc.collect()
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = fns[name]
            if per_call:
                calls = []
                for _ in range(inner):
                    t0 = _perf()
                    fn()
                    calls.append(_perf() - t0)
                times[name].append(statistics.median(calls))
            else:
                t0 = _perf()
                for _ in range(inner):
                    fn()
                times[name].append((_perf() - t0) / inner)
    return times, first


def median_times(fns: dict, repeats: int, inner: int = 1) -> tuple[dict, dict, dict]:
    """`timed_rounds` summarized: (medians, bests, first results) by name, in seconds."""
    times, first = timed_rounds(fns, repeats, inner)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    return medians, {name: min(ts) for name, ts in times.items()}, first


# --- statistics: the ratio's confidence interval and the verdict ------------------------------

BOOTSTRAP = 2000


def ratio_ci(ours, theirs, level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """The ratio of medians `ours / theirs` and its bootstrap confidence interval.

    `ours[r]` and `theirs[r]` ran in the same round `r` (back to back), so
    rounds are resampled in pairs: a load that slowed both moves the ratio
    little. Returns (ratio, low, high); with a single round the interval is
    that one ratio.
    """
    k = min(len(ours), len(theirs))
    a = np.asarray(ours[:k], dtype=np.float64)
    b = np.asarray(theirs[:k], dtype=np.float64)
    ratio = float(np.median(a) / np.median(b))
    if k < 2:
        return ratio, ratio, ratio
    idx = np.random.default_rng(seed).integers(0, k, size=(BOOTSTRAP, k))
    boot = np.median(a[idx], axis=1) / np.median(b[idx], axis=1)
    tail = (1.0 - level) / 2 * 100
    return ratio, float(np.percentile(boot, tail)), float(np.percentile(boot, 100 - tail))


def judge(low: float, high: float, target: float) -> str:
    """met (the whole interval at or below the target), missed (above it) or undecided."""
    if high <= target:
        return "met"
    if low > target:
        return "missed"
    return "undecided"


def max_diff(got, ref) -> tuple[float, float]:
    """Max abs difference over matching entries, and that over the largest |ref| entry."""
    worst, scale = 0.0, 0.0
    for a, b in zip(got, ref, strict=True):
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        worst = max(worst, float(np.max(np.abs(a - b))))
        scale = max(scale, float(np.max(np.abs(b))))
    return worst, (worst / scale if scale else worst)


def fmt(v: float | None) -> str:
    if v is None:
        return "skipped"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_diff(d: tuple[float, float] | None) -> str:
    if d is None:
        return ""
    return f"{d[0]:.1e} (rel {d[1]:.0e})"


# --- the optional columns: funcgrad.jit (jit_bench.py) and W9 (vmap_bench.py) -----------------


def _optional(name: str):
    """Import `benchmarks/<name>.py` if it is there; (module, None) or (None, why)."""
    try:
        return importlib.import_module(name), None
    except ImportError as e:
        return None, f"{name}.py not available ({e})"


def jit_impl(wid: str):
    """The `funcgrad.jit` implementation of `wid`, or None (the jit column then says n/a).

    The contract with `benchmarks/jit_bench.py`: `build(wid)` returns a
    zero-argument function giving the same results as the workload's other
    implementations (value first, then gradients), or None when it has no
    jitted version of `wid`; or `BUILDERS[wid]()` returns `(impls, jitted)`.
    A missing module or entry, or a failing build (reported), all read as
    n/a: the eager columns never depend on the jit.
    """
    module, _ = _optional("jit_bench")
    build = getattr(module, "build", None)
    builders = getattr(module, "BUILDERS", {})
    if build is None and wid not in builders:
        return None
    try:
        return build(wid) if build is not None else builders[wid]()[1]
    except Exception as e:  # noqa: BLE001  (reported; the row says n/a)
        print(f"jit {wid}: jit_bench.build failed: {type(e).__name__}: {e}", file=sys.stderr)
        return None


def build_w9() -> dict:
    """W9 from `benchmarks/vmap_bench.py` (`build()`: implementations as workloads' build_*).

    Raises:
        ImportError: When vmap_bench.py (or its `build`) is not there yet.
    """
    module, why = _optional("vmap_bench")
    if module is None or not hasattr(module, "build"):
        raise ImportError(why or "vmap_bench.py has no build()")
    impls: dict = module.build()
    return impls


def w9_title() -> str:
    module, _ = _optional("vmap_bench")
    title: str = getattr(module, "TITLE", "per-example gradients of the W3 MLP, vmap(grad)")
    return title


# --- the workloads ---------------------------------------------------------------------------


class Spec:
    """One timed workload of the table (W5 is measured separately).

    `target` is (peer, factor): funcgrad's eager paths meet it at or below
    `factor` x the peer; `jit_target` the same for the jit column.
    """

    def __init__(
        self, wid, title, unit, scale, inner, repeats, build, target=("torch", 1.0), jit_target=None
    ):
        self.wid, self.title, self.unit, self.scale = wid, title, unit, scale
        self.inner, self.repeats, self.build, self.target = inner, repeats, build, target
        self.jit_target = jit_target or target


def specs() -> list[Spec]:
    x16 = np.random.default_rng(0).uniform(-1.0, 1.0, 16)
    x0d = np.asarray(0.3)
    per_op = 1e6 / N_OPS
    return [
        Spec(
            "W1",
            f"{N_OPS:,}-op elementwise chain, (16,) float64",
            "µs/op",
            per_op,
            1,
            (41, 5),
            lambda: workloads.build_chain(x16),
            jit_target=("numpy", 1.3),
        ),
        Spec(
            "W2",
            f"{N_OPS:,}-op elementwise chain, 0-d float64",
            "µs/op",
            per_op,
            1,
            (41, 5),
            lambda: workloads.build_chain(x0d),
            jit_target=("numpy", 2.0),
        ),
        Spec(
            "W3",
            "MLP 64-128-10 tanh, softmax CE, batch 64, float64",
            "ms/step",
            1e3,
            20,
            (31, 5),
            workloads.build_mlp,
            jit_target=("numpy", 1.3),
        ),
        Spec(
            "W4",
            "sum(tanh(X @ W1) @ W2), 512x1024x1024x256, float32",
            "ms",
            1e3,
            1,
            (15, 3),
            workloads.build_matmul,
            target=("numpy", 1.02),
            jit_target=("numpy", 1.01),
        ),
        Spec(
            "W6",
            "Hessian-vector product, sum(tanh(A @ x)**2), A 256x256 float64",
            "ms",
            1e3,
            20,
            (31, 5),
            workloads.build_hvp,
            jit_target=("numpy", 1.3),
        ),
        Spec(
            "W7",
            "LeNet (blitz) SGD training step, batch 64, 1x32x32, float32",
            "ms/step",
            1e3,
            2,
            (15, 3),
            workloads.build_lenet,
            target=("numpy", 1.0),
        ),
        Spec(
            "W8",
            "MLP 784-256-128-10 Adam training step, batch 128, float32",
            "ms/step",
            1e3,
            5,
            (21, 3),
            workloads.build_adam_mlp,
        ),
        *(
            Spec(
                f"OPT-{kind}",
                f"optimizer.step() alone, {label}, 16 float32 tensors (W7's + W8's)",
                "µs/tensor",
                1e6 / 16,
                10,
                (21, 3),
                lambda k=kind: workloads.build_optimizer_step(k),
            )
            for kind, label in (("SGD", "SGD momentum 0.9"), ("Adam", "Adam"))
        ),
        Spec("W9", w9_title(), "ms", 1e3, 5, (21, 3), build_w9),
        *(
            Spec(
                wid,
                conv_bench.title(wid),
                "ms",
                1e3,
                1,
                (15, 3),
                lambda w=wid: conv_bench.build_conv(w),
            )
            for wid in conv_bench.SIZES
        ),
    ]


def all_impls(spec: Spec) -> dict:
    """The workload's implementations, with funcgrad.jit's (`jit`) when jit_bench provides it."""
    impls = spec.build()
    jitted = jit_impl(spec.wid)
    if jitted is not None:
        impls["jit"] = jitted
    return impls


def measure(spec: Spec, quick: bool, per_call: bool = False) -> dict:
    impls = all_impls(spec)
    repeats = spec.repeats[1] if quick else spec.repeats[0]
    times, first = timed_rounds(impls, repeats, spec.inner, per_call)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    bests = {name: min(ts) for name, ts in times.items()}
    ref = first["numpy"]
    diffs = {}
    for name, res in first.items():
        if name == "fg_build":
            continue
        if name == "fg_bwd_only":  # the gradient alone
            diffs[name] = max_diff((res,), ref[1:])
        elif name != "numpy":
            diffs[name] = max_diff(res, ref)
    return {
        "values": {name: t * spec.scale for name, t in medians.items()},
        "best": {name: t * spec.scale for name, t in bests.items()},
        "diffs": diffs,
        "impls": impls,
        "repeats": repeats,
        "rounds": {name: [t * spec.scale for t in ts] for name, ts in times.items()},
    }


# --- W5 in fresh processes -------------------------------------------------------------------

W5_NAMES = ("numpy", "fg_func", "fg_imp", "torch", "autograd")


def _maxrss_bytes() -> int:
    """This process's peak resident set size in bytes.

    On Linux this is `VmHWM` from /proc/self/status: the same high-water mark
    as `ru_maxrss`, but `ru_maxrss` survives `execve`, so a child started by
    this (by then large) script would inherit the parent's peak, and the
    growth from the baseline would read 0.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib if sys.platform == "darwin" else kib * 1024  # macOS: bytes, Linux: KiB


def w5_names() -> tuple[str, ...]:
    """W5's implementations, with funcgrad.jit's (`jit`) when jit_bench provides `w5_run`."""
    module, _ = _optional("jit_bench")
    return (*W5_NAMES, "jit") if hasattr(module, "w5_run") else W5_NAMES


def _w5_impl(name: str, n: int):
    if name == "jit":  # traced when built: the timed call replays the plan
        module, _ = _optional("jit_bench")
        return module.w5_run(n)
    return workloads.w5_impl(name, n)


def w5_child(name: str, n: int) -> int:
    """Run W5 once in this (fresh) process; print one JSON line: seconds, bytes above baseline."""
    _w5_impl(name, 1000)()  # warm-up: lazy imports, caches, first allocations
    run = _w5_impl(name, n)
    gc.collect()
    base = _maxrss_bytes()
    t0 = _perf()
    value, grad = run()
    seconds = _perf() - t0
    peak = _maxrss_bytes()
    print(
        json.dumps(
            {
                "name": name,
                "n": n,
                "seconds": seconds,
                "peak_above_base": peak - base,
                "base": base,
                "value": value,
                "grad": grad,
            }
        )
    )
    return 0


def measure_w5(n: int, rounds: int) -> dict:
    """Run each W5 implementation `rounds` times, each in a fresh process, taking turns."""
    names = [m for m in w5_names() if m not in peers.PEERS or peers.load(m)[0] is not None]
    runs: dict = {m: [] for m in names}
    failures = {}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--w5-child", name, "--w5-n", str(n)],
                capture_output=True,
                text=True,
                env=os.environ.copy(),
            )
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                failures[name] = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                continue
            runs[name].append(json.loads(lines[-1]))
    ref = workloads.w5_reference(n)
    seconds, mem, diffs, best_s, best_mem = {}, {}, {}, {}, {}
    for name, rs in runs.items():
        if not rs:
            continue
        seconds[name] = statistics.median(x["seconds"] for x in rs)
        mem[name] = statistics.median(x["peak_above_base"] for x in rs) / 2**20
        best_s[name] = min(x["seconds"] for x in rs)
        best_mem[name] = min(x["peak_above_base"] for x in rs) / 2**20
        diffs[name] = (
            max(abs(x["grad"] - ref) for x in rs),
            max(abs(x["grad"] - ref) for x in rs) / ref,
        )
    # per round, for the confidence intervals (a failed process leaves its round out)
    per_round = {name: [x["seconds"] for x in rs] for name, rs in runs.items() if rs}
    per_round_mem = {
        name: [x["peak_above_base"] / 2**20 for x in rs] for name, rs in runs.items() if rs
    }
    return {
        "per_round": per_round,
        "per_round_mem": per_round_mem,
        "seconds": seconds,
        "mem": mem,
        "best_seconds": best_s,
        "best_mem": best_mem,
        "diffs": diffs,
        "failures": failures,
        "n": n,
        "rounds": rounds,
    }


# --- each framework in its own process ---------------------------------------------------------

# The peers each implementation's process may import (`peers.load` reads FG_BENCH_PEERS).
PROCESS_PEERS = {"torch": "torch", "autograd": "autograd"}


def impl_child(wid: str, name: str, quick: bool) -> int:
    """In a fresh process: build `wid`, time implementation `name`; print one JSON line.

    The process imports no other framework than the one measured (and
    funcgrad, which the workloads module imports). It warms up, checks the
    first result against the hand-written NumPy one, then times blocks of
    calls (each call timed, a block's figure its median) and reports them.
    """
    spec = {s.wid: s for s in specs()}[wid]
    impls = all_impls(spec)
    if name not in impls:
        print(json.dumps({"error": f"{name} is not available for {wid}"}))
        return 0
    ref = _snapshot(impls["numpy"]())
    blocks = 3 if quick else 5
    times, first = timed_rounds({name: impls[name]}, blocks, spec.inner, per_call=True)
    diff = None if name == "numpy" else max_diff(first[name], ref)
    block_figures = [t * spec.scale for t in times[name]]
    print(json.dumps({"figure": statistics.median(block_figures), "diff": diff}))
    return 0


def measure_processes(spec: Spec, quick: bool, rounds: int | None = None) -> dict:
    """Each implementation in its own fresh process per round, taking turns (rotating order).

    `rounds` processes per implementation (default 5, `--quick` fewer): five
    give bootstrap intervals 0.7-1.55 wide for W6 (session 12), too wide for
    a verdict; `--process-rounds` asks for more.
    """
    names = ["numpy", "fg_func", "fg_imp", "torch", "autograd"]
    names = [m for m in names if m not in peers.PEERS or peers.load(m)[0] is not None]
    if jit_impl(spec.wid) is not None:
        names.append("jit")
    if rounds is None:
        rounds = spec.repeats[1] if quick else 5
    per_round: dict = {m: [] for m in names}
    diffs: dict = {}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            env = os.environ.copy()
            env["FG_BENCH_PEERS"] = PROCESS_PEERS.get(name, "")
            cmd = [sys.executable, os.path.abspath(__file__), "--impl-child", spec.wid, name]
            proc = subprocess.run(
                cmd + (["--quick"] if quick else []), capture_output=True, text=True, env=env
            )
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                why = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                print(f"{spec.wid} {name}: its process failed: {why}", file=sys.stderr)
                continue
            out = json.loads(lines[-1])
            if "figure" in out:
                per_round[name].append(out["figure"])
                if out["diff"] is not None:
                    diffs[name] = tuple(out["diff"])
    per_round = {m: ts for m, ts in per_round.items() if ts}
    return {
        "values": {m: statistics.median(ts) for m, ts in per_round.items()},
        "best": {m: min(ts) for m, ts in per_round.items()},
        "diffs": diffs,
        "impls": {},
        "repeats": rounds,
        "rounds": per_round,
    }


# --- the table -------------------------------------------------------------------------------

ALL_PATHS = ("fg_func", "fg_imp", "jit")


def _absent(peer: str) -> str:
    """What a column says for a peer without a figure: skipped (not installed) or n/a."""
    return "skipped" if peer in peers.PEERS and peers.load(peer)[0] is None else "n/a"


PATH_LABEL["jit"] = "jit"


def table_rows(results: dict, verdict_ok: bool = True) -> tuple[list, list]:
    """The table's rows, and the misses as (wid, path, unit) for the profiler.

    One row per funcgrad path (functional, imperative, jit) and workload:
    its median, the peers' medians, the ratios, the target, the ratio to the
    target's peer with its bootstrap 95% interval over the rounds, and the
    verdict (met, missed, undecided; prefixed "not a verdict" on a busy machine).
    """
    rows, fails = [], []
    for entry in results["rows"]:
        wid, title, unit = entry["wid"], entry["title"], entry["unit"]
        values, rounds = entry["values"], entry["rounds"]
        for path in ALL_PATHS:
            v = values.get(path)
            if v is None and path != "jit":
                continue
            peer, factor = entry["jit_target"] if path == "jit" else entry["target"]
            label = (
                f"≤ {factor:g} × {COLUMN_LABEL[peer]}" if factor != 1 else f"≤ {COLUMN_LABEL[peer]}"
            )
            peer_vals = {c: values.get(c) for c in COLUMNS}
            shown = [fmt(p) if p is not None else _absent(c) for c, p in peer_vals.items()]
            if v is None:  # no jitted version (yet)
                rows.append(
                    [
                        wid,
                        f"{title} ({unit})",
                        "jit",
                        "n/a",
                        *shown,
                        "",
                        "",
                        "",
                        label,
                        "",
                        "n/a",
                        "",
                    ]
                )
                continue
            ratios = [f"{v / p:.2f}x" if p else "" for p in peer_vals.values()]
            ci, res = "", "n/a"
            if path in rounds and peer in rounds:
                r, lo, hi = ratio_ci(rounds[path], rounds[peer])
                ci = f"{r / factor:.2f}x [{lo / factor:.2f}, {hi / factor:.2f}]"
                res = judge(lo, hi, factor)
                if res != "met":
                    fails.append((wid, path, unit))
                if not verdict_ok:
                    res = f"not a verdict ({res})"
            rows.append(
                [
                    wid,
                    f"{title} ({unit})",
                    PATH_LABEL[path],
                    fmt(v),
                    *shown,
                    *ratios,
                    label,
                    ci,
                    res,
                    fmt_diff(entry["diffs"].get(path)),
                ]
            )
    return rows, fails


TABLE_HEADER = [
    "id",
    "workload (unit)",
    "funcgrad path",
    "funcgrad",
    "torch",
    "autograd",
    "NumPy by hand",
    "fg/torch",
    "fg/autograd",
    "fg/NumPy",
    "target",
    "fg/target, 95% CI",
    "result",
    "max abs diff vs NumPy",
]
# The README's table: these columns of TABLE_HEADER, in this order.
README_COLUMNS = (0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 11)


def print_markdown(header: list, rows: list) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda cells: (
        "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"
    )
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def print_readme_table(rows: list) -> None:
    """The table as the README shows it (`--markdown`): no padding, README's columns."""
    pick = lambda r: [r[i] for i in README_COLUMNS]
    print("| " + " | ".join(pick(TABLE_HEADER)) + " |")
    print("|" + "---|" * len(README_COLUMNS))
    for r in rows:
        print("| " + " | ".join(str(c) for c in pick(r)) + " |")


# --- profiles of the failures ------------------------------------------------------------------


def profile_call(label: str, fn, calls: int) -> None:
    print(f"\ncProfile of funcgrad, {label}: {calls} call(s), top 10 by tottime")
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        fn()
    pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(10)
    text = out.getvalue()
    start = text.find("   ncalls")
    print(text[start:].rstrip() if start >= 0 else text.rstrip())


def profile_w5_memory(path: str, n: int) -> None:
    """tracemalloc of W5 in funcgrad: the graph after the forward pass, and the backward's extra."""
    c, d = workloads.W5_MUL, workloads.W5_ADD
    snaps = {}

    def f(x):
        for _ in range(n):
            x = x * c + d
        snaps["graph"] = tracemalloc.take_snapshot()
        snaps["graph_bytes"] = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        return x

    gc.collect()
    tracemalloc.start()
    base_snap = tracemalloc.take_snapshot()
    base = tracemalloc.get_traced_memory()[0]
    if path == "fg_func":
        fg.value_and_grad(f)(1.0)
    else:
        x0 = fg.tensor(1.0, dtype=fg.float64, requires_grad=True)
        f(x0).backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    graph = snaps["graph_bytes"] - base
    print(
        f"\ntracemalloc of funcgrad W5 memory, {PATH_LABEL[path]}, {n:,} steps ({2 * n:,} primitives):"
    )
    print(
        f"  graph after the forward pass: {graph / 2**20:.1f} MiB, {graph / (2 * n):.0f} bytes per primitive"
    )
    print(
        f"  backward's peak above that:   {(peak - snaps['graph_bytes']) / 2**20:.1f} MiB, "
        f"{(peak - snaps['graph_bytes']) / (2 * n):.0f} bytes per primitive"
    )
    print("  top 10 allocation sites of the graph (size, count):")
    ignore = [
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen *>"),
    ]
    graph_snap = snaps["graph"].filter_traces(ignore)
    for stat in graph_snap.compare_to(base_snap.filter_traces(ignore), "lineno")[:10]:
        frame = stat.traceback[0]
        print(
            f"    {stat.size_diff / 2**20:8.1f} MiB {stat.count_diff:>9,}  "
            f"{os.path.relpath(frame.filename, os.path.dirname(_HERE))}:{frame.lineno}"
        )


def profile_failures(fails: list, impls: dict, w5: dict | None) -> None:
    print("\n## Profiles of the funcgrad side of each target not met")
    for wid, path, unit in fails:
        label = f"{wid} {PATH_LABEL[path]}"
        if wid == "W5" and unit == "MiB":
            profile_w5_memory(path, min(w5["n"], 50_000))
        elif wid == "W5":
            n = min(w5["n"], 50_000)
            profile_call(f"{label} ({n:,} steps)", workloads.w5_impl(path, n), 1)
        else:
            fn = impls[wid][path]
            calls = {"W1": 5, "W2": 5, "W3": 200, "W4": 3, "W6": 200}.get(wid, 5)
            profile_call(label, fn, calls)


# --- C and N: kept from the earlier version of this script --------------------------------------


def row(label: str, value: str, note: str = "") -> None:
    print(f"  {label:<46} {value:>14}  {note}")


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
    print(f"C: a chain of {n:,} nodes, y = y * 0.99999, fg.leaf + funcgrad.backward")

    def run_fg():
        x, y = _long_chain(n)
        t0 = _perf()
        g = fg.backward(y)[x]
        return _perf() - t0, y, g

    # Times: medians of whole runs, taking turns with the reference; build and
    # backward are split within each run.
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
    row("gradient equals 0.99999**n", "yes" if ok else "NO")


def bench_node_construction(count: int, repeats: int) -> None:
    print(f"N: making one node ({count:,} nodes per repeat)")
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

    t, _, _ = median_times({"loop": empty_loop, "init": with_init, "make": with_make_node}, repeats)
    t_init = t["init"] - t["loop"]
    t_make = t["make"] - t["loop"]
    row("attrs-generated Node.__init__", f"{t_init / count * 1e9:.0f} ns/node", "reference")
    row(
        "funcgrad.graph.make_node",
        f"{t_make / count * 1e9:.0f} ns/node",
        f"{t_make / t_init:.2f}x reference",
    )


# --- main ------------------------------------------------------------------------------------

ALL = (
    "W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "OPT-SGD", "OPT-ADAM", "W9",
    "CV1", "CV2", "CV3", "C", "N",
)  # fmt: skip
MODES = ("turns", "interleaved", "process")
# Above this 1-minute load a run is not a verdict (at the end, this run's own process adds about 1).
QUIET = 0.5
LEGACY = {"A": ("W1",), "B": ("W4",), "C": ("C", "N")}


def parse_only(values) -> list:
    if not values:
        return list(ALL)
    chosen = set()
    for v in values:
        for item in v.split(","):
            item = item.strip().upper()
            if not item:
                continue
            if item in ALL and item != "C":
                chosen.add(item)
            elif item in LEGACY:
                chosen.update(LEGACY[item])
            else:
                raise SystemExit(
                    f"--only: unknown workload {item!r} (choose from {', '.join(ALL)})"
                )
    return [w for w in ALL if w in chosen]


def _load1() -> float:
    return os.getloadavg()[0]


def _loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return f.read().strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _git_commit() -> str:
    try:
        root = os.path.dirname(_HERE)
        head = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return f"{head}{' + uncommitted changes' if dirty else ''}" if head else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _source_digest() -> str:
    """A short digest of funcgrad's sources, to tell apart runs on uncommitted trees."""
    import hashlib

    h = hashlib.sha1()
    pkg = os.path.dirname(os.path.abspath(fg.__file__))
    for root, dirs, files in os.walk(pkg):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(root, name), "rb") as f:
                    h.update(name.encode() + f.read())
    return h.hexdigest()[:10]


def _blas() -> str:
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas['version']}"
    except Exception:  # noqa: BLE001
        return "unknown BLAS"


def print_header(args, selection) -> None:
    now = datetime.datetime.now().astimezone()
    torch_mod, _ = peers.load("torch")
    torch_threads = (
        f", torch threads {torch_mod.get_num_threads()}" if torch_mod is not None else ""
    )
    print(f"# funcgrad benchmarks, {now:%Y-%m-%d %H:%M %Z}")
    print(f"command: python benchmarks/run.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"funcgrad {fg.__version__} (git {_git_commit()}, sources {_source_digest()}), NumPy {np.__version__} ({_blas()}), "
        f"torch {peers.version('torch')}, autograd {peers.version('autograd')}, "
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in _THREAD_VARS)
    print(
        f"threads: {threads}{torch_threads}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}"
    )
    if _NUMPY_PRELOADED:
        print("warning: NumPy was imported before this script set the thread variables")
    print(f"load average at the start: {_loadavg()} (other processes share the CPUs)")
    print(f"workloads: {', '.join(selection)}{'; --quick' if args.quick else ''}")
    for name in peers.PEERS:
        if peers.load(name)[0] is None:
            print(f"skipped: {name} not installed")
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer rounds, W5 with 25,000 steps in two rounds, C with 100,000 nodes",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="W1,W4",
        help=f"run only these, comma-separated or repeated: {', '.join(ALL)} "
        "(the old sections a, b, c also work)",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="turns",
        help="turns (default): all in this process, a block of calls each per round; "
        "interleaved: the same with every call timed and a round's figure its median; "
        "process: each framework in its own fresh process per round",
    )
    parser.add_argument(
        "--process-rounds",
        type=int,
        default=None,
        metavar="N",
        help="--mode process: N fresh processes per framework and workload (default 5)",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="also print the table in the README's format"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="print a cProfile top-10 (tottime) of funcgrad for each target not met",
    )
    parser.add_argument("--w5-child", metavar="NAME", help=argparse.SUPPRESS)
    parser.add_argument("--w5-n", type=int, default=100_000, help=argparse.SUPPRESS)
    parser.add_argument("--impl-child", nargs=2, metavar=("WID", "NAME"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.w5_child:
        return w5_child(args.w5_child, args.w5_n)
    if args.impl_child:
        return impl_child(args.impl_child[0], args.impl_child[1], args.quick)
    selection = parse_only(args.only)
    t_start = _perf()
    load_start = _load1()
    print_header(args, selection)
    print(f"mode: {args.mode}; the garbage collector on")

    results: dict = {"rows": []}
    impls_by_wid: dict = {}
    details: list = []
    skipped: list = []
    w5 = None
    spec_by_id = {s.wid.upper(): s for s in specs()}
    for wid in selection:
        if wid in spec_by_id:
            spec = spec_by_id[wid]
            print(
                f"measuring {spec.wid} ({'quick' if args.quick else 'full'})...",
                file=sys.stderr,
                flush=True,
            )
            try:
                if args.mode == "process":
                    m = measure_processes(spec, args.quick, args.process_rounds)
                else:
                    m = measure(spec, args.quick, per_call=args.mode == "interleaved")
            except ImportError as e:  # W9 before vmap_bench.py exists
                skipped.append(f"{spec.wid}: n/a ({e})")
                continue
            impls_by_wid[spec.wid] = m["impls"]
            results["rows"].append(
                {
                    "wid": spec.wid,
                    "title": spec.title,
                    "unit": spec.unit,
                    "values": m["values"],
                    "rounds": m["rounds"],
                    "diffs": m["diffs"],
                    "target": spec.target,
                    "jit_target": spec.jit_target,
                    "repeats": m["repeats"],
                    "inner": spec.inner,
                }
            )
            for name, label in DETAIL_LABEL.items():
                if name in m["values"]:
                    v, ref = m["values"][name], m["values"]["numpy"]
                    details.append(
                        [
                            spec.wid,
                            label,
                            f"{fmt(v)} {spec.unit}",
                            f"{v / ref:.2f}x",
                            fmt_diff(m["diffs"].get(name)),
                        ]
                    )
        elif wid == "W5":
            n, rounds = (25_000, 2) if args.quick else (100_000, 3)
            print(
                f"measuring W5 ({rounds} round(s) of fresh processes, {n:,} steps)...",
                file=sys.stderr,
                flush=True,
            )
            w5 = measure_w5(n, rounds)
            title = f"chain of {2 * n:,} scalar ops: {n:,} x (x = x*0.99999 + 0.00001)"
            common = {
                "wid": "W5",
                "diffs": w5["diffs"],
                "target": ("torch", 1.0),
                "repeats": rounds,
                "inner": 1,
            }
            results["rows"].append(
                {
                    **common,
                    "title": title,
                    "unit": "s",
                    "values": w5["seconds"],
                    "rounds": w5["per_round"],
                    "jit_target": ("numpy", 2.0),
                }
            )
            results["rows"].append(
                {
                    **common,
                    "title": "peak memory above the baseline",
                    "unit": "MiB",
                    "values": w5["mem"],
                    "rounds": w5["per_round_mem"],
                    "diffs": {},
                    "jit_target": ("torch", 1.0),
                }
            )

    load_end = _load1()
    quiet = load_start <= QUIET and load_end <= QUIET + 1.0
    rows, fails = table_rows(results, quiet)
    if rows:
        print_markdown(TABLE_HEADER, rows)
        print()
        for entry in results["rows"]:
            inner = f" of {entry['inner']} calls" if entry["inner"] > 1 else ""
            how = {
                "process": "fresh processes (one per framework and round)",
                "interleaved": f"rounds{inner}, each call timed",
            }.get(args.mode, f"rounds{inner}")
            if entry["wid"] == "W5":
                how = "fresh processes (one per framework and round)"
            print(f"{entry['wid']} ({entry['unit']}): median of {entry['repeats']} {how}")
        if w5 is not None:
            print(
                "W5 memory: the growth of the peak RSS (ru_maxrss, read as VmHWM) from after the imports and a 1,000-step warm-up"
            )
            for name, why in w5["failures"].items():
                print(f"W5: {name} failed: {why}")
        print(
            "result: met when the whole bootstrap 95% interval of fg/target (rounds resampled in "
            "pairs) is at or below the target, missed when it is above, else undecided; W7's "
            "moonshot is fg/torch <= 1.0"
        )
        peer_diffs = [
            f"{e['wid']} {c} {fmt_diff(e['diffs'][c])}"
            for e in results["rows"]
            for c in ("torch", "autograd")
            if c in e["diffs"]
        ]
        print(f"peers' max abs diff vs NumPy: {'; '.join(peer_diffs) or 'no peers'}")
        counts = {
            k: sum(r[12].endswith(k) or r[12].endswith(k + ")") for r in rows)
            for k in ("met", "missed", "undecided")
        }
        print(
            f"targets: {counts['met']} met, {counts['missed']} missed, {counts['undecided']} undecided of {len(rows)} rows"
        )
    for line in skipped:
        print(line)
    if details:
        print("\n## Details (funcgrad / hand-written NumPy)")
        print_markdown(["id", "measurement", "time", "vs NumPy", "max abs diff vs NumPy"], details)
    if "C" in selection:
        print()
        bench_long_chain(100_000 if args.quick else 1_000_000, repeats=1 if args.quick else 3)
    if "N" in selection:
        print()
        bench_node_construction(100_000 if args.quick else 200_000, repeats=5 if args.quick else 9)
    if args.profile and fails:
        profile_failures(
            [f for f in fails if f[1] != "jit" and (f[0] == "W5" or impls_by_wid.get(f[0]))],
            impls_by_wid,
            w5,
        )
    print(
        f"\nload average (1 min): {load_start:.2f} at the start, {load_end:.2f} at the end (this run adds about 1); took {_perf() - t_start:.0f} s"
    )
    if not quiet:
        print(
            f"not a verdict: the machine was busy (1-minute load above {QUIET} at the start, or above {QUIET + 1.0:g} at the end)"
        )
    if args.markdown and rows:
        now = datetime.datetime.now().astimezone()
        print(
            f"\n## README table ({now:%Y-%m-%d %H:%M %Z}, git {_git_commit()}, mode {args.mode}, load {load_start:.2f} -> {load_end:.2f}{'' if quiet else ', not a verdict'})\n"
        )
        print_readme_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
