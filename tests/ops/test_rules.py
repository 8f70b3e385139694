"""The generic rule tests: every registered primitive, checked from its `Sample`.

Each test is parametrized over `funcgrad.ops.registry.primitives()`, so a
newly registered primitive is covered without touching this file (except
`test_forward_matches_numpy`, which needs a NumPy reference for names NumPy
does not have). Arguments come from `sample_of(prim).make(g)` with the drawing
helper of `tests/strategies.py`. Floating-point array arguments are the
variables; anything else (a boolean condition, integer indices, Python
numbers) is a constant.

The finite-difference checks use float64 and central differences with a
step of 1e-6, and the primitive's own `Sample.tol` as relative tolerance,
judged against the size of the terms summed (so that cancellation does not
make a correct rule fail).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as fg
from funcgrad.graph import Node
from funcgrad.ops import registry
from funcgrad.ops.elementwise import add, multiply, real
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import ELEMENTWISE, LINEAR
from funcgrad.transforms.forward import apply_jvp
from tests.call_samples import REFERENCES, sample_of
from tests.nn.loss_reference import LOSS_REFERENCES
from tests.nn.reference import NN_REFERENCES
from tests.references import requires
from tests.strategies import (
    Draw,
    assert_close,
    direction,
    directions,
    inner,
    inner_abs,
    is_float_array,
    numeric_derivative,
    numeric_jvp,
)

PRIMITIVES = registry.primitives()

# Primitives whose declared gradient is not the derivative of their forward
# (which finite differences measure), and what the checks do instead.
ZERO_GRADIENT = {
    "stop_gradient": "the identity on values, declared to pass no gradient: checked to be zero",
}
# The JVP and the VJP are exact formulas; they agree to rounding error.
AGREE_TOL = 1e-10


def _ids(prim):
    return prim.name


each_primitive = pytest.mark.parametrize("prim", PRIMITIVES, ids=_ids)


# --- helpers -----------------------------------------------------------------


def _sample(prim, g):
    args, params = sample_of(prim).make(g)
    args, params = tuple(args), dict(params)
    assert any(is_float_array(a) for a in args), (
        f"{prim.name}: the sample has no floating-point array argument to differentiate"
    )
    return args, params


def _pins_float64(params) -> bool:
    """Whether static parameters hold float64 arrays or dtypes (which a float32 run keeps)."""
    # a call's residuals (custom_vjp_call) are part of its parameters too
    residuals = [getattr(v, "residuals", None) for v in params.values()]
    for v in fg.tree.tree_leaves((params, residuals)):
        if isinstance(v, np.dtype) and v == np.float64:
            return True
        if isinstance(v, (np.ndarray, np.generic)) and v.dtype == np.float64:
            return True
    return False


def _as_float32(args):
    return tuple(a.astype(_SINGLE[a.dtype.kind]) if is_float_array(a) else a for a in args)


_SINGLE = {"f": np.float32, "c": np.complex64}


def _wide_dtype(out):
    """The float64 or complex128 dtype for a cotangent of `out`."""
    return np.complex128 if np.asarray(out).dtype.kind == "c" else np.float64


def _real_and_imaginary(tangents):
    """`[tangents]`, or for complex tangents their real and their imaginary directions apart.

    The JAX convention pairs a complex cotangent with a tangent as
    `Re(sum(c * t))`: checking a real direction and an imaginary one apart
    tests both halves of each complex derivative (a rule that conjugates
    where it should not passes the first and fails the second).
    """
    if not any(t is not None and t.dtype.kind == "c" for t in tangents):
        return [tangents]
    re = tuple(
        t if t is None or t.dtype.kind != "c" else (t.real + 0j).astype(t.dtype) for t in tangents
    )
    im = tuple(
        None if t is None or t.dtype.kind != "c" else (1j * t.imag).astype(t.dtype)
        for t in tangents
    )
    return [re, im]


def _apply_on_leaves(prim, args, params):
    """Return `(leaves, node)`: a leaf per float argument (by position) and prim applied to them."""
    leaves = {i: fg.leaf(a) for i, a in enumerate(args) if is_float_array(a)}
    node = prim(*(leaves.get(i, a) for i, a in enumerate(args)), **params)
    assert type(node) is Node, f"{prim.name} applied to leaves returned {type(node).__name__}"
    return leaves, node


def _vjp(prim, args, params, ct, create_graph=False):
    """Return `J^T ct` of `prim` at `args` through `funcgrad.backward`, per argument (None for constants)."""
    leaves, node = _apply_on_leaves(prim, args, params)
    grads = fg.backward(node, cotangent=ct, wrt=list(leaves.values()), create_graph=create_graph)
    return tuple(grads[leaves[i]] if i in leaves else None for i in range(len(args)))


def _jvp(prim, args, params, tangents):
    """Return `J tangents` through the primitive's JVP rule (zeros if the rule says zero)."""
    out = prim(*args, **params)
    t_out = apply_jvp(prim, tangents, out, args, params)
    if t_out is None:
        return np.zeros(np.shape(out), dtype=np.asarray(out).dtype)
    assert type(t_out) is not Node, f"{prim.name}: the JVP of plain arrays returned a node"
    assert t_out.shape == np.shape(out), f"{prim.name}: JVP shape {t_out.shape} != {np.shape(out)}"
    assert t_out.dtype == np.asarray(out).dtype, f"{prim.name}: JVP dtype {t_out.dtype}"
    return t_out


def _check_cotangents(prim, args, cts):
    for i, (a, c) in enumerate(zip(args, cts, strict=True)):
        if c is None:
            continue
        assert np.shape(c) == np.shape(a), (
            f"{prim.name}: gradient of argument {i} has shape {np.shape(c)}, not {np.shape(a)}"
        )
        assert c.dtype == a.dtype, (
            f"{prim.name}: gradient of argument {i} has dtype {c.dtype}, not {a.dtype}"
        )


def _positional_arity(fn, skip=0):
    """Number of positional parameters of `fn` after the first `skip`, or None if variadic."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    n = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return n - skip


def _keyword_only(fn):
    """Names of the keyword-only parameters of `fn`, or None if it takes `**kwargs`."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return {p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY}


# --- declarations ------------------------------------------------------------


@each_primitive
@given(data=st.data())
def test_every_primitive_declares_forward_vjp_jvp(prim, data):
    assert prim.name and isinstance(prim.name, str)
    assert prim.doc and "\n" not in prim.doc, f"{prim.name}: give a one-line doc"
    assert callable(prim.forward), f"{prim.name}: forward is not callable"
    assert prim.vjp is not None, f"{prim.name}: no VJP rule"
    assert prim.jvp is not None, f"{prim.name}: no JVP rule"
    sample_of(prim)  # the record's Sample, or tests/call_samples.py's for a call primitive

    assert type(prim.vjp) is tuple or callable(prim.vjp), f"{prim.name}: vjp is {prim.vjp!r}"
    assert prim.jvp in (LINEAR, ELEMENTWISE) or type(prim.jvp) is tuple or callable(prim.jvp), (
        f"{prim.name}: jvp is {prim.jvp!r}"
    )
    if prim.jvp is ELEMENTWISE:
        assert type(prim.vjp) is tuple, f"{prim.name}: ELEMENTWISE needs per-input VJP rules"
    for kind, rules in (("vjp", prim.vjp), ("jvp", prim.jvp)):
        if type(rules) is tuple:
            assert rules, f"{prim.name}: empty {kind} tuple"
            for r in rules:
                assert r is None or callable(r), f"{prim.name}: a {kind} rule is {r!r}"

    arity = _positional_arity(prim.forward, skip=1)  # forward(xp, *args)
    args, params = _sample(prim, Draw(data))
    if arity is not None:
        assert len(args) == arity, (
            f"{prim.name}: the sample gives {len(args)} arguments, forward takes {arity}"
        )
    for kind, rules in (("vjp", prim.vjp), ("jvp", prim.jvp)):
        if type(rules) is tuple:
            assert len(rules) == len(args), (
                f"{prim.name}: {len(rules)} {kind} rules for {len(args)} inputs"
            )

    assert isinstance(prim.params, tuple), f"{prim.name}: params must be a tuple of names"
    keywords = _keyword_only(prim.forward)
    if keywords is not None:
        assert keywords == set(prim.params), (
            f"{prim.name}: forward's keyword-only parameters {sorted(keywords)} "
            f"differ from params {prim.params}"
        )
    assert set(params) <= set(prim.params), (
        f"{prim.name}: the sample passes {sorted(params)}, params declares {prim.params}"
    )


# --- first order ---------------------------------------------------------------


@each_primitive
@given(data=st.data())
def test_vjp_matches_finite_differences(prim, data):
    _check_vjp_fd(prim, Draw(data))


def _check_vjp_fd(prim, g):
    args, params = _sample(prim, g)
    out = prim(*args, **params)
    u = direction(g, np.shape(out), _wide_dtype(out))
    cts = _vjp(prim, args, params, u)
    _check_cotangents(prim, args, cts)
    for v in _real_and_imaginary(directions(g, args)):
        fd = 0.0 * out if prim.name in ZERO_GRADIENT else numeric_jvp(prim, args, params, v)

        lhs = inner(u, fd)  # <u, J v> by central differences
        rhs = sum(inner(c, t) for c, t in zip(cts, v, strict=True))  # <J^T u, v> by the VJP rules
        scale = inner_abs(u, fd) + sum(inner_abs(c, t) for c, t in zip(cts, v, strict=True))
        assert_close(rhs, lhs, sample_of(prim).tol, scale, f"{prim.name} <J^T u, v> vs <u, J v>")


@each_primitive
@given(data=st.data())
def test_jvp_matches_finite_differences(prim, data):
    _check_jvp_fd(prim, Draw(data))


def _check_jvp_fd(prim, g):
    args, params = _sample(prim, g)
    for v in _real_and_imaginary(directions(g, args)):
        t_out = _jvp(prim, args, params, v)
        if prim.name in ZERO_GRADIENT:
            fd = np.zeros(np.shape(t_out))
        else:
            fd = numeric_jvp(prim, args, params, v)
        scale = float(np.max(np.abs(fd))) if fd.size else 0.0
        assert_close(t_out, fd, sample_of(prim).tol, scale, f"{prim.name} J v")


@each_primitive
@given(data=st.data())
def test_jvp_and_vjp_agree(prim, data):
    _check_agree(prim, Draw(data))


def _check_agree(prim, g):
    args, params = _sample(prim, g)
    out = prim(*args, **params)
    u = direction(g, np.shape(out), _wide_dtype(out))
    v = directions(g, args)

    t_out = _jvp(prim, args, params, v)
    cts = _vjp(prim, args, params, u)
    lhs = inner(u, t_out)
    rhs = sum(inner(c, t) for c, t in zip(cts, v, strict=True))
    scale = inner_abs(u, t_out) + sum(inner_abs(c, t) for c, t in zip(cts, v, strict=True))
    assert_close(rhs, lhs, AGREE_TOL, scale, f"{prim.name} <J^T u, v> (VJP) vs <u, J v> (JVP)")


# --- second order --------------------------------------------------------------


@each_primitive
@given(data=st.data())
def test_second_order(prim, data):
    _check_second_order(prim, Draw(data))


def _check_second_order(prim, g):
    if not sample_of(prim).second_order:
        return  # declared piecewise linear or constant: nothing to check
    args, params = _sample(prim, g)
    out = prim(*args, **params)
    u = direction(g, np.shape(out), _wide_dtype(out))
    v = directions(g, args)
    w = directions(g, args)

    def h(*point):  # x -> <J(x)^T u, v>, with first-order backward
        return sum(inner(c, t) for c, t in zip(_vjp(prim, point, params, u), v, strict=True))

    # The same function as a graph (create_graph), differentiated again.
    leaves, node = _apply_on_leaves(prim, args, params)
    grads = fg.backward(node, cotangent=u, wrt=list(leaves.values()), create_graph=True)
    first = {i: grads[leaf] for i, leaf in leaves.items()}
    for i, c in first.items():
        c_value = c.value if type(c) is Node else c
        assert c_value.shape == np.shape(args[i]) and c_value.dtype == args[i].dtype
    expected_first = _vjp(prim, args, params, u)
    for i, c in first.items():
        assert_close(
            c.value if type(c) is Node else c,
            expected_first[i],
            AGREE_TOL,
            float(np.max(np.abs(expected_first[i]), initial=0.0)),
            f"{prim.name}: create_graph gradient vs first-order gradient",
        )

    s = None
    for i, c in first.items():
        if type(c) is Node:  # a plain array does not depend on the leaves
            term = sum_(multiply(c, v[i]), axis=None, keepdims=False)
            s = term if s is None else add(s, term)
    if s is None:
        analytic, scale = 0.0, 0.0
    else:
        if s.dtype.kind == "c":
            s = real(s)  # <J^T u, v> pairs complex values by Re(sum(c * v))
        hess = fg.backward(s, wrt=list(leaves.values()))
        analytic = sum(inner(hess[leaves[i]], w[i]) for i in leaves)
        scale = sum(inner_abs(hess[leaves[i]], w[i]) for i in leaves)
    numeric = numeric_derivative(h, args, w)
    assert_close(
        analytic,
        numeric,
        sample_of(prim).tol,
        scale,
        f"{prim.name} second order: d/dx <J(x)^T u, v> in direction w",
    )


# --- forward against NumPy -----------------------------------------------------


def _softmax(x, *, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _logsumexp(x, *, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _log_softmax(x, *, axis=-1):
    return x - _logsumexp(x, axis=axis, keepdims=True)


def _scatter_add(values, *, index, shape):
    out = np.zeros(shape, dtype=values.dtype)
    np.add.at(out, index, values)
    return out


def _index_update(x, values, *, index):
    out = np.array(x, copy=True)
    out[index] = values
    return out


def _gather(x, *, index, axis, keepdims, method):
    if axis is None:
        return x.reshape(-1)[index]
    x1, i1 = (x.reshape(1), index.reshape(1)) if x.ndim == 0 else (x, index)
    cut = tuple(slice(0, n) if d != axis else slice(None) for d, n in enumerate(i1.shape))
    out = np.take_along_axis(x1[cut], i1, axis=axis).reshape(index.shape)
    return out if keepdims else np.squeeze(out, axis=axis)


def _scatter(x, src, *, index, axis, reduce, include_self, method):
    # one write (or reduction) at a time, in order: the sequential loop of PyTorch's CPU kernel
    out = np.array(x, copy=True).reshape(x.shape or (1,))
    if axis is None:  # positions in the flattened x
        out, axis = out.reshape(-1), 0
        index, src = index.reshape(-1), src.reshape(-1)
    index, src = (index.reshape(1), src.reshape(1)) if index.ndim == 0 else (index, src)
    count = np.ones(out.shape) if include_self else np.zeros(out.shape)
    seen = np.zeros(out.shape, dtype=bool)
    ops = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.fmax, "amin": np.fmin}
    for pos in np.ndindex(*index.shape):
        at = list(pos)
        at[axis] = index[pos]
        at = tuple(at)
        if reduce == "none":
            out[at] = src[pos]
            continue
        if not include_self and not seen[at]:
            out[at], seen[at] = src[pos], True
        else:
            out[at] = ops[reduce](out[at], src[pos])
        count[at] += 1
    if reduce == "mean":
        out = out / np.maximum(count, 1)
    return out.reshape(x.shape)


# Names NumPy spells differently, or does not have. Everything else is looked
# up as `numpy.<name>`, then `numpy.linalg.<name>`, and called with the same
# arguments and keyword parameters as the primitive.
def _eigenvectors_positive(x):
    """NumPy's eigenvectors, each column turned so that its largest entry is real and positive."""
    v = np.linalg.eig(x)[1]
    top = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
    return v * (np.conj(top) / np.abs(top))


NUMPY_REFERENCE = {
    "identity": lambda x: x,  # numpy.identity makes an identity matrix
    "named": lambda x, *, grad_fn: x,  # the identity under a grad_fn name
    "eig_vectors": _eigenvectors_positive,
    "stop_gradient": lambda x: x,
    "hook_scope": lambda x, *, hooks: x,
    "astype": lambda x, *, dtype: x.astype(dtype),
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0.0),
    "linear": lambda b, x, w: b + x @ w.T,  # torch.nn.functional.linear (addmm's order)
    "clamp": lambda x, lo, hi, *, bounds, method: (
        np.maximum(x, lo)
        if bounds == "min"
        else np.minimum(x, hi)
        if bounds == "max"
        else np.minimum(np.maximum(x, lo), hi)
    ),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "logsumexp": _logsumexp,
    "getitem": lambda x, *, index: x[index],
    "scatter_add": _scatter_add,
    "index_update": _index_update,
    "gather": _gather,
    "lower_median": lambda x, *, skipnan: np.asarray(
        (np.nanquantile if skipnan else np.quantile)(x, 0.5, method="lower"), dtype=x.dtype
    ),
    "logcumsumexp": lambda x, *, axis: (
        x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=axis)
    ),
    "scatter": _scatter,
    "concatenate": lambda *arrays, axis: np.concatenate(arrays, axis=axis),
    "stack": lambda *arrays, axis: np.stack(arrays, axis=axis),
    "einsum": lambda *ops, subscripts, optimize: np.einsum(subscripts, *ops, optimize=optimize),
    "logabsdet": lambda x: np.linalg.slogdet(x)[1],
    "max_dim": lambda x, *, axis, keepdims: np.max(x, axis=axis, keepdims=keepdims),
    "min_dim": lambda x, *, axis, keepdims: np.min(x, axis=axis, keepdims=keepdims),
    **REFERENCES,  # the call primitives: the user functions of tests/call_samples.py
    **NN_REFERENCES,  # convolutions and pooling: tests/nn/reference.py
    **LOSS_REFERENCES,  # the loss primitives: tests/nn/loss_reference.py
    "to_device": lambda x, *, device: x,  # its sample moves CPU to CPU (tests/gpu: across)
    # funcgrad.distributed's collectives, sampled in a world of one process (tests/distributed: more)
    "all_reduce": lambda x, *, op, group: x,
    "all_gather": lambda x, *, group: x[None],
    "reduce_scatter": lambda x, *, op, group: x[0],
    "fftn": lambda x, *, axes, norm: np.fft.fftn(x, axes=axes, norm=norm),
    "ifftn": lambda x, *, axes, norm: np.fft.ifftn(x, axes=axes, norm=norm),
    "rfftn": lambda x, *, axes, norm: np.fft.rfftn(x, axes=axes, norm=norm),
    "irfftn": lambda x, *, axes, n, norm: np.fft.irfftn(
        x, s=[x.shape[a] for a in axes[:-1]] + [n], axes=axes, norm=norm
    ),
}

# Primitives with no NumPy counterpart to compare with, and why.
NO_REFERENCE: dict[str, str] = {}


def _mpmath_polygamma(n, x):
    mpmath = requires("mpmath")
    out = np.frompyfunc(lambda k, z: complex(mpmath.polygamma(int(k), z)), 2, 1)(n, x)
    return np.asarray(out, dtype=np.result_type(x, 1.0))


# References at complex points where SciPy's function takes real ones only
COMPLEX_REFERENCE = {"polygamma": _mpmath_polygamma}


def _reference(name):
    if name in NUMPY_REFERENCE:
        return NUMPY_REFERENCE[name]
    if registry.get(name).names.scipy:  # funcgrad.scipy's: SciPy's function
        return getattr(requires("scipy.special"), name)
    return getattr(np, name, None) or getattr(np.linalg, name, None)


@each_primitive
@given(data=st.data())
def test_forward_matches_numpy(prim, data):
    if prim.name in NO_REFERENCE:
        assert NO_REFERENCE[prim.name], f"{prim.name}: say why it has no NumPy reference"
        return
    ref = _reference(prim.name)
    assert ref is not None, (
        f"{prim.name}: no NumPy counterpart; add one to NUMPY_REFERENCE in "
        f"tests/ops/test_rules.py, or list it in NO_REFERENCE with the reason"
    )
    args, params = _sample(prim, Draw(data))
    expected = np.asarray(ref(*args, **params))
    actual = prim(*args, **params)
    assert isinstance(actual, (np.ndarray, np.generic)), f"{prim.name} returned {type(actual)}"
    assert np.shape(actual) == expected.shape, (
        f"{prim.name}: shape {np.shape(actual)} != {expected.shape}"
    )
    assert np.asarray(actual).dtype == expected.dtype, (
        f"{prim.name}: dtype {actual.dtype} != {expected.dtype}"
    )
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12, err_msg=prim.name)

    _, node = _apply_on_leaves(prim, args, params)  # the same value when recording a graph
    np.testing.assert_array_equal(node.value, actual, err_msg=prim.name)
    if isinstance(node.value, np.ndarray):
        assert not node.value.flags.writeable, f"{prim.name}: the node's value is writeable"


# --- dtypes --------------------------------------------------------------------


@each_primitive
@given(data=st.data())
def test_dtype_preserved(prim, data):
    g = Draw(data)
    args64, params = _sample(prim, g)
    args = _as_float32(args64)
    out = prim(*args, **params)
    # float32 in, float32 out (complex64 out for a complex result, as NumPy's fft)
    kind = np.asarray(prim(*args64, **params)).dtype.kind
    expected = np.dtype(params["dtype"]) if "dtype" in params else np.dtype(_SINGLE[kind])
    assert np.asarray(out).dtype == expected, (
        f"{prim.name}: float32 in, {np.asarray(out).dtype} out"
    )

    u = direction(g, np.shape(out), expected)
    cts = _vjp(prim, args, params, u)
    _check_cotangents(prim, args, cts)  # shapes, and float32 gradients
    t_out = _jvp(prim, args, params, directions(g, args))
    assert t_out.dtype == expected

    # Same gradients as in float64, to float32 accuracy.
    cts64 = _vjp(prim, args64, params, u.astype(_wide_dtype(u)))
    for c, c64 in zip(cts, cts64, strict=True):
        if c is not None:
            assert_close(
                c,
                c64,
                1e-3,
                float(np.max(np.abs(c64), initial=0.0)),
                f"{prim.name}: float32 gradient vs float64",
            )


@each_primitive
@given(data=st.data())
def test_vjp_rules_do_not_upcast_float32(prim, data):
    # The engine casts every cotangent back to its input's dtype, which would
    # hide a rule that computes in float64 (twice the memory and time).
    g = Draw(data)
    args64, params = _sample(prim, g)
    args = _as_float32(args64)
    out = prim(*args, **params)
    if np.asarray(out).dtype != np.float32:
        return  # a dtype-changing primitive (astype): its rule works in the output dtype
    if _pins_float64(params):
        return  # the sample stores float64 data in params (custom_vjp_call's residuals)
    ct = direction(g, np.shape(out), np.float32)
    if type(prim.vjp) is tuple:
        results = [None if r is None else r(ct, out, *args, **params) for r in prim.vjp]
    else:
        results = list(prim.vjp(ct, out, *args, **params))
    for i, (a, c) in enumerate(zip(args, results, strict=True)):
        if c is not None and is_float_array(a):
            # complex64 is single precision too (a real input's cotangent is its real part)
            assert np.asarray(c).dtype in (np.float32, np.complex64), (
                f"{prim.name}: the VJP rule for argument {i} returned {np.asarray(c).dtype} "
                f"for float32 inputs"
            )


# --- complex inputs (Sample.complex) ----------------------------------------------
#
# The primitives whose sample declares `complex=True` are checked again on
# complex arguments (real and imaginary parts drawn from the sample's range),
# in the functional API's convention (JAX's, docs/concepts/complex.md): the
# cotangent `c` of an input pairs with its tangent `t` as `Re(sum(c * t))`,
# and the finite differences move each input along a real direction and
# along an imaginary one.

COMPLEX = [p for p in PRIMITIVES if sample_of(p).complex]
each_complex_primitive = pytest.mark.parametrize("prim", COMPLEX, ids=_ids)


@each_complex_primitive
@given(data=st.data())
def test_complex_vjp_matches_finite_differences(prim, data):
    g = Draw(data, complex=True)
    args, params = _sample(prim, g)
    complex_out = np.asarray(prim(*args, **params)).dtype.kind == "c"
    assert complex_out or any(is_float_array(a) and a.dtype.kind == "c" for a in args), (
        f"{prim.name}: Sample.complex is set, but the sample drew no complex argument "
        f"(draw the arrays with g.array)"
    )
    _check_vjp_fd(prim, Draw(data, complex=True))


@each_complex_primitive
@given(data=st.data())
def test_complex_jvp_matches_finite_differences(prim, data):
    _check_jvp_fd(prim, Draw(data, complex=True))


@each_complex_primitive
@given(data=st.data())
def test_complex_jvp_and_vjp_agree(prim, data):
    _check_agree(prim, Draw(data, complex=True))


@each_complex_primitive
@given(data=st.data())
def test_complex_second_order(prim, data):
    _check_second_order(prim, Draw(data, complex=True))


@each_complex_primitive
@given(data=st.data())
def test_complex_forward_matches_numpy(prim, data):
    ref = COMPLEX_REFERENCE.get(prim.name) or _reference(prim.name)
    if ref is None:
        return  # test_forward_matches_numpy says why
    args, params = _sample(prim, Draw(data, complex=True))
    expected = np.asarray(ref(*args, **params))
    actual = np.asarray(prim(*args, **params))
    assert actual.dtype == expected.dtype, f"{prim.name}: dtype {actual.dtype} != {expected.dtype}"
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12, err_msg=prim.name)


@each_complex_primitive
@given(data=st.data())
def test_complex64_preserved(prim, data):
    g = Draw(data, complex=True)
    args128, params = _sample(prim, g)
    args = _as_float32(args128)
    out128 = np.asarray(prim(*args128, **params))
    out = np.asarray(prim(*args, **params))
    expected = (
        np.dtype(params["dtype"]) if "dtype" in params else np.dtype(_SINGLE[out128.dtype.kind])
    )
    assert out.dtype == expected, f"{prim.name}: complex64 in, {out.dtype} out"

    u = direction(g, np.shape(out), expected)
    cts = _vjp(prim, args, params, u)
    _check_cotangents(prim, args, cts)  # shapes, and complex64 gradients
    t_out = _jvp(prim, args, params, directions(g, args))
    assert t_out.dtype == expected
    cts128 = _vjp(prim, args128, params, u.astype(_wide_dtype(out128)))
    for c, c128 in zip(cts, cts128, strict=True):
        if c is not None:
            assert_close(
                c,
                c128,
                1e-3,
                float(np.max(np.abs(c128), initial=0.0)),
                f"{prim.name}: complex64 gradient vs complex128",
            )
