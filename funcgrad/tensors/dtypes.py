"""Dtypes of the imperative layer, with PyTorch's names and defaults.

Python floats become float32 in tensors (settable with
`set_default_dtype`), Python complex numbers complex64; NumPy arrays keep
their dtype. The names (`funcgrad.float32`, `funcgrad.long` ...) are NumPy
dtypes. Operations on tensors choose their result dtype by PyTorch's type
promotion (`result_dtype`, used by the Tensor layer's `_apply`), not
NumPy's: `float32 * int64` is float32, `int64 + 2.5` and `int64 / int64`
the default float dtype. The functional API keeps NumPy's rules.
"""

from __future__ import annotations

import builtins

import numpy as np

from funcgrad.errors import DtypeError
from funcgrad.tensors.base import TensorBase

float16 = half = np.dtype(np.float16)
float32 = float = np.dtype(np.float32)  # noqa: A001  (PyTorch's name)
float64 = double = np.dtype(np.float64)
int8 = np.dtype(np.int8)
int16 = short = np.dtype(np.int16)
int32 = int = np.dtype(np.int32)  # noqa: A001
int64 = long = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
bool = np.dtype(np.bool_)  # noqa: A001
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

_default = [float32]


def set_default_dtype(d) -> None:
    """Set the dtype that Python floats get in new tensors (float32 at start).

    Examples:
        >>> import funcgrad as torch
        >>> torch.set_default_dtype(torch.float64)
        >>> torch.tensor(1.0).dtype
        dtype('float64')
        >>> torch.set_default_dtype(torch.float32)
    """
    d = to_dtype(d)
    if d.kind != "f":
        raise TypeError(
            f"funcgrad.set_default_dtype: only floating-point types are supported as the default type, got {d}"
        )
    _default[0] = d


def get_default_dtype():
    """Return the dtype that Python floats get in new tensors."""
    return _default[0]


def default_float_dtype():
    """Return the default floating-point dtype (see `set_default_dtype`)."""
    return _default[0]


# PyTorch's legacy type names (`'torch.DoubleTensor'`), as `Tensor.type()` returns them.
_TYPE_NAMES: dict[str, np.dtype] = {
    "FloatTensor": float32,
    "DoubleTensor": float64,
    "HalfTensor": float16,
    "LongTensor": int64,
    "IntTensor": int32,
    "ShortTensor": int16,
    "CharTensor": int8,
    "ByteTensor": uint8,
    "BoolTensor": bool,
}


def parse_type_name(name: str) -> tuple[np.dtype, str] | None:
    """Return the dtype and device type (`'cpu'` or `'cuda'`) of a type name, or None.

    Accepts PyTorch's spelling and funcgrad's: `'torch.DoubleTensor'`,
    `'funcgrad.DoubleTensor'`, `'torch.cuda.FloatTensor'`.

    Examples:
        >>> parse_type_name("torch.LongTensor"), parse_type_name("funcgrad.cuda.FloatTensor")
        ((dtype('int64'), 'cpu'), (dtype('float32'), 'cuda'))
        >>> parse_type_name("float32") is None
        True
    """
    package, _, rest = name.partition(".")
    if package not in ("torch", "funcgrad"):
        return None
    kind = "cpu"
    if rest.startswith("cuda."):
        kind, rest = "cuda", rest[5:]
    dtype = _TYPE_NAMES.get(rest)
    return None if dtype is None else (dtype, kind)


def to_dtype(d) -> np.dtype:
    """Return `d` (a dtype, a NumPy type or a name like `'float32'`) as a NumPy dtype.

    PyTorch's type names (`'torch.DoubleTensor'`, `'funcgrad.LongTensor'`)
    and the legacy types (`funcgrad.FloatTensor`, `funcgrad.LongTensor` ...) are accepted too.

    Raises:
        funcgrad.errors.DtypeError: If `d` names no dtype (a `TypeError`).

    Examples:
        >>> to_dtype("torch.DoubleTensor"), to_dtype(float)
        (dtype('float64'), dtype('float32'))
    """
    if d is builtins.float:
        return _default[0]
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if isinstance(d, str) and "Tensor" in d:
        parsed = parse_type_name(d)
        if parsed is not None:
            return parsed[0]
    elif isinstance(d, type) and issubclass(d, TensorBase):
        # funcgrad.Tensor: the default tensor type, as `x.type(torch.Tensor)` (the legacy
        # types, FloatTensor included, have their own .dtype)
        return _default[0]
    try:
        dtype = np.dtype(d)
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind in "OUSVMm":
        raise DtypeError(
            f"funcgrad: {d!r} is not a tensor dtype; use funcgrad.float32, funcgrad.int64 "
            f"..., a NumPy dtype, or a type name like 'torch.DoubleTensor'"
        )
    return dtype


# --- PyTorch's type promotion -------------------------------------------------------
#
# NOTE: the Tensor layer chooses result dtypes as PyTorch does (`torch.result_type`),
# not as NumPy does: among tensors with dimensions the usual promotion, where 0-d
# tensors and Python numbers only raise the category (bool < integer < floating <
# complex), so `float32 * int64 -> float32`, `float32 * <0-d float64> -> float32` and
# `int64 + 2.5 -> float32` (the default dtype). The functional API keeps NumPy's rules.

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}

# The primitives that compute in floating point: integer and bool inputs give the
# default float dtype (`torch.exp(int64) -> float32`), as in PyTorch.
FLOATING = frozenset(
    {
        "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sinh",
        "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arctan2", "sigmoid", "divide",
        "logsumexp", "softplus", "logit", "erf", "erfc", "erfinv", "erfcinv", "digamma",
        "gammaln", "gamma", "rgamma", "polygamma", "ndtr", "ndtri", "log_ndtr", "i0",
        "i0e", "i1", "i1e", "entr", "xlogy", "xlog1py",
        "log2", "log10", "exp2", "sinc", "arccosh", "arctanh", "deg2rad", "rad2deg",
        "logaddexp", "logaddexp2", "hypot", "copysign", "j0", "j1", "y0", "y1",
        "gammainc", "gammaincc",
    }
)  # fmt: skip

# The primitives PyTorch refuses integer and bool inputs to, with its message.
REFUSES_INTEGERS = {
    "mean": "mean(): could not infer output dtype. Input dtype must be either a floating "
    "point or complex dtype. Got: {name}",
    "var": "std and var only support floating point and complex dtypes, got {name}",
    "std": "std and var only support floating point and complex dtypes, got {name}",
    "norm": "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {name}",
    "softmax": "\"softmax\" not implemented for '{name}'",
    "log_softmax": "\"log_softmax\" not implemented for '{name}'",
    "det": "linalg.det: Expected a floating point or complex tensor as input. Got {name}",
    "logabsdet": "linalg.slogdet: Expected a floating point or complex tensor as input. Got {name}",
    "inv": "linalg.inv: Expected a floating point or complex tensor as input. Got {name}",
    "solve": "linalg.solve: Expected a floating point or complex tensor as input. Got {name}",
    "cholesky": "linalg.cholesky: Expected a floating point or complex tensor as input. Got {name}",
}

# The primitives PyTorch refuses complex inputs to: the name of its kernel in the message.
# (funcgrad.scipy.special computes them at complex points, as JAX's convention has it.)
REFUSES_COMPLEX = {
    "digamma": "digamma",
    "gammaln": "lgamma_vml_cpu",
    "polygamma": "polygamma",
    "erf": "erf_vml_cpu",
    "erfc": "erfc_vml_cpu",
    "ndtr": "erf_vml_cpu",
    "log_ndtr": "log_ndtr_cpu",
    "xlogy": "xlogy_cpu",
    "xlog1py": "xlog1py_cpu",
}

# The operations that PyTorch does not promote: their tensors must have one dtype.
SAME_DTYPE = frozenset({"matmul", "dot"})

# PyTorch's names of the dtypes, for messages that read like PyTorch's.
_TORCH_NAMES = {
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "uint8": "Byte",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def torch_name(dtype) -> str:
    """Return PyTorch's name of a dtype (`'Long'` for int64), or NumPy's if it has none."""
    dtype = np.dtype(dtype)
    return _TORCH_NAMES.get(dtype.name, dtype.name)


def default_complex_dtype() -> np.dtype:
    """Return the dtype that Python complex numbers get: complex128 if the default is float64, else complex64."""
    return complex128 if _default[0] == float64 else complex64


def _complex_of(d: np.dtype) -> np.dtype:
    return complex128 if d == float64 else complex64


def _promote(a: np.dtype | None, b: np.dtype | None) -> np.dtype | None:
    """PyTorch's `promote_types` (None: no dtype yet)."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca != cb:  # the higher category wins, keeping its own size (float16 + int64: float16)
        high, low = (a, b) if ca > cb else (b, a)
        if high.kind == "c" and low.kind == "f":  # complex64 + float64: complex128
            return np.promote_types(high, low)
        return high
    return np.promote_types(a, b)


def _combine(higher: np.dtype | None, lower: np.dtype | None) -> np.dtype | None:
    """PyTorch's `combine_categories`: `lower` (0-d tensors, numbers) only raises the category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":
        return _complex_of(higher) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return _promote(higher, lower)
    return higher


def _number_dtype(x) -> np.dtype:
    """The dtype PyTorch gives a Python number taking part in an operation."""
    if isinstance(x, builtins.bool):
        return bool
    if isinstance(x, builtins.int):
        return int64
    if isinstance(x, builtins.float):
        return _default[0]
    return default_complex_dtype()


_NUMBERS = frozenset({builtins.bool, builtins.int, builtins.float, builtins.complex})


def result_dtype(operands) -> np.dtype | None:
    """Return the dtype of an operation on `operands` (arrays and Python numbers), PyTorch's rule.

    Arrays (the values of tensors) with dimensions promote as usual; 0-d
    arrays, then Python numbers, only raise the category. None if there are
    no operands.

    Examples:
        >>> import numpy as np
        >>> result_dtype([np.ones(2, np.float32), np.float64(1.0) * np.ones(())])
        dtype('float32')
        >>> result_dtype([np.arange(2), 2.5]), result_dtype([np.arange(2), np.ones((), np.float64)])
        (dtype('float32'), dtype('float64'))
    """
    dim = zero = number = None
    for x in operands:
        # NOTE: the exact types: a NumPy scalar (a 0-d tensor's value) subclasses float
        if type(x) in _NUMBERS:
            number = _promote(number, _number_dtype(x))
        elif x.ndim:
            dim = _promote(dim, x.dtype)
        else:
            zero = _promote(zero, x.dtype)
    return _combine(dim, _combine(zero, number))


def promote_types(type1, type2) -> np.dtype:
    """Return the smallest dtype that both dtypes can be converted to, as `torch.promote_types`.

    Examples:
        >>> import funcgrad as torch
        >>> promote_types(torch.int64, torch.float16), promote_types(torch.uint8, torch.int8)
        (dtype('float16'), dtype('int16'))
    """
    out = _promote(to_dtype(type1), to_dtype(type2))
    assert out is not None
    return out


def result_type(tensor1, tensor2) -> np.dtype:
    """Return the dtype of an arithmetic operation on two tensors or numbers, as `torch.result_type`.

    Examples:
        >>> import funcgrad as torch
        >>> result_type(torch.ones(2), torch.tensor(1.0, dtype=torch.float64))
        dtype('float32')
        >>> result_type(torch.arange(2), 2.5)
        dtype('float32')
    """
    operands = [
        x._value if isinstance(x, TensorBase) else _plain_number(x) for x in (tensor1, tensor2)
    ]
    out = result_dtype(operands)
    assert out is not None
    return out


def _plain_number(x):
    if isinstance(x, np.generic):
        return x.item()
    if not isinstance(x, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
        raise TypeError(
            f"funcgrad.result_type: expected a tensor or a number, got {type(x).__name__}"
        )
    return x
