"""`funcgrad.numpy.random`: NumPy's random API on funcgrad's generators."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def test_seed_and_manual_seed_seed_the_same_generator():
    fnp.random.seed(3)
    a = fnp.random.randn(4)
    fg.manual_seed(3)
    np.testing.assert_array_equal(fnp.random.randn(4), a)
    fg.manual_seed(3)
    # funcgrad.randn draws from the same stream (float64 here, as NumPy's)
    np.testing.assert_array_equal(fg.randn(4, dtype=fg.float64).numpy(), a)


def test_module_functions_have_numpys_shapes_and_ranges():
    fnp.random.seed(0)
    assert fnp.random.rand(2, 3).shape == (2, 3) and isinstance(fnp.random.rand(), float)
    assert fnp.random.randn(5).dtype == np.float64
    r = fnp.random.randint(2, 5, size=100)
    assert r.min() >= 2 and r.max() < 5
    assert fnp.random.uniform(-1.0, 1.0, size=(3,)).shape == (3,)
    assert fnp.random.normal(size=(2, 2)).shape == (2, 2)
    assert sorted(fnp.random.permutation(5).tolist()) == [0, 1, 2, 3, 4]
    assert set(fnp.random.choice([1, 2, 3], size=10)) <= {1, 2, 3}
    assert fnp.random.random_sample(3).shape == (3,)
    assert fnp.random.gamma(2.0, size=3).shape == (3,)


def test_random_state_and_default_rng_are_independent_and_reproducible():
    a = fnp.random.RandomState(1).randn(3)
    fnp.random.seed(99)
    np.testing.assert_array_equal(fnp.random.RandomState(1).randn(3), a)
    g = fnp.random.default_rng(2)
    assert fnp.random.default_rng(g) is g
    np.testing.assert_array_equal(g.integers(0, 10, 5), np.random.default_rng(2).integers(0, 10, 5))
    rs = fnp.random.RandomState(5)
    first = rs.rand(2)
    rs.seed(5)
    np.testing.assert_array_equal(rs.rand(2), first)


def test_checkpoint_replays_module_draws():
    def f(x):
        return fnp.sum(x * fnp.random.randn(3))

    fg.manual_seed(0)
    x = np.ones(3)
    g = fg.grad(fg.checkpoint(f))(x)
    fg.manual_seed(0)
    np.testing.assert_array_equal(g, fnp.random.randn(3))


def test_reparameterized_draws_are_differentiable():
    g = fnp.random.default_rng(0)
    z = np.random.default_rng(0).standard_normal(4)

    def loss(p):
        return fnp.sum(g.normal(p[0], p[1], size=4))

    np.testing.assert_allclose(fg.grad(loss)(np.array([0.5, 2.0])), [4.0, z.sum()])
    g = fnp.random.default_rng(0)
    u = np.random.default_rng(0).random(3)
    grad = fg.grad(lambda h: fnp.sum(g.uniform(1.0, h, size=3)))(3.0)
    np.testing.assert_allclose(grad, u.sum())
    g = fnp.random.default_rng(1)
    draws = g.normal(0.0, 1.0, size=4)
    g = fnp.random.default_rng(1)
    # the same numbers as NumPy's normal with plain parameters
    np.testing.assert_allclose(draws, g.normal(fg.leaf(0.0), 1.0, size=4).value)


def test_choice_and_permutation_of_nodes_pick_entries():
    x = np.arange(5.0)
    g = fg.grad(lambda x: fnp.sum(fnp.random.permutation(x) ** 2))(x)
    np.testing.assert_allclose(g, 2 * x)
    counts = fg.grad(lambda x: fnp.sum(fnp.random.choice(x, size=20)))(x)
    assert counts.sum() == 20


def test_distributions_refuse_node_parameters():
    with pytest.raises(TypeError, match="gamma"):
        fg.grad(lambda k: fnp.sum(fnp.random.gamma(k, size=2)))(2.0)


# Each distribution drawn from plain parameters, with the arguments NumPy's Generator takes.
PLAIN_DRAWS = {
    "f": (3.0, 4.0),
    "hypergeometric": (5, 7, 6),
    "logseries": (0.6,),
    "negative_binomial": (3, 0.4),
    "noncentral_chisquare": (3.0, 1.5),
    "noncentral_f": (3.0, 4.0, 1.5),
    "pareto": (2.5,),
    "power": (2.5,),
    "rayleigh": (1.5,),
    "triangular": (0.0, 0.3, 1.0),
    "vonmises": (0.5, 2.0),
    "wald": (1.0, 2.0),
    "weibull": (1.5,),
    "zipf": (2.5,),
}


@pytest.mark.parametrize("name", sorted(PLAIN_DRAWS))
def test_every_distribution_draws_numpys_stream(name):
    args = PLAIN_DRAWS[name]
    expected = getattr(np.random.default_rng(7), name)(*args, size=5)
    np.testing.assert_array_equal(getattr(fnp.random.default_rng(7), name)(*args, size=5), expected)
    fnp.random.seed(7)
    np.testing.assert_array_equal(getattr(fnp.random, name)(*args, size=5), expected)


def test_the_whole_numpy_random_api_is_there():
    public = {n for n in dir(np.random) if not n.startswith("_")}
    # NumPy's own submodules and test runner, and the legacy global's bit-generator swap
    missing = public - set(dir(fnp.random)) - {"bit_generator", "mtrand", "test"}
    assert missing == {"set_bit_generator"}


def test_rayleigh_is_differentiable_in_its_scale():
    z = np.random.default_rng(3).rayleigh(1.0, size=4)
    g = fg.grad(lambda s: fnp.sum(fnp.random.default_rng(3).rayleigh(s, size=4)))(2.0)
    np.testing.assert_allclose(g, z.sum())


def test_shuffle_shuffles_plain_arrays_in_place_and_refuses_nodes():
    x = np.arange(6)
    expected = x.copy()
    np.random.default_rng(4).shuffle(expected)
    fnp.random.default_rng(4).shuffle(x)
    np.testing.assert_array_equal(x, expected)
    with pytest.raises(TypeError, match=r"shuffle: x is a graph node of shape \(3,\).*permutation"):
        fnp.random.shuffle(fg.leaf(np.ones(3)))


def test_get_and_set_state_replay_the_stream():
    fnp.random.seed(11)
    state = fnp.random.get_state()
    a = fnp.random.randn(3)
    fnp.random.set_state(state)
    np.testing.assert_array_equal(fnp.random.randn(3), a)
    assert isinstance(fnp.random.get_bit_generator(), np.random.PCG64)
    g = fnp.random.default_rng(fnp.random.PCG64(5))
    np.testing.assert_array_equal(g.random(3), np.random.default_rng(np.random.PCG64(5)).random(3))


def test_random_integers_includes_both_ends():
    draws = fnp.random.RandomState(0).random_integers(1, 3, size=200)
    assert set(draws.tolist()) == {1, 2, 3}
    assert set(fnp.random.RandomState(0).random_integers(2, size=50).tolist()) == {1, 2}


# --- RandomState(seed): NumPy's legacy stream ----------------------------------------------------


def _legacy_draws(rs):
    """A program of draws that mixes methods, so a cached Gaussian or a skipped number shows."""
    return [
        rs.randn(3),
        rs.rand(2, 2),
        rs.rand(),
        rs.randn(),
        rs.randint(7, size=4),
        rs.randint(-3, 3, size=(2,)),
        rs.random_sample(3),
        rs.normal(1.0, 2.0, size=3),
        rs.uniform(-1.0, 1.0, size=2),
        rs.choice(5, size=3, p=[0.1, 0.2, 0.3, 0.2, 0.2]),
        rs.choice(4, size=2, replace=False),
        rs.permutation(6),
        rs.multivariate_normal([0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]], size=2),
        rs.gamma(2.0, 1.5, size=3),
        rs.poisson(3.0, size=3),
        rs.standard_normal(3),
        rs.exponential(2.0, size=2),
        rs.standard_exponential(2),
        rs.standard_gamma(2.5, size=2),
        rs.beta(2.0, 3.0, size=2),
        rs.binomial(10, 0.3, size=2),
    ]


def test_random_state_draws_numpys_legacy_stream():
    # HIPS autograd's programs seed with npr.RandomState(0): a port gets NumPy's numbers
    for seed in (0, 1, 2**32 - 1):
        got = _legacy_draws(fnp.random.RandomState(seed))
        want = _legacy_draws(np.random.RandomState(seed))
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            np.testing.assert_array_equal(g, w, err_msg=f"draw {i}, seed {seed}")
            assert np.asarray(g).dtype == np.asarray(w).dtype, (i, seed)
    assert isinstance(fnp.random.RandomState(0).rand(), float)
    legacy = np.random.RandomState(0)
    with pytest.warns(DeprecationWarning):
        want = legacy.random_integers(1, 3, size=20)
    np.testing.assert_array_equal(fnp.random.RandomState(0).random_integers(1, 3, size=20), want)


def test_random_state_seed_state_and_shuffle_are_numpys():
    rs, ref = fnp.random.RandomState(4), np.random.RandomState(4)
    rs.randn(1)  # an odd number of Gaussians: the state holds a cached one
    ref.randn(1)
    state = rs.get_state()
    assert state[0] == "MT19937" and state[3] == 1
    np.testing.assert_array_equal(state[1], ref.get_state()[1])
    a = rs.randn(3)
    rs.set_state(state)
    np.testing.assert_array_equal(rs.randn(3), a)
    np.testing.assert_array_equal(a, ref.randn(3))
    rs.set_state(np.random.RandomState(9).get_state())  # a state NumPy made
    np.testing.assert_array_equal(rs.rand(3), np.random.RandomState(9).rand(3))
    rs.seed(6)
    np.testing.assert_array_equal(rs.randn(2), np.random.RandomState(6).randn(2))
    assert isinstance(rs.get_bit_generator(), np.random.MT19937)
    x, y = np.arange(8), np.arange(8)
    fnp.random.RandomState(2).shuffle(x)
    np.random.RandomState(2).shuffle(y)
    np.testing.assert_array_equal(x, y)
    # the module's functions stay on funcgrad's default (PCG64) stream, seeded by manual_seed
    fnp.random.seed(4)
    assert not np.array_equal(fnp.random.randn(3), np.random.RandomState(4).randn(3))


def test_random_state_refuses_what_numpys_legacy_generator_cannot_do():
    with pytest.raises(ValueError, match=r"RandomState: bad seed 1099511627776.*2\*\*32 - 1"):
        fnp.random.RandomState(2**40)
    with pytest.raises(ValueError, match=r"RandomState.choice: .*axis 0 only, got axis=1"):
        fnp.random.RandomState(0).choice(np.ones((2, 3)), axis=1)


def test_random_state_reparameterized_draws_are_legacy_normals():
    z = np.random.RandomState(8).standard_normal(4)
    g = fg.grad(lambda p: fnp.sum(fnp.random.RandomState(8).normal(p[0], p[1], size=4)))
    np.testing.assert_allclose(g(np.array([0.5, 2.0])), [4.0, z.sum()])
    got = fnp.random.RandomState(8).normal(fg.leaf(1.0), 3.0, size=4).value
    np.testing.assert_array_equal(got, np.random.RandomState(8).normal(1.0, 3.0, size=4))


def test_random_state_draws_are_replayed_by_jit():
    # each call of the jitted function draws the next numbers of the legacy stream
    rs, ref = fnp.random.RandomState(3), np.random.RandomState(3)
    f = fg.jit(lambda x: fnp.tanh(x + rs.randn(3)))
    x = np.zeros(3)
    for _ in range(4):
        np.testing.assert_array_equal(f(x), np.tanh(x + ref.randn(3)))


def test_random_state_batches_under_vmap_different():
    rs, ref = fnp.random.RandomState(5), np.random.RandomState(5)
    got = fg.vmap(lambda x: x + rs.randn(3), randomness="different")(np.zeros((4, 3)))
    np.testing.assert_array_equal(got, np.stack([ref.randn(3) for _ in range(4)]))
    np.testing.assert_array_equal(rs.rand(2), ref.rand(2))  # the stream went on
    got = fg.vmap(lambda x: x + rs.randint(0, 100, size=2), randomness="different")(
        np.zeros((3, 2))
    )
    np.testing.assert_array_equal(got, np.stack([ref.randint(0, 100, size=2) for _ in range(3)]))


def test_random_state_deepcopies_and_pickles_with_its_stream():
    import copy
    import pickle

    rs = fnp.random.RandomState(12)
    rs.randn(1)  # a cached Gaussian is part of the state
    for clone in (copy.deepcopy(rs), pickle.loads(pickle.dumps(rs))):
        np.testing.assert_array_equal(clone.randn(3), copy.deepcopy(rs).randn(3))
    want = np.random.RandomState(12)
    want.randn(1)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(rs)).randn(4), want.randn(4))


# --- generators the user owns, under checkpoint and jit ------------------------------------------

OWNED = {"default_rng": fnp.random.default_rng, "RandomState": fnp.random.RandomState}


@pytest.mark.parametrize("kind", sorted(OWNED))
def test_checkpoint_recomputes_with_the_forwards_draws_of_an_owned_generator(kind):
    # the backward recomputes f: an owned generator must give it the forward's numbers again
    # (it gave the next ones: a silently wrong gradient), and go on after the forward's draws
    make = OWNED[kind]
    g = make(0)

    def f(x):
        return fnp.sum(x * g.standard_normal(3) ** 2)

    ref = make(0)
    z = ref.standard_normal(3)
    np.testing.assert_array_equal(fg.grad(fg.checkpoint(f))(np.ones(3)), z**2)
    np.testing.assert_array_equal(g.standard_normal(2), ref.standard_normal(2))


@pytest.mark.parametrize("kind", sorted(OWNED))
def test_jit_guard_retries_draw_an_owned_generators_numbers_once(kind):
    # a plan that drew and then failed its guard is retried: the owned generator is rewound
    make = OWNED[kind]
    g, ref = make(3), make(3)

    def f(x):
        z = x + g.standard_normal(3)
        if fnp.sum(x) > 0:
            return z * 2.0
        return z - 1.0

    jitted = fg.jit(f)
    for x in (np.ones(3), np.ones(3), -np.ones(3), np.ones(3), -np.ones(3), -np.ones(3)):
        z = x + ref.standard_normal(3)
        np.testing.assert_array_equal(jitted(x), z * 2.0 if x.sum() > 0 else z - 1.0)


def test_rng_state_with_own_snapshots_owned_sources_and_restores_them_after():
    from funcgrad.backend import rng

    g, h = fnp.random.RandomState(0), fnp.random.default_rng(1)
    state = rng.get_state(own=True)
    with rng.recording(state):
        a, b = g.randn(2), h.random(2)
    with rng.replay(state):
        np.testing.assert_array_equal(g.randn(2), a)
        np.testing.assert_array_equal(h.random(2), b)
    np.testing.assert_array_equal(g.randn(2), np.random.RandomState(0).randn(4)[2:])
    np.testing.assert_array_equal(h.random(2), np.random.default_rng(1).random(4)[2:])
    # without own=True (fork_rng's, as PyTorch's), an owned generator is left alone
    state = rng.get_state()
    c = g.randn(1)
    with rng.replay(state):
        assert not np.array_equal(g.randn(1), c)


def _in_thread(fn):
    """Run `fn` on another thread and wait for it (a draw made from another thread)."""
    import threading

    t = threading.Thread(target=fn)
    t.start()
    t.join()


@pytest.mark.parametrize("kind", sorted(OWNED))
def test_a_replay_rewinds_no_owned_generator_another_thread_draws_from(kind):
    # checkpoint's recompute, jit's trace and chunked vmap replay the owned generators the
    # function drew from in its own thread; one that only another thread drew from (here,
    # during the forward and during the recompute) keeps its stream: it repeated numbers
    make = OWNED[kind]
    mine, theirs, ref_mine, ref_theirs = make(0), make(1), make(0), make(1)
    got = []

    def f(x):
        _in_thread(lambda: got.append(theirs.standard_normal(3)))
        return fnp.sum(fnp.sin(x) * mine.standard_normal(3))

    eps = ref_mine.standard_normal(3)
    np.testing.assert_allclose(fg.grad(fg.checkpoint(f))(np.ones(3)), np.cos(1.0) * eps)
    assert len(got) == 2  # the forward and the recompute
    np.testing.assert_array_equal(np.concatenate(got), ref_theirs.standard_normal(6))
    np.testing.assert_array_equal(mine.standard_normal(2), ref_mine.standard_normal(2))

    # vmap in chunks with randomness='same': the first chunk's draws are replayed
    got.clear()
    out = fg.vmap(f, randomness="same", chunk_size=2)(np.ones((4, 3)))
    eps = ref_mine.standard_normal(3)
    np.testing.assert_allclose(out, np.full(4, np.sin(1.0) * eps.sum()))
    np.testing.assert_array_equal(np.concatenate(got), ref_theirs.standard_normal(3 * len(got)))
    np.testing.assert_array_equal(mine.standard_normal(2), ref_mine.standard_normal(2))


@pytest.mark.parametrize("kind", sorted(OWNED))
def test_vmap_of_permutation_with_different_randomness_gives_a_permutation_per_example(kind):
    # fnp.random's permutation(n) passed axis=0 to vmap's batched draw, which takes none (TypeError)
    g = OWNED[kind](0)
    out = fg.vmap(lambda x: x + g.permutation(6), randomness="different")(np.zeros((8, 6)))
    assert out.shape == (8, 6)
    np.testing.assert_array_equal(np.sort(out, axis=1), np.tile(np.arange(6.0), (8, 1)))
    assert len({tuple(row) for row in out.tolist()}) > 1  # 8 equal rows: chance 720**-7
    # outside vmap: NumPy's own numbers
    ref = np.random.default_rng(1) if kind == "default_rng" else np.random.RandomState(1)
    np.testing.assert_array_equal(OWNED[kind](1).permutation(6), ref.permutation(6))


@pytest.mark.parametrize("seed", [0, 12345, [1, 2, 3]])
def test_randomstate_tomaxint_is_numpys(seed):
    got, want = fnp.random.RandomState(seed), np.random.RandomState(seed)
    np.testing.assert_array_equal(got.tomaxint(3), want.tomaxint(3))
    assert got.tomaxint() == want.tomaxint()
    np.testing.assert_array_equal(got.rand(2), want.rand(2))  # the same stream after it
