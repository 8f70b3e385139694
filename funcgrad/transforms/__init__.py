"""The pure transforms: functions in, functions (or new gradient maps) out.

`backward` walks a graph; `vjp`, `grad` and `value_and_grad` trace a
function into a graph and walk it backwards; `jvp` and `linearize` push
tangents forwards; Jacobians and Hessians compose the two. Imports `graph`
and `ops` (and `backend`); never the imperative layer.
"""

# The order of these imports is the registration order (`registry.primitives()`, the docs'
# tables): hook_scope (by reverse), then checkpoint_call, then custom_vjp_call and custom_jvp_call.
from funcgrad.transforms.reverse import GradMap, backward

# isort: split
from funcgrad.transforms.remat import checkpoint

# isort: split
from funcgrad.transforms.custom import custom_jvp, custom_vjp
from funcgrad.transforms.forward import jvp, linearize
from funcgrad.transforms.gradients import grad, value_and_grad, vjp
from funcgrad.transforms.hooks import with_hooks
from funcgrad.transforms.jacobians import hessian, hvp, jacfwd, jacobian, jacrev

__all__ = [
    "GradMap",
    "backward",
    "checkpoint",
    "custom_jvp",
    "custom_vjp",
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linearize",
    "value_and_grad",
    "vjp",
    "with_hooks",
]
