"""How the PyTorch-style functions turn their arguments into a primitive's static parameters.

The generated functions (`_generated.py`) convert `dim` with `dims`, the
one adapter that `scripts/generate_surfaces.py` declares for it. The
hand-written functions (`functions.py` and the modules it gathers) share
the others: PyTorch's `dim` of a reduction (`reduce_dims`) or of an
operation along one dimension (`one_dim`), `*sizes` (`shape_args`),
`dtype=` (`as_dtype`), and the checks of matrix operands (`operands`).

PyTorch's `dim` of a reduction is checked here, once per call, before a
primitive sees it: each dim in range and named once, an empty tuple meaning
every dim (`sum`, `mean`, `var`, `std`, `norm`, `logsumexp`) or none (`all`,
`any`), and a 0-d tensor taking the dims 0 and -1. For a 0-d tensor the
primitive gets `axis=()` (nothing to reduce: its one element), which keeps
the `grad_fn` PyTorch gives a reduction along dims (`SumBackward1`).
"""

from __future__ import annotations

from collections.abc import Iterable

from funcgrad.errors import ArgumentTypeError, OpError
from funcgrad.ops._util import index_of, normalize_axis
from funcgrad.tensors.dtypes import to_dtype
from funcgrad.tensors.tensor_class import Tensor, _unwrap_value


def dims(dim: int | Iterable[int] | None) -> int | tuple[int, ...] | None:
    """Return a `dim` argument as None, an int or a tuple of ints (a primitive's `axis`).

    Examples:
        >>> dims([0, 1]), dims(None), dims(-1)
        ((0, 1), None, -1)
    """
    if dim is None or type(dim) is int:
        return dim
    if not isinstance(dim, Iterable) or getattr(dim, "ndim", 1) == 0:
        return index_of(dim, "", "dim")  # NumPy integers, 0-d integer arrays and tensors
    return tuple(index_of(a, "", "dim") for a in dim)


def ndim_of(input):  # noqa: A002
    return len(getattr(_unwrap_value(input), "shape", ()))


def reduce_dims(input, dim, op, *, empty="all"):  # noqa: A002
    """PyTorch's `dim` of a reduction as the primitive's `axis` (None: every dim).

    Args:
        input: The tensor reduced.
        dim: None, one integer (any integer type, a 0-d integer tensor), or a
            tuple or list of them.
        op: The operation's name, for messages.
        empty: What `dim=()` reduces: "all" dims or "none".

    Raises:
        funcgrad.errors.AxisError: For a dim out of range.
        funcgrad.errors.OpError: For a dim named twice.
        funcgrad.errors.ArgumentTypeError: For a dim that is not an integer.
    """
    if dim is None:
        return None
    ndim = ndim_of(input)
    if hasattr(dim, "__index__") and getattr(dim, "ndim", 0) == 0:
        one = index_of(dim, op, "dim")
        normalize_axis(one, ndim, op)
        return one if ndim else ()
    if isinstance(dim, (str, bytes)) or not hasattr(dim, "__iter__"):
        raise ArgumentTypeError(
            f"funcgrad.{op}(): argument 'dim' must be an int or a tuple of ints, not "
            f"{type(dim).__name__} {dim!r}"
        )
    dims = tuple(index_of(d, op, "each dim") for d in dim)
    axes = normalize_axis(dims, ndim, op)
    if not dims and empty == "all":
        return tuple(range(ndim))
    return axes if ndim else ()


def one_dim(input, dim, op):  # noqa: A002
    """PyTorch's `dim` of an operation along one dimension, as a non-negative int.

    Raises:
        funcgrad.errors.ArgumentTypeError: For None (PyTorch's dim is required
            there), a tuple, or a value that is not an integer.
        funcgrad.errors.AxisError: For a dim out of range.
    """
    if type(dim) is int and type(input) is Tensor:  # the usual case, without the calls below
        n = input._value.ndim
        if n and -n <= dim < n:
            return dim % n
    if dim is None:
        raise ArgumentTypeError(
            f'funcgrad.{op}() missing 1 required positional arguments: "dim"; give the '
            f"dimension to work along, e.g. {op}(x, dim=-1) (there is no flattening default)"
        )
    if not hasattr(dim, "__index__"):
        raise ArgumentTypeError(
            f"funcgrad.{op}(): argument 'dim' must be int, not {type(dim).__name__} {dim!r}"
        )
    return dim_of(dim, ndim_of(input), op)


def as_dtype(input, dtype):  # noqa: A002
    """`input` converted to `dtype` before the operation, as PyTorch's `dtype=` does (recorded)."""
    return input if dtype is None or input.dtype == to_dtype(dtype) else input.to(dtype)


def operands(op, dims, named):
    """Check that `named` ((name, label, value) triples) are tensors of `dims` dimensions."""
    for name, label, t in named:
        if not isinstance(t, Tensor):
            raise ArgumentTypeError(
                f"funcgrad.{op}(): argument {name!r} must be Tensor, not {type(t).__name__}"
            )
        if t.dim() != dims:
            what = "matrix" if dims == 2 else f"{dims}D tensor"
            raise OpError(
                f"funcgrad.{op}: {label} must be a {what} (got shape {list(t.shape)}); "
                f"funcgrad.matmul (`@`) takes other ranks and broadcasts batches"
            )


def shape_args(shape, op="reshape", what="shape"):
    """`*sizes` as PyTorch takes them: `f(2, 3)` or `f((2, 3))`, as a tuple of Python ints.

    Raises:
        funcgrad.errors.ArgumentTypeError: For no argument at all (`x.permute()`); an
            empty tuple is the empty shape.
    """
    if not shape:
        raise ArgumentTypeError(
            f'funcgrad.{op}() missing 1 required positional arguments: "{what}"; give them '
            f"as {op}(a, b, ...) or {op}((a, b, ...)), or {op}(()) for a 0-d tensor"
        )
    if len(shape) == 1 and not hasattr(shape[0], "__index__"):
        shape = tuple(shape[0])
    return tuple(index_of(n, op, "each size") for n in shape)


def dim_of(dim, ndim, op):
    """One `dim` as a non-negative int (any integer type; -1 and 0 for a 0-d tensor)."""
    return normalize_axis(index_of(dim, op, "dim"), ndim, op)[0]
