"""PyTorch's type promotion in the Tensor layer (issues #12 and #14), against PyTorch 2.13.

Each case runs the same program on funcgrad and on PyTorch: the result has
PyTorch's dtype and values, or both raise. The functional API keeps NumPy's
rules (the last tests).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import FuncgradError
from funcgrad.tensors import dtypes
from tests.references import requires


def _name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _run(lib, make):
    try:
        return make(lib), None
    except Exception as e:  # the outcome is what is compared
        return None, e


def assert_like_torch(make):
    """`make(fg)` and `make(torch)` give a tensor of the same dtype and values, or both raise."""
    torch = requires("torch")
    ours, our_error = _run(fg, make)
    theirs, their_error = _run(torch, make)
    if their_error is not None:
        assert our_error is not None, f"PyTorch raises {their_error!r}, funcgrad returns {ours!r}"
        assert isinstance(our_error, FuncgradError), repr(our_error)
        assert isinstance(our_error, RuntimeError), repr(our_error)
        return our_error
    assert our_error is None, f"funcgrad raises {our_error!r}, PyTorch returns {theirs!r}"
    assert _name(ours.dtype) == _name(theirs.dtype), (ours, theirs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-7)
    return None


def _t(lib, values, dtype):
    return lib.tensor(np.asarray(values, dtype=dtype))


# name -> make(lib): f float32 and d float64 vectors, i int64, i32 int32, h float16, b bool,
# z64 a 0-d float64, zi a 0-d int64, z32 a 0-d float32
def _operands(lib):
    return {
        "f": _t(lib, [1.5, -2.0, 0.25], "float32"),
        "d": _t(lib, [0.5, 3.0, -1.0], "float64"),
        "i": _t(lib, [1, 2, 3], "int64"),
        "i32": _t(lib, [4, 1, 2], "int32"),
        "h": _t(lib, [0.5, 1.0, 2.0], "float16"),
        "b": _t(lib, [True, False, True], "bool"),
        "u8": _t(lib, [1, 2, 250], "uint8"),
        "z64": _t(lib, 2.5, "float64"),
        "zi": _t(lib, 3, "int64"),
        "z32": _t(lib, 0.5, "float32"),
    }


def _unary(fn, o, lib):
    return getattr(lib, fn)(o["i"])


CASES = {
    # 0-d tensors and numbers only raise the category
    "f * z64": lambda o, lib: o["f"] * o["z64"],
    "i + 2.5": lambda o, lib: o["i"] + 2.5,
    "f + i": lambda o, lib: o["f"] + o["i"],
    "i - f": lambda o, lib: o["i"] - o["f"],
    "i * zi": lambda o, lib: o["i"] * o["zi"],
    "i32 * zi": lambda o, lib: o["i32"] * o["zi"],
    "i32 * i": lambda o, lib: o["i32"] * o["i"],
    "i32 + z64": lambda o, lib: o["i32"] + o["z64"],
    "i * z32": lambda o, lib: o["i"] * o["z32"],
    "zi * z64": lambda o, lib: o["zi"] * o["z64"],
    "b + b": lambda o, lib: o["b"] + o["b"],
    "b + 1": lambda o, lib: o["b"] + 1,
    "b * 1.5": lambda o, lib: o["b"] * 1.5,
    "b * i32": lambda o, lib: o["b"] * o["i32"],
    "h + i": lambda o, lib: o["h"] + o["i"],
    "h * z64": lambda o, lib: o["h"] * o["z64"],
    "f + d": lambda o, lib: o["f"] + o["d"],
    "u8 + i32": lambda o, lib: o["u8"] + o["i32"],
    "f + 1j": lambda o, lib: o["f"] + 1j,
    "i * np.float64(0.5)": lambda o, lib: o["i"] * np.float64(0.5),
    "maximum(i, f)": lambda o, lib: lib.maximum(o["i"], o["f"]),
    "minimum(i, z64)": lambda o, lib: lib.minimum(o["i"], o["z64"]),
    "add(i, f, alpha=2)": lambda o, lib: lib.add(o["i"], o["f"], alpha=2),
    # division and floating-point functions of integers: the default float dtype
    "i / i": lambda o, lib: o["i"] / o["i"],
    "i / 2": lambda o, lib: o["i"] / 2,
    "2 / i": lambda o, lib: 2 / o["i"],
    "zi / 2": lambda o, lib: o["zi"] / 2,
    "i ** 2": lambda o, lib: o["i"] ** 2,
    "i ** 0.5": lambda o, lib: o["i"] ** 0.5,
    "2.5 ** i": lambda o, lib: 2.5 ** o["i"],
    "2 ** i": lambda o, lib: 2 ** o["i"],
    "pow(i, f)": lambda o, lib: lib.pow(o["i"], o["f"]),
    "atan2(i, i32)": lambda o, lib: lib.atan2(o["i"], o["i32"]),
    "atan2(i, f)": lambda o, lib: lib.atan2(o["i"], o["f"]),
    **{
        f"{fn}(i)": functools.partial(_unary, fn)
        for fn in ("exp", "log", "sqrt", "sin", "tanh", "sigmoid", "reciprocal", "expm1")
    },
    "exp(b)": lambda o, lib: lib.exp(o["b"]),
    "sqrt(i32)": lambda o, lib: lib.sqrt(o["i32"]),
    "logsumexp(i, 0)": lambda o, lib: lib.logsumexp(o["i"], 0),
    # functions that keep integers
    "abs(i32)": lambda o, lib: lib.abs(o["i32"]),
    "neg(i)": lambda o, lib: lib.neg(o["i"]),
    "square(i32)": lambda o, lib: lib.square(o["i32"]),
    # reductions
    "sum(i32)": lambda o, lib: o["i32"].sum(),
    "sum(b)": lambda o, lib: o["b"].sum(),
    "prod(i32)": lambda o, lib: o["i32"].prod(),
    "prod(b)": lambda o, lib: o["b"].prod(),
    "cumsum(b, 0)": lambda o, lib: lib.cumsum(o["b"], 0),
    "mean(i)": lambda o, lib: o["i"].mean(),
    "mean(b)": lambda o, lib: lib.mean(o["b"]),
    "var(i)": lambda o, lib: lib.var(o["i"]),
    "std(i32)": lambda o, lib: o["i32"].std(),
    "norm(i)": lambda o, lib: lib.norm(o["i"]),
    "softmax(i, 0)": lambda o, lib: lib.softmax(o["i"], 0),
    # several tensors: where, cat, stack, clamp
    "where(b, i, f)": lambda o, lib: lib.where(o["b"], o["i"], o["f"]),
    "where(b, i, 2.5)": lambda o, lib: lib.where(o["b"], o["i"], 2.5),
    "where(b, f, z64)": lambda o, lib: lib.where(o["b"], o["f"], o["z64"]),
    "where(b, 2.5, 0.0)": lambda o, lib: lib.where(o["b"], 2.5, 0.0),
    "where(b, i32, zi)": lambda o, lib: lib.where(o["b"], o["i32"], o["zi"]),
    "cat([i, f])": lambda o, lib: lib.cat([o["i"], o["f"]]),
    "stack([i, d])": lambda o, lib: lib.stack([o["i"], o["d"]]),
    # a 0-d result (its value a NumPy scalar) is still a float64 tensor, not a Python number
    "stack([z64 * 2])": lambda o, lib: lib.stack([o["z64"] * 2]),
    "f * (z64 + 1)": lambda o, lib: o["f"] * (o["z64"] + 1),
    "where(b, d[0] * 1, 2.5)": lambda o, lib: lib.where(o["b"], o["d"][0] * 1, 2.5),
    "clamp(i, min=0.5)": lambda o, lib: lib.clamp(o["i"], min=0.5),
    "clamp(i, min=1)": lambda o, lib: lib.clamp(o["i"], min=1),
    "clamp(f, min=z64)": lambda o, lib: lib.clamp(o["f"], min=o["z64"]),
    "clamp_min(i, i32)": lambda o, lib: lib.clamp_min(o["i"], o["i32"]),
    # products: matmul and dot do not promote (PyTorch refuses mixed dtypes), outer does
    "dot(f, d)": lambda o, lib: lib.dot(o["f"], o["d"]),
    "dot(i, i)": lambda o, lib: lib.dot(o["i"], o["i"]),
    "f @ d": lambda o, lib: o["f"] @ o["d"],
    "matmul(outer(f, f), i)": lambda o, lib: lib.matmul(lib.outer(o["f"], o["f"]), o["i"]),
    "outer(i, f)": lambda o, lib: lib.outer(o["i"], o["f"]),
    # comparisons keep bool
    "i < f": lambda o, lib: o["i"] < o["f"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_result_dtype_and_values_are_pytorchs(case):
    assert_like_torch(lambda lib: CASES[case](_operands(lib), lib))


def test_issue_14_examples():
    torch = requires("torch")
    for lib in (fg, torch):
        w = lib.ones(3, requires_grad=True)
        assert _name((w * lib.arange(3)).dtype) == "float32"
        assert _name(lib.tensor([1, 2]).sum(dtype=lib.float32).dtype) == "float32"
        assert _name(lib.tensor(1 + 2j).dtype) == "complex64"


def test_mean_of_integers_raises_pytorchs_message():
    error = assert_like_torch(lambda lib: lib.tensor([1, 2]).mean())
    assert "mean(): could not infer output dtype" in str(error) and "Long" in str(error)
    assert "funcgrad.mean" in str(error)


@pytest.mark.parametrize(
    "case",
    [
        "sum(i, dtype=float32)",
        "sum(f, dtype=float64)",
        "sum(b, dtype=float32)",
        "mean(i, dtype=float32)",
        "mean(f, 0, dtype=float64)",
        "prod(i32, dtype=float64)",
        "cumsum(i, 0, dtype=float32)",
        "softmax(i, 0, dtype=float64)",
        "log_softmax(f, 0, dtype=float64)",
    ],
)
def test_dtype_keyword_of_reductions(case):
    name, _, rest = case.partition("(")
    args = rest.rstrip(")").split(", ")
    dim = int(args[1]) if len(args) == 3 else None

    def make(lib):
        o = _operands(lib)
        dtype = getattr(lib, args[-1].removeprefix("dtype="))
        x = o[args[0]]
        extra = () if dim is None else (dim,)
        return getattr(lib, name)(x, *extra, dtype=dtype)

    assert_like_torch(make)
    # the method takes it too
    assert_like_torch(
        lambda lib: getattr(_operands(lib)[args[0]], name)(
            *(() if dim is None else (dim,)), dtype=getattr(lib, args[-1][6:])
        )
    )


def test_dtype_keyword_keeps_the_gradient():
    torch = requires("torch")
    grads = []
    for lib in (fg, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = (x * x).sum(dtype=lib.float64)
        y.backward()
        grads.append((_name(y.dtype), _name(x.grad.dtype), x.grad.numpy().tolist()))
    assert grads[0] == grads[1]


def test_gradients_flow_back_in_each_operands_own_dtype():
    torch = requires("torch")
    out = []
    for lib in (fg, torch):
        w = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        z = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        y = (w * z + lib.arange(3)).sum()
        y.backward()
        out.append(
            (
                _name(y.dtype),
                _name(w.grad.dtype),
                _name(z.grad.dtype),
                float(z.grad),
                w.grad.numpy().tolist(),
            )
        )
    assert out[0][:3] == out[1][:3] == ("float32", "float32", "float64")
    np.testing.assert_allclose(out[0][3], out[1][3], rtol=1e-6)
    np.testing.assert_allclose(out[0][4], out[1][4], rtol=1e-6)


def test_in_place_results_keep_the_tensors_dtype():
    torch = requires("torch")
    # float32 op float64 is float32: the in-place result fits
    for lib in (fg, torch):
        y = lib.ones(2, requires_grad=True) * 1
        y.add_(lib.ones(2, dtype=lib.float64))
        assert _name(y.dtype) == "float32"
    # an int tensor cannot take a float result
    assert_like_torch(lambda lib: lib.tensor([1, 2]).add_(1.5))


def test_the_default_dtype_is_respected():
    torch = requires("torch")
    for lib in (fg, torch):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            i = lib.tensor([1, 2])
            got = [(i + 2.5).dtype, lib.exp(i).dtype, (i / i).dtype, lib.tensor(1j).dtype]
        finally:
            lib.set_default_dtype(old)
        assert [_name(d) for d in got] == ["float64", "float64", "float64", "complex128"]


_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")


def test_promote_types_and_result_type_are_pytorchs():
    torch = requires("torch")
    for a, b in itertools.product(_DTYPES, repeat=2):
        ours = dtypes.promote_types(getattr(fg, a), getattr(fg, b))
        assert _name(ours) == _name(torch.promote_types(getattr(torch, a), getattr(torch, b)))
        for shape_a, shape_b in ((3,), ()), ((), (3,)), ((), ()):
            ta = np.ones(shape_a, dtype=a)
            tb = np.ones(shape_b, dtype=b)
            ours = dtypes.result_type(fg.tensor(ta), fg.tensor(tb))
            theirs = torch.result_type(torch.tensor(ta), torch.tensor(tb))
            assert _name(ours) == _name(theirs), (a, shape_a, b, shape_b)
        for number in (True, 2, 2.5, 1j):
            if a == "float16" and number == 1j:
                continue  # NOTE: NumPy has no complex32 (PyTorch's chalf): complex64 here
            ours = dtypes.result_type(fg.tensor(np.ones(3, dtype=a)), number)
            theirs = torch.result_type(torch.tensor(np.ones(3, dtype=a)), number)
            assert _name(ours) == _name(theirs), (a, number)


def test_the_functional_api_keeps_numpys_rules():
    assert fnp.exp(np.arange(3)).dtype == np.float64
    assert fnp.multiply(np.ones(2, np.float32), np.arange(2)).dtype == np.float64
    assert fg.grad(lambda x: fnp.sum(x * np.arange(3)))(np.ones(3, np.float32)).dtype == (
        np.float32
    )
