"""Running one drawn call on funcgrad and on PyTorch, and comparing everything it gives.

`check(case, call)` runs `call` (a `torch_cases.Call`) on both libraries and
compares, in this order, each a separate *aspect* of the case (the names
`KNOWN_MISMATCHES` and `DIFFERENCES` use):

* `"accepts"`: PyTorch raises, so funcgrad must raise too (any exception;
  never a number);
* `"raises"`: PyTorch returns, so funcgrad must return too;
* `"values"`: the outputs: structure, shape, dtype, `requires_grad`, and the
  numbers, with a dtype-aware tolerance (NaN where NaN, the same infinities);
* `"grad"`: first order: `.backward(cotangent)` with a random cotangent (ties
  and zeros half of the time), then `.grad` of every input that requires grad;
* `"grad2"`: second order: `autograd.grad(..., create_graph=True)`, then a
  backward of `sum(grad * w)` for a random `w`, and `.grad` of every input.

A failing aspect raises `Mismatch(aspect, message)`.
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings
from dataclasses import dataclass

import numpy as np

import funcgrad
from tests.differential.torch_differences import rules

ASPECTS = ("accepts", "raises", "values", "grad", "grad2")

# Relative tolerances (of each array's scale) by dtype: values, gradients, second order.
RTOL = {
    "float16": (1e-2, 1e-2, 1e-2),
    "float32": (2e-4, 5e-4, 2e-3),
    "float64": (1e-9, 1e-9, 1e-8),
}


class Mismatch(AssertionError):
    """funcgrad and PyTorch disagree on one aspect of one call."""

    def __init__(self, aspect: str, message: str):
        super().__init__(f"[{aspect}] {message}")
        self.aspect = aspect


@dataclass(frozen=True)
class Lib:
    """A library a call runs on: `funcgrad` or `torch`, as a module proxy.

    `canonical` asks the call's drawn arguments for their plainest form
    (a Python int for a dim drawn as a NumPy integer or a 0-d tensor): PyTorch
    runs again so when it refused a form funcgrad deliberately accepts
    (`DIFFERENCES[...] == "wider"`).
    """

    module: object
    canonical: bool = False

    def __getattr__(self, name):
        return getattr(self.module, name)

    @property
    def is_torch(self) -> bool:
        return self.module.__name__ == "torch"

    def make(self, array, requires_grad=False):
        """Return a fresh leaf tensor holding a copy of `array`."""
        t = self.module.tensor(np.array(array, copy=True))
        if requires_grad:
            t.requires_grad_(True)
        return t


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _run(lib, call):
    """Return `(tensors, output, None)` or `(tensors, None, exception)`."""
    ts = [lib.make(a, r) for a, r in zip(call.arrays, call.grads, strict=True)]
    try:
        with _quiet():
            return ts, call.fn(lib, ts), None
    except Exception as e:  # noqa: BLE001 - any exception is PyTorch's "refuse"
        return ts, None, e


def _is_tensor(x) -> bool:
    return isinstance(x, funcgrad.Tensor) or type(x).__name__ in ("Tensor", "Parameter")


def _flat(out, path="out"):
    """Return `[(path, leaf)]` for the output's tensors and plain values."""
    if isinstance(out, (tuple, list)) and not _is_size(out):
        items = []
        for i, o in enumerate(out):
            items += _flat(o, f"{path}[{i}]")
        return items
    return [(path, out)]


def _is_size(x) -> bool:
    return type(x).__name__ == "Size"


def _numpy(t) -> np.ndarray:
    if isinstance(t, funcgrad.Tensor):
        return np.asarray(t.detach().numpy()).copy()
    return np.asarray(t.detach().numpy(force=True)).copy()  # force: a ZeroTensor too


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def assert_close(ref, got, dtype, rtol, what, aspect, guard=False):
    """Fail (`Mismatch`) unless the arrays `got` and `ref` agree within `rtol` of their scale.

    NaN must be where NaN is, infinities where infinities are (same sign).
    With `guard`, any value of funcgrad where PyTorch has NaN passes (the NaN
    guard's zeros, and what they become once unbroadcast: `DIFFERENCES[GUARD]`).
    """
    ref = np.asarray(ref)
    got = np.asarray(got)
    if ref.shape != got.shape:
        raise Mismatch(aspect, f"{what}: shape {got.shape}, torch {ref.shape}")
    if ref.dtype.kind in "biu" or ref.dtype.kind != "f" and got.dtype.kind != "f":
        if not np.array_equal(ref, got):
            raise Mismatch(aspect, f"{what}: {got!r}, torch {ref!r}")
        return
    r = ref.astype(np.float64)
    g = got.astype(np.float64)
    nan_r, nan_g = np.isnan(r), np.isnan(g)
    ok_nan = nan_r == nan_g
    if guard:
        ok_nan |= nan_r
    finite = np.isfinite(r) & np.isfinite(g)
    same_inf = np.isinf(r) & (r == g)
    with np.errstate(all="ignore"):
        scale = np.max(np.abs(r[np.isfinite(r)]), initial=0.0)
        bound = rtol * (np.abs(r) + max(1.0, scale))
        close = finite & (np.abs(r - g) <= bound)
    ok = ok_nan & (close | same_inf | nan_r | (guard & nan_r))
    if not ok.all():
        bad = np.argwhere(~ok)[:4]
        pairs = ", ".join(
            f"at {tuple(int(i) for i in b)}: {g[tuple(b)]!r} vs torch {r[tuple(b)]!r}" for b in bad
        )
        raise Mismatch(
            aspect,
            f"{what} ({dtype}, rtol {rtol:g}): {pairs}\n  funcgrad {got!r}\n  torch    {ref!r}",
        )


def compare_outputs(ref, got, aspect="values", order=0, guard=False, floor="float64", kappa=1.0):
    """Compare two outputs (tensors, tuples of them, Sizes, dtypes, Python values)."""
    fr, fg_ = _flat(ref), _flat(got)
    if len(fr) != len(fg_):
        raise Mismatch(aspect, f"{len(fg_)} outputs, torch {len(fr)}: {got!r} vs {ref!r}")
    fields = getattr(ref, "_fields", None) or (
        ("values", "indices") if type(ref).__module__ == "torch.return_types" else None
    )
    for name in fields or ():
        if not hasattr(got, name):
            raise Mismatch(aspect, f"output has no field {name!r} (torch's has)")
    for (path, r), (_, g) in zip(fr, fg_, strict=True):
        compare_leaf(r, g, path, aspect, order, guard, floor, kappa)


def _zeros_or_none(t) -> bool:
    return t is None or (_is_tensor(t) and not np.any(_numpy(t)))


# The largest tolerance a condition number can buy (of an array's scale, as
# `assert_close` measures): pinverse's float32 second order was at most 0.054
# from PyTorch's at kappa 300, 0.13 at 400, 0.29 at 500 and 0.6 at
# 1000 (300 draws each, session 11: `N=300 python -m
# tests.differential.measure_conditioning 300 400 500 1000`), which set the
# limit below. A result off by a factor of 2 or more, or of the opposite sign,
# exceeds it at its largest element.
CONDITIONED_CAP = 0.5

# The condition number beyond which a draw is not compared at all
# (`kappa_limit`): float32's, where eps * kappa**3 reaches eps32 * 300**3 (3.2).
_KAPPA_LIMIT_FLOAT32 = 300.0


def kappa_limit(dtype: str) -> float:
    """The largest condition number at which a `dtype` call is still compared.

    Where `eps * kappa ** 3` (the second order's error scale) is the one
    float32 has at kappa 300 (`_KAPPA_LIMIT_FLOAT32`): 300 in float32,
    about 2.4e5 in float64, 15 in float16. Beyond it neither library's second
    order has a digit, and `Builder.conditioned` skips the draw.
    """
    eps32 = float(np.finfo(np.float32).eps)
    return _KAPPA_LIMIT_FLOAT32 * (eps32 / float(np.finfo(dtype).eps)) ** (1 / 3)


def effective_kappa(a, dtype, rcond: float = 1e-15) -> float:
    """The condition number pinv computes with, for the matrix (or stack) `a` in `dtype`.

    The singular values are taken in float64 from `a`; those pinv drops (at
    most `rcond` times the largest) do not count, so a rank-deficient or a
    zero matrix, whose pseudo-inverse is well conditioned, is judged by the
    singular values it keeps (`np.linalg.cond`, inf or ~1e16 there, judged
    nothing: any number passed). A singular value within `dtype`'s rounding
    of the largest (`eps * max(m, n)` of it) that the cut does not surely
    drop is one the computed SVD may keep as rounding noise and invert
    (`torch.pinverse` of a rank-1 float32 matrix gives entries ~1e7): the
    result is then inf, and such draws are skipped. The largest over a stack.
    """
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0:
        return 1.0
    with np.errstate(all="ignore"):
        s = np.linalg.svd(a, compute_uv=False)
    if not np.all(np.isfinite(s)):
        return np.inf
    s = s.reshape(-1, s.shape[-1])
    noise_rel = float(np.finfo(dtype).eps) * max(a.shape[-2:])
    kappa = 1.0
    for row in s:
        top = float(row.max())
        if top == 0.0:
            continue  # a zero matrix: pinv is zero
        cut, noise = rcond * top, noise_rel * top
        for v in row:
            if v + noise <= cut:
                continue  # dropped whatever the rounding
            if v - noise <= cut or v <= 10 * noise:
                return np.inf  # kept or not, or kept as mostly rounding: no digit to compare
            kappa = max(kappa, top / float(v))
    return kappa


def conditioned_rtol(dtype: str, order: int, kappa: float) -> float:
    """The relative error of a result of derivative order `order` of an ill-conditioned call.

    An inverse-like operation (`pinverse`) of a matrix of condition number
    `kappa` computed in `dtype` is off by up to about `eps * kappa` in its
    value, and each order of differentiation multiplies in one more factor
    of the inverse, so one more `kappa`: `eps * kappa ** (order + 1)`,
    at most `CONDITIONED_CAP` (a factor of 2 still fails).
    (Measured for pinverse, float32, 3x3, 400 draws: PyTorch's and funcgrad's
    second order against float64 stay below `eps * kappa ** 3` from kappa 10
    up, with PyTorch's the larger error in 82% of the draws.) 0 for kappa 1.
    """
    if not kappa > 1.0:
        return 0.0
    return min(float(np.finfo(dtype).eps) * kappa ** (order + 1), CONDITIONED_CAP)


def compare_leaf(r, g, path, aspect, order=0, guard=False, floor="float64", kappa=1.0):
    """Compare one output; `floor` is the lowest precision among the call's inputs.

    `kappa` is the condition number of the call's input matrix when its
    case records one (`Builder.conditioned`): the tolerance then grows with
    it (`conditioned_rtol`).
    """
    if r is None or g is None:
        if order and _zeros_or_none(r) and _zeros_or_none(g):
            return  # a gradient: None (not reached) and zeros are the same answer
        if order and (r is None or g is None):
            r = np.zeros(np.shape(_numpy(g))) if r is None else r
            g = np.zeros(np.shape(_numpy(r))) if g is None else g
            rt = RTOL["float32" if "float32" in (floor,) else "float64"][order]
            assert_close(
                _numpy(r) if _is_tensor(r) else r,
                _numpy(g) if _is_tensor(g) else g,
                "None as zeros",
                rt,
                path,
                aspect,
                guard,
            )
            return
        if (r is None) != (g is None):
            raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        return
    if _is_tensor(r):
        if not isinstance(g, funcgrad.Tensor):
            raise Mismatch(aspect, f"{path}: a {type(g).__name__}, torch a tensor: {g!r}")
        dt = _dtype_name(r.dtype)
        if _dtype_name(g.dtype) != dt:
            raise Mismatch(aspect, f"{path}: dtype {g.dtype}, torch {dt}")
        if tuple(g.shape) != tuple(r.shape):
            raise Mismatch(aspect, f"{path}: shape {tuple(g.shape)}, torch {tuple(r.shape)}")
        if order == 0 and bool(g.requires_grad) != bool(r.requires_grad):
            raise Mismatch(
                aspect, f"{path}: requires_grad {g.requires_grad}, torch {r.requires_grad}"
            )
        rtol = max(RTOL.get(dt, (0, 0, 0))[order], RTOL.get(floor, (0, 0, 0))[order])
        if dt in RTOL and floor in RTOL:
            low = max((dt, floor), key=lambda d: np.finfo(d).eps)  # the lower precision
            rtol = max(rtol, conditioned_rtol(low, order, kappa))
        assert_close(_numpy(r), _numpy(g), dt, rtol, path, aspect, guard)
        return
    if _is_size(r):
        if not _is_size(g) or tuple(g) != tuple(r):
            raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        return
    if type(r).__name__ == "dtype":
        if _dtype_name(g) != _dtype_name(r):
            raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        return
    if type(r).__name__ == "device":
        if str(g) != str(r):
            raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        return
    if isinstance(r, np.ndarray):
        if not isinstance(g, np.ndarray) or g.dtype != r.dtype:
            raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        assert_close(r, g, str(r.dtype), RTOL.get(str(r.dtype), (0, 0, 0))[0], path, aspect)
        return
    if isinstance(r, (bool, int, float, str)):
        if type(g) is not type(r):
            raise Mismatch(aspect, f"{path}: {type(g).__name__} {g!r}, torch {type(r).__name__}")
        if isinstance(r, float):
            if not (math.isclose(g, r, rel_tol=1e-6, abs_tol=1e-6) or (g != g and r != r)):
                raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        elif g != r:
            raise Mismatch(aspect, f"{path}: {g!r}, torch {r!r}")
        return
    raise Mismatch(aspect, f"{path}: cannot compare a {type(r).__name__}: {g!r} vs torch {r!r}")


def _float_outputs(out):
    return [o for _, o in _flat(out) if _is_tensor(o) and o.requires_grad]


def _loss(lib, outs, cts):
    """Return the scalar `sum(sum(o * ct))` (or `None` for no outputs)."""
    total = None
    for o, ct in zip(outs, cts, strict=True):
        term = (o * lib.make(ct)).sum()
        total = term if total is None else total + term
    return total


def _grads(ts, grads):
    return [t.grad if r else None for t, r in zip(ts, grads, strict=True)]


def allowed(case_name: str, mismatch: Mismatch, call_text: str = "") -> bool:
    """Whether `DIFFERENCES` allows this mismatch (its aspect; its message and call if the rule says)."""
    return any(
        rule.aspect == mismatch.aspect
        and (rule.match is None or re.search(rule.match, str(mismatch)) is not None)
        and (rule.call is None or re.search(rule.call, call_text) is not None)
        for rule in rules(case_name)
    )


def check(case, call, g, torch) -> None:
    """Compare `call` on funcgrad and PyTorch (see the module docstring); `g` draws cotangents."""
    with _quiet():
        _check(case, call, g, torch)


def _check(case, call, g, torch) -> None:
    T, F = Lib(torch), Lib(funcgrad)
    floor = call.floor()
    guard = call.ties  # zero cotangents and inputs: where the NaN guard acts
    t_ts, t_out, t_err = _run(T, call)
    f_ts, f_out, f_err = _run(F, call)
    if t_err is not None:
        if f_err is not None:
            return
        if isinstance(t_err, TypeError) and any(r.canonical for r in rules(case.name)):
            T = Lib(torch, canonical=True)
            t_ts, t_out, t_err = _run(T, call)
            if t_err is not None:
                raise Mismatch("accepts", f"torch refuses even the plain form: {t_err!r}")
        else:
            raise Mismatch(
                "accepts",
                f"torch raises {type(t_err).__name__}: {t_err}; funcgrad returns {f_out!r}",
            )
    if f_err is not None:
        raise Mismatch(
            "raises",
            f"funcgrad raises {type(f_err).__name__}: {f_err}; torch returns {t_out!r}",
        ) from f_err
    if case.unspecified is not None:
        case.unspecified(call, t_out, f_out)
    else:
        compare_outputs(t_out, f_out, floor=floor, kappa=call.kappa)
    if not case.grads:
        return

    # --- first order: out.backward(ct), then .grad ---------------------------------
    t_outs, f_outs = _float_outputs(t_out), _float_outputs(f_out)
    if not t_outs or not any(call.grads):
        return
    cts = [call.cotangent(g, tuple(o.shape), _dtype_name(o.dtype)) for o in t_outs]
    t_err = f_err = None
    try:
        _backward(T, t_outs, cts)
    except Exception as e:  # noqa: BLE001
        t_err = e
    try:
        _backward(F, f_outs, cts)
    except Exception as e:  # noqa: BLE001
        f_err = e
    if t_err is not None:
        return  # PyTorch's backward fails (a derivative it does not implement, its own bug)
    if f_err is not None:
        raise Mismatch("grad", f"funcgrad's backward raises {f_err!r}") from f_err
    t_grads, f_grads = _grads(t_ts, call.grads), _grads(f_ts, call.grads)
    for i, (rg, fg_) in enumerate(zip(t_grads, f_grads, strict=True)):
        compare_leaf(rg, fg_, f"input {i} .grad", "grad", 1, guard, floor, call.kappa)
    if case.order2:
        _check_second_order(call, g, T, F, guard, floor)


def _backward(lib, outs, cts):
    if len(outs) == 1:
        outs[0].backward(lib.make(cts[0]))
    else:
        _loss(lib, outs, cts).backward()


def _first_grads(lib, call, cts_draw):
    ts, out, err = _run(lib, call)
    if err is not None:
        raise err
    outs = _float_outputs(out)
    wrt = [t for t, r in zip(ts, call.grads, strict=True) if r]
    cts = cts_draw(outs)
    gs = lib.autograd.grad(
        outs, wrt, [lib.make(c) for c in cts], create_graph=True, allow_unused=True
    )
    return wrt, gs


def _check_second_order(call, g, T, F, guard, floor):
    cache = {}

    def cts_draw(outs):
        if "cts" not in cache:
            cache["cts"] = [call.cotangent(g, tuple(o.shape), _dtype_name(o.dtype)) for o in outs]
        return cache["cts"]

    t_wrt, t_gs = _first_grads(T, call, cts_draw)
    try:
        f_wrt, f_gs = _first_grads(F, call, cts_draw)
    except Exception as e:  # noqa: BLE001
        raise Mismatch("grad2", f"funcgrad.autograd.grad(create_graph=True) raises {e!r}") from e
    for i, (rg, fg_) in enumerate(zip(t_gs, f_gs, strict=True)):
        compare_leaf(rg, fg_, f"autograd.grad {i}", "grad2", 1, guard, floor, call.kappa)
    ws = [
        None if rg is None else call.cotangent(g, tuple(rg.shape), _dtype_name(rg.dtype))
        for rg in t_gs
    ]

    def second(lib, wrt, gs):
        terms = [
            (gr * lib.make(w)).sum()
            for gr, w in zip(gs, ws, strict=True)
            if gr is not None and w is not None and gr.requires_grad
        ]
        if not terms:
            return [None] * len(wrt)
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        total.backward()
        return [t.grad for t in wrt]

    t_g2 = second(T, t_wrt, t_gs)
    try:
        f_g2 = second(F, f_wrt, f_gs)
    except Exception as e:  # noqa: BLE001
        raise Mismatch("grad2", f"funcgrad's second backward raises {e!r}") from e
    for i, (rg, fg_) in enumerate(zip(t_g2, f_g2, strict=True)):
        compare_leaf(
            rg, fg_, f"second-order .grad of input {i}", "grad2", 2, guard, floor, call.kappa
        )
