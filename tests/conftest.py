"""Test configuration: hypothesis profiles (`ci` is derandomized and bounded).

The profile is `HYPOTHESIS_PROFILE`'s, else `ci` in CI (`CI=true`), else `dev`.
Test references (torch, autograd, ...) are asked for with
`tests.references.requires`, which fails instead of skipping in CI.
"""

import importlib.metadata
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.references import in_ci

REFERENCES = ["torch", "autograd", "scipy", "mpmath", "mpi4py", "optree"]

settings.register_profile(
    "ci",
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if in_ci() else "dev"))


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def pytest_report_header(config):
    found = ", ".join(f"{name} {_version(name)}" for name in REFERENCES)
    mode = "fail" if in_ci() else "skip"
    return [
        f"hypothesis profile: {settings.get_current_profile_name()}",
        f"references ({mode} when missing): {found}",
    ]


_DISTRIBUTED = Path(__file__).parent / "distributed"


def pytest_collection_modifyitems(config, items):
    """Keep tests that share an expensive resource on one pytest-xdist worker.

    `scripts/check.sh` runs the suite with `-n auto --dist loadgroup`: every test
    that uses the built site (one strict `mkdocs build` per worker that asks for
    it) goes to one worker, and the multi-process MPI jobs run one at a time so
    they never oversubscribe the cores together. Without `-n` the marks do nothing.
    """
    for item in items:
        if "built_site" in item.fixturenames:
            item.add_marker(pytest.mark.xdist_group("site"))
        elif _DISTRIBUTED in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.xdist_group("mpi"))
