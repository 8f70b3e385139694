"""`funcgrad.sin_(x)` and the other in-place functions of PyTorch's namespace act as PyTorch 2.13's.

Each writes into its input and returns it; a leaf that requires grad is refused, as by the method.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.tensors.inplace_functions import __all__ as NAMES
from tests.references import requires

torch = requires("torch")

X = np.array([0.15, 0.5, 0.85], dtype=np.float32)  # inside every domain but acosh's
ARGS = {
    "addmv_": lambda t: (t.ones(3, 2), t.tensor([0.5, -1.0])),
    "clamp_": lambda t: (0.2, 0.6),
    "clip_": lambda t: (0.2, 0.6),
    "clamp_max_": lambda t: (0.3,),
    "clamp_min_": lambda t: (0.3,),
    "fill_": lambda t: (2.5,),
    "index_put_": lambda t: ((t.tensor([2, 0]),), t.tensor([7.0, -7.0])),
    "xlogy_": lambda t: (t.tensor([2.0, 0.5, 3.0]),),
}


@pytest.mark.parametrize("name", NAMES)
def test_an_inplace_function_writes_its_input_as_pytorch(name):
    assert hasattr(torch, name)
    x = X + 1.0 if name in ("acosh_", "arccosh_") else X
    results = []
    for lib in (fg, torch):
        t = lib.tensor(x.copy())
        returned = getattr(lib, name)(t, *ARGS.get(name, lambda _: ())(lib))
        assert returned is t
        results.append(t.numpy())
    np.testing.assert_allclose(*results, rtol=1e-6)


@pytest.mark.parametrize("name", ["sin_", "relu_", "zero_", "clamp_"])
def test_a_leaf_that_requires_grad_is_refused_and_input_must_be_a_tensor(name):
    args = ARGS.get(name, lambda _: ())(fg)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(fg, name)(fg.tensor(X, requires_grad=True), *args)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(torch, name)(
            torch.tensor(X, requires_grad=True), *ARGS.get(name, lambda _: ())(torch)
        )
    with pytest.raises(TypeError, match=rf"funcgrad.{name}\(\): argument 'input' must be Tensor"):
        getattr(fg, name)([1.0], *args)
