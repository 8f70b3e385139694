"""Neural-network helpers (`funcgrad.nn`), named as in `jax.nn`.

Activations and numerically stable (log-)softmax and logsumexp.
"""

__all__: list[str] = []
