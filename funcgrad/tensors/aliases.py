"""Aliases: tensors that share their values with a base (views, `detach()`, `.data`).

The bookkeeping below `Tensor`, so that the tensor class and the view
operations (`funcgrad.tensors.views`) can both use it without a cycle.

A tensor's `_view` slot is None for a tensor nothing aliases (the common
case: one attribute that is None), a `Storage` for a *root* (a tensor that
owns its values and has aliases or an in-place history), or a `ViewInfo` for
an *alias* of a root. A `ViewInfo` records the root and how the alias was
derived from it, step by step (`Step`: a replayable function from the
parent tensor to the alias). Views of views point to the same root, with the
steps joined, as PyTorch's `_base` is always the root.

Writes (funcgrad.tensors.views.write) go to the root; afterwards every live
alias is *regenerated*: its value (and node, when recorded) is recomputed
by replaying its steps on the root's new value (and node). Aliases are held
weakly by the root's `Storage`, so a view nobody holds costs nothing after
it is gone. Graphs recorded before a write keep the nodes they hold: nodes
never change, only which node each tensor stands for.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy

from funcgrad.backend import freeze, xp_of
from funcgrad.graph import make_node
from funcgrad.tensors import grad_mode
from funcgrad.tensors.base import _own_leaf
from funcgrad.tensors.engine import track

if TYPE_CHECKING:
    from funcgrad.tensors.tensor_class import Tensor

# `viewing.depth` > 0 while a view operation runs (or an alias is regenerated):
# then a result may share memory with its input (see tensor_class._unshared).
viewing = threading.local()
_ndarray = numpy.ndarray
_may_share_memory = numpy.may_share_memory


class Counter:
    """A version counter (`Tensor._version`), shared by a root and its views."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class Storage:
    """What a root shares with its aliases: the version counter, and the aliases (weakly).

    Dead references are dropped when the list has doubled since the last
    sweep, so a long-lived tensor indexed in a loop keeps a short list.
    """

    __slots__ = ("counter", "aliases", "limit")

    def __init__(self, counter: Counter | None = None) -> None:
        self.counter = counter if counter is not None else Counter()
        self.aliases: list[weakref.ref] = []
        self.limit = 8

    def add(self, t: Tensor) -> None:
        aliases = self.aliases
        if len(aliases) >= self.limit:
            aliases[:] = [r for r in aliases if r() is not None]
            self.limit = max(8, 2 * len(aliases))
        aliases.append(weakref.ref(t))

    def live(self) -> list[Tensor]:
        """The aliases still alive."""
        out = []
        for r in self.aliases:
            t = r()
            if t is not None:
                out.append(t)
        return out


class Step:
    """One step from a parent tensor to its alias: `replay(parent) -> alias`.

    Attributes:
        replay: Recomputes the alias from the parent (a Tensor-level function).
        kind: "index" (basic indexing: `index` is the normalized index),
            "detach" (`detach()`, `.data`: the values, cut from the graph),
            "real" / "imag" (parts of a complex tensor), or "view" (any other
            view: reshape, transpose, diagonal ...).
        record: Whether grad mode was on when the view was made (a view made
            under `no_grad` stays cut from the graph when regenerated).
        multi: For an output of a function that returns several views
            (`split`, `chunk`, `unbind`): the function's name and the output's
            position, else None.
    """

    __slots__ = ("replay", "kind", "index", "record", "multi")

    def __init__(
        self,
        replay: Callable[[Tensor], Tensor],
        kind: str = "view",
        index: tuple[Any, ...] | None = None,
        multi: tuple[str, int] | None = None,
    ) -> None:
        self.replay = replay
        self.kind = kind
        self.index = index
        self.record = grad_mode.is_grad_enabled()
        self.multi = multi


class ViewInfo:
    """How an alias was derived from its root (see the module docstring).

    Attributes:
        root: The tensor that owns the values (writes go there).
        storage: The root's `Storage`.
        steps: The steps from the root to this alias, in order.
        counter: The version counter (the root's, except below a `.data`).
        public: Whether PyTorch calls it a view (`_is_view()`); `detach()`
            and `.data` share values but are not views.
        scatter: Where the alias sits in the root, once computed (see
            `funcgrad.tensors.views.root_index`).
    """

    __slots__ = ("root", "storage", "steps", "counter", "public", "scatter")

    def __init__(
        self,
        root: Tensor,
        storage: Storage,
        steps: tuple[Step, ...],
        counter: Counter,
        public: bool,
    ) -> None:
        self.root = root
        self.storage = storage
        self.steps = steps
        self.counter = counter
        self.public = public
        self.scatter: tuple[Any, ...] | None = None

    @property
    def detached(self) -> bool:
        """Whether a `detach()` or `.data` lies between the root and the alias."""
        return any(s.kind == "detach" for s in self.steps)


def storage_of(root: Tensor) -> Storage:
    """The `Storage` of a root, made on first use."""
    s: Any = root._view
    if s is None:
        s = root._view = Storage()
    return s


def counter_of(t: Tensor) -> Counter:
    """The version counter `t` shares with its aliases (made on first use)."""
    info: Any = t._view
    if type(info) is ViewInfo:
        return info.counter
    return storage_of(t).counter


def make_alias(parent: Tensor, out: Tensor, step: Step, *, public: bool = True, counter=None):
    """Record `out` as an alias of `parent`'s root, derived by `step` from `parent`; return `out`.

    `public` False for `detach()` and `.data` (they share values, PyTorch
    does not call them views); `counter` a new counter for `.data`.
    """
    pinfo: Any = parent._view
    if type(pinfo) is ViewInfo:
        root, steps, storage = pinfo.root, (*pinfo.steps, step), pinfo.storage
        counter = counter or pinfo.counter
        base = parent._base if pinfo.public else parent  # below detach(): that tensor
    else:
        root, steps, storage = parent, (step,), storage_of(parent)
        counter = counter or storage.counter
        base = parent
    out._view = ViewInfo(root, storage, steps, counter, public)
    out._base = base if public else None
    storage.add(out)
    return out


def derive(parent: Tensor, fn: Callable[[Tensor], Tensor], kind: str = "view", index=None):
    """Run the view operation `fn` on `parent` and record its result as an alias; return it."""
    viewing.depth = getattr(viewing, "depth", 0) + 1
    try:
        out = fn(parent)
    finally:
        viewing.depth -= 1
    return make_alias(parent, out, Step(fn, kind, index))


def replay(root: Tensor, steps) -> Tensor:
    """Recompute an alias from its root by running its steps, each in its own grad mode."""
    state = grad_mode._state
    saved = getattr(state, "enabled", True)
    viewing.depth = getattr(viewing, "depth", 0) + 1
    try:
        t = root
        for step in steps:
            state.enabled = step.record
            t = step.replay(t)
        return t
    finally:
        state.enabled = saved
        viewing.depth -= 1


def regenerate(a: Tensor) -> None:
    """Give alias `a` the value (and node) its steps give from its root now."""
    info: Any = a._view
    t = replay(info.root, info.steps)
    old = a._node
    if old is not None and old.prim is None:
        # NOTE: a view made a leaf by `requires_grad_()` stays a leaf (with the new values)
        value = freeze(t._value)
        a._node = _own_leaf(a, value)
        a._value = value
        return
    node = t._node
    a._node = node
    a._value = t._value if node is None else node.value
    a._grad_fn = None
    if node is not None and a._retains_grad:
        track(a)


def refresh(root: Tensor, memory: Any = None) -> None:
    """Regenerate the live aliases of `root` after it changed.

    `memory`: the root's array when it was written into in place; aliases
    outside the graph whose values share its memory already show the change
    and are left as they are.
    """
    storage: Any = root._view
    if type(storage) is not Storage:
        return
    for a in storage.live():
        if memory is not None and a._node is None and shares_memory(a._value, memory):
            continue
        regenerate(a)


def shares_memory(a: Any, b: Any) -> bool:
    """Whether two arrays may share memory (bounds only: cheap, and never a false negative)."""
    if a is b:
        return True
    if type(a) is _ndarray and type(b) is _ndarray:
        return bool(_may_share_memory(a, b))
    if type(a) is not type(b) or not hasattr(a, "shape"):
        return False  # different devices, or a NumPy scalar
    return bool(xp_of(a).may_share_memory(a, b))


def assign(t: Tensor, value: Any) -> None:
    """Rebind `t` to `value`, keeping its history (the low-level step of every write).

    A leaf that requires grad gets a new leaf node (graphs recorded before
    keep the old one, and its gradient still reaches `t`); a recorded
    non-leaf keeps its operation and inputs with the new value, as
    PyTorch's `.data` and `no_grad` writes do. Aliases are not refreshed.
    """
    node = t._node
    if node is not None:
        value = freeze(value)
        if node.prim is None:
            node = _own_leaf(t, value)
        else:  # keep the history, with the new value
            node = make_node(node.prim, node.inputs, node.params, value)
        t._node = node
        value = node.value
        if t._retains_grad:  # retain_grad follows the tensor to its new node
            track(t)
    t._value = value
