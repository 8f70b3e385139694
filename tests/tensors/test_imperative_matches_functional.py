"""Property: a random small program gives the same gradients through the Tensor API
(`.backward()` into `.grad`) and through the functional `funcgrad.grad`, and both
agree with central finite differences along a random direction (float64).
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp

X_SHAPE = (2, 3)
W_SHAPE = (3, 3)

# name -> (applicable(shape), imperative(s, x, w), functional(s, x, w))
OPS = {
    "add_x": (lambda s: s == X_SHAPE, lambda s, x, w: s + x, lambda s, x, w: s + x),
    "add_const": (lambda s: True, lambda s, x, w: s + 0.5, lambda s, x, w: s + 0.5),
    "mul_self": (lambda s: True, lambda s, x, w: s * s, lambda s, x, w: s * s),
    "mul_w_row": (
        lambda s: s[-1:] in ((3,), (1,)),
        lambda s, x, w: s * w[1],
        lambda s, x, w: s * w[1],
    ),
    "sin": (lambda s: True, lambda s, x, w: torch.sin(s), lambda s, x, w: fnp.sin(s)),
    "exp": (lambda s: True, lambda s, x, w: s.exp(), lambda s, x, w: fnp.exp(s)),
    "tanh": (lambda s: True, lambda s, x, w: s.tanh(), lambda s, x, w: fnp.tanh(s)),
    "matmul_w": (lambda s: s[-1:] == (3,), lambda s, x, w: s @ w, lambda s, x, w: fnp.matmul(s, w)),
    "sum_last": (
        lambda s: len(s) >= 1,
        lambda s, x, w: s.sum(dim=-1, keepdim=True),
        lambda s, x, w: fnp.sum(s, axis=-1, keepdims=True),
    ),
    "sum_all": (lambda s: True, lambda s, x, w: torch.sum(s), lambda s, x, w: fnp.sum(s)),
    "mean_first": (
        lambda s: len(s) >= 1,
        lambda s, x, w: s.mean(0),
        lambda s, x, w: fnp.mean(s, axis=0),
    ),
    "reshape_flat": (
        lambda s: len(s) >= 1,
        lambda s, x, w: s.reshape(-1),
        lambda s, x, w: fnp.reshape(s, (-1,)),
    ),
    "reshape_reverse": (
        lambda s: len(s) >= 2,
        lambda s, x, w: s.view(*s.shape[::-1]),
        lambda s, x, w: fnp.reshape(s, s.shape[::-1]),
    ),
    "index_first": (lambda s: len(s) >= 1, lambda s, x, w: s[0], lambda s, x, w: s[0]),
    "slice_last": (
        lambda s: len(s) >= 1 and s[-1] > 1,
        lambda s, x, w: s[..., 1:],
        lambda s, x, w: s[..., 1:],
    ),
    "index_fancy": (
        lambda s: len(s) >= 1,
        lambda s, x, w: s[[0, 0]],
        lambda s, x, w: s[np.array([0, 0])],
    ),
}


_SHAPES = {
    "add_x": lambda s: s,
    "add_const": lambda s: s,
    "mul_self": lambda s: s,
    "mul_w_row": lambda s: s[:-1] + (3,),
    "sin": lambda s: s,
    "exp": lambda s: s,
    "tanh": lambda s: s,
    "matmul_w": lambda s: s,
    "sum_last": lambda s: s[:-1] + (1,),
    "sum_all": lambda s: (),
    "mean_first": lambda s: s[1:],
    "reshape_flat": lambda s: (int(np.prod(s)),),
    "reshape_reverse": lambda s: s[::-1],
    "index_first": lambda s: s[1:],
    "slice_last": lambda s: s[:-1] + (s[-1] - 1,),
    "index_fancy": lambda s: (2,) + s[1:],
}


@st.composite
def programs(draw):
    start = draw(st.sampled_from(["x", "w", "xw"]))
    shape = {"x": X_SHAPE, "w": W_SHAPE, "xw": X_SHAPE}[start]
    names = []
    for _ in range(draw(st.integers(1, 5))):
        choices = sorted(n for n, (ok, _, _) in OPS.items() if ok(shape))
        name = draw(st.sampled_from(choices))
        names.append(name)
        shape = _SHAPES[name](shape)
    return start, names


def run(program, x, w, functional: bool):
    start, names = program
    s = {"x": x, "w": w, "xw": x @ w if not functional else fnp.matmul(x, w)}[start]
    for name in names:
        _, imperative, func = OPS[name]
        s = (func if functional else imperative)(s, x, w)
    return fnp.sum(s) if functional else s.sum()


@given(program=programs(), seed=st.integers(0, 2**32 - 1))
def test_tensor_backward_and_functional_grad_agree(program, seed):
    rng = np.random.default_rng(seed)
    xn = rng.uniform(-1.0, 1.0, X_SHAPE)
    wn = rng.uniform(-1.0, 1.0, W_SHAPE)
    with np.errstate(over="ignore", invalid="ignore"):
        value = run(program, xn, wn, functional=True)
    assume(np.isfinite(value) and abs(value) < 1e6)

    # Imperative: tensors, .backward(), .grad.
    x = torch.tensor(xn, requires_grad=True)
    w = torch.tensor(wn, requires_grad=True)
    out = run(program, x, w, functional=False)
    assert out.dtype == torch.float64 and out.shape == ()
    np.testing.assert_allclose(out.item(), value, rtol=1e-12)
    out.backward()
    gx = x.grad.numpy() if x.grad is not None else np.zeros(X_SHAPE)
    gw = w.grad.numpy() if w.grad is not None else np.zeros(W_SHAPE)

    # Functional: funcgrad.grad of the same program written with funcgrad.numpy.
    fx, fw = fg.grad(lambda a, b: run(program, a, b, functional=True), argnums=(0, 1))(xn, wn)
    np.testing.assert_allclose(gx, fx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, fw, rtol=1e-10, atol=1e-12)

    # Both against central differences along a random direction.
    vx, vw = rng.standard_normal(X_SHAPE), rng.standard_normal(W_SHAPE)

    # Richardson extrapolation of two central differences (error O(eps**4)), so
    # steep programs (exp(exp(...))) are judged by their rounding error alone.
    def central(eps):
        plus = run(program, xn + eps * vx, wn + eps * vw, functional=True)
        minus = run(program, xn - eps * vx, wn - eps * vw, functional=True)
        return (plus - minus) / (2 * eps)

    # Two step sizes: the larger one's truncation error can exceed the bound on
    # the steepest programs (its fifth derivative is huge), the smaller one's rounding.
    analytic = float(np.sum(gx * vx) + np.sum(gw * vw))
    excess = []
    for eps in (1e-5, 1e-6):
        numeric = (4 * central(eps / 2) - central(eps)) / 3
        rounding = 1e-14 * abs(value) / eps
        excess.append(abs(numeric - analytic) - rounding - 1e-5 * (1 + abs(analytic)))
    assert min(excess) <= 0, f"analytic {analytic} differs from central differences: {excess}"

    # The imperative gradient again, through autograd.grad on the same graph.
    ag = torch.autograd.grad(out, (x, w), allow_unused=True, materialize_grads=True)
    np.testing.assert_allclose(ag[0].numpy(), fx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ag[1].numpy(), fw, rtol=1e-10, atol=1e-12)
