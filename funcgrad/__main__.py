"""A short tour of funcgrad: `python -m funcgrad` (`--help` for the options).

Each step prints its code and, beside each expression, the value it gives:
the functional style (`grad`, `value_and_grad`, `backward` on a graph, a
dict of parameters), then the PyTorch-style imperative one (`Tensor`,
`.backward()`, `.grad`, `no_grad`). The code shown is the code that runs.
The tour ends with a gradient check against central finite differences in
float64 and exits with status 1 if it fails, so it doubles as a smoke test.
"""

from __future__ import annotations

import argparse
import ast
import sys
import textwrap
from typing import Any

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import DOCS_URL

TOLERANCE = 1e-7
DOCS = DOCS_URL  # the site, as the errors link to it
CODE_WIDTH = 52  # results start in this column, after "  " and the code

FUNCTIONAL = [
    (
        "Transform a function (as in JAX and HIPS autograd)",
        """
        import funcgrad as fg
        import funcgrad.numpy as fnp
        f = lambda t: t * fnp.tanh(t)
        fg.grad(f)(0.7)
        fg.grad(fg.grad(f))(0.7)
        fg.value_and_grad(f)(0.7)
        """,
    ),
    (
        "Arrays and a dict of parameters: the gradient has the same structure",
        """
        import numpy as np
        def loss(p, x):
            return fnp.sum(fnp.tanh(x @ p["w"] + p["b"]) ** 2)
        p = {"w": np.array([[1.0, -1.0], [0.5, 2.0]]), "b": np.zeros(2)}
        x = np.array([[0.1, 0.2], [0.3, -0.4]])
        loss(p, x)
        fg.grad(loss)(p, x)
        """,
    ),
    (
        "The graph itself: immutable nodes, walked by backward",
        """
        leaf = fg.leaf(np.array([0.0, 0.5, 1.0]))
        y = fnp.sum(fnp.sin(leaf) * fnp.exp(leaf))
        y
        fg.backward(y)[leaf]
        (np.sin(leaf.value) + np.cos(leaf.value)) * np.exp(leaf.value)
        """,
    ),
]

IMPERATIVE = [
    (
        "Tensors that record (as in PyTorch: `import funcgrad as torch`)",
        """
        import funcgrad as torch
        w = torch.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
        b = torch.zeros(2, requires_grad=True)
        xt = torch.tensor([[0.1, 0.2], [0.3, -0.4]])
        out = torch.tanh(xt @ w + b).pow(2).sum()
        out
        out.backward()
        w.grad
        b.grad
        """,
    ),
    (
        "One step of gradient descent, then a fresh gradient",
        """
        with torch.no_grad():
            w -= 0.1 * w.grad
        w.grad = None
        torch.tanh(xt @ w + b).pow(2).sum()
        """,
    ),
]


def _format(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, suppress_small=True)
    if isinstance(value, dict):
        items = [
            f"{k!r}: " + _format(v).replace("\n", "\n" + " " * (len(repr(k)) + 2))
            for k, v in value.items()
        ]
        return "{" + ",\n ".join(items) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_format(v) for v in value) + ")"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return repr(value)


def run_step(code: str, namespace: dict[str, Any], out=None) -> None:
    """Run `code` statement by statement, printing it with each expression's value beside it."""
    out = out or sys.stdout
    code = textwrap.dedent(code).strip("\n")
    lines = code.splitlines()
    for statement in ast.parse(code).body:
        source = lines[statement.lineno - 1 : statement.end_lineno]
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), "<tour>", "eval"), namespace)  # noqa: S307
            if value is None:  # a call made for its effect, as `out.backward()`
                print("\n".join(f"  {line}" for line in source), file=out)
                continue
            result = _format(value).splitlines()
            first = source[-1].ljust(CODE_WIDTH)
            for line in source[:-1]:
                print(f"  {line}", file=out)
            print(f"  {first}  # {result[0]}", file=out)
            for line in result[1:]:
                print(f"  {'':<{CODE_WIDTH}}  # {line}", file=out)
        else:
            exec(compile(ast.Module([statement], []), "<tour>", "exec"), namespace)  # noqa: S102
            for line in source:
                print(f"  {line}", file=out)


def _central_differences(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar function `f` at `x` (float64)."""
    g = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = eps
        g.flat[i] = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
    return g


def gradient_check(namespace: dict[str, Any]) -> float:
    """Print and return the largest error of the tour's gradients against finite differences."""

    def loss(p, x):
        return fnp.sum(fnp.tanh(x @ p["w"] + p["b"]) ** 2)

    p = {"w": np.array([[1.0, -1.0], [0.5, 2.0]]), "b": np.array([0.1, -0.2])}
    x = np.array([[0.1, 0.2], [0.3, -0.4]])
    grads = fg.grad(loss)(p, x)
    errors = {}
    for name in p:
        numeric = _central_differences(lambda v, name=name: loss({**p, name: v}, x), p[name])
        errors[f"grad of loss, {name}"] = float(np.max(np.abs(numeric - grads[name])))
    f = lambda t: t * fnp.tanh(t)
    first = fg.grad(f)
    numeric2 = (first(0.7 + 1e-6) - first(0.7 - 1e-6)) / 2e-6
    errors["second derivative of f"] = abs(numeric2 - fg.grad(fg.grad(f))(0.7))
    w = fg.tensor(p["w"], requires_grad=True)
    fg.tanh(fg.tensor(x) @ w + fg.tensor(p["b"])).pow(2).sum().backward()
    errors["Tensor.backward, w.grad"] = float(np.max(np.abs(w.grad.numpy() - grads["w"])))
    for label, error in errors.items():
        print(f"  max |error|, {label:<32} {error:.1e}")
    return max(errors.values())


def main(argv: list[str] | None = None) -> int:
    """Run the tour; return 0 if the gradient check passes, 1 if it fails."""
    parser = argparse.ArgumentParser(
        prog="python -m funcgrad",
        description=(
            "A short tour of funcgrad: each step's code with the value of each "
            "expression beside it, in the functional style (grad, value_and_grad, "
            "backward) and the PyTorch style (Tensor, .backward(), .grad), then a "
            "gradient check against central finite differences in float64."
        ),
        epilog=f"Exit status: 0 if the gradient check passes, 1 if not. Documentation: {DOCS}",
    )
    parser.add_argument(
        "--style",
        choices=("both", "functional", "pytorch"),
        default="both",
        help="which half of the tour to show (default: both); the check always runs",
    )
    parser.add_argument(
        "--check-only",
        action="store_true",
        help="print only the gradient check (a quick smoke test of an install)",
    )
    args = parser.parse_args(argv)

    print(f"funcgrad {fg.__version__}, NumPy {np.__version__}")
    namespace: dict[str, Any] = {}
    parts = []
    if not args.check_only:
        # the PyTorch half reuses the functional half's data, so it runs even when not shown
        parts = [("Functional style", FUNCTIONAL, args.style != "pytorch")]
        parts.append(("PyTorch style", IMPERATIVE, args.style != "functional"))
    number = 0
    for title, steps, shown in parts:
        if shown:
            print(f"\n== {title} ==")
        for heading, code in steps:
            if shown:
                number += 1
                print(f"\n{number}. {heading}\n")
                run_step(code, namespace)
            else:
                exec(textwrap.dedent(code), namespace)  # noqa: S102
    print("\n== Gradient check: central finite differences, float64, eps=1e-6 ==\n")
    worst = gradient_check(namespace)
    ok = worst < TOLERANCE
    verdict = "OK" if ok else "FAILED"
    print(f"\ngradient check {verdict}: max abs error {worst:.1e} (tolerance {TOLERANCE:.0e})")
    if not args.check_only:
        print("\nRead next:")
        print(f"  {DOCS}getting-started/   both styles in five minutes")
        print(f"  {DOCS}examples/          the examples gallery")
        print(f"  {DOCS}api/funcgrad/      the API reference")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
