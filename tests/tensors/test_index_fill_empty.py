"""`index_fill` / `index_fill_` on empty tensors, against PyTorch 2.13.

PyTorch checks the positions only where it writes: a tensor that is empty
through another dim comes back unchanged whatever the index says (found by
tests/tensors/test_torch_api.py: `(0, 1)`, dim 1, index `[1]`), while an
empty dim that is indexed is an error in both libraries.
"""

from __future__ import annotations

import pytest

import funcgrad
from tests.references import requires

torch = requires("torch")

CASES = [
    ((0, 1), 1, [1]),
    ((0, 1), -1, [-5, 3]),
    ((0, 3), 1, [2, 3]),
    ((2, 0, 2), 0, [5]),
    ((2, 0), 0, [1]),
    ((0, 1), 1, []),
]


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("tensor_value", [False, True])
@pytest.mark.parametrize(("shape", "dim", "index"), CASES)
def test_an_empty_input_comes_back_unchanged(shape, dim, index, tensor_value, inplace):
    results = []
    for lib in (torch, funcgrad):
        x = lib.zeros(*shape, requires_grad=True)
        v = lib.tensor(2.0, requires_grad=True) if tensor_value else 2.0
        idx = lib.tensor(index, dtype=lib.int64)
        out = x * 1.0
        out = out.index_fill_(dim, idx, v) if inplace else lib.index_fill(out, dim, idx, v)
        if lib is funcgrad or not (tensor_value and index):
            # PyTorch's backward gathers the value's gradient at the positions
            # it never checked ("INDICES element is out of DATA bounds"); the
            # value fills nothing, so its gradient is 0
            out.sum().backward()
        results.append((out.detach().numpy(), out.grad_fn.name(), x.grad, v))
    (t_out, t_fn, t_grad, t_v), (f_out, f_fn, f_grad, f_v) = results
    assert f_out.shape == t_out.shape and f_out.dtype == t_out.dtype
    assert f_fn == t_fn
    assert f_grad.shape == shape
    if t_grad is not None:
        assert f_grad.dtype == funcgrad.float32
    if tensor_value:
        assert f_v.grad.item() == 0.0


@pytest.mark.parametrize(("shape", "dim"), [((0, 1), 0), ((0,), 0), ((2, 0), 1)])
def test_an_indexed_empty_dim_is_an_error(shape, dim):
    with pytest.raises(RuntimeError):
        torch.zeros(*shape).index_fill_(dim, torch.tensor([0]), 1.0)
    with pytest.raises(IndexError, match=r"funcgrad\.index_fill: index 0 is out of bounds"):
        funcgrad.zeros(*shape).index_fill_(dim, funcgrad.tensor([0]), 1.0)
