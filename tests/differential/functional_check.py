"""The comparisons of the functional differential tests, shared by the autograd and FD tests.

An example's function `f(*args) = call(m, *args)` may return an array or a
tuple of arrays. Derivatives are taken of the scalar objective
`L(*args) = sum_k sum(out_k * w_k)` with random fixed weights `w_k`
(`objective`), and of `f` itself (`jvp`, `jacobian`).

`agree` compares two results entry by entry: equal NaNs, equal infinities,
and finite entries within `tol * (|expected| + max|expected| + 1)`.
`fd_jacobian` is the central-difference oracle in float64.
"""

from __future__ import annotations

import numpy as np

from funcgrad.graph import Node

FD_EPS = 1e-6
# tolerances: values against NumPy; derivatives against autograd (float64 there);
# derivatives against central differences.
VALUE_TOL = {np.dtype(np.float64): 1e-11, np.dtype(np.float32): 2e-6}
DERIVATIVE_TOL = {np.dtype(np.float64): 1e-8, np.dtype(np.float32): 2e-3}
# Second order in float32 loses more: std's Hessian on a near-constant slice is O(eps / std).
SECOND_ORDER_TOL = {np.dtype(np.float64): 1e-8, np.dtype(np.float32): 2e-2}
FD_TOL = 1e-5


class Namespace:
    """`autograd.numpy` (or another namespace) with some names replaced.

    Args:
        module: The namespace.
        overrides: Dotted name -> function, used instead of `module`'s.
    """

    def __init__(self, module, overrides, prefix=""):
        self._module = module
        self._overrides = overrides
        self._prefix = prefix

    def __getattr__(self, name):
        full = self._prefix + name
        if full in self._overrides:
            return self._overrides[full]
        value = getattr(self._module, name)
        if name == "linalg":
            return Namespace(value, self._overrides, "linalg.")
        return value


def outputs(result) -> list:
    """Return the arrays of a result (an array, a node, or nested tuples and lists of them)."""
    if isinstance(result, (tuple, list)) or type(result).__name__ == "SequenceBox":
        return [o for r in result for o in outputs(r)]
    return [result]


def plain(x):
    """Return the array of a node, or `x` as an array."""
    return np.asarray(x.value if type(x) is Node else x)


def upcast(args) -> tuple:
    """Return the arguments in float64."""
    return tuple(np.asarray(a, dtype=np.float64) for a in args)


def weights(rng, result, dtype) -> list:
    """Return one random weight array of `dtype` per output array of `result`."""
    return [
        np.asarray(rng.uniform(-1.0, 1.0, size=np.shape(o)), dtype=dtype) for o in outputs(result)
    ]


def objective(m, call, ws):
    """Return `L(*args) = sum_k sum(out_k * w_k)` over the outputs of `call(m, *args)`."""

    def L(*args):
        total = 0.0
        for out, w in zip(outputs(call(m, *args)), ws, strict=True):
            total = total + m.sum(out * w)
        return total

    return L


def agree(actual, expected, tol, what, allow_nan=False):
    """Assert `actual` agrees with `expected` (see the module docstring).

    Args:
        allow_nan: Accept any `actual` where `expected` is NaN (an allowed
            difference: the NaN guard gives a number where the reference
            gives NaN).
    """
    actual = plain(actual)
    expected = plain(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    e_nan, a_nan = np.isnan(e), np.isnan(a)
    bad = a_nan & ~e_nan
    if not allow_nan:
        bad |= e_nan & ~a_nan
    inf = (np.isinf(e) | np.isinf(a)) & ~a_nan & ~e_nan
    bad |= inf & (a != e)
    finite = np.isfinite(e) & np.isfinite(a)
    scale = float(np.max(np.abs(e[finite]), initial=0.0)) + 1.0
    err = np.where(finite, np.abs(a - e), 0.0)
    bad |= finite & (err > tol * (np.abs(e) + scale))
    if np.any(bad):
        where = np.argwhere(bad)[0] if bad.ndim else ()
        where = tuple(int(i) for i in where)
        raise AssertionError(
            f"{what}: at {where} funcgrad {a[where]!r}, reference {e[where]!r} "
            f"({int(np.sum(bad))} of {bad.size} entries differ, tol {tol:g})\n"
            f"funcgrad:\n{a!r}\nreference:\n{e!r}"
        )


def fd_jacobian(f, args, eps=FD_EPS) -> list:
    """Return, per argument, the Jacobian of `f`'s flattened outputs by central differences.

    Each is an array of shape `(n_out, *arg.shape)`, in float64.
    """

    def flat(*xs):
        outs = [np.ravel(plain(o)).astype(np.float64) for o in outputs(f(*xs))]
        return np.concatenate(outs) if outs else np.zeros(0)

    args = upcast(args)
    n_out = flat(*args).size
    jacobians = []
    for i, x in enumerate(args):
        jac = np.zeros((n_out, x.size))
        for j in range(x.size):
            step = np.zeros(x.size)
            step[j] = eps
            step = step.reshape(x.shape)
            plus = flat(*args[:i], x + step, *args[i + 1 :])
            minus = flat(*args[:i], x - step, *args[i + 1 :])
            jac[:, j] = (plus - minus) / (2 * eps)
        jacobians.append(jac.reshape((n_out, *x.shape)))
    return jacobians


def flat_weights(ws) -> np.ndarray:
    """Return the weights concatenated, matching `fd_jacobian`'s flattened outputs."""
    parts = [np.ravel(w).astype(np.float64) for w in ws]
    return np.concatenate(parts) if parts else np.zeros(0)
