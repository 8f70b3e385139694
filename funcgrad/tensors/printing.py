"""How tensors print: PyTorch's modern format, and 0.3's for `autograd.Variable`.

Modern: `tensor([[3., 3.], [3., 3.]], grad_fn=<AddBackward0>)`, laid out by
the same rules as PyTorch's `torch._tensor_str` (one width for every
element, integral floats as `3.`, scientific notation when the magnitudes
span more than 1000x or leave [1e-4, 1e8), 80 columns, tensors of more than
1000 elements summarised with `...`), so a printed tensor reads exactly as
PyTorch prints it (with `funcgrad.` where PyTorch says `torch.`).
0.3: `Variable containing:` / the values / `[funcgrad.FloatTensor of size 1]`.
"""

from __future__ import annotations

import math

import numpy as np

from funcgrad.tensors.dtypes import default_float_dtype

_TYPE_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}

# PyTorch's default print options.
_PRECISION = 4
_THRESHOLD = 1000
_EDGEITEMS = 3
_LINEWIDTH = 80
_SCI_MODE: bool | None = None  # None: chosen per tensor (funcgrad.set_printoptions)


def type_name(t) -> str:
    """Return PyTorch's type name of a tensor, e.g. `'funcgrad.FloatTensor'`.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.tensors.printing import type_name
        >>> type_name(torch.ones(1)), type_name(torch.ones(1, dtype=torch.float64))
        ('funcgrad.FloatTensor', 'funcgrad.DoubleTensor')
    """
    name = _TYPE_NAMES.get(str(t.dtype), "Tensor")
    if t.device.type == "cuda":
        return f"funcgrad.cuda.{name}"
    return f"funcgrad.{name}"


class _Formatter:
    """One element width and notation for a whole tensor (PyTorch's `_Formatter`)."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite).astype(np.float64)
        lo, hi = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if _SCI_MODE is not None:
            self.sci_mode = _SCI_MODE
        for v in finite.tolist():
            if self.sci_mode:
                width = len(f"{v:.{_PRECISION}e}")
            elif self.int_mode:
                width = len(f"{v:.0f}") + 1
            else:
                width = len(f"{v:.{_PRECISION}f}")
            self.max_width = max(self.max_width, width)

    def format(self, v) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{v:{self.max_width}.{_PRECISION}e}"
            elif self.int_mode:
                text = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    text += "."
            else:
                text = f"{v:.{_PRECISION}f}"
        else:
            text = f"{v}"
        return (self.max_width - len(text)) * " " + text


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements that a summarised print shows (PyTorch's `get_summarized_data`)."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * _EDGEITEMS:
        rows = [a[i] for i in range(_EDGEITEMS)] + [
            a[i] for i in range(len(a) - _EDGEITEMS, len(a))
        ]
    else:
        rows = list(a)
    if a.ndim == 1:
        return np.asarray(rows, dtype=a.dtype)
    return np.stack([_summarized(r) for r in rows])


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, math.floor((_LINEWIDTH - indent) / (fmt.max_width + 2)))
    if summarize and a.shape[0] > 2 * _EDGEITEMS:
        data = (
            [fmt.format(v) for v in a[:_EDGEITEMS].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in a[-_EDGEITEMS:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    if summarize and a.shape[0] > 2 * _EDGEITEMS:
        slices = (
            [_nested(a[i], indent + 1, summarize, fmt) for i in range(_EDGEITEMS)]
            + ["..."]
            + [
                _nested(a[i], indent + 1, summarize, fmt)
                for i in range(len(a) - _EDGEITEMS, len(a))
            ]
        )
    else:
        slices = [_nested(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def format_values(value, indent: int = 0) -> str:
    """Return the values of an array laid out as PyTorch lays out a tensor's.

    Args:
        value: A NumPy (or CuPy) array.
        indent: The column where the opening bracket stands (`len("tensor(")`).

    Examples:
        >>> import numpy as np
        >>> from funcgrad.tensors.printing import format_values
        >>> format_values(np.array([6.0, 10.0], dtype=np.float32))
        '[ 6., 10.]'
    """
    a = np.asarray(value.get() if hasattr(value, "get") else value)
    if a.size == 0:
        return "[]"
    summarize = a.size > _THRESHOLD
    fmt = _Formatter(_summarized(a) if summarize else a)
    return _nested(a, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(t) -> str:
    """Return the `repr` of a tensor (0.3 style for `autograd.Variable`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.tensors.printing import format_tensor
        >>> format_tensor(torch.tensor([1.0, 2000.0], dtype=torch.float64))
        'tensor([1.0000e+00, 2.0000e+03], dtype=funcgrad.float64)'
    """
    legacy = getattr(t, "_legacy_print", False)
    if legacy:
        return format_legacy(t, header=legacy is True)
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device.type == "cuda":
        suffixes.append(f"device='{t.device}'")
    dtype = t.dtype
    default = default_float_dtype()
    default_complex = np.dtype(np.complex128 if default == np.float64 else np.complex64)
    if t._value.size == 0:
        if t._value.ndim != 1:
            suffixes.append(f"size={tuple(t._value.shape)}")
        if dtype != default:
            suffixes.append(f"dtype=funcgrad.{dtype}")
        body = "[]"
    else:
        if dtype not in (default, default_complex, np.dtype(np.int64), np.dtype(np.bool_)):
            suffixes.append(f"dtype=funcgrad.{dtype}")
        body = format_values(t._value, indent)
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)


def format_legacy(t, header: bool = True) -> str:
    """Return the 0.3 form of a tensor: `Variable containing:` (if `header`), values, type line.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.tensors.printing import format_legacy
        >>> print(format_legacy(torch.Tensor([1])))
        Variable containing:
        1
        [funcgrad.FloatTensor of size 1]
        <BLANKLINE>
    """
    a = np.asarray(t._value.get() if hasattr(t._value, "get") else t._value)
    # One notation for all elements, as 0.3 printed: integers if every value
    # is integral, else four decimals; right-aligned to a common width.
    flat = a.reshape(-1)
    finite = flat[np.isfinite(flat)] if flat.dtype.kind in "fc" else flat
    integral = finite.size == 0 or bool(
        np.all(finite == np.round(finite)) and np.all(np.abs(finite) < 1e8)
    )
    cells = [_legacy_number(v, integral) for v in flat.tolist()]
    width = max((len(c) for c in cells), default=0)
    ncol = a.shape[-1] if a.ndim >= 2 else 1
    body = "\n".join(
        " ".join(c.rjust(width) for c in cells[i : i + ncol]) for i in range(0, len(cells), ncol)
    )
    size = "x".join(str(n) for n in a.shape) if a.ndim else ""
    where = f" (GPU {t.device.index or 0})" if t.device.type == "cuda" else ""
    head = "Variable containing:\n" if header else ""
    return f"{head}{body}\n[{type_name(t)} of size {size}{where}]\n"


def _legacy_number(v, integral: bool) -> str:
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if integral:
        return str(int(v))
    return f"{v:.4f}"
