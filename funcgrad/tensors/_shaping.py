"""Shapes of the tensor API: joins, splits, flips and rolls, repeats, diagonals, running products ...

Compositions of the shape primitives and `funcgrad.numpy` (slices are
`getitem` nodes, joins `concatenate`), with PyTorch's signatures and checks.
Pieces of a split are separate nodes that share the input's graph.
"""

from __future__ import annotations

import builtins

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import cumulative as _cu
from funcgrad.ops import reduce as _rd
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import index_of as _index_of
from funcgrad.ops.index import getitem as _getitem
from funcgrad.ops.index import normalize_index as _normalize_index
from funcgrad.tensors._adapters import as_dtype as _as_dtype
from funcgrad.tensors._adapters import dim_of as _dim
from funcgrad.tensors._adapters import one_dim as _one_dim
from funcgrad.tensors._adapters import shape_args as _shape_args
from funcgrad.tensors.tensor_class import Size, Tensor, _apply, _new_like, _unwrap_value

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "chunk",
    "column_stack",
    "concat",
    "cumprod",
    "diag",
    "diag_embed",
    "diagflat",
    "diff",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "logcumsumexp",
    "movedim",
    "moveaxis",
    "ravel",
    "repeat_interleave",
    "roll",
    "rot90",
    "row_stack",
    "split",
    "swapaxes",
    "swapdims",
    "tensor_split",
    "tile",
    "trace",
    "unbind",
    "unflatten",
    "vsplit",
    "vstack",
]


def _t(input, op: str) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.{op}(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    return input


def _slice(input, axis: int, start: int, stop: int):  # noqa: A002
    index = (slice(None),) * axis + (slice(start, stop),)
    return _apply(lambda a: _getitem(a, index=_normalize_index(index)), input)


def _int_list(v, op: str, what: str):
    if isinstance(v, Tensor):
        v = v.tolist()
    return [_index_of(n, op, what) for n in v]


# --- joins ------------------------------------------------------------------------------


def concat(tensors, dim=0):
    """Return the tensors joined along `dim` (`funcgrad.cat`'s other name).

    Examples:
        >>> import funcgrad as torch
        >>> torch.concat([torch.ones(1), torch.zeros(1)])
        tensor([1., 0.])
    """
    # NOTE: cycle: functions re-exports this module
    from funcgrad.tensors.functions import cat

    return cat(tensors, dim)


def _stacked(name, fn):
    def f(tensors):
        tensors = list(tensors)
        if not tensors:
            raise _OpError(f"funcgrad.{name}: {name} expects a non-empty TensorList")
        return _apply(lambda ts: fn(ts), tensors)

    f.__name__ = f.__qualname__ = name
    return f


hstack = _stacked("hstack", fnp.hstack)
hstack.__doc__ = """Return the tensors joined along dim 1 (dim 0 for 1-D tensors).

    Examples:
        >>> import funcgrad as torch
        >>> torch.hstack([torch.ones(2), torch.zeros(1)])
        tensor([1., 1., 0.])
    """
vstack = _stacked("vstack", fnp.vstack)
vstack.__doc__ = """Return the tensors (made at least 2-D) joined along dim 0.

    Examples:
        >>> import funcgrad as torch
        >>> torch.vstack([torch.ones(2), torch.zeros(2)])
        tensor([[1., 1.],
                [0., 0.]])
    """
row_stack = vstack
dstack = _stacked("dstack", fnp.dstack)
dstack.__doc__ = """Return the tensors (made at least 3-D) joined along dim 2.

    Examples:
        >>> import funcgrad as torch
        >>> torch.dstack([torch.ones(2), torch.zeros(2)]).shape
        funcgrad.Size([1, 2, 2])
    """
column_stack = _stacked("column_stack", fnp.column_stack)
column_stack.__doc__ = """Return the tensors as columns (1-D ones) joined along dim 1.

    Examples:
        >>> import funcgrad as torch
        >>> torch.column_stack([torch.ones(2), torch.zeros(2)])
        tensor([[1., 0.],
                [1., 0.]])
    """


def _atleast(name, n, fn):
    def f(*tensors):
        one = len(tensors) == 1
        if one and isinstance(tensors[0], (list, tuple)):
            tensors, one = tuple(tensors[0]), False
        out = [t if t.dim() >= n else _apply(fn, t) for t in tensors]
        return out[0] if one else tuple(out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return each tensor viewed with at least {n} dimensions (one tensor, or a tuple).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor(1.0)).shape
        funcgrad.Size([{", ".join(["1"] * n)}])
    """
    return f


atleast_1d = _atleast("atleast_1d", 1, fnp.atleast_1d)
atleast_2d = _atleast("atleast_2d", 2, fnp.atleast_2d)
atleast_3d = _atleast("atleast_3d", 3, fnp.atleast_3d)


# --- splits -------------------------------------------------------------------------------


def split(tensor, split_size_or_sections, dim=0):
    """Return `tensor` cut along `dim` into pieces of one size (the last may be smaller) or of the sizes given.

    Examples:
        >>> import funcgrad as torch
        >>> [t.tolist() for t in torch.split(torch.arange(5.0), 2)]
        [[0.0, 1.0], [2.0, 3.0], [4.0]]
        >>> [t.shape[0] for t in torch.arange(5.0).split([1, 4])]
        [1, 4]
    """
    _t(tensor, "split")
    axis = _one_dim(tensor, dim, "split")
    n = tensor.shape[axis] if tensor.dim() else 0
    if not tensor.dim():
        raise _OpError("funcgrad.split: split expects at least a 1-dimensional tensor")
    if isinstance(split_size_or_sections, (list, tuple)) or (
        isinstance(split_size_or_sections, Tensor) and split_size_or_sections.dim()
    ):
        sizes = _int_list(split_size_or_sections, "split", "each size")
        if builtins.sum(sizes) != n or builtins.any(s < 0 for s in sizes):
            raise _OpError(
                f"funcgrad.split: split_with_sizes expects split_sizes to sum exactly to {n} "
                f"(input tensor's size at dimension {axis}), but got split_sizes={sizes}"
            )
    else:
        size = _index_of(split_size_or_sections, "split", "split_size")
        if size < 0 or (size == 0 and n):
            raise _OpError(
                f"funcgrad.split: split expects split_size be non-negative, but got "
                f"split_size={size}"
                if size < 0
                else "funcgrad.split: split_size can only be "
                f"0 if dimension size is 0, but got dimension size of {n}"
            )
        count = max(-(-n // size), 1) if size else 1
        sizes = [min(size, n - i * size) for i in range(count)]
    out, start = [], 0
    for s in sizes:
        out.append(_slice(tensor, axis, start, start + s))
        start += s
    return tuple(out)


def chunk(input, chunks, dim=0):  # noqa: A002
    """Return `input` cut along `dim` into `chunks` pieces of equal size (the last may be smaller, there may be fewer).

    Examples:
        >>> import funcgrad as torch
        >>> [t.shape[0] for t in torch.chunk(torch.arange(5.0), 3)]
        [2, 2, 1]
    """
    _t(input, "chunk")
    chunks = _index_of(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise _OpError(
            f"funcgrad.chunk: chunk expects `chunks` to be greater than 0, got: {chunks}"
        )
    if not input.dim():
        raise _OpError("funcgrad.chunk: chunk expects at least a 1-dimensional tensor")
    axis = _one_dim(input, dim, "chunk")
    n = input.shape[axis]
    size = -(-n // chunks) if n else 0
    if n == 0:
        return tuple(_slice(input, axis, 0, 0) for _ in range(chunks))
    return split(input, size, axis)


def tensor_split(input, indices_or_sections, dim=0):  # noqa: A002
    """Return `input` cut along `dim` into `n` near-equal pieces, or at the given indices.

    Examples:
        >>> import funcgrad as torch
        >>> [t.shape[0] for t in torch.tensor_split(torch.arange(7.0), 3)]
        [3, 2, 2]
        >>> [t.shape[0] for t in torch.tensor_split(torch.arange(7.0), [1, 5])]
        [1, 4, 2]
    """
    _t(input, "tensor_split")
    if not input.dim():
        raise _OpError(
            "funcgrad.tensor_split: tensor_split expected at least a 1-dimensional tensor, but "
            "got a tensor with 0 dims"
        )
    axis = _one_dim(input, dim, "tensor_split")
    n = input.shape[axis]
    sections = indices_or_sections
    if isinstance(sections, Tensor):
        if sections.dtype.kind not in "iu" or sections.dim() > 1:
            raise _OpError(
                "funcgrad.tensor_split: tensor_split expected tensor_indices_or_sections to "
                "be a zero-dimensional or one-dimensional tensor of integers"
            )
        sections = sections.item() if sections.dim() == 0 else sections.tolist()
    if isinstance(sections, (list, tuple)):
        cuts = _int_list(sections, "tensor_split", "each index")
        bounds = [0, *cuts, n]
        out = []
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            a = min(max(a + n if a < 0 else a, 0), n)
            b = min(max(b + n if b < 0 else b, 0), n)
            out.append(_slice(input, axis, a, max(a, b)))
        return tuple(out)
    k = _index_of(sections, "tensor_split", "sections")
    if k <= 0:
        raise _OpError(f"funcgrad.tensor_split: number of sections must be larger than 0, got {k}")
    big, small = divmod(n, k)
    sizes = [big + 1] * small + [big] * (k - small)
    out, start = [], 0
    for s in sizes:
        out.append(_slice(input, axis, start, start + s))
        start += s
    return tuple(out)


def _split_at(name, axis, min_dims):
    def f(input, indices_or_sections):  # noqa: A002
        if input.dim() < min_dims:
            raise _OpError(
                f"funcgrad.{name}: torch.{name} requires a tensor with at least {min_dims} "
                f"dimension(s), but got a tensor with {input.dim()} dimensions!"
            )
        along = 0 if name == "hsplit" and input.dim() == 1 else axis
        if isinstance(indices_or_sections, int) and input.shape[along] % indices_or_sections:
            raise _OpError(
                f"funcgrad.{name}: torch.{name} attempted to split along dimension {along}, "
                f"but the size of the dimension {input.shape[along]} is not divisible by the "
                f"split_size {indices_or_sections}!"
            )
        return tensor_split(input, indices_or_sections, along)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return `input` split along dim {axis} (`tensor_split`; sections must divide it).

    Examples:
        >>> import funcgrad as torch
        >>> len(torch.{name}(torch.ones(2, 2, 2), 2))
        2
    """
    return f


hsplit = _split_at("hsplit", 1, 1)
vsplit = _split_at("vsplit", 0, 2)
dsplit = _split_at("dsplit", 2, 3)


def unbind(input, dim=0):  # noqa: A002
    """Return the slices of `input` along `dim`, without that dim.

    Examples:
        >>> import funcgrad as torch
        >>> torch.unbind(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 1)
        (tensor([1., 3.]), tensor([2., 4.]))
    """
    _t(input, "unbind")
    if not input.dim():
        raise _OpError("funcgrad.unbind: Dimension specified as 0 but tensor has no dimensions")
    axis = _one_dim(input, dim, "unbind")
    return tuple(
        _apply(lambda a, i=i: _getitem(a, index=(slice(None),) * axis + (i,)), input)
        for i in range(input.shape[axis])
    )


# --- flips, rolls, repeats ------------------------------------------------------------------


def fliplr(input):  # noqa: A002
    """Return `input` reversed left to right (along dim 1; at least 2-D).

    Examples:
        >>> import funcgrad as torch
        >>> torch.fliplr(torch.tensor([[1.0, 2.0]]))
        tensor([[2., 1.]])
    """
    if _t(input, "fliplr").dim() < 2:
        raise _OpError("funcgrad.fliplr: Input must be >= 2-d.")
    return _apply(_sh.flip, input, axis=1)


def flipud(input):  # noqa: A002
    """Return `input` reversed up to down (along dim 0; at least 1-D).

    Examples:
        >>> import funcgrad as torch
        >>> torch.flipud(torch.tensor([1.0, 2.0]))
        tensor([2., 1.])
    """
    if _t(input, "flipud").dim() < 1:
        raise _OpError("funcgrad.flipud: Input must be >= 1-d.")
    return _apply(_sh.flip, input, axis=0)


def roll(input, shifts, dims=None):  # noqa: A002
    """Return `input` rolled by `shifts` along `dims` (the flattened tensor if None).

    Examples:
        >>> import funcgrad as torch
        >>> torch.roll(torch.tensor([1.0, 2.0, 3.0]), 1)
        tensor([3., 1., 2.])
    """
    _t(input, "roll")
    many = isinstance(shifts, (list, tuple))
    shifts_ = (
        _int_list(shifts, "roll", "each shift") if many else [_index_of(shifts, "roll", "shifts")]
    )
    if dims is None:
        if len(shifts_) != 1:
            raise _OpError(
                f"funcgrad.roll: shifts and dimensions must align. shifts: {len(shifts_)}, dims: 0"
            )
        shape = tuple(input.shape)
        return _apply(
            lambda a: _sh.reshape(fnp.roll(_sh.reshape(a, shape=(-1,)), shifts_[0]), shape=shape),
            input,
        )
    dims_ = (
        _int_list(dims, "roll", "each dim")
        if isinstance(dims, (list, tuple))
        else [_index_of(dims, "roll", "dims")]
    )
    if len(dims_) != len(shifts_):
        raise _OpError(
            f"funcgrad.roll: shifts and dimensions must align. shifts: {len(shifts_)}, dims: "
            f"{len(dims_)}"
        )
    axes = [_dim(d, input.dim(), "roll") for d in dims_]
    return _apply(lambda a: fnp.roll(a, tuple(shifts_), axis=tuple(axes)), input)


def rot90(input, k=1, dims=(0, 1)):  # noqa: A002
    """Return `input` rotated by `k` quarter turns in the plane of `dims` (from the first toward the second).

    Examples:
        >>> import funcgrad as torch
        >>> torch.rot90(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor([[2., 4.],
                [1., 3.]])
    """
    _t(input, "rot90")
    dims = _int_list(dims, "rot90", "each dim")
    if len(dims) != 2:
        raise _OpError(
            f"funcgrad.rot90: expected total rotation dims == 2, but got dims = {len(dims)}"
        )
    if input.dim() < 2:
        raise _OpError(
            f"funcgrad.rot90: expected total dims >= 2, but got total dims = {input.dim()}"
        )
    a, b = (_dim(d, input.dim(), "rot90") for d in dims)
    if a == b:
        raise _OpError(
            f"funcgrad.rot90: expected rotation dims to be different, but got dim0 = {a} and "
            f"dim1 = {b}"
        )
    k = _index_of(k, "rot90", "k")
    return _apply(lambda x: fnp.rot90(x, k, axes=(a, b)), input)


def tile(input, dims):  # noqa: A002
    """Return `input` repeated `dims[i]` times along each dim (missing leading dims count as 1).

    Examples:
        >>> import funcgrad as torch
        >>> torch.tile(torch.tensor([1.0, 2.0]), (2,))
        tensor([1., 2., 1., 2.])
    """
    _t(input, "tile")
    reps = _int_list(dims, "tile", "each repetition") if not isinstance(dims, int) else [dims]
    if builtins.any(r < 0 for r in reps):
        raise _OpError(f"funcgrad.tile: Trying to create tensor with negative dimension: {reps}")
    reps = [1] * (input.dim() - len(reps)) + reps
    return repeat(input, *reps) if reps else input.clone()


def repeat(self, *sizes):
    """Return `input` repeated `sizes[i]` times along each dim (the method `Tensor.repeat`).

    `sizes` has at least as many entries as `input` has dims; extra ones add leading dims.

    Examples:
        >>> import funcgrad as torch
        >>> torch.tensor([1.0, 2.0]).repeat(2, 2)
        tensor([[1., 2., 1., 2.],
                [1., 2., 1., 2.]])
    """
    input = self  # noqa: A001
    reps = _shape_args(sizes, "repeat", "repeats")
    if len(reps) < input.dim():
        raise _OpError(
            f"funcgrad.repeat: Number of dimensions of repeat dims can not be smaller than number "
            f"of dimensions of tensor (repeats {list(reps)}, tensor shape {list(input.shape)})"
        )
    if builtins.any(r < 0 for r in reps):
        raise _OpError(
            f"funcgrad.repeat: Trying to create tensor with negative dimension: {list(reps)}"
        )
    return _apply(lambda a: fnp.tile(a, reps), input)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """Return each entry (or slice along `dim`) of `input` repeated `repeats` times (a number or a tensor).

    With `input` alone, an integer tensor of counts, return the indices
    `0, 0, 1, ...` repeated by those counts.

    Examples:
        >>> import funcgrad as torch
        >>> torch.repeat_interleave(torch.tensor([1.0, 2.0]), 2)
        tensor([1., 1., 2., 2.])
    """
    _t(input, "repeat_interleave")
    if repeats is None:
        counts = _unwrap_value(input)
        if counts.ndim != 1 or counts.dtype.kind not in "iu":
            raise _OpError("funcgrad.repeat_interleave: repeats must be 1-d integer tensor")
        return _new_like(Tensor, np.repeat(np.arange(counts.shape[0]), counts), None)
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1 or repeats.dtype.kind not in "iu":
            raise _OpError("funcgrad.repeat_interleave: repeats must be 0-dim or 1-dim tensor")
        reps = repeats.item() if repeats.dim() == 0 or repeats.numel() == 1 else repeats._value
    else:
        reps = _index_of(repeats, "repeat_interleave", "repeats")
    if np.any(np.asarray(reps) < 0):
        raise _OpError("funcgrad.repeat_interleave: repeats can not be negative")
    if dim is None:
        return _apply(lambda a: fnp.repeat(_sh.reshape(a, shape=(-1,)), reps, axis=0), input)
    axis = _one_dim(input, dim, "repeat_interleave")
    if not np.isscalar(reps) and input.dim() and len(reps) != input.shape[axis]:
        raise _OpError(
            f"funcgrad.repeat_interleave: repeats must have the same size as input along dim, "
            f"but got repeats.size(0) = {len(reps)} and input.size({axis}) = {input.shape[axis]}"
        )
    if not input.dim():
        return _apply(lambda a: fnp.repeat(_sh.reshape(a, shape=(1,)), reps, axis=0), input)
    return _apply(lambda a: fnp.repeat(a, reps, axis=axis), input)


def broadcast_to(input, size):  # noqa: A002
    """Return `input` broadcast to `size` (-1 keeps a dimension), as `Tensor.expand`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.broadcast_to(torch.tensor([1.0, 2.0]), (2, 2))
        tensor([[1., 2.],
                [1., 2.]])
    """
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import expand

    return expand(_t(input, "broadcast_to"), tuple(_shape_args((size,), "broadcast_to", "size")))


def broadcast_shapes(*shapes):
    """Return the shape the given shapes broadcast to.

    Examples:
        >>> import funcgrad as torch
        >>> torch.broadcast_shapes((2, 1), (3,))
        funcgrad.Size([2, 3])
    """
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        raise _OpError(
            f"funcgrad.broadcast_shapes: Shape mismatch: shapes {shapes} do not broadcast"
        ) from None


def broadcast_tensors(*tensors):
    """Return the tensors broadcast to one shape.

    Examples:
        >>> import funcgrad as torch
        >>> [t.shape for t in torch.broadcast_tensors(torch.ones(2, 1), torch.ones(3))]
        [funcgrad.Size([2, 3]), funcgrad.Size([2, 3])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    return tuple(t if tuple(t.shape) == shape else broadcast_to(t, shape) for t in tensors)


def unflatten(input, dim, sizes):  # noqa: A002
    """Return `input` with dimension `dim` split into `sizes` (one may be -1).

    Examples:
        >>> import funcgrad as torch
        >>> torch.unflatten(torch.ones(2, 6), 1, (2, 3)).shape
        funcgrad.Size([2, 2, 3])
    """
    _t(input, "unflatten")
    axis = _one_dim(input, dim, "unflatten")
    sizes = _int_list(sizes, "unflatten", "each size")
    if not sizes:
        raise _OpError("funcgrad.unflatten: unflatten: sizes must be non-empty")
    shape = list(input.shape) if input.dim() else [1]
    n = shape[axis]
    known = int(np.prod([s for s in sizes if s != -1]))
    if (
        sizes.count(-1) > 1
        or (-1 not in sizes and known != n)
        or (-1 in sizes and (known == 0 or n % known))
    ):
        raise _OpError(
            f"funcgrad.unflatten: unflatten: Provided sizes {sizes} don't multiply up to the size "
            f"of dim {axis} ({n}) in the input tensor"
        )
    sizes = [n // known if s == -1 else s for s in sizes]
    target = tuple(shape[:axis] + sizes + shape[axis + 1 :])
    return _apply(_sh.reshape, input, shape=target)


def ravel(input):  # noqa: A002
    """Return `input` flattened to 1-D.

    Examples:
        >>> import funcgrad as torch
        >>> torch.ravel(torch.ones(2, 2)).shape
        funcgrad.Size([4])
    """
    return _apply(_sh.reshape, _t(input, "ravel"), shape=(-1,))


def movedim(input, source, destination):  # noqa: A002
    """Return `input` with the dims `source` moved to the positions `destination`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.movedim(torch.ones(2, 3, 4), 0, -1).shape
        funcgrad.Size([3, 4, 2])
    """
    _t(input, "movedim")
    nd = input.dim()
    src = (
        _int_list(source, "movedim", "each dim")
        if isinstance(source, (list, tuple))
        else [_index_of(source, "movedim", "source")]
    )
    dst = (
        _int_list(destination, "movedim", "each dim")
        if isinstance(destination, (list, tuple))
        else [_index_of(destination, "movedim", "destination")]
    )
    if len(src) != len(dst):
        raise _OpError(
            f"funcgrad.movedim: Invalid source or destination dims: source ({src} dims) should "
            f"contain the same number of dims as destination ({dst} dims)"
        )
    src = [_dim(d, nd, "movedim") for d in src]
    dst = [_dim(d, nd, "movedim") for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise _OpError(f"funcgrad.movedim: repeated dim in source {src} or destination {dst}")
    order = [d for d in range(nd) if d not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return _apply(_sh.transpose, input, axes=tuple(order))


moveaxis = movedim


def swapaxes(input, axis0, axis1):  # noqa: A002
    """Return `input` with two dims swapped (`transpose`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.swapaxes(torch.ones(2, 3), 0, 1).shape
        funcgrad.Size([3, 2])
    """
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import transpose

    return transpose(_t(input, "swapaxes"), axis0, axis1)


swapdims = swapaxes


# --- diagonals -------------------------------------------------------------------------------


def diag(input, diagonal=0):  # noqa: A002
    """Return the matrix with `input` (1-D) on a diagonal, or the diagonal of a matrix (2-D).

    Examples:
        >>> import funcgrad as torch
        >>> torch.diag(torch.tensor([1.0, 2.0]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    _t(input, "diag")
    if input.dim() not in (1, 2):
        raise _OpError(f"funcgrad.diag: diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    k = _index_of(diagonal, "diag", "diagonal")
    if input.dim() == 1:
        return diag_embed(input, k)
    return _apply(lambda a: fnp.diagonal(a, k), input)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Return matrices with the last dim of `input` on their `offset` diagonal, placed at dims `dim1`, `dim2`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.diag_embed(torch.tensor([1.0, 2.0]), 1)
        tensor([[0., 1., 0.],
                [0., 0., 2.],
                [0., 0., 0.]])
    """
    _t(input, "diag_embed")
    off = _index_of(offset, "diag_embed", "offset")
    nd = input.dim() + 1
    a = _dim(dim1, nd, "diag_embed")
    b = _dim(dim2, nd, "diag_embed")
    if a == b:
        raise _OpError(
            f"funcgrad.diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}"
        )
    k = input.shape[-1] if input.dim() else 1
    n = k + abs(off)
    place = np.zeros((k, n, n))
    rows = np.arange(k) + max(-off, 0)
    place[np.arange(k), rows, rows + off] = 1.0
    place = place.astype(input.dtype if input.dtype.kind in "fc" else np.float64)

    def embed(x):
        x = _sh.reshape(x, shape=(1,)) if not input.dim() else x
        out = fnp.einsum(
            "...k,kij->...ij", x, place.astype(x.dtype) if hasattr(x, "dtype") else place
        )
        if (a, b) != (nd - 2, nd - 1):
            out = fnp.moveaxis(out, (nd - 2, nd - 1), (a, b))
        return out

    return _apply(embed, input)


def diagflat(input, offset=0):  # noqa: A002
    """Return the matrix with the flattened `input` on its `offset` diagonal.

    Examples:
        >>> import funcgrad as torch
        >>> torch.diagflat(torch.tensor([[1.0], [2.0]]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    return diag_embed(ravel(input), offset)


def trace(input):  # noqa: A002
    """Return the sum of the main diagonal of a matrix.

    Examples:
        >>> import funcgrad as torch
        >>> torch.trace(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        tensor(5.)
    """
    if _t(input, "trace").dim() != 2:
        raise _OpError(
            f"funcgrad.trace: trace: expected a matrix, but got tensor with dim {input.dim()}"
        )
    return _apply(fnp.trace, input)


# --- running products and differences -------------------------------------------------------------


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """Return the running product along `dim` (exact gradients at zeros).

    Examples:
        >>> import funcgrad as torch
        >>> torch.cumprod(torch.tensor([1.0, 2.0, 3.0]), 0)
        tensor([1., 2., 6.])
    """
    input = _as_dtype(_t(input, "cumprod"), dtype)
    axis = _one_dim(input, dim, "cumprod")
    if not input.dim():
        return _apply(
            lambda a: _sh.reshape(_rd.cumprod(_sh.reshape(a, shape=(1,)), axis=0), shape=()), input
        )
    return _apply(_rd.cumprod, input, axis=axis)


def logcumsumexp(input, dim):  # noqa: A002
    """Return `log(cumsum(exp(input)))` along `dim`, computed stably.

    Examples:
        >>> import funcgrad as torch
        >>> torch.logcumsumexp(torch.tensor([0.0, 0.0]), 0)
        tensor([0.0000, 0.6931])
    """
    _t(input, "logcumsumexp")
    axis = _one_dim(input, dim, "logcumsumexp")
    return _apply(_cu.logcumsumexp, input, axis=axis)


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """Return the `n`-th forward difference along `dim`, `prepend`/`append` joined first.

    Examples:
        >>> import funcgrad as torch
        >>> torch.diff(torch.tensor([1.0, 4.0, 9.0]))
        tensor([3., 5.])
    """
    _t(input, "diff")
    if not input.dim():
        raise _OpError("funcgrad.diff: diff expects input to be at least one-dimensional")
    axis = _one_dim(input, dim, "diff")
    n = _index_of(n, "diff", "n")
    if n < 0:
        raise _OpError(f"funcgrad.diff: order must be non-negative but got {n}")
    if n == 0:  # nothing to take: prepend and append are ignored, as in PyTorch
        return input.clone()
    parts = [t for t in (prepend, input, append) if t is not None]
    for t in (prepend, append):
        if isinstance(t, Tensor) and t.dim() != input.dim():
            raise _OpError(
                f"funcgrad.diff: diff expects prepend or append to be the same dimension as "
                f"input (got {t.dim()} and {input.dim()})"
            )
    x = input if len(parts) == 1 else _apply(lambda ts: fnp.concatenate(ts, axis=axis), parts)
    if input.dtype == np.bool_:  # differences of booleans: exclusive or, no gradient
        return _new_like(Tensor, np.diff(_unwrap_value(x), n=n, axis=axis), None)
    return _apply(lambda a: fnp.diff(a, n=n, axis=axis), x)
