"""Grad mode: whether operations on tensors are recorded (thread-local).

`no_grad`, `enable_grad`, `set_grad_enabled` and `inference_mode` work as
context managers and as decorators, as in PyTorch. Each thread has its own
mode, so one thread's `no_grad` never affects another's.
"""

from __future__ import annotations

import functools
import threading

_state = threading.local()


def is_grad_enabled() -> bool:
    """Return whether tensor operations are being recorded in this thread.

    Examples:
        >>> import funcgrad as torch
        >>> torch.is_grad_enabled()
        True
        >>> with torch.no_grad():
        ...     torch.is_grad_enabled()
        False
    """
    return getattr(_state, "enabled", True)


def is_inference_mode_enabled() -> bool:
    """Return whether `inference_mode` is active in this thread."""
    return getattr(_state, "inference", False)


def _saved() -> list:
    """This thread's stack of modes saved by the `with` blocks now open."""
    stack = getattr(_state, "saved", None)
    if stack is None:
        stack = _state.saved = []
    return stack


class _Mode:
    """Base of the grad-mode context managers; also usable as a decorator.

    The mode to restore on exit is pushed on a per-thread stack (not kept on
    the instance), so one instance can be nested, reused, shared between
    threads, or decorate a recursive function.
    """

    _enabled: bool = True
    _inference: bool | None = None

    def __enter__(self):
        _saved().append((is_grad_enabled(), is_inference_mode_enabled()))
        _state.enabled = self._enabled
        if self._inference is not None:
            _state.inference = self._inference
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.inference = _saved().pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_Mode):
    """Context manager (or decorator) that stops recording operations.

    Results computed inside have `requires_grad=False`, which saves memory
    in evaluation and is how the classic manual update `w -= lr * w.grad`
    is written.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    _enabled = False


class enable_grad(_Mode):
    """Context manager (or decorator) that turns recording back on inside `no_grad`.

    Examples:
        >>> import funcgrad as torch
        >>> x = torch.ones(1, requires_grad=True)
        >>> with torch.no_grad():
        ...     with torch.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    _enabled = True


class set_grad_enabled(_Mode):
    """Context manager (or decorator, or plain call) that sets grad mode to `mode`.

    Examples:
        >>> import funcgrad as torch
        >>> with torch.set_grad_enabled(False):
        ...     torch.is_grad_enabled()
        False
    """

    def __init__(self, mode: bool):
        self._enabled = bool(mode)
        self._prev = (is_grad_enabled(), is_inference_mode_enabled())
        _state.enabled = self._enabled  # effective at once when called plainly

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        return False

    def __call__(self, fn):
        mode = self._enabled
        _state.enabled, _state.inference = self._prev  # undo the eager switch

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper


class inference_mode(_Mode):
    """Like `no_grad`, for inference: nothing is recorded inside.

    Args:
        mode: If false, this is a no-op (as in PyTorch).

    Examples:
        >>> import funcgrad as torch
        >>> with torch.inference_mode():
        ...     torch.ones(1, requires_grad=True).mul(2).requires_grad
        False
    """

    def __init__(self, mode: bool = True):
        self._mode = bool(mode)

    def __enter__(self):
        _saved().append((is_grad_enabled(), is_inference_mode_enabled()))
        if self._mode:
            _state.enabled = False
            _state.inference = True
        return self
