"""Data-parallel training across processes: funcgrad's DDP (MPI) beside PyTorch's (gloo).

The W8 MLP (784-256-128-10, float32, Adam, cross-entropy) with a fixed
per-rank batch of 128 (weak scaling), on 1, 2 (and, with --procs 3, 3)
processes started with `mpiexec`. For each it reports the median time per
training step, the scaling efficiency t(1) / t(n), and for funcgrad the
communication: the time of a blocking all-reduce of all the gradients
alone, how long the backward pass waited for the buckets after its walk,
and the share of the communication hidden behind the walk
(1 - wait / communication). Each process uses one thread
(OMP_NUM_THREADS=1), so n processes want n free cores: on a loaded
machine the figures are "under load", and oversubscribed runs say so.

Runs alternate funcgrad and PyTorch. With --paired, each run has both
in the same processes, their steps alternating, and reports the median of
the per-step ratios funcgrad / PyTorch: the comparison that a loaded
machine disturbs least.

    python benchmarks/distributed.py [--procs 2] [--steps 40] [--repeat 2] [--paired]
                                     [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BATCH, SIZES = 128, (784, 256, 128, 10)
WARMUP = 5


def _data(rank: int, steps: int):
    import numpy as np

    rng = np.random.default_rng(rank)
    x = rng.normal(size=(steps, BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=(steps, BATCH))
    return x, y


def _funcgrad_step(rank: int, steps: int):
    """funcgrad's DDP model and one training step of it (for step s)."""
    import funcgrad as fg
    import funcgrad.distributed as dist
    from funcgrad import nn

    if not dist.is_initialized():
        dist.init_process_group("mpi", timeout=120)
    layers = []
    for a, b in zip(SIZES[:-1], SIZES[1:], strict=False):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.parallel.DistributedDataParallel(nn.Sequential(*layers[:-1]))
    opt = fg.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _data(rank, steps + WARMUP)

    def step(s: int) -> None:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(fg.tensor(x[s])), fg.tensor(y[s]))
        loss.backward()
        opt.step()

    return model, step


def _torch_step(rank: int, steps: int):
    """PyTorch's DDP (gloo) model and one training step of it (for step s)."""
    import torch
    import torch.distributed as tdist

    torch.set_num_threads(1)
    if not tdist.is_initialized():
        tdist.init_process_group("gloo")
    layers: list = []
    for a, b in zip(SIZES[:-1], SIZES[1:], strict=False):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*layers[:-1]))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _data(rank, steps + WARMUP)

    def step(s: int) -> None:
        opt.zero_grad()
        out = model(torch.from_numpy(x[s]))
        torch.nn.functional.cross_entropy(out, torch.from_numpy(y[s])).backward()
        opt.step()

    return step


def _comm_ms(model: Any, steps: int) -> float:
    """A blocking all-reduce of the buckets alone, as they are (MPI itself: no checks)."""
    from mpi4py import MPI

    bufs = [b.buf.copy() for b in model._buckets]
    comm = []
    for _ in range(steps):
        MPI.COMM_WORLD.Barrier()
        start = time.perf_counter()
        for buf in bufs:
            MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, buf)
        comm.append(time.perf_counter() - start)
    return 1e3 * statistics.median(comm)


def worker(kind: str, steps: int) -> None:
    """One rank of a run: train, then rank 0 prints its figures as one JSON line.

    `kind` "paired": funcgrad's and PyTorch's steps alternate in the same
    processes, so that both see the machine's load of the same moment; the
    ratio is the median of the per-step ratios.
    """
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    steppers: dict[str, Any] = {}
    model = None
    if kind in ("funcgrad", "paired"):
        model, steppers["funcgrad"] = _funcgrad_step(rank, steps)
    if kind in ("torch", "paired"):
        steppers["torch"] = _torch_step(rank, steps)
    times: dict[str, list[float]] = {k: [] for k in steppers}
    waits = []
    for s in range(steps + WARMUP):
        for name, step in steppers.items():
            world.Barrier()
            start = time.perf_counter()
            step(s)
            if s >= WARMUP:
                times[name].append(time.perf_counter() - start)
                if name == "funcgrad":
                    waits.append(model.comm_stats["wait"])
    result: dict[str, Any] = {k: {"step_ms": 1e3 * statistics.median(v)} for k, v in times.items()}
    if model is not None:
        comm = _comm_ms(model, steps) if size > 1 else 0.0
        wait = 1e3 * statistics.median(waits) if size > 1 else 0.0
        result["funcgrad"].update(
            comm_ms=comm,
            wait_ms=wait,
            buckets=len(model._buckets),
            hidden=max(0.0, 1 - wait / comm) if comm else None,
        )
    if kind == "paired":
        ratios = [a / b for a, b in zip(times["funcgrad"], times["torch"], strict=True)]
        result["ratio"] = statistics.median(ratios)
    if rank == 0:
        print("RESULT " + json.dumps(result if kind == "paired" else result[kind]), flush=True)


def _launch(kind: str, n: int, steps: int) -> dict | None:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    env["PYTHONPATH"] = str(ROOT)
    if kind != "funcgrad":  # gloo's rendezvous, from MPICH's rank variables
        env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29500 + n))
        command = ["sh", "-c", 'RANK=$PMI_RANK WORLD_SIZE=$PMI_SIZE exec "$@"', "sh"]
    else:
        command = []
    mpiexec = shutil.which("mpiexec")
    assert mpiexec is not None, "mpiexec is not on PATH (pip install funcgrad[mpi])"
    args = [mpiexec, "-n", str(n), *command, sys.executable, __file__, "--worker", kind]
    done = subprocess.run(
        [*args, "--steps", str(steps)], env=env, capture_output=True, text=True, timeout=600
    )
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    print(f"{kind} on {n} processes failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return None


def main() -> None:
    """Run every configuration and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--procs", type=int, default=2, help="largest number of processes")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each; the best is kept")
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--paired",
        action="store_true",
        help="funcgrad's and PyTorch's steps alternate in the same processes (needs PyTorch)",
    )
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.worker:
        worker(ns.worker, ns.steps)
        return
    try:
        import torch  # noqa: F401

        kinds = ["funcgrad", "torch"]
    except ImportError:
        kinds = ["funcgrad"]
        print("PyTorch is not installed: its DDP (gloo) is skipped")
    cores = os.cpu_count() or 1
    if ns.paired:
        _main_paired(ns, cores)
        return
    results: dict = {k: {} for k in kinds}
    loads = [os.getloadavg()[0]]
    for run in range(ns.repeat):
        for n in range(1, ns.procs + 1):
            for kind in kinds:  # interleaved, so that a change in the machine's load hits both
                r = _launch(kind, n, ns.steps)
                loads.append(os.getloadavg()[0])
                got = "failed" if r is None else f"{r['step_ms']:.2f} ms/step"
                print(f"run {run + 1}: {kind} on {n}: {got} (load {loads[-1]:.2f})", flush=True)
                best = results[kind].get(n)
                if best is None or (r is not None and r["step_ms"] < best["step_ms"]):
                    results[kind][n] = r
    quiet = max(loads) < 0.5
    print(
        f"W8 MLP {'-'.join(map(str, SIZES))}, float32, Adam, per-rank batch {BATCH}, "
        f"{ns.steps} steps; {cores} cores; load average {min(loads):.2f} to {max(loads):.2f}"
        f"{'' if quiet else ' (timings under load)'}: the median step of the best of "
        f"{ns.repeat} runs"
    )
    print(
        f"{'':>10} {'procs':>5} {'ms/step':>8} {'effic.':>7} {'comm ms':>8} {'wait ms':>8} {'hidden':>7}"
    )
    for kind in kinds:
        base = (results[kind].get(1) or {}).get("step_ms")
        for n, r in results[kind].items():
            if r is None:
                print(f"{kind:>10} {n:>5} {'failed':>8}")
                continue
            eff = f"{base / r['step_ms']:.2f}" if base else "?"
            extra = ""
            if kind == "funcgrad" and n > 1:
                hidden = "-" if r["hidden"] is None else f"{100 * r['hidden']:.0f}%"
                extra = f" {r['comm_ms']:>8.2f} {r['wait_ms']:>8.2f} {hidden:>7}"
            over = " (more processes than cores)" if n > cores else ""
            print(f"{kind:>10} {n:>5} {r['step_ms']:>8.2f} {eff:>7}{extra}{over}")
    if ns.json:
        Path(ns.json).write_text(
            json.dumps({"cores": cores, "loads": loads, "results": results}, indent=1)
        )


def _main_paired(ns: argparse.Namespace, cores: int) -> None:
    """Paired runs: per run and number of processes, both step times and their ratio."""
    runs: dict[int, list[dict]] = {n: [] for n in range(1, ns.procs + 1)}
    loads = [os.getloadavg()[0]]
    for run in range(ns.repeat):
        for n in runs:
            r = _launch("paired", n, ns.steps)
            loads.append(os.getloadavg()[0])
            if r is None:
                continue
            runs[n].append(r)
            f, t = r["funcgrad"], r["torch"]
            print(
                f"run {run + 1}, {n} procs: funcgrad {f['step_ms']:.2f} ms, torch "
                f"{t['step_ms']:.2f} ms, ratio {r['ratio']:.2f} (load {loads[-1]:.2f})",
                flush=True,
            )
    quiet = max(loads) < 0.5
    print(
        f"W8 MLP, per-rank batch {BATCH}, {ns.steps} steps, funcgrad's and PyTorch's steps "
        f"alternating in the same processes; {cores} cores; load average {min(loads):.2f} to "
        f"{max(loads):.2f}{'' if quiet else ' (timings under load)'}; medians over "
        f"{ns.repeat} runs"
    )
    print(
        f"{'procs':>5} {'funcgrad':>9} {'torch':>7} {'ratio':>6} {'eff fg':>7} {'eff torch':>9}"
        f" {'comm ms':>8} {'wait ms':>8} {'hidden':>7}"
    )
    med = statistics.median
    table = {}
    for n, rs in runs.items():
        if not rs:
            print(f"{n:>5} failed")
            continue
        table[n] = {
            "funcgrad": med(r["funcgrad"]["step_ms"] for r in rs),
            "torch": med(r["torch"]["step_ms"] for r in rs),
            "ratio": med(r["ratio"] for r in rs),
            "comm": med(r["funcgrad"]["comm_ms"] for r in rs),
            "wait": med(r["funcgrad"]["wait_ms"] for r in rs),
        }
        row, base = table[n], table.get(1)
        eff = (
            f"{base['funcgrad'] / row['funcgrad']:>7.2f} {base['torch'] / row['torch']:>9.2f}"
            if base
            else f"{'?':>7} {'?':>9}"
        )
        hidden = f"{100 * max(0.0, 1 - row['wait'] / row['comm']):.0f}%" if row["comm"] else "-"
        print(
            f"{n:>5} {row['funcgrad']:>9.2f} {row['torch']:>7.2f} {row['ratio']:>6.2f} {eff}"
            f" {row['comm']:>8.2f} {row['wait']:>8.2f} {hidden:>7}"
        )
    if ns.json:
        Path(ns.json).write_text(
            json.dumps({"cores": cores, "loads": loads, "runs": runs, "table": table}, indent=1)
        )


if __name__ == "__main__":
    main()
