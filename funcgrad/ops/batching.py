"""Batching rules: how `funcgrad.vmap` applies each primitive to a whole batch at once.

A rule is the primitive's answer to "the same computation for every example
of a batch": it gets the batch `size`, the primitive's arguments `vals` and,
for each, the axis `dims[i]` along which it holds the batch (None where the
argument is the same for every example), and returns `(out, out_dim)`, the
batched result and the axis that carries the batch in it. Rules are written
with funcgrad primitives, never with `xp`, so a rule applied to graph nodes
records what it does (vmap inside grad differentiates through it), and
nested `vmap`s apply rules inside rules.

Most primitives share a declarative rule, picked by family in `RULES`:

* elementwise (any number of broadcasting arguments): line the batched
  arguments up on axis 0 (or keep the common axis when nothing else needs
  aligning) and apply the primitive once;
* reductions and other operations with an `axis` parameter: move the batch
  to axis 0 and shift the axes by one;
* shape operations: the same, with the batch prepended to `shape`;
* operations on stacks of matrices (`inv`, `det`, `svd_u` ...), windows over
  trailing axes (`max_pool`) or a leading sample axis (`conv`, `unfold`): the
  batch is one more leading axis, folded into the sample axis where there
  is only one; per-example weights of `conv` become groups;
* `matmul` and `einsum`: the batch is one more batch axis (einsum: one more
  letter).

A static parameter can be batched too: an index computed from batched
values (`x[y]` with `y` mapped, `gather`'s `index`). It reaches the rule as
a `Mapped` value. `RULES` maps primitive names to rules; `rule_for(prim)`
fills `Primitive.batch` from it. A primitive without a rule is applied once
per example (a loop and a stack) by `funcgrad.vmap`, with a one-time warning
naming it (`funcgrad.transforms.batching.fallback_primitives()`).
"""

from __future__ import annotations

import string
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from funcgrad.errors import BatchingError, FuncgradError
from funcgrad.ops import index as _index
from funcgrad.ops import reduce as _reduce
from funcgrad.ops import registry
from funcgrad.ops import shape as _shape
from funcgrad.ops._util import broadcast_hint, normalize_axis, op_error, shape_of, value_of
from funcgrad.ops.registry import Primitive

Rule = Callable[..., tuple[Any, Any]]


class Mapped:
    """A batched static parameter: `val` holds every example's parameter along axis `dim`.

    `funcgrad.vmap` hands a rule one of these where a parameter (an index
    array) was computed from batched values.
    """

    __slots__ = ("dim", "val")

    def __init__(self, val: Any, dim: int):
        self.val = val
        self.dim = dim

    def front(self) -> Any:
        """The parameter of every example, batched along axis 0 (a plain array)."""
        v = value_of(self.val)
        return v if self.dim == 0 else numpy.moveaxis(numpy.asarray(v), self.dim, 0)


# --- helpers ------------------------------------------------------------------------------

_ndarray = numpy.ndarray
_NUMBERS = (float, int, bool, complex)
_modules = sys.modules


def direct(prim: Primitive) -> Callable[..., Any]:
    """`prim` as a rule applies it: on plain NumPy arrays straight to its forward (a rule's
    own operations are part of one batched operation), on anything else as usual."""
    forward = prim.forward
    name = prim.name

    def apply(*args: Any, **params: Any) -> Any:
        for a in args:
            t = type(a)
            if t is not _ndarray and t not in _NUMBERS:
                return prim(*args, **params)
        if _modules.get("cupy") is not None:
            return prim(*args, **params)
        try:
            return forward(numpy, *args, **params)
        except FuncgradError:
            raise
        except Exception as e:  # NumPy's message, with the op named
            raise op_error(name, args, params, broadcast_hint(e, *args), e) from e

    apply.__name__ = name
    return apply


_directs: dict[str, Callable[..., Any]] = {}


def _d(name: str) -> Callable[..., Any]:
    """The registered primitive `name`, applied as a rule applies it (`direct`)."""
    fn = _directs.get(name)
    if fn is None:
        fn = _directs[name] = direct(registry.get(name))
    return fn


getitem = direct(_index.getitem)
index_update = direct(_index.index_update)
scatter_add = direct(_index.scatter_add)
sum_ = direct(_reduce.sum_)
_mean = direct(_reduce.mean)
broadcast_to = direct(_shape.broadcast_to)
reshape = direct(_shape.reshape)
squeeze = direct(_shape.squeeze)
transpose = direct(_shape.transpose)


def ndim_of(x: Any) -> int:
    """The number of axes of an array, a node or a number."""
    return len(shape_of(x))


def move(x: Any, src: int, dst: int = 0) -> Any:
    """`x` with its axis `src` moved to position `dst` (a `transpose`, or `x` itself)."""
    if src == dst:
        return x
    n = ndim_of(x)
    axes = list(range(n))
    axes.pop(src)
    axes.insert(dst, src)
    return transpose(x, axes=tuple(axes))


def front(x: Any, dim: int | None, size: int) -> Any:
    """`x` batched along axis 0: moved there, or broadcast to `size` copies when not batched."""
    if dim is not None:
        return move(x, dim, 0)
    shape = shape_of(x)
    return broadcast_to(reshape(x, shape=(1, *shape)), shape=(size, *shape))


def _expand_after_batch(x: Any, k: int) -> Any:
    """`x` (batched on axis 0) with `k` new axes of length 1 right after the batch axis."""
    if k <= 0:
        return x
    shape = shape_of(x)
    return reshape(x, shape=(shape[0], *((1,) * k), *shape[1:]))


def _per_axes(axis: Any, nd: int, op: str) -> tuple[int, ...]:
    """Per-example `axis` (None: all) as sorted non-negative axes of an `nd`-axis example."""
    if nd == 0:
        if axis is not None:
            normalize_axis(axis, 0, op)  # checks it (0 and -1 name the one element)
        return ()
    return normalize_axis(axis, nd, op)


def _shifted(axis: Any, nd: int, op: str) -> tuple[int, ...]:
    """Per-example axes, shifted past a leading batch axis."""
    return tuple(a + 1 for a in _per_axes(axis, nd, op))


def _one_axis(axis: int, nd: int) -> int:
    """A single per-example axis (negative counts from the end), as a non-negative one."""
    return axis + nd if axis < 0 else axis


def _only(vals: Sequence[Any], dims: Sequence[int | None]) -> tuple[Any, int]:
    """The single argument of a unary primitive and its batch axis."""
    (x,), (d,) = vals, dims
    assert d is not None
    return x, d


# --- elementwise ---------------------------------------------------------------------------


def elementwise(prim: Primitive) -> Rule:
    """The rule of a primitive that applies entry by entry to broadcasting arguments."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        if len(vals) == 1:
            return run(vals[0], **params), dims[0]
        if len(vals) == 2:  # the common cases of two arguments, which need no lining up
            (x, y), (dx, dy) = vals, dims
            if dx == dy:
                if len(shape_of(x)) == len(shape_of(y)):
                    return run(x, y, **params), dx
            elif (dy is None and not shape_of(y)) or (dx is None and not shape_of(x)):
                return run(x, y, **params), dx if dy is None else dy
            elif (dx == 0 and dy is None and len(shape_of(y)) < len(shape_of(x))) or (
                dy == 0 and dx is None and len(shape_of(x)) < len(shape_of(y))
            ):
                # the batch in front, the other argument with no more axes than an example
                # (`x @ w + b`): it broadcasts against each example from the right as it is
                return run(x, y, **params), 0
        nds = [ndim_of(v) - (d is not None) for v, d in zip(vals, dims, strict=True)]
        top = max(nds)
        batched = [d for d in dims if d is not None]
        first = batched[0]
        # The batch axis can stay where it is when every batched argument has it there
        # with the same number of axes, and the others are 0-d (nothing to align).
        if all(
            (d is None and nd == 0) or (d == first and nd == top)
            for d, nd in zip(dims, nds, strict=True)
        ):
            return run(*vals, **params), first
        lined = []
        for v, d, nd in zip(vals, dims, nds, strict=True):
            if d is None:
                lined.append(v)
            else:
                lined.append(_expand_after_batch(move(v, d, 0), top - nd))
        return run(*lined, **params), 0

    return rule


def _multiply(prim: Primitive) -> Rule:
    """`multiply`'s rule: elementwise, with one batched outer product (`x[:, None] * y[None, :]`
    for each example, what a product's VJP makes) as an einsum, which NumPy computes about
    twice as fast as the broadcast product (the same numbers: no sum is involved)."""
    base = elementwise(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /) -> Any:
        (x, y), (dx, dy) = vals, dims
        if dx == 0 and dy == 0:
            sx, sy = shape_of(x), shape_of(y)
            if len(sx) == 3 and len(sy) == 3 and sx[2] == 1 and sy[1] == 1 and sx[0] == sy[0]:
                out = _d("einsum")(
                    reshape(x, shape=sx[:2]),
                    reshape(y, shape=(sy[0], sy[2])),
                    subscripts="bi,bj->bij",
                    optimize=False,
                )
                return out, 0
        return base(size, vals, dims)

    return rule


# --- reductions and axis-wise operations ---------------------------------------------------


def reduction(prim: Primitive) -> Rule:
    """The rule of a reduction over `axis` (None: all axes), with or without `keepdims`."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        nd = ndim_of(x) - 1
        params["axis"] = _shifted(params["axis"], nd, prim.name)
        return run(move(x, d, 0), **params), 0

    return rule


def single_axis(prim: Primitive) -> Rule:
    """The rule of an operation along one axis (`max_dim`, `logcumsumexp`)."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        nd = ndim_of(x) - 1
        if nd == 0:  # a 0-d example: its one entry, a 0-d result
            normalize_axis(params["axis"], 0, prim.name)
            out = run(reshape(move(x, d, 0), shape=(size, 1)), **{**params, "axis": 1})
            return reshape(out, shape=(size,)), 0
        params["axis"] = _shifted(params["axis"], nd, prim.name)[0]
        return run(move(x, d, 0), **params), 0

    return rule


def flattening_axis(prim: Primitive) -> Rule:
    """The rule of `cumsum`/`cumprod`: along `axis`, or along the flattened example for None."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        nd = ndim_of(x) - 1
        x = move(x, d, 0)
        if params["axis"] is None or nd == 0:
            if params["axis"] is not None:
                normalize_axis(params["axis"], 0, prim.name)
            return run(reshape(x, shape=(size, -1)), axis=1), 0
        params["axis"] = _shifted(params["axis"], nd, prim.name)[0]
        return run(x, **params), 0

    return rule


def softmax_like(prim: Primitive) -> Rule:
    """The rule of `softmax`/`log_softmax` (axes as for a reduction, the shape kept)."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, axis: Any) -> Any:
        x, d = _only(vals, dims)
        nd = ndim_of(x) - 1
        if nd == 0:  # over a 0-d example's one entry
            _per_axes(axis, 0, prim.name)
            out = run(reshape(move(x, d, 0), shape=(size, 1)), axis=1)
            return reshape(out, shape=(size,)), 0
        return run(move(x, d, 0), axis=_shifted(axis, nd, prim.name)), 0

    return rule


def _norm_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
    norm = _d("norm")

    x, d = _only(vals, dims)
    nd = ndim_of(x) - 1
    x = move(x, d, 0)
    axis, ord_ = params["axis"], params["ord"]
    if axis is None:
        if ord_ is None or nd <= 1:
            if nd == 0:  # a 0-d example: |x|, 0-d
                out = norm(reshape(x, shape=(size, 1)), **{**params, "axis": 1})
                return reshape(out, shape=(size,)), 0
            if nd > 2 or ord_ is None:
                flat = reshape(x, shape=(size, -1))
                out = norm(flat, ord=ord_ if nd == 1 else None, axis=1, keepdims=False)
                if params["keepdims"]:
                    out = reshape(out, shape=(size, *((1,) * nd)))
                return out, 0
            return norm(x, **{**params, "axis": 1}), 0
        return norm(x, **{**params, "axis": (1, 2)}), 0
    if isinstance(axis, (tuple, list)):
        params["axis"] = tuple(_one_axis(int(a), nd) + 1 for a in axis)
    else:
        params["axis"] = _one_axis(int(axis), nd) + 1
    return norm(x, **params), 0


def _fft(prim: Primitive) -> Rule:
    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        nd = ndim_of(x) - 1
        axes = params["axes"]
        if axes is None:
            params["axes"] = tuple(range(1, nd + 1))
        else:
            params["axes"] = tuple(_one_axis(int(a), nd) + 1 for a in axes)
        return run(move(x, d, 0), **params), 0

    return rule


# --- shapes ----------------------------------------------------------------------------------


def _reshape_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, shape: Any
) -> Any:
    x, d = _only(vals, dims)
    return reshape(move(x, d, 0), shape=(size, *shape)), 0


def _broadcast_to_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, shape: Any
) -> Any:
    x, d = _only(vals, dims)
    nd = ndim_of(x) - 1
    x = _expand_after_batch(move(x, d, 0), len(shape) - nd)
    return broadcast_to(x, shape=(size, *shape)), 0


def _transpose_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, axes: Any
) -> Any:
    x, d = _only(vals, dims)
    nd = ndim_of(x) - 1
    per = tuple(range(nd))[::-1] if axes is None else tuple(_one_axis(int(a), nd) for a in axes)
    # The batch axis stays where it is: the example's axes move around it.
    full = [i for i in range(nd + 1) if i != d]
    order = [full[a] for a in per]
    order.insert(d, d)
    return transpose(x, axes=tuple(order)), d


def _squeeze_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, axis: Any
) -> Any:
    x, d = _only(vals, dims)
    shape = shape_of(x)
    per = shape[:d] + shape[d + 1 :]
    nd = len(per)
    if axis is None:
        axes = tuple(i for i, n in enumerate(per) if n == 1)
    else:
        axes = _per_axes(axis, nd, "squeeze")
    if not axes:
        return squeeze(x, axis=()), d
    full = tuple(a + (a >= d) for a in axes)
    out = squeeze(x, axis=full)
    return out, d - sum(1 for a in full if a < d)


def _expand_dims_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, axis: Any
) -> Any:
    expand_dims = _d("expand_dims")

    x, d = _only(vals, dims)
    nd = ndim_of(x) - 1
    n_new = 1 if not isinstance(axis, (tuple, list)) else len(axis)
    axes = _per_axes(axis, nd + n_new, "expand_dims")
    return expand_dims(move(x, d, 0), axis=tuple(a + 1 for a in axes)), 0


def _joined(prim: Primitive, new_axis: bool) -> Rule:
    """The rule of `concatenate` (`new_axis` False) or `stack` (True)."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, axis: Any) -> Any:
        lined = [front(v, d, size) for v, d in zip(vals, dims, strict=True)]
        nd = ndim_of(lined[0]) - 1
        if axis is None and not new_axis:
            return run(*[reshape(v, shape=(size, -1)) for v in lined], axis=1), 0
        a = _per_axes(axis, nd + new_axis, prim.name)[0]
        return run(*lined, axis=a + 1), 0

    return rule


def _flip_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, axis: Any) -> Any:
    flip = _d("flip")

    x, d = _only(vals, dims)
    nd = ndim_of(x) - 1
    axes = _per_axes(axis, nd, "flip")
    if not axes:
        return x, d
    full = tuple(a + (a >= d) for a in axes)
    return flip(x, axis=full), d


def _pad_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
    pad = _d("pad")

    x, d = _only(vals, dims)
    nd = ndim_of(x) - 1
    width = params["pad_width"]
    if not width or nd == 0:
        return pad(x, **{**params, "pad_width": tuple((0, 0) for _ in range(nd + 1))}), d
    w = numpy.broadcast_to(numpy.asarray(width, dtype=numpy.int64), (nd, 2))
    full = [tuple(int(v) for v in row) for row in w]
    full.insert(d, (0, 0))
    return pad(x, **{**params, "pad_width": tuple(full)}), d


def _trailing_matrix(prim: Primitive) -> Rule:
    """The rule of an operation on the last two axes (`tril`, `inv`, `svd_u` ...): one more leading axis."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        nd = ndim_of(x) - 1
        if d <= ndim_of(x) - 3 or (nd < 2 and d == 0):
            return run(x, **params), d
        return run(move(x, d, 0), **params), 0

    return rule


def _leading_batch(prim: Primitive) -> Rule:
    """The rule of an operation that takes any number of leading batch axes."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        lined = [front(v, d, size) if d is not None else v for v, d in zip(vals, dims, strict=True)]
        # unbatched arguments broadcast against the leading batch axis
        return run(*_align_leading(lined, dims), **params), 0

    return rule


def _align_leading(vals: Sequence[Any], dims: Sequence[int | None]) -> list[Any]:
    """Batched arguments (axis 0) padded with length-1 axes after the batch so that all have the
    same rank: unbatched ones then broadcast against them from the right."""
    top = max(ndim_of(v) - (d is not None) for v, d in zip(vals, dims, strict=True))
    return [
        v if d is None else _expand_after_batch(v, top - (ndim_of(v) - 1))
        for v, d in zip(vals, dims, strict=True)
    ]


# --- products ------------------------------------------------------------------------------


def _matmul_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /) -> Any:
    matmul = _d("matmul")

    (x, y), (dx, dy) = vals, dims
    nx = ndim_of(x) - (dx is not None)
    ny = ndim_of(y) - (dy is not None)
    if dy is None:
        x = move(x, dx, 0)  # type: ignore[arg-type]
        if nx == 1:
            # (B, k) @ y is a matrix product of the batch of rows with y: the batch lands on
            # the axis before the last of y's result (or is the result's only axis).
            out = matmul(x, y)
            return out, max(ny - 2, 0)
        x = _expand_after_batch(x, max(ny - 2 - (nx - 2), 0))
        return matmul(x, y), 0
    y = move(y, dy, 0)
    if dx is None:
        if ny == 1:
            if nx == 1:
                return matmul(y, x), 0  # (B, k) @ (k,)
            y = reshape(y, shape=(size, *((1,) * (nx - 2)), shape_of(y)[1], 1))
            out = matmul(x, y)
            return reshape(out, shape=shape_of(out)[:-1]), 0
        if nx == 1:
            return matmul(x, y), 0
        y = _expand_after_batch(y, max(nx - 2 - (ny - 2), 0))
        return matmul(x, y), 0
    x = move(x, dx, 0)
    k = shape_of(x)[-1]
    if nx == 1 and ny == 1:
        out = matmul(reshape(x, shape=(size, 1, k)), reshape(y, shape=(size, k, 1)))
        return reshape(out, shape=(size,)), 0
    if nx == 1:
        x = reshape(x, shape=(size, *((1,) * (ny - 2)), 1, k))
        out = matmul(x, y)
        s = shape_of(out)
        return reshape(out, shape=(*s[:-2], s[-1])), 0
    if ny == 1:
        y = reshape(y, shape=(size, *((1,) * (nx - 2)), k, 1))
        out = matmul(x, y)
        return reshape(out, shape=shape_of(out)[:-1]), 0
    x = _expand_after_batch(x, max(ny - nx, 0))
    y = _expand_after_batch(y, max(nx - ny, 0))
    return matmul(x, y), 0


def _einsum_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, subscripts: str, optimize: Any
) -> Any:
    einsum = _d("einsum")

    spec = subscripts.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    inputs = ins.split(",")
    if not arrow:
        out = _implicit_output(inputs)
    used = set(spec)
    letter = next(c for c in string.ascii_letters if c not in used)
    new_ins = []
    operands = []
    for term, v, d in zip(inputs, vals, dims, strict=True):
        if d is None:
            new_ins.append(term)
            operands.append(v)
        else:
            new_ins.append(letter + term)
            operands.append(move(v, d, 0))
    new = ",".join(new_ins) + "->" + letter + out
    return einsum(*operands, subscripts=new, optimize=optimize), 0


def _implicit_output(inputs: Sequence[str]) -> str:
    """NumPy's output of an einsum without `->`: `...` if any, then the letters used once, sorted."""
    counts: dict[str, int] = {}
    ellipsis = False
    for term in inputs:
        if "..." in term:
            ellipsis = True
            term = term.replace("...", "")
        for c in term:
            counts[c] = counts.get(c, 0) + 1
    once = sorted(c for c, n in counts.items() if n == 1)
    return ("..." if ellipsis else "") + "".join(once)


def _solve_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /) -> Any:
    solve = _d("solve")

    (a, b), (da, db) = vals, dims
    na = ndim_of(a) - (da is not None)
    nb = ndim_of(b) - (db is not None)
    if da is not None:
        a = move(a, da, 0)
    if nb == 1:
        # one vector per example, as NumPy reads a 1-D b: solve for a column, then drop it
        b = front(b, db, size)
        b = reshape(b, shape=(size, *((1,) * (na - 2)), shape_of(b)[1], 1))
        if da is not None:
            a = _expand_after_batch(a, 0)
        out = solve(a, b)
        return reshape(out, shape=shape_of(out)[:-1]), 0
    if db is not None:
        b = move(b, db, 0)
    lined = _align_leading([a, b], [None if da is None else 0, None if db is None else 0])
    return solve(*lined), 0


def _stacked(prim: Primitive) -> Rule:
    """The rule of an operation on broadcasting stacks of matrices (`solve_sylvester`)."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        lined = [v if d is None else move(v, d, 0) for v, d in zip(vals, dims, strict=True)]
        fronts = [None if d is None else 0 for d in dims]
        return run(*_align_leading(lined, fronts), **params), 0

    return rule


def _lower_median_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, skipnan: bool
) -> Any:
    stop_gradient = _d("stop_gradient")
    where = _d("where")

    x, d = _only(vals, dims)
    flat = reshape(move(x, d, 0), shape=(size, -1))
    v = numpy.asarray(value_of(flat))
    if v.dtype.kind == "c" or not v.shape[1]:
        return None
    srt = numpy.sort(v, axis=1)  # NaNs last
    n = numpy.full(size, v.shape[1])
    nan = numpy.isnan(srt) if v.dtype.kind == "f" else numpy.zeros(srt.shape, bool)
    if skipnan:
        n = (~nan).sum(axis=1)
    pick = numpy.where(n > 0, (n - 1) // 2, 0)
    med = srt[numpy.arange(size), pick]
    if not skipnan:
        med = numpy.where(nan[:, -1], srt[:, -1], med)
    med = numpy.where(n > 0, med, numpy.nan).astype(v.dtype)
    # the value exactly; the gradient split evenly over the entries equal to it (ties), as the
    # primitive's own VJP does
    hit = (v == med[:, None]) | (numpy.isnan(v) & numpy.isnan(med)[:, None])
    k = numpy.maximum(hit.sum(axis=1), 1).astype(v.dtype)
    spread = sum_(where(hit, flat, 0.0), axis=(1,), keepdims=False) / k
    return stop_gradient(med) + (spread - stop_gradient(spread)), 0


# --- indexing --------------------------------------------------------------------------------


def _is_advanced(i: Any) -> bool:
    return isinstance(i, Mapped) or (hasattr(i, "shape") and type(i) is not slice)


def _expand_ellipsis(index: tuple[Any, ...], nd: int) -> tuple[Any, ...]:
    """`index` with `...` replaced by the full slices it stands for (none left)."""
    if not any(i is Ellipsis for i in index):
        return index
    used = sum(
        0 if (i is None or i is Ellipsis) else (value_of(i).ndim if _is_bool(i) else 1)
        for i in index
    )
    k = next(j for j, i in enumerate(index) if i is Ellipsis)
    return index[:k] + (slice(None),) * (nd - used) + index[k + 1 :]


def _is_bool(i: Any) -> bool:
    return hasattr(i, "dtype") and not isinstance(i, Mapped) and value_of(i).dtype.kind == "b"


def _batched_index(index: tuple[Any, ...]) -> tuple[tuple[Any, ...], int]:
    """The index of the batch (a slice in front) and the axis its result holds the batch on.

    NumPy puts the axes of advanced indices (arrays, or ints mixed with arrays)
    first when they are not next to each other; otherwise they stay in place.
    """
    full = (slice(None), *index)
    advanced = [k for k, i in enumerate(full) if _is_advanced(i) or type(i) is int]
    arrays = [i for i in full if _is_advanced(i)]
    if not arrays:
        return full, 0
    if advanced == list(range(advanced[0], advanced[0] + len(advanced))):
        return full, 0  # adjacent: in place, after the batch axis
    shapes = [value_of(i).shape if not _is_bool(i) else (int(value_of(i).sum()),) for i in arrays]
    return full, len(numpy.broadcast_shapes(*shapes))


def _getitem_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, index: tuple[Any, ...]
) -> Any:
    x = vals[0]
    d = dims[0]
    if any(isinstance(i, Mapped) for i in index):
        return _gathered(size, x, d, index)
    nd = ndim_of(x) - 1
    full, out_dim = _batched_index(_expand_ellipsis(index, nd))
    return getitem(move(x, d, 0), index=full), out_dim  # type: ignore[arg-type]


def _gathered(size: int, x: Any, d: int | None, index: tuple[Any, ...]) -> Any:
    """`x[index]` with a batched index (an index computed from batched values), or None."""
    k = len(index)
    while k and index[k - 1] == slice(None):
        k -= 1
    if k == 1 and isinstance(index[0], Mapped):
        mask = numpy.asarray(index[0].front())
        if mask.dtype.kind == "b":  # a batched mask: as many entries from every example
            counts = mask.reshape(size, -1).sum(axis=1)
            if len(set(counts.tolist())) > 1:
                raise BatchingError(
                    f"funcgrad.vmap: a boolean mask selects {sorted(set(counts.tolist()))} "
                    f"entries in different examples; the result's shape would depend on the "
                    f"values. Use funcgrad.numpy.where to keep the shape"
                )
            out = getitem(front(x, d, size), index=(mask,))
            rest = shape_of(out)[1:]
            return reshape(out, shape=(size, int(counts[0]) if size else 0, *rest)), 0
    full = _mapped_index(size, index, ndim_of(x) - (d is not None))
    if full is None:
        return None
    return getitem(front(x, d, size), index=full), 0


def _mapped_index(size: int, index: tuple[Any, ...], nd: int) -> tuple[Any, ...] | None:
    """The batch's index for a batched per-example `index`, or None where it has no such form.

    Handled: every entry up to the trailing full slices is advanced (an int or an
    integer array, batched or not); the batch then reads along its own `arange`,
    and the result keeps the batch on axis 0 with each example's result after it.

    NOTE: getitem's forward and its VJP ask for the same index: the last answer is kept
    for the same NumPy arrays (the same objects, shapes and dtypes; its arrays are views of
    them, so it reads what they hold now), the same ints and slices, size and rank.
    """
    key = _index_key(size, index, nd)
    last = _last_mapped[0]  # one read: another thread may replace it
    if key is not None and last is not None and last[0] == key:
        got: tuple[Any, ...] | None = last[2]
        return got
    full = _mapped_index_of(size, index, nd)
    if key is not None:
        _last_mapped[0] = (key, index, full)  # `index` keeps the key's ids its arrays'
    return full


_last_mapped: list[Any] = [None]  # (key, index, answer) of the last _mapped_index


def _index_key(size: int, index: tuple[Any, ...], nd: int) -> tuple[Any, ...] | None:
    """What `_mapped_index`'s answer depends on, or None where that is more than identities."""
    key: list[Any] = [size, nd]
    for i in index:
        t = type(i)
        if t is Mapped:
            v = i.val
            if type(v) is not _ndarray:
                return None
            key.append((id(v), v.shape, v.dtype, i.dim))
        elif t is _ndarray:
            key.append((id(i), i.shape, i.dtype))
        elif t is int or t is slice or i is None or i is Ellipsis:
            key.append((t, i))
        else:
            return None
    return tuple(key)


def _mapped_index_of(size: int, index: tuple[Any, ...], nd: int) -> tuple[Any, ...] | None:
    index = _expand_ellipsis(index, nd)
    k = len(index)
    while k and index[k - 1] == slice(None):
        k -= 1
    lead = index[:k]
    parts: list[Any] = []
    shapes = []
    for i in lead:
        if isinstance(i, Mapped):
            v = numpy.asarray(i.front())
            if v.dtype.kind not in "iu":
                return None
            parts.append(v)
            shapes.append(v.shape[1:])
        elif type(i) is int:
            parts.append(i)
            shapes.append(())
        elif hasattr(i, "dtype") and value_of(i).dtype.kind in "iu":
            v = value_of(i)
            parts.append(v)
            shapes.append(v.shape)
        else:
            return None
    # (numpy.broadcast_shapes costs a few µs: its answer where the shapes are all one)
    per = shapes[0] if len(shapes) == 1 else numpy.broadcast_shapes(*shapes)
    rows = _index.batch_rows(size)  # the object scatter_add knows: no position twice
    if per:
        rows = rows.reshape((size, *((1,) * len(per))))
    lined = []
    for p, i in zip(parts, lead, strict=True):
        if isinstance(i, Mapped):
            # a batched index: its batch axis meets the rows', its own axes after
            p = p.reshape((size, *((1,) * (len(per) - (p.ndim - 1))), *p.shape[1:]))
        lined.append(p)
    return (rows, *lined)


def _scatter_add_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, index: Any, shape: Any
) -> Any:
    (ct,), (d,) = vals, dims
    if any(isinstance(i, Mapped) for i in index):
        full = _mapped_index(size, index, len(shape))
        if full is None:
            return None
        return scatter_add(front(ct, d, size), index=full, shape=(size, *shape)), 0
    full, out_dim = _batched_index(_expand_ellipsis(index, len(shape)))
    assert d is not None  # a batched cotangent (a batched index is handled above)
    return scatter_add(move(ct, d, out_dim), index=full, shape=(size, *shape)), 0


def _index_update_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, *, index: Any
) -> Any:
    (x, values), (dx, dv) = vals, dims
    if any(isinstance(i, Mapped) for i in index):
        full = _mapped_index(size, index, ndim_of(x) - (dx is not None))
        if full is None:
            return None
        x = front(x, dx, size)
        target = getitem(x, index=full)  # the batch's indexed entries: (size, *example's)
        if dv is None:
            values = front(values, None, size)
        else:
            values = move(values, dv, 0)
        values = _expand_after_batch(values, ndim_of(target) - ndim_of(values))
        return index_update(x, values, index=full), 0
    x = front(x, dx, size)
    per = shape_of(x)[1:]
    full, at = _batched_index(_expand_ellipsis(index, len(per)))
    target = numpy.empty(per, dtype=numpy.bool_)[index].shape  # the example's indexed shape
    if dv is None:
        if at == 0 or ndim_of(values) <= len(target) - at:
            return index_update(x, values, index=full), 0
        values = front(values, None, size)
    else:
        values = move(values, dv, 0)
    values = _expand_after_batch(values, len(target) - (ndim_of(values) - 1))
    return index_update(x, move(values, 0, at), index=full), 0


def _gather_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any
) -> Any:
    gather = _d("gather")

    index = params["index"]
    (x,), (d,) = vals, dims
    nd = ndim_of(x) - (d is not None)
    idx = index.front() if isinstance(index, Mapped) else value_of(index)
    per_index_nd = idx.ndim - isinstance(index, Mapped)
    if nd == 0 or per_index_nd == 0:  # PyTorch's 0-d cases: read by flat position
        x = front(x, d, size)
        pos = _flat_positions(size, shape_of(x)[1:], index, params)
        out = gather(reshape(x, shape=(size, -1)), **{**params, "index": pos, "axis": 1})
        return reshape(out, shape=(size, *_read_shape(shape_of(x)[1:], index, params))), 0
    if not isinstance(index, Mapped):
        idx = numpy.broadcast_to(idx, (size, *idx.shape))
    x = front(x, d, size)
    if params["axis"] is None:
        flat = reshape(x, shape=(size, -1))
        out = gather(
            flat, **{**params, "index": idx.reshape(size, -1), "axis": 1, "keepdims": True}
        )
        return reshape(out, shape=idx.shape), 0
    params["axis"] = _one_axis(int(params["axis"]), nd) + 1
    params["index"] = idx
    return gather(x, **params), 0


def _flat_positions(size: int, shape: tuple[int, ...], index: Any, params: dict[str, Any]) -> Any:
    """Where each example's `gather` (or `scatter`) reads: positions in the flattened example,
    as a `(size, k)` index for axis 1 (computed by gathering from `arange`, so it checks the
    index as the primitive does)."""
    places = numpy.arange(int(numpy.prod(shape, dtype=numpy.int64))).reshape(shape)
    p = {"axis": params["axis"], "keepdims": params["keepdims"], "method": params["method"]}
    gather = registry.get("gather").forward
    if isinstance(index, Mapped):
        per = [gather(numpy, places, index=i, **p) for i in index.front()]
        return numpy.stack([numpy.reshape(i, (-1,)) for i in per])
    one = numpy.reshape(gather(numpy, places, index=value_of(index), **p), (1, -1))
    return numpy.broadcast_to(one, (size, one.shape[1]))


def _read_shape(shape: tuple[int, ...], index: Any, params: dict[str, Any]) -> tuple[int, ...]:
    """The shape of one example's `gather` result."""
    idx = index.front()[0] if isinstance(index, Mapped) else value_of(index)
    zeros = numpy.zeros(shape)
    p = {k: params[k] for k in ("axis", "keepdims", "method")}
    return tuple(registry.get("gather").forward(numpy, zeros, index=idx, **p).shape)


def _scatter_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any
) -> Any:
    scatter = _d("scatter")

    index = params["index"]
    (x, src), (dx, ds) = vals, dims
    nd = ndim_of(x) - (dx is not None)
    idx = index.front() if isinstance(index, Mapped) else value_of(index)
    per_index_nd = idx.ndim - isinstance(index, Mapped)
    if nd == 0 or per_index_nd == 0 or params["axis"] is None:  # write by flat position
        x = front(x, dx, size)
        shape = shape_of(x)[1:]
        pos = _flat_positions(size, shape, index, {**params, "keepdims": True})
        flat_src = reshape(front(src, ds, size), shape=(size, -1))
        out = scatter(reshape(x, shape=(size, -1)), flat_src, **{**params, "index": pos, "axis": 1})
        return reshape(out, shape=(size, *shape)), 0
    if not isinstance(index, Mapped):
        idx = numpy.broadcast_to(idx, (size, *idx.shape))
    params["axis"] = _one_axis(int(params["axis"]), nd) + 1
    params["index"] = idx
    return scatter(front(x, dx, size), front(src, ds, size), **params), 0


# --- neural networks -------------------------------------------------------------------------


def _merge(x: Any, size: int) -> Any:
    """A batch (axis 0) of `(N, ...)` arrays as one `(size * N, ...)` array."""
    s = shape_of(x)
    return reshape(x, shape=(size * s[1], *s[2:]))


def _split(out: Any, size: int) -> Any:
    s = shape_of(out)
    return reshape(out, shape=(size, s[0] // size, *s[1:]))


def _sample_axis(prim: Primitive) -> Rule:
    """The rule of an operation on `(N, C, *S)` samples (`unfold`, `fold`): the batch joins N."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        x = move(x, d, 0)
        return _split(run(_merge(x, size), **params), size), 0

    return rule


def _channels(x: Any, size: int) -> Any:
    """A batch (axis 0) of `(N, C, ...)` as `(N, size * C, ...)`: each example's channels a block."""
    s = shape_of(x)
    x = move(x, 0, 1)
    return reshape(x, shape=(s[1], size * s[2], *s[3:]))


def _conv_rule(prim: Primitive) -> Rule:
    """`conv`/`conv_transpose`: a batch of inputs joins the samples; per-example weights (or
    biases) become groups, each example's channels one block of them."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        (x, w, b), (dx, dw, db) = vals, dims
        if dw is None and db is None:
            x = move(x, dx, 0)  # type: ignore[arg-type]
            return _split(run(_merge(x, size), w, b, **params), size), 0
        x = _channels(front(x, dx, size), size)
        w = front(w, dw, size)
        ws = shape_of(w)
        w = reshape(w, shape=(size * ws[1], *ws[2:]))
        if db is not None or ndim_of(b):  # a bias per output channel: one block per example
            b = reshape(front(b, db, size), shape=(-1,))
        out = run(x, w, b, **{**params, "groups": params["groups"] * size})
        s = shape_of(out)
        return reshape(out, shape=(s[0], size, s[1] // size, *s[2:])), 1

    return rule


def _conv_weight_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any
) -> Any:
    conv_weight = _d("conv_weight")

    (x, ct), (dx, dc) = vals, dims
    x = _channels(front(x, dx, size), size)
    ct = _channels(front(ct, dc, size), size)
    out = conv_weight(x, ct, **{**params, "groups": params["groups"] * size})
    s = shape_of(out)
    return reshape(out, shape=(size, s[0] // size, *s[1:])), 0


def _pool_transpose_rule(
    size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any
) -> Any:
    avg_pool_transpose = _d("avg_pool_transpose")

    ct, d = _only(vals, dims)
    params["shape"] = (size, *params["shape"])
    return avg_pool_transpose(move(ct, d, 0), **params), 0


def _loss_rule(prim: Primitive) -> Rule:
    """A loss with `reduction`: computed unreduced on the batch, then reduced per example."""

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        reduction = params["reduction"]
        out, d = elementwise(prim)(size, vals, dims, **{**params, "reduction": "none"})
        if reduction == "none":
            return out, d
        out = move(out, d, 0)
        axes = tuple(range(1, ndim_of(out)))
        reduce = sum_ if reduction == "sum" else _mean
        return reduce(out, axis=axes, keepdims=False), 0

    return rule


def _nll_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
    nll_loss = _d("nll_loss")

    (logp, target, w), (dl, dt, dw) = vals, dims
    if dw is not None:
        return _nll_weighted(
            size, front(logp, dl, size), front(target, dt, size), move(w, dw, 0), **params
        )
    logp = front(logp, dl, size)
    target = front(target, dt, size)
    reduction = params["reduction"]
    per = shape_of(logp)[1:]
    if len(per) == 1:  # one sample per example: (C,) and a 0-d target
        flat_logp, flat_target = logp, target
    else:
        flat_logp = _merge(logp, size)
        flat_target = _merge(target, size)
    out = nll_loss(flat_logp, flat_target, w, **{**params, "reduction": "none"})
    out = reshape(out, shape=(size, -1))
    if reduction == "none":
        return reshape(out, shape=(size, *shape_of(target)[1:])), 0
    total = sum_(out, axis=(1,), keepdims=False)
    if reduction == "sum":
        return total, 0
    t = value_of(flat_target)
    t = numpy.asarray(t).reshape(size, -1)
    valid = t != params["ignore_index"]
    if w is None or not ndim_of(w):  # no class weights (or one number for all)
        weight = valid.astype(numpy.asarray(value_of(logp)).dtype)
        if w is not None:
            weight = weight * w
    else:
        safe = numpy.where(valid, t, 0)
        weight = getitem(w, index=(safe,)) * valid
    return total / sum_(weight, axis=(1,), keepdims=False), 0


def _nll_weighted(
    size: int, logp: Any, target: Any, w: Any, *, ignore_index: int, reduction: str
) -> Any:
    """`nll_loss` with class weights per example (all batched on axis 0), from primitives."""
    gather = _d("gather")
    where = _d("where")

    t = numpy.asarray(value_of(target))
    cd = 1 if t.ndim == 1 else 2  # the class axis: (size, C) or (size, N, C, ...)
    valid = t != ignore_index
    safe = numpy.where(valid, t, 0)
    picked = gather(
        logp, index=numpy.expand_dims(safe, cd), axis=cd, keepdims=False, method="gather"
    )
    rows = numpy.arange(size).reshape((size,) + (1,) * (t.ndim - 1))
    if ndim_of(w) == 1:  # one weight per example for every class
        wt = where(valid, reshape(w, shape=(size,) + (1,) * (t.ndim - 1)), 0.0)
    else:
        wt = where(valid, getitem(w, index=(rows, safe)), 0.0)
    loss = -picked * wt
    if reduction == "none":
        return loss, 0
    axes = tuple(range(1, t.ndim))
    total = sum_(loss, axis=axes, keepdims=False)
    if reduction == "sum":
        return total, 0
    return total / sum_(wt, axis=axes, keepdims=False), 0


# --- polynomial roots and hooks ---------------------------------------------------------------


def _roots_rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /) -> Any:
    """`roots` of a batch of polynomials: the eigenvalues of their companion matrices at once.

    As NumPy's `roots` does for each: leading zeros dropped (the batch must agree on how
    many, or the examples would have different numbers of roots), trailing zeros dropped
    and returned as zero roots (examples that differ there are computed in groups).
    """
    eigvals = _d("eigvals")
    concatenate = _d("concatenate")
    divide = _d("divide")
    negative = _d("negative")

    p, d = _only(vals, dims)
    p = move(p, d, 0)
    v = numpy.asarray(value_of(p))
    if v.ndim != 2:
        raise BatchingError(
            f"funcgrad.roots: needs a 1-D array of coefficients per example, got shape "
            f"{list(v.shape[1:])} under vmap"
        )
    n = v.shape[1]
    nz = v != 0
    lead = numpy.where(nz.any(axis=1), nz.argmax(axis=1), n)
    trail = numpy.where(nz.any(axis=1), nz[:, ::-1].argmax(axis=1), 0)
    counts = numpy.where(lead < n, n - 1 - lead, 0)
    if (counts != counts[0]).any():
        raise BatchingError(
            f"funcgrad.roots: under vmap every polynomial must have as many roots, but the "
            f"examples have {sorted(set(counts.tolist()))} (leading zero coefficients lower "
            f"the degree); vmap needs one output shape"
        )
    lo = int(lead[0])
    if counts[0] == 0:
        dtype = registry.get("roots").forward(numpy, v[0]).dtype
        return numpy.zeros((size, 0), dtype=dtype), 0
    groups = []
    order = []
    for t in sorted(set(trail.tolist())):
        rows = numpy.flatnonzero(trail == t)
        sub = getitem(p, index=(rows, slice(lo, n - t)))  # (g, k): nonzero at both ends
        g, k = len(rows), n - t - lo
        out = None
        if k > 1:
            top = negative(
                divide(
                    getitem(sub, index=(slice(None), slice(1, None))),
                    getitem(sub, index=(slice(None), slice(0, 1))),
                )
            )
            below = numpy.eye(k - 2, k - 1, dtype=v.dtype)
            companion = concatenate(
                reshape(top, shape=(g, 1, k - 1)),
                numpy.broadcast_to(below, (g, k - 2, k - 1)),
                axis=1,
            )
            out = eigvals(companion)
        if t:
            dtype = value_of(out).dtype if out is not None else v.dtype
            zeros = numpy.zeros((g, t), dtype=dtype)
            out = zeros if out is None else concatenate(out, zeros, axis=1)
        groups.append(out)
        order.append(rows)
    if len(groups) == 1:
        return groups[0], 0
    joined = concatenate(*groups, axis=0)
    return getitem(joined, index=(numpy.argsort(numpy.concatenate(order)),)), 0


def _hook_scope_rule(prim: Primitive) -> Rule:
    """`hook_scope` is `x` itself: the batch passes through (its hooks see batched cotangents)."""
    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        return run(x, **params), d

    return rule


def _collective(prim: Primitive, axis_zero: bool) -> Rule:
    """`all_reduce` works on any shape; `reduce_scatter` keeps its rank's slice of axis 0, so
    the batch goes second (and is first in the slice)."""

    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        if axis_zero:
            return run(move(x, d, 1), **params), 0
        return run(x, **params), d

    return rule


def _all_gather_rule(prim: Primitive) -> Rule:
    run = direct(prim)

    def rule(size: int, vals: Sequence[Any], dims: Sequence[int | None], /, **params: Any) -> Any:
        x, d = _only(vals, dims)
        return run(x, **params), d + 1

    return rule


# --- the table --------------------------------------------------------------------------------

# fmt: off
ELEMENTWISE = (
    "add subtract multiply divide negative power exp log log1p expm1 sqrt abs sign real imag "
    "conjugate angle sin cos tan tanh sinh cosh arcsin arccos arctan arcsinh arctan2 sigmoid "
    "relu softplus maximum minimum clip clamp where astype identity stop_gradient copy "
    "gammaln gamma rgamma loggamma digamma polygamma beta betaln gammainc gammaincc betainc "
    "erf erfc "
    "erfinv erfcinv ndtr ndtri log_ndtr logit xlogy xlog1py entr iv ive i0 i1 i0e i1e jn yn j0 "
    "j1 y0 y1 log2 log10 exp2 logaddexp logaddexp2 float_power cbrt square reciprocal positive "
    "hypot sinc arccosh arctanh deg2rad rad2deg fabs copysign heaviside fmod remainder fmax fmin "
    "ldexp nextafter to_device named"
).split()
REDUCTIONS = "sum mean prod max min var std logsumexp".split()
SINGLE_AXIS = "max_dim min_dim logcumsumexp".split()
MATRICES = (
    "tril triu inv det logabsdet cholesky eigvalsh eigh_vectors svdvals svd_u svd_vh qr_q qr_r "
    "pinv expm sqrtm logm eigvals eig_vectors lu_factor"
).split()
LOSSES = (
    "mse_loss smooth_l1_loss huber_loss soft_margin_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits"
).split()
# fmt: on


def _nll_decomposed(logp: Any, target: Any, w: Any, *, ignore_index: int, reduction: str) -> Any:
    """`nll_loss` as the primitives it is made of: its VJP rule writes a one-hot mask with NumPy."""
    astype = _d("astype")
    where = _d("where")
    gather = _d("gather")
    expand_dims = _d("expand_dims")

    cd = 0 if ndim_of(logp) == 1 else 1
    valid = target != ignore_index
    safe = numpy.where(valid, target, 0)  # a value (batched or not): the class index
    picked = gather(
        logp, index=expand_dims(safe, axis=cd), axis=cd, keepdims=False, method="gather"
    )
    dtype = numpy.asarray(value_of(logp)).dtype if not hasattr(logp, "dtype") else logp.dtype
    if not ndim_of(w):  # one weight for every class
        wt = astype(valid, dtype=dtype) * w if type(valid) is not bool else float(valid) * w
    else:
        wt = where(valid, getitem(w, index=(safe,)), 0.0)
    loss = -picked * wt
    if reduction == "none":
        return loss
    total = sum_(loss, axis=None, keepdims=False)
    if reduction == "sum":
        return total
    return total / sum_(wt, axis=None, keepdims=False)


# Primitives recorded as the primitives they are made of when a transform inside vmap
# differentiates them (their own rules read values with NumPy).
DECOMPOSED: dict[str, Callable[..., Any]] = {"nll_loss": _nll_decomposed}


def _same_params(size: int, params: dict[str, Any]) -> dict[str, Any] | None:
    return params


def _scatter_params(size: int, params: dict[str, Any]) -> dict[str, Any] | None:
    index, axis = params["index"], params["axis"]
    if axis is None:
        return None
    idx = index.front() if isinstance(index, Mapped) else numpy.asarray(value_of(index))
    nd = idx.ndim - isinstance(index, Mapped)
    if nd == 0:
        return None
    if not isinstance(index, Mapped):
        idx = numpy.broadcast_to(idx, (size, *idx.shape))
    return {**params, "index": idx, "axis": _one_axis(int(axis), nd) + 1}


# Primitives whose VJP or JVP rule computes with NumPy on the values it is given (a
# decomposition's gauge, a pivot order, pooling's argmax, scatter's groups), so it cannot
# take batched values. Their rules take stacks, though: under vmap of a transform
# (`funcgrad.transforms.batching`) a rule is applied once to the batch's stacked values,
# with the parameters the batched application has (the function gives them; None where
# there is no such form, and the rule then runs one example at a time).
STACKED_RULES: dict[str, Callable[[int, dict[str, Any]], dict[str, Any] | None]] = {
    "svdvals": _same_params,
    "svd_u": _same_params,
    "svd_vh": _same_params,
    "lu_factor": _same_params,
    "eig_vectors": _same_params,
    "max_pool": _same_params,
    "scatter": _scatter_params,
}


# --- first-order VJP rules on the stacked batch ------------------------------------------------
#
# A transform inside vmap records nodes whose values are batched. Its first-order backward
# walk can apply a primitive's own VJP rule once to plain arrays, the batch stacked on axis 0
# (`funcgrad.transforms.batching`), instead of applying each primitive the rule is made of to
# batched values: the same NumPy operations on the same arrays, without the batching
# interpreter between them. That needs the rule's parameters in the stacked form, which the
# functions below give (None: no such form, and the walk takes the general path). They get
# the batch size, the number of axes of one example of the rule's first argument, the
# parameters (a batched one as `Mapped`) and the stacked values `(ct, out, *args)`.

StackedParams = Callable[[int, int, dict[str, Any], Sequence[Any]], dict[str, Any] | None]


def _same_shapes(stacked: Sequence[Any]) -> bool:
    ct, out, x = stacked
    return bool(ct.shape == out.shape == x.shape)


def elementwise_stacked(
    size: int, nd: int, params: dict[str, Any], stacked: Sequence[Any]
) -> dict[str, Any] | None:
    """A unary elementwise rule without parameters: cotangent, output and input line up."""
    if params or len(stacked) != 3 or not _same_shapes(stacked):
        return None
    return params


def _softmax_stacked(
    size: int, nd: int, params: dict[str, Any], stacked: Sequence[Any]
) -> dict[str, Any] | None:
    """`softmax`/`log_softmax`: the axes shifted past the batch."""
    if len(stacked) != 3 or not _same_shapes(stacked) or nd == 0:
        return None
    return {**params, "axis": _shifted(params["axis"], nd, "vmap")}


def _getitem_stacked(
    size: int, nd: int, params: dict[str, Any], stacked: Sequence[Any]
) -> dict[str, Any] | None:
    """`getitem` (its rule scatters the cotangent at `index`): the batch's index, as its rule uses."""
    index = params["index"]
    if any(isinstance(i, Mapped) for i in index):
        full = _mapped_index(size, index, nd)
        return None if full is None else {"index": full}
    full, out_dim = _batched_index(_expand_ellipsis(index, nd))
    return {"index": full} if out_dim == 0 else None


STACKED_VJPS: dict[str, StackedParams] = {
    **dict.fromkeys(ELEMENTWISE, elementwise_stacked),
    "softmax": _softmax_stacked,
    "log_softmax": _softmax_stacked,
    "getitem": _getitem_stacked,
}


def _family(name: str) -> Callable[[Primitive], Rule] | None:
    if name in ELEMENTWISE:
        return elementwise
    if name in REDUCTIONS:
        return reduction
    if name in SINGLE_AXIS:
        return single_axis
    if name in MATRICES:
        return _trailing_matrix
    if name in LOSSES:
        return _loss_rule
    return None


# Rules for one primitive each, by name.
RULES: dict[str, Rule | Callable[[Primitive], Rule]] = {
    "reshape": _reshape_rule,
    "broadcast_to": _broadcast_to_rule,
    "transpose": _transpose_rule,
    "squeeze": _squeeze_rule,
    "expand_dims": _expand_dims_rule,
    "flip": _flip_rule,
    "pad": _pad_rule,
    "norm": _norm_rule,
    "matmul": _matmul_rule,
    "einsum": _einsum_rule,
    "solve": _solve_rule,
    "getitem": _getitem_rule,
    "scatter_add": _scatter_add_rule,
    "index_update": _index_update_rule,
    "gather": _gather_rule,
    "scatter": _scatter_rule,
    "conv_weight": _conv_weight_rule,
    "avg_pool_transpose": _pool_transpose_rule,
    "nll_loss": _nll_rule,
    "lower_median": _lower_median_rule,
    "roots": _roots_rule,
}
# Rules made for their primitive (they apply it).
FACTORIES: dict[str, Callable[[Primitive], Rule]] = {
    "multiply": _multiply,
    "softmax": softmax_like,
    "log_softmax": softmax_like,
    "cumsum": flattening_axis,
    "cumprod": flattening_axis,
    "fftn": _fft,
    "ifftn": _fft,
    "rfftn": _fft,
    "irfftn": _fft,
    "concatenate": lambda p: _joined(p, False),
    "stack": lambda p: _joined(p, True),
    "conv": _conv_rule,
    "conv_transpose": _conv_rule,
    "unfold": _sample_axis,
    "fold": _sample_axis,
    "max_pool": _leading_batch,
    "avg_pool": _leading_batch,
    "all_reduce": lambda p: _collective(p, False),
    "reduce_scatter": lambda p: _collective(p, True),
    "all_gather": _all_gather_rule,
    "solve_sylvester": _stacked,
    "hook_scope": _hook_scope_rule,
}


def rule_for(prim: Primitive) -> Rule | None:
    """Return `prim`'s batching rule (and store it in `prim.batch`), or None if it has none."""
    if prim.batch is not None:
        return prim.batch
    name = prim.name
    rule: Rule | None = None
    if name in RULES:
        rule = RULES[name]  # type: ignore[assignment]
    elif name in FACTORIES:
        rule = FACTORIES[name](prim)
    else:
        family = _family(name)
        if family is not None:
            rule = family(prim)
    if rule is not None:
        object.__setattr__(prim, "batch", rule)
    return rule


def fill() -> None:
    """Give every registered primitive the rule the table has for it (`Primitive.batch`)."""
    for prim in registry.primitives():
        rule_for(prim)


__all__ = [
    "DECOMPOSED",
    "STACKED_RULES",
    "STACKED_VJPS",
    "RULES",
    "Mapped",
    "fill",
    "front",
    "move",
    "ndim_of",
    "rule_for",
]
