"""The fuzzer: random programs over the whole registry (see `tests/hardening/fuzz.py`).

* `test_gradients_match_finite_differences`: `funcgrad.grad` of a random
  program against central differences in float64 along a random direction,
  and forward mode (`jvp`) against the same inner product.
* `test_every_primitive_in_a_random_program`: the same check, with each
  primitive of the registry forced into the program.
* `test_second_order`: `hvp` against central differences of `grad`.
* `test_tensor_layer_matches_functional`: the imperative layer
  (`Tensor.backward`, `.grad`) against `funcgrad.grad` on the same program,
  in float64 and float32 (dtypes kept in both).
* `test_tensor_layer_retain_grad_matches_functional`: `.grad` of retained
  intermediates against `funcgrad.backward(..., wrt=[inner nodes])`; and
  the same with (identity) hooks on the inputs.

`FUNCGRAD_FUZZ_EXAMPLES` sets the number of programs per test (and per
primitive, divided by 10); `FUNCGRAD_FUZZ_STEPS` the longest program.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import funcgrad as fg
from tests.hardening.fuzz import (
    EXAMPLES,
    draw_program,
    fuzz_primitives,
    run,
    run_tensor,
    tolerance,
)
from tests.strategies import Draw

EPS = 1e-6
fuzz_settings = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


def _directions(g, xs):
    return tuple(g.array(np.shape(x), -1.0, 1.0) for x in xs)


def _inner(a, b):
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def _check_first_order(program, g):
    note(program.describe())
    xs = program.inputs
    n = len(xs)
    f = lambda *args: run(program, *args)  # noqa: E731
    value, grads = fg.value_and_grad(f, argnums=tuple(range(n)))(*xs)
    for x, gr in zip(xs, grads, strict=True):
        assert gr.shape == x.shape and gr.dtype == x.dtype
    v = _directions(g, xs)
    analytic = sum(_inner(gr, t) for gr, t in zip(grads, v, strict=True))
    scale = sum(_inner(np.abs(gr), np.abs(t)) for gr, t in zip(grads, v, strict=True))
    plus = f(*(x + EPS * t for x, t in zip(xs, v, strict=True)))
    minus = f(*(x - EPS * t for x, t in zip(xs, v, strict=True)))
    numeric = float(plus - minus) / (2 * EPS)
    tol = tolerance(program)
    bound = tol * (abs(analytic) + scale + 1.0) + 1e-9 * abs(float(value))
    note(f"analytic {analytic!r}, numeric {numeric!r}, bound {bound:.3g}")
    assert abs(numeric - analytic) <= bound, "gradient differs from central differences"

    _, tangent = fg.jvp(f, xs, v)
    assert abs(float(tangent) - analytic) <= 1e-8 * (scale + 1.0), "jvp differs from vjp"


@fuzz_settings
@given(data=st.data())
def test_gradients_match_finite_differences(data):
    g = Draw(data)
    _check_first_order(draw_program(g), g)


@pytest.mark.parametrize("prim", [p.name for p in fuzz_primitives()])
@settings(fuzz_settings, max_examples=max(2, EXAMPLES // 10))
@given(data=st.data())
def test_every_primitive_in_a_random_program(prim, data):
    g = Draw(data)
    program = draw_program(g, anchor=prim, max_steps=4)
    _check_first_order(program, g)


@settings(fuzz_settings, max_examples=max(5, EXAMPLES // 2))
@given(data=st.data())
def test_second_order(data):
    g = Draw(data)
    program = draw_program(g, second_order=True, max_steps=4)
    note(program.describe())
    xs = program.inputs
    n = len(xs)
    f = lambda *args: run(program, *args)  # noqa: E731
    grad_f = fg.grad(f, argnums=tuple(range(n)))
    v = _directions(g, xs)
    w = _directions(g, xs)
    hv = fg.hvp(f, xs, v)
    hv = (hv,) if n == 1 else hv
    analytic = sum(_inner(h, t) for h, t in zip(hv, w, strict=True))
    scale = sum(_inner(np.abs(h), np.abs(t)) for h, t in zip(hv, w, strict=True))
    plus = grad_f(*(x + EPS * t for x, t in zip(xs, v, strict=True)))
    minus = grad_f(*(x - EPS * t for x, t in zip(xs, v, strict=True)))
    numeric = sum(_inner((p - m) / (2 * EPS), t) for p, m, t in zip(plus, minus, w, strict=True))
    bound = 10 * tolerance(program) * (abs(analytic) + scale + 1.0)
    note(f"analytic {analytic!r}, numeric {numeric!r}, bound {bound:.3g}")
    assert abs(numeric - analytic) <= bound, "hvp differs from central differences of grad"


@fuzz_settings
@given(data=st.data(), dtype=st.sampled_from(["float64", "float32"]))
def test_tensor_layer_matches_functional(data, dtype):
    import funcgrad as torch

    g = Draw(data)
    program = draw_program(g, dtype=np.dtype(dtype), tensor=True)
    note(program.describe())
    xs = program.inputs
    n = len(xs)

    tensors = [torch.tensor(x, requires_grad=True) for x in xs]
    out = run_tensor(program, *tensors)
    out.backward()

    value, grads = fg.value_and_grad(lambda *a: run(program, *a), argnums=tuple(range(n)))(*xs)
    rtol = 1e-10 if dtype == "float64" else 1e-4
    scale = max([float(np.max(np.abs(gr), initial=0.0)) for gr in grads] + [1.0])
    assert out.dtype == np.asarray(value).dtype
    np.testing.assert_allclose(out.item(), float(value), rtol=rtol, atol=rtol)
    for t, x, gr in zip(tensors, xs, grads, strict=True):
        assert gr.dtype == x.dtype
        got = np.zeros_like(x) if t.grad is None else t.grad.numpy()
        assert got.dtype == x.dtype, f"Tensor gradient dtype {got.dtype} for a {x.dtype} input"
        np.testing.assert_allclose(got, gr, rtol=rtol, atol=rtol * scale)


def _check_retained_grads(g, program, hooks: bool):
    """Tensor layer: `retain_grad()` on random intermediates (identity hooks on the
    inputs too if `hooks`); each `.grad` must equal `funcgrad.backward` with
    respect to the same value of the functional graph."""
    import funcgrad as torch

    note(program.describe())
    xs = program.inputs
    tensors = [torch.tensor(x, requires_grad=True) for x in xs]
    if hooks:
        for t in tensors:
            t.register_hook(lambda grad: grad)
    pool: list = []
    out = run_tensor(program, *tensors, values=pool)
    chosen = [i for i in range(len(xs), len(pool)) if pool[i].requires_grad and g.boolean()]
    for i in chosen:
        pool[i].retain_grad()
    out.backward()

    leaves = [fg.leaf(x) for x in xs]
    nodes: list = []
    y = run(program, *leaves, values=nodes)
    grads = fg.backward(y, wrt=[nodes[i] for i in chosen] + leaves)
    for i in chosen:
        expected = grads[nodes[i]]
        got = pool[i].grad
        got = np.zeros_like(expected) if got is None else got.numpy()
        scale = max(float(np.max(np.abs(expected), initial=0.0)), 1.0)
        np.testing.assert_allclose(
            got, expected, rtol=1e-10, atol=1e-10 * scale, err_msg=f"retained .grad of v{i}"
        )
    for t, leaf in zip(tensors, leaves, strict=True):
        got = np.zeros_like(leaf.value) if t.grad is None else t.grad.numpy()
        np.testing.assert_allclose(got, grads[leaf], rtol=1e-10, atol=1e-10)


@fuzz_settings
@given(data=st.data())
def test_tensor_layer_retain_grad_matches_functional(data):
    g = Draw(data)
    _check_retained_grads(g, draw_program(g, tensor=True), hooks=False)


@settings(fuzz_settings, max_examples=max(5, EXAMPLES // 4))
@given(data=st.data())
def test_tensor_layer_retain_grad_with_hooks_matches_functional(data):
    g = Draw(data)
    _check_retained_grads(g, draw_program(g, tensor=True), hooks=True)
