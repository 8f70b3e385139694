"""Convolution primitives: `conv`, `conv_transpose` and `conv_weight`, in 1, 2 or 3 dimensions.

The three form a family closed under differentiation, so every derivative
of any order is one of them:

* `conv(x, w, b)`: PyTorch's convolution (a cross-correlation) of `x`
  `(N, C, *S)` with `w` `(O, C / groups, *K)`, plus the bias `b` `(O,)`
  (the Python number `0.0` for none);
* `conv_transpose(x, w, b)`: its adjoint in `x` (PyTorch's transposed
  convolution; `w` is `(C_in, O / groups, *K)`), plus the bias;
* `conv_weight(x, ct)`: its adjoint in `w`, the weight gradient
  `sum_{n, p} ct[n, o, p] x_pad[n, c, p * stride + k * dilation]`.

Each takes the static parameters `stride`, `dilation` (one int per spatial
axis), `groups`, and `padding`: one `(before, after)` pair per spatial axis,
either of which may be negative (a crop). With pairs, the adjoints are exact
whatever the sizes: the VJP of `conv` in `x` is `conv_transpose` with the
`after` padding that gives back `x`'s size, and so on round the family.

On NumPy (and CuPy) the work is one strided window view of the padded
input (`as_strided`), copied into a `(N, groups, C/groups * K, P)` im2col
layout, and one GEMM (`matmul`) per sample; the transposed convolution is
the GEMM the other way round followed by col2im, one strided add per kernel
tap (with unit strides, one add of long runs per tap). On NumPy both go a
few samples at a time (`_chunk`, 1 MiB of temporaries), so that what one
step writes is still in the core's cache when the next reads it.

Two choices are made per call, and neither changes a float64 result:

* 2-D float32 convolutions with a 3x3 kernel, unit stride and dilation, one
  group and at least 64 channels in and out (all three of the family; below
  128, only where a row of tiles is small, see `_use_winograd`) go
  through Winograd F(2x2, 3x3), which does 2.25x fewer multiplications
  (section "Winograd" below; within PyTorch's float32 tolerance for
  convolutions, tests/nn/test_conv_algorithms.py). A result that is not all
  finite is computed again by im2col, whose infinities it matches.
* On NumPy, temporaries (the padded input, the im2col buffer, Winograd's
  transforms) live in per-thread buffers kept between calls (`_scratch`):
  each of up to 14 slots keeps at most `_SCRATCH_MAX` bytes (64 MiB); after
  one float32 step of CV2 (x 32x16x32x32, im2col) a thread keeps 8 MB, of
  CV3 (x 8x64x56x56, Winograd) 43 MB. Results are always fresh arrays.

One more thing is shared between calls without changing any result: the
weight gradient `conv_weight` through Winograd reuses, once, the transformed
input that `conv`'s forward made of the same input array, when that array is
read-only all the way down, as the graph's values are; the forward holds the
array until then, so nothing writes into it meanwhile, and never reuses a
transform itself (`_kept_take`; bit for bit the same numbers).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from math import prod
from types import ModuleType
from typing import Any

import numpy

from funcgrad.graph.node import Array
from funcgrad.ops._util import shape_of
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import LINEAR, Draw, Drawn, Names, Primitive, Sample, register
from funcgrad.ops.shape import reshape

Pads = tuple[tuple[int, int], ...]
Ints = tuple[int, ...]

_SCRATCH = threading.local()
_SCRATCH_MAX = 1 << 26  # bytes a scratch slot may keep: 64 MiB


# --- array helpers (forward only: NumPy or CuPy) ------------------------------------


def _scratch(xp: ModuleType, slot: str, shape: Ints, dtype: Any) -> Array:
    """An uninitialized temporary `shape` array, kept between calls in this thread's `slot` (NumPy).

    NOTE: a fresh large array costs a page fault per 4 KiB page when it is
    first written (glibc maps large blocks and unmaps them at free, and trims
    the heap's top), and an im2col buffer is 9-25x its input: kept buffers
    alone took CV3's im2col step (x 8x64x56x56, one thread) from about 117 to
    about 100 ms of CPU time. A temporary that never leaves this module is
    taken from a per-thread buffer that is kept (at most `_SCRATCH_MAX` bytes
    a slot, one buffer per slot); results are always fresh arrays.
    """
    dt = numpy.dtype(dtype)
    nbytes = prod(shape) * dt.itemsize
    if xp is not numpy or nbytes > _SCRATCH_MAX:
        return xp.empty(shape, dtype=dt)
    bufs: dict[str, numpy.ndarray] = _SCRATCH.__dict__.setdefault("bufs", {})
    buf = bufs.get(slot)
    if buf is None or buf.nbytes < nbytes:
        buf = bufs[slot] = numpy.empty(max(nbytes, 64), dtype=numpy.uint8)
    return buf[:nbytes].view(dt).reshape(shape)


def _immutable(x: Any) -> bool:
    """Whether nobody can write into NumPy array `x`: it and every array it views are read-only.

    So are the values a graph holds (`funcgrad.backend.arrays.freeze`).
    """
    base = x
    while isinstance(base, numpy.ndarray):
        if base.flags.writeable:
            return False
        base = base.base
    return True


def _kept_take(xp: ModuleType, kind: str, x: Array, key: tuple[Any, ...]) -> Array | None:
    """The transform of `x` (Winograd's input transform) that the last `conv` forward of this
    `kind` in this thread kept (`_kept_put`), if it was made of this same `x` with this `key`;
    taken: a second call on `x` finds nothing (each transform is reused at most once).

    NOTE: the forward of `conv` and its weight gradient `conv_weight` both
    transform the same input `x` (the graph passes the same array to both),
    so the weight gradient reuses the forward's transformed input: CV3's
    whole step with a new input each time 0.95x (interleaved A/B medians,
    load 6); as it is now (taken once, the forward never reuses) 0.90x of
    the same code without the reuse, 1.01x of the code before (one process,
    one thread, CPU time, 21 interleaved rounds, medians, load 2.8-3.1). It did the same for im2col until im2col went in cache-sized
    chunks (`_x_cols`), after which it no longer paid.

    Only where `x` cannot have changed since the forward transformed it:
    the forward never reads what was kept (it always makes and keeps its
    own transform), only `conv_weight` does; `x` is the same array object,
    read-only all the way down (`_immutable`) when kept and when taken, and
    it is held (strongly) while kept. Holding it is what keeps it unchanged:
    the only door that unlocks a read-only array to write into it, the
    optimizers' in-place update (`funcgrad.tensors.inplace.writable`), opens
    only for an array nobody else holds, so an optimizer step on a parameter
    that is a kept conv input writes a new array instead; a graph's values
    are never written into. (Held weakly, an SGD/Adam step on an input
    parameter whose weight gradient was not taken, or taken by a step before,
    wrote into it and the next forward reused the old transform.) Taking the
    transform lets `x` go, so after a step's backward an optimizer writes
    into the parameter again. The numbers are bit for bit the ones a new
    transform would give. Each `kind` keeps one input, in its own scratch
    slot `"kept-" + kind`, which only the forward writes.
    """
    if xp is not numpy:
        return None
    kept = _SCRATCH.__dict__.setdefault("kept", {})
    rec = kept.get(kind)
    if rec is None or rec[0] is not x:
        return None  # another input's: left for its own weight gradient
    del kept[kind]
    return rec[2] if rec[1] == _kept_key(x, key) and _immutable(x) else None


def _kept_key(x: Array, key: tuple[Any, ...]) -> tuple[Any, ...]:
    return (x.shape, x.strides, x.dtype, key)


def _keepable(xp: ModuleType, x: Array, nbytes: int) -> bool:
    """Whether a transform of `x` of `nbytes` may be kept: NumPy, `x` read-only all the way
    down, and the transform small enough for a scratch slot."""
    return xp is numpy and nbytes <= _SCRATCH_MAX and _immutable(x)


def _kept_forget(kind: str) -> None:
    """Drop what slot `"kept-" + kind` keeps (and the input it holds): it is about to be written."""
    _SCRATCH.__dict__.setdefault("kept", {}).pop(kind, None)


def _kept_put(xp: ModuleType, kind: str, x: Array, key: tuple[Any, ...], out: Array) -> None:
    """Keep `out`, the transform of `x` with `key` in scratch slot `"kept-" + kind`, holding `x`
    (`_kept_take`)."""
    _SCRATCH.__dict__.setdefault("kept", {})[kind] = (x, _kept_key(x, key), out)


def _matmul_into(xp: ModuleType, a: Array, b: Array, out: Array) -> Array:
    """`out[...] = a @ b`, written in place on NumPy (`out` may be a strided view); `out`."""
    if xp is numpy:
        return numpy.matmul(a, b, out=out)
    out[...] = xp.matmul(a, b)
    return out


def _pad(xp: ModuleType, x: Array, padding: Pads, value: float = 0.0, slot: str = "") -> Array:
    """`x` padded (or cropped, where negative) on its last `len(padding)` axes.

    With a `slot`, a padded result is a `_scratch` temporary (never x itself padded in place).
    """
    nd = len(padding)
    if not any(lo or hi for lo, hi in padding):
        return x
    lead = x.shape[: x.ndim - nd]
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        crop = tuple(
            slice(max(-lo, 0), n - max(-hi, 0))
            for (lo, hi), n in zip(padding, x.shape[-nd:], strict=True)
        )
        cropped = (Ellipsis, *crop)
        x = x[cropped]
        padding = tuple((max(lo, 0), max(hi, 0)) for lo, hi in padding)
        if not any(lo or hi for lo, hi in padding):
            return x
    sizes = tuple(n + lo + hi for (lo, hi), n in zip(padding, x.shape[-nd:], strict=True))
    if slot:
        out = _scratch(xp, slot, (*lead, *sizes), x.dtype)
        out.fill(value)
    elif value:
        out = xp.full((*lead, *sizes), value, dtype=x.dtype)
    else:
        out = xp.zeros((*lead, *sizes), dtype=x.dtype)
    inner = tuple(slice(lo, lo + n) for (lo, _), n in zip(padding, x.shape[-nd:], strict=True))
    into = (Ellipsis, *inner)
    out[into] = x
    return out


def out_size(n: int, k: int, stride: int, pad: tuple[int, int], dilation: int) -> int:
    """The number of windows along an axis of size `n` (padded by `pad`)."""
    return (n + pad[0] + pad[1] - dilation * (k - 1) - 1) // stride + 1


def out_sizes(sizes: Ints, kernel: Ints, stride: Ints, padding: Pads, dilation: Ints) -> Ints:
    """The number of windows along each spatial axis (see `out_size`)."""
    return tuple(
        out_size(n, k, s, p, d)
        for n, k, s, p, d in zip(sizes, kernel, stride, padding, dilation, strict=True)
    )


def exact_padding(
    in_sizes: Ints, out_sizes: Ints, kernel: Ints, stride: Ints, padding: Pads, dilation: Ints
) -> Pads:
    """`padding` with each `after` made exact: the padded input ends where the last window does."""
    return tuple(
        (lo, (m - 1) * s + d * (k - 1) + 1 - lo - n)
        for n, m, k, s, (lo, _), d in zip(
            in_sizes, out_sizes, kernel, stride, padding, dilation, strict=True
        )
    )


def _windows(xp: ModuleType, xpad: Array, groups: int, kernel: Ints, out: Ints, stride: Ints,
             dilation: Ints) -> Array:  # fmt: skip
    """The read-only view `(N, G, C/G, *K, *P)` of the windows of `xpad` `(N, C, *S)`."""
    n, c = xpad.shape[:2]
    st = xpad.strides
    sp = st[2:]
    shape = (n, groups, c // groups, *kernel, *out)
    strides = (
        st[0],
        st[1] * (c // groups),
        st[1],
        *(s * d for s, d in zip(sp, dilation, strict=True)),
        *(s * t for s, t in zip(sp, stride, strict=True)),
    )
    return xp.lib.stride_tricks.as_strided(xpad, shape, strides)


def _im2col(xp: ModuleType, x: Array, groups: int, kernel: Ints, out: Ints, stride: Ints,
            padding: Pads, dilation: Ints, slot: str = "") -> Array:  # fmt: skip
    """The im2col matrix `(N, G, C/G * prod(K), prod(P))` of `x`, a contiguous copy.

    With a `slot` it is a `_scratch` temporary.
    """
    xpad = _pad(xp, xp.asarray(x), padding, slot=slot and "cols-pad")
    if not xpad.flags.c_contiguous:
        xpad = xp.ascontiguousarray(xpad)
    view = _windows(xp, xpad, groups, kernel, out, stride, dilation)
    n, g, cg = view.shape[:3]
    shape = (n, g, cg * prod(kernel), prod(out))
    if not slot:
        return xp.ascontiguousarray(view).reshape(shape)
    dst = _scratch(xp, slot, view.shape, xpad.dtype)
    dst[...] = view
    return dst.reshape(shape)


def _x_cols(xp: ModuleType, x: Array, groups: int, kernel: Ints, out: Ints, stride: Ints,
            padding: Pads, dilation: Ints) -> Iterator[tuple[int, int, Array]]:  # fmt: skip
    """The im2col matrix of a convolution's input `x` (for `conv` and `conv_weight`) a few
    samples at a time: `(lo, hi, cols)`, `cols` `(hi - lo, G, C/G * prod(K), prod(P))`.

    NOTE: each chunk (`_chunk`) is copied just before the caller's GEMM reads
    it, so the GEMM finds it in cache: CPU time, one thread, forward of CV3
    (x 8x64x56x56) 34.1 -> 28.3 ms, CV2 8.4 -> 6.0, CV1 1.12 -> 0.89. Keeping
    the whole matrix for `conv_weight` (as Winograd's transform is kept, see
    `_kept_take`) then no longer paid: whole step, interleaved A/B medians
    (load 5.8-6.1), the same input each time 1.00x for CV1-CV3, a new one
    1.04x for CV1 and CV2 (the whole matrix goes out to memory).
    """
    n, c = x.shape[:2]
    per = (groups, c // groups * prod(kernel), prod(out))
    step = _chunk(xp, n, prod(per) * numpy.dtype(x.dtype).itemsize)
    xpad = _pad(xp, xp.asarray(x), padding, slot="cols-pad")
    if not xpad.flags.c_contiguous:
        xpad = xp.ascontiguousarray(xpad)
    view = _windows(xp, xpad, groups, kernel, out, stride, dilation)
    buf = _scratch(xp, "cols", (step, *view.shape[1:]), xpad.dtype)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        buf[: hi - lo] = view[lo:hi]
        yield lo, hi, buf[: hi - lo].reshape(hi - lo, *per)


def _col2im(xp: ModuleType, cols: Array, full: Ints, kernel: Ints, stride: Ints,
            dilation: Ints) -> Array:  # fmt: skip
    """Sum `cols` `(N, C, *K, *P)` into zeros `(N, C, *full)`, each tap at its window offset."""
    nd = len(kernel)
    n, c = cols.shape[:2]
    points = cols.shape[2 + nd :]
    out = xp.zeros((n, c, *full), dtype=cols.dtype)
    for tap in _taps(kernel):
        where = tuple(
            slice(k * d, k * d + (p - 1) * s + 1, s)
            for k, d, p, s in zip(tap, dilation, points, stride, strict=True)
        )
        target = (slice(None), slice(None), *where)
        source = (slice(None), slice(None), *tap)
        out[target] += cols[source]
    return out


def _transpose_runs(xp: ModuleType, w: Array, x: Array, full: Ints, dilation: Ints,
                    dt: Any) -> Array:  # fmt: skip
    """`conv_transpose` for unit strides: `(N, G * O/G, *full)` from `x` `(N, G, C/G, run)`.

    `x` is laid out on the output's flat plane (its inner axes zero-padded to
    `full`), so tap `t`'s columns (the GEMM of w's tap `t` with x) are one run
    that col2im adds at the flat offset of the tap's window corner.

    NOTE: a few samples at a time (`_chunk`): the GEMM's columns for them
    stay in the core's cache until col2im has added them. CPU time, one
    thread, interleaved: x 8x64x56x58 (CV3's input gradient) 27.0 -> 19.8 ms,
    32x32x32x34 (CV2's shape, 32 -> 16 channels) 7.7 -> 4.6 ms.
    """
    n, groups, cg, run = x.shape
    og, kernel = w.shape[1], w.shape[2:]
    taps = prod(kernel)
    steps = [prod(full[a + 1 :]) for a in range(len(kernel))]
    offsets = [
        sum(k * d * s for k, d, s in zip(tap, dilation, steps, strict=True))
        for tap in _taps(kernel)
    ]
    pitch = max(offsets) + run
    itemsize = numpy.dtype(dt).itemsize
    if 4 * max(offsets) > run:
        # cols[n, g, (o, k), p] = sum_c w[g, c, (o, k)] x[n, g, c, p]; one add per tap and channel
        wt = w.reshape(groups, cg, og * taps).transpose(0, 2, 1)
        step = _chunk(xp, n, groups * og * taps * run * itemsize)
        cols = _scratch(xp, "cols", (step, groups, og * taps, run), dt)
        out = xp.zeros((n, groups * og, pitch), dtype=dt)
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            _matmul_into(xp, wt, x[lo:hi], cols[: hi - lo])
            by_tap = cols[: hi - lo].reshape(hi - lo, groups * og, taps, run)
            part = out[lo:hi]
            for t, offset in enumerate(offsets):
                part[:, :, offset : offset + run] += by_tap[:, :, t]
        return out[:, :, : prod(full)].reshape(n, groups * og, *full)
    # NOTE: with the GEMM's rows tap-major, (k, o), and each row `pitch` long
    # (its tail zero), a tap's columns for all channels of a group are one run
    # of O/G * pitch values, added to the output laid out with the same pitch
    # (the zeros spill into the next channel's row): one add per tap of long
    # runs. CPU time, one thread: CV2's input gradient 7.9 -> 5.3 ms; where the
    # tail is long against the run (LeNet's 5x5 on 10x10) the plain layout wins.
    wk = w.reshape(groups, cg, og, taps).transpose(0, 3, 2, 1).reshape(groups, taps * og, cg)
    span = groups * og * pitch
    step = _chunk(xp, n, taps * span * itemsize)
    cols = _scratch(xp, "cols", (step, groups, taps * og, pitch), dt)
    cols[..., run:] = 0
    flat = xp.zeros((n, span + max(offsets)), dtype=dt)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        _matmul_into(xp, wk, x[lo:hi], cols[: hi - lo, ..., :run])
        by_tap = cols[: hi - lo].reshape(hi - lo, groups, taps, og * pitch)
        part = flat[lo:hi]
        for t, offset in enumerate(offsets):
            target = part[:, offset : offset + span].reshape(hi - lo, groups, og * pitch)
            target += by_tap[:, :, t]
    out = flat[:, :span].reshape(n, groups * og, pitch)
    return out[:, :, : prod(full)].reshape(n, groups * og, *full)


def _chunk(xp: ModuleType, n: int, per_sample: int) -> int:
    """How many of `n` samples to take at a time when each needs `per_sample` bytes of
    temporaries: as many as fit in `_CHUNK_BYTES` (at least one); all of them off NumPy."""
    if xp is not numpy:
        return max(n, 1)
    return max(1, min(n, _CHUNK_BYTES // max(per_sample, 1)))


_CHUNK_BYTES = 1 << 20  # about half of a core's L2 cache (2 MiB here)


def _taps(kernel: Ints) -> list[Ints]:
    taps: list[Ints] = [()]
    for k in kernel:
        taps = [(*t, i) for t in taps for i in range(k)]
    return taps


def _add_bias(xp: ModuleType, out: Array, b: Any) -> Array:
    """`out + b` along the channels, in place: `out` is a fresh array of this module's."""
    if isinstance(b, (int, float)):
        return out
    b = xp.asarray(b).reshape((-1,) + (1,) * (out.ndim - 2))
    if xp.result_type(out, b) != out.dtype:
        return out + b
    out += b
    return out


# --- Winograd F(2x2, 3x3) ------------------------------------------------------------
#
# A 3x3 stride-1 convolution computed 2x2 outputs at a time from 4x4 input tiles
# (Lavin and Gray, 2015): Y = A^T [(G w G^T) * (B^T d B)] A, 16 multiplications
# per tile and channel pair instead of 36, so the GEMMs (one per tile
# position, 16 in all) do 2.25x less work than im2col's. The transforms are
# adds on arrays laid out (..., tile row, tile column, N, channel), so each
# NumPy call runs over long contiguous stretches (tw * N * C values; with the
# batch outside the tiles, runs of tw * C, the column step took 4.5x longer).
# The weight gradient uses the same input transform: by the transposition
# principle dW = G^T [sum over tiles (A ct A^T) * (B^T d B)] G, 16 GEMMs again.
# All of it goes a few tile rows at a time (`_wino_v`), so that each step's
# result is still in cache for the next (the transforms are a few adds per
# value, bound by memory when whole).
# Used for float32 only (see `_use_winograd`): float64 results stay im2col's.

_WINO_G = ((1.0, 0.0, 0.0), (0.5, 0.5, 0.5), (0.5, -0.5, 0.5), (0.0, 0.0, 1.0))


def _parity(n_src: int, lo: int, par: int, n_dst: int) -> tuple[slice, slice]:
    """(source, destination) slices: destination `i` of parity `par` holds source `2i + par - lo`."""
    i0 = max(0, (lo - par + 1) // 2)
    s0 = 2 * i0 + par - lo
    count = max(0, min(n_dst - i0, (n_src - s0 + 1) // 2))
    return slice(s0, s0 + 2 * count - 1 if count else s0, 2), slice(i0, i0 + count)


def _split(xp: ModuleType, x: Array, lo: tuple[int, int], tiles: tuple[int, int],
           slot: str) -> Array:  # fmt: skip
    """`x` `(N, C, H, W)`, `lo` zeros before its rows and columns, as `(2, 2, *tiles, N, C)`.

    Element `[pr, pc, i, j, n, c]` is the padded `x[n, c, 2i + pr, 2j + pc]` (zero outside x).
    """
    n, c, h, w = x.shape
    out = _scratch(xp, slot, (2, 2, *tiles, n, c), x.dtype)
    out.fill(0)
    xt = x.transpose(2, 3, 0, 1)
    for pr in range(2):
        si, di = _parity(h, lo[0], pr, tiles[0])
        for pc in range(2):
            sj, dj = _parity(w, lo[1], pc, tiles[1])
            out[pr, pc, di, dj] = xt[si, sj]
    return out


def _wino_v(xp: ModuleType, x: Array, lo: tuple[int, int], th: int, tw: int,
            kept: str = "") -> Iterator[tuple[int, int, Array]]:  # fmt: skip
    """`B^T d B` of `x`'s `th x tw` 4x4 tiles, 2 apart from `lo` before x, a few tile rows at
    a time: `(i0, i1, v)`, `v` `(16, (i1 - i0) * tw * N, C)` for the tile rows `i0:i1`.

    `kept`: `"put"` (`conv`'s forward, whose input `conv_weight` transforms again) makes
    the rows in one whole transform and keeps it (`_kept_put`) once all are made; `"take"`
    (`conv_weight`) reuses the transform the forward kept of this same `x`, if any
    (`_kept_take`). The forward never reads a kept transform.

    NOTE: a chunk (`_chunk`) is transformed just before the caller's GEMM
    reads it and the output transform reads the GEMM's result, all in cache:
    CPU time, one thread, forward of x 8x64x56x56 33.0 -> 20.7 ms.
    """
    n, c = x.shape[:2]
    itemsize = numpy.dtype(x.dtype).itemsize
    rows = _chunk(xp, th, 16 * tw * n * c * itemsize)
    key = (lo, th, tw)
    if kept == "take":
        whole = _kept_take(xp, "winograd", x, key)
        if whole is not None:
            for i0 in range(0, th, rows):
                i1 = min(th, i0 + rows)
                yield i0, i1, whole[:, :, i0:i1].reshape(16, (i1 - i0) * tw * n, c)
            return
    keep = kept == "put" and _keepable(xp, x, 16 * th * tw * n * c * itemsize)
    if keep:
        _kept_forget("winograd")  # its slot is written below
    xs = _split(xp, x, lo, (th + 1, tw + 1), "wino-split")
    whole = _scratch(xp, "kept-winograd" if keep else "wino-v", (4, 4, th if keep else rows, tw, n, c),
                     x.dtype)  # fmt: skip
    for i0 in range(0, th, rows):
        i1 = min(th, i0 + rows)
        d = [xs[a % 2, :, i0 + a // 2 : i1 + a // 2] for a in range(4)]  # (2, R, tw + 1, N, C)
        r = _scratch(xp, "wino-r", (4, 2, i1 - i0, tw + 1, n, c), x.dtype)
        xp.subtract(d[0], d[2], out=r[0])
        xp.add(d[1], d[2], out=r[1])
        xp.subtract(d[2], d[1], out=r[2])
        xp.subtract(d[1], d[3], out=r[3])
        e = [r[:, b % 2, :, b // 2 : b // 2 + tw] for b in range(4)]  # (4, R, tw, N, C)
        v = whole[:, :, i0:i1] if keep else whole[:, :, : i1 - i0]
        xp.subtract(e[0], e[2], out=v[:, 0])
        xp.add(e[1], e[2], out=v[:, 1])
        xp.subtract(e[2], e[1], out=v[:, 2])
        xp.subtract(e[1], e[3], out=v[:, 3])
        yield i0, i1, v.reshape(16, (i1 - i0) * tw * n, c)
    if keep:
        _kept_put(xp, "winograd", x, key, whole)


def _wino_conv(xp: ModuleType, x: Array, w: Array, padding: Pads, keep: bool = False) -> Array:
    """`conv(x, w)` for a 3x3 `w`, unit stride and dilation, one group: a fresh `(N, O, Ho, Wo)`.

    `keep`: keep x's transform for `conv_weight` (`_wino_v`); it is made anew all the same.
    """
    n, c, h, wd = x.shape
    o = w.shape[0]
    (plo, phi), (qlo, qhi) = padding
    ho, wo = h + plo + phi - 2, wd + qlo + qhi - 2
    th, tw = -(-ho // 2), -(-wo // 2)
    g = xp.asarray(_WINO_G, dtype=x.dtype)
    u = xp.matmul(xp.matmul(g, w), g.T).reshape(o, c, 16).transpose(2, 1, 0)  # (16, C, O)
    u = xp.ascontiguousarray(u)  # read once per chunk: as BLAS takes it
    y = xp.empty((n, o, ho, wo), dtype=x.dtype)
    for i0, i1, v in _wino_v(xp, x, (plo, qlo), th, tw, "put" if keep else ""):
        t = (i1 - i0) * tw * n
        m = _scratch(xp, "wino-m", (4, 4, t, o), x.dtype)
        xp.matmul(v, u, out=m.reshape(16, t, o))  # (T, O): 30% faster here than (O, T)
        # A^T m A: the rows (a), then the columns (b)
        z = _scratch(xp, "wino-z", (2, 4, t, o), x.dtype)
        xp.add(m[0], m[1], out=z[0])
        z[0] += m[2]
        xp.subtract(m[1], m[2], out=z[1])
        z[1] -= m[3]
        q = _scratch(xp, "wino-q", (2, 2, t, o), x.dtype)
        xp.add(z[:, 0], z[:, 1], out=q[:, 0])
        q[:, 0] += z[:, 2]
        xp.subtract(z[:, 1], z[:, 2], out=q[:, 1])
        q[:, 1] -= z[:, 3]
        q = q.reshape(2, 2, i1 - i0, tw, n, o).transpose(0, 1, 4, 5, 2, 3)  # (2, 2, N, O, R, tw)
        for pi in range(2):
            here = min(i1, (ho - pi + 1) // 2) - i0  # output rows 2i + pi, i in i0:i1, inside y
            for pj in range(2):
                y[:, :, 2 * i0 + pi : 2 * (i0 + here) : 2, pj::2] = q[
                    pi, pj, :, :, :here, : (wo - pj + 1) // 2
                ]
    return y


def _wino_weight(xp: ModuleType, x: Array, ct: Array, padding: Pads) -> Array:
    """`conv_weight(x, ct)` for a 3x3 kernel, unit stride and dilation, one group: `(O, C, 3, 3)`.

    The tiles' products are summed a few tile rows at a time (`_wino_v`): float32 sums
    in another order than one GEMM over all tiles (within rounding).
    """
    n, c = x.shape[:2]
    o, ho, wo = ct.shape[1:]
    th, tw = -(-ho // 2), -(-wo // 2)
    cs = _split(xp, ct, (0, 0), (th, tw), "wino-ct")  # (2, 2, th, tw, N, O)
    du = xp.zeros((16, o, c), dtype=x.dtype)
    part = _scratch(xp, "wino-du", (16, o, c), x.dtype)
    for i0, i1, v in _wino_v(xp, x, (padding[0][0], padding[1][0]), th, tw, "take"):
        cc = cs[:, :, i0:i1]
        # A c A^T of each 2x2 tile c, A = [[1, 0], [1, 1], [1, -1], [0, -1]]
        r = _scratch(xp, "wino-ct-r", (4, *cc.shape[1:]), x.dtype)
        r[0] = cc[0]
        xp.add(cc[0], cc[1], out=r[1])
        xp.subtract(cc[0], cc[1], out=r[2])
        xp.negative(cc[1], out=r[3])
        s = _scratch(xp, "wino-m", (4, 4, *cc.shape[2:]), x.dtype)
        s[:, 0] = r[:, 0]
        xp.add(r[:, 0], r[:, 1], out=s[:, 1])
        xp.subtract(r[:, 0], r[:, 1], out=s[:, 2])
        xp.negative(r[:, 1], out=s[:, 3])
        du += xp.matmul(s.reshape(16, -1, o).transpose(0, 2, 1), v, out=part)  # (16, O, C)
    g = xp.asarray(_WINO_G, dtype=x.dtype)
    dus = du.reshape(4, 4, o, c).transpose(2, 3, 0, 1)
    return xp.matmul(xp.matmul(g.T, dus), g)


def _wino_transpose(xp: ModuleType, x: Array, w: Array, padding: Pads) -> Array:
    """`conv_transpose(x, w)` for a 3x3 `w`, unit stride and dilation, one group.

    The full transposed convolution is `conv` with `w` flipped and its in and out
    channels swapped, padded by 2; `padding` crops it.
    """
    flipped = xp.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    return _wino_conv(xp, x, flipped, tuple((2 - lo, 2 - hi) for lo, hi in padding))


def _use_winograd(xp: ModuleType, a: Array, b: Array, kernel: Ints, stride: Ints,
                  dilation: Ints, groups: int, channels: tuple[int, int]) -> bool:  # fmt: skip
    """Whether a convolution (operands `a`, `b`; in and out `channels`) goes through Winograd:
    float32 on NumPy, a 3x3 kernel, unit stride and dilation, one group, enough channels.

    NOTE: only where it measured faster (CPU time, one thread, A/B in one
    process): its transforms and the two layout transposes (NCHW to tile-major
    and back) grow with N * H * W * (C + O) and the GEMMs' savings with
    N * H * W * C * O: at 32 -> 32 channels (x 16x32x32x32) forward, input and
    weight gradients took 9.9, 9.9, 10.4 ms against im2col's 7.8, 6.8, 9.1; at
    16 -> 32 (CV2) worse. Since its transforms go a tile row at a time
    (`_wino_v`), what matters besides the channels is whether a tile row's
    transform fits in `_CHUNK_BYTES` (in cache). Whole float32 step with a new
    input array each time, Winograd against im2col (both in chunks), medians
    of interleaved rounds (load 5-6.5 on 2 cores), by min(C, O) and the bytes
    of a tile row: x 8x64x56x56 (CV3; 64, 0.9 MB) 0.84x, 16x64x28x28 (64,
    0.9 MB) 0.83x, 32x64x32x32 (64, 2.1 MB) 1.38x; 8x128x28x28 0.87x,
    4x128x56x56 0.88x, 16x128x28x28 (128, 1.8 MB) 0.85x, 8x256x28x28 (256,
    1.8 MB) 0.92x; 8x32x56x56 (32, 0.5 MB) 0.93x but 32x32x32x32 (32, 1 MB)
    1.44x, so not below 64 channels.
    """
    return (
        xp is numpy
        and a.dtype == b.dtype == numpy.float32
        and kernel == (3, 3)
        and stride == (1, 1)
        and dilation == (1, 1)
        and groups == 1
        and min(channels) >= _WINO_MIN_CHANNELS
        and (
            min(channels) >= _WINO_ANY_ROW_CHANNELS
            or 16 * -(-a.shape[-1] // 2) * a.shape[0] * a.shape[1] * a.itemsize <= _CHUNK_BYTES
        )
    )


_WINO_MIN_CHANNELS = 64
_WINO_ANY_ROW_CHANNELS = 128  # from here on, also where a tile row's transform is large


def _finite(xp: ModuleType, y: Array) -> bool:
    """Whether `y` is all finite (else Winograd's result is recomputed by im2col: its
    transforms turn an inf into NaN, or overflow, where im2col need not)."""
    with numpy.errstate(all="ignore"):
        return bool(xp.isfinite(xp.sum(y)))


# --- conv -----------------------------------------------------------------------------


def _conv_forward(xp: ModuleType, x: Array, w: Array, b: Any, *, stride: Ints, padding: Pads,
                  dilation: Ints, groups: int) -> Array:  # fmt: skip
    x, w = xp.asarray(x), xp.asarray(w)
    if _use_winograd(xp, x, w, w.shape[2:], stride, dilation, groups, (w.shape[1], w.shape[0])):
        with numpy.errstate(all="ignore"):  # a non-finite result is done again below
            y = _wino_conv(xp, x, w, padding, keep=True)
        if _finite(xp, y):
            return _add_bias(xp, y, b)
    kernel = w.shape[2:]
    out = out_sizes(x.shape[2:], kernel, stride, padding, dilation)
    o = w.shape[0]
    wg = w.reshape(groups, o // groups, -1)
    y = xp.empty((x.shape[0], groups, o // groups, prod(out)), dtype=xp.result_type(x, w))
    for lo, hi, cols in _x_cols(xp, x, groups, kernel, out, stride, padding, dilation):
        _matmul_into(xp, wg, cols, y[lo:hi])  # (N, G, O/G, P)
    return _add_bias(xp, y.reshape(x.shape[0], o, *out), b)


def _params(x: Any, out: Any, w: Any, *, stride: Ints, padding: Pads, dilation: Ints,
            **rest: Any) -> dict[str, Any]:  # fmt: skip
    """The rule's params with conv's padding `after` made exact for the adjoints (x -> out by w)."""
    pads = exact_padding(
        shape_of(x)[2:], shape_of(out)[2:], shape_of(w)[2:], stride, padding, dilation
    )
    return {"stride": stride, "padding": pads, "dilation": dilation, **rest}


def _conv_vjp_x(ct: Array, out: Array, x: Array, w: Array, b: Any, **params: Any) -> Array:
    return conv_transpose(ct, w, 0.0, **_params(x, out, w, **params))


def _conv_vjp_w(ct: Array, out: Array, x: Array, w: Array, b: Any, **params: Any) -> Array:
    return conv_weight(x, ct, **_params(x, out, w, **params), kernel=tuple(shape_of(w)[2:]))


def _bias_vjp(ct: Array, out: Array, x: Array, w: Array, b: Any, **params: Any) -> Array:
    nd = len(shape_of(ct)) - 2
    return sum_(ct, axis=(0, *range(2, 2 + nd)), keepdims=False)


def _bias_jvp(b_t: Array, out: Array, x: Array, w: Array, b: Any, **params: Any) -> Array:
    nd = len(shape_of(out)) - 2
    return reshape(b_t, shape=(-1,) + (1,) * nd)


def _conv_jvp_x(x_t: Array, out: Array, x: Array, w: Array, b: Any, **params: Any) -> Array:
    return conv(x_t, w, 0.0, **params)


def _conv_jvp_w(w_t: Array, out: Array, x: Array, w: Array, b: Any, **params: Any) -> Array:
    return conv(x, w_t, 0.0, **params)


def _draw_geometry(g: Draw) -> dict[str, Any]:
    """Draw a small convolution: its dims, sizes and parameters, with at least one output."""
    nd = g.integers(1, 3) if g.integers(0, 2) else 2
    groups = g.integers(1, 2)
    kernel = tuple(g.integers(1, 3) for _ in range(nd))
    stride = tuple(g.integers(1, 2) for _ in range(nd))
    dilation = tuple(g.integers(1, 2) for _ in range(nd))
    padding = tuple((g.integers(0, 2), g.integers(-1, 2)) for _ in range(nd))
    sizes = []
    for k, (lo, hi), d in zip(kernel, padding, dilation, strict=True):
        least = max(d * (k - 1) + 1 - lo - hi, 1 - hi if hi < 0 else 1, 1)
        sizes.append(least + g.integers(0, 3 if nd < 3 else 1))
    return {
        "nd": nd,
        "n": g.integers(1, 2),
        "groups": groups,
        "cin": groups * g.integers(1, 2),
        "cout": groups * g.integers(1, 2),
        "kernel": kernel,
        "sizes": tuple(sizes),
        "params": {
            "stride": stride,
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
        },
    }


def _geometry_out(geo: dict[str, Any]) -> Ints:
    """The output sizes of a drawn convolution."""
    p = geo["params"]
    return out_sizes(geo["sizes"], geo["kernel"], p["stride"], p["padding"], p["dilation"])


def _conv_sample(g: Draw) -> Drawn:
    geo = _draw_geometry(g)
    x = g.array((geo["n"], geo["cin"], *geo["sizes"]), -2.0, 2.0)
    w = g.array((geo["cout"], geo["cin"] // geo["groups"], *geo["kernel"]), -2.0, 2.0)
    b = g.array((geo["cout"],), -2.0, 2.0) if g.boolean() else 0.0
    return (x, w, b), geo["params"]


conv = register(
    Primitive(
        name="conv",
        forward=_conv_forward,
        vjp=(_conv_vjp_x, _conv_vjp_w, _bias_vjp),
        jvp=(_conv_jvp_x, _conv_jvp_w, _bias_jvp),
        params=("stride", "padding", "dilation", "groups"),
        sample=Sample(_conv_sample),
        doc="N-d convolution (cross-correlation) of x (N, C, *S) with w (O, C/groups, *K), plus b",
        names=Names(grad_fn="ConvolutionBackward0"),
    )
)


# --- conv_transpose -------------------------------------------------------------------


def _conv_transpose_forward(xp: ModuleType, x: Array, w: Array, b: Any, *, stride: Ints,
                            padding: Pads, dilation: Ints, groups: int) -> Array:  # fmt: skip
    x, w = xp.asarray(x), xp.asarray(w)
    if _use_winograd(xp, x, w, w.shape[2:], stride, dilation, groups, w.shape[:2]):
        with numpy.errstate(all="ignore"):
            y = _wino_transpose(xp, x, w, padding)
        if _finite(xp, y):
            return _add_bias(xp, y, b)
    n, cin = x.shape[:2]
    points = x.shape[2:]
    kernel = w.shape[2:]
    og = w.shape[1]
    cg = cin // groups
    full = tuple(
        (p - 1) * s + d * (k - 1) + 1
        for p, s, d, k in zip(points, stride, dilation, kernel, strict=True)
    )
    dt = xp.result_type(x, w)
    if all(s == 1 for s in stride) and bool(xp.isfinite(w).all()):
        # NOTE: with unit strides, x's inner axes padded with zeros to their full
        # sizes make each tap's columns one contiguous run of the flat output
        # (the padding's columns are exact zeros wherever they land), so col2im
        # adds runs of prod(grid) values instead of rows of P[-1]: CPU time of the
        # input gradient of LeNet's conv2 2.5 -> 1.9 ms, CV2's 11.6 -> 9.4, CV3's 45 -> 34.
        grid = (points[0], *full[1:])
        x = _pad(xp, x, tuple((0, f - p) for f, p in zip(full[1:], points[1:], strict=True)),
                 slot="ct-pad")  # fmt: skip
        y = _transpose_runs(xp, w, x.reshape(n, groups, cg, prod(grid)), full, dilation, dt)
    else:
        # cols[n, g, (o, k), p] = sum_c w[g, c, (o, k)] x[n, g, c, p]
        wt = w.reshape(groups, cg, og * prod(kernel)).transpose(0, 2, 1)
        cols = _scratch(xp, "cols", (n, groups, og * prod(kernel), prod(points)), dt)
        _matmul_into(xp, wt, x.reshape(n, groups, cg, prod(points)), cols)
        cols = cols.reshape(n, groups * og, *kernel, *points)
        y = _col2im(xp, cols, full, kernel, stride, dilation)
    y = _pad(xp, y, tuple((-lo, -hi) for lo, hi in padding))
    return _add_bias(xp, y, b)


def _conv_transpose_vjp_x(
    ct: Array, out: Array, x: Array, w: Array, b: Any, **params: Any
) -> Array:
    return conv(ct, w, 0.0, **params)


def _conv_transpose_vjp_w(
    ct: Array, out: Array, x: Array, w: Array, b: Any, **params: Any
) -> Array:
    return conv_weight(ct, x, **params, kernel=tuple(shape_of(w)[2:]))


def _conv_transpose_jvp_x(
    x_t: Array, out: Array, x: Array, w: Array, b: Any, **params: Any
) -> Array:
    return conv_transpose(x_t, w, 0.0, **params)


def _conv_transpose_jvp_w(
    w_t: Array, out: Array, x: Array, w: Array, b: Any, **params: Any
) -> Array:
    return conv_transpose(x, w_t, 0.0, **params)


def _conv_transpose_sample(g: Draw) -> Drawn:
    geo = _draw_geometry(g)
    params = geo["params"]
    # the transpose maps the conv's output space back to its input space
    out = _geometry_out(geo)
    pairs = []
    for (lo, hi), p, k, s, d in zip(
        params["padding"], out, geo["kernel"], params["stride"], params["dilation"], strict=True
    ):
        hi += g.integers(-1, 0)
        full = (p - 1) * s + d * (k - 1) + 1
        pairs.append((lo, min(hi, full - lo - 1)))  # at least one output
    pads = tuple(pairs)
    x = g.array((geo["n"], geo["cout"], *out), -2.0, 2.0)
    w = g.array((geo["cout"], geo["cin"] // geo["groups"], *geo["kernel"]), -2.0, 2.0)
    b = g.array((geo["cin"],), -2.0, 2.0) if g.boolean() else 0.0
    return (x, w, b), {**params, "padding": pads}


conv_transpose = register(
    Primitive(
        name="conv_transpose",
        forward=_conv_transpose_forward,
        vjp=(_conv_transpose_vjp_x, _conv_transpose_vjp_w, _bias_vjp),
        jvp=(_conv_transpose_jvp_x, _conv_transpose_jvp_w, _bias_jvp),
        params=("stride", "padding", "dilation", "groups"),
        sample=Sample(_conv_transpose_sample),
        doc="N-d transposed convolution of x (N, C, *S) with w (C, O/groups, *K), plus b",
        names=Names(grad_fn="ConvolutionBackward0"),
    )
)


# --- conv_weight ----------------------------------------------------------------------


def _conv_weight_forward(xp: ModuleType, x: Array, ct: Array, *, stride: Ints, padding: Pads,
                         dilation: Ints, groups: int, kernel: Ints) -> Array:  # fmt: skip
    x, ct = xp.asarray(x), xp.asarray(ct)
    n, c = x.shape[:2]
    o = ct.shape[1]
    points = ct.shape[2:]
    if _use_winograd(xp, x, ct, kernel, stride, dilation, groups, (c, o)):
        with numpy.errstate(all="ignore"):
            dw = _wino_weight(xp, x, ct, padding)
        if _finite(xp, dw):
            return dw
    # dW[g, o, (c, k)] = sum_{n, p} ct[n, g, o, p] cols[n, g, (c, k), p], as its transpose
    # NOTE: N GEMMs and a sum measured faster than one GEMM over the batch
    # with the windows copied batch-last (CV2's weight gradient 7.8 vs 8.9 ms);
    # each as cols @ ct^T rather than ct @ cols^T (OpenBLAS, CPU time, one
    # thread, interleaved: CV2's 5.6 -> 4.6 ms, CV1's 0.65 -> 0.38); BLAS may
    # sum in another order for it, so the last bits can differ from ct @ cols^T
    # (float64 included)
    cts = ct.reshape(n, groups, o // groups, prod(points))
    per = _scratch(xp, "ct", (n, groups, c // groups * prod(kernel), o // groups),
                   xp.result_type(ct, x))  # fmt: skip
    for lo, hi, cols in _x_cols(xp, x, groups, kernel, points, stride, padding, dilation):
        _matmul_into(xp, cols, cts[lo:hi].transpose(0, 1, 3, 2), per[lo:hi])
    return per.sum(axis=0).transpose(0, 2, 1).reshape(o, c // groups, *kernel)


def _conv_weight_vjp_x(
    ct: Array, out: Array, x: Array, c: Array, *, kernel: Ints, **params: Any
) -> Array:
    return conv_transpose(c, ct, 0.0, **params)


def _conv_weight_vjp_c(
    ct: Array, out: Array, x: Array, c: Array, *, kernel: Ints, **params: Any
) -> Array:
    return conv(x, ct, 0.0, **params)


def _conv_weight_jvp_x(x_t: Array, out: Array, x: Array, c: Array, **params: Any) -> Array:
    return conv_weight(x_t, c, **params)


def _conv_weight_jvp_c(c_t: Array, out: Array, x: Array, c: Array, **params: Any) -> Array:
    return conv_weight(x, c_t, **params)


def _conv_weight_sample(g: Draw) -> Drawn:
    geo = _draw_geometry(g)
    params = geo["params"]
    out = _geometry_out(geo)
    pads = exact_padding(
        geo["sizes"], out, geo["kernel"], params["stride"], params["padding"], params["dilation"]
    )
    x = g.array((geo["n"], geo["cin"], *geo["sizes"]), -2.0, 2.0)
    ct = g.array((geo["n"], geo["cout"], *out), -2.0, 2.0)
    return (x, ct), {**params, "padding": pads, "kernel": geo["kernel"]}


conv_weight = register(
    Primitive(
        name="conv_weight",
        forward=_conv_weight_forward,
        vjp=(_conv_weight_vjp_x, _conv_weight_vjp_c),
        jvp=(_conv_weight_jvp_x, _conv_weight_jvp_c),
        params=("stride", "padding", "dilation", "groups", "kernel"),
        sample=Sample(_conv_weight_sample),
        doc="the weight gradient of conv: x's windows against the output cotangent ct",
        names=Names(grad_fn="ConvolutionBackwardBackward0"),
    )
)


# --- unfold and fold (im2col and col2im) ------------------------------------------------


def _unfold_forward(xp: ModuleType, x: Array, *, kernel: Ints, stride: Ints, padding: Pads,
                    dilation: Ints) -> Array:  # fmt: skip
    x = xp.asarray(x)
    points = out_sizes(x.shape[2:], kernel, stride, padding, dilation)
    cols = _im2col(xp, x, 1, kernel, points, stride, padding, dilation)
    return cols.reshape(x.shape[0], -1, prod(points))


def _fold_forward(xp: ModuleType, c: Array, *, kernel: Ints, stride: Ints, padding: Pads,
                  dilation: Ints, size: Ints) -> Array:  # fmt: skip
    c = xp.asarray(c)
    points = out_sizes(size, kernel, stride, padding, dilation)
    n = c.shape[0]
    cols = c.reshape(n, -1, *kernel, *points)
    padded = tuple(m + lo + hi for m, (lo, hi) in zip(size, padding, strict=True))
    out = _col2im(xp, cols, padded, kernel, stride, dilation)
    return _pad(xp, out, tuple((-lo, -hi) for lo, hi in padding))


def _unfold_sample(g: Draw) -> Drawn:
    geo = _draw_geometry(g)
    params = dict(geo["params"])
    del params["groups"]
    params["padding"] = tuple((lo, max(hi, 0)) for lo, hi in params["padding"])
    sizes = tuple(max(n, d * (k - 1) + 1) for n, k, d in zip(
        geo["sizes"], geo["kernel"], params["dilation"], strict=True))  # fmt: skip
    x = g.array((geo["n"], geo["cin"], *sizes), -2.0, 2.0)
    return (x,), {**params, "kernel": geo["kernel"]}


def _unfold_vjp(ct: Array, out: Array, x: Array, **params: Any) -> Array:
    return fold(ct, **params, size=tuple(shape_of(x)[2:]))


unfold = register(
    Primitive(
        name="unfold",
        forward=_unfold_forward,
        vjp=(_unfold_vjp,),
        jvp=LINEAR,
        params=("kernel", "stride", "padding", "dilation"),
        sample=Sample(_unfold_sample),
        doc="im2col: the sliding blocks of x (N, C, *S) as columns (N, C * prod(K), L)",
        names=Names(grad_fn="Im2ColBackward0"),
    )
)


def _fold_sample(g: Draw) -> Drawn:
    (x,), params = _unfold_sample(g)
    cols = unfold(x, **params)
    return (g.array(cols.shape, -2.0, 2.0),), {**params, "size": tuple(x.shape[2:])}


def _fold_vjp(ct: Array, out: Array, c: Array, *, size: Ints, **params: Any) -> Array:
    return unfold(ct, **params)


fold = register(
    Primitive(
        name="fold",
        forward=_fold_forward,
        vjp=(_fold_vjp,),
        jvp=LINEAR,
        params=("kernel", "stride", "padding", "dilation", "size"),
        sample=Sample(_fold_sample),
        doc="col2im: columns (N, C * prod(K), L) summed back into an image (N, C, *size)",
        names=Names(grad_fn="Col2ImBackward0"),
    )
)
