"""`python -m funcgrad.distributed.run`: start a script on several processes under MPI.

    python -m funcgrad.distributed.run -n 4 train.py --epochs 3
    python -m funcgrad.distributed.run -n 4 -m mypackage.train

With `-n N` it starts `mpiexec -n N` (MPICH's, from `pip install
funcgrad[mpi]`, or any on PATH) on this same command without `-n`; each
process then runs the script (or module) as `__main__`, as `python` would.
The script calls `funcgrad.distributed.init_process_group("mpi")` itself.
`mpiexec -n N python train.py` is the same thing, spelled by hand.
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import sys


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run (or launch) the script; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m funcgrad.distributed.run",
        description="Run a funcgrad.distributed script on N processes (MPI).",
    )
    parser.add_argument("-n", "--nproc", type=int, default=None, help="number of processes")
    parser.add_argument("-m", dest="module", default=None, help="run a module, as python -m")
    parser.add_argument("script", nargs="?", help="the script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    ns = parser.parse_args(argv)
    if ns.module is None and ns.script is None:
        parser.error("give a script, or -m and a module")
    target = ["-m", ns.module] if ns.module else [ns.script]
    rest = ([ns.script] if ns.module and ns.script else []) + ns.args
    if ns.nproc is not None:
        mpiexec = shutil.which("mpiexec")
        if mpiexec is None:
            parser.error("mpiexec is not on PATH; install it with `pip install funcgrad[mpi]`")
        command = [
            mpiexec,
            "-n",
            str(ns.nproc),
            sys.executable,
            "-m",
            "funcgrad.distributed.run",
            *target,
            *rest,
        ]
        os.execv(mpiexec, command)  # replaces this process: mpiexec's status is ours
    sys.argv = [ns.module or ns.script, *rest]
    if ns.module:
        runpy.run_module(ns.module, run_name="__main__", alter_sys=True)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(ns.script)))
        runpy.run_path(ns.script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
