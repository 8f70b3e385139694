"""The pure transforms: functions in, functions (or new gradient maps) out.

`backward` walks a graph; `vjp`, `grad` and `value_and_grad` trace a
function into a graph and walk it. Imports `graph` and `ops` (and
`backend`); never the imperative layer.
"""

from funcgrad.transforms.backward import GradMap, backward
from funcgrad.transforms.vjp import grad, value_and_grad, vjp

__all__ = ["GradMap", "backward", "grad", "value_and_grad", "vjp"]
