"""The optional peers of the benchmarks: PyTorch eager (CPU) and HIPS autograd.

Both are optional (`pip install -e ".[bench]"`); `load()` returns None for
one that is not installed, with the reason, and the table then says
"skipped". Import this module only after the thread variables are set
(`benchmarks/run.py` sets them before importing NumPy): PyTorch reads
`OMP_NUM_THREADS` when it starts, and `torch.set_num_threads(1)` is called
here as well. The environment variable `FG_BENCH_PEERS` (comma-separated
names, possibly empty) limits the peers this process may load.
"""

from __future__ import annotations

import importlib
import os

PEERS = ("torch", "autograd")

_cache: dict = {}


def load(name: str):
    """Return `(module, None)` for an installed peer, or `(None, why)` when it is missing."""
    if name in _cache:
        return _cache[name]
    allowed = os.environ.get("FG_BENCH_PEERS")
    if allowed is not None and name not in allowed.split(","):
        # NOTE: `run.py --mode process` runs each framework in its own process; the
        # others are not imported there (FG_BENCH_PEERS names the ones that are)
        _cache[name] = (None, f"{name} left out of this process")
        return _cache[name]
    try:
        if name == "torch":
            import torch

            torch.set_num_threads(1)
            try:
                torch.set_num_interop_threads(1)
            except RuntimeError:  # already set, or parallel work already started
                pass
            module = torch
        elif name == "autograd":
            module = importlib.import_module("autograd")
            importlib.import_module("autograd.numpy")
            importlib.import_module("autograd.scipy.special")
        else:
            raise ValueError(f"unknown peer {name!r}")
        result = (module, None)
    except ImportError as e:  # not installed (or a dependency missing)
        result = (None, f"{name} not installed ({e})")
    _cache[name] = result
    return result


def version(name: str) -> str:
    """Return the peer's version string, or 'absent'."""
    module, _ = load(name)
    if module is None:
        return "absent"
    if name == "autograd":
        try:
            from importlib.metadata import version as _v

            return _v("autograd")
        except Exception:  # noqa: BLE001
            return "?"
    return getattr(module, "__version__", "?")
