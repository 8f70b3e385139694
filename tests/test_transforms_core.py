"""Behaviour of the core transforms: `grad`, `value_and_grad`, `vjp` and `backward`."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.graph import Node

# --- argnums -------------------------------------------------------------------


def f_xy(x, y):
    return x * y * y  # df/dx = y**2, df/dy = 2 x y


@pytest.mark.parametrize(
    "argnums, expected",
    [
        (0, 9.0),
        (1, 12.0),
        (-1, 12.0),
        (-2, 9.0),
        ((0, 1), (9.0, 12.0)),
        ((1,), (12.0,)),
        ((-1, 0), (12.0, 9.0)),
    ],
)
def test_grad_argnums(argnums, expected):
    g = fg.grad(f_xy, argnums=argnums)(2.0, 3.0)
    assert g == expected
    assert type(g) is type(expected)


def test_value_and_grad_argnums():
    value, g = fg.value_and_grad(f_xy, argnums=(0, 1))(2.0, 3.0)
    assert value == 18.0 and g == (9.0, 12.0)


def test_argnums_out_of_range():
    with pytest.raises(ValueError, match="argnums"):
        fg.grad(f_xy, argnums=2)(2.0, 3.0)


def test_keyword_arguments_are_not_differentiated():
    g = fg.grad(lambda x, *, scale: x * scale)(2.0, scale=5.0)
    assert g == 5.0


# --- has_aux -------------------------------------------------------------------


def test_grad_has_aux():
    def f(x):
        y = fnp.sin(x)
        return fnp.sum(y), {"y": y, "n": 3}

    x = np.array([0.0, 1.0])
    g, aux = fg.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(g, np.cos(x))
    assert aux["n"] == 3
    assert type(aux["y"]) is not Node  # aux comes back as values
    np.testing.assert_allclose(aux["y"], np.sin(x))


def test_value_and_grad_has_aux():
    (value, aux), g = fg.value_and_grad(lambda x: (x * x, "label"), has_aux=True)(3.0)
    assert value == 9.0 and aux == "label" and g == 6.0


def test_vjp_has_aux():
    out, vjp_fn, aux = fg.vjp(lambda x: (fnp.exp(x), x * 2.0), np.zeros(2), has_aux=True)
    np.testing.assert_allclose(out, [1.0, 1.0])
    np.testing.assert_allclose(aux, [0.0, 0.0])
    (ct,) = vjp_fn(np.array([1.0, 2.0]))
    np.testing.assert_allclose(ct, [1.0, 2.0])


# --- pytrees -------------------------------------------------------------------


def test_grad_of_dict_params():
    def loss(params, x):
        r = params["w"] * x + params["b"]
        return fnp.sum(r * r)

    params = {"w": np.array([1.0, -2.0, 0.5]), "b": np.array([0.1, 0.2, 0.3])}
    x = np.array([2.0, 1.0, -1.0])
    g = fg.grad(loss)(params, x)
    r = params["w"] * x + params["b"]
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(g["w"], 2 * r * x)
    np.testing.assert_allclose(g["b"], 2 * r)
    assert params["w"].flags.writeable  # the caller's arrays are untouched


def test_grad_of_nested_pytree_keeps_structure_and_kinds():
    def f(p):
        total = p["scale"] * fnp.sum(p["layers"][0]["w"])
        return total + fnp.sum(p["layers"][1][0] * p["layers"][1][0])

    p = {"layers": [{"w": np.ones(3)}, (np.arange(2.0), None)], "scale": 2.0}
    g = fg.grad(f)(p)
    assert set(g) == {"layers", "scale"}
    assert isinstance(g["layers"], list) and isinstance(g["layers"][1], tuple)
    assert g["layers"][1][1] is None
    np.testing.assert_allclose(g["layers"][0]["w"], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(g["layers"][1][0], [0.0, 2.0])
    assert type(g["scale"]) is float and g["scale"] == 3.0


def test_vjp_of_pytree_output():
    def f(x, y):
        return {"s": x * y, "d": (x - y, fnp.exp(x))}

    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    out, vjp_fn = fg.vjp(f, x, y)
    np.testing.assert_allclose(out["s"], x * y)
    ct = {"s": np.array([1.0, 0.5]), "d": (np.array([2.0, 1.0]), np.array([1.0, 1.0]))}
    gx, gy = vjp_fn(ct)
    np.testing.assert_allclose(gx, ct["s"] * y + ct["d"][0] + ct["d"][1] * np.exp(x))
    np.testing.assert_allclose(gy, ct["s"] * x - ct["d"][0])
    gx2, gy2 = vjp_fn(ct)  # vjp_fn can be called again
    np.testing.assert_array_equal(gx, gx2)
    np.testing.assert_array_equal(gy, gy2)


def test_vjp_cotangent_structure_mismatch():
    _, vjp_fn = fg.vjp(lambda x: (x, x), np.ones(2))
    with pytest.raises(fg.TreeStructureError, match="funcgrad.vjp"):
        vjp_fn([np.ones(2), np.ones(2)])


# --- kinds of arguments and results ------------------------------------------


def test_python_float_argument_gives_python_float():
    g = fg.grad(lambda x: fnp.sin(x) * x)(0.5)
    assert type(g) is float
    assert math.isclose(g, math.cos(0.5) * 0.5 + math.sin(0.5), rel_tol=1e-15)


def test_array_argument_gives_array_of_same_shape_and_dtype():
    for dtype in (np.float64, np.float32):
        x = np.arange(6, dtype=dtype).reshape(2, 3)
        g = fg.grad(lambda x: fnp.sum(x * x))(x)
        assert isinstance(g, np.ndarray) and g.shape == (2, 3) and g.dtype == dtype
        np.testing.assert_allclose(g, 2 * x)


def test_unused_inputs_get_zeros():
    g = fg.grad(lambda x, y, z: x * 2.0, argnums=(0, 1, 2))(1.0, np.ones((2, 3)), 4.0)
    assert g[0] == 2.0
    assert g[1].shape == (2, 3) and not g[1].any()
    assert type(g[2]) is float and g[2] == 0.0


def test_constant_output_gives_zeros():
    assert fg.grad(lambda x: 1.0)(2.0) == 0.0
    g = fg.grad(lambda x: np.float64(3.0))(np.ones(2))
    np.testing.assert_array_equal(g, [0.0, 0.0])


def test_backward_wrt_unreached_node_gives_zeros():
    x, y = fg.leaf(np.ones(3)), fg.leaf(np.ones(2))
    grads = fg.backward(fnp.sum(x * 2.0), wrt=[x, y])
    np.testing.assert_array_equal(grads[y], np.zeros(2))
    with pytest.raises(KeyError, match="wrt"):
        fg.backward(fnp.sum(x * 2.0))[y]


# --- purity ----------------------------------------------------------------------


def _graph():
    x = fg.leaf(np.array([0.5, -1.0, 2.0]))
    w = fg.leaf(np.array([[1.0], [2.0]]))
    y = fnp.sum(fnp.sin(x) * w + fnp.exp(x) * x, axis=1)
    return x, w, fnp.sum(y * y)


def _snapshot(out):
    return [
        (n, n.prim, n.inputs, dict(n.params), np.array(n.value, copy=True))
        for n in fg.toposort(out)
    ]


def _assert_unchanged(out, snapshot):
    nodes = fg.toposort(out)
    assert len(nodes) == len(snapshot)
    for n, (m, prim, inputs, params, value) in zip(nodes, snapshot, strict=True):
        assert n is m and n.prim is prim and n.inputs is inputs
        assert dict(n.params) == params
        np.testing.assert_array_equal(n.value, value)
        assert not getattr(n.value, "flags", None) or not n.value.flags.writeable


def test_repeated_backward_gives_same_result():
    x, w, out = _graph()
    first = fg.backward(out)
    for _ in range(3):
        again = fg.backward(out)
        assert again is not first and set(again) == set(first) == {x, w}
        for node in first:
            np.testing.assert_array_equal(again[node], first[node])


def test_graph_unchanged_after_transforms():
    x, w, out = _graph()
    snapshot = _snapshot(out)
    fg.backward(out)
    fg.backward(out, wrt=[x])
    second = fg.backward(out, create_graph=True)
    fg.backward(fnp.sum(second[x]), wrt=[x, w])
    fg.grad(lambda v: fnp.sum(v * out))(x)  # nested use of a node of the graph
    fg.vjp(lambda v: v * 2.0, out)[1](np.float64(1.0))
    _assert_unchanged(out, snapshot)


def test_grad_map_is_immutable():
    x = fg.leaf(2.0)
    grads = fg.backward(x * x)
    with pytest.raises(TypeError, match="GradMap is immutable"):
        grads[x] = 0.0
    with pytest.raises(TypeError, match="GradMap is immutable"):
        del grads[x]
    with pytest.raises(AttributeError):
        grads._grads = {}


def test_node_values_are_read_only():
    x = fg.leaf(np.ones(3))
    y = fnp.exp(x)
    for node in (x, y):
        with pytest.raises(ValueError, match="read-only"):
            node.value[0] = 5.0
    grads = fg.backward(fnp.sum(y))
    np.testing.assert_allclose(grads[x], np.e)


# --- higher order --------------------------------------------------------------


def test_grad_of_grad_and_third_order_polynomial():
    f = lambda x: x**4  # noqa: E731
    d1, d2, d3 = fg.grad(f), fg.grad(fg.grad(f)), fg.grad(fg.grad(fg.grad(f)))
    assert d1(2.0) == 32.0 and d2(2.0) == 48.0 and d3(2.0) == 48.0
    assert type(d3(2.0)) is float


def test_third_order_trigonometric():
    x = 0.7
    assert math.isclose(fg.grad(fg.grad(fnp.sin))(x), -math.sin(x), rel_tol=1e-14)
    assert math.isclose(fg.grad(fg.grad(fg.grad(fnp.sin)))(x), -math.cos(x), rel_tol=1e-14)
    # d/dx x e^x = (1 + x) e^x, d2 = (2 + x) e^x, d3 = (3 + x) e^x
    f = lambda x: x * fnp.exp(x)  # noqa: E731
    assert math.isclose(fg.grad(fg.grad(fg.grad(f)))(x), (3 + x) * math.exp(x), rel_tol=1e-14)


def test_grad_of_grad_on_arrays():
    # f(x) = sum(sin(x) * x); the gradient's divergence is sum(2 cos(x) - x sin(x))
    x = np.array([0.1, 0.5, -1.3])
    inner = fg.grad(lambda v: fnp.sum(fnp.sin(v) * v))
    g2 = fg.grad(lambda v: fnp.sum(inner(v)))(x)
    np.testing.assert_allclose(g2, 2 * np.cos(x) - x * np.sin(x), rtol=1e-14)


def test_no_perturbation_confusion():
    assert fg.grad(lambda x: fg.grad(lambda y: x * y)(x))(3.0) == 1.0
    # Siskind and Pearlmutter's example: d/dx (x * d/dy (x + y)) = 1
    assert fg.grad(lambda x: x * fg.grad(lambda y: x + y)(1.0))(2.0) == 1.0


# --- errors --------------------------------------------------------------------


def _message(excinfo) -> str:
    return str(excinfo.value)


def test_non_scalar_output_error_names_op_and_shape():
    with pytest.raises(fg.NonScalarOutputError) as e:
        fg.grad(lambda x: x * 2.0)(np.ones(3))
    assert "funcgrad.grad" in _message(e) and "(3,)" in _message(e)
    with pytest.raises(fg.NonScalarOutputError) as e:
        fg.value_and_grad(lambda x: x * 2.0)(np.ones((2, 2)))
    assert "funcgrad.value_and_grad" in _message(e) and "(2, 2)" in _message(e)
    with pytest.raises(fg.NonScalarOutputError) as e:
        fg.backward(fg.leaf(np.ones(3)) * 2.0)
    assert "funcgrad.backward" in _message(e) and "(3,)" in _message(e)
    assert "/errors/#" in _message(e)


def test_dtype_error_names_op_and_dtype():
    with pytest.raises(fg.DtypeError) as e:
        fg.grad(lambda x: x * 2.0)(3)
    assert "funcgrad.grad" in _message(e) and "int" in _message(e)
    with pytest.raises(fg.DtypeError) as e:
        fg.leaf(np.arange(3))
    assert "funcgrad.leaf" in _message(e) and "int64" in _message(e) and "(3,)" in _message(e)


def test_shape_error_names_op_and_shapes():
    y = fg.leaf(np.ones(3)) * 2.0
    with pytest.raises(fg.ShapeError) as e:
        fg.backward(y, cotangent=np.ones(2))
    assert "funcgrad.backward" in _message(e)
    assert "(2,)" in _message(e) and "(3,)" in _message(e)
    _, vjp_fn = fg.vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(fg.ShapeError) as e:
        vjp_fn(np.ones((3, 1)))
    assert "funcgrad.vjp" in _message(e)
    assert "(3, 1)" in _message(e) and "(3,)" in _message(e)


def test_op_error_names_op_and_shapes():
    with pytest.raises(fg.OpError) as e:
        fnp.add(fg.leaf(np.ones(2)), np.ones(3))
    assert "funcgrad.add" in _message(e)
    assert "[2]" in _message(e) and "[3]" in _message(e)


# --- long chains ---------------------------------------------------------------


@pytest.mark.slow
def test_million_node_chain_backward():
    # Built and walked without recursion; d/dx (x * c**n) = c**n.
    # The graph has no reference cycles, so the cyclic collector is paused
    # while a million nodes are made (it would rescan them, to no purpose).
    n = 1_000_000
    gc.disable()
    try:
        x = fg.leaf(1.0)
        y = x
        for _ in range(n):
            y = y * 0.99999
        grads = fg.backward(y, wrt=[x])
        del y
    finally:
        gc.enable()
    assert math.isclose(float(grads[x]), 0.99999**n, rel_tol=1e-9)
