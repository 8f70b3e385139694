"""`gradcheck` and `gradgradcheck`: compare backward with finite differences (as PyTorch's).

`gradcheck` builds, for every output and every input that requires grad,
the full Jacobian twice: numerically, by central differences
`(f(x + eps e_k) - f(x - eps e_k)) / (2 eps)` one input element at a time,
and analytically, by `funcgrad.autograd.grad` one output element at a
time (each row is the backward of a one-hot `grad_outputs`). They must
agree elementwise within `atol + rtol * |numerical|`.

`gradgradcheck` runs the same check on the function that maps the inputs
and `grad_outputs` to the first-order gradients (computed with
`create_graph=True`), which checks second derivatives.

Both work on float64 copies of the tensor inputs, whatever their dtype,
and never touch the caller's tensors (their `.grad` included). PyTorch
instead warns that a float32 check "will likely fail": in float32, central
differences with `eps=1e-6` measure mostly rounding error, so the copy is
what makes the check meaningful, and no warning is given. A `func` that
casts to a lower precision inside still gets imprecise numbers; a failure
message then names the output's dtype.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

import numpy as np

from funcgrad.backend import xp_of
from funcgrad.tensors import grad_mode
from funcgrad.tensors.engine import grad as _autograd_grad
from funcgrad.tensors.tensor_class import Tensor, _fresh_leaf, _new_like

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]

# Jacobians with more elements than this print summarized (numpy's `...`).
_PRINT_THRESHOLD = 200
# gradgradcheck's random grad_outputs come from this seed (reproducible runs).
_GRAD_OUTPUTS_SEED = 0


class GradcheckError(RuntimeError):
    """`gradcheck` or `gradgradcheck` found a gradient that disagrees with finite differences.

    The message shows, for each mismatching (output, input) pair, the
    numerical and the analytical Jacobian side by side, the worst element
    with both values, and the tolerance it broke. Fix the backward (or the
    custom `Function.backward`), or, when the function is not smooth at the
    point checked, check at another point.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd.checks import GradcheckError
        >>> issubclass(GradcheckError, RuntimeError)
        True
    """


def _as_tuple(x) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _host(value) -> np.ndarray:
    """Return a value as a NumPy array (copied from a GPU if needed)."""
    get = getattr(value, "get", None)
    if get is not None and not isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(get())
    return np.asarray(value)


def _float64_copy(a, requires_grad=None):
    """A fresh leaf with `a`'s values, float64 if floating point; non-tensors pass through."""
    if not isinstance(a, Tensor):
        return a
    value = a._value
    xp = xp_of(value)
    value = xp.array(value, copy=True)
    if value.dtype.kind == "f":
        value = value.astype(xp.float64)
    rg = a.requires_grad if requires_grad is None else requires_grad
    return _fresh_leaf(type(a), value, rg and value.dtype.kind == "f")


def _with_value(a: Tensor, value) -> Tensor:
    return _fresh_leaf(type(a), value, a.requires_grad)


def _tensor_outputs(result, op: str) -> list:
    """Return `[(position, tensor)]` for the floating-point tensor outputs of `func`."""
    if isinstance(result, Tensor):
        items = [(0, result)]
    elif isinstance(result, (tuple, list)):
        items = [(j, o) for j, o in enumerate(result) if isinstance(o, Tensor)]
    else:
        raise TypeError(
            f"{op}: func must return a Tensor or a tuple of Tensors, got {type(result).__name__}"
        )
    out = []
    for j, o in items:
        kind = o.dtype.kind
        if kind == "c":
            raise NotImplementedError(
                f"{op}: output {j} is complex ({o.dtype}); complex gradients are not checked yet"
            )
        if kind == "f":
            out.append((j, o))
    return out


def _check_inputs(args: tuple, op: str) -> list[int]:
    diff = []
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a.requires_grad:
            if a.dtype.kind == "c":
                raise NotImplementedError(
                    f"{op}: input {i} is complex ({a.dtype}); complex gradients are not checked yet"
                )
            diff.append(i)
    if not diff:
        raise ValueError(
            f"{op} expects at least one input tensor to require gradient, but none of "
            f"them have requires_grad=True (inputs: "
            f"{', '.join(_describe(a) for a in args) or 'none'})"
        )
    return diff


def _describe(a) -> str:
    if isinstance(a, Tensor):
        return f"Tensor{list(a.shape)} {a.dtype}{' requires_grad' if a.requires_grad else ''}"
    return type(a).__name__


def _evaluate(func, args: tuple, positions: list[int], op: str) -> list:
    """Run `func` on fresh copies of `args`; return the values of the outputs at `positions`."""
    fresh = tuple(_with_value(a, a._value) if isinstance(a, Tensor) else a for a in args)
    outputs = dict(_tensor_outputs(func(*fresh), op))
    try:
        return [_host(outputs[j]._value).astype(np.float64) for j in positions]
    except KeyError:
        raise GradcheckError(
            f"{op}: func returned different outputs for a perturbed input (output "
            f"positions {sorted(outputs)} instead of {positions})"
        ) from None


def _perturbed(args: tuple, i: int, delta) -> tuple:
    """`args` with `delta` added to input `i` (a new leaf; the others shared)."""
    a = args[i]
    return args[:i] + (_with_value(a, a._value + delta),) + args[i + 1 :]


def _numerical_jacobians(func, args, diff, outputs, eps, op) -> dict:
    """J[(j, i)][m, k] = d output_j[m] / d input_i[k] by central differences."""
    positions = [j for j, _ in outputs]
    jac = {}
    for i in diff:
        x = args[i]
        n_in = x.numel()
        cols = {j: np.zeros((o.numel(), n_in)) for j, o in outputs}
        xp = xp_of(x._value)
        for k in range(n_in):
            delta = xp.zeros(x._value.shape, dtype=x._value.dtype)
            delta.reshape(-1)[k] = eps
            plus = _evaluate(func, _perturbed(args, i, delta), positions, op)
            minus = _evaluate(func, _perturbed(args, i, -delta), positions, op)
            for (j, o), p, m in zip(outputs, plus, minus, strict=True):
                if p.shape != tuple(o.shape):
                    raise GradcheckError(
                        f"{op}: output {j} changed shape from {list(o.shape)} to "
                        f"{list(p.shape)} when input {i} was perturbed"
                    )
                cols[j][:, k] = (p - m).reshape(-1) / (2 * eps)
        for j, _ in outputs:
            jac[(j, i)] = cols[j]
    return jac


def _analytical_jacobians(args, diff, outputs, op, check_grad_dtypes) -> dict:
    """J[(j, i)][m, :] = the gradient of output_j[m] w.r.t. input_i, by backward."""
    inputs = tuple(args[i] for i in diff)
    jac = {}
    for j, o in outputs:
        n_out = o.numel()
        rows = {i: np.zeros((n_out, args[i].numel())) for i in diff}
        if o.requires_grad:
            xp = xp_of(o._value)
            for m in range(n_out):
                seed = xp.zeros(o._value.shape, dtype=o.dtype)
                seed.reshape(-1)[m] = 1
                grads = _autograd_grad(
                    o, inputs, grad_outputs=_new_like(Tensor, seed, None), allow_unused=True
                )
                for i, g in zip(diff, grads, strict=True):
                    if g is None:
                        continue
                    x = args[i]
                    if tuple(g.shape) != tuple(x.shape):
                        raise GradcheckError(
                            f"{op}: the gradient of output {j} with respect to input {i} "
                            f"has shape {list(g.shape)}, but the input has shape "
                            f"{list(x.shape)}"
                        )
                    if check_grad_dtypes and g.dtype != x.dtype:
                        raise GradcheckError(
                            f"{op}: the gradient of output {j} with respect to input {i} "
                            f"has dtype {g.dtype}, but the input has dtype {x.dtype}"
                        )
                    rows[i][m, :] = _host(g._value).reshape(-1)
        for i in diff:
            jac[(j, i)] = rows[i]
    return jac


def _side_by_side(numerical: np.ndarray, analytical: np.ndarray) -> str:
    options: dict[str, Any] = dict(
        precision=6, max_line_width=120, threshold=_PRINT_THRESHOLD, separator=", "
    )
    numerical, analytical = numerical + 0.0, analytical + 0.0  # print -0. as 0.
    left = ["numerical:", *np.array2string(numerical, **options).splitlines()]
    right = ["analytical:", *np.array2string(analytical, **options).splitlines()]
    width = max(len(line) for line in left)
    return "\n".join(
        f"{a.ljust(width)}    {b}".rstrip() for a, b in zip_longest(left, right, fillvalue="")
    )


def _mismatch(j, i, out, x, numerical, analytical, atol, rtol, eps) -> str | None:
    """Describe how the (output j, input i) Jacobians disagree, or return None."""
    err = np.abs(analytical - numerical)
    bound = atol + rtol * np.abs(numerical)
    bad = ~(err <= bound)  # NaN counts as a mismatch
    if not bad.any():
        return None
    excess = np.where(bad, np.nan_to_num(err - bound, nan=np.inf), -np.inf)
    m, k = np.unravel_index(int(np.argmax(excess)), excess.shape)
    n_val, a_val = float(numerical[m, k]), float(analytical[m, k])
    out_index = np.unravel_index(m, tuple(out.shape)) if out.ndim else ()
    in_index = np.unravel_index(k, tuple(x.shape)) if x.ndim else ()
    lines = [
        f"Jacobian mismatch for output {j} with respect to input {i}: "
        f"{int(bad.sum())} of {bad.size} elements differ.",
        f"J[m, k] = d output{j}[m] / d input{i}[k] over flattened elements (output "
        f"shape {list(out.shape)}, input shape {list(x.shape)}); numerical by central "
        f"differences with eps={eps:g}, analytical by backward:",
        _side_by_side(numerical, analytical),
        f"worst element: J[{m}, {k}] = d output{j}{list(map(int, out_index))} / d "
        f"input{i}{list(map(int, in_index))}: numerical {n_val!r}, analytical {a_val!r}, "
        f"|analytical - numerical| = {err[m, k]:.6g} > atol + rtol * |numerical| = "
        f"{atol:g} + {rtol:g} * {abs(n_val):.6g} = {bound[m, k]:.6g}",
    ]
    if not out.requires_grad:
        lines.append(
            f"(output {j} does not require grad: it is not connected to the "
            f"inputs' graph, so its analytical Jacobian is zero)"
        )
    if out.dtype != np.float64:
        lines.append(
            f"(output {j} has dtype {out.dtype}: func computes in a lower "
            f"precision, which finite differences cannot check accurately)"
        )
    return "\n".join(lines)


def _fast_mismatches(func, args, diff, outputs, eps, atol, rtol, op) -> list:
    """Compare u^T J v numerically and analytically, one random u and v per pair."""
    rng = np.random.default_rng(_GRAD_OUTPUTS_SEED)
    positions = [j for j, _ in outputs]
    us = {j: rng.uniform(-1.0, 1.0, tuple(o.shape)) for j, o in outputs}
    vs = {i: rng.uniform(-1.0, 1.0, tuple(args[i].shape)) for i in diff}
    analytic = {}
    inputs = tuple(args[i] for i in diff)
    for j, o in outputs:
        if not o.requires_grad:
            for i in diff:
                analytic[(j, i)] = 0.0
            continue
        xp = xp_of(o._value)
        seed = _new_like(Tensor, xp.asarray(us[j], dtype=o.dtype), None)
        grads = _autograd_grad(o, inputs, grad_outputs=seed, allow_unused=True)
        for i, g in zip(diff, grads, strict=True):
            analytic[(j, i)] = 0.0 if g is None else float(np.sum(_host(g._value) * vs[i]))
    problems = []
    for i in diff:
        x = args[i]
        delta = xp_of(x._value).asarray(vs[i] * eps, dtype=x.dtype)
        plus = _evaluate(func, _perturbed(args, i, delta), positions, op)
        minus = _evaluate(func, _perturbed(args, i, -delta), positions, op)
        for (j, _), p, m in zip(outputs, plus, minus, strict=True):
            numeric = float(np.sum(us[j] * (p - m) / (2 * eps)))
            a = analytic[(j, i)]
            bound = atol + rtol * abs(numeric)
            if not abs(a - numeric) <= bound:
                problems.append(
                    f"Jacobian mismatch for output {j} with respect to input {i} (fast mode: "
                    f"u^T J v for random u, v): numerical {numeric!r}, analytical {a!r}, "
                    f"|analytical - numerical| = {abs(a - numeric):.6g} > atol + rtol * "
                    f"|numerical| = {atol:g} + {rtol:g} * {abs(numeric):.6g} = {bound:.6g}. "
                    f"Run with fast_mode=False to see the full Jacobians."
                )
    return problems


def _check(
    func,
    args,
    *,
    eps,
    atol,
    rtol,
    nondet_tol,
    check_undefined_grad,
    check_grad_dtypes,
    check_backward_ad,
    fast_mode,
    op,
) -> None:
    diff = _check_inputs(args, op)
    with grad_mode.enable_grad():
        outputs = _tensor_outputs(func(*args), op)
        if not outputs or not check_backward_ad:
            return
        if fast_mode:
            problems = _fast_mismatches(func, args, diff, outputs, eps, atol, rtol, op)
            if problems:
                raise GradcheckError(f"{op} failed:\n" + "\n\n".join(problems))
            return
        analytical = _analytical_jacobians(args, diff, outputs, op, check_grad_dtypes)
        numerical = _numerical_jacobians(func, args, diff, outputs, eps, op)
    problems = []
    for j, o in outputs:
        for i in diff:
            text = _mismatch(
                j, i, o, args[i], numerical[(j, i)], analytical[(j, i)], atol, rtol, eps
            )
            if text is not None:
                problems.append(text)
    if problems:
        raise GradcheckError(f"{op} failed:\n" + "\n\n".join(problems))

    with grad_mode.enable_grad():
        again = _analytical_jacobians(args, diff, outputs, op, check_grad_dtypes)
    for key, first in analytical.items():
        if not np.all(np.abs(again[key] - first) <= nondet_tol):
            j, i = key
            raise GradcheckError(
                f"{op} failed: Backward is not reentrant, i.e., running backward with the "
                f"same input and grad_output multiple times gives different values, "
                f"although analytical gradient matches numerical gradient (output {j}, "
                f"input {i}: max difference {np.max(np.abs(again[key] - first)):.6g}). "
                f"The tolerance for nondeterminism was {nondet_tol}."
            )
    if check_undefined_grad:
        _check_zero_grad_outputs(args, diff, outputs, op)


def _check_zero_grad_outputs(args, diff, outputs, op) -> None:
    """Zero grad_outputs must give zero gradients (backward is linear in them)."""
    outs = [o for _, o in outputs if o.requires_grad]
    if not outs:
        return
    zeros = [
        _new_like(Tensor, xp_of(o._value).zeros(o._value.shape, dtype=o.dtype), None) for o in outs
    ]
    with grad_mode.enable_grad():
        grads = _autograd_grad(
            outs, tuple(args[i] for i in diff), grad_outputs=zeros, allow_unused=True
        )
    for i, g in zip(diff, grads, strict=True):
        if g is not None and np.any(_host(g._value) != 0):
            raise GradcheckError(
                f"{op} failed: zero grad_outputs gave a nonzero gradient for input {i} "
                f"(max |gradient| {np.max(np.abs(_host(g._value))):.6g}); backward must be "
                f"linear in grad_outputs"
            )


def _unsupported(op: str, **flags) -> None:
    for name, value in flags.items():
        if value:
            raise NotImplementedError(f"{op}: {name}=True is not supported by funcgrad")


def gradcheck(
    func,
    inputs,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    *,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences (as PyTorch's).

    For every floating-point tensor output of `func` and every input that
    requires grad, the full Jacobian from backward must match the one from
    central differences elementwise:
    `|analytical - numerical| <= atol + rtol * |numerical|`.

    The check runs on float64 copies of the tensor inputs (any float dtype
    is accepted; the caller's tensors and their `.grad` are not touched).

    Args:
        func: A function of tensors returning a tensor or a tuple of
            tensors (non-tensor and integer outputs are ignored).
        inputs: A tensor or a tuple of arguments for `func`; the tensors
            with `requires_grad=True` are the ones differentiated.
        eps: The finite-difference step.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        raise_exception: Raise `GradcheckError` on a mismatch (otherwise
            return False).
        nondet_tol: Tolerance between two backward runs (reentrancy).
        check_undefined_grad: Also check that zero `grad_outputs` give zero
            gradients.
        check_grad_dtypes: Also check that each gradient has its input's
            dtype.
        check_batched_grad: Not supported (must be False).
        check_batched_forward_grad: Not supported (must be False).
        check_forward_ad: Not supported (must be False).
        check_backward_ad: Check backward at all (False checks nothing).
        fast_mode: Compare `u^T J v` for random `u`, `v` instead of whole
            Jacobians (one backward per output, two evaluations per input).
        masked: Not supported (must be None or False).

    Returns:
        True if every gradient matches (False on a mismatch when
        `raise_exception=False`).

    Raises:
        GradcheckError: On a mismatch (a `RuntimeError`), if
            `raise_exception`. The message shows, per mismatching (output,
            input) pair, both Jacobians side by side, the worst element with
            both values, and the tolerance.
        ValueError: If no input requires grad.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd import gradcheck
        >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        >>> gradcheck(lambda t: (t * t).sum(), (x,))
        True
        >>> class BadSquare(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, t):
        ...         ctx.save_for_backward(t)
        ...         return t * t
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         (t,) = ctx.saved_tensors
        ...         return grad_output * t  # should be 2 * t
        >>> gradcheck(BadSquare.apply, (x,), raise_exception=False)
        False
        >>> gradcheck(BadSquare.apply, (x,))
        Traceback (most recent call last):
        ...
        funcgrad.autograd.checks.GradcheckError: funcgrad.autograd.gradcheck failed:
        Jacobian mismatch for output 0 with respect to input 0: 2 of 4 elements differ.
        ...
        numerical:        analytical:
        [[2., 0.],        [[1., 0.],
         [0., 4.]]         [0., 2.]]
        worst element: J[1, 1] = d output0[1] / d input0[1]: numerical ..., analytical 2.0, ...
    """
    op = "funcgrad.autograd.gradcheck"
    _unsupported(
        op,
        check_batched_grad=check_batched_grad,
        check_batched_forward_grad=check_batched_forward_grad,
        check_forward_ad=check_forward_ad,
        masked=masked,
    )
    args = tuple(_float64_copy(a) for a in _as_tuple(inputs))
    try:
        _check(
            func,
            args,
            eps=eps,
            atol=atol,
            rtol=rtol,
            nondet_tol=nondet_tol,
            check_undefined_grad=check_undefined_grad,
            check_grad_dtypes=check_grad_dtypes,
            check_backward_ad=check_backward_ad,
            fast_mode=fast_mode,
            op=op,
        )
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _random_grad_output(rng, shape: tuple, non_contiguous: bool):
    """Uniform in [-1, 1]; with `non_contiguous`, a read-only strided view (every other entry)."""
    if not non_contiguous:
        return rng.uniform(-1.0, 1.0, shape)
    base = rng.uniform(-1.0, 1.0, (*shape, 2))
    base.setflags(write=False)  # read-only all the way: kept as it is, strides included
    return base[..., 0]


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    *,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives of `func` against finite differences (as PyTorch's).

    Runs `gradcheck` on the function
    `(*inputs, *grad_outputs) -> autograd.grad(outputs, inputs, grad_outputs, create_graph=True)`,
    so the derivatives of the first-order gradients with respect to both the
    inputs and the `grad_outputs` are checked.

    Args:
        func: A function of tensors returning a tensor or a tuple of tensors.
        inputs: A tensor or a tuple of arguments for `func`.
        grad_outputs: One tensor per output of `func` that requires grad.
            If None, random ones (uniform in [-1, 1], from a fixed seed, so
            runs are reproducible) that require grad.
        eps: The finite-difference step.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        gen_non_contig_grad_outputs: Draw the random `grad_outputs` as
            non-contiguous (strided) arrays, as PyTorch does.
        raise_exception: Raise `GradcheckError` on a mismatch (otherwise
            return False).
        nondet_tol: Tolerance between two backward runs.
        check_undefined_grad: As for `gradcheck`.
        check_grad_dtypes: As for `gradcheck`.
        check_batched_grad: Not supported (must be False).
        check_fwd_over_rev: Not supported (must be False).
        check_rev_over_rev: Run the check at all (False checks nothing).
        fast_mode: As for `gradcheck`.
        masked: Not supported (must be False).

    Returns:
        True if every second derivative matches.

    Raises:
        GradcheckError: On a mismatch, if `raise_exception`.
        ValueError: If no input requires grad, or `grad_outputs` does not
            have one tensor per output that requires grad.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd import gradgradcheck
        >>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
        >>> gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    op = "funcgrad.autograd.gradgradcheck"
    _unsupported(
        op,
        check_batched_grad=check_batched_grad,
        check_fwd_over_rev=check_fwd_over_rev,
        masked=masked,
    )
    args = tuple(_float64_copy(a) for a in _as_tuple(inputs))
    _check_inputs(args, op)
    if grad_outputs is None:
        with grad_mode.enable_grad():
            outs = [o for _, o in _tensor_outputs(func(*args), op) if o.requires_grad]
        rng = np.random.default_rng(_GRAD_OUTPUTS_SEED)
        gos = tuple(
            _fresh_leaf(
                Tensor, _random_grad_output(rng, tuple(o.shape), gen_non_contig_grad_outputs), True
            )
            for o in outs
        )
    else:
        gos = tuple(_float64_copy(g) for g in _as_tuple(grad_outputs))
    n_args, n_gos = len(args), len(gos)

    def first_order(*all_args):
        in_args, go_args = all_args[:n_args], all_args[n_args:]
        outs = [o for _, o in _tensor_outputs(func(*in_args), op) if o.requires_grad]
        if len(outs) != n_gos:
            raise ValueError(
                f"{op}: func has {len(outs)} outputs that require grad, but "
                f"{n_gos} grad_outputs were given"
            )
        if not outs:
            return ()
        diff = tuple(a for a in in_args if isinstance(a, Tensor) and a.requires_grad)
        grads = _autograd_grad(
            outs, diff, grad_outputs=go_args, create_graph=True, allow_unused=True
        )
        return tuple(g for g in grads if g is not None)

    if not check_rev_over_rev:
        return True
    return gradcheck(
        first_order,
        args + gos,
        eps,
        atol,
        rtol,
        raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        fast_mode=fast_mode,
    )
