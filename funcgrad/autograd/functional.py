"""`funcgrad.autograd.functional`: Jacobians and Hessians of functions of tensors.

PyTorch's `torch.autograd.functional` API (`vjp`, `jvp`, `jacobian`,
`hessian`, `vhp`, `hvp`) on the functional core ([funcgrad.vjp][],
[funcgrad.jvp][], [funcgrad.jacrev][], [funcgrad.jacfwd][]). Each function
takes the input tensors' values (their float dtype kept), runs `func` on
tensors that wrap the core's graph nodes (so `func` is written with tensor
methods and `funcgrad` functions, `x.pow(2).sum()`), and gives the results
back as tensors.

The return conventions are PyTorch's: a single tensor where `inputs` (or
the function's output) is a single tensor, tuples where it is a tuple;
`vjp`, `jvp`, `vhp` and `hvp` return `(func_output, result)`. Results are
detached, unless `create_graph=True`: then they are differentiable, with
respect to the input tensors that require grad among others
(`result.sum().backward()` fills `x.grad`).

!!! note "Differences from PyTorch"
    `vectorize` is accepted and does nothing: the results are the same
    either way. Where PyTorch refuses a combination (`strategy="forward-mode"`
    without `vectorize=True`, or with `create_graph=True` or `strict=True`;
    `strict=True` with `vectorize=True`), funcgrad computes it.

Examples:
    >>> import funcgrad as torch
    >>> from funcgrad.autograd.functional import jacobian
    >>> jacobian(lambda x: x.pow(2), torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
"""

from __future__ import annotations

from collections.abc import Callable

from funcgrad.backend import xp_of
from funcgrad.errors import NotDifferentiableError
from funcgrad.graph import Node, leaf, toposort
from funcgrad.tensors.grad_mode import enable_grad
from funcgrad.tensors.tensor_class import Tensor, _new_like
from funcgrad.transforms.forward import jvp as _core_jvp
from funcgrad.transforms.gradients import _owned
from funcgrad.transforms.gradients import grad as _core_grad
from funcgrad.transforms.gradients import vjp as _core_vjp
from funcgrad.transforms.jacobians import jacfwd, jacrev

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_PREFIX = "funcgrad.autograd.functional."
_STRATEGIES = ("forward-mode", "reverse-mode")


# --- arguments in ------------------------------------------------------------


def _as_tuple(x, arg_name: str, fn: str) -> tuple[bool, tuple]:
    """Return `(was_a_tuple, x as a tuple of tensors)`; raise if an entry is no tensor."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"{fn}: the {arg_name} must be either a Tensor or a tuple of Tensors, but "
                f"{where} has type {type(el).__name__}"
            )
    return is_tuple, items


def _primals(inputs: tuple, fn: str, create_graph: bool) -> tuple:
    """What the core differentiates at: values, or graph nodes when `create_graph`.

    With `create_graph`, an input that requires grad gives its own node (so the
    results are differentiable back to it, as in PyTorch); any other input a
    fresh leaf node.
    """
    primals = []
    for i, t in enumerate(inputs):
        if t._value.dtype.kind not in "fc":
            raise RuntimeError(
                f"{fn}: input {i} has dtype {t.dtype} (shape {tuple(t.shape)}); only "
                f"floating-point tensors can be differentiated. Convert it first "
                f"(x.double() or x.float())"
            )
        if not create_graph:
            primals.append(t._value)
        elif t._node is not None and not t._volatile:
            primals.append(t._node)
        else:
            primals.append(leaf(t._value))
    return tuple(primals)


def _value(x):
    return x.value if type(x) is Node else x


def _shape(x) -> tuple:
    return tuple(_value(x).shape)


def _vectors(v, refs: tuple, refs_tuple: bool, what: str, fn: str, create_graph: bool) -> tuple:
    """Check `v` against `refs` (the outputs or the inputs); return it as the core wants it."""
    _, v = _as_tuple(v, "v", fn)
    if len(v) != len(refs):
        if refs_tuple:
            raise RuntimeError(
                f"{fn}: v is a tuple of invalid length: should be {len(refs)} (one entry "
                f"per {what}) but got {len(v)}"
            )
        raise RuntimeError(
            f"{fn}: the given v should contain a single Tensor (the {what} is a single "
            f"Tensor of shape {_shape(refs[0])}), but got a tuple of {len(v)}"
        )
    out = []
    for i, (el, ref) in enumerate(zip(v, refs, strict=True)):
        if tuple(el.shape) != _shape(ref):
            entry = f"entry {i} in v" if refs_tuple else "v"
            name = f"{what} {i}" if refs_tuple else f"the {what}"
            raise RuntimeError(
                f"{fn}: {entry} has invalid size: should be {_shape(ref)} (the shape of "
                f"{name}) but got {tuple(el.shape)}"
            )
        dtype = _value(ref).dtype
        if create_graph and el._node is not None:
            with enable_grad():
                el = el.to(dtype)
            out.append(el._node)
        else:
            value = el._value
            out.append(value if value.dtype == dtype else value.astype(dtype))
    return tuple(out)


def _ones_for(refs: tuple, what: str, fn: str) -> tuple:
    """The default `v`: allowed for a single one-element tensor only."""
    if len(refs) != 1 or _value(refs[0]).size != 1:
        shapes = ", ".join(str(_shape(r)) for r in refs)
        raise RuntimeError(
            f"{fn}: the vector v can only be None if the {what} is a single Tensor with a "
            f"single element, but got shapes ({shapes}); pass v"
        )
    value = _value(refs[0])
    return (xp_of(value).ones(value.shape, dtype=value.dtype),)


def _check_strategy(strategy: str, name: str, fn: str) -> None:
    if strategy not in _STRATEGIES:
        raise ValueError(
            f'{fn}: {name} must be "forward-mode" or "reverse-mode", got {strategy!r}. '
            f'"forward-mode" is faster when the function has more outputs than inputs, '
            f'"reverse-mode" otherwise'
        )


# --- the user's function inside a transform -----------------------------------


def _as_tensor(x) -> Tensor:
    if type(x) is Node:
        return _new_like(Tensor, x.value, x)
    return _new_like(Tensor, x, None)


def _reached(root, variables: tuple) -> list[bool]:
    """For each variable, whether `root` depends on it (is computed from it)."""
    if type(root) is not Node:
        return [False] * len(variables)
    ids = {id(n) for n in toposort(root)}
    return [id(v) in ids for v in variables]


class _Traced:
    """`func` as the core sees it: nodes in, a tuple of nodes (or values) out.

    Each call runs `func` on tensors wrapping the core's fresh variables (with
    grad mode on, so tensor operations record) and keeps what the strict
    checks and the return conventions need: whether `func` returned a tuple,
    its outputs, and (with `strict`) which inputs each output depends on.
    With `strict`, every output must depend on something differentiable and,
    with `every_input`, every input must affect some output. With `scalar`,
    `func` must return one one-element tensor, given back with shape `()`.
    """

    def __init__(
        self, func: Callable, fn: str, strict: bool, scalar: bool = False, every_input: bool = True
    ):
        self.func = func
        self.every_input = every_input
        self.fn = fn
        self.strict = strict
        self.scalar = scalar
        self.is_tuple = False
        self.outputs: tuple = ()
        self.depends: list[list[bool]] = []  # [i][j]: output i depends on input j (strict only)

    def __call__(self, *xs):
        with enable_grad():
            out = self.func(*(_as_tensor(x) for x in xs))
        self.is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", self.fn)
        nodes = tuple(
            o._node if o._node is not None and not o._volatile else o._value for o in outs
        )
        self.outputs = nodes
        if self.scalar:
            if self.is_tuple:
                raise RuntimeError(
                    f"{self.fn}: the function should return a single Tensor, but it returned "
                    f"a tuple of {len(outs)}"
                )
            if outs[0].numel() != 1:
                raise RuntimeError(
                    f"{self.fn}: the Tensor returned by the function should contain a single "
                    f"element, but it has shape {tuple(outs[0].shape)}"
                )
        if self.strict:
            self.depends = [_reached(o, xs) for o in nodes]
            self._check(nodes)
        if self.scalar:
            with enable_grad():
                return outs[0].reshape(())
        return nodes

    def _check(self, nodes: tuple) -> None:
        for i, o in enumerate(nodes):
            if type(o) is not Node:
                raise RuntimeError(
                    f"{self.fn}: output {i} of the user-provided function does not require "
                    f"gradients. The outputs must be computed in a differentiable manner from "
                    f"the input when running in strict mode"
                )
        if not self.every_input:
            return
        used = [any(col) for col in zip(*self.depends, strict=True)] if nodes else []
        for j, u in enumerate(used):
            if not u:
                raise RuntimeError(
                    f"{self.fn}: the output of the user-provided function is independent of "
                    f"input {j}. This is not allowed in strict mode"
                )


class _Gradient:
    """The gradient of a scalar `_Traced` function: a tuple, one entry per input.

    With `strict`, each entry must depend on the inputs (else the Hessian has
    a structurally zero row), and `depends[j]` records which inputs entry `j`
    depends on, for the checks made after the transform.
    """

    def __init__(self, traced: _Traced, n: int, fn: str, strict: bool):
        self.grad = _core_grad(traced, argnums=tuple(range(n)))
        self.fn = fn
        self.strict = strict
        self.depends: list[list[bool]] = []

    def __call__(self, *xs):
        grads = self.grad(*xs)
        if self.strict:
            self.depends = [_reached(g, xs) for g in grads]
            for j, dep in enumerate(self.depends):
                if not any(dep):
                    raise RuntimeError(
                        f"{self.fn}: while computing the hessian, found that the jacobian of "
                        f"the user-provided function with respect to input {j} is independent "
                        f"of the input. This is not allowed in strict mode. You should ensure "
                        f"that your function is twice differentiable and that the jacobian "
                        f"depends on the inputs (this would be violated by a linear function "
                        f"for example)"
                    )
        return grads


# --- results out ---------------------------------------------------------------


def _wrap(r, create_graph: bool, seen: set) -> Tensor:
    if type(r) is Node:
        if create_graph:
            return _new_like(Tensor, r.value, r)
        r = r.value
    return _new_like(Tensor, _owned(r, seen), None)


def _wrap_all(results, create_graph: bool, seen: set):
    if isinstance(results, tuple):
        return tuple(_wrap_all(r, create_graph, seen) for r in results)
    return _wrap(results, create_graph, seen)


def _unpack(res: tuple, is_tuple):
    """PyTorch's `_tuple_postprocess`: unwrap the levels that were single tensors."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        if not outer:
            res = res[0]
        return res
    return res if is_tuple else res[0]


def _require_graph(results: tuple, fn: str, what: str) -> None:
    """`strict` with `create_graph`: every result must depend on something differentiable."""
    for j, r in enumerate(results):
        if type(r) is not Node:
            raise RuntimeError(
                f"{fn}: the {what} of the user-provided function is independent of input "
                f"{j}. This is not allowed in strict mode when create_graph=True"
            )


# --- the API ---------------------------------------------------------------------


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Compute `func(*inputs)` and the vector-Jacobian product `v^T J` (as `torch.autograd.functional.vjp`).

    Args:
        func: A function of tensors returning a tensor or a tuple of tensors.
        inputs: A tensor or a tuple of tensors: the point at which to differentiate.
        v: The vector, shaped like the output (a tuple for a tuple of outputs).
            May be None when the output is a single one-element tensor.
        create_graph: Make the results differentiable (they are detached
            otherwise).
        strict: Raise if an output does not depend on the inputs, or an
            input does not affect the outputs (else its result is zeros).

    Returns:
        `(func_output, vjp)`: the output as `func` returned it (a tensor or a
        tuple) and `v^T J`, shaped like `inputs` (a tensor or a tuple).

    Raises:
        TypeError: If an input, an entry of `v` or an output is not a tensor.
        RuntimeError: If `v` does not match the outputs' number or shapes, or
            is None for an output that is not a single one-element tensor;
            or, with `strict`, if an output is independent of the inputs.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.functional import vjp
        >>> x = torch.tensor([1.0, 2.0])
        >>> out, g = vjp(lambda x: x.pow(2).sum(), x)
        >>> out, g
        (tensor(5.), tensor([2., 4.]))
        >>> vjp(lambda x: x * 3, x, torch.ones(2))[1]
        tensor([3., 3.])
    """
    fn = _PREFIX + "vjp"
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    primals = _primals(inputs, fn, create_graph)
    traced = _Traced(func, fn, strict)
    out, vjp_fn = _core_vjp(traced, *primals)
    if v is None:
        cts = _ones_for(out, "output of the user-provided function", fn)
    else:
        cts = _vectors(v, out, traced.is_tuple, "output", fn, create_graph)
    grads = vjp_fn(cts)
    if strict and create_graph:
        _require_graph(grads, fn, "jacobian")
    seen: set[int] = set()
    return (
        _unpack(_wrap_all(out, create_graph, seen), traced.is_tuple),
        _unpack(_wrap_all(grads, create_graph, seen), is_inputs_tuple),
    )


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Compute `func(*inputs)` and the Jacobian-vector product `J v` (as `torch.autograd.functional.jvp`).

    Computed in forward mode ([funcgrad.jvp][]), in one sweep.

    Args:
        func: A function of tensors returning a tensor or a tuple of tensors.
        inputs: A tensor or a tuple of tensors: the point at which to differentiate.
        v: The vector, shaped like `inputs` (a tuple for a tuple of inputs).
            May be None when `inputs` is a single one-element tensor.
        create_graph: Make the results differentiable (they are detached
            otherwise).
        strict: Raise if an output does not depend on the inputs, or an
            input does not affect the outputs (else its contribution is zero).

    Returns:
        `(func_output, jvp)`: the output as `func` returned it and `J v`,
        shaped like the output (a tensor or a tuple).

    Raises:
        TypeError: If an input, an entry of `v` or an output is not a tensor.
        RuntimeError: If `v` does not match the inputs' number or shapes, or
            is None for inputs that are not a single one-element tensor; or,
            with `strict`, if an output is independent of the inputs.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.functional import jvp
        >>> x = torch.tensor([1.0, 2.0])
        >>> jvp(lambda x: x.pow(2), x, torch.tensor([1.0, 0.0]))
        (tensor([1., 4.]), tensor([2., 0.]))
    """
    fn = _PREFIX + "jvp"
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    primals = _primals(inputs, fn, create_graph)
    if v is None:
        tangents = _ones_for(primals, "input to the user-provided function", fn)
    else:
        tangents = _vectors(v, primals, is_inputs_tuple, "input", fn, create_graph)
    traced = _Traced(func, fn, strict)
    out, t_out = _core_jvp(traced, primals, tangents)
    if strict:
        for i, dep in enumerate(traced.depends):
            if not any(dep):
                raise RuntimeError(
                    f"{fn}: output {i} of the user-provided function is independent of the "
                    f"inputs. This is not allowed in strict mode"
                )
        if create_graph:
            _require_graph(t_out, fn, "jacobian-vector product")
    seen: set[int] = set()
    return (
        _unpack(_wrap_all(out, create_graph, seen), traced.is_tuple),
        _unpack(_wrap_all(t_out, create_graph, seen), traced.is_tuple),
    )


def jacobian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """Compute the Jacobian of `func` at `inputs` (as `torch.autograd.functional.jacobian`).

    Args:
        func: A function of tensors returning a tensor or a tuple of tensors.
        inputs: A tensor or a tuple of tensors: the point at which to differentiate.
        create_graph: Make the Jacobian differentiable (it is detached otherwise).
        strict: Raise if an output is independent of an input (else that
            block is zeros).
        vectorize: Accepted for compatibility; it changes nothing (the
            results are the same either way).
        strategy: `"reverse-mode"` ([funcgrad.jacrev][]: one backward walk
            per output element) or `"forward-mode"` ([funcgrad.jacfwd][]: one
            forward sweep per input element, faster when the outputs have
            more elements than the inputs).

    Returns:
        The Jacobian: for output `i` and input `j` a tensor of shape
        `output_i.shape + input_j.shape`. A single tensor if both are single
        tensors; a tuple over the one that is a tuple; a tuple (outputs) of
        tuples (inputs) if both are.

    Raises:
        TypeError: If an input or an output is not a tensor.
        ValueError: If `strategy` is not one of the two above.
        RuntimeError: With `strict`, if an output is independent of an input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.functional import jacobian
        >>> x = torch.tensor([1.0, 2.0])
        >>> jacobian(lambda x: x.pow(2), x)
        tensor([[2., 0.],
                [0., 4.]])
        >>> y = torch.tensor(3.0)
        >>> jacobian(lambda x, y: x * y, (x, y), strategy="forward-mode")
        (tensor([[3., 0.],
                [0., 3.]]), tensor([1., 2.]))
    """
    fn = _PREFIX + "jacobian"
    _check_strategy(strategy, "strategy", fn)
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    primals = _primals(inputs, fn, create_graph)
    traced = _Traced(func, fn, strict, every_input=False)
    transform = jacrev if strategy == "reverse-mode" else jacfwd
    jac = transform(traced, argnums=tuple(range(len(primals))))(*primals)
    if strict:
        for i, dep in enumerate(traced.depends):
            for j, d in enumerate(dep):
                if not d:
                    raise RuntimeError(
                        f"{fn}: output {i} of the user-provided function is independent of "
                        f"input {j}. This is not allowed in strict mode"
                    )
        if create_graph:
            for row in jac:
                _require_graph(row, fn, "jacobian")
    return _unpack(_wrap_all(jac, create_graph, set()), (traced.is_tuple, is_inputs_tuple))


def _second_order(func, inputs, fn, create_graph, strict):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    primals = _primals(inputs, fn, create_graph)
    traced = _Traced(func, fn, strict, scalar=True)
    gradient = _Gradient(traced, len(primals), fn, strict)
    return is_inputs_tuple, primals, traced, gradient


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """Compute the Hessian of scalar `func` at `inputs` (as `torch.autograd.functional.hessian`).

    The Jacobian of the gradient: reverse over reverse, or forward over
    reverse with `outer_jacobian_strategy="forward-mode"` (which falls back
    to reverse over reverse where a custom rule has no forward-mode
    counterpart, as [funcgrad.hessian][] does).

    Args:
        func: A function of tensors returning a tensor with a single element.
        inputs: A tensor or a tuple of tensors: the point at which to differentiate.
        create_graph: Make the Hessian differentiable (it is detached otherwise).
        strict: Raise if the output, or a gradient, is independent of an
            input (a linear function, say); else those blocks are zeros.
        vectorize: Accepted for compatibility; it changes nothing.
        outer_jacobian_strategy: `"reverse-mode"` or `"forward-mode"`: how
            the Jacobian of the gradient is computed.

    Returns:
        For a single input `x`, a tensor of shape `x.shape + x.shape`; for a
        tuple of inputs, a tuple of tuples whose entry `[i][j]` has shape
        `inputs[i].shape + inputs[j].shape`.

    Raises:
        TypeError: If an input or the output is not a tensor.
        ValueError: If `outer_jacobian_strategy` is not one of the two above.
        RuntimeError: If `func` does not return a single one-element tensor;
            with `strict`, if the output or a gradient is independent of an input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.functional import hessian
        >>> x = torch.tensor([1.0, 2.0])
        >>> hessian(lambda x: x.pow(3).sum(), x)
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    fn = _PREFIX + "hessian"
    _check_strategy(outer_jacobian_strategy, "outer_jacobian_strategy", fn)
    is_inputs_tuple, primals, _, gradient = _second_order(func, inputs, fn, create_graph, strict)
    argnums = tuple(range(len(primals)))
    if outer_jacobian_strategy == "forward-mode":
        try:
            hess = jacfwd(gradient, argnums=argnums)(*primals)
        except NotDifferentiableError:
            hess = jacrev(gradient, argnums=argnums)(*primals)
    else:
        hess = jacrev(gradient, argnums=argnums)(*primals)
    if strict:
        for i, dep in enumerate(gradient.depends):
            for j, d in enumerate(dep):
                if not d:
                    raise RuntimeError(
                        f"{fn}: the gradient of the user-provided function with respect to "
                        f"input {i} is independent of input {j}, so block ({i}, {j}) of the "
                        f"hessian is zero. This is not allowed in strict mode"
                    )
        if create_graph:
            for row in hess:
                _require_graph(row, fn, "hessian")
    return _unpack(_wrap_all(hess, create_graph, set()), (is_inputs_tuple, is_inputs_tuple))


def _func_output(traced: _Traced, create_graph: bool, seen: set) -> Tensor:
    return _wrap(traced.outputs[0], create_graph, seen)


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Compute `func(*inputs)` and the vector-Hessian product `v^T H` (as `torch.autograd.functional.vhp`).

    Computed without forming the Hessian, as the vector-Jacobian product of
    the gradient (reverse over reverse).

    Args:
        func: A function of tensors returning a tensor with a single element.
        inputs: A tensor or a tuple of tensors: the point at which to differentiate.
        v: The vector, shaped like `inputs` (a tuple for a tuple of inputs).
            May be None when `inputs` is a single one-element tensor.
        create_graph: Make the results differentiable (they are detached
            otherwise).
        strict: Raise if the output, or a gradient, is independent of an
            input (else the result has zeros there).

    Returns:
        `(func_output, vhp)`: the output (a tensor) and `v^T H`, shaped like
        `inputs` (a tensor or a tuple).

    Raises:
        TypeError: If an input, an entry of `v` or the output is not a tensor.
        RuntimeError: If `func` does not return a single one-element tensor;
            if `v` does not match the inputs; with `strict`, if the output or
            a gradient is independent of an input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.functional import vhp
        >>> x = torch.tensor([1.0, 2.0])
        >>> vhp(lambda x: x.pow(3).sum(), x, torch.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    return _hessian_product(func, inputs, v, create_graph, strict, _PREFIX + "vhp")


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Compute `func(*inputs)` and the Hessian-vector product `H v` (as `torch.autograd.functional.hvp`).

    Computed without forming the Hessian, as the vector-Jacobian product of
    the gradient (reverse over reverse, as [funcgrad.hvp][] does): the
    Hessian of a scalar function is symmetric, so `H v = (v^T H)^T` and this
    equals [vhp][funcgrad.autograd.functional.vhp].

    Args:
        func: A function of tensors returning a tensor with a single element.
        inputs: A tensor or a tuple of tensors: the point at which to differentiate.
        v: The vector, shaped like `inputs` (a tuple for a tuple of inputs).
            May be None when `inputs` is a single one-element tensor.
        create_graph: Make the results differentiable (they are detached
            otherwise).
        strict: Raise if the output, or a gradient, is independent of an
            input (else the result has zeros there).

    Returns:
        `(func_output, hvp)`: the output (a tensor) and `H v`, shaped like
        `inputs` (a tensor or a tuple).

    Raises:
        TypeError: If an input, an entry of `v` or the output is not a tensor.
        RuntimeError: If `func` does not return a single one-element tensor;
            if `v` does not match the inputs; with `strict`, if the output or
            a gradient is independent of an input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.functional import hvp
        >>> x = torch.tensor([1.0, 2.0])
        >>> hvp(lambda x: x.pow(3).sum(), x, torch.tensor([1.0, 0.0]))
        (tensor(9.), tensor([6., 0.]))
    """
    return _hessian_product(func, inputs, v, create_graph, strict, _PREFIX + "hvp")


def _hessian_product(func, inputs, v, create_graph: bool, strict: bool, fn: str):
    """`vhp` and `hvp`: `v^T H`, which is `H v` (a Hessian is symmetric)."""
    is_inputs_tuple, primals, traced, gradient = _second_order(
        func, inputs, fn, create_graph, strict
    )
    if v is None:
        vectors = _ones_for(primals, "input to the user-provided function", fn)
    else:
        vectors = _vectors(v, primals, is_inputs_tuple, "input", fn, create_graph)
    _, vjp_fn = _core_vjp(gradient, *primals)
    res = vjp_fn(vectors)
    if strict and create_graph:
        _require_graph(res, fn, "hessian")
    seen: set[int] = set()
    return (
        _func_output(traced, create_graph, seen),
        _unpack(_wrap_all(tuple(res), create_graph, seen), is_inputs_tuple),
    )
