"""How tensors print: PyTorch's layout, checked against fixed strings and against PyTorch itself."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as torch
from funcgrad.autograd import Variable
from tests.references import requires


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: torch.tensor(27.0), "tensor(27.)"),
        (lambda: torch.tensor(4.5), "tensor(4.5000)"),
        (lambda: torch.tensor([6.0, 10.0]), "tensor([ 6., 10.])"),
        (lambda: torch.tensor([-1.0, 0.5, 1.0]), "tensor([-1.0000,  0.5000,  1.0000])"),
        (lambda: torch.tensor([0.1, 1.0, 0.0001]), "tensor([1.0000e-01, 1.0000e+00, 1.0000e-04])"),
        (lambda: torch.tensor([1.0, 2000.0]), "tensor([1.0000e+00, 2.0000e+03])"),
        (lambda: torch.tensor([1.0, float("inf"), float("nan")]), "tensor([1., inf, nan])"),
        (lambda: torch.tensor([0.0, 0.0]), "tensor([0., 0.])"),
        (lambda: torch.tensor([1, 2, 30]), "tensor([ 1,  2, 30])"),
        (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
        (lambda: torch.tensor([1, 2], dtype=torch.int32), "tensor([1, 2], dtype=funcgrad.int32)"),
        (lambda: torch.tensor([1.0], dtype=torch.float64), "tensor([1.], dtype=funcgrad.float64)"),
        (lambda: torch.tensor([]), "tensor([])"),
        (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
        (lambda: torch.tensor([], dtype=torch.int64), "tensor([], dtype=funcgrad.int64)"),
        (
            lambda: torch.ones(2, 2, requires_grad=True),
            "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)",
        ),
        (lambda: torch.ones(2, 1, 2), "tensor([[[1., 1.]],\n\n        [[1., 1.]]])"),
        (lambda: torch.tensor(1.0, requires_grad=True) * 2, "tensor(2., grad_fn=<MulBackward0>)"),
    ],
)
def test_repr(make, expected):
    assert repr(make()) == expected


def test_long_vectors_wrap_at_80_columns_and_large_ones_are_summarised():
    text = repr(torch.arange(30.0))
    assert text == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
        "        28., 29.])"
    )
    assert max(len(line) for line in text.splitlines()) <= 80
    assert repr(torch.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_str_and_format():
    t = torch.tensor(2.5)
    assert str(t) == repr(t)
    assert f"{t:.2f}" == "2.50"
    assert f"{torch.ones(2)}" == "tensor([1., 1.])"


def test_variable_prints_the_03_way():
    v = Variable(torch.Tensor([[1, 2], [3, 4]]))
    assert repr(v) == "Variable containing:\n1 2\n3 4\n[funcgrad.FloatTensor of size 2x2]\n"
    assert repr(Variable(torch.Tensor([1.5, -2]))) == (
        "Variable containing:\n 1.5000\n-2.0000\n[funcgrad.FloatTensor of size 2]\n"
    )
    assert repr(Variable(torch.tensor([1.0], dtype=torch.float64))) == (
        "Variable containing:\n1\n[funcgrad.DoubleTensor of size 1]\n"
    )


def test_grad_fn_repr():
    y = torch.ones(1, requires_grad=True) + 1
    assert re.fullmatch(r"<AddBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))


# --- PyTorch as an oracle ----------------------------------------------------------------


def _normalise(text: str) -> str:
    # "funcgrad." is longer than "torch.", so suffixes may wrap at another place.
    text = text.replace("torch.", "funcgrad.")
    return re.sub(r",\n\s+(?=(dtype|requires_grad|grad_fn|size)=)", ", ", text)


_ARRAYS = {
    "normal": lambda rng, shape: rng.standard_normal(shape),
    "integral": lambda rng, shape: np.round(rng.standard_normal(shape) * 20),
    "large": lambda rng, shape: rng.standard_normal(shape) * 1e5,
    "tiny": lambda rng, shape: rng.standard_normal(shape) * 1e-5,
    "huge": lambda rng, shape: rng.standard_normal(shape) * 1e9,
    "inf": lambda rng, shape: np.where(rng.random(shape) > 0.5, np.inf, -2.5),
    "zeros": lambda rng, shape: np.zeros(shape),
}


@settings(max_examples=40)
@given(
    kind=st.sampled_from(sorted(_ARRAYS)),
    shape=st.sampled_from([(), (1,), (3,), (2, 2), (2, 3, 4), (25,), (1001,), (40, 40), (3, 1, 2)]),
    dtype=st.sampled_from(["float32", "float64", "float16", "int64", "int32", "bool"]),
    requires_grad=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_repr_matches_pytorch(kind, shape, dtype, requires_grad, seed):
    torch_ = requires("torch")
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        a = _ARRAYS[kind](rng, shape)
        if dtype == "bool":
            a = a > 0
        elif dtype.startswith("int"):
            a = np.nan_to_num(np.round(a), posinf=7, neginf=-7).clip(-1e6, 1e6)
        a = np.asarray(a).astype(dtype)
    requires_grad = requires_grad and a.dtype.kind == "f"
    expected = repr(torch_.tensor(a, requires_grad=requires_grad))
    assert _normalise(repr(torch.tensor(a, requires_grad=requires_grad))) == _normalise(expected)


def test_format_follows_pytorch():
    """`'{}'.format(loss)` prints the number (introyt's training page prints `valid {}` of a loss)."""
    pt = requires("torch")
    cases = [
        lambda t: f"{t.tensor(2.307513952255249) * 1}",
        lambda t: f"{t.tensor(2.5, requires_grad=True) * 1}",
        lambda t: f"{t.tensor(2.5, dtype=t.float64):.3f}",
        lambda t: f"{t.tensor(3)} {t.tensor(True)}",
        lambda t: f"{t.tensor(2):>10}|{t.tensor(-1.5):<6}",
        lambda t: f"{t.tensor([2.5])}",
        lambda t: f"{t.nn.Parameter(t.tensor(1.5))}",
        lambda t: f"{t.ones(2, 2)}",
    ]
    for case in cases:
        assert case(torch).replace("funcgrad", "torch") == case(pt)
    for t in (torch, pt):
        with pytest.raises(
            TypeError, match="unsupported format string passed to Tensor.__format__"
        ):
            f"{t.tensor([2.5]):.2f}"
        with pytest.raises(TypeError, match="unsupported format string passed to"):
            f"{t.nn.Parameter(t.tensor(1.5)):.2f}"


def test_the_tensor_class_prints_by_its_public_path():
    """`print(type(x))` (introyt's tensors page) shows `<class 'funcgrad.Tensor'>`, as PyTorch's
    shows `<class 'torch.Tensor'>`; pickle finds the class there."""
    import pickle

    pt = requires("torch")
    assert repr(type(torch.ones(1))) == repr(type(pt.ones(1))).replace("torch", "funcgrad")
    x = torch.tensor([1.5, -2.0])
    assert pickle.loads(pickle.dumps(x)).tolist() == [1.5, -2.0]


def test_format_of_every_tensor_class_follows_pytorch():
    """A 0-dim Variable, its `.data`, a Buffer and their results are plain Tensors in PyTorch
    and format as numbers (`'{:.3f}'.format(loss)` of a Variable loss printed 7.000 before
    0a4a895, then raised); a Parameter refuses a spec in both, its results and `.data` do not."""
    pt = requires("torch")
    from torch.autograd import Variable as PtVariable

    def cases(t, variable):
        def param():
            return t.nn.Parameter(t.tensor(1.5))

        def param_grad():
            p = param()
            (p * 2).backward()
            return p.grad

        return {
            "variable result": lambda: (
                variable(t.tensor([1.5, 2.0]), requires_grad=True) * 2
            ).sum(),
            "variable": lambda: variable(t.tensor(2.25)),
            "volatile": lambda: variable(t.tensor(2.25), volatile=True) * 1,
            "variable data": lambda: variable(t.tensor(-0.5), requires_grad=True).data,
            "variable grad": lambda: _variable_grad(t, variable),
            "buffer": lambda: t.nn.Buffer(t.tensor(1.5)),
            "buffer result": lambda: t.nn.Buffer(t.tensor(1.5)) * 3,
            "parameter result": lambda: param() * 1,
            "parameter data": lambda: param().data,
            "parameter detach": lambda: param().detach(),
            "parameter grad": param_grad,
            "legacy double": lambda: t.DoubleTensor([1.25]).sum(),
            "legacy long": lambda: t.LongTensor([3, 4]).sum(),
            "legacy float": lambda: t.FloatTensor([0.125]).mean(),
        }

    ours = cases(torch, Variable)
    theirs = cases(pt, _pt_variable(PtVariable))
    for name in ours:
        for spec in ("", ".3f", ">9", "e"):
            try:
                expected = format(theirs[name](), spec)
            except (TypeError, ValueError) as e:  # a spec PyTorch refuses: funcgrad refuses it too
                with pytest.raises(type(e)):
                    format(ours[name](), spec)
                continue
            assert format(ours[name](), spec) == expected, (name, spec)
    for t in (torch, pt):
        with pytest.raises(TypeError, match="unsupported format string passed to"):
            f"{t.nn.Parameter(t.tensor(1.5)):.2f}"
        with pytest.raises(TypeError, match="unsupported format string passed to"):
            f"{t.nn.Parameter(t.tensor([1.5]) * 1):.2f}"


def _variable_grad(t, variable):
    v = variable(t.tensor(1.5), requires_grad=True)
    (v * 4).backward()
    return v.grad


def _pt_variable(cls):
    """PyTorch's Variable without 0.3's `volatile` (2.13 warns and ignores it)."""

    def make(data, requires_grad=False, volatile=False):
        return cls(data, requires_grad=requires_grad)

    return make
