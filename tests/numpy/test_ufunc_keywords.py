"""NumPy's ufunc keywords on `funcgrad.numpy`'s generated ufuncs (`out`, `where`, `dtype`, `casting` ...).

Driven by the primitive records: every generated `funcgrad.numpy` function
whose name is a NumPy ufunc (the generator's `ufunc_of`), with the sample
arguments the generator's docstring examples use. On plain arrays each
call must give NumPy's outcome exactly (the same result object for `out=`,
the same bits and dtype, or the same exception and message); on graph
nodes `dtype=` is differentiable (against float64 central differences and
HIPS autograd) and `out=` / `where=` raise `ArgumentTypeError` naming the function.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import ArgumentTypeError, DtypeError, FuncgradError
from funcgrad.graph import Node
from funcgrad.ops import registry
from tests.references import requires

ROOT = Path(__file__).resolve().parents[2]


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "generate_surfaces", ROOT / "scripts" / "generate_surfaces.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


generator = _load_generator()
ITEMS = [i for i in generator.surfaces(registry.primitives())["numpy"] if generator.ufunc_of(i)]
# every name (aliases too) of every generated ufunc, with its item
NAMES = [(name, item) for item in ITEMS for name in (item.name, *item.aliases)]
IDS = [name for name, _ in NAMES]


def test_every_generated_numpy_ufunc_is_covered():
    from funcgrad.numpy import _generated

    ufuncs = {n for n in _generated.__all__ if isinstance(getattr(np, n, None), np.ufunc)}
    assert ufuncs == set(IDS)
    assert len(ufuncs) >= 45  # add ... nextafter: the driver cannot run on an empty list


def _args(item):
    args, params = generator.example_args(item.prim)
    assert not params
    return args


def _outcome(call):
    """What a call gives: ("value", type, dtype, array) or ("error", type, message)."""
    try:
        r = call()
    except Exception as e:  # noqa: BLE001  (the exception itself is compared)
        return ("error", type(e), str(e))
    if type(r) is Node:
        return ("node", Node, r.dtype, r.value.copy())
    return ("value", type(r), np.asarray(r).dtype, np.asarray(r).copy())


def _assert_same(name, funcgrad_call, numpy_call):
    got, expected = _outcome(funcgrad_call), _outcome(numpy_call)
    assert got[:3] == expected[:3], (name, got, expected)
    if got[0] == "value":
        np.testing.assert_array_equal(got[3], expected[3], err_msg=name, strict=True)


def _numpy(item):
    """NumPy's ufunc of the item's first name: its aliases are the same function
    (`fnp.radians is fnp.deg2rad`, though NumPy has two ufuncs, whose messages
    differ in the name only)."""
    return getattr(np, item.name)


def _gufunc(item):
    return _numpy(item).signature is not None


# --- plain arrays: NumPy's results and errors -------------------------------------------------


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
def test_out_is_written_and_returned(name, item):
    args = _args(item)
    expected = _numpy(item)(*args)
    for how in ("keyword", "positional", "tuple"):
        out = np.full_like(expected, 7.0)
        if how == "keyword":
            r = getattr(fnp, name)(*args, out=out)
        elif how == "positional":
            r = getattr(fnp, name)(*args, out)
        else:
            r = getattr(fnp, name)(*args, out=(out,))
        assert r is out, (name, how)
        np.testing.assert_array_equal(out, expected, strict=True)


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
def test_where_with_out_keeps_the_masked_entries(name, item):
    args = _args(item)
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    mask = (np.arange(int(np.prod(shape))) % 2 == 0).reshape(shape)

    def call(module):
        out = np.full(shape, 7.0)
        f = getattr(module, name) if module is fnp else _numpy(item)
        r = f(*args, out=out, where=mask)
        return r, out

    # NumPy's outcome, an error for a generalized ufunc (matmul takes no where=)
    _assert_same(name, lambda: call(fnp)[1], lambda: call(np)[1])
    if not _gufunc(item):
        r, out = call(fnp)
        assert r is out and np.all(out[~mask] == 7.0)


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
def test_where_without_out_is_refused_not_garbage(name, item):
    args = _args(item)
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    with pytest.raises((ArgumentTypeError, TypeError)) as info:
        getattr(fnp, name)(*args, where=np.zeros(shape, bool))
    if not _gufunc(item):
        assert info.type is ArgumentTypeError
        assert f"funcgrad.numpy.{item.name}(" in str(info.value) and "where=" in str(info.value)
    # a where that selects everything is NumPy's default: the whole result
    if not _gufunc(item):
        np.testing.assert_array_equal(
            getattr(fnp, name)(*args, where=True), _numpy(item)(*args), strict=True
        )


KEYWORDS = [
    {"dtype": np.float32},
    {"dtype": np.complex128},
    {"dtype": np.int64},  # same_kind: NumPy's casting error
    {"dtype": np.int64, "casting": "unsafe"},
    {"dtype": np.float32, "casting": "safe"},  # float64 -> float32 is not safe
    {"dtype": np.float64, "casting": "no"},
    {"casting": "no"},  # with a float32 and a float64 input: NumPy refuses
    {"casting": "equiv"},
    {"casting": "bogus"},
    {"order": "F"},
    {"order": "Z"},
    {"subok": False},
    {"bogus": 1},
]


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
@pytest.mark.parametrize(
    "kwargs", KEYWORDS, ids=lambda k: ",".join(f"{a}={v}" for a, v in k.items())
)
def test_keywords_on_arrays_match_numpy(name, item, kwargs):
    args = list(_args(item))
    args[0] = args[0].astype(np.float32)  # a mixed call: casting="no" must see it
    _assert_same(
        name,
        lambda: getattr(fnp, name)(*args, **kwargs),
        lambda: _numpy(item)(*args, **kwargs),
    )


# --- graph nodes: dtype= is differentiable, out= and where= are refused --------------------------


def _node_call(name, args, kwargs):
    return getattr(fnp, name)(*(fg.leaf(a) for a in args), **kwargs)


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
@pytest.mark.parametrize(
    "kwargs", KEYWORDS, ids=lambda k: ",".join(f"{a}={v}" for a, v in k.items())
)
def test_keywords_on_nodes_check_as_numpy_and_compute_its_dtype(name, item, kwargs):
    args = list(_args(item))
    args[0] = args[0].astype(np.float32)
    expected = _outcome(lambda: _numpy(item)(*args, **kwargs))
    got = _outcome(lambda: _node_call(name, args, kwargs))
    if expected[0] == "error":
        # NumPy's exception; or funcgrad's for what a node cannot do; or the primitive's
        # OpError naming it, of NumPy's class (a ValueError: int64 to a negative power)
        assert got[0] == "error", got
        assert (
            got[1:] == expected[1:]
            or issubclass(got[1], ArgumentTypeError)
            or (issubclass(got[1], FuncgradError) and issubclass(got[1], expected[1]))
        ), (got, expected)
        return
    if got[0] == "error" and got[1] is DtypeError and "complex" in got[2]:
        return  # funcgrad's own refusal, naming it: fmax/fmin have no complex gradient rule
    # an integer or boolean result is piecewise constant: plain values (as fnp.astype gives)
    assert got[0] == ("node" if expected[2].kind in "fc" else "value"), got
    value = got[3]
    assert value.dtype == expected[2], (name, value.dtype, expected[2])
    # the primitive's forward on the inputs cast to NumPy's loop: NumPy's bits
    np.testing.assert_array_equal(value, expected[3], strict=True, err_msg=name)


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
def test_out_with_a_node_is_refused_naming_the_function(name, item):
    args = _args(item)
    out = np.zeros(np.broadcast_shapes(*(np.shape(a) for a in args)))
    before = out.copy()
    leaves = [fg.leaf(a) for a in args]
    f = getattr(fnp, name)
    ufunc = item.name  # the name in the messages: the first name (abs: absolute)
    for call in (
        lambda: f(*leaves, out=out),
        lambda: f(*leaves, out),
        lambda: f(*args, out=fg.leaf(out)),  # a node as out: a traced value is not written into
        lambda: f(*leaves, out=out, dtype=np.float64),
    ):
        with pytest.raises(
            ArgumentTypeError, match=rf"funcgrad\.numpy\.{ufunc}\(.*out= cannot be used"
        ):
            call()
    np.testing.assert_array_equal(out, before)  # nothing written
    with pytest.raises(ArgumentTypeError, match=rf"funcgrad\.numpy\.{ufunc}\(.*where="):
        f(*leaves, where=np.ones(out.shape, bool))


def _central_differences(f, args, i, h=1e-6):
    x = args[i].astype(np.float64)
    grad = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        hi = [*args[:i], up, *args[i + 1 :]]
        lo = [*args[:i], down, *args[i + 1 :]]
        grad[k] = (np.sum(f(*hi)) - np.sum(f(*lo))) / (2 * h)
    return grad


# ufuncs whose samples sit where finite differences see a step (a zero gradient elsewhere)
PIECEWISE = {"sign", "heaviside", "nextafter", "fmod", "remainder", "mod", "copysign"}


@pytest.mark.parametrize(("name", "item"), NAMES, ids=IDS)
@pytest.mark.parametrize(("given", "computed"), [("float32", "float64"), ("float64", "float32")])
def test_dtype_gradients_against_central_differences(name, item, given, computed):
    args = [a.astype(given) for a in _args(item)]
    f = getattr(fnp, name)
    argnums = tuple(range(len(args)))
    grads = fg.grad(lambda *a: fnp.sum(f(*a, dtype=computed)), argnums=argnums)(*args)
    np_f = _numpy(item)
    for i, g in enumerate(grads):
        assert g.dtype == np.dtype(given), (name, i, g.dtype)  # the input's dtype comes back
        if name in PIECEWISE and i > 0:
            continue
        expected = _central_differences(np_f, [a.astype(np.float64) for a in args], i)
        # computed in float32, the gradient is float32's; in float64 it is float64's cast
        tol = 2e-3 if "float32" in (given, computed) else 1e-6
        np.testing.assert_allclose(g, expected, rtol=tol, atol=tol, err_msg=f"{name} arg {i}")


AUTOGRAD_HAS = ("add", "multiply", "exp", "log", "sin", "tanh", "power", "arctan2", "matmul")


@pytest.mark.parametrize("name", AUTOGRAD_HAS)
def test_dtype_gradients_against_hips_autograd(name):
    agrad = requires("autograd").grad
    anp = requires("autograd.numpy")
    item = dict(NAMES)[name]
    args = [a.astype(np.float32) for a in _args(item)]
    for i in range(len(args)):
        g = fg.grad(lambda *a: fnp.sum(getattr(fnp, name)(*a, dtype=np.float64)), argnums=i)(*args)
        a64 = [a.astype(np.float64) for a in args]
        expected = agrad(lambda *a: anp.sum(getattr(anp, name)(*a)), i)(*a64)
        assert g.dtype == np.float32
        # computed in float64, the float64 gradient rounded once to float32
        np.testing.assert_array_equal(g, expected.astype(np.float32), strict=True)


def test_dtype_on_a_node_is_the_cast_then_the_op():
    x = np.array([0.1, 2.0, -1.5])
    y = fnp.exp(fg.leaf(x), dtype=np.float32)
    assert type(y) is Node and y.dtype == np.float32
    np.testing.assert_array_equal(y.value, np.exp(x.astype(np.float32)), strict=True)
    # the result is NumPy's float32 loop, bit for bit
    np.testing.assert_array_equal(y.value, np.exp(x, dtype=np.float32), strict=True)


def test_no_keyword_calls_are_unchanged():
    x = fg.leaf(np.array([0.5, 1.5]))
    for name in ("sin", "exp", "add"):
        f = getattr(fnp, name)
        args = (x,) * getattr(np, name).nin
        y = f(*args)
        assert type(y) is Node and y.prim is registry.get(name)
        assert all(a is x for a in y.inputs)
    # out=None and the keywords at NumPy's defaults give the same node as no keyword
    z = fnp.exp(x, out=None, casting="same_kind", order="K", dtype=None, subok=True, where=True)
    assert type(z) is Node and z.prim is registry.get("exp") and z.inputs == (x,)


def test_dtype_under_vmap_and_jit():
    xs = np.array([[0.1, 0.2], [0.3, 0.4]])
    f = lambda x: fnp.sin(x, dtype=np.float32)  # noqa: E731
    batched = fg.vmap(f)(xs)
    np.testing.assert_array_equal(batched, np.sin(xs, dtype=np.float32), strict=True)
    g = fg.jit(fg.grad(lambda x: fnp.sum(fnp.sin(x, dtype=np.float32))))
    for _ in range(2):
        np.testing.assert_allclose(g(xs), np.cos(xs.astype(np.float32)), rtol=1e-6)
