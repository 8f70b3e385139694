"""The binary cross-entropies' `grad_fn.next_functions` list what PyTorch 2.13's list.

PyTorch's `BinaryCrossEntropyBackward0` and `BinaryCrossEntropyWithLogitsBackward0` list the
input and the target only (a weight or pos_weight cannot require grad there); funcgrad listed
all four operands, so a program printing `next_functions` printed two extra `(None, 0)`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import funcgrad
from tests.references import requires

torch = requires("torch")


def _shape(grad_fn):
    return [None if f is None else type(f).__name__ for f, _ in grad_fn.next_functions]


@pytest.mark.parametrize("logits", [False, True])
@pytest.mark.parametrize(
    "target_grad, weight, pos_weight", list(itertools.product([False, True], repeat=3))
)
def test_next_functions_as_pytorch(logits, target_grad, weight, pos_weight):
    if pos_weight and not logits:
        pytest.skip("binary_cross_entropy has no pos_weight")
    rng = np.random.default_rng(0)
    x, t, w, pw = (rng.uniform(0.1, 0.9, 4) for _ in range(4))
    results = []
    for lib in (torch, funcgrad):
        kw = {}
        if weight:
            kw["weight"] = lib.tensor(w)
        if pos_weight:
            kw["pos_weight"] = lib.tensor(pw)
        fn = (
            lib.nn.functional.binary_cross_entropy_with_logits
            if logits
            else lib.nn.functional.binary_cross_entropy
        )
        # (the leaves are held: funcgrad lists a leaf nobody holds any more as None)
        xs, ts = lib.tensor(x, requires_grad=True), lib.tensor(t, requires_grad=target_grad)
        out = fn(xs, ts, **kw)
        results.append((type(out.grad_fn).__name__, _shape(out.grad_fn)))
    assert results[1] == results[0]
