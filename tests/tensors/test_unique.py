"""`funcgrad.unique` and `Tensor.unique` give PyTorch 2.13's values, inverse indices and counts."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

NAN = math.nan
DATA = {
    "ints": [1, 2, 1, 2, 1, 2],
    "unsorted floats": [3.5, -1.0, 3.5, 0.0, -1.0, 7.25],
    "nan": [NAN, 1.0, NAN, -2.0, 1.0],
    "bool": [True, False, True],
    "2-D": [[3, 1, 3], [0, 1, 9]],
    "rows": [[1, 2], [1, 2], [0, 5], [1, 0]],
    "scalar": 5,
    "empty": [],
}
OPTIONS = [
    {},
    {"return_inverse": True},
    {"return_counts": True},
    {"return_inverse": True, "return_counts": True, "sorted": False},
    {"dim": 0, "return_inverse": True, "return_counts": True},
    {"dim": 1, "return_inverse": True},
    {"dim": -1, "return_counts": True},
]


def _as_list(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
@pytest.mark.parametrize("name", DATA)
def test_unique_matches_pytorch(name, options):
    data = DATA[name]
    ndim = np.ndim(data)
    if "dim" in options and (ndim == 0 or options["dim"] >= ndim):
        pytest.skip("no such dimension")
    if "dim" in options and name == "nan":
        # NOTE: PyTorch 2.13 leaves 1-D data with NaN unsorted under dim= (its comparator is
        # no strict weak order with NaN); funcgrad sorts (see the NaN rows test)
        pytest.skip("PyTorch's order is unspecified here")
    theirs = _as_list(torch.unique(torch.tensor(data), **options))
    ours = _as_list(fg.unique(fg.tensor(data), **options))
    method = _as_list(fg.tensor(data).unique(**options))
    assert len(ours) == len(theirs) == len(method)
    for o, m, t in zip(ours, method, theirs, strict=True):
        assert o.dtype == t.numpy().dtype and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_array_equal(o.numpy(), t.numpy())
        np.testing.assert_array_equal(m.numpy(), t.numpy())


def test_unique_of_a_tensor_that_requires_grad_has_no_gradient():
    x = fg.tensor([3.0, 1.0, 3.0], requires_grad=True)
    u = fg.unique(x)
    assert u.tolist() == [1.0, 3.0] and not u.requires_grad
    with pytest.raises(fg.errors.OpError, match="funcgrad.unique: dim= needs a tensor"):
        fg.unique(fg.tensor(1.0), dim=0)


def test_rows_with_nan_are_distinct_as_in_pytorch():
    data = [[1.0, NAN], [1.0, NAN], [0.0, 1.0], [0.0, 1.0]]
    theirs = torch.unique(torch.tensor(data), dim=0, return_inverse=True, return_counts=True)
    ours = fg.unique(fg.tensor(data), dim=0, return_inverse=True, return_counts=True)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(o.numpy(), t.numpy())


EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 3), (0, 0), (1, 0)]


@pytest.mark.parametrize(
    "shape, dim", [(s, d) for s in EMPTY_SHAPES for d in (*range(len(s)), -1)], ids=str
)
def test_unique_of_empty_slices_follows_pytorch(shape, dim):
    """No slices along `dim` give the empty tensor back with empty inverse and counts; empty
    slices along `dim` (or two empty dimensions) raise, as PyTorch's RuntimeError does."""
    options = {"dim": dim, "return_inverse": True, "return_counts": True}
    try:
        torch.unique(torch.zeros(shape, dtype=torch.int64), **options)
    except RuntimeError as e:
        assert "unique cannot be applied" in str(e)
        with pytest.raises(fg.errors.OpError, match=rf"funcgrad.unique: .*{re.escape(str(shape))}"):
            fg.unique(fg.zeros(shape, dtype=fg.int64), **options)
        return
    both = {"return_inverse": True, "return_counts": True}
    for flags in ({}, {"return_inverse": True}, {"return_counts": True}, both):
        theirs = _as_list(torch.unique(torch.zeros(shape, dtype=torch.int64), dim=dim, **flags))
        ours = _as_list(fg.unique(fg.zeros(shape, dtype=fg.int64), dim=dim, **flags))
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs, strict=True):
            assert o.dtype == t.numpy().dtype and tuple(o.shape) == tuple(t.shape)
    x = fg.zeros(shape, requires_grad=True)
    u = fg.unique(x, dim=dim)
    assert not u.requires_grad and tuple(u.shape) == shape
