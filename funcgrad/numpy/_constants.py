"""Dtypes, constants and dtype utilities of `funcgrad.numpy`: NumPy's own objects.

`fnp.float32 is numpy.float32`, `fnp.pi == numpy.pi`, `fnp.newaxis is None`:
these are NumPy's objects re-exported, as in `autograd.numpy`, so code that
compares dtypes (`x.dtype == fnp.float32`) works on arrays and on graph
nodes alike. The functions that look at a dtype (`result_type`,
`iscomplexobj`, ...) accept graph nodes and read their values.
"""

from __future__ import annotations

import builtins as _builtins
from typing import Any

import numpy as _np
from numpy import (
    bool,  # noqa: A004  (NumPy's and the array API's name)
    bool_,
    byte,
    can_cast,
    cdouble,
    character,
    clongdouble,
    complex64,
    complex128,
    complexfloating,
    csingle,
    double,
    dtype,
    e,
    errstate,
    euler_gamma,
    finfo,
    flexible,
    float16,
    float32,
    float64,
    floating,
    format_float_positional,
    format_float_scientific,
    generic,
    get_printoptions,
    geterr,
    half,
    iinfo,
    index_exp,
    inexact,
    inf,
    int8,
    int16,
    int32,
    int64,
    int_,
    intc,
    integer,
    intp,
    isdtype,
    isscalar,
    issubdtype,
    iterable,
    long,
    longdouble,
    longlong,
    nan,
    ndarray,
    newaxis,
    number,
    object_,
    pi,
    printoptions,
    promote_types,
    s_,
    set_printoptions,
    seterr,
    short,
    signedinteger,
    single,
    typename,
    ubyte,
    ufunc,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
    uintc,
    uintp,
    ulong,
    ulonglong,
    unsignedinteger,
    ushort,
)
from numpy.exceptions import ComplexWarning

from funcgrad.numpy import _kinds
from funcgrad.ops._util import value_of as _value_of

__all__ = [
    "ComplexWarning",
    "bool",
    "bool_",
    "byte",
    "can_cast",
    "cdouble",
    "character",
    "clongdouble",
    "common_type",
    "complex128",
    "complex64",
    "complex_",
    "complexfloating",
    "csingle",
    "double",
    "dtype",
    "e",
    "errstate",
    "euler_gamma",
    "finfo",
    "flexible",
    "float16",
    "float32",
    "float64",
    "float_",
    "floating",
    "format_float_positional",
    "format_float_scientific",
    "generic",
    "get_printoptions",
    "geterr",
    "half",
    "iinfo",
    "index_exp",
    "inexact",
    "inf",
    "int16",
    "int32",
    "int64",
    "int8",
    "int_",
    "intc",
    "integer",
    "intp",
    "iscomplexobj",
    "isdtype",
    "isrealobj",
    "isscalar",
    "issubdtype",
    "iterable",
    "long",
    "longdouble",
    "longlong",
    "min_scalar_type",
    "mintypecode",
    "nan",
    "ndarray",
    "newaxis",
    "number",
    "object_",
    "pi",
    "printoptions",
    "promote_types",
    "result_type",
    "s_",
    "set_printoptions",
    "seterr",
    "short",
    "signedinteger",
    "single",
    "typename",
    "ubyte",
    "ufunc",
    "uint",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "uintc",
    "uintp",
    "ulong",
    "ulonglong",
    "unsignedinteger",
    "ushort",
]

# NOTE: NumPy 2 dropped these aliases; jax.numpy keeps them (float64 and complex128 with x64).
float_ = float64
complex_ = complex128


@_kinds.value_only
def result_type(*arrays_and_dtypes: Any) -> _np.dtype:
    """Return the dtype NumPy's promotion gives the arguments (arrays, nodes, dtypes, numbers).

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.result_type(np.ones(2, np.float32), 2.0)
        dtype('float32')
    """
    return _np.result_type(*(_value_of(a) for a in arrays_and_dtypes))


@_kinds.value_only
def min_scalar_type(a: Any) -> _np.dtype:
    """Return the smallest dtype that holds the value `a` (an array, a node or a number).

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.min_scalar_type(10)
        dtype('uint8')
    """
    return _np.min_scalar_type(_value_of(a))


@_kinds.value_only
def mintypecode(typechars: Any, typeset: str = "GDFgdf", default: str = "d") -> str:
    """Return the character of the smallest type of `typeset` to which `typechars` cast safely.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.mintypecode("idF")
        'D'
    """
    return _np.mintypecode(typechars, typeset, default)


@_kinds.value_only
def common_type(*arrays: Any) -> type:
    """Return the inexact scalar type common to the arrays or nodes (integers count as float64).

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.common_type(np.ones(2, np.float32), np.arange(2))
        <class 'numpy.float64'>
    """
    return _np.common_type(*(_value_of(a) for a in arrays))


@_kinds.value_only
def iscomplexobj(x: Any) -> _builtins.bool:
    """Return whether `x` (an array, a node or a number) has a complex dtype.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.iscomplexobj(1j), fnp.iscomplexobj([1.0])
        (True, False)
    """
    return _np.iscomplexobj(_value_of(x))


@_kinds.value_only
def isrealobj(x: Any) -> _builtins.bool:
    """Return whether `x` (an array, a node or a number) does not have a complex dtype.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> fnp.isrealobj([1.0])
        True
    """
    return _np.isrealobj(_value_of(x))
