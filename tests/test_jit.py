"""`funcgrad.jit`, `funcgrad.make_graph` and `funcgrad.compile`.

The reference for a jitted function is the same function run eagerly: a
replayed plan makes the same NumPy calls on the same values, so results
agree bit for bit (gradients to 1 ulp), across retraces, with random draws
replayed from the same generator state. `compile` is checked against
PyTorch eager where PyTorch gives a reference.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.transforms.jit import JitWarning
from tests.references import requires

# --- random programs ---------------------------------------------------------------------

UNARY = ("sin", "cos", "tanh", "exp", "negative", "square", "arctan", "sinh", "absolute")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "hypot", "logaddexp")


def _bounded(v):
    return fnp.tanh(v)  # keeps every value in (-1, 1): no overflow whatever the program


@st.composite
def programs(draw):
    """A list of steps of a program of two arguments (see `run`)."""
    steps = []
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["unary", "binary", "branch", "int", "draw", "mask"]))
        if kind == "unary":
            steps.append((kind, draw(st.sampled_from(UNARY))))
        elif kind == "binary":
            steps.append((kind, draw(st.sampled_from(BINARY))))
        elif kind == "branch":
            ops = draw(st.tuples(st.sampled_from(UNARY), st.sampled_from(UNARY)))
            steps.append((kind, ops, draw(st.floats(-0.5, 0.5))))
        else:
            steps.append((kind, None))
    return steps


def run(steps, x, y):
    """Run a program: control flow on values, int() reads, random draws, comparison masks."""
    v = x
    for step in steps:
        kind = step[0]
        if kind == "unary":
            v = _bounded(getattr(fnp, step[1])(v))
        elif kind == "binary":
            v = _bounded(getattr(fnp, step[1])(v, y))
        elif kind == "branch":
            (a, b), t = step[1], step[2]
            v = _bounded(getattr(fnp, a)(v) if fnp.sum(v) > t else getattr(fnp, b)(v))
        elif kind == "int":
            k = int(fnp.sum(fnp.absolute(v)) > 1.0)  # 0 or 1, read in Python
            v = v * (k + 1.5)
        elif kind == "draw":
            v = (v + fnp.random.randn(*np.shape(x))) * 0.5
        else:  # a comparison used as data
            v = fnp.where(v > 0.0, v, 0.5 * v)
    return fnp.sum(v * v)


def _calls(jitted, plain, inputs, seed):
    fg.manual_seed(seed)
    got = [jitted(*args) for args in inputs]
    fg.manual_seed(seed)
    want = [plain(*args) for args in inputs]
    return got, want


@settings(max_examples=25, deadline=None)
@given(steps=programs(), data=st.data())
def test_random_programs_replay_bit_for_bit(steps, data):
    shape = data.draw(st.sampled_from([(), (3,), (2, 3)]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    inputs = [(rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape)) for _ in range(4)]
    inputs += [(-x, y) for x, y in inputs[:2]]  # flipped signs: other branches, retraces

    def f(x, y):
        return run(steps, x, y)

    got, want = _calls(fg.jit(f), f, inputs, 7)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)

    df = fg.grad(f, argnums=(0, 1))
    got, want = _calls(fg.jit(df), df, inputs, 7)
    for gs, ws in zip(got, want, strict=True):
        for g, w in zip(gs, ws, strict=True):
            np.testing.assert_array_max_ulp(np.asarray(g), np.asarray(w), maxulp=1)


# --- rules that read values ---------------------------------------------------------------

import funcgrad.nn.functional as F  # noqa: E402
import funcgrad.scipy.linalg as fsl  # noqa: E402

# Functions whose derivative rules read values (masks, signs, ties, zeros, Python tests):
# under jit those reads are steps or guards of the plan, not a reason to run eagerly.
VALUE_READERS = {
    "maximum/minimum": lambda x, y: fnp.maximum(x, y) * fnp.minimum(x, 2 * y),
    "abs/fabs/sign": lambda x, y: fnp.abs(x) * y + fnp.fabs(y) * fnp.sign(x),
    "clip": lambda x, y: fnp.clip(x, -0.5, 0.5) + fnp.clip(y, x, 1.0),
    "fmax/copysign": lambda x, y: fnp.fmax(x, y) + fnp.copysign(x, y),
    "relu/leaky": lambda x, y: F.relu(x) * y + F.leaky_relu(y, 0.1),
    "smooth_l1/huber": lambda x, y: F.smooth_l1_loss(x, y) + F.huber_loss(x, 2 * y, delta=0.5),
    "prod/cumprod": lambda x, y: fnp.prod(x) + fnp.cumprod(x * y)[-1],
    "max/min reductions": lambda x, y: fnp.max(x * y) - fnp.min(x) + fnp.amax(fnp.abs(y)),
    "where": lambda x, y: fnp.where(x > y, x * x, y),
    "max_pool (indices as a parameter)": lambda x, y: F.max_pool2d(
        fnp.reshape(x * y, (1, 1, 2, 3)), 2, stride=1
    ),
    "sort": lambda x, y: fnp.sort(x - y)[:3] * y[:3],
}


@pytest.mark.parametrize("name", list(VALUE_READERS))
def test_rules_that_read_values_are_part_of_the_plan(name):
    fn = VALUE_READERS[name]
    f = lambda x, y: fnp.sum(fn(x, y))  # noqa: E731
    df = fg.grad(f, argnums=(0, 1))
    jf, jdf = fg.jit(f), fg.jit(df)
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-1, 1, 6), rng.uniform(-1, 1, 6)
    cases = [(x, y), (y, x), (-x, y), (x, x.copy()), (np.zeros(6), y), (x, -y)]  # ties, zeros
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)  # no eager fallback
        for a, b in cases:
            np.testing.assert_array_equal(jf(a, b), f(a, b))
            for g, w in zip(jdf(a, b), df(a, b), strict=True):
                np.testing.assert_array_max_ulp(g, w, maxulp=1)
    plan = str(jdf.plan(x, y))
    assert "in a rule" in plan  # the rule's value read is a step of the plan
    assert jdf.cache_info()["plans"] <= 3  # guards, if any, retrace a few paths at most


def _tolist_mask(v):
    return np.array(v.tolist()) > 0  # a plain copy: the trace cannot follow it


def _out_mask(v):
    buf = np.empty(v.shape)
    np.greater(v, 0, out=buf)  # written into a plain array: computed, not followed
    return buf


def _asarray_mask(v):
    return np.asarray(v) > 0  # a plain array: no recipe (linalg rules did this)


def _custom_sign_rule(mask):
    from funcgrad.ops._util import value_of

    @fg.custom_vjp
    def f(x):
        return fnp.sin(x)

    def f_fwd(x):
        return f(x), x

    def f_bwd(x, ct):
        return (ct * mask(value_of(x)),)

    f.defvjp(f_fwd, f_bwd)
    return fg.jit(fg.grad(lambda x: fnp.sum(f(x)))), f_bwd


@pytest.mark.parametrize("mask", [_asarray_mask, _tolist_mask])
def test_a_value_read_the_trace_does_not_follow_runs_eagerly(mask):
    # Following values is opt-in (jit's list of rules, `follows_values` helpers): a rule
    # of one's own that reads a value runs eagerly, the warning naming the line.
    df, _ = _custom_sign_rule(mask)
    x = np.array([1.0, -1.0])
    with pytest.warns(JitWarning, match=r"runs eagerly.*test_jit\.py:\d+"):
        np.testing.assert_array_equal(df(x), [1.0, 0.0])  # the trace's own result: right
    np.testing.assert_array_equal(df(-x), [0.0, 1.0])  # eager from then on: still right


@pytest.mark.parametrize(("mask", "why"), [(_tolist_mask, "tolist"), (_out_mask, "out=")])
def test_a_followed_read_that_cannot_be_followed_runs_eagerly(mask, why, monkeypatch):
    import funcgrad.transforms.jit as jit_module

    df, f_bwd = _custom_sign_rule(mask)
    follows = jit_module._follows_read
    monkeypatch.setattr(jit_module, "_follows_read", lambda c: c is f_bwd.__code__ or follows(c))
    x = np.array([1.0, -1.0])
    with pytest.warns(JitWarning, match=f"runs eagerly.*{why}"):
        np.testing.assert_array_equal(df(x), [1.0, 0.0])
    np.testing.assert_array_equal(df(-x), [0.0, 1.0])


def _complex_inputs(n, shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) + 1j * rng.standard_normal(shape) for _ in range(n)]


def _leaves(out):
    return out if isinstance(out, tuple) else (out,)


def _max_diff(jf, f, argsets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitWarning)
        return max(
            float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
            for args in argsets
            for a, b in zip(_leaves(jf(*args)), _leaves(f(*args)), strict=True)
        )


def test_linalg_rules_that_read_values_do_not_bake_them_into_the_plan():
    # svd's VJP (complex U's phases), lu_factor's JVP (the pivots) read values with
    # np.asarray: not followed, so eager, never the first input's numbers again.
    svd_u = fg.grad(lambda a: fnp.sum(fnp.real(fnp.linalg.svd(a)[0])))
    assert _max_diff(fg.jit(svd_u), svd_u, [(a,) for a in _complex_inputs(4, (3, 3), 0)]) < 1e-9
    lu = lambda a, t: fg.jvp(lambda z: fsl.lu_factor(z)[0], (a,), (t,))[1]  # noqa: E731
    rng = np.random.default_rng(1)
    ms = [rng.standard_normal((3, 3)) for _ in range(4)]
    assert _max_diff(fg.jit(lu), lu, [(m, m.T.copy()) for m in ms]) < 1e-9


def test_compositions_that_read_values_are_seen_by_jit():
    rng = np.random.default_rng(2)
    cases = {
        "sort_complex": (lambda a: fnp.sort_complex(a) * 2, _complex_inputs(4, (5,), 3)),
        "real_if_close": (
            lambda a: fnp.real_if_close(a * 1.0) * 2,
            [rng.standard_normal(4) + 1j * s for s in (0.0, 1.0, 0.0, 1e-3)],
        ),
    }
    xp = np.linspace(0.0, 1.0, 6)
    fp = rng.standard_normal(6)
    cases["interp"] = (lambda x: fnp.interp(x, xp, fp), [rng.uniform(0, 1, 4) for _ in range(4)])
    g = fg.grad(lambda a: fnp.quantile(a, 0.3))
    cases["grad quantile"] = (g, [rng.standard_normal(7) for _ in range(4)])
    for f, inputs in cases.values():
        assert _max_diff(fg.jit(f), f, [(a,) for a in inputs]) < 1e-12


def test_no_buffer_reuse_after_a_primitive_whose_dtype_depends_on_values():
    def f(a):
        w = fnp.exp(fnp.diagonal(a)) * 2.0 + 1.0  # float64 buffers, dead before eigvals
        return fnp.sin(fnp.linalg.eigvals(a) * 3.0) * w

    rng = np.random.default_rng(1)
    ms = [rng.standard_normal((3, 3)) for _ in range(6)]
    kinds = [np.linalg.eigvals(m).dtype.kind for m in ms]
    assert kinds[1] == "f" and "c" in kinds  # traced on real eigenvalues, then complex ones
    jf = fg.jit(f)
    for m in [ms[1], *ms]:
        got, want = jf(m), f(m)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


# --- composition -------------------------------------------------------------------------


def loss(w, x):
    return fnp.sum(fnp.tanh(fnp.matmul(x, w)) ** 2)


W = np.random.default_rng(0).standard_normal((3, 2))
X = np.random.default_rng(1).standard_normal((4, 3))


def test_jit_of_transforms_matches_eager():
    v = np.random.default_rng(2).standard_normal(W.shape)
    for build in (
        lambda: fg.value_and_grad(loss),
        lambda: lambda w, x: fg.hvp(lambda w: loss(w, x), (w,), (v,)),
        lambda: fg.jacrev(lambda w, x: fnp.tanh(fnp.matmul(x, w))),
        lambda: fg.hessian(loss),
    ):
        eager, jitted = build(), fg.jit(build())
        for _ in range(2):  # the trace, then a replay
            with warnings.catch_warnings():
                warnings.simplefilter("error", JitWarning)  # vmap's finite checks: followed
                got = jitted(W, X)
            want = eager(W, X)
            for g, e in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want), strict=True):
                np.testing.assert_array_max_ulp(np.asarray(g), np.asarray(e), maxulp=1)


def test_jitted_training_step_with_an_optimizer():
    opt = fg.optimizers.adam(0.1)

    def step(w, state, x):
        value, g = fg.value_and_grad(loss)(w, x)
        updates, state = opt.update(g, state, w)
        return value, fg.optimizers.apply_updates(w, updates), state

    jstep = fg.jit(step)
    w1, s1 = W, opt.init(W)
    w2, s2 = W, opt.init(W)
    for _ in range(4):
        v1, w1, s1 = step(w1, s1, X)
        v2, w2, s2 = jstep(w2, s2, X)
        np.testing.assert_array_equal(v1, v2)
        np.testing.assert_array_max_ulp(w1, w2, maxulp=1)
    assert jstep.cache_info()["signatures"] == 1


def test_grad_vjp_jvp_of_a_jitted_function():
    f = lambda w: loss(w, X)  # noqa: E731
    jf = fg.jit(f)
    t = np.ones_like(W)
    for _ in range(2):  # traces its rules once, then replays them
        np.testing.assert_array_max_ulp(fg.grad(jf)(W), fg.grad(f)(W), maxulp=1)
        out, pull = fg.vjp(jf, W)
        np.testing.assert_array_max_ulp(pull(np.float64(2.0))[0], fg.vjp(f, W)[1](2.0)[0], 1)
        np.testing.assert_array_max_ulp(fg.jvp(jf, (W,), (t,))[1], fg.jvp(f, (W,), (t,))[1], 1)
    # second order goes through the nodes: checked against finite differences
    h = fg.hessian(jf)(W).reshape(6, 6)
    np.testing.assert_allclose(h, fg.hessian(f)(W).reshape(6, 6), rtol=1e-12, atol=1e-12)
    node = fg.grad(jf)(fg.leaf(W))  # a node of a jit_call graph: recorded on the nodes
    assert isinstance(node, fg.Node)


# --- guards, retracing, the cache -----------------------------------------------------------


def branchy(x):
    if fnp.sum(x) > 0:
        return fnp.sum(x * 2.0)
    return fnp.sum(x * 3.0)


def test_a_failed_guard_traces_the_other_path():
    f = fg.jit(branchy)
    x = np.array([1.0, 2.0])
    assert f(x) == 6.0 and f(-x) == -9.0 and f(x) == 6.0 and f(-x) == -9.0
    assert f.cache_info() == {"signatures": 1, "plans": 2, "retraces": 1}
    assert "raise GF(0)" in str(f.plan(x))


def test_retrace_warning_names_the_line():
    f = fg.jit(lambda x: fnp.sum(x) * int(fnp.sum(x)), max_retraces=3)
    with pytest.warns(JitWarning, match="keeps changing") as caught:
        for k in range(8):
            assert f(np.array([float(k)])) == k * k
    (w,) = [w for w in caught if issubclass(w.category, JitWarning)]  # once
    assert f"test_jit.py:{test_retrace_warning_names_the_line.__code__.co_firstlineno + 1}" in str(
        w.message
    )


def test_cache_is_bounded_and_keyed_by_signature():
    f = fg.jit(lambda x: fnp.sum(x * x), cache_size=2)
    for n in (1, 2, 3, 2):
        assert f(np.ones(n)) == n
    assert f.cache_info()["signatures"] == 2
    f(np.ones(2, np.float32))
    assert f.cache_info()["signatures"] == 2
    assert f(np.ones(2, np.float32)).dtype == np.float32


def test_static_argnums_and_python_numbers():
    f = fg.jit(lambda x, n, scale: fnp.sum(x**n) * scale, static_argnums=(1,))
    x = np.array([1.0, 2.0])
    assert f(x, 2, 1.5) == 7.5 and f(x, 3, 1.5) == 13.5 and f(x, 3, 2.0) == 18.0
    assert f.cache_info()["signatures"] == 3  # Python numbers are static by value


def test_random_draws_advance_the_generator():
    def f(x):
        return x + fnp.random.randn(3) + fnp.random.rand()

    jf, x = fg.jit(f), np.zeros(3)
    fg.manual_seed(3)
    want = [f(x) for _ in range(3)]
    fg.manual_seed(3)
    got = [jf(x) for _ in range(3)]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert not np.array_equal(got[1], got[2])
    assert "D0()" in str(jf.plan(x))


def test_a_draw_changed_by_numpy_runs_eagerly_with_a_warning():
    def f(x):
        mask = fnp.random.rand(3) > 0.5  # a NumPy comparison of a draw: no plan can replay it
        return x * mask

    jf, x = fg.jit(f), np.ones(3)
    fg.manual_seed(1)
    with pytest.warns(JitWarning, match="runs eagerly"):
        got = [jf(x) for _ in range(4)]
    fg.manual_seed(1)
    want = [f(x) for _ in range(4)]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_plan_optimizations():
    def f(x):
        a = fnp.sin(x) * 1.0  # x * 1: an alias
        b = fnp.sin(x)  # the same call again: computed once
        unused = fnp.exp(x)  # dead: not in the plan  # noqa: F841
        c = fnp.cos(np.ones(3))  # no argument in it: a constant
        return a + b + c

    plan = str(fg.jit(f).plan(np.zeros(3)))
    assert plan.count("sin") == 1 and "exp" not in plan and "cos" not in plan
    assert "* 1.0" not in plan


def test_an_elementwise_step_is_written_into_an_operand_read_for_the_last_time():
    rng = np.random.default_rng(3)
    X, w = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))

    def loss(w):
        return fnp.sum(fnp.tanh(fnp.matmul(X, w)) * 3.0)

    vg = fg.value_and_grad(loss)
    jvg = fg.jit(vg)
    plan = str(jvg.plan(w))
    # tanh's VJP, ct * (1.0 - y * y): `1.0 - t` takes t's array (dead after it), as
    # hand-written in-place NumPy would, and the forward's tanh takes the matmul's
    assert re.search(r"= Usubtract\(1\.0, (v\d+), out=\1\)", plan), plan
    assert re.search(r"= Utanh\((v\d+), out=\1\)", plan), plan
    value, g = vg(w)
    for _ in range(3):  # each replay has buffers of its own: the same numbers every time
        jvalue, jg = jvg(w)
        assert jvalue == value and jg.tobytes() == g.tobytes()


def test_views_and_indexes_of_arrays_are_their_methods_in_the_plan():
    rows = np.array([0, 2, 2])

    def f(x):
        y = fnp.reshape(fnp.transpose(fnp.sin(x)), (4, 3))
        return fnp.sum(y[rows] * 2.0)

    x = np.random.default_rng(4).standard_normal((3, 4))
    jvg = fg.jit(fg.value_and_grad(f))
    plan = str(jvg.plan(x))
    assert ".transpose(" in plan and ".reshape(" in plan and re.search(r"= v\d+\[K\d+\]", plan)
    assert "Uadd.reduce(" in plan  # the sum
    value, g = fg.value_and_grad(f)(x)
    for _ in range(2):
        jvalue, jg = jvg(x)
        assert jvalue == value and jg.tobytes() == g.tobytes()


def test_errors_name_jit():
    with pytest.raises(TypeError, match="funcgrad.jit: expected a function"):
        fg.jit(3)
    with pytest.raises(TypeError, match="funcgrad.jit: a static argument .* not hashable"):
        fg.jit(lambda x, d: x, static_argnums=1)(np.ones(2), {"a": [1]})


# --- make_graph ------------------------------------------------------------------------------


def test_make_graph_lists_and_draws_the_trace():
    g = fg.make_graph(lambda x: fnp.sum(fnp.sin(x) * 2.0))(np.zeros(3))
    text = str(g)
    assert text.splitlines()[0] == "{ lambda a0:float64[3] ."
    assert "= sin a0" in text and "multiply v1 2.0" in text and text.endswith("in (v3) }")
    assert [n.prim.name for n in g.nodes() if n.prim] == ["sin", "multiply", "sum"]
    assert "flowchart" in g.to_mermaid() and "digraph" in g.to_dot()


# --- compile -----------------------------------------------------------------------------


def test_compile_function_matches_pytorch():
    torch = requires("torch")

    def f(x, w):
        return (torch.tanh(x @ w) ** 2).sum() if isinstance(x, torch.Tensor) else None

    def g(mod):
        return lambda x, w: (mod.tanh(x @ w) ** 2).sum()

    cf = fg.compile(g(fg))
    for k in range(3):
        x = fg.tensor(X + k, requires_grad=True)
        w = fg.tensor(W, requires_grad=True)
        out = cf(x, w)
        out.backward()
        tx = torch.tensor(X + k, requires_grad=True)
        tw = torch.tensor(W, requires_grad=True)
        tout = g(torch)(tx, tw)
        tout.backward()
        np.testing.assert_allclose(out.item(), tout.item(), rtol=1e-12)
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert f(tx, tw) is not None


def test_compiled_module_training_matches_eager():
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 1))
    twin = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.Tanh(), fg.nn.Linear(4, 1))
    twin.load_state_dict(model.state_dict())
    compiled = fg.compile(model)
    opts = [fg.optim.SGD(m.parameters(), lr=0.1) for m in (model, twin)]
    x = fg.tensor(X)
    for _ in range(3):
        losses = []
        for m, opt in zip((compiled, twin), opts, strict=True):
            opt.zero_grad()
            out = (m(x) ** 2).mean()
            out.backward()
            opt.step()
            losses.append(out.item())
        assert losses[0] == losses[1]
    for p, q in zip(model.parameters(), twin.parameters(), strict=True):
        np.testing.assert_array_max_ulp(p.detach().numpy(), q.detach().numpy(), maxulp=2)


def test_compile_runs_eagerly_outside_its_contract():
    seen = []

    def f(x):
        seen.append(x.sum().item())  # a Python side effect reading a value
        return x * 2

    cf = fg.compile(f)
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(RuntimeWarning, match=r"funcgrad.compile: f runs eagerly .*item"):
        out = cf(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning only
        out2 = cf(x * 2)
    assert out.tolist() == [2.0, 4.0] and out2.tolist() == [4.0, 8.0]
    assert seen[-2:] == [3.0, 6.0]

    def g(x):
        x.add_(1.0)  # changes its argument
        return x * 2

    cg = fg.compile(g)
    y = fg.tensor([1.0, 2.0])
    with pytest.warns(RuntimeWarning, match="runs eagerly .*in-place"):
        out = cg(y)
    assert out.tolist() == [4.0, 6.0] and y.tolist() == [2.0, 3.0]  # as eager: y changed
