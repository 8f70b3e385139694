"""The 60-minute blitz's "Training a Classifier" page runs on funcgrad with only its imports changed.

The page (`tests.examples.pages_blitz.CIFAR10_CLASSIFIER`) trains a small CNN on CIFAR10
through shuffled `DataLoader`s with two worker processes, saves and reloads its state dict,
and prints predicted classes and accuracies (indexing a tuple of class names with 0-dim
tensors, `torch.max(outputs, 1)`, `label == prediction`). It runs as written on PyTorch 2.13
and with its imports pointed at funcgrad, with the same initial weights and shuffling orders
(`harness.Draws`) and the same synthetic CIFAR10-shaped data; what they print and the trained
parameters must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.examples import harness, pages_blitz
from tests.references import requires

torch = requires("torch")


def cifar10(n_train=400, n_test=200, seed=0):
    """Images (n, 3, 32, 32) float32 in [-1, 1), as the page's normalising transform gives them.

    Labels int64 0..9, each class equally often (the page divides by each class's count),
    with a class-dependent brightness in one channel so that the network can learn a little.
    """
    rng = np.random.default_rng(seed)

    def part(n):
        y = np.arange(n) % 10
        rng.shuffle(y)
        x = rng.random((n, 3, 32, 32), dtype=np.float32) * 2 - 1
        x[np.arange(n), y % 3] += 0.1 * (y[:, None, None] + 1).astype(np.float32)
        return np.clip(x, -1, 1).astype(np.float32), y.astype(np.int64)

    return {"train": part(n_train), "test": part(n_test)}


def test_cifar10_page_runs_with_funcgrad_as_with_pytorch(tmp_path, monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    source = pages_blitz.CIFAR10_CLASSIFIER
    given = {"cifar10": cifar10()}
    torch.manual_seed(0)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, their_ns = harness.run(source, "cifar10", given)
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source, numpy=False), "cifar10", given)
    kinds = [kind for kind, _ in draws.values]
    assert kinds.count("uniform_") == 20 and kinds.count("randperm") >= 3
    assert theirs.count("Accuracy for class:") == 10 and "Predicted: " in theirs
    harness.assert_same_printout(ours, theirs, rtol=1e-6, atol=0)
    their_state, our_state = their_ns["net"].state_dict(), our_ns["net"].state_dict()
    assert list(our_state) == list(their_state)
    for k, v in their_state.items():
        np.testing.assert_allclose(our_state[k].numpy(), v.numpy(), rtol=1e-4, atol=1e-6)
