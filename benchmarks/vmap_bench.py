"""W9 and the Jacobian sweep: `funcgrad.vmap` beside `torch.func.vmap` and Python loops.

    python benchmarks/vmap_bench.py            # W9 and jacrev 64 -> 64, about a minute
    python benchmarks/vmap_bench.py --quick    # fewer rounds

W9: per-example gradients of the W3 MLP (64-128-10, tanh, softmax
cross-entropy, float64) for a batch of 64: `vmap(grad(loss), in_axes=(None,
0, 0))` in funcgrad's functional API (`fg_func`) and through
`funcgrad.func.vmap(funcgrad.func.grad(...))` on tensors (`fg_imp`), beside
`torch.func.vmap(torch.func.grad(...))` (`torch`), the same gradients by a
Python loop of `funcgrad.grad` (`fg_loop`) and written by hand with NumPy
(`numpy`, the reference every result is checked against). Targets: fg_func
at or below torch, and at least 10x faster than fg_loop.

jacrev: the Jacobian of a 64 -> 64 function (`tanh(A @ x) * x`) by
`funcgrad.jacrev`, which pulls back all 64 rows in one batched backward
walk (vmap of the pullback), against the row-by-row sweep it replaced (one
walk per row over the same traced graph), and `torch.func.jacrev`.

`build()` gives W9's implementations to `benchmarks/run.py` (the W9 row of
its table); `w9(repeat)` and `jacrev_64(repeat)` measure here, each a dict of
median milliseconds per implementation and their ratios. Rounds take turns
as `benchmarks/run.py` does for W9 (a block of `INNER` calls of each
implementation per round, the order rotating), so the machine's load hits
all alike; a round's figure is the block's mean per call. One thread, set
before NumPy is imported.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_HERE))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import peers  # noqa: E402
import workloads  # noqa: E402

import funcgrad as fg  # noqa: E402
import funcgrad.numpy as fnp  # noqa: E402
from funcgrad.transforms import jacobians  # noqa: E402

TITLE = (
    "per-example gradients of the W3 MLP (64-128-10 tanh, softmax CE), batch 64, "
    "float64: vmap(grad)"
)


def _numpy_per_example(X, labels, params):
    """Every example's gradients of -log softmax(tanh(x W1 + b1) W2 + b2)[y], by hand."""
    W1, b1, W2, b2 = params
    H = np.tanh(X @ W1 + b1)
    Z = H @ W2 + b2
    Z = Z - Z.max(axis=1, keepdims=True)
    P = np.exp(Z)
    P /= P.sum(axis=1, keepdims=True)
    dZ = P
    dZ[np.arange(len(labels)), labels] -= 1.0
    dH = (dZ @ W2.T) * (1.0 - H * H)
    return (
        np.einsum("ni,nj->nij", X, dH),
        dH,
        np.einsum("ni,nj->nij", H, dZ),
        dZ,
    )


def _fg_loss(params, x, y):
    W1, b1, W2, b2 = params
    h = fnp.tanh(fnp.matmul(x, W1) + b1)
    z = fnp.matmul(h, W2) + b2
    return -fg.nn.functional.log_softmax(z, dim=0)[y]


def build() -> dict:
    """W9's implementations: name -> zero-argument function returning the four gradient stacks."""
    X, labels, params = workloads.mlp_data()
    X, labels = fg.freeze(X), fg.freeze(labels)
    params = tuple(fg.freeze(p) for p in params)
    n = X.shape[0]

    impls = {"numpy": lambda: _numpy_per_example(X, labels, params)}

    per_example = fg.vmap(fg.grad(_fg_loss), in_axes=(None, 0, 0))
    impls["fg_func"] = lambda: tuple(per_example(params, X, labels))

    one = fg.grad(_fg_loss)

    def fg_loop():
        grads = [one(params, X[i], labels[i]) for i in range(n)]
        return tuple(np.stack([g[k] for g in grads]) for k in range(4))

    impls["fg_loop"] = fg_loop

    from funcgrad import func as ffunc

    tX, tlab = fg.from_numpy(np.array(X)), fg.from_numpy(np.array(labels))
    tparams = tuple(fg.tensor(p) for p in params)

    def tensor_loss(ps, x, y):
        W1, b1, W2, b2 = ps
        z = fg.tanh(x @ W1 + b1) @ W2 + b2
        return fg.nn.functional.cross_entropy(z[None], y[None])

    fg_imp = ffunc.vmap(ffunc.grad(tensor_loss), in_dims=(None, 0, 0))
    impls["fg_imp"] = lambda: tuple(g.numpy() for g in fg_imp(tparams, tX, tlab))

    torch, _ = peers.load("torch")
    if torch is not None:
        from torch.func import grad as t_grad
        from torch.func import vmap as t_vmap

        pX = torch.from_numpy(np.array(X))
        plab = torch.from_numpy(np.array(labels))
        pparams = tuple(torch.from_numpy(np.array(p)) for p in params)

        def torch_loss(ps, x, y):
            W1, b1, W2, b2 = ps
            z = torch.tanh(x @ W1 + b1) @ W2 + b2
            return torch.nn.functional.cross_entropy(z[None], y[None])

        t_per_example = t_vmap(t_grad(torch_loss), in_dims=(None, 0, 0))
        impls["torch"] = lambda: tuple(g.numpy() for g in t_per_example(pparams, pX, plab))
    return impls


INNER = 5  # calls per block, as run.py's W9 row


def _rounds(impls: dict, rounds: int, inner: int = INNER) -> dict:
    """Median seconds per call of each implementation, over rounds that take turns."""
    names = list(impls)
    for fn in impls.values():  # warm up
        fn()
    times: dict = {name: [] for name in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            fn = impls[name]
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            times[name].append((time.perf_counter() - t0) / inner)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _check(impls: dict, ref: str) -> dict:
    want = impls[ref]()
    diffs = {}
    for name, fn in impls.items():
        got = fn()
        diffs[name] = max(
            float(np.max(np.abs(np.asarray(g) - w))) for g, w in zip(got, want, strict=True)
        )
    return diffs


def w9(repeat: int = 21) -> dict:
    """Measure W9: median ms per call of each implementation, the ratios, and max abs diffs."""
    impls = build()
    diffs = _check(impls, "numpy")
    medians = _rounds(impls, repeat)
    ms = {name: t * 1e3 for name, t in medians.items()}
    out = {"ms": ms, "max_abs_diff": diffs}
    if "torch" in ms:
        out["fg_func/torch"] = ms["fg_func"] / ms["torch"]
        out["fg_imp/torch"] = ms["fg_imp"] / ms["torch"]
    out["fg_loop/fg_func"] = ms["fg_loop"] / ms["fg_func"]
    return out


def _jacrev_impls(n: int = 64) -> dict:
    rng = np.random.default_rng(9)
    A = fg.freeze(rng.standard_normal((n, n)) / np.sqrt(n))
    x = fg.freeze(rng.standard_normal(n))

    def f(v):
        return fnp.tanh(fnp.matmul(A, v)) * v

    batched = fg.jacrev(f)
    by_row = jacobians._jacobian_transform("jacrev", f, 0, False, jacobians._reverse_sweeps)
    impls = {"rows": lambda: (np.asarray(by_row(x)),), "vmap": lambda: (np.asarray(batched(x)),)}
    torch, _ = peers.load("torch")
    if torch is not None:
        from torch.func import jacrev as t_jacrev

        tA, tx = torch.from_numpy(np.array(A)), torch.from_numpy(np.array(x))
        t_jac = t_jacrev(lambda v: torch.tanh(tA @ v) * v)
        impls["torch"] = lambda: (t_jac(tx).numpy(),)
    return impls


def jacrev_64(repeat: int = 21) -> dict:
    """Measure jacrev of a 64 -> 64 function: one batched walk against one walk per row."""
    impls = _jacrev_impls()
    diffs = _check(impls, "rows")
    ms = {name: t * 1e3 for name, t in _rounds(impls, repeat).items()}
    out = {"ms": ms, "max_abs_diff": diffs, "vmap/rows": ms["vmap"] / ms["rows"]}
    if "torch" in ms:
        out["vmap/torch"] = ms["vmap"] / ms["torch"]
    return out


def _load() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds instead of 21")
    args = parser.parse_args(argv)
    repeat = 5 if args.quick else 21
    print(f"load before: {_load()}")
    res = w9(repeat)
    print(f"W9: {TITLE}")
    for name, t in res["ms"].items():
        print(f"  {name:8s} {t:9.3f} ms   max abs diff vs numpy {res['max_abs_diff'][name]:.1e}")
    for key in ("fg_func/torch", "fg_imp/torch", "fg_loop/fg_func"):
        if key in res:
            print(f"  {key}: {res[key]:.2f}x")
    jac = jacrev_64(repeat)
    print("jacrev of tanh(A @ x) * x, 64 -> 64, float64:")
    for name, t in jac["ms"].items():
        print(f"  {name:8s} {t:9.3f} ms   max abs diff vs rows {jac['max_abs_diff'][name]:.1e}")
    for key in ("vmap/rows", "vmap/torch"):
        if key in jac:
            print(f"  {key}: {jac[key]:.2f}x")
    print(f"load after: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
