"""`funcgrad.nn.utils` is PyTorch's `torch.nn.utils`: gradient clipping, parameter vectors, `rnn`, `stateless`."""

from funcgrad.nn.utils import rnn, stateless
from funcgrad.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
)
from funcgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "get_total_norm",
    "parameters_to_vector",
    "rnn",
    "stateless",
    "vector_to_parameters",
]
