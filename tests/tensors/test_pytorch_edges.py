"""Edge cases where funcgrad must give PyTorch's answer or a clear error (issue #12).

Each case runs the same program on funcgrad and on PyTorch 2.13 (the
reference): where PyTorch returns, funcgrad returns the same shape and
values; where PyTorch raises, funcgrad raises a `FuncgradError` that is
also the built-in exception PyTorch raises (`IndexError` for a dim out of
range, `RuntimeError`, `TypeError`) and names the funcgrad operation.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.errors import FuncgradError
from tests.references import requires

# The few places funcgrad raises another built-in than PyTorch, on purpose
# (listed with the reason in docs/errors.md): randn/rand with an integer
# dtype is a dtype mistake, a DtypeError (TypeError), where PyTorch raises
# NotImplementedError from its kernel.
_OTHER_BUILTIN = {NotImplementedError: TypeError}


def _outcome(lib, make):
    try:
        return make(lib), None
    except Exception as e:  # the outcome is what is compared
        return None, e


def assert_like_torch(make):
    """Run `make(fg)` and `make(torch)`: same shape and values, or the same kind of error."""
    torch = requires("torch")
    ours, our_error = _outcome(fg, make)
    theirs, their_error = _outcome(torch, make)
    if their_error is not None:
        assert our_error is not None, f"PyTorch raised {their_error!r}; funcgrad returned {ours!r}"
        assert isinstance(our_error, FuncgradError), repr(our_error)
        builtin = next(c for c in type(their_error).__mro__ if c.__module__ == "builtins")
        builtin = _OTHER_BUILTIN.get(builtin, builtin)
        assert isinstance(our_error, builtin), (our_error, their_error)
        assert "funcgrad" in str(our_error)
        return our_error
    assert our_error is None, f"PyTorch returned {theirs!r}; funcgrad raised {our_error!r}"
    if isinstance(theirs, torch.Tensor):
        assert tuple(ours.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(np.asarray(ours.detach()), theirs.detach().numpy(), rtol=1e-6)
    else:
        assert ours == theirs
    return ours


# --- item 1: dims, sizes, devices and type names -------------------------------------------

DIMS = {
    "0-d transpose(0, 0)": lambda t: t.tensor(1.0).transpose(0, 0),
    "0-d transpose(0, -1)": lambda t: t.tensor(1.0).transpose(0, -1),
    "0-d transpose(0, 1)": lambda t: t.tensor(1.0).transpose(0, 1),
    "0-d squeeze(0)": lambda t: t.tensor(1.0).squeeze(0),
    "0-d squeeze(-1)": lambda t: t.tensor(1.0).squeeze(-1),
    "0-d squeeze(1)": lambda t: t.tensor(1.0).squeeze(1),
    "squeeze(5)": lambda t: t.ones(2).squeeze(5),
    "squeeze a size-2 dim": lambda t: t.ones(2, 1).squeeze(0),
    "squeeze a tuple": lambda t: t.ones(1, 2, 1).squeeze((0, 2)),
    "size(5)": lambda t: t.ones(2).size(5),
    "size(-1)": lambda t: t.ones(2, 3).size(-1),
    "0-d size(0)": lambda t: t.tensor(1.0).size(0),
    "unsqueeze(3) of 1-d": lambda t: t.ones(4).unsqueeze(3),
    "unsqueeze(-3) of 1-d": lambda t: t.ones(4).unsqueeze(-3),
    "unsqueeze(-2) of 1-d": lambda t: t.ones(4).unsqueeze(-2),
    "0-d unsqueeze(-1)": lambda t: t.tensor(1.0).unsqueeze(-1),
    "0-d unsqueeze(1)": lambda t: t.tensor(1.0).unsqueeze(1),
    "transpose(0, 5)": lambda t: t.ones(2, 3).transpose(0, 5),
    "flip(1) of 1-d": lambda t: t.ones(2).flip(1),
    "0-d flip(0)": lambda t: t.tensor(2.0).flip(0),
    "flip((0, 0))": lambda t: t.ones(2).flip((0, 0)),
    "flatten(0, 5)": lambda t: t.ones(2, 3).flatten(0, 5),
    "0-d flatten(0, -1)": lambda t: t.tensor(1.0).flatten(0, -1),
    "0-d flatten(0, 1)": lambda t: t.tensor(1.0).flatten(0, 1),
    "0-d sum(0)": lambda t: t.tensor(2.0).sum(0),
    "0-d sum(1)": lambda t: t.tensor(2.0).sum(1),
    "sum(2) of 2-d": lambda t: t.ones(2, 3).sum(2),
    "sum(1.0)": lambda t: t.ones(2, 3).sum(1.0),
    "cat along dim 2 of 2-d": lambda t: t.cat([t.ones(2, 3)], 2),
    "stack along dim 3 of 1-d": lambda t: t.stack([t.ones(2)], 3),
    "permute(0, 2)": lambda t: t.ones(2, 2).permute(0, 2),
    "softmax(2) of 2-d": lambda t: t.ones(2, 3).softmax(2),
}


@pytest.mark.parametrize("make", DIMS.values(), ids=DIMS.keys())
def test_dims_in_and_out_of_range_are_pytorchs(make):
    assert_like_torch(make)


def test_a_dim_out_of_range_is_an_index_error_naming_the_op_and_the_range():
    with pytest.raises(IndexError, match=r"funcgrad\.squeeze: .*in range of \[-1, 0\], but got 5"):
        fg.ones(2).squeeze(5)
    with pytest.raises(IndexError, match=r"funcgrad\.Tensor\.size: .*\[-1, 0\], but got 5"):
        fg.ones(2).size(5)
    with pytest.raises(fg.AxisError, match=r"funcgrad\.sum\(.*\[-2, 1\], but got 2"):
        fg.numpy.sum(np.ones((2, 3)), axis=2)


# Every dim-taking method with a NumPy integer and a 0-d integer tensor as its dim.
DIM_METHODS = {
    "sum": lambda x, d: x.sum(d),
    "mean": lambda x, d: x.mean(d),
    "prod": lambda x, d: x.prod(d),
    "cumsum": lambda x, d: x.cumsum(d),
    "softmax": lambda x, d: x.softmax(d),
    "log_softmax": lambda x, d: x.log_softmax(d),
    "logsumexp": lambda x, d: x.logsumexp(d),
    "var": lambda x, d: x.var(d),
    "std": lambda x, d: x.std(d),
    "max": lambda x, d: x.max(dim=d).values,
    "min": lambda x, d: x.min(dim=d).values,
    "argmax": lambda x, d: x.argmax(d),
    "argmin": lambda x, d: x.argmin(d),
    "all": lambda x, d: x.all(d),
    "any": lambda x, d: x.any(d),
    "flip": lambda x, d: x.flip(d),
    "squeeze": lambda x, d: x.unsqueeze(1).squeeze(d),
    "unsqueeze": lambda x, d: x.unsqueeze(d),
    "transpose": lambda x, d: x.transpose(d, 0),
    "flatten": lambda x, d: x.flatten(0, d),
    "permute": lambda x, d: x.permute(d, 0),
    "size": lambda x, d: x.size(d),
}


@pytest.mark.parametrize("kind", ["numpy int64", "0-d tensor", "negative numpy int"])
@pytest.mark.parametrize("name", DIM_METHODS, ids=str)
def test_dims_of_any_integer_type(name, kind):
    if name in ("max", "min") and kind == "0-d tensor":
        # TODO(#12): x.max(dim=tensor(1)) is a reduction in PyTorch; funcgrad takes any
        # tensor second argument of max/min as the elementwise `other` (funcgrad.max is
        # the reductions' file).
        pytest.skip("max/min(dim=<0-d tensor>) is taken as the elementwise other")
    method = DIM_METHODS[name]

    def make(t):
        x = t.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])
        d = {
            "numpy int64": np.int64(1),
            "0-d tensor": t.tensor(1),
            "negative numpy int": np.int32(-1),
        }[kind]
        return method(x, d)

    assert_like_torch(make)


def test_cat_and_stack_take_numpy_integer_dims():
    assert_like_torch(lambda t: t.cat([t.ones(2, 1), t.zeros(2, 2)], np.int64(1)))
    assert_like_torch(lambda t: t.stack([t.ones(2), t.zeros(2)], np.int64(1)))


def test_functional_axes_take_numpy_integers():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(fg.numpy.sum(x, np.int64(1)), x.sum(1))
    np.testing.assert_array_equal(fg.numpy.sum(x, (np.int64(0), np.int32(1))), x.sum())
    g = fg.grad(lambda a: fg.numpy.sum(fg.numpy.max(a, np.int64(1))))(x)
    np.testing.assert_array_equal(g, [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    with pytest.raises(TypeError, match="axis must be an integer, got float"):
        fg.numpy.sum(x, 1.0)


SIZES = {
    "ones(2.5)": lambda t: t.ones(2.5),
    "ones((2.0,))": lambda t: t.ones((2.0,)),
    "zeros(2, 1.5)": lambda t: t.zeros(2, 1.5),
    "ones(-1)": lambda t: t.ones(-1),
    "ones(np.int64(2))": lambda t: t.ones(np.int64(2)),
    "ones(tensor(2))": lambda t: t.ones(t.tensor(2)),
    "ones(tensor(2.5))": lambda t: t.ones(t.tensor(2.5)),
    "sum(tensor(1.0))": lambda t: t.ones(2, 3).sum(t.tensor(1.0)),
    "unsqueeze(tensor(0.0))": lambda t: t.ones(2).unsqueeze(t.tensor(0.0)),
    "ones([2, 3])": lambda t: t.ones([2, 3]),
    "randn(2, dtype=int64)": lambda t: t.randn(2, dtype=t.int64).shape,
    "rand(2, dtype=int64)": lambda t: t.rand(2, dtype=t.int64).shape,
    "randn(2, dtype=bool)": lambda t: t.randn(2, dtype=t.bool).shape,
    "randn_like(int64)": lambda t: t.randn_like(t.ones(2, dtype=t.int64)).shape,
    "rand_like(int64)": lambda t: t.rand_like(t.ones(2, dtype=t.int64)).shape,
    "randn(2, dtype=float64)": lambda t: t.randn(2, dtype=t.float64).shape,
    "reshape(2.0, 3)": lambda t: t.ones(6).reshape(2.0, 3),
    "view(np.int64(2), 3)": lambda t: t.ones(6).view(np.int64(2), 3),
}


@pytest.mark.parametrize("make", SIZES.values(), ids=SIZES.keys())
def test_sizes_are_integers(make):
    assert_like_torch(make)


def test_the_meta_device_is_refused_clearly():
    requires("torch")
    for make in (lambda: fg.ones(2).to("meta"), lambda: fg.device("meta")):
        with pytest.raises(fg.DeviceError, match="'meta' device is not supported"):
            make()


@pytest.mark.parametrize("spelling", ["torch", "funcgrad"])
@pytest.mark.parametrize("name", ["DoubleTensor", "FloatTensor", "LongTensor", "IntTensor"])
def test_type_takes_type_names(spelling, name):
    torch = requires("torch")
    theirs = torch.tensor([1.5, -2.0]).type(f"torch.{name}")
    ours = fg.tensor([1.5, -2.0]).type(f"{spelling}.{name}")
    assert ours.type() == f"funcgrad.{name}" and theirs.type() == f"torch.{name}"
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_type_without_argument_and_to_the_same_type():
    torch = requires("torch")
    for ours, theirs in [(fg.ones(2), torch.ones(2)), (fg.ones(2).long(), torch.ones(2).long())]:
        assert ours.type().split(".")[1] == theirs.type().split(".")[1]
    x = fg.ones(2, requires_grad=True)
    assert x.type("torch.FloatTensor") is x and x.type(fg.float32) is x
    y = x.type("torch.DoubleTensor")
    y.sum().backward()
    assert y.dtype == np.float64 and x.grad.dtype == np.float32
    with pytest.raises(TypeError, match="invalid type 'torch.FooTensor'"):
        x.type("torch.FooTensor")


# --- item 2: shapes and data PyTorch rejects ---------------------------------------------

SHAPES = {
    "flatten(1, 0)": lambda t: t.ones(2, 3).flatten(1, 0),
    "flatten(1, 1)": lambda t: t.ones(2, 3, 4).flatten(1, 1),
    "flatten(1)": lambda t: t.ones(2, 3, 4).flatten(1),
    "expand(-1, 2) of (3,)": lambda t: t.ones(3).expand(-1, 2),
    "expand(-1, 2) of (2,)": lambda t: t.ones(2).expand(-1, 2),
    "expand(2, -1) of (3,)": lambda t: t.ones(3).expand(2, -1),
    "expand(-1, 2) of (3, 1)": lambda t: t.ones(3, 1).expand(-1, 2),
    "expand(2) of (3,)": lambda t: t.ones(3).expand(2),
    "expand(3) of (2, 3)": lambda t: t.ones(2, 3).expand(3),
    "expand(-2) of (3,)": lambda t: t.ones(3).expand(-2),
    "expand(0) of (1,)": lambda t: t.ones(1).expand(0),
    "where with a float condition": lambda t: t.where(t.ones(2), t.ones(2), t.zeros(2)),
    "where with an int condition": lambda t: t.where(
        t.ones(2, dtype=t.int64), t.ones(2), t.zeros(2)
    ),
    "where with a bool condition": lambda t: t.where(
        t.tensor([True, False]), t.ones(2), t.zeros(2)
    ),
    "tensor(None)": lambda t: t.tensor(None),
    "tensor([1.0, None])": lambda t: t.tensor([1.0, None]),
    'tensor("abc")': lambda t: t.tensor("abc"),
    "tensor(object())": lambda t: t.tensor(object()),
    "tensor of ragged lists": lambda t: t.tensor([[1.0], [1.0, 2.0]]),
    "reshape(-1, -1)": lambda t: t.ones(4).reshape(-1, -1),
    "view(3) of 4 elements": lambda t: t.ones(4).view(3),
    "permute(0, 0)": lambda t: t.ones(2, 2).permute(0, 0),
    "permute(0) of 2-d": lambda t: t.ones(2, 2).permute(0),
    "permute(-1, 0)": lambda t: t.ones(2, 3).permute(-1, 0),
    "cat of 2-d and 1-d": lambda t: t.cat([t.ones(2, 3), t.ones(3)]),
    "cat of mismatched sides": lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]),
    "cat of a 0-d tensor": lambda t: t.cat([t.tensor(1.0)]),
    "stack of two shapes": lambda t: t.stack([t.ones(2), t.ones(3)]),
}


@pytest.mark.parametrize("make", SHAPES.values(), ids=SHAPES.keys())
def test_shapes_pytorch_rejects_are_rejected(make):
    assert_like_torch(make)


def test_shape_messages_name_the_operation_and_the_fix():
    with pytest.raises(RuntimeError, match=r"funcgrad\.flatten: .*start_dim cannot come after"):
        fg.ones(2, 3).flatten(1, 0)
    with pytest.raises(RuntimeError, match=r"isn't allowed in a leading, non-existing dimension 0"):
        fg.ones(2).expand(-1, 2)
    with pytest.raises(RuntimeError, match=r"funcgrad\.where: .*boolean.*float32.*x > 0"):
        fg.where(fg.ones(2), fg.ones(2), fg.zeros(2))
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        fg.tensor(None)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        fg.tensor("abc")
    # PyTorch's words (its kernel and dtype), then funcgrad's dtype and the fix
    with pytest.raises(
        fg.DtypeError,
        match=r"funcgrad\.randn: \"normal_kernel_cpu\" not implemented for 'Long' \(dtype int64"
        r".*use a float dtype",
    ) as info:
        fg.randn(2, dtype=fg.int64)
    assert isinstance(info.value, NotImplementedError)  # what PyTorch raises


# --- item 5: grad mode restores what each block saved ------------------------------------

_MODES = {
    "no_grad": lambda t: t.no_grad(),
    "enable_grad": lambda t: t.enable_grad(),
    "set_grad_enabled(False)": lambda t: t.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda t: t.set_grad_enabled(True),
    "inference_mode": lambda t: t.inference_mode(),
    "inference_mode(False)": lambda t: t.inference_mode(False),
}


def _interleaved(t, first, second, start, order):
    """Two generators, each inside one `with` block, stepped and closed in `order`."""

    def gen(make):
        with make(t):
            yield t.is_grad_enabled()
            yield t.is_grad_enabled()

    t.set_grad_enabled(start)
    gens = {}
    try:
        gens = {"a": gen(_MODES[first]), "b": gen(_MODES[second])}
        seen = []
        for name in order:
            seen.append(next(gens[name], "done"))
            seen.append((t.is_grad_enabled(), t.is_inference_mode_enabled()))
        return seen
    finally:
        for g in gens.values():
            g.close()  # an open block would restore its mode whenever it is collected
        t.set_grad_enabled(True)


@pytest.mark.parametrize("order", ["abaabb", "ababab", "abbbaa"])
@pytest.mark.parametrize("start", [True, False])
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("no_grad", "enable_grad"),
        ("enable_grad", "no_grad"),
        ("no_grad", "set_grad_enabled(True)"),
        ("set_grad_enabled(False)", "enable_grad"),
        ("inference_mode", "enable_grad"),
        ("no_grad", "inference_mode"),
        ("inference_mode", "inference_mode(False)"),
        ("no_grad", "inference_mode(False)"),
    ],
)
def test_with_blocks_exiting_out_of_order_restore_what_they_saved(first, second, start, order):
    torch = requires("torch")
    results = {}

    def run(t):
        results[t.__name__] = _interleaved(t, first, second, start, order)

    # NOTE: modes are per thread: a fresh thread each, since blocks exiting out of
    # order can leave inference mode on (in PyTorch too), with no public way to reset it.
    for t in (fg, torch):
        worker = threading.Thread(target=run, args=(t,))
        worker.start()
        worker.join()
    assert results["funcgrad"] == results["torch"]


def test_a_reused_instance_still_nests():
    ng = fg.no_grad()
    with fg.enable_grad(), ng:
        with ng:
            assert not fg.is_grad_enabled()
        assert not fg.is_grad_enabled()
    assert fg.is_grad_enabled()

    @fg.no_grad()
    def depth(n):
        return depth(n - 1) if n else fg.is_grad_enabled()

    assert depth(3) is False and fg.is_grad_enabled()


# --- item 3: clamp with tensor bounds: inputs with gradients -------------------------------

# x against lo and hi with every tie and order: below, at and above each bound, lo > hi, lo == hi.
_X = [-2.0, 0.0, 1.0, 2.0, 3.0, 0.5, -1.0, 1.0, 0.5, 5.0, float("nan"), 1.0]
_LO = [0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0, 1.0, 1.0, 3.0, 0.0, float("nan")]
_HI = [1.0, 1.0, 1.0, 2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0]

CLAMPS = {
    "clamp(x, lo, hi)": lambda t, x, lo, hi: t.clamp(x, lo, hi),
    "clamp(min=lo)": lambda t, x, lo, hi: x.clamp(min=lo),
    "clamp(max=hi)": lambda t, x, lo, hi: x.clamp(max=hi),
    "clip(x, lo, hi)": lambda t, x, lo, hi: t.clip(x, lo, hi),
    "x.clip(lo, None)": lambda t, x, lo, hi: x.clip(lo, None),
    "clamp_min(lo)": lambda t, x, lo, hi: x.clamp_min(lo),
    "clamp_max(hi)": lambda t, x, lo, hi: x.clamp_max(hi),
    "torch.clamp_min(x, lo)": lambda t, x, lo, hi: t.clamp_min(x, lo),
    "torch.clamp_max(x, 0.5)": lambda t, x, lo, hi: t.clamp_max(x, 0.5),
    "clamp_min(0.5)": lambda t, x, lo, hi: x.clamp_min(0.5),
    "clamp(0.0, 1.0)": lambda t, x, lo, hi: t.clamp(x, 0.0, 1.0),
    "clamp(1.0, 0.0)": lambda t, x, lo, hi: t.clamp(x, 1.0, 0.0),
    "clamp(lo[:1], hi) broadcast": lambda t, x, lo, hi: t.clamp(x, lo[:1], hi),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make", CLAMPS.values(), ids=CLAMPS.keys())
def test_clamp_values_gradients_and_grad_fn_are_pytorchs(make, dtype):
    torch = requires("torch")
    results = []
    for t in (fg, torch):
        dt = getattr(t, dtype)
        x, lo, hi = (t.tensor(v, dtype=dt, requires_grad=True) for v in (_X, _LO, _HI))
        y = make(t, x, lo, hi)
        (y * t.arange(1, 13, dtype=dt)).sum().backward()
        grads = [None if v.grad is None else np.asarray(v.grad) for v in (x, lo, hi)]
        results.append((np.asarray(y.detach()), grads, type(y.grad_fn).__name__, y.dtype))
    (ours, our_grads, our_fn, our_dtype), (theirs, their_grads, their_fn, _) = results
    np.testing.assert_array_equal(ours, theirs)
    assert our_fn == their_fn and str(our_dtype) == dtype
    for a, b in zip(our_grads, their_grads, strict=True):
        assert (a is None) == (b is None) or not np.any(a if b is None else b)
        if a is not None and b is not None:
            np.testing.assert_array_equal(a, b)


def test_clamp_in_place_with_tensor_bounds_and_without_bounds():
    torch = requires("torch")
    for t in (fg, torch):
        x = t.tensor([-1.0, 0.5, 2.0])
        x.clamp_(min=t.zeros(3), max=t.ones(3))
        assert x.tolist() == [0.0, 0.5, 1.0]
        x.clamp_min_(t.full((3,), 0.75))
        assert x.tolist() == [0.75, 0.75, 1.0]
    assert_like_torch(lambda t: t.clamp(t.ones(2)))


def test_clamp_with_tensor_bounds_has_second_order_gradients():
    torch = requires("torch")
    out = []
    for t in (fg, torch):
        x = t.tensor([0.5, 2.0, -3.0], requires_grad=True)
        lo = t.tensor([1.0, 1.0, -4.0], requires_grad=True)
        (g,) = t.autograd.grad((x.clamp(min=lo) ** 2).sum(), x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        out.append((np.asarray(g.detach()), np.asarray(gg)))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def _central_differences(f, args, i, eps=1e-6):
    grad = np.zeros_like(args[i])
    for k in np.ndindex(args[i].shape):
        up = [a.copy() for a in args]
        down = [a.copy() for a in args]
        up[i][k] += eps
        down[i][k] -= eps
        grad[k] = (f(*up) - f(*down)) / (2 * eps)
    return grad


@pytest.mark.parametrize(
    "bounds", ["both", "min", "max", "reversed"], ids=["lo-hi", "lo", "hi", "lo>hi"]
)
def test_functional_clip_with_node_bounds_matches_finite_differences(bounds):
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, (4, 3))
    lo = rng.uniform(-2, -0.5, (3,))
    hi = rng.uniform(0.5, 2, (4, 1))
    if bounds == "reversed":
        lo, hi = hi.ravel()[:3] + 1.0, lo[:, None][:1] - 1.0
    w = rng.uniform(-1, 1, (4, 3))

    def f(x, lo, hi):
        a_min = None if bounds == "max" else lo
        a_max = None if bounds == "min" else hi
        return fg.numpy.sum(fg.numpy.clip(x, a_min, a_max) * w)

    grads = fg.grad(f, argnums=(0, 1, 2))(x, lo, hi)
    plain = lambda *a: float(f(*a))  # noqa: E731
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _central_differences(plain, [x, lo, hi], i), atol=1e-6)


def test_functional_clip_with_number_bounds_is_the_static_primitive():
    x = fg.leaf(np.array([-2.0, 0.0, 0.5, 1.0, 3.0]))
    y = fg.numpy.clip(x, 0.0, np.float64(1.0))
    assert y.prim.name == "clip" and dict(y.params) == {"a_min": 0.0, "a_max": 1.0}
    np.testing.assert_array_equal(fg.backward(fg.numpy.sum(y))[x], [0, 1, 1, 1, 0])


# --- item 4: gradients at the edge points: PyTorch's numbers ------------------------------

_INF, _NAN = float("inf"), float("nan")
EDGES = {
    "relu(0)": (lambda t, x: t.relu(x), [0.0]),
    "abs(0)": (lambda t, x: t.abs(x), [0.0]),
    "abs(-0)": (lambda t, x: t.abs(x), [-0.0]),
    "abs(nan)": (lambda t, x: t.abs(x), [_NAN]),
    "maximum tie": (lambda t, x, y: t.maximum(x, y), [1.0, 1.0]),
    "minimum tie": (lambda t, x, y: t.minimum(x, y), [1.0, 1.0]),
    "max(x, y) tie": (lambda t, x, y: t.max(x, y), [1.0, 1.0]),
    "atan2(0, 0)": (lambda t, y, x: t.atan2(y, x), [0.0, 0.0]),
    "atan2(0, -0)": (lambda t, y, x: t.atan2(y, x), [0.0, -0.0]),
    "atan2(-0, 0)": (lambda t, y, x: t.atan2(y, x), [-0.0, 0.0]),
    "sqrt(0)": (lambda t, x: t.sqrt(x), [0.0]),
    "pow(0, 0)": (lambda t, x, y: t.pow(x, y), [0.0, 0.0]),
    "pow(0, 2)": (lambda t, x, y: t.pow(x, y), [0.0, 2.0]),
    "pow(0, 0.5)": (lambda t, x, y: t.pow(x, y), [0.0, 0.5]),
    "pow(0, -1)": (lambda t, x, y: t.pow(x, y), [0.0, -1.0]),
    "pow(-1, 2)": (lambda t, x, y: t.pow(x, y), [-1.0, 2.0]),
    "pow(-1, 0.5)": (lambda t, x, y: t.pow(x, y), [-1.0, 0.5]),
    "x ** 0 at 0": (lambda t, x: x**0, [0.0]),
    "x ** 0.5 at 0": (lambda t, x: x**0.5, [0.0]),
    "x ** -1 at 0": (lambda t, x: x**-1, [0.0]),
    "0 ** x at 0": (lambda t, x: 0.0**x, [0.0]),
    "2 ** x": (lambda t, x: 2.0**x, [0.0]),
    "log(0)": (lambda t, x: t.log(x), [0.0]),
    "log(-1)": (lambda t, x: t.log(x), [-1.0]),
    "log1p(-1)": (lambda t, x: t.log1p(x), [-1.0]),
    "sign(0)": (lambda t, x: t.sign(x), [0.0]),
    "1 / 0": (lambda t, x, y: x / y, [1.0, 0.0]),
    "0 / 0": (lambda t, x, y: x / y, [0.0, 0.0]),
    "asin(1)": (lambda t, x: t.asin(x), [1.0]),
    "clamp at a bound": (lambda t, x: t.clamp(x, 0.0, 1.0), [0.0]),
    "sigmoid(inf)": (lambda t, x: t.sigmoid(x), [_INF]),
}


def _edge(t, f, values):
    xs = [t.tensor(v, dtype=t.float64, requires_grad=True) for v in values]
    y = f(t, *xs)
    y.sum().backward()
    return [float(y)] + [float(x.grad) for x in xs]


@pytest.mark.parametrize(("f", "values"), EDGES.values(), ids=EDGES.keys())
def test_gradients_at_edge_points_are_pytorchs_with_signed_zeros(f, values):
    torch = requires("torch")
    with np.errstate(all="ignore"):  # NumPy warns where PyTorch's forward is inf or NaN
        ours = _edge(fg, f, values)
    theirs = _edge(torch, f, values)
    assert repr(ours) == repr(theirs)  # repr: -0.0 and nan compare too


# Deliberate differences, kept on purpose (docs/errors.md, "Coming from PyTorch"): the NaN
# guard gives an exact 0 where the cotangent is 0, and an unselected NaN branch of a mask
# (relu, maximum) gets 0, where PyTorch computes 0 * inf = NaN or passes the NaN on.
NAN_GUARD = {
    "sqrt(0) * 0": (lambda t, x: t.sqrt(x) * 0, [0.0], [0.0, 0.0]),
    "where(x > 0, sqrt(x), 0) at 0": (
        lambda t, x: t.where(x > 0, t.sqrt(x), t.zeros((), dtype=t.float64)),
        [0.0],
        [0.0, 0.0],
    ),
    "relu(nan)": (lambda t, x: t.relu(x), [_NAN], [_NAN, 0.0]),
    "maximum(nan, 1)": (lambda t, x, y: t.maximum(x, y), [_NAN, 1.0], [_NAN, 0.0, 0.0]),
}


@pytest.mark.parametrize(("f", "values", "ours"), NAN_GUARD.values(), ids=NAN_GUARD.keys())
def test_nan_guard_differences_are_deliberate_and_still_differ(f, values, ours):
    torch = requires("torch")
    assert repr(_edge(fg, f, values)) == repr(ours)
    assert repr(_edge(torch, f, values)) != repr(ours), "PyTorch agrees now: drop the entry"


def test_functional_atan2_and_power_at_edge_points():
    # One rule serves both layers: HIPS autograd 1.9.1 gives NaN (with a RuntimeWarning)
    # for atan2 at the origin and for d/dy 0 ** y; funcgrad gives PyTorch's numbers.
    with np.errstate(all="raise"):  # no RuntimeWarning from the rule either
        gy, gx = fg.grad(lambda y, x: fg.numpy.arctan2(y, x), argnums=(0, 1))(0.0, 0.0)
        assert (gy, gx) == (0.0, 0.0) and np.signbit(gx) and not np.signbit(gy)
    g = fg.grad(lambda y: fg.numpy.sum(fg.numpy.power(np.array([0.0, 0.0, 2.0]), y)))
    with np.errstate(divide="ignore"):  # the forward 0 ** -1
        d = g(np.array([2.0, -1.0, 0.0]))
    np.testing.assert_array_equal(d, [0.0, -np.inf, np.log(2.0)])
    with np.errstate(all="raise"):
        assert np.isnan(fg.grad(lambda y: fg.numpy.power(-1.0, y))(2.0))


def test_index_add_into_an_empty_dimension_checks_the_index():
    """An index into an empty 1-D input is refused, as in PyTorch (funcgrad returned the input,
    dropping the source); an empty index is fine (found by the fuzz case of index_add)."""
    torch = requires("torch")
    for lib, error in ((torch, IndexError), (fg, fg.errors.IndexingError)):
        with pytest.raises(error):
            lib.zeros(0).index_add(0, lib.tensor([0]), lib.tensor([0.5]))
        assert lib.zeros(0).index_add(0, lib.tensor([], dtype=lib.long), lib.tensor([])).shape == (
            0,
        )
        assert lib.zeros(0, 3).index_add(1, lib.tensor([2]), lib.zeros(0, 1)).shape == (0, 3)
        # PyTorch checks no index of an empty input of more dimensions
        assert lib.zeros(0, 1).index_add(0, lib.tensor([5]), lib.zeros(1, 1)).shape == (0, 1)
    with pytest.raises(
        fg.errors.IndexingError, match="index 0 is out of bounds for dimension 0 with size 0"
    ):
        fg.zeros(0).index_add_(0, fg.tensor([0]), fg.tensor([0.5]))
