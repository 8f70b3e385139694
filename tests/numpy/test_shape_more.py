"""Shape, indexing, polynomial, window, set, string and file functions of funcgrad.numpy.

Values against NumPy's functions, gradients against float64 central
differences, and the refusals (in-place writes into graph nodes, a poly1d
of nodes) with their messages. The random-input differential cases of the
same names are in tests/differential/functional_cases_shape.py.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import OpError, ReadOnlyError
from funcgrad.graph import Node
from tests.references import requires

RNG = np.random.default_rng(0)


def _plain(x):
    return x.value if type(x) is Node else np.asarray(x)


def _fd_grad(f, x, eps=1e-6):
    """Central differences of the scalar `f` at the float64 array `x`."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        out[i] = (_plain(f(x + step)) - _plain(f(x - step))) / (2 * eps)
    return out


def _check_grad(f, x, w=None):
    """`grad(sum(f(x) * w))` against central differences."""
    x = np.asarray(x, dtype=np.float64)
    if w is None:
        w = RNG.uniform(-1, 1, np.shape(_plain(f(x))))
    loss = lambda x: fnp.sum(f(x) * w)  # noqa: E731
    np.testing.assert_allclose(fg.grad(loss)(x), _fd_grad(loss, x), rtol=1e-6, atol=1e-8)


X = RNG.uniform(-2, 2, (3, 4))


# --- selecting entries ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("append", lambda m, x: m.append(x, x[:1], axis=0)),
        ("insert", lambda m, x: m.insert(x, [1, 1, 3], x[0, 0] * 2.0)),
        ("insert axis", lambda m, x: m.insert(x, slice(0, 2), x[:, :1], axis=1)),
        ("delete", lambda m, x: m.delete(x, [0, 2], axis=1)),
        ("resize", lambda m, x: m.resize(x, (5, 3))),
        ("choose", lambda m, x: m.choose([[0, 1, 2, 5]], [x[0], x[1], x[2]], mode="wrap")),
        ("choose clip", lambda m, x: m.choose([[0, 1, 2, 5]], x, mode="clip")),
        ("select", lambda m, x: m.select([x > 0, x < -1], [x * x, -x], default=x[0])),
        ("compress", lambda m, x: m.compress([True, False, True], x, axis=0)),
        ("extract", lambda m, x: m.extract(_plain(x) > 0, x)),
        ("block", lambda m, x: m.block([[x, x[:, :1]], [x[:1], x[:1, :1]]])),
        ("trim_zeros", lambda m, x: m.trim_zeros(m.concatenate([np.zeros(2), x[0]]), "f")),
        ("apply_along_axis", lambda m, x: m.apply_along_axis(lambda r: r * r[-1], 1, x)),
        ("apply_over_axes", lambda m, x: m.apply_over_axes(m.sum, x * x, [0, 1])),
    ],
)
def test_selections_match_numpy_and_central_differences(name, call):
    expected = call(np, X)
    for arg in (X, fg.leaf(X)):
        got = call(fnp, arg)
        np.testing.assert_allclose(_plain(got), expected, rtol=1e-12)
        assert _plain(got).dtype == expected.dtype
    _check_grad(lambda x: call(fnp, x), X)


def test_insert_broadcasts_a_value_and_sums_its_copies_gradient():
    grad = fg.grad(lambda v: fnp.sum(fnp.insert(np.zeros((2, 3)), 1, v, axis=1)))(2.0)
    assert grad == 2.0  # one copy per row


def test_the_selections_keep_float32():
    x = fg.leaf(X.astype(np.float32))
    out = fnp.append(x, fnp.delete(x, 0, axis=0), axis=0)
    assert out.dtype == np.float32
    assert fg.grad(lambda x: fnp.sum(fnp.resize(x, (2, 2))))(X.astype(np.float32)).dtype == (
        np.float32
    )


def test_integer_results_are_plain_values():
    out = fnp.append(fg.leaf(X), [1], axis=None)
    assert type(out) is Node
    assert type(fnp.delete(np.arange(4), 1)) is np.ndarray


def test_broadcast_arrays_and_unstack():
    a, b = fnp.broadcast_arrays(fg.leaf(np.ones(3)), np.ones((2, 1)))
    assert a.shape == b.shape == (2, 3)
    assert isinstance(fnp.broadcast_arrays(np.ones(3), np.ones((2, 1))), tuple)
    assert fnp.broadcast is np.broadcast
    grad = fg.grad(lambda x: fnp.sum(fnp.broadcast_arrays(x, np.ones((2, 1)))[0]))(np.ones(3))
    np.testing.assert_array_equal(grad, [2.0, 2.0, 2.0])
    parts = fnp.unstack(fg.leaf(X), axis=1)
    assert len(parts) == 4
    for got, expected in zip(parts, np.unstack(X, axis=1), strict=True):
        np.testing.assert_array_equal(got.value, expected)
    _check_grad(lambda x: fnp.unstack(x, axis=-1)[2] * fnp.unstack(x)[0][1], X)


# --- writing entries ------------------------------------------------------------------------

WRITES = [
    ("put", lambda f, a, v, **k: f(a, [0, 5, 5], v, **k), (3,)),
    ("put_along_axis", lambda f, a, v, **k: f(a, np.array([[1], [0], [3]]), v, 1, **k), (3, 1)),
    (
        "place",
        lambda f, a, v, **k: f(a, a > 0 if type(a) is np.ndarray else a.value > 0, v, **k),
        (2,),
    ),
    ("putmask", lambda f, a, v, **k: f(a, X > 0, v, **k), (5,)),
    ("copyto", lambda f, a, v, **k: f(a, v, where=X > 0, **k), (4,)),
    ("fill_diagonal", lambda f, a, v, **k: f(a, v, wrap=True, **k), (2,)),
]


@pytest.mark.parametrize(("name", "call", "vshape"), WRITES, ids=[w[0] for w in WRITES])
def test_writes_are_in_place_on_arrays_and_out_of_place_with_inplace_false(name, call, vshape):
    v = RNG.uniform(-2, 2, vshape)
    expected = X.copy()
    assert call(getattr(np, name), expected, v) is None  # NumPy writes in place
    a = X.copy()
    assert call(getattr(fnp, name), a, v) is None
    np.testing.assert_array_equal(a, expected)
    a = X.copy()
    out = call(getattr(fnp, name), a, v, inplace=False)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(a, X)  # unchanged
    out = call(getattr(fnp, name), fg.leaf(X), fg.leaf(v), inplace=False)
    np.testing.assert_array_equal(out.value, expected)
    _check_grad(lambda x: call(getattr(fnp, name), x, v, inplace=False), X)
    _check_grad(lambda v: call(getattr(fnp, name), X, v, inplace=False), v)


@pytest.mark.parametrize(("name", "call", "vshape"), WRITES, ids=[w[0] for w in WRITES])
def test_writing_into_a_node_in_place_is_refused(name, call, vshape):
    v = np.ones(vshape)
    for a, values in ((fg.leaf(X), v), (X.copy(), fg.leaf(v))):
        with pytest.raises(ReadOnlyError, match=rf"funcgrad\.numpy\.{name}: .*inplace=False") as e:
            call(getattr(fnp, name), a, values)
        assert "a node float64" in str(e.value)


def test_a_repeated_index_takes_the_last_write_and_its_gradient():
    grad = fg.grad(lambda v: fnp.sum(fnp.put(np.zeros(3), [1, 1], v, inplace=False)))(
        np.array([2.0, 3.0])
    )
    np.testing.assert_array_equal(grad, [0.0, 1.0])


# --- functions of functions -------------------------------------------------------------------


def test_piecewise_matches_numpy_and_differentiates_each_piece():
    x = np.array([-2.0, -0.5, 0.0, 0.7, 3.0])
    conds = [x < 0, x > 1]
    funcs = [lambda v: v * v, lambda v: fnp.sin(v) if type(v) is Node else np.sin(v), 0.5]
    np.testing.assert_allclose(
        fnp.piecewise(fg.leaf(x), conds, funcs).value, np.piecewise(x, conds, funcs)
    )
    _check_grad(lambda x: fnp.piecewise(x, conds, funcs), x)
    scalar = fnp.piecewise(fg.leaf(np.float64(-1.0)), np.bool_(True), [lambda v: 3.0 * v, 1.0])
    assert scalar.value == np.piecewise(-1.0, np.bool_(True), [lambda v: 3.0 * v, 1.0])
    with pytest.raises(OpError, match="piecewise"):
        fnp.piecewise(fg.leaf(x), conds, [1.0])


def test_vectorize_loops_over_nodes_and_is_numpys_on_arrays():
    f = fnp.vectorize(lambda a, b: a * b if a > 0 else b * b)
    x = np.array([[1.0, -1.0, 2.0]])
    np.testing.assert_array_equal(
        f(x, 3.0), np.vectorize(lambda a, b: a * b if a > 0 else b * b)(x, 3.0)
    )
    np.testing.assert_array_equal(f(fg.leaf(x), 3.0).value, f(x, 3.0))
    _check_grad(lambda x: f(x, 3.0), x)
    grad_b = fg.grad(lambda b: fnp.sum(f(x, b)))(3.0)
    assert grad_b == pytest.approx(1.0 + 6.0 + 2.0)


def test_vectorize_with_a_signature_two_outputs_and_excluded():
    dot = fnp.vectorize(lambda a, b: fnp.sum(a * b), signature="(n), (n)->()")
    a, b = RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (3,))
    np.testing.assert_allclose(dot(fg.leaf(a), b).value, a @ b)
    _check_grad(lambda a: dot(a, b), a)
    both = fnp.vectorize(lambda a, p: (a * p, a + p), excluded={1})
    s, t = both(fg.leaf(np.array([1.0, 2.0])), 2.0)
    np.testing.assert_array_equal(s.value, [2.0, 4.0])
    np.testing.assert_array_equal(t.value, [3.0, 4.0])


def test_apply_along_axis_refuses_an_empty_iteration_like_numpy():
    with pytest.raises(ValueError):
        np.apply_along_axis(np.sum, 1, np.zeros((0, 2)))
    with pytest.raises(OpError, match="apply_along_axis"):
        fnp.apply_along_axis(fnp.sum, 1, fg.leaf(np.zeros((0, 2))))


# --- casts and products -------------------------------------------------------------------------


def test_astype_and_require_cast_nodes_differentiably():
    x = fg.leaf(X)
    y = fnp.astype(x, np.float32)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.value, X.astype(np.float32))
    grad = fg.grad(lambda x: fnp.sum(fnp.astype(x, np.float32) * 2.0))(X)
    assert grad.dtype == np.float64
    np.testing.assert_array_equal(grad, np.full_like(X, 2.0))
    ints = fnp.astype(x, np.int32)
    assert type(ints) is np.ndarray and ints.dtype == np.int32  # no gradient: plain values
    assert fnp.require(x, requirements=["C", "A"]) is x
    assert fnp.require(x, np.float32).dtype == np.float32
    with pytest.raises(ReadOnlyError, match="require.*immutable"):
        fnp.require(x, requirements="W")
    np.testing.assert_array_equal(fnp.astype(X, np.float32), np.astype(X, np.float32))


@pytest.mark.parametrize(
    ("name", "shapes"),
    [("vecdot", [(2, 1, 3), (4, 3)]), ("matvec", [(2, 4, 3), (3,)]), ("vecmat", [(3,), (2, 3, 4)])],
)
def test_vector_products_match_numpy(name, shapes):
    a, b = (RNG.uniform(-1, 1, s) for s in shapes)
    expected = getattr(np, name)(a, b)
    got = getattr(fnp, name)(fg.leaf(a), fg.leaf(b))
    np.testing.assert_allclose(got.value, expected, rtol=1e-12)
    _check_grad(lambda a: getattr(fnp, name)(a, b), a)
    _check_grad(lambda b: getattr(fnp, name)(a, b), b)


def test_vector_products_conjugate_and_check_lengths_as_numpy():
    z = np.array([1 + 2j, 3 - 1j])
    np.testing.assert_allclose(fnp.vecdot(z, z), np.vecdot(z, z))
    assert fnp.vecdot(z, z).real > 0  # the first argument is conjugated
    np.testing.assert_allclose(
        fnp.vecdot(np.ones((3, 2)), np.ones((3, 1)), axis=0),
        np.vecdot(np.ones((3, 2)), np.ones((3, 1)), axis=0),
    )
    with pytest.raises(OpError, match=r"vecdot: the core dimensions of shapes \(3,\) and \(2,\)"):
        fnp.vecdot(fg.leaf(np.ones(3)), np.ones(2))


def test_einsum_path_reads_shapes_only():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    assert fnp.einsum_path("ij,jk", fg.leaf(a), b) == np.einsum_path("ij,jk", a, b)


# --- polynomials --------------------------------------------------------------------------------

P = np.array([1.5, -2.0, 0.5, 3.0])
Q = np.array([2.0, 1.0, -1.0])


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("poly", lambda m, p, q: m.poly(p)),
        ("polyval", lambda m, p, q: m.polyval(p, q)),
        ("polyadd", lambda m, p, q: m.polyadd(p, q)),
        ("polysub", lambda m, p, q: m.polysub(q, p)),
        ("polymul", lambda m, p, q: m.polymul(p, q)),
        ("polydiv q", lambda m, p, q: m.polydiv(p, q)[0]),
        ("polydiv r", lambda m, p, q: m.polydiv(p, q)[1]),
        ("polyder", lambda m, p, q: m.polyder(p, 2)),
        ("polyint", lambda m, p, q: m.polyint(p, 2, q[:2])),
    ],
)
def test_polynomials_match_numpy_and_differentiate_in_every_argument(name, call):
    expected = call(np, P, Q)
    got = call(fnp, fg.leaf(P), fg.leaf(Q))
    np.testing.assert_allclose(got.value, expected, rtol=1e-12, atol=1e-14)
    assert got.value.dtype == expected.dtype
    _check_grad(lambda p: call(fnp, p, Q), P)
    _check_grad(lambda q: call(fnp, P, q), Q)


def test_polyval_has_second_derivatives():
    d2 = fg.grad(fg.grad(lambda x: fnp.polyval(P, x)))(0.3)
    assert d2 == pytest.approx(np.polyval(np.polyder(P, 2), 0.3))


def test_polymul_drops_leading_zeros_as_numpy():
    a = np.array([0.0, 0.0, 1.0, 2.0])
    np.testing.assert_array_equal(fnp.polymul(fg.leaf(a), Q).value, np.polymul(a, Q))


def test_poly1d_evaluates_nodes_and_refuses_node_coefficients():
    p = fnp.poly1d(P)
    assert isinstance(p, np.poly1d)
    assert type(p + p) is fnp.poly1d and type(p.deriv()) is fnp.poly1d
    assert type(p * 2.0) is fnp.poly1d and all(type(r) is fnp.poly1d for r in p / fnp.poly1d(Q))
    assert fg.grad(p)(0.3) == pytest.approx(np.polyval(np.polyder(P), 0.3))
    assert p(0.3) == np.poly1d(P)(0.3)
    with pytest.raises(OpError, match=r"poly1d: .*polyval"):
        fnp.poly1d(fg.leaf(P))
    with pytest.raises(OpError, match=r"polyadd: a poly1d"):
        fnp.polyadd(fg.leaf(P), np.poly1d(Q))


def test_poly_of_a_square_matrix_node_is_refused():
    assert np.allclose(fnp.poly(np.eye(2)), np.poly(np.eye(2)))
    with pytest.raises(OpError, match="poly: .*roots"):
        fnp.poly(fg.leaf(np.eye(2)))


# --- windows ------------------------------------------------------------------------------------


def test_windows_are_numpys_and_kaiser_is_differentiable_in_beta():
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        assert getattr(fnp, name) is getattr(np, name)
    requires("scipy")
    for size in (0, 1, 6):
        got = fnp.kaiser(size, fg.leaf(np.float64(2.5)))
        np.testing.assert_allclose(_plain(got), np.kaiser(size, 2.5), rtol=1e-12)
    _check_grad(lambda b: fnp.kaiser(6, b), np.float64(2.5))
    _check_grad(fnp.i0, X)
    np.testing.assert_allclose(fnp.i0(fg.leaf(X)).value, np.i0(X), rtol=1e-12)


# --- sets ---------------------------------------------------------------------------------------


def test_set_functions_give_their_gradient_to_first_occurrences():
    a, b = np.array([3.0, 1.0, 3.0, 2.0]), np.array([2.0, 5.0, 1.0])
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        got = getattr(fnp, name)(fg.leaf(a), fg.leaf(b))
        np.testing.assert_array_equal(got.value, getattr(np, name)(a, b))
    ga, gb = fg.grad(lambda a, b: fnp.sum(fnp.union1d(a, b) ** 2), argnums=(0, 1))(a, b)
    np.testing.assert_array_equal(ga, [6.0, 2.0, 0.0, 4.0])  # a's 3.0 counts once: its first
    np.testing.assert_array_equal(gb, [0.0, 10.0, 0.0])  # 2 and 1 come from a
    ga, gb = fg.grad(lambda a, b: fnp.sum(fnp.intersect1d(a, b)), argnums=(0, 1))(a, b)
    np.testing.assert_array_equal(ga, [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gb, [0.0, 0.0, 0.0])  # b only selects
    values, i1, i2 = fnp.intersect1d(fg.leaf(a), b, return_indices=True)
    expected = np.intersect1d(a, b, return_indices=True)
    for got, e in zip((values.value, i1, i2), expected, strict=True):
        np.testing.assert_array_equal(got, e)
    got = fnp.setdiff1d(fg.leaf(a), b, assume_unique=True)
    np.testing.assert_array_equal(got.value, np.setdiff1d(a, b, assume_unique=True))
    grad = fg.grad(lambda a: fnp.sum(fnp.setdiff1d(a, b, assume_unique=True)))(a)
    np.testing.assert_array_equal(grad, [1.0, 0.0, 1.0, 0.0])  # each kept entry itself


# --- strings and files ---------------------------------------------------------------------------


def test_strings_and_files_read_a_nodes_value():
    x = fg.leaf(X)
    assert fnp.array2string(x, precision=2) == np.array2string(X, precision=2)
    assert fnp.array_repr(x) == np.array_repr(X)
    assert fnp.array_str(x) == np.array_str(X)
    assert fnp.base_repr(10, 3) == "101"
    assert fnp.binary_repr(5, width=4) == "0101"
    buffer = io.BytesIO()
    fnp.save(buffer, x)
    buffer.seek(0)
    np.testing.assert_array_equal(fnp.load(buffer), X)
    buffer = io.BytesIO()
    fnp.savez(buffer, x, y=x)
    buffer.seek(0)
    data = fnp.load(buffer)
    np.testing.assert_array_equal(data["arr_0"], X)
    np.testing.assert_array_equal(data["y"], X)
    for name in ("load", "frombuffer", "fromfile", "fromstring", "frompyfunc", "from_dlpack"):
        assert getattr(fnp, name) is getattr(np, name)


def test_complex_nodes_flow_through_selections_and_products():
    z = np.array([1 + 2j, 3 - 1j, 0.5j])
    x = fg.leaf(z)
    np.testing.assert_array_equal(fnp.insert(x, 1, 2.0).value, np.insert(z, 1, 2.0))
    np.testing.assert_array_equal(fnp.union1d(x, z[:1]).value, np.union1d(z, z[:1]))
    np.testing.assert_allclose(fnp.polyval(x, 2.0).value, np.polyval(z, 2.0))
    np.testing.assert_allclose(fnp.vecdot(x, x).value, np.vecdot(z, z))
    # |z|^2 summed: the functional API's gradient is the conjugate of 2 z (JAX's convention)
    grad = fg.grad(lambda x: fnp.real(fnp.vecdot(x, x)))(z)
    np.testing.assert_allclose(grad, 2 * np.conj(z))


def test_functions_of_functions_differentiate_in_a_captured_parameter():
    x = np.array([-1.0, 2.0, 0.5])
    mask = x < 0

    def loss(t):
        v = fnp.vectorize(lambda a: a * t)(x)
        a = fnp.apply_along_axis(lambda r: r * t * t, 0, x[None, :])
        p = fnp.piecewise(x, [mask], [lambda v: v * t, lambda v: fnp.sin(v * t)])
        return fnp.sum(v) + fnp.sum(a) + fnp.sum(p)

    assert fg.grad(loss)(1.5) == pytest.approx(_fd_grad(loss, np.float64(1.5)), rel=1e-7)
    # without a node anywhere they are NumPy's own results
    np.testing.assert_array_equal(
        fnp.apply_along_axis(np.cumsum, 1, X), np.apply_along_axis(np.cumsum, 1, X)
    )


@pytest.mark.parametrize("trim", ["fb", "f", "b"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
def test_trim_zeros_of_a_node_is_numpys_box(trim, axis):
    a = np.zeros((4, 5))
    a[1:3, 2:4] = [[1.0, 2.0], [3.0, 0.0]]
    got = fnp.trim_zeros(fg.leaf(a), trim, axis=axis)
    np.testing.assert_array_equal(got.value, np.trim_zeros(a, trim, axis=axis))
    grad = fg.grad(lambda x: fnp.sum(fnp.trim_zeros(x, trim, axis=axis)))(a)
    expected = np.zeros_like(a)
    rows = slice(1 if "f" in trim and axis != -1 else 0, 3 if "b" in trim and axis != -1 else 4)
    cols = slice(2 if "f" in trim and axis != 0 else 0, 4 if "b" in trim and axis != 0 else 5)
    expected[rows, cols] = 1.0
    np.testing.assert_array_equal(grad, expected)
