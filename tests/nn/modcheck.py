"""Differential checks of `funcgrad.nn` modules against `torch.nn`'s.

`check_module(make, inputs, ...)` builds the PyTorch module and the funcgrad
module with the same constructor (`make(nn)` for either library's `nn`),
copies PyTorch's parameters and buffers into funcgrad's through
`state_dict` (as NumPy arrays), runs both on the same inputs in training
and in evaluation mode, and compares the outputs, the buffers after the
call (running statistics), and the gradients of a random linear function of
the outputs with respect to every float input and every parameter.
"""

from __future__ import annotations

import numpy as np

import funcgrad as fg
from tests.references import requires

torch = requires("torch")

F64 = {"rtol": 1e-9, "atol": 1e-10}
F32 = {"rtol": 2e-5, "atol": 2e-5}  # a few float32 ulps through sums of products


def tol_for(dtype) -> dict:
    return F64 if np.dtype(dtype) == np.float64 else F32


def _flat(out) -> list:
    """The tensors of a module's output (nested tuples flattened, None dropped)."""
    if out is None:
        return []
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _np(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().cpu().numpy()
    return np.asarray(t.detach().numpy())


def copy_state(th_mod, fg_mod) -> None:
    """Load PyTorch's state dict into the funcgrad module (strict: the keys must agree)."""
    state = {k: v.detach().cpu().numpy() for k, v in th_mod.state_dict().items()}
    fg_mod.load_state_dict(state)


def check_module(
    make,
    inputs,
    *,
    dtype=np.float64,
    modes=("train", "eval"),
    grads=True,
    seed=0,
    tol=None,
    forward=None,
    check_buffers=True,
):
    """Compare `make(torch.nn)` and `make(funcgrad.nn)` on `inputs` (NumPy arrays, or other args).

    Args:
        make: `make(nn) -> module`, called with each library's `nn`.
        inputs: The positional arguments: float arrays become tensors that
            require grad, int arrays plain tensors, anything else passes.
        dtype: The float dtype of inputs and parameters.
        modes: Which of "train" and "eval" to run.
        grads: Whether to compare gradients.
        forward: `forward(module, *args)` instead of `module(*args)`.
        check_buffers: Whether to compare buffers after the forward pass.

    Returns:
        The two modules (torch's, funcgrad's).
    """
    tol = tol or tol_for(dtype)
    th_dtype = torch.float64 if np.dtype(dtype) == np.float64 else torch.float32
    torch.manual_seed(seed)
    th_mod = make(torch.nn).to(th_dtype)
    fg_mod = make(fg.nn).to(fg.float64 if np.dtype(dtype) == np.float64 else fg.float32)
    copy_state(th_mod, fg_mod)
    th_names = [n for n, _ in th_mod.named_parameters()]
    fg_names = [n for n, _ in fg_mod.named_parameters()]
    assert th_names == fg_names
    assert list(th_mod.state_dict()) == list(fg_mod.state_dict())
    rng = np.random.default_rng(seed)
    call = forward or (lambda m, *a: m(*a))
    for mode in modes:
        th_mod.train(mode == "train")
        fg_mod.train(mode == "train")
        th_mod.zero_grad()
        fg_mod.zero_grad()
        th_args, fg_args = [], []
        for a in inputs:
            if isinstance(a, np.ndarray) and a.dtype.kind == "f":
                v = a.astype(dtype)
                th_args.append(torch.tensor(v, requires_grad=grads))
                fg_args.append(fg.tensor(v, requires_grad=grads))
            elif isinstance(a, np.ndarray):
                th_args.append(torch.tensor(a))
                fg_args.append(fg.tensor(a))
            else:
                th_args.append(a)
                fg_args.append(a)
        th_out = _flat(call(th_mod, *th_args))
        fg_out = _flat(call(fg_mod, *fg_args))
        assert len(th_out) == len(fg_out)
        for t, f in zip(th_out, fg_out, strict=True):
            assert tuple(t.shape) == tuple(f.shape), (mode, t.shape, f.shape)
            assert _np(f).dtype == _np(t).dtype, (mode, _np(f).dtype, _np(t).dtype)
            np.testing.assert_allclose(_np(f), _np(t), **tol, err_msg=f"{mode}: output")
        if check_buffers:
            th_buf = dict(th_mod.named_buffers())
            for name, b in fg_mod.named_buffers():
                np.testing.assert_allclose(
                    _np(b), _np(th_buf[name]), **tol, err_msg=f"{mode}: buffer {name}"
                )
        if not grads:
            continue
        cts = [rng.standard_normal(tuple(t.shape)) for t in th_out]
        th_loss = sum(
            (t * torch.tensor(c, dtype=t.dtype)).sum()
            for t, c in zip(th_out, cts, strict=True)
            if t.requires_grad
        )
        fg_loss = sum(
            (f * fg.tensor(c, dtype=f.dtype)).sum()
            for f, c in zip(fg_out, cts, strict=True)
            if f.requires_grad
        )
        if not isinstance(th_loss, torch.Tensor):
            continue
        th_loss.backward()
        fg_loss.backward()
        for k, (t, f) in enumerate(zip(th_args, fg_args, strict=True)):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                if t.grad is None:
                    assert f.grad is None or not np.any(_np(f.grad))
                    continue
                np.testing.assert_allclose(
                    _np(f.grad), _np(t.grad), **tol, err_msg=f"{mode}: grad of input {k}"
                )
        fg_params = dict(fg_mod.named_parameters())
        for name, p in th_mod.named_parameters():
            q = fg_params[name]
            if p.grad is None:
                assert q.grad is None or not np.any(_np(q.grad)), name
                continue
            assert q.grad is not None, f"{mode}: no gradient for {name}"
            np.testing.assert_allclose(
                _np(q.grad), _np(p.grad), **tol, err_msg=f"{mode}: grad of {name}"
            )
    return th_mod, fg_mod
