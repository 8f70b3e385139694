"""The generic rule tests of `tests/ops/test_rules.py`, re-run with every primitive on a device.

Nothing of the checks is repeated here: each test below calls the body of
the test of the same name in `test_rules` (hypothesis' `inner_test`) with
`OnDevice(prim, device)` in place of the primitive. `OnDevice` looks like
the primitive from the host: the samples are drawn as NumPy arrays, it
moves its arguments to the device, applies the primitive (or its VJP and
JVP rules) there, checks that the result stayed on the device, and moves
the result back. On graph nodes it does the moves with the `to_device`
primitive, so `funcgrad.backward` walks from the host into the device
part of the graph and back: the VJP rules run on the device, and so does
the second-order check (`create_graph=True` across devices).

On `"cpu"` the moves are the identity, which checks this harness on
machines without a GPU; `test_rules` itself covers the CPU. The number of
examples per case is `FUNCGRAD_DEVICE_EXAMPLES` (default 5).
"""

from __future__ import annotations

import copy
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from funcgrad.graph import Node
from funcgrad.transforms.forward import apply_jvp
from tests.gpu.devices import assert_on, full_name, to_dev, to_host
from tests.ops import test_rules as rules

EXAMPLES = int(os.environ.get("FUNCGRAD_DEVICE_EXAMPLES", "5"))
examples = settings(max_examples=EXAMPLES)


def _move_node(x, device):
    from funcgrad.ops.device import move

    return move(x, device)


class OnDevice:
    """A primitive run on `device`, seen from the host (what the generic tests get as `prim`).

    Args:
        prim: The registered primitive.
        device: `"cpu"`, `"cuda"` or `"cuda:N"`.
    """

    def __init__(self, prim, device: str):
        self.prim = prim
        self.device = full_name(device)

    def __getattr__(self, name):  # name, sample, params, doc, forward
        return getattr(self.prim, name)

    def __repr__(self) -> str:
        return f"<{self.prim.name} on {self.device}>"

    # --- moving ------------------------------------------------------------------

    def _in(self, a):
        if type(a) is Node:
            return _move_node(a, self.device)
        if a is None:
            return None
        return to_dev(a, self.device)

    def _params(self, params: dict) -> dict:
        # Float arrays captured in params (custom_vjp's residuals) go along;
        # integer and boolean index arrays stay NumPy arrays, as users write them.
        params = {k: self._floats_in(v) for k, v in params.items()}
        if self.prim.name == "to_device":
            params["device"] = self.device  # its CPU-to-CPU sample, moved: device to device
        return params

    def _floats_in(self, v):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            return to_dev(v, self.device)
        if isinstance(v, tuple):
            return tuple(self._floats_in(x) for x in v)
        if isinstance(v, list):
            return [self._floats_in(x) for x in v]
        if getattr(v, "residuals", None) is not None:  # a custom_vjp call (tests/call_samples.py)
            v = copy.copy(v)
            v.residuals = self._floats_in(v.residuals)
        return v

    def _out(self, out, what: str):
        assert_on(out, self.device, f"{self.prim.name}: {what}")
        if type(out) is Node:
            return _move_node(out, "cpu")
        return to_host(out)

    # --- what the generic tests call -----------------------------------------------

    def __call__(self, *args, **params):
        out = self.prim(*(self._in(a) for a in args), **self._params(params))
        return self._out(out, "the forward output")

    def jvp(self, tangents, out, *args, **params):
        """One JVP rule on all tangents (so `apply_jvp` calls this): the real rules, on the device."""
        result = apply_jvp(
            self.prim,
            tuple(self._in(t) for t in tangents),
            self._in(out),
            tuple(self._in(a) for a in args),
            self._params(params),
        )
        if result is None:
            return None
        return self._out(result, "the JVP")

    def vjp(self, ct, out, *args, **params):
        """All VJP rules at once (as a variadic primitive declares them), on the device."""
        ct, out = self._in(ct), self._in(out)
        args = tuple(self._in(a) for a in args)
        params = self._params(params)
        rules_ = self.prim.vjp
        if type(rules_) is tuple:
            results = [None if r is None else r(ct, out, *args, **params) for r in rules_]
        else:
            results = list(rules_(ct, out, *args, **params))
        return tuple(None if c is None else self._out(c, "a VJP rule") for c in results)


def _run(test, device, prim, data):
    test.hypothesis.inner_test(prim=OnDevice(prim, device), data=data)


# --- the generic tests, on each device -------------------------------------------------


@rules.each_primitive
@examples
@given(data=st.data())
def test_forward_matches_numpy(device, prim, data):
    _run(rules.test_forward_matches_numpy, device, prim, data)


@rules.each_primitive
@examples
@given(data=st.data())
def test_vjp_matches_finite_differences(device, prim, data):
    _run(rules.test_vjp_matches_finite_differences, device, prim, data)


@rules.each_primitive
@examples
@given(data=st.data())
def test_jvp_matches_finite_differences(device, prim, data):
    _run(rules.test_jvp_matches_finite_differences, device, prim, data)


@rules.each_primitive
@examples
@given(data=st.data())
def test_jvp_and_vjp_agree(device, prim, data):
    _run(rules.test_jvp_and_vjp_agree, device, prim, data)


@rules.each_primitive
@examples
@given(data=st.data())
def test_second_order(device, prim, data):
    _run(rules.test_second_order, device, prim, data)


@rules.each_primitive
@examples
@given(data=st.data())
def test_dtype_preserved(device, prim, data):
    _run(rules.test_dtype_preserved, device, prim, data)


@rules.each_primitive
@examples
@given(data=st.data())
def test_vjp_rules_do_not_upcast_float32(device, prim, data):
    _run(rules.test_vjp_rules_do_not_upcast_float32, device, prim, data)


@rules.each_complex_primitive
@examples
@given(data=st.data())
def test_complex_vjp_matches_finite_differences(device, prim, data):
    _run(rules.test_complex_vjp_matches_finite_differences, device, prim, data)


@rules.each_complex_primitive
@examples
@given(data=st.data())
def test_complex_jvp_matches_finite_differences(device, prim, data):
    _run(rules.test_complex_jvp_matches_finite_differences, device, prim, data)


@rules.each_complex_primitive
@examples
@given(data=st.data())
def test_complex_jvp_and_vjp_agree(device, prim, data):
    _run(rules.test_complex_jvp_and_vjp_agree, device, prim, data)


@rules.each_complex_primitive
@examples
@given(data=st.data())
def test_complex_second_order(device, prim, data):
    _run(rules.test_complex_second_order, device, prim, data)


@rules.each_complex_primitive
@examples
@given(data=st.data())
def test_complex_forward_matches_numpy(device, prim, data):
    _run(rules.test_complex_forward_matches_numpy, device, prim, data)


@rules.each_complex_primitive
@examples
@given(data=st.data())
def test_complex64_preserved(device, prim, data):
    _run(rules.test_complex64_preserved, device, prim, data)


def test_every_generic_test_is_rerun_here():
    # A generic test added to test_rules must be added here too (or listed as
    # device-independent), so the device run never silently covers less.
    device_independent = {"test_every_primitive_declares_forward_vjp_jvp"}
    generic = {n for n in dir(rules) if n.startswith("test_")}
    here = {n for n in globals() if n.startswith("test_")}
    assert generic - device_independent <= here, sorted(generic - device_independent - here)


def test_the_harness_moves_and_checks(device):
    # OnDevice itself: a forward on the device comes back as a NumPy array,
    # and a node comes back as a host node whose graph crosses devices.
    import funcgrad as fg
    from funcgrad.ops import registry

    exp = OnDevice(registry.get("exp"), device)
    x = np.array([0.0, 1.0])
    np.testing.assert_allclose(exp(x), np.exp(x))
    leaf = fg.leaf(x)
    y = exp(leaf)
    assert type(y) is Node and isinstance(y.value, np.ndarray)
    np.testing.assert_allclose(fg.backward(y.sum())[leaf], np.exp(x))
    if device != "cpu":
        with pytest.raises(AssertionError, match="lives on cpu"):
            exp._out(np.ones(2), "a host array")
