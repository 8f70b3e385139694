"""`funcgrad.autograd`: PyTorch's autograd namespace over the functional core.

`Variable`, `Function`, `grad`, `backward`, `gradcheck`, `gradgradcheck`,
`profiler`, `detect_anomaly` and `functional` (Jacobians and Hessians of
tensor functions). May import every layer below it.
"""

from funcgrad.autograd import anomaly, forward_ad, functional, graph, profiler
from funcgrad.autograd.anomaly import detect_anomaly, set_detect_anomaly
from funcgrad.autograd.checks import gradcheck, gradgradcheck
from funcgrad.autograd.function import Function
from funcgrad.autograd.variable import Variable
from funcgrad.tensors.engine import backward, grad
from funcgrad.tensors.grad_mode import enable_grad, no_grad, set_grad_enabled
from funcgrad.tensors.missing import module_getattr as _module_getattr

__all__ = [
    "Function",
    "Variable",
    "anomaly",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "forward_ad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "no_grad",
    "profiler",
    "set_detect_anomaly",
    "set_grad_enabled",
]

__getattr__ = _module_getattr("torch.autograd", "funcgrad.autograd")
