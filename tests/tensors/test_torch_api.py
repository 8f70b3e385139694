"""The tensor API of issue #14 against PyTorch 2.13: values, dtypes, errors, gradients.

Each case of `torch_api_cases.API_CASES` (one per function, method and
in-place method of the list) draws calls with hypothesis and runs each on
funcgrad and on PyTorch with the same inputs (`torch_compare.check`):
values and dtypes, who refuses what, first-order gradients and, where
PyTorch has them, second-order ones. Index outputs compare exactly. The
deliberate differences are `API_DIFFERENCES`, each with its reason.

`FUNCGRAD_TORCH_EXAMPLES` (or `FUNCGRAD_FUZZ_EXAMPLES`, see tests/hardening/fuzz.py)
sets the number of examples per case; a long run:

    FUNCGRAD_TORCH_EXAMPLES=500 python -m pytest tests/tensors/test_torch_api.py
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from tests.differential.torch_cases import EXAMPLES
from tests.differential.torch_compare import Mismatch, check
from tests.references import requires
from tests.strategies import Draw
from tests.tensors.torch_api_cases import API_CASES, API_DIFFERENCES

torch = requires("torch")


def _rules(name):
    rule = API_DIFFERENCES.get(name, ())
    return rule if isinstance(rule, tuple) else (rule,)


def _allowed(name, mismatch, text):
    return any(
        r.aspect == mismatch.aspect
        and (r.match is None or re.search(r.match, str(mismatch)))
        and (r.call is None or re.search(r.call, text))
        for r in _rules(name)
    )


@pytest.mark.parametrize("name", sorted(API_CASES))
def test_matches_torch(name):
    case = API_CASES[name]

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    )
    @given(data=st.data())
    def run(data):
        g = Draw(data)
        call = case.draw(g)
        note(call.text)
        try:
            check(case, call, g, torch)
        except Mismatch as m:
            if not _allowed(name, m, call.text):
                raise
        except (RuntimeError, NotImplementedError) as e:
            # PyTorch refusing a second derivative it does not implement (funcgrad's
            # failures come as a Mismatch)
            if not any(
                words in str(e) for words in ("Double backward is unsupported", "not implemented")
            ):
                raise

    run()


def test_differences_name_cases():
    for name, rules in API_DIFFERENCES.items():
        assert name in API_CASES, f"API_DIFFERENCES names no case: {name}"
        for rule in rules if isinstance(rules, tuple) else (rules,):
            assert rule.reason
