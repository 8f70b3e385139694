"""A SciPy-compatible namespace over funcgrad's primitives (`import funcgrad.scipy.special as fsp`).

`funcgrad.scipy.special`, `funcgrad.scipy.stats` and `funcgrad.scipy.signal` have SciPy's names and
call signatures; on graph nodes they return nodes, so they can be
differentiated (like `jax.scipy` and `autograd.scipy`). The forwards call
SciPy on plain arrays, so SciPy is an optional dependency:
`pip install funcgrad[scipy]`. Imports `ops`, `transforms` and `numpy`.
"""

try:
    import scipy.special as _scipy_special  # noqa: F401
except ImportError as _e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "funcgrad.scipy needs SciPy, which is not installed: pip install funcgrad[scipy]"
    ) from _e

from funcgrad.scipy import integrate, linalg, signal, special, stats

__all__ = ["integrate", "linalg", "signal", "special", "stats"]
