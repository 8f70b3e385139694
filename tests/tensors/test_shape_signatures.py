"""Creation, shape and product signatures against PyTorch (issue #12's fuzzer findings).

Each test runs the same call on funcgrad and on PyTorch: both return the same
values (and gradients), or both raise, funcgrad with a `FuncgradError` that
is also the builtin exception PyTorch raises and names the operation.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad
from funcgrad.errors import FuncgradError
from tests.references import requires

torch = requires("torch")


def _both(call):
    """Run `call(lib)` on PyTorch and funcgrad: (torch's result or error, funcgrad's)."""
    out = []
    for lib in (torch, funcgrad):
        try:
            out.append(call(lib))
        except Exception as e:  # noqa: BLE001  (compared below)
            out.append(e)
    return out


def _same_error(call, op):
    ref, got = _both(call)
    assert isinstance(ref, Exception), f"PyTorch returns {ref!r}"
    assert isinstance(got, FuncgradError), f"funcgrad gives {got!r} (PyTorch: {ref!r})"
    assert isinstance(got, type(ref)), f"{type(got).__mro__} is not a {type(ref).__name__}"
    assert op in str(got)
    return got


def _same_values(call):
    ref, got = _both(call)
    assert not isinstance(ref, Exception), ref
    assert not isinstance(got, Exception), got
    assert tuple(got.shape) == tuple(ref.shape)
    assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    return ref, got


# --- no size ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_creation_without_a_size_raises(name):
    _same_error(lambda lib: getattr(lib, name)(), name)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("size", [((),), ([],)])
def test_creation_with_an_empty_size_is_0d(name, size):
    ref, got = _both(lambda lib: tuple(getattr(lib, name)(*size).shape))
    assert got == ref == ()


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "rand_like", "randn_like"])
def test_like_of_a_0d_tensor_is_0d(name):
    ref, got = _both(lambda lib: tuple(getattr(lib, name)(lib.tensor(1.0)).shape))
    assert got == ref == ()


@pytest.mark.parametrize("method", ["expand", "permute", "reshape", "view"])
def test_shape_methods_without_arguments_raise(method):
    op = "reshape" if method == "view" else method  # view is reshape here
    _same_error(lambda lib: getattr(lib.ones(2, requires_grad=True), method)(), op)


def test_0d_shape_methods_take_the_empty_shape():
    for call in (
        lambda lib: lib.tensor(2.0, requires_grad=True).permute(()),
        lambda lib: lib.tensor(2.0, requires_grad=True).expand(()),
        lambda lib: lib.tensor(2.0, requires_grad=True).expand_as(lib.tensor(1.0)),
        lambda lib: lib.tensor(2.0, requires_grad=True).T,
    ):
        _same_values(call)


# --- flip ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs",
    [((1, -3), {}), ((0,), {}), ((-1,), {}), (((0, 2),), {}), (([1],), {}), ((), {"dims": (2,)})],
)
def test_flip_takes_dims_as_varargs_or_a_sequence(args, kwargs):
    a = np.arange(24.0).reshape(2, 3, 4)
    ref, got = _same_values(lambda lib: lib.tensor(a, requires_grad=True).flip(*args, **kwargs))
    w = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)
    grads = []
    for lib in (torch, funcgrad):
        x = lib.tensor(a, requires_grad=True)
        (x.flip(*args, **kwargs) * lib.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def test_flip_without_dims_or_with_a_repeated_dim_raises():
    _same_error(lambda lib: lib.ones(2, 3).flip(), "flip")
    _same_error(lambda lib: lib.ones(2, 3).flip(0, -2), "flip")


# --- tril / triu -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tril", "triu", "tril_", "triu_"])
@pytest.mark.parametrize("shape", [(3,), (), (0,)])
def test_triangles_need_two_dimensions(name, shape):
    _same_error(lambda lib: getattr(lib.ones(shape), name)(), name.rstrip("_"))


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1, np.int64(2)])
def test_triangles_of_a_batch_match(name, diagonal):
    a = np.arange(18.0).reshape(2, 3, 3) - 8.0
    _same_values(lambda lib: getattr(lib, name)(lib.tensor(a), diagonal=diagonal))
    _same_values(lambda lib: getattr(lib.tensor(a), name)(int(diagonal)))


# --- mm / bmm --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [((3,), (3, 3)), ((3, 3), (3,)), ((2, 3), (4, 3)), ((1, 2, 3), (1, 3, 2)), ((2, 2), ())],
)
def test_mm_takes_two_matrices_with_matching_inner_sizes(a, b):
    got = _same_error(lambda lib: lib.mm(lib.ones(a), lib.ones(b)), "mm")
    _same_error(lambda lib: lib.ones(a).mm(lib.ones(b)), "mm")
    assert str(list(a)) in str(got) or str(list(b)) in str(got) or "x" in str(got)


@pytest.mark.parametrize(
    "a, b",
    [((2, 2, 3), (2, 3)), ((2, 3), (2, 3, 3)), ((2, 2, 3), (1, 3, 4)), ((2, 2, 3), (2, 4, 4))],
)
def test_bmm_takes_two_batches_of_one_size(a, b):
    _same_error(lambda lib: lib.bmm(lib.ones(a), lib.ones(b)), "bmm")
    _same_error(lambda lib: lib.ones(a).bmm(lib.ones(b)), "bmm")


@pytest.mark.parametrize("name, a, b", [("mm", (2, 3), (3, 4)), ("bmm", (2, 2, 3), (2, 3, 1))])
def test_mm_and_bmm_values_and_gradients(name, a, b):
    rng = np.random.default_rng(0)
    xa, xb = rng.standard_normal(a), rng.standard_normal(b)
    grads, names = [], []
    for lib in (torch, funcgrad):
        x, y = lib.tensor(xa, requires_grad=True), lib.tensor(xb, requires_grad=True)
        out = getattr(lib, name)(x, y)
        (out * out).sum().backward()
        grads.append((out.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
        names.append(type(out.grad_fn).__name__)
    for r, g in zip(*grads, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12)
    if name == "mm":
        assert names[0] == names[1] == "MmBackward0"


# --- cat's legacy rule -----------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes, dim",
    [
        ([(0,), (2, 3)], 1),
        ([(2, 3), (0,)], -1),
        ([(2, 1), (0,), (2, 2)], 1),
        ([(0,)], 1),
        ([(0,), (0,)], 5),
        ([(0,), (2, 3)], np.int64(1)),
    ],
)
@pytest.mark.parametrize("name", ["cat", "concatenate"])
def test_cat_skips_1d_empty_tensors(shapes, dim, name):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in shapes]
    grads = []
    for lib in (torch, funcgrad):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        d = int(dim) if lib is torch else dim
        out = getattr(lib, name)(ts, dim=d)
        (out * out).sum().backward()
        grads.append((out.detach().numpy(), *(t.grad.numpy() for t in ts)))
    for r, g in zip(*grads, strict=True):
        assert g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=1e-12)


def test_cat_promotes_over_the_skipped_tensors_and_checks_dim():
    _same_values(lambda lib: lib.cat([lib.ones(0, dtype=lib.float64), lib.ones(2, 3)], dim=1))
    _same_error(lambda lib: lib.cat([lib.ones(0), lib.ones(2, 3)], dim=2), "cat")
    _same_error(lambda lib: lib.cat([lib.ones(0, 3), lib.ones(2, 3)], dim=1), "concatenate")


# --- arange ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [(0, 1, 0), (0, 1, 0.0), (0, 1, -1), (3, 0, 1), (-3,), (0, float("inf")), (0, float("nan"))],
)
def test_arange_refuses_a_zero_or_wrong_sign_step_and_infinite_bounds(args):
    _same_error(lambda lib: lib.arange(*args), "arange")


@pytest.mark.parametrize(
    "args", [(1, 1, -1), (3, 0, -1), (5,), (2.5,), (1, 4, 0.5), (0.0, 1.0, 0.25), (1, 4.5, 1.5)]
)
@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64"])
def test_arange_values(args, dtype):
    def call(lib):
        return lib.arange(*args, **({} if dtype is None else {"dtype": getattr(lib, dtype)}))

    ref, got = _both(call)
    if isinstance(ref, Exception):  # an integer dtype truncates a step of 0.5 to 0
        assert isinstance(got, FuncgradError) and isinstance(got, ValueError)
        assert "step must be nonzero" in str(got)
    else:
        _same_values(call)


# --- clone -----------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["torch.clone", "Tensor.clone"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_clone_owns_its_values(how, requires_grad):
    seen = []
    for lib in (torch, funcgrad):
        t = lib.zeros(3)
        c = lib.clone(t) if how == "torch.clone" else t.clone()
        t.numpy()[0] = 5.0  # a write into the original's array
        seen.append(c.tolist())
        x = lib.tensor([1.0, 2.0], requires_grad=requires_grad)
        y = lib.clone(x) if how == "torch.clone" else x.clone()
        seen.append((type(y.grad_fn).__name__ if requires_grad else None, y.tolist()))
    assert seen[2:] == seen[:2] and seen[0] == [0.0, 0.0, 0.0]


# --- pow at base 0, a negative base and exponent 0 ------------------------------------------

_GRID = [(x, y) for x in (-1.0, 0.0, 0.5, 1.0, 2.0) for y in (-1.0, 0.0, 0.5, 1.0, 2.0)]


def _pow_grads(lib, x, y, kind, wx, wy):
    """First-order grads of x ** y (kind: tensor ** tensor, number ** tensor), then second order."""
    X = lib.tensor([x], dtype=lib.float64, requires_grad=True)
    Y = lib.tensor([y], dtype=lib.float64, requires_grad=True)
    out, ins = (X**Y, (X, Y)) if kind == "tt" else (x**Y, (Y,))
    first = lib.autograd.grad(out.sum(), ins, create_graph=True)
    ws = (wx, wy) if kind == "tt" else (wy,)
    loss = sum((g * w).sum() for g, w in zip(first, ws, strict=True))
    second = lib.autograd.grad(loss, ins, allow_unused=True)
    return [g.detach().numpy() for g in first], [
        np.zeros(1) if g is None else g.numpy() for g in second
    ]


@pytest.mark.parametrize("x, y", _GRID)
@pytest.mark.parametrize("kind", ["tt", "nt"])
def test_pow_first_order_is_pytorchs(x, y, kind):
    ref, got = (_pow_grads(lib, x, y, kind, 1.0, 1.0)[0] for lib in (torch, funcgrad))
    for r, g in zip(ref, got, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12)


@pytest.mark.parametrize("x, y", _GRID)
@pytest.mark.parametrize("kind, wx, wy", [("tt", 1.0, 0.0), ("tt", 0.0, 1.0), ("nt", 0.0, 1.0)])
def test_pow_second_order_is_pytorchs_or_exact(x, y, kind, wx, wy):
    ref = _pow_grads(torch, x, y, kind, wx, wy)[1]
    got = _pow_grads(funcgrad, x, y, kind, wx, wy)[1]
    for i, (r, g) in enumerate(zip(ref, got, strict=True)):
        if kind == "tt" and i == 1 and wx and y == 0.0 and x > 0:
            # d/dy (y * x**(y - 1)) at y == 0 is 1/x (PyTorch masks the term: 0)
            h = 1e-6
            exact = ((h * x ** (h - 1)) - (-h * x ** (-h - 1))) / (2 * h)
            np.testing.assert_allclose(g - r, [exact], rtol=1e-8)
        elif np.isnan(r).all() and (x == 0.0 or x < 0 and not wy):
            # PyTorch: 0 * inf through its where masks; funcgrad's are exact or an
            # undefined value's (the NaN guard's zeros, DIFFERENCES in tests/differential)
            continue
        else:
            np.testing.assert_allclose(g, r, rtol=1e-12)


@pytest.mark.parametrize("shape", [(0,), (2,)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_tensor_to_a_negative_integer_power_raises(shape, dtype):
    _same_error(lambda lib: lib.ones(shape, dtype=getattr(lib, dtype)) ** -1, "pow")
    _same_error(lambda lib: lib.ones(shape, dtype=getattr(lib, dtype)).pow_(-2), "pow")
    _same_values(lambda lib: lib.ones(shape, dtype=getattr(lib, dtype)) ** 2)


@pytest.mark.parametrize("args", [(2, 2, (0,)), (3, 2, (2,)), (0, (2,)), (-1, (0,))])
def test_randint_refuses_an_empty_range(args):
    _same_error(lambda lib: lib.randint(*args), "randint")


@pytest.mark.parametrize("args", [(5, (3, 2)), (2, 4, (6,)), (3, [2])])
def test_randint_takes_high_and_size(args):
    ref, got = _both(lambda lib: lib.randint(*args))
    assert tuple(got.shape) == tuple(ref.shape) and str(got.dtype).endswith("int64")
    low, high = (0, args[0]) if len(args) == 2 else args[:2]
    v = got.numpy()
    assert ((v >= low) & (v < high)).all()
