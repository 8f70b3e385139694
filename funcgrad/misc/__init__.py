"""`funcgrad.misc`: HIPS autograd's `autograd.misc` (`flatten` and the `optimizers` drivers).

For porting autograd programs: `from funcgrad.misc import flatten`,
`from funcgrad.misc.flatten import flatten` and
`from funcgrad.misc.optimizers import adam` behave as autograd's
(`funcgrad.misc.flatten` is a module that can be called as its function).
Layer: training (it may import everything below it).
"""

from funcgrad.misc import flatten, optimizers

__all__ = ["flatten", "optimizers"]
