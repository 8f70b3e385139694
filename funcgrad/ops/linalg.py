"""Linear-algebra primitives: matmul, einsum, inverses and solves, determinants, Cholesky.

Matrix functions act on the last two axes and broadcast over the leading
("batch") axes, like NumPy's. Their VJP rules return cotangents with the
broadcast batch shape; the engine sums them back to each input's shape.
`dot`, `inner`, `outer`, `vdot` and `tensordot` are not primitives: they are
built from `matmul`, `einsum`, `multiply` and `reshape` (see
`funcgrad.numpy`). `tril` and `triu` are here too: the Cholesky and einsum
rules need them.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np

from funcgrad.backend import as_value, constant_like, on_host, to_device, xp_of
from funcgrad.backend import products as _products
from funcgrad.errors import NotDifferentiableError, OpError
from funcgrad.graph.node import Array, Node
from funcgrad.ops import observe as _observe
from funcgrad.ops._util import attach, describe, failure, op_error, shape_of, value_of
from funcgrad.ops.elementwise import add, conjugate, imag, multiply, real
from funcgrad.ops.index import getitem, normalize_index
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import (
    LINEAR,
    Draw,
    Drawn,
    GradFnName,
    Names,
    Primitive,
    RuleInputs,
    RuleParams,
    Sample,
    register,
)
from funcgrad.ops.shape import broadcast_to, concatenate, reshape, stack, transpose


def _mT(x: Array) -> Array:
    """Swap the last two axes (the matrix transpose of a stack of matrices)."""
    n = len(shape_of(x))
    return transpose(x, axes=(*range(n - 2), n - 1, n - 2))


# --- drawing samples (the tests' `g`; plain float64 arrays) -------------------

# NOTE: the samples draw well-conditioned matrices (n * I plus small entries,
# or B B^T / n + I), so that the finite-difference checks measure the rules
# and not the conditioning.


def _scaled_identity(n: int, scale: float) -> list[list[float]]:
    # a nested list, so that samples need no array module
    return [[scale if i == j else 0.0 for j in range(n)] for i in range(n)]


def _well_conditioned(g: Draw, shape: tuple[int, ...]) -> Array:
    """A stack of n x n matrices n * I + U(-0.5, 0.5): diagonally dominant, det > 0."""
    n = shape[-1]
    return g.array(shape, -0.5, 0.5) + _scaled_identity(n, float(n))


def _spd(g: Draw, shape: tuple[int, ...]) -> Array:
    """A stack of Hermitian positive definite matrices B B^H / n + I (exactly Hermitian)."""
    n = shape[-1]
    b = g.array(shape, -1.0, 1.0)
    a = matmul(b, np.conj(_mT(b))) * (1.0 / n) + _scaled_identity(n, 1.0)
    return (a + np.conj(_mT(a))) * 0.5


def _conj(x: Array) -> Array:
    """The complex conjugate of a complex `x`; a real `x` itself (no node, no copy)."""
    return conjugate(x) if np.dtype(value_of(x).dtype).kind == "c" else x


def _hermitian_part(x: Array) -> Array:
    """(x + x^H) / 2 of each matrix: its symmetric part for a real x."""
    return (x + _conj(_mT(x))) * 0.5


# --- triangles (used by the Cholesky and einsum rules) --------------------------


def _triangle_sample(g: Draw) -> Drawn:
    shape = g.shape(min_dims=2, max_dims=3, min_side=0)
    return (g.array(shape, -3.0, 3.0),), {"k": g.integers(-1, 1)}


tril: Primitive = register(
    Primitive(
        name="tril",
        forward=lambda xp, x, *, k: xp.tril(x, k),
        vjp=(lambda ct, out, x, *, k: tril(ct, k=k),),  # a projection: its own transpose
        jvp=LINEAR,
        params=("k",),
        sample=Sample(_triangle_sample, complex=True),
        doc="entries on and below the k-th diagonal of the last two axes (others 0)",
        names=Names(
            numpy="tril", torch="tril", method="tril", inplace="tril_", grad_fn="TrilBackward0"
        ),
    )
)

triu: Primitive = register(
    Primitive(
        name="triu",
        forward=lambda xp, x, *, k: xp.triu(x, k),
        vjp=(lambda ct, out, x, *, k: triu(ct, k=k),),
        jvp=LINEAR,
        params=("k",),
        sample=Sample(_triangle_sample, complex=True),
        doc="entries on and above the k-th diagonal of the last two axes (others 0)",
        names=Names(
            numpy="triu", torch="triu", method="triu", inplace="triu_", grad_fn="TriuBackward0"
        ),
    )
)


def _diagonal_part(x: Array) -> Array:
    """Zero all but the main diagonal of the last two axes."""
    return tril(triu(x, k=0), k=0)


def _phi(x: Array) -> Array:
    """The lower triangle of the last two axes with the diagonal halved."""
    return (tril(x, k=0) + tril(x, k=-1)) * 0.5


# --- matmul --------------------------------------------------------------------


def _matmul_sample(g: Draw) -> Drawn:
    n, k, m = g.integers(1, 4), g.integers(0, 4), g.integers(1, 4)
    kind = g.choice(["matrix @ matrix", "vector @ matrix", "matrix @ vector", "vector @ vector"])
    bx, by = g.broadcast_shapes(2, min_dims=0, max_dims=2)
    x_shape = (k,) if kind.startswith("vector") else (*bx, n, k)
    y_shape = (k,) if kind.endswith("vector") else (*by, k, m)
    return (g.array(x_shape, -2.0, 2.0), g.array(y_shape, -2.0, 2.0)), {}


# NOTE: first order on NumPy matrices (the common case: a layer's weight), each rule is
# one call of numpy.matmul on the transposed view, as the general path below computes it
# through `matmul` and `transpose` (the same operands, the same numbers). After a large
# GEMM the interpreter's caches are cold, and each Python step of the general path
# (shape_of, _mT, transpose's and matmul's dispatch) cost W4 tens of microseconds (issue 18).
# Not while a profiler or anomaly mode observes the primitives' calls.
_ndarray = np.ndarray
_np_matmul = _products.matmul  # numpy.matmul's bits, a repeated row computed once


def _matmul_vjp_x(ct: Array, out: Array, x: Array, y: Array) -> Array:
    if (
        type(ct) is _ndarray
        and type(y) is _ndarray
        and ct.ndim == 2
        and y.ndim == 2
        and not _observe.active
    ):
        return _np_matmul(ct, y.T)
    x_nd, y_nd, c_shape = len(shape_of(x)), len(shape_of(y)), shape_of(ct)
    if y_nd == 1:  # out[..., i] = x[..., i, :] . y  (out = x . y if x is 1-D too)
        return multiply(ct, y) if x_nd == 1 else multiply(reshape(ct, shape=(*c_shape, 1)), y)
    if x_nd == 1:  # out[..., :] = x @ y[...]: treat x as a (1, k) row
        if y_nd == 2:  # ct is a vector: a vector-matrix product, no reshapes (the same numbers)
            return matmul(ct, _mT(y))
        row = reshape(ct, shape=(*c_shape[:-1], 1, c_shape[-1]))
        return reshape(matmul(row, _mT(y)), shape=(*c_shape[:-1], shape_of(x)[0]))
    return matmul(ct, _mT(y))


def _matmul_vjp_y(ct: Array, out: Array, x: Array, y: Array) -> Array:
    if (
        type(ct) is _ndarray
        and type(x) is _ndarray
        and ct.ndim == 2
        and x.ndim == 2
        and type(y) is _ndarray
        and not _observe.active
    ):
        if y.flags.f_contiguous and not y.flags.c_contiguous:  # _column_major(y): see below
            return _np_matmul(ct.T, x).T
        return _np_matmul(x.T, ct)
    x_nd, y_nd, c_shape = len(shape_of(x)), len(shape_of(y)), shape_of(ct)
    if x_nd == 1:  # out[..., j] = x . y[..., :, j]  (out = x . y if y is 1-D too)
        if y_nd == 1:
            return multiply(ct, x)
        row = reshape(ct, shape=(*c_shape[:-1], 1, c_shape[-1]))
        return multiply(reshape(x, shape=(shape_of(x)[0], 1)), row)
    if y_nd == 1:  # out[...] = x[...] @ y: treat y as a (k, 1) column
        if x_nd == 2:  # ct is a vector: a vector-matrix product, no reshapes (the same numbers)
            return matmul(ct, x)
        row = reshape(ct, shape=(*c_shape[:-1], 1, c_shape[-1]))
        return reshape(matmul(row, x), shape=(*c_shape[:-1], shape_of(y)[0]))
    if x_nd == 2 and y_nd == 2 and _column_major(y):
        # y is a transposed view (linear's weight.T): give its cotangent the same
        # layout, as PyTorch's mm backward does, so the transpose's VJP hands the
        # weight a row-major gradient (copying a transposed one costs ~10x more)
        return _mT(matmul(_mT(ct), x))
    return matmul(_mT(x), ct)


def _column_major(y: Array) -> bool:
    """Whether `y`'s value is a column-major (Fortran-ordered, not C-ordered) NumPy matrix.

    A layout, not a value (jit records the branch its trace took; vmap's batched
    values and CuPy arrays take the row-major one).
    """
    v = y.value if type(y) is Node else y
    return type(v) is np.ndarray and v.flags.f_contiguous and not v.flags.c_contiguous


def _matmul_forward(xp: ModuleType, x: Array, y: Array) -> Array:
    try:
        return xp.matmul(x, y)
    except ValueError as e:
        raise op_error("matmul", (x, y), {}, _matmul_hint(e, x, y)) from e


def _matmul_hint(error: Exception, x: Array, y: Array) -> str:
    xs, ys = shape_of(x), shape_of(y)
    if not xs or not ys:
        return "matmul needs operands with at least one axis; multiply by a scalar with * instead"
    if "core dimension" not in str(error) and "broadcast" not in str(error):
        return failure(error)
    k_x, k_y = xs[-1], ys[-2] if len(ys) > 1 else ys[-1]
    if k_x != k_y:
        return (
            f"x @ y contracts the last axis of x (size {k_x}) with the "
            f"{'second-to-last' if len(ys) > 1 else 'only'} axis of y (size {k_y}); make "
            f"them equal: transpose an operand (y.T, swapaxes) or swap the arguments"
        )
    return (
        f"the leading (batch) axes {xs[:-2]} and {ys[:-2]} must broadcast: aligned from "
        f"the right, each pair of sides equal or 1"
    )


def _matmul_grad_fn(inputs: RuleInputs, params: RuleParams) -> GradFnName:
    """DotBackward0, MvBackward0, MmBackward0 ... by the operands' ranks, as PyTorch's matmul.

    DotBackward0 (1-D @ 1-D), MvBackward0 (2-D @ 1-D), MmBackward0 (2-D @ 2-D),
    SqueezeBackward4 (1-D @ 2-D), CloneBackward0 (2-D @ a batch), else UnsafeViewBackward0.
    """
    ranks = (len(shape_of(inputs[0])), len(shape_of(inputs[1])))
    if ranks in _MATMUL_NAMES:
        return _MATMUL_NAMES[ranks]
    return "CloneBackward0" if ranks[0] == 2 else "UnsafeViewBackward0"


_MATMUL_NAMES = {
    (1, 1): "DotBackward0",
    (2, 1): "MvBackward0",
    (2, 2): "MmBackward0",
    (1, 2): "SqueezeBackward4",
}


matmul: Primitive = register(
    Primitive(
        name="matmul",
        forward=_matmul_forward,
        vjp=(_matmul_vjp_x, _matmul_vjp_y),
        jvp=(lambda x_t, out, x, y: matmul(x_t, y), lambda y_t, out, x, y: matmul(x, y_t)),
        sample=Sample(_matmul_sample, complex=True),
        doc="matrix product x @ y (batch axes broadcast; 1-D operands as in NumPy)",
        names=Names(
            numpy="matmul",
            torch=("matmul", "mm", "bmm"),
            method=("matmul", "mm", "bmm"),
            grad_fn=_matmul_grad_fn,
        ),
    )
)


# --- linear (torch.nn.functional.linear's one-call form) --------------------------------
# The operands in PyTorch's addmm order (bias, input, weight), so the Tensor layer's
# AddmmBackward0 lists its next functions as PyTorch's does (the bias's first).


def _linear_forward(xp: ModuleType, b: Array, x: Array, w: Array) -> Array:
    if type(w) is _ndarray and w.ndim == 2:  # w.T (a view) without swapaxes' Python frames
        out = _matmul_forward(xp, x, w.T)  # BLAS reads it transposed
    else:
        out = _matmul_forward(xp, x, xp.swapaxes(w, -1, -2))
    if (type(b) is _ndarray and b.dtype == out.dtype) or out.dtype == xp.result_type(out, b):
        out += b  # into the fresh product: no second array
        return out
    return out + b


# The numbers of matmul(x, transpose(w)) + b's rules (the same BLAS calls and sum), each a
# fresh array in its input's layout: w's gradient ct^T x is row-major as w is, with no
# transposed view of it to copy, and b's is the sum over the rows. One rule per input, so
# the engine runs none for a constant input (a batch of data: no GEMM for its gradient).
# On NumPy matrices (a first-order walk) each rule makes its primitives' NumPy call itself
# (sum_'s add.reduce, matmul's np.matmul of the same operands, transpose's view), as
# matmul's rules do: the same results without 4 primitive dispatches per layer.
_add_reduce = np.add.reduce


def _plain(ct: Array, y: Array) -> bool:
    """Whether a rule's cotangent and operand are NumPy matrices and no one observes the calls."""
    return type(ct) is _ndarray and type(y) is _ndarray and ct.ndim == 2 and not _observe.active


def _linear_vjp_b(ct: Array, out: Array, b: Array, x: Array, w: Array) -> Array:
    if type(ct) is _ndarray and ct.ndim == 2 and not _observe.active:
        return _add_reduce(ct, axis=0)  # sum_'s forward on a NumPy array
    return sum_(ct, axis=0, keepdims=False)


def _linear_vjp_x(ct: Array, out: Array, b: Array, x: Array, w: Array) -> Array:
    if _plain(ct, w) and w.ndim == 2:
        return _np_matmul(ct, w)
    return matmul(ct, w)


def _linear_vjp_w(ct: Array, out: Array, b: Array, x: Array, w: Array) -> Array:
    if _plain(ct, x) and x.ndim == 2:
        return _np_matmul(ct.T, x)
    return matmul(_mT(ct), x)


_LINEAR_VJP = (_linear_vjp_b, _linear_vjp_x, _linear_vjp_w)


def _linear_batch(size: int, vals: Sequence[Any], dims: Sequence[int | None], /) -> Any:
    # vmap: every batched operand with its batch on axis 0, then x @ w^T + b as primitives
    # (a batched matmul broadcasts an unbatched operand; a batched b gets its row axis)
    (b, x, w), (db, dx, dw) = vals, dims
    x, w, b = (v if d in (None, 0) else _to_front(v, d) for v, d in ((x, dx), (w, dw), (b, db)))
    out = matmul(x, _mT(w))
    if db is not None:
        b = reshape(b, shape=(size, 1, shape_of(b)[-1]))
    return add(out, b), 0


def _to_front(v: Array, d: int) -> Array:
    order = list(range(len(shape_of(v))))
    order.insert(0, order.pop(d))
    return transpose(v, axes=tuple(order))


def _linear_sample(g: Draw) -> Drawn:
    n, k, m = g.integers(1, 4), g.integers(1, 4), g.integers(1, 4)
    return (g.array((m,), -2.0, 2.0), g.array((n, k), -2.0, 2.0), g.array((m, k), -2.0, 2.0)), {}


linear: Primitive = register(
    Primitive(
        name="linear",
        forward=_linear_forward,
        vjp=_LINEAR_VJP,
        jvp=(
            lambda b_t, out, b, x, w: broadcast_to(b_t, shape=shape_of(out)),
            lambda x_t, out, b, x, w: matmul(x_t, _mT(w)),
            lambda w_t, out, b, x, w: matmul(x, _mT(w_t)),
        ),
        sample=Sample(_linear_sample),
        doc="b + x @ w.T for a matrix x (F.linear with a bias; operands in addmm's order)",
        names=Names(grad_fn="AddmmBackward0"),
        batch=_linear_batch,
    )
)


# --- einsum --------------------------------------------------------------------

_LETTERS = string.ascii_letters


@functools.lru_cache(maxsize=512)
def parse_einsum(subscripts: str, ndims: tuple[int, ...]) -> tuple[tuple[str, ...], str]:
    """Spell out an einsum specification: one label string per operand, and the output's.

    The ellipsis is replaced by fresh letters (right-aligned, so operands with
    fewer broadcast axes get the last ones), and the implicit output (no
    `->`) is made explicit: the ellipsis axes, then every label that occurs
    once, in alphabetical order, as NumPy does.

    Args:
        subscripts: NumPy's subscripts string, e.g. `"...ij,...jk"`.
        ndims: The number of axes of each operand.

    Returns:
        `(inputs, output)` with no ellipsis left.

    Raises:
        funcgrad.errors.OpError: If the string does not fit the operands.

    Examples:
        >>> parse_einsum("ij,jk", (2, 2))
        (('ij', 'jk'), 'ik')
        >>> parse_einsum("...i,i->...", (3, 1))
        (('ABi', 'i'), 'AB')
    """
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise OpError(
            f"funcgrad.einsum: {subscripts!r} names {len(terms)} operand(s), but "
            f"{len(ndims)} were given"
        )
    used = {c for c in spec if c in _LETTERS}
    bad = set(spec) - used - set(".,->")
    if bad:
        raise OpError(
            f"funcgrad.einsum: {subscripts!r} has invalid labels {sorted(bad)}; use letters"
        )
    n_ell = 0
    for t, nd in zip(terms, ndims, strict=True):
        if "..." in t:
            n_ell = max(n_ell, nd - (len(t) - 3))
    fresh = "".join(c for c in _LETTERS[26:] + _LETTERS[:26] if c not in used)[:n_ell]
    if len(fresh) < n_ell:
        raise OpError(f"funcgrad.einsum: {subscripts!r} needs more than 52 labels")
    inputs = []
    for t, nd in zip(terms, ndims, strict=True):
        if "..." in t:
            k = nd - (len(t) - 3)
            t = t.replace("...", fresh[n_ell - k :] if k > 0 else "")
        if len(t) != nd or "." in t:
            raise OpError(
                f"funcgrad.einsum: the term {t!r} of {subscripts!r} does not fit an "
                f"operand with {nd} axes"
            )
        inputs.append(t)
    if arrow:
        output = rhs.replace("...", fresh)
    else:
        counts: dict[str, int] = {}
        for t in inputs:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        output = fresh + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in fresh))
    return tuple(inputs), output


def _einsum_sample(g: Draw) -> Drawn:
    cases = [
        "ij,jk->ik",
        "ij,jk",
        "i,i->",
        "i,i",
        "i,j->ij",
        "ij->ji",
        "ij->",
        "ij->i",
        "bij,bjk->bik",
        "ijk,jl,lk->i",
        "...ij,...jk->...ik",
        "...i,...i",
        "i...->...",
        "ii->i",
        "ii",
        "iij->j",
        ",i->i",
        "ij,ij->ij",
    ]
    spec = g.choice(cases)
    sizes = {c: g.integers(1, 3) for c in "ijklb"}
    lhs = spec.partition("->")[0].split(",")
    n_ell = sum("..." in t for t in lhs)
    ell = g.broadcast_shapes(n_ell, min_dims=0, max_dims=2) if n_ell else []
    operands = []
    for t in lhs:
        shape = tuple(sizes[c] for c in t.replace("...", ""))
        if "..." in t:
            batch = tuple(ell.pop())
            shape = batch + shape if t.startswith("...") else shape[:1] + batch + shape[1:]
        operands.append(g.array(shape, -2.0, 2.0))
    return tuple(operands), {"subscripts": spec, "optimize": g.boolean()}


def _unique(labels: str) -> str:
    return "".join(dict.fromkeys(labels))


def _einsum_operand_vjp(
    ct: Array,
    args: tuple[Array, ...],
    inputs: tuple[str, ...],
    output: str,
    i: int,
    optimize: bool | str,
) -> Array:
    """The cotangent of operand i: an einsum of `ct` with the other operands."""
    labels, shape = inputs[i], shape_of(args[i])
    others = [j for j in range(len(args)) if j != i]
    available = set(output).union(*(inputs[j] for j in others))
    uniq = _unique(labels)
    target = "".join(c for c in uniq if c in available)
    if others or target != output:
        spec = ",".join([output, *(inputs[j] for j in others)]) + "->" + target
        ct = einsum(ct, *(args[j] for j in others), subscripts=spec, optimize=optimize)
    # Along labels summed in operand i alone (absent from `target`), or of
    # size 1 everywhere else (broadcast), the cotangent is constant.
    got = dict(zip(target, shape_of(ct), strict=True))
    sides: list[int] = []
    for c in uniq:
        n = got.get(c, 1)
        sides.append(n if n != 1 else shape[labels.index(c)])
    full = tuple(sides)
    if target != uniq:
        ct = reshape(ct, shape=tuple(got.get(c, 1) for c in uniq))
    if shape_of(ct) != full:
        ct = broadcast_to(ct, shape=full)
    if uniq == labels:
        return ct
    # A repeated label (a diagonal, as in "ii->i"): put the cotangent on it, 0 elsewhere.
    size = dict(zip(uniq, full, strict=True))
    repeats = len(labels) - len(uniq)
    ct = reshape(ct, shape=(*shape_of(ct), *(1,) * repeats))
    perm, extra = [], len(uniq)
    for p, c in enumerate(labels):
        if labels.index(c) == p:
            perm.append(uniq.index(c))
        else:
            perm.append(extra)
            extra += 1
    ct = transpose(ct, axes=tuple(perm))
    ct = broadcast_to(ct, shape=tuple(size[c] for c in labels))
    nd = len(labels)
    for q, c in enumerate(labels):
        p = labels.index(c)
        if p != q:  # keep only entries with equal indices on axes p and q
            rest = [a for a in range(nd) if a not in (p, q)]
            to_end = (*rest, p, q)
            back = [0] * nd
            for pos, a in enumerate(to_end):
                back[a] = pos
            ct = transpose(_diagonal_part(transpose(ct, axes=to_end)), axes=tuple(back))
    return ct


def _einsum_vjp(
    ct: Array, out: Array, *args: Array, subscripts: str, optimize: bool | str
) -> tuple[Array, ...]:
    inputs, output = parse_einsum(subscripts, tuple(len(shape_of(a)) for a in args))
    return tuple(
        _einsum_operand_vjp(ct, args, inputs, output, i, optimize) for i in range(len(args))
    )


def _einsum_jvp(
    tangents: Sequence[Array | None],
    out: Array,
    *args: Array,
    subscripts: str,
    optimize: bool | str,
) -> Array | None:
    # Multilinear: the sum over operands of einsum with that operand's tangent in its place.
    result = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        term = einsum(*args[:i], t, *args[i + 1 :], subscripts=subscripts, optimize=optimize)
        result = term if result is None else result + term
    return result


einsum = register(
    Primitive(
        name="einsum",
        forward=lambda xp, *operands, subscripts, optimize: xp.einsum(
            subscripts, *operands, optimize=optimize
        ),
        vjp=_einsum_vjp,
        jvp=_einsum_jvp,
        params=("subscripts", "optimize"),
        sample=Sample(_einsum_sample, complex=True),
        doc="Einstein summation over labelled axes (ellipsis and diagonals supported)",
        names=Names(numpy="einsum", torch="einsum"),
    )
)


# --- inverse and solve -----------------------------------------------------------


def _in_float32_for_half(xp: ModuleType, fn: Callable[..., Any], *arrays: Array) -> Array:
    """Apply a `xp.linalg` function; float16 operands are computed in float32.

    NOTE: NumPy's linalg has no float16 loops (it raises). Computing in
    float32 and rounding the result back keeps DESIGN's rule that no
    operation changes a float dtype: float16 in, float16 out.
    """
    half = xp.float16
    if all(getattr(a, "dtype", None) != half for a in arrays):  # the usual case: no lookup
        return fn(*arrays)
    if xp.result_type(*(xp.asarray(a) for a in arrays)) != half:
        return fn(*arrays)
    return fn(*(xp.asarray(a, dtype=xp.float32) for a in arrays)).astype(half)


def _svd_of(xp: ModuleType, fn: Callable[..., Any], x: Array) -> Array:
    """Apply an SVD-based `xp.linalg` function to `x`, refusing non-finite entries.

    NOTE: LAPACK's SVD (gesdd, which `numpy.linalg.svd` and `pinv` call) does
    not return on a matrix holding inf (NumPy hangs): a clear error instead.
    """
    if not bool(xp.isfinite(x).all()):
        raise np.linalg.LinAlgError(
            "the matrix has non-finite entries (inf or NaN), for which LAPACK's SVD "
            "does not converge (NumPy's can hang); replace them first"
        )
    return _in_float32_for_half(xp, fn, x)


def _square_sample(g: Draw, max_side: int = 4) -> tuple[int, ...]:
    n = g.integers(1, max_side)
    batch = g.shape(min_dims=0, max_dims=2, max_side=3) if g.boolean() else ()
    return (*batch, n, n)


inv = register(
    Primitive(
        name="inv",
        forward=lambda xp, x: _in_float32_for_half(xp, xp.linalg.inv, x),
        # d(X^-1) = -X^-1 dX X^-1
        vjp=(lambda ct, out, x: -matmul(_mT(out), matmul(ct, _mT(out))),),
        jvp=(lambda x_t, out, x: -matmul(out, matmul(x_t, out)),),
        sample=Sample(lambda g: ((_well_conditioned(g, _square_sample(g)),), {}), complex=True),
        doc="matrix inverse (of each matrix in a stack)",
        names=Names(
            numpy="linalg.inv", torch="inverse", method="inverse", grad_fn="LinalgInvExBackward0"
        ),
    )
)


def _solve_sample(g: Draw) -> Drawn:
    n = g.integers(1, 4)
    ba, bb = g.broadcast_shapes(2, min_dims=0, max_dims=2)
    a = _well_conditioned(g, (*ba, n, n))
    b_shape = (n,) if g.boolean() else (*bb, n, g.integers(1, 3))
    return (a, g.array(b_shape, -2.0, 2.0)), {}


def _solve_vjp(ct: Array, out: Array, a: Array, b: Array) -> Array:
    # x = A^-1 b:  b_bar = A^-T x_bar,  A_bar = -b_bar x^T
    if len(shape_of(b)) == 1:  # b is one vector; x and ct are (..., n): make them columns
        column = (*shape_of(ct), 1)
        ct_b = solve(_mT(a), reshape(ct, shape=column))
        ct_a = -matmul(ct_b, _mT(reshape(out, shape=column)))
        return ct_a, reshape(ct_b, shape=shape_of(ct))
    ct_b = solve(_mT(a), ct)
    return -matmul(ct_b, _mT(out)), ct_b


def _solve_jvp_a(a_t: Array, out: Array, a: Array, b: Array) -> Array:
    # dx = -A^-1 dA x
    if len(shape_of(b)) == 1:
        column = (*shape_of(out), 1)
        return reshape(-solve(a, matmul(a_t, reshape(out, shape=column))), shape=shape_of(out))
    return -solve(a, matmul(a_t, out))


def _solve_forward(xp: ModuleType, a: Array, b: Array) -> Array:
    if xp is not np and a.ndim >= 2 and b.ndim > 1 and a.shape[:-2] != b.shape[:-2]:
        # NOTE: CuPy's solve wants b's batch axes equal to a's (NumPy 2 broadcasts them):
        # broadcast both first, which gives NumPy's result
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.ascontiguousarray(xp.broadcast_to(a, (*batch, *a.shape[-2:])))
        b = xp.ascontiguousarray(xp.broadcast_to(b, (*batch, *b.shape[-2:])))
    return _in_float32_for_half(xp, xp.linalg.solve, a, b)


solve: Primitive = register(
    Primitive(
        name="solve",
        forward=_solve_forward,
        vjp=_solve_vjp,
        jvp=(_solve_jvp_a, lambda b_t, out, a, b: solve(a, b_t)),
        sample=Sample(_solve_sample, complex=True),
        doc="x with a @ x = b (b one vector, or a stack of matrices)",
        names=Names(numpy="linalg.solve", grad_fn="LinalgSolveExBackward0"),
    )
)


# --- determinants ------------------------------------------------------------------


def _det_sample(g: Draw) -> Drawn:
    x = _well_conditioned(g, _square_sample(g))
    if g.boolean():  # a negative determinant as well: flip the first column
        x = x * ([-1.0] + [1.0] * (x.shape[-1] - 1))
    return (x,), {}


def _inv_transpose(x: Array, op: str) -> Array:
    """inv(x)^T, with an error naming `op` where x is singular."""
    try:
        return _mT(inv(x))
    except OpError as e:
        # NOTE: NotDifferentiableError (a NotImplementedError): the derivative
        # is infinite there (log|det| -> -inf), so there is no number to give.
        raise NotDifferentiableError(
            f"funcgrad.{op}: no gradient at a singular matrix (argument 0, "
            f"{describe(x)}): it is inv(x)^T, which does not exist "
            f"({str(e).splitlines()[0]}). Keep the matrix away from singular"
        ) from e


def _trace_of_product(a_t: Array, b: Array) -> Array:
    """tr(A B) for stacks of matrices, given A^T: the sum of A^T * B over the last two axes."""
    return sum_(a_t * b, axis=(-2, -1), keepdims=False)


# Largest number of entries of the stack of minors that `_cofactors` builds.
_MINORS_BUDGET = 1 << 22


def _cofactors(x: Array, out: Array) -> Array:
    """The cofactor matrix C of each matrix in a stack, d det X / dX = C = adj(X)^T.

    det(X) inv(X)^T where X is invertible; where a matrix of the stack is
    singular, C_ij = (-1)^(i+j) det(X without row i and column j) for the
    whole stack: exact (a rank-deficient X has a finite gradient, as in
    PyTorch) and differentiable again, through `det` of the minors.
    """
    shape = shape_of(x)
    n = shape[-1]
    if not (value_of(out) == 0).any():
        try:
            return multiply(reshape(out, shape=(*shape[:-2], 1, 1)), _mT(inv(x)))
        except OpError:
            pass  # det is not exactly 0 but LAPACK found the matrix singular
    x_v = value_of(x)
    xp = xp_of(x_v)
    if n == 1:
        return xp.ones_like(x_v)  # d x / dx
    entries = n * n * (n - 1) * (n - 1)
    for side in shape[:-2]:
        entries *= side
    if entries > _MINORS_BUDGET:
        raise NotDifferentiableError(
            f"funcgrad.det: the gradient at a singular matrix (argument 0, {describe(x)}) "
            f"is the matrix of cofactors, which funcgrad builds from the {n * n} minors: "
            f"{entries} entries, more than the {_MINORS_BUDGET} it allows. Keep the matrix "
            f"away from singular, or give your own rule with funcgrad.custom_vjp"
        )
    others = np.array([[k for k in range(n) if k != i] for i in range(n)])
    index = normalize_index((Ellipsis, others[:, None, :, None], others[None, :, None, :]))
    minors = getitem(x, index=index)  # (..., n, n, n - 1, n - 1): row i and column j left out
    signs = 1.0 - 2.0 * (np.add.outer(np.arange(n), np.arange(n)) % 2)
    return det(minors) * constant_like(signs, x_v, x_v.dtype)


def _det_vjp(ct: Array, out: Array, x: Array) -> Array:
    # d det X = tr(adj(X) dX), adj(X)^T the cofactor matrix
    c_shape = shape_of(ct)
    return multiply(reshape(ct, shape=(*c_shape, 1, 1)), _cofactors(x, out))


det: Primitive = register(
    Primitive(
        name="det",
        forward=lambda xp, x: _in_float32_for_half(xp, xp.linalg.det, x),
        vjp=(_det_vjp,),
        jvp=(lambda x_t, out, x: _trace_of_product(_cofactors(x, out), x_t),),
        sample=Sample(_det_sample, complex=True),
        doc="determinant (of each matrix in a stack; exact gradient where it is singular)",
        names=Names(numpy="linalg.det", torch="det", method="det", grad_fn="LinalgDetBackward0"),
    )
)


logabsdet = register(
    Primitive(
        name="logabsdet",
        forward=lambda xp, x: _in_float32_for_half(xp, lambda a: xp.linalg.slogdet(a)[1], x),
        # d log|det X| = tr(X^-1 dX)
        vjp=(
            lambda ct, out, x: multiply(
                reshape(ct, shape=(*shape_of(ct), 1, 1)), _inv_transpose(x, "logabsdet")
            ),
        ),
        jvp=(lambda x_t, out, x: _trace_of_product(_inv_transpose(x, "logabsdet"), x_t),),
        sample=Sample(_det_sample, complex=True),
        doc="log |det x|, the second output of numpy.linalg.slogdet",
        names=Names(numpy="linalg.slogdet", grad_fn="LinalgSlogdetBackward0"),
    )
)


# --- Cholesky ----------------------------------------------------------------------


def _cholesky_vjp(ct: Array, out: Array, x: Array) -> Array:
    # Murray (2016), transposed for complex L (the functional API's convention):
    # A_bar = herm(L^-T Phi(L^T L_bar) conj(L)^-1), herm(M) = (M + M^H) / 2
    y = solve(_mT(out), _phi(matmul(_mT(out), ct)))  # L^-T Phi
    z = _mT(solve(_mT(_conj(out)), _mT(y)))  # y conj(L)^-1
    return _hermitian_part(z)


def _cholesky_jvp(x_t: Array, out: Array, x: Array) -> Array:
    # dL = L Phi(L^-1 herm(dA) L^-H)
    y = solve(out, _hermitian_part(x_t))  # L^-1 dA
    z = _conj(_mT(solve(out, _conj(_mT(y)))))  # (L^-1 y^H)^H = y L^-H
    return matmul(out, _phi(z))


cholesky = register(
    Primitive(
        name="cholesky",
        # NOTE: factors (x + x^H) / 2, as JAX does, so the function (and its
        # gradient) is Hermitian in x; NumPy reads only the lower triangle.
        forward=lambda xp, x: _in_float32_for_half(
            xp, xp.linalg.cholesky, (x + xp.conj(xp.swapaxes(x, -1, -2))) * 0.5
        ),
        vjp=(_cholesky_vjp,),
        jvp=(_cholesky_jvp,),
        sample=Sample(lambda g: ((_spd(g, _square_sample(g)),), {}), complex=True),
        doc="lower Cholesky factor L of a Hermitian (symmetric) positive definite x = L L^H",
        names=Names(numpy="linalg.cholesky", grad_fn="LinalgCholeskyExBackward0"),
    )
)


# --- decompositions: shared helpers ---------------------------------------------------
#
# The decompositions with several results (eigh, svd, qr) are one primitive per
# result (`eigvalsh` and `eigh_vectors`; `svdvals`, `svd_u` and `svd_vh`; `qr_q`
# and `qr_r`): each forward calls the same LAPACK routine on the same input,
# which is deterministic, so the results are those of one call (the same signs
# of the vectors). The rule of each gives the part of the gradient that its
# cotangent contributes; the engine adds them, which is the whole gradient
# because the gradient is linear in the cotangents.


def _const_like(x: Array, value: Any) -> Array:
    """`value` (a NumPy array) as a constant in the array module, device and float dtype of `x`."""
    v = value_of(x)
    return constant_like(value, v, v.dtype)


def _eye_like(x: Array, n: int) -> Array:
    return _const_like(x, np.eye(n))


def _slice(x: Array, *index: Any) -> Array:
    return getitem(x, index=normalize_index(tuple(index)))


def _diag_of(x: Array) -> Array:
    """The main diagonals of a stack of square matrices, (..., n, n) -> (..., n)."""
    return einsum(x, subscripts="...ii->...i", optimize=False)


def _column(v: Array) -> Array:
    return reshape(v, shape=(*shape_of(v), 1))


def _row(v: Array) -> Array:
    s = shape_of(v)
    return reshape(v, shape=(*s[:-1], 1, s[-1]))


def _diag_matrix(v: Array) -> Array:
    """Diagonal matrices from a stack of vectors, (..., n) -> (..., n, n)."""
    return multiply(_column(v), _eye_like(v, shape_of(v)[-1]))


def _inverse_gaps(d: Array) -> Array:
    """1 / d off the diagonal and 0 on it, for a stack of square matrices of gaps d.

    1 / (d + I) - I: the diagonal (where d is 0) never divides by zero, so
    the rules stay differentiable; a zero gap off the diagonal (a repeated
    eigen- or singular value) gives an infinite entry and non-finite
    gradients, as in PyTorch.
    """
    eye = _eye_like(d, shape_of(d)[-1])
    return 1.0 / (d + eye) - eye


def _mirror(x: Array, lower: bool) -> Array:
    """The Hermitian (symmetric) matrix that NumPy's eigh reads from one triangle of x.

    LAPACK reads the real part of the diagonal, and conjugates the triangle it
    reads into the other.
    """
    if not _is_complex(x):
        if lower:
            return tril(x, k=0) + _mT(tril(x, k=-1))
        return triu(x, k=0) + _mT(triu(x, k=1))
    part = tril(x, k=-1) if lower else triu(x, k=1)
    return part + conjugate(_mT(part)) + _real_diagonal(x)


def _onto_triangle(g: Array, lower: bool) -> Array:
    """The adjoint (transpose) of `_mirror`: a gradient in the Hermitian matrix, on the triangle read."""
    if not _is_complex(g):
        if lower:
            return tril(g, k=0) + tril(_mT(g), k=-1)
        return triu(g, k=0) + triu(_mT(g), k=1)
    h = conjugate(_mT(g))
    off = tril(g, k=-1) + tril(h, k=-1) if lower else triu(g, k=1) + triu(h, k=1)
    return off + _real_diagonal(g)


def _real_diagonal(x: Array) -> Array:
    """The real part of the diagonal of each matrix, as a diagonal matrix."""
    return multiply(_eye_like(x, shape_of(x)[-1]), real(x))


def _is_complex(x: Array) -> bool:
    return bool(np.dtype(value_of(x).dtype).kind == "c")


def _householder(g: Draw, n: int) -> Array:
    """A random n x n unitary (orthogonal) matrix I - 2 u u^H / |u|^2 (complex for a complex `g`)."""
    u = g.array((n,), 0.5, 1.5) * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return np.eye(n) - 2.0 * np.outer(u, np.conj(u)) / float(np.vdot(u, u).real)


def _spread(g: Draw, k: int, low: float = 1.0) -> Array:
    """k well-separated positive values (gaps near 1) in a random order."""
    base = np.arange(k, dtype=np.float64) + low + g.array((k,), -0.2, 0.2)
    return base[np.asarray(g.permutation(k), dtype=np.intp)]


def _batch(g: Draw) -> tuple[int, ...]:
    return g.shape(min_dims=0, max_dims=2, max_side=2) if g.boolean() else ()


# --- symmetric eigendecomposition ---------------------------------------------------


def _lower(uplo: str) -> bool:
    if uplo not in ("L", "U"):
        raise OpError(f"funcgrad.linalg.eigh: UPLO={uplo!r} must be 'L' or 'U'")
    return uplo == "L"


def _eigh_sample(g: Draw) -> Drawn:
    n = g.integers(1, 4)
    batch = _batch(g)
    h = _householder(g, n)
    sym = np.stack(
        [
            h @ np.diag(np.real(_spread(g, n, -1.0))) @ np.conj(h.T)
            for _ in range(int(np.prod(batch)))
        ]
    ).reshape((*batch, n, n))
    uplo = g.choice(["L", "U"])
    # the other triangle is not read: fill it with anything
    noise = g.array((*batch, n, n), -1.0, 1.0)
    x = np.tril(sym) + np.triu(noise, 1) if uplo == "L" else np.triu(sym) + np.tril(noise, -1)
    return (x,), {"UPLO": uplo}


def _eigvalsh_vjp(ct: Array, out: Array, x: Array, *, UPLO: str) -> Array:  # noqa: N803
    # dw = diag(V^H dH V): the transpose is conj(V) diag(ct) V^T, onto the triangle read
    v = eigh_vectors(x, UPLO=UPLO)
    return _onto_triangle(matmul(multiply(_conj(v), _row(ct)), _mT(v)), _lower(UPLO))


def _eigvalsh_jvp(x_t: Array, out: Array, x: Array, *, UPLO: str) -> Array:  # noqa: N803
    v = eigh_vectors(x, UPLO=UPLO)
    dw = sum_(_conj(v) * matmul(_mirror(x_t, _lower(UPLO)), v), axis=(-2,), keepdims=False)
    return real(dw) if _is_complex(dw) else dw


eigvalsh: Primitive = register(
    Primitive(
        name="eigvalsh",
        forward=lambda xp, x, *, UPLO: _in_float32_for_half(
            xp, lambda a: xp.linalg.eigvalsh(a, UPLO=UPLO), x
        ),
        vjp=(_eigvalsh_vjp,),
        jvp=(_eigvalsh_jvp,),
        params=("UPLO",),
        sample=Sample(_eigh_sample, complex=True),
        doc="eigenvalues (ascending) of the Hermitian (symmetric) matrix read from one triangle",
        names=Names(numpy="linalg.eigvalsh"),
    )
)


def _eigh_vectors_vjp(ct: Array, out: Array, x: Array, *, UPLO: str) -> Array:  # noqa: N803
    # the transposes of the JVP's maps, in reverse order (see _eigh_vectors_jvp)
    if _is_complex(out):
        mask, v0 = _real_row(out, _lower(UPLO))
        s = _row(sum_(multiply(ct, out), axis=(-2,), keepdims=False))
        ct = ct - multiply(mask, imag(s) / v0 * 1j)
    w = eigvalsh(x, UPLO=UPLO)
    f = _inverse_gaps(_row(w) - _column(w))  # 1 / (w_j - w_i)
    inner = multiply(f, matmul(_mT(out), ct))
    return _onto_triangle(matmul(_conj(out), matmul(inner, _mT(out))), _lower(UPLO))


def _eigh_vectors_jvp(x_t: Array, out: Array, x: Array, *, UPLO: str) -> Array:  # noqa: N803
    # dV = V (F o (V^H dH V)) (zero diagonal: norm kept, no phase turn); for complex V,
    # then the turn i v_j Im(dv_kj) / v_kj that keeps row k real (LAPACK's gauge, _real_row)
    w = eigvalsh(x, UPLO=UPLO)
    f = _inverse_gaps(_row(w) - _column(w))
    p = matmul(_conj(_mT(out)), matmul(_mirror(x_t, _lower(UPLO)), out))
    dv = matmul(out, multiply(f, p))
    if not _is_complex(out):
        return dv
    mask, v0 = _real_row(out, _lower(UPLO))
    turn = _row(sum_(multiply(imag(dv), mask), axis=(-2,), keepdims=False)) / v0
    return dv - multiply(out, turn * 1j)


def _real_row(v: Array, lower: bool) -> tuple[Array, Array]:
    """A 0/1 mask of the row LAPACK keeps real, and that row's entries as a row.

    NOTE: LAPACK's Hermitian eigenvectors have a real first entry (the last
    one with UPLO="U"), which fixes their phase up to sign; the derivative
    keeps that gauge.
    """
    n = shape_of(v)[-2]
    mask = np.zeros((n, 1))
    mask[0 if lower else -1] = 1.0
    mask = constant_like(mask, value_of(v))  # a constant in v's array module and device
    return mask, _row(sum_(multiply(real(v), mask), axis=(-2,), keepdims=False))


def _eigh_vectors_forward(xp: ModuleType, x: Array, *, UPLO: str) -> Array:  # noqa: N803
    if xp is not np:
        # NOTE: the eigenvectors' signs (phases) are LAPACK's (NumPy's eigh), and the
        # complex rules keep LAPACK's gauge (_real_row); cuSOLVER's syevd/syevj choose
        # others (a column of the opposite sign, any phase from syevj's batches). So they
        # are computed by NumPy on the host, as PyTorch does for linalg.eig on CUDA.
        return on_host(_eigh_vectors_forward, np, x, UPLO=UPLO)
    return _in_float32_for_half(xp, lambda a: xp.linalg.eigh(a, UPLO=UPLO)[1], x)


eigh_vectors: Primitive = register(
    Primitive(
        name="eigh_vectors",
        forward=_eigh_vectors_forward,
        vjp=(_eigh_vectors_vjp,),
        jvp=(_eigh_vectors_jvp,),
        params=("UPLO",),
        sample=Sample(_eigh_sample, complex=True),
        doc=(
            "eigenvectors (columns) of the Hermitian (symmetric) matrix read from one triangle; "
            "complex ones with a real first (UPLO='U': last) entry, as LAPACK gives them"
        ),
    )
)


# --- singular value decomposition ------------------------------------------------------


def _svd_sample(g: Draw, full: bool = True) -> Drawn:
    m, n = g.integers(1, 4), g.integers(1, 4)
    hermitian = g.boolean() and g.boolean()
    if hermitian:
        n = m
    k = min(m, n)
    batch = _batch(g)
    count = int(np.prod(batch))
    mats = []
    for _ in range(count):
        if hermitian:
            h = _householder(g, n)
            signs = np.where(g.array((n,), -1.0, 1.0) < 0, -1.0, 1.0)
            mats.append(h @ np.diag(np.real(_spread(g, n)) * signs) @ np.conj(h.T))
        else:
            sigma = np.zeros((m, n))
            sigma[np.arange(k), np.arange(k)] = np.real(_spread(g, k))
            mats.append(_householder(g, m) @ sigma @ _householder(g, n))
    x = np.stack(mats).reshape((*batch, m, n))
    if hermitian:  # the upper triangle is not read
        x = np.tril(x) + np.triu(g.array(x.shape, -1.0, 1.0), 1)
    params: dict[str, Any] = {"hermitian": hermitian}
    if full:  # beyond the reduced part the gradient is refused: square matrices only here
        params["full_matrices"] = (m == n) and g.boolean()
    return (x,), params


def _svd_parts(x: Array, hermitian: bool) -> tuple[Array, Array, Array, Array]:
    """(a, u, s, vh): the matrix the SVD is of (with `hermitian`, the one read from
    the lower triangle), and its reduced SVD, as nodes of x."""
    a = _mirror(x, True) if hermitian else x
    u = svd_u(x, full_matrices=False, hermitian=hermitian)
    vh = svd_vh(x, full_matrices=False, hermitian=hermitian)
    return a, u, svdvals(x, hermitian=hermitian), vh


def _svd_finish(g: Array, hermitian: bool) -> Array:
    return _onto_triangle(g, True) if hermitian else g


def _by_magnitude(x: Array) -> tuple[Array, Array]:
    """For a complex Hermitian x (its lower triangle): s = |w| in NumPy's order, w = eigvalsh(x).

    Returns the order (s = |w[..., order]|) and the signs of w in that order
    (constants, in the array module of x).
    """
    v = value_of(x)
    xp = xp_of(v)
    w = xp.linalg.eigvalsh(v, UPLO="L")
    order = xp.argsort(xp.abs(w), axis=-1)[..., ::-1]  # as numpy.linalg.svd(hermitian=True)
    return order, xp.sign(xp.take_along_axis(w, order, axis=-1))


def _permuted(x: Array, perm: Array) -> Array:
    """x[..., perm[..., i]] for each vector of a stack (perm a plain integer array of x's module)."""
    lead = perm.shape[:-1]
    grids = tuple(
        constant_like(np.arange(n), perm).reshape(
            tuple(n if j == i else 1 for j in range(len(lead))) + (1,)
        )
        for i, n in enumerate(lead)
    )
    return getitem(x, index=normalize_index((*grids, perm)))


def _singular_values(xp: ModuleType, hermitian: bool) -> Callable[[Array], Array]:
    """`numpy.linalg.svd(a, compute_uv=False, hermitian=hermitian)` in the array module `xp`.

    NOTE: CuPy's svd has no `hermitian`; for a Hermitian matrix NumPy takes the
    moduli of `eigvalsh` (lower triangle), sorted descending, and so does this.
    """
    if xp is np:
        return lambda a: np.linalg.svd(a, compute_uv=False, hermitian=hermitian)
    if not hermitian:
        return lambda a: xp.linalg.svd(a, compute_uv=False)
    return lambda a: xp.sort(xp.abs(xp.linalg.eigvalsh(a, UPLO="L")), axis=-1)[..., ::-1]


def _svdvals_vjp(ct: Array, out: Array, x: Array, *, hermitian: bool) -> Array:
    if hermitian and _is_complex(x):  # s = |w| (sorted): through eigvalsh's rule
        order, signs = _by_magnitude(x)
        ct_w = _permuted(ct * _const_like(ct, signs), xp_of(order).argsort(order, axis=-1))
        return _eigvalsh_vjp(ct_w, None, x, UPLO="L")
    # dS = Re diag(U^H dA V): the transpose is conj(U) diag(ct) V^T = conj(U diag(ct) Vh)
    _, u, _, vh = _svd_parts(x, hermitian)
    return _svd_finish(_conj(matmul(multiply(u, _row(ct)), vh)), hermitian)


def _svdvals_jvp(x_t: Array, out: Array, x: Array, *, hermitian: bool) -> Array:
    if hermitian and _is_complex(x):
        order, signs = _by_magnitude(x)
        dw = _eigvalsh_jvp(x_t, None, x, UPLO="L")
        return _permuted(dw, order) * _const_like(dw, signs)
    _, u, _, vh = _svd_parts(x, hermitian)
    dx = _mirror(x_t, True) if hermitian else x_t
    ds = _diag_of(matmul(_conj(_mT(u)), matmul(dx, _conj(_mT(vh)))))
    return real(ds) if _is_complex(ds) else ds


svdvals: Primitive = register(
    Primitive(
        name="svdvals",
        forward=lambda xp, x, *, hermitian: _svd_of(xp, _singular_values(xp, hermitian), x),
        vjp=(_svdvals_vjp,),
        jvp=(_svdvals_jvp,),
        params=("hermitian",),
        sample=Sample(lambda g: _svd_sample(g, full=False), complex=True),
        doc="singular values (descending) of each matrix in a stack",
        names=Names(numpy="linalg.svdvals"),
    )
)


def _square_gaps(s: Array) -> Array:
    """F with F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it."""
    s2 = s * s
    return _inverse_gaps(_row(s2) - _column(s2))


def _refuse_full(op: str, x: Array, ct: Array, axis: int) -> Array:
    """The reduced part of a full U's or Vh's (co)tangent; refuse a nonzero rest."""
    shape = shape_of(x)
    k = min(shape[-2], shape[-1])
    rest = (
        _slice(ct, Ellipsis, slice(k, None))
        if axis == -1
        else _slice(ct, Ellipsis, slice(k, None), slice(None))
    )
    if bool((value_of(rest) != 0).any()):
        raise NotDifferentiableError(
            f"funcgrad.linalg.svd: the gradient of {op} with full_matrices=True is not defined "
            f"beyond its first min(m, n) = {k} {'columns' if axis == -1 else 'rows'} (input "
            f"{describe(x)}): those complete an orthonormal basis arbitrarily. Use "
            f"full_matrices=False, or let only the first {k} reach the result"
        )
    return (
        _slice(ct, Ellipsis, slice(None, k))
        if axis == -1
        else _slice(ct, Ellipsis, slice(None, k), slice(None))
    )


def _full_tangent(op: str, x: Array, reduced: Array, axis: int) -> Array:
    shape = shape_of(x)
    k, side = min(shape[-2], shape[-1]), shape[-2] if axis == -1 else shape[-1]
    if side > k:
        raise NotDifferentiableError(
            f"funcgrad.linalg.svd: forward-mode derivative of {op} with full_matrices=True is "
            f"not defined for {describe(x)}: its last {side - k} "
            f"{'columns' if axis == -1 else 'rows'} complete an orthonormal basis "
            f"arbitrarily. Use full_matrices=False"
        )
    return reduced


# Complex SVD. The singular vectors of a complex matrix are fixed up to a phase
# per pair (u_j e^it, v_j e^it); `_svd_gauge` turns each pair so that the entry
# of largest modulus of v_j (a column of V = Vh^H) is real and positive, which
# makes U and Vh functions of the matrix with a derivative. With P = U^H dA V:
#   dU0 = U (F o (P S + S P^H)) + (I - U U^H) dA V S^-1 + U diag(i Im P_jj / s_j)
#   dV0 = V (F o (S P + P^H S)) + (I - V V^H) dA^H U S^-1
# (V^H dV0 has a zero diagonal), then the turn i t_j of both u_j and v_j that keeps
# v_kj real: t_j = -Im(dV0_kj) / v_kj. The VJP transposes these maps in reverse.


def _largest_entry_phase(xp: ModuleType, v: Array, axis: int) -> Array:
    """conj(p) / |p| for p each vector's entry of largest modulus along `axis` (kept, size 1).

    Multiplying the vectors by it makes that entry real and positive: the gauge
    of the eigenvectors (`eig`) and of the complex singular vectors (`svd`).
    """
    k = xp.expand_dims(xp.argmax(xp.abs(v), axis=axis), axis)
    top = xp.take_along_axis(v, k, axis=axis)
    return xp.conj(top) / xp.abs(top)


def _svd_gauge(xp: ModuleType, u: Array, vh: Array) -> tuple[Array, Array]:
    """`(u, vh)` with each singular pair turned so that v_j's largest entry is real and positive."""
    k = min(u.shape[-1], vh.shape[-2])
    rows = vh[..., :k, :]
    phase = _largest_entry_phase(xp, rows, -1)  # (..., k, 1)
    vh = xp.concatenate([rows * phase, vh[..., k:, :]], axis=-2)
    u = xp.concatenate([u[..., :k] * xp.conj(xp.swapaxes(phase, -1, -2)), u[..., k:]], axis=-1)
    return u, vh


def _svd_forward(which: int) -> Callable[..., Array]:
    def forward(xp: ModuleType, x: Array, *, full_matrices: bool, hermitian: bool) -> Array:
        square = x.shape[-1] == x.shape[-2]
        if xp is not np and (hermitian or x.dtype.kind != "c" or (full_matrices and not square)):
            # NOTE: real singular vectors have no gauge of funcgrad's own: their signs are
            # LAPACK's (gesdd; numpy.linalg.svd), which CuPy's cuSOLVER (gesvd, gesvdj) does
            # not reproduce, and CuPy's svd has no `hermitian` (NumPy's is eigh-based, with
            # LAPACK's signs too); nor does it the columns a full U or Vh adds, which no
            # gauge fixes. These are computed by NumPy on the host (on_host).
            return on_host(forward, np, x, full_matrices=full_matrices, hermitian=hermitian)

        def f(a: Array) -> Array:
            if xp is np:
                u, _, vh = np.linalg.svd(a, full_matrices=full_matrices, hermitian=hermitian)
            else:  # a complex matrix on the GPU: the gauge below fixes the phases
                u, _, vh = xp.linalg.svd(a, full_matrices=full_matrices)
            if a.dtype.kind == "c":
                u, vh = _svd_gauge(xp, u, vh)
            return u if which == 0 else vh

        return _svd_of(xp, f, x)

    return forward


def _largest_entries(v: Array) -> tuple[Array, Array]:
    """A 0/1 mask of each column's entry of largest modulus, and those (real) entries as a row.

    The mask is a constant in `v`'s array module, in float64 as it always was.
    """
    a = value_of(v)
    xp = xp_of(a)
    a = xp.abs(a)
    rows = constant_like(np.arange(a.shape[-2]), a).reshape(-1, 1)
    mask = (rows == xp.expand_dims(xp.argmax(a, axis=-2), -2)).astype(np.float64)
    return mask, _row(sum_(multiply(real(v), mask), axis=(-2,), keepdims=False))


def _svd_complex_jvp(x_t: Array, x: Array, hermitian: bool) -> tuple[Array, Array]:
    """(dU, dVh) of the reduced, gauged SVD of a complex matrix."""
    _, u, s, vh = _svd_parts(x, hermitian)
    if hermitian:  # the SVD of the matrix read from the lower triangle; the same gauge
        x_t = _mirror(x_t, True)
    v = _conj(_mT(vh))
    m, n = shape_of(x)[-2:]
    k = min(m, n)
    f = _square_gaps(s)
    sr, sc = _row(s), _column(s)
    dav = matmul(x_t, v)
    p = matmul(_conj(_mT(u)), dav)  # U^H dA V
    ph = _conj(_mT(p))
    du = matmul(u, multiply(f, multiply(p, sr) + multiply(sc, ph)))
    du = du + multiply(u, _row(imag(_diag_of(p)) / s) * 1j)
    if m > k:
        du = du + (dav - matmul(u, p)) / sr
    dv = matmul(v, multiply(f, multiply(sc, p) + multiply(ph, sr)))
    if n > k:
        dv = dv + (matmul(_conj(_mT(x_t)), u) - matmul(v, ph)) / sr
    mask, vk = _largest_entries(v)
    turn = _row(sum_(multiply(imag(dv), mask), axis=(-2,), keepdims=False)) / vk * -1j
    return du + multiply(u, turn), _conj(_mT(dv + multiply(v, turn)))


def _svd_complex_vjp(x: Array, cu: Array | None, cvh: Array | None, hermitian: bool) -> Array:
    """A_bar of the reduced, gauged SVD of a complex matrix, from U's and Vh's cotangents."""
    _, u, s, vh = _svd_parts(x, hermitian)
    v = _conj(_mT(vh))
    m, n = shape_of(x)[-2:]
    k = min(m, n)
    f = _square_gaps(s)
    sr, sc = _row(s), _column(s)
    zero = _const_like(x, np.zeros((), dtype=np.result_type(value_of(x))))
    cu = zero + _const_like(x, np.zeros(shape_of(u))) if cu is None else cu
    cv = zero + _const_like(x, np.zeros(shape_of(v))) if cvh is None else _conj(_mT(cvh))
    # the turn that keeps v_kj real
    mask, vk = _largest_entries(v)
    su = sum_(multiply(cu, u), axis=(-2,), keepdims=False)
    sv = sum_(multiply(cv, v), axis=(-2,), keepdims=False)
    cv = cv + multiply(mask, _row(imag(su + sv)) / vk * -1j)
    # U's terms
    gz = multiply(f, matmul(_mT(u), cu))
    gp = multiply(gz, sr) + multiply(_conj(_mT(gz)), sr)
    gp = gp + _diag_matrix(imag(su) / s * 1j)
    ga = None
    if m > k:
        ga = matmul(cu / sr, _mT(v))
        gp = gp - matmul(_mT(u), cu) / sr
    # V's terms
    gw = multiply(f, matmul(_mT(v), cv))
    gp = gp + multiply(sc, gw) + multiply(sc, _conj(_mT(gw)))
    if n > k:
        extra = matmul(_conj(u) / sr, _conj(_mT(cv)))
        ga = extra if ga is None else ga + extra
        gp = gp - matmul(_conj(_mT(cv)) / sc, _conj(v))
    g = matmul(_conj(u), matmul(gp, _mT(v)))  # P = U^H dA V
    return _svd_finish(g if ga is None else g + ga, hermitian)


def _svd_u_vjp(ct: Array, out: Array, x: Array, *, full_matrices: bool, hermitian: bool) -> Array:
    if full_matrices:
        ct = _refuse_full("U", x, ct, -1)
    if _is_complex(x):
        return _svd_complex_vjp(x, ct, None, hermitian)
    a, u, s, vh = _svd_parts(x, hermitian)
    f = _square_gaps(s)
    uu = matmul(_mT(u), ct)
    j = multiply(f, uu - _mT(uu))
    g = matmul(u, matmul(multiply(j, _row(s)), vh))
    m, n = shape_of(a)[-2:]
    if m > n:  # (I - U U^T) U_bar S^-1 V^T
        rest = ct - matmul(u, uu)
        g = g + matmul(rest / _row(s), vh)
    return _svd_finish(g, hermitian)


def _svd_u_jvp(x_t: Array, out: Array, x: Array, *, full_matrices: bool, hermitian: bool) -> Array:
    if _is_complex(x):
        du = _svd_complex_jvp(x_t, x, hermitian)[0]
        return _full_tangent("U", x, du, -1) if full_matrices else du
    a, u, s, vh = _svd_parts(x, hermitian)
    dx = _mirror(x_t, True) if hermitian else x_t
    f = _square_gaps(s)
    dxv = matmul(dx, _mT(vh))
    p = matmul(_mT(u), dxv)  # U^T dA V
    ps = multiply(p, _row(s))
    du = matmul(u, multiply(f, ps + _mT(ps)))
    m, n = shape_of(a)[-2:]
    if m > n:
        du = du + (dxv - matmul(u, p)) / _row(s)
    return _full_tangent("U", x, du, -1) if full_matrices else du


svd_u: Primitive = register(
    Primitive(
        name="svd_u",
        forward=_svd_forward(0),
        vjp=(_svd_u_vjp,),
        jvp=(_svd_u_jvp,),
        params=("full_matrices", "hermitian"),
        sample=Sample(_svd_sample, complex=True),
        doc="the left singular vectors U of x = U diag(S) Vh",
    )
)


def _svd_vh_vjp(ct: Array, out: Array, x: Array, *, full_matrices: bool, hermitian: bool) -> Array:
    if full_matrices:
        ct = _refuse_full("Vh", x, ct, -2)
    if _is_complex(x):
        return _svd_complex_vjp(x, None, ct, hermitian)
    a, u, s, vh = _svd_parts(x, hermitian)
    f = _square_gaps(s)
    v, v_bar = _mT(vh), _mT(ct)
    vv = matmul(vh, v_bar)
    k = multiply(f, vv - _mT(vv))
    g = matmul(u, matmul(multiply(_column(s), k), vh))
    m, n = shape_of(a)[-2:]
    if n > m:  # U S^-1 V_bar^T (I - V V^T)
        rest = v_bar - matmul(v, vv)
        g = g + matmul(u, _mT(rest) / _column(s))
    return _svd_finish(g, hermitian)


def _svd_vh_jvp(x_t: Array, out: Array, x: Array, *, full_matrices: bool, hermitian: bool) -> Array:
    if _is_complex(x):
        dvh = _svd_complex_jvp(x_t, x, hermitian)[1]
        return _full_tangent("Vh", x, dvh, -2) if full_matrices else dvh
    a, u, s, vh = _svd_parts(x, hermitian)
    dx = _mirror(x_t, True) if hermitian else x_t
    f = _square_gaps(s)
    v = _mT(vh)
    dxtu = matmul(_mT(dx), u)
    p = _mT(matmul(_mT(v), dxtu))  # U^T dA V
    sp = multiply(_column(s), p)
    dv = matmul(v, multiply(f, sp + _mT(sp)))
    m, n = shape_of(a)[-2:]
    if n > m:
        dv = dv + (dxtu - matmul(v, matmul(vh, dxtu))) / _row(s)
    dvh = _mT(dv)
    return _full_tangent("Vh", x, dvh, -2) if full_matrices else dvh


svd_vh: Primitive = register(
    Primitive(
        name="svd_vh",
        forward=_svd_forward(2),
        vjp=(_svd_vh_vjp,),
        jvp=(_svd_vh_jvp,),
        params=("full_matrices", "hermitian"),
        sample=Sample(_svd_sample, complex=True),
        doc="the right singular vectors Vh (rows) of x = U diag(S) Vh",
    )
)


# --- QR ---------------------------------------------------------------------------------


def _qr_sample(g: Draw) -> Drawn:
    m, n = g.integers(1, 4), g.integers(1, 4)
    batch = _batch(g)
    x = g.array((*batch, m, n), -0.5, 0.5) + 2.0 * np.eye(m, n)
    complete = m <= n and g.boolean()  # complete with m > n has no gradient
    return (x,), {"complete": complete}


def _qr_mode(complete: bool) -> str:
    return "complete" if complete else "reduced"


def _refuse_tall_complete(x: Array, complete: bool) -> None:
    m, n = shape_of(x)[-2:]
    if complete and m > n:
        # PyTorch's words: "The QR decomposition is not differentiable when
        # mode='complete' and nrows > ncols."
        raise NotDifferentiableError(
            f"funcgrad.linalg.qr: the QR decomposition is not differentiable when "
            f"mode='complete' and nrows > ncols (input {describe(x)}, {m} > {n}): the last "
            f"{m - n} columns of Q complete an orthonormal basis arbitrarily. Use "
            f"mode='reduced'"
        )


def _copyltu(m: Array) -> Array:
    """The symmetric matrix with the lower triangle of m (copied to the upper one)."""
    return tril(m, k=0) + _mT(tril(m, k=-1))


def _qr_square_vjp(q: Array, r: Array, q_bar: Array | None, r_bar: Array | None) -> Array:
    """A_bar for A = Q R with R square (m >= n): (Q_bar + conj(Q) copyltu(M)) R^-T, M = R R_bar^T - Q_bar^T Q.

    For complex Q, `copyltu` copies the conjugate of M's strict lower
    triangle up and keeps the real part of its diagonal: the transpose of
    the JVP's anti-Hermitian `Omega` (R's diagonal is real, as LAPACK gives it).
    """
    if r_bar is None:
        m = -matmul(_mT(q_bar), q)
    elif q_bar is None:
        m = matmul(r, _mT(r_bar))
    else:
        m = matmul(r, _mT(r_bar)) - matmul(_mT(q_bar), q)
    if _is_complex(m):
        m = _mT(tril(m, k=-1)) + tril(conjugate(m), k=-1) + _real_diagonal(m)
    else:
        m = _copyltu(m)
    b = matmul(_conj(q), m)
    if q_bar is not None:
        b = b + q_bar
    return _mT(solve(r, _mT(b)))  # B R^-T


def _qr_vjp(x: Array, complete: bool, q_bar: Array | None, r_bar: Array | None) -> Array:
    _refuse_tall_complete(x, complete)
    q, r = qr_q(x, complete=complete), qr_r(x, complete=complete)
    m, n = shape_of(x)[-2:]
    if m >= n:
        return _qr_square_vjp(q, r, q_bar, r_bar)
    # A = [X | Y] with X square: X = Q U, Y = Q V
    y = _slice(x, Ellipsis, slice(m, None))
    u = _slice(r, Ellipsis, slice(None, m))
    u_bar = v_bar = None
    if r_bar is not None:
        u_bar = _slice(r_bar, Ellipsis, slice(None, m))
        v_bar = _slice(r_bar, Ellipsis, slice(m, None))
        extra = _conj(matmul(y, _mT(v_bar)))  # V = Q^H Y
        q_bar = extra if q_bar is None else q_bar + extra
    x_bar = _qr_square_vjp(q, u, q_bar, u_bar)
    if v_bar is None:
        y_bar = _const_like(x, np.zeros(shape_of(y), dtype=np.result_type(value_of(x))))
    else:
        y_bar = matmul(_conj(q), v_bar)
    return concatenate(x_bar, y_bar, axis=-1)


def _qr_square_jvp(q: Array, r: Array, dx: Array) -> tuple[Array, Array]:
    """(dQ, dR) for A = Q R with R square: C = Q^H dA R^-1, dR = (C - Omega) R, dQ = dA R^-1 - Q (C - Omega).

    `Omega = Q^H dQ` is anti-Hermitian: its strict lower triangle is C's, and
    for complex Q its diagonal is `i Im(diag C)` (R's diagonal stays real).
    """
    dx_rinv = _mT(solve(_mT(r), _mT(dx)))  # dA R^-1
    c = matmul(_conj(_mT(q)), dx_rinv)
    low = tril(c, k=-1)
    omega = low - _conj(_mT(low))
    if _is_complex(c):
        omega = omega + multiply(_eye_like(c, shape_of(c)[-1]), imag(c)) * 1j
    c_up = c - omega  # C - Omega: upper triangular
    return dx_rinv - matmul(q, c_up), matmul(c_up, r)


def _qr_jvp(x_t: Array, x: Array, complete: bool, which: int) -> Array:
    _refuse_tall_complete(x, complete)
    q, r = qr_q(x, complete=complete), qr_r(x, complete=complete)
    m, n = shape_of(x)[-2:]
    if m >= n:
        return _qr_square_jvp(q, r, x_t)[which]
    y = _slice(x, Ellipsis, slice(m, None))
    dq, du = _qr_square_jvp(
        q, _slice(r, Ellipsis, slice(None, m)), _slice(x_t, Ellipsis, slice(None, m))
    )
    if which == 0:
        return dq
    dv = matmul(_conj(_mT(dq)), y) + matmul(_conj(_mT(q)), _slice(x_t, Ellipsis, slice(m, None)))
    return concatenate(du, dv, axis=-1)


qr_q: Primitive = register(
    Primitive(
        name="qr_q",
        forward=lambda xp, x, *, complete: _in_float32_for_half(
            xp, lambda a: xp.linalg.qr(a, mode=_qr_mode(complete))[0], x
        ),
        vjp=(lambda ct, out, x, *, complete: _qr_vjp(x, complete, ct, None),),
        jvp=(lambda x_t, out, x, *, complete: _qr_jvp(x_t, x, complete, 0),),
        params=("complete",),
        sample=Sample(_qr_sample, complex=True),
        doc="Q of the QR decomposition (orthonormal columns)",
    )
)

qr_r: Primitive = register(
    Primitive(
        name="qr_r",
        forward=lambda xp, x, *, complete: _in_float32_for_half(
            xp, lambda a: xp.linalg.qr(a, mode=_qr_mode(complete))[1], x
        ),
        vjp=(lambda ct, out, x, *, complete: _qr_vjp(x, complete, None, ct),),
        jvp=(lambda x_t, out, x, *, complete: _qr_jvp(x_t, x, complete, 1),),
        params=("complete",),
        sample=Sample(_qr_sample, complex=True),
        doc="R of the QR decomposition (upper triangular, with a real diagonal)",
    )
)


# --- pseudo-inverse ------------------------------------------------------------------------


def _pinv_sample(g: Draw) -> Drawn:
    (x,), params = _svd_sample(g, full=False)
    return (x,), {**params, "rcond": None}


def _pinv_hermitian(xp: ModuleType, a: Array, rcond: float) -> Array:
    """NumPy's `pinv(a, rcond, hermitian=True)`, step by step in `xp` (CuPy's pinv has no `hermitian`).

    NumPy (numpy/linalg/_linalg.py): `svd(conj(a), hermitian=True)` is `eigh(conj(a))`
    with the eigenvalues' signs moved into `vt` and `|w|` sorted descending; entries
    at most `rcond * max|w|` (a float64 cutoff: NumPy's rcond is a 0-d float64 array)
    are dropped, and the result is `transpose(vt) @ (1/|w| * transpose(u))`.
    """
    if a.size == 0:
        return constant_like(np.empty(a.shape, a.dtype), a)
    w, u = xp.linalg.eigh(a.conj())
    sign = xp.copysign(1.0, w).astype(w.dtype)
    s = xp.abs(w)
    order = xp.argsort(s, axis=-1)[..., ::-1]
    sign = xp.take_along_axis(sign, order, axis=-1)
    s = xp.take_along_axis(s, order, axis=-1)
    u = xp.take_along_axis(u, order[..., None, :], axis=-1)
    cutoff = xp.max(s, axis=-1, keepdims=True).astype(np.float64) * rcond
    large = s > cutoff
    inverse = (1.0 / xp.where(large, s, s.dtype.type(1))) * large
    vt_t = (u * sign[..., None, :]).conj()  # transpose(vt), vt = (u * sign)^H
    return xp.matmul(vt_t, inverse[..., None] * xp.swapaxes(u, -1, -2))


def _pinv_forward(xp: ModuleType, x: Array, *, rcond: float | None, hermitian: bool) -> Array:
    if xp is not np:
        # CuPy's pinv is NumPy's formula (svd of conj(a), cutoff rcond * max(s)), with
        # rcond=1e-15 as its default; NumPy's rcond=None means that default too.
        # NOTE: rcond is a float (funcgrad.linalg.pinv and lstsq convert it).
        cut = 1e-15 if rcond is None else rcond
        if hermitian:  # CuPy's pinv has no `hermitian`: NumPy's eigh-based formula
            return _svd_of(xp, lambda a: _pinv_hermitian(xp, a, cut), x)
        return _svd_of(xp, lambda a: xp.linalg.pinv(a, rcond=cut), x)

    def f(a: Array) -> Array:
        if rcond is None:
            return xp.linalg.pinv(a, hermitian=hermitian)
        return xp.linalg.pinv(a, rcond=rcond, hermitian=hermitian)

    return _svd_of(xp, f, x)


def _pinv_vjp(ct: Array, out: Array, x: Array, *, rcond: Any, hermitian: bool) -> Array:
    # Golub & Pereyra (1973), where the rank does not change:
    # dA+ = -A+ dA A+ + A+ A+^H dA^H (I - A A+) + (I - A+ A) dA^H A+^H A+;
    # transposed (the functional API's convention), the dA^H terms give conjugates
    a = _mirror(x, True) if hermitian else x
    m, n = shape_of(a)[-2:]
    p, pt = out, _mT(out)
    left = _eye_like(x, m) - matmul(a, p)  # I - A A+   (m x m)
    right = _eye_like(x, n) - matmul(p, a)  # I - A+ A  (n x n)
    ctt = _conj(_mT(ct))
    g = -matmul(pt, matmul(ct, pt))
    g = g + matmul(_conj(left), matmul(ctt, matmul(_conj(p), pt)))
    g = g + matmul(pt, matmul(_conj(p), matmul(ctt, _conj(right))))
    return _svd_finish(g, hermitian)


def _pinv_jvp(x_t: Array, out: Array, x: Array, *, rcond: Any, hermitian: bool) -> Array:
    a = _mirror(x, True) if hermitian else x
    dx = _mirror(x_t, True) if hermitian else x_t
    m, n = shape_of(a)[-2:]
    p, ph, dxh = out, _conj(_mT(out)), _conj(_mT(dx))
    left = _eye_like(x, m) - matmul(a, p)
    right = _eye_like(x, n) - matmul(p, a)
    d = -matmul(p, matmul(dx, p))
    d = d + matmul(p, matmul(ph, matmul(dxh, left)))
    return d + matmul(right, matmul(dxh, matmul(ph, p)))


pinv: Primitive = register(
    Primitive(
        name="pinv",
        forward=_pinv_forward,
        vjp=(_pinv_vjp,),
        jvp=(_pinv_jvp,),
        params=("rcond", "hermitian"),
        sample=Sample(_pinv_sample, complex=True),
        doc="Moore-Penrose pseudo-inverse (gradient where the rank does not change)",
        names=Names(numpy="linalg.pinv"),
    )
)


# --- matrix functions (SciPy's expm, sqrtm, logm) -------------------------------------------

_SCIPY_EXTRA = "pip install funcgrad[scipy]"


def _scipy_linalg(op: str) -> Any:
    try:
        import scipy.linalg as sl
    except ImportError as e:  # pragma: no cover - exercised without SciPy
        raise ImportError(f"funcgrad.scipy.linalg.{op} needs SciPy: {_SCIPY_EXTRA}") from e
    return sl


def _logm(sl: Any, x: Array) -> Array | None:
    """The principal logarithm by inverse scaling and squaring (Higham, "Functions of Matrices" 11.5).

    Square roots (SciPy's sqrtm, Schur-based) until ||X - I||_1 <= 1/4, then
    log X = 2 atanh((X - I)(X + I)^-1) by its series, times 2^k. It agrees
    with SciPy's logm to about 1e-13 and is some 40 times faster on small
    matrices (the block matrices of the gradient included), which the
    tests' many calls need. A complex square root falls back to SciPy's logm.
    """
    eye = np.eye(x.shape[-1], dtype=x.dtype)
    k = 0
    while np.abs(x - eye).sum(axis=0).max(initial=0.0) > 0.25 and k < 60:
        x = np.asarray(sl.sqrtm(x))
        if x.dtype.kind == "c":
            return None
        k += 1
    z = np.linalg.solve((x + eye).T, (x - eye).T).T  # (X - I)(X + I)^-1: they commute
    z2, term, out, j = z @ z, z, z.copy(), 1
    eps = np.finfo(x.dtype).eps
    while j < 199:
        term, j = term @ z2, j + 2
        out = out + term / j
        if np.abs(term).max(initial=0.0) / j <= eps * np.abs(out).max(initial=1e-300):
            break
    return (2.0 ** (k + 1)) * out


def _matrix_function_forward(op: str) -> Callable[..., Array]:
    def forward(xp: ModuleType, x: Array) -> Array:
        if xp is not np:  # SciPy's, on the host: CuPy has no such matrix function
            return on_host(forward, np, x)
        sl = _scipy_linalg(op)
        fn = getattr(sl, op)
        dtype = np.result_type(x)
        if dtype.kind == "c":  # SciPy's complex functions (principal branches)
            return np.asarray(_scipy_batched_call(fn, x)).astype(dtype, copy=False)
        if not bool(np.isfinite(x).all()):  # SciPy's sqrtm/logm iterate forever on inf/NaN
            raise np.linalg.LinAlgError(
                "the matrix has non-finite entries (inf or NaN), on which SciPy's matrix "
                "functions do not converge; replace them first"
            )
        work = np.float32 if dtype == np.float16 else dtype
        x = np.asarray(x, dtype=work)
        out = np.empty(x.shape, dtype=np.result_type(work, np.float32))
        for i in np.ndindex(*x.shape[:-2]):
            r = _logm(sl, x[i]) if op == "logm" else None
            if r is None:
                r = np.asarray(fn(x[i]))
            if r.dtype.kind == "c":
                if np.abs(r.imag).max(initial=0.0) > 1e3 * np.finfo(work).eps * max(
                    1.0, np.abs(r.real).max(initial=0.0)
                ):
                    raise OpError(
                        f"funcgrad.scipy.linalg.{op}: the result for the real matrix "
                        f"{describe(x[i])} is complex (an eigenvalue on the closed negative "
                        f"real axis); funcgrad.scipy.linalg.{op} gives real results only"
                    )
                r = r.real
            out[i] = r
        return out.astype(dtype, copy=False)

    return forward


def _scipy_batched_call(fn: Callable[..., Any], x: Array) -> Array:
    out = [np.asarray(fn(x[i])) for i in np.ndindex(*x.shape[:-2])]
    return np.stack(out).reshape(x.shape[:-2] + out[0].shape) if out else np.empty(x.shape, x.dtype)


def _block(a: Array, e: Array) -> Array:
    """[[a, e], [0, a]] for stacks of n x n matrices."""
    zeros = _const_like(a, np.zeros(shape_of(a)))
    return concatenate(concatenate(a, e, axis=-1), concatenate(zeros, a, axis=-1), axis=-2)


def _frechet(f: Primitive, a: Array, e: Array) -> Array:
    """The Frechet derivative L_f(a, e): the upper right block of f([[a, e], [0, a]])."""
    n = shape_of(a)[-1]
    e = broadcast_to(e, shape=shape_of(a)) if shape_of(e) != shape_of(a) else e
    return _slice(f(_block(a, e)), Ellipsis, slice(None, n), slice(n, None))


def _matrix_function(name: str, doc: str, sample: Sample) -> Primitive:
    # NOTE: for a function given by a power series, the transpose of L_f(A) is
    # L_f(A^T): the VJP is the Frechet derivative at A^T applied to the cotangent
    # (Higham, "Functions of Matrices", 3.2; the transpose, not the adjoint, in the
    # functional API's convention, so complex matrices too), both by the block method.
    prim: Primitive = register(
        Primitive(
            name=name,
            forward=_matrix_function_forward(name),
            vjp=(lambda ct, out, x: _frechet(prim, _mT(x), ct),),
            jvp=(lambda x_t, out, x: _frechet(prim, x, x_t),),
            sample=sample,
            doc=doc,
        )
    )
    return prim


def _expm_sample(g: Draw) -> Drawn:
    n = g.integers(1, 3)
    return (g.array((*_batch(g), n, n), -1.0, 1.0),), {}


def _positive_sample(g: Draw) -> Drawn:
    """Matrices with eigenvalues near the positive reals, away from 0 (sqrtm, logm)."""
    n = g.integers(1, 3)
    return (g.array((*_batch(g), n, n), -0.3, 0.3) + _scaled_identity(n, 1.5),), {}


expm = _matrix_function(
    "expm",
    "matrix exponential (SciPy's expm; Frechet derivative by the block method)",
    Sample(_expm_sample, tol=1e-5, complex=True),
)
sqrtm = _matrix_function(
    "sqrtm",
    "principal matrix square root (SciPy's sqrtm; real results for real matrices)",
    Sample(_positive_sample, tol=1e-5, complex=True),
)
logm = _matrix_function(
    "logm",
    "principal matrix logarithm (SciPy's logm; real results for real matrices)",
    Sample(_positive_sample, tol=1e-5, complex=True),
)


# --- Sylvester equations ------------------------------------------------------------------


def _sylvester_forward(xp: ModuleType, a: Array, b: Array, q: Array) -> Array:
    if xp is not np:  # SciPy's, on the host: CuPy has no Sylvester solver
        return on_host(_sylvester_forward, np, a, b, q)
    fn = _scipy_linalg("solve_sylvester").solve_sylvester
    dtype = np.result_type(a, b, q)
    work = np.float32 if dtype == np.float16 else dtype
    batch = np.broadcast_shapes(np.shape(a)[:-2], np.shape(b)[:-2], np.shape(q)[:-2])
    m, n = np.shape(a)[-1], np.shape(b)[-1]
    a = np.broadcast_to(np.asarray(a, dtype=work), (*batch, m, m))
    b = np.broadcast_to(np.asarray(b, dtype=work), (*batch, n, n))
    q = np.broadcast_to(np.asarray(q, dtype=work), (*batch, m, n))
    out = np.empty((*batch, m, n), dtype=np.result_type(work, np.float32))
    for i in np.ndindex(*batch):
        out[i] = fn(a[i], b[i], q[i])
    return out.astype(dtype, copy=False)


def _sylvester_sample(g: Draw) -> Drawn:
    m, n = g.integers(1, 3), g.integers(1, 3)
    ba, bb, bq = g.broadcast_shapes(3, min_dims=0, max_dims=1)
    a = _well_conditioned(g, (*ba, m, m))
    b = _well_conditioned(g, (*bb, n, n))  # spectra of a and -b far apart
    return (a, b, g.array((*bq, m, n), -1.0, 1.0)), {}


def _sylvester_vjp(ct: Array, out: Array, a: Array, b: Array, q: Array) -> tuple[Array, ...]:
    # X is holomorphic in a, b, q: plain transposes, complex matrices too
    q_bar = solve_sylvester(_mT(a), _mT(b), ct)
    return -matmul(q_bar, _mT(out)), -matmul(_mT(out), q_bar), q_bar


def _sylvester_jvp(
    tangents: Sequence[Array | None], out: Array, a: Array, b: Array, q: Array
) -> Array | None:
    a_t, b_t, q_t = tangents
    rhs = None
    for term in (
        q_t,
        None if a_t is None else -matmul(a_t, out),
        None if b_t is None else -matmul(out, b_t),
    ):
        if term is not None:
            rhs = term if rhs is None else rhs + term
    return None if rhs is None else solve_sylvester(a, b, rhs)


solve_sylvester: Primitive = register(
    Primitive(
        name="solve_sylvester",
        forward=_sylvester_forward,
        vjp=_sylvester_vjp,
        jvp=_sylvester_jvp,
        sample=Sample(_sylvester_sample, complex=True),
        doc="X with a @ X + X @ b = q (SciPy's solve_sylvester; complex too)",
    )
)


# --- composites: dot -----------------------------------------------------------------


def _ndim(x: Array) -> int:
    """The number of axes of a node, an array, a number or a nested list."""
    return len(shape_of(x)) if hasattr(x, "shape") else as_value(x).ndim


def dot(a: Array, b: Array) -> Array:
    """Return NumPy's `dot(a, b)`, built from `multiply`, `matmul` or `einsum`.

    A 0-D operand multiplies; when `b` is 1-D or 2-D, or `a` is 1-D, this is
    `matmul`; otherwise the last axis of `a` is contracted with the
    second-to-last of `b`, and the result has `a`'s other axes, then `b`'s.
    """
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        return multiply(a, b)
    if nb <= 2 or na == 1:
        return matmul(a, b)
    if na + nb > len(_LETTERS):
        raise OpError(f"funcgrad.dot: operands with {na} and {nb} axes need too many labels")
    la, lb = _LETTERS[:na], _LETTERS[na : na + nb]
    lb = lb[:-2] + la[-1] + lb[-1]
    return einsum(a, b, subscripts=f"{la},{lb}->{la[:-1]}{lb[:-2]}{lb[-1]}", optimize=True)


attach(
    {
        "__matmul__": lambda self, other: matmul(self, other),
        "__rmatmul__": lambda self, other: matmul(other, self),
        "dot": dot,
    }
)


# --- polynomial roots ------------------------------------------------------------------------


def _powers(r: Array, n: int) -> Array:
    """[r^n, r^(n-1), ..., r, 1] as the columns of a (len(r), n + 1) matrix, by products (exact at 0)."""
    cols = [_const_like(r, np.ones(shape_of(r)))]
    for _ in range(n):
        cols.append(multiply(cols[-1], r))
    return stack(*reversed(cols), axis=-1)


def _roots_parts(p: Array, r: Array) -> tuple[Array, Array]:
    """(P, p'(r)): P[i, k] = r_i^(N - k), and the derivative of the polynomial at each root."""
    n = shape_of(p)[0] - 1
    powers = _powers(r, n)
    weights = _const_like(p, np.arange(n, 0, -1, dtype=np.float64))
    slope = matmul(
        _slice(powers, slice(None), slice(1, None)), _slice(p, slice(None, -1)) * weights
    )
    return powers, slope


def _roots_vjp(ct: Array, out: Array, p: Array) -> Array:
    # p(r_i) = 0 for every coefficient vector: dr_i = -sum_k dp_k r_i^(N-k) / p'(r_i).
    # Holomorphic in p, so the rule holds as it is for complex roots and coefficients
    # (the engine takes the real part of a real p's cotangent)
    powers, slope = _roots_parts(p, out)
    return -matmul(ct / slope, powers)


def _roots_jvp(p_t: Array, out: Array, p: Array) -> Array:
    powers, slope = _roots_parts(p, out)
    return -matmul(powers, p_t) / slope


def _roots_forward(xp: ModuleType, p: Array) -> Array:
    if xp.ndim(p) != 1:
        raise OpError(f"funcgrad.roots: needs a 1-D array of coefficients, got {describe(p)}")
    if xp is not np:
        # NumPy's (eigvals of the companion matrix), on the host: CuPy's roots takes
        # Hermitian companions only, and NumPy's would hand CuPy's its array
        return on_host(_roots_forward, np, p)
    work = xp.float32 if getattr(p, "dtype", None) == xp.float16 else None
    out = np.roots(p if work is None else xp.asarray(p, dtype=work))
    return out.astype(p.dtype) if work is not None and out.dtype.kind == "f" else out


def _roots_sample(g: Draw) -> Drawn:
    # NOTE: no trailing zero coefficient: NumPy appends the zero roots it strips, and a
    # difference step that makes the coefficient nonzero moves that root to another place
    # in the result (the order is the companion matrix's eigenvalues')
    n = g.integers(1, 4)
    r = _spread(g, n, -1.5)  # distinct real roots, gaps near 1
    return (np.poly(r) * g.choice([1.0, -2.0, 0.5]),), {}


roots: Primitive = register(
    Primitive(
        name="roots",
        forward=_roots_forward,
        vjp=(_roots_vjp,),
        jvp=(_roots_jvp,),
        sample=Sample(_roots_sample, complex=True),
        doc="roots of a polynomial from its coefficients (simple roots differentiable, complex too)",
    )
)


# --- LU factorization (SciPy's lu_factor) --------------------------------------------------------


def _lu_forward(xp: ModuleType, x: Array) -> Array:
    if xp is not np:  # SciPy's (LAPACK's getrf pivots), on the host
        return on_host(_lu_forward, np, x)
    sl = _scipy_linalg("lu_factor")
    dtype = np.result_type(x)
    work = np.float32 if dtype == np.float16 else dtype
    x = np.asarray(x, dtype=work)
    out = np.empty(x.shape, dtype=work)
    for i in np.ndindex(*x.shape[:-2]):
        out[i] = sl.lu_factor(x[i])[0]  # SciPy refuses inf and NaN (an OpError)
    return out.astype(dtype, copy=False)


def lu_permutation(x: Array) -> Array:
    """The row order of the LU factorization of each matrix: P^T x = L U, as `x[..., perm, :]`.

    From LAPACK's pivots (row i swapped with row piv[i], in order); a
    value, computed from the values of `x`.
    """
    sl = _scipy_linalg("lu_factor")
    v = np.asarray(to_device(value_of(x), "cpu"))  # SciPy's pivots, from a host copy
    n = v.shape[-1]
    perms = np.empty((*v.shape[:-2], n), dtype=np.intp)
    for i in np.ndindex(*v.shape[:-2]):
        piv = sl.lu_factor(v[i].astype(np.float64 if v.dtype == np.float16 else v.dtype))[1]
        perm = np.arange(n)
        for row, other in enumerate(piv):
            perm[row], perm[other] = perm[other], perm[row]
        perms[i] = perm
    return perms


def _permuted_rows(x: Array, perm: Array) -> Array:
    """x[..., perm[..., i], :] for each matrix of a stack (perm a plain NumPy integer array).

    The index arrays are built on the host; on a GPU they go to x's device
    (`constant_like`) before indexing.
    """
    idx = np.broadcast_to(perm[..., :, None], (*perm.shape, shape_of(x)[-1]))
    batch = tuple(np.indices(perm.shape[:-1], sparse=True)) if perm.ndim > 1 else ()
    index = (*(b[..., None, None] for b in batch), idx, np.arange(shape_of(x)[-1]))
    v = value_of(x)
    if type(v) is not np.ndarray and xp_of(v) is not np:
        index = tuple(constant_like(i, v) for i in index)
    return getitem(x, index=normalize_index(index))


def _lu_parts(x: Array, out: Array) -> tuple[Array, Array]:
    # L and U are holomorphic in x (for fixed pivots): the rules hold for complex x as written
    n = shape_of(x)[-1]
    lower = tril(out, k=-1) + _eye_like(x, n)
    return lower, triu(out, k=0)


def _lu_vjp(ct: Array, out: Array, x: Array) -> Array:
    # P^T A = L U; X = L^-1 P^T dA U^-1, dL = L tril(X, -1), dU = triu(X) U:
    # A_bar = P L^-T (tril(L^T L_bar, -1) + triu(U_bar U^T)) U^-T
    lower, upper = _lu_parts(x, out)
    m = tril(matmul(_mT(lower), tril(ct, k=-1)), k=-1) + triu(
        matmul(triu(ct, k=0), _mT(upper)), k=0
    )
    a_bar_p = _mT(solve(upper, _mT(solve(_mT(lower), m))))  # L^-T M U^-T
    inverse = np.argsort(lu_permutation(x), axis=-1)
    return _permuted_rows(a_bar_p, inverse)


def _lu_jvp(x_t: Array, out: Array, x: Array) -> Array:
    lower, upper = _lu_parts(x, out)
    dx_p = _permuted_rows(x_t, lu_permutation(x))
    y = _mT(solve(_mT(upper), _mT(solve(lower, dx_p))))  # L^-1 P^T dA U^-1
    return tril(matmul(lower, tril(y, k=-1)), k=-1) + matmul(triu(y, k=0), upper)


def _lu_sample(g: Draw) -> Drawn:
    n = g.integers(1, 3)
    x = g.array((*_batch(g), n, n), -0.5, 0.5) + np.eye(n) * (3.0 * g.choice([1.0, -1.0]))
    # rows shuffled: LAPACK pivots (clearly: one entry of each column is far the largest)
    return (x[..., np.asarray(g.permutation(n), dtype=np.intp), :],), {}


lu_factor: Primitive = register(
    Primitive(
        name="lu_factor",
        forward=_lu_forward,
        vjp=(_lu_vjp,),
        jvp=(_lu_jvp,),
        sample=Sample(_lu_sample, complex=True),
        doc="L and U of P^T x = L U packed in one matrix (SciPy's lu_factor, its first result)",
    )
)
