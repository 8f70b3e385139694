"""Guarding values a graph holds where arrays cannot be read-only (CuPy): ownership and write checks.

The bookkeeping (`funcgrad.backend.versions`) works on any array, so it is
tested here with writeable NumPy arrays standing in for CuPy ones; the
CUDA cases check the same with real CuPy arrays, through `freeze`,
`fg.leaf` and a backward pass.
"""

from __future__ import annotations

import gc
import importlib
import sys

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.backend import freeze, versions
from funcgrad.errors import ReadOnlyError
from tests.gpu.devices import cuda_param

_backward_module = importlib.import_module("funcgrad.transforms.reverse")


@pytest.fixture(autouse=True)
def _checks_off_afterwards():
    previous = versions.set_write_checks(False)
    yield
    versions.set_write_checks(previous)


def test_ownership_is_weak_and_by_identity():
    a = versions.own(np.ones(3))
    assert versions.owns(a) and not versions.owns(a.copy()) and not versions.owns(a[:2])
    key = id(a)
    del a
    gc.collect()
    assert key not in versions._OWNED
    assert versions.own(np.float64(1.0)) == 1.0  # scalars are immutable: nothing to own


def test_fingerprints_see_any_single_write():
    rng = np.random.default_rng(0)
    for dtype in (np.float16, np.float32, np.float64, np.complex128, np.bool_, np.int32):
        a = (
            (rng.standard_normal((3, 4)) > 0).astype(dtype)
            if dtype is np.bool_
            else (rng.standard_normal((3, 4)).astype(dtype))
        )
        before = versions.fingerprint(a)
        assert versions.fingerprint(a.copy()) == before
        for i in np.ndindex(a.shape):
            b = a.copy()
            b[i] = (not b[i]) if dtype is np.bool_ else b[i] + 1
            assert versions.fingerprint(b) != before, (dtype, i)
    swapped = np.arange(6.0)
    fp = versions.fingerprint(swapped)
    swapped[[0, 1]] = swapped[[1, 0]]  # a permutation keeps the plain sum, not this one
    assert versions.fingerprint(swapped) != fp
    assert versions.fingerprint(np.ones((4, 4))[::2, 1:]) == versions.fingerprint(np.ones((2, 3)))
    assert versions.fingerprint(np.zeros((0, 3))) == 0


def test_write_checks_catch_a_write_and_name_the_operation():
    with versions.write_checks():
        a = versions.own(np.zeros((2, 2), np.float32))
        assert versions.write_checker() is versions.check_unchanged
    versions.check_unchanged("tanh", a, 2.0, None)  # unchanged: nothing happens
    a[1, 0] = 5.0
    with pytest.raises(ReadOnlyError) as info:
        versions.check_unchanged("tanh", 1.0, a)
    message = str(info.value)
    assert message.startswith("funcgrad.tanh: a value it needs (float32[2, 2] on cpu)")
    assert "x.copy()" in message and "/errors/#readonlyerror" in message


def test_without_debug_mode_nothing_is_fingerprinted():
    a = versions.own(np.zeros(2))
    assert versions._OWNED[id(a)][1] is None
    assert versions.write_checker() is None
    a[0] = 1.0
    versions.check_unchanged("exp", a)  # not recorded in debug mode: not checked
    with versions.write_checks():
        versions.own(a)  # owned again in debug mode: fingerprinted now
    a[1] = 1.0
    with pytest.raises(ReadOnlyError):
        versions.check_unchanged("exp", a)


def test_freeze_copies_cupy_arrays_the_graph_did_not_make(monkeypatch):
    # A stand-in CuPy whose ndarray is a NumPy subclass: enough for freeze's bookkeeping.
    import types

    class FakeCupyArray(np.ndarray):
        @property
        def device(self):
            return types.SimpleNamespace(id=0)

    class Device:
        def __init__(self, i):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    fake = types.ModuleType("cupy")
    fake.ndarray = FakeCupyArray
    fake.cuda = types.SimpleNamespace(Device=Device)
    monkeypatch.setitem(sys.modules, "cupy", fake)

    user = np.arange(3.0).view(FakeCupyArray)
    held = freeze(user)
    assert held is not user and versions.owns(held) and (held == user).all()
    assert freeze(held) is held  # the graph's own copy is shared, not copied again
    user[0] = 99.0  # the user's array is theirs: the graph's copy is unchanged
    assert held[0] == 0.0
    fresh = np.ones(2).view(FakeCupyArray)
    assert fg.backend.freeze_result(fresh) is fresh and versions.owns(fresh)


# --- real CuPy -----------------------------------------------------------------------------


@pytest.mark.parametrize("gpu", [cuda_param("cuda")])
def test_the_users_cupy_array_is_never_the_graphs(gpu):
    import cupy

    user = cupy.array([1.0, 2.0, 3.0])
    x = fg.leaf(user)
    assert x.value is not user and versions.owns(x.value)
    y = fnp.sum(fnp.exp(x))
    user[:] = 0.0  # after the graph was built
    g = fg.backward(y)[x]
    np.testing.assert_allclose(cupy.asnumpy(g), np.exp([1.0, 2.0, 3.0]))
    shared = freeze(cupy.ones(2))
    assert fg.leaf(shared).value is shared  # freeze once, then share without copies


@pytest.mark.parametrize("gpu", [cuda_param("cuda")])
def test_debug_mode_catches_a_write_into_a_value_backward_needs(gpu):
    import cupy

    if not hasattr(_backward_module, "write_checker"):
        pytest.xfail(
            "funcgrad.transforms.reverse does not call the write checks yet "
            "(the backward.py change proposed in issue #8)"
        )
    with versions.write_checks():
        x = fg.leaf(cupy.array([0.5, 1.0]))
        out = fnp.exp(x)  # exp's VJP reads its output
        y = fnp.sum(out)
        out.value[0] = 100.0  # CuPy cannot refuse this write
        # caught at the first node whose rule could read it: sum, which takes it as input
        with pytest.raises(ReadOnlyError, match=r"funcgrad\.sum: .*float64\[2\] on cuda:0"):
            fg.backward(y)
