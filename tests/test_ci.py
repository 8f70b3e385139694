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


def test_the_wheel_installs_and_imports_without_the_repository(tmp_path):
    """`python -m build` makes a wheel that works in a fresh venv, away from the checkout."""
    import subprocess
    import sys

    def run(*args: str, cwd: Path = tmp_path) -> str:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        return done.stdout

    # --no-isolation: build with the installed setuptools, so nothing is downloaded
    run(
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--no-isolation",
        "--outdir",
        str(tmp_path),
        cwd=ROOT,
    )
    (wheel,) = tmp_path.glob("funcgrad-*.whl")
    # The venv sees the installed NumPy and attrs (--system-site-packages, so no
    # download), but its own site-packages, where the wheel goes, comes first.
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv))
    python = venv / "bin" / "python"
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "-q",
        "--no-deps",
        str(wheel),
    )
    out = run(
        str(python),
        "-c",
        "import funcgrad as fg, funcgrad.numpy as fnp; "
        "print(fg.__file__); print(fg.grad(lambda x: fnp.sin(x) * x)(0.0))",
    )
    where, value = out.split()
    assert Path(where).is_relative_to(venv) and value == "0.0", out
    assert "funcgrad" in run(str(python), "-m", "funcgrad", "--help")
