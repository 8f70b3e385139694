"""`.ci/run` runs exactly the two commands at the top of README.md."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands(text: str) -> list[str]:
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_ci_runs_the_readme_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```", 2)[1]  # the first code block
    setup = _commands(block)
    assert len(setup) == 2, setup
    ci = _commands((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    ci = [c for c in ci if not c.startswith(("set ", "cd "))]
    assert ci == setup


def test_the_test_extra_pins_the_references():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extra = text.split("\ntest = [", 1)[1].split("\n]", 1)[0]
    for pin in ('"torch==2.13.0"', '"autograd==1.9.1"', '"scipy', '"mpi4py', '"mpich'):
        assert pin in extra, pin
