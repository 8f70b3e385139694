"""Every primitive's batching rule, from its `Sample`: `vmap(prim)` is a loop over the batch.

For each registered primitive (`sample_of(prim)`, as the generic rule tests
in `tests/ops/test_rules.py`), a batch of examples is drawn that share the
sample's structure (shapes, parameters) and differ in their array values.
Each array argument is batched along a random axis, or (when it is the same
for every example) left unbatched at random. Then, in float64 and float32:

* `vmap(prim)(batch) == stack([prim(x) for x in batch])`;
* the same for the VJP (`vmap` of `vjp(prim)(ct)` over arguments and
  cotangents) and the JVP (over arguments and tangents), so that the
  batching rules compose with differentiation.

The primitives that fall back to a loop are listed in the terminal summary
(`conftest.py`) and must stay within `FALLBACK`.
"""

from __future__ import annotations

import copy
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
from funcgrad.ops import registry
from funcgrad.transforms.batching import BatchingWarning, fallback_primitives
from tests.call_samples import sample_of
from tests.ops.test_rules import _pins_float64
from tests.strategies import Draw, is_float_array

PRIMITIVES = registry.primitives()

# Primitives that have no batching rule (vmap loops over the batch for them): none of
# NumPy's or the neural networks'.
FALLBACK: dict[str, str] = {}

# Primitives whose sample needs more than this process offers.
_SKIP_ERRORS = (NotImplementedError,)


class _Batch:
    """The drawing helper for a batch: the structure is drawn once, array values per example.

    The first example records every structural draw (shapes, integers,
    choices); the others replay them, so all share shapes and parameters,
    while `array` draws fresh values from each example's own generator.
    """

    def __init__(self, g: Draw, complex: bool):
        self._g = g
        self.complex = complex
        self._log: list = []
        self._pos: int | None = None
        self._rng = np.random.default_rng(0)

    def example(self, k: int, seed: int) -> _Batch:
        self._pos = None if k == 0 else 0
        self._rng = np.random.default_rng(seed + 7919 * k)
        self._shared = np.random.default_rng(seed)  # what a sample draws with g.rng() itself
        return self

    def _structural(self, name, *args, **kwargs):
        if self._pos is None:
            value = getattr(self._g, name)(*args, **kwargs)
            self._log.append(copy.deepcopy(value))
            return value
        value = self._log[self._pos]
        self._pos += 1
        return copy.deepcopy(value)  # a sample may change what it drew (pop from a list)

    def shape(self, *args, **kwargs):
        return self._structural("shape", *args, **kwargs)

    def broadcast_shapes(self, *args, **kwargs):
        return self._structural("broadcast_shapes", *args, **kwargs)

    def integers(self, *args, **kwargs):
        return self._structural("integers", *args, **kwargs)

    def choice(self, *args, **kwargs):
        return self._structural("choice", *args, **kwargs)

    def boolean(self, *args, **kwargs):
        return self._structural("boolean", *args, **kwargs)

    def permutation(self, *args, **kwargs):
        return self._structural("permutation", *args, **kwargs)

    def rng(self):
        return self._shared

    def array(self, shape, low, high):
        re = np.asarray(self._rng.uniform(low, high, size=tuple(shape)), dtype=np.float64)
        if not self.complex:
            return re
        return re + 1j * self._rng.uniform(low, high, size=tuple(shape))


def _same(a, b) -> bool:
    """Deep equality of sample parameters (arrays by value)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        return np.shape(a) == np.shape(b) and bool(np.all(np.asarray(a) == np.asarray(b)))
    return a is b or a == b


def _draw_batch(prim, g: Draw, size: int):
    """`size` examples of `prim`'s sample sharing parameters: `(args per example, params)`."""
    sample = sample_of(prim)
    complex_ = sample.complex and g.boolean()
    seed = g.integers(0, 2**16)
    batch = _Batch(g, complex_)
    first_args, params = sample.make(batch.example(0, seed))
    examples = [tuple(first_args)]
    for k in range(1, size):
        args, p = sample.make(batch.example(k, seed))
        args = tuple(args)
        if not _same(p, params) or any(
            np.shape(a) != np.shape(b) or getattr(a, "dtype", None) != getattr(b, "dtype", None)
            for a, b in zip(args, first_args, strict=True)
        ):
            # parameters drawn from array values (a mask index): keep the first example's,
            # and tell the examples apart by a small change of their float arguments
            args = tuple(a * (1.0 + 1e-3 * k) if is_float_array(a) else a for a in examples[0])
        examples.append(args)
    return examples, dict(params)


def _single(a):
    return a.astype({"f": np.float32, "c": np.complex64}[a.dtype.kind]) if is_float_array(a) else a


def _mappable(a) -> bool:
    return isinstance(a, (np.ndarray, np.generic)) and not isinstance(a, (str, bytes))


def _stack_along(values, axis):
    return np.stack([np.asarray(v) for v in values], axis=axis)


def _close(actual, expected, dtype, what):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    single = expected.dtype in (np.float32, np.complex64)
    scale = (
        float(np.nanmax(np.abs(expected))) if expected.size and np.isfinite(expected).any() else 1.0
    )
    tol = 2e-4 if single else 1e-9
    np.testing.assert_allclose(
        actual, expected, rtol=tol, atol=tol * max(scale, 1.0), equal_nan=True, err_msg=what
    )


def _direction(rng, like):
    like = np.asarray(like)
    v = rng.uniform(-1.0, 1.0, size=like.shape)
    if like.dtype.kind == "c":
        v = v + 1j * rng.uniform(-1.0, 1.0, size=like.shape)
    return np.asarray(v).astype(like.dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("prim", PRIMITIVES, ids=lambda p: p.name)
@settings(max_examples=int(os.environ.get("FUNCGRAD_VMAP_EXAMPLES", "2")))
@given(data=st.data())
def test_vmap_of_a_primitive_is_a_loop_over_the_batch(prim, dtype, data):
    g = Draw(data)
    size = g.integers(1, 3)
    examples, params = _draw_batch(prim, g, size)
    if dtype == "float32":
        if _pins_float64(params):
            return
        examples = [tuple(_single(a) for a in args) for args in examples]
    n = len(examples[0])
    # in_axes: an array argument that differs between examples is mapped (on a random
    # axis); one that does not is mapped or not at random
    axes = []
    for i in range(n):
        values = [args[i] for args in examples]
        if not _mappable(values[0]):
            axes.append(None)
            continue
        differs = any(not np.array_equal(v, values[0], equal_nan=True) for v in values[1:])
        if not differs and g.boolean():
            axes.append(None)
            continue
        axes.append(g.integers(0, np.ndim(values[0])))
    if all(a is None for a in axes):
        first = next((i for i in range(n) if _mappable(examples[0][i])), None)
        if first is None:
            return
        axes[first] = 0
    batched = [
        examples[0][i] if axes[i] is None else _stack_along([e[i] for e in examples], axes[i])
        for i in range(n)
    ]

    def apply(*args):
        return prim(*args, **params)

    try:
        expected = [apply(*args) for args in examples]
    except _SKIP_ERRORS as e:
        pytest.skip(f"{prim.name}: {e}")
    where = (
        f"in_axes {tuple(axes)}, example shapes {[np.shape(a) for a in examples[0]]}, "
        f"parameters {params}"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchingWarning)
        try:
            got = fg.vmap(apply, in_axes=tuple(axes), axis_size=size)(*batched)
        except Exception as e:
            raise AssertionError(f"{prim.name}: vmap of the forward failed, {where}") from e
    _close(got, _stack_along(expected, 0), dtype, f"{prim.name}: vmap of the forward, {where}")

    float_args = [i for i in range(n) if is_float_array(examples[0][i])]
    if not float_args:
        return
    rng = np.random.default_rng(g.integers(0, 2**16))

    def on_floats(args):
        def h(*fs):
            full = list(args)
            for i, f in zip(float_args, fs, strict=True):
                full[i] = f
            return prim(*full, **params)

        return h

    # VJP: one cotangent per example
    cts = [_direction(rng, out) for out in expected]
    expected_vjp = [
        fg.vjp(on_floats(args), *[args[i] for i in float_args])[1](ct)
        for args, ct in zip(examples, cts, strict=True)
    ]

    def batched_vjp(*args_and_ct):
        *args, ct = args_and_ct
        _, pull = fg.vjp(on_floats(args), *[args[i] for i in float_args])
        return pull(ct)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchingWarning)
        got_vjp = fg.vmap(batched_vjp, in_axes=(*axes, 0), axis_size=size)(
            *batched, _stack_along(cts, 0)
        )
    for k, i in enumerate(float_args):
        _close(
            got_vjp[k],
            _stack_along([e[k] for e in expected_vjp], 0),
            dtype,
            f"{prim.name}: vmap of the VJP (argument {i}), {where}",
        )

    # JVP: one tangent per example and float argument
    tangents = [tuple(_direction(rng, args[i]) for i in float_args) for args in examples]
    expected_jvp = [
        fg.jvp(on_floats(args), tuple(args[i] for i in float_args), ts)[1]
        for args, ts in zip(examples, tangents, strict=True)
    ]

    def batched_jvp(*args_and_ts):
        args, ts = args_and_ts[:n], args_and_ts[n:]
        return fg.jvp(on_floats(args), tuple(args[i] for i in float_args), tuple(ts))[1]

    t_batched = [_stack_along([ts[k] for ts in tangents], 0) for k in range(len(float_args))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchingWarning)
        got_jvp = fg.vmap(batched_jvp, in_axes=(*axes, *[0] * len(float_args)), axis_size=size)(
            *batched, *t_batched
        )
    _close(got_jvp, _stack_along(expected_jvp, 0), dtype, f"{prim.name}: vmap of the JVP, {where}")


def test_every_numpy_and_nn_primitive_has_a_batching_rule():
    missing = set(fallback_primitives())
    assert missing <= set(FALLBACK), (
        f"primitives without a batching rule (vmap loops over the batch for them): "
        f"{sorted(missing - set(FALLBACK))}; add a rule to funcgrad/ops/batching.py"
    )
