"""`MultiheadAttention`, `TransformerEncoderLayer`, `TransformerEncoder` and `LayerNorm` against PyTorch's.

Same constructor on both sides, PyTorch's parameters copied through
`state_dict`, then outputs, attention weights and the gradients of the
inputs and of every parameter (evaluation mode, and training mode with
`dropout=0`), over hypothesis-drawn options and masks (boolean and float,
`attn_mask` and `key_padding_mask`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
from tests.nn.modcheck import check_module
from tests.references import requires

torch = requires("torch")


def _lib_tensor(lib, value):
    return None if value is None else lib.tensor(value)


@settings(max_examples=25, deadline=None)
@given(
    heads=st.sampled_from([1, 2]),
    head_dim=st.integers(1, 3),
    bias=st.booleans(),
    add_bias_kv=st.booleans(),
    add_zero_attn=st.booleans(),
    separate=st.booleans(),
    batch_first=st.booleans(),
    batch=st.sampled_from([None, 1, 2]),
    tgt=st.integers(1, 3),
    src=st.integers(1, 3),
    masks=st.sampled_from(["none", "bool_attn", "float_attn", "padding", "both"]),
    average=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_multihead_attention(
    heads, head_dim, bias, add_bias_kv, add_zero_attn, separate, batch_first, batch, tgt, src,
    masks, average, seed, dtype,
):  # fmt: skip
    e = heads * head_dim
    kdim, vdim = (e + 1, e + 2) if separate else (None, None)
    rng = np.random.default_rng(seed)

    def shape(n, d):
        if batch is None:
            return (n, d)
        return (batch, n, d) if batch_first else (n, batch, d)

    q = rng.standard_normal(shape(tgt, e))
    k = rng.standard_normal(shape(src, kdim or e))
    v = rng.standard_normal(shape(src, vdim or e))
    attn_mask = key_padding_mask = None
    if masks in ("bool_attn", "both"):
        attn_mask = rng.random((tgt, src)) < 0.3
        attn_mask[:, 0] = False  # every query sees at least one key
    elif masks == "float_attn":
        attn_mask = rng.standard_normal((tgt, src)).astype(dtype)
    if masks in ("padding", "both"):
        key_padding_mask = rng.random((batch or 1, src)) < 0.3
        key_padding_mask[:, 0] = False
        if batch is None:
            key_padding_mask = key_padding_mask[0]

    def forward(m, qq, kk, vv, attn_mask=attn_mask, key_padding_mask=key_padding_mask):
        lib = torch if isinstance(qq, torch.Tensor) else fg
        return m(
            qq, kk, vv,
            key_padding_mask=_lib_tensor(lib, key_padding_mask),
            attn_mask=_lib_tensor(lib, attn_mask),
            average_attn_weights=average,
        )  # fmt: skip

    check_module(
        lambda nn: nn.MultiheadAttention(
            e,
            heads,
            bias=bias,
            add_bias_kv=add_bias_kv,
            add_zero_attn=add_zero_attn,
            kdim=kdim,
            vdim=vdim,
            batch_first=batch_first,
        ),  # fmt: skip
        [q, k, v],
        dtype=dtype,
        seed=seed,
        forward=forward,
    )


def test_need_weights_false_and_causal_mask():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 2, 6))
    mask = np.triu(np.full((4, 4), -np.inf), k=1)

    def forward(m, xx):
        lib = torch if isinstance(xx, torch.Tensor) else fg
        out, w = m(xx, xx, xx, attn_mask=lib.tensor(mask), need_weights=False, is_causal=True)
        assert w is None
        return out

    check_module(lambda nn: nn.MultiheadAttention(6, 3), [x], forward=forward)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        fg.nn.MultiheadAttention(6, 3)(
            fg.ones(2, 1, 6), fg.ones(2, 1, 6), fg.ones(2, 1, 6), is_causal=True
        )


@settings(max_examples=15, deadline=None)
@given(
    heads=st.sampled_from([1, 2]),
    ff=st.integers(1, 6),
    norm_first=st.booleans(),
    activation=st.sampled_from(["relu", "gelu"]),
    batch_first=st.booleans(),
    bias=st.booleans(),
    padding=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_transformer_encoder_layer(
    heads, ff, norm_first, activation, batch_first, bias, padding, seed, dtype
):
    d = 2 * heads
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, d) if batch_first else (3, 2, d))
    kpm = None
    if padding:
        kpm = np.array([[False, False, True], [False, False, False]])

    def forward(m, xx):
        lib = torch if isinstance(xx, torch.Tensor) else fg
        return m(xx, src_key_padding_mask=_lib_tensor(lib, kpm))

    check_module(
        lambda nn: nn.TransformerEncoderLayer(
            d,
            heads,
            ff,
            dropout=0.0,
            activation=activation,
            batch_first=batch_first,
            norm_first=norm_first,
            bias=bias,
        ),  # fmt: skip
        [x],
        dtype=dtype,
        seed=seed,
        forward=forward,
        # float32: attention, the feed-forward block and two layer norms accumulate more
        # rounding than one layer (4.8e-5 relative seen on an input gradient)
        tol=None if dtype == np.float64 else {"rtol": 2e-4, "atol": 2e-4},
    )


def test_transformer_encoder_stack():
    x = np.random.default_rng(1).standard_normal((4, 2, 8))

    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8), enable_nested_tensor=False)

    check_module(make, [x])
    assert [n for n, _ in make(fg.nn).named_parameters()] == [
        n for n, _ in make(torch.nn).named_parameters()
    ]


@settings(max_examples=10, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple),
    k=st.integers(1, 2),
    affine=st.booleans(),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_layer_norm(shape, k, affine, bias, seed, dtype):
    k = min(k, len(shape))
    x = np.random.default_rng(seed).standard_normal(shape)
    check_module(
        lambda nn: nn.LayerNorm(shape[-k:], elementwise_affine=affine, bias=bias),
        [x],
        dtype=dtype,
        seed=seed,
        # float32: the input gradient subtracts two means of near-equal terms (2.5e-4
        # relative on an entry of 0.09 seen), so a looser bound than one float32 product
        tol=None if dtype == np.float64 else {"rtol": 5e-4, "atol": 5e-5},
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.MultiheadAttention(4, 2),
        lambda nn: nn.MultiheadAttention(4, 2, kdim=3, vdim=5, bias=False, add_bias_kv=True),
        lambda nn: nn.TransformerEncoderLayer(4, 2, 8, activation="gelu", norm_first=True),
        lambda nn: nn.LayerNorm((3, 4), elementwise_affine=False),
    ],
)
def test_repr_and_names(make):
    ours, theirs = make(fg.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    assert list(ours.state_dict()) == list(theirs.state_dict())


@settings(max_examples=8, deadline=None)
@given(
    norm_first=st.booleans(),
    activation=st.sampled_from(["relu", "gelu"]),
    batch_first=st.booleans(),
    causal=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_transformer_decoder_layer(norm_first, activation, batch_first, causal, seed, dtype):
    rng = np.random.default_rng(seed)
    tgt = rng.standard_normal((2, 3, 4) if batch_first else (3, 2, 4))
    mem = rng.standard_normal((2, 5, 4) if batch_first else (5, 2, 4))
    mask = np.triu(np.full((3, 3), -np.inf, dtype=dtype), 1) if causal else None

    def forward(m, t, s):
        lib = torch if isinstance(t, torch.Tensor) else fg
        return m(t, s, tgt_mask=_lib_tensor(lib, mask))

    check_module(
        lambda nn: nn.TransformerDecoderLayer(
            4,
            2,
            6,
            dropout=0.0,
            activation=activation,
            batch_first=batch_first,
            norm_first=norm_first,
        ),  # fmt: skip
        [tgt, mem],
        dtype=dtype,
        seed=seed,
        forward=forward,
    )


def test_transformer():
    rng = np.random.default_rng(2)
    src = rng.standard_normal((5, 2, 8))
    tgt = rng.standard_normal((3, 2, 8))
    mask = fg.nn.Transformer.generate_square_subsequent_mask(3).numpy()
    np.testing.assert_array_equal(
        mask, torch.nn.Transformer.generate_square_subsequent_mask(3).numpy()
    )

    def forward(m, s, t):
        lib = torch if isinstance(s, torch.Tensor) else fg
        return m(s, t, tgt_mask=lib.tensor(mask))

    check_module(
        lambda nn: nn.Transformer(8, 2, 1, 2, 16, dropout=0.0), [src, tgt], forward=forward
    )
    ours = fg.nn.Transformer(8, 2, 1, 1, 16)
    theirs = torch.nn.Transformer(8, 2, 1, 1, 16)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    # Xavier-uniform weights: bounded by sqrt(6 / (fan_in + fan_out))
    w = ours.encoder.layers[0].linear1.weight.detach().numpy()
    assert np.abs(w).max() <= np.sqrt(6 / (8 + 16))
