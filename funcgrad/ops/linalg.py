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

from funcgrad.backend import as_value, xp_of
from funcgrad.errors import NotDifferentiableError, OpError
from funcgrad.graph.node import Array
from funcgrad.ops._util import attach, describe, failure, op_error, shape_of, value_of
from funcgrad.ops.elementwise import multiply
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
from funcgrad.ops.shape import broadcast_to, reshape, transpose


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
    """A stack of symmetric positive definite matrices B B^T / n + I (exactly symmetric)."""
    n = shape[-1]
    b = g.array(shape, -1.0, 1.0)
    a = matmul(b, _mT(b)) * (1.0 / n) + _scaled_identity(n, 1.0)
    return (a + _mT(a)) * 0.5


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
        sample=Sample(_triangle_sample),
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
        sample=Sample(_triangle_sample),
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


def _matmul_vjp_x(ct: Array, out: Array, x: Array, y: Array) -> Array:
    x_nd, y_nd, c_shape = len(shape_of(x)), len(shape_of(y)), shape_of(ct)
    if y_nd == 1:  # out[..., i] = x[..., i, :] . y  (out = x . y if x is 1-D too)
        return multiply(ct, y) if x_nd == 1 else multiply(reshape(ct, shape=(*c_shape, 1)), y)
    if x_nd == 1:  # out[..., :] = x @ y[...]: treat x as a (1, k) row
        row = reshape(ct, shape=(*c_shape[:-1], 1, c_shape[-1]))
        return reshape(matmul(row, _mT(y)), shape=(*c_shape[:-1], shape_of(x)[0]))
    return matmul(ct, _mT(y))


def _matmul_vjp_y(ct: Array, out: Array, x: Array, y: Array) -> Array:
    x_nd, y_nd, c_shape = len(shape_of(x)), len(shape_of(y)), shape_of(ct)
    if x_nd == 1:  # out[..., j] = x . y[..., :, j]  (out = x . y if y is 1-D too)
        if y_nd == 1:
            return multiply(ct, x)
        row = reshape(ct, shape=(*c_shape[:-1], 1, c_shape[-1]))
        return multiply(reshape(x, shape=(shape_of(x)[0], 1)), row)
    if y_nd == 1:  # out[...] = x[...] @ y: treat y as a (k, 1) column
        row = reshape(ct, shape=(*c_shape[:-1], 1, c_shape[-1]))
        return reshape(matmul(row, x), shape=(*c_shape[:-1], shape_of(y)[0]))
    return matmul(_mT(x), ct)


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
        sample=Sample(_matmul_sample),
        doc="matrix product x @ y (batch axes broadcast; 1-D operands as in NumPy)",
        names=Names(
            numpy="matmul",
            torch=("matmul", "mm", "bmm"),
            method=("matmul", "mm", "bmm"),
            grad_fn=_matmul_grad_fn,
        ),
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
        sample=Sample(_einsum_sample),
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
        sample=Sample(lambda g: ((_well_conditioned(g, _square_sample(g)),), {})),
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


solve: Primitive = register(
    Primitive(
        name="solve",
        forward=lambda xp, a, b: _in_float32_for_half(xp, xp.linalg.solve, a, b),
        vjp=_solve_vjp,
        jvp=(_solve_jvp_a, lambda b_t, out, a, b: solve(a, b_t)),
        sample=Sample(_solve_sample),
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
    return det(minors) * xp.asarray(signs, dtype=x_v.dtype)


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
        sample=Sample(_det_sample),
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
        sample=Sample(_det_sample),
        doc="log |det x|, the second output of numpy.linalg.slogdet",
        names=Names(numpy="linalg.slogdet", grad_fn="LinalgSlogdetBackward0"),
    )
)


# --- Cholesky ----------------------------------------------------------------------


def _cholesky_vjp(ct: Array, out: Array, x: Array) -> Array:
    # Murray (2016), symmetrised: A_bar = L^-T sym(Phi(L^T L_bar)) L^-1
    lt = _mT(out)
    phi = _phi(matmul(lt, ct))
    y = solve(lt, (phi + _mT(phi)) * 0.5)  # L^-T S
    return _mT(solve(lt, _mT(y)))  # (L^-T (L^-T S)^T)^T = L^-T S L^-1


def _cholesky_jvp(x_t: Array, out: Array, x: Array) -> Array:
    # dL = L Phi(L^-1 sym(dA) L^-T)
    y = solve(out, (x_t + _mT(x_t)) * 0.5)  # L^-1 S
    return matmul(out, _phi(solve(out, _mT(y))))  # L^-1 (L^-1 S)^T = L^-1 S L^-T


cholesky = register(
    Primitive(
        name="cholesky",
        # NOTE: factors (x + x^T) / 2, as JAX does, so the function (and its
        # gradient) is symmetric in x; NumPy reads only the lower triangle.
        forward=lambda xp, x: _in_float32_for_half(
            xp, xp.linalg.cholesky, (x + xp.swapaxes(x, -1, -2)) * 0.5
        ),
        vjp=(_cholesky_vjp,),
        jvp=(_cholesky_jvp,),
        sample=Sample(lambda g: ((_spd(g, _square_sample(g)),), {})),
        doc="lower Cholesky factor L of a symmetric positive definite x = L L^T",
        names=Names(numpy="linalg.cholesky", grad_fn="LinalgCholeskyExBackward0"),
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
