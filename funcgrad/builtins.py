"""`funcgrad.builtins`: HIPS autograd's `autograd.builtins`, for porting autograd programs.

autograd wraps the values it traces in boxes, so it ships container types
that can be traced and an `isinstance`/`type` that look inside a box.
funcgrad's pytrees are Python's own tuples, lists and dicts, so `tuple`,
`list` and `dict` here are Python's; `isinstance` and `type` look through
a graph node to the value it holds, as autograd's look through a box.
"""

from __future__ import annotations

import builtins as _py
from typing import Any

from funcgrad.graph import Node

tuple = _py.tuple  # noqa: A001
list = _py.list  # noqa: A001
dict = _py.dict  # noqa: A001


def isinstance(obj: Any, classinfo: Any) -> bool:  # noqa: A001
    """Python's `isinstance`, of the value a graph node holds when `obj` is one (autograd's).

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> from funcgrad.builtins import isinstance
        >>> float(fg.grad(lambda x: x * 2.0 if isinstance(x, np.ndarray) else 0.0)(np.array(1.0)))
        2.0
    """
    return _py.isinstance(obj.value if _py.type(obj) is Node else obj, classinfo)


def type(obj: Any) -> Any:  # noqa: A001
    """Python's `type(obj)`, of the value a graph node holds when `obj` is one (autograd's).

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> from funcgrad.builtins import type
        >>> type(fg.leaf(np.ones(2)))
        <class 'numpy.ndarray'>
    """
    return _py.type(obj.value if _py.type(obj) is Node else obj)


__all__ = ["dict", "isinstance", "list", "tuple", "type"]
