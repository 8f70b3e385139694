"""funcgrad.autograd.detect_anomaly: NaN in a backward pass, traced back to the forward line."""

import gc
import inspect
import threading

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp
from funcgrad.autograd import anomaly
from funcgrad.ops import observe
from funcgrad.ops.registry import Primitive

pytestmark = pytest.mark.filterwarnings(
    "ignore:Anomaly Detection has been enabled",
    "ignore:invalid value encountered",
    "ignore:divide by zero encountered",
)


def _assert_nothing_patched():
    # The methods are the registry's own, and no thread observes any more.
    for name in ("__call__", "bind"):
        method = Primitive.__dict__[name]
        assert method.__module__ == "funcgrad.ops.registry"
        assert method.__qualname__ == f"Primitive.{name}"
    assert observe.active == 0
    assert observe.current() == ()


def _next_line() -> int:
    """The number of the line after the caller's line."""
    return inspect.currentframe().f_back.f_lineno + 1


def test_nan_raises_naming_the_op_and_the_forward_line():
    x = torch.tensor([4.0, -1.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        line = _next_line()
        y = torch.sqrt(x)
        z = (y * 2.0).sum()
        with pytest.raises(RuntimeError) as info:
            z.backward()
    message = str(info.value)
    assert message.startswith("Function 'SqrtBackward0' returned nan values in its 0th output.")
    assert "Traceback of forward call that caused the error:" in message
    assert (
        f'File "{__file__}", line {line}, in test_nan_raises_naming_the_op_and_the_forward_line'
        in message
    )
    assert "y = torch.sqrt(x)" in message
    assert "funcgrad/" not in message.replace(__file__, "")  # only the user's frames
    assert x.grad is None  # the failed pass accumulated nothing


def test_without_anomaly_mode_nan_gradients_propagate_silently():
    x = torch.tensor([4.0, -1.0], dtype=torch.float64, requires_grad=True)
    torch.sqrt(x).sum().backward()
    g = x.grad.numpy()
    assert g[0] == pytest.approx(0.25)  # d sqrt(x)/dx = 1 / (2 sqrt(x))
    assert np.isnan(g[1])


def test_the_index_names_the_input_whose_gradient_is_nan():
    a = torch.sqrt(torch.tensor([-1.0, 4.0]))  # a constant holding a NaN
    b = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = a * b  # the cotangent of b (input 1) is ct * a
        with pytest.raises(
            RuntimeError,
            match=r"^Function 'MulBackward0' returned nan values in its 1th output",
        ):
            y.sum().backward()


def test_entering_warns_like_pytorch():
    with pytest.warns(
        UserWarning, match="Anomaly Detection has been enabled. This mode will increase the runtime"
    ):
        with torch.autograd.detect_anomaly():
            pass


def test_decorator_form():
    @torch.autograd.detect_anomaly()
    def run(x):
        assert anomaly.is_anomaly_enabled()
        torch.sqrt(x).sum().backward()

    x = torch.tensor([-1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="SqrtBackward0"):
        run(x)
    assert not anomaly.is_anomaly_enabled()
    _assert_nothing_patched()


def test_state_is_restored_on_exit_nesting_and_exceptions():
    mode = anomaly._local.mode
    with torch.autograd.detect_anomaly():
        assert observe.current() == (mode,)  # this thread's mode observes; nothing patched
        assert Primitive.__dict__["bind"].__qualname__ == "Primitive.bind"
        with torch.autograd.detect_anomaly():
            assert observe.current() == (mode,)
            torch.ones(2, requires_grad=True) * 2.0
        assert anomaly.is_anomaly_enabled()  # the inner block restored "on"
        assert mode.stacks
    _assert_nothing_patched()
    assert not mode.stacks and not mode.by_value
    with pytest.raises(KeyError):
        with torch.autograd.detect_anomaly():
            raise KeyError("boom")
    assert not anomaly.is_anomaly_enabled()
    _assert_nothing_patched()


def test_set_detect_anomaly_as_function_and_context_manager():
    torch.autograd.set_detect_anomaly(True)
    try:
        assert anomaly.is_anomaly_enabled()
        assert observe.active == 1
        with torch.autograd.set_detect_anomaly(False):
            assert not anomaly.is_anomaly_enabled()
            assert observe.active == 0
        assert anomaly.is_anomaly_enabled()
    finally:
        torch.autograd.set_detect_anomaly(False)
    _assert_nothing_patched()


def test_check_nan_false_lets_nan_through():
    x = torch.tensor([-1.0], requires_grad=True)
    with torch.autograd.detect_anomaly(check_nan=False):
        assert not anomaly.is_anomaly_check_nan_enabled()
        torch.sqrt(x).backward(torch.ones(1))
    assert np.isnan(x.grad.item())
    assert anomaly.is_anomaly_check_nan_enabled()


def test_infinite_gradients_raise_only_when_asked():
    x = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    with torch.autograd.detect_anomaly():
        torch.sqrt(x).backward(torch.ones(1, dtype=torch.float64))  # inf, as in PyTorch
    assert np.isinf(x.grad.item())
    x.grad = None
    with torch.autograd.detect_anomaly(check_inf=True):
        y = torch.sqrt(x)
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned inf values"):
            y.backward(torch.ones(1, dtype=torch.float64))


def test_graph_built_before_anomaly_mode_has_no_forward_trace():
    x = torch.tensor([-1.0], requires_grad=True)
    y = torch.sqrt(x)
    with torch.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="No forward pass information available"):
            y.backward(torch.ones(1))


def test_tensor_hooks_keep_the_forward_trace():
    # A hook on `a` makes the walk rebuild the nodes after it (sqrt among them).
    x = torch.tensor([-1.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        a = x * 1.0
        a.register_hook(lambda g: g)
        line = _next_line()
        y = torch.sqrt(a)
        with pytest.raises(RuntimeError) as info:
            y.backward(torch.ones(1))
    assert "'SqrtBackward0' returned nan" in str(info.value)
    assert f"line {line}" in str(info.value)


def test_functional_core_is_checked_too():
    with torch.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="SqrtBackward0") as info:
            torch.grad(lambda v: fnp.sum(fnp.sqrt(v)))(np.array([4.0, -1.0]))
    assert "fnp.sum(fnp.sqrt(v))" in str(info.value)


def test_finite_gradients_are_unchanged_in_anomaly_mode():
    x = torch.tensor([0.3, -1.2, 2.5], dtype=torch.float64, requires_grad=True)
    with torch.autograd.detect_anomaly():
        (torch.sin(x) * x).sum().backward()
    v = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(v) * v + np.sin(v), rtol=1e-12)


def test_forgotten_graphs_are_pruned_from_the_side_table():
    with torch.autograd.detect_anomaly():
        kept = torch.ones(2, requires_grad=True) * 3.0
        for _ in range(50):
            y = torch.ones(2, requires_grad=True) * 2.0
            del y
        gc.collect()
        mode = anomaly._local.mode
        anomaly._prune(mode)
        assert id(kept._node) in mode.stacks
        assert len(mode.stacks) == 1


def test_anomaly_mode_in_one_thread_does_not_make_another_raise():
    on = threading.Event()
    done = threading.Event()
    seen = {}

    def other():
        on.wait(10)  # runs while the main thread has anomaly mode on
        try:
            seen["enabled"] = anomaly.is_anomaly_enabled()
            x = torch.tensor([4.0, -1.0], dtype=torch.float64, requires_grad=True)
            torch.sqrt(x).sum().backward()  # NaN gradient: silent here
            seen["grad"] = x.grad.numpy()
            seen["functional"] = torch.grad(lambda v: fnp.sum(fnp.sqrt(v)))(np.array([-1.0]))
        except BaseException as e:  # pragma: no cover - the failure being tested
            seen["error"] = e
        finally:
            done.set()

    t = threading.Thread(target=other)
    t.start()
    with torch.autograd.detect_anomaly():
        on.set()
        assert done.wait(10)
        # Still on here, and still raising here.
        x = torch.tensor([-1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            torch.sqrt(x).backward(torch.ones(1))
    t.join()
    assert "error" not in seen, seen.get("error")
    assert seen["enabled"] is False
    assert seen["grad"][0] == pytest.approx(0.25) and np.isnan(seen["grad"][1])
    assert np.isnan(seen["functional"][0])
    _assert_nothing_patched()


def test_another_threads_anomaly_mode_records_nothing_here():
    ready = threading.Event()
    release = threading.Event()

    def other():
        with torch.autograd.set_detect_anomaly(True):
            ready.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    try:
        assert ready.wait(10)
        assert observe.active == 1 and observe.current() == ()
        y = torch.sqrt(torch.tensor([-1.0], requires_grad=True))
        y.backward(torch.ones(1))  # no raise: the mode is the other thread's
    finally:
        release.set()
        t.join()
    _assert_nothing_patched()


def test_backward_gives_the_same_gradients_inside_and_outside_anomaly_mode():
    x = fg.leaf(np.array([0.3, -1.2, 2.5]))
    w = fg.leaf(np.array([1.5, 0.5, -2.0]))
    y = fnp.sum(fnp.tanh(x * w) ** 2 + fnp.exp(x) / (1.0 + w**2))
    outside = fg.backward(y)
    outside_2 = fg.backward(y, create_graph=True)
    with torch.autograd.detect_anomaly():
        inside = fg.backward(y)
        inside_2 = fg.backward(y, create_graph=True)
    after = fg.backward(y)
    for node in (x, w):
        np.testing.assert_array_equal(inside[node], outside[node])
        np.testing.assert_array_equal(after[node], outside[node])
        np.testing.assert_array_equal(inside_2[node].value, outside_2[node].value)
    _assert_nothing_patched()
