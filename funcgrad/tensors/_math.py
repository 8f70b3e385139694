"""Elementwise math of the tensor API: `lerp`, special functions, rounding division, bitwise operations ...

Most apply one primitive of `funcgrad.ops` (special functions from
`funcgrad.ops.special`, NumPy's other ufuncs from `funcgrad.ops.ufuncs`)
through `_apply`, which gives PyTorch's type promotion (integers to the
default float for floating-point functions). The integer-valued ones
(`floor_divide`, the bitwise and shift operators, `isclose`) have no
gradient and compute on the values.
"""

from __future__ import annotations

import numpy as np

from funcgrad import numpy as fnp
from funcgrad.errors import ArgumentTypeError as _ArgumentTypeError
from funcgrad.errors import DtypeError as _DtypeError
from funcgrad.errors import OpError as _OpError
from funcgrad.ops import elementwise as _ew
from funcgrad.ops import special as _sp
from funcgrad.ops._util import index_of as _index_of
from funcgrad.tensors.dtypes import default_float_dtype as _default_float
from funcgrad.tensors.dtypes import result_dtype as _result_dtype
from funcgrad.tensors.dtypes import torch_name as _torch_name
from funcgrad.tensors.tensor_class import (
    Tensor,
    _apply,
    _new_like,
    _read_value,
    _traced_compare,
    _unwrap_value,
    _value_readers,
)

__all__ = [
    "angle",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "ceil",
    "conj",
    "conj_physical",
    "eq",
    "fix",
    "float_power",
    "floor",
    "floor_divide",
    "frac",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "imag",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "le",
    "lerp",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "lt",
    "mvlgamma",
    "nan_to_num",
    "ne",
    "not_equal",
    "polygamma",
    "positive",
    "real",
    "resolve_conj",
    "resolve_neg",
    "round",
    "rsqrt",
    "sgn",
    "signbit",
    "trunc",
]


def _float_dtype(t, op: str, what: str, dtype) -> None:
    if isinstance(t, Tensor) and np.dtype(t.dtype) != np.dtype(dtype) and t.dim():
        raise _DtypeError(
            f"funcgrad.{op}: expected dtype {_torch_name(dtype)} for `{what}` but got dtype "
            f"{_torch_name(t.dtype)}; convert it first, e.g. {what}.to(input.dtype)"
        )


def lerp(input, end, weight):  # noqa: A002
    """Return `input + weight * (end - input)`, the linear interpolation (a number or tensor `weight`).

    Gradients go to all three (`weight` too, when it is a tensor).

    Raises:
        funcgrad.errors.DtypeError: If `end` (or a tensor `weight`) has another
            dtype than `input`, or `input` is not floating point.

    Examples:
        >>> import funcgrad as torch
        >>> torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([10.0, 20.0]), 0.25)
        tensor([ 2.5000, 12.5000])
    """
    if not isinstance(input, Tensor) or not isinstance(end, Tensor):
        raise TypeError(
            "funcgrad.lerp() received an invalid combination of arguments: expected "
            "(Tensor input, Tensor end, Tensor or number weight)"
        )
    if np.dtype(input.dtype).kind not in "fc":
        raise _DtypeError(
            f"funcgrad.lerp: lerp is not implemented for {_torch_name(input.dtype)}; use a "
            f"floating-point tensor"
        )
    if np.dtype(end.dtype) != np.dtype(input.dtype):
        raise _DtypeError(
            f"funcgrad.lerp: expected dtype {_torch_name(input.dtype)} for `end` but got dtype "
            f"{_torch_name(end.dtype)}"
        )
    _float_dtype(weight, "lerp", "weight", input.dtype)
    return _apply(
        lambda a, b, w: _ew.add(a, _ew.multiply(w, _ew.subtract(b, a))), input, end, weight
    )


# --- helpers ------------------------------------------------------------------------------


def _value(x):
    return _unwrap_value(x)


def _wrap(value) -> Tensor:
    return _new_like(Tensor, value, None)


def _tensor(input, op: str) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        raise _ArgumentTypeError(
            f"funcgrad.{op}(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    return input


def _operand(x):
    """A tensor's value, or a number (a NumPy scalar as a Python number)."""
    v = _unwrap_value(x)
    return v.item() if isinstance(v, np.generic) else v


def _result(op: str, *args):
    """PyTorch's result dtype of the operands (`torch.result_type`)."""
    return _result_dtype([_operand(a) for a in args])


# --- rounding --------------------------------------------------------------------------------


def _rounding(name, fn, doc_in, doc_out):
    def f(input):  # noqa: A002
        _tensor(input, name)
        if input.dtype.kind in "biu":
            return input.clone()
        return _apply(fn, input)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return {doc_out}, elementwise (zero gradient; integers are returned as they are).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor({doc_in}))
    """
    return f


floor = _rounding("floor", fnp.floor, "[-1.5, 1.5]", "the largest integer not above each entry")
floor.__doc__ += "    tensor([-2.,  1.])\n"
ceil = _rounding("ceil", fnp.ceil, "[-1.5, 1.5]", "the smallest integer not below each entry")
ceil.__doc__ += "    tensor([-1.,  2.])\n"
trunc = _rounding("trunc", fnp.trunc, "[-1.5, 1.5]", "the integer part (rounded toward zero)")
trunc.__doc__ += "    tensor([-1.,  1.])\n"
fix = _rounding("fix", fnp.trunc, "[-1.5, 1.5]", "the integer part (`trunc`'s other name)")
fix.__doc__ += "    tensor([-1.,  1.])\n"


def round(input, *, decimals=0):  # noqa: A001, A002
    """Return `input` rounded to `decimals` decimals, halves to even (zero gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.round(torch.tensor([0.5, 1.5, 2.5]))
        tensor([0., 2., 2.])
    """
    _tensor(input, "round")
    decimals = _index_of(decimals, "round", "decimals")
    if input.dtype.kind in "biu":
        if decimals:
            raise _OpError(
                "funcgrad.round: round_mode is not supported for integer inputs with decimals"
            )
        return input.clone()
    return _apply(lambda a: fnp.round(a, decimals), input)


def frac(input):  # noqa: A002
    """Return the fractional part `input - trunc(input)` (gradient 1).

    Examples:
        >>> import funcgrad as torch
        >>> torch.frac(torch.tensor([1.25, -1.5]))
        tensor([ 0.2500, -0.5000])
    """
    _float_only(_tensor(input, "frac"), "frac")
    return _apply(lambda a: _ew.subtract(a, fnp.trunc(a)), input)


def _float_only(t, op):
    if t.dtype.kind not in "fc":
        raise _DtypeError(
            f"funcgrad.{op}: \"{op}_cpu\" not implemented for '{_torch_name(t.dtype)}'"
        )


def rsqrt(input):  # noqa: A002
    """Return `1 / sqrt(input)`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.rsqrt(torch.tensor([4.0]))
        tensor([0.5000])
    """
    if _tensor(input, "rsqrt").dtype.kind in "biu":
        input = input.to(_default_float())
    return _apply(lambda a: _ew.divide(1.0, _ew.sqrt(a)), input)


def sgn(input):  # noqa: A002
    """Return the sign: `x / |x|` for complex entries (0 at 0), `sign` for real ones.

    Examples:
        >>> import funcgrad as torch
        >>> torch.sgn(torch.tensor([-2.0, 0.0, 3.0]))
        tensor([-1.,  0.,  1.])
    """
    _tensor(input, "sgn")
    if input.dtype == np.bool_:
        return input.clone()
    return _apply(_ew.sign, input)


def signbit(input):  # noqa: A002
    """Return whether each entry has its sign bit set (-0.0 included; no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.signbit(torch.tensor([-1.0, -0.0, 2.0]))
        tensor([ True,  True, False])
    """
    return _wrap(np.signbit(_read_value(_tensor(input, "signbit"), "signbit")))


def positive(input):  # noqa: A002
    """Return `input` itself (PyTorch's `+x`; refused for bool).

    Examples:
        >>> import funcgrad as torch
        >>> torch.positive(torch.tensor([-1.0]))
        tensor([-1.])
    """
    if _tensor(input, "positive").dtype == np.bool_:
        raise _DtypeError("funcgrad.positive: The `+` operator, on a bool tensor is not supported.")
    return input


# --- divisions ---------------------------------------------------------------------------------


def _rounded_division(input, other, mode: str, op: str = "div"):  # noqa: A002
    """`input / other` rounded toward zero (`"trunc"`) or down (`"floor"`), PyTorch's way.

    Integers divide exactly (a zero divisor raises `ZeroDivisionError`, as in
    PyTorch); floating-point results have a zero gradient.
    """
    if mode not in ("trunc", "floor"):
        raise _OpError(
            f"funcgrad.{op}: div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            f"but found '{mode}'"
        )
    dtype = _result(op, input, other)
    if dtype is not None and dtype.kind in "biu":
        _read_value(input, op), _read_value(other, op)  # funcgrad.compile: a read (eager)
        a, b = np.asarray(_operand(input)), np.asarray(_operand(other))
        a, b = a.astype(dtype), b.astype(dtype)
        if np.any(b == 0):
            raise ZeroDivisionError(f"funcgrad.{op}: ZeroDivisionError (an integer divided by 0)")
        q = np.floor_divide(a, b)
        if mode == "trunc":
            q = np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q)
        return _wrap(np.asarray(q, dtype=dtype))
    if mode == "floor":
        return _apply(fnp.floor_divide, input, other)
    return _apply(lambda a, b: fnp.trunc(_ew.divide(a, b)), input, other)


def floor_divide(input, other):  # noqa: A002
    """Return `input / other` rounded down (Python's `//`; zero gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.floor_divide(torch.tensor([-7, 7]), 2)
        tensor([-4,  3])
    """
    return _rounded_division(input, other, "floor", "floor_divide")


def float_power(input, exponent):  # noqa: A002
    """Return `input ** exponent` computed in float64 (complex128 for complex operands).

    Examples:
        >>> import funcgrad as torch
        >>> torch.float_power(torch.tensor([2]), 2)
        tensor([4.], dtype=funcgrad.float64)
    """
    complex_ = any(
        np.dtype(getattr(_value(a), "dtype", np.float64)).kind == "c" or isinstance(a, complex)
        for a in (input, exponent)
    )
    dtype = np.complex128 if complex_ else np.float64

    def cast(a):
        return a.to(dtype) if isinstance(a, Tensor) else a

    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import pow as _pow

    return _pow(cast(input), cast(exponent))


# --- special functions that take more than one tensor ---------------------------------------


def polygamma(n, input):  # noqa: A002
    """Return the `n`-th derivative of the digamma function at `input`.

    Examples:
        >>> import funcgrad as torch
        >>> torch.polygamma(1, torch.tensor([1.0]))
        tensor([1.6449])
    """
    n = _index_of(n, "polygamma", "n")
    if n < 0:
        raise _OpError(f"funcgrad.polygamma: polygamma(n, x) does not support negative n (got {n})")
    t = _tensor(input, "polygamma")
    if t.dtype.kind == "c":  # PyTorch has no complex kernel (funcgrad.scipy.special has)
        kernel = ("digamma", "trigamma")[n] if n < 2 else "polygamma"
        raise _DtypeError(
            f"funcgrad.polygamma: \"{kernel}\" not implemented for '{_torch_name(t.dtype)}'"
        )
    return _apply(lambda x: _sp.polygamma(n, x), t)


def logit(input, eps=None):  # noqa: A002
    """Return `log(p / (1 - p))`, `input` first clamped to `[eps, 1 - eps]` if `eps` is given.

    Examples:
        >>> import funcgrad as torch
        >>> torch.logit(torch.tensor([0.5, 0.0]), eps=0.25)
        tensor([ 0.0000, -1.0986])
    """
    _tensor(input, "logit")
    if eps is None:
        return _apply(_sp.logit, input)
    # NOTE: cycle: functions re-exports this
    from funcgrad.tensors.functions import clamp

    return _apply(_sp.logit, clamp(input, eps, 1 - eps))


def mvlgamma(input, p):  # noqa: A002
    """Return the multivariate log-gamma function of dimension `p`.

    As in PyTorch 2.13, entries are not checked against the domain `x > (p - 1) / 2`:
    outside it the result is the same sum of `lgamma` terms (log |Gamma|), `inf` at poles.

    Examples:
        >>> import funcgrad as torch
        >>> torch.mvlgamma(torch.tensor([2.5]), 2)
        tensor([0.8570])
    """
    p = _index_of(p, "mvlgamma", "p")
    if p < 1:
        raise _OpError(f"funcgrad.mvlgamma: p has to be greater than or equal to 1 (got {p})")
    x = _tensor(input, "mvlgamma")
    # NOTE: no check of x > (p-1)/2 on the values: PyTorch 2.13 has none (older versions
    # raised), and a value check here was one funcgrad.compile's replay skipped.
    if x.dtype.kind in "biu":
        x = x.to(_default_float())
    const = float(p * (p - 1) / 4 * np.log(np.pi))  # a Python float: weak, keeps the dtype

    def f(a):
        # log Gamma_p(a) = p (p - 1) / 4 log(pi) + sum_j lgamma(a - j / 2)
        out = _sp.gammaln(a)
        for j in range(1, p):
            out = _ew.add(out, _sp.gammaln(_ew.subtract(a, j / 2)))
        return _ew.add(out, const)

    return _apply(f, x)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """Return `input` with NaN, +inf and -inf replaced (by default 0 and the dtype's largest/lowest).

    The gradient is 1 at finite entries, 0 at replaced ones.

    Examples:
        >>> import funcgrad as torch
        >>> torch.nan_to_num(torch.tensor([float("nan"), 1.0]))
        tensor([0., 1.])
    """
    _tensor(input, "nan_to_num")
    if input.dtype.kind not in "fc":
        return input.clone()
    return _apply(lambda a: fnp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf), input)


# --- comparisons and predicates (no gradient) ---------------------------------------------------


def _compare(name, np_fn, doc):
    op = {"eq": "__eq__", "ne": "__ne__", "lt": "__lt__", "le": "__le__", "gt": "__gt__"}.get(
        name, "__ge__"
    )

    def f(input, other):  # noqa: A002
        _tensor(input, name)
        if _value_readers:  # funcgrad.compile traces: a mask the plan computes, if it can
            mask = _traced_compare(op, input, other, _operand)
            if mask is not None:
                return _wrap(mask)  # as it is: np.asarray would drop a traced mask's recipe
        _read_value(input, name), _read_value(other, name)  # funcgrad.compile: not a constant
        return _wrap(np.asarray(np_fn(_operand(input), _operand(other))))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return `{doc}` elementwise, as a bool tensor (broadcasting; no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([1.0, 2.0]), 1.5)
    """
    return f


eq = _compare("eq", np.equal, "input == other")
eq.__doc__ += "    tensor([False, False])\n"
ne = _compare("ne", np.not_equal, "input != other")
ne.__doc__ += "    tensor([True, True])\n"
lt = _compare("lt", np.less, "input < other")
lt.__doc__ += "    tensor([ True, False])\n"
le = _compare("le", np.less_equal, "input <= other")
le.__doc__ += "    tensor([ True, False])\n"
gt = _compare("gt", np.greater, "input > other")
gt.__doc__ += "    tensor([False,  True])\n"
ge = _compare("ge", np.greater_equal, "input >= other")
ge.__doc__ += "    tensor([False,  True])\n"
not_equal = ne
less = lt
less_equal = le
greater = gt
greater_equal = ge


def _predicate(name, np_fn, doc, ints):
    def f(input):  # noqa: A002
        v = _value(_tensor(input, name))
        if v.dtype.kind in "biu":
            return _wrap(np.full(v.shape, ints, dtype=bool))
        _read_value(input, name)  # funcgrad.compile: not a constant
        return _wrap(np.asarray(np_fn(v)))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return whether each entry {doc}, as a bool tensor (no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([1.0, float("nan"), float("inf")]))
    """
    return f


isnan = _predicate("isnan", np.isnan, "is NaN", False)
isnan.__doc__ += "    tensor([False,  True, False])\n"
isinf = _predicate("isinf", np.isinf, "is infinite", False)
isinf.__doc__ += "    tensor([False, False,  True])\n"
isfinite = _predicate("isfinite", np.isfinite, "is finite", True)
isfinite.__doc__ += "    tensor([ True, False, False])\n"
isposinf = _predicate("isposinf", np.isposinf, "is +inf", False)
isposinf.__doc__ += "    tensor([False, False,  True])\n"
isneginf = _predicate("isneginf", np.isneginf, "is -inf", False)
isneginf.__doc__ += "    tensor([False, False, False])\n"
isreal = _predicate("isreal", np.isreal, "has a zero imaginary part", True)
isreal.__doc__ += "    tensor([True, True, True])\n"


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """Return whether `|input - other| <= atol + rtol * |other|` elementwise (a bool tensor).

    Examples:
        >>> import funcgrad as torch
        >>> torch.isclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]))
        tensor([ True, False])
    """
    _tensor(input, "isclose")
    if isinstance(other, Tensor) and input.dtype != other.dtype:
        raise _DtypeError(
            f"funcgrad.isclose: {_torch_name(input.dtype)} did not match {_torch_name(other.dtype)}"
        )
    if rtol < 0 or atol < 0:
        raise _OpError(
            f"funcgrad.isclose: rtol and atol must be non-negative (got rtol={rtol}, atol={atol})"
        )
    _read_value(input, "isclose"), _read_value(other, "isclose")  # funcgrad.compile: a read
    a, b = _value(input), _operand(other)
    return _wrap(np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


# --- bitwise and logical operations (no gradient) -----------------------------------------------


def _bitwise(name, np_fn, symbol):
    def f(input, other):  # noqa: A002
        dtype = _result(name, input, other)
        if dtype is None or dtype.kind not in "biu":
            raise _DtypeError(
                f"funcgrad.{name}: \"{name}_cpu\" not implemented for '{_torch_name(dtype)}' "
                f"(bitwise operations take integer or bool tensors)"
            )
        _read_value(input, name), _read_value(other, name)  # funcgrad.compile: a read
        a, b = (np.asarray(_operand(x)).astype(dtype) for x in (input, other))
        return _wrap(np.asarray(np_fn(a, b)))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return `input {symbol} other` for integer or bool tensors (no gradient).

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([12]), torch.tensor([10]))
    """
    return f


bitwise_and = _bitwise("bitwise_and", np.bitwise_and, "&")
bitwise_and.__doc__ += "    tensor([8])\n"
bitwise_or = _bitwise("bitwise_or", np.bitwise_or, "|")
bitwise_or.__doc__ += "    tensor([14])\n"
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor, "^")
bitwise_xor.__doc__ += "    tensor([6])\n"
bitwise_left_shift = _bitwise("bitwise_left_shift", np.left_shift, "<<")
bitwise_left_shift.__doc__ += "    tensor([12288])\n"
bitwise_right_shift = _bitwise("bitwise_right_shift", np.right_shift, ">>")
bitwise_right_shift.__doc__ += "    tensor([0])\n"


def bitwise_not(input):  # noqa: A002
    """Return `~input`: the bitwise complement of integers, the negation of booleans.

    Examples:
        >>> import funcgrad as torch
        >>> torch.bitwise_not(torch.tensor([True, False]))
        tensor([False,  True])
    """
    v = _read_value(_tensor(input, "bitwise_not"), "bitwise_not")
    if v.dtype.kind not in "biu":
        raise _DtypeError(
            "funcgrad.bitwise_not: ~ (operator.invert) is only implemented on integer and "
            "Boolean-type tensors"
        )
    return _wrap(np.invert(v))


def _logical(name, np_fn, doc):
    def f(input, other):  # noqa: A002
        _read_value(other, name)  # funcgrad.compile: a read, as the next line's
        return _wrap(np.asarray(np_fn(_read_value(_tensor(input, name), name), _operand(other))))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return `{doc}` of the entries' truth values, as a bool tensor.

    Examples:
        >>> import funcgrad as torch
        >>> torch.{name}(torch.tensor([True, False]), torch.tensor([True, True]))
    """
    return f


logical_and = _logical("logical_and", np.logical_and, "input and other")
logical_and.__doc__ += "    tensor([ True, False])\n"
logical_or = _logical("logical_or", np.logical_or, "input or other")
logical_or.__doc__ += "    tensor([True, True])\n"
logical_xor = _logical("logical_xor", np.logical_xor, "input xor other")
logical_xor.__doc__ += "    tensor([False,  True])\n"


def logical_not(input):  # noqa: A002
    """Return `not input` of the entries' truth values, as a bool tensor.

    Examples:
        >>> import funcgrad as torch
        >>> torch.logical_not(torch.tensor([0.0, 2.0]))
        tensor([ True, False])
    """
    return _wrap(np.logical_not(_read_value(_tensor(input, "logical_not"), "logical_not")))


# --- complex parts -------------------------------------------------------------------------------


def conj(input):  # noqa: A002
    """Return the complex conjugate (a real tensor itself).

    Examples:
        >>> import funcgrad as torch
        >>> torch.conj(torch.tensor([1 + 2j])).imag
        tensor([-2.])
    """
    if _tensor(input, "conj").dtype.kind != "c":
        return input
    return _apply(_ew.conjugate, input)


def conj_physical(input):  # noqa: A002
    """Return the complex conjugate, computed (`conj`; a real tensor itself).

    Examples:
        >>> import funcgrad as torch
        >>> torch.conj_physical(torch.tensor([1 + 2j])).imag
        tensor([-2.])
    """
    return conj(input)


def resolve_conj(input):  # noqa: A002
    """Return `input` (funcgrad computes conjugates at once: there is no lazy bit to resolve).

    Examples:
        >>> import funcgrad as torch
        >>> torch.resolve_conj(torch.tensor([1.0]))
        tensor([1.])
    """
    return _tensor(input, "resolve_conj")


def resolve_neg(input):  # noqa: A002
    """Return `input` (funcgrad computes negations at once: there is no lazy bit to resolve).

    Examples:
        >>> import funcgrad as torch
        >>> torch.resolve_neg(torch.tensor([1.0]))
        tensor([1.])
    """
    return _tensor(input, "resolve_neg")


def real(input):  # noqa: A002
    """Return the real part of `input` (`input.real`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.real(torch.tensor([1 + 2j]))
        tensor([1.])
    """
    return _tensor(input, "real").real


def imag(input):  # noqa: A002
    """Return the imaginary part of a complex `input` (`input.imag`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.imag(torch.tensor([1 + 2j]))
        tensor([2.])
    """
    return _tensor(input, "imag").imag


def angle(input):  # noqa: A002
    """Return the angle of each entry: `atan2(imag, real)` (0 or pi for real entries).

    Examples:
        >>> import funcgrad as torch
        >>> torch.angle(torch.tensor([-1.0, 1.0]))
        tensor([3.1416, 0.0000])
    """
    _tensor(input, "angle")
    if input.dtype.kind in "biu":
        input = input.to(_default_float())
    return _apply(_ew.angle, input)
