"""Shared drivers of the optimizer tests: the same gradients fed to funcgrad's and PyTorch's optimizer.

`trajectories` runs a funcgrad optimizer and the PyTorch optimizer of the
same name side by side on copies of the same parameters. Each step the
gradients are computed once, by PyTorch's autograd at PyTorch's parameters
(a quadratic pulling them to a target, plus fixed noise, so that momentum,
weight decay and the adaptive denominators all matter), and copied into
both `.grad`s; then both optimizers step.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

import funcgrad as fg

SHAPES = [(3, 4), (5,), (2, 2, 2), ()]


def to_torch(value: Any, torch: Any) -> Any:
    """A funcgrad state dict (or any part of one) with torch tensors in place of funcgrad's."""
    if isinstance(value, fg.Tensor):
        return torch.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: to_torch(v, torch) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_torch(v, torch) for v in value)
    return value


def to_funcgrad(value: Any, torch: Any) -> Any:
    """A torch state dict (or any part of one) with funcgrad tensors in place of torch's."""
    if isinstance(value, torch.Tensor):
        return fg.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: to_funcgrad(v, torch) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_funcgrad(v, torch) for v in value)
    return value


def make_params(torch: Any, dtype: Any, seed: int = 0, shapes=SHAPES, complex_=False):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if complex_:
        init = [a + 1j * rng.standard_normal(a.shape).astype(dtype) for a in init]
    tp = [torch.tensor(a.copy(), requires_grad=True) for a in init]
    fp = [fg.tensor(a.copy(), requires_grad=True) for a in init]
    return tp, fp


def groups_of(params: list, groups: list[tuple[list[int], dict]] | None) -> Any:
    if groups is None:
        return params
    return [{"params": [params[i] for i in idx], **opts} for idx, opts in groups]


def trajectories(
    name: str,
    kwargs: dict,
    torch: Any,
    dtype: Any = np.float64,
    steps: int = 50,
    groups: list[tuple[list[int], dict]] | None = None,
    reload_at: int | None = None,
    swap_at: int | None = None,
    complex_: bool = False,
    skip: set[tuple[int, int]] | None = None,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Run both optimizers for `steps` steps; return their final parameters (funcgrad, torch).

    Args:
        reload_at: After this many steps, funcgrad's optimizer is replaced by a
            new one loaded from a deep copy of its `state_dict()` (a checkpoint
            round trip), and PyTorch's likewise.
        swap_at: After this many steps, each library's optimizer is replaced by
            a new one loaded from the *other* library's state dict (converted
            tensor by tensor): checkpoints interoperate both ways.
        skip: `(step, param)` pairs whose gradient is None at that step (the
            optimizers must skip those parameters).
    """
    tp, fp = make_params(torch, dtype, complex_=complex_)
    topt = getattr(torch.optim, name)(groups_of(tp, groups), **kwargs)
    fopt = getattr(fg.optim, name)(groups_of(fp, groups), **kwargs)
    rng = np.random.default_rng(1)
    targets = [torch.tensor(rng.standard_normal(p.shape).astype(dtype)) for p in tp]
    scales = [torch.tensor(rng.uniform(0.5, 2.0, p.shape).astype(dtype)) for p in tp]
    for step in range(steps):
        if step == reload_at:
            fstate, tstate = copy.deepcopy(fopt.state_dict()), copy.deepcopy(topt.state_dict())
            fopt = getattr(fg.optim, name)(groups_of(fp, groups), **kwargs)
            topt = getattr(torch.optim, name)(groups_of(tp, groups), **kwargs)
            fopt.load_state_dict(fstate)
            topt.load_state_dict(tstate)
        if step == swap_at:
            fstate = to_torch(fopt.state_dict(), torch)
            tstate = to_funcgrad(topt.state_dict(), torch)
            fopt = getattr(fg.optim, name)(groups_of(fp, groups), **kwargs)
            topt = getattr(torch.optim, name)(groups_of(tp, groups), **kwargs)
            fopt.load_state_dict(tstate)
            topt.load_state_dict(fstate)
        noise = rng.standard_normal(sum(int(np.prod(p.shape)) for p in tp)) * 0.3
        loss = 0
        offset = 0
        for p, target, scale in zip(tp, targets, scales, strict=True):
            n = int(np.prod(p.shape))
            e = torch.tensor(noise[offset : offset + n].reshape(p.shape).astype(dtype))
            offset += n
            loss = loss + (scale * (p - target).abs() ** 2).sum() + (e * p).real.sum()
        for p in tp:
            p.grad = None
        loss.backward()
        for i, (a, b) in enumerate(zip(tp, fp, strict=True)):
            if skip and (step, i) in skip:
                a.grad = None
                b.grad = None
            else:
                b.grad = fg.tensor(a.grad.numpy().copy())
        topt.step()
        fopt.step()
    return [p.detach().numpy() for p in fp], [p.detach().numpy() for p in tp]


def tolerance(dtype: Any) -> dict[str, float]:
    """float64: 1e-10 relative; float32: PyTorch's `assert_close` defaults for float32."""
    if np.dtype(dtype) in (np.float64, np.complex128):
        return {"rtol": 1e-10, "atol": 1e-12}
    return {"rtol": 1.3e-6, "atol": 1e-5}


def assert_same(ours: list, theirs: list, dtype: Any) -> None:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert a.dtype == b.dtype, (i, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, **tolerance(dtype), err_msg=f"parameter {i}")
