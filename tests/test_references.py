"""`requires` is the one mechanism for test references, and it fails in CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.references import INSTALL, requires

TESTS = Path(__file__).resolve().parent
MISSING = "funcgrad_no_such_reference"


def test_requires_returns_the_module():
    assert requires("numpy.linalg").__name__ == "numpy.linalg"


def test_a_missing_reference_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=re.escape(INSTALL)) as info:
        requires(MISSING, package="no-such-package")
    assert "'no-such-package'" in str(info.value)


@pytest.mark.parametrize("value", ["true", "1", "True"])
def test_a_missing_reference_fails_in_ci(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match=re.escape(INSTALL)) as info:
        requires(MISSING)
    assert repr(MISSING) in str(info.value)


def test_no_test_bypasses_requires():
    # importorskip, or a skipif on find_spec/ImportError, would skip silently in CI too.
    pattern = re.compile(r"importorskip\(|find_spec\(|except (ModuleNotFound|Import)Error")
    allowed = {
        # CuPy needs a GPU, so it is not a reference: its tests skip cleanly without one.
        ("tests/gpu/devices.py", "except Exception as e:  # ImportError, or a broken CuPy install"),
        # A subprocess that hides SciPy on purpose, to check the message naming the extra.
        ("tests/scipy/test_special.py", '"except ImportError as e:\\n"'),
        # The browser check needs a Chromium binary, which pip does not install.
        ("tests/docs/test_browser.py", "except ImportError:  # the test skips, with the reason"),
    }
    bad = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in {"references.py", "test_references.py"}:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not pattern.search(line) or '"cupy"' in line:
                continue
            where = str(path.relative_to(TESTS.parent))
            if (where, line.strip()) not in allowed:
                bad.append(f"{where}:{number}: {line.strip()}")
    assert not bad, "use tests.references.requires(name) instead:\n" + "\n".join(bad)
