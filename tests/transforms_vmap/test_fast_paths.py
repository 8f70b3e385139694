"""vmap's fast paths give what its general paths give.

* The interpreter as the thread's only observer (`observe.observed_call`
  asks its `call_alone`, no closures): a primitive on plain arrays inside a
  vmapped function computes as outside, and a profile opened inside the
  vmapped function (two observers: the general path) still sees its calls
  and the walk's nodes.
* The first-order VJP rules that run once on the batch's stacked arrays
  (`_stacked_twin`: W9's matmul, tanh, log_softmax, getitem) give what the
  general path (the rule's primitives applied one by one to batched values)
  gives, bit for bit, and a loop of `grad` within rounding; a higher
  derivative inside vmap takes the general path.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.autograd import profiler
from funcgrad.ops import observe, registry
from funcgrad.transforms import batching
from funcgrad.transforms.pytree import tree_flatten

RNG = np.random.default_rng(20)


def test_the_interpreter_observes_calls_only_and_plain_primitives_compute_as_outside():
    a = RNG.standard_normal(5)
    seen = {}

    def f(x):
        seen["current"] = observe.current()
        seen["alone"] = registry.get("exp")(a)  # no batched value: computed as usual
        seen["node"] = fnp.exp(fg.leaf(a)).value  # a plain node inside the vmap
        return fnp.exp(x) * seen["alone"]

    xs = RNG.standard_normal((3, 5))
    got = fg.vmap(f)(xs)
    assert seen["current"] == ()  # the walk and the node makers do not call it
    assert type(seen["alone"]) is np.ndarray
    np.testing.assert_array_equal(seen["alone"], np.exp(a))
    np.testing.assert_array_equal(seen["node"], np.exp(a))
    np.testing.assert_array_equal(got, np.exp(xs) * np.exp(a))
    assert observe.active == 0 and observe.current() == ()


def test_a_profile_inside_a_vmap_sees_plain_calls_and_walks_on_the_general_path():
    a = RNG.standard_normal(4)
    counts = {}

    def f(x):
        with profiler.profile() as prof:
            assert len(observe.current()) == 1  # the profile; the interpreter is not listed
            y = fnp.sin(x) + fnp.exp(a)  # a batched sin, a plain exp
            g = fg.grad(lambda v: fnp.sum(fnp.tanh(v * x)))(a)
        counts.update({row.key: row.count for row in prof.key_averages()})
        return y + g

    xs = RNG.standard_normal((3, 4))
    got = fg.vmap(f)(xs)
    want = np.stack(
        [np.sin(x) + np.exp(a) + x * (1.0 - np.tanh(a * x) ** 2) for x in xs]  # d/dv
    )
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    # the plain exp reaches the profile through the interpreter's `call` (run()); batched
    # applications are the interpreter's own (as before); the walk's nodes are reported
    assert counts["exp"] == 1
    assert counts["TanhBackward0"] == 1 and counts["MulBackward0"] == 1
    assert observe.active == 0 and observe.current() == ()


# --- first-order VJP rules on the stacked batch (`batching.FIRST_ORDER_STACKED`) -----------------


def _both(fn, *args):
    """`fn(*args)` with the stacked first-order rules, and with the general path."""
    assert batching.FIRST_ORDER_STACKED
    fast = fn(*args)
    batching.FIRST_ORDER_STACKED = False
    try:
        general = fn(*args)
    finally:
        batching.FIRST_ORDER_STACKED = True
    return fast, general


def _assert_same(fast, general):
    fast, general = tree_flatten(fast)[0], tree_flatten(general)[0]
    assert len(fast) == len(general)
    for a, b in zip(fast, general, strict=True):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)  # bit for bit: the same NumPy operations


def _mlp_params(dtype, d_in=6, d_hid=9, d_out=4):
    return (
        (RNG.standard_normal((d_in, d_hid)) / np.sqrt(d_in)).astype(dtype),
        (RNG.standard_normal(d_hid) * 0.1).astype(dtype),
        (RNG.standard_normal((d_hid, d_out)) / np.sqrt(d_hid)).astype(dtype),
        (RNG.standard_normal(d_out) * 0.1).astype(dtype),
    )


def _mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = fnp.tanh(fnp.matmul(x, w1) + b1)
    z = fnp.matmul(h, w2) + b2
    return -fg.nn.functional.log_softmax(z, dim=0)[y]  # (as W9: axis 0, shifted for the stack)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("x_axis", [0, 1])
def test_per_example_gradients_of_an_mlp_are_those_of_the_general_path_and_of_a_loop(dtype, x_axis):
    params = _mlp_params(dtype)
    xs = RNG.standard_normal((7, 6)).astype(dtype)
    ys = RNG.integers(0, 4, 7)
    per_example = fg.vmap(fg.grad(_mlp_loss), in_axes=(None, x_axis, 0))
    batch = xs if x_axis == 0 else np.ascontiguousarray(xs.T)
    fast, general = _both(per_example, params, batch, ys)
    _assert_same(fast, general)
    one = fg.grad(_mlp_loss)
    loop = [one(params, xs[i], ys[i]) for i in range(7)]
    tol = 1e-12 if dtype == np.float64 else 2e-5
    for k in range(4):
        assert fast[k].dtype == dtype and fast[k].shape == (7, *params[k].shape)
        np.testing.assert_allclose(fast[k], np.stack([g[k] for g in loop]), rtol=tol, atol=tol)


def test_per_example_matrices_softmax_and_a_static_index():
    # x of each example a matrix (a sequence of 5 rows): matmul's matrix-matrix case, the
    # batch on axis 2; softmax over the last axis; a static index (x[1], x[:, 0])
    w = RNG.standard_normal((3, 4))
    xs = RNG.standard_normal((5, 3, 6))  # example k is xs[:, :, k]

    def f(w, x):
        p = fg.nn.functional.softmax(fnp.sin(fnp.matmul(x, w)), dim=-1)
        return fnp.sum(p[1] * p[2]) * fnp.sum(fnp.exp(p[:, 0])) + fnp.sum(fnp.cos(p))

    per_example = fg.vmap(fg.grad(f, argnums=(0, 1)), in_axes=(None, 2))
    fast, general = _both(per_example, w, xs)
    _assert_same(fast, general)
    for k in range(6):
        want = fg.grad(f, argnums=(0, 1))(w, xs[:, :, k])
        np.testing.assert_allclose(fast[0][k], want[0], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(fast[1][k], want[1], rtol=1e-12, atol=1e-14)


def test_second_order_inside_vmap_takes_the_general_path():
    # hessian's inner walk records nodes: the rules get nodes and take the primitive's own
    w = RNG.standard_normal((3, 2))
    xs = RNG.standard_normal((4, 3))

    def f(x, w):
        return fnp.sum(fg.nn.functional.log_softmax(fnp.tanh(fnp.matmul(x, w)), dim=0) ** 2)

    per_example = fg.vmap(fg.hessian(f), in_axes=(0, None))
    fast, general = _both(per_example, xs, w)
    _assert_same(fast, general)
    for k in range(4):
        np.testing.assert_allclose(fast[k], fg.hessian(f)(xs[k], w), rtol=1e-12, atol=1e-14)


def test_the_walk_of_w9_applies_no_batched_primitive():
    # What makes it fast: every VJP rule of W9's walk runs on the stacked arrays (a rule that
    # stopped doing so would apply its primitives one at a time through the interpreter).
    params = _mlp_params(np.float64)
    xs = RNG.standard_normal((5, 6))
    ys = RNG.integers(0, 4, 5)
    applied = []
    original = batching._batched_apply

    def counting(prim, level, args, params_):
        applied.append(prim.name)
        return original(prim, level, args, params_)

    per_example = fg.vmap(fg.grad(_mlp_loss), in_axes=(None, 0, 0))
    batching._batched_apply = counting
    try:
        per_example(params, xs, ys)
        forward = list(applied)
        assert forward == [
            "matmul",
            "add",
            "tanh",
            "matmul",
            "add",
            "log_softmax",
            "getitem",
            "negative",
        ]
        applied.clear()
        batching.FIRST_ORDER_STACKED = False
        per_example(params, xs, ys)
    finally:
        batching._batched_apply = original
        batching.FIRST_ORDER_STACKED = True
    assert len(applied) > len(forward)  # the general path applies the rules' primitives


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_inside_vmap_meet_two_levels_and_agree(jac):
    # jacrev pulls back a batch of cotangents (a second vmap inside): values of two levels
    # meet in the rules, which then take the general path; jacfwd pushes tangents forward
    # through the twins' rules (ELEMENTWISE JVPs are the VJP rules)
    w = RNG.standard_normal((3, 4))
    xs = RNG.standard_normal((5, 3))

    def f(x, w):
        return fg.nn.functional.log_softmax(fnp.tanh(fnp.matmul(x, w)), dim=0) * 2.0

    transform = getattr(fg, jac)
    per_example = fg.vmap(transform(f), in_axes=(0, None))
    fast, general = _both(per_example, xs, w)
    _assert_same(fast, general)
    for k in range(5):
        np.testing.assert_allclose(fast[k], transform(f)(xs[k], w), rtol=1e-12, atol=1e-14)


# --- the per-example outer products of matmul's VJP for a weight (`_outer_products`) ------------


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(*a.shape, a.dtype.itemsize)


@pytest.mark.parametrize("m", [1, 10, 64, 127, 128, 129, 200])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_outer_products_are_each_examples_products(m, dtype, layout):
    # x[b, i] * c[b, j] as NumPy's multiply gives it for each example; zeros against negative
    # entries make -0.0 products (the multiply keeps their sign; einsum's sum gives +0.0)
    b, k = 6, 7
    x = RNG.standard_normal((b, k)).astype(dtype)
    c = RNG.standard_normal((b, m)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal((b, k))
        c = c + 1j * RNG.standard_normal((b, m))
    x[:, 0], c[:, 0], x[0, 1] = 0.0, 0.0, -0.0
    if layout == "transposed":  # the batch on axis 1 of the caller's array, moved to the front
        x, c = np.ascontiguousarray(x.T).T, np.ascontiguousarray(c.T).T
    before = np.getbufsize()
    got = batching._outer_products(x, c)
    assert np.getbufsize() == before  # the buffer size is restored
    assert got.shape == (b, k, m) and got.dtype == dtype
    want = np.stack([np.multiply(x[i][:, None], c[i][None, :]) for i in range(b)])
    assert (np.signbit(want.real) & (want.real == 0)).any()  # the case is there
    if m >= batching._UNBUFFERED_ROWS and batching._ITERATOR_CORE:  # the multiply: bit for bit
        np.testing.assert_array_equal(_bits(got), _bits(want))
    elif np.dtype(dtype).kind == "f":  # einsum: the same numbers (+0.0 for -0.0)
        np.testing.assert_array_equal(got, want)
    else:  # einsum's complex product rounds differently from the multiply's
        np.testing.assert_allclose(got, want, rtol=4e-16, atol=0)


def test_outer_products_of_mixed_dtypes_promote_as_numpy():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    c = RNG.standard_normal((3, 130))
    got = batching._outer_products(x, c)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x[:, :, None].astype(np.float64) * c[:, None, :])


def test_per_example_weight_gradients_with_wide_rows_are_the_loops_bit_for_bit():
    # d/dW sum((x @ W) * v) = outer(x, v) for each example: the same products in the loop of
    # grad (its multiply rule), so the stacked path (rows of 128: the unbuffered multiply)
    # matches it bit for bit, and the general path (einsum) up to the sign of zeros
    w = RNG.standard_normal((5, 128))
    xs = RNG.standard_normal((4, 5))
    vs = RNG.standard_normal((4, 128))
    xs[:, 2], vs[1, :3] = 0.0, -(vs[1, :3] ** 2) - 1.0  # zeros times negatives: -0.0

    def f(w, x, v):
        return fnp.sum(fnp.matmul(x, w) * v)

    per_example = fg.vmap(fg.grad(f), in_axes=(None, 0, 0))
    fast, general = _both(per_example, w, xs, vs)
    np.testing.assert_array_equal(fast, general)
    loop = np.stack([fg.grad(f)(w, xs[i], vs[i]) for i in range(4)])
    assert (np.signbit(loop) & (loop == 0)).any()
    if batching._ITERATOR_CORE:  # (NumPy 2.3 on; before it the einsum: +0.0 for -0.0)
        np.testing.assert_array_equal(_bits(fast), _bits(loop))
    np.testing.assert_array_equal(fast, loop)


# --- vmap's outputs: a tuple of arrays batched where they go is returned without flattening ---


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_tuple_outputs_take_the_fast_path_only_where_it_gives_the_general_result(out_axes):
    xs = RNG.standard_normal((4, 3))
    c = RNG.standard_normal(3)

    def f(x):
        # batched at 0 (the fast path's case), the same for every example (broadcast), one
        # batched at another axis inside (a transpose), and a nested vmap's result
        inner = fg.vmap(lambda v: v * x, in_axes=0)(fnp.stack([x, c]))
        return fnp.exp(x), c * 2.0, fnp.transpose(fnp.outer(x, c)), inner

    got = fg.vmap(f, out_axes=out_axes)(xs)
    assert type(got) is tuple and len(got) == 4
    per = [tuple(np.asarray(o) for o in f(x)) for x in xs]
    for k in range(4):
        want = np.stack([p[k] for p in per], axis=out_axes)
        np.testing.assert_array_equal(got[k], want)
    only = fg.vmap(lambda x: (fnp.sin(x), fnp.cos(x)), out_axes=out_axes)(xs)
    np.testing.assert_array_equal(only[0], np.moveaxis(np.sin(xs), 0, out_axes))
    np.testing.assert_array_equal(only[1], np.moveaxis(np.cos(xs), 0, out_axes))


def test_keyword_arguments_are_still_mapped():
    xs, ys = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2))
    got = fg.vmap(lambda x, *, y=None: (x * y,))(xs, y=ys)
    np.testing.assert_array_equal(got[0], xs * ys)
    assert fg.vmap(lambda x: {"a": (x,)})(xs)["a"][0].shape == (3, 2)
