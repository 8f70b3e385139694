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

Run as a script (`python benchmarks/conv_bench.py [CV1 CV2 CV3]`), it prints
the floor of each workload: the CPU-time minima, one thread, of its three
GEMMs on ready contiguous operands and of the copies around them, beside
funcgrad's three convolution primitives and PyTorch's whole step (see
`floor`). CPU time, not wall time, so that a loaded machine still gives a
usable figure; label it "under load" all the same.
"""

from __future__ import annotations

if __name__ == "__main__":  # one thread, as benchmarks/run.py: set before NumPy is imported
    import os

    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import peers  # noqa: E402

import funcgrad as fg  # noqa: E402
import funcgrad.nn.functional as F  # noqa: E402
from funcgrad.ops import conv as conv_ops  # noqa: E402

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


def _cpu_minima(calls: dict, rounds: int) -> dict[str, float]:
    """The least CPU time (ms) of each call over `rounds` rounds, the calls taking turns."""
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(rounds):
        for k, f in calls.items():
            t0 = time.process_time()
            f()
            times[k].append(time.process_time() - t0)
    return {k: min(v) * 1e3 for k, v in times.items()}


def floor(wid: str, rounds: int = 11) -> dict[str, float]:
    """CPU-time minima (ms) of the parts of one CV workload's step (one thread).

    The GEMMs of im2col (forward, input-gradient columns, weight gradient)
    on pre-made contiguous operands, Winograd F(2x2, 3x3)'s 16 GEMMs where the
    kernel is 3x3, the copies (padding, im2col into a kept buffer, col2im's
    strided adds), funcgrad's three primitives (`conv_ops` forwards) each on
    its own (a writeable x: nothing kept between them), the three in a row as
    in a step (a read-only x, new or the same each time: `conv_weight` reuses
    `conv`'s transform) and PyTorch's forward and whole step when it is
    installed.
    """
    (n, c, h, wd), (o, _, k, _), p = SIZES[wid]
    rng = np.random.default_rng(0)
    ho, wo = h + 2 * p - k + 1, wd + 2 * p - k + 1
    pts, ck = ho * wo, c * k * k
    x = rng.standard_normal((n, c, h, wd), dtype=np.float32)
    w = rng.standard_normal((o, c, k, k), dtype=np.float32)
    g = rng.standard_normal((n, o, ho, wo), dtype=np.float32)
    w2, g3 = w.reshape(o, ck), g.reshape(n, o, pts)
    cols = rng.standard_normal((n, ck, pts), dtype=np.float32)
    xpad = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    view = np.lib.stride_tricks.sliding_window_view(xpad, (k, k), axis=(2, 3))
    view = view.transpose(0, 1, 4, 5, 2, 3)
    kept = np.empty(view.shape, np.float32)
    dcols = np.matmul(w2.T, g3).reshape(n, c, k, k, ho, wo)

    def col2im():
        out = np.zeros_like(xpad)
        for i in range(k):
            for j in range(k):
                out[:, :, i : i + ho, j : j + wo] += dcols[:, :, i, j]

    kw = {"stride": (1, 1), "padding": ((p, p), (p, p)), "dilation": (1, 1), "groups": 1}
    frozen = [x.copy(), x.copy()]  # read-only, as a graph's values: conv_weight reuses conv's
    for a in frozen:
        a.setflags(write=False)
    turn = [0]

    def step(new: bool) -> None:
        # conv, conv_transpose, conv_weight as in a backward pass: on the same read-only input
        # every call (as CV1-CV3's steps: even the forward finds its transform kept) or a new one
        turn[0] ^= new
        xr = frozen[turn[0]]
        conv_ops._conv_forward(np, xr, w, 0.0, **kw)
        conv_ops._conv_transpose_forward(np, g, w, 0.0, **kw)
        conv_ops._conv_weight_forward(np, xr, g, kernel=(k, k), **kw)

    calls = {
        "GEMM forward, W @ cols (N of them)": lambda: np.matmul(w2, cols),
        "GEMM input-gradient columns, W^T @ ct": lambda: np.matmul(w2.T, g3),
        "GEMM weight gradient, ct @ cols^T + sum": lambda: np.matmul(
            g3, cols.transpose(0, 2, 1)
        ).sum(0),
    }
    if k == 3:
        t = n * -(-ho // 2) * -(-wo // 2)
        v, u = (rng.standard_normal(s, dtype=np.float32) for s in ((16, t, c), (16, c, o)))
        calls["Winograd's 16 GEMMs, one pass"] = lambda: np.matmul(v, u)
    calls |= {
        "pad": lambda: np.pad(x, ((0, 0), (0, 0), (p, p), (p, p))),
        "im2col copy into a kept buffer": lambda: np.copyto(kept, view),
        "col2im, k*k strided adds": col2im,
        "funcgrad conv (forward)": lambda: conv_ops._conv_forward(np, x, w, 0.0, **kw),
        "funcgrad conv_transpose (input gradient)": lambda: conv_ops._conv_transpose_forward(
            np, g, w, 0.0, **kw
        ),
        "funcgrad conv_weight (weight gradient)": lambda: conv_ops._conv_weight_forward(
            np, x, g, kernel=(k, k), **kw
        ),
        "step: the 3 primitives, a new read-only x": lambda: step(True),
        "step: the 3 primitives, the same read-only x": lambda: step(False),
    }
    torch, _ = peers.load("torch")
    if torch is not None:
        tx = torch.from_numpy(x).requires_grad_()
        tw = torch.from_numpy(w).requires_grad_()
        tg = torch.from_numpy(g)

        def torch_forward():
            with torch.no_grad():
                torch.nn.functional.conv2d(tx, tw, padding=p)

        def torch_step():
            tx.grad = tw.grad = None
            torch.nn.functional.conv2d(tx, tw, padding=p).backward(tg)

        calls |= {"PyTorch forward": torch_forward, "PyTorch forward + backward": torch_step}
    return _cpu_minima(calls, rounds)


if __name__ == "__main__":
    for wid in sys.argv[1:] or list(SIZES):
        parts = floor(wid)
        gemms = sum(v for name, v in parts.items() if name.startswith("GEMM"))
        mine = sum(v for name, v in parts.items() if name.startswith("funcgrad"))
        print(f"{wid}: {title(wid)}; CPU-time minima, ms, one thread")
        for name, v in parts.items():
            print(f"  {name:44s} {v:8.2f}")
        print(f"  {'the three im2col GEMMs together':44s} {gemms:8.2f}")
        print(f"  {'the three funcgrad primitives together':44s} {mine:8.2f}")
