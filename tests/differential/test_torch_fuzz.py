"""The Tensor layer against PyTorch 2.13: values, errors, first- and second-order gradients.

* `test_matches_torch[<case>]`: each case of `torch_cases.CASES` draws
  calls (`EXAMPLES` per case, from `FUNCGRAD_FUZZ_EXAMPLES`) and
  `torch_compare.check` runs each on both libraries. The deliberate
  differences it allows are `torch_differences.DIFFERENCES`; a case with an
  entry in `KNOWN_MISMATCHES` must still fail on that aspect (xfail), and
  fails once it no longer does, until the entry is removed.
* `test_every_public_name_has_a_case`: every public `Tensor` method and
  attribute, every operator, and every name of `funcgrad.__all__` that
  PyTorch also has, has a case or an exemption with its reason.

A long run: `FUNCGRAD_FUZZ_EXAMPLES=20000 python -m pytest tests/differential/test_torch_fuzz.py`
(2000 examples per case). A survey: with `FUNCGRAD_TORCH_SURVEY=<file>`, mismatches are
appended to that file (one JSON line each: case, aspect, call, message) instead of failing,
so one run lists every aspect of every case that differs.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

import funcgrad
from tests.differential.torch_cases import CASES, EXAMPLES, EXEMPT
from tests.differential.torch_compare import ASPECTS, Mismatch, allowed, check
from tests.differential.torch_differences import DIFFERENCES, GUARD, KNOWN_MISMATCHES, rules
from tests.references import requires
from tests.strategies import Draw
from tests.tensors.torch_api_cases import API_CASES  # the tensor API's cases (test_torch_api.py)

torch = requires("torch")
SURVEY = os.environ.get("FUNCGRAD_TORCH_SURVEY")

# Python's object machinery, not Tensor API.
NOT_API = frozenset(
    {
        "__annotations__",
        "__class__",
        "__dict__",
        "__doc__",
        "__init__",
        "__init_subclass__",
        "__module__",
        "__new__",
        "__slots__",
        "__subclasshook__",
        "__weakref__",
        "__getattribute__",
        "__setattr__",
        "__delattr__",
        "__dir__",
        "__sizeof__",
    }
)


def _settings(n):
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    case = CASES[name]
    known = {aspect: why for (c, aspect), why in KNOWN_MISMATCHES.items() if c == name}
    seen: set[str] = set()

    def search(n):
        @_settings(n)
        @given(data=st.data())
        def run(data):
            g = Draw(data)
            call = case.draw(g)
            note(call.text)
            try:
                check(case, call, g, torch)
            except Mismatch as m:
                if allowed(name, m, call.text):
                    return
                if SURVEY:
                    _record(name, m, call)
                elif m.aspect not in known:
                    raise
                seen.add(m.aspect)

        run()

    search(EXAMPLES * 2 if known else EXAMPLES)
    if not known or SURVEY:
        return
    if set(known) - seen:
        search(EXAMPLES * 10)  # before calling it fixed, look harder
    fixed = sorted(set(known) - seen)
    assert not fixed, (
        f"{name}: the known mismatches {fixed} were not found: if fixed, remove their "
        f"entries from KNOWN_MISMATCHES in tests/differential/torch_differences.py"
    )
    pytest.xfail(f"known mismatches: {known}")


def _record(name, mismatch, call):
    line = {"case": name, "aspect": mismatch.aspect, "call": call.text, "message": str(mismatch)}
    with open(SURVEY, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def test_known_mismatches_and_differences_name_cases():
    for case, aspect in KNOWN_MISMATCHES:
        assert case in CASES, f"KNOWN_MISMATCHES names no case: {case}"
        assert aspect in ASPECTS, f"KNOWN_MISMATCHES: unknown aspect {aspect!r} for {case}"
    for case in DIFFERENCES:
        assert case == GUARD or case in CASES, f"DIFFERENCES names no case: {case}"
        for rule in rules(case):
            assert rule.aspect in ASPECTS and rule.reason


def public_names() -> set[str]:
    """Every public name of the Tensor layer that PyTorch also has (`Tensor.x`, `torch.x`)."""
    names = set()
    for n in dir(funcgrad.Tensor):
        if n in NOT_API or n.startswith("_") and not n.startswith("__"):
            continue
        if n.startswith("__"):
            if getattr(funcgrad.Tensor, n, None) is getattr(object, n, None) and not hasattr(
                torch.Tensor, n
            ):
                continue
            if not hasattr(torch.Tensor, n):
                continue  # funcgrad's own protocol (`__funcgrad_node__`)
        names.add(f"Tensor.{n}")
    for n in funcgrad.__all__:
        v = getattr(funcgrad, n)
        if not hasattr(torch, n) or isinstance(v, __import__("numpy").dtype):
            continue  # funcgrad's functional API, or a dtype object
        if isinstance(v, type) and issubclass(v, BaseException):
            continue
        names.add(f"torch.{n}")
    return names


def test_every_public_name_has_a_case():
    missing = sorted(public_names() - set(CASES) - set(API_CASES) - set(EXEMPT))
    assert not missing, (
        f"public names without a differential case: {missing}; add a case to "
        f"tests/differential/torch_cases.py or tests/tensors/torch_api_cases.py (or an "
        f"exemption with its reason to EXEMPT)"
    )
    stale = sorted(set(EXEMPT) - public_names())
    assert not stale, f"EXEMPT names what funcgrad does not have: {stale}"
    assert all(EXEMPT.values()), "every exemption says why"
