"""`funcgrad.vmap` and `funcgrad.func.vmap`: axes, composition, randomness, errors, the fallback.

Each result is compared with the loop it stands for (`stack([f(x) for x in
xs])`); the compositions (`vmap(grad)`, `grad(vmap)`, `jvp`/`vjp` of vmap,
nested vmaps, Jacobians, custom rules, checkpoint) with the same computation
done one example at a time.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import func
from funcgrad.transforms.batching import BatchingWarning, looped_primitives

RNG = np.random.default_rng(20)
X = RNG.standard_normal((4, 3))
Y = RNG.standard_normal((4, 3))
W = RNG.standard_normal((3, 2))


def _loop(f, *args, axes=None):
    axes = axes or (0,) * len(args)
    n = next(np.shape(a)[ax] for a, ax in zip(args, axes, strict=True) if ax is not None)
    outs = [
        f(*[a if ax is None else np.take(a, k, axis=ax) for a, ax in zip(args, axes, strict=True)])
        for k in range(n)
    ]
    return fg.tree.tree_map(lambda *xs: np.stack(xs), *outs)


def _close(a, b, tol=1e-12):
    for x, y in zip(fg.tree.tree_leaves(a), fg.tree.tree_leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)


# --- axes ------------------------------------------------------------------------------------


def test_in_axes_ints_none_negative_and_out_axes():
    f = lambda x, w: fnp.tanh(fnp.matmul(x, w))  # noqa: E731
    _close(fg.vmap(f, in_axes=(0, None))(X, W), _loop(f, X, W, axes=(0, None)))
    _close(fg.vmap(f, in_axes=(-1, None))(X.T, W), _loop(f, X, W, axes=(0, None)))
    got = fg.vmap(f, in_axes=(0, None), out_axes=-1)(X, W)
    _close(got, np.moveaxis(_loop(f, X, W, axes=(0, None)), 0, -1))
    assert fg.vmap(f, in_axes=[1, None])(X.T, W).shape == (4, 2)  # a list: one entry per argument


def test_pytree_arguments_and_prefixes():
    params = {"w": W, "b": np.ones(2)}
    f = lambda p, x: fnp.matmul(x, p["w"]) + p["b"]  # noqa: E731
    got = fg.vmap(f, in_axes=({"w": None, "b": None}, 0))(params, X)
    _close(got, X @ W + 1.0)
    got = fg.vmap(f, in_axes=(None, 0))(params, X)  # None for the whole dict
    _close(got, X @ W + 1.0)
    bs = RNG.standard_normal((4, 2))
    got = fg.vmap(f, in_axes=({"w": None, "b": 0}, 0))({"w": W, "b": bs}, X)
    _close(got, X @ W + bs)
    pair = fg.vmap(lambda x: (x.sum(), {"m": x * 2.0}), out_axes=(0, {"m": 1}))(X)
    _close(pair[0], X.sum(1))
    _close(pair[1]["m"], (X * 2.0).T)


def test_keyword_arguments_are_mapped_over_axis_0():
    got = fg.vmap(lambda x, *, y: x * y)(X, y=Y)
    _close(got, X * Y)


def test_unbatched_outputs_broadcast_and_axis_size():
    got = fg.vmap(lambda x, c: c * 2.0, in_axes=(0, None))(X, np.ones(2))
    _close(got, np.full((4, 2), 2.0))
    assert fg.vmap(lambda c: c, in_axes=None, axis_size=3)(np.ones(2)).shape == (3, 2)
    assert fg.vmap(lambda x: np.float64(1.0), out_axes=None)(X) == 1.0


def test_chunk_size_gives_the_same_result():
    f = lambda x: fnp.sum(fnp.sin(x) ** 2)  # noqa: E731
    _close(fg.vmap(f, chunk_size=3)(X), fg.vmap(f)(X))
    _close(fg.vmap(fg.grad(f), chunk_size=1)(X), _loop(fg.grad(f), X))


def test_nested_vmaps_in_both_orders():
    A = RNG.standard_normal((2, 3, 4))
    _close(fg.vmap(fg.vmap(lambda a: fnp.sum(a * a)))(A), (A * A).sum(-1))
    outer = fg.vmap(fg.vmap(fnp.dot, in_axes=(0, None)), in_axes=(None, 0))(X, Y)
    _close(outer, np.einsum("ik,jk->ji", X, Y))
    _close(fg.vmap(fg.vmap(fnp.sum), in_axes=1, out_axes=1)(A), A.sum(-1))


def test_batched_indices_and_masks():
    labels = np.array([0, 2, 1, 2])
    _close(fg.vmap(lambda row, i: row[i])(X, labels), X[np.arange(4), labels])
    relu = fg.vmap(lambda x: fnp.where(x > 0, x, 0.0))
    _close(relu(X), np.maximum(X, 0.0))
    _close(fg.vmap(lambda x: (x > 0).astype(np.float64) * x)(X), np.maximum(X, 0.0))
    # a batched boolean mask: as many entries from every example, else an error
    top2 = fg.vmap(lambda x: x[x >= fnp.sort(x)[1]])(X)
    _close(top2, np.stack([x[x >= np.sort(x)[1]] for x in X]))
    with pytest.raises(fg.BatchingError, match="boolean mask selects"):
        fg.vmap(lambda x: x[x > 0])(np.array([[1.0, -1.0], [1.0, 1.0]]))


# --- composition -------------------------------------------------------------------------------


def _loss(w, x, y):
    return fnp.sum((fnp.tanh(fnp.matmul(x, w)) - y[:2]) ** 2)


def test_vmap_of_grad_is_per_example_gradients():
    got = fg.vmap(fg.grad(_loss), in_axes=(None, 0, 0))(W, X, Y)
    _close(got, _loop(fg.grad(_loss), W, X, Y, axes=(None, 0, 0)))
    # the parameters closed over instead of passed: the same
    got = fg.vmap(lambda x, y: fg.grad(_loss)(W, x, y))(X, Y)
    _close(got, _loop(fg.grad(_loss), W, X, Y, axes=(None, 0, 0)))


def test_grad_of_a_function_that_calls_vmap():
    def total(w):
        return fnp.sum(fg.vmap(_loss, in_axes=(None, 0, 0))(w, X, Y))

    want = sum(fg.grad(_loss)(W, X[k], Y[k]) for k in range(4))
    _close(fg.grad(total)(W), want)
    # a closure over the outer variable inside the vmapped function
    _close(fg.grad(lambda w: fnp.sum(fg.vmap(lambda x, y: _loss(w, x, y))(X, Y)))(W), want)


def test_vmap_of_grad_keeps_zero_cotangents_zero_per_example():
    # 0 * inf is NaN in IEEE arithmetic; the VJP's guard makes it 0, checked for the batch
    f = lambda x, c: (x * c)[0]  # noqa: E731
    cs = np.array([[1.0, np.inf], [1.0, 2.0], [np.inf, 1.0]])
    with np.errstate(invalid="ignore"):
        got = fg.vmap(fg.grad(f))(np.ones((3, 2)), cs)
        want = [fg.grad(f)(np.ones(2), c) for c in cs]
    np.testing.assert_array_equal(got, want)
    assert got[2, 0] == np.inf and not np.isnan(got).any()
    with np.errstate(invalid="ignore"):  # nested, and grad outside
        nested = fg.vmap(fg.vmap(fg.grad(f)))(np.ones((2, 3, 2)), np.stack([cs, cs[::-1]]))
        outside = fg.grad(lambda x: fnp.sum(fg.vmap(f)(x, cs)))(np.ones((3, 2)))
    np.testing.assert_array_equal(nested, np.stack([want, want[::-1]]))
    np.testing.assert_array_equal(outside, want)


def test_grad_through_per_example_gradients():
    def f(w):
        per = fg.vmap(fg.grad(_loss), in_axes=(None, 0, 0))(w, X, Y)
        return fnp.sum(per**2)

    def by_loop(w):
        return sum(fnp.sum(fg.grad(_loss)(w, X[k], Y[k]) ** 2) for k in range(4))

    _close(fg.grad(f)(W), fg.grad(by_loop)(W), 1e-10)


def test_jvp_vjp_and_jacobians_of_vmap():
    f = fg.vmap(lambda v: fnp.sin(v) * fnp.sum(v))
    t = RNG.standard_normal(X.shape)
    out, t_out = fg.jvp(f, (X,), (t,))
    _close(out, np.sin(X) * X.sum(1, keepdims=True))
    s, ts = X.sum(1, keepdims=True), t.sum(1, keepdims=True)
    _close(t_out, np.cos(X) * t * s + np.sin(X) * ts)
    _, pull = fg.vjp(f, X)
    _close(
        pull(t)[0], _loop(lambda x, c: fg.vjp(lambda v: fnp.sin(v) * fnp.sum(v), x)[1](c)[0], X, t)
    )
    _close(fg.jacrev(f)(X), fg.jacfwd(f)(X), 1e-12)


def test_vmap_of_jacobians_and_hessian():
    g = lambda v: fnp.sum(fnp.sin(v) * v**2)  # noqa: E731
    _close(fg.vmap(fg.hessian(g))(X), _loop(fg.hessian(g), X), 1e-10)
    h = lambda v: fnp.tanh(fnp.matmul(v, W))  # noqa: E731
    _close(fg.vmap(fg.jacrev(h))(X), _loop(fg.jacrev(h), X))
    _close(fg.vmap(fg.jacfwd(h))(X), _loop(fg.jacfwd(h), X))


@fg.custom_vjp
def _softclip(x):
    return fnp.log1p(fnp.exp(x))


_softclip.defvjp(lambda x: (_softclip(x), x), lambda x, ct: (ct * 0.5,))  # a rule of our own


def test_vmap_over_custom_vjp_custom_jvp_and_checkpoint():
    _close(fg.vmap(_softclip)(X), np.log1p(np.exp(X)))
    # the custom rule applies per example under vmap of grad
    _close(fg.vmap(fg.grad(lambda x: fnp.sum(_softclip(x))))(X), np.full(X.shape, 0.5))

    @fg.custom_jvp
    def cube(x):
        return x**3

    @cube.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return x**3, t * 4.0 * x**2  # deliberately not 3: the rule is the one used

    _close(fg.vmap(fg.grad(lambda x: fnp.sum(cube(x))))(X), 4.0 * X**2)
    layer = fg.checkpoint(lambda x, w: fnp.tanh(fnp.matmul(x, w)))
    per = fg.vmap(fg.grad(lambda w, x: fnp.sum(layer(x, w))), in_axes=(None, 0))(W, X)
    _close(
        per, _loop(fg.grad(lambda w, x: fnp.sum(fnp.tanh(fnp.matmul(x, w)))), W, X, axes=(None, 0))
    )
    total = fg.grad(lambda w: fnp.sum(fg.vmap(layer, in_axes=(0, None))(X, w)))(W)
    _close(total, per.sum(0))


@fg.custom_vjp
def _clipped(w, x):
    return fnp.sin(w * x)


def _clipped_fwd(w, x):
    return _clipped(w, x), (w, x)


def _clipped_bwd(res, ct):  # gradient clipping: deliberately not the derivative
    w, x = res
    return fnp.clip(ct * x, -0.1, 0.1), fnp.clip(ct * w, -0.2, 0.2)


_clipped.defvjp(_clipped_fwd, _clipped_bwd)


def test_grad_of_vmap_uses_the_custom_rules():
    w = np.array([0.5, -2.0, 1.5])
    loss = lambda w, x: fnp.sum(_clipped(w, x) * 3.0)  # noqa: E731
    batch_loss = lambda w, xs: fnp.sum(fg.vmap(loss, in_axes=(None, 0))(w, xs))  # noqa: E731
    loop = [fg.grad(loss, argnums=(0, 1))(w, x) for x in X]
    gw, gx = fg.grad(batch_loss, argnums=(0, 1))(w, X)
    _close(gw, sum(g[0] for g in loop))  # a parameter the same for every example: summed
    _close(gx, np.stack([g[1] for g in loop]))
    # the batch on another axis, nested vmaps, forward mode (the transposed rule)
    _close(fg.grad(batch_loss, argnums=1)(w, X.T.copy().T), gx)
    xs = np.stack([X, Y])
    nested = fg.grad(
        lambda w: fnp.sum(fg.vmap(lambda x: fg.vmap(loss, in_axes=(None, 0))(w, x))(xs))
    )
    _close(nested(w), sum(fg.grad(loss)(w, x) for x in xs.reshape(-1, 3)))
    t = np.ones(3)
    tangent = fg.jvp(lambda w: fg.vmap(loss, in_axes=(None, 0))(w, X), (w,), (t,))[1]
    _close(tangent, np.array([fg.jvp(lambda w, x=x: loss(w, x), (w,), (t,))[1] for x in X]))

    @fg.custom_jvp
    def cube(x):
        return x**3

    @cube.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return x**3, t * 4.0 * x**2  # not 3: the rule is the one used

    _close(fg.grad(lambda xs: fnp.sum(fg.vmap(cube)(xs)))(X), 4.0 * X**2)

    calls = []

    def layer(x, w):
        calls.append(1)
        return fnp.tanh(fnp.matmul(x, w))

    saved = fg.checkpoint(layer)
    total = fg.grad(lambda w: fnp.sum(fg.vmap(saved, in_axes=(0, None))(X, w)))(W)
    assert len(calls) == 2  # run for the forward, then again for the backward: checkpointed
    _close(total, fg.grad(lambda w: fnp.sum(fnp.tanh(fnp.matmul(X, w))))(W))


def test_jit_vmap_compositions_equal_eager_vmap_bit_for_bit():
    f = lambda w, x: fnp.sum(fnp.tanh(fnp.matmul(x, w)) ** 2)  # noqa: E731
    eager = fg.vmap(f, in_axes=(None, 0))
    jv = fg.jit(fg.vmap(f, in_axes=(None, 0)))
    vj = fg.vmap(fg.jit(f), in_axes=(None, 0))
    for _ in range(2):  # the trace, then a replay
        assert np.array_equal(jv(W, X), eager(W, X))
        assert np.array_equal(vj(W, X), eager(W, X))
    want = fg.grad(lambda w: fnp.sum(eager(w, X)))(W)
    for g in (jv, vj):
        assert np.array_equal(fg.grad(lambda w, g=g: fnp.sum(g(w, X)))(W), want)
    per = fg.vmap(fg.grad(f), in_axes=(None, 0))(W, X)
    assert np.array_equal(fg.jit(fg.vmap(fg.grad(f), in_axes=(None, 0)))(W, X), per)
    _close(fg.vmap(fg.grad(fg.jit(f)), in_axes=(None, 0))(W, X), per)


def test_jit_of_vmap_of_derivatives_through_masks_matches_hips_autograd():
    # relu / abs / maximum read their input's value in their rules (a mask, a sign); under
    # jit(vmap(grad(f))) that value is vmap's batched value over jit's traced nodes.
    from funcgrad.transforms.jit import JitWarning
    from tests.references import requires

    agrad = requires("autograd")
    anp = requires("autograd.numpy")
    relu = fg.nn.functional.relu

    def f(mod, x):
        r = relu(x) if mod is fnp else anp.maximum(x, 0.0)
        return mod.sum(mod.maximum(x, 0.3) * mod.abs(x) + r**3 + mod.minimum(x, 0.1 * x[::-1]))

    rng = np.random.default_rng(7)
    for build, ref in (
        (lambda: fg.vmap(fg.grad(lambda x: f(fnp, x))), agrad.grad(lambda x: f(anp, x))),
        (lambda: fg.vmap(fg.hessian(lambda x: f(fnp, x))), agrad.hessian(lambda x: f(anp, x))),
    ):
        jitted = fg.jit(build())
        for _ in range(3):  # the trace, then replays on other signs: the masks are computed
            xs = rng.standard_normal((5, 4))
            with warnings.catch_warnings():
                warnings.simplefilter("error", JitWarning)  # followed, not run eagerly
                got = jitted(xs)
            assert np.array_equal(got, build()(xs))
            _close(got, np.stack([ref(row) for row in xs]))
        assert jitted.cache_info()["plans"] == 1


def test_roots_hooks_and_gather_cases_batch_without_a_loop():
    from funcgrad.ops import registry

    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchingWarning)
        # roots: trailing zeros differ between examples (computed in groups)
        coeffs = np.array([[1.0, -3.0, 2.0, 0.0], [1.0, -6.0, 11.0, -6.0], [2.0, 0.0, 0.0, 0.0]])
        _close(fg.vmap(fnp.roots)(coeffs), _loop(fnp.roots, coeffs))
        g = fg.grad(lambda c: fnp.sum(fg.vmap(fnp.roots)(c) ** 2))(coeffs[:2])
        _close(g, _loop(fg.grad(lambda c: fnp.sum(fnp.roots(c) ** 2)), coeffs[:2]), 1e-9)
        with pytest.raises(fg.BatchingError, match="roots"):  # 2 roots and 1 root
            fg.vmap(fnp.roots)(np.array([[1.0, -3.0, 2.0], [0.0, 1.0, 2.0]]))
        # a hook in the graph of a transform inside vmap (it sees the batch's cotangent)
        hooked = lambda x: fnp.sum(fg.with_hooks(x * x, {x: lambda ct: ct * 10.0}))  # noqa: E731
        _close(fg.vmap(fg.grad(hooked))(X), _loop(fg.grad(hooked), X))
        # gather and scatter with 0-d indices, nll_loss with weights per example
        gather, scatter = registry.get("gather"), registry.get("scatter")
        take = lambda x: gather(x, index=np.array(2), axis=0, keepdims=False, method="gather")  # noqa: E731
        _close(fg.vmap(take)(X), _loop(take, X))
        put = lambda x, s: scatter(  # noqa: E731
            x, s, index=np.array([2, 0]), axis=None, reduce="sum", include_self=True, method="put"
        )
        _close(fg.vmap(put)(X, Y[:, :2]), _loop(put, X, Y[:, :2]))
        logp = np.log(RNG.dirichlet(np.ones(5), size=(4, 3)))
        target = RNG.integers(0, 5, size=(4, 3))
        target[0, 1] = -100
        weight = RNG.uniform(0.5, 2.0, size=(4, 5))
        for reduction in ("none", "sum", "mean"):
            nll = lambda p, t, w, r=reduction: registry.get("nll_loss")(  # noqa: E731
                p, t, w, ignore_index=-100, reduction=r
            )
            _close(fg.vmap(nll)(logp, target, weight), _loop(nll, logp, target, weight))
    assert not looped_primitives()


def test_jit_of_vmap_and_vmap_of_jit():
    f = lambda x: fnp.sum(fnp.tanh(x) * x)  # noqa: E731
    _close(fg.jit(fg.vmap(f))(X), fg.vmap(f)(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchingWarning)
        _close(fg.vmap(fg.jit(f))(X), _loop(f, X))


# --- random numbers ------------------------------------------------------------------------------


def test_randomness_error_different_same():
    noisy = lambda x: x + fnp.random.standard_normal(x.shape)  # noqa: E731
    with pytest.raises(fg.BatchingError, match="randomness"):
        fg.vmap(noisy)(X)
    fg.manual_seed(0)
    diff = fg.vmap(noisy, randomness="different")(np.zeros((4, 3)))
    assert diff.shape == (4, 3) and not np.allclose(diff[0], diff[1])
    same = fg.vmap(noisy, randomness="same")(np.zeros((4, 3)))
    assert np.allclose(same, same[0])
    # the tensor layer's draws and dropout batch too
    drop = fg.vmap(lambda x: fg.nn.functional.dropout(x, 0.5), randomness="different")
    masks = drop(fg.ones(64, 10)).numpy() != 0
    assert not (masks == masks[0]).all()


def test_randomness_different_batches_integer_and_other_draws():
    fg.manual_seed(0)
    zeros = fg.zeros(6, 3)
    draws = {
        "randint": lambda x: x + fg.randint(0, 1000, (3,)),
        "poisson": lambda x: fg.poisson(x + 3.0),
        "exponential_": lambda x: (x + 1.0).exponential_(),
        "bernoulli_p": lambda x: fg.bernoulli(x + 0.5),  # batched probabilities
        "fnp.randint": lambda x: x + fnp.random.randint(0, 1000, size=3),
        "fnp.poisson": lambda x: x + fnp.random.poisson(3.0, size=3),
    }
    for name, draw in draws.items():
        got = func.vmap(draw, randomness="different")(zeros).numpy()
        assert got.shape == (6, 3) and not (got == got[0]).all(), name
        if "poisson" not in name and "_" not in name:  # (no batched parameters)
            same = func.vmap(draw, randomness="same")(zeros).numpy()
            assert (same == same[0]).all(), name
    # the same numbers as the draws of one (6, 3) call: the batch is a leading axis
    fg.manual_seed(1)
    batched = func.vmap(lambda x: fg.randint(0, 1000, (3,)), randomness="different")(zeros)
    fg.manual_seed(1)
    assert np.array_equal(batched.numpy(), fg.randint(0, 1000, (6, 3)).numpy())
    perms = func.vmap(lambda x: x + fg.randperm(3), randomness="different")(zeros).numpy()
    assert (np.sort(perms, axis=1) == [0, 1, 2]).all() and not (perms == perms[0]).all()
    with pytest.raises(fg.BatchingError, match="'choice'"):
        fg.vmap(lambda x: x + fnp.random.choice(3, size=3), randomness="different")(X)
    own = fg.Generator().manual_seed(1)  # a generator of one's own batches too (as PyTorch's)
    got = func.vmap(lambda x: x + fg.randn(3, generator=own), randomness="different")(zeros)
    assert not (got.numpy() == got.numpy()[0]).all()
    assert np.array_equal(got.numpy(), fg.randn(6, 3, generator=fg.Generator().manual_seed(1)))


class _LegacyReference:
    """`numpy.random.RandomState` with `Generator.integers` (as its `randint`)."""

    def __init__(self, seed):
        self.legacy = np.random.RandomState(seed)

    def __getattr__(self, name):
        return getattr(self.legacy, name)

    def integers(self, low, high, size):
        return self.legacy.randint(low, high, size)


def test_randomness_of_a_numpy_style_generator():
    # 'different': each example its own numbers, the ones a loop over the batch draws from
    # the same seed (the batch is a leading axis of one draw), and the generator advances
    draws = {
        "normal": lambda g: g.normal(1.0, 2.0, size=3),
        "random": lambda g: g.random(3),
        "integers": lambda g: g.integers(0, 1000, size=3),
        "standard_normal": lambda g: g.standard_normal(3),
    }
    for name, draw in draws.items():
        # RandomState(seed) draws NumPy's legacy stream: numpy.random.RandomState is its reference
        for make, reference in (
            (fnp.random.default_rng, np.random.default_rng),
            (fnp.random.RandomState, _LegacyReference),
        ):
            g, ref = make(5), reference(5)
            got = fg.vmap(lambda x, draw=draw, g=g: x + draw(g), randomness="different")(X * 0)
            want = np.stack([draw(ref) for _ in range(4)])
            np.testing.assert_array_equal(got, want, err_msg=name)
            np.testing.assert_array_equal(draw(g), draw(ref), err_msg=name)
    # a batched parameter, and torch.func.vmap
    g = fnp.random.default_rng(3)
    got = fg.vmap(lambda m: g.normal(m, 1e-9), randomness="different")(np.array([0.0, 10.0]))
    np.testing.assert_allclose(got, [0.0, 10.0], atol=1e-8)
    got = func.vmap(lambda x: x + g.random(2), randomness="different")(fg.zeros(3, 2)).numpy()
    assert not (got == got[0]).all() and ((got >= 0) & (got < 1)).all()
    # 'same': one draw for the whole batch; the generator advances by one draw
    g, ref = fnp.random.default_rng(7), np.random.default_rng(7)
    same = fg.vmap(lambda x: x + g.standard_normal(3), randomness="same")(X * 0)
    np.testing.assert_array_equal(same, np.broadcast_to(ref.standard_normal(3), (4, 3)))
    np.testing.assert_array_equal(g.random(2), ref.random(2))
    # chunked 'same' draws the whole batch's numbers in every chunk, from an owned generator
    # and the default one alike, and leaves both where one unchunked vmap leaves them
    for chunk in (1, 3):
        g, ref = fnp.random.default_rng(7), np.random.default_rng(7)
        fg.manual_seed(5)
        want_default = fg.vmap(lambda x: x + fnp.random.standard_normal(3), randomness="same")(
            X * 0
        )
        after_default = fnp.random.random(2)
        fg.manual_seed(5)
        f = lambda x, g=g: (x + fnp.random.standard_normal(3), x + g.standard_normal(3))  # noqa: E731
        got_default, got_own = fg.vmap(f, randomness="same", chunk_size=chunk)(X * 0)
        np.testing.assert_array_equal(got_default, want_default)
        np.testing.assert_array_equal(got_own, np.broadcast_to(ref.standard_normal(3), (4, 3)))
        np.testing.assert_array_equal(g.random(2), ref.random(2))
        np.testing.assert_array_equal(fnp.random.random(2), after_default)
    # 'error' (the default) refuses; a draw with no batched form is named
    with pytest.raises(fg.BatchingError, match="randomness='error'"):
        fg.vmap(lambda x: x + g.standard_normal(3))(X)
    with pytest.raises(fg.BatchingError, match="'choice'"):
        fg.vmap(lambda x: x + g.choice(3, size=3), randomness="different")(X)


# --- errors ----------------------------------------------------------------------------------------


def test_python_control_flow_on_a_batched_value_names_the_line():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(fg.BatchingError, match=r"test_vmap\.py, line \d+.*where"):
        fg.vmap(f)(X)
    with pytest.raises(fg.BatchingError, match="float"):
        fg.vmap(lambda x: float(x.sum()))(X)


def test_mismatched_sizes_name_each_argument_and_axis():
    with pytest.raises(
        fg.BatchingError,
        match=r"argument 0 has size 4 along axis 0.*argument 1 has size 3 along axis 1",
    ):
        fg.vmap(lambda a, b: a, in_axes=(0, 1))(X, np.ones((2, 3)))


def test_in_axes_structure_and_range_errors():
    with pytest.raises(fg.TreeStructureError, match="in_axes has 3 entries.*2 positional"):
        fg.vmap(lambda a, b: a, in_axes=(0, 0, 0))(X, Y)
    with pytest.raises(fg.TreeStructureError, match=r"argument 0.*keys"):
        fg.vmap(lambda p: p["a"], in_axes=({"b": 0},))({"a": X})
    with pytest.raises(fg.AxisError, match=r"in_axes=2 for argument 0"):
        fg.vmap(lambda a: a, in_axes=2)(X)
    with pytest.raises(fg.BatchingError, match="axis_size"):
        fg.vmap(lambda a: a, in_axes=None)(X)


def test_out_axes_errors_name_the_output():
    with pytest.raises(fg.BatchingError, match=r"out_axes is None for output\[1\]"):
        fg.vmap(lambda x: (W, x), out_axes=(None, None))(X)
    with pytest.raises(fg.AxisError, match=r"out_axes=3 for output"):
        fg.vmap(lambda x: x.sum(), out_axes=3)(X)
    with pytest.raises(fg.BatchingError, match="str"):
        fg.vmap(lambda x: "a")(X)


def test_numpy_on_a_batched_value_computes_by_example_or_is_refused():
    # a NumPy function computes each example's values (no derivative to lose here)
    _close(fg.vmap(lambda x: np.stack([x, x]))(X), _loop(lambda x: np.stack([x, x]), X))
    with pytest.raises(fg.BatchingError, match="numpy.stack.*derivative would be lost"):
        fg.grad(lambda x: fnp.sum(fg.vmap(lambda x: np.stack([x, x]))(x)))(X)
    with pytest.raises(fg.BatchingError):
        fg.vmap(lambda x: np.asarray(x) * 2.0)(X)


# --- the fallback -----------------------------------------------------------------------------------


def test_a_primitive_without_a_rule_loops_with_a_warning(monkeypatch):
    from funcgrad.ops import batching as table
    from funcgrad.ops import registry
    from funcgrad.transforms import batching

    monkeypatch.setattr(batching, "_warned", set())  # the warning comes once per primitive
    monkeypatch.setattr(batching, "_looped", {})  # (the session's report stays as it is)
    roots = registry.get("roots")  # every primitive has a rule: take roots' away for a while
    monkeypatch.delitem(table.RULES, "roots")
    rule = roots.batch
    object.__setattr__(roots, "batch", None)  # (a frozen record)
    coeffs = np.array([[1.0, -3.0, 2.0], [1.0, -5.0, 6.0]])  # roots 1, 2 and 2, 3
    try:
        with pytest.warns(BatchingWarning, match="'roots'"):
            got = fg.vmap(fnp.roots)(coeffs)
    finally:
        object.__setattr__(roots, "batch", rule)
    _close(np.sort(got, axis=1), np.array([[1.0, 2.0], [2.0, 3.0]]))
    assert "roots" in looped_primitives()


# --- the tensor layer ------------------------------------------------------------------------------


def test_torch_func_vmap_on_tensors():
    x, w = fg.tensor(X), fg.tensor(W)
    got = func.vmap(lambda a, b: (a @ b).tanh(), in_dims=(0, None))(x, w)
    assert isinstance(got, fg.Tensor)
    _close(got.numpy(), np.tanh(X @ W))
    per = func.vmap(func.grad(lambda b, a: (a @ b).pow(2).sum()), in_dims=(None, 0))(w, x)
    want = np.stack([np.outer(X[k], 2 * (X[k] @ W)) for k in range(4)])
    _close(per.numpy(), want)
    # keyword arguments are not mapped (torch.func's rule)
    _close(func.vmap(lambda a, *, s: a * s)(x, s=2.0).numpy(), X * 2.0)
    assert func.vmap(lambda a: a.sum(0), out_dims=0)(x).shape == (4,)


def test_torch_func_vmap_matches_pytorch():
    from tests.references import requires

    torch = requires("torch")
    from torch.func import grad as t_grad
    from torch.func import vmap as t_vmap

    def loss(mod, p, x, y):
        return mod.nn.functional.cross_entropy((x @ p[0] + p[1])[None], y[None])

    labels = np.array([0, 1, 1, 0])
    params = (W, np.zeros(2))
    ours = func.vmap(func.grad(lambda p, x, y: loss(fg, p, x, y)), in_dims=(None, 0, 0))(
        tuple(fg.tensor(p) for p in params), fg.tensor(X), fg.tensor(labels)
    )
    theirs = t_vmap(t_grad(lambda p, x, y: loss(torch, p, x, y)), in_dims=(None, 0, 0))(
        tuple(torch.tensor(p) for p in params), torch.tensor(X), torch.tensor(labels)
    )
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_torch_func_vmap_checks_every_examples_labels():
    logits, labels = fg.tensor(RNG.standard_normal((3, 4))), fg.tensor(np.array([0, 3, 9]))
    loss = lambda z, y: fg.nn.functional.cross_entropy(z[None], y[None])  # noqa: E731
    with pytest.raises(IndexError, match="Target 9 is out of bounds"):
        func.vmap(loss)(logits, labels)
    ok = fg.tensor(np.array([0, 3, 1]))
    want = [loss(z, y).item() for z, y in zip(logits, ok, strict=True)]
    _close(func.vmap(loss)(logits, ok).numpy(), np.array(want))


def _in_place(mod, x):
    y = x * 2.0  # made inside the function: batched, so in-place writes batch
    y.add_(1.0)
    y[1:3].mul_(0.5)  # through a view
    y[0] = x[0] * 3.0
    return y, x.argmax(), mod.argmin(x, dim=0), x.max(dim=0)[1], mod.max(x, dim=0).values


def test_torch_func_vmap_argmax_and_in_place_writes_match_pytorch():
    from tests.references import requires

    xs = fg.tensor(RNG.standard_normal((4, 5)))
    ours = func.vmap(lambda x: _in_place(fg, x))(xs)
    loop = [_in_place(fg, x) for x in xs]
    for k, got in enumerate(ours):
        _close(got.numpy(), np.stack([out[k].numpy() for out in loop]))
    captured = fg.zeros(5)
    for write in (
        lambda c, x: c.mul_(x),
        lambda c, x: c.add_(x),
        lambda c, x: c.__setitem__(0, x[0]),
        lambda c, x: c.copy_(x),
    ):
        with pytest.raises(RuntimeError, match=r"vmap: inplace arithmetic\(self, \*extra_args\)"):
            func.vmap(lambda x, w=write: w(captured, x))(xs)
    assert not captured.numpy().any()
    torch = requires("torch")
    theirs = torch.func.vmap(lambda x: _in_place(torch, x))(torch.tensor(xs.numpy()))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)
    t_captured = torch.zeros(5)  # (PyTorch's add_ words it otherwise; mul_ as here)
    with pytest.raises(RuntimeError, match=r"vmap: inplace arithmetic\(self, \*extra_args\)"):
        torch.func.vmap(lambda x: t_captured.mul_(x))(torch.tensor(xs.numpy()))


# --- compositions, each against the same computation one example at a time ----------------------

_FUNCTIONS = {
    "tanh_dot": lambda w, x: fnp.sum(fnp.tanh(fnp.matmul(x, w)) ** 2),
    "softmax": lambda w, x: fnp.sum(fg.nn.functional.softmax(fnp.matmul(x, w), dim=0) * w[0]),
    "masked": lambda w, x: fnp.sum(fnp.where(fnp.matmul(x, w) > 0, fnp.matmul(x, w), 0.1) ** 3),
    "norm": lambda w, x: fnp.linalg.norm(fnp.outer(x, w[:, 0])) + fnp.max(x),
}


@pytest.mark.parametrize("name", list(_FUNCTIONS))
def test_compositions_agree_with_loops(name):
    f = _FUNCTIONS[name]
    per = lambda g: np.stack([g(W, X[k]) for k in range(4)])  # noqa: E731
    # vmap of first and second derivatives, the parameters shared
    _close(fg.vmap(fg.grad(f), in_axes=(None, 0))(W, X), per(fg.grad(f)), 1e-10)
    gx = fg.grad(f, argnums=1)
    _close(
        fg.vmap(fg.grad(lambda w, x: fnp.sum(gx(w, x) ** 2)), in_axes=(None, 0))(W, X),
        per(fg.grad(lambda w, x: fnp.sum(gx(w, x) ** 2))),
        1e-9,
    )
    _close(
        fg.vmap(fg.hessian(f, argnums=1), in_axes=(None, 0))(W, X),
        per(fg.hessian(f, argnums=1)),
        1e-9,
    )
    # grad of a vmap, and of a vmap of a grad
    total = lambda w: fnp.sum(fg.vmap(f, in_axes=(None, 0))(w, X))  # noqa: E731
    _close(fg.grad(total)(W), sum(fg.grad(f)(W, X[k]) for k in range(4)), 1e-10)
    both = lambda w: fnp.sum(fg.vmap(gx, in_axes=(None, 0))(w, X) ** 2)  # noqa: E731
    _close(
        fg.grad(both)(W),
        fg.grad(lambda w: sum(fnp.sum(gx(w, X[k]) ** 2) for k in range(4)))(W),
        1e-9,
    )
    # forward mode over vmap, and vmap over forward mode
    t = RNG.standard_normal(W.shape)
    _close(
        fg.jvp(total, (W,), (t,))[1],
        fg.jvp(lambda w: sum(f(w, X[k]) for k in range(4)), (W,), (t,))[1],
        1e-10,
    )
    ts = RNG.standard_normal(X.shape)
    got = fg.vmap(lambda x, tx: fg.jvp(lambda v: f(W, v), (x,), (tx,))[1])(X, ts)
    _close(
        got, np.stack([fg.jvp(lambda v: f(W, v), (X[k],), (ts[k],))[1] for k in range(4)]), 1e-10
    )
    # vmap over vmap, the inner one over the columns of the shared parameters
    inner = fg.vmap(lambda col, x: f(fnp.stack([col, col], axis=1), x), in_axes=(1, None))
    got = fg.vmap(inner, in_axes=(None, 0))(W, X)
    want = np.stack(
        [[f(np.stack([W[:, j], W[:, j]], axis=1), X[k]) for j in range(2)] for k in range(4)]
    )
    _close(got, want, 1e-10)


# --- funcgrad.numpy functions that compute on values ---------------------------------------------

_XP = np.sort(RNG.standard_normal(6))
_VALUE_READERS = {  # each: f(example) with a fixed output shape, as NumPy computes it
    "median": fnp.median,
    "nanmedian": fnp.nanmedian,
    "quantile": lambda x: fnp.quantile(x, 0.3),
    "nanquantile": lambda x: fnp.nanquantile(x, [0.2, 0.9]),
    "percentile": lambda x: fnp.percentile(x, [10.0, 70.0]),
    "interp": lambda x: fnp.interp(x, _XP, _XP**2),
    "searchsorted": lambda x: fnp.searchsorted(_XP, x),
    "digitize": lambda x: fnp.digitize(x, _XP),
    "cov": lambda x: fnp.cov(fnp.reshape(x, (2, 3))),
    "corrcoef": lambda x: fnp.corrcoef(fnp.reshape(x, (2, 3))),
    "slogdet": lambda x: fnp.linalg.slogdet(fnp.reshape(x, (2, 3))[:, :2]),
    "convolve": lambda x: fnp.convolve(x, np.array([1.0, 2.0, 0.5])),
    "histogram": lambda x: fnp.histogram(x, bins=3, range=(-2.0, 2.0))[0],
    "count_nonzero": lambda x: fnp.count_nonzero(x > 0),
    "polyval": lambda x: fnp.polyval(x, 0.3),
    "sort": lambda x: fnp.sort(x)[-2:],
    "partition": lambda x: fnp.partition(x, 2),
}
_DIFFERENTIABLE = "median nanmedian quantile nanquantile percentile interp cov corrcoef slogdet "
_DIFFERENTIABLE += "convolve polyval sort partition"


@pytest.mark.parametrize("name", sorted(_VALUE_READERS))
def test_numpy_functions_that_read_values_batch(name):
    f = _VALUE_READERS[name]
    xs = RNG.standard_normal((3, 6))
    _close(fg.vmap(f)(xs), _loop(f, xs), 1e-10)
    if name in _DIFFERENTIABLE.split():

        def loss(x):
            out = f(x)
            return fnp.sum(out[1] if isinstance(out, tuple) else out)

        _close(fg.vmap(fg.grad(loss))(xs), _loop(fg.grad(loss), xs), 1e-10)


def test_numpy_functions_with_value_dependent_shapes_refuse():
    for f, name in (
        (fnp.unique, "unique"),
        (fnp.nonzero, "nonzero"),
        (fnp.flatnonzero, "flatnonzero"),
    ):
        with pytest.raises(fg.BatchingError, match=f"numpy.{name}.*depends on the values"):
            fg.vmap(f)(X)
    spread = np.stack([np.linspace(0.0, 1.0, 40), np.r_[np.linspace(0.0, 1.0, 39), 1000.0]])
    with pytest.raises(fg.BatchingError, match="different shapes"):  # 'auto' bins: 7 and 13
        fg.vmap(lambda x: fnp.histogram_bin_edges(x, bins="auto"))(spread)
    # grad outside vmap of NumPy's own function (fnp.median records: test_by_example.py)
    with pytest.raises(fg.BatchingError, match="derivative would be lost"):
        fg.grad(lambda x: fnp.sum(fg.vmap(lambda v: np.median(v))(x)))(X)


# --- NumPy functions run per example: only those that write nothing -----------------------------


def test_numpy_functions_that_write_are_refused_and_write_nothing():
    xs = np.arange(6.0).reshape(3, 2)
    dst = np.zeros(2)
    writers = {
        "copyto": lambda x: np.copyto(dst, x),
        "put": lambda x: np.put(dst, [0, 1], x),
        "place": lambda x: np.place(dst, [True, False], x),
        "putmask": lambda x: np.putmask(dst, [True, False], x),
        "fill_diagonal": lambda x: np.fill_diagonal(np.zeros((2, 2)) + x, 1.0),
        "save": lambda x: np.save(io.BytesIO(), x),
    }
    for name, write in writers.items():
        with pytest.raises(fg.BatchingError, match=f"numpy.{name} was called on a batched"):
            fg.vmap(lambda x, write=write: (write(x), x * 1.0)[1])(xs)
    np.testing.assert_array_equal(dst, np.zeros(2))  # no example wrote


def test_numpy_functions_with_out_or_overwrite_input_are_refused():
    xs = RNG.standard_normal((3, 5))
    buf = np.zeros(5)
    cases = {
        "median": lambda x: np.median(x, out=buf[:1].reshape(())),
        "percentile": lambda x: np.percentile(x, 30.0, None, buf[:1].reshape(())),  # positional
        "clip": lambda x: np.clip(x, -1.0, 1.0, out=buf),
        "stack": lambda x: np.stack([x], out=buf[None]),
        "sum": lambda x: np.sum(x, out=buf[:1].reshape(())),
    }
    for name, f in cases.items():
        with pytest.raises(fg.BatchingError, match=f"numpy.{name} .*with out="):
            fg.vmap(f)(xs)
    with pytest.raises(fg.BatchingError, match="numpy.add was called .* with out"):  # a ufunc
        fg.vmap(lambda x: np.add(x, 1.0, out=buf))(xs)
    np.testing.assert_array_equal(buf, np.zeros(5))
    with pytest.raises(fg.BatchingError, match="numpy.nanmedian .*overwrite_input=True"):
        fg.vmap(lambda x: np.nanmedian(x, overwrite_input=True))(xs)
    # out=None writes nothing: computed per example
    _close(fg.vmap(lambda x: np.median(x, out=None))(xs), np.median(xs, axis=1))


_PURE_NUMPY = {  # NumPy functions called directly on a batched value, each against a loop
    "nanpercentile": lambda x: np.nanpercentile(x, [25.0, 60.0]),
    "correlate": lambda x: np.correlate(x, np.array([1.0, -0.5]), mode="full"),
    "clip": lambda x: np.clip(x, -0.5, 0.5),
    "argsort": lambda x: np.argsort(np.abs(x)),
    "lexsort": lambda x: np.lexsort((x, np.floor(x))),
    "broadcast_to": lambda x: np.broadcast_to(x, (2, 5)),
    "histogram2d": lambda x: np.histogram2d(x, x**2, bins=2, range=[[-2, 2], [0, 4]])[0],
    "slogdet": lambda x: np.linalg.slogdet(fnp.outer(x[:2], x[:2]) + np.eye(2))[1],
}


@pytest.mark.parametrize("name", sorted(_PURE_NUMPY))
def test_allowlisted_numpy_functions_match_a_loop(name):
    f = _PURE_NUMPY[name]
    xs = RNG.standard_normal((3, 5))
    _close(fg.vmap(f)(xs), _loop(f, xs), 1e-12)
