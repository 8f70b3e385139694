"""NumPy's random API (`numpy.random`) drawing from funcgrad's generators.

The module functions (`seed`, `rand`, `randn`, `normal`, `uniform`,
`randint`, `choice`, `permutation` ...) draw from funcgrad's default CPU
generator, the one `funcgrad.randn` and `funcgrad.rand` draw from:
`funcgrad.manual_seed(s)` and `funcgrad.numpy.random.seed(s)` seed that same
generator (and every GPU's), and `funcgrad.checkpoint` replays its draws.
`RandomState(seed)` and `default_rng(seed)` make independent generators.

Differences from NumPy, on purpose:

* The module functions draw from funcgrad's default stream (a NumPy
  `Generator` on PCG64, the one `funcgrad.manual_seed` seeds and
  `funcgrad.checkpoint` replays), so `seed(s)` gives other numbers than
  NumPy's legacy `numpy.random.seed(s)` (MT19937). `RandomState(seed)`, on
  the other hand, draws NumPy's legacy stream: the numbers of
  `numpy.random.RandomState(seed)`, bit for bit, which is what code ported
  from HIPS autograd (`npr.RandomState(0)`) expects; and `default_rng(seed)`
  draws those of `numpy.random.default_rng(seed)`.
* Parameters may be graph nodes where the draw is a differentiable function
  of them (the reparameterization trick): `normal(mu, sigma)` is
  `mu + sigma * standard_normal()`, and likewise `uniform`, `exponential`,
  `laplace`, `logistic`, `lognormal`, `gumbel`; `choice(x)` and
  `permutation(x)` of a node pick its entries differentiably. Any other
  distribution refuses a node parameter (`TypeError`) rather than cut the
  graph.
* Draws are made when called, not recorded as operations of the graph:
  `checkpoint` replays them (it restores the generator's state), and
  recorded draws come with `jit` (#18) and `vmap` (#20), the transforms
  that replay a graph.
* `shuffle` shuffles a plain array in place, as NumPy's; a node cannot be
  changed in place (the graph is immutable): use `permutation`, which
  returns the shuffled copy and is differentiable.
* The module's `get_state` returns the state of funcgrad's PCG64 generator
  (a dict, as `numpy.random.Generator.bit_generator.state` gives), not
  NumPy's legacy MT19937 tuple; `set_state` takes such a dict.
  `RandomState(seed).get_state()` returns NumPy's legacy tuple.
* `vmap(randomness='different')` batches a `RandomState`'s draws as a
  `default_rng`'s: the batch is a leading axis of one draw, so example `i`
  gets the numbers a loop over the batch would draw `i`-th.
"""

from __future__ import annotations

import sys as _sys
from typing import Any

import numpy as _np

from funcgrad.backend import rng as _rng
from funcgrad.graph import Node as _Node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops.index import getitem as _getitem

# NumPy's bit generators, re-exported: `default_rng(PCG64(0))` works as in NumPy.
BitGenerator = _np.random.BitGenerator
MT19937 = _np.random.MT19937
PCG64 = _np.random.PCG64
PCG64DXSM = _np.random.PCG64DXSM
Philox = _np.random.Philox
SFC64 = _np.random.SFC64
SeedSequence = _np.random.SeedSequence

__all__ = [
    "MT19937",
    "PCG64",
    "PCG64DXSM",
    "SFC64",
    "BitGenerator",
    "Generator",
    "Philox",
    "RandomState",
    "SeedSequence",
    "f",
    "get_bit_generator",
    "get_state",
    "hypergeometric",
    "logseries",
    "negative_binomial",
    "noncentral_chisquare",
    "noncentral_f",
    "pareto",
    "power",
    "random_integers",
    "rayleigh",
    "set_state",
    "shuffle",
    "triangular",
    "vonmises",
    "wald",
    "weibull",
    "zipf",
    "beta",
    "binomial",
    "bytes",
    "chisquare",
    "choice",
    "default_rng",
    "dirichlet",
    "exponential",
    "gamma",
    "geometric",
    "gumbel",
    "laplace",
    "logistic",
    "lognormal",
    "multinomial",
    "multivariate_normal",
    "normal",
    "permutation",
    "poisson",
    "rand",
    "randint",
    "randn",
    "random",
    "random_sample",
    "ranf",
    "sample",
    "seed",
    "standard_cauchy",
    "standard_exponential",
    "standard_gamma",
    "standard_normal",
    "standard_t",
    "uniform",
]


def _is_node(a: Any) -> bool:
    return type(a) is _Node


def _shape_of(*params: Any, size: Any) -> Any:
    """Return the shape of a draw: `size`, or the broadcast shape of the parameters."""
    if size is not None:
        return size
    return _np.broadcast_shapes(*(_np.shape(p.value if _is_node(p) else p) for p in params))


def _refuse_nodes(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    if any(_is_node(a) for a in (*args, *kwargs.values())):
        raise TypeError(
            f"funcgrad.numpy.random.{name}: a parameter is a graph node, and this draw is not "
            f"a differentiable function of its parameters in funcgrad; pass plain values "
            f"(node.value) or use a reparameterized distribution (normal, uniform, exponential, "
            f"laplace, logistic, lognormal, gumbel)"
        )


def _passthrough(name: str) -> Any:
    """Return a `Generator` method drawing NumPy's `name` distribution from plain parameters."""

    def method(self: Generator, *args: Any, **kwargs: Any) -> Any:
        _refuse_nodes(name, args, kwargs)
        return getattr(self._numpy(), name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"Draw from NumPy's `{name}` distribution (`numpy.random.Generator.{name}`'s arguments).\n\n"
        f"The parameters must be plain values: the draw is not differentiable in them."
    )
    return method


class Generator:
    """A random generator with NumPy's `Generator` methods (`default_rng` makes one).

    `Generator()` without a seed (and the module functions) draws from
    funcgrad's default CPU generator, the one `funcgrad.manual_seed` and
    `seed` seed; `Generator(seed)` owns a generator of its own.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> g = fnp.random.default_rng(0)
        >>> bool((g.normal(size=3) == fnp.random.default_rng(0).normal(size=3)).all())
        True
    """

    def __init__(self, seed: Any = None, *, shared: bool = False):
        # NOTE: a stream of its own as funcgrad's streams are (`Source`), so that vmap with
        # randomness='different' batches its draws as it batches the default generator's
        self._own = None if shared else _rng.Source("cpu", seed)

    def _numpy(self) -> _np.random.Generator:
        if _rng.draw_observers:  # funcgrad.jit is tracing: it replays each draw
            return _rng.Observed(self._raw)  # type: ignore[return-value]
        return self._raw()

    def _raw(self) -> _np.random.Generator:
        # NOTE: the shared generator is looked up at each draw, so `manual_seed` (which makes a
        # new one) and `checkpoint`'s replay (which swaps it) are seen.
        own = self._own
        return own.raw if own is not None else _rng.generator("cpu")

    def __repr__(self) -> str:
        return f"funcgrad.numpy.random.{type(self).__name__}({'shared' if self._own is None else 'own'})"

    # --- uniform and normal numbers ---------------------------------------------------

    def random(self, size: Any = None, dtype: Any = _np.float64, out: Any = None) -> Any:
        """Return numbers uniform in [0, 1) of shape `size`.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).random(2).shape
            (2,)
        """
        return self._numpy().random(size, dtype=dtype, out=out)

    def standard_normal(self, size: Any = None, dtype: Any = _np.float64, out: Any = None) -> Any:
        """Return standard normal numbers of shape `size`.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).standard_normal((2, 3)).shape
            (2, 3)
        """
        return self._numpy().standard_normal(size, dtype=dtype, out=out)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """Return normal numbers with mean `loc` and standard deviation `scale`.

        With a graph node as `loc` or `scale` the result is the node
        `loc + scale * standard_normal()`, differentiable in both.

        Examples:
            >>> import funcgrad as fg, funcgrad.numpy as fnp
            >>> g = fnp.random.default_rng(0)
            >>> fg.grad(lambda mu: fnp.sum(g.normal(mu, 1.0, size=4)))(0.0)
            4.0
        """
        if _is_node(loc) or _is_node(scale):
            return loc + scale * self._numpy().standard_normal(_shape_of(loc, scale, size=size))
        return self._numpy().normal(loc, scale, size)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        """Return numbers uniform in [`low`, `high`), differentiable in nodes `low` and `high`.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> x = fnp.random.default_rng(0).uniform(2.0, 3.0, size=5)
            >>> bool(((2.0 <= x) & (x < 3.0)).all())
            True
        """
        if _is_node(low) or _is_node(high):
            u = self._numpy().random(_shape_of(low, high, size=size))
            return low + (high - low) * u
        return self._numpy().uniform(low, high, size)

    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Any = None,
        dtype: Any = _np.int64,
        endpoint: bool = False,
    ) -> Any:
        """Return random integers in [`low`, `high`) (to `high` included if `endpoint`).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).integers(0, 3, size=4).dtype
            dtype('int64')
        """
        _refuse_nodes("integers", (low, high), {})
        return self._numpy().integers(low, high, size, dtype=dtype, endpoint=endpoint)

    # --- location-scale families: differentiable in their parameters --------------------

    def _location_scale(self, name: str, standard: Any, loc: Any, scale: Any, size: Any) -> Any:
        if _is_node(loc) or _is_node(scale):
            return loc + scale * standard(_shape_of(loc, scale, size=size))
        return getattr(self._numpy(), name)(loc, scale, size)

    def exponential(self, scale: Any = 1.0, size: Any = None) -> Any:
        """Return exponential numbers of mean `scale` (`scale * standard_exponential()` for a node).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> bool((fnp.random.default_rng(0).exponential(2.0, size=3) > 0).all())
            True
        """
        if _is_node(scale):
            return scale * self._numpy().standard_exponential(_shape_of(scale, size=size))
        return self._numpy().exponential(scale, size)

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """Return Laplace numbers (`loc + scale * laplace(0, 1)` for nodes).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).laplace(size=2).shape
            (2,)
        """
        return self._location_scale(
            "laplace", lambda s: self._numpy().laplace(0.0, 1.0, s), loc, scale, size
        )

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """Return logistic numbers (`loc + scale * logistic(0, 1)` for nodes).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).logistic(size=2).shape
            (2,)
        """
        return self._location_scale(
            "logistic", lambda s: self._numpy().logistic(0.0, 1.0, s), loc, scale, size
        )

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """Return Gumbel numbers (`loc + scale * gumbel(0, 1)` for nodes).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).gumbel(size=2).shape
            (2,)
        """
        return self._location_scale(
            "gumbel", lambda s: self._numpy().gumbel(0.0, 1.0, s), loc, scale, size
        )

    def rayleigh(self, scale: Any = 1.0, size: Any = None) -> Any:
        """Return Rayleigh numbers of mode `scale` (`scale * rayleigh(1)` for a node).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> bool((fnp.random.default_rng(0).rayleigh(2.0, size=3) > 0).all())
            True
        """
        if _is_node(scale):
            return scale * self._numpy().rayleigh(1.0, _shape_of(scale, size=size))
        return self._numpy().rayleigh(scale, size)

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None) -> Any:
        """Return log-normal numbers (`exp(mean + sigma * standard_normal())` for nodes).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> bool((fnp.random.default_rng(0).lognormal(size=3) > 0).all())
            True
        """
        if _is_node(mean) or _is_node(sigma):
            z = self._numpy().standard_normal(_shape_of(mean, sigma, size=size))
            return _ew.exp(mean + sigma * z)
        return self._numpy().lognormal(mean, sigma, size)

    # --- picking entries ------------------------------------------------------------

    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
    ) -> Any:
        """Return entries drawn from `a` (an int `n` means `arange(n)`), like NumPy's `choice`.

        A node `a` gives a node: its entries picked, differentiable in
        them. The probabilities `p` must be plain values.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.default_rng(0).choice(5, size=3, replace=False).shape
            (3,)
        """
        _refuse_nodes("choice", (p,), {})
        if _is_node(a):
            n = a.shape[axis]
            picked = self._numpy().choice(n, size, replace, p, 0, shuffle)
            return _getitem(a, index=(slice(None),) * (axis % a.ndim) + (picked,))
        return self._numpy().choice(a, size, replace, p, axis, shuffle)

    def permutation(self, x: Any, axis: int = 0) -> Any:
        """Return `x` with its entries along `axis` in random order (`arange(x)` for an int).

        A node `x` gives a node, differentiable in its entries.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> sorted(fnp.random.default_rng(0).permutation(4).tolist())
            [0, 1, 2, 3]
        """
        if _is_node(x):
            order = self._numpy().permutation(x.shape[axis])
            return _getitem(x, index=(slice(None),) * (axis % x.ndim) + (order,))
        if axis == 0:  # NumPy's default: vmap's batched draw takes no axis
            return self._numpy().permutation(x)
        return self._numpy().permutation(x, axis)

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """Shuffle the plain array `x` in place along `axis`, as NumPy's `shuffle`.

        Raises:
            TypeError: If `x` is a graph node, which cannot change in place:
                `permutation(x)` returns the shuffled copy, differentiably.

        Examples:
            >>> import numpy as np, funcgrad.numpy as fnp
            >>> x = np.arange(5)
            >>> fnp.random.default_rng(0).shuffle(x)
            >>> sorted(x.tolist())
            [0, 1, 2, 3, 4]
        """
        if _is_node(x):
            raise TypeError(
                f"funcgrad.numpy.random.shuffle: x is a graph node of shape {x.shape}, and a "
                f"node cannot change in place (the graph is immutable); use "
                f"funcgrad.numpy.random.permutation(x), which returns the shuffled copy"
            )
        self._numpy().shuffle(x, axis)

    # --- distributions drawn from plain parameters ------------------------------------

    beta = _passthrough("beta")
    binomial = _passthrough("binomial")
    bytes = _passthrough("bytes")
    chisquare = _passthrough("chisquare")
    dirichlet = _passthrough("dirichlet")
    gamma = _passthrough("gamma")
    geometric = _passthrough("geometric")
    multinomial = _passthrough("multinomial")
    multivariate_normal = _passthrough("multivariate_normal")
    poisson = _passthrough("poisson")
    standard_cauchy = _passthrough("standard_cauchy")
    standard_exponential = _passthrough("standard_exponential")
    standard_gamma = _passthrough("standard_gamma")
    standard_t = _passthrough("standard_t")
    f = _passthrough("f")
    hypergeometric = _passthrough("hypergeometric")
    logseries = _passthrough("logseries")
    negative_binomial = _passthrough("negative_binomial")
    noncentral_chisquare = _passthrough("noncentral_chisquare")
    noncentral_f = _passthrough("noncentral_f")
    pareto = _passthrough("pareto")
    power = _passthrough("power")
    triangular = _passthrough("triangular")
    vonmises = _passthrough("vonmises")
    wald = _passthrough("wald")
    weibull = _passthrough("weibull")
    zipf = _passthrough("zipf")


class RandomState(Generator):
    """A random generator with NumPy's legacy `RandomState` methods (`rand`, `randn`, `randint` ...).

    `RandomState(seed)` owns a generator of its own that draws NumPy's
    legacy stream (MT19937, with `numpy.random.RandomState`'s algorithms):
    the same seed gives the same numbers as `numpy.random.RandomState(seed)`,
    so code ported from HIPS autograd, which seeds with `npr.RandomState(0)`,
    gets the numbers it got there. `get_state` and `set_state` take NumPy's
    legacy state tuple. The module functions are the methods of one
    `RandomState` that draws from funcgrad's default generator (PCG64, see
    the module's docstring) instead.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> a = fnp.random.RandomState(0).randn(2, 3)
        >>> bool((a == np.random.RandomState(0).randn(2, 3)).all())
        True
    """

    def __init__(self, seed: Any = None, *, shared: bool = False):
        # NOTE: a `Source` as funcgrad's own streams, so that vmap(randomness='different') and
        # jit's replay see its draws as they see theirs; its generator is NumPy's legacy one
        self._own = None if shared else _rng.Source("cpu", seed, legacy=True)

    def seed(self, seed: Any = None) -> None:
        """Reseed the generator; on the module's (`funcgrad.numpy.random.seed`) it is `funcgrad.manual_seed`.

        `funcgrad.manual_seed(s)` and `funcgrad.numpy.random.seed(s)` seed the
        same generators: the default CPU one (that `funcgrad.randn` and these
        functions draw from) and every GPU's.

        Examples:
            >>> import funcgrad as fg, funcgrad.numpy as fnp
            >>> fnp.random.seed(0)
            >>> a = fnp.random.randn(3)
            >>> _ = fg.manual_seed(0)
            >>> bool((a == fnp.random.randn(3)).all())
            True
        """
        if self._own is None:
            _rng.manual_seed(seed)
        else:
            self._own = _rng.Source("cpu", seed, legacy=True)

    def rand(self, *shape: int) -> Any:
        """Return numbers uniform in [0, 1) of shape `shape` (a float for no arguments).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.rand(2, 3).shape
            (2, 3)
        """
        return self._numpy().random(shape or None)

    def randn(self, *shape: int) -> Any:
        """Return standard normal numbers of shape `shape` (a float for no arguments).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.randn(2).shape
            (2,)
        """
        return self._numpy().standard_normal(shape or None)

    def randint(self, low: Any, high: Any = None, size: Any = None, dtype: Any = int) -> Any:
        """Return random integers in [`low`, `high`), or in [0, `low`) without `high`.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> bool((fnp.random.randint(3, size=10) < 3).all())
            True
        """
        return self.integers(low, high, size, dtype=dtype)

    def random_sample(self, size: Any = None) -> Any:
        """Return numbers uniform in [0, 1) of shape `size` (also `sample`, `ranf`).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> fnp.random.random_sample((2,)).shape
            (2,)
        """
        return self._numpy().random(size)

    sample = random_sample
    ranf = random_sample

    def random_integers(self, low: Any, high: Any = None, size: Any = None) -> Any:
        """Return random integers in [`low`, `high`] (both ends; [1, `low`] without `high`).

        NumPy's legacy function (deprecated there in favour of `randint`).

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> sorted(set(fnp.random.RandomState(0).random_integers(1, 2, size=50).tolist()))
            [1, 2]
        """
        if high is None:
            low, high = 1, low
        return self.integers(low, high, size, endpoint=True)

    def tomaxint(self, size: Any = None) -> Any:
        """Return random integers in [0, `sys.maxsize`] (NumPy's legacy `RandomState.tomaxint`).

        `RandomState(seed)` gives NumPy's very numbers; the shared one draws
        them from funcgrad's default generator.

        Examples:
            >>> import numpy as np, funcgrad.numpy as fnp
            >>> bool((fnp.random.RandomState(0).tomaxint(3) == np.random.RandomState(0).tomaxint(3)).all())
            True
        """
        if self._own is not None:
            legacy: Any = (
                self._numpy()
            )  # NumPy's RandomState (through jit's observer while it traces)
            return legacy.tomaxint(size)
        return self.integers(0, _sys.maxsize, size, endpoint=True)

    def get_state(self) -> Any:
        """Return the state of the generator.

        For `RandomState(seed)`, NumPy's legacy state tuple (`('MT19937',
        keys, pos, has_gauss, cached_gaussian)`, as
        `numpy.random.RandomState.get_state` returns); for the module's
        functions (`funcgrad.numpy.random.get_state`), the state of funcgrad's
        PCG64 generator, a dict.

        Examples:
            >>> import funcgrad.numpy as fnp
            >>> rs = fnp.random.RandomState(0)
            >>> state = rs.get_state()
            >>> a = rs.rand(2)
            >>> rs.set_state(state)
            >>> bool((rs.rand(2) == a).all())
            True
        """
        if self._own is not None:
            return self._own.raw.legacy.get_state()
        return self._numpy().bit_generator.state

    def set_state(self, state: Any) -> None:
        """Restore a state `get_state` returned (NumPy's legacy tuple, or a PCG64 state dict)."""
        if self._own is not None:
            self._own.raw.legacy.set_state(state)
        else:
            self._numpy().bit_generator.state = state

    def get_bit_generator(self) -> Any:
        """Return the NumPy bit generator the draws come from (MT19937, or funcgrad's PCG64)."""
        if self._own is not None:
            return self._own.raw.bit_generator
        return self._numpy().bit_generator


def default_rng(seed: Any = None) -> Generator:
    """Return a new `Generator` seeded with `seed` (a `Generator` is returned as it is).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.random.default_rng(1).integers(10, size=3).shape
        (3,)
    """
    if isinstance(seed, Generator):
        return seed
    return Generator(seed)


_default = RandomState(shared=True)

seed = _default.seed
rand = _default.rand
randn = _default.randn
randint = _default.randint
random = _default.random
random_sample = _default.random_sample
sample = _default.random_sample
ranf = _default.random_sample
standard_normal = _default.standard_normal
normal = _default.normal
uniform = _default.uniform
exponential = _default.exponential
laplace = _default.laplace
logistic = _default.logistic
gumbel = _default.gumbel
lognormal = _default.lognormal
choice = _default.choice
permutation = _default.permutation
beta = _default.beta
binomial = _default.binomial
bytes = _default.bytes  # noqa: A001
chisquare = _default.chisquare
dirichlet = _default.dirichlet
gamma = _default.gamma
geometric = _default.geometric
multinomial = _default.multinomial
multivariate_normal = _default.multivariate_normal
poisson = _default.poisson
standard_cauchy = _default.standard_cauchy
standard_exponential = _default.standard_exponential
standard_gamma = _default.standard_gamma
standard_t = _default.standard_t
f = _default.f
hypergeometric = _default.hypergeometric
logseries = _default.logseries
negative_binomial = _default.negative_binomial
noncentral_chisquare = _default.noncentral_chisquare
noncentral_f = _default.noncentral_f
pareto = _default.pareto
power = _default.power
rayleigh = _default.rayleigh
triangular = _default.triangular
vonmises = _default.vonmises
wald = _default.wald
weibull = _default.weibull
zipf = _default.zipf
shuffle = _default.shuffle
random_integers = _default.random_integers
get_state = _default.get_state
set_state = _default.set_state
get_bit_generator = _default.get_bit_generator
