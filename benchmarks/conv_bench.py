"""Convolution forward + backward (CV1-CV3): funcgrad's `F.conv2d` beside PyTorch and hand-written NumPy.

Each workload is the value and the gradients (input, weight, bias) of
`sum(conv2d(x, w, b, padding=p) * G)` for a fixed `G`, in float32:

* CV1, small: LeNet's second convolution, x 64x6x14x14, w 16x6x5x5;
* CV2, medium: x 32x16x32x32, w 32x16x3x3, padding 1;
* CV3, large: x 8x64x56x56, w 64x64x3x3, padding 1.

The NumPy peer is the best hand-written im2col we know: one
`sliding_window_view` copied into a `(N, C*K*K, H*W)` layout, one batched
GEMM forward, one GEMM for the weight gradient, and the input gradient as
a GEMM followed by col2im (one strided add per kernel tap).
"""

from __future__ import annotations

import numpy as np
import peers

import funcgrad as fg
import funcgrad.nn.functional as F

SIZES = {
    "CV1": ((64, 6, 14, 14), (16, 6, 5, 5), 0),
    "CV2": ((32, 16, 32, 32), (32, 16, 3, 3), 1),
    "CV3": ((8, 64, 56, 56), (64, 64, 3, 3), 1),
}


def title(wid: str) -> str:
    (n, c, h, w), (o, _, k, _), p = SIZES[wid]
    return f"conv2d fwd+bwd, x {n}x{c}x{h}x{w}, w {o}x{c}x{k}x{k}, pad {p}, float32"


def _numpy_conv(x, w, b, g, p):
    n, c, h, wd = x.shape
    o, _, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))) if p else x
    ho, wo = xp.shape[2] - k + 1, xp.shape[3] - k + 1
    view = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))  # n c ho wo k k
    cols = np.ascontiguousarray(view.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * k * k, ho * wo)
    w2 = w.reshape(o, -1)
    y = np.matmul(w2, cols).reshape(n, o, ho, wo) + b[:, None, None]
    value = float(np.sum(y * g))
    gm = g.reshape(n, o, ho * wo)
    dw = np.matmul(gm, cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
    db = g.sum(axis=(0, 2, 3))
    dcols = np.matmul(w2.T, gm).reshape(n, c, k, k, ho, wo)
    dxp = np.zeros_like(xp)
    for i in range(k):
        for j in range(k):
            dxp[:, :, i : i + ho, j : j + wo] += dcols[:, :, i, j]
    dx = dxp[:, :, p : p + h, p : p + wd] if p else dxp
    return value, dx, dw, db


def build_conv(wid: str) -> dict:
    """The implementations of one CV workload: each returns (value, dx, dw, db)."""
    xs, ws, p = SIZES[wid]
    rng = np.random.default_rng(7)
    x = fg.freeze(rng.standard_normal(xs, dtype=np.float32))
    w = fg.freeze((rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np.float32))
    b = fg.freeze(rng.standard_normal(ws[0], dtype=np.float32))
    out_hw = xs[2] + 2 * p - ws[2] + 1
    g = fg.freeze(rng.standard_normal((xs[0], ws[0], out_hw, out_hw), dtype=np.float32))

    impls = {"numpy": lambda: _numpy_conv(x, w, b, g, p)}

    def loss(x_, w_, b_):
        return (F.conv2d(x_, w_, b_, padding=p) * g).sum()

    vg = fg.value_and_grad(loss, argnums=(0, 1, 2))

    def fg_func():
        value, (dx, dw, db) = vg(x, w, b)
        return value, dx, dw, db

    impls["fg_func"] = fg_func
    fx = fg.tensor(x, requires_grad=True)
    fw = fg.tensor(w, requires_grad=True)
    fb = fg.tensor(b, requires_grad=True)
    fgt = fg.from_numpy(g)

    def fg_imp():
        fx.grad = fw.grad = fb.grad = None
        y = (F.conv2d(fx, fw, fb, padding=p) * fgt).sum()
        y.backward()
        return y.item(), fx.grad.numpy(), fw.grad.numpy(), fb.grad.numpy()

    impls["fg_imp"] = fg_imp
    torch, _ = peers.load("torch")
    if torch is not None:
        tx = torch.from_numpy(np.array(x)).requires_grad_()
        tw = torch.from_numpy(np.array(w)).requires_grad_()
        tb = torch.from_numpy(np.array(b)).requires_grad_()
        tg = torch.from_numpy(np.array(g))

        def torch_step():
            tx.grad = tw.grad = tb.grad = None
            y = (torch.nn.functional.conv2d(tx, tw, tb, padding=p) * tg).sum()
            y.backward()
            return y.item(), tx.grad.numpy(), tw.grad.numpy(), tb.grad.numpy()

        impls["torch"] = torch_step
    return impls
