"""`funcgrad.test_util`: where JAX (`jax.test_util`) and autograd (`autograd.test_util`) keep `check_grads`.

One function serves both spellings: `check_grads(f, args, order=2)` (JAX's)
and `check_grads(f, modes=["rev"], order=2)(*args)` (autograd's curried
form). It is `funcgrad.check_grads`.
"""

from funcgrad.transforms.checking import check_grads

__all__ = ["check_grads"]
