"""The convolution algorithms behind `F.conv*`: Winograd F(2x2, 3x3) beside im2col, against PyTorch.

funcgrad/ops/conv.py picks the algorithm per call: Winograd for float32 3x3
stride-1 convolutions with at least `_WINO_MIN_CHANNELS` (64) channels in and out (forward, input
gradient and weight gradient), im2col otherwise. The hypothesis cases of
test_functional_conv.py are too small to reach Winograd, so here it is
checked on its own in float64 (odd sizes, uneven and negative padding;
against PyTorch to 1e-12 of the values' scale), and through `F.conv2d` and
`F.conv_transpose2d` in float32 at shapes that take it (against PyTorch at
its float32 convolution tolerance, and against funcgrad's float64 result).
"""

from __future__ import annotations

import types

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.nn.functional as F
from funcgrad.ops import conv as conv_ops
from tests.nn.fcheck import assert_close, compare
from tests.references import requires

torch = requires("torch")
TF = torch.nn.functional

TIGHT = {"rtol": 1e-12, "atol": 1e-12}
F32 = {"rtol": 1e-4, "atol": 1e-5}  # PyTorch's float32 tolerance for its convolution tests
WC = conv_ops._WINO_MIN_CHANNELS  # the fewest channels (in and out) that take Winograd

# (N, C, O, H, W, ((top, bottom), (left, right))): even and odd outputs, crops
GEOMETRIES = [
    (2, 3, 4, 7, 8, ((1, 1), (1, 1))),
    (1, 2, 3, 5, 5, ((0, 0), (2, 1))),
    (3, 4, 2, 6, 9, ((1, -1), (0, 2))),
    (1, 1, 1, 3, 3, ((0, 0), (0, 0))),
]


def _torch_padded(x, padding):
    (top, bottom), (left, right) = padding
    return TF.pad(x, (left, right, top, bottom))


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=str)
def test_winograd_float64_matches_torch(geometry):
    n, c, o, h, w, padding = geometry
    rng = np.random.default_rng(h * 10 + w)
    x, wt = rng.standard_normal((n, c, h, w)), rng.standard_normal((o, c, 3, 3))
    tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(wt).requires_grad_()
    ty = TF.conv2d(_torch_padded(tx, padding), tw)
    ct = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.from_numpy(ct))
    y = conv_ops._wino_conv(np, x, wt, padding)
    assert_close(y, ty.detach().numpy(), TIGHT, "winograd forward")
    assert_close(conv_ops._wino_weight(np, x, ct, padding), tw.grad.numpy(), TIGHT, "weight grad")
    dx = conv_ops._wino_transpose(np, ct, wt, padding)
    assert_close(dx, tx.grad.numpy(), TIGHT, "input gradient (transposed convolution)")


def _spy(monkeypatch):
    calls = []
    for name in ("_wino_conv", "_wino_weight"):
        real = getattr(conv_ops, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(conv_ops, name, spy)
    return calls


@pytest.mark.parametrize(
    ("shape", "opts"),
    [((2, WC, 6, 7), {"padding": "same"}), ((1, WC, 5, 4), {"padding": (0, 2)})],
    ids=["same", "pad0-2"],
)
def test_conv2d_float32_through_winograd(monkeypatch, shape, opts):
    calls = _spy(monkeypatch)
    rng = np.random.default_rng(shape[2])
    x, w, b = (
        rng.standard_normal(shape),
        rng.standard_normal((WC + 8, WC, 3, 3)) / 24,
        rng.standard_normal(WC + 8),
    )
    compare("conv2d", [x, w, b], opts, dtype=np.float32, worlds=False)
    # forward, input gradient (the transposed convolution), weight gradient
    assert calls.count("_wino_conv") == 2 and calls.count("_wino_weight") == 1, calls
    y32 = F.conv2d(x.astype(np.float32), w.astype(np.float32), b.astype(np.float32), **opts)
    assert_close(y32, F.conv2d(x, w, b, **opts), F32, "float32 against float64")


def test_conv_transpose2d_float32_through_winograd(monkeypatch):
    calls = _spy(monkeypatch)
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, WC, 5, 6)), rng.standard_normal((WC, WC + 8, 3, 3)) / 24
    compare("conv_transpose2d", [x, w], {"padding": 1}, dtype=np.float32, worlds=False)
    assert calls.count("_wino_conv") == 2 and calls.count("_wino_weight") == 1, calls


def test_conv_small_or_float64_stays_im2col(monkeypatch):
    calls = _spy(monkeypatch)
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((1, WC, 5, 5)), rng.standard_normal((WC, WC, 3, 3))
    F.conv2d(x, w, padding=1)  # float64
    F.conv2d(x[:, :32].astype(np.float32), w[:, :32].astype(np.float32), padding=1)  # 32 channels
    few = WC - 8  # in and out: one side short of the threshold is enough
    F.conv2d(x[:, :few].astype(np.float32), w[:, :few].astype(np.float32), padding=1)
    F.conv2d(x.astype(np.float32), w[:few].astype(np.float32), padding=1)
    # enough channels, but below `_WINO_ANY_ROW_CHANNELS` a row of tiles too large for a chunk
    wide = rng.standard_normal((2, WC, 3, 272)).astype(np.float32)
    assert WC < conv_ops._WINO_ANY_ROW_CHANNELS and 16 * 136 * 2 * WC * 4 > conv_ops._CHUNK_BYTES
    F.conv2d(wide, w.astype(np.float32), padding=1)
    F.conv2d(x.astype(np.float32), w.astype(np.float32), stride=2)
    assert calls == []


def test_winograd_non_finite_falls_back_to_im2col():
    # Winograd's transforms turn one inf into inf - inf = NaN; the result is done again by im2col
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, WC, 4, 4)).astype(np.float32)
    x[0, 3, 1, 2] = np.inf
    w = rng.standard_normal((WC, WC, 3, 3)).astype(np.float32)
    y = np.asarray(F.conv2d(x, w, padding=1))
    ty = TF.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ty))
    np.testing.assert_array_equal(np.isposinf(y), np.isposinf(ty))
    finite = np.isfinite(ty)
    assert_close(y[finite], ty[finite], F32, "finite values")


@pytest.mark.parametrize("channels", [8, WC], ids=["im2col", "winograd"])
def test_results_do_not_share_the_scratch_buffers(channels):
    rng = np.random.default_rng(6)
    w = rng.standard_normal((channels, channels, 3, 3)).astype(np.float32)
    x1, x2 = (rng.standard_normal((2, channels, 6, 6)).astype(np.float32) for _ in range(2))
    y1 = np.asarray(F.conv2d(x1, w, padding=1))
    kept = y1.copy()
    y2 = np.asarray(F.conv2d(x2, w, padding=1))
    np.testing.assert_array_equal(y1, kept)
    assert not np.shares_memory(y1, y2)

    def loss(x, w):
        return (F.conv2d(x, w, padding=1) ** 2).sum()

    g1 = fg.grad(loss, argnums=(0, 1))(x1, w)
    kept = [np.array(g) for g in g1]
    fg.grad(loss, argnums=(0, 1))(x2, w)
    for g, k in zip(g1, kept, strict=True):
        np.testing.assert_array_equal(g, k)


# The input gradient with unit strides (conv_transpose): col2im adds each kernel tap's
# columns as one run; with a short tail (4 * the last tap's offset <= the run) the GEMM's
# rows are tap-major and a tap's run covers all the channels of a group.
@pytest.mark.parametrize(
    ("name", "x_shape", "w_shape", "opts"),
    [
        ("conv_transpose2d", (2, 4, 12, 13), (4, 3, 3, 3), {"groups": 2, "padding": 1}),
        ("conv_transpose2d", (2, 2, 9, 10), (2, 3, 2, 2), {"dilation": 2}),
        ("conv_transpose2d", (2, 2, 4, 5), (2, 3, 5, 5), {"padding": 2}),  # long tail: per channel
        ("conv_transpose1d", (2, 4, 20), (4, 2, 3), {"groups": 2}),
        ("conv_transpose3d", (1, 2, 6, 5, 6), (2, 2, 2, 2, 2), {"padding": (1, 0, 1)}),
    ],
    ids=["2d-groups", "2d-dilated", "2d-long-tail", "1d", "3d"],
)
def test_conv_transpose_unit_stride_layouts(name, x_shape, w_shape, opts):
    rng = np.random.default_rng(len(x_shape) + x_shape[-1])
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[1] * opts.get("groups", 1))
    compare(name, [x, w, b], opts, worlds=False)  # float64: the layouts are dtype-blind


def test_array_module_other_than_numpy_takes_the_plain_paths():
    # CuPy's path: no kept scratch buffers, no Winograd, no `out=` GEMMs into views; a module
    # that is NumPy under another name walks it, and must give NumPy's (Winograd's) numbers
    shim = types.ModuleType("numpy_under_another_name")
    shim.__dict__.update(np.__dict__)
    rng = np.random.default_rng(7)
    x, w = (rng.standard_normal(s).astype(np.float32) for s in ((2, WC, 9, 8), (WC, WC, 3, 3)))
    kw = {"stride": (1, 1), "padding": ((1, 1), (1, 1)), "dilation": (1, 1), "groups": 1}
    y = conv_ops._conv_forward(np, x, w, 0.0, **kw)
    for name, args, extra in [
        ("_conv_forward", (x, w, 0.0), {}),
        ("_conv_transpose_forward", (y, w, 0.0), {}),
        ("_conv_weight_forward", (x, y), {"kernel": (3, 3)}),
    ]:
        fn = getattr(conv_ops, name)
        assert_close(fn(shim, *args, **kw, **extra), fn(np, *args, **kw, **extra), F32, name)


# conv_weight through Winograd reuses the transform (B^T d B) that conv's forward made of
# the same input array, once, where that array cannot have changed (`_kept_take`).
KW = {"stride": (1, 1), "padding": ((1, 1), (1, 1)), "dilation": (1, 1), "groups": 1}


def _frozen(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


def _unkept(monkeypatch):
    """conv_ops with the kept transforms never found nor kept: the reference path."""
    monkeypatch.setattr(conv_ops, "_kept_take", lambda xp, kind, x, key: None)
    monkeypatch.setattr(conv_ops, "_kept_put", lambda xp, kind, x, key, out: None)


def _made(monkeypatch):
    """A list that gets the kind of each transform made and kept (`_kept_put`)."""
    made = []
    real = conv_ops._kept_put

    def spy(xp, kind, x, key, out):
        made.append(kind)
        return real(xp, kind, x, key, out)

    monkeypatch.setattr(conv_ops, "_kept_put", spy)
    return made


@pytest.mark.parametrize("channels", [8, WC], ids=["im2col", "winograd"])
def test_conv_weight_reuses_the_forwards_transform_bit_for_bit(monkeypatch, channels):
    rng = np.random.default_rng(8)
    x = _frozen(rng.standard_normal((2, channels, 7, 6)).astype(np.float32))
    w = _frozen(rng.standard_normal((channels, channels, 3, 3)).astype(np.float32))
    ct = _frozen(rng.standard_normal((2, channels, 7, 6)).astype(np.float32))
    with monkeypatch.context() as m:
        _unkept(m)
        y_ref = conv_ops._conv_forward(np, x, w, 0.0, **KW)
        dw_ref = conv_ops._conv_weight_forward(np, x, ct, kernel=(3, 3), **KW)
    made = _made(monkeypatch)
    y = conv_ops._conv_forward(np, x, w, 0.0, **KW)
    conv_ops._conv_transpose_forward(np, ct, w, 0.0, **KW)  # between them, as in a backward
    dw = conv_ops._conv_weight_forward(np, x, ct, kernel=(3, 3), **KW)
    # made by the forward, reused by the weight gradient
    assert made == (["winograd"] if channels >= WC else []), made  # im2col: kept no longer
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(dw, dw_ref)


@pytest.mark.parametrize("channels", [8, WC], ids=["im2col", "winograd"])
def test_kept_transform_is_never_stale(monkeypatch, channels):
    # every result against the same call with nothing kept (bit for bit) and against torch
    rng = np.random.default_rng(9)
    shape = (2, channels, 6, 6)
    x1, x2 = (_frozen(rng.standard_normal(shape).astype(np.float32)) for _ in range(2))
    w = _frozen(rng.standard_normal((channels, channels, 3, 3)).astype(np.float32))
    ct = _frozen(rng.standard_normal(shape).astype(np.float32))
    crop = {**KW, "padding": ((1, 1), (0, 2))}  # the same x, another geometry
    crop_ct = _frozen(rng.standard_normal((2, channels, 6, 6)).astype(np.float32))

    def fresh(x, c=ct, kw=KW):
        with monkeypatch.context() as m:
            _unkept(m)
            return conv_ops._conv_weight_forward(np, _frozen(x), c, kernel=(3, 3), **kw)

    def torch_dw(x, c=ct, pad=(1, 1, 1, 1)):
        tw = torch.from_numpy(np.array(w)).requires_grad_()
        y = TF.conv2d(TF.pad(torch.from_numpy(np.array(x)), pad), tw)
        (y * torch.from_numpy(np.array(c))).sum().backward()
        return tw.grad.numpy()

    def check_dw(x, c=ct, kw=KW, pad=(1, 1, 1, 1)):
        got = conv_ops._conv_weight_forward(np, x, c, kernel=(3, 3), **kw)
        np.testing.assert_array_equal(got, fresh(x, c, kw))
        assert_close(got, torch_dw(x, c, pad), F32, "weight gradient against torch")

    def check_y(x):
        got = conv_ops._conv_forward(np, x, w, 0.0, **KW)
        want = TF.conv2d(torch.from_numpy(np.array(x)), torch.from_numpy(np.array(w)), padding=1)
        assert_close(got, want.numpy(), F32, "forward against torch")

    made = _made(monkeypatch)
    check_y(x1)
    check_y(x2)  # the same shape, another array: replaces x1's
    check_dw(x1)
    check_dw(x2)  # taken
    check_dw(x2)  # made anew: each kept transform is taken once
    check_y(x1)
    check_dw(
        x1, crop_ct, crop, (0, 2, 1, 1)
    )  # torch's pad: (left, right, top, bottom)  # the same x, another geometry: made anew
    assert len(made) == (3 if channels >= WC else 0), made  # only the forwards keep

    # an in-place write into a kept input, as an optimizer's step writes (unlock, write, lock):
    # the next forward makes its own transform, and the weight gradient takes that one
    x = _frozen(rng.standard_normal(shape).astype(np.float32))
    for _ in range(2):
        check_y(x)
        x.setflags(write=True)
        x *= -1.5
        x.setflags(write=False)
        check_y(x)
        check_dw(x)
    # (a weight gradient of such an x with no forward since the write cannot happen through
    # funcgrad: the kept transform holds x, so the optimizers write a new array instead;
    # tests/nn/test_conv_kept_optim.py)

    # a writeable array (or a read-only view of one) may change between the calls: never kept
    live = rng.standard_normal(shape).astype(np.float32)
    view = live[:]
    view.setflags(write=False)
    for x in (live, view):
        check_y(x)
        live *= 2.0
        check_dw(x)
    assert len(made) == (7 if channels >= WC else 0), made  # 4 more forwards, none kept


def test_gradients_through_the_kept_transform_match_torch():
    # the whole step (forward, input and weight gradients) through F.conv2d, float32
    rng = np.random.default_rng(10)
    for c in (8, WC):
        x = rng.standard_normal((2, c, 6, 5)).astype(np.float32)
        w = (rng.standard_normal((c, c, 3, 3)) / (3 * c**0.5)).astype(np.float32)
        g = rng.standard_normal((2, c, 6, 5)).astype(np.float32)

        def loss(x_, w_, g=g):
            return (F.conv2d(x_, w_, padding=1) * g).sum()

        dx, dw = fg.grad(loss, argnums=(0, 1))(x, w)
        tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w).requires_grad_()
        (TF.conv2d(tx, tw, padding=1) * torch.from_numpy(g)).sum().backward()
        assert_close(dx, tx.grad.numpy(), F32, f"input gradient, {c} channels")
        assert_close(dw, tw.grad.numpy(), F32, f"weight gradient, {c} channels")


@pytest.mark.parametrize("take", [1, 2], ids=["one-at-a-time", "two-ragged"])
@pytest.mark.parametrize(
    ("x_shape", "w_shape", "opts"),
    [
        ((5, 4, 12, 13), (4, 3, 3, 3), {"padding": ((1, 1), (1, 1)), "groups": 2}),  # long runs
        ((5, 2, 4, 5), (2, 3, 5, 5), {"padding": ((2, 2), (2, 2)), "groups": 1}),  # per channel
    ],
    ids=["tap-major", "per-channel"],
)
def test_conv_transpose_in_sample_chunks_is_bit_identical(monkeypatch, take, x_shape, w_shape,
                                                          opts):  # fmt: skip
    # the input gradient's GEMM and col2im run a few samples at a time (`_chunk`)
    rng = np.random.default_rng(11)
    kw = {"stride": (1, 1), "dilation": (1, 1), **opts}
    for dtype in (np.float64, np.float32):
        x = rng.standard_normal(x_shape).astype(dtype)
        w = rng.standard_normal(w_shape).astype(dtype)
        whole = conv_ops._conv_transpose_forward(np, x, w, 0.0, **kw)
        with monkeypatch.context() as m:
            m.setattr(conv_ops, "_chunk", lambda xp, n, per_sample: min(n, take))
            chunked = conv_ops._conv_transpose_forward(np, x, w, 0.0, **kw)
        np.testing.assert_array_equal(chunked, whole)
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        pad = opts["padding"][0][0]
        want = TF.conv_transpose2d(tx, tw, padding=pad, groups=opts["groups"]).numpy()
        tol = TIGHT if dtype == np.float64 else F32
        assert_close(chunked, want, tol, f"{dtype.__name__} against torch")


@pytest.mark.parametrize("take", [1, 2], ids=["one-at-a-time", "two-ragged"])
@pytest.mark.parametrize("frozen", [True, False], ids=["kept", "not-kept"])
def test_im2col_in_sample_chunks_is_bit_identical(monkeypatch, take, frozen):
    # conv's forward and conv_weight copy im2col a few samples at a time (`_x_cols`, `_chunk`)
    # into one chunk's buffer, whether or not the input is read-only
    rng = np.random.default_rng(12)
    kw = {"stride": (2, 1), "padding": ((1, 0), (2, 1)), "dilation": (1, 2), "groups": 2}
    for dtype in (np.float64, np.float32):
        x = rng.standard_normal((5, 4, 9, 8)).astype(dtype)
        w = rng.standard_normal((6, 2, 3, 2)).astype(dtype)
        x = _frozen(x) if frozen else x
        with monkeypatch.context() as m:
            _unkept(m)
            y_ref = conv_ops._conv_forward(np, x, w, 0.0, **kw)
            ct = rng.standard_normal(y_ref.shape).astype(dtype)
            dw_ref = conv_ops._conv_weight_forward(np, x, ct, kernel=(3, 2), **kw)
        with monkeypatch.context() as m:
            m.setattr(conv_ops, "_chunk", lambda xp, n, per_sample: min(n, take))
            made = _made(m)
            for _ in range(2):
                np.testing.assert_array_equal(conv_ops._conv_forward(np, x, w, 0.0, **kw), y_ref)
                dw = conv_ops._conv_weight_forward(np, x, ct, kernel=(3, 2), **kw)
                np.testing.assert_array_equal(dw, dw_ref)
            assert made == [], made  # im2col's chunks are not kept
        tx, tw = torch.from_numpy(np.array(x)), torch.from_numpy(w)
        ty = TF.conv2d(TF.pad(tx, (2, 1, 1, 0)), tw, stride=(2, 1), dilation=(1, 2), groups=2)
        assert_close(y_ref, ty.numpy(), TIGHT if dtype == np.float64 else F32, "against torch")


@pytest.mark.parametrize("take", [1, 2], ids=["one-row-at-a-time", "two-ragged"])
@pytest.mark.parametrize(
    "padding", [((1, 2), (0, 1)), ((1, 1), (2, 0))], ids=["even-rows", "odd-rows"]
)
def test_winograd_in_tile_row_chunks(monkeypatch, take, padding):
    # Winograd's transforms and GEMMs go a few tile rows at a time (`_wino_v`, `_chunk`): the
    # forward and the input gradient bit for bit as in one go, the weight gradient (its sum over
    # the tiles in another order) within float32 rounding; and against float64
    rng = np.random.default_rng(13)
    # 9 + 3 - 2 = 10 or 9 + 2 - 2 = 9 rows of output: 5 tile rows, the last one half out
    x = _frozen(rng.standard_normal((2, 3, 9, 7)).astype(np.float32))
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    y_ref = conv_ops._wino_conv(np, x, w, padding)
    ct = rng.standard_normal(y_ref.shape).astype(np.float32)
    dx_ref = conv_ops._wino_transpose(np, ct, w, padding)
    with monkeypatch.context() as m:
        _unkept(m)
        dw_ref = conv_ops._wino_weight(np, x, ct, padding)
    x64, w64, ct64 = (a.astype(np.float64) for a in (x, w, ct))
    dw64 = conv_ops._wino_weight(np, x64, ct64, padding)
    monkeypatch.setattr(conv_ops, "_chunk", lambda xp, n, per_sample: min(n, take))
    made = _made(monkeypatch)
    np.testing.assert_array_equal(conv_ops._wino_conv(np, x, w, padding, keep=True), y_ref)
    np.testing.assert_array_equal(conv_ops._wino_transpose(np, ct, w, padding), dx_ref)
    dw = conv_ops._wino_weight(np, x, ct, padding)  # reuses the forward's kept transform
    assert made == ["winograd"], made
    assert_close(dw, dw_ref, F32, "weight gradient in chunks")
    assert_close(dw, dw64, F32, "weight gradient against float64")
    assert_close(y_ref, conv_ops._wino_conv(np, x64, w64, padding), F32, "forward against float64")
