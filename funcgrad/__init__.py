"""funcgrad: automatic differentiation for NumPy (and CuPy) arrays.

A functional core (an immutable expression graph walked by pure transforms
such as `grad` and `vjp`) under a PyTorch-style imperative layer. Import the
NumPy-like namespace as `import funcgrad.numpy as fnp`.
"""

from funcgrad import (
    autograd,
    backends,
    builtins,
    cuda,
    distributions,
    extend,
    func,
    misc,
    nn,
    numpy,
    optim,
    optimizers,
    profiler,
    random,
    serialization,
    test_util,
    tree,
    utils,
)
from funcgrad.backend import freeze
from funcgrad.errors import (
    ArgumentTypeError,
    AxisError,
    BatchingError,
    DeviceError,
    DtypeError,
    FuncgradError,
    IndexingError,
    InPlaceError,
    NonScalarOutputError,
    NotDifferentiableError,
    NotProvidedError,
    OpError,
    ReadOnlyError,
    ShapeError,
    TreeStructureError,
)
from funcgrad.extend import primitive
from funcgrad.graph import Node, leaf, to_dot, to_mermaid, toposort
from funcgrad.misc.differential_operators import *  # noqa: F403  (HIPS autograd's operators)
from funcgrad.misc.differential_operators import __all__ as _operators_all
from funcgrad.serialization import load, save
from funcgrad.tensors import *  # noqa: F403  (the imperative layer, PyTorch's names)
from funcgrad.tensors import __all__ as _tensor_all
from funcgrad.tensors import fft, linalg, return_types, special  # torch.fft, torch.linalg ...
from funcgrad.tensors._generated import *  # noqa: F403  (PyTorch's names, from the records)
from funcgrad.tensors._generated import __all__ as _generated_all
from funcgrad.tensors.creation import (
    get_default_device,
    set_default_device,
    set_default_tensor_type,
)
from funcgrad.tensors.dtypes import (
    bool,  # noqa: A004
    complex64,
    complex128,
    double,
    float,  # noqa: A004
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,  # noqa: A004
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from funcgrad.tensors.functions import *  # noqa: F403
from funcgrad.tensors.functions import __all__ as _functions_all
from funcgrad.tensors.missing import module_getattr as _module_getattr
from funcgrad.tensors.settings import *  # noqa: F403  (PyTorch's process-wide switches)
from funcgrad.tensors.settings import __all__ as _settings_all
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
from funcgrad.transforms.batching import vmap
from funcgrad.transforms.checking import check_grads
from funcgrad.transforms.jit import jit, make_graph

# isort: split
from funcgrad._compile import compile  # noqa: A004  (torch.compile)

__version__ = "0.1.0"

__all__ = [
    *_tensor_all,
    "compile",
    "jit",
    "make_graph",
    *_generated_all,
    *_functions_all,
    *_settings_all,
    *_operators_all,
    "backends",
    "builtins",
    "cuda",
    "distributions",
    "func",
    "profiler",
    "load",
    "save",
    "serialization",
    "test_util",
    "get_default_device",
    "set_default_device",
    "set_default_tensor_type",
    "autograd",
    "fft",
    "linalg",
    "nn",
    "return_types",
    "special",
    "misc",
    "optim",
    "optimizers",
    "utils",
    "random",
    "bool",
    "complex64",
    "complex128",
    "double",
    "float",
    "float16",
    "float32",
    "float64",
    "get_default_dtype",
    "half",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "long",
    "set_default_dtype",
    "short",
    "uint8",
    "ArgumentTypeError",
    "AxisError",
    "BatchingError",
    "DeviceError",
    "DtypeError",
    "FuncgradError",
    "GradMap",
    "InPlaceError",
    "IndexingError",
    "Node",
    "NonScalarOutputError",
    "NotDifferentiableError",
    "NotProvidedError",
    "OpError",
    "ReadOnlyError",
    "ShapeError",
    "TreeStructureError",
    "backward",
    "check_grads",
    "checkpoint",
    "custom_jvp",
    "custom_vjp",
    "extend",
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
    "primitive",
    "numpy",
    "to_dot",
    "to_mermaid",
    "toposort",
    "tree",
    "value_and_grad",
    "vjp",
    "vmap",
    "with_hooks",
]

# A name of PyTorch's torch namespace that funcgrad lacks raises NotProvidedError (#14).
__getattr__ = _module_getattr("torch", "funcgrad")

# NOTE: last, over every name above: the view functions (`transpose`, `reshape` ...) record
# their results as views sharing writes, each the same object as its Tensor method (#14).
from funcgrad.tensors.views import install_functions as _install_views  # noqa: E402

_install_views(globals())
del _install_views
