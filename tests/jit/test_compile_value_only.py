"""`funcgrad.compile` never replays a value-only Tensor function's result as a constant.

A comparison, the index of a maximum, `sort`'s indices, `nonzero`, `unique`, `any`/`all`,
`allclose`/`equal` compute on a tensor's values without recording a node. Traced by
`funcgrad.compile`, their result used to be baked into the plan, so a later call with other
values replayed the first call's mask or indices (`compile(lambda x: where(x > 0, x, 0).sum())`
gave -4.0 for [1, -2, -3, -1], eagerly 1.0). Now the read is reported and that signature runs
eagerly with a JitWarning. The reference is the same function run eagerly.
"""

from __future__ import annotations

import warnings

import pytest

import funcgrad as torch

CASES = {
    "gt": lambda x: torch.where(x > 0, x, torch.zeros_like(x)).sum(),
    "torch.gt": lambda x: torch.where(torch.gt(x, 0), x, torch.zeros_like(x)).sum(),
    "lt of abs": lambda x: (x * (x.abs() < 2)).sum(),
    "argmax": lambda x: x[torch.argmax(x)] * 2,
    "sort indices": lambda x: (torch.sort(x).indices.to(x.dtype) * x).sum(),
    "topk indices": lambda x: x[torch.topk(x, 2).indices].sum(),
    "nonzero": lambda x: x[torch.nonzero(x > 0).flatten()].sum(),
    "any": lambda x: x.sum() * torch.any(x < -1.5).to(x.dtype),
    "unique": lambda x: x.sum() * torch.unique(torch.sign(x)).numel(),
}
INPUTS = ([1.0, 2.0, 3.0, -1.0], [1.0, -2.0, -3.0, -1.0], [-5.0, 4.0, 0.5, 2.0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_equals_eager_for_every_input(name):
    f = CASES[name]
    compiled = torch.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in INPUTS:
            x = torch.tensor(v)
            assert float(compiled(x)) == float(f(x)), (name, v)


def test_the_eager_fallback_says_why():
    compiled = torch.compile(CASES["gt"])
    with pytest.warns(RuntimeWarning, match="tensor.greater reads a traced tensor.s value"):
        compiled(torch.tensor(INPUTS[0]))
