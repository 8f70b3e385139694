"""`funcgrad.numpy.linalg`: NumPy's `linalg` functions over funcgrad's primitives."""

__all__: list[str] = []
