"""`jit`: trace a function once per signature, then replay a plan that builds no nodes.

The graph already is the program. On the first call for a signature (the
pytree structure, the shapes, dtypes and devices of the array arguments,
the values of the others), `jit` runs `f` on fresh leaves, so that
everything `f` computes with funcgrad operations, gradients included
(`jit(grad(f))`: the inner transform records its backward pass as nodes),
lands in one graph. That graph becomes a *plan*: straight-line Python
source with one call of a primitive's forward per live node, compiled once
and cached. Later calls with the same signature call the plan on the plain
arrays: no node, no rule, no walk.

What Python reads of the traced values becomes a *guard*: `bool(node)`,
`int(node)`, `operator.index(node)` and comparisons (`x.sum() > 0`) are
reported by the graph (`funcgrad.graph.node.value_readers`), and the plan
checks at replay that each gives what it gave at the trace. A failed guard
traces `f` again for that path; each signature keeps a few paths. Random
numbers drawn from funcgrad's generators (`funcgrad.backend.rng`) are
reported too and become draws of the plan, so each replay advances the
generator as the eager call would.

Building the plan: dead nodes are never reached (the plan is the toposort
of the outputs and guards), values that do not depend on the arguments are
folded into constants, `identity` nodes are aliases, and equal calls on
equal operands are computed once.

A jitted function called on graph nodes (`grad(jit(f))`, `vjp`, `jvp`) is
recorded as one call primitive, `jit_call`, whose rules replay jitted
backward and forward plans (or, when the gradient is itself recorded,
differentiate `f` again on the nodes).
"""

from __future__ import annotations

import collections
import dis
import functools
import operator
import os
import re
import sys
import threading
import warnings
import weakref
from collections.abc import Callable, Hashable, Sequence
from types import MappingProxyType
from typing import Any

import numpy

from funcgrad.backend import freeze, rng, xp_of
from funcgrad.backend.products import (
    FEW,
    MIN_WIDTH,
    draws_for,
    first_column_across,
    first_row_down,
    order_sensitive,
    rows_equal,
)
from funcgrad.backend.versions import own
from funcgrad.graph import Node, to_dot, to_mermaid, toposort
from funcgrad.graph import node as _node_module
from funcgrad.graph.node import _EMPTY, make_node
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import observe as _observe
from funcgrad.ops._util import value_of
from funcgrad.transforms import _trace
from funcgrad.transforms.calls import Call, call_primitive, record
from funcgrad.transforms.forward import jvp as _jvp
from funcgrad.transforms.gradients import graph_output
from funcgrad.transforms.gradients import vjp as _vjp
from funcgrad.transforms.pytree import TreeDef, tree_flatten, tree_map, tree_unflatten

_ndarray = numpy.ndarray
_generic = numpy.generic
_PY_NUMBERS = (float, int, complex, bool)
_COMPARISONS = {"__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">="}
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_local = threading.local()
_install_lock = threading.Lock()
_installed = [0]


class JitWarning(RuntimeWarning):
    """A jitted function runs eagerly, or is traced again and again (the message says why)."""


class _GuardFailed(Exception):
    """Raised by a plan when a guard does not hold; `args[0]` is the guard's number."""


# --- recording a trace ----------------------------------------------------------------


class _Recorder:
    """What one trace saw besides the graph: value reads (guards), random draws, rules' reads."""

    __slots__ = ("bad", "draws", "observing", "reads", "traced", "traced_reads")

    def __init__(self) -> None:
        self.reads: list[tuple[Node, str, Any, Any, str]] = []
        self.draws: list[tuple[Callable[[], Any], Any]] = []
        # Values that derivative rules read (`value_of`) and what they computed from them.
        self.traced: list[_Traced] = []  # kept alive, so that their ids stay theirs
        self.traced_reads: list[tuple[_Traced, str, Any, str]] = []  # Python reads: guards
        self.bad: str | None = None  # why the plan could not follow a read (then: eager)
        self.observing: Any = None


class _Traced(numpy.ndarray):
    """A node's value as a derivative rule reads it in a trace (`value_of`), with its recipe.

    NumPy's ufuncs and array functions on it, indexing and the methods
    below give traced arrays again, each remembering how it was computed
    (`_src`: `("node", node)` or `(replay, traced inputs)`), so that a mask
    such as `value_of(x) > value_of(y)` in `maximum`'s VJP becomes a step of
    the plan. Python reads of it (`bool`, `int`, `float`, `.item()`) become
    guards. Whatever else is derived from it has no recipe (`_src` None) and
    makes the trace run eagerly if it reaches the graph.
    """

    _src: Any = None
    _rec: _Recorder | None = None
    # Handed to `f` itself (a comparison of nodes, `x > 0`) or derived from such a value:
    # user code may read it any way, so what the trace cannot follow becomes a guard on
    # the whole value, and a value whose shape may depend on the data gets a shape guard.
    _user: bool = False

    def __array_finalize__(self, obj: Any) -> None:
        self._src = None  # made by NumPy without us: no recipe
        self._rec = getattr(obj, "_rec", None)
        self._user = getattr(obj, "_user", False)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if "out" in kwargs or method == "at":  # writes into an array: computed, not followed
            _untraceable(self, f"numpy.{ufunc.__name__}.{method}(..., out=...)")
            return getattr(ufunc, method)(*_swap(inputs, {}), **kwargs)
        return _derive(ufunc if method == "__call__" else getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if kwargs.get("out") is not None:
            _untraceable(self, f"numpy.{func.__name__}(..., out=...)")
            return func(*_swap(tuple(args), {}), **kwargs)
        return _derive(func, args, kwargs)

    def __getitem__(self, key: Any) -> Any:
        return _derive(operator.getitem, (self, key), {})

    def __funcgrad_freeze__(self) -> _Traced:
        """`funcgrad.backend.freeze` keeps a traced value (it is read-only) and its recipe."""
        return self

    @staticmethod
    def __funcgrad_value_call__(fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        """A rule helper marked `funcgrad.ops._util.follows_values`: one step of the plan."""
        return _derive(fn, args, kwargs)

    def _read(self, kind: str) -> Any:
        result = _CONVERT[kind](self.view(_ndarray))
        if self._rec is not None:
            self._rec.traced_reads.append((self, kind, result, _user_line()))
        return result

    def __bool__(self) -> bool:
        return self._read("bool")  # type: ignore[no-any-return]

    def __int__(self) -> int:
        return self._read("int")  # type: ignore[no-any-return]

    def __index__(self) -> int:
        return self._read("index")  # type: ignore[no-any-return]

    def __float__(self) -> float:
        return self._read("float")  # type: ignore[no-any-return]

    def __complex__(self) -> complex:
        return self._read("complex")  # type: ignore[no-any-return]

    def item(self, *args: Any) -> Any:
        """A guard when it reads the one element (else eager, or a guard on the whole value)."""
        if args:
            return _untraceable(self, "item(index)").view(_ndarray).item(*args)
        return self._read("item")

    def tolist(self) -> Any:
        """Not followed: eager if the result reaches the graph (user code: a guard on the value)."""
        return _untraceable(self, "tolist()").view(_ndarray).tolist()

    def tobytes(self, order: Any = "C") -> bytes:
        """Not followed, as `tolist()`."""
        plain: _ndarray = _untraceable(self, "tobytes()").view(_ndarray)
        return plain.tobytes(order)

    def view(self, *args: Any, **kwargs: Any) -> Any:
        """`ndarray.view`; a plain view made outside funcgrad (`m.view(numpy.ndarray)`) is a read.

        Its reads cannot be followed, so it counts as `tolist()` does: a guard on the
        whole value for a mask `f` got, eager for a rule's value. (`numpy.asarray(m)` and
        `numpy.array(m)` call no method of an ndarray subclass, so they stay unseen.)
        """
        out = _ndarray.view(self, *args, **kwargs)
        if type(out) is _ndarray and not sys._getframe(1).f_code.co_filename.startswith(_PACKAGE):
            _untraceable(self, "view(numpy.ndarray)")
        return out

    def __iter__(self) -> Any:
        return iter([self[i] for i in range(len(self))])


def _untraceable(t: _Traced, what: str) -> _Traced:
    if t._rec is None:
        return t
    if t._user:  # f read a mask (or a value derived from one): the replay checks the value
        t._rec.traced_reads.append((t, "same", t.view(_ndarray).copy(), _user_line()))
    elif t._rec.bad is None:
        t._rec.bad = f"a derivative rule read a traced value through {what}"
    return t


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "shape": numpy.shape,
    "bool": bool,
    "int": int,
    "index": operator.index,
    "float": float,
    "complex": complex,
    "item": lambda v: v.item(),
}


# The followed methods whose results' shapes do not depend on the values (see `_derive`).
_FIXED_SHAPE: set[Callable[..., Any]] = set()


def _followed(name: str, kind: str) -> Any:
    """A method (or property) of `_Traced` that records `ndarray.name` as a step of the plan."""

    def call(obj: Any, *args: Any, **kwargs: Any) -> Any:
        # NOTE: by name at replay, where a 0-d value may be a NumPy scalar, not an array.
        return getattr(obj, name)(*args, **kwargs)

    def get(obj: Any) -> Any:
        return getattr(obj, name)

    call.__name__ = get.__name__ = name
    if name not in ("nonzero", "repeat"):  # the others: the shape follows from the operands'
        _FIXED_SHAPE.add(call)
        _FIXED_SHAPE.add(get)

    def method(self: _Traced, *args: Any, **kwargs: Any) -> Any:
        return _derive(call, (self, *args), kwargs)

    method.__name__ = name
    method.__doc__ = f"`ndarray.{name}`, followed by the trace."
    if kind == "property":
        return property(lambda self: _derive(get, (self,), {}), doc=method.__doc__)
    return method


# Methods of traced arrays that compute from the values (the others keep the recipe out).
for _name in (
    "all any argmax argmin astype clip conj conjugate copy cumprod cumsum diagonal flatten max "
    "mean min nonzero prod ravel repeat reshape round squeeze std sum swapaxes take transpose var"
).split():
    setattr(_Traced, _name, _followed(_name, "method"))
for _name in ("T", "real", "imag"):
    setattr(_Traced, _name, _followed(_name, "property"))


class _Slot:
    """Where a traced array stood in the arguments of a recorded NumPy call."""

    __slots__ = ("i",)

    def __init__(self, i: int):
        self.i = i


def _derive(op: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """Call `op` on the plain values; return its result traced, with the recipe to replay it."""
    inputs: list[_Traced] = []

    def cut(a: Any) -> Any:
        if isinstance(a, _Traced):
            inputs.append(a)
            return _Slot(len(inputs) - 1)
        if type(a) is tuple or type(a) is list:
            return type(a)(cut(x) for x in a)
        return a

    t_args, t_kwargs = cut(tuple(args)), {k: cut(v) for k, v in kwargs.items()}

    def fill(a: Any, values: Sequence[Any]) -> Any:
        if type(a) is _Slot:
            return values[a.i]
        if type(a) is tuple or type(a) is list:
            return type(a)(fill(x, values) for x in a)
        return a

    def replay(*values: Any) -> Any:
        return op(*fill(t_args, values), **{k: fill(v, values) for k, v in t_kwargs.items()})

    replay.__name__ = getattr(op, "__name__", "replay")
    result = replay(*[t.view(_ndarray) for t in inputs])
    rec = next((t._rec for t in inputs if t._rec is not None), None)
    user = any(t._user for t in inputs)
    flat = all(type(a) not in (tuple, list) for a in (*t_args, *t_kwargs.values()))
    src = (
        (op, t_args, t_kwargs)
        if flat
        else (replay, tuple(_Slot(i) for i in range(len(inputs))), {})
    )
    if type(result) is tuple:
        out = tuple(_traced(r, (*src, inputs, i), rec) for i, r in enumerate(result))
    else:
        out = _traced(result, (*src, inputs, None), rec)
    if user:
        # nonzero, x[mask], unique: shapes from the data (a ufunc's, `m.sum()`'s: from shapes)
        shaped = not isinstance(op, numpy.ufunc) and op not in _FIXED_SHAPE
        for t in out if type(out) is tuple else (out,):
            if isinstance(t, _Traced):
                t._user = True
                if shaped and t.ndim and rec is not None:
                    rec.traced_reads.append((t, "shape", t.shape, _user_line()))
    return out


def _traced(value: Any, src: Any, rec: _Recorder | None) -> Any:
    """`value` as a read-only traced array with recipe `src` (other results as they are)."""
    if isinstance(value, _generic):
        value = numpy.asarray(value)
    elif type(value) is not _ndarray:
        return value  # a shape, a dtype, a Python number: facts of the signature
    value.setflags(write=False)
    t = value.view(_Traced)
    t._src, t._rec = src, rec
    if rec is not None:
        rec.traced.append(t)
    return t


class _TracedArguments:
    """Observer of primitive calls in a trace: a traced argument is recorded by its plain view."""

    def __init__(self, rec: _Recorder):
        self.rec = rec

    def call(self, prim: Any, args: tuple[Any, ...], params: dict[str, Any], run: Any) -> Any:
        in_params = _has_traced(tuple(params.values()))
        if not in_params and not _has_traced(args):
            return run()
        if not any(type(a) is Node for a in args):  # all values: a recipe step itself
            return _derive(prim, args, params)
        back: dict[int, _Traced] = {}
        plain = _swap(args, back)
        out = prim(*plain, **{k: _swap(v, back) for k, v in params.items()})
        # The node holds the traced values themselves, so that its rules follow them too.
        for node in out if type(out) is tuple else (out,):
            if type(node) is Node:
                held = _swap(node.inputs, back, undo=True)
                new_params = {k: _swap(v, back, undo=True) for k, v in node.params.items()}
                if len(back) and self.rec.bad is None and not _has_traced((held, new_params)):
                    self.rec.bad = f"{prim.name} copied a value a derivative rule computed"
                if in_params and _has_user(new_params):  # `x[m]` in f: a shape from the data
                    self.rec.reads.append((node, "shape", node.shape, None, _user_line()))
                _set_inputs(node, held)
                if in_params:
                    _set_params(node, MappingProxyType(new_params))
        return out

    # The other observer methods: nothing to watch.
    def node_made(self, node: Node) -> None:
        pass

    def before_vjp(self, node: Node) -> None:
        pass

    def cotangent(self, node: Node, i: int, ct: Any) -> None:
        pass

    def after_vjp(self, node: Node, token: Any) -> None:
        pass


# Node is frozen; only `_TracedArguments` sets these (a node made from a rule's traced values).
_set_inputs = Node.__dict__["inputs"].__set__
_set_params = Node.__dict__["params"].__set__


def _has_traced(x: Any) -> bool:
    if isinstance(x, _Traced):
        return True
    if type(x) is tuple or type(x) is list:
        return any(_has_traced(v) for v in x)
    if type(x) is dict:
        return any(_has_traced(v) for v in x.values())
    return False


def _has_user(x: Any) -> bool:
    """Whether `x` (tuples, lists, dicts) holds a traced value `f` itself got (`_Traced._user`)."""
    if isinstance(x, _Traced):
        return x._user
    if type(x) is tuple or type(x) is list:
        return any(_has_user(v) for v in x)
    if type(x) is dict:
        return any(_has_user(v) for v in x.values())
    return False


def _swap(x: Any, back: dict[int, Any], undo: bool = False) -> Any:
    """Traced values in `x` (tuples, lists) as plain read-only views (`undo`: the other way)."""
    if undo:
        if type(x) is _ndarray:
            return back.get(id(x), x)
    elif isinstance(x, _Traced):
        v = x.view(_ndarray)  # read-only, so freeze keeps this very array
        back[id(v)] = x
        return v
    if type(x) is tuple or type(x) is list:
        return type(x)(_swap(v, back, undo) for v in x)
    return x


def _roots(t: _Traced) -> list[Node]:
    """The nodes whose values a rule's value `t` was computed from."""
    if t._src is None:
        return []
    if t._src[0] == "node":
        return [t._src[1]]
    return [n for x in t._src[3] for n in _roots(x)]


def _user_line() -> str:
    """`file:line` of the innermost frame outside funcgrad (the line that read a value)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "<unknown>"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


# The functions whose `value_of` reads a trace follows (by file under funcgrad/, then
# `co_qualname`): derivative rules whose NumPy calls on the value are steps of the plan and
# whose Python reads are guards, checked against eager on ties and zeros (tests/test_jit.py),
# and `follows_values` helpers (one step each). Any other read of a dynamic node's value
# (`np.asarray(value_of(x))` in a linalg rule, a composition's read) sends the signature to
# eager with a JitWarning naming the line: following is opt-in, so nothing is baked silently.
_FOLLOWED_READERS: dict[str, frozenset[str]] = {
    "ops/_util.py": frozenset(
        {
            "all_finite",  # a guard
            "checked_value",  # a domain check's value: its bool() is a guard
            "follows_values.<locals>.call.<locals>.<genexpr>",  # a step
        }
    ),
    "ops/elementwise.py": frozenset(
        {
            "<lambda>",
            "_abs_vjp",
            "_clamp_masks",
            "_clip_vjp",
            "_relu_vjp",
            "_sign_vjp",
            "_winner_vjp",
        }
    ),
    "ops/ufuncs.py": frozenset({"<lambda>", "_copysign_factor", "_hypot_rule", "_nan_winner_vjp"}),
    "ops/loss.py": frozenset({"_huber_slope", "_masks", "_smooth_l1_slope"}),  # _masks: shape
    "ops/reduce.py": frozenset(
        {"_cumprod_all_terms", "_cumprod_vjp", "_extremum_share", "_prod_others"}
    ),
    "ops/operators.py": frozenset({"_compare.<locals>.compare"}),
    "numpy/_compose.py": frozenset({"_nan_mask", "nan_to_num", "sort"}),
    "numpy/_creation.py": frozenset({"_cast"}),  # astype, dtype= to an integer or bool
    "transforms/calls.py": frozenset({"record"}),  # a custom rule's outputs, as nodes
    "scipy/stats/multivariate_normal.py": frozenset({"_not_refused"}),  # vmap's NaN mask
    "scipy/stats/_common.py": frozenset({"value"}),  # support masks of the distributions
    "scipy/special.py": frozenset({"_value"}),  # logsumexp's shift and sign, gammasgn
    "transforms/jit.py": frozenset({"_passes_through"}),
}


_BATCHING = _PACKAGE + os.path.join("transforms", "batching.py")


def _reader(frame: Any) -> Any:
    """The frame that read a value: vmap's NumPy calls on a batched value pass it on."""
    while frame.f_code.co_filename == _BATCHING and frame.f_back is not None:
        frame = frame.f_back
    return frame


def _follows_read(code: Any) -> bool:
    """Whether the trace follows a `value_of` read made by the function of `code`."""
    path = code.co_filename
    if not path.startswith(_PACKAGE):
        return False
    names = _FOLLOWED_READERS.get(path[len(_PACKAGE) :].replace(os.sep, "/"))
    return names is not None and code.co_qualname in names


def _on_read(node: Node, kind: str, result: Any, other: Any) -> None:
    rec: _Recorder | None = getattr(_local, "rec", None)
    if rec is None:
        return
    if kind == "value":  # a derivative rule reads the value: hand it a traced view
        if type(result) is list and hasattr(type(result[0]), "__funcgrad_apply__"):
            # NOTE: a vmap's batched value (a transform's node inside `jit(vmap(grad(f)))`):
            # it holds the trace's own nodes, and what the rule computes from it applies
            # primitives to them (recorded) or reads their values (reported by themselves).
            return
        # _on_read <- _report <- value_of <- the reader
        reader = _reader(sys._getframe(3))
        if not _follows_read(reader.f_code):  # eager if the node is dynamic
            where = f"{reader.f_code.co_filename}:{reader.f_lineno}"
            rec.reads.append((node, "value", None, None, f"{_user_line()} (in {where})"))
            return
        v = result[0] if type(result) is list else None
        if type(v) is _ndarray or isinstance(v, _generic):
            if rec.observing is None:
                rec.observing = _observe.observing(_TracedArguments(rec))
                rec.observing.__enter__()
            result[0] = _traced(v, ("node", node), rec)
        elif rec.bad is None:
            what = "a CuPy array" if _on_gpu(v) else f"a {type(v).__name__}"
            rec.bad = (
                f"a derivative rule reads the value of {what} at {_user_line()} (a trace "
                f"follows rules' reads of NumPy values only)"
            )
        return
    if kind in _COMPARISONS:
        box, result = result, result[0]
        if type(result) is _ndarray and result.ndim and not isinstance(other, _Traced):
            # `x > 0` in f: a mask f may take as data (where's) and may read in Python. It is
            # handed back traced, so the plan computes it where the graph takes it and its
            # Python reads (`if m.sum() >= 3:`) are guards: a new mask is no new trace,
            # unless a read gives another answer.
            ins = [_traced(n.value, ("node", n), rec) for n in (node, other) if type(n) is Node]
            args = (_Slot(0), _Slot(1) if type(other) is Node else other)
            t = _traced(result, (getattr(operator, kind.strip("_")), args, {}, ins, None), rec)
            t._user = True
            if rec.observing is None:  # the graph's nodes taking it hold it (as rules' values)
                rec.observing = _observe.observing(_TracedArguments(rec))
                rec.observing.__enter__()
            box[0] = t
            return
    if isinstance(result, _Traced) and type(other) is Node:
        # `node > other`: NumPy saw `node.value` as a plain array beside the traced value of
        # `other`; the mask is computed from both nodes.
        a, b = (_traced(n.value, ("node", n), rec) for n in (node, other))
        result._src = (getattr(operator, kind.strip("_")), (_Slot(0), _Slot(1)), {}, [a, b], None)
    if type(result) is _ndarray:
        # Read-only, so that a node taking it as a constant keeps this very array
        # (`freeze` copies only writeable ones): the plan then computes it instead.
        result.setflags(write=False)
    elif _on_gpu(result):
        own(result)  # the same for a CuPy mask: `freeze` keeps the arrays the graph owns
    rec.reads.append((node, kind, result, other, _user_line()))


def _on_draw(draw: Callable[[], Any], out: Any) -> None:
    rec: _Recorder | None = getattr(_local, "rec", None)
    if rec is not None:
        rec.draws.append((draw, out))


class _Recording:
    """Install the observers (once for all threads) and record this thread's reads and draws."""

    def __init__(self) -> None:
        self.rec = _Recorder()
        self.outer: _Recorder | None = None

    def __enter__(self) -> _Recorder:
        with _install_lock:
            if _installed[0] == 0:
                _node_module.value_readers.append(_on_read)
                rng.draw_observers.append(_on_draw)
            _installed[0] += 1
        self.outer = getattr(_local, "rec", None)
        _local.rec = self.rec
        return self.rec

    def __exit__(self, *exc: object) -> None:
        if self.rec.observing is not None:
            self.rec.observing.__exit__()
        _local.rec = self.outer
        with _install_lock:
            _installed[0] -= 1
            if _installed[0] == 0:
                _node_module.value_readers.remove(_on_read)
                rng.draw_observers.remove(_on_draw)


def _restore(state: rng.State) -> None:
    """Set funcgrad's generators back to `state` (a plan drew, then a guard failed)."""
    rng._seed[0] = state.seed
    for key, saved in state.saved.items():
        rng._defaults[key].set_state(saved)
    for source, snapshot in state.owned:  # the generators the user owns (get_state(own=True))
        source.restore(snapshot)


def _tracing_here() -> bool:
    """Whether a jit trace is running in this thread."""
    return getattr(_local, "rec", None) is not None


# --- the plan -----------------------------------------------------------------------------


class Plan:
    """A traced function as straight-line Python: one forward call per live node.

    `str(plan)` is its source. Call it with the dynamic arguments (the
    array leaves, in flattening order); it returns `f`'s output.

    Attributes:
        source: The generated Python source.
        n_steps: The number of primitive calls in it.
        n_nodes: The number of nodes of the traced graph.
        guard_lines: For each guard, the line of `f` that read the value.
        trace_seconds: How long tracing and building took.
    """

    __slots__ = ("fn", "guard_lines", "n_draws", "n_nodes", "n_steps", "source", "trace_seconds")

    def __init__(
        self, source: str, fn: Callable[..., Any], n_steps: int, n_nodes: int, guards: list[str]
    ):
        self.source = source
        self.fn = fn
        self.n_steps = n_steps
        self.n_nodes = n_nodes
        self.n_draws = 0
        self.guard_lines = guards
        self.trace_seconds = 0.0

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"<funcgrad.jit plan: {self.n_steps} steps, {len(self.guard_lines)} guards>"


def _same(a: Any, b: Any) -> bool:
    """Whether a comparison gave at replay what it gave at the trace."""
    if (type(b) is _ndarray or _on_gpu(b)) and b.ndim:
        return a.shape == b.shape and bool((a == b).all())
    return bool(a) is bool(b)


def _on_gpu(v: Any) -> bool:
    """Whether `v` is a CuPy array (anything with `__cuda_array_interface__`)."""
    return hasattr(v, "__cuda_array_interface__")


def _held(kind: str, value: Any, result: Any) -> bool:
    """Whether a Python read of a rule's value (`_Traced`) gave at replay what it gave at the trace."""
    if kind == "same":  # f read a traced value in a way not followed: all of it, as traced
        got = numpy.asarray(value)
        return got.shape == result.shape and bool(
            ((got == result) | ((got != got) & (result != result))).all()
        )
    got = _CONVERT[kind](value)
    return bool(got == result or (got != got and result != result))


def _copy(v: Any) -> Any:
    """An output the plan did not compute (an argument, a constant): the caller's own copy."""
    if isinstance(v, _Traced):
        v = v.view(_ndarray)
    return v.copy() if hasattr(v, "copy") else v


class _Builder:
    """Turn a traced graph into a `Plan` (see the module docstring for the passes)."""

    def __init__(self, inputs: Sequence[Node], rec: _Recorder):
        self.ns: dict[str, Any] = {"GF": _GuardFailed, "same": _same, "copy": _copy, "held": _held}
        self.lines: list[str] = []
        self.names: dict[int, str] = {}  # id(node) -> its expression
        self.dynamic: set[str] = set()  # the names that change from call to call
        self.consts: dict[int, str] = {}
        self.cse: dict[Hashable, str] = {}
        self.rec = rec
        self.n_steps = 0
        self.guard_lines: list[str] = []
        self.fallback: str | None = None
        self.args = [f"a{i}" for i in range(len(inputs))]
        for node, name in zip(inputs, self.args, strict=True):
            self.names[id(node)] = name
            self.dynamic.add(name)
        # Comparisons whose results may be taken as data by later nodes.
        # NOTE: arrays only: a NumPy bool scalar (np.True_) is one object for every result.
        self.compares = {
            id(r[2]): r
            for r in rec.reads
            if r[1] in _COMPARISONS and (type(r[2]) is _ndarray or _on_gpu(r[2]))
        }
        self.compare_names: dict[int, str] = {}
        self.consumed: set[int] = set()
        self.draw_names: list[str] = []
        self.traced_names: dict[int, str] = {}
        self.fresh: dict[str, tuple[str, Any, list[str], bool]] = {}
        self.value_dtyped: set[str] = set()  # values whose dtype the signature does not fix

    def const(self, value: Any, blas: bool = False) -> str:
        """The name of a constant of the plan (`blas`: an operand of a matrix product)."""
        t = type(value)
        if (t is float and numpy.isfinite(value)) or t is int or t is bool or value is None:
            return repr(value)
        key = id(value)
        name = self.consts.get(key)
        if name is None:
            name = f"K{len(self.consts)}"
            self.consts[key] = name
            self.ns[name] = value
        if blas and t is _ndarray and ALIGN_CONSTANTS and value.nbytes >= _ALIGN_MIN_BYTES:
            # the same bits on aligned memory, shared with the other plans (see `_aligned`)
            self.ns[name] = _aligned(value)
        return name

    def emit_draws(self) -> None:
        # Every draw, in the trace's order, so each replay moves the generators as f did.
        for j, (draw, _) in enumerate(self.rec.draws):
            self.ns[f"D{j}"] = draw
            self.lines.append(f"d{j} = D{j}()")
            self.dynamic.add(f"d{j}")
            self.draw_names.append(f"d{j}")
        self.draw_used = [False] * len(self.rec.draws)

    def operand(self, x: Any, blas: bool = False) -> str:
        """The expression for an input of a node: a node's name, a replayed value or a constant.

        `blas`: an operand of a matrix product (a constant of it is kept aligned).
        """
        if type(x) is Node:
            return self.names[id(x)]
        if isinstance(x, _Traced):
            return self.traced(x)
        base = getattr(x, "base", None)
        while isinstance(base, _ndarray):  # a plain view of a rule's value, made by NumPy
            if isinstance(base, _Traced) and self.rec.bad is None:
                self.rec.bad = "a derivative rule turned a traced value into a plain array"
            base = base.base
        if type(x) in _PY_NUMBERS:
            for j, (_, out) in enumerate(self.rec.draws):
                if out is x:  # a drawn Python float (`randn()` without a shape)
                    self.draw_used[j] = True
                    return self.draw_names[j]
            return self.const(x)
        read = self.compares.get(id(x))
        if read is not None:
            return self.compare(read)
        if self.rec.draws and hasattr(x, "shape"):
            for j, (_, out) in enumerate(self.rec.draws):
                d = value_of(out)
                if (
                    getattr(d, "shape", None) == x.shape
                    and getattr(d, "dtype", None) == x.dtype
                    and _on_gpu(d) == _on_gpu(x)  # CuPy refuses to compare with NumPy
                    and bool((d == x).all())
                ):
                    self.draw_used[j] = True
                    return self.draw_names[j]
        return self.const(x, blas)

    def param(self, v: Any) -> str:
        """The expression of a parameter holding traced values (an index tuple)."""
        if isinstance(v, _Traced):
            return self.traced(v)
        if type(v) is tuple or type(v) is list:
            items = "".join(self.param(x) + ", " for x in v)
            return f"({items})" if type(v) is tuple else f"[{items}]"
        return self.const(v)

    def traced(self, t: _Traced) -> str:
        """Compute a value a derivative rule derived from nodes' values (`_Traced`) in the plan."""
        name = self.traced_names.get(id(t))
        if name is not None:
            return name
        if t._src is None:
            if self.rec.bad is None:
                self.rec.bad = "a derivative rule derived a value the trace cannot follow"
            return self.const(t.view(_ndarray))
        if t._src[0] == "node":
            node = t._src[1]
            if id(node) not in self.names:  # read by a rule but not yet (or never) computed
                for n in toposort(node):
                    if id(n) not in self.names:
                        self.step(n)
            name = self.names[id(node)]
        else:
            op, t_args, t_kwargs, inputs, index = t._src
            names = [self.traced(x) for x in inputs]
            if any(a in self.dynamic for a in names):

                def arg(a: Any) -> str:
                    return names[a.i] if type(a) is _Slot else self.const(a)

                name = f"t{len(self.traced_names)}"
                self.ns[f"R{name}"] = op
                call = ", ".join(
                    [*map(arg, t_args), *(f"{k}={arg(v)}" for k, v in t_kwargs.items())]
                )
                pick = "" if index is None else f"[{index}]"
                label = getattr(op, "__name__", None) or getattr(op, "name", "replay")
                self.lines.append(f"{name} = R{name}({call}){pick}  # {label}, in a rule")
                self.dynamic.add(name)
                if any(a in self.value_dtyped for a in names):
                    self.value_dtyped.add(name)
            else:
                name = self.const(t.view(_ndarray))
        self.traced_names[id(t)] = name
        return name

    def traced_guard(self, t: _Traced, kind: str, result: Any, line: str) -> None:
        a = self.traced(t)
        if a in self.dynamic:
            test = f"not held({kind!r}, {a}, {self.const(result)})"
            self.lines.append(f"if {test}: raise GF({len(self.guard_lines)})  # {line}")
            self.guard_lines.append(line)

    def compare(self, read: tuple[Node, str, Any, Any, str]) -> str:
        """Compute a comparison the graph took as data (a mask) in the plan."""
        node, kind, result, other, _ = read
        self.consumed.add(id(result))
        name = self.compare_names.get(id(result))
        if name is None:
            name = f"m{len(self.compare_names)}"
            self.compare_names[id(result)] = name
            a, b = self.names[id(node)], self.operand(other)
            self.lines.append(f"{name} = {a}.{kind}({b})")
            if a in self.dynamic or b in self.dynamic:
                self.dynamic.add(name)
        return name

    def step(self, node: Node) -> None:
        prim = node.prim
        if prim is None:  # a leaf made inside f, or a node of an outer graph: a constant
            self.names[id(node)] = self.const(node.value)
            return
        blas = prim.name in _BLAS_PRIMS
        args = [self.operand(x, blas) for x in node.inputs]
        params = dict(node.params)
        traced_params = {k: self.param(v) for k, v in params.items() if _has_traced(v)}
        if traced_params:  # an index a rule computed from values: computed by the plan
            args += [f"{k}={v}" for k, v in traced_params.items()]
            params = {k: v for k, v in params.items() if k not in traced_params}
        live = any(n in self.dynamic for e in traced_params.values() for n in _VALUE.findall(e))
        if not live and not any(a in self.dynamic for a in args):  # folded: as traced
            self.names[id(node)] = self.const(node.value)
            return
        if prim is _ew.identity:
            self.names[id(node)] = args[0]
            return
        same = _passes_through(node, args, self.dynamic)
        if same is not None:  # x * 1, where(True, x, y): the plan uses x itself
            self.names[id(node)] = args[same]
            return
        try:
            key: Hashable = (prim, tuple(args), tuple(sorted(params.items())))
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self.cse:
            self.names[id(node)] = self.cse[key]
            return
        k = len(self.names)
        name = f"v{k}"
        if prim.name in _VALUE_DTYPES or any(
            n in self.value_dtyped for a in args for n in _VALUE.findall(a)
        ):
            self.value_dtyped.add(name)  # never a buffer, nor written into one
        xp = _xp(node)
        expr = None if traced_params or xp is not numpy else self.array_method(node, args, params)
        if expr is not None:  # a view or an index of a NumPy array: its method, called straight
            self.lines.append(f"{name} = {expr}  # {prim.name}")
            self.stepped(node, name, key)
            return
        direct = None if traced_params else _direct(prim.forward, xp, params)
        op = _OPERATORS.get(direct) if direct is not None and len(args) <= 2 else None
        if op is not None and (len(args) == 2) == (op != "-u"):
            # NOTE: Python's operator calls the same ufunc on arrays, and on NumPy scalars
            # does the same IEEE operation without the ufunc's overhead (W2, W5)
            expr = f"-{args[0]}" if op == "-u" else f"{args[0]} {op} {args[1]}"
            if op == "@" and REPEATED_PRODUCTS:
                expr = self.repeated_product(node, args) or expr
            self.lines.append(f"{name} = {expr}  # {prim.name}")
            self.fresh_array(node, name, direct, args, op != "@")
            self.stepped(node, name, key)
            return
        if direct is not None:  # `xp.NAME(...)` called straight, without the lambda around it
            self.ns[f"F{k}"] = direct
            kws = [f"{p}={self.const(params[p])}" for p in params]
            call = f"F{k}({', '.join([*args, *kws])}"
        else:
            self.ns[f"F{k}"] = prim.forward
            self.ns[f"X{k}"] = xp
            call = f"F{k}(X{k}, {', '.join(args)}"
            if params:
                self.ns[f"P{k}"] = params
                call += f", **P{k}"
        self.lines.append(f"{name} = {call})  # {prim.name}")
        if direct is not None and not params and isinstance(direct, numpy.ufunc):
            self.fresh_array(node, name, direct, args, True)
        self.stepped(node, name, key)

    def repeated_product(self, node: Node, args: list[str]) -> str | None:
        """A matrix product whose rows (columns) are all equal: computed on a few, then copied.

        `C @ b` where the constant `C` has equal rows (the ones of a sum's
        cotangent, `sum(X @ W)`'s VJP) has equal rows too: the plan computes
        `C[:m] @ b` and copies its first row down (`b @ C` with equal
        columns: the first column across). Used only when the bits are
        those of the whole product: checked when the plan is built, on the
        trace's values and on random operands in both memory orders, that the
        full product's rows are all equal to the first row of the small one
        (a BLAS whose kernels sum a row differently by its place keeps the
        whole product). The check is made with the BLAS threads of the
        process that builds the plan: OpenBLAS's own product of a (1000, 300)
        float32 matrix with ones has other last bits with 1 thread than with
        2, so after a change of the thread count the plan's last bits may
        differ from the eager run's (by rounding: the same sums in another
        order). NOTE: W4's two products with the ones cotangent,
        (512, 256) @ (256, 1024) and (1024, 512) @ (512, 256) in float32:
        the step 0.97x -> 0.85x of hand-written NumPy (one BLAS thread).
        """
        a, b = node.inputs
        for side, (c_arg, c, other) in enumerate(
            ((args[0], value_of(a), b), (args[1], value_of(b), a))
        ):
            if c_arg in self.dynamic or args[1 - side] not in self.dynamic:
                continue
            out = node.value
            if (
                type(c) is not _ndarray
                or c.ndim != 2
                or type(out) is not _ndarray
                or out.ndim != 2
                or out.dtype.kind not in "fc"
                or not out.flags.c_contiguous
            ):
                continue
            few = _few_of_equal(c, out, value_of(other), side)
            if few is None:
                continue
            small, shape = self.const(few, True), self.const(node.shape)
            if side == 0:
                self.ns["Rrows"] = first_row_down
                return f"Rrows({small} @ {args[1]}, {shape})"
            self.ns["Rcols"] = first_column_across
            return f"Rcols({args[0]} @ {small}, {shape})"
        return None

    def stepped(self, node: Node, name: str, key: Any) -> None:
        """Note the step just written: `name` holds `node`'s value (for its CSE `key`)."""
        self.n_steps += 1
        self.names[id(node)] = name
        self.dynamic.add(name)
        if key is not None:
            self.cse[key] = name

    def array_method(self, node: Node, args: list[str], params: dict[str, Any]) -> str | None:
        """`x.transpose(axes)`, `x.reshape(shape)`, `x[index]`, `add.reduce(x, ...)` for an array.

        NOTE: what their forwards call (`numpy.transpose(x, axes)`, `numpy.reshape(x,
        shape)` and `numpy.sum` are these behind a Python wrapper, getitem is
        `asarray(x)[index]`),
        without the wrapper and the keyword unpacking: a few microseconds a step (W3,
        issue 18). Only for a NumPy array (ndim >= 1) as traced, so a replay, which
        has the signature's shapes, calls them on arrays too.
        """
        name = node.prim.name
        if name not in _ARRAY_METHODS or len(args) != 1:
            return None
        x = value_of(node.inputs[0])
        if type(x) is not _ndarray or not x.ndim:
            return None
        if name == "getitem":
            return f"{args[0]}[{self.const(params['index'])}]"
        if name == "sum":  # numpy.sum(x, ...) is this reduce behind a Python wrapper
            self.ns["Uadd"] = numpy.add
            axis, keepdims = self.const(params["axis"]), self.const(params["keepdims"])
            return f"Uadd.reduce({args[0]}, axis={axis}, keepdims={keepdims})"
        param = "axes" if name == "transpose" else "shape"
        return f"{args[0]}.{name}({self.const(params[param])})"

    def fresh_array(
        self, node: Node, name: str, ufunc: Any, args: list[str], elementwise: bool
    ) -> None:
        """Note a step whose result is a new NumPy array (for `_reuse_buffers`)."""
        if name in self.value_dtyped:
            return
        if type(node.value) is _ndarray and node.value.ndim and isinstance(ufunc, numpy.ufunc):
            self.ns[f"U{ufunc.__name__}"] = ufunc
            self.fresh[name] = (ufunc.__name__, (node.shape, node.dtype), args, elementwise)

    def guard(self, read: tuple[Node, str, Any, Any, str]) -> None:
        node, kind, result, other, line = read
        if isinstance(result, _Traced):
            return  # compared with a node: the mask is a rule value, Python reads of it guards
        a = self.names[id(node)]
        if kind in _COMPARISONS:
            b = self.operand(other)
            if a not in self.dynamic and b not in self.dynamic:
                return
            # NOTE: a NumPy mask is handed to f traced (`_on_read`) and never reaches here; a
            # CuPy mask the plan computes as data is checked all the same, since f may read
            # it in Python too (`if m.sum() >= 3:`), which a trace cannot see on CuPy.
            if _on_gpu(result) and not result.ndim:
                result = bool(result)  # read from the GPU once, not at every replay
            test = f"not same({a}.{kind}({b}), {self.const(result)})"
        elif kind == "shape":  # `x[m]` with a mask f computed: the shape the trace saw
            if a not in self.dynamic:
                return
            test = f"{a}.shape != {result!r}"
        else:
            if a not in self.dynamic or kind == "value":  # value reads: checked in build_plan
                return
            conv = {"bool": "bool({})", "int": "int({})", "index": "{}.__index__()"}[kind]
            test = f"{conv.format(a)} != {result!r}"
        self.lines.append(f"if {test}: raise GF({len(self.guard_lines)})  # {line}")
        self.guard_lines.append(line)


# Whether a matrix product with a constant of equal rows (columns) is computed on a few of
# them (see `_Builder.repeated_product`).
REPEATED_PRODUCTS = True


def _few_of_equal(c: Any, out: Any, other: Any, side: int) -> Any:
    """The few rows of `c` whose product gives `c @ other`'s bits (side 1: columns, `other @ c`).

    `c` is the constant operand, `out` the traced product, `other` the
    traced other operand. Returns the rows (a copy, as the plan will use
    it), or None: `c`'s rows (columns) must be equal bit for bit, and so
    must `out`'s; the few rows must give `out`'s first row, and, on
    `draws_for` random operands of `other`'s shape and dtype in C and
    Fortran order (entries from `order_sensitive`), the first row of the
    whole product, whose rows must all be equal; rows of fewer than
    `MIN_WIDTH` entries keep the whole product. NOTE: how many
    rows give the same sums depends on the BLAS (OpenBLAS computes a product
    of 16 rows with its small-matrix kernel where 96 rows take the general
    one, in another order): 16, 32, 64, ... are tried, up to a quarter of them.
    """

    def lines(x: Any) -> Any:  # the rows of the question, as rows
        return x if side == 0 else x.T

    n = lines(c).shape[0]
    if n < 4 * FEW or not rows_equal(lines(c)) or not rows_equal(lines(out)):
        return None
    if type(other) is not _ndarray or other.dtype != out.dtype:
        return None

    def product(x: Any, o: Any) -> Any:
        return x @ o if side == 0 else o @ x

    width = other.shape[1] if side == 0 else other.shape[0]
    if width < MIN_WIDTH:
        return None  # one row compares too few sums to tell two orders apart
    rng = numpy.random.default_rng(0)
    randoms = []
    for _ in range(draws_for(width)):  # entries whose sums round otherwise in another order
        drawn = order_sensitive(rng, other.shape, other.dtype)
        randoms += [numpy.ascontiguousarray(drawn), numpy.asfortranarray(drawn)]
    fulls = [lines(product(c, o)) for o in randoms]
    if not all(rows_equal(full) for full in fulls):
        return None
    m = FEW
    while 4 * m <= n:
        few = numpy.array(c[:m] if side == 0 else c[:, :m], order="K")
        if lines(product(few, other))[0].tobytes() == lines(out)[0].tobytes() and all(
            lines(product(few, o))[0].tobytes() == full[0].tobytes()
            for o, full in zip(randoms, fulls, strict=True)
        ):
            return few
        m *= 2
    return None


# Whether plans keep their constant arrays 64-byte aligned (see `_aligned`).
ALIGN_CONSTANTS = True
_ALIGNMENT = 64
_ALIGN_MIN_BYTES = 4096  # smaller constants: the alignment does not measure
_ALIGN_MAX_BYTES = 1 << 26  # larger ones: a second copy costs more memory than it saves
# The primitives whose NumPy calls go to BLAS: only their constant operands are aligned.
_BLAS_PRIMS = frozenset({"matmul", "linear", "einsum"})
# id(base) -> (a weak reference to the base, its aligned copy): one copy for all plans, dropped
# with the base (a finalizer), so that a weight closed over by f and called with 4 batch sizes
# is copied once, not once per plan (review of 24e3b58).
_ALIGNED_COPIES: dict[int, tuple[Any, Any]] = {}
_aligned_lock = threading.Lock()


def _drop_aligned(key: int) -> None:
    with _aligned_lock:
        _ALIGNED_COPIES.pop(key, None)


def _aligned(value: Any) -> Any:
    """`value` (a NumPy constant of the plan) on memory aligned to 64 bytes: same bits, strides.

    NOTE: NumPy guarantees 16-byte alignment only, and a large array's
    memory usually starts 16 bytes into a page. OpenBLAS's matrix-vector
    product on a 256x256 float64 matrix took 1.35-1.4x the time when the
    matrix did not start on a 64-byte boundary (W6, `tests/test_jit.py`
    checks that the products give the same bits); PyTorch's CPU allocator
    aligns every tensor to 64 bytes. The array `value` views (its base) is
    copied once into aligned memory, and `value` becomes the same view of
    the copy, so views of one base (`A` and `A.T`) still share memory (the
    first view asked for is aligned, the others keep their offsets from it).
    Bases larger than `_ALIGN_MAX_BYTES`, or more than 4 times `value`'s
    size, are left as they are. The copy is shared by every plan (kept while
    the base lives, by a weak reference); it is made only of a read-only base
    and used again only while the base is read-only and holds the same bytes.
    """
    if value.ctypes.data % _ALIGNMENT == 0:
        return value
    base = value
    while isinstance(base.base, _ndarray):
        base = base.base
    if (
        type(base) is not _ndarray
        or base.dtype.hasobject
        or not (base.flags.c_contiguous or base.flags.f_contiguous)
    ):
        return value
    start = base.ctypes.data
    if base.nbytes > min(_ALIGN_MAX_BYTES, 4 * value.nbytes):
        return value
    if base.flags.writeable:
        return value  # not frozen: its bytes may change after the copy
    raw_bytes = base.reshape(-1, order="A").view(numpy.uint8)
    with _aligned_lock:
        pair = _ALIGNED_COPIES.get(id(base))
    copy = None
    if pair is not None and pair[0]() is base:
        copy = pair[1]
        # NOTE: the base was made writeable, changed and locked again since the copy
        # (setflags allows it to the array that owns its memory): a new copy
        if (copy.ctypes.data + value.ctypes.data - start) % _ALIGNMENT or not numpy.array_equal(
            copy, raw_bytes
        ):
            copy = None
    if copy is None:  # the copy of the base where this view of it starts aligned
        raw = numpy.empty(base.nbytes + _ALIGNMENT, numpy.uint8)
        skip = -(raw.ctypes.data + value.ctypes.data - start) % _ALIGNMENT
        copy = raw[skip : skip + base.nbytes]
        copy[...] = raw_bytes
        copy.setflags(write=False)
        try:
            ref = weakref.ref(base)
        except TypeError:
            return value
        with _aligned_lock:
            if id(base) not in _ALIGNED_COPIES:
                weakref.finalize(base, _drop_aligned, id(base))
            _ALIGNED_COPIES[id(base)] = (ref, copy)
    out = _ndarray(
        value.shape,
        value.dtype,
        buffer=copy,
        offset=value.ctypes.data - start,
        strides=value.strides,
    )
    out.setflags(write=False)
    return out


def _all(x: Any, v: float) -> bool:
    """Whether a constant equals `v` everywhere."""
    try:
        return bool((x == v).all()) if hasattr(x, "all") else bool(x == v)
    except Exception:  # noqa: BLE001  (a constant that is not a number)
        return False


def _passes_through(node: Node, args: list[str], dynamic: set[str]) -> int | None:
    """The input a node equals bit for bit because its other inputs are constants (or None).

    `x * 1` (a constant of ones) and `where(c, x, y)` with a constant `c`
    that is all true (or all false) give back `x` (or `y`) exactly, when
    the result has that input's shape and dtype.
    """
    name, inputs = node.prim.name, node.inputs
    pick = None
    if name == "multiply" and len(inputs) == 2:
        for i in (0, 1):
            if args[1 - i] not in dynamic and _all(value_of(inputs[1 - i]), 1):
                pick = i
    elif name == "where" and len(inputs) == 3 and args[0] not in dynamic:
        cond = value_of(inputs[0])
        pick = 1 if _all(cond, True) else 2 if _all(cond, False) else None
    if pick is None or args[pick] not in dynamic:
        return None
    v = value_of(inputs[pick])
    if getattr(v, "shape", None) != node.shape or getattr(v, "dtype", None) != node.dtype:
        return None
    return pick


_OPERATORS = {
    numpy.add: "+",
    numpy.subtract: "-",
    numpy.multiply: "*",
    numpy.true_divide: "/",
    numpy.matmul: "@",
    numpy.negative: "-u",
}
_SKIP = frozenset({"RESUME", "NOP", "PRECALL", "PUSH_NULL", "CACHE"})
# Primitives a plan calls straight on a NumPy array (see `_Builder.array_method`).
_ARRAY_METHODS = frozenset({"transpose", "reshape", "getitem", "sum"})
_direct_cache: dict[tuple[int, str], Any] = {}


def _direct(forward: Any, xp: Any, params: dict[str, Any]) -> Any:
    """`xp.NAME` if `forward` is `lambda xp, *args, **params: xp.NAME(*args, **params)`, else None.

    Most forwards are that lambda around one array-module function; the
    plan then calls the function itself (the same call, one frame fewer).
    """
    key = (id(forward), xp.__name__)
    if key in _direct_cache:
        return _direct_cache[key]
    found = None
    code = getattr(forward, "__code__", None)
    if code is not None and not code.co_flags & 0x0C:  # no *args, no **kwargs
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        ops = []
        for ins in dis.get_instructions(forward):
            if ins.opname == "RETURN_VALUE":
                break
            if ins.opname not in _SKIP:
                ops.append((ins.opname, ins.argval))
        loads = [("LOAD_FAST", n) for n in names[1:]]
        kw = names[code.co_argcount :]
        kw_ok = (not kw and ops[-1:] == [("CALL", len(names) - 1)]) or (
            ops[-2:-1] and ops[-2][0] == "KW_NAMES"
        )
        if (
            len(ops) >= 3
            and ops[0] == ("LOAD_FAST", names[0])
            and ops[1][0] in ("LOAD_METHOD", "LOAD_ATTR")
            and ops[2 : 2 + len(loads)] == loads
            and len(ops) == 2 + len(loads) + (2 if kw else 1)
            and kw_ok
            and set(kw) == set(params)
        ):
            found = getattr(xp, ops[1][1], None)
    _direct_cache[key] = found
    return found


def _xp(node: Node) -> Any:
    """The array module a node was computed with."""
    if "cupy" not in sys.modules:
        return numpy
    return xp_of(node.value)


def _output_expr(treedef: TreeDef, exprs: list[str]) -> str | None:
    """Python source building `treedef` from leaf expressions, or None for other containers."""
    pos = iter(exprs)
    nodes = iter(treedef.nodes)

    def build() -> str | None:
        kind, aux, n = next(nodes)
        if n == 0 and kind is not tuple and kind is not list and kind is not dict:
            if kind is type(None):
                return "None"
            if type(kind) is str:  # a leaf
                return next(pos)
            return None
        children = [build() for _ in range(n)]
        if any(c is None for c in children):
            return None
        if kind is tuple and aux is None:
            return "(" + "".join(c + ", " for c in children) + ")"  # type: ignore[operator]
        if kind is list:
            return "[" + ", ".join(children) + "]"  # type: ignore[arg-type]
        return None

    try:
        return build()
    except (StopIteration, TypeError):
        return None


def build_plan(
    inputs: Sequence[Node], out: Any, rec: _Recorder
) -> tuple[Plan | None, str | None, TreeDef]:
    """Build the plan of a trace: `inputs` are its argument leaves, `out` the output tree.

    Returns `(plan, None, out_def)`, or `(None, why, out_def)` when the trace
    cannot be replayed faithfully (the plan would give a different result).
    """
    leaves, out_def = tree_flatten(out)
    for _, kind, _, _, line in rec.reads:
        if kind.startswith("tensor."):
            return None, f"{kind} reads a traced tensor's value at {line}", out_def
    b = _Builder(inputs, rec)
    b.emit_draws()
    roots = [v for v in leaves if type(v) is Node]
    for node, _, _, other, _ in rec.reads:
        roots.append(node)
        if type(other) is Node:
            roots.append(other)
    order = toposort(*roots) if roots else []
    # Masks the graph takes as data (an input of a node, or an output) are computed by the
    # plan, not guarded: known before the guards are placed, right after the compared nodes.
    for x in [*leaves, *(x for n in order if n.prim is not None for x in n.inputs)]:
        if type(x) is not Node and id(x) in b.compares:
            b.consumed.add(id(x))
    # Guards go right after the later of the nodes they read.
    after: dict[int, list[tuple[Node, str, Any, Any, str]]] = collections.defaultdict(list)
    for read in rec.reads:
        node, other = read[0], read[3]
        last = other if type(other) is Node and other.seq > node.seq else node
        after[id(last)].append(read)
    # A rule's Python read goes right after the last node it depends on, so that no step of
    # another path runs before it (`prod`'s division when an entry is zero, say).
    where = {id(n): i for i, n in enumerate(order)}
    first, traced_after = [], collections.defaultdict(list)
    for t_read in rec.traced_reads:
        at = [where.get(id(n), -1) for n in _roots(t_read[0])]
        if not at or min(at) < 0:
            first.append(t_read)
        else:
            traced_after[id(order[max(at)])].append(t_read)
    for t_read in first:
        b.traced_guard(*t_read)
    for node in order:
        if id(node) not in b.names:
            b.step(node)
        for read in after.get(id(node), ()):
            b.guard(read)
        for t_read in traced_after.get(id(node), ()):
            b.traced_guard(*t_read)
    exprs = []
    for v in leaves:
        e = b.names[id(v)] if type(v) is Node else b.operand(v)
        if e not in b.dynamic or e in b.args or e in exprs:
            e = f"copy({e})"  # not computed by this call: the caller gets its own
        exprs.append(e)
    if rec.bad is not None:
        return None, f"{rec.bad}, so a replay could give a different result", out_def
    for node, kind, _, _, line in rec.reads:
        if kind == "value" and b.names[id(node)] in b.dynamic:
            why = (
                f"the value of a traced node is read at {line} by code the trace does not "
                f"follow (funcgrad.ops._util.value_of), so a replay could give a different result"
            )
            return None, why, out_def
    unused = [j for j, used in enumerate(b.draw_used) if not used]
    if unused:
        why = (
            "f draws random numbers that reach the graph only after a NumPy operation "
            "(the plan cannot replay that draw); draw with funcgrad.numpy.random and "
            "use funcgrad operations on the draw"
        )
        return None, why, out_def
    body = _output_expr(out_def, exprs)
    wrap = body is None
    if wrap:
        body = "(" + "".join(e + ", " for e in exprs) + ")"
    args = ", ".join(b.args)
    lines = b.lines
    if REUSE_BUFFERS:
        lines = _reuse_buffers(lines, b.fresh, body)  # type: ignore[arg-type]
    lines = _free_dead_values(lines, body)  # type: ignore[arg-type]
    src = "\n".join(
        [f"def plan({args}):", *("    " + line for line in lines), f"    return {body}", ""]
    )
    for const in b.consts.values():  # a constant no step reads (a product's few rows did)
        if not re.search(rf"\b{const}\b", src):
            del b.ns[const]
    code = compile(src, "<funcgrad.jit plan>", "exec")
    exec(code, b.ns)
    fn = b.ns["plan"]
    if wrap:
        inner = fn
        fn = lambda *a: tree_unflatten(out_def, inner(*a))  # noqa: E731
    plan = Plan(src, fn, b.n_steps, len(order), b.guard_lines)
    plan.n_draws = len(rec.draws)
    return plan, None, out_def


_VALUE = re.compile(r"\b[vmdt]\d+\b")


# Whether plans write elementwise results into the buffers of dead values (`out=`).
REUSE_BUFFERS = True

# Primitives whose result dtype depends on the values (NumPy's eig: float64 or complex128):
# their results, and what is computed from them, take no buffer and give none.
_VALUE_DTYPES = frozenset({"eig_vectors", "eigvals", "roots"})


def _reuse_buffers(
    lines: list[str], fresh: dict[str, tuple[str, Any, list[str], bool]], body: str
) -> list[str]:
    """Write elementwise steps into the arrays of values dead before them (`ufunc(..., out=)`).

    A buffer is reused only when a ufunc step made it (a new array of its
    own), every step that read it was an elementwise ufunc step or a
    matmul (so no view of it is alive), it is not an output, and its last
    read came before the step that takes it, or is that step itself when the
    buffer is one of its operands (elementwise: each entry is read before it
    is written): the replay computes the same numbers in the same memory a
    fresh result would have taken.
    """
    used: dict[str, list[int]] = collections.defaultdict(list)
    defined: dict[str, int] = {}
    for i, line in enumerate(lines):
        code = line.split("  #", 1)[0]
        target, _, rhs = code.partition(" = ") if " = " in code else ("", "", code)
        for n in _VALUE.findall(rhs):
            used[n].append(i)
        if target:
            defined[target] = i
    escaped = set(_VALUE.findall(body))
    for n, at in used.items():
        for i in at:
            code = lines[i].split("  #", 1)[0]
            target = code.partition(" = ")[0] if " = " in code else ""
            if target not in fresh:  # read by a step that may keep a view of it
                escaped.add(n)
    free: dict[Any, list[str]] = collections.defaultdict(list)
    out = list(lines)
    dead_at: dict[int, list[str]] = collections.defaultdict(list)
    for n in fresh:
        if n not in escaped and used.get(n):
            dead_at[used[n][-1]].append(n)
    for i, line in enumerate(lines):
        code, _, label = line.partition("  # ")
        target = code.partition(" = ")[0]
        info = fresh.get(target)
        dying = dead_at.get(i, ())
        buf = None
        if info is not None and info[3]:
            ufunc, key, args, _ = info
            # NOTE: an operand read for the last time here, of the result's shape and dtype,
            # takes the result itself (`1.0 - v`, `ct * d`: an elementwise ufunc reads each
            # entry before it writes it), as an in-place NumPy expression would (W4, issue 18)
            buf = next((n for n in dying if n in args and fresh[n][1] == key), None)
            if buf is None and free[key]:
                buf = free[key].pop()
            if buf is not None:
                out[i] = f"{target} = U{ufunc}({', '.join(args)}, out={buf})  # {label}, into {buf}"
        for n in dying:
            if n != buf:
                free[fresh[n][1]].append(n)
    return out


def _free_dead_values(lines: list[str], body: str) -> list[str]:
    """Add `del` after the last use of each value, so memory is reused while the plan runs."""
    last: dict[str, int] = {}
    for i, line in enumerate(lines):
        code = line.split("  #", 1)[0]
        for name in _VALUE.findall(code.split(" = ", 1)[-1] if " = " in code else code):
            last[name] = i
    kept = set(_VALUE.findall(body))
    dead: dict[int, list[str]] = collections.defaultdict(list)
    for name, i in last.items():
        if name not in kept:
            dead[i].append(name)
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i in dead:
            out.append("del " + ", ".join(sorted(dead[i])))
    return out


# --- signatures ---------------------------------------------------------------------------


class _HasNodes(Exception):
    """An argument is a graph node: the call is recorded as one `jit_call` node."""


def _signature(leaves: list[Any]) -> tuple[tuple[Any, ...], list[Any]]:
    """`(key, dynamic leaves)`: arrays are dynamic (see `_is_dynamic`), the rest part of the key."""
    key: list[Any] = []
    dyn: list[Any] = []
    for v in leaves:
        t = type(v)
        if t is _ndarray:
            if v.dtype.kind in "fc" or not v.ndim:
                key.append((v.shape, v.dtype))
                dyn.append(v)
            else:  # integer and boolean arrays (indices, labels, masks): static, by value
                key.append((v.shape, v.dtype, v.tobytes()))
        elif t is Node:
            raise _HasNodes
        elif isinstance(v, _generic):
            key.append(((), v.dtype))  # as a 0-d array: a plan's output may be either
            dyn.append(v)
        elif hasattr(v, "__cuda_array_interface__"):
            if v.dtype.kind in "fc" or not v.ndim:
                key.append((v.shape, v.dtype, int(v.device.id)))
                dyn.append(v)
            else:
                key.append((v.shape, v.dtype, int(v.device.id), v.get().tobytes()))
        elif hasattr(t, "__funcgrad_node__"):
            raise TypeError(
                f"funcgrad.jit: an argument is a {t.__name__}; jit takes arrays and "
                f"pytrees of arrays. Use funcgrad.compile for functions of tensors"
            )
        else:
            key.append((t, v))  # Python numbers and other values: static, by value
    return tuple(key), dyn


# --- jit -----------------------------------------------------------------------------------


class _Entry:
    """The plans of one signature: one per path through the guards, newest first."""

    __slots__ = ("fails", "plans", "retraces", "warned")

    def __init__(self) -> None:
        self.plans: list[Plan] = []
        self.retraces = 0
        self.fails: collections.Counter[str] = collections.Counter()
        self.warned = False


class Jitted:
    """A function compiled by `funcgrad.jit`; call it like the function.

    Attributes:
        fn: The function given to `jit`.
        cache_size: How many signatures keep their plans (the oldest traced dropped first).
        max_retraces: After this many retraces for one signature, warn once.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        static_argnums: Sequence[int],
        cache_size: int,
        max_retraces: int,
    ):
        self.fn = fn
        self.static_argnums = tuple(sorted(static_argnums))
        self.cache_size = cache_size
        self.max_retraces = max_retraces
        self._cache: collections.OrderedDict[Any, _Entry] = collections.OrderedDict()
        self._eager: dict[Any, str] = {}  # signatures that run eagerly, and why
        self._fast: dict[tuple[Any, ...], _Entry] = {}  # (type, shape, dtype) per array -> entry
        self._lock = threading.Lock()
        self._vjp: Jitted | None = None
        self._jvp: Jitted | None = None
        functools.update_wrapper(self, fn)

    # -- calling

    def _split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, list[Any], Any]:
        statics = ()
        if self.static_argnums:
            n = len(args)
            for i in self.static_argnums:
                if not -n <= i < n:
                    raise ValueError(
                        f"funcgrad.jit: static_argnums={self.static_argnums} names argument "
                        f"{i}, but {getattr(self.fn, '__name__', 'f')} was called with {n}"
                    )
            nums = {i % n for i in self.static_argnums}
            statics = tuple(args[i] for i in sorted(nums))
            args = tuple(None if i in nums else a for i, a in enumerate(args))
        if not kwargs and all(type(a) is _ndarray for a in args):
            return (statics, len(args)), list(args), None  # the common case, without tree_flatten
        leaves, treedef = tree_flatten((args, kwargs))
        return (statics, treedef), leaves, treedef

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The fast path: positional NumPy arrays only, keyed by type, shape and dtype.
        if not kwargs:
            key: tuple[Any, ...] = ()
            try:
                for a in args:  # NOTE: a flat tuple: cheaper to build and hash than nested ones
                    key += (type(a), a.shape, a.dtype)
                entry = self._fast.get(key)
            except AttributeError:  # an argument that is not an array
                entry = None
            if entry is not None:
                for plan in entry.plans:
                    if plan.n_draws and plan.guard_lines:
                        break  # the slow path restores the generators when a guard fails
                    try:
                        return plan.fn(*args)
                    except _GuardFailed as e:
                        entry.fails[plan.guard_lines[e.args[0]]] += 1
        return self._call(args, kwargs)

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        head, leaves, treedef = self._split(args, kwargs)
        try:
            sig, dyn = _signature(leaves)
        except _HasNodes:
            if _tracing_here():  # inside another jit's trace: inline f
                return self.fn(*args, **kwargs)
            return self._record_call(args, kwargs)
        key = (head, sig)
        try:
            entry = self._cache[key]
        except KeyError:
            pass
        except TypeError:
            raise TypeError(
                f"funcgrad.jit: a static argument of {getattr(self.fn, '__name__', 'f')} is "
                f"not hashable; pass arrays as arrays, or make static arguments hashable"
            ) from None
        else:
            for plan in entry.plans:
                state = rng.get_state(own=True) if plan.n_draws and plan.guard_lines else None
                try:
                    if state is None:  # no draws to give again (no context manager a call)
                        return plan.fn(*dyn)
                    with rng.recording(state):  # the owned generators it draws from here
                        return plan.fn(*dyn)
                except _GuardFailed as e:
                    entry.fails[plan.guard_lines[e.args[0]]] += 1
                    if state is not None:  # the next try draws what this one drew
                        _restore(state)
        if key in self._eager:
            return self.fn(*args, **kwargs)
        return self._trace_and_run(key, args, kwargs, leaves, treedef, dyn)

    def _trace_and_run(
        self,
        key: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        leaves: list[Any],
        treedef: Any,
        dyn: list[Any],
    ) -> Any:
        # NOTE: the trace is a run of f: its result is returned (replaying the plan now
        # would draw random numbers a second time).
        plan, why, result = self._trace(args, kwargs, leaves, treedef)
        if plan is None:
            self._eager[key] = why  # type: ignore[assignment]
            warnings.warn(
                f"funcgrad.jit: {getattr(self.fn, '__name__', 'f')} runs eagerly for this "
                f"signature: {why}",
                JitWarning,
                stacklevel=3,
            )
            return result
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = _Entry()
                while len(self._cache) > self.cache_size:
                    _, dropped = self._cache.popitem(last=False)
                    self._fast = {k: e for k, e in self._fast.items() if e is not dropped}
                if not kwargs and not self.static_argnums and len(dyn) == len(args):
                    # every argument is a dynamic NumPy array (or scalar): the fast path's key
                    if all(type(a) is _ndarray or isinstance(a, _generic) for a in args):
                        fast = tuple(v for a in args for v in (type(a), a.shape, a.dtype))
                        self._fast[fast] = entry
            else:
                entry.retraces += 1
                self._cache.move_to_end(key)
            entry.plans.insert(0, plan)
            del entry.plans[max(self.max_retraces, 1) :]
            if entry.retraces >= self.max_retraces and not entry.warned:
                entry.warned = True
                line, n = entry.fails.most_common(1)[0] if entry.fails else ("<unknown>", 0)
                warnings.warn(
                    f"funcgrad.jit: {getattr(self.fn, '__name__', 'f')} was traced again "
                    f"{entry.retraces} times for one signature, because the value read at "
                    f"{line} keeps changing ({n} failed guards there). Pass that value as a "
                    f"static argument, or compute it with funcgrad operations (fnp.where) "
                    f"instead of Python control flow",
                    JitWarning,
                    stacklevel=3,
                )
        return result

    def _trace(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], leaves: list[Any], treedef: Any
    ) -> tuple[Plan | None, str | None, Any]:
        """Run `f` on fresh leaves for the dynamic arguments; return the plan, why not, f's result."""
        import time

        start = time.perf_counter()
        inputs: list[Node] = []
        traced = []
        for v in leaves:
            if _is_dynamic(v):
                node = make_node(None, (), _EMPTY, freeze(v))
                inputs.append(node)
                traced.append(node)
            else:
                traced.append(v)
        if treedef is None:
            t_args, t_kwargs = tuple(traced), {}
        else:
            t_args, t_kwargs = tree_unflatten(treedef, traced)
        if self.static_argnums:
            t_args = tuple(
                args[i] if i in self._static_set(len(args)) else a for i, a in enumerate(t_args)
            )
        with _Recording() as rec, _trace.tracing():
            out = self.fn(*t_args, **t_kwargs)
        out = tree_map(graph_output, out)
        plan, why, _ = build_plan(inputs, out, rec)
        if plan is not None:
            plan.trace_seconds = time.perf_counter() - start
        return (
            plan,
            why,
            tree_map(
                lambda v: (
                    _copy(v.value) if type(v) is Node else _copy(v) if isinstance(v, _Traced) else v
                ),
                out,
            ),
        )

    def _static_set(self, n: int) -> set[int]:
        return {i % n for i in self.static_argnums}

    # -- inspection

    def plan(self, *args: Any, **kwargs: Any) -> Plan:
        """Return the plan a call with these arguments replays (tracing it if needed).

        Examples:
            >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
            >>> f = fg.jit(lambda x: fnp.sin(x) * 2.0)
            >>> print(f.plan(np.zeros(3)))
            def plan(a0):
                v1 = F1(a0)  # sin
                v2 = Umultiply(v1, 2.0, out=v1)  # multiply, into v1
                del v1
                return v2
            <BLANKLINE>
        """
        head, leaves, treedef = self._split(args, kwargs)
        sig, dyn = _signature(leaves)
        entry = self._cache.get((head, sig))
        if entry is None or not entry.plans:
            self(*args, **kwargs)
            entry = self._cache.get((head, sig))
        if entry is None or not entry.plans:
            raise ValueError(
                f"funcgrad.jit: {getattr(self.fn, '__name__', 'f')} runs eagerly for these "
                f"arguments ({self._eager.get((head, sig))}); it has no plan"
            )
        return entry.plans[0]

    def cache_info(self) -> dict[str, int]:
        """Return `{"signatures": ..., "plans": ..., "retraces": ...}` of the cache."""
        entries = list(self._cache.values())
        return {
            "signatures": len(entries),
            "plans": sum(len(e.plans) for e in entries),
            "retraces": sum(e.retraces for e in entries),
        }

    def clear_cache(self) -> None:
        """Forget every plan (the next call traces again)."""
        self._cache.clear()
        self._eager.clear()
        self._fast.clear()

    # -- on graph nodes: one call primitive

    def _record_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        leaves, treedef = tree_flatten((args, kwargs))
        values = [value_of(v) for v in leaves]
        if any(_on_gpu(v) for v in values):
            # NOTE: on CuPy, recorded node by node (the jit_call rules' zero cotangents and
            # tangents are made with NumPy)
            return self.fn(*args, **kwargs)
        flat = _FlatFn(self, treedef, tuple(i for i, v in enumerate(values) if _is_dynamic(v)))
        v_args, v_kwargs = tree_unflatten(treedef, values)
        head, _, _ = self._split(v_args, v_kwargs)
        key = (head, _signature(tree_flatten((v_args, v_kwargs))[0])[0])
        entry = self._cache.get(key)
        if entry is not None and entry.plans and not entry.plans[0].n_draws:
            out = self(*v_args, **v_kwargs)  # the forward: a replay on the values
        else:
            # NOTE: a function that draws random numbers is recorded node by node, so that
            # its backward sees the forward's draws; the trace's draws are drawn again.
            state = None
            if entry is None and key not in self._eager:
                state = rng.get_state(own=True)
                with rng.recording(state):  # the owned generators the trace draws from
                    self(*v_args, **v_kwargs)  # trace it (for the next call)
            entry = self._cache.get(key)
            if entry is None or not entry.plans or entry.plans[0].n_draws:
                if state is None:
                    return self.fn(*args, **kwargs)
                with rng.replay(state):  # the trace's numbers, then on from after the trace
                    return self.fn(*args, **kwargs)
            out = self(*v_args, **v_kwargs)
        dyn = tuple(_as_input(leaves[i]) for i in flat.positions)
        return record(jit_call, _JitCall(flat, values), dyn, out)


def _as_input(v: Any) -> Any:
    return v if type(v) is Node else freeze(v)


def _is_dynamic(v: Any) -> bool:
    """Whether a leaf is an input of the plan: floating arrays, 0-d arrays, NumPy scalars, nodes.

    Integer and boolean arrays of one or more dimensions (indices, labels)
    are static, by value: an index must be known to the trace.
    """
    t = type(v)
    if t is Node or isinstance(v, _generic):
        return True
    if t is _ndarray or hasattr(v, "__cuda_array_interface__"):
        return bool(v.dtype.kind in "fc" or not v.ndim)
    return False


class _FlatFn:
    """`f` as a function of its dynamic leaves (the other leaves held at their values)."""

    def __init__(self, jitted: Jitted, treedef: TreeDef, positions: tuple[int, ...]):
        self.jitted = jitted
        self.treedef = treedef
        self.positions = positions

    # NOTE: equal by what it computes, so that the jitted rules (`_pull_back`) find
    # their plan again at the next call (a `_FlatFn` is a static argument of theirs).
    def _key(self) -> tuple[Any, ...]:
        return (id(self.jitted), self.treedef, self.positions)

    def __eq__(self, other: object) -> bool:
        return type(other) is _FlatFn and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __call__(self, values: list[Any], *dyn: Any) -> list[Any]:
        full = list(values)
        for i, d in zip(self.positions, dyn, strict=True):
            full[i] = d
        args, kwargs = tree_unflatten(self.treedef, full)
        return tree_flatten(tree_map(graph_output, self.jitted.fn(*args, **kwargs)))[0]


class _JitCall(Call):
    """One call of a jitted function on graph nodes; its rules replay jitted plans."""

    __slots__ = ("flat", "values")

    def __init__(self, flat: _FlatFn, values: list[Any]):
        self.flat = flat
        self.values = values

    def outputs(self, leaves: tuple[Any, ...]) -> list[Any]:
        return [value_of(v) for v in self.flat(self.values, *leaves)]

    def _g(self) -> Callable[..., Any]:
        flat, values = self.flat, self.values
        return lambda *dyn: flat(values, *dyn)

    def vjp(self, ct: Any, out: Any, leaves: tuple[Any, ...], index: int) -> tuple[Any, ...]:
        cts = [  # the cotangent of the flat output list: ct at `index`, zeros elsewhere
            ct if j == index else numpy.zeros(shape, dtype)
            for j, (shape, dtype) in enumerate(self.avals)
        ]
        if type(out) is Node or any(type(v) is Node for v in (ct, *leaves)):
            # The gradient is recorded: differentiate f again, on the nodes.
            return tuple(_vjp(self._g(), *leaves)[1](cts))
        jitted = self.flat.jitted
        if jitted._vjp is None:
            jitted._vjp = jit(_pull_back)
        return tuple(jitted._vjp(self.flat, self.values, leaves, cts))

    def jvp(self, tangents: tuple[Any, ...], out: Any, leaves: tuple[Any, ...], index: int) -> Any:
        ts = tuple(
            numpy.zeros_like(value_of(x)) if t is None else t
            for t, x in zip(tangents, leaves, strict=True)
        )
        if type(out) is Node or any(type(v) is Node for v in (*ts, *leaves)):
            return _jvp(self._g(), tuple(leaves), ts)[1][index]
        jitted = self.flat.jitted
        if jitted._jvp is None:
            jitted._jvp = jit(_push_forward)
        return jitted._jvp(self.flat, self.values, leaves, ts)[index]


def _pull_back(flat: _FlatFn, values: list[Any], leaves: Any, cts: Any) -> Any:
    return _vjp(lambda *dyn: flat(values, *dyn), *leaves)[1](cts)


def _push_forward(flat: _FlatFn, values: list[Any], leaves: Any, ts: Any) -> Any:
    return _jvp(lambda *dyn: flat(values, *dyn), tuple(leaves), tuple(ts))[1]


jit_call = call_primitive(
    "jit_call", "a jitted function called on graph nodes (funcgrad.jit): its plans replayed"
)


def jit(
    f: Callable[..., Any] | None = None,
    static_argnums: int | Sequence[int] = (),
    *,
    cache_size: int = 64,
    max_retraces: int = 8,
) -> Any:
    """Return `f` compiled: traced once per signature, then replayed without building a graph.

    Args:
        f: A function of arrays (pytrees allowed) written with funcgrad
            operations; it may call transforms (`grad`, `hvp`, optimizers).
            Without it, `jit(static_argnums=...)` returns a decorator.
        static_argnums: Positions of arguments that are part of the
            signature by value (Python numbers, flags, shapes). Python
            numbers, integer and boolean arrays and other non-array leaves
            are static anyway; floating-point arrays are dynamic.
        cache_size: How many signatures keep their plans.
        max_retraces: Paths kept per signature; after this many retraces
            for one signature, a warning names the line whose value keeps
            changing.

    Returns:
        A `Jitted` function with `f`'s signature; `.plan(*args)` returns
        the `Plan` (printable source) a call replays.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> loss = lambda w: fnp.sum(fnp.tanh(w) ** 2)
        >>> step = fg.jit(fg.value_and_grad(loss))
        >>> value, g = step(np.array([0.5, -1.0]))
        >>> bool(np.allclose(g, fg.grad(loss)(np.array([0.5, -1.0]))))
        True
    """
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if f is None:
        return functools.partial(
            jit, static_argnums=nums, cache_size=cache_size, max_retraces=max_retraces
        )
    if not callable(f):
        raise TypeError(f"funcgrad.jit: expected a function, got {type(f).__name__}")
    if cache_size < 1 or max_retraces < 1:
        raise ValueError(
            f"funcgrad.jit: cache_size ({cache_size}) and max_retraces ({max_retraces}) "
            f"must be at least 1"
        )
    return Jitted(f, nums, cache_size, max_retraces)


# --- make_graph -------------------------------------------------------------------------


class Graph:
    """A function traced once (`make_graph`): its argument leaves and its output nodes.

    `str(graph)` lists the nodes one per line, inputs first (as
    `jax.make_jaxpr` prints); `to_mermaid()` and `to_dot()` draw it.

    Attributes:
        inputs: The leaves standing for the array arguments, in flattening order.
        outputs: `f`'s output, with nodes for what depends on the arguments.
    """

    def __init__(self, inputs: list[Node], outputs: Any):
        self.inputs = inputs
        self.outputs = outputs

    def nodes(self) -> list[Node]:
        """Return the nodes the outputs depend on, in evaluation order."""
        roots = [v for v in tree_flatten(self.outputs)[0] if type(v) is Node]
        return toposort(*self.inputs, *roots)

    def _names(self) -> dict[int, str]:
        names = {id(n): f"a{i}" for i, n in enumerate(self.inputs)}
        for node in self.nodes():
            names.setdefault(id(node), f"v{len(names)}")
        return names

    def __str__(self) -> str:
        names = self._names()

        def show(x: Any) -> str:
            if type(x) is Node:
                return names[id(x)]
            if getattr(x, "shape", ()) != ():
                return f"const:{x.dtype}{list(x.shape)}"
            return repr(x.item() if hasattr(x, "item") else x)

        def typed(n: Node) -> str:
            return f"{names[id(n)]}:{n.dtype}{list(n.shape)}"

        lines = ["{ lambda " + ", ".join(typed(n) for n in self.inputs) + " ."]
        for node in self.nodes():
            if node.prim is None:
                if id(node) in names and names[id(node)].startswith("a"):
                    continue
                lines.append(f"    {typed(node)} = leaf")
                continue
            params = ", ".join(f"{k}={v!r}" for k, v in node.params.items())
            args = " ".join(show(x) for x in node.inputs)
            lines.append(
                f"    {typed(node)} = {node.prim.name}{f'[{params}]' if params else ''} {args}"
            )
        outs = [show(v) for v in tree_flatten(self.outputs)[0]]
        lines.append("  in (" + ", ".join(outs) + ") }")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def to_mermaid(self, **kwargs: Any) -> str:
        """Return the graph as Mermaid text (`funcgrad.to_mermaid`'s arguments)."""
        roots = [v for v in tree_flatten(self.outputs)[0] if type(v) is Node]
        names = {n: f"a{i}" for i, n in enumerate(self.inputs)}
        return to_mermaid(*roots, names={**names, **kwargs.pop("names", {})}, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """Return the graph as Graphviz DOT text (`funcgrad.to_dot`'s arguments)."""
        roots = [v for v in tree_flatten(self.outputs)[0] if type(v) is Node]
        return to_dot(*roots, **kwargs)


def make_graph(
    f: Callable[..., Any], static_argnums: int | Sequence[int] = ()
) -> Callable[..., Graph]:
    """Return a function that traces `f` on its arguments and returns the `Graph` (`jax.make_jaxpr`).

    Floating-point array leaves of the arguments become the graph's inputs;
    everything else is a constant of the trace.

    Args:
        f: A function of arrays written with funcgrad operations.
        static_argnums: Positions of arguments passed as they are.

    Returns:
        A function with `f`'s signature returning a `Graph`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> print(fg.make_graph(lambda x: fnp.sum(fnp.sin(x) * 2.0))(np.zeros(3)))
        { lambda a0:float64[3] .
            v1:float64[3] = sin a0
            v2:float64[3] = multiply v1 2.0
            v3:float64[] = sum[axis=None, keepdims=False] v2
          in (v3) }
    """
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def traced(*args: Any, **kwargs: Any) -> Graph:
        n = len(args)
        static = {i % n for i in nums}
        given = tuple(None if i in static else a for i, a in enumerate(args))
        leaves, treedef = tree_flatten((given, kwargs))
        inputs: list[Node] = []
        new = []
        for v in leaves:
            if _is_dynamic(v) and type(v) is not Node:
                node = make_node(None, (), _EMPTY, freeze(v))
                inputs.append(node)
                v = node
            new.append(v)
        t_args, t_kwargs = tree_unflatten(treedef, new)
        t_args = tuple(args[i] if i in static else a for i, a in enumerate(t_args))
        with _trace.tracing():
            out = f(*t_args, **t_kwargs)
        return Graph(inputs, tree_map(graph_output, out))

    return traced
