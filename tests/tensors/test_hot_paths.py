"""The Tensor layer's shortcuts (issue 18, W3/W6) against the general code they skip.

* `_apply`'s fast path (a primitive on one or two recorded plain tensors of one
  floating dtype, or one and a Python number) against the general loop, which
  a plain function wrapping the primitive takes: the same bits, dtype, class,
  `grad_fn` and gradients; and PyTorch 2.13's dtypes where the fast path must
  step aside (type promotion, subclasses, volatile Variables, constants).
* `funcgrad.tensor(..., requires_grad=True)` copies its data once and locks the
  copy: the tensor shares no memory with what it was made from.
* The implicit seed of `backward()` / `autograd.grad` (`ones_seed`): ones of
  the output's shape and dtype, made in C for a 0-d NumPy output.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.ops import elementwise as ew
from funcgrad.ops import linalg, reduce
from funcgrad.ops.nn import log_softmax
from funcgrad.tensors import tensor_class
from funcgrad.transforms.reverse import ones_seed
from tests.references import requires


def _general(prim):
    """`prim` behind a plain function: `_apply` then takes its general loop."""

    def call(*args, **kwargs):
        return prim(*args, **kwargs)

    return call


def _leaf(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return fg.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)


# (name, primitive, arguments builder(x, y) -> args, kwargs)
CASES = [
    ("tanh", ew.tanh, lambda x, y: ((x,), {})),
    ("exp", ew.exp, lambda x, y: ((x,), {})),
    ("negative", ew.negative, lambda x, y: ((x,), {})),
    ("add", ew.add, lambda x, y: ((x, y), {})),
    ("multiply", ew.multiply, lambda x, y: ((x, y), {})),
    ("subtract_number", ew.subtract, lambda x, y: ((x, 0.25), {})),
    ("power_int", ew.power, lambda x, y: ((x, 2), {})),
    ("power_float", ew.power, lambda x, y: ((x, 3.0), {})),
    ("divide_number", ew.divide, lambda x, y: ((x, 3), {})),
    ("matmul", linalg.matmul, lambda x, y: ((x, y.T if y.ndim == 2 else y), {})),
    ("sum_axis", reduce.sum_, lambda x, y: ((x,), {"axis": 1, "keepdims": True})),
    ("mean_all", reduce.mean, lambda x, y: ((x,), {"axis": None, "keepdims": False})),
    ("log_softmax", log_softmax, lambda x, y: ((x,), {"axis": 1})),
    # a constant tensor whose array is read-only: the graph takes the array as it is
    ("matmul_constant_first", linalg.matmul, lambda x, y: ((_constant(x, (2, 3)), x), {})),
    ("multiply_constant", ew.multiply, lambda x, y: ((x, _constant(x, (3, 4))), {})),
]


def _constant(like, shape):
    """A tensor that does not require grad, over a read-only array of `like`'s dtype."""
    values = np.random.default_rng(4).standard_normal(shape).astype(like.detach().numpy().dtype)
    return fg.from_numpy(fg.freeze(values))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, prim, build", CASES, ids=[c[0] for c in CASES])
def test_fast_path_equals_the_general_loop(name, prim, build, dtype):
    x, y = _leaf((3, 4), dtype, 1), _leaf((3, 4), dtype, 2)
    args, kwargs = build(x, y)
    fast = tensor_class._apply(prim, *args, **kwargs)
    slow = tensor_class._apply(_general(prim), *args, **kwargs)
    assert type(fast) is type(slow) is fg.Tensor
    assert fast.dtype == slow.dtype == dtype
    assert fast.detach().numpy().tobytes() == slow.detach().numpy().tobytes()
    assert type(fast.grad_fn).__name__ == type(slow.grad_fn).__name__
    assert fast.requires_grad and slow.requires_grad
    # the same graph: the same gradients, bit for bit
    grads = []
    for out in (fast, slow):
        x.grad = y.grad = None
        (out * out).sum().backward()
        grads.append(tuple(None if t.grad is None else t.grad.numpy().copy() for t in (x, y)))
    for a, b in zip(*grads, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tobytes() == b.tobytes()


def test_fast_path_steps_aside_for_promotion_subclasses_and_constants():
    torch = requires("torch")
    nn = fg.nn
    # float32 with float64: PyTorch's promotion (the fast path wants one dtype)
    a32 = fg.tensor([1.5, -2.0], requires_grad=True)
    b64 = fg.tensor([0.5, 4.0], dtype=fg.float64, requires_grad=True)
    ta32 = torch.tensor([1.5, -2.0], requires_grad=True)
    tb64 = torch.tensor([0.5, 4.0], dtype=torch.float64, requires_grad=True)
    # a 0-d tensor does not promote a tensor with dimensions of its category (PyTorch's rule,
    # not NumPy's): float64 0-d times float32 is float32
    s64 = fg.tensor(2.0, dtype=fg.float64, requires_grad=True)
    ts64 = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    pairs = ((a32 * b64, ta32 * tb64), (b64 + a32, tb64 + ta32), (s64 * a32, ts64 * ta32))
    for fg_out, t_out in pairs:
        assert str(fg_out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]
        np.testing.assert_array_equal(fg_out.detach().numpy(), t_out.detach().numpy())
    # an integer tensor with a number: the default float dtype, not the tensor's
    i = fg.tensor([1, 2])
    ti = torch.tensor([1, 2])
    assert str((i * 0.5).dtype).split(".")[-1] == str((ti * 0.5).dtype).split(".")[-1]
    # a Parameter's operations give plain tensors, as in PyTorch
    p = nn.Parameter(fg.ones(2))
    out = p * 2.0
    assert type(out) is fg.Tensor and out.grad_fn is not None
    # a constant (from_numpy, writeable) with a recorded tensor: the graph keeps its value
    arr = np.array([1.0, 2.0], dtype=np.float32)
    c = fg.from_numpy(arr)
    x = fg.tensor([3.0, 4.0], requires_grad=True)
    y = x * c
    arr[:] = 10.0
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0])
    # a volatile Variable: the result is volatile and records nothing
    v = fg.autograd.Variable(fg.ones(2), volatile=True)
    w = fg.autograd.Variable(fg.ones(2), requires_grad=True)
    r = w * v
    assert r.volatile and not r.requires_grad


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a,  # a NumPy array
        lambda a: a.tolist(),
        lambda a: fg.from_numpy(a),  # a tensor: its array is the data
        lambda a: a[::2],  # a view
    ],
    ids=["array", "list", "tensor", "view"],
)
@pytest.mark.parametrize("requires_grad", [True, False])
def test_tensor_shares_no_memory_with_its_data(make, requires_grad):
    src = np.arange(6.0)
    data = make(src)
    expected = np.array(data.detach().numpy() if isinstance(data, fg.Tensor) else data)
    t = fg.tensor(data, requires_grad=requires_grad)
    assert not np.shares_memory(t._value, src)
    src[:] = -1.0  # the data changes; the tensor does not
    np.testing.assert_array_equal(t.detach().numpy(), expected)
    if requires_grad:
        assert not t._value.flags.writeable  # the leaf's value is read-only
        assert t._node.value is t._value
        (t * t).sum().backward()
        np.testing.assert_array_equal(t.grad.numpy(), 2 * expected)
    else:
        assert t._value.flags.writeable
        t.numpy()[0] = 7.0  # its own memory, written through .numpy() as in PyTorch
        assert t[0].item() == 7.0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("kind", ["0-d", "(1,)", "(1, 1)", "NumPy scalar"])
def test_ones_seed_equals_numpy_ones(dtype, kind):
    value = {
        "0-d": np.zeros((), dtype),
        "(1,)": np.zeros((1,), dtype),
        "(1, 1)": np.zeros((1, 1), dtype),
        "NumPy scalar": dtype(0),
    }[kind]
    seed = ones_seed(value, np.dtype(dtype))
    ref = np.ones(np.shape(value), dtype)
    assert type(seed) is np.ndarray
    assert seed.shape == ref.shape and seed.dtype == ref.dtype
    assert seed.tobytes() == ref.tobytes()
    assert seed.flags.writeable and seed.base is None


def test_implicit_seed_of_backward_and_grad():
    torch = requires("torch")
    for shape in ((), (1,), (1, 1)):
        x = fg.tensor(np.full(shape, 1.5), requires_grad=True)
        tx = torch.tensor(np.full(shape, 1.5), requires_grad=True)
        (x * x).sum().backward() if shape else (x * x).backward()
        (tx * tx).sum().backward() if shape else (tx * tx).backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
        assert x.grad.numpy().flags.writeable
        y = (x * x * x).sum()
        (g,) = fg.autograd.grad(y, x, create_graph=True)
        (h,) = fg.autograd.grad(g.sum(), x)
        ty = (tx * tx * tx).sum()
        (tg,) = torch.autograd.grad(ty, tx, create_graph=True)
        (th,) = torch.autograd.grad(tg.sum(), tx)
        np.testing.assert_array_equal(g.detach().numpy(), tg.detach().numpy())
        np.testing.assert_array_equal(h.numpy(), th.numpy())
    # a leaf's own gradient is the seed: `.grad` gets an array of its own
    x = fg.tensor([2.0], requires_grad=True)
    x.backward()
    x.grad.numpy()[0] = 5.0
    x.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0])


@pytest.mark.parametrize(
    "c_shape, shape",
    [((64, 128), (128,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((2, 3), (1, 3)),
     ((2, 3, 4), (3, 1)), ((3,), ()), ((2, 3), ())],
)  # fmt: skip
def test_unbroadcast_of_leading_axes_is_the_keepdims_sum(c_shape, shape):
    # The walk's `_fit` sums leading axes without keepdims (no reshaped view): the same bits.
    from funcgrad.transforms.reverse import _fit

    c = np.random.default_rng(0).standard_normal(c_shape)
    lead = len(c_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and c_shape[lead + i] != 1
    )
    ref = np.add.reduce(c, axis=axes, keepdims=True).reshape(shape)
    got = _fit(c, shape, "test")
    assert type(got) is np.ndarray and got.shape == shape
    assert got.tobytes() == ref.tobytes()


def test_bias_gradient_is_its_own_array_and_matches_torch():
    torch = requires("torch")
    rng = np.random.default_rng(3)
    X, W, b = rng.standard_normal((8, 5)), rng.standard_normal((5, 4)), rng.standard_normal(4)
    fw, fb = fg.tensor(W, requires_grad=True), fg.tensor(b, requires_grad=True)
    tw, tb = torch.tensor(W, requires_grad=True), torch.tensor(b, requires_grad=True)
    fg.tanh(fg.from_numpy(X) @ fw + fb).sum().backward()
    torch.tanh(torch.from_numpy(X) @ tw + tb).sum().backward()
    np.testing.assert_allclose(fb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(fw.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    g = fb.grad.numpy()
    assert g.base is None and g.flags.writeable  # taken as it came, not a view
    fg.tanh(fg.from_numpy(X) @ fw + fb).sum().backward()  # accumulates in place
    np.testing.assert_allclose(g, 2 * tb.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("length", [1, 5, 31, 32, 33, 200])
def test_pruning_test_of_short_and_long_graphs(length):
    # `_needed_if_pruning` loops in Python up to `_SHORT_ORDER` nodes and picks the leaves
    # out in C beyond: both must say None exactly when every leaf is wanted.
    import funcgrad.numpy as fnp
    from funcgrad.graph import toposort
    from funcgrad.transforms import reverse

    x, c = fg.leaf(np.ones(3)), fg.leaf(np.full(3, 2.0))
    y = x
    for i in range(length):
        y = fnp.sin(y) if i % 7 else y * c  # the second leaf joins at the first step
    order = toposort(y)
    leaves = [n for n in order if n.prim is None]
    assert len(order) - len(leaves) == length
    for wanted in ({x}, {c}, {x, c}, {y}, {x, c, y}):
        got = reverse._needed_if_pruning(order, wanted)
        every_leaf = all(n in wanted for n in leaves) and all(n.prim is None for n in wanted)
        assert got == (None if every_leaf else reverse._reaching(order, wanted))
    # the walk gives the same gradients either way
    gx = fg.backward(fnp.sum(y), wrt=[x])[x]
    both = fg.backward(fnp.sum(y), wrt=[x, c])
    np.testing.assert_array_equal(gx, both[x])


# Indices of a (6, 5) tensor: advanced ones take `methods._getitem`'s shortcut; tensors as
# indices are read as their arrays, and writeable arrays are copied by normalize_index.
_INDICES = [
    lambda: (fg.from_numpy(fg.freeze(np.arange(6))), fg.tensor([0, 4, 1, 1, 3, 2])),
    lambda: (np.array([5, 0, 5]), np.array([1, 1, 2])),
    lambda: np.array([3, 3, 0]),
    lambda: [True, False, True, True, False, False],
    lambda: (slice(1, 4), [2, 0]),
    lambda: fg.tensor([[0, 1], [5, 5]]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "make_index", _INDICES, ids=["tensors", "arrays", "rows", "mask", "mixed", "2d"]
)
def test_advanced_getitem_shortcut_equals_the_general_path(make_index, dtype):
    torch = requires("torch")
    x = _leaf((6, 5), dtype, 7)
    index = make_index()
    fast = x[index]
    value_index = (
        tuple(i.numpy() if isinstance(i, fg.Tensor) else i for i in index)
        if isinstance(index, tuple)
        else index.numpy()
        if isinstance(index, fg.Tensor)
        else index
    )
    slow = tensor_class._apply(lambda a: a[value_index], x)
    assert type(fast) is type(slow) is fg.Tensor
    assert fast.dtype == slow.dtype == dtype and fast.shape == slow.shape
    assert fast.detach().numpy().tobytes() == slow.detach().numpy().tobytes()
    assert type(fast.grad_fn).__name__ == type(slow.grad_fn).__name__ == "IndexBackward0"
    grads = []
    for out in (fast, slow):
        x.grad = None
        (out * out).sum().backward()
        grads.append(x.grad.numpy().copy())
    assert grads[0].tobytes() == grads[1].tobytes()
    # and PyTorch's: the values, and the gradient where repeated rows accumulate
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    t_index = (
        tuple(
            torch.as_tensor(np.asarray(i)) if not isinstance(i, slice) else i for i in value_index
        )
        if isinstance(value_index, tuple)
        else torch.as_tensor(np.asarray(value_index))
    )
    t_out = tx[t_index]
    (t_out * t_out).sum().backward()
    np.testing.assert_array_equal(fast.detach().numpy(), t_out.detach().numpy())
    np.testing.assert_allclose(grads[0], tx.grad.numpy(), rtol=4 * np.finfo(dtype).eps)


def test_getitem_shortcut_steps_aside():
    x = _leaf((4, 3), np.float64, 8)
    rows = np.array([0, 2])
    with fg.no_grad():
        y = x[rows]
    assert y.grad_fn is None and not y.requires_grad
    p = fg.nn.Parameter(fg.ones(4, 3))
    out = p[rows]
    assert type(out) is fg.Tensor and type(out.grad_fn).__name__ == "IndexBackward0"
    c = fg.tensor([[1, 2], [3, 4]])  # an integer tensor records nothing
    assert c[np.array([1, 1])].tolist() == [[3, 4], [3, 4]]
    z = fg.tensor([[1.0 + 2.0j, 3.0]], requires_grad=True)  # complex: the general path
    assert z[np.array([0])].shape == (1, 2)
    # a writeable index array is copied: changing it later changes neither value nor gradient
    idx = np.array([3, 1])
    w = x[idx]
    idx[:] = 0
    w.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy().sum(axis=1), [0.0, 3.0, 0.0, 3.0])
