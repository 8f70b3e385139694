"""HIPS autograd's `autograd.differential_operators`, for porting autograd programs by changing the import.

`from autograd import elementwise_grad, make_vjp, ...` becomes
`from funcgrad import elementwise_grad, make_vjp, ...`; the names, argument
conventions and results are autograd 1.9's (`grad`, `value_and_grad`,
`jacobian`, `hessian` and `checkpoint` are funcgrad's own and accept
autograd's positional `argnum`). Each operator takes `argnum` (an int, or
a tuple of ints for a tuple of arguments) and returns a function of the
same arguments as `fun`; like the rest of funcgrad it is built on `vjp`,
`jvp` and `grad`, so the results compose with every other transform.

Where autograd's name and funcgrad's differ in convention, autograd's is
kept here: `make_vjp(f)(x)` returns `(vjp_fn, value)` and `vjp_fn(g)`
returns the cotangent itself (funcgrad's `vjp` returns `(value, vjp_fn)`
and a tuple of cotangents).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import funcgrad.numpy as fnp
from funcgrad.backend import as_value
from funcgrad.errors import DtypeError
from funcgrad.graph import Node
from funcgrad.transforms import grad, jacobian, jvp, vjp

ArgNum = int | Sequence[int]


def _at_argnum(
    op: Callable[[Callable[[Any], Any], Any], Any],
    name: str,
    fun: Callable[..., Any],
    argnum: ArgNum,
) -> Callable[..., Any]:
    """autograd's `name(fun, argnum)`: a function of `fun`'s arguments applying `op(unary_fun, x)`.

    The selected argument (a tuple of them when `argnum` is a tuple) is
    what `unary_fun` takes; the others are held fixed.
    """

    @functools.wraps(fun)
    def applied(*args: Any, **kwargs: Any) -> Any:
        nums = (argnum,) if isinstance(argnum, int) else tuple(argnum)
        for i in nums:
            if not -len(args) <= i < len(args):
                raise ValueError(
                    f"funcgrad.{name}: argnum={argnum!r} asks for argument {i}, but the "
                    f"function was called with {len(args)} positional argument(s)"
                )

        def unary(x: Any) -> Any:
            new = list(args)
            for i, xi in zip(nums, (x,) if isinstance(argnum, int) else x, strict=True):
                new[i] = xi
            return fun(*new, **kwargs)

        x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in nums)
        return op(unary, x)

    return applied


def _plain(value: Any) -> Any:
    """The array (or number) a value holds: a graph node's value, also one of an outer graph."""
    while type(value) is Node:
        value = value.value
    return as_value(value)


def _ones_like(value: Any) -> Any:
    v = _plain(value)
    return np.ones_like(v) if isinstance(v, np.ndarray) or np.ndim(v) else type(v)(1)


def _elementwise_grad(fun: Callable[[Any], Any], x: Any) -> Any:
    value, vjp_fn = vjp(fun, x)
    if np.iscomplexobj(_plain(value)):
        raise DtypeError(
            "funcgrad.elementwise_grad: the function's output is complex "
            f"({_plain(value).dtype}); elementwise_grad applies to real outputs "
            "(use holomorphic_grad, or grad of the real part)"
        )
    return vjp_fn(_ones_like(value))[0]


def _deriv(fun: Callable[[Any], Any], x: Any) -> Any:
    return jvp(fun, (x,), (_ones_like(x),))[1]


def _holomorphic_grad(fun: Callable[[Any], Any], x: Any) -> Any:
    if not np.iscomplexobj(_plain(x)):
        warnings.warn("Input to holomorphic_grad is not complex", stacklevel=3)
        return grad(lambda z: fnp.real(fun(z)))(x)
    return grad(fun, holomorphic=True)(x)


def _make_vjp(fun: Callable[[Any], Any], x: Any) -> tuple[Callable[[Any], Any], Any]:
    value, vjp_fn = vjp(fun, x)
    return (lambda g: vjp_fn(g)[0]), value


def _make_jvp(fun: Callable[[Any], Any], x: Any) -> Callable[[Any], tuple[Any, Any]]:
    return lambda v: jvp(fun, (x,), (v,))


def _make_hvp(fun: Callable[[Any], Any], x: Any) -> tuple[Callable[[Any], Any], Any]:
    return _make_vjp(grad(fun), x)


def _grad_and_aux(fun: Callable[[Any], Any], x: Any) -> tuple[Any, Any]:
    return grad(lambda z: tuple(fun(z)), has_aux=True)(x)


def elementwise_grad(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The sum of each column of `fun`'s Jacobian, in one reverse pass (autograd's).

    For a function that acts elementwise (a diagonal Jacobian) it is the
    derivative of each output with respect to its input: the VJP with a
    cotangent of ones.

    Args:
        fun: The function, with a real-valued (array) output.
        argnum: The position of the argument to differentiate (an int, or a
            tuple of ints for a tuple of arguments).

    Returns:
        A function of `fun`'s arguments returning the VJP of ones, shaped like
        the argument.

    Raises:
        DtypeError: If the output is complex.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.elementwise_grad(fnp.tanh)(fnp.array([0.0, 1.0]))
        array([1.        , 0.41997434])
    """
    return _at_argnum(_elementwise_grad, "elementwise_grad", fun, argnum)


def deriv(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The JVP of `fun` with a tangent of ones, in one forward pass (autograd's `deriv`).

    For an elementwise function it equals `elementwise_grad`, computed in
    forward mode.

    Args:
        fun: The function.
        argnum: The position of the argument to differentiate.

    Returns:
        A function of `fun`'s arguments returning the tangent of the output.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.deriv(lambda x: x**3)(fnp.array([1.0, 2.0]))
        array([ 3., 12.])
    """
    return _at_argnum(_deriv, "deriv", fun, argnum)


def holomorphic_grad(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The complex derivative f'(z) of a holomorphic scalar function (autograd's).

    The same as `grad(fun, argnum, holomorphic=True)`; on a real input it
    warns, as autograd does, and returns the gradient of the real part.

    Args:
        fun: A holomorphic function with a scalar (one-element) output.
        argnum: The position of the argument to differentiate.

    Returns:
        A function of `fun`'s arguments returning f'(z), shaped like `z`.

    Examples:
        >>> import funcgrad as fg
        >>> fg.holomorphic_grad(lambda z: z**3)(1.0 + 2.0j)
        (-9+12j)
    """
    return _at_argnum(_holomorphic_grad, "holomorphic_grad", fun, argnum)


def make_vjp(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The VJP function and the value of `fun` at a point (autograd's order and conventions).

    `make_vjp(fun)(x)` returns `(vjp_fn, value)` where `vjp_fn(g)` is the
    cotangent of `x` for an output cotangent `g` (funcgrad's own `vjp`
    returns `(value, vjp_fn)` and a tuple). The forward pass runs once;
    `vjp_fn` may be called many times.

    Args:
        fun: The function.
        argnum: The position of the argument to differentiate.

    Returns:
        A function of `fun`'s arguments returning `(vjp_fn, value)`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> vjp_fn, y = fg.make_vjp(lambda x: x**2)(fnp.array([1.0, 3.0]))
        >>> vjp_fn(fnp.array([1.0, 0.5]))
        array([2., 3.])
    """
    return _at_argnum(_make_vjp, "make_vjp", fun, argnum)


def make_jvp(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """A JVP function of `fun` at a point (autograd's `make_jvp`).

    `make_jvp(fun)(x)` returns `jvp_fn`, and `jvp_fn(v)` returns
    `(value, tangent)`: the output and its directional derivative along `v`.

    Args:
        fun: The function.
        argnum: The position of the argument to differentiate.

    Returns:
        A function of `fun`'s arguments returning `jvp_fn`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> value, tangent = fg.make_jvp(fnp.sin)(0.0)(2.0)
        >>> float(value), float(tangent)
        (0.0, 2.0)
    """
    return _at_argnum(_make_jvp, "make_jvp", fun, argnum)


def make_hvp(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """A Hessian-vector-product function at a point, with the gradient there (autograd's).

    `make_hvp(fun)(x)` returns `(hvp_fn, gradient)`; `hvp_fn(v)` is the
    product of the Hessian of the scalar function `fun` at `x` with `v`. The
    forward and first backward passes run once, however many products follow.

    Args:
        fun: A function with a scalar output.
        argnum: The position of the argument to differentiate.

    Returns:
        A function of `fun`'s arguments returning `(hvp_fn, gradient)`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> hvp_fn, g = fg.make_hvp(lambda x: fnp.sum(x**3))(fnp.array([1.0, 2.0]))
        >>> hvp_fn(fnp.array([1.0, 1.0])), g
        (array([ 6., 12.]), array([ 3., 12.]))
    """
    return _at_argnum(_make_hvp, "make_hvp", fun, argnum)


def grad_and_aux(fun: Callable[..., Any], argnum: ArgNum = 0) -> Callable[..., Any]:
    """The gradient of the first output of `fun` and its second output (autograd's).

    `fun` returns `(value, aux)`; the result is `(gradient of value, aux)`,
    as `grad(fun, has_aux=True)`.

    Args:
        fun: A function returning a pair: a scalar and anything.
        argnum: The position of the argument to differentiate.

    Returns:
        A function of `fun`'s arguments returning `(gradient, aux)`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.grad_and_aux(lambda x: (fnp.sum(x**2), "aux"))(fnp.array([1.0, 2.0]))
        (array([2., 4.]), 'aux')
    """
    return _at_argnum(_grad_and_aux, "grad_and_aux", fun, argnum)


def grad_named(fun: Callable[..., Any], argname: str) -> Callable[..., Any]:
    """The gradient with respect to the argument called `argname` (autograd's `grad_named`).

    Args:
        fun: A function with a scalar output; `argname` must be one of its
            named positional parameters (not `*args` or `**kwargs`).
        argname: The parameter's name.

    Returns:
        `grad(fun, i)` where `i` is the parameter's position.

    Raises:
        ValueError: If `fun` has no positional parameter of that name.

    Examples:
        >>> import funcgrad as fg
        >>> fg.grad_named(lambda x, y: x * y**2, "y")(3.0, 2.0)
        12.0
    """
    names = [
        p.name
        for p in inspect.signature(fun).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if argname not in names:
        raise ValueError(
            f"funcgrad.grad_named: {getattr(fun, '__name__', fun)!s} has no positional "
            f"parameter {argname!r} (its positional parameters: {names})"
        )
    return grad(fun, names.index(argname))


def hessian_tensor_product(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """The product of `fun`'s Hessian with a tensor (autograd's; `hessian_vector_product` too).

    The returned function takes `fun`'s arguments followed by the tensor
    `v`, shaped like the argument, and returns `H v` (the Hessian
    contracted with `v` over all of the argument's axes), by reverse over
    reverse mode without forming `H`.

    Args:
        fun: A function with a scalar output.
        argnum: The position of the argument to differentiate.

    Returns:
        A function `(*args, v, **kwargs) -> H v`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> hvp = fg.hessian_vector_product(lambda x: fnp.sum(x**3))
        >>> hvp(fnp.array([1.0, 2.0]), fnp.array([1.0, 0.0]))
        array([6., 0.])
    """
    fun_grad = grad(fun, argnum)

    def grad_dot(*args: Any, **kwargs: Any) -> Any:
        *primals, v = args
        return fnp.tensordot(fun_grad(*primals, **kwargs), v, fnp.ndim(v))

    return grad(grad_dot, argnum)


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun: Callable[..., Any], argnum: int = 0) -> Callable[..., Any]:
    """The product of a tensor with `fun`'s Jacobian (autograd's; `vector_jacobian_product` too).

    The returned function takes `fun`'s arguments followed by the tensor
    `v`, shaped like the output, and returns `v J` (`v` contracted with the
    Jacobian over all of the output's axes), shaped like the argument: one
    reverse pass.

    Args:
        fun: The function.
        argnum: The position of the argument to differentiate.

    Returns:
        A function `(*args, v, **kwargs) -> v J`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> tjp = fg.vector_jacobian_product(lambda x: x**3)
        >>> tjp(fnp.array([1.0, 2.0]), fnp.array([1.0, 1.0]))
        array([ 3., 12.])
    """

    def dot_fun(*args: Any, **kwargs: Any) -> Any:
        *primals, v = args
        return fnp.tensordot(v, fun(*primals, **kwargs), fnp.ndim(v))

    return jacobian(dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


def _half_squared_norm(y: Any) -> Any:
    return 0.5 * fnp.sum(y**2, axis=-1)


def make_ggnvp(
    f: Callable[..., Any],
    g: Callable[[Any], Any] = _half_squared_norm,
    f_argnum: int = 0,
) -> Callable[..., Callable[[Any], Any]]:
    """Generalized Gauss-Newton-vector products `J^T H_g J v` of `g(f(x))` (autograd's).

    `J` is the Jacobian of `f` at `x` and `H_g` the Hessian of the scalar
    function `g` at `f(x)` (by default half the squared norm over the last
    axis, so `H_g` is the identity and the product is `J^T J v`). `J v` is
    one forward-mode pass, `H_g u` one Hessian-vector product, `J^T w` one
    reverse pass of the VJP made once per point.

    Args:
        f: The inner function.
        g: The outer function, with a scalar output.
        f_argnum: The position of `f`'s argument to differentiate.

    Returns:
        A function of `f`'s arguments returning `ggnvp(v)`.

    Examples:
        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> ggnvp = fg.make_ggnvp(lambda x: 2.0 * x)(fnp.array([1.0, 2.0]))
        >>> ggnvp(fnp.array([1.0, 0.0]))
        array([4., 0.])
    """

    def at(fun: Callable[[Any], Any], x: Any) -> Callable[[Any], Any]:
        fx, f_vjp = vjp(fun, x)
        g_hvp, _ = _make_hvp(g, fx)

        def ggnvp(v: Any) -> Any:
            return f_vjp(g_hvp(jvp(fun, (x,), (v,))[1]))[0]

        return ggnvp

    return _at_argnum(at, "make_ggnvp", f, f_argnum)


def multigrad_dict(fun: Callable[..., Any]) -> Callable[..., dict[str, Any]]:
    """Gradients with respect to every argument at once, by name (autograd's `multigrad_dict`).

    The returned function takes `fun`'s arguments and returns a dict from
    each parameter's name (in the signature's order, defaults filled in) to
    the gradient of the scalar output with respect to it; a `*args`
    parameter's gradient is a tuple, a `**kwargs` parameter's a dict.

    Args:
        fun: A function with a scalar output.

    Returns:
        A function of `fun`'s arguments returning the dict of gradients.

    Examples:
        >>> import funcgrad as fg
        >>> fg.multigrad_dict(lambda a, b=2.0: a * b)(3.0)
        {'a': 2.0, 'b': 3.0}
    """
    sig = inspect.signature(fun)

    def call(arguments: dict[str, Any]) -> Any:
        bound = sig.bind_partial()
        bound.arguments.update(arguments)
        return fun(*bound.args, **bound.kwargs)

    def gradfun(*args: Any, **kwargs: Any) -> dict[str, Any]:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        grads = grad(call)(arguments)  # a dict's keys come back sorted: the signature's order
        return {name: grads[name] for name in arguments}

    return gradfun


__all__ = [
    "deriv",
    "elementwise_grad",
    "grad_and_aux",
    "grad_named",
    "hessian_tensor_product",
    "hessian_vector_product",
    "holomorphic_grad",
    "make_ggnvp",
    "make_hvp",
    "make_jvp",
    "make_vjp",
    "multigrad_dict",
    "tensor_jacobian_product",
    "vector_jacobian_product",
]
