"""Samples for the call primitives, which are generic over a user's function.

`custom_vjp_call`, `custom_jvp_call`, `checkpoint_call` and `function_call`
(`funcgrad.transforms.calls`) record a call of a user's function, so their
records carry no `Sample`: these fixtures give the generic tests (and the
fuzzer) one user function each, with its NumPy reference. `sample_of(prim)`
is what the tests use for every primitive.
"""

from __future__ import annotations

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.autograd import Function
from funcgrad.ops.registry import Sample
from funcgrad.transforms import calls, custom
from funcgrad.transforms.pytree import tree_flatten

# --- custom_vjp: sin(x) * y ------------------------------------------------------


@fg.custom_vjp
def sin_times(x, y):
    return fnp.sin(x) * y


def _sin_times_fwd(x, y):
    return sin_times(x, y), (x, y)


def _sin_times_bwd(res, ct):
    x, y = res
    return ct * fnp.cos(x) * y, ct * fnp.sin(x)


sin_times.defvjp(_sin_times_fwd, _sin_times_bwd)


def _custom_vjp_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    y = g.array(x.shape, -2.0, 2.0)
    _, args_def = tree_flatten((x, y))
    # NOTE: residuals as plain float64 arrays, as a first-order call stores them
    call = custom._VjpCall(sin_times, args_def, (x, y))
    calls.record(custom.custom_vjp_call, call, (x, y), sin_times.fun(x, y))
    return (x, y), {"fn": call, "index": 0}


# --- custom_jvp: tanh(x) * x ------------------------------------------------------


@fg.custom_jvp
def tanh_times(x):
    return fnp.tanh(x) * x


@tanh_times.defjvp
def _tanh_times_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = fnp.tanh(x)
    return y * x, t * ((1.0 - y * y) * x + y)


def _params_of(out) -> dict:
    return dict(out.params)


def _custom_jvp_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    return (x,), _params_of(tanh_times(fg.leaf(x)))


# --- checkpoint: tanh(x * w) + x ---------------------------------------------------


def layer(x, w):
    return fnp.tanh(x * w) + x


_checkpointed_layer = fg.checkpoint(layer)


def _checkpoint_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    w = g.array(x.shape, -2.0, 2.0)
    return (x, w), _params_of(_checkpointed_layer(fg.leaf(x), fg.leaf(w)))


# --- autograd.Function: exp(x) * scale + x * y --------------------------------------


class ExpScaleMul(Function):
    """exp(x) * scale + x * y, with its backward written with tensor operations."""

    @staticmethod
    def forward(ctx, x, y, scale):
        out = x.exp() * scale + x * y
        ctx.save_for_backward(x, y, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, y, out = ctx.saved_tensors
        # d/dx = exp(x) * scale + y = (out - x * y) + y
        return grad_output * (out - x * y + y), grad_output * x, None


def _function_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    y = g.array(x.shape, -2.0, 2.0)
    with fg.enable_grad():
        out = ExpScaleMul.apply(
            fg.tensor(x, requires_grad=True), fg.tensor(y, requires_grad=True), 0.5
        )
    return (x, y), _params_of(out._node)


# --- jit: sin(x) * y + x, jitted -------------------------------------------------------

_jitted = fg.jit(lambda x, y: fnp.sin(x) * y + x)


def _jit_sample(g):
    x = g.array(g.shape(), -2.0, 2.0)
    y = g.array(x.shape, -2.0, 2.0)
    return (x, y), _params_of(_jitted(fg.leaf(x), fg.leaf(y)))


SAMPLES = {
    "jit_call": Sample(_jit_sample),
    "custom_vjp_call": Sample(_custom_vjp_sample),
    "custom_jvp_call": Sample(_custom_jvp_sample),
    "checkpoint_call": Sample(_checkpoint_sample),
    "function_call": Sample(_function_sample),
}


def _svd_turned(x, full_matrices, hermitian):
    """NumPy's U and Vh; for a complex x each singular pair turned so that the largest entry
    of v_j (the j-th row of Vh, conjugated) is real and positive: funcgrad's gauge."""
    u, _, vh = np.linalg.svd(x, full_matrices=full_matrices, hermitian=hermitian)
    if not np.iscomplexobj(x):
        return u, vh
    u, vh = u.copy(), vh.copy()
    k = min(x.shape[-2:])
    for j in range(k):
        row = vh[..., j, :]
        top = np.take_along_axis(row, np.argmax(np.abs(row), axis=-1)[..., None], axis=-1)
        phase = np.conj(top) / np.abs(top)
        vh[..., j, :] = row * phase
        u[..., :, j] = u[..., :, j] * np.conj(phase)
    return u, vh


# What each sample computes, in NumPy (for test_forward_matches_numpy).
REFERENCES = {
    "custom_vjp_call": lambda x, y, *, fn, index: np.sin(x) * y,
    "custom_jvp_call": lambda x, *, fn, index: np.tanh(x) * x,
    "checkpoint_call": lambda x, w, *, fn, index: np.tanh(x * w) + x,
    "function_call": lambda x, y, *, fn, index: np.exp(x) * 0.5 + x * y,
    "jit_call": lambda x, y, *, fn, index: np.sin(x) * y + x,
    # the results of NumPy's and SciPy's linalg decompositions, one primitive each (#13)
    "eigh_vectors": lambda x, *, UPLO: np.linalg.eigh(x, UPLO=UPLO)[1],
    "svdvals": lambda x, *, hermitian: np.linalg.svd(x, compute_uv=False, hermitian=hermitian),
    "svd_u": lambda x, *, full_matrices, hermitian: _svd_turned(x, full_matrices, hermitian)[0],
    "svd_vh": lambda x, *, full_matrices, hermitian: _svd_turned(x, full_matrices, hermitian)[1],
    "qr_q": lambda x, *, complete: np.linalg.qr(x, mode="complete" if complete else "reduced")[0],
    "qr_r": lambda x, *, complete: np.linalg.qr(x, mode="complete" if complete else "reduced")[1],
    "expm": lambda x: _scipy_batched("expm", x),
    "sqrtm": lambda x: _scipy_batched("sqrtm", x),
    "logm": lambda x: _scipy_batched("logm", x),
    "solve_sylvester": lambda a, b, q: _scipy_batched("solve_sylvester", a, b, q),
    "lu_factor": lambda x: _scipy_batched(
        lambda a: __import__("scipy.linalg").linalg.lu_factor(a)[0], x
    ),
}


def _scipy_batched(name, *args):
    """SciPy's `scipy.linalg.<name>` (or a function) on each matrix of broadcast stacks."""
    import scipy.linalg

    fn = getattr(scipy.linalg, name) if isinstance(name, str) else name
    batch = np.broadcast_shapes(*(np.shape(a)[:-2] for a in args))
    args = [np.broadcast_to(a, (*batch, *np.shape(a)[-2:])) for a in args]
    first = fn(*(a[(0,) * len(batch)] for a in args))
    out = np.empty((*batch, *np.shape(first)), dtype=np.asarray(first).dtype)
    for i in np.ndindex(*batch):
        out[i] = fn(*(a[i] for a in args))
    return out


def sample_of(prim) -> Sample:
    """The `Sample` of `prim`: its record's, or the one above for a call primitive.

    Raises:
        AssertionError: If there is neither, so no generic test covers `prim`.
    """
    sample = prim.sample if prim.sample is not None else SAMPLES.get(prim.name)
    assert sample is not None, (
        f"{prim.name}: no Sample, so no generic test covers it (a call primitive gets "
        f"one in tests/call_samples.py)"
    )
    return sample
