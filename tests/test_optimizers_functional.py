"""`funcgrad.optimizers` (optax-style pure optimizers) against PyTorch's and against their formulas.

optax is not a test reference here. Where an optax algorithm is a PyTorch
optimizer (adam = Adam, adamw = AdamW, sgd with momentum = SGD without
dampening, rmsprop with `eps_in_sqrt=False` = RMSprop, adagrad with
`eps=0` = Adagrad with `eps=0`, schedules = the matching lr_scheduler), the
same gradient sequence is fed to both and the parameters compared over 50
steps in float64 to 1e-10 relative. LAMB and Lion have no PyTorch
counterpart: they are checked against their update formulas written out
by hand in NumPy (float64). The schedules are checked against their
closed forms, and a whole unrolled training step is differentiated with
`funcgrad.grad` and checked against central finite differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.optimizers as fo
from tests.references import requires

torch = requires("torch")

SHAPES = {"w": (3, 4), "b": (4,), "layers": [(2, 2), ()]}


def _params(dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return {
        "w": rng.standard_normal((3, 4)).astype(dtype),
        "b": rng.standard_normal(4).astype(dtype),
        "layers": [rng.standard_normal((2, 2)).astype(dtype), np.asarray(0.7, dtype)],
    }


def _gradient_sequence(steps, dtype=np.float64, seed=1):
    rng = np.random.default_rng(seed)
    like = _params(dtype)
    return [
        fg.tree.tree_map(lambda p: rng.standard_normal(np.shape(p)).astype(dtype), like)
        for _ in range(steps)
    ]


def _run_functional(opt, grads, dtype=np.float64):
    params = _params(dtype)
    state = opt.init(params)
    for g in grads:
        updates, state = opt.update(g, state, params)
        params = fo.apply_updates(params, updates)
    return params


def _run_torch(make, grads, dtype=np.float64, scheduler=None):
    leaves, treedef = fg.tree.tree_flatten(_params(dtype))
    tp = [torch.tensor(np.array(x), requires_grad=True) for x in leaves]
    opt = make(tp)
    sched = scheduler(opt) if scheduler else None
    for g in grads:
        for p, gi in zip(tp, fg.tree.tree_leaves(g), strict=True):
            p.grad = torch.tensor(np.array(gi))
        opt.step()
        if sched is not None:
            sched.step()
    return fg.tree.tree_unflatten(treedef, [p.detach().numpy() for p in tp])


def _assert_trees_close(a, b, rtol=1e-10, atol=1e-12):
    la, lb = fg.tree.tree_leaves(a), fg.tree.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb, strict=True):
        assert np.asarray(x).dtype == np.asarray(y).dtype
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)


TORCH_CASES = [
    ("adam", lambda: fo.adam(0.05), lambda p: torch.optim.Adam(p, lr=0.05)),
    (
        "adam-betas",
        lambda: fo.adam(0.02, b1=0.8, b2=0.95, eps=1e-6),
        lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.95), eps=1e-6),
    ),
    (
        "adamw",
        lambda: fo.adamw(0.05, weight_decay=0.1),
        lambda p: torch.optim.AdamW(p, lr=0.05, weight_decay=0.1),
    ),
    ("sgd", lambda: fo.sgd(0.1), lambda p: torch.optim.SGD(p, lr=0.1)),
    (
        "sgd-momentum",
        lambda: fo.sgd(0.05, momentum=0.9),
        lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
    ),
    (
        "sgd-nesterov",
        lambda: fo.sgd(0.05, momentum=0.9, nesterov=True),
        lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    ),
    (
        "rmsprop",
        lambda: fo.rmsprop(0.01, decay=0.99, eps=1e-8, eps_in_sqrt=False),
        lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.99, eps=1e-8),
    ),
    (
        "rmsprop-centered",
        lambda: fo.rmsprop(0.01, decay=0.9, eps=1e-6, eps_in_sqrt=False, centered=True),
        lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, eps=1e-6, centered=True),
    ),
    (
        "rmsprop-momentum",
        lambda: fo.rmsprop(0.01, decay=0.9, eps_in_sqrt=False, momentum=0.8),
        lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.8),
    ),
    (
        "adagrad",
        lambda: fo.adagrad(0.1, initial_accumulator_value=0.1, eps=0.0),
        lambda p: torch.optim.Adagrad(p, lr=0.1, initial_accumulator_value=0.1, eps=0.0),
    ),
]


@pytest.mark.parametrize("name, ours, theirs", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_the_same_trajectory_as_pytorch(name, ours, theirs):
    grads = _gradient_sequence(50)
    _assert_trees_close(_run_functional(ours(), grads), _run_torch(theirs, grads))


def test_float32_stays_float32_and_close_to_pytorch():
    grads = _gradient_sequence(50, np.float32)
    ours = _run_functional(fo.adam(0.05), grads, np.float32)
    theirs = _run_torch(lambda p: torch.optim.Adam(p, lr=0.05), grads, np.float32)
    _assert_trees_close(ours, theirs, rtol=1e-5, atol=1e-5)


SCHEDULE_CASES = [
    (
        "exponential",
        lambda: fo.exponential_decay(0.05, transition_steps=1, decay_rate=0.95),
        lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.95),
    ),
    (
        "cosine",
        lambda: fo.cosine_decay_schedule(0.05, decay_steps=50, alpha=0.1),
        lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=50, eta_min=0.005),
    ),
    (
        "piecewise",
        lambda: fo.piecewise_constant_schedule(0.05, {10: 0.5, 30: 0.1}),
        lambda o: torch.optim.lr_scheduler.LambdaLR(
            o, lambda e: 1.0 if e < 10 else 0.5 if e < 30 else 0.05
        ),
    ),
    (
        "linear",
        lambda: fo.linear_schedule(0.01, 0.05, transition_steps=20),
        lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=20),
    ),
]


@pytest.mark.parametrize(
    "name, schedule, scheduler", SCHEDULE_CASES, ids=[c[0] for c in SCHEDULE_CASES]
)
def test_a_schedule_matches_pytorchs_scheduler(name, schedule, scheduler):
    grads = _gradient_sequence(50)
    ours = _run_functional(fo.adam(schedule()), grads)
    theirs = _run_torch(lambda p: torch.optim.Adam(p, lr=0.05), grads, scheduler=scheduler)
    _assert_trees_close(ours, theirs)


# --- LAMB and Lion against their formulas (no PyTorch counterpart) ----------------------------


def _lamb_by_hand(params, grads, lr, b1, b2, eps, wd):
    leaves, treedef = fg.tree.tree_flatten(params)
    p = [np.array(x, dtype=np.float64) for x in leaves]
    m = [np.zeros_like(x) for x in p]
    v = [np.zeros_like(x) for x in p]
    for t, g_tree in enumerate(grads, start=1):
        for i, g in enumerate(fg.tree.tree_leaves(g_tree)):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            u = (m[i] / (1 - b1**t)) / (np.sqrt(v[i] / (1 - b2**t)) + eps) + wd * p[i]
            pn, un = np.linalg.norm(p[i]), np.linalg.norm(u)
            ratio = 1.0 if pn == 0 or un == 0 else pn / un
            p[i] = p[i] - lr * ratio * u
    return fg.tree.tree_unflatten(treedef, p)


def _lion_by_hand(params, grads, lr, b1, b2, wd):
    leaves, treedef = fg.tree.tree_flatten(params)
    p = [np.array(x, dtype=np.float64) for x in leaves]
    m = [np.zeros_like(x) for x in p]
    for g_tree in grads:
        for i, g in enumerate(fg.tree.tree_leaves(g_tree)):
            u = np.sign((1 - b1) * g + b1 * m[i]) + wd * p[i]
            m[i] = b2 * m[i] + (1 - b2) * g
            p[i] = p[i] - lr * u
    return fg.tree.tree_unflatten(treedef, p)


@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_lamb_follows_its_formula(wd):
    grads = _gradient_sequence(50)
    ours = _run_functional(fo.lamb(0.01, weight_decay=wd), grads)
    _assert_trees_close(ours, _lamb_by_hand(_params(), grads, 0.01, 0.9, 0.999, 1e-6, wd))


@pytest.mark.parametrize("wd", [0.0, 0.1])
def test_lion_follows_its_formula(wd):
    grads = _gradient_sequence(50)
    ours = _run_functional(fo.lion(0.003, weight_decay=wd), grads)
    _assert_trees_close(ours, _lion_by_hand(_params(), grads, 0.003, 0.9, 0.99, wd))


def test_nadam_is_adam_with_nesterov_momentum():
    grads = _gradient_sequence(10)
    params = _params()
    ours = _run_functional(fo.nadam(0.01), grads)
    leaves, treedef = fg.tree.tree_flatten(params)
    p = [np.array(x) for x in leaves]
    m = [np.zeros_like(x) for x in p]
    v = [np.zeros_like(x) for x in p]
    b1, b2 = 0.9, 0.999
    for t, g_tree in enumerate(grads, start=1):
        for i, g in enumerate(fg.tree.tree_leaves(g_tree)):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            m_hat = b1 * m[i] / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1**t)
            p[i] = p[i] - 0.01 * m_hat / (np.sqrt(v[i] / (1 - b2**t)) + 1e-8)
    _assert_trees_close(ours, fg.tree.tree_unflatten(treedef, p))


# --- building blocks -------------------------------------------------------------------------


def test_clip_by_global_norm():
    t = fo.clip_by_global_norm(1.0)
    small = {"a": np.array([0.3]), "b": np.array([0.4])}
    assert fo.global_norm(small) == pytest.approx(0.5)
    _assert_trees_close(t.update(small, t.init(small))[0], small)
    big = {"a": np.array([3.0]), "b": np.array([4.0])}
    _assert_trees_close(t.update(big, t.init(big))[0], {"a": np.array([0.6]), "b": np.array([0.8])})


def test_clip_and_scale_and_chain():
    opt = fo.chain(fo.clip(1.0), fo.scale(-0.5))
    state = opt.init([np.zeros(3)])
    assert state == (fo.EmptyState(), fo.EmptyState())
    updates, _ = opt.update([np.array([2.0, -0.5, -3.0])], state)
    np.testing.assert_array_equal(updates[0], [-0.5, 0.25, 0.5])


def test_add_decayed_weights_with_a_mask():
    params = {"w": np.array([1.0, 2.0]), "b": np.array([3.0])}
    grads = {"w": np.array([0.5, 0.5]), "b": np.array([0.5])}
    t = fo.add_decayed_weights(0.1, mask={"w": True, "b": False})
    updates, _ = t.update(grads, t.init(params), params)
    np.testing.assert_allclose(updates["w"], [0.6, 0.7])
    np.testing.assert_allclose(updates["b"], [0.5])
    t = fo.add_decayed_weights(0.1, mask=lambda p: {k: k != "b" for k in p})
    assert t.update(grads, t.init(params), params)[0]["b"][0] == 0.5
    with pytest.raises(ValueError, match="needs params"):
        t.update(grads, t.init(params))


def test_states_are_namedtuples_of_read_only_arrays():
    params = _params()
    state = fo.adam(0.1).init(params)
    adam_state, lr_state = state
    assert isinstance(adam_state, fo.ScaleByAdamState) and lr_state == fo.EmptyState()
    assert adam_state.count.dtype == np.int32 and int(adam_state.count) == 0
    for leaf in fg.tree.tree_leaves(adam_state):
        assert not leaf.flags.writeable
    assert fg.tree.tree_structure(adam_state.mu) == fg.tree.tree_structure(params)


def test_update_changes_nothing_it_was_given():
    params = _params()
    grads = _gradient_sequence(1)[0]
    opt = fo.adamw(0.1)
    state = opt.init(params)
    before = [np.array(x) for x in fg.tree.tree_leaves((params, grads, state))]
    opt.update(grads, state, params)
    after = fg.tree.tree_leaves((params, grads, state))
    for a, b in zip(before, after, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_on_numpy_leaves_is_its_formula_bit_for_bit(dtype):
    # NumPy leaves take adam's fused path (few passes, arrays made once per step): the same
    # operations in the same order as optax's formula, so the same bits, 0-d leaves included
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.01
    params = _params(dtype)
    opt = fo.adam(lr)
    state = opt.init(params)
    m = v = fg.tree.tree_map(np.zeros_like, params)
    for t, g in enumerate(_gradient_sequence(4, dtype), 1):
        updates, state = opt.update(g, state, params)
        new = fo.apply_updates(params, updates)
        m = fg.tree.tree_map(lambda gi, mi: (1 - b1) * gi + b1 * mi, g, m)
        v = fg.tree.tree_map(lambda gi, vi: (1 - b2) * (gi * gi) + b2 * vi, g, v)
        c1, c2 = 1 - b1**t, 1 - b2**t
        expected = fg.tree.tree_map(
            lambda mi, vi, c1=c1, c2=c2: -lr * ((mi / c1) / (np.sqrt(vi / c2) + eps)), m, v
        )
        for ours, theirs in zip(*map(fg.tree.tree_leaves, (updates, expected)), strict=True):
            assert ours.dtype == dtype
            np.testing.assert_array_equal(ours, theirs)
        for ours, theirs in zip(*map(fg.tree.tree_leaves, (state[0], (t, m, v))), strict=True):
            np.testing.assert_array_equal(ours, theirs)
        # the new moments and parameters are read-only
        assert not any(x.flags.writeable for x in fg.tree.tree_leaves((state, new)))
        for old, p_new, u in zip(*map(fg.tree.tree_leaves, (params, new, updates)), strict=True):
            np.testing.assert_array_equal(p_new, (old + u).astype(dtype))
        params = new


def test_adam_fast_path_in_pieces_is_its_formula_bit_for_bit():
    # large C-contiguous leaves run in pieces of _ADAM_CHUNK_BYTES (float32 32,768 entries,
    # float64 16,384) through one kept temporary per thread and dtype: leaves of one piece
    # and a bit, of several pieces and a remainder, both dtypes in one tree (one temporary
    # each), a transposed (F-ordered) gradient and parameter (whole-array path), a 0-d leaf;
    # Adam's numbers are 0-d arrays of each leaf's dtype, the values NEP 50 casts them to
    from funcgrad.optimizers._transforms import _ADAM_CHUNK_BYTES

    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.01
    rng = np.random.default_rng(5)
    piece32 = _ADAM_CHUNK_BYTES // 4
    params = {
        "one_and_a_bit": rng.standard_normal(piece32 + 7).astype(np.float32),
        "several": rng.standard_normal((257, 200)).astype(np.float32),
        "f64": rng.standard_normal((3, piece32 // 2 + 5)).astype(np.float64),
        "fortran": np.asfortranarray(rng.standard_normal((300, 150)).astype(np.float32)),
        "scalar": np.asarray(0.3, np.float32),
        "f16": rng.standard_normal(50).astype(np.float16),  # Adam's numbers cast to float16
    }
    opt = fo.adam(lr)
    state = opt.init(params)
    m = v = fg.tree.tree_map(np.zeros_like, params)
    previous = []
    for t in range(1, 4):
        g = fg.tree.tree_map(lambda p: rng.standard_normal(np.shape(p)).astype(p.dtype), params)
        g["fortran"] = np.ascontiguousarray(g["fortran"].T).T  # a transposed view
        g["several"] = g["several"] * (t - 2)  # a step with a zero gradient
        updates, state = opt.update(g, state, params)
        m = fg.tree.tree_map(lambda gi, mi: (1 - b1) * gi + b1 * mi, g, m)
        v = fg.tree.tree_map(lambda gi, vi: (1 - b2) * (gi * gi) + b2 * vi, g, v)
        c1, c2 = 1 - b1**t, 1 - b2**t
        expected = fg.tree.tree_map(
            lambda mi, vi, c1=c1, c2=c2: -lr * ((mi / c1) / (np.sqrt(vi / c2) + eps)), m, v
        )
        ours = fg.tree.tree_leaves((updates, state[0].mu, state[0].nu))
        theirs = fg.tree.tree_leaves((expected, m, v))
        for a, b in zip(ours, theirs, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
        # every result is an array of its own: none is the kept temporary or another result
        arrays = [x for x in ours if x.ndim] + previous
        for i, a in enumerate(arrays):
            assert not any(np.shares_memory(a, b) for b in arrays[i + 1 :])
        previous = [x for x in ours if x.ndim]
        params = fo.apply_updates(params, updates)


def test_a_schedule_counts_steps_in_the_state():
    opt = fo.sgd(fo.piecewise_constant_schedule(1.0, {2: 0.1}))
    params = np.zeros(1)
    state = opt.init(params)
    steps = []
    for _ in range(4):
        updates, state = opt.update(np.ones(1), state)
        steps.append(float(updates[0]))
    assert steps == pytest.approx([-1.0, -1.0, -0.1, -0.1])
    assert int(state[1].count) == 4


@pytest.mark.parametrize(
    "schedule, expected",
    [
        (fo.constant_schedule(0.3), lambda t: 0.3),
        (
            fo.linear_schedule(1.0, 0.2, 8, transition_begin=2),
            lambda t: 1.0 - 0.8 * min(max(t - 2, 0), 8) / 8,
        ),
        (
            fo.polynomial_schedule(1.0, 0.1, 2.0, 10),
            lambda t: 0.9 * (1 - min(t, 10) / 10) ** 2 + 0.1,
        ),
        (
            fo.exponential_decay(2.0, 3, 0.5, transition_begin=2, staircase=True),
            lambda t: 2.0 if t <= 2 else 2.0 * 0.5 ** math.floor((t - 2) / 3),
        ),
        (
            fo.exponential_decay(2.0, 3, 0.5, end_value=0.7),
            lambda t: max(2.0 * 0.5 ** (t / 3), 0.7),
        ),
        (
            fo.cosine_decay_schedule(1.0, 10, alpha=0.2, exponent=2.0),
            lambda t: 0.8 * (0.5 * (1 + math.cos(math.pi * min(t, 10) / 10))) ** 2 + 0.2,
        ),
        (
            fo.warmup_cosine_decay_schedule(0.1, 1.0, 4, 14, end_value=0.05),
            lambda t: (
                0.1 + 0.9 * t / 4
                if t < 4
                else 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(t - 4, 10) / 10))
            ),
        ),
        (
            fo.piecewise_constant_schedule(1.0, {3: 2.0, 6: 0.25}),
            lambda t: 1.0 if t < 3 else 2.0 if t < 6 else 0.5,
        ),
        (
            fo.join_schedules([fo.constant_schedule(0.5), fo.linear_schedule(0.5, 0.0, 4)], [5]),
            lambda t: 0.5 if t < 5 else 0.5 * (1 - min(t - 5, 4) / 4),
        ),
    ],
)
def test_schedules_follow_their_formulas(schedule, expected):
    for t in range(20):
        assert float(schedule(t)) == pytest.approx(expected(t), rel=1e-12, abs=1e-15), t
        assert float(schedule(np.asarray(t, np.int32))) == pytest.approx(
            expected(t), rel=1e-12, abs=1e-15
        )


def test_cosine_decay_needs_positive_steps():
    with pytest.raises(ValueError, match="positive decay_steps"):
        fo.cosine_decay_schedule(1.0, 0)


# --- differentiating through training (meta-learning) --------------------------------------------

X = np.random.default_rng(3).standard_normal((8, 3))
Y = X @ np.array([1.0, -2.0, 0.5]) + 0.3


def _loss(params, x=X, y=Y):
    return fnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def _train(lr, params, make, steps=5):
    opt = make(lr)
    state = opt.init(params)
    for _ in range(steps):
        grads = fg.grad(_loss)(params)
        updates, state = opt.update(grads, state, params)
        params = fo.apply_updates(params, updates)
    return _loss(params)


INIT = {"w": np.array([0.1, 0.2, -0.1]), "b": np.array(0.0)}

META = [
    ("sgd", lambda lr: fo.sgd(lr)),
    ("sgd-momentum", lambda lr: fo.sgd(lr, momentum=0.9, nesterov=True)),
    ("adam", lambda lr: fo.adam(lr, eps_root=1e-8)),
    ("adamw", lambda lr: fo.adamw(lr, eps_root=1e-8, weight_decay=0.1)),
    ("rmsprop", lambda lr: fo.rmsprop(lr, momentum=0.5)),
    ("lion", lambda lr: fo.lion(lr)),
    ("clipped", lambda lr: fo.chain(fo.clip_by_global_norm(1.0), fo.adam(lr, eps_root=1e-8))),
]


@pytest.mark.parametrize("name, make", META, ids=[m[0] for m in META])
def test_grad_of_training_with_respect_to_the_learning_rate(name, make):
    lr = 0.05
    ours = fg.grad(lambda r: _train(r, INIT, make))(lr)
    h = 1e-6
    numeric = (_train(lr + h, INIT, make) - _train(lr - h, INIT, make)) / (2 * h)
    assert float(ours) == pytest.approx(float(numeric), rel=1e-5, abs=1e-8)


@pytest.mark.parametrize("name, make", META[:4], ids=[m[0] for m in META[:4]])
def test_grad_of_training_with_respect_to_the_initial_parameters(name, make):
    ours = fg.grad(lambda p: _train(0.05, p, make, steps=3))(INIT)
    h = 1e-6
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        plus = _train(0.05, {"w": INIT["w"] + e, "b": INIT["b"]}, make, steps=3)
        minus = _train(0.05, {"w": INIT["w"] - e, "b": INIT["b"]}, make, steps=3)
        assert ours["w"][i] == pytest.approx(float((plus - minus) / (2 * h)), rel=1e-5, abs=1e-8)


# --- the two styles agree ------------------------------------------------------------------------


def test_functional_adam_and_optim_adam_take_the_same_steps():
    params = _params()
    leaves, treedef = fg.tree.tree_flatten(params)
    tensors = [fg.tensor(np.array(x), requires_grad=True) for x in leaves]
    opt = fg.optim.Adam(tensors, lr=0.03, betas=(0.8, 0.99), weight_decay=0.0)
    fopt = fo.adam(0.03, b1=0.8, b2=0.99)
    state = fopt.init(params)
    target = fg.tree.tree_map(lambda p: np.full(np.shape(p), 0.5), params)

    def loss_tree(p):
        return sum(
            fnp.sum((a - t) ** 4)
            for a, t in zip(fg.tree.tree_leaves(p), fg.tree.tree_leaves(target), strict=True)
        )

    for _ in range(40):
        opt.zero_grad()
        loss = sum(
            ((t - fg.tensor(tg)) ** 4).sum()
            for t, tg in zip(tensors, fg.tree.tree_leaves(target), strict=True)
        )
        loss.backward()
        opt.step()
        updates, state = fopt.update(fg.grad(loss_tree)(params), state, params)
        params = fo.apply_updates(params, updates)
    for t, p in zip(tensors, fg.tree.tree_leaves(params), strict=True):
        np.testing.assert_allclose(t.detach().numpy(), p, rtol=1e-10, atol=1e-12)


def test_optim_adam_on_a_module_and_functional_adam_on_functional_call_agree():
    # NOTE: functional_call comes with funcgrad.nn's utils (#15), which may land after this test
    from funcgrad.nn.utils import stateless

    functional_call = stateless.functional_call
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Linear(3, 8), fg.nn.Tanh(), fg.nn.Linear(8, 1)).double()
    params = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    x, y = fg.tensor(X), fg.tensor(Y[:, None])
    opt = fg.optim.Adam(model.parameters(), lr=0.01)
    fopt = fo.adam(0.01)
    state = fopt.init(params)

    def loss_of(p):
        return ((functional_call(model, p, (x,)) - y) ** 2).mean()

    for _ in range(30):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
        updates, state = fopt.update(fg.grad(loss_of)(params), state, params)
        params = fo.apply_updates(params, updates)
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.detach().numpy(), params[name], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["adam", "adamw", "sgd"])
def test_vmap_over_optimizer_states_is_an_ensemble(name):
    # A batch of models, each with its own state (the step count too): vmap of update equals a
    # loop over the models, two steps, bit for bit.
    opt = {"adam": fo.adam(0.1), "adamw": fo.adamw(0.1), "sgd": fo.sgd(0.1, momentum=0.9)}[name]
    rng = np.random.default_rng(5)
    ps, gs = rng.standard_normal((4, 3)), rng.standard_normal((2, 4, 3))
    states = fg.vmap(opt.init)(ps)
    loop = [opt.init(ps[i]) for i in range(4)]
    for g in gs:
        updates, states = fg.vmap(opt.update)(g, states, ps)
        steps = [opt.update(g[i], loop[i], ps[i]) for i in range(4)]
        loop = [s for _, s in steps]
        np.testing.assert_array_equal(updates, np.stack([u for u, _ in steps]))


@pytest.mark.parametrize(
    "make",
    [
        lambda: fo.adam(0.1, nesterov=True),
        lambda: fo.nadam(0.1),
        lambda: fo.sgd(np.float64(0.1)),
        lambda: fo.adam(lambda count: np.float64(0.1) * 0.99**count),
    ],
    ids=["adam-nesterov", "nadam", "float64-scalar-lr", "float64-schedule"],
)
def test_float32_leaves_stay_float32(make):
    # A NumPy float64 scalar (a count's bias correction, a learning rate, a schedule's value)
    # is strong under NumPy's promotion rules: it must not turn float32 updates into float64.
    opt = make()
    p = np.array([1.0, -2.0, 0.5], np.float32)
    g = np.array([0.3, 0.1, -0.2], np.float32)
    state = opt.init(p)
    for _ in range(2):
        updates, state = opt.update(g, state, p)
        assert updates.dtype == np.float32
