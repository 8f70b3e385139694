"""Sparse functions of `torch.nn.functional`: `embedding`, `one_hot`.

`embedding` is a gather of rows (`getitem`), whose gradient scatters back
with repeated indices accumulating; `padding_idx` rows get no gradient, and
`max_norm` renormalizes the looked-up rows of the weight in place first, as
PyTorch does; `scale_grad_by_freq` divides each row's gradient by how often
the input looks it up. On tensors the result's `grad_fn` is PyTorch's
`EmbeddingBackward0`. `one_hot` gives int64 values and no gradient.
"""

from __future__ import annotations

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors, update_, value
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add, multiply, stop_gradient, subtract, where
from funcgrad.ops.index import getitem, normalize_index

__all__ = ["embedding", "one_hot"]


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
