"""The exceptions funcgrad raises, one class per kind of mistake.

Every message names the funcgrad operation, the shapes, dtypes or values
involved and what to do instead, and ends with a pointer to the matching
section of `docs/errors.md`.
"""

from __future__ import annotations

_DOCS = "https://funcgrad.readthedocs.io/en/latest/errors/"


def _with_link(message: str, cls: type) -> str:
    return f"{message}\n(see docs/errors.md#{cls.__name__.lower()})"


class FuncgradError(Exception):
    """Base class of every error funcgrad raises on purpose.

    Catch this to handle any funcgrad mistake at once; each subclass below
    says when it happens and how to fix it.
    """

    def __init__(self, message: str):
        super().__init__(_with_link(message, type(self)))


class OpError(FuncgradError, ValueError):
    """An operation was given arguments it cannot work with.

    Raised when a primitive's forward fails on its inputs, for example shapes
    that do not broadcast or a matmul whose inner dimensions differ. The
    message names the operation and the shapes and dtypes of its arguments.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.add(np.ones(2), np.ones(3))
        Traceback (most recent call last):
        ...
        funcgrad.errors.OpError: funcgrad.add: ...
    """


class NonScalarOutputError(FuncgradError, ValueError):
    """A gradient of a non-scalar output was asked for without a cotangent.

    Fix: reduce the output first (`out.sum()`), pass a cotangent of the
    output's shape (`backward(out, cotangent)` / `vjp`), or use `jacobian`.
    """


class DtypeError(FuncgradError, TypeError):
    """A value has a dtype that cannot be differentiated.

    Gradients exist only for floating-point values (float16, float32,
    float64). Fix: convert the input with `x.astype(float)` or pass `3.0`
    instead of `3`.
    """


class ShapeError(FuncgradError, ValueError):
    """A cotangent, tangent or rule result has the wrong shape or count."""


class TreeStructureError(FuncgradError, ValueError):
    """Two pytrees that must have the same structure do not.

    The message names the path at which the two structures first differ.
    """


class ReadOnlyError(FuncgradError, ValueError):
    """Code tried to write into an array that a graph holds.

    Values held by graph nodes are read-only so that a gradient can never
    use a changed value. Fix: copy the array first (`arr.copy()`).
    """


class NotDifferentiableError(FuncgradError, NotImplementedError):
    """A gradient was asked of an operation that has no rule for it.

    Fix: wrap the computation in `funcgrad.custom_vjp` and give the rule.
    """
