"""Python operators and NumPy-style methods on `Node`, applying primitives.

`graph` defines `Node` without knowing any primitive; this module, imported
by `funcgrad.ops`, gives it `+ - * / ** @`, indexing, comparisons (which
return plain boolean arrays: they have no gradient) and methods such as
`sum`, `reshape` and `T`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.graph import Node
from funcgrad.graph.node import Array, _report, value_readers
from funcgrad.ops import elementwise as ew
from funcgrad.ops import observe as _observe
from funcgrad.ops import reduce as rd
from funcgrad.ops import shape as sh
from funcgrad.ops._util import attach, value_of
from funcgrad.ops.registry import Primitive

_Method = Callable[..., Any]


def _binary(prim: Primitive) -> _Method:
    bind = prim.bind

    def method(self: Node, other: Any) -> Any:
        # NOTE: with a node first, `Primitive.__call__` binds at once; skipping its frame,
        # argument packing and dispatch loop saves about a tenth of a 0-d operation. An
        # observed thread (profiler, anomaly mode, vmap) goes through it as before.
        if _observe.active:
            return prim(self, other)
        return bind((self, other), _NO_PARAMS)

    return method


def _flip(prim: Primitive) -> _Method:
    return lambda self, other: prim(other, self)


def _unary(prim: Primitive) -> _Method:
    bind = prim.bind

    def method(self: Node) -> Any:
        if _observe.active:  # as in `_binary`
            return prim(self)
        return bind((self,), _NO_PARAMS)

    return method


# The empty parameters `bind` gets from operators: it only reads them (`**`, a truth test).
_NO_PARAMS: dict[str, Any] = {}


def _compare(name: str) -> _Method:
    def compare(self: Node, other: Any) -> Array:
        result = getattr(self.value, name)(value_of(other))
        if value_readers:  # funcgrad.jit is tracing: a guard, or a traced mask handed back
            box = [result]
            _report(self, name, box, other)
            return box[0]
        return result

    compare.__name__ = name
    return compare


def _reshape(self: Node, *shape: Any) -> Any:
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    return sh.reshape(self, shape=shape)


def _sum(self: Node, axis: Any = None, keepdims: bool = False) -> Any:
    return rd.sum_(self, axis=axis, keepdims=keepdims)


_METHODS: dict[str, Any] = {
    "__add__": _binary(ew.add),
    "__radd__": _flip(ew.add),
    "__sub__": _binary(ew.subtract),
    "__rsub__": _flip(ew.subtract),
    "__mul__": _binary(ew.multiply),
    "__rmul__": _flip(ew.multiply),
    "__truediv__": _binary(ew.divide),
    "__rtruediv__": _flip(ew.divide),
    "__pow__": _binary(ew.power),
    "__rpow__": _flip(ew.power),
    "__neg__": _unary(ew.negative),
    "__pos__": lambda self: self,
    "__abs__": _unary(ew.absolute),
    "__lt__": _compare("__lt__"),
    "__le__": _compare("__le__"),
    "__gt__": _compare("__gt__"),
    "__ge__": _compare("__ge__"),
    "sum": _sum,
    "reshape": _reshape,
    "astype": lambda self, dtype: ew.astype(self, dtype=dtype),
}


attach(_METHODS)
