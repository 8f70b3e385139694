"""`grad_fn` names and `next_functions` are PyTorch's, checked against PyTorch itself.

Each case is one expression, written once and run on both libraries (`T` is
`torch` or `funcgrad`): the tests compare `type(y.grad_fn).__name__`,
`y.grad_fn.name()` and, where PyTorch records the expression as one node as
funcgrad does, `next_functions` entry by entry (None, which leaf, or the
name of the input's `grad_fn`). Besides the hand-written `CASES`, every
generated PyTorch-style function is called on its primitive's sample (so a
new primitive is compared without a new case), and every primitive whose
record declares a PyTorch-style function must be covered. The few places
where funcgrad cannot give PyTorch's name are listed, with the reason, in
`KNOWN_DIFFERENCES`, and checked to still differ (so the list stays true).
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
from funcgrad.ops import registry
from tests.references import requires
from tests.test_surfaces import generator

torch = requires("torch")

VALUES = {
    "x": [0.5, -0.3, 0.8],
    "y": [0.2, 0.4, -0.6],
    "p": [0.5, 1.5, 2.5],  # positive: log, sqrt
    "m": [[2.0, 0.3, 0.1], [0.2, 1.5, -0.4], [0.1, 0.2, 1.8]],  # well conditioned
    "b": np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4).tolist(),
    "c": np.linspace(-0.5, 0.7, 24).reshape(2, 4, 3).tolist(),
    "u": [[[1.0], [2.0], [3.0]]],  # shape (1, 3, 1)
    "w": [0.1, 0.2, 0.3, 0.4],
}

# (name, expression, whether PyTorch records it as one node, so next_functions compare)
CASES = [
    ("add", lambda T, v: v.x + v.y, True),
    ("add number", lambda T, v: v.x + 2, True),
    ("radd", lambda T, v: 2 + v.x, True),
    ("sub", lambda T, v: v.x - v.y, True),
    ("sub number", lambda T, v: v.x - 2, True),
    ("rsub", lambda T, v: 2 - v.x, True),
    ("mul", lambda T, v: v.x * v.y, True),
    ("mul number", lambda T, v: v.x * 2, True),
    ("rmul", lambda T, v: 2 * v.x, True),
    ("torch.mul", lambda T, v: T.mul(v.x, v.y), True),
    ("div", lambda T, v: v.x / v.y, True),
    ("div number", lambda T, v: v.x / 2, True),
    ("rdiv", lambda T, v: 2 / v.x, True),
    ("reciprocal", lambda T, v: T.reciprocal(v.x), True),
    ("pow number", lambda T, v: v.p**2, True),
    ("rpow", lambda T, v: 2**v.x, True),
    ("pow", lambda T, v: v.p**v.y, True),
    ("square", lambda T, v: T.square(v.x), True),
    ("neg", lambda T, v: -v.x, True),
    ("torch.neg", lambda T, v: T.neg(v.x), True),
    ("exp", lambda T, v: v.x.exp(), True),
    ("log", lambda T, v: T.log(v.p), True),
    ("log1p", lambda T, v: v.p.log1p(), True),
    ("expm1", lambda T, v: v.x.expm1(), True),
    ("sqrt", lambda T, v: v.p.sqrt(), True),
    ("abs", lambda T, v: abs(v.x), True),
    ("sign", lambda T, v: v.x.sign(), True),
    ("sin", lambda T, v: v.x.sin(), True),
    ("cos", lambda T, v: T.cos(v.x), True),
    ("tan", lambda T, v: v.x.tan(), True),
    ("tanh", lambda T, v: v.x.tanh(), True),
    ("sinh", lambda T, v: v.x.sinh(), True),
    ("cosh", lambda T, v: v.x.cosh(), True),
    ("asin", lambda T, v: v.x.asin(), True),
    ("acos", lambda T, v: T.acos(v.x), True),
    ("atan", lambda T, v: v.x.atan(), True),
    ("atan2", lambda T, v: T.atan2(v.x, v.y), True),
    ("sigmoid", lambda T, v: v.x.sigmoid(), True),
    ("relu", lambda T, v: T.relu(v.x), True),
    ("maximum", lambda T, v: T.maximum(v.x, v.y), True),
    ("minimum", lambda T, v: v.x.minimum(v.y), True),
    ("clamp", lambda T, v: v.x.clamp(-0.4, 0.4), True),
    ("clamp min", lambda T, v: v.x.clamp(min=0.0), True),
    ("clip", lambda T, v: T.clip(v.x, -0.4, 0.4), True),
    ("clamp tensor bounds", lambda T, v: T.clamp(v.x, v.y - 1, v.y), True),
    ("clamp_min tensor", lambda T, v: v.x.clamp_min(v.y), True),
    ("clamp_max number", lambda T, v: v.x.clamp_max(0.4), True),
    ("where", lambda T, v: T.where(v.x > 0, v.x, v.y), True),
    ("where number", lambda T, v: T.where(v.x > 0, v.x, 0.0), True),
    ("clone", lambda T, v: v.x.clone(), True),
    ("torch.clone", lambda T, v: T.clone(v.x), True),
    ("float", lambda T, v: v.x.float(), True),
    ("sum", lambda T, v: v.x.sum(), True),
    ("sum dim", lambda T, v: v.m.sum(0), True),
    ("sum dims", lambda T, v: T.sum(v.m, dim=(0, 1)), True),
    ("sum keepdim", lambda T, v: v.m.sum(1, keepdim=True), True),
    ("mean", lambda T, v: v.x.mean(), True),
    ("mean dim", lambda T, v: T.mean(v.m, 1), True),
    ("prod", lambda T, v: v.x.prod(), True),
    ("prod dim", lambda T, v: v.m.prod(1), True),
    ("max", lambda T, v: v.x.max(), True),
    ("max dim", lambda T, v: v.m.max(0).values, True),
    ("max elementwise", lambda T, v: T.max(v.x, v.y), True),
    ("min", lambda T, v: T.min(v.x), True),
    ("min dim", lambda T, v: v.m.min(1)[0], True),
    ("var", lambda T, v: v.x.var(), True),
    ("var dim", lambda T, v: v.m.var(0), True),
    ("std", lambda T, v: T.std(v.m, 1), True),
    ("cumsum", lambda T, v: v.m.cumsum(1), True),
    ("norm", lambda T, v: v.x.norm(), True),
    ("norm dim", lambda T, v: v.m.norm(dim=1), True),
    ("logsumexp", lambda T, v: v.m.logsumexp(1), True),
    ("softmax", lambda T, v: v.m.softmax(1), True),
    ("log_softmax", lambda T, v: T.log_softmax(v.m, 0), True),
    ("tril", lambda T, v: v.m.tril(), True),
    ("triu", lambda T, v: T.triu(v.m, 1), True),
    ("mm", lambda T, v: v.m @ v.m, True),
    ("torch.mm", lambda T, v: T.mm(v.m, v.m), True),
    ("mv", lambda T, v: v.m @ v.x, True),
    ("dot", lambda T, v: v.x @ v.y, True),
    ("torch.dot", lambda T, v: T.dot(v.x, v.y), True),
    ("vector @ matrix", lambda T, v: v.x @ v.m, False),
    ("batched matmul", lambda T, v: v.b @ v.c, False),
    ("batch @ vector", lambda T, v: v.b @ v.w, False),
    ("matrix @ batch", lambda T, v: v.m @ v.b, False),
    ("inverse", lambda T, v: v.m.inverse(), True),
    ("det", lambda T, v: T.det(v.m), True),
    ("reshape", lambda T, v: v.x.reshape(3, 1), True),
    ("view", lambda T, v: v.m.view(9), True),
    ("flatten", lambda T, v: v.b.flatten(), True),
    ("expand", lambda T, v: v.x.expand(2, 3), True),
    ("t", lambda T, v: v.m.t(), True),
    ("t 1-D", lambda T, v: v.x.t(), True),
    ("transpose", lambda T, v: v.m.transpose(0, 1), True),
    ("transpose 3-D", lambda T, v: T.transpose(v.b, 0, 2), True),
    ("permute", lambda T, v: v.b.permute(2, 0, 1), True),
    ("T", lambda T, v: v.m.T, True),
    ("squeeze", lambda T, v: v.u.squeeze(), True),
    ("squeeze dim", lambda T, v: v.u.squeeze(0), True),
    ("unsqueeze", lambda T, v: v.x.unsqueeze(0), True),
    ("unsqueeze -1", lambda T, v: T.unsqueeze(v.x, -1), True),
    ("cat", lambda T, v: T.cat([v.x, v.y]), True),
    ("stack", lambda T, v: T.stack([v.x, v.y], 1), True),
    ("flip", lambda T, v: v.m.flip(0), True),
    ("select", lambda T, v: v.x[0], True),
    ("select column", lambda T, v: v.m[:, 0], True),
    ("select last axis", lambda T, v: v.b[..., 1], True),
    ("slice", lambda T, v: v.x[1:], True),
    ("slice then select", lambda T, v: v.m[1:, 0], False),
    ("select then slice", lambda T, v: v.m[0, 1:], False),
    ("unsqueeze index", lambda T, v: v.x[None], True),
    ("index", lambda T, v: v.x[[0, 2]], True),
    ("mask", lambda T, v: v.x[v.x > 0], True),
    # the tensor API of issue #14: one gather or scatter node each (funcgrad.ops.scatter)
    ("amax", lambda T, v: v.m.amax(1), True),
    ("amin", lambda T, v: T.amin(v.b, (0, 2)), True),
    ("sort", lambda T, v: v.m.sort(1).values, True),
    ("msort", lambda T, v: T.msort(v.m), True),
    ("topk", lambda T, v: v.x.topk(2).values, True),
    ("kthvalue", lambda T, v: T.kthvalue(v.m, 2, 0).values, True),
    ("median", lambda T, v: v.x.median(), True),
    ("median dim", lambda T, v: v.m.median(1).values, True),
    ("nanmedian", lambda T, v: T.nanmedian(v.x), True),
    ("nanmedian dim", lambda T, v: v.m.nanmedian(0).values, True),
    ("mode", lambda T, v: v.m.mode(1).values, True),
    ("cummax", lambda T, v: v.x.cummax(0).values, True),
    ("cummin", lambda T, v: T.cummin(v.m, 1).values, True),
    ("gather", lambda T, v: v.m.gather(1, T.tensor([[0], [2], [1]])), True),
    ("take_along_dim", lambda T, v: T.take_along_dim(v.m, T.tensor([[0, 1, 2]]), 0), False),
    ("index_select", lambda T, v: v.m.index_select(0, T.tensor([2, 0])), True),
    ("take", lambda T, v: v.m.take(T.tensor([0, 4])), True),
    ("masked_select", lambda T, v: v.x.masked_select(v.x > 0), True),
    ("scatter", lambda T, v: v.x.scatter(0, T.tensor([2, 0]), v.w[:2]), False),
    ("scatter value", lambda T, v: v.x.scatter(0, T.tensor([1]), 0.5), True),
    ("scatter_add", lambda T, v: T.scatter_add(v.x, 0, T.tensor([1, 1]), v.y[:2]), False),
    ("scatter_reduce", lambda T, v: v.x.scatter_reduce(0, T.tensor([0]), v.y[:1], "amax"), False),
    ("index_add", lambda T, v: v.m.index_add(0, T.tensor([1]), v.m[:1]), False),
    ("index_copy", lambda T, v: v.x.index_copy(0, T.tensor([2]), v.y[:1]), False),
    ("index_fill", lambda T, v: v.m.index_fill(1, T.tensor([0]), -1.0), True),
    ("index_fill tensor", lambda T, v: v.x.index_fill(0, T.tensor([1]), v.y[0]), False),
    ("index_put", lambda T, v: v.x.index_put((T.tensor([1]),), v.y[1:2]), False),
    ("masked_scatter", lambda T, v: v.x.masked_scatter(v.x > 0, v.y), False),
    ("put", lambda T, v: v.x.put(T.tensor([1]), v.y[:1]), False),
    ("cumprod", lambda T, v: v.m.cumprod(1), True),
    ("logcumsumexp", lambda T, v: T.logcumsumexp(v.m, 0), True),
    ("lgamma", lambda T, v: v.p.lgamma(), True),
    ("erfinv", lambda T, v: T.erfinv(v.x), True),
    ("xlogy", lambda T, v: T.xlogy(v.x, v.p), True),
    ("log2", lambda T, v: v.p.log2(), True),
    ("hypot", lambda T, v: T.hypot(v.x, v.y), True),
    ("fmod", lambda T, v: T.fmod(v.x, 0.3), True),
    ("remainder tensor", lambda T, v: v.x.remainder(v.p), True),
]

# Cases where funcgrad's name cannot be PyTorch's, and why.
KNOWN_DIFFERENCES = {
    "torch.bmm": (
        lambda T, v: T.bmm(v.b, v.c),
        "funcgrad's bmm is matmul: a batched matmul node is UnsafeViewBackward0, as for `@`",
    ),
    "reshape after t": (
        lambda T, v: v.m.t().reshape(9),
        "funcgrad has no strides: a reshape is always ViewBackward0 (PyTorch copies first)",
    ),
}

# Primitives with a PyTorch-style function that no case can compare, and why.
NOT_COMPARED = {
    "einsum": "PyTorch decomposes einsum into permutes, views and bmm: no one node to compare",
}


class _Leaves:
    def __init__(self, T):
        self._T = T
        self.order = []
        for name, value in VALUES.items():
            leaf = T.tensor(value, dtype=T.float64, requires_grad=True)
            setattr(self, name, leaf)
            self.order.append(leaf)


def _signature(fn, leaves):
    """What `next_functions` says: per entry None, ("leaf", i) or the grad_fn's name."""
    out = []
    for f, k in fn.next_functions:
        if f is None:
            out.append(None)
        elif type(f).__name__ == "AccumulateGrad":
            out.append(("leaf", next(i for i, t in enumerate(leaves.order) if t is f.variable), k))
        else:
            out.append((type(f).__name__, k))
    return out


def _run(T, expression):
    leaves = _Leaves(T)
    return expression(T, leaves), leaves


@pytest.mark.parametrize("name, expression, one_node", CASES, ids=[c[0] for c in CASES])
def test_grad_fn_is_pytorchs(name, expression, one_node):
    expected, t_leaves = _run(torch, expression)
    got, f_leaves = _run(funcgrad, expression)
    torch_name = type(expected.grad_fn).__name__
    assert type(got.grad_fn).__name__ == got.grad_fn.name() == torch_name, name
    assert expected.grad_fn.name() == torch_name
    assert repr(got).endswith(f"grad_fn=<{torch_name}>)")
    if one_node:
        assert _signature(got.grad_fn, f_leaves) == _signature(expected.grad_fn, t_leaves), name


# torch.nn.functional's functions that PyTorch computes with one kernel and funcgrad
# composes: the composition's output carries PyTorch's name (funcgrad.ops.named)
NN_CASES = {
    "layer_norm": lambda F, T, v: F.layer_norm(v.image, (5,)),
    "layer_norm affine": lambda F, T, v: F.layer_norm(v.rows, (5,), v.row_w, v.row_b),
    "batch_norm train": lambda F, T, v: F.batch_norm(v.image, None, None, v.ch_w, v.ch_b, True),
    "batch_norm eval": lambda F, T, v: F.batch_norm(
        v.image, v.ch_b.detach(), v.ch_w.detach(), v.ch_w
    ),
    "group_norm": lambda F, T, v: F.group_norm(v.image, 3, v.ch_w, v.ch_b),
    "instance_norm": lambda F, T, v: F.instance_norm(v.image),
    "linear": lambda F, T, v: F.linear(v.rows, v.weight, v.bias),
    "linear 3-d": lambda F, T, v: F.linear(v.image[0], v.weight, v.bias),
    "linear without bias": lambda F, T, v: F.linear(v.rows, v.weight),
    "embedding": lambda F, T, v: F.embedding(T.tensor([[1, 2], [0, 1]]), v.rows),
    "embedding scaled": lambda F, T, v: F.embedding(
        T.tensor([1, 1]), v.rows, scale_grad_by_freq=True
    ),
    "gelu": lambda F, T, v: F.gelu(v.rows),
    "gelu tanh": lambda F, T, v: F.gelu(v.rows, approximate="tanh"),
    "silu": lambda F, T, v: F.silu(v.rows),
    "mish": lambda F, T, v: F.mish(v.rows),
    "leaky_relu": lambda F, T, v: F.leaky_relu(v.rows),
    "elu": lambda F, T, v: F.elu(v.rows),
    "selu": lambda F, T, v: F.selu(v.rows),
    "celu": lambda F, T, v: F.celu(v.rows),
    "softplus": lambda F, T, v: F.softplus(v.rows),
    "hardtanh": lambda F, T, v: F.hardtanh(v.rows),
    "relu6": lambda F, T, v: F.relu6(v.rows),
    "hardsigmoid": lambda F, T, v: F.hardsigmoid(v.rows),
    "hardswish": lambda F, T, v: F.hardswish(v.rows),
    "logsigmoid": lambda F, T, v: F.logsigmoid(v.rows),
    "softshrink": lambda F, T, v: F.softshrink(v.rows),
    "hardshrink": lambda F, T, v: F.hardshrink(v.rows),
    "threshold": lambda F, T, v: F.threshold(v.rows, 0.1, 2.0),
    "glu": lambda F, T, v: F.glu(v.image, 2),
    "prelu": lambda F, T, v: F.prelu(v.image, v.ch_w),
    "rrelu": lambda F, T, v: F.rrelu(v.rows),
    "softmax": lambda F, T, v: F.softmax(v.rows, dim=1),
    "log_softmax": lambda F, T, v: F.log_softmax(v.rows, dim=1),
    "cross_entropy": lambda F, T, v: F.cross_entropy(v.rows, T.tensor([0, 1, 4, 2])),
    "mse_loss": lambda F, T, v: F.mse_loss(v.rows, v.rows.detach() * 2),
    "conv2d": lambda F, T, v: F.conv2d(v.image, v.kernel),
    "max_pool2d": lambda F, T, v: F.max_pool2d(v.image, 2),
    "dropout": lambda F, T, v: F.dropout(v.rows, 0.5),
    "pixel_shuffle": lambda F, T, v: F.pixel_shuffle(v.image.reshape(2, 4, 3, 5), 2),
    "pixel_unshuffle": lambda F, T, v: F.pixel_unshuffle(v.image[..., :4], 2),
    **{
        f"interpolate {mode} {nd}-d": (
            lambda F, T, v, mode=mode, nd=nd: F.interpolate(
                v.image.reshape((2, 3, 20, 1, 1)[: nd + 2]), scale_factor=2, mode=mode
            )
        )
        for mode, dims in {
            "nearest": (1, 2, 3),
            "nearest-exact": (2,),
            "linear": (1,),
            "bilinear": (2,),
            "bicubic": (2,),
            "trilinear": (3,),
        }.items()
        for nd in dims
    },
    "interpolate area": lambda F, T, v: F.interpolate(v.image, size=(2, 2), mode="area"),
    "multi_margin_loss": lambda F, T, v: F.multi_margin_loss(v.rows, T.tensor([0, 4, 1, 2])),
    "multi_margin_loss p=2 weight none": lambda F, T, v: F.multi_margin_loss(
        v.rows, T.tensor([0, 4, 1, 2]), p=2, weight=v.row_w.detach(), reduction="none"
    ),
    "multi_margin_loss 1-d": lambda F, T, v: F.multi_margin_loss(v.rows[1], T.tensor(3)),
    "pairwise_distance": lambda F, T, v: F.pairwise_distance(v.rows, v.rows.detach() * 0.5),
    "pairwise_distance p=1 keepdim": lambda F, T, v: F.pairwise_distance(
        v.image, v.row_b, p=1.0, keepdim=True
    ),
}
NN_VALUES = {
    "image": np.linspace(-1.0, 1.0, 120).reshape(2, 3, 4, 5),
    "rows": np.linspace(-2.0, 2.0, 20).reshape(4, 5),
    "row_w": np.linspace(0.5, 1.5, 5),
    "row_b": np.linspace(-0.2, 0.2, 5),
    "ch_w": np.array([0.5, 1.0, 1.5]),
    "ch_b": np.array([0.1, 0.0, -0.1]),
    "weight": np.linspace(-1.0, 1.0, 30).reshape(6, 5),
    "bias": np.linspace(0.0, 0.5, 6),
    "kernel": np.linspace(-0.3, 0.3, 54).reshape(2, 3, 3, 3),
}


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_nn_functional_grad_fn_is_pytorchs(name):
    names = []
    for T in (torch, funcgrad):
        v = type("Leaves", (), {k: T.tensor(a, requires_grad=True) for k, a in NN_VALUES.items()})
        out = NN_CASES[name](T.nn.functional, T, v)
        names.append(type(out.grad_fn).__name__)
    assert names[1] == names[0], name


@pytest.mark.parametrize("name", sorted(KNOWN_DIFFERENCES))
def _generated_case(item):
    args, params = generator.example_args(item.prim)
    kwargs = {generator.PARAMS[p].torch: v for p, v in params.items()}

    def expression(T, v):
        tensors = [T.tensor(a.tolist(), dtype=T.float64, requires_grad=True) for a in args]
        v.order[:] = tensors  # next_functions name these leaves by position
        return getattr(T, item.name)(*tensors, **kwargs)

    return expression


GENERATED = generator.surfaces(registry.primitives())["torch"]


@pytest.mark.parametrize("item", GENERATED, ids=lambda i: i.name)
def test_generated_function_grad_fn_is_pytorchs(item):
    test_grad_fn_is_pytorchs(item.name, _generated_case(item), True)


@pytest.mark.parametrize("name", sorted(KNOWN_DIFFERENCES))
def test_known_differences_still_differ(name):
    expression, reason = KNOWN_DIFFERENCES[name]
    expected, _ = _run(torch, expression)
    got, _ = _run(funcgrad, expression)
    assert got.grad_fn.name() != expected.grad_fn.name(), (
        f"{name} now matches PyTorch: remove it from KNOWN_DIFFERENCES ({reason})"
    )


def test_every_primitive_with_a_torch_name_is_compared():
    covered = {item.prim.name for item in GENERATED}
    for _, expression, _ in CASES:
        got, _ = _run(funcgrad, expression)
        covered.add(got._node.prim.name)
    declared = {p.name for p in registry.primitives() if p.names.torch}
    missing = declared - covered - set(NOT_COMPARED)
    assert not missing, f"add a case to CASES for the primitives {sorted(missing)}"


def test_grad_fn_classes_are_shared_and_named():
    x = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    a, b = (x * 2).grad_fn, (x * x).grad_fn
    assert type(a) is type(b) and type(a).__name__ == "MulBackward0"
    assert isinstance(a, funcgrad.tensors.grad_fn.BackwardFunction)
    assert a != b
