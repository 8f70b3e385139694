"""`autograd.Variable`: PyTorch 0.3's wrapper, with 0.3's printing and `volatile`.

A `Variable` is a `Tensor` that prints as 0.3 printed it
(`Variable containing:` ... `[funcgrad.FloatTensor of size 1]`); its
`.data` is a `LegacyTensor`, printed without the header. Results of
operations on Variables, and their gradients, are Variables too. A result
that depends on a volatile Variable is volatile: it does not require grad,
and calling `.backward()` on it raises, as in 0.3.
"""

from __future__ import annotations

from funcgrad.tensors.dtypes import default_float_dtype
from funcgrad.tensors.tensor_class import Tensor, _init, _to_array


class Variable(Tensor):
    """Wrap a tensor for differentiation, the PyTorch 0.3 way.

    Args:
        data: A tensor (or array-like) with the values.
        requires_grad: Record operations for differentiation.
        volatile: Inference mode for everything computed from it (0.3's
            `volatile`): results never require grad.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd import Variable
        >>> a = Variable(torch.Tensor([1]), requires_grad=True)
        >>> b = Variable(torch.Tensor([2]), requires_grad=True)
        >>> (a + b).backward()
        >>> a.grad
        Variable containing:
        1
        [funcgrad.FloatTensor of size 1]
        <BLANKLINE>
    """

    __slots__ = ()
    _legacy_print = True

    def __init__(self, data=None, requires_grad: bool = False, volatile: bool = False):
        value = _to_array(data if data is not None else [], default_float_dtype())
        _init(self, value)
        if requires_grad and not volatile:
            self.requires_grad_(True)
        self._volatile = bool(volatile)

    @property
    def volatile(self) -> bool:
        """Whether this Variable (or one it was computed from) is volatile."""
        return self._volatile


class LegacyTensor(Tensor):
    """What `Variable.data` is: 0.3's plain tensor, printed the 0.3 way without a header.

    Examples:
        >>> import funcgrad as torch
        >>> from funcgrad.autograd import Variable
        >>> Variable(torch.Tensor([1]), requires_grad=True).data
        1
        [funcgrad.FloatTensor of size 1]
        <BLANKLINE>
    """

    __slots__ = ()
    _legacy_print = "tensor"


Variable._data_class = LegacyTensor
