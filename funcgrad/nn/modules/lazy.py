"""Lazy modules: layers whose input size is inferred from the first input (PyTorch's `Lazy*`).

A lazy module holds `UninitializedParameter`s (and `UninitializedBuffer`s)
until its first call: a forward pre-hook calls `initialize_parameters` on
the call's arguments, which materializes them with the inferred shapes and
draws them from the eager layer's initial distribution; the module then
becomes that layer (`LazyLinear` -> `Linear`: class, repr and state dict
keys as PyTorch's). `load_state_dict` into a lazy module materializes its
parameters from the state dict's shapes instead.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from funcgrad.nn.modules.conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from funcgrad.nn.modules.linear import Linear
from funcgrad.nn.modules.module import _EXTRA_STATE_KEY_SUFFIX, Module
from funcgrad.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _BatchNorm,
    _InstanceNorm,
    _NormBase,
)
from funcgrad.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from funcgrad.tensors.creation import tensor
from funcgrad.tensors.grad_mode import no_grad

__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "LazyLinear",
    "LazyModuleMixin",
]


class LazyModuleMixin:
    """A mixin for modules whose parameters' shapes come from the first input (as PyTorch's).

    A subclass (listing the mixin first, then a `Module` class) creates
    `UninitializedParameter`s in `__init__` and defines
    `initialize_parameters(*args, **kwargs)`, which materializes them from
    the first call's arguments. The first call runs it (from a forward
    pre-hook), checks that nothing is left uninitialized, removes the hook
    and turns the module into `cls_to_become` when that is set. Create the
    optimizer after that first call, or before it: materializing keeps each
    parameter the same object.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> class LazyScale(nn.LazyModuleMixin, nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.scale = nn.UninitializedParameter()
        ...     def initialize_parameters(self, x):
        ...         with torch.no_grad():
        ...             self.scale.materialize(x.shape[-1])
        ...             self.scale.fill_(2.0)
        ...     def forward(self, x):
        ...         return x * self.scale
        >>> m = LazyScale()
        >>> m.has_uninitialized_params()
        True
        >>> m(torch.ones(2, 3)).shape, m.has_uninitialized_params()
        (funcgrad.Size([2, 3]), False)
    """

    cls_to_become: type[Any] | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(  # type: ignore[attr-defined]
            _lazy_load_hook
        )
        self._initialize_hook = self.register_forward_pre_hook(  # type: ignore[attr-defined]
            _infer_parameters, with_kwargs=True
        )

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize and initialize the parameters from the first call's arguments."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__} "
            "(funcgrad.nn.LazyModuleMixin)"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module (not its children) is uninitialized."""
        values = itertools.chain(
            self._parameters.values(),  # type: ignore[attr-defined]
            self._buffers.values(),  # type: ignore[attr-defined]
        )
        return any(is_lazy(v) for v in values)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # uninitialized values go into the state dict as they are (detaching would make
        # them plain empty tensors), as in PyTorch
        for name, param in self._parameters.items():  # type: ignore[attr-defined]
            if param is not None:
                destination[prefix + name] = (
                    param if keep_vars or is_lazy(param) else param.detach()
                )
        for name, buf in self._buffers.items():  # type: ignore[attr-defined]
            if buf is not None and name not in self._non_persistent_buffers_set:  # type: ignore[attr-defined]
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:  # type: ignore[attr-defined]
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()  # type: ignore[attr-defined]

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        # An uninitialized value loaded into an uninitialized one leaves it so (PyTorch loads
        # nothing there): keep such keys away from the copying, and from the missing keys.
        both_lazy = [
            prefix + name
            for name, value in itertools.chain(
                self._parameters.items(),  # type: ignore[attr-defined]
                self._buffers.items(),  # type: ignore[attr-defined]
            )
            if is_lazy(value) and is_lazy(state_dict.get(prefix + name))
        ]
        kept = {key: state_dict.pop(key) for key in both_lazy}
        n_missing = len(missing_keys)
        super()._load_from_state_dict(  # type: ignore[misc]
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )
        missing_keys[n_missing:] = [k for k in missing_keys[n_missing:] if k not in kept]
        state_dict.update(kept)

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. "
            "Run a dummy forward pass to correctly initialize the modules"
        )


def _lazy_load_hook(
    module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
) -> None:
    """Materialize uninitialized values that the state dict gives initialized (shapes from it)."""
    for name, value in itertools.chain(module._parameters.items(), module._buffers.items()):
        key = prefix + name
        if key in state_dict and value is not None and is_lazy(value):
            loaded = state_dict[key]
            if not is_lazy(loaded):
                with no_grad():
                    value.materialize(tuple(loaded.shape))


def _infer_parameters(module, args, kwargs=None) -> None:
    """The forward pre-hook of a lazy module: initialize, check, then become the eager class."""
    module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    module._load_hook.remove()
    del module._initialize_hook
    del module._load_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


# --- Linear -------------------------------------------------------------------------


class LazyLinear(LazyModuleMixin, Linear):
    """A `Linear` whose `in_features` is inferred from the first input's last dim.

    Args:
        out_features: The size of each output sample.
        bias: Whether to learn an additive bias.
        device: The device of the parameters.
        dtype: The dtype of the parameters.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> fc = nn.LazyLinear(30)
        >>> fc
        LazyLinear(in_features=0, out_features=30, bias=True)
        >>> fc(torch.randn(128, 20)).shape
        funcgrad.Size([128, 30])
        >>> fc
        Linear(in_features=20, out_features=30, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Draw the parameters from `Linear`'s distributions once they have a shape."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        """Set `in_features` from `input`'s last dim; materialize and initialize the parameters."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # materialized by load_state_dict: the state dict gave the shape
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]} "
                    "(funcgrad.nn.LazyLinear)"
                )
            self.in_features = input.shape[-1]


# --- Convolutions ---------------------------------------------------------------------


class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share: `in_channels` from the input's channel dim."""

    _nd: int  # the convolution class's own (1, 2 or 3)

    def reset_parameters(self) -> None:
        """Draw the parameters from the convolution's distributions once they have a shape."""
        if not self.has_uninitialized_params() and self.in_channels != 0:  # type: ignore[attr-defined]
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        """Set `in_channels` from `input`; materialize and initialize weight and bias."""
        if not self.has_uninitialized_params():
            return
        s: Any = self
        in_channels = self._get_in_channels(input)
        if in_channels % s.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        s.in_channels = in_channels
        with no_grad():
            if s.transposed:
                shape = (in_channels, s.out_channels // s.groups, *s.kernel_size)
            else:
                shape = (s.out_channels, in_channels // s.groups, *s.kernel_size)
            s.weight.materialize(shape)
            if s.bias is not None:
                s.bias.materialize((s.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        no_batch = self._nd + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]


def _lazy_conv_params(module, bias: bool, device, dtype) -> None:
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConv(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self.out_channels = out_channels
        _lazy_conv_params(self, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self.out_channels = out_channels
        _lazy_conv_params(self, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A `Conv1d` whose `in_channels` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> conv = nn.LazyConv1d(33, 3, stride=2)
        >>> conv(torch.randn(4, 16, 50)).shape
        funcgrad.Size([4, 33, 24])
        >>> conv
        Conv1d(16, 33, kernel_size=(3,), stride=(2,))
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A `Conv2d` whose `in_channels` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> conv = nn.LazyConv2d(6, 5)
        >>> conv
        LazyConv2d(0, 6, kernel_size=(5, 5), stride=(1, 1))
        >>> conv(torch.randn(1, 1, 32, 32)).shape
        funcgrad.Size([1, 6, 28, 28])
        >>> conv
        Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
    """

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A `Conv3d` whose `in_channels` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> conv = nn.LazyConv3d(4, 2)
        >>> conv(torch.randn(1, 3, 4, 4, 4)).shape
        funcgrad.Size([1, 4, 3, 3, 3])
    """

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A `ConvTranspose1d` whose `in_channels` is inferred from the first input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> up = nn.LazyConvTranspose1d(4, 3, stride=2)
        >>> up(torch.randn(2, 8, 5)).shape
        funcgrad.Size([2, 4, 11])
        >>> up
        ConvTranspose1d(8, 4, kernel_size=(3,), stride=(2,))
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A `ConvTranspose2d` whose `in_channels` is inferred from the first input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> up = nn.LazyConvTranspose2d(4, 2, stride=2)
        >>> up(torch.randn(1, 3, 5, 5)).shape
        funcgrad.Size([1, 4, 10, 10])
    """

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A `ConvTranspose3d` whose `in_channels` is inferred from the first input.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> up = nn.LazyConvTranspose3d(2, 2)
        >>> up(torch.randn(1, 3, 2, 2, 2)).shape
        funcgrad.Size([1, 2, 3, 3, 3])
    """

    cls_to_become = ConvTranspose3d


# --- Normalization ----------------------------------------------------------------------


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """What the lazy batch and instance norms share: `num_features` from `input.size(1)`.

    As in PyTorch, the defaults are `affine=True, track_running_stats=True`
    for the instance norms too.
    """

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=np.int64, device=device)

    def reset_parameters(self) -> None:
        """Reset the statistics and affine parameters once they have a shape."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        """Set `num_features` from `input.size(1)`; materialize and reset everything."""
        if not self.has_uninitialized_params():
            return
        # NOTE: dim 1, also for an unbatched instance-norm input, as PyTorch 2.13 does
        self.num_features = input.shape[1]
        with no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A `BatchNorm1d` whose `num_features` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> bn = nn.LazyBatchNorm1d()
        >>> list(bn.state_dict())
        ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        >>> bn(torch.randn(8, 3)).shape
        funcgrad.Size([8, 3])
        >>> bn
        BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A `BatchNorm2d` whose `num_features` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> bn = nn.LazyBatchNorm2d()
        >>> bn(torch.randn(2, 3, 4, 4)).shape, bn.running_mean.shape
        (funcgrad.Size([2, 3, 4, 4]), funcgrad.Size([3]))
    """

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A `BatchNorm3d` whose `num_features` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> bn = nn.LazyBatchNorm3d()
        >>> bn(torch.randn(2, 3, 2, 2, 2)).shape
        funcgrad.Size([2, 3, 2, 2, 2])
    """

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An `InstanceNorm1d` whose `num_features` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> norm = nn.LazyInstanceNorm1d()
        >>> norm(torch.randn(2, 3, 5)).shape
        funcgrad.Size([2, 3, 5])
        >>> norm
        InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = InstanceNorm1d
    _no_batch_dim = InstanceNorm1d._no_batch_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An `InstanceNorm2d` whose `num_features` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> nn.LazyInstanceNorm2d(affine=False)(torch.randn(2, 3, 4, 4)).shape
        funcgrad.Size([2, 3, 4, 4])
    """

    cls_to_become = InstanceNorm2d
    _no_batch_dim = InstanceNorm2d._no_batch_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An `InstanceNorm3d` whose `num_features` is inferred from the first input (`input.size(1)`).

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad import nn
        >>> nn.LazyInstanceNorm3d()(torch.randn(2, 3, 2, 2, 2)).shape
        funcgrad.Size([2, 3, 2, 2, 2])
    """

    cls_to_become = InstanceNorm3d
    _no_batch_dim = InstanceNorm3d._no_batch_dim
