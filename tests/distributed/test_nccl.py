"""The NCCL backend (CuPy's `cupy.cuda.nccl`): one rank per GPU, as many ranks as GPUs.

Marked `cuda`: `scripts/gpu_check.sh` runs it on GPU machines; elsewhere it
skips with the reason.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import funcgrad.distributed as dist
from tests.distributed.test_distributed import ROOT, _env
from tests.references import requires


@pytest.mark.cuda
def test_nccl_collectives_and_ddp_on_every_gpu():
    if not dist.is_nccl_available():
        pytest.skip("needs CuPy with NCCL (pip install funcgrad[gpu]) and an NVIDIA GPU")
    import cupy

    try:
        gpus = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        gpus = 0
    if gpus == 0:
        pytest.skip("CuPy sees no GPU")
    requires("mpi4py")
    mpiexec = shutil.which("mpiexec")
    assert mpiexec is not None, "mpiexec is not on PATH (pip install funcgrad[mpi])"
    done = subprocess.run(
        [mpiexec, "-n", str(gpus), sys.executable, "-m", "tests.distributed.nccl_worker"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(gpus):
        assert f"ok nccl rank {rank}" in done.stdout, done.stdout + done.stderr
