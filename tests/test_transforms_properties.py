"""Property tests of the composable transforms (issue 3's "Tests").

Random programs come from the registry fuzzer (`tests/hardening/fuzz.py`),
drawn with input shapes capped at 3x3 (`SmallDraw`) so that full Jacobians
and Hessians stay cheap. On them:

* `jacfwd == jacrev == jacobian` (pytree output, several arguments);
* `jvp` and `vjp` agree by the dot-product identity `<u, J v> = <J^T u, v>`;
* `hessian` is symmetric and matches central differences of `grad`;
* `hvp(f, x, v) == hessian(f)(x) @ v`; `jacfwd(jacrev(f)) == hessian(f)`;
* `grad(lambda x: jvp(f, (x,), (v,))[1])` matches central differences;
* `grad` over dict/list/None parameters equals `grad` over the flat arguments;
* a graph hooked by `with_hooks` gives the unhooked gradient transformed by
  the hook (computed independently, from the original graph), while the
  original graph still gives the old gradient.

Also: pytrees round-trip (optree as the oracle for the leaves), zero
derivatives never raise, and `checkpoint` keeps gradients while the traced
graph has fewer nodes holding values.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.graph import Node
from funcgrad.tree import tree_flatten, tree_leaves, tree_map, tree_unflatten
from tests.hardening.fuzz import draw_program, run, scaled_tanh, tolerance
from tests.references import requires
from tests.strategies import Draw, assert_close

EPS = 1e-6


class SmallDraw(Draw):
    """`Draw` with shapes of at most two axes of at most three elements (when allowed)."""

    def shape(self, min_dims=0, max_dims=3, min_side=1, max_side=4) -> tuple:
        return super().shape(
            min_dims, max(min_dims, min(max_dims, 2)), min_side, max(min_side, min(max_side, 3))
        )


# --- helpers -------------------------------------------------------------------------------


def _program(data, second_order=False):
    g = SmallDraw(data)
    program = draw_program(g, second_order=second_order, max_steps=5)
    note(program.describe())
    return g, program


def _scalar_f(program):
    return lambda *xs: run(program, *xs)


def _vector_f(program):
    """A pytree-valued function of the program: its last value and its output."""

    def f(*xs):
        pool: list = []
        out = run(program, *xs, values=pool)
        return {"last": pool[-1], "out": out}

    return f


def _val(x):
    return x.value if type(x) is Node else np.asarray(x)


def _matrix(jac, out_vals, xs):
    """Assemble a Jacobian (output tree outside, a tuple over the arguments inside) as a matrix."""
    blocks = [np.asarray(b, np.float64) for b in tree_leaves(jac)]
    n = len(xs)
    assert len(blocks) == len(out_vals) * n
    rows = []
    for j, o in enumerate(out_vals):
        row = []
        for k, x in enumerate(xs):
            b = blocks[j * n + k]
            assert b.shape == np.shape(o) + np.shape(x), (b.shape, np.shape(o), np.shape(x))
            row.append(b.reshape(np.size(o), np.size(x)))
        rows.append(np.hstack(row))
    return np.vstack(rows)


def _flat(arrays):
    return np.concatenate([np.ravel(np.asarray(a, np.float64)) for a in arrays])


def _split(vec, xs):
    out, i = [], 0
    for x in xs:
        n = np.size(x)
        out.append(vec[i : i + n].reshape(np.shape(x)).astype(np.asarray(x).dtype))
        i += n
    return out


def _directions(g, xs):
    return tuple(g.array(np.shape(x), -1.0, 1.0) for x in xs)


def _inner(a, b):
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def _fd_hessian(program, xs):
    """Central differences of `grad`, one input element at a time: an N x N matrix."""
    n = len(xs)
    grad_f = fg.grad(_scalar_f(program), argnums=tuple(range(n)))
    x0 = _flat(xs)
    cols = []
    for k in range(x0.size):
        e = np.zeros_like(x0)
        e[k] = EPS
        plus = _flat(grad_f(*_split(x0 + e, xs)))
        minus = _flat(grad_f(*_split(x0 - e, xs)))
        cols.append((plus - minus) / (2 * EPS))
    return np.stack(cols, axis=1)


def _close(a, b, rtol, what):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    scale = float(np.max(np.abs(b), initial=0.0))
    assert_close(a, b, rtol, scale=scale, what=what)


# --- Jacobians, forward and reverse --------------------------------------------------------


@given(data=st.data())
def test_jacfwd_equals_jacrev_and_jacobian(data):
    _, program = _program(data)
    xs = program.inputs
    argnums = tuple(range(len(xs)))
    f = _vector_f(program)
    out = f(*xs)
    out_vals = [_val(o) for o in tree_leaves(out)]
    j_fwd = fg.jacfwd(f, argnums=argnums)(*xs)
    j_rev = fg.jacrev(f, argnums=argnums)(*xs)
    j_auto = fg.jacobian(f, argnums=argnums)(*xs)
    for j in (j_fwd, j_rev, j_auto):
        assert sorted(j) == ["last", "out"]
        assert all(isinstance(j[k], tuple) and len(j[k]) == len(xs) for k in j)
    m_rev = _matrix(j_rev, out_vals, xs)
    _close(_matrix(j_fwd, out_vals, xs), m_rev, 1e-10, "jacfwd vs jacrev")
    _close(_matrix(j_auto, out_vals, xs), m_rev, 1e-10, "jacobian vs jacrev")


@given(data=st.data())
def test_jvp_and_vjp_satisfy_the_dot_product_identity(data):
    g, program = _program(data)
    xs = program.inputs
    f = _vector_f(program)
    v = _directions(g, xs)
    out, t_out = fg.jvp(f, xs, v)
    out2, vjp_fn = fg.vjp(f, *xs)
    u = tree_map(lambda o: g.array(np.shape(o), -1.0, 1.0), out)
    ct = vjp_fn(u)
    assert len(ct) == len(xs)
    for c, x in zip(ct, xs, strict=True):
        assert np.shape(c) == np.shape(x)
    u_l, t_l = tree_leaves(u), tree_leaves(t_out)
    lhs = sum(_inner(a, b) for a, b in zip(u_l, t_l, strict=True))
    rhs = sum(_inner(a, b) for a, b in zip(ct, v, strict=True))
    scale = sum(_inner(np.abs(a), np.abs(b)) for a, b in zip(ct, v, strict=True)) + sum(
        _inner(np.abs(a), np.abs(b)) for a, b in zip(u_l, t_l, strict=True)
    )
    note(f"<u, J v> = {lhs!r}, <J^T u, v> = {rhs!r}")
    assert abs(lhs - rhs) <= 1e-9 * (scale + 1.0)
    for a, b in zip(tree_leaves(out), tree_leaves(out2), strict=True):
        np.testing.assert_array_equal(_val(a), _val(b))


# --- Hessians --------------------------------------------------------------------------------


@given(data=st.data())
def test_hessian_is_symmetric_and_matches_finite_differences_of_grad(data):
    _, program = _program(data, second_order=True)
    xs = program.inputs
    argnums = tuple(range(len(xs)))
    h = _matrix(fg.hessian(_scalar_f(program), argnums=argnums)(*xs), xs, xs)
    _close(h, h.T, 1e-9, "hessian symmetry")
    _close(
        h,
        _fd_hessian(program, xs),
        10 * tolerance(program),
        "hessian vs central differences of grad",
    )


@given(data=st.data())
def test_hvp_equals_hessian_times_v(data):
    g, program = _program(data, second_order=True)
    xs = program.inputs
    argnums = tuple(range(len(xs)))
    f = _scalar_f(program)
    v = _directions(g, xs)
    h = _matrix(fg.hessian(f, argnums=argnums)(*xs), xs, xs)
    hv = fg.hvp(f, xs, v)
    hv = (hv,) if len(xs) == 1 else hv
    for a, x in zip(hv, xs, strict=True):
        assert np.shape(a) == np.shape(x)
    _close(_flat(hv), h @ _flat(v), 1e-9, "hvp vs hessian @ v")


@given(data=st.data())
def test_jacfwd_of_jacrev_is_the_hessian(data):
    _, program = _program(data, second_order=True)
    xs = program.inputs
    argnums = tuple(range(len(xs)))
    f = _scalar_f(program)
    h = _matrix(fg.hessian(f, argnums=argnums)(*xs), xs, xs)
    fr = _matrix(fg.jacfwd(fg.jacrev(f, argnums=argnums), argnums=argnums)(*xs), xs, xs)
    _close(fr, h, 1e-9, "jacfwd(jacrev(f)) vs hessian(f)")


@given(data=st.data())
def test_grad_of_jvp_matches_finite_differences(data):
    g, program = _program(data, second_order=True)
    xs = program.inputs
    n = len(xs)
    f = _scalar_f(program)
    v = _directions(g, xs)
    w = _directions(g, xs)

    def directional(*ys):
        return fnp.sum(fg.jvp(f, ys, v)[1])

    grads = fg.grad(directional, argnums=tuple(range(n)))(*xs)
    analytic = sum(_inner(a, b) for a, b in zip(grads, w, strict=True))
    scale = sum(_inner(np.abs(a), np.abs(b)) for a, b in zip(grads, w, strict=True))
    plus = directional(*(x + EPS * t for x, t in zip(xs, w, strict=True)))
    minus = directional(*(x - EPS * t for x, t in zip(xs, w, strict=True)))
    numeric = float(_val(plus) - _val(minus)) / (2 * EPS)
    bound = 10 * tolerance(program) * (abs(analytic) + scale + 1.0)
    note(f"analytic {analytic!r}, numeric {numeric!r}, bound {bound:.3g}")
    assert abs(numeric - analytic) <= bound


# --- pytrees ---------------------------------------------------------------------------------

_leaves = st.one_of(st.integers(-5, 5), st.floats(-1.0, 1.0), st.none())
_trees = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text("abcdef", min_size=1, max_size=3), children, max_size=4),
    ),
    max_leaves=30,
)


@given(tree=_trees)
def test_pytree_round_trip(tree):
    leaves, treedef = tree_flatten(tree)
    assert tree_unflatten(treedef, leaves) == tree
    # optree (None an empty subtree, dict keys sorted, as in JAX) is the oracle for the leaves.
    optree = requires("optree")
    assert leaves == optree.tree_flatten(tree)[0]
    assert tree_leaves(tree) == leaves
    # Replacing the leaves keeps the structure; mapping keeps it too.
    marked = tree_unflatten(treedef, [("leaf", k) for k in range(len(leaves))])
    assert tree_flatten(marked, is_leaf=lambda x: isinstance(x, tuple) and x[:1] == ("leaf",))[
        0
    ] == [("leaf", k) for k in range(len(leaves))]
    assert tree_flatten(tree_map(lambda x: x, tree))[1] == treedef


@given(data=st.data())
def test_grad_over_dict_params_equals_grad_over_flat_arguments(data):
    g, program = _program(data)
    xs = program.inputs
    n = len(xs)
    unused = g.array((2,), -1.0, 1.0)
    params = {"first": xs[0], "rest": list(xs[1:]), "nothing": None, "unused": (unused,)}

    def loss(p):
        return run(program, p["first"], *p["rest"])

    got = fg.grad(loss)(params)
    expected = fg.grad(_scalar_f(program), argnums=tuple(range(n)))(*xs)
    assert sorted(got) == ["first", "nothing", "rest", "unused"]
    assert (
        got["nothing"] is None
        and isinstance(got["rest"], list)
        and isinstance(got["unused"], tuple)
    )
    for a, b in zip([got["first"], *got["rest"]], expected, strict=True):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got["unused"][0], np.zeros(2))


# --- hooks -------------------------------------------------------------------------------------


@given(data=st.data())
def test_hooked_gradient_is_the_unhooked_one_transformed_by_the_hook(data):
    g, program = _program(data)
    leaves = [fg.leaf(x) for x in program.inputs]
    pool: list = []
    y = run(program, *leaves, values=pool)
    candidates = [i for i, v in enumerate(pool) if type(v) is Node]
    i = g.choice(candidates)
    h = pool[i]
    kind = g.choice(["scale", "affine", "none"])
    c = g.array(h.shape, -1.0, 1.0)
    seen = []

    def hook(ct):
        seen.append(np.array(ct))
        if kind == "scale":
            return ct * 3.0
        if kind == "affine":
            return ct * 3.0 + c
        return None

    note(f"hooked v{i} ({'leaf' if h.prim is None else h.prim.name}, shape {h.shape}), {kind}")
    old = fg.backward(y, wrt=leaves)
    old = [np.array(old[x]) for x in leaves]
    # Independently, from the original graph: ct_h is the total cotangent of h;
    # the paths through h contribute J_h^T ct_h, which the hook turns into J_h^T hook(ct_h).
    ct_h = np.array(fg.backward(y, wrt=[h])[h])
    replaced = {"scale": ct_h * 3.0, "affine": ct_h * 3.0 + c, "none": ct_h}[kind]
    through_old = fg.backward(h, cotangent=ct_h, wrt=leaves)
    through_new = fg.backward(h, cotangent=np.asarray(replaced, h.dtype), wrt=leaves)
    expected = [o - through_old[x] + through_new[x] for o, x in zip(old, leaves, strict=True)]

    y_hooked = fg.with_hooks(y, {h: hook})
    assert type(y_hooked) is Node and y_hooked is not y
    new = fg.backward(y_hooked, wrt=leaves)
    assert len(seen) == 1, "the hook runs once, on the total cotangent"
    np.testing.assert_allclose(seen[0], ct_h, rtol=1e-12, atol=1e-12)
    for x, e in zip(leaves, expected, strict=True):
        scale = max(float(np.max(np.abs(e), initial=0.0)), 1.0)
        np.testing.assert_allclose(new[x], e, rtol=1e-10, atol=1e-10 * scale)
    # The original graph is untouched: differentiated again, it gives the old gradient.
    again = fg.backward(y, wrt=leaves)
    for x, o in zip(leaves, old, strict=True):
        np.testing.assert_array_equal(again[x], o)
    assert len(seen) == 1


def test_hook_on_a_leaf_multiplies_its_gradient():
    x, w = fg.leaf(np.array([0.5, -1.0, 2.0])), fg.leaf(np.array([1.5, 0.3, -0.7]))
    y = fnp.sum(fnp.tanh(x * w) * x)
    old = fg.backward(y)
    y2 = fg.with_hooks(y, {x: lambda ct: ct * 3.0})
    new = fg.backward(y2, wrt=[x, w])
    np.testing.assert_allclose(new[x], 3.0 * old[x], rtol=1e-15)
    np.testing.assert_array_equal(new[w], old[w])
    np.testing.assert_array_equal(fg.backward(y)[x], old[x])


# --- zero derivatives never raise ---------------------------------------------------------


def test_derivative_of_a_linear_function_is_zero_not_an_error():
    d2 = fg.grad(fg.grad(lambda x: 2 * x))(1.0)
    assert d2 == 0.0 and type(d2) is float
    assert fg.grad(fg.grad(fg.grad(lambda x: 2 * x)))(1.0) == 0.0
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_array_equal(fg.hessian(lambda v: fnp.sum(2.0 * v))(x), np.zeros((3, 3)))
    np.testing.assert_array_equal(fg.hvp(lambda v: fnp.sum(2.0 * v), (x,), (x,)), np.zeros(3))
    np.testing.assert_array_equal(
        fg.grad(lambda v: fnp.sum(fg.grad(lambda u: fnp.sum(u * 2.0))(v)))(x), np.zeros(3)
    )


@pytest.mark.parametrize("transform", [fg.jacfwd, fg.jacrev, fg.jacobian])
def test_unused_inputs_get_zero_jacobians(transform):
    x, z = np.array([0.3, -1.2]), np.ones((2, 2))
    jx, jz = transform(lambda a, b: fnp.sin(a), argnums=(0, 1))(x, z)
    np.testing.assert_allclose(jx, np.diag(np.cos(x)))
    assert jz.shape == (2, 2, 2) and not jz.any()


def test_unused_inputs_get_zero_hessian_blocks():
    x, z = np.array([0.3, -1.2]), np.ones(3)
    h = fg.hessian(lambda a, b: fnp.sum(fnp.sin(a)), argnums=(0, 1))(x, z)
    np.testing.assert_allclose(h[0][0], np.diag(-np.sin(x)))
    assert h[0][1].shape == (2, 3) and not h[0][1].any()
    assert h[1][0].shape == (3, 2) and not h[1][0].any()
    assert h[1][1].shape == (3, 3) and not h[1][1].any()


# --- checkpointing ------------------------------------------------------------------------------

LAYERS, WIDTH, BATCH = 10, 8, 4


def _layer(h, w, b):
    return fnp.tanh(h @ w + b)


def _mlp(x, params, ckpt):
    layer = fg.checkpoint(_layer) if ckpt else _layer
    h = x
    for w, b in params:
        h = layer(h, w, b)
    return fnp.sum(h * h)


def _mlp_inputs():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, WIDTH))
    params = [
        (rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH), rng.normal(size=WIDTH) * 0.1)
        for _ in range(LAYERS)
    ]
    return x, params


def test_checkpoint_gives_the_same_gradient():
    x, params = _mlp_inputs()
    g_plain = fg.grad(lambda p, x: _mlp(x, p, False), argnums=(0, 1))(params, x)
    g_ckpt = fg.grad(lambda p, x: _mlp(x, p, True), argnums=(0, 1))(params, x)
    flat_plain, def_plain = tree_flatten(g_plain)
    flat_ckpt, def_ckpt = tree_flatten(g_ckpt)
    assert def_plain == def_ckpt and len(flat_plain) == 2 * LAYERS + 1
    assert any(np.abs(a).max() > 1e-3 for a in flat_plain)
    for a, b in zip(flat_ckpt, flat_plain, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    # Forward mode through the checkpointed layers agrees too.
    v = np.random.default_rng(1).normal(size=x.shape)
    t_plain = fg.jvp(lambda x: _mlp(x, params, False), (x,), (v,))[1]
    t_ckpt = fg.jvp(lambda x: _mlp(x, params, True), (x,), (v,))[1]
    np.testing.assert_allclose(t_ckpt, t_plain, rtol=1e-12)


def test_checkpoint_leaves_fewer_nodes_holding_values():
    x, params = _mlp_inputs()
    lx = fg.leaf(x)
    lp = [(fg.leaf(w), fg.leaf(b)) for w, b in params]
    out_plain = _mlp(lx, lp, False)
    out_ckpt = _mlp(lx, lp, True)
    n_leaves = 1 + 2 * LAYERS
    plain = fg.toposort(out_plain)
    ckpt = fg.toposort(out_ckpt)
    # Without: matmul, add, tanh per layer, then multiply and sum; with: one
    # checkpoint_call per layer in their place.
    assert len(plain) == n_leaves + 3 * LAYERS + 2
    assert len(ckpt) == n_leaves + LAYERS + 2
    assert len(ckpt) < len(plain)
    assert sum(n.prim is not None and n.prim.name == "checkpoint_call" for n in ckpt) == LAYERS
    assert all(n.value is not None for n in plain + ckpt)
    # Same gradients from the two graphs (funcgrad.backward on the nodes).
    g_plain, g_ckpt = fg.backward(out_plain), fg.backward(out_ckpt)
    for node in [lx, *(n for pair in lp for n in pair)]:
        np.testing.assert_allclose(g_ckpt[node], g_plain[node], rtol=1e-13, atol=1e-15)


def test_jacfwd_of_a_custom_vjp_gives_arrays():
    # A saved example of the property test above: vmap of linearize's JVP (jacfwd from 8 input
    # elements) through a custom_vjp returned graph nodes - the forward's residual nodes went
    # into the transposed rule and out in a batch.
    def f(a, b, c):
        return {"last": scaled_tanh(a, a), "out": fnp.sum(c) * b}

    xs = (np.array(0.55), np.array(-0.92), np.linspace(-1.0, 1.0, 6).reshape(2, 3))
    forward = fg.jacfwd(f, argnums=(0, 1, 2))(*xs)
    reverse = fg.jacrev(f, argnums=(0, 1, 2))(*xs)
    for got, want in zip(tree_leaves(forward), tree_leaves(reverse), strict=True):
        assert type(got) is np.ndarray
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    out, f_jvp = fg.linearize(lambda a: scaled_tanh(a, a), np.array(0.5))
    batched = fg.vmap(f_jvp)(np.ones(8))
    assert type(batched) is np.ndarray
    np.testing.assert_allclose(batched, np.full(8, f_jvp(np.array(1.0))), rtol=1e-15)
