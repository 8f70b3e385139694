"""`funcgrad.autograd.graph` is PyTorch's `torch.autograd.graph`: not provided.

PyTorch's saved-tensor hooks (`saved_tensors_hooks`, `save_on_cpu`,
`disable_saved_tensors_hooks`) act on the tensors its backward functions
save. funcgrad's graph saves no tensors: each node holds the value it
computed, read-only and shared, and the VJP rules read those values. So there
is nothing for a pack or unpack hook to act on, and looking these names up
raises `funcgrad.errors.NotProvidedError`, by design. To save memory, use
activation checkpointing (`funcgrad.utils.checkpoint`), which keeps no
intermediate value of the checkpointed function. The other names of
`torch.autograd.graph` (`register_multi_grad_hook`, `Node`, `GradientEdge`
...) are not provided yet: per-tensor hooks (`Tensor.register_hook`) and
`Tensor.register_post_accumulate_grad_hook` are. Layer: imperative.
"""

from funcgrad.tensors.missing import module_getattr as _module_getattr

__all__: list[str] = []

__getattr__ = _module_getattr("torch.autograd.graph", "funcgrad.autograd.graph")
