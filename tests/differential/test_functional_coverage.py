"""Every public callable of funcgrad.numpy and funcgrad.numpy.linalg has a differential case.

A name is covered by a case in `functional_cases.CASES` (compared with
autograd, or with central differences where `NOT_IN_AUTOGRAD` or a
`functional_differences` entry says so), or by an exemption with its
reason (`functional_cases.EXEMPT`). The tables must also stay true: no
entry for a name that is not public, no difference or known mismatch for a
case that does not exist.
"""

from __future__ import annotations

import numpy as np

import funcgrad.numpy as fnp
from tests.differential.functional_cases import CASES, EXEMPT, NOT_IN_AUTOGRAD
from tests.differential.functional_differences import (
    DIFFERENCES,
    KNOWN_MISMATCHES,
    REFERENCES,
)

KINDS = {"nan", "fd", "fd2", "reference", "raises"}
CHECKS = {"value", "grad", "jvp", "jacobian", "hvp", "hessian", "fd"}


def _numpys_own(name, value) -> bool:
    """Whether `value` is a class, or NumPy's own object (no funcgrad code): `EXEMPT_RULE`."""
    return isinstance(value, type) or value is getattr(np, name, object())


def _public() -> set[str]:
    """The public callables of funcgrad.numpy and its linalg, less those of `EXEMPT_RULE`."""
    names = set()
    for prefix, module in (("", fnp), ("linalg.", fnp.linalg), ("fft.", fnp.fft)):
        listed = set(getattr(module, "__all__", ()))
        listed |= {n for n in dir(module) if not n.startswith("_")}
        for name in listed:
            value = getattr(module, name)
            if name in ("linalg", "random", "fft") or (
                callable(value) and not (_numpys_own(name, value) and prefix + name not in EXEMPT)
            ):
                names.add(prefix + name)
    return names


def test_every_public_name_has_a_case_or_an_exemption():
    covered = {c.name for c in CASES.values()} | set(EXEMPT)
    missing = sorted(_public() - covered)
    assert not missing, (
        "public funcgrad.numpy names with no differential case: add one to "
        f"tests/differential/functional_cases.py, or an EXEMPT entry with a reason: {missing}"
    )


def test_no_entry_names_a_name_that_is_not_public():
    public = _public()
    stale = sorted({c.name for c in CASES.values()} - public)
    stale += sorted(set(EXEMPT) - public)
    stale += sorted(set(NOT_IN_AUTOGRAD) - public)
    assert not stale, f"cases or exemptions for names funcgrad.numpy does not have: {stale}"


def test_every_difference_and_known_mismatch_names_a_case():
    ids = set(CASES) | {c.name for c in CASES.values()}
    bad = [key for key in DIFFERENCES if key[0] not in ids or key[1] not in KINDS]
    bad += [key for key in KNOWN_MISMATCHES if key[0] not in CASES or key[1] not in CHECKS]
    assert not bad, f"entries naming no case, or an unknown kind or check: {bad}"
    references = {name for name, kind in DIFFERENCES if kind == "reference"}
    assert references == set(REFERENCES), "each 'reference' difference has one composite"


def test_every_reason_is_given():
    for table in (EXEMPT, NOT_IN_AUTOGRAD, DIFFERENCES, KNOWN_MISMATCHES):
        assert all(isinstance(r, str) and len(r) > 20 for r in table.values())


def test_the_exemption_rule_takes_no_funcgrad_function():
    # Everything the rule leaves out is a class, or NumPy's own object; say which, for review.
    for name in dir(fnp):
        value = getattr(fnp, name)
        if callable(value) and _numpys_own(name, value):
            assert isinstance(value, type) or value.__module__.split(".")[0] == "numpy", name
