"""`funcgrad.misc.optimizers` with NumPy-scalar hyperparameters: HIPS autograd 1.9.1's numbers.

autograd's drivers compute with NumPy, so there NumPy's promotion (NEP 50) of
an np.float64 or np.float32 step size, mass, gamma, betas or eps with the
float16/float32/float64 flat vector IS the reference: each driver, with each
hyperparameter type and parameter dtype, must give autograd's iterates, the
points and gradients its callback sees and its result, dtypes and bits.
"""

from __future__ import annotations

import numpy as np
import pytest

from funcgrad.misc import optimizers as fopt
from tests.references import requires

autograd = requires("autograd")
from autograd.misc import optimizers as agopt  # noqa: E402

OPTIONS = {
    "sgd": {"step_size": 0.1, "mass": 0.9},
    "rmsprop": {"step_size": 0.1, "gamma": 0.9, "eps": 1e-8},
    "adam": {"step_size": 0.01, "b1": 0.9, "b2": 0.999, "eps": 1e-8},
}
TYPES = {"float": float, "np.float64": np.float64, "np.float32": np.float32}


def _run(module, name, kwargs, dtype):
    x0 = {
        "a": np.linspace(-1, 1, 6).astype(dtype).reshape(2, 3),
        "b": [np.array([0.5, 2.0], dtype)],
    }
    shift = np.asarray(0.3, dtype)

    def grad(x, i):
        return {"a": x["a"] * 2 - shift, "b": [x["b"][0] * 3 + i]}

    seen = []

    def callback(x, i, g):
        seen.extend(np.asarray(v) for v in (x["a"], x["b"][0], g["a"], g["b"][0]))

    out = getattr(module, name)(grad, x0, callback, num_iters=6, **kwargs)
    return [*seen, np.asarray(out["a"]), np.asarray(out["b"][0])]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("kind", list(TYPES))
@pytest.mark.parametrize("name", list(OPTIONS))
def test_matches_autograd(name, kind, dtype):
    kwargs = {k: TYPES[kind](v) for k, v in OPTIONS[name].items()}
    ours = _run(fopt, name, kwargs, dtype)
    theirs = _run(agopt, name, kwargs, dtype)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
        assert np.array_equal(a, b), (a, b)
