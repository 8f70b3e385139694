"""`funcgrad.random` is PyTorch's `torch.random`: seeding and saving the default generators.

The functions are those of `funcgrad` itself (`funcgrad.manual_seed` is
`funcgrad.random.manual_seed`); see `funcgrad.tensors.random`, where they
live. Layer: imperative (it imports the Tensor layer only).
"""

from funcgrad.tensors.missing import module_getattr as _module_getattr
from funcgrad.tensors.random import (
    Generator,
    default_generator,
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "thread_safe_generator",
]


def thread_safe_generator() -> Generator | None:
    """Return the generator of the DataLoader thread worker this runs in, or None.

    funcgrad's data loaders run no thread workers, so this is always None:
    random functions given `generator=None` draw from the default generators.

    Examples:
        >>> import funcgrad as torch
        >>> torch.random.thread_safe_generator() is None
        True
    """
    return None


__getattr__ = _module_getattr("torch.random", "funcgrad.random")
