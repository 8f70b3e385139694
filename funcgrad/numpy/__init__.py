"""A NumPy-compatible namespace over funcgrad's primitives (`import funcgrad.numpy as fnp`).

Functions here have NumPy's names and argument conventions. On plain arrays
they compute like NumPy; on graph nodes they return new nodes, so functional
code reads like NumPy code and can be differentiated. Imports `ops` only.
"""

from funcgrad.numpy import linalg
from funcgrad.numpy._elementwise import *  # noqa: F403
from funcgrad.numpy._elementwise import __all__ as _elementwise_all
from funcgrad.numpy._linalg import *  # noqa: F403
from funcgrad.numpy._linalg import __all__ as _linalg_all
from funcgrad.numpy._reduce import *  # noqa: F403
from funcgrad.numpy._reduce import __all__ as _reduce_all
from funcgrad.numpy._shape import *  # noqa: F403
from funcgrad.numpy._shape import __all__ as _shape_all

__all__ = ["linalg", *_elementwise_all, *_linalg_all, *_reduce_all, *_shape_all]
