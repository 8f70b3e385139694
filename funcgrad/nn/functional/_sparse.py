"""Sparse functions of `torch.nn.functional`: `embedding`, `embedding_bag`, `one_hot`.

`embedding` is a gather of rows (`getitem`), whose gradient scatters back
with repeated indices accumulating; `padding_idx` rows get no gradient, and
`max_norm` renormalizes the looked-up rows of the weight in place first, as
PyTorch does; `scale_grad_by_freq` divides each row's gradient by how often
the input looks it up. On tensors the result's `grad_fn` is PyTorch's
`EmbeddingBackward0`. `one_hot` gives int64 values and no gradient.
"""

from __future__ import annotations

import numpy as np

from funcgrad.backend import constant_like, to_device, xp_of
from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors, update_, value
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add, divide, multiply, stop_gradient, subtract, where
from funcgrad.ops.index import getitem, normalize_index, scatter_add
from funcgrad.ops.shape import reshape

__all__ = ["embedding", "embedding_bag", "one_hot"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):  # fmt: skip
    """Look up rows of `weight` (`torch.nn.functional.embedding`).

    Args:
        input: Integer indices, any shape.
        weight: `(num_embeddings, embedding_dim)`.
        padding_idx: A row that gets no gradient (negative counts from the end).
        max_norm: Rows looked up with a larger `norm_type`-norm are scaled to it,
            in place in `weight` (a tensor or writeable array).
        norm_type: The norm's exponent for `max_norm`.
        scale_grad_by_freq: Divide the gradient of each row by the number of
            times `input` looks it up.
        sparse: Not supported (must be False): funcgrad's gradients are dense arrays.

    Returns:
        `(*input.shape, embedding_dim)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.embedding(np.array([[0, 2]]), np.arange(6.0).reshape(3, 2))
        array([[[0., 1.],
                [4., 5.]]])
    """
    if max_norm is not None:  # on the weight itself, before it becomes a node
        _renorm_(weight, value(input), float(max_norm), float(norm_type))
    return _embedding(input, weight, padding_idx, scale_grad_by_freq, sparse)


@takes_tensors(grad_fn="EmbeddingBackward0")
def _embedding(input, weight, padding_idx, scale_grad_by_freq, sparse):  # noqa: A002
    if sparse:
        raise OpError(
            "funcgrad.nn.functional.embedding: sparse=True is not supported (funcgrad's "
            "gradients are dense arrays); leave it False"
        )
    idx = np.asarray(value(input)) if xp_of(value(input)) is np else value(input)
    if idx.dtype.kind not in "iu":
        raise OpError(
            f"funcgrad.nn.functional.embedding: Expected tensor for argument #1 'indices' to "
            f"have one of the following scalar types: Long, Int; but got {idx.dtype} instead"
        )
    w_shape = shape_of(weight)
    if len(w_shape) != 2:
        raise OpError(
            f"funcgrad.nn.functional.embedding: 'weight' must be 2-D, got weight of size "
            f"{list(w_shape)}"
        )
    n = w_shape[0]
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
        raise OpError(
            f"funcgrad.nn.functional.embedding: index out of range in self (indices in "
            f"[{int(idx.min())}, {int(idx.max())}] for {n} embeddings)"
        )
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise OpError(
                "funcgrad.nn.functional.embedding: Padding_idx must be within num_embeddings"
            )
        padding_idx = padding_idx % n
    out = getitem(weight, index=normalize_index((idx,)))
    if scale_grad_by_freq:
        # the value unchanged, the gradient of each looked-up entry divided by its row's count
        xp = xp_of(idx)
        counts = xp.bincount(idx.reshape(-1), minlength=n)[idx]
        scale = xp.asarray(1.0 / counts, dtype=value(out).dtype)[..., None]
        fixed = stop_gradient(out)
        out = add(fixed, multiply(subtract(out, fixed), scale))
    if padding_idx is not None and (idx == padding_idx).any():
        out = where((idx == padding_idx)[..., None], stop_gradient(out), out)
    return out


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,  # noqa: A002
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):  # fmt: skip
    """Sum, average or take the maximum of bags of rows of `weight` (`torch.nn.functional.embedding_bag`).

    Args:
        input: Integer indices: `(B, N)`, each row a bag of `N`, or 1-D with `offsets`.
        weight: `(num_embeddings, embedding_dim)`.
        offsets: With a 1-D `input`, where each bag starts (the first is 0); a bag ends
            where the next starts, the last at the end of `input` (or, with
            `include_last_offset`, at the last offset, which then starts no bag).
        max_norm: Rows looked up with a larger `norm_type`-norm are scaled to it, in
            place in `weight`, as in `embedding`.
        norm_type: The norm's exponent for `max_norm`.
        scale_grad_by_freq: Not supported (must be False): PyTorch 2.13's own
            gradients for it are inconsistent.
        mode: `"sum"`, `"mean"` or `"max"` of each bag's rows; an empty bag gives zeros.
        sparse: Not supported (must be False): funcgrad's gradients are dense arrays.
        per_sample_weights: With `mode="sum"`, a weight for each entry of `input`
            (same shape), multiplying its row; differentiable.
        include_last_offset: `offsets` has one more entry, the end of the last bag,
            which must be the input's length.
        padding_idx: Entries equal to it are left out of their bag (and of its size).

    Returns:
        `(B, embedding_dim)`.

    Raises:
        OpError: For a 2-D `input` with `offsets`, a 1-D `input` without them, offsets
            that do not start at 0 or go down or past the end (or, with
            `include_last_offset`, end before it), `per_sample_weights` with another mode
            or shape, an unknown mode, `scale_grad_by_freq`, or an index out of range.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> w = np.arange(8.0).reshape(4, 2)
        >>> F.embedding_bag(np.array([0, 1, 3]), w, np.array([0, 2]), mode="sum")
        array([[2., 4.],
               [6., 7.]])
    """
    if max_norm is not None:  # on the weight itself, before it becomes a node
        _renorm_(weight, value(input), float(max_norm), float(norm_type))
    return _embedding_bag(
        input, weight, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
        include_last_offset, padding_idx,
    )  # fmt: skip


def _bags(name, idx, offsets, include_last_offset):
    """The bag of each entry of the flattened input, and the number of bags."""
    if idx.ndim == 2:
        if offsets is not None:
            raise OpError(
                f"funcgrad.nn.functional.{name}: if input is 2D, then offsets has to be None, "
                "as input is treated is a mini-batch of fixed length sequences. However, "
                f"found offsets of type {type(offsets).__name__}"
            )
        b, n = idx.shape
        return np.repeat(np.arange(b), n), b
    if idx.ndim != 1:
        raise OpError(
            f"funcgrad.nn.functional.{name}: input has to be 1D or 2D Tensor, but got Tensor "
            f"of dimension {idx.ndim}"
        )
    if offsets is None:
        raise OpError(f"funcgrad.nn.functional.{name}: offsets has to be a 1D Tensor but got None")
    off = np.asarray(to_device(value(offsets), "cpu"))  # the bags are laid out on the host
    if off.ndim != 1:
        raise OpError(f"funcgrad.nn.functional.{name}: offsets has to be a 1D Tensor")
    if off.dtype.kind not in "iu":
        raise OpError(
            f"funcgrad.nn.functional.{name}: offsets must be an integer tensor, got {off.dtype}"
        )
    if off.size and int(off[0]) != 0:
        raise OpError(
            f"funcgrad.nn.functional.{name}: offsets[0] has to be 0, i.e., the first "
            f"sequence in the mini-batch has to start from position 0. However, got {int(off[0])}"
        )
    if off.size and (np.any(np.diff(off) < 0) or int(off[-1]) > idx.size):
        raise OpError(
            f"funcgrad.nn.functional.{name}: offsets must be non-decreasing and at most the "
            f"input's length {idx.size}, got {off.tolist()}"
        )
    if include_last_offset and off.size and int(off[-1]) != idx.size:
        # NOTE: PyTorch sums only up to the last offset but divides a mean by the count up to
        # the input's end; refused rather than either number.
        raise OpError(
            f"funcgrad.nn.functional.{name}: with include_last_offset=True the last offset "
            f"must be the input's length {idx.size}, got {int(off[-1])}"
        )
    starts = off[:-1] if include_last_offset and off.size else off
    ends = np.append(starts[1:], off[-1] if include_last_offset else idx.size)
    bag = np.repeat(np.arange(starts.size), ends - starts)
    return np.append(bag, np.full(idx.size - bag.size, -1)), starts.size  # -1: past the end


@takes_tensors(grad_fn="EmbeddingBagBackward0")
def _embedding_bag(input, weight, offsets, scale_grad_by_freq, mode, sparse,  # noqa: A002
                   per_sample_weights, include_last_offset, padding_idx):  # fmt: skip
    name = "embedding_bag"
    if mode not in ("sum", "mean", "max"):
        raise OpError(f"funcgrad.nn.functional.{name}: mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise OpError(
            f"funcgrad.nn.functional.{name}: embedding_bag: per_sample_weights was not None. "
            f"per_sample_weights is only supported for mode='sum' (got mode='{mode}'). Please "
            "open a feature request on GitHub."
        )
    if scale_grad_by_freq:
        # NOTE: PyTorch 2.13's CPU kernel divides some rows' gradients by other rows' counts
        # (rows looked up once got a third); rather than a different number, a clear refusal.
        raise OpError(
            f"funcgrad.nn.functional.{name}: scale_grad_by_freq=True is not supported (PyTorch's "
            "own gradients for it are inconsistent); scale the gradient yourself, or use "
            "funcgrad.nn.functional.embedding(scale_grad_by_freq=True) and reduce the bags"
        )
    idx = np.asarray(to_device(value(input), "cpu"))  # the bags are laid out on the host
    if idx.dtype.kind not in "iu":
        raise OpError(
            f"funcgrad.nn.functional.{name}: Expected tensor for argument #1 'indices' to "
            f"have one of the following scalar types: Long, Int; but got {idx.dtype} instead"
        )
    if per_sample_weights is not None and tuple(shape_of(per_sample_weights)) != idx.shape:
        raise OpError(
            f"funcgrad.nn.functional.{name}: per_sample_weights must have the shape of input "
            f"{list(idx.shape)}, got {list(shape_of(per_sample_weights))}"
        )
    bag, n_bags = _bags(name, idx, offsets, include_last_offset)
    flat = idx.reshape(-1)
    n = shape_of(weight)[0] if len(shape_of(weight)) == 2 else 0
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise OpError(
                f"funcgrad.nn.functional.{name}: padding_idx must be within num_embeddings"
            )
        padding_idx = padding_idx % n
    kept = bag >= 0
    if padding_idx is not None:
        kept &= flat != padding_idx
    w = value(weight)
    rows = _embedding(constant_like(flat, w), weight, None, scale_grad_by_freq, sparse)  # (L, D)
    d = shape_of(rows)[1]
    positions = np.flatnonzero(kept)  # the entries summed, bag by bag (bags are in order)
    members = bag[positions]
    size = np.bincount(members, minlength=n_bags)
    if mode == "max":
        r = np.asarray(to_device(value(rows), "cpu"))
        out_idx = np.zeros((n_bags, d), dtype=np.int64)
        ends = np.cumsum(size)
        for b in np.flatnonzero(size):  # the first row that is largest in each column, as PyTorch
            these = positions[ends[b] - size[b] : ends[b]]
            out_idx[b] = these[_first_largest(r[these])]
        columns = np.arange(d)[None, :]
        out = getitem(
            rows, index=normalize_index((constant_like(out_idx, w), constant_like(columns, w)))
        )
        dtype = value(rows).dtype
        return where(constant_like((size > 0)[:, None], w), out, constant_like(0, w, dtype))
    # A segment sum: each kept row added into its bag (scatter_add, whose VJP gathers the
    # bag's cotangent back), so a bag sums only its own rows: an inf or NaN row elsewhere
    # does not reach it (a 0/1 bag matrix times the rows gave 0 * inf = NaN), and the
    # memory is O(L * D), not O(B * L).
    picked = getitem(rows, index=normalize_index((constant_like(positions, w),)))
    if per_sample_weights is not None:
        psw = getitem(
            reshape(per_sample_weights, shape=(-1,)),
            index=normalize_index((constant_like(positions, w),)),
        )
        picked = multiply(picked, reshape(psw, shape=(-1, 1)))
    out = scatter_add(
        picked, index=normalize_index((constant_like(members, w),)), shape=(n_bags, d)
    )
    if mode == "mean":
        counts = np.maximum(size, 1)[:, None].astype(value(rows).dtype)
        out = divide(out, constant_like(counts, w))
    return out


def _first_largest(rows: np.ndarray) -> np.ndarray:
    """Per column, the row PyTorch's max bag keeps: the first, replaced only by a larger one.

    So a NaN in the first row stays (nothing compares larger), and a NaN later is passed
    over (it compares larger than nothing).
    """
    if rows.dtype.kind != "f" or not np.isnan(rows).any():
        return np.argmax(rows, axis=0)
    best = np.argmax(np.where(np.isnan(rows), -np.inf, rows), axis=0)
    best[np.isnan(rows[0])] = 0
    return best


def _renorm_(weight, idx, max_norm: float, norm_type: float) -> None:
    # PyTorch's embedding_renorm_: scale the used rows whose norm exceeds max_norm, in place
    w = value(weight)
    xp = xp_of(w)
    rows = xp.unique(xp.asarray(idx).reshape(-1))
    norms = xp.linalg.norm(w[rows], ord=norm_type, axis=1)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
    new = w.copy()
    new[rows] = w[rows] * scale[:, None]
    update_(weight, new)


@takes_tensors
def one_hot(tensor, num_classes=-1):
    """Return the one-hot encoding of integer `tensor`, int64 (`torch.nn.functional.one_hot`).

    Args:
        tensor: Non-negative integer class indices, any shape.
        num_classes: The number of classes (-1: one more than the largest index).

    Returns:
        `(*tensor.shape, num_classes)`, int64, with no gradient.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.one_hot(np.array([0, 2]), 3)
        array([[1, 0, 0],
               [0, 0, 1]])
    """
    v = value(tensor)
    xp = xp_of(v)
    if v.dtype.kind not in "iu":
        raise OpError(
            "funcgrad.nn.functional.one_hot: one_hot is only applicable to index tensor "
            f"(an integer dtype), got {v.dtype}"
        )
    if v.size and int(v.min()) < 0:
        raise OpError("funcgrad.nn.functional.one_hot: Class values must be non-negative.")
    if num_classes == -1:
        if v.size == 0:
            raise OpError(
                "funcgrad.nn.functional.one_hot: Can not infer total number of classes from "
                "empty tensor."
            )
        num_classes = int(v.max()) + 1
    elif v.size and int(v.max()) >= num_classes:
        raise OpError(
            "funcgrad.nn.functional.one_hot: Class values must be smaller than num_classes."
        )
    return (v[..., None] == xp.arange(num_classes)).astype(xp.int64)
