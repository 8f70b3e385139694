"""A pytest plugin for GPU runs: each failure's report is written to a file as it happens.

`scripts/gpu_check.sh` loads it (`-p tests.gpu.failure_log`) with the file in
`FUNCGRAD_FAILURE_LOG`. A run stopped by its time limit loses pytest's summary,
and with it every traceback; this file keeps them. Under pytest-xdist the
controller and the workers both see each report, so the file is written by the
controller alone.
"""

from __future__ import annotations

import os

_PATH = os.environ.get("FUNCGRAD_FAILURE_LOG")


def pytest_runtest_logreport(report):
    """Append a failed report's test id, phase and traceback (its last 3,000 characters)."""
    if not report.failed or _PATH is None or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    with open(_PATH, "a") as f:
        f.write(f"=== {report.nodeid} [{report.when}]\n{report.longreprtext[-3000:]}\n")
