"""funcgrad.scipy.signal against SciPy (values) and HIPS autograd (gradients).

`convolve`, `correlate` and `fftconvolve` on graph nodes are a composition
(sliding windows and `matmul`): their values are checked against SciPy's in
every mode and dimension, their gradients in both inputs against
`autograd.scipy.signal.convolve` (modes `'full'` and `'valid'`, the ones it
has) and against central differences (every mode, second order).
"""

# ruff: noqa: B023  (the lambdas in loops are called at once, inside their iteration)

from __future__ import annotations

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.signal as fss
from funcgrad.errors import FuncgradError
from tests.references import requires

ss = requires("scipy.signal")

RNG = np.random.default_rng(7)
SHAPES = {
    1: [((5,), (3,)), ((2,), (4,)), ((1,), (1,)), ((6,), (6,))],
    2: [((4, 5), (2, 3)), ((2, 3), (4, 5)), ((3, 2), (2, 4)), ((1, 4), (3, 1))],
    3: [((3, 4, 2), (2, 2, 2)), ((2, 3, 3), (3, 1, 2))],
}


def on_nodes(f, *args):
    out, _ = fg.vjp(f, *args)
    return out


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("name", ["convolve", "correlate", "fftconvolve"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_values_match_scipy(ndim, name, mode):
    for s1, s2 in SHAPES[ndim]:
        a, b = RNG.normal(size=s1), RNG.normal(size=s2)
        try:
            want = getattr(ss, name)(a, b, mode=mode)
        except ValueError:  # 'valid' with neither input the larger in every axis
            with pytest.raises(FuncgradError, match="valid"):
                on_nodes(lambda a, b: getattr(fss, name)(a, b, mode=mode), a, b)
            continue
        for method in ("direct", "fft") if name != "fftconvolve" else (None,):
            kw = {} if method is None else {"method": method}
            got = on_nodes(lambda a, b: getattr(fss, name)(a, b, mode=mode, **kw), a, b)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
            on_arrays = getattr(fss, name)(a, b, mode=mode, **kw)
            np.testing.assert_allclose(on_arrays, want, rtol=1e-10, atol=1e-12)


def test_float32_stays_float32():
    a, b = RNG.normal(size=(4, 5)).astype(np.float32), RNG.normal(size=(2, 2)).astype(np.float32)
    got = on_nodes(lambda a, b: fss.convolve(a, b, mode="same"), a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ss.convolve(a, b, mode="same"), rtol=1e-5, atol=1e-6)
    ga, gb = fg.grad(lambda a, b: fnp.sum(fss.correlate(a, b) ** 2), argnums=(0, 1))(a, b)
    assert ga.dtype == gb.dtype == np.float32


@pytest.mark.parametrize("mode", ["full", "valid"])
def test_gradients_match_autograd(mode):
    autograd = requires("autograd")
    asg = requires("autograd.scipy.signal")
    anp = requires("autograd.numpy")
    for ndim in (1, 2, 3):
        for s1, s2 in SHAPES[ndim]:
            a, b = RNG.normal(size=s1), RNG.normal(size=s2)
            if mode == "valid" and not all(x >= y for x, y in zip(s1, s2, strict=True)):
                continue  # autograd's valid mode needs the first input the larger
            w = RNG.normal(size=ss.convolve(a, b, mode=mode).shape)
            got = fg.grad(lambda a, b: fnp.sum(fss.convolve(a, b, mode=mode) * w), argnums=(0, 1))(
                a, b
            )
            want = autograd.grad(lambda ab: anp.sum(asg.convolve(ab[0], ab[1], mode=mode) * w))(
                [a, b]
            )
            for g, e in zip(got, want, strict=True):
                np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
            # correlate is convolve with the second input flipped along every axis
            flipped = tuple(slice(None, None, -1) for _ in range(ndim))
            got = fg.grad(lambda b: fnp.sum(fss.correlate(a, b, mode=mode) * w))(b[flipped])
            want = autograd.grad(lambda b: anp.sum(asg.convolve(a, b, mode=mode) * w))(b)
            np.testing.assert_allclose(got[flipped], want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("name", "mode"), itertools.product(["convolve", "correlate"], ["full", "same", "valid"])
)
def test_derivatives_match_central_differences(name, mode):
    for s1, s2 in ((5,), (3,)), ((3, 4), (2, 2)), ((2, 3, 2), (2, 2, 1)):
        a, b = RNG.normal(size=s1), RNG.normal(size=s2)
        fg.check_grads(lambda a, b: getattr(fss, name)(a, b, mode=mode), (a, b), order=2)


def test_errors_name_the_function():
    a = RNG.normal(size=(3, 3))
    with pytest.raises(FuncgradError, match="convolve.*dimensionality"):
        on_nodes(lambda a: fss.convolve(a, a[0]), a)
    with pytest.raises(FuncgradError, match="correlate.*mode"):
        on_nodes(lambda a: fss.correlate(a, a, mode="bogus"), a)
    with pytest.raises(FuncgradError, match="fftconvolve.*axes"):
        on_nodes(lambda a: fss.fftconvolve(a, a, axes=0), a)
    # 0-d inputs: their product, as SciPy
    np.testing.assert_allclose(
        on_nodes(lambda x: fss.convolve(x, np.float64(3.0)), np.float64(2.0)), 6.0
    )


def test_the_sum_over_taps_for_large_windows_agrees(monkeypatch):
    # Where the sliding windows would be too large, the convolution sums shifted slices instead.
    import funcgrad.numpy._statistics as statistics

    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(2, 3))
    w = RNG.normal(size=(5, 5))
    want = fg.grad(lambda a, b: fnp.sum(fss.convolve(a, b) * w), argnums=(0, 1))(a, b)
    monkeypatch.setattr(statistics, "_WINDOW_LIMIT", 0)
    for name, mode in itertools.product(["convolve", "correlate"], ["full", "same", "valid"]):
        got = on_nodes(lambda a, b: getattr(fss, name)(a, b, mode=mode), a, b)
        np.testing.assert_allclose(got, getattr(ss, name)(a, b, mode=mode), rtol=1e-12)
    got = fg.grad(lambda a, b: fnp.sum(fss.convolve(a, b) * w), argnums=(0, 1))(a, b)
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    fg.check_grads(lambda a, b: fnp.convolve(a[0], b[0], "same"), (a, b), order=2)


# autograd's generalised convolve: (in1 shape, in2 shape, axes, dot_axes); its convnet's layer first.
TENSOR_CASES = [
    ((2, 3, 6, 6), (3, 4, 3, 3), ([2, 3], [2, 3]), ([1], [0])),
    ((2, 4, 5), (4, 3), ([2], [1]), ([1], [0])),
    ((4, 7), (3, 2), ([0, 1], [0, 1]), ((), ())),
    ((6, 2, 3), (2, 4, 3), ([0], [1]), ([2], [2])),
    ((3, 5), (5, 2), ([0], [1]), ((), ())),
]


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("case", TENSOR_CASES, ids=str)
def test_autograds_axes_and_dot_axes(case, mode):
    autograd = requires("autograd")
    asg = requires("autograd.scipy.signal")
    anp = requires("autograd.numpy")
    sa, sb, axes, dot_axes = case
    rng = np.random.default_rng(sum(sa) + len(mode))
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    want = asg.convolve(a, b, axes=axes, dot_axes=dot_axes, mode=mode)
    got = fss.convolve(a, b, mode=mode, axes=axes, dot_axes=dot_axes)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    ct = rng.standard_normal(want.shape)

    def loss(a, b):
        return anp.sum(asg.convolve(a, b, axes=axes, dot_axes=dot_axes, mode=mode) * ct)

    want_g = autograd.grad(loss, 0)(a, b), autograd.grad(loss, 1)(a, b)
    got_g = fg.grad(
        lambda a, b: fnp.sum(fss.convolve(a, b, mode=mode, axes=axes, dot_axes=dot_axes) * ct),
        argnums=(0, 1),
    )(a, b)
    for g, w in zip(got_g, want_g, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_autograds_axes_errors_name_the_function():
    a, b = np.ones((2, 3, 5)), np.ones((4, 2))
    with pytest.raises(FuncgradError, match=r"signal.convolve: dot_axes=.* different sizes"):
        fss.convolve(a, b, axes=([2], [1]), dot_axes=([1], [0]))
    with pytest.raises(FuncgradError, match=r"signal.convolve: for 'valid' mode"):
        fss.convolve(np.ones((3, 5)), np.ones((4, 2)), mode="valid", axes=([0, 1], [0, 1]))
    with pytest.raises(FuncgradError, match=r"signal.convolve: axes=.* as many axes"):
        fss.convolve(a, b, axes=([2, 0], [1]))
