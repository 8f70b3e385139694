"""Pooling and dropout of `funcgrad.nn.functional` against PyTorch.

Max pooling is compared on values without ties (a permutation of a grid),
so the gradient's choice of maximum is PyTorch's; ties are checked apart
(the first maximum wins, as in PyTorch's kernels).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.nn.functional as F
from tests.nn.fcheck import compare, forward_mode, second_order, torch

DTYPES = [np.float64, np.float32]


def _distinct(rng, shape):
    """Values without ties, well apart (a shuffled grid)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n / 2) * 0.25 + 0.01 * rng.standard_normal(shape)


@st.composite
def pool_case(draw, nd, dilate=True):
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = tuple(draw(st.integers(1, 2)) if dilate else 1 for _ in range(nd))
    ceil_mode = draw(st.booleans())
    sizes = tuple(
        d * (k - 1) + 1 - 2 * p + draw(st.integers(0, 4 if nd < 3 else 2)) or 1
        for k, d, p in zip(kernel, dilation, padding, strict=True)
    )
    sizes = tuple(max(n, 1) for n in sizes)
    lead = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    if draw(st.integers(0, 4)) == 0:
        lead = lead[1:]  # unbatched
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = _distinct(rng, (*lead, *sizes))
    opts = {"kernel_size": kernel if draw(st.booleans()) else kernel[0], "stride": stride,
            "padding": padding, "ceil_mode": ceil_mode}  # fmt: skip
    if isinstance(opts["kernel_size"], int):
        opts["kernel_size"] = (kernel[0],) * nd
        kernel = opts["kernel_size"]
        opts["padding"] = tuple(min(p, k // 2) for p, k in zip(padding, kernel, strict=True))
        if any(
            d * (k - 1) + 1 - 2 * p > n
            for k, d, p, n in zip(kernel, dilation, opts["padding"], sizes, strict=True)
        ):
            opts["kernel_size"] = tuple(1 for _ in kernel)
            opts["padding"] = (0,) * nd
    if dilate:
        opts["dilation"] = dilation
    if nd == 1:
        opts = {k: v[0] if isinstance(v, tuple) else v for k, v in opts.items()}
    return x, opts


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(data=st.data())
def test_max_pool_matches_torch(nd, dtype, data):
    x, opts = data.draw(pool_case(nd))
    opts["return_indices"] = data.draw(st.booleans())
    # a window wholly in the padding (dilated taps over a tiny input) has no maximum to pick
    assume(np.isfinite(getattr(F, f"max_pool{nd}d")(x, **opts)[0] if opts["return_indices"]
                       else getattr(F, f"max_pool{nd}d")(x, **opts)).all())  # fmt: skip
    y = compare(f"max_pool{nd}d", [x], opts, dtype=dtype)
    if nd == 2 and x.ndim == 4:
        assert y.grad_fn.name() == "MaxPool2DWithIndicesBackward0"


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(data=st.data())
def test_avg_pool_matches_torch(nd, dtype, data):
    x, opts = data.draw(pool_case(nd, dilate=False))
    opts["count_include_pad"] = data.draw(st.booleans())
    if nd == 3:  # PyTorch's avg_pool3d wants the unpadded input as large as the kernel
        k = opts["kernel_size"]
        assume(all(n >= kk for n, kk in zip(x.shape[-3:], k, strict=True)))
    if nd > 1 and data.draw(st.booleans()):
        opts["divisor_override"] = data.draw(st.integers(1, 5))
    compare(f"avg_pool{nd}d", [x], opts, dtype=dtype)


def test_max_pool_ties_take_the_first_maximum():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 1] = x[0, 0, 0, 1] = 1.0
    compare("max_pool2d", [x], {"kernel_size": 2, "return_indices": True})
    compare("max_pool2d", [np.zeros((1, 2, 4, 4))], {"kernel_size": 3, "stride": 1, "padding": 1})


def test_max_pool_propagates_nan_like_torch():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = np.nan
    y, i = F.max_pool2d(fg.tensor(x), 2, return_indices=True)
    ty, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), ty.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())


@given(data=st.data())
def test_pools_second_order(data):
    x, opts = data.draw(pool_case(2))
    assume(np.isfinite(F.max_pool2d(x, **opts)).all())
    second_order("max_pool2d", [x], opts)
    opts.pop("dilation")
    second_order("avg_pool2d", [x], opts)


def test_pools_forward_mode():
    x = _distinct(np.random.default_rng(0), (2, 2, 5, 6))
    forward_mode(lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), (x,))
    forward_mode(lambda x: F.avg_pool2d(x, (2, 3), padding=1, count_include_pad=False), (x,))
    forward_mode(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (x,))
    forward_mode(lambda x: F.adaptive_max_pool2d(x, (4, 4)), (x,))


@pytest.mark.parametrize("name", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(n=st.integers(1, 9), m=st.integers(1, 9), lead=st.integers(1, 2), seed=st.integers(0, 99))
def test_adaptive_pool1d_matches_torch(name, dtype, n, m, lead, seed):
    x = _distinct(np.random.default_rng(seed), (lead, 2, n))
    opts = {"return_indices": seed % 2 == 0} if "max" in name else {}
    compare(name, [x, m], opts, dtype=dtype)


@pytest.mark.parametrize("name", ["adaptive_avg_pool2d", "adaptive_max_pool2d"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(
    size=st.tuples(st.integers(1, 7), st.integers(1, 7)),
    out=st.tuples(st.one_of(st.none(), st.integers(1, 7)), st.integers(1, 7)),
    seed=st.integers(0, 99),
)
def test_adaptive_pool2d_matches_torch(name, dtype, size, out, seed):
    x = _distinct(np.random.default_rng(seed), (2, 2, *size))
    opts = {"return_indices": seed % 2 == 0} if "max" in name else {}
    compare(name, [x, out], opts, dtype=dtype)


def test_pool_errors_name_the_problem():
    with pytest.raises(ValueError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(fg.zeros(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(ValueError, match="Output size is too small"):
        F.max_pool2d(fg.zeros(1, 1, 2, 2), 3)
    with pytest.raises(ValueError, match="Expected 3D or 4D input"):
        F.avg_pool2d(fg.zeros(4, 4), 2)


# --- dropout -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
             "feature_alpha_dropout"],
)  # fmt: skip
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout_statistics_and_gradient(name, p):
    shape = {"dropout1d": (40, 50, 3), "dropout2d": (40, 50, 2, 3), "dropout3d": (40, 50, 2, 1, 3)}
    shape = shape.get(name, (200, 100, 3))
    fg.manual_seed(0)
    x = fg.ones(*shape, requires_grad=True)
    y = getattr(F, name)(x, p, training=True)
    y.sum().backward()
    v = y.detach().numpy()
    if "alpha" in name:
        if p not in (0.0, 1.0):  # mean and variance of a standard input are kept
            z = fg.randn(*shape)
            out = getattr(F, name)(z, p, training=True).numpy()
            assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05
        return
    if p == 1.0:
        assert not v.any() and not x.grad.numpy().any()
        return
    kept = v != 0
    np.testing.assert_allclose(v[kept], 1 / (1 - p), rtol=1e-6)
    np.testing.assert_array_equal(x.grad.numpy(), v)  # d(x * mask)/dx = mask
    assert abs(kept.mean() - (1 - p)) < 0.03
    if name != "dropout" and p:  # whole channels
        flat = kept.reshape(shape[0], shape[1], -1)
        assert (flat.all(-1) | ~flat.any(-1)).all()
    if p:
        assert y.grad_fn.name() == "MulBackward0"


def test_dropout_modes_and_worlds():
    x = fg.randn(3, 4, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.alpha_dropout(x, 0.5) is x  # training=False by default
    a = np.ones((100, 100), dtype=np.float32)
    y = F.dropout(a, 0.5)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and set(np.unique(y)) <= {0.0, 2.0}
    g = fg.grad(lambda a: F.dropout(a, 0.5).sum())(np.ones(1000))
    assert set(np.unique(g)) <= {0.0, 2.0}
    fg.manual_seed(3)
    first = F.dropout(fg.ones(50), 0.5).numpy()
    fg.manual_seed(3)
    np.testing.assert_array_equal(F.dropout(fg.ones(50), 0.5).numpy(), first)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(x, 1.5)
    t = fg.randn(4, 4)
    out = F.dropout(t, 0.5, inplace=True)
    assert out is t
