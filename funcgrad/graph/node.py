"""Graph nodes: frozen, slotted attrs records that compare by identity.

A node holds the primitive that made it, its inputs (other nodes, or
constants such as Python floats and read-only arrays), the primitive's
static parameters, and its value. Shape and dtype are read off the value,
so a node stores nothing twice. Nodes are never changed after they are
made; "changing" a graph means building new nodes that share the old ones.

Nodes are built on the hot path, so `Primitive.bind` fills the slots
through their descriptors instead of running the attrs-generated
`__init__` (0.35 against 0.66 us in a timeit microbenchmark on a 2-core
x86 machine). `make_node`, the same for code off the hot path, also wraps
the parameters read-only, which costs that gain back (benchmarks/run.py
measures both). To users the node is as frozen as any attrs instance.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs
import numpy as _np

from funcgrad.backend import freeze, freeze_result, is_inexact
from funcgrad.errors import DtypeError, NotDifferentiableError

# An array value: a NumPy or CuPy array, a NumPy scalar or a Python number. `Any`, since
# NumPy and CuPy arrays share no static type; the one alias `graph`, `ops` and
# `transforms` use for values, and for the operands of rules (nodes or arrays).
Array = Any

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@attrs.frozen(eq=False, slots=True, repr=False, weakref_slot=True)
class Node:
    """One value in an expression graph and how it was computed.

    Nodes compare and hash by identity, so they can key dictionaries
    (gradient maps do). Arithmetic operators and NumPy-style methods
    (`x + y`, `x @ w`, `x.sum()`, `x.T`, `x[0]`) apply funcgrad primitives
    and return new nodes; comparisons (`x > 0`) compare the values and return
    plain boolean arrays. `==` is identity, as for every node.

    `copy.copy(node)` and `copy.deepcopy(node)` return the node itself (it is
    immutable). `pickle` saves only the value: a node comes back as a new
    leaf holding it, without its history (as PyTorch pickles a tensor).

    Attributes:
        prim: The primitive that computed this node, or `None` for a leaf.
        inputs: The primitive's inputs: nodes, or constants.
        params: The primitive's static parameters (axis, shape, ...), read-only.
        value: The read-only array this node computed.
        seq: The node's creation number. A node is made after its inputs,
            so sorting nodes by `seq` puts them in topological order.

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf([1.0, 2.0])
        >>> y = (x * x).sum()
        >>> y.value, y.prim.name, y.inputs[0].prim.name
        (np.float64(5.0), 'sum', 'multiply')
    """

    prim: Any  # a funcgrad.ops.Primitive, which `graph` does not import; None for a leaf
    inputs: tuple[Any, ...]
    params: Mapping[str, Any]
    value: Array
    seq: int = attrs.field(factory=lambda: _next_seq(), repr=False)

    # NumPy must hand `array * node` to `Node.__rmul__` instead of looping.
    __array_ufunc__ = None

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the value."""
        shape: tuple[int, ...] = self.value.shape
        return shape

    @property
    def dtype(self) -> Any:
        """The dtype of the value."""
        return self.value.dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions of the value."""
        ndim: int = self.value.ndim
        return ndim

    @property
    def size(self) -> int:
        """The number of elements of the value."""
        size: int = self.value.size
        return size

    @property
    def is_leaf(self) -> bool:
        """Whether this node is a leaf (made by `leaf`, not by a primitive)."""
        return self.prim is None

    def __len__(self) -> int:
        return len(self.value)

    # NOTE: copying and pickling. A node is immutable, so `copy.copy` and
    # `copy.deepcopy` return the node itself (as for a tuple): a deep copy of a
    # pytree or of a GradMap keeps its nodes, so it can still be indexed with
    # them. Pickling saves the value only, as PyTorch does for a tensor: the
    # node comes back as a new leaf holding that value, without its history.
    def __copy__(self) -> Node:
        """Return the node itself: a node is immutable (as `copy.copy` of a tuple)."""
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Node:
        """Return the node itself: nodes are immutable and compare by identity."""
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        """Pickle the value only: unpickling gives a new leaf holding it (no history)."""
        return (_unpickled_leaf, (self.value,))

    def __repr__(self) -> str:
        """`Node(tanh, array([0.76159416, 0.96402758]))`: the primitive and the value.

        The value is shown as NumPy shows an array (abbreviated past
        `np.get_printoptions()['threshold']` elements), so printing inside a
        transformed function shows numbers, as HIPS autograd's boxes do.
        """
        prefix = f"Node({'leaf' if self.prim is None else self.prim.name}, "
        try:
            text = _np.array_repr(_np.asarray(self.value))
        except TypeError:  # CuPy refuses the implicit copy to the host
            text = repr(self.value)
        return prefix + text.replace("\n", "\n" + " " * len(prefix)) + ")"

    def __ne__(self, other: object) -> bool:
        # NOTE: `==` is identity (nodes key gradient maps), so an elementwise
        # `x != 0` would silently be True; say what to use instead.
        raise TypeError(
            "funcgrad: `!=` on a graph node is ambiguous (`==` compares nodes by "
            "identity); use funcgrad.numpy.not_equal(x, y) for elementwise values, "
            "or `x is not y` for identity"
        )

    def __bool__(self) -> bool:
        result = bool(self.value)
        if value_readers:
            _report(self, "bool", result)
        return result

    def __float__(self) -> float:
        # NOTE: float(node) (and math.exp(node), which calls it) would cut the
        # node from the graph and silently give a zero derivative, as JAX's
        # concretization error says; int() and bool() stay (piecewise constant).
        raise NotDifferentiableError(
            f"funcgrad: float() of a graph node ({self!r}), also called by math.* "
            f"functions, would cut it from the graph and silently lose its gradient. "
            f"Use funcgrad.numpy functions on nodes (fnp.exp, not math.exp), or "
            f"node.value for the plain, non-differentiable value"
        )

    def __complex__(self) -> complex:
        raise NotDifferentiableError(
            f"funcgrad: complex() of a graph node ({self!r}) would cut it from the "
            f"graph and silently lose its gradient; use node.value for the plain value"
        )

    def __int__(self) -> int:
        result = int(self.value)
        if value_readers:
            _report(self, "int", result)
        return result

    def __index__(self) -> int:
        index: int = self.value.__index__()
        if value_readers:
            _report(self, "index", index)
        return index

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Array:
        # NOTE: NumPy reading a node (np.asarray(node), np.cos(node) in a
        # custom rule) would cut it from the graph and silently give zero
        # derivatives, so it is an error; node.value is the plain value. An
        # integer or boolean node has no derivative to lose (as int() and
        # bool()): NumPy may read it, e.g. as the index of a plain array.
        value = self.value
        if getattr(value, "dtype", None) is not None and value.dtype.kind in "biu":
            if value_readers:  # jit: a read of the value, as `value_of`'s
                box = [value]
                _report(self, "value", box)
            out = value if dtype is None else value.astype(dtype, copy=False)
            return out.copy() if copy else out
        raise TypeError(
            f"funcgrad: a graph node ({self!r}) was passed to NumPy, which would cut it "
            f"from the graph and silently lose its gradient. Use funcgrad.numpy "
            f"functions on nodes, or node.value for the plain (non-differentiable) value"
        )

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # NOTE: the same refusal for NumPy functions that would otherwise call a
        # node's methods with NumPy's own keywords (np.sum(node) -> node.sum(out=...)).
        name = getattr(func, "__name__", str(func))
        if name in _METADATA:  # shape, ndim, size: facts, not values
            return func(*[a.value if type(a) is Node else a for a in args], **kwargs)
        raise TypeError(
            f"funcgrad: numpy.{name} was called on a graph node ({self!r}), which would "
            f"cut it from the graph and silently lose its gradient. Use "
            f"funcgrad.numpy.{name} (import funcgrad.numpy as fnp), or node.value for "
            f"the plain (non-differentiable) value"
        )


# Observers of Python reading a node's value (`bool`, `int`, `index`, or a comparison's name),
# called as `ob(node, kind, result, other)`: `funcgrad.jit` turns the reads into guards while it
# traces. Empty otherwise (one truth test); an observer changes no result.
value_readers: list[Callable[[Node, str, Any, Any], None]] = []


def _report(node: Node, kind: str, result: Any, other: Any = None) -> None:
    for ob in value_readers:
        ob(node, kind, result, other)


# NumPy functions that read only a node's metadata, so they may see its value.
_METADATA = frozenset({"shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj"})


def _unpickled_leaf(value: Array) -> Node:
    """A leaf for a pickled node's value (a fresh array: locked in place, not copied)."""
    return make_node(None, (), _EMPTY, freeze_result(value))


_next_seq: Callable[[], int] = itertools.count().__next__
_new = object.__new__
_set_prim = Node.__dict__["prim"].__set__
_set_inputs = Node.__dict__["inputs"].__set__
_set_params = Node.__dict__["params"].__set__
_set_value = Node.__dict__["value"].__set__
_set_seq = Node.__dict__["seq"].__set__


def complex_message(op: str, value: Any) -> str:
    """The `DtypeError` message for a complex value recorded by a primitive that refuses it.

    Complex values are differentiated (see `docs/concepts/complex.md`) by the
    primitives whose rules were checked on complex inputs
    (`funcgrad.ops.registry.Sample.complex`); the others refuse a complex
    value in a recorded graph rather than give a wrong gradient.
    """
    shape = getattr(value, "shape", ())
    return (
        f"{op}: a complex value ({value.dtype}{list(shape)}) cannot be differentiated "
        f"through this operation: its derivative rules are not defined (or not checked) "
        f"for complex inputs, and funcgrad refuses rather than give a wrong gradient. "
        f"Differentiate the real and imaginary parts as separate real inputs "
        f"(z = x + 1j * y), or compute on plain values (node.value) for a result "
        f"that is not differentiated"
    )


def make_node(prim: Any, inputs: tuple[Any, ...], params: Mapping[str, Any], value: Array) -> Node:
    """Build a node without the attrs `__init__` (the engine's hot path).

    The caller guarantees that `value` is already read-only (see
    `funcgrad.backend.freeze`); `params` is stored behind a read-only view.

    Args:
        prim: The primitive, or `None` for a leaf.
        inputs: Input nodes and constants, in the primitive's argument order.
        params: Static parameters (keyword arguments of the primitive).
        value: The primitive's read-only output.

    Returns:
        The new node.
    """
    node = _new(Node)
    _set_prim(node, prim)
    _set_inputs(node, inputs)
    _set_params(node, params if type(params) is MappingProxyType else MappingProxyType(params))
    _set_value(node, value)
    _set_seq(node, _next_seq())
    return node


def leaf(value: Any) -> Node:
    """Make a leaf node: a value to differentiate with respect to.

    The value is taken with `funcgrad.backend.freeze` (a writeable array is
    copied; the node's copy is read-only). Python floats become float64.

    Args:
        value: A floating-point or complex array, scalar or nested list
            (complex gradients follow `docs/concepts/complex.md`).

    Returns:
        A new leaf node.

    Raises:
        DtypeError: If the value is not floating point or complex.

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf(2.0)
        >>> fg.backward(x * x)[x]
        np.float64(4.0)
    """
    value = freeze(value)
    if not is_inexact(value.dtype):
        raise DtypeError(
            f"funcgrad.leaf: a leaf must hold floating-point values, got dtype "
            f"{value.dtype} with shape {value.shape}. Convert it first, e.g. "
            f"x.astype(float) or 3.0 instead of 3."
        )
    return make_node(None, (), _EMPTY, value)
