"""quantile/nanquantile pick the entries PyTorch picks: the rank q * (n - 1) is computed in the input's dtype.

PyTorch computes the rank in float32 for float32 input, so where q * (n - 1)
lands next to .5 the two dtypes can round 'nearest' (and the floor of
'lower', the ceil of 'higher') differently: torch.quantile(arange(16.), 0.3,
'nearest') is 4 in float32 (0.3 * 15 rounds to 4.5, to even: 4) where a
float64 rank (4.50000018) gives 5.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.references import requires

INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


def test_the_reported_case():
    torch = requires("torch")
    got = fg.quantile(fg.arange(16.0), 0.3, interpolation="nearest").item()
    assert got == torch.quantile(torch.arange(16.0), 0.3, interpolation="nearest").item() == 4.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_every_rank_matches_pytorch(name, interpolation, dtype):
    torch = requires("torch")
    rng = np.random.default_rng(0)
    # the picks are exact; linear interpolation is NumPy's formula (two-sided) against
    # PyTorch's lerp, which differ in the last bits
    eps = float(np.finfo(dtype).eps)
    check = np.testing.assert_array_equal
    if interpolation == "linear":
        check = lambda a, b, err_msg: np.testing.assert_allclose(  # noqa: E731
            a, b, rtol=4 * eps, atol=4 * eps, err_msg=err_msg
        )
    qs = np.round(np.arange(0.0, 1.0001, 0.05), 2).astype(dtype)
    for n in range(2, 40):
        x = rng.standard_normal((3, n)).astype(dtype)
        if name == "nanquantile":
            x[0, rng.integers(0, n)] = np.nan  # this slice counts n - 1 entries
        q_fg, q_t = fg.tensor(qs), torch.tensor(qs)
        got = getattr(fg, name)(fg.tensor(x), q_fg, dim=-1, interpolation=interpolation)
        want = getattr(torch, name)(torch.tensor(x), q_t, dim=-1, interpolation=interpolation)
        check(got.numpy(), want.numpy(), err_msg=f"n={n}")
        flat = getattr(fg, name)(fg.tensor(x), q_fg, interpolation=interpolation)
        flat_t = getattr(torch, name)(torch.tensor(x), q_t, interpolation=interpolation)
        check(flat.numpy(), flat_t.numpy(), err_msg=f"n={n}, flat")
