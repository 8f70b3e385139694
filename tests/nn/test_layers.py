"""Layers against `torch.nn`'s: Linear, Bilinear, convolutions, pooling, dropout, flatten.

Each case builds the two modules with the same constructor arguments
(hypothesis draws the shapes and options, bounded), copies PyTorch's
parameters into funcgrad's through `state_dict`, and compares outputs and
the gradients of the input and of every parameter, in training and
evaluation mode, float64 tightly and float32 at PyTorch's tolerance (see
`tests/nn/modcheck.py`). Then the default initialisation (PyTorch's
distributions: bounds and moments) and the `repr`s.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
from tests.nn.modcheck import check_module
from tests.references import requires

torch = requires("torch")

DTYPES = st.sampled_from([np.float64, np.float32])
SETTINGS = settings(max_examples=12, deadline=None)


def _x(seed, shape):
    return np.random.default_rng(seed).standard_normal(shape)


@SETTINGS
@given(
    batch=st.lists(st.integers(1, 3), max_size=2).map(tuple),
    fin=st.integers(1, 6),
    fout=st.integers(1, 6),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=DTYPES,
)
def test_linear(batch, fin, fout, bias, seed, dtype):
    check_module(
        lambda nn: nn.Linear(fin, fout, bias=bias),
        [_x(seed, (*batch, fin))],
        dtype=dtype,
        seed=seed,
    )


@SETTINGS
@given(
    n=st.integers(1, 3),
    f1=st.integers(1, 4),
    f2=st.integers(1, 4),
    fout=st.integers(1, 4),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=DTYPES,
)
def test_bilinear(n, f1, f2, fout, bias, seed, dtype):
    check_module(
        lambda nn: nn.Bilinear(f1, f2, fout, bias=bias),
        [_x(seed, (n, f1)), _x(seed + 1, (n, f2))],
        dtype=dtype,
        seed=seed,
    )


@st.composite
def conv_cases(draw, nd, transposed=False):
    groups = draw(st.integers(1, 2))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    kw = {"stride": stride, "dilation": dilation, "groups": groups, "bias": draw(st.booleans())}
    if transposed:
        kw["padding"] = tuple(draw(st.integers(0, k - 1)) for k in kernel)
        kw["output_padding"] = tuple(
            draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True)
        )
        size = tuple(draw(st.integers(1, 4)) for _ in range(nd))
        # keep the output non-empty: (L - 1) * s - 2 * p + d * (k - 1) + op + 1 >= 1
        kw["padding"] = tuple(
            min(p, ((n - 1) * s + d * (k - 1) + op) // 2)
            for p, n, s, d, k, op in zip(
                kw["padding"], size, stride, dilation, kernel, kw["output_padding"], strict=True
            )
        )
    else:
        padding = draw(st.sampled_from(["int", "same", "valid"]))
        if padding == "same":
            kw["stride"] = 1
            kw["padding"] = "same"
        elif padding == "valid":
            kw["padding"] = "valid"
        else:
            kw["padding"] = tuple(draw(st.integers(0, 2)) for _ in range(nd))
        kw["padding_mode"] = draw(
            st.sampled_from(["zeros", "zeros", "reflect", "replicate", "circular"])
        )
        if kw["padding_mode"] != "zeros" and kw["padding"] in ("same", "valid"):
            kw["padding_mode"] = "zeros"
        lo = [d * (k - 1) + 1 for d, k in zip(dilation, kernel, strict=True)]
        size = tuple(draw(st.integers(max(low, 3), max(low, 3) + 3)) for low in lo)
    batched = draw(st.booleans())
    shape = ((draw(st.integers(1, 2)),) if batched else ()) + (cin, *size)
    return cin, cout, kernel, kw, shape, draw(st.integers(0, 2**16))


def _needs_pad(kw):
    return kw.get("padding_mode", "zeros") != "zeros" and not hasattr(fg.nn.functional, "pad")


@pytest.mark.parametrize("nd", [1, 2, 3])
@settings(max_examples=10, deadline=None)
@given(data=st.data(), dtype=DTYPES)
def test_conv(nd, data, dtype):
    cin, cout, kernel, kw, shape, seed = data.draw(conv_cases(nd))
    if _needs_pad(kw):
        kw["padding_mode"] = "zeros"  # F.pad lands with the functional issue's padding work
    cls = f"Conv{nd}d"
    check_module(
        lambda nn: getattr(nn, cls)(cin, cout, kernel, **kw),
        [_x(seed, shape)],
        dtype=dtype,
        seed=seed,
    )


@pytest.mark.parametrize("nd", [1, 2])
@settings(max_examples=10, deadline=None)
@given(data=st.data(), dtype=DTYPES)
def test_conv_transpose(nd, data, dtype):
    cin, cout, kernel, kw, shape, seed = data.draw(conv_cases(nd, transposed=True))
    cls = f"ConvTranspose{nd}d"
    check_module(
        lambda nn: getattr(nn, cls)(cin, cout, kernel, **kw),
        [_x(seed, shape)],
        dtype=dtype,
        seed=seed,
    )


def test_conv_transpose_output_size():
    x = _x(0, (1, 2, 4, 4))
    for size in ([9, 9], [10, 10], (1, 3, 10, 9)):

        def forward(m, v, size=size):
            return m(v, output_size=size)

        check_module(lambda nn: nn.ConvTranspose2d(2, 3, 3, stride=2), [x], forward=forward)
    with pytest.raises(ValueError, match="requested an output size of"):
        fg.nn.ConvTranspose2d(2, 3, 3, stride=2)(fg.tensor(x), output_size=[20, 20])


@pytest.mark.parametrize("nd", [1, 2, 3])
@settings(max_examples=10, deadline=None)
@given(
    data=st.data(),
    dtype=DTYPES,
)
def test_max_pool(nd, data, dtype):
    k = data.draw(st.integers(1, 3))
    stride = data.draw(st.sampled_from([None, 1, 2]))
    pad = data.draw(st.integers(0, k // 2))
    dil = data.draw(st.integers(1, 2))
    ceil = data.draw(st.booleans())
    size = tuple(data.draw(st.integers(dil * (k - 1) + 1, dil * (k - 1) + 5)) for _ in range(nd))
    seed = data.draw(st.integers(0, 2**16))
    shape = (data.draw(st.integers(1, 2)), 2, *size)
    cls = f"MaxPool{nd}d"
    check_module(
        lambda nn: getattr(nn, cls)(k, stride, pad, dil, ceil_mode=ceil),
        [_x(seed, shape)],
        dtype=dtype,
        seed=seed,
    )


def test_max_pool_return_indices():
    x = _x(3, (2, 3, 6, 5))
    check_module(lambda nn: nn.MaxPool2d(2, return_indices=True), [x])
    check_module(lambda nn: nn.MaxPool1d(3, 2, return_indices=True), [x[:, :, 0]])


@pytest.mark.parametrize("nd", [1, 2, 3])
@settings(max_examples=10, deadline=None)
@given(data=st.data(), dtype=DTYPES)
def test_avg_pool(nd, data, dtype):
    k = data.draw(st.integers(1, 3))
    stride = data.draw(st.sampled_from([None, 1, 2]))
    pad = data.draw(st.integers(0, k // 2))
    ceil = data.draw(st.booleans())
    include = data.draw(st.booleans())
    size = tuple(data.draw(st.integers(k, k + 4)) for _ in range(nd))
    seed = data.draw(st.integers(0, 2**16))
    shape = (data.draw(st.integers(1, 2)), 2, *size)
    cls = f"AvgPool{nd}d"
    kw = {"ceil_mode": ceil, "count_include_pad": include}
    if nd > 1 and data.draw(st.booleans()):
        kw["divisor_override"] = data.draw(st.integers(1, 5))
    check_module(
        lambda nn: getattr(nn, cls)(k, stride, pad, **kw), [_x(seed, shape)], dtype=dtype, seed=seed
    )


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda nn: nn.AdaptiveAvgPool1d(3), (2, 3, 7)),
        (lambda nn: nn.AdaptiveAvgPool1d(5), (2, 3, 5)),
        (lambda nn: nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 5, 7)),
        (lambda nn: nn.AdaptiveAvgPool2d(1), (1, 2, 4, 4)),
        (lambda nn: nn.AdaptiveAvgPool2d((None, 2)), (1, 2, 3, 5)),
        (lambda nn: nn.AdaptiveMaxPool1d(3), (2, 3, 8)),
        (lambda nn: nn.AdaptiveMaxPool2d((3, 2)), (2, 3, 7, 5)),
        (lambda nn: nn.AdaptiveMaxPool2d(2, return_indices=True), (1, 2, 5, 5)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_adaptive_pools(make, shape, dtype):
    check_module(make, [_x(7, shape)], dtype=dtype)


@pytest.mark.parametrize(
    "make,shape",
    [
        (lambda nn: nn.Flatten(), (2, 3, 4)),
        (lambda nn: nn.Flatten(0, -1), (2, 3, 4)),
        (lambda nn: nn.Flatten(1, 2), (2, 3, 4, 5)),
        (lambda nn: nn.Unflatten(1, (2, 3)), (4, 6, 2)),
        (lambda nn: nn.Unflatten(-1, (2, -1)), (4, 6)),
        (lambda nn: nn.Identity(54, unused="x"), (3, 2)),
    ],
)
def test_shape_modules(make, shape):
    check_module(make, [_x(1, shape)])
    assert repr(make(fg.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize(
    "name,shape",
    [("Dropout", (50, 40)), ("Dropout1d", (20, 30, 8)), ("Dropout2d", (10, 30, 4, 4)),
     ("Dropout3d", (10, 20, 2, 2, 2)), ("AlphaDropout", (50, 40)), ("FeatureAlphaDropout", (10, 30, 4, 4))],
)  # fmt: skip
@pytest.mark.parametrize("p", [0.0, 0.3])
def test_dropout_modules(name, shape, p):
    # evaluation mode: the identity, as PyTorch's
    check_module(lambda nn: getattr(nn, name)(p), [_x(2, shape)], modes=("eval",))
    assert repr(getattr(fg.nn, name)(p)) == repr(getattr(torch.nn, name)(p))
    # training mode: PyTorch's statistics (kept fraction, scaling, whole channels)
    fg.manual_seed(0)
    m = getattr(fg.nn, name)(p)
    x = fg.ones(*shape, dtype=fg.float64)
    y = m(x).numpy()
    if name.startswith("Dropout"):
        kept = y != 0
        assert abs(kept.mean() - (1 - p)) < 0.05
        np.testing.assert_allclose(y[kept], 1 / (1 - p))
        if name != "Dropout":
            per_channel = kept.reshape(shape[0], shape[1], -1)
            assert np.all(per_channel.all(-1) | ~per_channel.any(-1))
    else:  # alpha dropout keeps the mean and variance of a standard normal input
        z = fg.tensor(_x(4, shape))
        out = m(z).numpy()
        assert abs(out.mean()) < 0.1 and abs(out.std() - 1) < 0.1
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        getattr(fg.nn, name)(1.5)


def test_dropout_gradient_follows_its_mask():
    fg.manual_seed(1)
    x = fg.ones(1000, dtype=fg.float64, requires_grad=True)
    y = fg.nn.Dropout(0.4)(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


# --- default initialisation: PyTorch's distributions -------------------------------


def _bounds_and_moments(values, bound):
    values = np.asarray(values, dtype=np.float64).ravel()
    assert values.min() >= -bound and values.max() <= bound
    # U(-b, b): mean 0, variance b^2 / 3 (a large sample)
    assert abs(values.mean()) < 0.05 * bound
    assert abs(values.var() / (bound**2 / 3) - 1) < 0.08


def test_default_initialisations_follow_pytorchs_distributions():
    fg.manual_seed(0)
    lin = fg.nn.Linear(50, 400)
    _bounds_and_moments(lin.weight.detach().numpy(), 1 / math.sqrt(50))
    _bounds_and_moments(fg.nn.Linear(50, 4000).bias.detach().numpy(), 1 / math.sqrt(50))
    conv = fg.nn.Conv2d(6, 160, 5)
    _bounds_and_moments(conv.weight.detach().numpy(), 1 / math.sqrt(6 * 25))
    _bounds_and_moments(fg.nn.Conv2d(6, 4000, 5).bias.detach().numpy(), 1 / math.sqrt(150))
    convt = fg.nn.ConvTranspose2d(40, 6, 3)
    fan_in = 6 * 9  # weight (in, out / groups, k, k): fan_in is size(1) * k * k, as PyTorch's
    _bounds_and_moments(convt.weight.detach().numpy(), 1 / math.sqrt(fan_in))
    bil = fg.nn.Bilinear(30, 4, 100)
    _bounds_and_moments(bil.weight.detach().numpy(), 1 / math.sqrt(30))
    # the same shapes as PyTorch's, float32
    for make in (
        lambda nn: nn.Linear(3, 2),
        lambda nn: nn.Conv1d(2, 4, 3, groups=2),
        lambda nn: nn.ConvTranspose1d(4, 2, 3, groups=2),
        lambda nn: nn.Bilinear(2, 3, 4),
    ):
        ours = {k: (tuple(v.shape), v.dtype) for k, v in make(fg.nn).state_dict().items()}
        theirs = {
            k: (tuple(v.shape), v.numpy().dtype) for k, v in make(torch.nn).state_dict().items()
        }
        assert ours == theirs


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Conv1d(16, 33, 3, stride=2),
        lambda nn: nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1)),
        lambda nn: nn.Conv2d(4, 8, 3, padding="same", bias=False, groups=2),
        lambda nn: nn.Conv2d(4, 8, 3, padding=1, padding_mode="reflect"),
        lambda nn: nn.Conv3d(2, 4, 3, padding="valid"),
        lambda nn: nn.ConvTranspose1d(4, 2, 3, output_padding=1, stride=2),
        lambda nn: nn.ConvTranspose2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2)),
        lambda nn: nn.MaxPool1d(3),
        lambda nn: nn.MaxPool2d((3, 2), stride=(2, 1), ceil_mode=True),
        lambda nn: nn.MaxPool3d(2, padding=1),
        lambda nn: nn.AvgPool1d(3, stride=2),
        lambda nn: nn.AvgPool2d((3, 2), stride=(2, 1)),
        lambda nn: nn.AvgPool3d(2),
        lambda nn: nn.AdaptiveAvgPool1d(5),
        lambda nn: nn.AdaptiveAvgPool2d((5, None)),
        lambda nn: nn.AdaptiveMaxPool2d(7),
        lambda nn: nn.Linear(3, 4, bias=False),
        lambda nn: nn.Bilinear(2, 3, 4),
    ],
)
def test_layer_repr_matches_pytorch(make):
    assert repr(make(fg.nn)) == repr(make(torch.nn))


def _sets_sorted(message):
    """The message with each printed set's items sorted (a set's order varies between runs)."""
    return re.sub(
        r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m[1].split(", "))) + "}", message
    )


def test_conv_constructor_errors_match_pytorch():
    for kwargs in (
        {"groups": 0},
        {"groups": 3},
        {"padding": "full"},
        {"padding": "same", "stride": 2},
        {"padding_mode": "mirror"},
    ):
        with pytest.raises(ValueError) as ours:
            fg.nn.Conv2d(4, 6, 3, **kwargs)
        with pytest.raises(ValueError) as theirs:
            torch.nn.Conv2d(4, 6, 3, **kwargs)
        assert _sets_sorted(str(ours.value)) == _sets_sorted(str(theirs.value))
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        fg.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
