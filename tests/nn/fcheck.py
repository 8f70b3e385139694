"""Differential checks of `funcgrad.nn.functional` against `torch.nn.functional`.

`compare(name, args, kwargs)` calls `F.<name>` of both libraries on the same
inputs: float arrays become tensors that require grad (funcgrad's and
PyTorch's), anything else passes as it is (int arrays as int64 tensors).
It compares the outputs (and a `(values, indices)` pair), the gradients of
a random linear function of the output with respect to every float input,
and runs the functional world too: the same function on NumPy arrays gives
the same values, and on graph nodes (through `funcgrad.grad`) the same
gradients. `second_order` compares the gradient of a gradient norm (a
gradient penalty) with PyTorch's; forward mode is checked by
`funcgrad.check_grads` (JVPs and VJPs against central differences).
"""

from __future__ import annotations

import numpy as np

import funcgrad as fg
import funcgrad.nn.functional as F
from tests.references import requires

torch = requires("torch")
TF = torch.nn.functional

F64 = {"rtol": 1e-9, "atol": 1e-10}
# PyTorch's float32 tolerance for its convolution tests, relative to the values' scale
F32 = {"rtol": 1e-4, "atol": 1e-5}


def tol_for(dtype) -> dict:
    return F64 if np.dtype(dtype) == np.float64 else F32


def _is_float(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _to_fg(a, grad):
    if isinstance(a, np.ndarray):
        return fg.tensor(a, requires_grad=grad and a.dtype.kind == "f")
    if isinstance(a, (list, tuple)) and any(isinstance(v, np.ndarray) for v in a):
        return type(a)(_to_fg(v, grad) for v in a)
    return a


def _to_torch(a, grad):
    if isinstance(a, np.ndarray):
        t = torch.from_numpy(a.copy())
        return t.requires_grad_(grad and a.dtype.kind == "f")
    if isinstance(a, (list, tuple)) and any(isinstance(v, np.ndarray) for v in a):
        return type(a)(_to_torch(v, grad) for v in a)
    return a


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    if isinstance(t, fg.Tensor):
        return np.asarray(t.detach().numpy())
    return np.asarray(t)


def assert_close(actual, expected, tol, what):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    scale = float(np.max(np.abs(expected), initial=1.0))
    np.testing.assert_allclose(
        actual, expected, rtol=tol["rtol"], atol=tol["atol"] * scale, err_msg=what
    )


def _leaves(args, kwargs):
    """The float array arguments: (position or keyword, array)."""
    out = [(i, a) for i, a in enumerate(args) if _is_float(a)]
    out += [(k, a) for k, a in kwargs.items() if _is_float(a)]
    return out


def compare(name, args, kwargs=None, *, dtype=np.float64, seed=0, grads=True, worlds=True,
            tol=None, torch_fn=None, fg_fn=None):  # fmt: skip
    """Compare `F.<name>(*args, **kwargs)` of funcgrad and PyTorch (see the module docstring).

    Returns:
        funcgrad's output (a tensor, or the first of a tuple).
    """
    kwargs = dict(kwargs or {})
    tol = tol or tol_for(dtype)
    args = [a.astype(dtype) if _is_float(a) else a for a in args]
    kwargs = {k: a.astype(dtype) if _is_float(a) else a for k, a in kwargs.items()}
    fg_fn = fg_fn or getattr(F, name)
    torch_fn = torch_fn or getattr(TF, name)

    fa = [_to_fg(a, grads) for a in args]
    fk = {k: _to_fg(a, grads) for k, a in kwargs.items()}
    ta = [_to_torch(a, grads) for a in args]
    tk = {k: _to_torch(a, grads) for k, a in kwargs.items()}
    y = fg_fn(*fa, **fk)
    ty = torch_fn(*ta, **tk)
    if isinstance(ty, tuple):
        assert isinstance(y, tuple) and len(y) == len(ty), f"{name}: {type(y)} for a tuple"
        for i in range(1, len(ty)):
            assert np.array_equal(_np(y[i]), _np(ty[i])), f"{name}: output {i} differs"
            assert _np(y[i]).dtype == _np(ty[i]).dtype, f"{name}: output {i}'s dtype"
        y, ty = y[0], ty[0]
    assert isinstance(y, fg.Tensor), f"{name} returned {type(y).__name__} for tensors"
    assert _np(y).dtype == _np(ty).dtype, f"{name}: dtype {_np(y).dtype} != {_np(ty).dtype}"
    assert_close(_np(y), _np(ty), tol, f"{name}: output")

    leaves = _leaves(args, kwargs)
    if grads and leaves and ty.requires_grad:
        ct = np.random.default_rng(seed).standard_normal(tuple(ty.shape)).astype(dtype)
        ty.backward(torch.from_numpy(ct))
        y.backward(fg.tensor(ct))
        for key, _ in leaves:
            fg_leaf = fa[key] if isinstance(key, int) else fk[key]
            th_leaf = ta[key] if isinstance(key, int) else tk[key]
            if th_leaf.grad is None:
                assert fg_leaf.grad is None or not np.any(_np(fg_leaf.grad)), f"{name}: grad {key}"
                continue
            assert fg_leaf.grad is not None, f"{name}: no gradient for argument {key}"
            assert _np(fg_leaf.grad).dtype == np.dtype(dtype)
            assert_close(_np(fg_leaf.grad), _np(th_leaf.grad), tol, f"{name}: grad of {key}")

    if worlds:
        _check_worlds(name, fg_fn, args, kwargs, y, tol, leaves, seed, dtype)
    return y


def _check_worlds(name, fg_fn, args, kwargs, y, tol, leaves, seed, dtype):
    """The functional world: NumPy arrays in, arrays out; nodes in, the same gradients."""
    out = fg_fn(*args, **kwargs)
    if isinstance(out, tuple):
        out = out[0]
    assert isinstance(out, (np.ndarray, np.generic)), f"{name}: {type(out).__name__} for arrays"
    assert out.dtype == _np(y).dtype, f"{name}: dtype {out.dtype} for arrays"
    out = np.asarray(out)
    assert_close(out, _np(y), tol, f"{name}: arrays vs tensors")
    if not leaves:
        return
    ct = np.random.default_rng(seed + 1).standard_normal(out.shape).astype(dtype)
    keys = [k for k, _ in leaves]

    def f(*vals):
        a, k = list(args), dict(kwargs)
        for key, v in zip(keys, vals, strict=True):
            if isinstance(key, int):
                a[key] = v
            else:
                k[key] = v
        r = fg_fn(*a, **k)
        r = r[0] if isinstance(r, tuple) else r
        return (r * ct).sum()

    grads = fg.grad(f, argnums=tuple(range(len(keys))))(*[a for _, a in leaves])
    fa = [_to_fg(a, True) for a in args]
    fk = {k: _to_fg(a, True) for k, a in kwargs.items()}
    r = fg_fn(*fa, **fk)
    r = r[0] if isinstance(r, tuple) else r
    (r * fg.tensor(ct)).sum().backward()
    for key, g in zip(keys, grads, strict=True):
        leaf = fa[key] if isinstance(key, int) else fk[key]
        assert_close(g, _np(leaf.grad), tol, f"{name}: functional gradient of {key}")


def second_order(name, args, kwargs=None, *, seed=0, tol=None, torch_fn=None, fg_fn=None):
    """Compare the gradient of a gradient penalty, `d/dx |d<ct, f^2>/dx|^2`, with PyTorch's (float64)."""
    kwargs = dict(kwargs or {})
    tol = tol or {"rtol": 1e-8, "atol": 1e-9}
    fg_fn = fg_fn or getattr(F, name)
    torch_fn = torch_fn or getattr(TF, name)
    results = []
    for lib, to, fn in ((fg, _to_fg, fg_fn), (torch, _to_torch, torch_fn)):
        a = [to(v, True) for v in args]
        k = {key: to(v, True) for key, v in kwargs.items()}
        leaves = [v for v in a if isinstance(v, (fg.Tensor, torch.Tensor)) and v.requires_grad]
        out = fn(*a, **k)
        out = out[0] if isinstance(out, tuple) else out
        ct = np.random.default_rng(seed).standard_normal(tuple(out.shape))
        ct = lib.tensor(ct) if lib is fg else torch.from_numpy(ct)
        # out * out: a curved loss, so piecewise linear functions (pools) have a second order too
        gs = lib.autograd.grad((out * out * ct).sum(), leaves, create_graph=True)
        penalty = sum((g * g).sum() for g in gs)
        results.append([_np(g) for g in lib.autograd.grad(penalty, leaves, allow_unused=True)
                        if g is not None])  # fmt: skip
    assert len(results[0]) == len(results[1])
    for i, (a, b) in enumerate(zip(*results, strict=True)):
        assert_close(a, b, tol, f"{name}: second order, argument {i}")


def forward_mode(fn, arrays, order=2):
    """Check `fn`'s JVPs and VJPs (to `order`) on float64 arrays against central differences."""
    fg.check_grads(fn, tuple(np.asarray(a, dtype=np.float64) for a in arrays), order=order,
                   modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)  # fmt: skip
