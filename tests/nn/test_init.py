"""`funcgrad.nn.init` against `torch.nn.init`.

Deterministic functions (`constant_`, `ones_`, `zeros_`, `eye_`,
`dirac_`, `calculate_gain`, fans) give PyTorch's values and errors; the
random ones draw from PyTorch's distributions (bounds, moments, over large
samples); every one works in place under no_grad and returns its tensor.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.nn import init
from tests.references import requires

torch = requires("torch")


@pytest.mark.parametrize(
    "args",
    [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
     ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",)],
)  # fmt: skip
def test_calculate_gain(args):
    assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_calculate_gain_errors():
    for args in (("softmax",), ("leaky_relu", True), ("leaky_relu", "x")):
        with pytest.raises(ValueError) as ours:
            init.calculate_gain(*args)
        with pytest.raises(ValueError) as theirs:
            torch.nn.init.calculate_gain(*args)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (4, 3, 2, 2), (2, 3, 1, 2, 2)])
def test_fans(shape):
    assert init._calculate_fan_in_and_fan_out(fg.empty(*shape)) == (
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    )


def test_fan_error():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(fg.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(fg.empty(3, 3), mode="fan_avg")


def test_deterministic_fills_match_pytorch():
    for fn, args, shape in (
        ("constant_", (0.3,), (2, 3)),
        ("ones_", (), (4,)),
        ("zeros_", (), (2, 2)),
        ("eye_", (), (3, 5)),
        ("dirac_", (), (4, 3, 3)),
        ("dirac_", (2,), (6, 2, 3, 3)),
        ("dirac_", (), (2, 2, 3, 3, 3)),
    ):
        ours = getattr(init, fn)(fg.empty(*shape, dtype=fg.float64), *args)
        theirs = getattr(torch.nn.init, fn)(torch.empty(*shape, dtype=torch.float64), *args)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=fn)


def test_fills_are_in_place_without_recording():
    w = fg.nn.Parameter(fg.empty(3, 4))
    for fn, args in (
        ("uniform_", ()), ("normal_", ()), ("constant_", (1.0,)), ("ones_", ()), ("zeros_", ()),
        ("eye_", ()), ("xavier_uniform_", ()), ("xavier_normal_", ()), ("kaiming_uniform_", ()),
        ("kaiming_normal_", ()), ("trunc_normal_", ()), ("orthogonal_", ()), ("sparse_", (0.5,)),
    ):  # fmt: skip
        out = getattr(init, fn)(w, *args)
        assert out is w and w.is_leaf and w.requires_grad and w.grad_fn is None, fn
        assert w.dtype == fg.float32


def test_dimension_errors_match_pytorch():
    for fn, shape, args in (
        ("eye_", (2, 2, 2), ()), ("dirac_", (2, 2), ()), ("dirac_", (3, 2, 2), (2,)),
        ("orthogonal_", (3,), ()), ("sparse_", (2, 2, 2), (0.1,)),
    ):  # fmt: skip
        with pytest.raises(ValueError) as ours:
            getattr(init, fn)(fg.empty(*shape), *args)
        with pytest.raises(ValueError) as theirs:
            getattr(torch.nn.init, fn)(torch.empty(*shape), *args)
        assert str(ours.value) == str(theirs.value)


def _uniform_moments(v, lo, hi):
    v = np.asarray(v, dtype=np.float64).ravel()
    assert v.min() >= lo and v.max() <= hi
    assert abs(v.mean() - (lo + hi) / 2) < 0.03 * (hi - lo)
    assert abs(v.var() / ((hi - lo) ** 2 / 12) - 1) < 0.05


def _normal_moments(v, mean, std):
    v = np.asarray(v, dtype=np.float64).ravel()
    assert abs(v.mean() - mean) < 0.03 * std + 1e-12
    assert abs(v.std() / std - 1) < 0.03


def test_random_distributions():
    fg.manual_seed(0)
    big = (200, 300)
    _uniform_moments(init.uniform_(fg.empty(*big), -2.0, 3.0).numpy(), -2.0, 3.0)
    _normal_moments(init.normal_(fg.empty(*big), 1.5, 0.5).numpy(), 1.5, 0.5)
    a = math.sqrt(6 / (200 + 300))
    _uniform_moments(init.xavier_uniform_(fg.empty(*big)).numpy(), -a, a)
    _normal_moments(
        init.xavier_normal_(fg.empty(*big), gain=2.0).numpy(), 0, 2 * math.sqrt(2 / 500)
    )
    bound = math.sqrt(2) * math.sqrt(3 / 300)
    _uniform_moments(
        init.kaiming_uniform_(fg.empty(*big), nonlinearity="relu").numpy(), -bound, bound
    )
    _normal_moments(
        init.kaiming_normal_(fg.empty(*big), mode="fan_out", nonlinearity="relu").numpy(),
        0,
        math.sqrt(2 / 200),
    )
    t = init.trunc_normal_(
        fg.empty(*big, dtype=fg.float64), mean=0.5, std=1.0, a=-1.0, b=1.0
    ).numpy()
    assert t.min() >= -1.0 and t.max() <= 1.0
    ref = torch.nn.init.trunc_normal_(torch.empty(*big, dtype=torch.float64), 0.5, 1.0, -1.0, 1.0)
    assert abs(t.mean() - ref.mean().item()) < 0.01 and abs(t.std() - ref.std().item()) < 0.01
    s = init.sparse_(fg.empty(10, 500), 0.3, std=2.0).numpy()
    assert np.all((s == 0).sum(0) == 3)
    _normal_moments(s[s != 0], 0, 2.0)


def test_orthogonal():
    for shape in ((4, 6), (6, 4), (3, 2, 2)):
        q = (
            init.orthogonal_(fg.empty(*shape, dtype=fg.float64), gain=2.0)
            .numpy()
            .reshape(shape[0], -1)
        )
        if q.shape[0] <= q.shape[1]:
            np.testing.assert_allclose(q @ q.T, 4 * np.eye(q.shape[0]), atol=1e-12)
        else:
            np.testing.assert_allclose(q.T @ q, 4 * np.eye(q.shape[1]), atol=1e-12)


def test_generator_argument_makes_draws_reproducible():
    a = init.normal_(fg.empty(5), generator=np.random.default_rng(7)).numpy()
    b = init.normal_(fg.empty(5), generator=np.random.default_rng(7)).numpy()
    np.testing.assert_array_equal(a, b)


def test_zero_element_kaiming_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(fg.empty(0, 3))


def test_deprecated_aliases_warn():
    with pytest.warns(FutureWarning, match="nn.init.normal` is now deprecated"):
        init.normal(fg.empty(2))
