"""Random numbers of the Tensor layer: `Generator`, seeding, the random functions and methods.

funcgrad's streams are not PyTorch's (NumPy's PCG64, not an mt19937), so the
numbers are checked by what must hold whatever the stream: reproducibility
(the same seed or state gives the same numbers, `fork_rng` restores) and the
distributions (sample means and variances against the exact ones, with
tolerances of a few standard errors of a large sample from a fixed seed).
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import funcgrad as torch
from funcgrad.backend import rng
from tests.references import requires

N = 200_000  # draws per statistical check
K = 6.0  # tolerance in standard errors (from fixed seeds: the checks are deterministic)


def _values(t) -> np.ndarray:
    return np.asarray(t.numpy(), dtype=np.float64).reshape(-1)


def assert_moments(sample, mean: float, var: float) -> None:
    """The sample mean and variance agree with `mean` and `var` within K standard errors."""
    x = _values(sample)
    n = x.size
    se_mean = math.sqrt(var / n)
    assert abs(x.mean() - mean) <= K * se_mean, (x.mean(), mean, se_mean)
    # the variance's standard error, from the sample's own fourth moment
    d2 = (x - x.mean()) ** 2
    se_var = math.sqrt(d2.var() / n)
    assert abs(x.var() - var) <= K * se_var, (x.var(), var, se_var)


def assert_frequencies(observed: np.ndarray, probs: np.ndarray, n: int) -> None:
    """Counts agree with `n * probs`, each within K binomial standard errors."""
    se = np.sqrt(n * probs * (1 - probs))
    assert (np.abs(observed - n * probs) <= K * se + 1e-9).all(), (observed, n * probs)


# --- Generator -------------------------------------------------------------------------


def test_a_new_generator_starts_from_pytorchs_seed():
    real = requires("torch")
    g = torch.Generator()
    assert g.initial_seed() == real.Generator().initial_seed() == 67280421310721
    assert g.device == torch.device("cpu") and str(g.device) == "cpu"


def test_generator_seeding_api_is_pytorchs():
    g = torch.Generator()
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1  # wraps, as PyTorch
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2**64 and g.initial_seed() == s
    with pytest.raises(OverflowError, match="Overflow"):
        g.manual_seed(2**64)
    with pytest.raises(TypeError, match="integer"):
        g.manual_seed("3")


def test_same_seed_same_numbers_and_generators_are_independent():
    a = torch.Generator().manual_seed(7)
    b = torch.Generator().manual_seed(7)
    torch.manual_seed(0)
    default_before = torch.rand(3)
    torch.manual_seed(0)
    x = torch.randn(5, generator=a)
    torch.randn(100, generator=a)  # draws from a do not move b, nor the default
    y = torch.randn(5, generator=b)
    np.testing.assert_array_equal(x.numpy(), y.numpy())
    np.testing.assert_array_equal(torch.rand(3).numpy(), default_before.numpy())


def test_get_state_set_state_and_clone_state_replay_the_stream():
    g = torch.Generator().manual_seed(1)
    state = g.get_state()
    assert state.dtype == torch.uint8 and state.dim() == 1
    first = torch.rand(4, generator=g)
    assert g.set_state(state) is g
    np.testing.assert_array_equal(torch.rand(4, generator=g).numpy(), first.numpy())
    g.set_state(state)
    clone = g.clone_state()
    np.testing.assert_array_equal(
        torch.rand(4, generator=clone).numpy(), torch.rand(4, generator=g).numpy()
    )
    assert clone.initial_seed() == 1


def test_generators_pickle_with_their_state():
    g = torch.Generator().manual_seed(5)
    torch.rand(3, generator=g)
    h = pickle.loads(pickle.dumps(g))
    assert h.initial_seed() == 5
    np.testing.assert_array_equal(
        torch.rand(3, generator=h).numpy(), torch.rand(3, generator=g).numpy()
    )


def test_set_state_refuses_what_is_not_a_funcgrad_state():
    real = requires("torch")
    g = torch.Generator()
    with pytest.raises(TypeError, match="ByteTensor"):
        g.set_state(torch.zeros(3))
    pytorch_state = torch.tensor(real.get_rng_state().numpy())
    with pytest.raises(ValueError, match="PyTorch's CPU generator state"):
        g.set_state(pytorch_state)
    with pytest.raises(ValueError, match="PyTorch's CPU generator state"):
        torch.set_rng_state(pytorch_state)


# --- the default generators ----------------------------------------------------------------


def test_manual_seed_returns_the_default_generator_and_seeds_it():
    assert torch.manual_seed(11) is torch.default_generator
    assert torch.initial_seed() == 11 == torch.default_generator.initial_seed()
    a = torch.rand(3)
    torch.default_generator.manual_seed(11)
    np.testing.assert_array_equal(torch.rand(3).numpy(), a.numpy())


def test_seed_is_fresh_and_is_the_initial_seed():
    s = torch.seed()
    assert torch.initial_seed() == s and torch.seed() != s


def test_rng_state_round_trip():
    state = torch.get_rng_state()
    a = torch.randn(3)
    torch.set_rng_state(state)
    np.testing.assert_array_equal(torch.randn(3).numpy(), a.numpy())


def test_fork_rng_restores_the_default_generator():
    torch.manual_seed(0)
    with torch.random.fork_rng():
        inside = torch.rand(5)
        torch.rand(50)
    np.testing.assert_array_equal(torch.rand(5).numpy(), inside.numpy())
    with torch.random.fork_rng(enabled=False):
        torch.rand(5)
    torch.manual_seed(0)
    torch.rand(5)
    after = torch.rand(5)
    torch.manual_seed(0)
    torch.rand(5)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(123)  # even a reseed inside is undone
    np.testing.assert_array_equal(torch.rand(5).numpy(), after.numpy())


def test_torch_random_names():
    real = requires("torch")
    for name in real.random.__all__:
        assert callable(getattr(torch.random, name)), name
    assert torch.random.manual_seed is torch.manual_seed
    assert torch.random.default_generator is torch.default_generator


# --- functions: shapes, dtypes, signatures -------------------------------------------------


@pytest.mark.parametrize("fn", [torch.rand, torch.randn])
def test_size_forms_and_dtypes(fn):
    for t in (fn(2, 3), fn((2, 3)), fn([2, 3]), fn(size=(2, 3)), fn(torch.Size([2, 3]))):
        assert t.shape == (2, 3) and t.dtype == torch.float32
    assert fn(()).shape == () and fn(2, dtype=torch.float64).dtype == torch.float64
    assert fn(2, requires_grad=True).requires_grad and fn(2).is_leaf
    torch.set_default_dtype(torch.float64)
    try:
        assert fn(2).dtype == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    with pytest.raises(torch.DtypeError, match="int64"):
        fn(2, dtype=torch.int64)


def test_randint_randperm_and_like_functions():
    assert torch.randint(5, (3,)).dtype == torch.int64
    assert torch.randint(2, 5, (3, 2)).shape == (3, 2)
    assert torch.randint(low=2, high=5, size=(4,)).shape == (4,)
    assert torch.randint(5, size=(2,)).shape == (2,)
    assert torch.randint(0, 5, (2,), dtype=torch.float32).dtype == torch.float32
    p = torch.randperm(10)
    assert p.dtype == torch.int64 and sorted(p.tolist()) == list(range(10))
    assert torch.randperm(0).shape == (0,)
    x = torch.zeros(2, 3, dtype=torch.float64)
    assert torch.rand_like(x).dtype == torch.float64 and torch.randn_like(x).shape == (2, 3)
    r = torch.randint_like(x, 3, 7)
    assert r.dtype == torch.float64 and r.min().item() >= 3 and r.max().item() < 7
    assert torch.randint_like(torch.zeros(4, dtype=torch.int64), 2).max().item() < 2
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        torch.randint(5, 5, (2,))


def test_normal_overloads():
    assert torch.normal(0.0, 1.0, size=(2, 3)).shape == (2, 3)
    assert torch.normal(0.0, 1.0, (4,)).dtype == torch.float32
    assert torch.normal(torch.zeros(3, dtype=torch.float64), 1.0).dtype == torch.float64
    assert torch.normal(0.0, torch.ones(2, 1)).shape == (2, 1)
    assert torch.normal(torch.zeros(3), torch.ones(2, 1)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(torch.zeros(2), -1.0)
    with pytest.raises(TypeError, match="size"):
        torch.normal(0.0, 1.0)


def test_bernoulli_multinomial_poisson_shapes_and_dtypes():
    p = torch.full((2, 3), 0.5, dtype=torch.float64)
    b = torch.bernoulli(p)
    assert b.dtype == torch.float64 and set(b.numpy().ravel()) <= {0.0, 1.0}
    assert torch.bernoulli(torch.zeros(3), 1.0).tolist() == [1.0, 1.0, 1.0]
    assert p.bernoulli().shape == (2, 3)
    m = torch.multinomial(torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 1.0]]), 2)
    assert m.dtype == torch.int64 and m.shape == (2, 2)
    assert all(len(set(row)) == 2 for row in m.tolist()) and 0 not in m[1].tolist()
    assert torch.tensor([1.0, 1.0]).multinomial(5, replacement=True).shape == (5,)
    assert torch.poisson(torch.ones(4, dtype=torch.float64)).dtype == torch.float64
    with pytest.raises(RuntimeError, match="p_in >= 0 && p_in <= 1"):
        torch.bernoulli(torch.tensor([1.5]))
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(torch.ones(3), 4)
    with pytest.raises(RuntimeError, match="not enough non-negative category"):
        torch.multinomial(torch.tensor([0.0, 1.0, 1.0]), 3)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        torch.multinomial(torch.tensor([-1.0, 1.0]), 1)


def test_generator_argument_is_checked():
    with pytest.raises(TypeError, match=r"funcgrad\.rand: generator must be a funcgrad\.Generator"):
        torch.rand(2, generator=np.random.default_rng(0))
    cuda = torch.Generator._of(rng.Source("cuda:0"))  # a GPU generator, never drawn from
    with pytest.raises(
        RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"
    ):
        torch.randn(2, generator=cuda)
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type"):
        torch.empty(2).uniform_(generator=cuda)


@pytest.mark.parametrize(
    "draw",
    [
        lambda g: torch.rand(4, generator=g),
        lambda g: torch.randn(4, generator=g),
        lambda g: torch.randint(0, 100, (4,), generator=g),
        lambda g: torch.randperm(8, generator=g),
        lambda g: torch.normal(0.0, 1.0, (4,), generator=g),
        lambda g: torch.normal(torch.zeros(4), 2.0, generator=g),
        lambda g: torch.bernoulli(torch.full((8,), 0.5), generator=g),
        lambda g: torch.multinomial(torch.ones(6), 3, generator=g),
        lambda g: torch.poisson(torch.full((4,), 3.0), generator=g),
        lambda g: torch.rand_like(torch.zeros(4), generator=g),
        lambda g: torch.randn_like(torch.zeros(4), generator=g),
        lambda g: torch.randint_like(torch.zeros(4), 9, generator=g),
        lambda g: torch.empty(4).uniform_(generator=g),
        lambda g: torch.empty(4).normal_(generator=g),
        lambda g: torch.empty(8).bernoulli_(0.5, generator=g),
        lambda g: torch.empty(4).exponential_(generator=g),
        lambda g: torch.empty(4, dtype=torch.int64).random_(generator=g),
        lambda g: torch.empty(4).geometric_(0.5, generator=g),
        lambda g: torch.empty(4).log_normal_(generator=g),
        lambda g: torch.empty(4).cauchy_(generator=g),
    ],
)
def test_every_random_function_takes_a_generator(draw):
    torch.manual_seed(0)
    a = draw(torch.Generator().manual_seed(3))
    default_next = torch.rand(2)
    torch.manual_seed(0)
    b = draw(torch.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    # the default generator did not move
    np.testing.assert_array_equal(torch.rand(2).numpy(), default_next.numpy())
    torch.manual_seed(4)
    c = draw(None)
    torch.manual_seed(4)
    np.testing.assert_array_equal(draw(None).numpy(), c.numpy())


# --- distributions ---------------------------------------------------------------------------


def test_uniform_and_normal_moments():
    g = torch.Generator().manual_seed(0)
    assert_moments(torch.rand(N, generator=g), 0.5, 1 / 12)
    assert_moments(torch.randn(N, generator=g), 0.0, 1.0)
    assert_moments(torch.randn(N, dtype=torch.float64, generator=g), 0.0, 1.0)
    assert_moments(torch.normal(2.0, 3.0, (N,), generator=g), 2.0, 9.0)
    assert_moments(torch.normal(torch.full((N,), -1.0), 0.5, generator=g), -1.0, 0.25)
    assert_moments(torch.empty(N).uniform_(-2, 5, generator=g), 1.5, 49 / 12)
    assert_moments(torch.empty(N).normal_(1.0, 0.5, generator=g), 1.0, 0.25)


def test_complex_normal_has_unit_variance_split_between_the_parts():
    z = torch.randn(N, dtype=torch.complex128, generator=torch.Generator().manual_seed(1))
    zz = z.numpy()
    assert_moments(torch.tensor(zz.real), 0.0, 0.5)
    assert_moments(torch.tensor(zz.imag), 0.0, 0.5)


def test_discrete_moments():
    g = torch.Generator().manual_seed(2)
    assert_moments(torch.randint(3, 10, (N,), generator=g), 6.0, (7**2 - 1) / 12)
    assert_moments(torch.empty(N).bernoulli_(0.3, generator=g), 0.3, 0.21)
    assert_moments(torch.bernoulli(torch.full((N,), 0.8), generator=g), 0.8, 0.16)
    assert_moments(torch.empty(N).geometric_(0.25, generator=g), 4.0, 0.75 / 0.25**2)
    assert_moments(torch.poisson(torch.full((N,), 4.0), generator=g), 4.0, 4.0)
    assert_moments(torch.empty(N, dtype=torch.int64).random_(10, generator=g), 4.5, 99 / 12)
    x = torch.empty(N, dtype=torch.int64).random_(-3, 2, generator=g)
    assert x.min().item() == -3 and x.max().item() == 1


def test_continuous_moments():
    g = torch.Generator().manual_seed(3)
    assert_moments(torch.empty(N).exponential_(2.0, generator=g), 0.5, 0.25)
    mu, s = 0.1, 0.4
    mean = math.exp(mu + s * s / 2)
    var = (math.exp(s * s) - 1) * math.exp(2 * mu + s * s)
    assert_moments(torch.empty(N, dtype=torch.float64).log_normal_(mu, s, generator=g), mean, var)


def test_cauchy_quartiles():
    # no mean: the median and the quartiles (median -+ sigma) instead
    x = _values(torch.empty(N, dtype=torch.float64).cauchy_(1.0, 2.0, generator=torch.Generator()))
    for q, expected in ((0.25, -1.0), (0.5, 1.0), (0.75, 3.0)):
        density = 1 / (math.pi * 2.0 * (1 + ((expected - 1.0) / 2.0) ** 2))
        se = math.sqrt(q * (1 - q) / N) / density
        assert abs(np.quantile(x, q) - expected) <= K * se


def test_random_without_bounds_covers_the_dtypes_range():
    g = torch.Generator().manual_seed(4)
    f = _values(torch.empty(N).random_(generator=g))
    assert (
        f.min() >= 0 and f.max() <= 2**24 and abs(f.mean() - 2**23) <= K * 2**24 / math.sqrt(12 * N)
    )
    u8 = torch.empty(N, dtype=torch.uint8).random_(generator=g)
    assert_moments(u8, 127.5, (256**2 - 1) / 12)
    b = torch.empty(N, dtype=torch.bool).random_(generator=g)
    assert abs(_values(b).mean() - 0.5) <= K * 0.5 / math.sqrt(N)
    big = _values(torch.empty(1000, dtype=torch.int64).random_(generator=g))
    assert big.min() >= 0 and big.max() > 2**62  # the whole non-negative int64 range


def test_multinomial_frequencies():
    g = torch.Generator().manual_seed(5)
    w = np.array([1.0, 0.0, 2.0, 5.0])
    p = w / w.sum()
    draws = torch.multinomial(torch.tensor(w), N, replacement=True, generator=g).numpy()
    assert_frequencies(np.bincount(draws, minlength=4), p, N)
    # two rows at once, each its own distribution
    rows = torch.tensor([[1.0, 1.0, 2.0], [3.0, 1.0, 0.0]])
    draws = torch.multinomial(rows, N, replacement=True, generator=g).numpy()
    assert_frequencies(np.bincount(draws[0], minlength=3), np.array([0.25, 0.25, 0.5]), N)
    assert_frequencies(np.bincount(draws[1], minlength=3), np.array([0.75, 0.25, 0.0]), N)
    # without replacement: the first pick has the weights' law, the second the rest's
    trials = 40_000
    picks = torch.multinomial(torch.tensor(w).expand(trials, 4), 2, generator=g).numpy()
    assert (picks[:, 0] != picks[:, 1]).all() and (picks != 1).all()
    assert_frequencies(np.bincount(picks[:, 0], minlength=4), p, trials)
    second = np.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(4) if i != j) for j in range(4)])
    assert_frequencies(np.bincount(picks[:, 1], minlength=4), second, trials)


def test_randperm_is_uniform_over_positions():
    g = torch.Generator().manual_seed(6)
    n, trials = 5, 40_000
    first = np.array([torch.randperm(n, generator=g)[0].item() for _ in range(trials)])
    assert_frequencies(np.bincount(first, minlength=n), np.full(n, 1 / n), trials)


# --- gradients: the draws are not differentiable in their parameters, as in PyTorch ------------


def test_parameters_of_draws_get_zero_gradients_as_in_pytorch():
    real = requires("torch")
    mean = torch.zeros(3, requires_grad=True)
    std = torch.ones(3, requires_grad=True)
    out = torch.normal(mean, std)
    assert out.requires_grad
    out.sum().backward()
    rm = real.zeros(3, requires_grad=True)
    rs = real.ones(3, requires_grad=True)
    real.normal(rm, rs).sum().backward()
    np.testing.assert_array_equal(mean.grad.numpy(), rm.grad.numpy())
    np.testing.assert_array_equal(std.grad.numpy(), rs.grad.numpy())
    p = torch.full((3,), 0.5, requires_grad=True)
    torch.bernoulli(p).sum().backward()
    assert p.grad.tolist() == [0.0, 0.0, 0.0]
    lam = torch.full((2,), 2.0, requires_grad=True)
    torch.poisson(lam).sum().backward()
    assert lam.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "fill",
    ["uniform_", "normal_", "bernoulli_", "exponential_", "random_", "log_normal_", "cauchy_"],
)
def test_in_place_draws_on_recorded_tensors_match_pytorch(fill):
    real = requires("torch")
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    getattr(y, fill)()
    assert y.requires_grad and not y.is_leaf
    (y * 3 + x).sum().backward()
    rx = real.ones(3, requires_grad=True)
    ry = rx * 2
    getattr(ry, fill)()
    (ry * 3 + rx).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), rx.grad.numpy())


def test_in_place_draws_on_leaves_follow_pytorchs_rules():
    w = torch.empty(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"leaf Variable that requires grad.*uniform_"):
        w.uniform_()
    with torch.no_grad():  # how nn.init fills parameters
        assert w.uniform_(-0.1, 0.1, generator=torch.Generator()) is w
    assert w.requires_grad and w.is_leaf
    assert (w.abs() <= 0.1).all()


def test_in_place_draws_check_their_arguments_and_dtypes():
    with pytest.raises(RuntimeError, match="from=1 > to=0"):
        torch.empty(2).uniform_(1, 0)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.empty(2).normal_(0, -1)
    with pytest.raises(RuntimeError, match=r"lambda > 0\.0"):
        torch.empty(2).exponential_(0)
    with pytest.raises(RuntimeError, match=r"p to be in \(0, 1\)"):
        torch.empty(2).geometric_(1.5)
    with pytest.raises(RuntimeError, match="from=3 >= to=3"):
        torch.empty(2).random_(3, 3)
    with pytest.raises(torch.DtypeError, match="normal_kernel_cpu"):
        torch.empty(2, dtype=torch.int64).normal_()
    # integer tensors take integer-valued draws, as in PyTorch
    assert torch.zeros(4, dtype=torch.int64).bernoulli_(1.0).tolist() == [1, 1, 1, 1]
    assert torch.zeros(4, dtype=torch.int32).geometric_(0.5).min().item() >= 1
    t = torch.zeros(3)
    assert t.bernoulli_(torch.tensor([0.0, 1.0, 0.0])).tolist() == [0.0, 1.0, 0.0]
