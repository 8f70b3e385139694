"""The primitives: one registry, each primitive's forward, VJP and JVP together.

Imports `graph` and `backend` only. Importing this package registers every
primitive (elementwise, reductions, shape, indexing, linear algebra, neural
network helpers, special functions, NumPy's other float ufuncs, Fourier transforms) and gives
`Node` its operators (`+`, `*`, `@`, `x[i]`, `x.sum()` ...), which apply primitives.
"""

# The order of these imports is the registration order (`registry.primitives()`, the docs'
# tables): the families first, then `to_device`, then the operators that use them all.
from funcgrad.ops import (
    elementwise,
    fft,
    index,
    linalg,
    nn,
    reduce,
    registry,
    shape,
    special,
    ufuncs,
)

# isort: split
from funcgrad.ops import eig  # noqa: F401  (the general eigendecomposition, over linalg)

# isort: split
from funcgrad.ops import cumulative, order, scatter  # the Tensor layer's API (issue #14)

# isort: split
from funcgrad.ops import conv, pooling  # noqa: F401  (the neural-network families, after those they use)

# isort: split
from funcgrad.ops import (
    loss,  # noqa: F401  (the losses of funcgrad.nn.functional, PyTorch's kernels)
    named,  # noqa: F401  (nn.functional's compositions under PyTorch's grad_fn names)
)

# isort: split
from funcgrad.ops import device  # noqa: F401  (registers to_device, after the families it uses)

# isort: split
from funcgrad.ops import operators as _operators  # noqa: F401  (attaches Node methods)
from funcgrad.ops.elementwise import astype, guard, identity
from funcgrad.ops.reduce import sum_
from funcgrad.ops.registry import ELEMENTWISE, LINEAR, Primitive, Sample, register
from funcgrad.ops.shape import broadcast_to, reshape

__all__ = [
    "ELEMENTWISE",
    "LINEAR",
    "Primitive",
    "Sample",
    "astype",
    "guard",
    "broadcast_to",
    "cumulative",
    "elementwise",
    "fft",
    "identity",
    "index",
    "linalg",
    "nn",
    "order",
    "reduce",
    "register",
    "registry",
    "reshape",
    "scatter",
    "shape",
    "special",
    "sum_",
    "ufuncs",
]
