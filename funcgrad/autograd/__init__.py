"""`funcgrad.autograd`: PyTorch's autograd namespace over the functional core.

`Variable`, `Function`, `grad`, `backward`, `gradcheck`, `gradgradcheck`,
`profiler`, `detect_anomaly` and `functional` (Jacobians and Hessians of
tensor functions). May import every layer below it.
"""

from funcgrad.autograd.variable import Variable
from funcgrad.tensors.engine import grad
from funcgrad.tensors.grad_mode import enable_grad, no_grad, set_grad_enabled


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of `tensors` into the leaves' `.grad` (as `torch.autograd.backward`).

    Args:
        tensors: A tensor or a sequence of tensors.
        grad_tensors: The vectors of the vector-Jacobian products (None
            entries allowed for one-element tensors).
        retain_graph: Ignored (graphs are immutable).
        create_graph: Make the gradients differentiable.
        inputs: Accumulate only into these tensors.
    """
    from funcgrad.tensors.engine import run_backward
    from funcgrad.tensors.tensor_class import Tensor

    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    run_backward(tensors, tuple(grad_tensors), inputs=inputs, create_graph=create_graph)


__all__ = ["Variable", "backward", "enable_grad", "grad", "no_grad", "set_grad_enabled"]

from funcgrad.autograd import anomaly, profiler  # noqa: E402
from funcgrad.autograd.anomaly import detect_anomaly, set_detect_anomaly  # noqa: E402

__all__ += ["anomaly", "detect_anomaly", "profiler", "set_detect_anomaly"]

from funcgrad.autograd.function import Function  # noqa: E402
from funcgrad.autograd.checks import gradcheck, gradgradcheck  # noqa: E402

__all__ += ["Function", "gradcheck", "gradgradcheck"]

from funcgrad.autograd import functional  # noqa: E402

__all__ += ["functional"]
