"""A NumPy-compatible namespace over funcgrad's primitives (`import funcgrad.numpy as fnp`).

Functions here have NumPy's names and argument conventions. On plain arrays
they compute like NumPy; on graph nodes they return new nodes, so functional
code reads like NumPy code and can be differentiated. Imports `ops` only.

The functions that apply one primitive each are generated from the
primitive records (`_generated.py`, by `scripts/generate_surfaces.py`); the
others (compositions, other signatures) are written by hand. Dtypes and
constants are NumPy's own (`_constants.py`), creation functions build nodes
from lists of nodes (`_creation.py`), functions with a zero derivative read
the values of nodes (`_value_only.py`), the other compositions are in
`_compose.py`, and `random` draws from funcgrad's
generators. A name of `jax.numpy` or `autograd.numpy` not provided yet
raises `funcgrad.errors.NotProvidedError` (`_scope.py` lists them).
"""

from funcgrad.errors import NotProvidedError as _NotProvidedError
from funcgrad.numpy import _scope, fft, linalg, random
from funcgrad.numpy._compose import *  # noqa: F403
from funcgrad.numpy._compose import __all__ as _compose_all
from funcgrad.numpy._constants import *  # noqa: F403
from funcgrad.numpy._constants import __all__ as _constants_all
from funcgrad.numpy._creation import *  # noqa: F403
from funcgrad.numpy._creation import __all__ as _creation_all
from funcgrad.numpy._elementwise import *  # noqa: F403
from funcgrad.numpy._elementwise import __all__ as _elementwise_all
from funcgrad.numpy._functional import *  # noqa: F403
from funcgrad.numpy._functional import __all__ as _functional_all
from funcgrad.numpy._generated import *  # noqa: F403
from funcgrad.numpy._generated import __all__ as _generated_all
from funcgrad.numpy._linalg import *  # noqa: F403
from funcgrad.numpy._linalg import __all__ as _linalg_all
from funcgrad.numpy._misc import *  # noqa: F403
from funcgrad.numpy._misc import __all__ as _misc_all
from funcgrad.numpy._polynomial import *  # noqa: F403
from funcgrad.numpy._polynomial import __all__ as _polynomial_all
from funcgrad.numpy._polynomial_linalg import *  # noqa: F403
from funcgrad.numpy._polynomial_linalg import __all__ as _polynomial_linalg_all
from funcgrad.numpy._reductions import *  # noqa: F403
from funcgrad.numpy._reductions import __all__ as _reductions_all
from funcgrad.numpy._shape import *  # noqa: F403
from funcgrad.numpy._shape import __all__ as _shape_all
from funcgrad.numpy._statistics import *  # noqa: F403
from funcgrad.numpy._statistics import __all__ as _statistics_all
from funcgrad.numpy._value_only import *  # noqa: F403
from funcgrad.numpy._value_only import __all__ as _value_only_all
from funcgrad.numpy._windows import *  # noqa: F403
from funcgrad.numpy._windows import __all__ as _windows_all

__all__ = [
    "fft",
    "linalg",
    "random",
    *_generated_all,
    *_reductions_all,
    *_elementwise_all,
    *_linalg_all,
    *_shape_all,
    *_constants_all,
    *_creation_all,
    *_value_only_all,
    *_compose_all,
    *_statistics_all,
    *_functional_all,
    *_misc_all,
    *_polynomial_all,
    *_polynomial_linalg_all,
    *_windows_all,
]


def __getattr__(name: str) -> object:
    """Raise `NotProvidedError` for a name of NumPy's API not provided yet, else `AttributeError`."""
    if name in _scope.NOT_PROVIDED_REASONS:
        error = _NotProvidedError(
            f"funcgrad.numpy.{name} is not provided, by design: {_scope.NOT_PROVIDED_REASONS[name]}"
        )
        error.name, error.obj = name, __name__
        raise error
    if name in _scope.NOT_PROVIDED:
        error = _NotProvidedError(
            f"funcgrad.numpy.{name} is not provided yet: it is a name of jax.numpy or "
            f"autograd.numpy, which issue #13 asks funcgrad.numpy to have. Compute it with the "
            f"functions funcgrad.numpy has (on plain values, node.value, if no gradient is "
            f"needed), or give it a rule with funcgrad.custom_vjp"
        )
        error.name, error.obj = name, __name__
        raise error
    raise AttributeError(f"module 'funcgrad.numpy' has no attribute {name!r}")
