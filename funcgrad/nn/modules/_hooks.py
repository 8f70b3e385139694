"""Full backward hooks of modules: identity `autograd.Function`s around a module's call.

PyTorch's `BackwardHook` puts one identity node before the module's tensor
inputs and one after its tensor outputs; the output node's backward sees
every `grad_output` at once (and runs the backward pre-hooks), the input
node's every `grad_input` (and runs the full backward hooks, which may
replace it). A funcgrad `autograd.Function` gets one graph node per output,
so several tensors are packed into one flat tensor for the crossing (the
node's single cotangent holds all their gradients) and unpacked after; a
tensor that receives no gradient gets zeros there, where PyTorch passes
None.
"""

from __future__ import annotations

import warnings

import numpy as np

from funcgrad.autograd.function import Function
from funcgrad.tensors.base import _new_like
from funcgrad.tensors.grad_mode import is_grad_enabled
from funcgrad.tensors.tensor_class import Tensor


class _Identity(Function):
    """One tensor through, its gradient passed to `callback` (which may replace it)."""

    @staticmethod
    def forward(ctx, callback, x):
        ctx.callback = callback
        return x.detach()

    @staticmethod
    def backward(ctx, grad):
        out = ctx.callback((grad,))
        return None, out[0]


class _Pack(Function):
    """Several tensors into one flat tensor; the flat gradient is split for `callback`."""

    @staticmethod
    def forward(ctx, callback, dtype, *xs):
        ctx.callback = callback
        ctx.shapes = [tuple(x.shape) for x in xs]
        ctx.dtypes = [x.dtype for x in xs]
        flat = np.concatenate([np.asarray(x._value, dtype=dtype).ravel() for x in xs])
        return _tensor(flat)

    @staticmethod
    def backward(ctx, grad):
        pieces = []
        start = 0
        for shape, dtype in zip(ctx.shapes, ctx.dtypes, strict=True):
            n = int(np.prod(shape, dtype=np.int64))
            pieces.append(grad[start : start + n].reshape(shape).to(dtype))
            start += n
        out = ctx.callback(tuple(pieces))
        return (None, None, *out)


def _tensor(value) -> Tensor:
    return _new_like(Tensor, value, None)


def _through(tensors: list, callback) -> list:
    """Route `tensors` through one identity node whose backward calls `callback(grads)`."""
    if len(tensors) == 1:
        return [_Identity.apply(callback, tensors[0])]
    dtype = np.result_type(*[t.dtype for t in tensors])
    flat = _Pack.apply(callback, dtype, *tensors)
    out = []
    start = 0
    for t in tensors:
        n = t.numel()
        out.append(flat[start : start + n].reshape(t.shape).to(t.dtype))
        start += n
    return out


class BackwardHook:
    """The full backward (pre-)hooks of one call of a module (see the module docstring)."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size) -> tuple:
        res = [None] * size
        for idx, val in zip(indices, values, strict=True):
            res[idx] = val
        return tuple(res)

    def _apply_on_tensors(self, callback, args):
        idx = []
        tensors = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor) and arg.dtype.kind in "fc":
                idx.append(i)
                tensors.append(arg)
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        wanted = [i for i, t in zip(idx, tensors, strict=True) if t.requires_grad]
        new = _through([args[i] for i in wanted], lambda grads: callback(wanted, grads))
        arg_list = list(args)
        for i, val in zip(wanted, new, strict=True):
            arg_list[i] = val
        return (tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)), wanted

    def setup_input_hook(self, args):
        def on_input_grads(index, grads):
            if self.grad_outputs is None:
                return grads
            res = self._pack_with_none(index, grads, self.n_inputs)
            for hook in self.user_hooks:
                out = hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in index)

        res, input_idx = self._apply_on_tensors(on_input_grads, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, result):
        def on_output_grads(index, grads):
            self.grad_outputs = self._pack_with_none(index, grads, self.n_outputs)
            for pre_hook in self.user_pre_hooks:
                new = pre_hook(self.module, self.grad_outputs)
                if new is None:
                    continue
                if len(new) != len(self.grad_outputs):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, "
                        f"got {len(new)}, but expected {len(self.grad_outputs)}"
                    )
                self.grad_outputs = tuple(new)
            local = self.grad_outputs
            if self.input_tensors_index is None:
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to "
                    "module outputs since no inputs require gradients. See "
                    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                    "#torch.nn.Module.register_full_backward_hook for more details.",
                    stacklevel=5,
                )
                grad_inputs = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (
                        isinstance(res, tuple) and all(el is None for el in res)
                    ):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient should "
                            "always return None or None for all gradients."
                        )
                self.grad_outputs = None
            return tuple(local[i] for i in index)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, output_idx = self._apply_on_tensors(on_output_grads, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
