"""`funcgrad.misc`: HIPS autograd's `autograd.misc` (`flatten`, `fixed_points`, the `optimizers` drivers) and its operators.

For porting autograd programs: `from funcgrad.misc import flatten`,
`from funcgrad.misc.flatten import flatten` and
`from funcgrad.misc.optimizers import adam`, `flatten_func` and
`from funcgrad.misc.fixed_points import fixed_point` behave as autograd's
(`funcgrad.misc.flatten` is a module that can be called as its function).
`differential_operators` holds autograd's operators that funcgrad's own
transforms do not already provide (`elementwise_grad`, `make_vjp`, ...); the
package `funcgrad` re-exports them, so `from autograd import ...` ports too.
Layer: training (it may import everything below it).
"""

from funcgrad.misc import differential_operators, fixed_points, flatten, optimizers

__all__ = ["differential_operators", "fixed_points", "flatten", "optimizers"]
