"""Measure how far funcgrad's pinverse is from PyTorch's, by condition number (not a test).

The numbers behind `torch_compare.CONDITIONED_CAP` and `kappa_limit`: for each
condition number given, float32 3x3 matrices with singular values
`(2, 0.5, 2 / kappa)` in random bases are run through the harness
(`test_torch_harness._pinverse_call`, `torch_compare.check`), and the largest
error of each aspect is printed, in `assert_close`'s measure
(`|funcgrad - torch| / (|torch| + max(1, scale))`), beside `eps * kappa ** (order + 1)`.

    N=300 python -m tests.differential.measure_conditioning 300 1000
"""

from __future__ import annotations

import collections
import os
import sys

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tests.differential.torch_compare as tc
from tests.differential.torch_cases import Case
from tests.strategies import Draw


def main(kappas: list[float], examples: int) -> None:
    """Print, for each condition number, the largest error of values, grad and grad2."""
    import torch

    from tests.differential.test_torch_harness import _pinverse_call

    worst: dict = collections.defaultdict(float)

    def record(ref, got, dtype, rtol, what, aspect, guard=False):
        r, g = np.asarray(ref, dtype=np.float64), np.asarray(got, dtype=np.float64)
        scale = np.max(np.abs(r), initial=0.0)
        err = np.max(np.abs(r - g) / (np.abs(r) + max(1.0, scale)), initial=0.0)
        worst[aspect] = max(worst[aspect], float(err))

    tc.assert_close = record  # measure instead of judging (this process only)
    tc.kappa_limit = lambda dtype: np.inf  # and measure beyond the limit too
    eps = float(np.finfo(np.float32).eps)

    def runner(kappa):
        @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
        @given(data=st.data())
        def run(data):
            g = Draw(data)
            call = _pinverse_call(g, [2.0, 0.5, 2.0 / kappa])
            tc.check(Case("Tensor.pinverse", lambda g: None), call, g, torch)

        return run

    for kappa in kappas:
        worst.clear()
        runner(kappa)()
        print(
            f"kappa {kappa:g}: "
            + ", ".join(
                f"{aspect} {err:.3g} (eps*kappa**{order + 1} = {eps * kappa ** (order + 1):.3g})"
                for order, (aspect, err) in enumerate(worst.items())
            )
        )


if __name__ == "__main__":
    main([float(k) for k in sys.argv[1:]] or [300.0, 1000.0], int(os.environ.get("N", "60")))
