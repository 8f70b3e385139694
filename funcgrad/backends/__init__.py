"""`funcgrad.backends` is PyTorch's `torch.backends`: the flags that programs read and set.

funcgrad computes with NumPy and CuPy, not cuDNN, MKL-DNN or MPS, so these
flags change nothing in how it computes; they exist, with PyTorch's
defaults, so that `torch.backends.cudnn.benchmark = True` and
`torch.backends.mps.is_available()` run unchanged. The `is_available()`
functions answer for funcgrad: False for cuDNN, MPS, MKL-DNN, MKL and OpenMP
(funcgrad does not call them). Layer: imperative.
"""

from funcgrad.backends import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum
from funcgrad.tensors.missing import module_getattr as _module_getattr

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]

__getattr__ = _module_getattr("torch.backends", "funcgrad.backends")
