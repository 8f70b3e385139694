"""PyTorch's "What is torch.nn really?" page runs on funcgrad with only its imports changed.

The page (`tests.examples.pages_nn_tutorial.NN_TUTORIAL`) trains a logistic regression on
MNIST from scratch, then refactors it step by step: `nn.functional`, `nn.Module` with
`nn.Parameter`, `nn.Linear`, `optim.SGD`, `TensorDataset`, `DataLoader` (shuffled, with a
validation loader), `fit()`/`get_data()`, a CNN with `F.avg_pool2d`, `nn.Sequential` with a
`Lambda` layer, `nn.AdaptiveAvgPool2d` and a wrapped `DataLoader`. It runs as written on
PyTorch 2.13 and with its imports pointed at funcgrad, with the same random numbers
(initial weights and the shuffling orders: `harness.Draws`) and the same data. MNIST's
download is replaced by synthetic arrays of MNIST's shapes (`synthetic_mnist`): 200
training and 100 validation rows instead of 50,000 and 10,000, so the test takes seconds.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.examples import harness, pages_nn_tutorial
from tests.references import requires

torch = requires("torch")

# NOTE: what funcgrad prints differently, on purpose: `Size` is funcgrad's own class.
PRINTED_DIFFERENTLY = {"torch.Size": "funcgrad.Size"}


def synthetic_mnist(n_train=200, n_valid=100, seed=0):
    """Arrays shaped and typed as the page's `mnist.pkl.gz`: ((x, y), (x, y), (x, y)).

    Pixels are float32 in [0, 1), 784 to a row; labels int64 in 0..9, made to depend on
    the pixels (the class of a row is the tenth of the image its brightest 3x3 block
    lies in, roughly) so that the training has something to learn.
    """
    rng = np.random.default_rng(seed)

    def part(n):
        x = rng.random((n, 784), dtype=np.float32) ** 3
        y = (x.reshape(n, 28, 28)[:, 4:24, 4:24].reshape(n, 10, 40).sum(-1)).argmax(1)
        return x, y.astype(np.int64)

    return part(n_train), part(n_valid), part(10)


def test_nn_tutorial_runs_with_funcgrad_as_with_pytorch():
    source = pages_nn_tutorial.NN_TUTORIAL
    given = {"synthetic_mnist": synthetic_mnist()}
    torch.manual_seed(0)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, their_ns = harness.run(source, "nn_tutorial", given)
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source), "nn_tutorial", given)
    kinds = [kind for kind, _ in draws.values]
    # randn: 2 logistic weights; uniform_: Linear x4, conv layers x3 models x 3 convs x 2;
    # randperm: 2 epochs x 4 shuffled fits (the validation loop's, fit's, CNN's, Sequential's,
    # the wrapped loader's twice).
    assert kinds.count("randn") == 2 and kinds.count("randperm") >= 8, kinds
    for text, ours_text in PRINTED_DIFFERENTLY.items():
        theirs = theirs.replace(text, ours_text)
    assert theirs.count("\n") > 20
    harness.assert_same_printout(ours, theirs, rtol=2e-4, atol=2e-5)
    their_state, our_state = their_ns["model"].state_dict(), our_ns["model"].state_dict()
    assert list(our_state) == list(their_state)
    for k, v in their_state.items():
        np.testing.assert_allclose(our_state[k].numpy(), v.numpy(), rtol=2e-4, atol=2e-5, err_msg=k)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
