"""A short self-demonstration: `python -m funcgrad`.

Builds a small graph, prints values and gradients computed three ways
(`backward`, `grad`, `value_and_grad`), a second derivative, the gradient of
a dict of parameters, and checks a gradient against central finite
differences in float64. Exits with status 1 if the check fails.
"""

from __future__ import annotations

import sys

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

TOLERANCE = 1e-7


def _show(label: str, value) -> None:
    indent = " " * 37  # continuation lines of a matrix line up under its first row
    text = np.array2string(
        np.asarray(value), precision=6, suppress_small=True, prefix=indent, max_line_width=120
    )
    print(f"  {label:<34} {text}")


def _report(label: str, error: float) -> None:
    print(f"  {label:<34} {error:.2e}")


def _model(params, x):
    """A tiny one-hidden-layer network: mean(exp(-h*h) @ w2 + sin(h)), h = tanh(x @ W1 + b1)."""
    h = fnp.tanh(x @ params["W1"] + params["b1"])
    return fnp.mean(fnp.exp(-h * h) @ params["w2"]) + fnp.sum(fnp.sin(h))


def _finite_differences(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar function `f` at `x` (float64)."""
    g = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = eps
        g.flat[i] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return g


def main() -> int:
    print(f"funcgrad {fg.__version__}, NumPy {np.__version__}\n")

    # 1. Build a graph by hand and walk it with funcgrad.backward.
    print("1. A graph built from leaves: y = sum(sin(x) * exp(x))")
    x = fg.leaf(np.array([0.0, 0.5, 1.0]))
    y = fnp.sum(fnp.sin(x) * fnp.exp(x))
    grads = fg.backward(y)
    _show("x", x.value)
    _show("y", y.value)
    _show("dy/dx  (funcgrad.backward)", grads[x])
    _show("expected (sin + cos) * exp", (np.sin(x.value) + np.cos(x.value)) * np.exp(x.value))

    # 2. The functional style: grad of a Python function, and grad of grad.
    print("\n2. Functions: f(t) = t * tanh(t)")
    f = lambda t: t * fnp.tanh(t)
    value, slope = fg.value_and_grad(f)(0.7)
    _show("f(0.7)          (value_and_grad)", value)
    _show("f'(0.7)         (value_and_grad)", slope)
    _show("f''(0.7)        (grad(grad(f)))", fg.grad(fg.grad(f))(0.7))
    th = np.tanh(0.7)
    _show("expected f''", 2 * (1 - th**2) - 2 * 0.7 * th * (1 - th**2))

    # 3. A pytree of parameters: the gradient has the same dict structure.
    print("\n3. A dict of parameters: loss(params, x) with a matrix product")
    rng = np.random.default_rng(0)
    params = {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4), "w2": rng.normal(size=4)}
    data = rng.normal(size=(5, 3))  # a batch of 5 inputs
    loss, g = fg.value_and_grad(_model)(params, data)
    _show("loss", loss)
    for name in sorted(g):
        _show(f"d loss / d {name}", g[name])

    # 4. Gradient check: the same gradients against central finite differences.
    print("\n4. Gradient check against central finite differences (float64, eps=1e-6)")
    worst = 0.0
    for name in sorted(params):

        def along(v, name=name):
            return _model({**params, name: v}, data)

        numeric = _finite_differences(along, params[name])
        error = float(np.max(np.abs(numeric - g[name])))
        worst = max(worst, error)
        _report(f"max |error| for d loss / d {name}", error)
    numeric_x = _finite_differences(
        lambda v: np.sum(np.sin(v) * np.exp(v)), np.array([0.0, 0.5, 1.0])
    )
    error = float(np.max(np.abs(numeric_x - grads[x])))
    worst = max(worst, error)
    _report("max |error| for dy/dx of part 1", error)
    # The second derivative, against central differences of the first.
    first = fg.grad(f)
    error = abs((first(0.7 + 1e-6) - first(0.7 - 1e-6)) / 2e-6 - fg.grad(fg.grad(f))(0.7))
    worst = max(worst, error)
    _report("|error| for f''(0.7) of part 2", error)

    ok = worst < TOLERANCE
    verdict = "OK" if ok else "FAILED"
    print(f"\ngradient check {verdict}: max abs error {worst:.2e} (tolerance {TOLERANCE:.0e})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
