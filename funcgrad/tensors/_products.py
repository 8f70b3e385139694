"""Products of the tensor API: `addmm`, `addmv`, `addbmm`, `baddbmm`, `addr`, `mv`, `vdot`, `kron` ...

Each is a composition of `funcgrad.numpy` functions (matmul, einsum, sums)
applied through `_apply`, with PyTorch's checks first: operand ranks and
sizes, and one dtype for all operands (PyTorch's matrix products do not
promote). `beta=0` ignores `input`, NaN included, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import DtypeError as _DtypeError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _linalg
from funcgrad.ops import shape as _sh
from funcgrad.ops._util import index_of as _index_of
from funcgrad.ops._util import normalize_axis as _normalize_axis
from funcgrad.tensors._adapters import one_dim as _one_dim
from funcgrad.tensors._adapters import operands as _operands
from funcgrad.tensors._out import into as _into
from funcgrad.tensors.dtypes import torch_name as _torch_name
from funcgrad.tensors.tensor_class import Tensor, _apply

__all__ = [
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "cdist",
    "chain_matmul",
    "cross",
    "dist",
    "ger",
    "inner",
    "kron",
    "mv",
    "renorm",
    "tensordot",
    "vdot",
]


def _one_dtype(op: str, *tensors) -> None:
    """Refuse operands of different dtypes, as PyTorch's matrix products do."""
    ts = [t for t in tensors if isinstance(t, Tensor)]
    for t in ts[1:]:
        if t.dtype != ts[0].dtype:
            raise _DtypeError(
                f"funcgrad.{op}: expected m1 and m2 to have the same dtype, but got: "
                f"{_torch_name(ts[0].dtype)} != {_torch_name(t.dtype)} (shapes "
                f"{list(ts[0].shape)} and {list(t.shape)}); convert one first, e.g. b.to(a.dtype)"
            )


def _scaled(a, s):
    return a if s == 1 else _ew.multiply(a, s)


def _add_scaled(op, input, product, beta, alpha, out_shape):  # noqa: A002
    """`beta * input + alpha * product`, `input` broadcast to `out_shape` (ignored for beta=0)."""
    shape = tuple(input.shape)
    try:
        ok = np.broadcast_shapes(shape, out_shape) == tuple(out_shape)
    except ValueError:
        ok = False
    if not ok:
        raise _OpError(
            f"funcgrad.{op}: the input of shape {list(shape)} does not broadcast to the "
            f"product's shape {list(out_shape)}"
        )
    for name, s in (("beta", beta), ("alpha", alpha)):
        if isinstance(s, float) and np.dtype(input.dtype).kind in "biu" and s != int(s):
            raise _OpError(f"funcgrad.{op}: {name} must be an integer for integer tensors")

    def f(i, p):
        scaled = _scaled(p, alpha)
        if beta == 0:
            return _sh.broadcast_to(scaled, shape=tuple(out_shape))
        return _ew.add(_scaled(i, beta), scaled)

    return _apply(f, input, product)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """Return `beta * input + alpha * (mat1 @ mat2)` (2-D matrices; `input` broadcasts).

    Examples:
        >>> import funcgrad as torch
        >>> torch.addmm(torch.ones(2, 2), torch.eye(2), torch.eye(2), beta=2)
        tensor([[3., 2.],
                [2., 3.]])
    """
    _operands("addmm", 2, (("mat1", "mat1", mat1), ("mat2", "mat2", mat2)))
    _one_dtype("addmm", input, mat1, mat2)
    (n, k), (k2, m) = mat1.shape, mat2.shape
    if k != k2:
        raise _OpError(
            f"funcgrad.addmm: mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})"
        )
    product = _apply(_linalg.matmul, mat1, mat2)
    return _add_scaled("addmm", input, product, beta, alpha, (n, m))


def mv(input, vec):  # noqa: A002
    """Return the product of a matrix and a vector.

    Examples:
        >>> import funcgrad as torch
        >>> torch.mv(torch.eye(2), torch.tensor([1.0, 2.0]))
        tensor([1., 2.])
    """
    _operands("mv", 2, (("input", "self", input),))
    _operands("mv", 1, (("vec", "vec", vec),))
    _one_dtype("mv", input, vec)
    if input.shape[1] != vec.shape[0]:
        raise _OpError(
            f"funcgrad.mv: size mismatch, got input ({input.shape[0]}x{input.shape[1]}), vec "
            f"({vec.shape[0]})"
        )
    return _apply(_linalg.matmul, input, vec)


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """Return `beta * input + alpha * (mat @ vec)`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.addmv(torch.ones(2), torch.eye(2), torch.tensor([1.0, 2.0]))
        tensor([2., 3.])
    """
    _one_dtype("addmv", input, mat, vec)
    product = mv(mat, vec)
    return _add_scaled("addmv", input, product, beta, alpha, tuple(product.shape))


def _batches(op, b1, b2):
    _operands(op, 3, (("batch1", "batch1", b1), ("batch2", "batch2", b2)))
    b, n, k = b1.shape
    if tuple(b2.shape[:2]) != (b, k):
        raise _OpError(
            f"funcgrad.{op}: batch1 and batch2 must have the same batch size and matching "
            f"inner sizes (got {list(b1.shape)} and {list(b2.shape)})"
        )
    return b, n, b2.shape[2]


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """Return `beta * input + alpha * (batch1 @ batch2)` (batches of matrices).

    Examples:
        >>> import funcgrad as torch
        >>> torch.baddbmm(torch.zeros(1, 2, 2), torch.ones(1, 2, 3), torch.ones(1, 3, 2))
        tensor([[[3., 3.],
                 [3., 3.]]])
    """
    b, n, m = _batches("baddbmm", batch1, batch2)
    _one_dtype("baddbmm", input, batch1, batch2)
    product = _apply(_linalg.matmul, batch1, batch2)
    return _add_scaled("baddbmm", input, product, beta, alpha, (b, n, m))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """Return `beta * input + alpha * sum_b (batch1[b] @ batch2[b])`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.addbmm(torch.zeros(2, 2), torch.ones(3, 2, 1), torch.ones(3, 1, 2))
        tensor([[3., 3.],
                [3., 3.]])
    """
    _, n, m = _batches("addbmm", batch1, batch2)
    _one_dtype("addbmm", input, batch1, batch2)
    product = _apply(lambda a, c: fnp.einsum("bij,bjk->ik", a, c), batch1, batch2)
    return _add_scaled("addbmm", input, product, beta, alpha, (n, m))


def addr(input, vec1, vec2, *, beta=1, alpha=1):  # noqa: A002
    """Return `beta * input + alpha * outer(vec1, vec2)`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.addr(torch.zeros(2, 2), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]))
        tensor([[1., 3.],
                [2., 6.]])
    """
    _operands("addr", 1, (("vec1", "vec1", vec1), ("vec2", "vec2", vec2)))
    product = ger(vec1, vec2)
    return _add_scaled("addr", input, product, beta, alpha, tuple(product.shape))


def ger(input, vec2):  # noqa: A002
    """Return the outer product of two vectors (the old name of `outer`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.ger(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 10.0]))
        tensor([[ 1., 10.],
                [ 2., 20.]])
    """
    _operands("ger", 1, (("input", "self", input), ("vec2", "vec2", vec2)))
    return _apply(fnp.outer, input, vec2)


def vdot(input, other):  # noqa: A002
    """Return the dot product of two 1-D tensors, the first conjugated.

    Examples:
        >>> import funcgrad as torch
        >>> torch.vdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        tensor(11.)
    """
    _operands("vdot", 1, (("input", "self", input), ("other", "other", other)))
    _one_dtype("vdot", input, other)
    if input.shape[0] != other.shape[0]:
        raise _OpError(
            f"funcgrad.vdot: inconsistent tensor size, expected tensor [{input.shape[0]}] and "
            f"src [{other.shape[0]}] to have the same number of elements, but got "
            f"{input.shape[0]} and {other.shape[0]} elements respectively"
        )
    return _apply(fnp.vdot, input, other)


def inner(input, other):  # noqa: A002
    """Return the inner product over the last dimensions (a product for a 0-d operand).

    Examples:
        >>> import funcgrad as torch
        >>> torch.inner(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        tensor(11.)
    """
    return _apply(fnp.inner, input, other)


def kron(input, other):  # noqa: A002
    """Return the Kronecker product of two tensors.

    Examples:
        >>> import funcgrad as torch
        >>> torch.kron(torch.eye(2), torch.ones(1, 2))
        tensor([[1., 1., 0., 0.],
                [0., 0., 1., 1.]])
    """
    return _apply(fnp.kron, input, other)


def cross(input, other, dim=None):  # noqa: A002
    """Return the cross product of 3-vectors along `dim` (None: the first dim of size 3).

    The operands broadcast. `torch.linalg.cross` takes `dim=-1` by default.

    Raises:
        funcgrad.errors.OpError: If that dim has not size 3 in both.

    Examples:
        >>> import funcgrad as torch
        >>> torch.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0]))
        tensor([0., 0., 1.])
    """
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise _ArgumentTypeError("funcgrad.cross(): input and other must be tensors")
    shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    if dim is None:
        if input.dim() != other.dim():
            raise _OpError(
                f"funcgrad.cross: inputs must have the same number of dimensions (got "
                f"{input.dim()} and {other.dim()})"
            )
        sizes = [i for i, n in enumerate(shape) if n == 3]
        if not sizes:
            raise _OpError(
                f"funcgrad.cross: no dimension of size 3 in input (shape {list(input.shape)})"
            )
        axis = sizes[0]
    else:
        axis = _normalize_axis(_index_of(dim, "cross", "dim"), len(shape), "cross")[0]
    if (
        input.shape[axis - len(shape) + input.dim()] != 3
        or other.shape[axis - len(shape) + other.dim()] != 3
    ):
        raise _OpError(
            f"funcgrad.cross: linalg.cross: inputs dimension {axis} must have length 3. Got "
            f"{input.shape[axis - len(shape) + input.dim()]} and "
            f"{other.shape[axis - len(shape) + other.dim()]}"
        )
    _one_dtype("cross", input, other)
    return _apply(lambda a, b: _cross(a, b, axis, shape), input, other)


def _cross(a, b, axis, shape):
    a = _sh.broadcast_to(a, shape=tuple(shape)) if tuple(a.shape) != tuple(shape) else a
    b = _sh.broadcast_to(b, shape=tuple(shape)) if tuple(b.shape) != tuple(shape) else b
    return fnp.cross(a, b, axis=axis)


def tensordot(a, b, dims=2, out=None):
    """Return the sum of products over `dims`: a count of last/first dims, or a pair of dim lists.

    With `out=`, the result is written into that tensor, which is returned (PyTorch's `out`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
        funcgrad.Size([2, 4])
    """
    if out is not None:
        return _into("tensordot", tensordot(a, b, dims), out)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise _OpError(
                f"funcgrad.tensordot: dims must be an int or a pair of lists of dims, got {dims!r}"
            )
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(da) != len(db):
            raise _OpError(
                f"funcgrad.tensordot: both dimension lists should have same length (got "
                f"{da} and {db})"
            )
        axes = (
            [_normalize_axis(d, a.dim(), "tensordot")[0] for d in da],
            [_normalize_axis(d, b.dim(), "tensordot")[0] for d in db],
        )
    else:
        n = _index_of(dims, "tensordot", "dims")
        if n < 0:
            raise _OpError(f"funcgrad.tensordot: tensordot expects dims >= 0, but got dims={n}")
        if n > min(a.dim(), b.dim()):
            raise _OpError(
                f"funcgrad.tensordot: dims {n} is more than the dimensions of an operand "
                f"({a.dim()} and {b.dim()})"
            )
        axes = n
    _one_dtype("tensordot", a, b)
    return _apply(lambda x, y: fnp.tensordot(x, y, axes=axes), a, b)


def chain_matmul(*matrices):
    """Return the product of the 2-D matrices, left to right (`torch.linalg.multi_dot`'s old name).

    Examples:
        >>> import funcgrad as torch
        >>> torch.chain_matmul(torch.eye(2), torch.ones(2, 3)).shape
        funcgrad.Size([2, 3])
    """
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise _OpError("funcgrad.chain_matmul: chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        _operands("chain_matmul", 2, ((f"matrices[{i}]", f"matrices[{i}]", m),))
    out = matrices[0]
    for m in matrices[1:]:
        out = _apply(_linalg.matmul, out, m)
    return out if len(matrices) > 1 else out.clone()


# --- distances -------------------------------------------------------------------------------


def dist(input, other, p=2):  # noqa: A002
    """Return the `p`-norm of `input - other` (broadcast), over all entries.

    Examples:
        >>> import funcgrad as torch
        >>> torch.dist(torch.tensor([0.0, 0.0]), torch.tensor([3.0, 4.0]))
        tensor(5.)
    """
    # NOTE: cycle: linalg imports functions
    from funcgrad.tensors.linalg import vector_norm

    _one_dtype("dist", input, other)
    return vector_norm(input - other, p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Return the `p`-norm distances between each row of `x1` and each row of `x2` (batches broadcast).

    `x1` is `(..., P, M)`, `x2` `(..., R, M)`; the result is `(..., P, R)`.
    The gradient at a zero distance is 0, as in PyTorch.

    Examples:
        >>> import funcgrad as torch
        >>> torch.cdist(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0], [0.0, 1.0]]))
        tensor([[5., 1.]])
    """
    # NOTE: cycle: linalg imports functions
    from funcgrad.tensors.linalg import vector_norm

    for name, t in (("x1", x1), ("x2", x2)):
        if not isinstance(t, Tensor) or t.dim() < 2:
            raise _OpError(
                f"funcgrad.cdist: cdist only supports at least 2D tensors, {name} got: "
                f"{getattr(t, 'dim', lambda: 0)()}D"
            )
    if x1.shape[-1] != x2.shape[-1]:
        raise _OpError(
            f"funcgrad.cdist: X1 and X2 must have the same number of columns. X1: "
            f"{x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise _OpError(f"funcgrad.cdist: cdist only supports non-negative p values (got {p})")
    if np.dtype(x1.dtype).kind not in "fc":
        raise _DtypeError(
            f"funcgrad.cdist: cdist only supports floating-point dtypes, X1 got: "
            f"{_torch_name(x1.dtype)}"
        )
    _one_dtype("cdist", x1, x2)
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import unsqueeze

    diff = unsqueeze(x1, -2) - unsqueeze(x2, -3)
    return vector_norm(diff, p, dim=-1)


def renorm(input, p, dim, maxnorm):  # noqa: A002
    """Return `input` with each slice along `dim` whose `p`-norm exceeds `maxnorm` scaled to it.

    Examples:
        >>> import funcgrad as torch
        >>> torch.renorm(torch.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
        tensor([[0.6000, 0.8000],
                [0.3000, 0.4000]])
    """
    # NOTE: cycle: linalg imports functions
    from funcgrad.tensors.linalg import vector_norm

    if not isinstance(input, Tensor) or input.dim() < 2:
        raise _OpError(
            f"funcgrad.renorm: renorm: input needs at least 2 dimensions, got "
            f"{getattr(input, 'dim', lambda: 0)()} dimensions"
        )
    if p <= 0:
        raise _OpError(f"funcgrad.renorm: renorm: non-positive-norm not supported (got p={p})")
    if maxnorm < 0:
        raise _OpError(f"funcgrad.renorm: renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    axis = _one_dim(input, dim, "renorm")
    others = tuple(d for d in range(input.dim()) if d != axis)
    norms = vector_norm(input, p, dim=others, keepdim=True)
    # PyTorch's factor: maxnorm / (norm + 1e-7) where the norm exceeds maxnorm, else 1
    big = norms.detach() > maxnorm
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import where

    factor = where(big, maxnorm / (norms + 1e-7), 1.0)
    return input * factor
