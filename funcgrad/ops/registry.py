"""The primitive registry: each primitive's forward, VJP and JVP rules in one record.

A primitive is declared once, with

* `forward(xp, *args, **params)`: the computation on arrays, the only place
  where the array module `xp` (NumPy or CuPy) is used;
* `vjp`: one rule per input, `rule(ct, out, *args, **params) -> cotangent`
  (or `None` where the input gets no gradient), or a single callable that
  returns a tuple with one entry per input (for variadic primitives);
* `jvp`: one rule per input, `rule(x_t, out, *args, **params) -> tangent`
  (the contributions are summed), a single callable taking the tuple of
  tangents (`None` for zero), or one of the shortcuts `LINEAR` and
  `ELEMENTWISE`.

Rules are written with funcgrad primitives and operators, never with `xp`,
so they are themselves differentiable. On plain arrays a primitive just
computes (no graph), so a first-order backward pays nothing for that; on
nodes it records a new node, which is how higher derivatives arise.

Rules return output-shaped cotangents: the engine sums them back to each
input's shape (and dtype) once, in `funcgrad.transforms.reverse`; forward
mode interprets the JVP forms in `funcgrad.transforms.forward`. A rule is
the math and nothing else: where a zero cotangent must stay zero although
the derivative is infinite (0 * inf), the record says so (`keeps_zeros`)
and both engines apply `funcgrad.ops.guard`.
"""

from __future__ import annotations

import dis
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

import attrs
import numpy as _numpy

from funcgrad.backend import freeze, freeze_result, xp_for
from funcgrad.errors import DtypeError, FuncgradError
from funcgrad.graph import Node
from funcgrad.graph.node import (
    _EMPTY,
    Array,
    _new,
    _next_seq,
    _set_inputs,
    _set_params,
    _set_prim,
    _set_seq,
    _set_value,
    complex_message,
)
from funcgrad.ops import observe as _observe
from funcgrad.ops._util import broadcast_hint, op_error


class _Shortcut:
    def __init__(self, name: str, doc: str):
        self.name = name
        self.__doc__ = doc

    def __repr__(self) -> str:
        return self.name


LINEAR = _Shortcut(
    "LINEAR",
    "JVP shortcut for a primitive linear in all its inputs together: the "
    "tangent of the output is the primitive applied to the tangents.",
)
ELEMENTWISE = _Shortcut(
    "ELEMENTWISE",
    "JVP shortcut for an elementwise primitive: its Jacobian is diagonal, so "
    "each input's JVP rule is its VJP rule with the tangent in place of the "
    "cotangent.",
)


# The values of `Primitive.keeps_zeros` (see `funcgrad.ops.guard`).
KEEPS_ZEROS = (None, "elementwise", "reduction", "slices")


_T = TypeVar("_T")


class Draw(Protocol):
    """The drawing helper a `Sample` gets (`tests/strategies.py` supplies it)."""

    def shape(
        self, min_dims: int = 0, max_dims: int = 3, min_side: int = 1, max_side: int = 4
    ) -> tuple[int, ...]: ...
    def broadcast_shapes(
        self, n: int, min_dims: int = 0, max_dims: int = 3
    ) -> list[tuple[int, ...]]: ...
    def array(self, shape: tuple[int, ...], low: float, high: float) -> Array: ...
    def integers(self, low: int, high: int) -> int: ...
    def choice(self, seq: Sequence[_T]) -> _T: ...
    def boolean(self) -> bool: ...
    def permutation(self, n: int) -> list[int]: ...


# What `Sample.make` returns: the primitive's positional arguments and its static parameters.
Drawn = tuple[tuple[Any, ...], dict[str, Any]]


@attrs.frozen(eq=False)
class Sample:
    """How the generic tests draw arguments for a primitive.

    `make(g)` returns `(args, params)`; `g` is a drawing helper supplied by
    the tests (`tests/strategies.py`) with the methods
    `shape(min_dims=0, max_dims=3, min_side=1, max_side=4)`,
    `broadcast_shapes(n, ...)`, `array(shape, low, high)`,
    `integers(low, high)`, `choice(seq)` and `boolean()`.
    Nothing here imports hypothesis.

    Attributes:
        make: The function that draws one example.
        tol: Relative tolerance of the finite-difference check (float64).
        second_order: Whether the second-order check applies (false for
            rules that are piecewise constant, such as `sign`).
        complex: Whether the primitive takes complex inputs (where NumPy
            does) with rules that are correct for them, in the convention of
            `docs/concepts/complex.md` (JAX's: a holomorphic rule is the real
            one unchanged). When true, the generic tests also draw complex
            arrays (`g.array` gives complex values, real and imaginary parts in
            `[low, high]`) and check both rules against finite differences in
            the real and the imaginary direction. It is also what lets a
            complex value into the primitive's recorded nodes: a primitive
            without it refuses a complex output in a graph (`DtypeError`)
            rather than risk a wrong gradient.
    """

    make: Callable[[Draw], Drawn]
    tol: float = 1e-6
    second_order: bool = True
    complex: bool = False


def _names(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


# A grad_fn rule: `rule(inputs, params)`, from a node's inputs and static parameters,
# gives PyTorch's name, or the name and the positions of the inputs that PyTorch lists
# in `next_functions`.
RuleInputs = tuple[Any, ...]
RuleParams = Mapping[str, Any]
GradFnName = str | tuple[str, tuple[int, ...]]
GradFnRule = Callable[[RuleInputs, RuleParams], GradFnName]


@attrs.frozen
class Names:
    """Where a primitive appears in the public API: the one declaration behind every name.

    `scripts/generate_surfaces.py` writes `funcgrad.numpy`, the PyTorch-style
    functions of `funcgrad` and the `Tensor` methods from these names (where
    a surface's signature differs, the function is written by hand under
    the declared name), and `Tensor.grad_fn` is named from `grad_fn`. Each
    name field takes a name, a tuple of names (the function, then aliases
    of it) or None (absent from that surface).

    Attributes:
        numpy: Name(s) in `funcgrad.numpy` (`"linalg.inv"`: in `funcgrad.numpy.linalg`).
        scipy: Name(s) in `funcgrad.scipy` (`"special.gammaln"`: in
            `funcgrad.scipy.special`).
        torch: Name(s) of the PyTorch-style function in `funcgrad` (`"mul"`).
        method: Name(s) of the `Tensor` method (`"mul"`).
        inplace: Name(s) of the in-place `Tensor` method (`"mul_"`).
        grad_fn: PyTorch's name for the backward of a node the primitive
            makes (`"MulBackward0"`), or a rule `rule(inputs, params)` where
            PyTorch's name depends on how the operation was called (its
            docstring says how); None: the primitive's name in CamelCase,
            then `Backward0`.

    Examples:
        >>> from funcgrad.ops import registry
        >>> registry.get("multiply").names.torch
        ('mul', 'multiply')
    """

    numpy: tuple[str, ...] = attrs.field(default=(), converter=_names)
    scipy: tuple[str, ...] = attrs.field(default=(), converter=_names)
    torch: tuple[str, ...] = attrs.field(default=(), converter=_names)
    method: tuple[str, ...] = attrs.field(default=(), converter=_names)
    inplace: tuple[str, ...] = attrs.field(default=(), converter=_names)
    grad_fn: str | GradFnRule | None = None


@attrs.frozen(eq=False)
class Primitive:
    """A differentiable operation: forward, VJP and JVP rules together.

    Call it like a function: on plain arrays it computes and returns an
    array; if any argument is a `Node`, it returns a new node.

    Attributes:
        name: NumPy-style name (`"exp"`, `"matmul"`); the registry key.
        forward: `forward(xp, *args, **params)` computing on arrays.
        vjp: Per-input VJP rules (a tuple) or one rule returning a tuple.
        jvp: Per-input JVP rules, one rule on the tuple of tangents,
            `LINEAR` or `ELEMENTWISE`.
        params: Names of the static keyword parameters.
        sample: How the generic tests draw arguments.
        doc: One line for the primitives table of the documentation.
        names: Where it appears in `funcgrad.numpy`, among the PyTorch-style
            functions and `Tensor` methods, and its `grad_fn` name (`Names`).
        keeps_zeros: Where the engine keeps a zero (co)tangent zero, for
            rules linear in it that would give 0 * inf = NaN there
            (`funcgrad.ops.guard`): None (no guarantee needed), `"elementwise"`
            (where the cotangent entry is 0), `"reduction"` (a reduction over
            `params["axis"]`: where the cotangent of the reduced entry is 0) or
            `"slices"` (a whole slice along `params["axis"]` where the
            cotangent's slice is all 0).
        batch: The batching rule `funcgrad.vmap` applies the primitive with,
            `rule(size, vals, dims, **params) -> (out, out_dim)` (the values
            with their mapped axis, or None where not mapped); filled by name
            from the table in `funcgrad.ops.batching`. None: no rule, so
            `vmap` loops over the batch.
        numpy_forward: The NumPy function `forward` is on NumPy values, for a
            forward that does more on other array modules (`where`'s on CuPy):
            on NumPy values the primitive calls it directly, as it does by
            itself for a forward `lambda xp, a, b: xp.NAME(a, b)`.

    Examples:
        >>> import numpy as np
        >>> from funcgrad.ops import registry
        >>> registry.get("exp")(np.zeros(2))
        array([1., 1.])
    """

    name: str
    forward: Callable[..., Any]
    vjp: Any
    jvp: Any
    params: tuple[str, ...] = ()
    sample: Sample | None = None
    doc: str = ""
    names: Names = Names()
    keeps_zeros: str | None = attrs.field(default=None, validator=attrs.validators.in_(KEEPS_ZEROS))
    batch: Callable[..., Any] | None = attrs.field(default=None, repr=False)
    numpy_forward: Callable[..., Any] | None = attrs.field(default=None, repr=False)
    # `sample.complex`, read once: whether recorded nodes may hold complex values (see `bind`)
    takes_complex: bool = attrs.field(init=False, default=False, repr=False)
    # `numpy.NAME` and its number of arguments when `forward` is `lambda xp, a, b:
    # xp.NAME(a, b)` (most are): on NumPy values the primitive calls it directly, one Python
    # frame fewer per application; else None and -1
    direct: Callable[..., Any] | None = attrs.field(init=False, default=None, repr=False)
    direct_arity: int = attrs.field(init=False, default=-1, repr=False)
    # what `bind` calls instead: the same, or Python's operator for `+`, `-` and negation
    # (see `_OPERATORS`)
    bind_direct: Callable[..., Any] | None = attrs.field(init=False, default=None, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "takes_complex", self.sample is not None and self.sample.complex)
        direct = _direct_numpy(self.forward)
        if self.numpy_forward is not None:
            direct = self.numpy_forward, self.forward.__code__.co_argcount - 1
        if direct is not None:
            object.__setattr__(self, "direct", direct[0])
            object.__setattr__(self, "direct_arity", direct[1])
            object.__setattr__(self, "bind_direct", _OPERATORS.get(direct[0], direct[0]))

    def __call__(self, *args: Any, **params: Any) -> Any:
        if _observe.active:  # some thread has a profile or anomaly mode open
            out = _observe.observed_call(self, args, params)
            if out is not _observe.UNOBSERVED:
                return out
        for a in args:
            t = type(a)
            if t is Node:
                return self.bind(args, params)
            if t not in _PLAIN:
                # Values of a layer above (funcgrad.Tensor) apply primitives themselves.
                apply = getattr(t, "__funcgrad_apply__", None)
                if apply is not None:
                    return apply(self, args, params)
        xp = _numpy if _modules.get("cupy") is None else xp_for(self.name, args)
        try:
            if xp is _numpy and len(args) == self.direct_arity and not params:
                return self.direct(*args)  # type: ignore[misc]  # not None when the arity is set
            return self.forward(xp, *args, **params)
        except FuncgradError:
            raise
        except Exception as e:  # NumPy's message, with the op named
            raise op_error(self.name, args, params, broadcast_hint(e, *args), e) from e

    def bind(self, args: tuple[Any, ...], params: dict[str, Any]) -> Node:
        """Apply the primitive to arguments of which at least one is a node.

        This is the hot path of every traced operation, hence its shape: the
        common case (only nodes and Python numbers) keeps `args` as the
        node's inputs without copying, and builds the node through its slot
        descriptors.
        """
        values: tuple[Array, ...] | list[Array]  # an annotation: no code runs for it
        if len(args) == 1:
            values = (args[0].value,)  # the one argument is the node
        else:
            values = []
            for a in args:
                t = type(a)
                if t is Node:
                    values.append(a.value)
                elif t is float or t is int or t is complex:
                    values.append(a)  # kept weak: float32 * 2.0 stays float32 (NEP 50)
                elif t is _ndarray and a.base is None and not a.flags.writeable:
                    # NOTE: a locked array of its own memory (W3's and W4's X @ W): what
                    # `freeze` would return as it is, so `args` stays as it was given
                    values.append(a)
                else:
                    args = tuple([x if type(x) is Node else _constant(x) for x in args])
                    values = [x.value if type(x) is Node else x for x in args]
                    break
        xp = _numpy if _modules.get("cupy") is None else xp_for(self.name, values)
        try:
            if xp is _numpy and len(values) == self.direct_arity and not params:
                out = self.bind_direct(*values)  # type: ignore[misc]  # set with the arity
            else:
                out = self.forward(xp, *values, **params)
        except FuncgradError:
            raise
        except Exception as e:
            raise op_error(self.name, values, params, broadcast_hint(e, *values), e) from e
        if type(out) is _ndarray:
            out.setflags(write=False)  # a fresh result: locking it is enough
        elif not isinstance(out, _generic):
            out = freeze_result(out)  # a CuPy result: the graph's own, no copy
        if not self.takes_complex:
            # NOTE: only primitives whose rules were checked on complex inputs may record
            # a complex value, in or out (`Sample.complex`); the others refuse rather than
            # give a wrong gradient. The checked ones (the hot path) pay one attribute read.
            bad = out if out.dtype.kind == "c" else _complex_input(values)
            if bad is not None:
                raise DtypeError(complex_message(f"funcgrad.{self.name}", bad))
        node = _new(Node)
        _set_prim(node, self)
        _set_inputs(node, args)
        _set_params(node, _Frozen(params) if params else _EMPTY)
        _set_value(node, out)
        _set_seq(node, _next_seq())
        if _observe.active:
            _observe.node_made(node)
        return node

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


# NOTE: on 0-d values (NumPy scalars) `x + 0.1` runs NumPy's scalar arithmetic, several times
# faster than the ufunc call `np.add(x, 0.1)`; on arrays the operator calls that ufunc. The
# results are equal bit for bit: these operations are exactly rounded (IEEE 754), also for
# complex numbers (componentwise), and NumPy promotes the same way in both. Not `*`: NumPy's
# scalar complex product rounds differently from its ufunc loop (checked). Only `bind` uses
# them: its values are NumPy arrays or scalars or Python numbers, never lists.
_OPERATORS: dict[Any, Callable[..., Any]] = {
    _numpy.add: operator.add,
    _numpy.subtract: operator.sub,
    _numpy.negative: operator.neg,
}
_SKIPPED_OPS = frozenset({"RESUME", "NOP", "PRECALL", "PUSH_NULL", "CACHE"})


def _direct_numpy(forward: Callable[..., Any]) -> tuple[Callable[..., Any], int] | None:
    """`(numpy.NAME, n)` if `forward` is `lambda xp, a1, ..., an: xp.NAME(a1, ..., an)`, else None."""
    code = getattr(forward, "__code__", None)
    if code is None or code.co_flags & 0x0C or code.co_kwonlyargcount or code.co_argcount < 2:
        return None  # not a plain function of positional arguments only
    names = code.co_varnames[: code.co_argcount]
    ops = [
        (ins.opname, ins.argval)
        for ins in dis.get_instructions(forward)
        if ins.opname not in _SKIPPED_OPS
    ]
    n = len(names) - 1
    if ops[:1] != [("LOAD_FAST", names[0])] or ops[1][0] not in ("LOAD_ATTR", "LOAD_METHOD"):
        return None
    if ops[2:] != [*(("LOAD_FAST", a) for a in names[1:]), ("CALL", n), ("RETURN_VALUE", None)]:
        return None
    fn = getattr(_numpy, ops[1][1], None)
    return None if fn is None else (fn, n)


def _complex_input(values: Any) -> Any:
    """The first complex value among a primitive's inputs (as an array), or None."""
    for v in values:
        dtype = getattr(v, "dtype", None)
        if (dtype is not None and dtype.kind == "c") or type(v) is complex:
            return _numpy.asarray(v)
    return None


def _constant(a: Any) -> Any:
    if type(a) in _PY_SCALARS:
        return a  # kept weak, so float32 * 2.0 stays float32 (NEP 50)
    return freeze(a)


_ndarray = _numpy.ndarray
_generic = _numpy.generic
_PY_SCALARS = (float, int, bool, complex)
# NOTE: types that are plain values for certain. `getattr(np.float64, "__funcgrad_apply__",
# None)` misses through the whole MRO and costs more than the primitive's NumPy call
# itself, on every 0-d value (NumPy scalars) a rule computes with.
_PLAIN = frozenset({_ndarray, *_PY_SCALARS, *_numpy.sctypeDict.values()})
_modules = sys.modules
_Frozen = MappingProxyType


_REGISTRY: dict[str, Primitive] = {}


def register(prim: Primitive) -> Primitive:
    """Add a primitive to the registry and return it.

    Raises:
        ValueError: If a primitive of that name is already registered.
    """
    if prim.name in _REGISTRY:
        raise ValueError(f"funcgrad: a primitive named {prim.name!r} exists already")
    _REGISTRY[prim.name] = prim
    return prim


def get(name: str) -> Primitive:
    """Return the registered primitive called `name`.

    Raises:
        KeyError: If no primitive has that name.
    """
    return _REGISTRY[name]


def primitives() -> list[Primitive]:
    """Return every registered primitive, in registration order."""
    return list(_REGISTRY.values())
