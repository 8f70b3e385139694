"""NumPy's ufunc keywords (`out`, `where`, `dtype`, `casting`, `order`, `subok`) for `funcgrad.numpy`.

The generated functions that mirror a NumPy ufunc (`fnp.add`, `fnp.exp`,
`fnp.matmul` ...) call their primitive directly when no keyword is given
(the fast path stays one call); with a keyword they hand over to `apply`:

* Plain arrays (no graph node among the arguments, `out` and `where`): the
  array module's own ufunc computes, so results, `out=` (written and
  returned, the same object), `where=` with `out=`, `casting=` and `dtype=`
  are NumPy's, and so are its errors. One refusal: `where=` without `out=`,
  where NumPy leaves the masked entries uninitialized (whatever the memory
  held); funcgrad raises rather than return them.
* Graph nodes (traced values, vmap's batched values): `dtype=` casts each
  input to the dtype NumPy would compute in, then applies the primitive, so
  it is differentiable (a float cast's gradient is cast back); `casting=`,
  `order=` and `subok=` are checked as NumPy checks them (NumPy's error for
  a cast the rule forbids) and change no value. `out=` is refused (a traced
  value cannot be written into, and an array written with the result
  would not carry its gradient), and so is `where=` (it needs `out=`).

HIPS autograd passes the keywords to NumPy on plain arrays and fails
inside `grad` (its gradient functions take no `out` or `dtype`); JAX's
`jax.numpy` refuses `out=` and `where=` (its arrays are immutable).
"""

from __future__ import annotations

from typing import Any

import numpy as _np

from funcgrad.backend import xp_for as _xp_for
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.graph import Node as _Node
from funcgrad.numpy._creation import _cast as _cast_node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops._util import describe as _describe

__all__: list[str] = []

# The keywords a traced call takes (NumPy's others, `signature`, `axes`, `axis`, are refused).
_TRACED = frozenset({"where", "casting", "order", "dtype", "subok"})
_PLAIN_SCALARS = (bool, int, float, complex)


def _is_traced(v: Any) -> bool:
    t = type(v)
    if t is _Node:
        return True
    if t is tuple:  # out=(array,): NumPy's form for a ufunc's outputs
        return any(_is_traced(o) for o in v)
    return getattr(t, "__funcgrad_apply__", None) is not None


def _call_text(name: str, args: tuple[Any, ...]) -> str:
    shown = ", ".join(_describe(a) + (" node" if _is_traced(a) else "") for a in args)
    return f"funcgrad.numpy.{name}({shown})"


def _refuse(name: str, args: tuple[Any, ...], why: str) -> _ArgumentTypeError:
    return _ArgumentTypeError(f"{_call_text(name, args)}: {why}")


def _trivial_where(where: Any) -> bool:
    return where is True or (type(where) in (bool, _np.bool_) and bool(where))


def _no_out(out: Any) -> bool:
    return out is None or (type(out) is tuple and all(o is None for o in out))


def _stand_in(a: Any) -> Any:
    """What NumPy's dtype resolution takes for `a`: Python numbers stay weak (NEP 50)."""
    if type(a) in _PLAIN_SCALARS:
        return a
    dtype = getattr(a, "dtype", None)
    if dtype is None:
        dtype = _np.asarray(a).dtype
    return _np.empty((0,) * max(getattr(a, "ndim", 1), 1), dtype)


def _resolution_type(a: Any) -> Any:
    """`a` as `ufunc.resolve_dtypes` takes it: a Python number's type, else a dtype."""
    t = type(a)
    if t is bool:
        return _np.dtype(bool)  # NEP 50: a Python bool is NumPy's bool, not a weak number
    if t in _PLAIN_SCALARS:
        return t
    dtype = getattr(a, "dtype", None)
    return _np.asarray(a).dtype if dtype is None else dtype


def _cast(a: Any, dtype: _np.dtype) -> Any:
    """`a` in the loop's input dtype: a float (or complex) cast of a node is differentiable."""
    if type(a) in _PLAIN_SCALARS:
        return a  # kept weak: computes in the loop's dtype
    current = getattr(a, "dtype", None)
    if current == dtype:
        return a
    if type(a) is _Node and not (a.dtype.kind in "fc" and dtype.kind in "fc"):
        return _cast_node(a, dtype)  # integer or boolean: its values (followed by jit)
    if _is_traced(a):
        return _ew.astype(a, dtype=dtype)
    return _np.asarray(a).astype(dtype, copy=False)


def apply(name: str, prim: Any, args: tuple[Any, ...], out: Any, kwargs: dict[str, Any]) -> Any:
    """Apply `prim` (the primitive of NumPy's ufunc `name`) to `args` with NumPy's ufunc keywords.

    The generated functions call this when a keyword is given; see the module
    docstring for what each keyword does on arrays and on graph nodes.

    Args:
        name: The ufunc's name in NumPy (`"add"`), for the array path and messages.
        prim: The primitive that computes it on nodes.
        args: The inputs.
        out: NumPy's `out` (an array, a tuple of one array, or None).
        kwargs: NumPy's other keywords: `where`, `casting`, `order`, `dtype`, `subok`.

    Returns:
        NumPy's result on plain arrays (`out` itself when given), else a node.

    Raises:
        ArgumentTypeError: `out=` or `where=` with a graph node, or `where=` without
            `out=` (a `TypeError`, what the call without the keywords raised).

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> c = np.zeros(2)
        >>> fnp.add(np.ones(2), 2.0, out=c) is c, c
        (True, array([3., 3.]))
        >>> fnp.exp(np.zeros(2), out=c, where=np.array([True, False])), c
        (array([1., 3.]), array([1., 3.]))
        >>> fg.grad(lambda x: fnp.sum(fnp.multiply(x, x, dtype=np.float32)))(np.ones(2))
        array([2., 2.])
    """
    where = kwargs.get("where", True)
    traced = any(_is_traced(a) for a in args) or _is_traced(out) or _is_traced(where)
    has_out = not _no_out(out)
    if traced and has_out:
        raise _refuse(
            name,
            args,
            "out= cannot be used with graph nodes: a traced value cannot be written into, "
            "and an array written with the result would not carry its gradient. Use the "
            f"returned value instead (`z = fnp.{name}(...)`).",
        )
    if not _trivial_where(where) and not has_out:
        how = (
            "where= selects which entries of out= to write, and out= cannot be used with "
            "graph nodes"
            if traced
            else "NumPy leaves the entries where `where` is false uninitialized (whatever "
            "the memory held); funcgrad refuses rather than return them. Pass out= (those "
            "entries keep its values)"
        )
        raise _refuse(
            name,
            args,
            f"where= without out=: {how}. To choose entries, use "
            f"fnp.where(mask, fnp.{name}(...), other).",
        )
    if not traced:
        ufunc = getattr(_xp_for(name, args), name)
        return ufunc(*args, **kwargs) if out is None else ufunc(*args, out=out, **kwargs)
    return _traced(name, prim, args, kwargs)


def _traced(name: str, prim: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The traced call: NumPy checks the keywords on stand-ins, then casts and the primitive."""
    ufunc = getattr(_np, name)
    checked = {k: v for k, v in kwargs.items() if k != "where"}
    # NumPy's own checks (unknown keywords, casting rules, order, dtype) on empty stand-ins
    ufunc(*(_stand_in(a) for a in args), **checked)
    unsupported = sorted(set(checked) - _TRACED)
    if unsupported:
        raise _refuse(
            name,
            args,
            f"{', '.join(k + '=' for k in unsupported)} is not supported with graph nodes; "
            "call without it",
        )
    dtype = checked.get("dtype")
    if dtype is None:
        return prim(*args)
    # NOTE: dtype= is NumPy's signature=(None, ..., dtype): the loop whose output is dtype
    loop = ufunc.resolve_dtypes(
        tuple(_resolution_type(a) for a in args) + (None,),
        signature=(None,) * len(args) + (_np.dtype(dtype),),
        casting=checked.get("casting", "same_kind"),
    )
    result = prim(*(_cast(a, dt) for a, dt in zip(args, loop[:-1], strict=True)))
    return _cast(result, loop[-1])
