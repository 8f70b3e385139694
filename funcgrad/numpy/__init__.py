"""A NumPy-compatible namespace over funcgrad's primitives (`import funcgrad.numpy as fnp`).

Functions here have NumPy's names and argument conventions. On plain arrays
they compute like NumPy; on graph nodes they return new nodes, so functional
code reads like NumPy code and can be differentiated. Imports `ops` only.

The functions that apply one primitive each are generated from the
primitive records (`_generated.py`, by `scripts/generate_surfaces.py`); the
others (compositions, other signatures) are written by hand.
"""

from funcgrad.numpy import linalg
from funcgrad.numpy._elementwise import *  # noqa: F403
from funcgrad.numpy._elementwise import __all__ as _elementwise_all
from funcgrad.numpy._generated import *  # noqa: F403
from funcgrad.numpy._generated import __all__ as _generated_all
from funcgrad.numpy._linalg import *  # noqa: F403
from funcgrad.numpy._linalg import __all__ as _linalg_all
from funcgrad.numpy._shape import *  # noqa: F403
from funcgrad.numpy._shape import __all__ as _shape_all

__all__ = ["linalg", *_generated_all, *_elementwise_all, *_linalg_all, *_shape_all]
