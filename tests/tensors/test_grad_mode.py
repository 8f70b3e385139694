"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`."""

from __future__ import annotations

import threading

import pytest

import funcgrad as torch


def recorded() -> bool:
    return (torch.ones(1, requires_grad=True) * 2).requires_grad


def test_no_grad_context_manager():
    assert torch.is_grad_enabled() and recorded()
    with torch.no_grad():
        assert not torch.is_grad_enabled() and not recorded()
    assert torch.is_grad_enabled() and recorded()


def test_no_grad_decorator_and_function_metadata():
    @torch.no_grad()
    def double(x):
        """Double x."""
        return x * 2

    x = torch.ones(1, requires_grad=True)
    assert not double(x).requires_grad
    assert double.__name__ == "double" and double.__doc__ == "Double x."
    assert (x * 2).requires_grad  # only inside the decorated function


def test_enable_grad_inside_no_grad():
    x = torch.ones(1, requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad

    @torch.enable_grad()
    def f(t):
        return t * 2

    with torch.no_grad():
        assert f(x).requires_grad


def test_set_grad_enabled_as_context_decorator_and_call():
    with torch.set_grad_enabled(False):
        assert not recorded()
    assert recorded()
    with torch.no_grad():
        with torch.set_grad_enabled(True):
            assert recorded()

    @torch.set_grad_enabled(False)
    def f():
        return recorded()

    assert torch.is_grad_enabled()  # decorating does not switch the mode
    assert f() is False
    assert torch.is_grad_enabled()
    try:
        torch.set_grad_enabled(False)  # a plain call switches at once
        assert not recorded()
    finally:
        torch.set_grad_enabled(True)
    assert recorded()


def test_inference_mode():
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not recorded()
    assert not torch.is_inference_mode_enabled() and recorded()
    with torch.inference_mode(False):
        assert recorded() and not torch.is_inference_mode_enabled()

    @torch.inference_mode()
    def f():
        return recorded(), torch.is_inference_mode_enabled()

    assert f() == (False, True)


def test_modes_are_restored_after_an_exception():
    with pytest.raises(ZeroDivisionError):
        with torch.no_grad():
            _ = 1 / 0
    assert torch.is_grad_enabled()
    with pytest.raises(ZeroDivisionError):
        with torch.inference_mode():
            _ = 1 / 0
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_nested_no_grad_and_one_instance_reused():
    guard = torch.no_grad()
    with guard:
        with guard:
            assert not torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_decorated_function_is_reentrant():
    @torch.no_grad()
    def f(n):
        if n:
            return f(n - 1)
        return torch.is_grad_enabled()

    assert f(3) is False and torch.is_grad_enabled()


def test_grad_mode_is_thread_local():
    inside = threading.Event()
    checked = threading.Event()
    seen = {}

    def other_thread():
        inside.wait(5)
        seen["enabled"] = torch.is_grad_enabled()
        seen["recorded"] = recorded()
        checked.set()

    def no_grad_thread():
        with torch.no_grad():
            seen["no_grad thread"] = recorded()
            inside.set()
            checked.wait(5)

    threads = [threading.Thread(target=other_thread), threading.Thread(target=no_grad_thread)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"no_grad thread": False, "enabled": True, "recorded": True}


def test_a_new_thread_starts_with_grad_enabled_even_under_no_grad():
    result = {}
    with torch.no_grad():
        t = threading.Thread(target=lambda: result.update(r=recorded()))
        t.start()
        t.join()
        assert not recorded()
    assert result == {"r": True}


def test_no_grad_results_are_not_recorded_but_have_values():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * 3
    assert y.tolist() == [3.0, 6.0] and y.grad_fn is None and y.is_leaf
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()
