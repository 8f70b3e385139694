"""Attention and distances of `torch.nn.functional`: `scaled_dot_product_attention`, `cosine_similarity`, `pairwise_distance`.

Each has PyTorch's signature and takes `Tensor`s or arrays and graph nodes;
all are compositions of `matmul`, `softmax` and reductions.
"""

from __future__ import annotations

import math

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.errors import OpError
from funcgrad.nn.functional._adapt import takes_tensors
from funcgrad.nn.functional._adapt import value as _value_of
from funcgrad.nn.functional._dropout import _dropped
from funcgrad.ops import nn as _nn
from funcgrad.ops._util import shape_of
from funcgrad.ops.elementwise import add, divide, maximum, multiply, subtract
from funcgrad.ops.linalg import matmul
from funcgrad.ops.reduce import norm, sum_
from funcgrad.ops.shape import broadcast_to, expand_dims, reshape, swapped_axes, transpose

__all__ = ["cosine_similarity", "pairwise_distance", "scaled_dot_product_attention"]


@takes_tensors
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):  # fmt: skip
    """Return `softmax(q k^T * scale + mask) v` (`torch.nn.functional.scaled_dot_product_attention`).

    Args:
        query: `(*, L, E)`.
        key: `(*, S, E)`.
        value: `(*, S, Ev)`.
        attn_mask: A boolean mask (True: take part) or an additive float mask,
            broadcasting to `(*, L, S)`; or None.
        dropout_p: Dropout probability on the attention weights (drawn from
            funcgrad's generator).
        is_causal: Mask out the keys after each query (a lower-triangular mask).
        scale: The factor of `q k^T` (default `1 / sqrt(E)`).
        enable_gqa: Let `key` and `value` have fewer heads (axis -3) than `query`.

    Returns:
        `(*, L, Ev)`.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> q = np.ones((1, 2, 4))
        >>> F.scaled_dot_product_attention(q, q, np.arange(8.0).reshape(1, 2, 4))
        array([[[2., 3., 4., 5.],
                [2., 3., 4., 5.]]])
    """
    q_shape, k_shape = shape_of(query), shape_of(key)
    if is_causal and attn_mask is not None:
        raise OpError(
            "funcgrad.nn.functional.scaled_dot_product_attention: _scaled_dot_product_attention: "
            "Explicit attn_mask should not be set when is_causal=True"
        )
    if enable_gqa and len(q_shape) >= 3 and k_shape[-3] != q_shape[-3]:
        rep = q_shape[-3] // k_shape[-3]

        def repeat(t):
            s = shape_of(t)
            t = expand_dims(t, axis=(len(s) - 2,))
            t = broadcast_to(t, shape=(*s[:-2], rep, *s[-2:]))
            return reshape(t, shape=(*s[:-3], s[-3] * rep, *s[-2:]))

        key, value = repeat(key), repeat(value)
    e = q_shape[-1]
    factor = float(scale) if scale is not None else 1.0 / math.sqrt(e)
    k_t = transpose(key, axes=swapped_axes(len(shape_of(key)), -1, -2))
    scores = multiply(matmul(query, k_t), factor)
    L, S = q_shape[-2], k_shape[-2]
    v = _value_of(scores)
    xp = xp_of(v)
    if is_causal:
        keep = xp.asarray(np.tril(np.ones((L, S), dtype=bool)))
        scores = add(scores, xp.where(keep, 0.0, -np.inf).astype(v.dtype))
    elif attn_mask is not None:
        m = _value_of(attn_mask)
        if m.dtype == bool:
            scores = add(scores, xp.where(m, 0.0, -np.inf).astype(v.dtype))
        else:
            scores = add(scores, attn_mask)
    weights = _nn.softmax(scores, axis=-1)
    if dropout_p > 0.0:
        weights = _dropped(weights, float(dropout_p), tuple(shape_of(weights)))
    return matmul(weights, value)


@takes_tensors
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Return the cosine of the angle between `x1` and `x2` along `dim` (`F.cosine_similarity`).

    Each is divided by its norm, at least `eps`, before the dot product (as PyTorch).

    Args:
        x1: A tensor, array or node.
        x2: One that broadcasts with `x1`.
        dim: The axis of the vectors.
        eps: The smallest norm.

    Returns:
        The cosines, `dim` removed.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.cosine_similarity(np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]])).round(4)
        array([0.7071])
    """
    s1, s2 = shape_of(x1), shape_of(x2)
    shape = tuple(np.broadcast_shapes(tuple(s1), tuple(s2)))
    if tuple(s1) != shape:
        x1 = broadcast_to(x1, shape=shape)
    if tuple(s2) != shape:
        x2 = broadcast_to(x2, shape=shape)
    n1 = maximum(norm(x1, ord=2, axis=dim, keepdims=True), float(eps))
    n2 = maximum(norm(x2, ord=2, axis=dim, keepdims=True), float(eps))
    return sum_(multiply(divide(x1, n1), divide(x2, n2)), axis=dim, keepdims=False)


@takes_tensors(grad_fn="NormBackward1")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """Return the `p`-norm of `x1 - x2 + eps` along the last axis (`F.pairwise_distance`).

    Args:
        x1: `(*, D)` or `(D,)`.
        x2: One that broadcasts with `x1`.
        p: The norm's exponent.
        eps: Added to the difference (keeps the gradient finite at 0).
        keepdim: Keep the last axis with size 1.

    Returns:
        The distances.

    Examples:
        >>> import numpy as np
        >>> import funcgrad.nn.functional as F
        >>> F.pairwise_distance(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]]), eps=0.0)
        array([5.])
    """
    diff = add(subtract(x1, x2), float(eps))
    if len(shape_of(diff)) == 0:
        raise OpError("funcgrad.nn.functional.pairwise_distance: inputs must have at least 1 dim")
    return norm(diff, ord=float(p), axis=-1, keepdims=bool(keepdim))
