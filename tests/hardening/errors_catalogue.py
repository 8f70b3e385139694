"""The error catalogue: bad inputs, the exception each one raises, and what its message names.

Each `Case` is a small program (run with `exec`) that makes one mistake.
`tests/hardening/test_errors.py` runs every case and checks the exception
type and that the message contains the case's `names` (the funcgrad
operation and the offending shapes, dtypes or values). The same cases
generate `tests/hardening/ERRORS.md`, the table the documentation shows:

    python -m tests.hardening.errors_catalogue --write   # from the repository root

and a test fails when that file no longer matches what the cases raise.

Every snippet runs after `PRELUDE` (the imports documented at the top of
the table).
"""

from __future__ import annotations

import argparse
import os
import textwrap

import attrs
import numpy as np

import funcgrad as fg

PRELUDE = """\
import numpy as np
import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.nn as fnn
import funcgrad as torch  # the imperative layer, under PyTorch's usual name
"""

# Some messages quote NumPy's own words, which change between NumPy versions:
# the drift test compares only under the NumPy this file was generated with.
GENERATED_WITH = f"NumPy {'.'.join(np.__version__.split('.')[:2])}"

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ERRORS.md")
EXCERPT_CHARS = 200


@attrs.frozen
class Case:
    """One bad input.

    Attributes:
        id: A short slug (the anchor in ERRORS.md).
        group: The section of the table.
        bad_input: What the user did wrong, in a few words.
        code: The program; its last statement raises.
        raises: The exception class expected (the raised one may be a subclass).
        names: Substrings the message must contain.
    """

    id: str
    group: str
    bad_input: str
    code: str = attrs.field(converter=lambda c: textwrap.dedent(c).strip())
    raises: type = Exception
    names: tuple = ()


def run(case: Case) -> BaseException | None:
    """Run a case's program; return the exception it raised (None if it raised none)."""
    namespace: dict = {}
    exec(PRELUDE, namespace)  # noqa: S102  (our own snippets)
    try:
        exec(compile(case.code, f"<case {case.id}>", "exec"), namespace)  # noqa: S102
    except Exception as e:  # noqa: BLE001  (the point of the case)
        return e
    return None


def message_of(error: BaseException) -> str:
    """The message without the trailing docs pointer (and without KeyError's quotes)."""
    text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    lines = [line for line in str(text).splitlines() if not line.startswith("(see https://")]
    return "\n".join(lines).strip()


SHAPES = "Shapes that do not fit"
AXES = "Axes out of range"
DTYPES = "Dtypes that cannot be differentiated"
OUTPUTS = "Outputs and seeds of a backward pass"
TREES = "Pytrees of different structure"
RULES = "Hooks and custom rules that return the wrong thing"
READ_ONLY = "Writing into values the graph holds"
NO_RULE = "No gradient rule"
TENSOR = "Other misuses of the Tensor layer"

# fmt: off
CASES = [
    # --- shapes ---------------------------------------------------------------
    Case("add-broadcast", SHAPES, "arrays whose shapes do not broadcast",
         "fnp.add(np.ones(2), np.ones(3))",
         fg.OpError, ("funcgrad.add", "float64[2]", "float64[3]", "broadcast")),
    Case("multiply-broadcast-nodes", SHAPES, "graph nodes whose shapes do not broadcast",
         "x = fg.leaf(np.ones((3, 1, 4)))\nx * np.ones(2)",
         fg.OpError, ("funcgrad.multiply", "float64[3, 1, 4]", "float64[2]", "broadcast")),
    Case("tensor-add-broadcast", SHAPES, "tensors whose shapes do not broadcast",
         "torch.ones(2, requires_grad=True) + torch.ones(3)",
         fg.OpError, ("funcgrad.add", "float32[2]", "float32[3]")),
    Case("where-broadcast", SHAPES, "`where` with a condition of another shape",
         "fnp.where(np.ones(4, bool), fg.leaf(np.ones(2)), 0.0)",
         fg.OpError, ("funcgrad.where", "bool[4]", "float64[2]")),
    Case("matmul-inner", SHAPES, "matmul with mismatched inner dimensions",
         "fg.leaf(np.ones((2, 3))) @ np.ones((4, 5))",
         fg.OpError, ("funcgrad.matmul", "float64[2, 3]", "float64[4, 5]", "size 3", "size 4")),
    Case("matmul-batch", SHAPES, "matmul with batch axes that do not broadcast",
         "fnp.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 5)))",
         fg.OpError, ("funcgrad.matmul", "float64[2, 2, 3]", "float64[3, 3, 5]", "batch")),
    Case("matmul-scalar", SHAPES, "matmul with a 0-d operand",
         "fg.leaf(2.0) @ np.ones(2)",
         fg.OpError, ("funcgrad.matmul", "float64[]", "float64[2]", "*")),
    Case("tensor-matmul", SHAPES, "tensor `@` with mismatched inner dimensions",
         "torch.ones(2, 3, requires_grad=True) @ torch.ones(2, 3)",
         fg.OpError, ("funcgrad.matmul", "float32[2, 3]", "size 3", "size 2")),
    Case("reshape-size", SHAPES, "reshape to a shape with another number of elements",
         "fnp.reshape(fg.leaf(np.ones(6)), (4, 2))",
         fg.OpError, ("funcgrad.reshape", "float64[6]", "(4, 2)")),
    Case("broadcast-to", SHAPES, "broadcast_to a shape the array cannot stretch to",
         "fnp.broadcast_to(fg.leaf(np.ones(3)), (2, 2))",
         fg.OpError, ("funcgrad.broadcast_to", "float64[3]", "(2, 2)")),
    Case("concatenate", SHAPES, "concatenate arrays whose other axes differ",
         "fnp.concatenate([fg.leaf(np.ones((2, 3))), np.ones((2, 4))], axis=0)",
         fg.OpError, ("funcgrad.concatenate", "float64[2, 3]", "float64[2, 4]")),
    Case("stack", SHAPES, "stack arrays of different shapes",
         "fnp.stack([fg.leaf(np.ones(2)), np.ones(3)])",
         fg.OpError, ("funcgrad.stack", "float64[2]", "float64[3]")),
    Case("getitem-out-of-range", SHAPES, "an index past the end",
         "fg.leaf(np.ones(3))[5]",
         fg.OpError, ("funcgrad.getitem", "float64[3]", "index 5", "size 3")),
    Case("getitem-too-many", SHAPES, "more indices than axes",
         "fg.leaf(np.ones(3))[0, 0]",
         fg.OpError, ("funcgrad.getitem", "float64[3]", "(0, 0)")),
    Case("transpose-axes", SHAPES, "transpose with a repeated axis",
         "fnp.transpose(fg.leaf(np.ones((2, 3))), (0, 0))",
         fg.OpError, ("funcgrad.transpose", "float64[2, 3]", "(0, 0)")),
    Case("squeeze", SHAPES, "squeeze an axis whose size is not 1",
         "fnp.squeeze(fg.leaf(np.ones((2, 3))), axis=0)",
         fg.OpError, ("funcgrad.squeeze", "float64[2, 3]", "axis=0")),
    Case("einsum-operands", SHAPES, "einsum with fewer operands than the subscripts name",
         "fnp.einsum('ij,jk->ik', fg.leaf(np.ones((2, 2))))",
         fg.OpError, ("funcgrad.einsum", "'ij,jk->ik'", "float64[2, 2]")),
    Case("einsum-labels", SHAPES, "einsum subscripts that are not letters",
         "fnp.einsum('i1,j->', fg.leaf(np.ones(2)), np.ones(2))",
         fg.OpError, ("funcgrad.einsum", "'i1,j->'")),
    Case("einsum-sizes", SHAPES, "einsum with one label bound to two sizes",
         "fnp.einsum('ij,jk->ik', fg.leaf(np.ones((2, 3))), np.ones((4, 2)))",
         fg.OpError, ("funcgrad.einsum", "float64[2, 3]", "float64[4, 2]")),
    Case("solve", SHAPES, "solve with a right-hand side of the wrong length",
         "fnp.linalg.solve(fg.leaf(np.eye(2)), np.ones(3))",
         fg.OpError, ("funcgrad.solve", "float64[2, 2]", "float64[3]")),
    Case("inv-square", SHAPES, "the inverse of a non-square matrix",
         "fnp.linalg.inv(fg.leaf(np.ones((2, 3))))",
         fg.OpError, ("funcgrad.inv", "float64[2, 3]", "square")),
    Case("pad-width", SHAPES, "pad widths for more axes than the array has",
         "fnp.pad(fg.leaf(np.ones(2)), ((1, 1), (1, 1)))",
         fg.OpError, ("funcgrad.pad", "((1, 1), (1, 1))", "(2,)")),

    # --- axes -----------------------------------------------------------------
    Case("sum-axis", AXES, "sum over an axis the array does not have",
         "fnp.sum(fg.leaf(np.ones((2, 3))), axis=2)",
         fg.OpError, ("funcgrad.sum", "float64[2, 3]", "axis=2", "axis 2")),
    Case("mean-axis", AXES, "mean over a negative axis out of range",
         "fnp.mean(fg.leaf(np.ones((2, 3))), axis=-3)",
         fg.OpError, ("funcgrad.mean", "float64[2, 3]", "axis=-3")),
    Case("max-axis", AXES, "max over an axis out of range",
         "fnp.max(fg.leaf(np.ones((2, 3))), axis=5)",
         fg.OpError, ("funcgrad.max", "float64[2, 3]", "axis=5")),
    Case("softmax-axis", AXES, "softmax along an axis out of range",
         "fnn.softmax(fg.leaf(np.ones((2, 3))), axis=5)",
         fg.OpError, ("funcgrad.softmax", "float64[2, 3]", "axis=5")),
    Case("logsumexp-axis", AXES, "logsumexp over an axis out of range",
         "fnn.logsumexp(fg.leaf(np.ones((2, 3))), axis=-4)",
         fg.OpError, ("funcgrad.logsumexp", "float64[2, 3]", "axis=-4")),
    Case("cumsum-axis", AXES, "cumsum along an axis out of range",
         "fnp.cumsum(fg.leaf(np.ones((2, 3))), axis=2)",
         fg.OpError, ("funcgrad.cumsum", "float64[2, 3]", "axis=2")),
    Case("swapaxes", AXES, "swapaxes with an axis out of range",
         "fg.leaf(np.ones(2)).swapaxes(0, 3)",
         fg.OpError, ("funcgrad.swapaxes", "axis 3", "[-1, 0]")),
    Case("expand-dims", AXES, "expand_dims at a position out of range",
         "fnp.expand_dims(fg.leaf(np.ones(2)), 5)",
         fg.OpError, ("funcgrad.expand_dims", "float64[2]", "axis=5")),
    Case("tensor-sum-dim", AXES, "`Tensor.sum(dim)` with a dim out of range",
         "torch.ones(2, 3, requires_grad=True).sum(5)",
         fg.OpError, ("funcgrad.sum", "axis 5", "2 dimension", "[-2, 1]")),
    Case("norm-ord", AXES, "a matrix norm order for a 3-d array without axis",
         "fnp.linalg.norm(fg.leaf(np.ones((2, 2, 2))), ord=1)",
         fg.OpError, ("funcgrad.norm", "ord=1", "3 dimensions", "axis=")),
    Case("norm-matrix-ord", AXES, "an order that is no matrix norm, for a matrix",
         "fnp.linalg.norm(fg.leaf(np.ones((2, 2))), ord=3)",
         fg.OpError, ("funcgrad.linalg.norm", "ord=3", "'nuc'")),

    # --- dtypes ---------------------------------------------------------------
    Case("leaf-int", DTYPES, "an integer leaf",
         "fg.leaf(np.arange(3))",
         fg.DtypeError, ("funcgrad.leaf", "int64", "(3,)", "astype(float)")),
    Case("leaf-bool", DTYPES, "a boolean leaf",
         "fg.leaf(np.array([True, False]))",
         fg.DtypeError, ("funcgrad.leaf", "bool", "(2,)")),
    Case("grad-int", DTYPES, "`grad` at a Python int",
         "fg.grad(lambda x: x * x)(3)",
         fg.DtypeError, ("funcgrad.grad", "argument 0", "int64", "3.0")),
    Case("grad-int-array", DTYPES, "`grad` with respect to an integer array",
         "fg.grad(lambda x: fnp.sum(x * 1.5))(np.arange(3))",
         fg.DtypeError, ("funcgrad.grad", "int64", "(3,)")),
    Case("grad-bool-array", DTYPES, "`grad` with respect to a boolean array",
         "fg.grad(lambda m: fnp.sum(m * 1.0))(np.array([True, False]))",
         fg.DtypeError, ("funcgrad.grad", "bool", "(2,)")),
    Case("grad-int-in-pytree", DTYPES, "an integer leaf inside a differentiated pytree",
         "fg.grad(lambda p: p['w'] * 2.0)({'w': 1.0, 'steps': 10})",
         fg.DtypeError, ("funcgrad.grad", "argument 0", "int64")),
    Case("grad-int-argnums", DTYPES, "`argnums` selecting an integer argument",
         "fg.grad(lambda x, n: x ** n, argnums=1)(2.0, 3)",
         fg.DtypeError, ("funcgrad.grad", "argument 1", "int64")),
    Case("vjp-int", DTYPES, "`vjp` at an integer primal",
         "fg.vjp(lambda x: x * 2.0, np.arange(2))",
         fg.DtypeError, ("funcgrad.vjp", "int64", "(2,)")),
    Case("jvp-int", DTYPES, "`jvp` at an integer primal",
         "fg.jvp(lambda x: x * 2.0, (1,), (1.0,))",
         fg.DtypeError, ("funcgrad.jvp", "int64")),
    Case("tensor-requires-grad-int", DTYPES, "`requires_grad=True` on an integer tensor",
         "torch.tensor([1, 2], requires_grad=True)",
         RuntimeError, ("floating point", "int64", "(2,)")),

    # --- outputs and seeds ----------------------------------------------------
    Case("grad-non-scalar", OUTPUTS, "`grad` of a function with a non-scalar output",
         "fg.grad(lambda x: x * 2.0)(np.ones(2))",
         fg.NonScalarOutputError, ("funcgrad.grad", "(2,)", "sum()", "jacobian")),
    Case("grad-tuple-output", OUTPUTS, "`grad` of a function returning a tuple",
         "fg.grad(lambda x: (x * x, x))(1.0)",
         TypeError, ("funcgrad.grad", "tuple of 2", "has_aux")),
    Case("grad-none-output", OUTPUTS, "`grad` of a function returning None",
         "fg.grad(lambda x: None)(1.0)",
         TypeError, ("funcgrad.grad", "NoneType")),
    Case("grad-has-aux", OUTPUTS, "`has_aux=True` but f returns one value",
         "fg.grad(lambda x: x * x, has_aux=True)(1.0)",
         TypeError, ("funcgrad.grad", "has_aux", "(value, aux)")),
    Case("grad-argnums", OUTPUTS, "`argnums` past the last argument",
         "fg.grad(lambda x: x * x, argnums=2)(1.0)",
         ValueError, ("funcgrad.grad", "argnums=2", "1 positional")),
    Case("backward-non-scalar", OUTPUTS, "`backward` of a non-scalar without a cotangent",
         "fg.backward(fg.leaf(np.ones(2)) * 2.0)",
         fg.NonScalarOutputError, ("funcgrad.backward", "(2,)", "out.sum()", "jacobian")),
    Case("backward-cotangent-shape", OUTPUTS, "`backward` with a cotangent of the wrong shape",
         "fg.backward(fg.leaf(np.ones(2)) * 2.0, np.ones(3))",
         fg.ShapeError, ("funcgrad.backward", "(3,)", "(2,)")),
    Case("backward-not-a-node", OUTPUTS, "`backward` of a plain array",
         "fg.backward(np.ones(2))",
         TypeError, ("funcgrad.backward", "ndarray", "funcgrad.leaf")),
    Case("vjp-cotangent-shape", OUTPUTS, "a `vjp_fn` cotangent of the wrong shape",
         "out, vjp_fn = fg.vjp(lambda x: x * 2.0, np.ones(2))\nvjp_fn(np.ones(3))",
         fg.ShapeError, ("funcgrad.vjp", "(3,)", "(2,)")),
    Case("jvp-tangent-shape", OUTPUTS, "a `jvp` tangent of the wrong shape",
         "fg.jvp(lambda x: x * 2.0, (np.ones(2),), (np.ones(3),))",
         fg.ShapeError, ("funcgrad.jvp", "(3,)", "(2,)")),
    Case("jvp-not-tuples", OUTPUTS, "`jvp` primals that are not a tuple",
         "fg.jvp(lambda x: x * 2.0, np.ones(2), np.ones(2))",
         TypeError, ("funcgrad.jvp", "tuples", "ndarray")),
    Case("tensor-backward-no-grad", OUTPUTS, "`Tensor.backward()` on a tensor that does not require grad",
         "torch.ones(2).sum().backward()",
         RuntimeError, ("does not require grad", "no_grad", "detach", "requires_grad=True")),
    Case("tensor-backward-detached", OUTPUTS, "`backward()` on a result computed from `.detach()`",
         "x = torch.ones(2, requires_grad=True)\n(x.detach() * 2).sum().backward()",
         RuntimeError, ("does not require grad", "detach")),
    Case("tensor-backward-non-scalar", OUTPUTS, "`Tensor.backward()` on a non-scalar without `gradient`",
         "(torch.ones(2, 3, requires_grad=True) * 2).backward()",
         RuntimeError, ("(2, 3)", "out.sum().backward()", "gradient=")),
    Case("tensor-backward-gradient-shape", OUTPUTS, "`Tensor.backward(gradient)` of the wrong shape",
         "(torch.ones(2, requires_grad=True) * 2).backward(torch.ones(3))",
         RuntimeError, ("grad_output[0]", "[3]", "[2]")),
    Case("autograd-grad-unused", OUTPUTS, "`autograd.grad` for an input the output does not use",
         "x, y = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)\n"
         "torch.autograd.grad((x * 2).sum(), y)",
         RuntimeError, ("input 0", "(2,)", "allow_unused=True")),
    Case("autograd-grad-no-grad-input", OUTPUTS, "`autograd.grad` for an input that does not require grad",
         "x = torch.ones(1, requires_grad=True)\ntorch.autograd.grad((x * 2).sum(), torch.ones(1))",
         RuntimeError, ("input 0", "(1,)", "requires_grad=True")),

    # --- pytrees --------------------------------------------------------------
    Case("vjp-cotangent-tree", TREES, "a `vjp_fn` cotangent list for a tuple output",
         "out, vjp_fn = fg.vjp(lambda x: (x, x * 2.0), np.ones(2))\nvjp_fn([np.ones(2), np.ones(2)])",
         fg.TreeStructureError, ("funcgrad.vjp", "tuple of 2", "list of 2")),
    Case("vjp-cotangent-count", TREES, "a `vjp_fn` cotangent with too few leaves",
         "out, vjp_fn = fg.vjp(lambda x: (x, x * 2.0), np.ones(2))\nvjp_fn((np.ones(2),))",
         fg.TreeStructureError, ("funcgrad.vjp", "tuple of 2", "tuple of 1")),
    Case("jvp-tangent-tree", TREES, "`jvp` tangents shaped like another tree",
         "fg.jvp(lambda p: p['a'] * 2.0, ({'a': np.ones(2)},), ({'b': np.ones(2)},))",
         fg.TreeStructureError, ("funcgrad.jvp", "['a']", "['b']")),
    Case("tree-map", TREES, "`tree_map` over trees with different keys",
         "fg.tree.tree_map(lambda a, b: a + b, {'w': 1.0, 'b': 2.0}, {'w': 1.0, 'c': 2.0})",
         fg.TreeStructureError, ("tree_map", "['b', 'w']", "['c', 'w']")),

    # --- hooks and custom rules -------------------------------------------------
    Case("hook-shape", RULES, "a graph hook returning the wrong shape",
         "x = fg.leaf(np.ones(2))\n"
         "y = fg.with_hooks(fnp.sum(x * 2.0), {x: lambda ct: ct[:1]})\n"
         "fg.backward(y)",
         fg.ShapeError, ("funcgrad.with_hooks", "(1,)", "(2,)")),
    Case("hook-dtype", RULES, "a graph hook returning another dtype",
         "x = fg.leaf(np.ones(2))\n"
         "y = fg.with_hooks(fnp.sum(x * 2.0), {x: lambda ct: ct.astype(np.float32)})\n"
         "fg.backward(y)",
         fg.ShapeError, ("funcgrad.with_hooks", "float32", "float64")),
    Case("tensor-hook-shape", RULES, "a tensor hook returning the wrong shape",
         "x = torch.ones(2, requires_grad=True)\n"
         "x.register_hook(lambda g: g[:1])\n"
         "(x * 2).sum().backward()",
         fg.ShapeError, ("hook", "(1,)", "(2,)")),
    Case("tensor-hook-count", RULES, "a tensor hook returning two gradients",
         "x = torch.ones(2, requires_grad=True)\n"
         "x.register_hook(lambda g: (g, g))\n"
         "(x * 2).sum().backward()",
         fg.ShapeError, ("hook", "tuple", "(2,)")),
    Case("custom-vjp-count", RULES, "a `custom_vjp` backward rule returning too few cotangents",
         """
         @fg.custom_vjp
         def f(x, y):
             return x * y
         f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, ct: (ct * res[1],))
         fg.grad(lambda x: fnp.sum(f(x, np.ones(2))))(np.ones(2))
         """,
         fg.ShapeError, ("funcgrad.custom_vjp", "'f'", "(2)", "got 1")),
    Case("custom-vjp-shape", RULES, "a `custom_vjp` backward rule returning the wrong shape",
         """
         @fg.custom_vjp
         def f(x):
             return x * 2.0
         f.defvjp(lambda x: (x * 2.0, None), lambda res, ct: (ct[:1],))
         fg.grad(lambda x: fnp.sum(f(x)))(np.ones(2))
         """,
         fg.ShapeError, ("funcgrad.custom_vjp", "'f'", "(1,)", "(2,)")),
    Case("custom-vjp-not-tuple", RULES, "a `custom_vjp` backward rule returning a bare array",
         """
         @fg.custom_vjp
         def f(x):
             return x * 2.0
         f.defvjp(lambda x: (x * 2.0, None), lambda res, ct: ct * 2.0)
         fg.grad(lambda x: fnp.sum(f(x)))(np.ones(2))
         """,
         fg.ShapeError, ("funcgrad.custom_vjp", "'f'", "ndarray")),
    Case("function-count", RULES, "an `autograd.Function.backward` returning too few gradients",
         """
         class Mul(torch.autograd.Function):
             @staticmethod
             def forward(ctx, a, b):
                 return a * b
             @staticmethod
             def backward(ctx, g):
                 return (g,)
         a = torch.ones(2, requires_grad=True)
         Mul.apply(a, torch.ones(2, requires_grad=True)).sum().backward()
         """,
         fg.ShapeError, ("Mul.backward", "expected 2, got 1")),
    Case("function-shape", RULES, "an `autograd.Function.backward` returning the wrong shape",
         """
         class Double(torch.autograd.Function):
             @staticmethod
             def forward(ctx, a):
                 return a * 2
             @staticmethod
             def backward(ctx, g):
                 return g[:1]
         a = torch.ones(2, requires_grad=True)
         Double.apply(a).sum().backward()
         """,
         fg.ShapeError, ("Double.backward", "[1]", "[2]")),

    # --- read-only values -------------------------------------------------------
    Case("write-node-value", READ_ONLY, "writing into a node's value",
         "x = fg.leaf(np.ones(2))\nx.value[0] = 5.0",
         ValueError, ("read-only",)),
    Case("write-leaf-result", READ_ONLY, "writing into a value a gradient needs",
         "x = fg.leaf(np.ones(2))\ny = fnp.exp(x)\ny.value[:] = 0.0",
         ValueError, ("read-only",)),
    Case("write-tensor-numpy", READ_ONLY, "writing through `.detach().numpy()` of a recorded value",
         "x = torch.ones(2, requires_grad=True)\ny = x * 2\ny.detach().numpy()[0] = 5.0",
         ValueError, ("read-only",)),
    Case("write-frozen", READ_ONLY, "writing into an array passed through `funcgrad.freeze`",
         "a = fg.freeze(np.ones(2))\na[0] = 5.0",
         ValueError, ("read-only",)),

    # --- no rule ------------------------------------------------------------------
    Case("logabsdet-singular", NO_RULE, "the gradient of `slogdet`'s logabsdet at a singular matrix",
         "fg.grad(lambda a: fnp.linalg.slogdet(a).logabsdet)(np.zeros((2, 2)))",
         fg.NotDifferentiableError, ("funcgrad.logabsdet", "float64[2, 2]", "singular")),
    Case("custom-vjp-forward-mode", NO_RULE, "forward mode through a `custom_vjp` whose rule is raw NumPy",
         """
         @fg.custom_vjp
         def f(x):
             return x * 2.0
         f.defvjp(lambda x: (x * 2.0, None), lambda res, ct: (np.multiply(ct, 2.0),))
         fg.jvp(f, (np.ones(2),), (np.ones(2),))
         """,
         fg.NotDifferentiableError, ("funcgrad.custom_vjp", "'f'", "jacrev")),

    # --- the Tensor layer -----------------------------------------------------------
    Case("tensor-numpy-requires-grad", TENSOR, "`.numpy()` on a tensor that requires grad",
         "torch.ones(2, requires_grad=True).numpy()",
         RuntimeError, ("numpy()", "detach()")),
    Case("tensor-item", TENSOR, "`.item()` on a tensor of several elements",
         "torch.ones(2).item()",
         RuntimeError, ("2 elements",)),
    Case("tensor-bool", TENSOR, "`bool()` of a tensor of several elements",
         "bool(torch.ones(2))",
         RuntimeError, ("ambiguous", "(2,)")),
    Case("tensor-requires-grad-non-leaf", TENSOR, "changing `requires_grad` of a non-leaf",
         "(torch.ones(2, requires_grad=True) * 2).requires_grad_(False)",
         RuntimeError, ("leaf", "detach()")),
    Case("tensor-grad-assign", TENSOR, "assigning a `.grad` of the wrong shape",
         "x = torch.ones(2, requires_grad=True)\nx.grad = torch.ones(3)",
         RuntimeError, ("(3,)", "(2,)")),
    Case("gradmap-missing", TENSOR, "a `GradMap` lookup for a node the output does not use",
         "x, z = fg.leaf(np.ones(2)), fg.leaf(np.ones(2))\nfg.backward(fnp.sum(x))[z]",
         KeyError, ("funcgrad.GradMap", "Node(leaf, array([1., 1.]))", "wrt=")),
]
# fmt: on


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _excerpt(message: str) -> str:
    first = message.splitlines()[0] if message else ""
    if len(first) > EXCERPT_CHARS:
        first = first[: EXCERPT_CHARS - 1].rstrip() + "…"
    return first


def _exception_name(cls: type) -> str:
    if cls.__module__ == "funcgrad.errors" or cls.__module__.startswith("funcgrad."):
        bases = [b.__name__ for b in cls.__mro__[1:] if b.__module__ == "builtins"]
        builtin = next((b for b in bases if b not in ("Exception", "BaseException", "object")), "")
        return f"`{cls.__name__}` ({builtin})" if builtin else f"`{cls.__name__}`"
    return f"`{cls.__name__}`"


def render() -> str:
    """Run every case and return the text of ERRORS.md."""
    out = [
        "# Error catalogue",
        "",
        "<!-- Generated by `python -m tests.hardening.errors_catalogue --write`; do not edit.",
        "     tests/hardening/test_errors.py fails when this file is out of date.",
        f"     {GENERATED_WITH} -->",
        "",
        "Each row is a mistake, the exception funcgrad raises, and the start of its message.",
        "The examples below the table are the exact programs the tests run; every one runs after",
        "",
        "```python",
        PRELUDE.rstrip(),
        "```",
        "",
        "Exceptions of `funcgrad.errors` are also the built-in exception in parentheses, so",
        "`except ValueError` catches an `OpError`. Messages of the `Tensor` layer keep",
        "PyTorch's wording, with the shapes and what to do added.",
        "",
    ]
    groups: dict[str, list] = {}
    for case in CASES:
        groups.setdefault(case.group, []).append(case)
    examples = []
    number = 0
    for group, cases in groups.items():
        out += [
            f"## {group}",
            "",
            "| # | bad input | exception | message (first line) |",
            "|---|---|---|---|",
        ]
        for case in cases:
            number += 1
            error = run(case)
            if error is None:
                raise AssertionError(f"case {case.id} raised nothing")
            message = message_of(error)
            out.append(
                f"| [{number}](#{case.id}) | {_cell(case.bad_input)} | "
                f"{_exception_name(type(error))} | {_cell(_excerpt(message))} |"
            )
            examples += [
                f"### {number}. {case.bad_input} {{ #{case.id} }}",
                "",
                "```python",
                case.code,
                "```",
                "",
                "```text",
                f"{type(error).__name__}: {message}",
                "```",
                "",
            ]
        out.append("")
    out += ["## Examples", "", *examples]
    return "\n".join(out).rstrip() + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Print or write tests/hardening/ERRORS.md.")
    parser.add_argument("--write", action="store_true", help=f"write {PATH}")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        with open(PATH, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {PATH} ({len(CASES)} cases)")
    else:
        print(text)


if __name__ == "__main__":
    main()
