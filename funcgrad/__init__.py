"""funcgrad: automatic differentiation for NumPy (and CuPy) arrays.

A functional core (an immutable expression graph walked by pure transforms
such as `grad` and `vjp`) under a PyTorch-style imperative layer. Import the
NumPy-like namespace as `import funcgrad.numpy as fnp`.
"""

from funcgrad import numpy, tree
from funcgrad.backend import freeze
from funcgrad.errors import (
    DtypeError,
    FuncgradError,
    NonScalarOutputError,
    NotDifferentiableError,
    OpError,
    ReadOnlyError,
    ShapeError,
    TreeStructureError,
)
from funcgrad.graph import Node, leaf, toposort
from funcgrad.transforms import (
    GradMap,
    backward,
    checkpoint,
    custom_jvp,
    custom_vjp,
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
    with_hooks,
)

__version__ = "0.1.0"

__all__ = [
    "DtypeError",
    "FuncgradError",
    "GradMap",
    "Node",
    "NonScalarOutputError",
    "NotDifferentiableError",
    "OpError",
    "ReadOnlyError",
    "ShapeError",
    "TreeStructureError",
    "backward",
    "checkpoint",
    "custom_jvp",
    "custom_vjp",
    "freeze",
    "grad",
    "hessian",
    "hvp",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "leaf",
    "linearize",
    "numpy",
    "toposort",
    "tree",
    "value_and_grad",
    "vjp",
    "with_hooks",
]
