"""Old main against new main on W1-W6: is there a slowdown? (issue 11, "no slowdown on W1-W6").

    python benchmarks/compare.py                   # e3cdb71 vs this working tree, 3 to 5 minutes
    python benchmarks/compare.py --quick           # fewer rounds and calls, W5 smaller: about 1 minute
    python benchmarks/compare.py --instructions    # and instruction counts under callgrind (+2 to 4 min)
    python benchmarks/compare.py --old REV --new REV --only W3,W6 --rounds 15
    python benchmarks/compare.py --quick --json raw.json   # the per-round figures as JSON too
    python benchmarks/compare.py --old REV --only W8,OPT-SGD,OPT-ADAM --instructions  # training, optimizer

The OLD tree is a git worktree of `--old` (default e3cdb71, main before issue
11's refactor) made in the temp folder (`fg-compare-<sha>`; reused when it is
there, removed at the end when this run made it, unless `--keep`). The NEW tree
is the checkout this script lives in, uncommitted changes included, or a
worktree of `--new REV`. Both run the same workloads: `workloads.py` beside
this script (W1-W4, W6 through `build_*`, W5 through `w5_impl`; on request
W7 and W8, the training steps, and OPT-SGD/OPT-ADAM, `optimizer.step()`
alone, which has only the imperative path), which use only
public names (`funcgrad.value_and_grad`, `hvp`, `funcgrad.numpy`, `tensor`,
`Tensor.backward`, `funcgrad.autograd.grad`, ...), present in both trees. The
children replace the module `peers` by a stub that reports PyTorch and HIPS
autograd missing, so no peer is imported or built; nothing else is shimmed.

Timing. Every measurement is a fresh child process (this script with
`--child`), `PYTHONPATH=<tree>`, one thread (`OMP_NUM_THREADS`,
`OPENBLAS_NUM_THREADS`, `MKL_NUM_THREADS` = 1), the garbage collector on.
For each round and workload one child runs the old tree and one the new, the
order swapping from round to round (old/new, new/old, ...). A child builds the
workload, warms each path up, then times the functional path (`fg_func`) and
the imperative path (`fg_imp`) taking turns, in blocks of a fixed number of
calls, and reports the median time per call. The table gives, per workload and
path, the median over rounds of those child medians, old and new; the ratio
new/old as the median of the per-round ratios (each round's old and new ran
back to back), and the min-max of the per-round ratios as the spread. The
target is a ratio <= 1.03. Each child also checks its results against the
hand-written NumPy ones (W5: the analytic gradient) and the worst relative
difference is printed per tree.

The load. `/proc/loadavg` is printed before anything runs and at the end, and
`/proc/stat` gives the CPU time the whole machine used during the timed rounds,
from which this run's own children (their rusage) are subtracted: the average
number of cores other processes kept busy. A run is marked "not a verdict:
machine busy" when the 1-minute load before exceeds 0.5, or other processes
used more than 0.5 cores on average (at the end the 1-minute load includes
this run's own child, about 1.0, so it is printed, not judged).

Instructions (`--instructions`). `perf stat -e instructions` is not available
on every machine (in containers the counter is often "not supported"), so the
counts come from callgrind: one child per tree runs under
`valgrind --tool=callgrind --collect-atstart=no`, and a small C helper
(compiled here with `cc` against `valgrind/callgrind.h`, loaded with ctypes)
switches collection on around a fixed number of calls of each workload and path
after its warm-up, then dumps the count under that label. The figures are
instructions per call (the interpreter, NumPy and BLAS included; importing and
building excluded), with `PYTHONHASHSEED=0`, counted from a `gc.collect()` (so
that whether a full collection of the whole heap falls into the few counted
calls depends on the workload, not on what ran before); they do not depend on the load. The
two trees run side by side. W5 runs 10,000 steps there (100,000 when timed), and
W4 runs at 1/8 of each dimension (64x128x128x32, the code of `build_matmul`
repeated in `_w4_small`): at full size valgrind needs about 75 s of CPU per
float32 matmul call, and the count would be the BLAS kernels' alone.

If a tree fails to import or to run a workload (other work in flight), the
script waits and retries (`--wait` seconds in all, default 600). If the new
tree's sources change during the run, the report says so.
"""

from __future__ import annotations

import os
import sys

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
if __name__ == "__main__":
    for _var in _THREAD_VARS:  # before NumPy loads OpenBLAS, in the children too
        os.environ[_var] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
DEFAULT_OLD = "e3cdb71"
PATHS = ("fg_func", "fg_imp")
TARGET = 1.03
ALL = ("W1", "W2", "W3", "W4", "W5", "W6")
# Measured only when named in --only: the training steps and the optimizer step alone.
EXTRA = ("W7", "W8", "OPT-SGD", "OPT-ADAM")
TITLES = {
    "W1": "2,000-op elementwise chain, (16,) f64",
    "W2": "2,000-op elementwise chain, 0-d f64",
    "W3": "MLP 64-128-10, softmax CE, batch 64, f64",
    "W4": "sum(tanh(X @ W1) @ W2), 512x1024x1024x256, f32",
    "W5": "scalar chain x = x*c + d",
    "W6": "Hessian-vector product, A 256x256 f64",
    "W7": "LeNet SGD training step, batch 64, f32",
    "W8": "MLP 784-256-128-10 Adam training step, batch 128, f32",
    "OPT-SGD": "SGD (momentum) step alone, 16 tensors of W7 and W8",
    "OPT-ADAM": "Adam step alone, 16 tensors of W7 and W8",
}
# Timing per child: (blocks, calls per block); full and --quick. W5: its steps.
CALLS = {
    "W1": ((5, 2), (3, 2)),
    "W2": ((5, 2), (3, 2)),
    "W3": ((9, 30), (5, 20)),
    "W4": ((3, 1), (2, 1)),
    "W5": ((1, 1), (1, 1)),
    "W6": ((9, 30), (5, 20)),
    "W7": ((5, 3), (3, 2)),
    "W8": ((5, 5), (3, 3)),
    "OPT-SGD": ((5, 10), (3, 5)),
    "OPT-ADAM": ((5, 10), (3, 5)),
}
W5_STEPS = (100_000, 25_000)
ROUNDS = (9, 3)
# Under callgrind: calls per workload and path (after one warm-up call), W5 steps.
INSTR_CALLS = {"W1": 2, "W2": 2, "W3": 20, "W4": 20, "W5": 1, "W6": 20}
INSTR_CALLS.update({"W7": 1, "W8": 3, "OPT-SGD": 5, "OPT-ADAM": 5})
INSTR_W5_STEPS = 10_000
UNITS = {"W1": ("ms", 1e3), "W2": ("ms", 1e3), "W3": ("ms", 1e3), "W4": ("ms", 1e3)}
UNITS.update({"W5": ("s", 1.0), "W6": ("ms", 1e3)})
UNITS.update({w: ("ms", 1e3) for w in EXTRA})


def paths_of(wid: str) -> tuple:
    """The funcgrad paths of a workload: the optimizer step has no functional one."""
    return ("fg_imp",) if wid.startswith("OPT") else PATHS


_CG_HELPER = r"""
#include <valgrind/callgrind.h>
void fg_cg_start(void) {
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
}
void fg_cg_stop(const char *label) {
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(label);
    CALLGRIND_STOP_INSTRUMENTATION;
}
"""


# --- the children ------------------------------------------------------------------------------


def _load_workloads(tree: str):
    """Import funcgrad from `tree` and this folder's workloads.py, with `peers` stubbed out."""
    stub = types.ModuleType("peers")
    stub.PEERS = ()
    stub.load = lambda name: (None, f"{name}: not loaded by compare.py")
    stub.version = lambda name: "absent"
    sys.modules["peers"] = stub
    if _HERE not in sys.path:
        sys.path.append(_HERE)
    import funcgrad

    where = os.path.realpath(funcgrad.__file__)
    if not where.startswith(os.path.realpath(tree) + os.sep):
        raise SystemExit(f"funcgrad imported from {where}, not from {tree}")
    import workloads

    return workloads


def _w4_small() -> dict:
    """W4's two funcgrad paths as in `workloads.build_matmul`, every dimension divided by 8."""
    import numpy as np

    import funcgrad as fg
    import funcgrad.numpy as fnp

    rng = np.random.default_rng(1)
    X = fg.freeze(rng.standard_normal((64, 128), dtype=np.float32) / 32)
    W1 = fg.freeze(rng.standard_normal((128, 128), dtype=np.float32) / 32)
    W2 = fg.freeze(rng.standard_normal((128, 32), dtype=np.float32) / 32)
    vg = fg.value_and_grad(
        lambda w1, w2: fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2)), argnums=(0, 1)
    )
    fX, fW1, fW2 = (
        fg.from_numpy(X),
        fg.tensor(W1, requires_grad=True),
        fg.tensor(W2, requires_grad=True),
    )

    def fg_func():
        value, (g1, g2) = vg(W1, W2)
        return value, g1, g2

    def fg_imp():
        fW1.grad = None
        fW2.grad = None
        y = (fg.tanh(fX @ fW1) @ fW2).sum()
        y.backward()
        return y.item(), fW1.grad.numpy(), fW2.grad.numpy()

    return {"fg_func": fg_func, "fg_imp": fg_imp, "warm": {"fg_func": fg_func, "fg_imp": fg_imp}}


def _impls(workloads, wid: str, w5_steps: int) -> dict:
    """The two funcgrad paths of `wid` and a reference: {'fg_func', 'fg_imp', 'ref'}."""
    import numpy as np

    if wid == "W5":
        impls = {p: workloads.w5_impl(p, w5_steps) for p in PATHS}
        grad = workloads.w5_reference(w5_steps)
        impls["ref"] = lambda: (None, grad)  # the value is not checked
        impls["warm"] = {p: workloads.w5_impl(p, 1000) for p in PATHS}
        return impls
    if wid in ("W1", "W2"):
        x0 = np.random.default_rng(0).uniform(-1.0, 1.0, 16) if wid == "W1" else np.asarray(0.3)
        built = workloads.build_chain(x0, with_details=False)
    elif wid == "W3":
        built = workloads.build_mlp()
    elif wid == "W4":
        built = workloads.build_matmul(with_details=False)
    elif wid == "W6":
        built = workloads.build_hvp()
    elif wid == "W7":
        built = workloads.build_lenet()
    elif wid == "W8":
        built = workloads.build_adam_mlp()
    else:  # the first step's parameters, the same in every implementation
        built = workloads.build_optimizer_step(wid.split("-")[1].lower())
    impls = {p: built[p] for p in paths_of(wid)}
    impls["ref"] = built["numpy"]
    impls["warm"] = dict(impls)
    return impls


def _rel_diff(got, ref) -> float:
    import numpy as np

    worst, scale = 0.0, 0.0
    for a, b in zip(got, ref, strict=True):
        if b is None:
            continue
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        worst = max(worst, float(np.max(np.abs(a - b))))
        scale = max(scale, float(np.max(np.abs(b))))
    return worst / scale if scale else worst


def child_time(tree: str, wid: str, quick: bool) -> dict:
    """Time both paths of `wid` in this fresh process; return medians per call and checks."""
    import gc

    workloads = _load_workloads(tree)
    blocks, inner = CALLS[wid][1 if quick else 0]
    impls = _impls(workloads, wid, W5_STEPS[1 if quick else 0])
    ref = impls["ref"]()
    out: dict = {"time": {}, "check": {}}
    paths = paths_of(wid)
    for p in paths:
        got = impls["warm"][p]()
        if wid != "W5":
            out["check"][p] = _rel_diff(got, ref)
            for _ in range(2 if inner > 1 else 0):
                impls[p]()
    times: dict = {p: [] for p in paths}
    gc.collect()
    for b in range(blocks):
        for p in paths[b % 2 :] + paths[: b % 2]:
            fn = impls[p]
            t0 = time.perf_counter()
            for _ in range(inner):
                res = fn()
            times[p].append((time.perf_counter() - t0) / inner)
            if wid == "W5":
                out["check"][p] = _rel_diff(res, ref)
    out["time"] = {p: statistics.median(ts) for p, ts in times.items()}
    return out


def child_instructions(tree: str, helper: str, selection: list) -> int:
    """Under callgrind: collect a fixed number of calls of each workload and path, one dump each."""
    import ctypes

    lib = ctypes.CDLL(helper)
    lib.fg_cg_stop.argtypes = [ctypes.c_char_p]
    workloads = _load_workloads(tree)
    for wid in selection:
        impls = _w4_small() if wid == "W4" else _impls(workloads, wid, INSTR_W5_STEPS)
        for p in paths_of(wid):
            impls["warm"][p]()
            if wid == "W5":
                impls[p]()  # a first full-size call: the heap grows once, outside the count
            fn, n = impls[p], INSTR_CALLS[wid]
            # NOTE: a full collection of the cyclic GC costs in proportion to the whole heap
            # (SciPy imported by funcgrad made W1 imperative read 1.14x, issue 18). Counting
            # from a collection makes the window's collections the workload's own, in both trees.
            gc.collect()
            lib.fg_cg_start()
            for _ in range(n):
                fn()
            lib.fg_cg_stop(f"{wid} {p} {n}".encode())
    return 0


# --- trees -----------------------------------------------------------------------------------


def _git(*args, cwd=_ROOT, check=True) -> str:
    r = subprocess.run(["git", "-C", cwd, *args], capture_output=True, text=True, timeout=120)
    if check and r.returncode:
        raise SystemExit(f"git {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout.strip()


class Tree:
    """A funcgrad tree to measure: this checkout, or a worktree of a commit."""

    def __init__(self, label: str, rev: str | None, keep: bool):
        self.label, self.made, self.keep = label, False, keep
        if rev is None:
            self.path = _ROOT
            head = _git("rev-parse", "--short", "HEAD")
            dirty = _git("status", "--porcelain", "--untracked-files=no", "--", "funcgrad")
            self.desc = (
                f"working tree {_ROOT} (HEAD {head}{', funcgrad/ modified' if dirty else ''})"
            )
            return
        sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
        subject = _git("log", "-1", "--format=%s", sha)
        self.path = os.path.join(tempfile.gettempdir(), f"fg-compare-{sha[:10]}")
        self.desc = f"{sha[:7]} {subject[:60]} (worktree {self.path})"
        if os.path.isdir(self.path):
            have = _git("rev-parse", "HEAD", cwd=self.path, check=False)
            if have != sha:
                raise SystemExit(f"{self.path} exists but is not at {sha[:10]}: remove it")
            return
        _git("worktree", "add", "--detach", self.path, sha)
        self.made = True

    def remove(self) -> None:
        if self.made and not self.keep:
            _git("worktree", "remove", "--force", self.path, check=False)
            if os.path.isdir(self.path):
                shutil.rmtree(self.path, ignore_errors=True)
            _git("worktree", "prune", check=False)

    def digest(self) -> str:
        h = hashlib.sha1()
        for root, dirs, files in os.walk(os.path.join(self.path, "funcgrad")):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    with open(os.path.join(root, name), "rb") as f:
                        h.update(os.path.join(root, name).encode() + f.read())
        return h.hexdigest()[:10]

    def env(self) -> dict:
        env = dict(os.environ)
        env["PYTHONPATH"] = self.path
        for var in _THREAD_VARS:
            env[var] = "1"
        return env


def run_child(tree: Tree, args: list, deadline: float, prefix: list | None = None) -> dict:
    """Run this script as a child for `tree`; on failure wait and retry until `deadline`."""
    cmd = [*(prefix or []), sys.executable, os.path.abspath(__file__), "--tree", tree.path, *args]
    while True:
        r = subprocess.run(
            cmd, capture_output=True, text=True, env=tree.env(), cwd=tempfile.gettempdir()
        )
        if r.returncode == 0:
            lines = r.stdout.strip().splitlines()
            return json.loads(lines[-1]) if lines else {}
        tail = (r.stderr.strip().splitlines() or ["(no output)"])[-1]
        if time.time() > deadline:
            raise SystemExit(f"{tree.label} tree still fails ({' '.join(args)}): {tail}")
        print(f"  {tree.label} tree failed ({tail}); retrying in 20 s", file=sys.stderr, flush=True)
        time.sleep(20)


# --- the load ----------------------------------------------------------------------------------


def loadavg() -> tuple[float, str]:
    try:
        with open("/proc/loadavg") as f:
            text = f.read().strip()
        return float(text.split()[0]), text
    except OSError:
        one = os.getloadavg()[0]
        return one, f"{one:.2f}"


def cpu_busy_seconds() -> float | None:
    """CPU seconds the whole machine spent busy since boot (all cores), from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    return busy / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# --- the report --------------------------------------------------------------------------------


def fmt(v: float) -> str:
    return (
        f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 1 else f"{v:.3f}"
    )


def fmt_count(n: float) -> str:
    return f"{n / 1e9:.3f} G" if n >= 1e9 else f"{n / 1e6:.2f} M" if n >= 1e6 else f"{n:,.0f}"


def timing_table(selection, results, quick: bool, verdict: bool) -> list:
    print("| workload | path | old | new | new/old | per-round min-max | <= 1.03 |")
    print("|---|---|---|---|---|---|---|")
    over = []
    for wid in selection:
        unit, scale = UNITS[wid]
        for p in paths_of(wid):
            old = [r["old"][wid]["time"][p] for r in results]
            new = [r["new"][wid]["time"][p] for r in results]
            ratios = [n / o for n, o in zip(new, old, strict=True)]
            ratio = statistics.median(ratios)
            ok = "yes" if ratio <= TARGET else "NO"
            if ratio > TARGET:
                over.append(f"{wid} {p}")
            if not verdict:
                ok += " (busy)"
            print(
                f"| {wid} | {p} | {fmt(statistics.median(old) * scale)} {unit} | "
                f"{fmt(statistics.median(new) * scale)} {unit} | {ratio:.3f} | "
                f"{min(ratios):.3f}-{max(ratios):.3f} | {ok} |"
            )
    steps = W5_STEPS[1 if quick else 0]
    if "W5" in selection:
        print(f"\nW5: {steps:,} steps ({2 * steps:,} primitives), one call per path per child.")
    return over


def parse_callgrind(folder: str) -> dict:
    """{(wid, path): instructions per call} from the dumps callgrind wrote into `folder`."""
    counts: dict = {}
    for name in os.listdir(folder):
        label, total = None, None
        with open(os.path.join(folder, name), errors="replace") as f:
            for line in f:
                if line.startswith("desc: Trigger: Client Request: "):
                    label = line.split(": ", 3)[3].strip()
                elif line.startswith(("summary:", "totals:")):
                    total = int(line.split()[1])
        if label and total is not None:
            wid, p, n = label.split()
            counts[(wid, p)] = total / int(n)
    return counts


def build_helper(folder: str) -> tuple[str | None, str]:
    """Compile the callgrind switch into `folder`; return (path, '') or (None, why)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if shutil.which("valgrind") is None:
        return None, "valgrind not found"
    if cc is None:
        return None, "no C compiler (cc) to build the callgrind switch"
    src, lib = os.path.join(folder, "fgcg.c"), os.path.join(folder, "fgcg.so")
    with open(src, "w") as f:
        f.write(_CG_HELPER)
    r = subprocess.run(
        [cc, "-O1", "-shared", "-fPIC", "-o", lib, src], capture_output=True, text=True
    )
    if r.returncode:
        return None, f"cannot build the callgrind switch: {r.stderr.strip()[-200:]}"
    return lib, ""


def measure_instructions(trees: dict, selection: list, deadline: float) -> dict | None:
    folder = tempfile.mkdtemp(prefix="fg-compare-cg-")
    try:
        helper, why = build_helper(folder)
        if helper is None:
            print(f"instructions: skipped ({why})")
            return None
        procs = {}
        for side, tree in trees.items():
            out = os.path.join(folder, side)
            os.mkdir(out)
            cmd = [
                "valgrind", "--tool=callgrind", "-q", "--instr-atstart=no", "--collect-atstart=no",
                f"--callgrind-out-file={os.path.join(out, 'cg.%p')}",
                sys.executable, os.path.abspath(__file__), "--tree", tree.path,
                "--child-instructions", helper, "--only", ",".join(selection),
            ]  # fmt: skip
            env = tree.env()
            env["PYTHONHASHSEED"] = "0"
            procs[side] = subprocess.Popen(
                cmd, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
        counts = {}
        for side, proc in procs.items():
            _, err = proc.communicate()
            if proc.returncode:
                tail = (err.strip().splitlines() or ["(no output)"])[-1]
                print(f"instructions: the {side} tree failed under callgrind: {tail}")
                return None
            counts[side] = parse_callgrind(os.path.join(folder, side))
        return counts
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def instruction_table(selection, counts) -> list:
    print("| workload | path | calls | old instr/call | new instr/call | new/old |")
    print("|---|---|---|---|---|---|")
    over = []
    for wid in selection:
        for p in paths_of(wid):
            old, new = counts["old"].get((wid, p)), counts["new"].get((wid, p))
            if old is None or new is None:
                print(f"| {wid} | {p} | | missing | missing | |")
                continue
            ratio = new / old
            if ratio > TARGET:
                over.append(f"{wid} {p} ({ratio:.3f})")
            print(
                f"| {wid} | {p} | {INSTR_CALLS[wid]} | {fmt_count(old)} | {fmt_count(new)} | "
                f"{ratio:.3f}{' over' if ratio > TARGET else ''} |"
            )
    if "W5" in selection:
        print(f"\nW5 under callgrind: {INSTR_W5_STEPS:,} steps.")
    if "W4" in selection:
        print("W4 under callgrind: 1/8 of each dimension, 64x128x128x32 (see the docstring).")
    return over


# --- main --------------------------------------------------------------------------------------


def parse_only(values) -> list:
    chosen = set()
    for value in values or [",".join(ALL)]:
        for item in value.split(","):
            item = item.strip().upper()
            if item not in ALL + EXTRA:
                raise SystemExit(
                    f"--only: unknown workload {item!r} (choose from {', '.join(ALL + EXTRA)})"
                )
            chosen.add(item)
    return [w for w in ALL + EXTRA if w in chosen]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default=DEFAULT_OLD, help=f"old commit (default {DEFAULT_OLD})")
    parser.add_argument("--new", default=None, help="new commit (default: this working tree)")
    parser.add_argument(
        "--quick", action="store_true", help="3 rounds, fewer calls, W5 25,000 steps"
    )
    parser.add_argument("--rounds", type=int, default=None, help="rounds (default 9, --quick 3)")
    parser.add_argument(
        "--only",
        action="append",
        metavar="W1,W3",
        help="a selection of W1-W6 (default all six), W7, W8, OPT-SGD, OPT-ADAM",
    )
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions (callgrind)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the worktrees this run makes")
    parser.add_argument(
        "--wait", type=float, default=600, help="seconds to wait for a failing tree"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures to FILE")
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--child", metavar="WID", help=argparse.SUPPRESS)
    parser.add_argument("--child-instructions", metavar="HELPER", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    selection = parse_only(args.only)
    if args.child:
        print(json.dumps(child_time(args.tree, args.child, args.quick)))
        return 0
    if args.child_instructions:
        return child_instructions(args.tree, args.child_instructions, selection)

    load0, load0_text = loadavg()
    rounds = args.rounds or ROUNDS[1 if args.quick else 0]
    now = datetime.datetime.now().astimezone()
    print(f"# funcgrad: old main vs new main, {now:%Y-%m-%d %H:%M %Z}")
    print(f"command: python benchmarks/compare.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"load average before: {load0_text} ({os.cpu_count()} CPUs)")
    trees: dict = {}
    try:
        trees["old"] = Tree("old", args.old, args.keep)
        trees["new"] = Tree("new", args.new, args.keep)
        for side, tree in trees.items():
            print(f"{side}: {tree.desc}")
        print(
            f"python {sys.executable} ({sys.version.split()[0]}); one thread; "
            f"{rounds} rounds{', --quick' if args.quick else ''}; workloads {', '.join(selection)}"
        )
        deadline = time.time() + args.wait
        digest0 = trees["new"].digest()
        print("smoke test of both trees...", file=sys.stderr, flush=True)
        for tree in trees.values():
            run_child(tree, ["--child", "W6", "--quick"], deadline)

        t0, busy0, own0 = time.time(), cpu_busy_seconds(), children_cpu_seconds()
        results = []
        for r in range(rounds):
            print(f"round {r + 1}/{rounds}...", file=sys.stderr, flush=True)
            res: dict = {"old": {}, "new": {}}
            for i, wid in enumerate(selection):
                order = ("old", "new") if (r + i) % 2 == 0 else ("new", "old")
                for side in order:
                    child = ["--child", wid] + (["--quick"] if args.quick else [])
                    res[side][wid] = run_child(trees[side], child, deadline)
            results.append(res)
        elapsed = time.time() - t0
        busy1, own1 = cpu_busy_seconds(), children_cpu_seconds()
        others = None
        if busy0 is not None and busy1 is not None:
            others = max(0.0, ((busy1 - busy0) - (own1 - own0)) / elapsed)
        load1, load1_text = loadavg()
        busy_reasons = []
        if load0 > 0.5:
            busy_reasons.append(f"1-minute load {load0:.2f} > 0.5 before")
        if others is not None and others > 0.5:
            busy_reasons.append(f"other processes used {others:.2f} cores on average")
        verdict = not busy_reasons
        raw = {
            "old": trees["old"].desc,
            "new": trees["new"].desc,
            "loadavg_before": load0_text,
            "loadavg_after": load1_text,
            "other_cores": others,
            "rounds": results,
        }

        print(f"\n## Time ({rounds} rounds, {elapsed:.0f} s), fresh process per measurement\n")
        over = timing_table(selection, results, args.quick, verdict)
        worst = {
            side: max(
                res[side][w]["check"][p] for res in results for w in selection for p in paths_of(w)
            )
            for side in trees
        }
        print(
            f"results vs NumPy (max relative difference): old {worst['old']:.1e}, "
            f"new {worst['new']:.1e}"
        )
        print(f"\nload average after: {load1_text} (includes this run's child, about 1.0)")
        if others is not None:
            print(f"other processes during the timed rounds: {others:.2f} cores on average")
        if verdict:
            print(f"timing: quiet machine; over {TARGET}: {', '.join(over) or 'none'}")
        else:
            print(f"timing: not a verdict: machine busy ({'; '.join(busy_reasons)})")

        if args.instructions:
            print(
                "\ncounting instructions under callgrind (old and new side by side)...",
                file=sys.stderr,
                flush=True,
            )
            t1 = time.time()
            counts = measure_instructions(trees, selection, deadline)
            if counts is not None:
                raw["instructions_per_call"] = {
                    side: {f"{w} {p}": n for (w, p), n in c.items()} for side, c in counts.items()
                }
                print(f"\n## Instructions per call (callgrind, {time.time() - t1:.0f} s)\n")
                over_i = instruction_table(selection, counts)
                print(f"instructions over {TARGET}: {', '.join(over_i) or 'none'}")
        if trees["new"].digest() != digest0:
            print("\nwarning: the new tree's funcgrad sources changed during this run")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(raw, f, indent=1)
    finally:
        for tree in trees.values():
            tree.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
