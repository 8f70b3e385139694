"""PyTorch's "Learning PyTorch with Examples" page runs on funcgrad with only its imports changed.

Each of the page's eight programs (`tests.examples.pages`) runs twice: as
written (PyTorch, or NumPy for the first), and with its import lines pointed
at funcgrad, given the same random numbers (`harness.Draws`). The printed
losses and results, and the final parameters, must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.examples import harness, pages
from tests.references import requires

torch = requires("torch")

# NOTE: for the test budget (about 40 s of new tests on one core) the loops run
# 500 of the page's 2000 steps (five progress lines each) and DynamicNet 2000 of
# its 30000 (its one progress line at t = 1999). 500 steps also keep RMSprop
# (the `optim` program) before the point, past about 1500 steps, where it
# oscillates around the minimum and float32 rounding decides the path.
SHORTER = {"dynamic": ("range(30000)", "range(2000)")}


# float32 pages: sums of 2000 terms in another order, over hundreds of steps, agree
# to 2e-4 (and 1e-5 near 0). NumPy's page is float64 on both sides. RMSprop moves a
# coordinate whose gradient is near 0 by about lr either way, whatever the gradient's
# size, so the `optim` page's x^2 coefficient (about 0 at the optimum) may differ by
# one step: 1e-3.
TOLERANCES = {
    "numpy": {"rtol": 1e-9, "atol": 0},
    "optim": {"rtol": 2e-4, "atol": 1e-3},
}


def _shorter(name, source):
    """The page's program with fewer steps (see SHORTER)."""
    old, new = SHORTER.get(name, ("range(2000)", "range(500)"))
    assert old in source
    return source.replace(old, new)


def _final(namespace):
    """The trained parameters, as float64 arrays by name."""
    model = namespace.get("model")
    if model is not None:
        return {
            k: np.asarray(v.detach().numpy(), np.float64) for k, v in model.state_dict().items()
        }
    return {
        k: np.asarray(
            namespace[k].item() if hasattr(namespace[k], "item") else namespace[k], np.float64
        )
        for k in "abcd"
    }


@pytest.mark.parametrize("name", list(pages.LEARNING_PYTORCH_WITH_EXAMPLES))
def test_page_runs_with_funcgrad_as_with_pytorch(name):
    source = pages.LEARNING_PYTORCH_WITH_EXAMPLES[name]
    source = _shorter(name, source)
    torch.manual_seed(0)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, their_ns = harness.run(source, name)
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source), name)
    assert theirs.count("\n") >= 2  # progress lines and the result
    tol = TOLERANCES.get(name, {"rtol": 2e-4, "atol": 1e-5})
    harness.assert_same_printout(ours, theirs, **tol)
    their_final, our_final = _final(their_ns), _final(our_ns)
    assert our_final.keys() == their_final.keys()
    for k in their_final:
        np.testing.assert_allclose(our_final[k], their_final[k], **tol, err_msg=k)
