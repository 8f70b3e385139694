"""Reduction signatures against PyTorch (issue #12's fuzzer findings).

Each test runs the same call on funcgrad and on PyTorch: both return the same
values and gradients, or both raise, funcgrad with a `FuncgradError` that is
also the builtin exception PyTorch raises and names the operation. The few
deliberate differences (`logsumexp(dim=())`, `norm(p="nuc")`, the gradient
of `var`/`std` over `dim=()`) are checked for what funcgrad does instead.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
from funcgrad.errors import ArgumentTypeError, FuncgradError, OpError
from tests.references import requires

torch = requires("torch")

X2 = np.array([[-1.1, 0.4, 2.0], [0.7, -0.3, 1.6]])
X3 = np.arange(24.0).reshape(2, 3, 4) / 7.0 - 1.5
X0 = np.array(0.7)


def _run(lib, call, array, grad=True):
    """`call(lib, x)` on a leaf holding `array`: (output, x.grad after a backward of a weighted sum)."""
    x = lib.tensor(array.copy(), requires_grad=grad)
    out = call(lib, x)
    if isinstance(out, tuple):
        out = out[0]
    if not grad:
        return out, None
    weights = lib.tensor(np.linspace(-1.0, 2.0, max(out.numel(), 1)).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return out, x.grad


def _same(call, array=X2, grad=True):
    """Both libraries return the same values (and gradients) for `call`."""
    ref, ref_grad = _run(torch, call, array, grad)
    got, got_grad = _run(funcgrad, call, array, grad)
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    if grad:
        np.testing.assert_allclose(got_grad.numpy(), ref_grad.numpy(), rtol=1e-12, atol=1e-15)


def _same_error(call, op, array=X2):
    """Both libraries raise for `call`; funcgrad a FuncgradError of PyTorch's type naming `op`."""
    results = []
    for lib in (torch, funcgrad):
        try:
            results.append(call(lib, lib.tensor(array.copy())))
        except Exception as e:  # noqa: BLE001  (compared below)
            results.append(e)
    ref, got = results
    assert isinstance(ref, Exception), f"PyTorch returns {ref!r}"
    assert isinstance(got, FuncgradError), f"funcgrad gives {got!r} (PyTorch: {ref!r})"
    assert isinstance(got, type(ref)), f"{type(got).__mro__} is not a {type(ref).__name__}"
    assert f"funcgrad.{op}" in str(got)
    return got


# --- a required dim --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cumsum", "softmax", "log_softmax", "logsumexp"])
@pytest.mark.parametrize("how", ["function", "method"])
def test_dim_is_required(name, how):
    def call(lib, x):
        return getattr(lib, name)(x) if how == "function" else getattr(x, name)()

    got = _same_error(call, name)
    assert isinstance(got, ArgumentTypeError) and "dim" in str(got)


@pytest.mark.parametrize("name", ["cumsum", "softmax", "log_softmax", "prod"])
@pytest.mark.parametrize("dim", [(0,), [1], (), 0.0])
def test_one_dim_operations_refuse_a_tuple_or_a_float(name, dim):
    got = _same_error(lambda lib, x: getattr(lib, name)(x, dim), name)
    assert isinstance(got, ArgumentTypeError)


@pytest.mark.parametrize("name", ["cumsum", "softmax", "log_softmax", "prod"])
@pytest.mark.parametrize("dim", [0, -1, np.int64(1)])
def test_one_dim_operations(name, dim):
    _same(lambda lib, x: getattr(lib, name)(x, dim))


# --- all / any with several dims ---------------------------------------------------------


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dim", [[0], (1,), [0, 1], (-1, 0), (), []])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("array", [X2 > 0, X3 > 0, X0 > 0], ids=["2d", "3d", "0d"])
def test_all_any_take_a_tuple_or_list_of_dims(name, dim, keepdim, array):
    if array.ndim == 0:  # its dims are 0 and -1, one at a time
        dim = type(dim)(d for d in dim if d in (0, -1))[:1]
    _same(lambda lib, x: getattr(lib, name)(x, dim, keepdim), array, grad=False)
    _same(lambda lib, x: getattr(x, name)(dim=dim, keepdim=keepdim), array, grad=False)


# --- a 0-d tensor takes the dims 0 and -1 ---------------------------------------------------

ZERO_D = {
    "sum": lambda lib, x, d: lib.sum(x, d),
    "sum_keepdim": lambda lib, x, d: x.sum(d, keepdim=True),
    "mean": lambda lib, x, d: lib.mean(x, d),
    "var": lambda lib, x, d: lib.var(x, d, correction=0),
    "std": lambda lib, x, d: x.std(d, correction=0),
    "logsumexp": lambda lib, x, d: lib.logsumexp(x, d),
    "norm": lambda lib, x, d: lib.norm(x, dim=d),
    "norm_1": lambda lib, x, d: x.norm(1, d),
    "norm_fro": lambda lib, x, d: lib.norm(x, "fro", d),
}
ONE_DIM = {
    "prod": lambda lib, x, d: lib.prod(x, d),
    "cumsum": lambda lib, x, d: lib.cumsum(x, d),
    "softmax": lambda lib, x, d: x.softmax(d),
    "log_softmax": lambda lib, x, d: lib.log_softmax(x, d),
    "max": lambda lib, x, d: lib.max(x, d),
    "min": lambda lib, x, d: x.min(d, True),
}


@pytest.mark.parametrize("name", sorted(ZERO_D))
@pytest.mark.parametrize("dim", [0, -1, (0,), (-1,), [0]])
def test_a_0d_tensor_takes_dim_0_and_minus_1(name, dim):
    _same(lambda lib, x: ZERO_D[name](lib, x, dim), X0)


@pytest.mark.parametrize("name", sorted(ONE_DIM))
@pytest.mark.parametrize("dim", [0, -1])
def test_a_0d_tensor_takes_one_dim_0_and_minus_1(name, dim):
    _same(lambda lib, x: ONE_DIM[name](lib, x, dim), X0)


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dim", [0, -1, (0,), (-1,)])
def test_a_0d_tensor_takes_dim_0_and_minus_1_in_all_any(name, dim):
    _same(lambda lib, x: getattr(lib, name)(x, dim), X0 > 0, grad=False)


@pytest.mark.parametrize("name", sorted(ZERO_D))
@pytest.mark.parametrize("dim", [1, (-2,)])
def test_a_0d_tensor_refuses_other_dims(name, dim):
    op = name.split("_")[0]
    _same_error(lambda lib, x: ZERO_D[name](lib, x, dim), op, X0)


# --- dim=() -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: lib.sum(x, ()),
        lambda lib, x: x.sum([], keepdim=True),
        lambda lib, x: lib.mean(x, ()),
        lambda lib, x: x.mean((), True),
        lambda lib, x: lib.norm(x, dim=()),
        lambda lib, x: x.norm(3, (), True),
        lambda lib, x: lib.norm(x, "fro", []),
        lambda lib, x: lib.logsumexp(x, (), keepdim=True),
    ],
)
@pytest.mark.parametrize("array", [X2, X3, X0], ids=["2d", "3d", "0d"])
def test_empty_dims_reduce_every_dim(call, array):
    _same(call, array)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_var_std_over_empty_dims(name, correction, keepdim):
    # The values are PyTorch's; the gradient is that of the same reduction over every dim
    # (PyTorch's own gradient over dim=() divides by 1 - correction: its bug).
    def over(dims):
        return lambda lib, x: getattr(lib, name)(x, dims, correction=correction, keepdim=keepdim)

    for array in (X2, X3):
        ref, _ = _run(torch, over(()), array)
        _, ref_grad = _run(torch, over(tuple(range(array.ndim))), array)
        got, got_grad = _run(funcgrad, over(()), array)
        assert tuple(got.shape) == tuple(ref.shape)
        np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(got_grad.numpy(), ref_grad.numpy(), rtol=1e-12)


def test_logsumexp_over_empty_dims_reduces_every_dim():
    # Deliberate: PyTorch 2.13 raises here (its output shape check), though not with keepdim.
    ref = torch.logsumexp(torch.tensor(X3), dim=tuple(range(3)))
    got = funcgrad.logsumexp(funcgrad.tensor(X3), dim=())
    assert tuple(got.shape) == ()
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("unbiased", [False, True, np.bool_(False)])
def test_var_std_read_a_bool_as_unbiased(name, unbiased):
    _same(lambda lib, x: getattr(x, name)(bool(unbiased) if lib is torch else unbiased))
    _same(lambda lib, x: getattr(lib, name)(x, bool(unbiased)))
    _same(lambda lib, x: getattr(x, name)(0, bool(unbiased), True))


# --- a dim named twice ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "call"),
    [
        ("squeeze", lambda lib, x: lib.squeeze(x.reshape(1, 6), (0, 0))),
        ("squeeze", lambda lib, x: x.reshape(1, 6).squeeze((1, -1))),
        ("norm", lambda lib, x: lib.norm(x, dim=(0, -2))),
        ("norm", lambda lib, x: x.norm(float("inf"), (1, -1, 0), True)),
        ("norm", lambda lib, x: lib.norm(x, "fro", (1, 1))),
        ("sum", lambda lib, x: lib.sum(x, (0, 0))),
        ("mean", lambda lib, x: x.mean((1, -1))),
        ("var", lambda lib, x: lib.var(x, [0, -2])),
        ("std", lambda lib, x: x.std((1, 1))),
        ("logsumexp", lambda lib, x: lib.logsumexp(x, (0, 0))),
        ("all", lambda lib, x: lib.all(x, (0, -2))),
        ("any", lambda lib, x: x.any([1, 1])),
    ],
)
def test_a_dim_named_twice_raises(op, call):
    got = _same_error(call, op)
    assert isinstance(got, OpError) and "appears multiple times in the list of dims" in str(got)


@pytest.mark.parametrize("name", ["sum", "mean", "var", "squeeze", "norm"])
def test_a_0d_tensor_with_dims_0_and_minus_1_names_one_dim_twice(name):
    got = _same_error(lambda lib, x: getattr(lib, name)(x, dim=(0, -1)), name, X0)
    assert "appears multiple times" in str(got)


# --- max/min: a 0-d integer tensor as dim, or as other --------------------------------------


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize(
    "call",
    [
        lambda lib, f, x: f(x, lib.tensor(1), True),
        lambda lib, f, x: f(x, lib.tensor(0), keepdim=False),
        lambda lib, f, x: f(x, dim=lib.tensor(1)),
        lambda lib, f, x: f(x, dim=lib.tensor(-1), keepdim=True),
        lambda lib, f, x: f(x, np.int64(1)),
        lambda lib, f, x: f(x, 0, True),
    ],
)
def test_max_min_take_a_0d_integer_tensor_as_dim(name, call):
    for how in ("function", "method"):

        def run(lib, x, how=how):
            f = getattr(lib, name) if how == "function" else getattr(type(x), name)
            return call(lib, f, x)

        _same(run)
        ref = run(torch, torch.tensor(X2))
        got = run(funcgrad, funcgrad.tensor(X2))
        np.testing.assert_array_equal(got.indices.numpy(), ref.indices.numpy())


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("other", [0, 1.0])
def test_max_min_take_a_lone_0d_tensor_as_other(name, other):
    # PyTorch's overload f(input, other) wins for a tensor alone in second place
    _same(lambda lib, x: getattr(lib, name)(x, lib.tensor(other, dtype=lib.float64)))
    _same(lambda lib, x: getattr(x, name)(lib.tensor(other, dtype=lib.float64)))
    _same(lambda lib, x: getattr(lib, name)(x, other=lib.tensor(other, dtype=lib.float64)))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize(
    "call",
    [
        lambda lib, f, x: f(x, lib.tensor(1.0), True),  # a float tensor is not a dim
        lambda lib, f, x: f(x, dim=lib.tensor(1.0)),
        lambda lib, f, x: f(x, lib.tensor([1]), True),  # nor a 1-D one
        lambda lib, f, x: f(x, x, True),
        lambda lib, f, x: f(x, (0,)),
        lambda lib, f, x: f(x, 1.5),
        lambda lib, f, x: f(x, keepdim=True),
        lambda lib, f, x: f(x, dim=None),
        lambda lib, f, x: f(x, dim=1, other=x),
    ],
)
def test_max_min_refuse_other_argument_forms(name, call):
    got = _same_error(lambda lib, x: call(lib, getattr(lib, name), x), name)
    assert isinstance(got, ArgumentTypeError)


# --- norms ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: lib.norm(x, "fro", dim=(1, 2)),
        lambda lib, x: x.norm("fro", (0, -1), True),
        lambda lib, x: lib.norm(x, "fro", dim=(-1,)),
        lambda lib, x: lib.norm(x, "fro", dim=1),
        lambda lib, x: x.norm("fro"),
        lambda lib, x: x.norm(p=2, dim=(2, 0)),
        lambda lib, x: lib.norm(x, 1, (0, 1, 2), True),
        lambda lib, x: lib.norm(x, float("inf"), (1, 2)),
        lambda lib, x: x.norm(0.5, keepdim=True),
        lambda lib, x: x.norm(None, 1),
    ],
)
def test_norm_over_dims_of_a_batch(call):
    _same(call, X3)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x: lib.norm(x, "fro", dim=(0, 1, 2)),  # a matrix norm needs a pair
        lambda lib, x: lib.norm(x, "abc"),
        lambda lib, x: lib.norm(x, (0, 1)),  # p is a number or a string
    ],
)
def test_norm_refusals(call):
    _same_error(call, "norm", X3)


@pytest.mark.parametrize("dim", [None, (0, 1), (0, -1)])
def test_the_nuclear_norm_is_pytorchs(dim):
    # the sum of the singular values (through funcgrad.linalg.matrix_norm), with its gradient
    # (full-rank matrices: the gradient U @ V^H is unique)
    full = np.random.default_rng(0).standard_normal((2, 3, 4))
    x = full[0] if dim is None else full
    f = funcgrad.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    got, want = funcgrad.norm(f, "nuc", dim), torch.norm(t, "nuc", dim)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)
