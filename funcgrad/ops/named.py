"""`named`: the identity, recorded under a PyTorch `grad_fn` name.

PyTorch computes some `torch.nn.functional` functions with one kernel whose
backward has its own name (`F.layer_norm` gives `NativeLayerNormBackward0`,
`F.gelu` `GeluBackward0`); funcgrad composes them from primitives, so the
last primitive of the composition would name the result (`AddBackward0`).
In the Tensor world, `funcgrad.nn.functional` passes such a composition's
output through `named`, whose node carries PyTorch's name: `grad_fn` prints
it, and gradients pass through unchanged. Its `next_functions` list the
composition's last node, not PyTorch's inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from funcgrad.ops.registry import LINEAR, Names, Primitive, Sample, register


def _name_of(inputs: tuple[Any, ...], params: Mapping[str, Any]) -> str:
    """The `grad_fn` parameter (PyTorch's name of the composed function's backward)."""
    return str(params["grad_fn"])


named: Primitive = register(
    Primitive(
        name="named",
        params=("grad_fn",),
        forward=lambda xp, x, *, grad_fn: x,
        vjp=(lambda ct, out, x, *, grad_fn: ct,),
        jvp=LINEAR,
        sample=Sample(
            lambda g: ((g.array(g.shape(), -2.0, 2.0),), {"grad_fn": "GeluBackward0"}),
            complex=True,
        ),
        doc="x itself, its node's grad_fn named `grad_fn` (nn.functional's compositions)",
        names=Names(grad_fn=_name_of),
    )
)
