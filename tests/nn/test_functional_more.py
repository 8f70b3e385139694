"""Normalization, embedding, one_hot, pad, interpolate, pixel shuffles, attention and distances against PyTorch.

Outputs and gradients in float64 and float32, the running statistics of
`batch_norm` and `instance_norm` (updated in place), the functional world
against the Tensor world, and gradient penalties (second order).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.nn.functional as F
from tests.nn.fcheck import compare, forward_mode, second_order, torch

DTYPES = [np.float64, np.float32]
ids = ["float64", "float32"]


def _x(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(
    lead=st.lists(st.integers(1, 3), min_size=1, max_size=2),
    norm=st.lists(st.integers(3, 4), min_size=1, max_size=2),
    affine=st.booleans(),
    seed=st.integers(0, 99),
)
def test_layer_norm(dtype, lead, norm, affine, seed):
    x = _x(seed, (*lead, *norm))
    w, b = (_x(seed + 1, norm), _x(seed + 2, norm)) if affine else (None, None)
    compare("layer_norm", [x, norm, w, b], {"eps": 1e-5}, dtype=dtype)


def _with_stats(f, stats):
    def run(x, w, b, **k):
        return f(x, *stats, w, b, **k)

    return run


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("training", [True, False])
@given(n=st.integers(2, 3), c=st.integers(1, 3), spatial=st.lists(st.integers(1, 3), max_size=2),
       momentum=st.sampled_from([0.1, 0.5]), affine=st.booleans(), seed=st.integers(0, 99))  # fmt: skip
def test_batch_and_instance_norm_with_running_statistics(dtype, training, n, c, spatial, momentum,
                                                         affine, seed):  # fmt: skip
    x = _x(seed, (n, c, *spatial))
    w, b = (_x(seed + 1, c), _x(seed + 2, c)) if affine else (None, None)
    rm, rv = _x(seed + 3, c).astype(dtype), (np.abs(_x(seed + 4, c)) + 0.5).astype(dtype)
    for name, opt in (("batch_norm", "training"), ("instance_norm", "use_input_stats")):
        if name == "instance_norm" and (not spatial or np.prod(spatial) < 2):
            continue
        ours = (fg.tensor(rm.copy()), fg.tensor(rv.copy()))
        theirs = (torch.tensor(rm.copy()), torch.tensor(rv.copy()))

        fg_fn = _with_stats(getattr(F, name), ours)
        th_fn = _with_stats(getattr(torch.nn.functional, name), theirs)

        compare(name, [x, w, b], {opt: training, "momentum": momentum}, dtype=dtype,
                fg_fn=fg_fn, torch_fn=th_fn, worlds=False)  # fmt: skip
        for a, t in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


def test_batch_norm_on_arrays_updates_in_place_and_refuses_nodes():
    x = _x(0, (4, 3, 2))
    rm, rv = np.zeros(3), np.ones(3)
    F.batch_norm(x, rm, rv, training=True, momentum=0.5)
    np.testing.assert_allclose(rm, 0.5 * x.mean(axis=(0, 2)))
    np.testing.assert_allclose(rv, 0.5 + 0.5 * x.var(axis=(0, 2), ddof=1))
    g = fg.grad(lambda x: F.batch_norm(x, None, None, training=True).sum())(x)
    np.testing.assert_allclose(g, 0.0, atol=1e-12)
    with pytest.raises(TypeError, match="updated in place"):
        fg.grad(lambda r: F.batch_norm(x, r, np.ones(3), training=True).sum())(np.zeros(3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(np.ones((1, 3)), None, None, training=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(groups=st.sampled_from([1, 2, 4]), spatial=st.lists(st.integers(1, 3), max_size=2),
       affine=st.booleans(), seed=st.integers(0, 99))  # fmt: skip
def test_group_norm(dtype, groups, spatial, affine, seed):
    x = _x(seed, (2, 4, *spatial, 4))  # 4+ values per group: float32 keeps PyTorch's tolerance
    w, b = (_x(seed + 1, 4), _x(seed + 2, 4)) if affine else (None, None)
    compare("group_norm", [x, groups, w, b], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_local_response_norm_and_normalize(dtype):
    x = _x(0, (2, 5, 3, 2))
    compare("local_response_norm", [x, 3], {"alpha": 0.1, "beta": 0.5, "k": 2.0}, dtype=dtype)
    compare("local_response_norm", [x[..., 0], 2], dtype=dtype)
    compare("normalize", [x], dtype=dtype)
    compare("normalize", [x], {"p": 1.0, "dim": -1, "eps": 0.5}, dtype=dtype)


def test_normalization_second_order_and_forward_mode():
    x, w, b = _x(0, (3, 4, 5)), _x(1, 4), _x(2, 4)
    second_order("layer_norm", [x, (4, 5), _x(3, (4, 5)), _x(4, (4, 5))])
    second_order("group_norm", [x, 2, w, b])
    second_order("batch_norm", [x, None, None, w, b], {"training": True})
    second_order("instance_norm", [x, None, None, w, b])
    forward_mode(lambda x, w, b: F.layer_norm(x, (5,), w, b), (x, _x(5, 5), _x(6, 5)))
    forward_mode(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(shape=st.lists(st.integers(1, 3), max_size=2), n=st.integers(1, 5), seed=st.integers(0, 99),
       padding=st.booleans(), by_freq=st.booleans())  # fmt: skip
def test_embedding(dtype, shape, n, seed, padding, by_freq):
    idx = np.random.default_rng(seed).integers(0, n, size=shape)
    opts = {"padding_idx": int(idx.reshape(-1)[0]) - n * (seed % 2)} if padding and idx.size else {}
    opts["scale_grad_by_freq"] = by_freq
    compare("embedding", [idx, _x(seed, (n, 3))], opts, dtype=dtype)


def test_embedding_max_norm_renormalizes_in_place():
    w = _x(0, (5, 3)) * 3
    ours, theirs = (
        fg.tensor(w.copy(), requires_grad=True),
        torch.tensor(w.copy(), requires_grad=True),
    )
    idx = np.array([1, 3, 3])
    y = F.embedding(fg.tensor(idx), ours, max_norm=1.0)
    ty = torch.nn.functional.embedding(torch.tensor(idx), theirs, max_norm=1.0)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)


def test_one_hot():
    idx = np.array([[0, 3], [2, 2]])
    compare("one_hot", [idx], grads=False)
    compare("one_hot", [idx, 6], grads=False)
    assert F.one_hot(fg.tensor([1, 0])).dtype == fg.int64
    with pytest.raises(ValueError, match="Class values must be smaller than num_classes"):
        F.one_hot(np.array([3]), 2)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(k=st.integers(1, 3), pads=st.lists(st.integers(0, 2), min_size=6, max_size=6),
       seed=st.integers(0, 99))  # fmt: skip
def test_pad(mode, dtype, k, pads, seed):
    x = _x(seed, (2, 2, 3, 3, 3)[: k + 2])
    opts = {"mode": mode}
    if mode == "constant":
        opts["value"] = 0.5
    compare("pad", [x, tuple(pads[: 2 * k])], opts, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(
    nd=st.integers(1, 3),
    mode=st.sampled_from(["nearest", "nearest-exact", "linear", "area", "bicubic"]),
    by_size=st.booleans(),
    align=st.booleans(),
    sizes=st.lists(st.integers(1, 4), min_size=3, max_size=3),
    scale=st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]),
    seed=st.integers(0, 99),
)
def test_interpolate(dtype, nd, mode, by_size, align, sizes, scale, seed):
    if mode == "area" and nd == 3:
        mode = "nearest"
    if mode == "bicubic":
        nd = 2
    x = _x(seed, (2, 2, *sizes[:nd]))
    opts = {"mode": {1: "linear", 2: "bilinear", 3: "trilinear"}[nd] if mode == "linear" else mode}
    if by_size:
        opts["size"] = tuple(max(1, (s * 3) // 2) for s in sizes[:nd])
    else:
        opts["scale_factor"] = scale
        if any(int(n * scale) == 0 for n in sizes[:nd]):
            opts["scale_factor"] = 2.0
    if mode in ("linear", "bicubic"):
        opts["align_corners"] = align
    compare("interpolate", [x], opts, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_pixel_shuffle_and_unshuffle(dtype):
    compare("pixel_shuffle", [_x(0, (2, 8, 3, 2)), 2], dtype=dtype)
    compare("pixel_shuffle", [_x(0, (9, 1, 2)), 3], dtype=dtype)
    compare("pixel_unshuffle", [_x(0, (2, 3, 4, 6)), 2], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(mask=st.sampled_from(["none", "bool", "float", "causal"]), scale=st.sampled_from([None, 0.3]),
       heads=st.integers(1, 2), seed=st.integers(0, 99))  # fmt: skip
def test_scaled_dot_product_attention(dtype, mask, scale, heads, seed):
    q, k, v = (
        _x(seed, (2, heads, 4, 3)),
        _x(seed + 1, (2, heads, 5, 3)),
        _x(seed + 2, (2, heads, 5, 2)),
    )
    opts = {"scale": scale}
    if mask == "bool":
        m = np.random.default_rng(seed).random((4, 5)) > 0.3
        m[:, 0] = True  # no fully masked row (PyTorch's math kernel gives NaN there)
        opts["attn_mask"] = m
    elif mask == "float":
        opts["attn_mask"] = _x(seed + 3, (4, 5))
    elif mask == "causal":
        opts["is_causal"] = True
    compare("scaled_dot_product_attention", [q, k, v], opts, dtype=dtype)
    if dtype == np.float64 and seed % 4 == 0:
        second_order("scaled_dot_product_attention", [q, k, v], opts)


def test_attention_dropout_uses_the_generator():
    q = fg.ones(1, 8, 4)
    fg.manual_seed(0)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    fg.manual_seed(0)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert set(np.unique(a.numpy())) <= {0.0, 2.0} | set(np.unique(a.numpy()))


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@given(dim=st.integers(-2, 1), seed=st.integers(0, 99), p=st.sampled_from([1.0, 2.0, 3.0]))
def test_cosine_similarity_and_pairwise_distance(dtype, dim, seed, p):
    x1, x2 = _x(seed, (3, 4)), _x(seed + 1, (1, 4))
    compare("cosine_similarity", [x1, x2], {"dim": dim}, dtype=dtype)
    compare("pairwise_distance", [x1, x2], {"p": p, "keepdim": seed % 2 == 0}, dtype=dtype)
    if dtype == np.float64:
        second_order("cosine_similarity", [x1, x2], {"dim": dim})
        second_order("pairwise_distance", [x1, x2], {"p": p})
