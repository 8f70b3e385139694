"""The `jax.nn`-style helpers of `funcgrad.nn` for the functional API.

Activations (`sigmoid`, `relu`, `softplus`) and numerically stable
`softmax`, `log_softmax` and `logsumexp`. Each works on arrays and on graph
nodes, like the functions of `funcgrad.numpy`.

The (log-)softmax functions and `logsumexp` shift by the maximum before
exponentiating, so inputs such as 1000 neither overflow nor lose precision.
A slice whose entries are all -inf (a fully masked row) gives `softmax`
zeros, `log_softmax` and `logsumexp` -inf, and a zero gradient, never NaN.
"""

from funcgrad.ops import elementwise as _ew
from funcgrad.ops import nn as _nn

__all__ = ["log_softmax", "logsumexp", "relu", "sigmoid", "softmax", "softplus"]


def sigmoid(x):
    """Return the logistic sigmoid `1 / (1 + exp(-x))`, elementwise.

    Stable for large `|x|` (no overflow warning).

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad.nn as fnn
        >>> fnn.sigmoid(np.array([0.0, 1000.0, -1000.0]))
        array([0.5, 1. , 0. ])
    """
    return _ew.sigmoid(x)


def relu(x):
    """Return the rectified linear unit `max(x, 0)`, elementwise.

    The gradient is 1 where `x > 0` and 0 elsewhere (0 at 0 too, as in
    PyTorch and JAX).

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.nn as fnn
        >>> fnn.relu(np.array([-1.0, 0.0, 2.0]))
        array([0., 0., 2.])
        >>> fg.grad(lambda x: fnn.relu(x).sum())(np.array([-1.0, 0.0, 2.0]))
        array([0., 0., 1.])
    """
    return _ew.relu(x)


def softplus(x):
    """Return `log(1 + exp(x))`, elementwise, stable for large `|x|`.

    Its gradient is `sigmoid(x)`.

    Args:
        x: An array, a number, or a graph node.

    Returns:
        An array, or a node if `x` is a node.

    Examples:
        >>> import numpy as np, funcgrad.nn as fnn
        >>> fnn.softplus(np.array([-1000.0, 0.0, 1.0]))
        array([0.        , 0.69314718, 1.31326169])
    """
    return _ew.softplus(x)


def softmax(x, axis=-1):
    """Return `exp(x) / sum(exp(x))` along `axis`, computed stably.

    Args:
        x: An array, a number, or a graph node.
        axis: The axis (an int, a tuple of ints, or None for all) along
            which the result sums to 1.

    Returns:
        An array shaped like `x`, or a node if `x` is a node. A slice that
        is all -inf gives zeros (and a zero gradient).

    Examples:
        >>> import numpy as np, funcgrad.nn as fnn
        >>> fnn.softmax(np.array([1000.0, 1000.0, -np.inf]))
        array([0.5, 0.5, 0. ])
        >>> fnn.softmax(np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf]]))
        array([[0.25, 0.75],
               [0.  , 0.  ]])
    """
    return _nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """Return `x - logsumexp(x, axis, keepdims=True)`, computed stably.

    Args:
        x: An array, a number, or a graph node.
        axis: The axis (an int, a tuple of ints, or None for all) to
            normalize along.

    Returns:
        An array shaped like `x`, or a node if `x` is a node. A slice that
        is all -inf stays -inf (with a zero gradient).

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.nn as fnn
        >>> fnn.log_softmax(np.array([1000.0, 1000.0]))
        array([-0.69314718, -0.69314718])
        >>> fg.grad(lambda x: fnn.log_softmax(x)[0])(np.array([0.0, 0.0]))
        array([ 0.5, -0.5])
    """
    return _nn.log_softmax(x, axis=axis)


def logsumexp(a, axis=None, keepdims=False):
    """Return `log(sum(exp(a)))` over the given axes, computed stably.

    The maximum is subtracted before exponentiating. The gradient is
    `softmax(a)` along the reduced axes; over a slice that is all -inf the
    result is -inf and the gradient 0.

    Args:
        a: An array, a number, or a graph node.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: If true, the reduced axes stay, with size 1.

    Returns:
        An array, or a node if `a` is a node.

    Examples:
        >>> import numpy as np, funcgrad as fg, funcgrad.nn as fnn
        >>> fnn.logsumexp(np.array([1000.0, 1000.0]))
        np.float64(1000.6931471805599)
        >>> fnn.logsumexp(np.array([[0.0, 0.0], [-np.inf, -np.inf]]), axis=1)
        array([0.69314718,       -inf])
        >>> fg.grad(fnn.logsumexp)(np.array([0.0, np.log(3.0)]))
        array([0.25, 0.75])
    """
    return _nn.logsumexp(a, axis=axis, keepdims=keepdims)
