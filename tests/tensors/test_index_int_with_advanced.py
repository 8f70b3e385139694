"""Integers mixed with advanced indices follow PyTorch, not NumPy.

PyTorch selects with every integer first and indexes what is left; NumPy
counts an integer as an advanced index, so `x[0, :, [0, 0]]` of a (2, 3, 4)
tensor was (2, 3) in funcgrad and is (3, 2) in PyTorch (H3, session 12):
a silently different shape and arrangement. Checked against PyTorch 2.13:
values, `t[index] = v` and gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

MASK = np.array([[True, False, True, False]] * 3)
INDICES = [
    (0, None, [0, 0]),
    (0, slice(None), [0, 0]),
    ([0, 1], None, 0),
    (slice(None), 0, None, [1, 2]),
    (0, [0, 1], [1, 2]),
    (None, 0, [0, 1]),
    (Ellipsis, 1, [0, 2]),
    (1, Ellipsis, [3, 0]),
    ([1, 0], slice(None), 2),
    (0, MASK),
    (1, slice(1, 3), [[0, 1], [2, 3]]),
    (np.int64(1), slice(None), [2]),
    (0, [True, False, True]),
    (-1, slice(None, None, 2), [-1, 0]),
]


def _torch_index(index):
    return tuple(torch.tensor(i) if isinstance(i, np.ndarray) else i for i in index)


@pytest.mark.parametrize("index", INDICES, ids=[str(k) for k in range(len(INDICES))])
def test_like_pytorch(index):
    x = np.arange(24.0).reshape(2, 3, 4)
    want = torch.tensor(x)[_torch_index(index)]
    got = fg.tensor(x)[index]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())

    v = np.arange(want.numel(), dtype=np.float64).reshape(tuple(want.shape)) + 100.0
    t, f = torch.tensor(x), fg.tensor(x)
    t[_torch_index(index)] = torch.tensor(v)
    f[index] = fg.tensor(v)
    np.testing.assert_array_equal(f.numpy(), t.numpy())

    a, b = torch.tensor(x, requires_grad=True), fg.tensor(x, requires_grad=True)
    (a[_torch_index(index)] * torch.tensor(v)).sum().backward()
    (b[index] * fg.tensor(v)).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())
