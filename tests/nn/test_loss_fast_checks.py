"""The class-index bounds check of the losses (`_check_bounds`) against its definition.

int64 labels take one reduction over their unsigned view (a negative label is then
above every class); other integer dtypes take the minimum and the maximum. Both must
accept exactly the labels in [0, C) (or equal to ignore_index) and name the first bad one.
"""

from __future__ import annotations

import numpy as np
import pytest

from funcgrad.errors import IndexingError
from funcgrad.nn.functional._loss import _check_bounds


def _bad_by_definition(idx, n_classes, ignore_index):
    valid = idx if ignore_index is None else idx[idx != ignore_index]
    bad = valid[(valid < 0) | (valid >= n_classes)]
    return int(bad.flat[0]) if bad.size else None


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8, np.uint64])
@pytest.mark.parametrize("ignore_index", [None, -100, 3])
def test_bounds_check_is_its_definition(dtype, ignore_index):
    rng = np.random.default_rng(2)
    info = np.iinfo(dtype)
    specials = [0, 1, 4, 5, 6, -1, -100, 3, info.min, info.max, -(2**62)]
    for n_classes in (0, 1, 5):
        for _ in range(40):
            labels = rng.integers(0, max(n_classes, 1), rng.integers(0, 6))
            picks = rng.integers(0, len(specials), rng.integers(0, 3))
            values = [specials[i] for i in picks if info.min <= specials[i] <= info.max]
            idx = rng.permutation(np.concatenate([labels.astype(dtype), np.array(values, dtype)]))
            want = _bad_by_definition(idx, n_classes, ignore_index)
            if want is None:
                _check_bounds("cross_entropy", idx, n_classes, ignore_index)
                continue
            with pytest.raises(IndexingError, match=f"Target {want} is out of bounds"):
                _check_bounds("cross_entropy", idx, n_classes, ignore_index)
