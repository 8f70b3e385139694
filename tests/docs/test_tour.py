"""`python -m funcgrad`: the tour shows code beside results, both styles, the check, the docs."""

from __future__ import annotations

import subprocess
import sys

import pytest

import funcgrad.__main__ as tour


def test_the_tour_shows_each_step_code_beside_its_value(capsys):
    assert tour.main([]) == 0
    out = capsys.readouterr().out
    assert "== Functional style ==" in out and "== PyTorch style ==" in out
    # the code that ran, with the value of the expression on the same line
    assert any(
        line.startswith("  fg.grad(f)(0.7)") and line.endswith("# 1.04869")
        for line in out.splitlines()
    ), out
    assert any(
        line.startswith("  b.grad") and "# tensor([ 0.5767, -0.0419])" in line
        for line in out.splitlines()
    ), out
    assert "out.backward()" in out and "# None" not in out
    assert "gradient check OK" in out
    assert f"{tour.DOCS}examples/" in out and f"{tour.DOCS}getting-started/" in out


def test_style_selects_a_half_and_check_only_prints_the_check(capsys):
    assert tour.main(["--style", "pytorch"]) == 0
    out = capsys.readouterr().out
    assert "== PyTorch style ==" in out and "== Functional style ==" not in out
    assert "  b.grad" in out  # it still uses the functional half's data
    assert tour.main(["--check-only"]) == 0
    out = capsys.readouterr().out
    assert "gradient check OK" in out and "==" in out and "style ==" not in out


def test_a_failed_check_exits_non_zero(monkeypatch, capsys):
    monkeypatch.setattr(tour, "TOLERANCE", 0.0)  # no finite difference is exact
    assert tour.main(["--check-only"]) == 1
    assert "gradient check FAILED" in capsys.readouterr().out


def test_help_explains_the_options():
    done = subprocess.run(
        [sys.executable, "-m", "funcgrad", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    for word in ("--style", "--check-only", "functional", "pytorch", "Exit status", tour.DOCS):
        assert word in done.stdout, word


def test_an_unknown_option_is_refused():
    with pytest.raises(SystemExit) as e:
        tour.main(["--colour"])
    assert e.value.code == 2
