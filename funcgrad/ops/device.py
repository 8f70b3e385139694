"""Moving a value between devices as a primitive, so gradients flow back across devices.

`to_device(x, device="cuda:0")` is the identity on values, except that the
result lives on `device`. Its VJP moves the cotangent back to the device
`x` came from, and its JVP moves the tangent along with the value, so a
graph may start on the CPU, compute on a GPU and end on the CPU again.
Both rules are `to_device` itself, so derivatives of any order cross
devices too.
"""

from __future__ import annotations

from types import ModuleType

from funcgrad.backend import device_of, parse_device
from funcgrad.backend import to_device as _move
from funcgrad.graph.node import Array
from funcgrad.ops._util import value_of
from funcgrad.ops.registry import LINEAR, Draw, Drawn, Names, Primitive, Sample, register


def _to_device_forward(xp: ModuleType, x: Array, *, device: str) -> Array:
    return _move(x, device, op="funcgrad.to_device")


def _to_device_vjp(ct: Array, out: Array, x: Array, *, device: str) -> Array:
    # back to where x lives (read off its value: "cuda" may have meant any GPU)
    return to_device(ct, device=device_of(value_of(x)))


def _to_device_sample(g: Draw) -> Drawn:
    # CPU to CPU, so that the generic tests cover the rules on any machine;
    # tests/gpu runs every primitive across devices.
    return (g.array(g.shape(), -3.0, 3.0),), {"device": "cpu"}


to_device = register(
    Primitive(
        name="to_device",
        forward=_to_device_forward,
        vjp=(_to_device_vjp,),
        jvp=LINEAR,  # the tangent moves with the value
        params=("device",),
        sample=Sample(_to_device_sample, complex=True),
        doc="x moved to device ('cpu', 'cuda', 'cuda:N'); the cotangent moves back",
        names=Names(grad_fn="ToCopyBackward0"),
    )
)


def move(x: Array, device: object) -> Array:
    """Return `x` (an array or a node) on `device`, as a `to_device` node when `x` is a node.

    The device name is checked here, before a node is made, so a typo fails
    with a clear message.

    Args:
        x: A value or a graph node.
        device: `"cpu"`, `"cuda"`, `"cuda:N"`, or anything whose `str()` is one.

    Returns:
        The moved value, or a new node.

    Raises:
        ValueError: If `device` is not a device name.
        funcgrad.backend.DeviceError: If CuPy or the GPU is missing.

    Examples:
        >>> import funcgrad as fg
        >>> x = fg.leaf([1.0, 2.0])
        >>> y = move(x, "cpu")
        >>> y.prim.name, fg.backward((y * y).sum())[x]
        ('to_device', array([2., 4.]))
    """
    kind, index = parse_device(device)
    name = kind if index is None else f"{kind}:{index}"
    return to_device(x, device=name)
