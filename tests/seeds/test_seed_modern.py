"""The modern-API autograd tutorial (seed 004) runs unchanged but for its import.

Two kinds of tests: every example of the tutorial rewritten as a test that
checks the numbers and the printed text, and the tutorial's own code,
extracted from the seed file and executed with only `import torch` replaced
by `import funcgrad as torch`.

The printed text is PyTorch's, `grad_fn` names included: `y * y` prints
`MulBackward0`, the name each primitive's record declares.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import funcgrad as torch

SEED = Path(__file__).resolve().parents[2] / ".." / "shared" / "seeds" / "004_e0cad1120947c799.txt"
SEED_CANDIDATES = [SEED, Path("/work/shared/seeds/004_e0cad1120947c799.txt")]


def _seed_text() -> str:
    for path in SEED_CANDIDATES:
        if path.exists():
            return path.read_text(encoding="utf-8")
    pytest.skip("the seed tutorial 004_e0cad1120947c799.txt is not available")


# --- the tutorial's code, extracted and executed --------------------------------------


def _has_cjk(text: str) -> bool:
    return any(unicodedata.name(c, "").startswith(("CJK", "FULLWIDTH")) for c in text)


def _is_code(line: str) -> bool:
    """Whether a line of the tutorial is Python code (not prose)."""
    stripped = line.strip()
    if not stripped:
        return False
    if stripped.startswith("#"):
        return True
    if _has_cjk(stripped):
        return False  # prose (code lines of this tutorial carry CJK only in comments)
    if line[0] in " \t":
        return True  # the body of a with/while block
    source = stripped + ("\n    pass" if stripped.endswith(":") else "")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    # A lone word ("Autograd") parses as a name; the tutorial has no such statement.
    return not (
        len(tree.body) == 1
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Name)
    )


def extract_code_blocks(text: str) -> list[str]:
    """Return the runs of consecutive code lines of the tutorial, in order."""
    blocks, current = [], []
    for line in text.splitlines():
        if _is_code(line):
            current.append(line)
        elif line.strip() and current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


def _as_funcgrad(code: str) -> str:
    return re.sub(r"^import torch$", "import funcgrad as torch", code, flags=re.M)


def test_extracted_code_is_the_tutorials_code():
    blocks = extract_code_blocks(_seed_text())
    code = "\n".join(blocks)
    # Every statement of the tutorial is there, and nothing else.
    for statement in [
        "import torch",
        "x = torch.ones(2, 2, requires_grad=True)",
        "y = x + 2",
        "print(y.grad_fn)",
        "z = y * y * 3",
        "out = z.mean()",
        "print(z, out)",
        "a = torch.randn(2, 2)",
        "a = ((a * 3) / (a - 1))",
        "a.requires_grad_(True)",
        "b = (a * a).sum()",
        "out.backward()",
        "print(x.grad)",
        "x = torch.randn(3, requires_grad=True)",
        "while y.data.norm() < 1000:",
        "    y = y * 2",
        "gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)",
        "y.backward(gradients)",
        "print((x ** 2).requires_grad)",
        "with torch.no_grad():",
        "\tprint((x ** 2).requires_grad)",
    ]:
        assert statement in code.splitlines(), statement
    assert len(code.splitlines()) == 36  # 28 statements and 8 comment lines
    assert len(blocks) == 5
    compile(code, "seed-004", "exec")


def run_seed() -> tuple[str, dict]:
    """Run the tutorial's code blocks in order in one namespace; return (stdout, namespace)."""
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in extract_code_blocks(_seed_text()):
            exec(compile(_as_funcgrad(block), "seed-004", "exec"), namespace)
    return out.getvalue(), namespace


ADDRESS = r"0x[0-9a-f]+"


def test_seed_runs_unchanged_but_for_the_import():
    torch.manual_seed(0)
    printed, ns = run_seed()
    assert ns["torch"] is torch
    expected_start = (
        "tensor([[1., 1.],\n"
        "        [1., 1.]], requires_grad=True)\n"
        "tensor([[3., 3.],\n"
        "        [3., 3.]], grad_fn=<AddBackward0>)\n"
    )
    assert printed.startswith(expected_start)
    rest = printed[len(expected_start) :].splitlines()
    assert re.fullmatch(rf"<AddBackward0 object at {ADDRESS}>", rest[0])
    assert rest[1:3] == [
        "tensor([[27., 27.],",
        "        [27., 27.]], grad_fn=<MulBackward0>) tensor(27., grad_fn=<MeanBackward0>)",
    ]
    assert rest[3:5] == ["False", "True"]
    assert re.fullmatch(rf"<SumBackward0 object at {ADDRESS}>", rest[5])
    assert rest[6:8] == ["tensor([[4.5000, 4.5000],", "        [4.5000, 4.5000]])"]
    # print(y): three numbers, at least one of magnitude >= 1000 / sqrt(3).
    assert re.fullmatch(r"tensor\(\[.*\], grad_fn=<MulBackward0>\)", rest[8])
    # The vector-Jacobian product: gradients * 2**k, k the number of doublings.
    x, y = ns["x"], ns["y"]
    k = int(round(np.log2(float((y.detach() / x.detach()).mean()))))
    expected = np.array([0.1, 1.0, 0.0001], dtype=np.float32) * np.float32(2.0**k)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    assert rest[9] == repr(x.grad)
    assert rest[10:] == ["True", "True", "False"]


# --- the examples as tests ----------------------------------------------------------


def test_ones_requires_grad_prints_like_pytorch():
    x = torch.ones(2, 2, requires_grad=True)
    assert repr(x) == "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"
    assert str(x) == repr(x)
    assert x.is_leaf and x.grad_fn is None and x.grad is None
    assert x.dtype == torch.float32


def test_add_records_a_grad_fn():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    assert repr(y) == "tensor([[3., 3.],\n        [3., 3.]], grad_fn=<AddBackward0>)"
    assert y.grad_fn.name() == "AddBackward0"
    assert re.fullmatch(rf"<AddBackward0 object at {ADDRESS}>", repr(y.grad_fn))
    assert not y.is_leaf and y.requires_grad


def test_z_and_out():
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert repr(z) == "tensor([[27., 27.],\n        [27., 27.]], grad_fn=<MulBackward0>)"
    assert repr(out) == "tensor(27., grad_fn=<MeanBackward0>)"
    assert out.item() == 27.0 and out.shape == () and out.dtype == torch.float32


def test_requires_grad_flag_changed_in_place():
    torch.manual_seed(1)
    a = torch.randn(2, 2)
    a = (a * 3) / (a - 1)
    assert a.requires_grad is False and a.grad_fn is None
    assert a.requires_grad_(True) is a
    assert a.requires_grad is True and a.is_leaf
    b = (a * a).sum()
    assert b.grad_fn.name() == "SumBackward0"
    assert re.fullmatch(rf"<SumBackward0 object at {ADDRESS}>", repr(b.grad_fn))
    # requires_grad_() without an argument means True; a flag can be turned off too.
    c = torch.zeros(1)
    assert c.requires_grad_().requires_grad
    assert not c.requires_grad_(False).requires_grad


def test_out_backward_gives_four_and_a_half():
    x = torch.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    out.backward()
    # d(out)/dx_i = 3/2 (x_i + 2) = 4.5 at x_i = 1.
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 4.5, np.float32))
    assert x.grad.dtype == torch.float32
    assert repr(x.grad) == "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"
    assert x.grad.requires_grad is False and x.grad.grad_fn is None


def test_out_backward_equals_backward_with_explicit_one():
    x1 = torch.ones(2, 2, requires_grad=True)
    x2 = torch.ones(2, 2, requires_grad=True)
    ((x1 + 2) * (x1 + 2) * 3).mean().backward()
    ((x2 + 2) * (x2 + 2) * 3).mean().backward(torch.tensor(1.0))
    assert torch.equal(x1.grad, x2.grad)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_vector_jacobian_product(seed):
    torch.manual_seed(seed)
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    k = 1
    while y.data.norm() < 1000:
        y = y * 2
        k += 1
    assert float(y.detach().norm()) >= 1000
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy() * np.float32(2.0**k))
    assert y.grad_fn.name() == "MulBackward0"
    gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
    assert gradients.dtype == torch.float32
    y.backward(gradients)
    # y = 2**k x, so J^T v = 2**k v.
    expected = np.array([0.1, 1.0, 0.0001], np.float32) * np.float32(2.0**k)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    assert x.grad.dtype == torch.float32


def test_gradients_tensor_prints_in_scientific_notation():
    assert repr(torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)) == (
        "tensor([1.0000e-01, 1.0000e+00, 1.0000e-04])"
    )


def test_no_grad_stops_recording():
    x = torch.randn(3, requires_grad=True)
    assert x.requires_grad
    assert (x**2).requires_grad
    with torch.no_grad():
        assert not (x**2).requires_grad
        assert (x**2).grad_fn is None
    assert (x**2).requires_grad  # recording resumes after the block


def test_detach_stops_tracking():
    x = torch.ones(2, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert not (d * 2).requires_grad
    assert torch.equal(d, x)
