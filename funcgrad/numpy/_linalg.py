"""Products of `funcgrad.numpy` (matmul, dot, einsum, outer ...)."""

__all__: list[str] = []
