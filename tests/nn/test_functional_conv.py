"""`F.conv*`, `F.conv_transpose*`, `F.unfold`, `F.fold`, `F.linear`, `F.bilinear` against PyTorch.

Shapes and options are drawn by hypothesis (small, so the float64 checks
are tight and quick); each example compares outputs and gradients with
`torch.nn.functional` in float64 and float32, and the functional world
(arrays, nodes) with the Tensor world. A few examples also check the
second order (a gradient penalty, against PyTorch) and forward mode
(against central differences).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.nn.functional as F
from tests.nn.fcheck import compare, forward_mode, second_order

DTYPES = [np.float64, np.float32]


@st.composite
def conv_case(draw, nd=None, transposed=False):
    nd = nd or draw(st.integers(1, 3))
    groups = draw(st.integers(1, 2))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    if transposed:
        padding = tuple(
            draw(st.integers(0, (d * (k - 1)) // 1)) for k, d in zip(kernel, dilation, strict=True)
        )
        output_padding = tuple(
            draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True)
        )
        sizes = tuple(draw(st.integers(1, 4 if nd < 3 else 2)) for _ in range(nd))
        weight = (cin, cout // groups, *kernel)
        opts = {"stride": stride, "padding": padding, "output_padding": output_padding,
                "groups": groups, "dilation": dilation}  # fmt: skip
        # PyTorch needs a positive output size
        for n, k, s, p, d, e in zip(
            sizes, kernel, stride, padding, dilation, output_padding, strict=True
        ):
            if (n - 1) * s - 2 * p + d * (k - 1) + e + 1 <= 0:
                opts["padding"] = (0,) * nd
    else:
        pad = draw(st.sampled_from(["int", "tuple", "same", "valid"]))
        if pad == "same":
            stride = (1,) * nd
            padding = "same"
        elif pad == "valid":
            padding = "valid"
        elif pad == "int":
            padding = draw(st.integers(0, 2))
        else:
            padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
        low = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
        sizes = tuple(draw(st.integers(m, m + (3 if nd < 3 else 1))) for m in low)
        weight = (cout, cin // groups, *kernel)
        opts = {"stride": stride if draw(st.booleans()) or nd > 1 else stride[0],
                "padding": padding, "dilation": dilation, "groups": groups}  # fmt: skip
    batched = draw(st.booleans()) or True
    n = draw(st.integers(1, 2))
    x_shape = (n, cin, *sizes) if batched else (cin, *sizes)
    if draw(st.integers(0, 4)) == 0:
        x_shape = x_shape[1:]  # unbatched
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(weight)
    b = rng.standard_normal(cout) if draw(st.booleans()) else None
    return nd, x, w, b, opts


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(case=conv_case())
def test_conv_matches_torch(case, dtype):
    nd, x, w, b, opts = case
    y = compare(f"conv{nd}d", [x, w, b], opts, dtype=dtype)
    if x.ndim == nd + 2:
        assert y.grad_fn.name() == "ConvolutionBackward0"


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(case=conv_case(transposed=True))
def test_conv_transpose_matches_torch(case, dtype):
    nd, x, w, b, opts = case
    compare(f"conv_transpose{nd}d", [x, w, b], opts, dtype=dtype)


@given(case=conv_case(nd=2))
def test_conv2d_second_order(case):
    nd, x, w, b, opts = case
    second_order("conv2d", [x, w, b], opts)


@given(case=conv_case(nd=2, transposed=True))
def test_conv_transpose2d_second_order(case):
    nd, x, w, b, opts = case
    second_order("conv_transpose2d", [x, w, b], opts)


def test_conv_forward_mode():
    rng = np.random.default_rng(0)
    x, w, b = (
        rng.standard_normal((2, 4, 5, 6)),
        rng.standard_normal((4, 2, 3, 2)),
        rng.standard_normal(4),
    )
    forward_mode(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2), (x, w, b))
    forward_mode(
        lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1), (x, w)
    )
    forward_mode(
        lambda x, w: F.conv1d(x, w, padding="same", dilation=2, groups=2), (x[:, :, 0], w[:, :, 0])
    )


def test_conv_lenet_sizes_float32():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 1, 32, 32)).astype(np.float32)
    w1 = rng.standard_normal((6, 1, 5, 5)).astype(np.float32)
    compare("conv2d", [x, w1, rng.standard_normal(6)], dtype=np.float32)
    h = rng.standard_normal((8, 6, 14, 14))
    compare(
        "conv2d", [h, rng.standard_normal((16, 6, 5, 5)), rng.standard_normal(16)], dtype=np.float32
    )


def test_conv_errors_name_the_shapes():
    x = fg.zeros(1, 3, 8, 8)
    with pytest.raises(ValueError, match="expected input\\[1, 3, 8, 8\\] to have 1 channels"):
        F.conv2d(x, fg.zeros(6, 1, 5, 5))
    with pytest.raises(ValueError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\)"):
        F.conv2d(fg.zeros(8, 8), fg.zeros(6, 1, 5, 5))
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        F.conv2d(fg.zeros(1, 1, 8, 8), fg.zeros(1, 1, 3, 3), stride=2, padding="same")
    with pytest.raises(ValueError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(fg.zeros(1, 1, 2, 2), fg.zeros(1, 1, 3, 3))
    with pytest.raises(ValueError, match="output padding must be smaller"):
        F.conv_transpose2d(fg.zeros(1, 1, 2, 2), fg.zeros(1, 1, 3, 3), output_padding=1)


@st.composite
def fold_case(draw):
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    sizes = tuple(
        d * (k - 1) + 1 + draw(st.integers(0, 3)) for k, d in zip(kernel, dilation, strict=True)
    )
    c = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.standard_normal((draw(st.integers(1, 2)), c, *sizes))
    return x, {"kernel_size": kernel, "dilation": dilation, "padding": padding, "stride": stride}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(case=fold_case())
def test_unfold_and_fold_match_torch(case, dtype):
    x, opts = case
    cols = compare("unfold", [x], opts, dtype=dtype)
    c = np.random.default_rng(0).standard_normal(tuple(cols.shape))
    compare("fold", [c], {"output_size": x.shape[2:], **opts}, dtype=dtype)


def test_unfold_fold_forward_mode():
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 5))
    forward_mode(lambda x: F.unfold(x, (2, 3), padding=1, stride=(2, 1)), (x,))
    c = np.random.default_rng(0).standard_normal((1, 12, 9))
    forward_mode(lambda c: F.fold(c, (4, 5), (2, 3), padding=1, stride=2), (c,))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(
    lead=st.lists(st.integers(1, 3), max_size=2),
    fin=st.integers(1, 4),
    fout=st.integers(1, 4),
    bias=st.booleans(),
    vector=st.booleans(),
)
def test_linear_matches_torch(dtype, lead, fin, fout, bias, vector):
    rng = np.random.default_rng(len(lead) + fin * 7 + fout)
    x = rng.standard_normal((*lead, fin))
    w = rng.standard_normal((fin,) if vector else (fout, fin))
    b = rng.standard_normal(fout) if bias and not vector else None  # PyTorch: addmm needs a matrix
    compare("linear", [x, w, b], dtype=dtype)


def test_linear_second_order_and_forward_mode():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 4)), rng.standard_normal(2)
    second_order("linear", [x, w, b])
    forward_mode(F.linear, (x, w, b))


def test_linear_of_a_matrix_is_one_node_with_the_compositions_numbers():
    # a matrix input with a bias is the one `linear` primitive: the value and gradients of
    # x @ w.T + b bit for bit, each gradient a fresh row-major array
    rng = np.random.default_rng(3)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((16, 9), (5, 9), (5,)))

    recorded = []

    def loss(f):
        def of(x, w, b):
            recorded.append(f(x, w, b))
            return fg.numpy.sum(fg.numpy.tanh(recorded[-1]))

        return of

    composed = loss(lambda x, w, b: fg.numpy.matmul(x, fg.numpy.transpose(w)) + b)
    ours = fg.value_and_grad(loss(F.linear), argnums=(0, 1, 2))(x, w, b)
    theirs = fg.value_and_grad(composed, argnums=(0, 1, 2))(x, w, b)
    assert [node.prim.name for node in recorded] == ["linear", "add"]
    np.testing.assert_array_equal(ours[0], theirs[0])
    for g, h in zip(ours[1], theirs[1], strict=True):
        assert g.dtype == np.float32 and g.flags.c_contiguous and g.base is None
        np.testing.assert_array_equal(g, h)
    out = F.linear(fg.tensor(x), fg.tensor(w, requires_grad=True), fg.tensor(b))
    assert out.grad_fn.name() == "AddmmBackward0"


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@given(lead=st.lists(st.integers(1, 3), max_size=2), sizes=st.tuples(*[st.integers(1, 3)] * 3))
def test_bilinear_matches_torch(dtype, lead, sizes):
    i1, i2, o = sizes
    rng = np.random.default_rng(sum(sizes))
    args = [rng.standard_normal((*lead, i1)), rng.standard_normal((*lead, i2)),
            rng.standard_normal((o, i1, i2)), rng.standard_normal(o)]  # fmt: skip
    compare("bilinear", args, dtype=dtype)
    second_order("bilinear", args)
