"""`funcgrad.fft`: PyTorch's `torch.fft` on tensors, over `funcgrad.numpy.fft`.

PyTorch's names and signatures (`dim` for NumPy's `axis`/`axes`, `s`, `n`,
`norm` in `"backward"`, `"ortho"`, `"forward"`); integer inputs are
transformed as the default float dtype, float32 gives complex64. Gradients
are the functional core's (transposes of the transforms), returned in
PyTorch's convention for complex gradients by the Tensor layer.

Examples:
    >>> import funcgrad as torch
    >>> torch.fft.fft(torch.tensor([1.0, 0.0, 0.0, 0.0])).dtype
    dtype('complex64')
"""

from __future__ import annotations

import sys as _sys

import numpy as np

from funcgrad.errors import OpError as _OpError
from funcgrad.numpy import fft as _fft
from funcgrad.ops._util import index_of as _index_of
from funcgrad.tensors.dtypes import default_float_dtype as _default_float
from funcgrad.tensors.dtypes import to_dtype
from funcgrad.tensors.tensor_class import Tensor, _apply, _new_like

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

_NORMS = (None, "backward", "ortho", "forward")


def _input(input, op: str, real: bool = False) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"funcgrad.fft.{op}(): argument 'input' must be Tensor")
    kind = np.dtype(input.dtype).kind
    if real and kind == "c":
        raise _OpError(
            f"funcgrad.fft.{op}: {op} expects a real input tensor, but got {input.dtype}"
        )
    if kind in "biu":
        return input.to(_default_float())
    return input


def _norm(norm, op: str):
    if norm not in _NORMS:
        raise _OpError(f'funcgrad.fft.{op}: Invalid normalization mode: "{norm}"')
    return norm


def _one(name, real=False, doc=""):
    fn = getattr(_fft, name)

    def f(input, n=None, dim=-1, norm=None):  # noqa: A002
        x = _input(input, name, real)
        if n is not None:
            n = _index_of(n, f"fft.{name}", "n")
            if n < 1:
                raise _OpError(
                    f"funcgrad.fft.{name}: Invalid number of data points ({n}) specified"
                )
        axis = _index_of(dim, f"fft.{name}", "dim")
        return _apply(lambda a: fn(a, n=n, axis=axis, norm=_norm(norm, name)), x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return the {doc} of `input` along `dim` (`n`: crop or zero-pad to `n` points first).

    Examples:
        >>> import funcgrad as torch
        >>> torch.fft.{name}(torch.tensor([1.0, 2.0, 3.0, 4.0])).shape
    """
    return f


def _many(name, default_dims, real=False, doc=""):
    fn = getattr(_fft, name)

    def f(input, s=None, dim=default_dims, norm=None):  # noqa: A002
        x = _input(input, name, real)
        axes = None if dim is None else tuple(_index_of(d, f"fft.{name}", "dim") for d in dim)
        shape = None if s is None else tuple(_index_of(n, f"fft.{name}", "s") for n in s)
        if shape is not None and axes is not None and len(shape) != len(axes):
            raise _OpError(
                f"funcgrad.fft.{name}: When given, dim and shape arguments must have the same "
                f"length (s={list(shape)}, dim={list(axes)})"
            )
        if shape is not None and axes is None:
            axes = tuple(range(-len(shape), 0))
        return _apply(lambda a: fn(a, s=shape, axes=axes, norm=_norm(norm, name)), x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return the {doc} of `input` over `dim` (`s`: crop or zero-pad those dims first).

    Examples:
        >>> import funcgrad as torch
        >>> torch.fft.{name}(torch.ones(2, 2)).shape
    """
    return f


fft = _one("fft", doc="discrete Fourier transform")
fft.__doc__ += "    funcgrad.Size([4])\n"
ifft = _one("ifft", doc="inverse discrete Fourier transform")
ifft.__doc__ += "    funcgrad.Size([4])\n"
rfft = _one(
    "rfft", real=True, doc="Fourier transform of a real signal (the non-negative frequencies)"
)
rfft.__doc__ += "    funcgrad.Size([3])\n"
irfft = _one(
    "irfft", doc="inverse of `rfft`: a real signal (of `n`, else `2 * (size - 1)`, points)"
)
irfft.__doc__ += "    funcgrad.Size([6])\n"
hfft = _one("hfft", doc="Fourier transform of a Hermitian-symmetric signal (a real result)")
hfft.__doc__ += "    funcgrad.Size([6])\n"
ihfft = _one("ihfft", real=True, doc="inverse of `hfft` (the non-negative frequencies)")
ihfft.__doc__ += "    funcgrad.Size([3])\n"
fft2 = _many("fft2", (-2, -1), doc="2-D Fourier transform")
fft2.__doc__ += "    funcgrad.Size([2, 2])\n"
ifft2 = _many("ifft2", (-2, -1), doc="inverse 2-D Fourier transform")
ifft2.__doc__ += "    funcgrad.Size([2, 2])\n"
rfft2 = _many("rfft2", (-2, -1), real=True, doc="2-D Fourier transform of a real signal")
rfft2.__doc__ += "    funcgrad.Size([2, 2])\n"
irfft2 = _many("irfft2", (-2, -1), doc="inverse of `rfft2`")
irfft2.__doc__ += "    funcgrad.Size([2, 2])\n"
fftn = _many("fftn", None, doc="N-D Fourier transform")
fftn.__doc__ += "    funcgrad.Size([2, 2])\n"
ifftn = _many("ifftn", None, doc="inverse N-D Fourier transform")
ifftn.__doc__ += "    funcgrad.Size([2, 2])\n"
rfftn = _many("rfftn", None, real=True, doc="N-D Fourier transform of a real signal")
rfftn.__doc__ += "    funcgrad.Size([2, 2])\n"
irfftn = _many("irfftn", None, doc="inverse of `rfftn`")
irfftn.__doc__ += "    funcgrad.Size([2, 2])\n"


def _freq(name):
    fn = getattr(np.fft, name)

    def f(n, d=1.0, *, dtype=None, device=None, requires_grad=False, **_):
        value = fn(_index_of(n, f"fft.{name}", "n"), d).astype(
            to_dtype(dtype) if dtype is not None else _default_float()
        )
        t = _new_like(Tensor, value, None)
        if device is not None:
            t = t.to(device)
        return t.requires_grad_() if requires_grad else t

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Return the sample frequencies of a signal of `n` points at spacing `d` ({"all" if name == "fftfreq" else "non-negative"}).

    Examples:
        >>> import funcgrad as torch
        >>> torch.fft.{name}(4)
    """
    return f


fftfreq = _freq("fftfreq")
fftfreq.__doc__ += "    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])\n"
rfftfreq = _freq("rfftfreq")
rfftfreq.__doc__ += "    tensor([0.0000, 0.2500, 0.5000])\n"


def fftshift(input, dim=None):  # noqa: A002
    """Return `input` with the zero frequency moved to the center of `dim` (every dim if None).

    Examples:
        >>> import funcgrad as torch
        >>> torch.fft.fftshift(torch.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    axes = dim if dim is None or isinstance(dim, int) else tuple(dim)
    return _apply(lambda a: _fft.fftshift(a, axes=axes), input)


def ifftshift(input, dim=None):  # noqa: A002
    """Return `input` with `fftshift` undone.

    Examples:
        >>> import funcgrad as torch
        >>> torch.fft.ifftshift(torch.tensor([-0.5, -0.25, 0.0, 0.25]))
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    axes = dim if dim is None or isinstance(dim, int) else tuple(dim)
    return _apply(lambda a: _fft.ifftshift(a, axes=axes), input)


# `import funcgrad.fft` works as `import torch.fft` does (this module is funcgrad.fft)
_sys.modules.setdefault("funcgrad.fft", _sys.modules[__name__])
