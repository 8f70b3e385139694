"""The vmap tests' report: which primitives fall back to a loop over the batch."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    from funcgrad.transforms.batching import fallback_primitives, looped_primitives

    static = fallback_primitives()
    looped = looped_primitives()
    terminalreporter.section("vmap: primitives that loop over the batch")
    terminalreporter.write_line(
        f"without a batching rule ({len(static)}): {', '.join(static) or 'none'}"
    )
    if looped:
        cases = ", ".join(f"{name} ({why})" for name, why in sorted(looped.items()))
        terminalreporter.write_line(f"looped in this run: {cases}")
