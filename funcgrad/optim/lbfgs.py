"""`LBFGS`: limited-memory BFGS with an optional strong-Wolfe line search (PyTorch's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.backend import xp_of
from funcgrad.optim import _tensors
from funcgrad.optim._common import check_nonnegative, complex_view, numbers, real_view
from funcgrad.optim.optimizer import Optimizer
from funcgrad.tensors.grad_mode import enable_grad
from funcgrad.tensors.tensor_class import Tensor

__all__ = ["LBFGS"]

# NOTE: the algorithm runs on the flat arrays of the parameters and gradients;
# scalars such as `ys`, `H_diag` and `t` are 0-d NumPy values of the parameters'
# dtype, so float32 problems round as PyTorch's 0-d tensors do. The state keeps
# PyTorch's keys, with tensors where PyTorch has tensors.


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    # The minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to `bounds`.
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square**0.5
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    # Nocedal and Wright's line search (algorithms 3.5 and 3.6), as PyTorch ports minFunc's.
    xp = xp_of(d)
    d_norm = xp.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    # Bracket an interval containing a point satisfying the Wolfe criteria.
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket = [t_prev, t]
            bracket_f = [f_prev, f_new]
            bracket_g = [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket = [t_prev, t]
            bracket_f = [f_prev, f_new]
            bracket_g = [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        # Interpolate.
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    # Reached the maximum number of iterations?
    if ls_iter == max_ls:
        bracket = [0, t]
        bracket_f = [f, f_new]
        bracket_g = [g, g_new]
    # Zoom: refine the bracket until a point satisfies the criteria.
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # Keep t away from the bracket's ends unless progress stalls.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # Armijo condition not satisfied, or not lower than the lowest point.
            bracket[high_pos] = t
            bracket_f[high_pos] = f_new
            bracket_g[high_pos] = g_new.copy()
            bracket_gtd[high_pos] = gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True  # Wolfe conditions satisfied
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos] = t
            bracket_f[low_pos] = f_new
            bracket_g[low_pos] = g_new.copy()
            bracket_gtd[low_pos] = gtd_new
    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals


def _to_state(value: Any) -> Any:
    """A value for the state dict: arrays (also 0-d) become tensors, lists hold them."""
    if isinstance(value, list):
        return [_to_state(v) for v in value]
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return _tensors.wrap(xp_of(value).asarray(value))
    return value


def _from_state(value: Any) -> Any:
    """The inverse of `_to_state`: tensors become arrays (0-d ones scalars of their dtype)."""
    if isinstance(value, list):
        return [_from_state(v) for v in value]
    if isinstance(value, Tensor):
        a = _tensors.array(value)
        return a[()] if a.ndim == 0 else a
    return value


class LBFGS(Optimizer):
    """L-BFGS (PyTorch's `torch.optim.LBFGS`): quasi-Newton steps from a short history.

    `step(closure)` runs up to `max_iter` iterations; the closure clears
    the gradients, computes the loss, calls `backward()` and returns the
    loss. With `line_search_fn="strong_wolfe"` each iteration's step length
    satisfies the strong Wolfe conditions; without, it is `lr` (the first
    one scaled down by the gradient's size). One parameter group only.

    Args:
        params: Tensors to optimize (one group).
        lr: Learning rate (the step length without line search).
        max_iter: Iterations per `step`.
        max_eval: Closure evaluations per `step` (default `max_iter * 5 // 4`).
        tolerance_grad: Stop when the largest gradient entry is below it.
        tolerance_change: Stop when the loss or the parameters change less.
        history_size: How many past updates approximate the inverse Hessian.
        line_search_fn: `"strong_wolfe"` or None.

    Raises:
        ValueError: For parameter groups (L-BFGS takes one).
        RuntimeError: For a line search other than `"strong_wolfe"`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.tensor([-1.0, 2.0], requires_grad=True)
        >>> opt = torch.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((x - torch.tensor([3.0, -1.0])) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> _ = opt.step(closure)
        >>> x
        tensor([ 3.0000, -1.0000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        check_nonnegative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self) -> Any:
        xp = xp_of(_tensors.array(self._params[0]))
        views = []
        for p in self._params:
            a = _tensors.array(p)
            g = xp.zeros_like(a) if p.grad is None else _tensors.array(p.grad)
            views.append(real_view(g).reshape(-1))
        return xp.concatenate(views, 0)

    def _add_grad(self, step_size: Any, update: Any) -> None:
        offset = 0
        for p in self._params:
            a = _tensors.array(p)
            real = real_view(a)
            numel = real.size
            # NOTE: the step in the parameters' dtype, as PyTorch's `add_(alpha=t)` uses it
            new = real + real.dtype.type(step_size) * update[offset : offset + numel].reshape(
                real.shape
            )
            _tensors.write(p, complex_view(new, a))
            offset += numel

    def _clone_param(self) -> list[Any]:
        return [_tensors.array(p) for p in self._params]  # arrays are never written into

    def _set_param(self, params_data: list[Any]) -> None:
        for p, data in zip(self._params, params_data, strict=True):
            _tensors.write(p, data)

    def _directional_evaluate(self, closure: Callable, x: list[Any], t: Any, d: Any) -> Any:
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Perform one optimization step (up to `max_iter` iterations); return the first loss.

        Args:
            closure: Clears the gradients, computes the loss, calls
                `backward()` and returns the loss (called several times).
        """
        group = self.param_groups[0]
        lr, tolerance_grad, tolerance_change = numbers(
            group, "lr", "tolerance_grad", "tolerance_change"
        )
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        def evaluate() -> Any:
            with enable_grad():
                return closure()

        # The state is kept on the first parameter, as in PyTorch.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        xp = xp_of(flat_grad)
        if xp.abs(flat_grad).max() <= tolerance_grad:  # optimal already
            return orig_loss

        d = _from_state(state.get("d"))
        t = _from_state(state.get("t"))
        old_dirs = _from_state(state.get("old_dirs"))
        old_stps = _from_state(state.get("old_stps"))
        ro = _from_state(state.get("ro"))
        H_diag = _from_state(state.get("H_diag"))
        prev_flat_grad = _from_state(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        al = _from_state(state.get("al"))

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            # The descent direction.
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                # Update the memory with the last step and gradient change.
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                # The two-loop recursion: d = -H g.
                num_old = len(old_dirs)
                if al is None:
                    al = [None] * history_size
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r = r + (al[i] - be_i) * old_stps[i]
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            # The step length.
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / xp.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # no descent along d
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: Any, t: Any, d: Any) -> Any:
                    return self._directional_evaluate(evaluate, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # Re-evaluate unless this is the last iteration.
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            # Stopping conditions.
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if xp.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = _to_state(d)
        state["t"] = _to_state(t)
        state["old_dirs"] = _to_state(old_dirs)
        state["old_stps"] = _to_state(old_stps)
        state["ro"] = _to_state(ro)
        state["H_diag"] = _to_state(H_diag)
        state["prev_flat_grad"] = _to_state(prev_flat_grad)
        state["prev_loss"] = prev_loss
        if al is not None:
            state["al"] = _to_state(al)
        return orig_loss
