"""funcgrad.distributed on real multi-process jobs (`mpiexec -n 2` and `-n 3`) and in one process.

Each launch runs many checks of `tests/distributed/worker.py` (each
launch costs a second or two of imports per rank): every collective
against NumPy, the differentiable collectives against their analytic
gradients, DistributedDataParallel on an MLP and a small conv net against
one process trained on the full batch, `no_sync`, unused parameters,
mismatched shapes, `DistributedSampler`; then the faults: a rank that
raises, and a rank killed mid-step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.distributed as dist
from funcgrad.errors import DeviceError
from funcgrad.utils.data.distributed import DistributedSampler
from tests.references import requires

ROOT = Path(__file__).resolve().parents[2]
CHECKS = [
    "collectives",
    "mismatch",
    "functional",
    "ddp",
    "no_sync",
    "unused",
    "outside_use",
    "sampler",
]


def _mpiexec() -> str:
    requires("mpi4py")
    found = shutil.which("mpiexec")
    if found is None:
        pytest.fail("mpi4py is installed but mpiexec is not on PATH (pip install funcgrad[mpi])")
    return found


def _env() -> dict:
    # Open MPI's mpiexec refuses to start as root (CI containers, the GPU machines) unless
    # both variables say so; MPICH ignores them
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PYTHONHASHSEED": "0",
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    }


def _launch(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize("n", [2, 3])
def test_every_check_passes_on_every_rank(n):
    mpiexec = _mpiexec()
    if n == 2:
        command = [mpiexec, "-n", "2", sys.executable, "-m", "tests.distributed.worker"]
    else:  # through the launcher wrapper, which starts mpiexec itself
        command = [sys.executable, "-m", "funcgrad.distributed.run", "-n", "3"]
        command += ["-m", "tests.distributed.worker"]
    done = _launch(command + CHECKS)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    for check in CHECKS:
        for rank in range(n):
            assert f"ok {check} rank {rank}" in done.stdout, report


def test_a_rank_that_raises_stops_the_others_at_once(tmp_path):
    mpiexec = _mpiexec()
    out = tmp_path / "raise"
    start = time.monotonic()
    _launch(
        [mpiexec, "-n", "2", sys.executable, "-m", "tests.distributed.worker"]
        + ["fault-raise", str(out)]
    )
    message = Path(f"{out}.rank0").read_text()
    # rank 0 learns it from rank 1's report, long before its 60 s timeout
    assert message.startswith("DistBackendError after "), message
    assert "rank 1 failed" in message and "ValueError: boom on rank 1" in message, message
    assert float(message.split()[2]) < 20 and time.monotonic() - start < 60


def test_a_killed_rank_makes_the_others_time_out(tmp_path):
    mpiexec = _mpiexec()
    out = tmp_path / "kill"
    # NOTE: MPICH's mpiexec kills the whole job when a rank dies by a signal; `setsid -w`
    # shields the ranks from that, as a launcher that leaves the survivors running would.
    setsid = shutil.which("setsid")
    if setsid is None:
        pytest.skip("needs setsid (util-linux) to keep the surviving rank alive")
    worker = [sys.executable, "-m", "tests.distributed.worker", "fault-kill", str(out)]
    _launch([mpiexec, "-n", "2", setsid, "-w", *worker])
    result = Path(f"{out}.rank0")
    deadline = time.monotonic() + 30
    while not result.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    message = result.read_text()
    assert message.startswith("DistTimeoutError after "), message
    waited = float(message.split()[2])
    assert 3.0 <= waited < 10.0, message  # timeout=3 s, and no longer than that (loaded machine)
    assert "timeout= of init_process_group" in message and "peer process died" in message


# --- one process --------------------------------------------------------------------------------


def test_calls_before_init_say_what_to_do():
    assert not dist.is_initialized()
    with pytest.raises(dist.DistError, match="init_process_group"):
        dist.get_rank()
    with pytest.raises(dist.DistError, match="not initialized"):
        dist.all_reduce(np.ones(2))


def test_a_world_of_one_process():
    requires("mpi4py")
    dist.init_process_group("mpi", timeout=30)
    try:
        assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
        with pytest.raises(dist.DistError, match="initialized already"):
            dist.init_process_group("mpi")
        x = np.arange(6.0).reshape(2, 3)
        for op in dist.ReduceOp:
            np.testing.assert_array_equal(dist.all_reduce(x, op=op), x)
        np.testing.assert_array_equal(dist.all_gather(None, x)[0], x)
        np.testing.assert_array_equal(dist.reduce_scatter(None, [x]), x)
        # DDP in a world of one trains exactly as the bare module
        fg.manual_seed(0)
        model = fg.nn.Linear(3, 2)
        bare = fg.nn.Linear(3, 2)
        bare.load_state_dict(model.state_dict())
        ddp = fg.nn.parallel.DistributedDataParallel(model)
        xt = fg.tensor(x.astype(np.float32))
        ddp(xt).pow(2).sum().backward()
        bare(xt).pow(2).sum().backward()
        for p, q in zip(model.parameters(), bare.parameters(), strict=True):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
        with pytest.raises(ValueError, match="AVG needs a float"):
            dist.all_reduce(np.arange(3), op="avg")
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


def test_nccl_without_cupy_is_refused_clearly():
    requires("mpi4py")
    if dist.is_nccl_available():
        pytest.skip("CuPy's NCCL is installed: tests/gpu runs the NCCL backend")
    with pytest.raises(DeviceError, match="NCCL comes through CuPy"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="timeout must be"):
        dist.init_process_group("mpi", timeout=-1)
    with pytest.raises(ValueError):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="only ReduceOp.SUM and ReduceOp.AVG"):
        dist.functional.all_reduce(np.ones(2), op="max")


@pytest.mark.parametrize("n", [8, 9, 10, 11])
@pytest.mark.parametrize("replicas", [2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_without_shuffle_matches_pytorch(n, replicas, drop_last):
    torch = requires("torch")
    for rank in range(replicas):
        ours = DistributedSampler(
            range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last
        )
        theirs = torch.utils.data.distributed.DistributedSampler(
            range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last
        )
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_sampler_shuffles_by_epoch_and_pads_with_its_own_indices():
    a = DistributedSampler(range(10), num_replicas=3, rank=0, seed=1)
    b = DistributedSampler(range(10), num_replicas=3, rank=0, seed=1)
    assert list(a) == list(b)  # the seed fixes the order
    first = list(a)
    a.set_epoch(1)
    assert list(a) != first
    shards = [list(DistributedSampler(range(10), num_replicas=3, rank=r, seed=1)) for r in range(3)]
    flat = sorted(i for s in shards for i in s)
    assert len(flat) == 12 and set(flat) == set(range(10))  # 2 indices repeated as padding
