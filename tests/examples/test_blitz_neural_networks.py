"""The 60-minute blitz's "Neural Networks" page runs on funcgrad with only its imports changed.

The page's code (`tests.examples.pages.BLITZ_NEURAL_NETWORKS`: LeNet,
`net.zero_grad()`, `MSELoss`, the manual SGD update through `.data`, then
one step of `optim.SGD`) runs as written and with its imports pointed at
funcgrad, with the same random numbers (PyTorch's initial parameters and
`torch.randn` draws, handed to funcgrad's: `harness.Draws`). What it prints,
its last loss and the parameters after both updates must agree.
(tests/nn/test_lenet.py checks the page's gradients step by step.)
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.examples import harness, pages
from tests.references import requires

torch = requires("torch")

# NOTE: what funcgrad prints differently, on purpose: `Size` is funcgrad's own class.
PRINTED_DIFFERENTLY = {"torch.Size": "funcgrad.Size"}


@pytest.mark.parametrize("seed", [0, 1])
def test_blitz_page_runs_with_funcgrad_as_with_pytorch(seed):
    source = pages.BLITZ_NEURAL_NETWORKS
    torch.manual_seed(seed)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, their_ns = harness.run(source, "blitz")
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source), "blitz")
    assert len(draws.values) == 10 + 3  # 5 layers' weights and biases; input, gradient, target
    for text, ours_text in PRINTED_DIFFERENTLY.items():
        assert text in theirs
        theirs = theirs.replace(text, ours_text)
    harness.assert_same_printout(ours, theirs, rtol=1e-4, atol=1e-4)  # 4 printed decimals
    np.testing.assert_allclose(our_ns["loss"].item(), their_ns["loss"].item(), rtol=1e-5)
    their_state = their_ns["net"].state_dict()
    our_state = our_ns["net"].state_dict()
    assert list(our_state) == list(their_state)
    for k, v in their_state.items():
        initial = draws.values[list(their_state).index(k)][1]
        assert not np.array_equal(v.numpy(), initial), k  # both updates reached it
        np.testing.assert_allclose(our_state[k].numpy(), v.numpy(), rtol=1e-4, atol=1e-6, err_msg=k)
