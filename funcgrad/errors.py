"""The exceptions funcgrad raises, one class per kind of mistake.

Every message names the funcgrad operation, the shapes, dtypes or values
involved and what to do instead, and ends with a pointer to the matching
section of the Errors page of the documentation site (`DOCS_URL`).
"""

from __future__ import annotations

import numpy as _np

# The documentation site (mkdocs.yml's site_url): every error links to its section there.
DOCS_URL = "https://funcgrad.readthedocs.io/en/latest/"


def _with_link(message: str, cls: type) -> str:
    return f"{message}\n(see {DOCS_URL}errors/#{cls.__name__.lower()})"


class FuncgradError(Exception):
    """Base class of every error funcgrad raises on purpose.

    Catch this to handle any funcgrad mistake at once; each subclass below
    says when it happens and how to fix it.
    """

    def __init__(self, message: str):
        super().__init__(_with_link(message, type(self)))


class OpError(FuncgradError, ValueError, RuntimeError):
    """An operation was given arguments it cannot work with.

    Raised when a primitive's forward fails on its inputs, for example shapes
    that do not broadcast, a matmul whose inner dimensions differ or an axis
    out of range. The message names the operation and the shapes and dtypes
    of its arguments (`funcgrad.add(float64[2], float64[3])`), says what is
    wrong and, for the common cases, how to fix the call; NumPy's own
    exception is kept as the cause (`__cause__`).

    It is a `ValueError` (what NumPy raises for such arguments) and a
    `RuntimeError` (what PyTorch raises), so code written for either
    catches it.

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> fnp.add(np.ones(2), np.ones(3))
        Traceback (most recent call last):
        ...
        funcgrad.errors.OpError: funcgrad.add(float64[2], float64[3]): the shapes (2,) and (3,) do not broadcast. ...
    """


class AxisError(OpError, IndexError):
    """A dimension (axis) is out of range for the array or tensor it names.

    Raised by every operation that takes a `dim` or `axis`: reductions,
    `squeeze`, `unsqueeze`, `transpose`, `flatten`, `size(dim)` ... The
    message names the operation and the valid range, as PyTorch's does
    (`Dimension out of range (expected to be in range of [-1, 0], but got
    5)`). A 0-d value accepts the dims -1 and 0, as in PyTorch. It is an
    `IndexError` (what PyTorch raises) and a `ValueError` (an `OpError`,
    like NumPy's own `AxisError`), so either `except` clause catches it.

    Fix: use a dim in the range the message gives (negative dims count
    from the end).

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2).squeeze(5)
        Traceback (most recent call last):
        ...
        funcgrad.errors.AxisError: funcgrad.squeeze: axis 5 is out of range for an array of 1 dimension(s): ...
    """


class LinAlgError(OpError, _np.linalg.LinAlgError):
    """A linear-algebra operation failed on its matrix: singular, not positive definite, no convergence.

    Raised where NumPy or SciPy raise `numpy.linalg.LinAlgError` (`inv` of
    a singular matrix, `cholesky` of a matrix that is not positive
    definite, an SVD that does not converge) and where funcgrad refuses a
    matrix with inf or NaN entries on which LAPACK would not return. It is
    NumPy's `LinAlgError` (so `except funcgrad.numpy.linalg.LinAlgError`,
    `except numpy.linalg.LinAlgError` and `except scipy.linalg.LinAlgError`
    catch it, as they do in code written for autograd or JAX), and a
    `RuntimeError`, as PyTorch's `torch.linalg.LinAlgError` is.

    Fix: check the matrix (its condition number, `funcgrad.numpy.linalg.cond`),
    regularize it (add a multiple of the identity), or use a solver for its
    structure (`lstsq` or `pinv` for a singular one).

    Examples:
        >>> import numpy as np, funcgrad.numpy as fnp
        >>> try:
        ...     fnp.linalg.inv(np.zeros((2, 2)))
        ... except fnp.linalg.LinAlgError as e:
        ...     print(type(e).__name__, str(e).splitlines()[0])
        LinAlgError funcgrad.inv(float64[2, 2]): failed: Singular matrix
    """


class IndexingError(OpError, IndexError):
    """An index does not fit the value it indexes (`x[index]` on a node or tensor).

    Raised for an integer index out of range, more indices than dimensions,
    or a boolean mask whose shape does not match. The message names the
    operation, the value's shape and the index. It is an `IndexError`, as
    NumPy and PyTorch raise, so `except IndexError` works, and so does
    Python's old iteration protocol (`__getitem__` until `IndexError`).

    Fix: index within the shape the message gives (negative indices count
    from the end); iterate with `for row in x`, which stops by itself.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> fg.leaf(np.ones(2))[5]
        Traceback (most recent call last):
        ...
        funcgrad.errors.IndexingError: funcgrad.getitem(float64[2], index=(5,)): index 5 is out of bounds for axis 0 with size 2 ...
    """


class InPlaceError(OpError, RuntimeError):
    """An in-place operation would change the shape or the dtype of its tensor.

    In-place operations keep the tensor's shape and dtype, as in PyTorch:
    the result of `t.add_(other)` must have `t`'s shape (`other` may
    broadcast to it, not the other way round), and its dtype is cast to
    `t`'s only where PyTorch allows it (no float to integer, no complex to
    real, nothing but bool to bool). It is a `funcgrad.OpError` and, as in
    PyTorch, a `RuntimeError`.

    Fix: use the out-of-place operation (`t = t + other`), or convert first
    (`t = t.float()`; `other.expand_as(t)`).

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(1, 2).add_(torch.ones(2, 2))
        Traceback (most recent call last):
        ...
        funcgrad.errors.InPlaceError: funcgrad.Tensor.add_: output with shape [1, 2] doesn't match the broadcast shape [2, 2]...
    """


class NonScalarOutputError(FuncgradError, ValueError):
    """A gradient of a non-scalar output was asked for without a cotangent.

    `grad`, `value_and_grad` and `backward` without a cotangent need a
    scalar (shape `()`) output; the message names the output's shape.

    Fix: reduce the output first (`out.sum()`), pass a cotangent of the
    output's shape (`backward(out, cotangent)`, `vjp`), or use `jacobian`.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> fg.grad(lambda x: x * 2.0)(np.ones(2))
        Traceback (most recent call last):
        ...
        funcgrad.errors.NonScalarOutputError: funcgrad.grad: f must return a scalar, but returned shape (2,) ...
    """


class DtypeError(FuncgradError, TypeError):
    """A value has a dtype that cannot be differentiated.

    Gradients exist only for floating-point values (float16, float32,
    float64). funcgrad raises this for an integer or boolean argument that
    `grad`, `vjp` or `jvp` is asked to differentiate, and for an integer
    `leaf`, rather than returning zeros (or JAX's `float0`): a silently
    zero gradient for `3` instead of `3.0` is a bug that is hard to find.
    Integer arguments that are not differentiated (not in `argnums`) are fine.

    Fix: convert the input with `x.astype(float)` or pass `3.0` instead of `3`.

    Examples:
        >>> import funcgrad as fg
        >>> fg.grad(lambda x: x * x)(3)
        Traceback (most recent call last):
        ...
        funcgrad.errors.DtypeError: funcgrad.grad: argument 0 has dtype int64 (shape ()); ...
    """


class NotImplementedDtypeError(DtypeError, NotImplementedError):
    """A draw of floating-point numbers asked for an integer or bool dtype.

    Raised by `funcgrad.randn`, `rand`, `randn_like`, `rand_like`,
    `Tensor.normal_`, `uniform_` and the other draws of real numbers given an
    integer or bool `dtype` (or tensor). PyTorch raises `NotImplementedError`
    there (its kernel, e.g. `"normal_kernel_cpu"`, has no version for the
    dtype), so this is both that and funcgrad's `DtypeError`; the message
    gives PyTorch's words, the dtype and the fix.

    Fix: draw in a float dtype (`dtype=funcgrad.float32`) and convert, or use
    `funcgrad.randint` for integers.

    Examples:
        >>> import funcgrad
        >>> funcgrad.randn(2, dtype=funcgrad.int64)
        Traceback (most recent call last):
        ...
        funcgrad.errors.NotImplementedDtypeError: funcgrad.randn: "normal_kernel_cpu" not implemented for 'Long' ...
    """


class ArgumentTypeError(FuncgradError, TypeError):
    """An argument has a type the operation does not take.

    For example a float where a size or a dim must be an integer
    (`funcgrad.ones(2.5)`, `x.sum(1.0)`), or tensor data that is not
    numbers (`funcgrad.tensor("abc")`). Integers may be Python ints, NumPy
    integers or 0-d integer tensors, as in PyTorch. It is a `TypeError`,
    what PyTorch raises.

    Fix: pass the type the message names (`int(n)` for a size or a dim,
    numbers for tensor data).

    Examples:
        >>> import funcgrad as torch
        >>> torch.ones(2.5)
        Traceback (most recent call last):
        ...
        funcgrad.errors.ArgumentTypeError: funcgrad.ones: size must be an integer, got float 2.5 ...
    """


class ShapeError(FuncgradError, ValueError):
    """A cotangent, tangent, hook or custom rule has the wrong shape, dtype or count.

    Raised for a cotangent or tangent whose shape is not its output's or
    primal's, a hook that returns another shape or dtype than the gradient
    it replaces, and a `custom_vjp` rule or `autograd.Function.backward`
    that returns the wrong number of cotangents or a wrong shape. The
    message names the function and both shapes.

    Fix: return (or pass) an array of the expected shape and dtype, one per
    input, `None` for inputs that get no gradient.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> fg.backward(fg.leaf(np.ones(2)) * 2.0, np.ones(3))
        Traceback (most recent call last):
        ...
        funcgrad.errors.ShapeError: funcgrad.backward: the cotangent has shape (3,), but the output has shape (2,); ...
    """


class TreeStructureError(FuncgradError, ValueError):
    """Two pytrees that must have the same structure do not.

    The message names the path at which the two structures first differ
    and what is there in each (a tuple of 2 versus a list of 2, a dict with
    other keys ...).

    Fix: build the second tree like the first (same containers, same keys).

    Examples:
        >>> import funcgrad as fg
        >>> fg.tree.tree_map(lambda a, b: a + b, {"w": 1.0}, {"v": 1.0})
        Traceback (most recent call last):
        ...
        funcgrad.errors.TreeStructureError: funcgrad.tree.tree_map: the first and second trees differ at the root: ...
    """


class BatchingError(FuncgradError, ValueError, RuntimeError):
    """A function under `funcgrad.vmap` did what has no meaning for a batch, or vmap was misused.

    Raised for Python control flow or a conversion on a batched value inside
    the vmapped function (`if x.sum() > 0:`, `bool(x)`, `int(x)`, `float(x)`,
    `x.item()`), where each example may want another branch; for mapped
    arguments whose sizes differ along their axes (the message names each
    argument, its axis and size); for an `out_axes` of `None` on an output
    that depends on the mapped axis, or an axis out of range for an output;
    and for random draws under `randomness="error"`. As PyTorch's and JAX's
    vmap, the message names the argument, the axis or the line.

    Fix: compute both branches and choose with `funcgrad.numpy.where`
    (`fnp.where(x.sum() > 0, a, b)`); give arguments of one batch size (or
    `None` in `in_axes` for those that are not batched); draw random numbers
    outside or pass `randomness="different"` or `"same"`.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> def f(x):
        ...     if x.sum() > 0:
        ...         return x
        ...     return -x
        >>> fg.vmap(f)(np.ones((3, 2)))
        Traceback (most recent call last):
        ...
        funcgrad.errors.BatchingError: funcgrad.vmap: bool() of a batched value (the truth of a comparison, an `if` or `while` on it) ...
    """


class ReadOnlyError(FuncgradError, ValueError):
    """Code tried to change a value that a graph holds.

    Values held by graph nodes are read-only so that a gradient can never
    use a changed value. On NumPy arrays the read-only flag does the
    checking, so a write raises NumPy's own
    `ValueError: assignment destination is read-only` (this class is a
    `ValueError` too); `ReadOnlyError` itself is reserved for arrays with no
    such flag (CuPy, where a version counter catches the write).

    Fix: copy the array first (`arr.copy()`), or for a tensor use an
    in-place tensor operation (`x.data.fill_(0)`), which rebinds the tensor
    to a new value and leaves recorded graphs untouched.

    Examples:
        >>> import numpy as np, funcgrad as fg
        >>> x = fg.leaf(np.ones(2))
        >>> x.value[0] = 5.0
        Traceback (most recent call last):
        ...
        ValueError: assignment destination is read-only
    """


class NotDifferentiableError(FuncgradError, NotImplementedError):
    """A gradient was asked of an operation that has no rule for it there.

    For example the gradient of `logabsdet` (from `linalg.slogdet`) at an
    exactly singular matrix, where it is `inv(x)^T`, which does not exist,
    or reverse mode through a `custom_jvp` whose JVP rule is written with
    raw NumPy. The message names the operation and the argument.

    Fix: keep the argument where the derivative exists, or wrap the
    computation in `funcgrad.custom_vjp` and give the rule.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
        >>> fg.grad(lambda a: fnp.linalg.slogdet(a).logabsdet)(np.zeros((2, 2)))
        Traceback (most recent call last):
        ...
        funcgrad.errors.NotDifferentiableError: funcgrad.logabsdet: no gradient at a singular matrix ...
    """


class DeviceError(FuncgradError, RuntimeError):
    """Values on two devices met in one operation, or a device is not available.

    Raised when an operation gets arguments on different devices (a NumPy
    array and a CuPy array, or CuPy arrays on two GPUs), and when a CUDA
    device is asked for but CuPy is not installed, no GPU is visible to it,
    or the GPU index is out of range.

    Fix: move the values to one device first (`funcgrad.backend.to_device`,
    `Tensor.to`), or install CuPy for your CUDA version
    (`pip install -e ".[gpu]"`, see the README).
    """


class UnavailableTypeError(DeviceError, TypeError):
    """A CUDA tensor type was used where CuPy or a GPU is missing.

    Raised by `funcgrad.cuda.FloatTensor(...)` (and the other CUDA types) and by
    `funcgrad.set_default_tensor_type('torch.cuda.FloatTensor')` without a GPU.
    It is a DeviceError and, as PyTorch's "type torch.cuda.FloatTensor not
    available", a TypeError. Also reachable as `funcgrad.cuda.UnavailableTypeError`.

    Fix: run on a machine with a GPU and CuPy, or use the CPU types
    (`funcgrad.FloatTensor`, `funcgrad.set_default_dtype`).

    Examples:
        >>> import funcgrad
        >>> issubclass(funcgrad.cuda.UnavailableTypeError, TypeError)
        True
    """


class NotProvidedError(FuncgradError, AttributeError):
    """A name of NumPy's or PyTorch's API that funcgrad does not provide was looked up.

    `funcgrad.numpy` aims at every name of `jax.numpy` and of `autograd.numpy`
    (issue #13), and the Tensor layer at PyTorch's names (`funcgrad`, a
    tensor's attributes, `funcgrad.cuda`, `funcgrad.autograd` ..., issue #14);
    the ones missing (not yet, or by design, as `bfloat16` and mixed-precision
    `autocast`) raise this error, naming the name and why, instead of a bare
    `AttributeError`. It is an `AttributeError`, so `hasattr(fnp, name)` is
    `False` and `getattr(fnp, name, default)` works. Names outside those
    scopes raise a plain `AttributeError`.

    Fix: compute the missing function with the functions `funcgrad.numpy`
    has (on plain values, `node.value`, if the result needs no gradient), or
    give it a rule with `funcgrad.custom_vjp`.

    Examples:
        >>> import funcgrad.numpy as fnp
        >>> hasattr(fnp, "bfloat16")
        False
        >>> fnp.bfloat16
        Traceback (most recent call last):
        ...
        funcgrad.errors.NotProvidedError: funcgrad.numpy.bfloat16 is not provided, by design: ...
    """
