"""`funcgrad.jit` on a device: the replayed plan gives the eager run's bits, on the device.

Runs on `"cpu"` and, marked `cuda` (skipped without CuPy and a GPU), on
`"cuda"`: each case calls the jitted function on new arguments and
compares every result with the same function run eagerly on the same
arrays, bit for bit, and checks that it stays on the device. Rules that read
values (`maximum`'s) run eagerly on CuPy, with a JitWarning.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.transforms.jit import JitWarning
from tests.gpu.devices import assert_on, device_params, to_dev, to_host


def _bits(x):
    return to_host(x).tobytes()


def _loss(w1, w2, x):
    return fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(x, w1)), w2))  # W4's, the ones cotangent


def _branchy(x, y):
    z = fnp.where(x > 0, fnp.sin(x) * 2.0, y) + fnp.exp(y)
    if fnp.sum(z) > 0:
        return fnp.sum(fnp.tanh(z) * z), z
    return fnp.sum(fnp.cos(z)), z


@pytest.mark.parametrize("device", device_params())
def test_jitted_gradients_replay_the_eager_bits(device):
    rng = np.random.default_rng(0)
    x = to_dev((rng.standard_normal((96, 80)) / 8).astype(np.float32), device)
    vg = fg.value_and_grad(_loss, argnums=(0, 1))
    jvg = fg.jit(vg)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)
        for _ in range(3):
            w1 = to_dev((rng.standard_normal((80, 64)) / 8).astype(np.float32), device)
            w2 = to_dev((rng.standard_normal((64, 48)) / 8).astype(np.float32), device)
            (v, (g1, g2)), (jv, (jg1, jg2)) = vg(w1, w2, x), jvg(w1, w2, x)
            for got, want in ((jv, v), (jg1, g1), (jg2, g2)):
                assert_on(got, device)
                assert _bits(got) == _bits(want)
    assert jvg.cache_info()["plans"] == 1


@pytest.mark.parametrize("device", device_params())
def test_guards_and_masks_replay_on_the_device(device):
    rng = np.random.default_rng(1)
    jf = fg.jit(_branchy)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitWarning)
        for shift in (2.0, -3.0, 2.0, -3.0):
            x = to_dev(rng.standard_normal(6), device)
            y = to_dev(rng.standard_normal(6) + shift, device)
            for got, want in zip(jf(x, y), _branchy(x, y), strict=True):
                assert_on(got, device)
                assert _bits(got) == _bits(want)
    assert jf.cache_info() == {"signatures": 1, "plans": 2, "retraces": 1}


@pytest.mark.parametrize("device", device_params())
def test_a_rule_reading_values_replays_on_numpy_and_runs_eagerly_on_cupy(device):
    g = fg.grad(lambda x: fnp.sum(fnp.maximum(x, 0.0) * x))
    jg = fg.jit(g)
    x = to_dev(np.array([-1.0, 0.0, 2.0]), device)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", JitWarning)
        got = jg(x)
    assert _bits(got) == _bits(g(x))
    assert_on(got, device)
    assert bool(seen) == (device != "cpu")  # CuPy: the rule reads a CuPy value
