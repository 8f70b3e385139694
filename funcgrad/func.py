"""`funcgrad.func` is PyTorch's `torch.func`: function transforms of tensor functions.

`grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian`,
`linearize` and `vmap` with `torch.func`'s signatures, over funcgrad's functional core
(`funcgrad.grad`, `funcgrad.vjp` ...): they take functions of tensors and
return tensors (pytrees of them for pytree arguments and results), and they
compose (`jacfwd(jacrev(f))`, `grad(grad(f))`). As in PyTorch, the
functions run with grad mode on, the results of a transform of tensors that
require grad stay connected to their graph (`.backward()` through them
reaches those tensors), and complex gradients follow PyTorch's convention
(the conjugate of the functional API's, see the complex numbers page).

`vmap` is `funcgrad.vmap` with PyTorch's names (`in_dims`, `out_dims`,
`randomness`; keyword arguments are not mapped). `functional_call` comes
with `funcgrad.nn`. Layer: training.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from funcgrad import transforms as _t
from funcgrad.nn.utils.stateless import functional_call
from funcgrad.tensors.engine import torch_convention as _conj
from funcgrad.tensors.grad_mode import enable_grad as _enable_grad
from funcgrad.tensors.missing import missing as _missing
from funcgrad.tensors.tensor_class import Tensor as _Tensor
from funcgrad.transforms.batching import _vmapped
from funcgrad.transforms.gradients import graph_output as _graph_output
from funcgrad.transforms.pytree import _handler
from funcgrad.transforms.pytree import tree_map as _tree_map

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "vjp",
    "vmap",
]


def _map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """`tree_map(fn, tree)`, with tuples, lists and None walked here (the common trees:
    a call's arguments; this runs for every call of a transformed function)."""
    t = type(tree)
    if t is tuple:
        return tuple([_map(fn, v) for v in tree])
    if t is list:
        return [_map(fn, v) for v in tree]
    if tree is None:
        return None
    if _handler(tree) is not None:  # a dict, a namedtuple, a registered container
        return _tree_map(fn, tree)
    return fn(tree)


def _wrap(v: Any) -> Any:
    if isinstance(v, _Tensor) or not (hasattr(v, "shape") and hasattr(v, "dtype")):
        return v
    return _Tensor.__funcgrad_wrap__(v)


def _unwrap(v: Any) -> Any:
    return _core_value(v) if isinstance(v, _Tensor) else v


def _tensors(tree: Any) -> Any:
    """Every array or graph node of `tree` as a tensor (tensors and other leaves as they are)."""
    return _map(_wrap, tree)


def _graph(tree: Any) -> Any:
    """Every tensor of `tree` as what the functional core differentiates: its node, or its array."""
    return _map(_unwrap, tree)


def _core_value(t: _Tensor) -> Any:
    """A tensor's node, or its value: an array, or the batched value inside `vmap`."""
    if t._node is None:  # its array (or the batched value inside `vmap`)
        return t._value
    return _graph_output(t)


# The functions this module returns (`grad`'s) -> the same function on graph nodes and arrays:
# what `_lowered` makes of them, without wrapping the values into tensors and back (so that
# `vmap(grad(f))` wraps once, not at each level). Keyed by identity: `functools.wraps` copies
# attributes, so a mark on the function would pass to functions wrapping it.
_LOWERED: weakref.WeakKeyDictionary[Callable[..., Any], Callable[..., Any]] = (
    weakref.WeakKeyDictionary()
)


def _lowered(func: Callable[..., Any]) -> Callable[..., Any]:
    """`func`, a function of tensors, as a function of graph nodes and arrays.

    NOTE: the transforms below run the functional core on nodes and arrays
    only: tensors come in as their nodes (or values), `func` gets tensors
    holding the core's variables, and gives back tensors that are turned
    into their nodes. So transforms nest (`jacfwd(jacrev(f))`) as the core's
    do, and a tensor that requires grad is an outer graph's node.
    """

    core = _LOWERED.get(func)
    if core is not None:
        return core

    @functools.wraps(func)
    def lowered(*args: Any, **kwargs: Any) -> Any:
        with _enable_grad():  # as torch.func: the function records even under no_grad
            return _graph(func(*_tensors(args), **_tensors(kwargs)))

    return lowered


def _torch_gradients(tree: Any) -> Any:
    """Gradients as tensors, complex ones in PyTorch's convention (real ones unchanged)."""
    return _tensors(_map(_conj, tree))


def grad(func: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False):
    """Return a function computing the gradient of `func` (which returns a one-element tensor).

    Args:
        func: A function of tensors returning a one-element tensor (and an
            auxiliary result if `has_aux`).
        argnums: The argument(s) to differentiate: an int, or a tuple of ints
            (then the gradient is a tuple).
        has_aux: `func` returns `(output, aux)`; the gradient function then
            returns `(gradient, aux)`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import grad
        >>> grad(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
        tensor([ 3., 12.])
    """
    g = _t.grad(_lowered(func), argnums=argnums, has_aux=has_aux)

    @functools.wraps(func)
    def gradient(*args: Any, **kwargs: Any) -> Any:
        out = g(*_graph(args), **_graph(kwargs))
        if has_aux:
            gs, aux = out
            return _torch_gradients(gs), _tensors(aux)
        return _torch_gradients(out)

    def lowered(*args: Any, **kwargs: Any) -> Any:
        out = g(*args, **kwargs)
        if has_aux:
            gs, aux = out
            return _map(_conj, gs), aux
        return _map(_conj, out)

    _LOWERED[gradient] = lowered
    return gradient


def grad_and_value(
    func: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
):
    """Return a function computing `(gradient, value)` of `func` (`(gradient, (value, aux))` with `has_aux`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import grad_and_value
        >>> grad_and_value(lambda x: (x * x).sum())(torch.tensor([1.0, 2.0]))
        (tensor([2., 4.]), tensor(5.))
    """
    vg = _t.value_and_grad(_lowered(func), argnums=argnums, has_aux=has_aux)

    @functools.wraps(func)
    def gradient_and_value(*args: Any, **kwargs: Any) -> Any:
        value, gs = vg(*_graph(args), **_graph(kwargs))
        return _torch_gradients(gs), _tensors(value)

    return gradient_and_value


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False):
    """Return `(func(*primals), vjp_fn)`; `vjp_fn(cotangents)` gives one gradient per primal (a tuple).

    With `has_aux`, `func` returns `(output, aux)` and `vjp` returns
    `(output, vjp_fn, aux)`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import vjp
        >>> out, vjp_fn = vjp(torch.sin, torch.tensor([0.0, 1.0]))
        >>> vjp_fn(torch.ones(2))
        (tensor([1.0000, 0.5403]),)
    """
    result = _t.vjp(_lowered(func), *_graph(primals), has_aux=has_aux)
    out, pullback = result[0], result[1]

    def vjp_fn(cotangents: Any, *, retain_graph: bool = True, create_graph: bool = False) -> Any:
        return tuple(_torch_gradients(pullback(_map(_conj, _graph(cotangents)))))

    if has_aux:
        return _tensors(out), vjp_fn, _tensors(result[2])
    return _tensors(out), vjp_fn


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
):
    """Return `(func(*primals), J @ tangents)`: the output and its directional derivative.

    `primals` and `tangents` are tuples (or lists) of the same structure.
    With `has_aux`, `func` returns `(output, aux)` and `jvp` returns
    `(output, jvp_out, aux)`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import jvp
        >>> jvp(lambda x: x * x, (torch.tensor([1.0, 2.0]),), (torch.ones(2),))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise RuntimeError(
            "funcgrad.func.jvp: Expected primals and tangents to be tuples (or lists), e.g. "
            "jvp(f, (x,), (t,))"
        )
    if len(primals) != len(tangents):
        raise RuntimeError(
            f"funcgrad.func.jvp: Expected primals and tangents to have the same length, but "
            f"got {len(primals)} primals and {len(tangents)} tangents"
        )
    result = _t.jvp(
        _lowered(func), _graph(tuple(primals)), _graph(tuple(tangents)), has_aux=has_aux
    )
    return tuple(_tensors(r) for r in result)


def jacrev(
    func: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
):
    """Return a function computing the Jacobian of `func` by reverse mode (one VJP per output element).

    The Jacobian of an output of shape `o` with respect to an argument of
    shape `i` has shape `o + i`; for tuple `argnums`, a tuple of them; for
    pytree outputs, the output's structure. `chunk_size` is accepted (all
    rows are computed at once).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import jacrev
        >>> jacrev(torch.sin)(torch.tensor([0.0, 0.0]))
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _jacobian(_t.jacrev, func, argnums, has_aux)


def jacfwd(
    func: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
):
    """Return a function computing the Jacobian of `func` by forward mode (one JVP per input element).

    Same results as `jacrev`; `randomness` is accepted for PyTorch's signature.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import jacfwd
        >>> jacfwd(lambda x: x ** 2)(torch.tensor([1.0, 3.0]))
        tensor([[2., 0.],
                [0., 6.]])
    """
    return _jacobian(_t.jacfwd, func, argnums, has_aux)


def _jacobian(transform: Callable[..., Any], func: Callable[..., Any], argnums: Any, has_aux: bool):
    jac = transform(_lowered(func), argnums=argnums, has_aux=has_aux)

    @functools.wraps(func)
    def jacobian(*args: Any, **kwargs: Any) -> Any:
        out = jac(*_graph(args), **_graph(kwargs))
        if has_aux:
            j, aux = out
            return _tensors(j), _tensors(aux)
        return _tensors(out)

    return jacobian


def hessian(func: Callable[..., Any], argnums: int | Sequence[int] = 0):
    """Return a function computing the Hessian of `func` (`jacfwd(jacrev(func))`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func: Callable[..., Any], *primals: Any):
    """Return `(func(*primals), jvp_fn)`; `jvp_fn(*tangents)` is the JVP at `primals`.

    The function is traced once; each `jvp_fn` call replays its linear part.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import linearize
        >>> out, jvp_fn = linearize(torch.sin, torch.tensor([0.0, 1.0]))
        >>> jvp_fn(torch.ones(2))
        tensor([1.0000, 0.5403])
    """
    out, f_jvp = _t.linearize(_lowered(func), *_graph(primals))

    def jvp_fn(*tangents: Any) -> Any:
        return _tensors(f_jvp(*_graph(tangents)))

    return _tensors(out), jvp_fn


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
):
    """Return `func` mapped over a dimension of its tensor arguments (`torch.func.vmap`).

    `vmap(f)(xs)` is `stack([f(x) for x in xs])`, computed with each
    operation applied once to the whole batch. It composes with the other
    transforms: `vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)`
    gives per-example gradients.

    Args:
        func: A function of tensors (pytrees of them).
        in_dims: The dimension of each positional argument to map over: an
            int, None (not mapped) or a tuple with one entry per argument
            (each a prefix of that argument's structure). Keyword arguments
            are not mapped.
        out_dims: Where the batch dimension goes in each output.
        randomness: `"error"` (a random draw inside raises), `"different"`
            (independent draws per example) or `"same"` (one draw for all).
        chunk_size: At most this many examples at once.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.func import vmap
        >>> vmap(torch.dot)(torch.ones(3, 2), torch.tensor([[1.0, 2.0]] * 3))
        tensor([3., 3., 3.])
    """
    core = _vmapped(
        _lowered(func), in_dims, out_dims, None, chunk_size, randomness, False, "funcgrad.func.vmap"
    )

    @functools.wraps(func)
    def mapped(*args: Any, **kwargs: Any) -> Any:
        return _tensors(core(*_graph(args), **_graph(kwargs)))

    return mapped


def __getattr__(name: str) -> Any:
    raise _missing("torch.func", name, "funcgrad.func")
