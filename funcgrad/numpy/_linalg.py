"""Hand-written products of `funcgrad.numpy`: einsum, dot, inner, outer, vdot, tensordot.

`matmul`, `tril` and `triu` apply one primitive each and are generated into
`_generated.py`. `einsum` is a primitive too, but its subscripts come first
and are checked here; `dot`, `inner`, `outer`, `vdot` and `tensordot` are
built from `matmul` and `einsum` (and `multiply`, `reshape`), so they are
differentiable to any order like everything else.
"""

from __future__ import annotations

from funcgrad.errors import OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import linalg as _la
from funcgrad.ops import shape as _sh

__all__ = ["dot", "einsum", "inner", "outer", "tensordot", "vdot"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_OPTIMIZE = (False, True, "greedy", "optimal")


def dot(a, b):
    """Return NumPy's `dot(a, b)`.

    For 1-D and 2-D operands this is the inner product or the matrix
    product (`matmul`); a 0-D operand multiplies. For N-D operands it sums
    over the last axis of `a` and the second-to-last axis of `b`, and the
    result has `a`'s other axes followed by `b`'s (unlike `matmul`, the batch
    axes do not broadcast). The `out` argument of NumPy is not supported.

    Args:
        a: An array, a number, or a graph node.
        b: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.dot([1.0, 2.0], [3.0, 4.0])
        np.float64(11.0)
        >>> fnp.dot(np.ones((2, 3)), np.ones((4, 3, 5))).shape
        (2, 4, 5)
    """
    return _la.dot(a, b)


def inner(a, b):
    """Return the inner product of `a` and `b` over their last axes, as `numpy.inner`.

    The result has the axes of `a` but its last, followed by those of `b`
    but its last. A 0-D operand multiplies.

    Args:
        a: An array, a number, or a graph node.
        b: An array, a number, or a graph node.

    Returns:
        An array, or a node if either argument is a node.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.inner([1.0, 2.0], [3.0, 4.0])
        np.float64(11.0)
        >>> fnp.inner(np.ones((2, 3)), np.ones((4, 3))).shape
        (2, 4)
    """
    na, nb = _la._ndim(a), _la._ndim(b)
    if na == 0 or nb == 0:
        return _ew.multiply(a, b)
    if na == 1 and nb == 1:
        return _la.matmul(a, b)
    if na + nb - 1 > len(_LETTERS):
        raise OpError(f"funcgrad.inner: operands with {na} and {nb} axes need too many labels")
    la = _LETTERS[:na]
    lb = _LETTERS[na : na + nb - 1] + la[-1]
    return _la.einsum(a, b, subscripts=f"{la},{lb}->{la[:-1]}{lb[:-1]}", optimize=True)


def outer(a, b):
    """Return the outer product `a.ravel()[:, None] * b.ravel()[None, :]`, as `numpy.outer`.

    Args:
        a: An array, a number, or a graph node (flattened).
        b: An array, a number, or a graph node (flattened).

    Returns:
        A 2-D array, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.outer([1.0, 2.0], [1.0, 10.0, 100.0])
        array([[  1.,  10., 100.],
               [  2.,  20., 200.]])
    """
    return _ew.multiply(_sh.reshape(a, shape=(-1, 1)), _sh.reshape(b, shape=(1, -1)))


def vdot(a, b):
    """Return the dot product of `a` and `b` flattened, as `numpy.vdot` for real arrays.

    Args:
        a: An array, a number, or a graph node (flattened).
        b: An array or graph node with as many elements as `a`.

    Returns:
        A 0-D value, or a node if either argument is a node.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.vdot([[1.0, 2.0], [3.0, 4.0]], [[1.0, 1.0], [1.0, 1.0]])
        np.float64(10.0)
    """
    return _la.matmul(_sh.reshape(a, shape=(-1,)), _sh.reshape(b, shape=(-1,)))


def tensordot(a, b, axes=2):
    """Return the sum of products over the given axes of `a` and `b`, as `numpy.tensordot`.

    Args:
        a: An array, or a graph node.
        b: An array, or a graph node.
        axes: An int `N` (sum over the last `N` axes of `a` and the first
            `N` of `b`), or a pair `(axes_a, axes_b)` of ints or sequences of
            ints of the same length, paired in order.

    Returns:
        An array with the axes of `a` not summed over, then those of `b`;
        a node if either argument is a node.

    Raises:
        funcgrad.errors.OpError: If the axes are out of range or repeated.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5))).shape
        (2, 5)
        >>> fnp.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=([0, 1], [1, 0]))
        array(6.)
    """
    na, nb = _la._ndim(a), _la._ndim(b)
    if isinstance(axes, int):
        if not 0 <= axes <= min(na, nb):
            raise OpError(
                f"funcgrad.tensordot: axes={axes} does not fit operands with {na} and {nb} axes"
            )
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
    if len(axes_a) != len(axes_b):
        raise OpError(f"funcgrad.tensordot: axes {axes_a} of a and {axes_b} of b must be as many")
    for name, ax, nd in (("a", axes_a, na), ("b", axes_b, nb)):
        if any(not -nd <= i < nd for i in ax) or len({i % nd for i in ax}) != len(ax):
            raise OpError(
                f"funcgrad.tensordot: axes {ax} of {name} are out of range or repeated "
                f"for an operand with {nd} axes"
            )
    if na + nb > len(_LETTERS):
        raise OpError(f"funcgrad.tensordot: operands with {na} and {nb} axes need too many labels")
    la = list(_LETTERS[:na])
    lb = list(_LETTERS[na : na + nb])
    for i, j in zip(axes_a, axes_b, strict=True):
        lb[j % nb] = la[i % na]
    summed = {la[i % na] for i in axes_a}
    out = [c for c in la if c not in summed] + [c for c in lb if c not in summed]
    spec = f"{''.join(la)},{''.join(lb)}->{''.join(out)}"
    return _la.einsum(a, b, subscripts=spec, optimize=True)


def einsum(subscripts, *operands, optimize=False):
    """Return the Einstein summation of `operands` described by `subscripts`, as `numpy.einsum`.

    Supported: explicit (`"ij,jk->ik"`) and implicit (`"ij,jk"`) output,
    the ellipsis `...` (its axes broadcast), labels repeated within one
    operand (diagonals, as in `"ii->i"` or the trace `"ii"`) and size-1
    axes broadcasting against a label's size. The gradient of each operand
    is again an `einsum`, so derivatives of any order work.

    Not supported: NumPy's interleaved form `einsum(op0, sublist0, ...)`,
    and the `out`, `dtype`, `order` and `casting` arguments.

    Args:
        subscripts: Comma-separated labels of each operand's axes, optionally
            `->` and the output's labels.
        *operands: Arrays or graph nodes.
        optimize: NumPy's contraction-order option: `False` (the default,
            as in NumPy), `True`, `"greedy"` or `"optimal"`. The gradient's
            einsums use the same setting.

    Returns:
        An array, or a node if any operand is a node.

    Raises:
        funcgrad.errors.OpError: If `subscripts` is not a string, or does not
            fit the operands.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> a = np.arange(6.0).reshape(2, 3)
        >>> fnp.einsum("ij,ij->i", a, a)
        array([ 5., 50.])
        >>> fnp.einsum("ii", np.eye(3))
        np.float64(3.0)
    """
    if not isinstance(subscripts, str):
        raise OpError(
            f"funcgrad.einsum: subscripts must be a string such as 'ij,jk->ik', got "
            f"{type(subscripts).__name__}; the interleaved form einsum(op, sublist, ...) "
            f"is not supported"
        )
    if not operands:
        raise OpError(f"funcgrad.einsum: {subscripts!r} was given no operands")
    if optimize not in _OPTIMIZE or type(optimize) not in (bool, str):
        raise OpError(
            f"funcgrad.einsum: optimize must be one of {_OPTIMIZE}, got {optimize!r}; "
            f"explicit contraction paths are not supported"
        )
    return _la.einsum(*operands, subscripts=subscripts, optimize=optimize)
