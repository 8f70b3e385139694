"""The error for a torch name funcgrad does not provide: `NotProvidedError`, an `AttributeError`.

PyTorch code meets a name funcgrad lacks when it looks it up: `torch.foo`,
`tensor.foo`, `torch.cuda.foo`. For a name of PyTorch's API (the scope of
`_torch_names.py`, read from PyTorch by `scripts/torch_scope.py`), the error
says that funcgrad does not provide it, yet or by design, and why; any other
name gets Python's own `AttributeError`. Both are `AttributeError`s, so
`hasattr` answers False and `getattr(obj, name, default)` works.

A namespace opts in with `__getattr__ = module_getattr("torch.cuda", __name__)`
(a module), or by calling `missing` from its `__getattr__` (a class).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from funcgrad.errors import NotProvidedError
from funcgrad.tensors._torch_names import BY_DESIGN, SCOPE, TORCH_VERSION


def is_torch_name(namespace: str, name: str) -> bool:
    """Return whether `name` is a public name of PyTorch's `namespace` (`'torch.cuda'` ...).

    Examples:
        >>> is_torch_name("torch", "compile"), is_torch_name("torch", "no_such_name")
        (True, False)
    """
    return name in SCOPE.get(namespace, ())


def missing(namespace: str, name: str, where: str, what: str | None = None) -> AttributeError:
    """Return the error for `name` looked up on `where`, funcgrad's place of PyTorch's `namespace`.

    Args:
        namespace: PyTorch's namespace (`'torch'`, `'torch.Tensor'`, `'torch.cuda'` ...).
        name: The name looked up.
        where: funcgrad's spelling of the namespace (`'funcgrad'`, `'funcgrad.Tensor'`).
        what: The `AttributeError` message for a name outside PyTorch's API
            (Python's module message by default).

    Examples:
        >>> str(missing("torch", "bfloat16", "funcgrad")).split(":")[0]
        'funcgrad.bfloat16 is not provided, by design'
    """
    if name in SCOPE.get(namespace, ()):
        reason = BY_DESIGN.get(namespace, {}).get(name)
        if reason is not None:
            text = f"{where}.{name} is not provided, by design: {reason}"
        else:
            text = (
                f"{where}.{name} is not provided yet: it is {namespace}.{name} of PyTorch "
                f"{TORCH_VERSION}, which funcgrad does not have yet (docs/api/torch-names.md "
                f"lists what it provides)"
            )
        error: AttributeError = NotProvidedError(text)
    else:
        error = AttributeError(what or f"module {where!r} has no attribute {name!r}")
    error.name, error.obj = name, where
    return error


def module_getattr(namespace: str, module: str) -> Callable[[str], Any]:
    """Return a module `__getattr__` that raises `missing`'s error for every name it is asked.

    Examples:
        >>> getattr_ = module_getattr("torch.cuda", "funcgrad.cuda")
        >>> try:
        ...     getattr_("amp")
        ... except AttributeError as e:
        ...     print(type(e).__name__)
        NotProvidedError
    """

    def __getattr__(name: str) -> Any:
        raise missing(namespace, name, module)

    return __getattr__
