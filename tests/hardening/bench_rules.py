"""Cost of the zero-cotangent guard (`funcgrad.ops.guard`) (run it; it is not a test).

    python tests/hardening/bench_rules.py [--repeats N]

(a) µs per call of each elementwise VJP rule on (16,) float64 arrays
    (`rule(ct, out, *args)`, first order, plain arrays), followed by the
    guard as the backward walk applies it (`guard(prim, ct, r, params)`);
(b) the same for a few rules on (512, 1024) float32 arrays (the guard's
    cost where arrays are large);
(c) µs per op of `funcgrad.backward` over a 2,000-op elementwise chain
    on a (16,) float64 array (`chain_fg`), and of forward + backward.

Each figure is measured twice in the same run: with the guard ("guarded")
and without it ("bare": the rule alone in (a) and (b); in (c) every
primitive's `keeps_zeros` cleared for the duration, so the walk skips the
guard). Medians of `time.perf_counter` over rounds in which every case
takes one turn, so a change in the machine's load hits all cases alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _rule_cases():
    from funcgrad.ops import registry

    rng = np.random.default_rng(0)
    x = rng.uniform(0.2, 0.8, 16)
    y = rng.uniform(0.5, 2.0, 16)
    ct = rng.uniform(-1.0, 1.0, 16)
    cases = {}
    for name in ("multiply", "divide", "power", "arctan2"):
        prim = registry.get(name)
        out = prim(x, y)
        for i, rule in enumerate(prim.vjp):
            cases[f"{name}[{i}]"] = (prim, rule, (ct, out, x, y))
    for name in (
        "exp",
        "log",
        "log1p",
        "expm1",
        "sqrt",
        "abs",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sinh",
        "cosh",
        "arcsin",
        "arccos",
        "arctan",
        "sigmoid",
        "softplus",
    ):
        prim = registry.get(name)
        cases[name] = (prim, prim.vjp[0], (ct, prim(x), x))
    return cases


# One cycle of the chain of the first benchmarks/run.py: x*0.9, sin, +0.1,
# tanh, x*x, -x, exp; repeated until it has N_OPS primitives, then a sum.
_CYCLE = ("mul", "sin", "add", "tanh", "square", "neg", "exp")
N_OPS = 2000


def chain_fg(x):
    """The elementwise chain on funcgrad nodes."""
    import funcgrad.numpy as fnp

    for i in range(N_OPS):
        kind = _CYCLE[i % len(_CYCLE)]
        if kind == "mul":
            x = x * 0.9
        elif kind == "sin":
            x = fnp.sin(x)
        elif kind == "add":
            x = x + 0.1
        elif kind == "tanh":
            x = fnp.tanh(x)
        elif kind == "square":
            x = x * x
        elif kind == "neg":
            x = -x
        else:
            x = fnp.exp(x)
    return fnp.sum(x)


def _median_us(fns, repeats, number):
    for fn in fns.values():
        fn()
    times = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times[k].append((time.perf_counter() - t0) / number * 1e6)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)

    from funcgrad.ops import guard, registry

    def rule_variants(prim, rule, a):
        ct, params = a[0], {}

        def with_guard():
            return guard(prim, ct, rule(*a), params)

        return with_guard, lambda: rule(*a)

    declared = {p: p.keeps_zeros for p in registry.primitives()}

    def walk_variants(fn):
        def without_guard():
            for p in declared:  # NOTE: a benchmark only: the records are frozen
                object.__setattr__(p, "keeps_zeros", None)
            try:
                return fn()
            finally:
                for p, kind in declared.items():
                    object.__setattr__(p, "keeps_zeros", kind)

        return fn, without_guard

    print("(a) one VJP rule call on (16,) float64 arrays      bare   guarded")
    fns = {}
    for k, (p, r, a) in _rule_cases().items():
        guarded, bare = rule_variants(p, r, a)
        fns[(k, 0)] = lambda f=guarded: [f() for _ in range(100)]
        fns[(k, 1)] = lambda f=bare: [f() for _ in range(100)]
    t = _median_us(fns, args.repeats, 20)
    for k in _rule_cases():
        print(f"  {k:<46} {t[(k, 1)] / 100:6.2f} {t[(k, 0)] / 100:6.2f} µs")

    print("(b) one VJP rule call on (512, 1024) float32 arrays  bare   guarded")
    rng = np.random.default_rng(1)
    big_x = rng.uniform(0.2, 0.8, (512, 1024)).astype(np.float32)
    big_ct = rng.uniform(-1.0, 1.0, (512, 1024)).astype(np.float32)
    fns = {}
    for name in ("multiply", "exp", "tanh", "sqrt"):
        prim = registry.get(name)
        operands = (big_x, big_x) if name == "multiply" else (big_x,)
        rule_args = (big_ct, prim(*operands), *operands)
        fns[(name, 0)], fns[(name, 1)] = rule_variants(prim, prim.vjp[0], rule_args)
    t = _median_us(fns, max(7, args.repeats // 2), 5)
    for name in ("multiply", "exp", "tanh", "sqrt"):
        print(f"  {name:<46} {t[(name, 1)]:6.0f} {t[(name, 0)]:6.0f} µs")

    import funcgrad as fg

    x0 = np.random.default_rng(0).uniform(-1.0, 1.0, 16)
    x = fg.leaf(x0)
    y = chain_fg(x)

    def fwd_bwd():
        x = fg.leaf(x0)
        return fg.backward(chain_fg(x))[x]

    fns = {}
    fns[("backward", 0)], fns[("backward", 1)] = walk_variants(lambda: fg.backward(y)[x])
    fns[("forward + backward", 0)], fns[("forward + backward", 1)] = walk_variants(fwd_bwd)
    t = _median_us(fns, args.repeats, 3)
    print(f"(c) a {N_OPS}-op elementwise chain, (16,) float64, µs per op  bare   guarded")
    for k in ("backward", "forward + backward"):
        print(f"  {k:<46} {t[(k, 1)] / N_OPS:6.2f} {t[(k, 0)] / N_OPS:6.2f} µs/op")


if __name__ == "__main__":
    main()
