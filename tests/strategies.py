"""Drawing helpers for the tests: the `g` of `Sample.make(g)`, directions, numeric JVPs.

`Draw` wraps hypothesis' `data.draw` with the small interface that
`funcgrad.ops.registry.Sample.make` expects (see the registry's docstring).
Shapes, integers and choices are drawn through hypothesis, so they shrink;
array contents come from one NumPy generator seeded by a single drawn
integer, which keeps drawing a large array as cheap as drawing one number.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from funcgrad.graph import Node

FD_EPS = 1e-6


class Draw:
    """The drawing helper `g` handed to `Sample.make`, backed by hypothesis.

    Args:
        data: The object of `hypothesis.strategies.data()`.
        complex: Draw complex arrays (for the primitives whose `Sample.complex`
            is true): `array` then gives complex128 values whose real and
            imaginary parts are both drawn from `[low, high]`.
    """

    def __init__(self, data, complex=False):
        self._data = data
        self._rng = None
        self.complex = complex

    def _draw(self, strategy, label=None):
        return self._data.draw(strategy, label=label)

    def shape(self, min_dims=0, max_dims=3, min_side=1, max_side=4) -> tuple:
        """Return a shape with `min_dims..max_dims` axes of `min_side..max_side` each."""
        ndim = self._draw(st.integers(min_dims, max_dims))
        return tuple(self._draw(st.integers(min_side, max_side)) for _ in range(ndim))

    def broadcast_shapes(self, n, min_dims=0, max_dims=3) -> list:
        """Return `n` shapes that broadcast together (sides 1 to 4)."""
        shapes = self._draw(
            mutually_broadcastable_shapes(
                num_shapes=n, min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=4
            )
        )
        return list(shapes.input_shapes)

    def rng(self) -> np.random.Generator:
        """Return this example's NumPy generator (seeded by one drawn integer)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._draw(st.integers(0, 2**32 - 1), "seed"))
        return self._rng

    def array(self, shape, low, high) -> np.ndarray:
        """Return a float64 array of `shape` drawn uniformly from `[low, high]`.

        In complex mode: a complex128 array, real and imaginary parts each in `[low, high]`.
        """
        re = np.asarray(self.rng().uniform(low, high, size=tuple(shape)), dtype=np.float64)
        if not self.complex:
            return re
        return re + 1j * self.rng().uniform(low, high, size=tuple(shape))

    def integers(self, low, high) -> int:
        """Return an int in `[low, high]` (both included)."""
        return self._draw(st.integers(low, high))

    def choice(self, seq):
        """Return one element of the non-empty sequence `seq`."""
        return self._draw(st.sampled_from(list(seq)))

    def boolean(self) -> bool:
        """Return True or False."""
        return self._draw(st.booleans())

    def permutation(self, n) -> list:
        """Return a permutation of `range(n)` as a list."""
        return list(self._draw(st.permutations(list(range(n)))))


def is_float_array(a) -> bool:
    """Whether an argument of a sample is differentiable (a floating-point or complex array or NumPy scalar)."""
    return isinstance(a, (np.ndarray, np.generic)) and np.dtype(a.dtype).kind in "fc"


def direction(g: Draw, shape, dtype=np.float64) -> np.ndarray:
    """Return a random cotangent or tangent of `shape`, entries in [-1, 1] (both parts if complex)."""
    shape = tuple(shape)
    v = g.rng().uniform(-1.0, 1.0, size=shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * g.rng().uniform(-1.0, 1.0, size=shape)
    return np.asarray(v).astype(dtype)


def directions(g: Draw, args) -> tuple:
    """Return one tangent per argument: random for float arrays, None for constants."""
    return tuple(direction(g, np.shape(a), a.dtype) if is_float_array(a) else None for a in args)


def inner(a, b) -> float:
    """Return the float64 inner product `sum(a * b)` (None counts as zero).

    For complex values, `Re(sum(a * b))`: the pairing of a cotangent with a
    tangent in the JAX convention (docs/concepts/complex.md), no conjugate.
    """
    if a is None or b is None:
        return 0.0
    a = a.value if type(a) is Node else a
    b = b.value if type(b) is Node else b
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        return float(np.real(np.sum(a.astype(np.complex128) * b.astype(np.complex128))))
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def inner_abs(a, b) -> float:
    """Return `sum(|a| * |b|)`: the scale of `inner(a, b)` for tolerances."""
    if a is None or b is None:
        return 0.0
    return inner(np.abs(np.asarray(a)), np.abs(np.asarray(b)))


def shift(args, tangents, eps):
    """Return `args + eps * tangents` (constants, where the tangent is None, unchanged)."""
    return tuple(
        a if t is None else np.asarray(a + eps * t, dtype=_wide(a, t))
        for a, t in zip(args, tangents, strict=True)
    )


def _wide(*arrays):
    """complex128 if any of `arrays` is complex, else float64."""
    return np.complex128 if any(np.asarray(a).dtype.kind == "c" for a in arrays) else np.float64


def numeric_jvp(prim, args, params, tangents, eps=FD_EPS) -> np.ndarray:
    """Return `J @ tangents` of `prim` at `args` by central differences in float64.

    Args:
        prim: A primitive (any function of `*args, **params` works).
        args: Its arguments; float arrays are the variables.
        params: Its static keyword parameters.
        tangents: One tangent per argument, None for constants.
        eps: The step.
    """
    plus = np.asarray(prim(*shift(args, tangents, eps), **params))
    minus = np.asarray(prim(*shift(args, tangents, -eps), **params))
    wide = _wide(plus, minus)
    return (plus.astype(wide) - minus.astype(wide)) / (2 * eps)


def numeric_derivative(f, args, tangents, eps=FD_EPS) -> float:
    """Return the directional derivative of the scalar function `f(*args)` by central differences."""
    return (f(*shift(args, tangents, eps)) - f(*shift(args, tangents, -eps))) / (2 * eps)


def assert_close(actual, expected, tol, scale=0.0, what=""):
    """Assert `|actual - expected| <= tol * (|expected| + scale + 1)`, elementwise.

    `scale` lets a sum of many terms be judged against the size of its terms
    (cancellation can make the sum itself small).
    """
    wide = _wide(actual, expected)
    actual = np.asarray(actual).astype(wide)
    expected = np.asarray(expected).astype(wide)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    err = np.abs(actual - expected)
    bound = tol * (np.abs(expected) + scale + 1.0)
    if not np.all(err <= bound):
        worst = np.unravel_index(np.argmax(err - bound), err.shape) if err.ndim else ()
        raise AssertionError(
            f"{what}: {actual[worst]!r} != {expected[worst]!r} "
            f"(error {err[worst]:.3g}, allowed {bound[worst]:.3g}, tol {tol:g})"
        )
