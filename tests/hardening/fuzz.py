"""A random-program generator over the whole registry (the fuzzer of `test_fuzz.py`).

A program is a small DAG. It starts from one to three input arrays and adds
steps, each computing one new value (the "pool" holds the inputs and every
value computed so far). A step is one of:

* a **registry step**: a primitive with arguments drawn from its own
  `Sample` (so shapes and domains fit), where each floating-point argument
  is tied to an earlier value: either that value itself (for primitives that
  are smooth everywhere and when the shape matches), or the sample's array
  shifted by `0.05 * tanh(mean(value))`, a small scalar that keeps the
  argument inside the primitive's domain and away from its kinks;
* an **elementwise step**: a smooth unary or binary function of earlier
  values (binary ones when the shapes broadcast);
* a **reduction step**: a sum, mean, variance, product, cumulative sum,
  logsumexp or (log-)softmax of an earlier value over a random axis.

The output is `sum_k sum(w_k * value_k)` over every value (the inputs
too), with random fixed weights, so every step reaches the output.

A program runs through `run` on plain arrays or graph nodes (the functional
API), and through `run_tensor` on `funcgrad.Tensor`s (the imperative layer),
for programs whose steps the Tensor layer exposes (`TENSOR_OPS`).

How many examples the tests draw comes from the environment:
`FUNCGRAD_FUZZ_EXAMPLES` (default `DEFAULT_EXAMPLES`, 10 to 20 s on two
cores for the whole `test_fuzz.py`), `FUNCGRAD_FUZZ_STEPS` (the longest
program, default 8). A deep run:

    FUNCGRAD_FUZZ_EXAMPLES=2000 FUNCGRAD_FUZZ_STEPS=12 python -m pytest tests/hardening/test_fuzz.py
"""

from __future__ import annotations

import os
import warnings

import attrs
import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.ops import registry
from tests.call_samples import sample_of

DEFAULT_EXAMPLES = 200
EXAMPLES = int(os.environ.get("FUNCGRAD_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))
MAX_STEPS = int(os.environ.get("FUNCGRAD_FUZZ_STEPS", 8))

SHIFT = 0.05  # the largest shift a tied argument gets (registry steps)
TAME = 10.0  # values used directly as operands stay within [-TAME, TAME]

# Primitives whose declared gradient is not the derivative of their forward.
NOT_DIFFERENTIATED = {
    "stop_gradient": "declared to pass no gradient",
}

# Primitives whose parameters hold values computed from the sample's own
# arguments: their arguments stay the sample's (constants), since a tied
# argument would no longer match them. `CUSTOM` steps cover the same code
# paths with the user's decorators applied to earlier values.
BAKED_PARAMS = {
    "custom_vjp_call": "the residuals of fwd, computed from the sample's arguments",
    "function_call": "the tensors the Function's forward saved",
}

# Primitives smooth on all of R^n: an earlier value may be passed as it is.
SMOOTH_EVERYWHERE = frozenset(
    {
        "add",
        "subtract",
        "multiply",
        "negative",
        "sin",
        "cos",
        "tanh",
        "arctan",
        "sigmoid",
        "softplus",
        "identity",
        "astype",
        "reshape",
        "broadcast_to",
        "transpose",
        "squeeze",
        "expand_dims",
        "concatenate",
        "stack",
        "flip",
        "pad",
        "getitem",
        "scatter_add",
        "tril",
        "triu",
        "sum",
        "mean",
        "cumsum",
        "logsumexp",
        "softmax",
        "log_softmax",
        "matmul",
        "einsum",
        "var",
    }
)


@fg.custom_vjp
def scaled_tanh(x, y):
    """`tanh(x) * y` with a hand-written VJP (in funcgrad.numpy, so it differentiates again)."""
    return fnp.tanh(x) * y


def _scaled_tanh_fwd(x, y):
    t = fnp.tanh(x)
    return t * y, (t, y)


def _scaled_tanh_bwd(res, ct):
    t, y = res
    return ct * y * (1.0 - t * t), ct * t


scaled_tanh.defvjp(_scaled_tanh_fwd, _scaled_tanh_bwd)


@fg.custom_jvp
def soft_square(x):
    """`log(cosh(x))` with a hand-written JVP."""
    return fnp.log(fnp.cosh(x))


@soft_square.defjvp
def _soft_square_jvp(primals, tangents):
    (x,), (x_t,) = primals, tangents
    return soft_square(x), fnp.tanh(x) * x_t


def _checkpointed(x, y):
    return fg.checkpoint(lambda a, b: fnp.sin(a) * fnp.cos(b) + a * b)(x, y)


CUSTOM = {"scaled_tanh": scaled_tanh, "soft_square": soft_square, "checkpointed": _checkpointed}
UNARY = ("sin", "cos", "tanh", "sigmoid", "arctan", "softplus", "negative", "square", "exp")
BINARY = ("add", "subtract", "multiply")
REDUCTIONS = ("sum", "mean", "var", "prod", "cumsum", "logsumexp", "softmax", "log_softmax")


@attrs.frozen
class Operand:
    """An argument of a step.

    Attributes:
        kind: `"pool"` (an earlier value), `"const"` (a fixed array or
            object) or `"shifted"` (`value + SHIFT * tanh(mean(pool[index]))`).
        index: The pool index (for `"pool"` and `"shifted"`).
        value: The constant (for `"const"` and `"shifted"`).
    """

    kind: str
    index: int = -1
    value: object = None


@attrs.frozen
class Step:
    """One new value: `op` (a registry name, or `"square"`) applied to operands."""

    op: str
    operands: tuple
    params: dict = attrs.field(factory=dict)

    def describe(self) -> str:
        parts = []
        for o in self.operands:
            if o.kind == "pool":
                parts.append(f"v{o.index}")
            elif o.kind == "shifted":
                parts.append(f"c{np.shape(o.value)}~v{o.index}")
            else:
                parts.append(f"c{np.shape(o.value)}" if hasattr(o.value, "shape") else "c")
        extra = "".join(
            f", {k}={v!r}"
            for k, v in self.params.items()
            if k != "fn"  # a call primitive's Call
        )
        return f"{self.op}({', '.join(parts)}{extra})"


@attrs.frozen
class Program:
    """Inputs, steps, and the output weights `{pool index: weight array}`."""

    inputs: tuple
    steps: tuple
    weights: tuple  # ((pool index, weight array), ...)
    dtype: np.dtype

    def describe(self) -> str:
        lines = [f"inputs: {[(np.shape(x), str(np.asarray(x).dtype)) for x in self.inputs]}"]
        n = len(self.inputs)
        for k, step in enumerate(self.steps):
            lines.append(f"  v{n + k} = {step.describe()}")
        lines.append(f"  out = sum of w * v over {[i for i, _ in self.weights]}")
        return "\n".join(lines)

    @property
    def ops(self) -> set:
        return {s.op for s in self.steps}


# --- running ---------------------------------------------------------------------


def _operand(o: Operand, pool, api):
    if o.kind == "pool":
        return pool[o.index]
    if o.kind == "const":
        return api.const(o.value)
    return api.shift(api.const(o.value), pool[o.index])


class _Functional:
    """Steps on arrays or graph nodes, with the registry's primitives."""

    @staticmethod
    def const(v):
        return v

    @staticmethod
    def shift(c, v):
        return c + fnp.tanh(fnp.mean(v)) * SHIFT

    @staticmethod
    def apply(step: Step, args):
        if step.op == "square":
            return args[0] * args[0]
        if step.op in CUSTOM:
            return CUSTOM[step.op](*args)
        return registry.get(step.op)(*args, **step.params)

    @staticmethod
    def total(terms):
        out = None
        for v, w in terms:
            t = fnp.sum(v * w)
            out = t if out is None else out + t
        return out


def run(program: Program, *inputs, values: list | None = None):
    """Run a program on `inputs` (arrays or nodes) with the functional API; return the scalar output.

    Args:
        program: The program.
        *inputs: One array or node per input.
        values: If given, a list that receives every value (the pool).
    """
    pool = list(inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for step in program.steps:
            args = [_operand(o, pool, _Functional) for o in step.operands]
            pool.append(_Functional.apply(step, args))
        if values is not None:
            values.extend(pool)
        return _Functional.total([(pool[i], w) for i, w in program.weights])


# --- the Tensor layer ------------------------------------------------------------------


def _tensor_ops():
    import funcgrad as torch

    def _dim(axis):
        return axis

    def flat(a):
        return a.reshape(-1)

    def prod(a, axis, keepdim):
        # PyTorch's prod takes one dim: a tuple of axes is one prod per axis, last axis first
        if axis is None:  # PyTorch's full prod has no keepdim
            return a.prod().reshape((1,) * a.ndim) if keepdim else a.prod()
        if not isinstance(axis, tuple):
            return a.prod(dim=axis, keepdim=keepdim)
        for d in sorted((d % max(a.ndim, 1) for d in axis), reverse=True):
            a = a.prod(dim=d, keepdim=keepdim)
        return a

    # name -> f(args, params) with PyTorch's spelling of each operation
    return {
        "add": lambda a, p: a[0] + a[1],
        "subtract": lambda a, p: a[0] - a[1],
        "multiply": lambda a, p: a[0] * a[1],
        "divide": lambda a, p: a[0] / a[1],
        "power": lambda a, p: a[0] ** a[1],
        "negative": lambda a, p: -a[0],
        "square": lambda a, p: a[0] * a[0],
        "exp": lambda a, p: a[0].exp(),
        "log": lambda a, p: a[0].log(),
        "log1p": lambda a, p: a[0].log1p(),
        "expm1": lambda a, p: a[0].expm1(),
        "sqrt": lambda a, p: a[0].sqrt(),
        "abs": lambda a, p: a[0].abs(),
        "sin": lambda a, p: a[0].sin(),
        "cos": lambda a, p: a[0].cos(),
        "tan": lambda a, p: a[0].tan(),
        "tanh": lambda a, p: a[0].tanh(),
        "sinh": lambda a, p: a[0].sinh(),
        "cosh": lambda a, p: a[0].cosh(),
        "arcsin": lambda a, p: a[0].asin(),
        "arccos": lambda a, p: a[0].acos(),
        "arctan": lambda a, p: a[0].atan(),
        "arctan2": lambda a, p: torch.atan2(a[0], a[1]),
        "sigmoid": lambda a, p: a[0].sigmoid(),
        "relu": lambda a, p: a[0].relu(),
        "maximum": lambda a, p: torch.maximum(a[0], a[1]),
        "minimum": lambda a, p: torch.minimum(a[0], a[1]),
        "clip": lambda a, p: a[0].clamp(p["a_min"], p["a_max"]),
        "where": lambda a, p: torch.where(a[0], a[1], a[2]),
        "sum": lambda a, p: a[0].sum(dim=_dim(p["axis"]), keepdim=p["keepdims"]),
        "mean": lambda a, p: a[0].mean(dim=_dim(p["axis"]), keepdim=p["keepdims"]),
        "prod": lambda a, p: prod(a[0], p["axis"], p["keepdims"]),
        "var": lambda a, p: a[0].var(
            dim=_dim(p["axis"]), correction=p["ddof"], keepdim=p["keepdims"]
        ),
        "std": lambda a, p: a[0].std(
            dim=_dim(p["axis"]), correction=p["ddof"], keepdim=p["keepdims"]
        ),
        "cumsum": lambda a, p: (
            flat(a[0]).cumsum(0) if p["axis"] is None else a[0].cumsum(p["axis"])
        ),
        "logsumexp": lambda a, p: torch.logsumexp(
            a[0],
            dim=tuple(range(a[0].dim())) if p["axis"] is None else p["axis"],
            keepdim=p["keepdims"],
        ),
        "softmax": lambda a, p: torch.softmax(a[0], p["axis"]),
        "log_softmax": lambda a, p: torch.log_softmax(a[0], p["axis"]),
        "matmul": lambda a, p: a[0] @ a[1],
        "reshape": lambda a, p: a[0].reshape(tuple(p["shape"])),
        "transpose": lambda a, p: (
            a[0].permute(tuple(reversed(range(a[0].dim()))))
            if p["axes"] is None
            else a[0].permute(tuple(p["axes"]))
        ),
        "flip": lambda a, p: torch.flip(
            a[0], tuple(range(a[0].dim())) if p["axis"] is None else p["axis"]
        ),
        "concatenate": lambda a, p: (
            torch.cat([flat(t) for t in a], dim=0)
            if p["axis"] is None
            else torch.cat(list(a), dim=p["axis"])
        ),
        "stack": lambda a, p: torch.stack(list(a), dim=p["axis"]),
        "getitem": lambda a, p: a[0][p["index"]],
        "einsum": lambda a, p: torch.einsum(p["subscripts"], *a),
        "broadcast_to": lambda a, p: a[0].expand(tuple(p["shape"])),
        "expand_dims": lambda a, p: a[0].unsqueeze(p["axis"]),
    }


TENSOR_OPS = frozenset(_tensor_ops())


class _Tensor:
    """Steps on `funcgrad.Tensor`s through the imperative layer's own functions."""

    def __init__(self):
        import funcgrad as torch

        self.torch = torch
        self.ops = _tensor_ops()

    def const(self, v):
        if isinstance(v, (np.ndarray, np.generic)):
            return self.torch.tensor(v)
        return v

    def shift(self, c, v):
        return c + v.mean().tanh() * SHIFT

    def apply(self, step: Step, args):
        return self.ops[step.op](args, step.params)

    @staticmethod
    def total(terms):
        out = None
        for v, w in terms:
            t = (v * w).sum()
            out = t if out is None else out + t
        return out


def tensor_compatible(step: Step) -> bool:
    """Whether the Tensor layer has this step (the op, with these parameters)."""
    if step.op not in TENSOR_OPS:
        return False
    p = step.params
    if step.op == "expand_dims" and not isinstance(p.get("axis"), int):
        return False
    if step.op in ("softmax", "log_softmax") and not isinstance(p.get("axis"), int):
        return False
    return True


def run_tensor(program: Program, *inputs, values: list | None = None):
    """Run a program with the Tensor layer; `inputs` are tensors. Return the output tensor.

    Args:
        program: The program.
        *inputs: One tensor per input.
        values: If given, a list that receives every tensor (the pool).
    """
    api = _Tensor()
    pool = list(inputs)
    weights = [(i, api.torch.tensor(w)) for i, w in program.weights]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for step in program.steps:
            args = [_operand(o, pool, api) for o in step.operands]
            pool.append(api.apply(step, args))
        if values is not None:
            values.extend(pool)
        return api.total([(pool[i], w) for i, w in weights])


# --- generating ------------------------------------------------------------------------


def fuzz_primitives(tensor: bool = False, second_order: bool = False) -> list:
    """The registry primitives a registry step may use.

    Args:
        tensor: Only those the Tensor layer has.
        second_order: Only those whose sample declares second derivatives.
    """
    prims = [p for p in registry.primitives() if p.name not in NOT_DIFFERENTIATED]
    if tensor:
        prims = [p for p in prims if p.name in TENSOR_OPS]
    if second_order:
        prims = [p for p in prims if sample_of(p).second_order]
    return prims


def _is_float(a) -> bool:
    return isinstance(a, (np.ndarray, np.generic)) and a.dtype.kind == "f"


def _tame(v) -> bool:
    return np.size(v) > 0 and bool(np.all(np.isfinite(v))) and float(np.max(np.abs(v))) <= TAME


def _cast(a, dtype):
    return a.astype(dtype) if _is_float(a) else a


class _Builder:
    def __init__(self, g, dtype, tensor: bool):
        self.g = g
        self.dtype = np.dtype(dtype)
        self.tensor = tensor
        self.values: list = []  # float64 values of the pool, for shapes and tameness
        self.steps: list = []

    def _pool_where(self, ok):
        return [i for i, v in enumerate(self.values) if ok(v)]

    def _any_nonempty(self) -> int:
        return self.g.choice(self._pool_where(lambda v: np.size(v) > 0))

    def _add(self, step: Step) -> bool:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                args = [_operand(o, self.values, _Functional) for o in step.operands]
                value = _Functional.apply(
                    step,
                    [
                        _cast(np.asarray(a), np.float64) if _is_float(np.asarray(a)) else a
                        for a in args
                    ],
                )
            except fg.FuncgradError:
                return False  # e.g. a singular matrix after the shift: draw again
        value = np.asarray(value)
        if value.dtype.kind != "f" or not np.all(np.isfinite(value)):
            return False
        self.steps.append(step)
        self.values.append(value)
        return True

    def registry_step(self, prims):
        g = self.g
        prim = g.choice(prims)
        args, params = sample_of(prim).make(g)
        operands = []
        for a in args:
            if not _is_float(a):
                operands.append(Operand("const", value=a))
                continue
            a = np.asarray(a)
            direct = self._pool_where(lambda v, a=a: v.shape == a.shape and _tame(v))
            if prim.name in BAKED_PARAMS:
                operands.append(Operand("const", value=_cast(a, self.dtype)))
            elif prim.name in SMOOTH_EVERYWHERE and direct and g.boolean():
                operands.append(Operand("pool", g.choice(direct)))
            elif g.integers(0, 4) > 0:
                operands.append(Operand("shifted", self._any_nonempty(), _cast(a, self.dtype)))
            else:
                operands.append(Operand("const", value=_cast(a, self.dtype)))
        return self._add(Step(prim.name, tuple(operands), dict(params)))

    def elementwise_step(self):
        g = self.g
        tame = self._pool_where(_tame)
        if not tame:
            return False
        i = g.choice(tame)
        if g.boolean():
            op = g.choice(UNARY)
            if op == "exp" and float(np.max(np.abs(self.values[i]))) > 3.0:
                op = "tanh"
            return self._add(Step(op, (Operand("pool", i),)))
        shape_i = self.values[i].shape
        partners = [j for j in tame if _broadcasts(shape_i, self.values[j].shape)]
        j = g.choice(partners)  # i itself is always a partner
        return self._add(Step(g.choice(BINARY), (Operand("pool", i), Operand("pool", j))))

    def custom_step(self):
        """A user-defined rule (custom_vjp, custom_jvp, checkpoint) on earlier values."""
        g = self.g
        tame = self._pool_where(_tame)
        if not tame:
            return False
        i = g.choice(tame)
        op = g.choice(sorted(CUSTOM))
        if op == "soft_square":
            return self._add(Step(op, (Operand("pool", i),)))
        same = [j for j in tame if self.values[j].shape == self.values[i].shape]
        return self._add(Step(op, (Operand("pool", i), Operand("pool", g.choice(same)))))

    def reduction_step(self):
        g = self.g
        tame = self._pool_where(lambda v: _tame(v) and v.ndim > 0)
        if not tame:
            return False
        i = g.choice(tame)
        v = self.values[i]
        op = g.choice(REDUCTIONS)
        axis = None if g.boolean() else g.integers(-v.ndim, v.ndim - 1)
        if op in ("softmax", "log_softmax"):
            params = {"axis": axis if axis is not None else -1}
        elif op == "cumsum":
            params = {"axis": axis}
        elif op == "var":
            params = {"axis": axis, "ddof": 0, "keepdims": g.boolean()}
        else:
            params = {"axis": axis, "keepdims": g.boolean()}
        if op == "prod" and v.size > 8:
            op = "sum"
        return self._add(Step(op, (Operand("pool", i),), params))


def _broadcasts(a, b) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def draw_program(
    g,
    *,
    dtype=np.float64,
    tensor: bool = False,
    second_order: bool = False,
    max_steps: int = MAX_STEPS,
    anchor: str | None = None,
) -> Program:
    """Draw a random program.

    Args:
        g: The drawing helper (`tests.strategies.Draw`).
        dtype: The dtype of the inputs and of every sampled argument.
        tensor: Restrict to steps the Tensor layer has (`TENSOR_OPS`).
        second_order: Restrict to primitives with second derivatives.
        max_steps: The longest program.
        anchor: A primitive that the first registry step uses (so a test can
            make sure each primitive is covered).
    """
    b = _Builder(g, dtype, tensor)
    inputs = []
    for _ in range(g.integers(1, 3)):
        shape = g.shape(min_dims=0, max_dims=3, min_side=1, max_side=4)
        x = g.array(shape, -2.0, 2.0)
        inputs.append(x.astype(dtype))
        b.values.append(x)
    prims = fuzz_primitives(tensor, second_order)
    if anchor is not None:
        for _ in range(10):
            if b.registry_step([registry.get(anchor)]):
                break
    n_steps = g.integers(1, max_steps)
    attempts = 0
    while len(b.steps) < n_steps and attempts < 4 * max_steps:
        attempts += 1
        kind = g.integers(0, 9)
        if kind < 5:
            ok = b.registry_step(prims)
        elif kind < 7:
            ok = b.elementwise_step()
        elif kind < 8 and not tensor:
            ok = b.custom_step()
        else:
            ok = b.reduction_step()
        if ok and tensor and not tensor_compatible(b.steps[-1]):
            b.steps.pop()
            b.values.pop()
    weights = []  # every value, the inputs too: the output depends on each of them
    for i, v in enumerate(b.values):
        weights.append((i, g.array(v.shape, -1.0, 1.0).astype(dtype)))
    return Program(tuple(inputs), tuple(b.steps), tuple(weights), np.dtype(dtype))


def tolerance(program: Program) -> float:
    """The relative tolerance of a finite-difference check: the loosest of the steps' samples, x10."""
    tol = 1e-6
    for step in program.steps:
        try:
            sample = sample_of(registry.get(step.op))
        except KeyError:
            continue
        if sample is not None:
            tol = max(tol, sample.tol)
    return 10 * tol
