"""How tensors print: PyTorch's modern format, and 0.3's for `autograd.Variable`.

Modern: `tensor([[3., 3.], [3., 3.]], grad_fn=<AddBackward0>)`.
0.3: `Variable containing:` / the values / `[funcgrad.FloatTensor of size 1]`.
"""

from __future__ import annotations

import numpy as np

_TYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
    "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
}


def type_name(t) -> str:
    """Return PyTorch's type name of a tensor, e.g. `'funcgrad.FloatTensor'`."""
    name = _TYPE_NAMES.get(str(t.dtype), "Tensor")
    if t.device.type == "cuda":
        return f"funcgrad.cuda.{name}"
    return f"funcgrad.{name}"


def _format_values(value, prefix: str) -> str:
    a = np.asarray(value)
    if a.dtype.kind == "f" and a.size:
        finite = a[np.isfinite(a)]
        integral = finite.size == 0 or bool(np.all(finite == np.round(finite)))
        big = finite.size and (np.max(np.abs(finite)) >= 1e8 or
                               (np.min(np.abs(finite[finite != 0])) < 1e-4 if np.any(finite != 0) else False))
        if integral and not big:
            text = np.array2string(a, separator=", ", prefix=prefix, floatmode="unique",
                                   formatter={"float_kind": lambda v: f"{v:.0f}." if np.isfinite(v) else str(v)})
        elif big:
            text = np.array2string(a, separator=", ", prefix=prefix,
                                   formatter={"float_kind": lambda v: f"{v:.4e}"})
        else:
            text = np.array2string(a, separator=", ", prefix=prefix,
                                   formatter={"float_kind": lambda v: f"{v:.4f}" if np.isfinite(v) else str(v)})
    else:
        text = np.array2string(a, separator=", ", prefix=prefix)
    return text


def format_tensor(t) -> str:
    """Return the `repr` of a tensor (0.3 style for `autograd.Variable`)."""
    from funcgrad.tensor.dtypes import default_float_dtype

    if getattr(t, "_legacy_print", False):
        return format_legacy(t)
    prefix = "tensor("
    body = _format_values(t._value, prefix)
    extras = []
    if t.device.type == "cuda":
        extras.append(f"device='{t.device}'")
    dtype = t.dtype
    if dtype != default_float_dtype() and dtype not in (np.dtype(np.int64), np.dtype(np.bool_)):
        extras.append(f"dtype=funcgrad.{dtype}")
    if t._value.size == 0 and dtype == default_float_dtype():
        pass
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return prefix + body + "".join(", " + e for e in extras) + ")"


def format_legacy(t) -> str:
    """Return the 0.3 `Variable containing:` form of a tensor."""
    a = np.asarray(t._value)
    if a.ndim <= 1:
        rows = [_legacy_number(v) for v in a.reshape(-1)]
        width = max((len(r) for r in rows), default=0)
        body = "\n".join(r.rjust(width) for r in rows)
    else:
        body = "\n".join(
            " ".join(_legacy_number(v).rjust(8) for v in row) for row in a.reshape(-1, a.shape[-1])
        )
    size = "x".join(str(n) for n in a.shape) if a.ndim else ""
    where = f" (GPU {t.device.index or 0})" if t.device.type == "cuda" else ""
    return f"Variable containing:\n{body}\n[{type_name(t)} of size {size}{where}]\n"


def _legacy_number(v) -> str:
    v = float(v)
    if v == int(v) and abs(v) < 1e8:
        return str(int(v))
    return f"{v:.4f}"
