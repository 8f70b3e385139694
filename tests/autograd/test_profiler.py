"""funcgrad.autograd.profiler: what is recorded, how it prints, and that it leaves nothing behind."""

import importlib.util
import inspect
import json
import threading
import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad as torch
import funcgrad.numpy as fnp
from funcgrad.autograd import Variable, profiler
from funcgrad.ops import observe
from funcgrad.ops.registry import Primitive
from tests.references import requires


def _assert_nothing_patched():
    # The methods are the registry's own, and no thread observes any more.
    for name in ("__call__", "bind"):
        method = Primitive.__dict__[name]
        assert method.__module__ == "funcgrad.ops.registry"
        assert method.__qualname__ == f"Primitive.{name}"
    assert observe.active == 0
    assert observe.current() == ()


def _counts(prof, **kw):
    return {row.key: row.count for row in prof.key_averages(**kw)}


def test_seed_example_runs_with_only_the_import_changed(capsys):
    # From seeds/000_*: `import torch` replaced by `import funcgrad as torch`.
    x = Variable(torch.randn(1, 1), requires_grad=True)
    with torch.autograd.profiler.profile() as prof:
        y = x**2
        y.backward()
    print(prof)
    out = capsys.readouterr().out
    assert "Name" in out and "CPU total" in out and "CUDA total" in out
    assert "power" in out and "PowBackward0" in out
    assert "Self CPU time total:" in out
    # The gradient is still right: d(x^2)/dx = 2x.
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)


def test_loop_of_multiplies_counts_forward_and_backward():
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with profiler.profile() as prof:
        y = x
        for _ in range(10):
            y = y * 2.0
        y.sum().backward()
    counts = _counts(prof)
    assert counts["multiply"] == 10
    assert counts["MulBackward0"] == 10
    assert counts["sum"] == 1 and counts["SumBackward0"] == 1
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, 1024.0))
    table = prof.key_averages().table(sort_by="count", row_limit=2)
    rows = [line.split() for line in table.splitlines()]
    named = {r[0]: r[-1] for r in rows if r and r[0] in ("multiply", "MulBackward0")}
    assert named == {"multiply": "10", "MulBackward0": "10"}


def test_events_are_in_order_with_categories_and_backward_names():
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with profiler.profile() as prof:
        torch.sin(x).sum().backward()
    events = prof.events()
    assert [e.name for e in events if e.category == "forward"] == ["sin", "sum"]
    # Primitives run by VJP rules belong to the backward pass, under their node.
    for e in events:
        if e.category == "forward":
            assert e.cpu_parent is None
        elif e.cpu_parent is not None:
            assert e.cpu_parent.category == "backward"
    assert [e.name for e in events if e.name.endswith("Backward0")] == [
        "SumBackward0",
        "SinBackward0",
    ]
    assert list(events) == list(prof.function_events)
    # grad_fn names and profiler names come from the same rule.
    assert torch.sin(x).grad_fn.name() == "SinBackward0"
    for e in events:
        assert e.cpu_time_total > 0
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total


def test_primitives_run_by_a_vjp_rule_are_children_of_the_backward_event():
    x = torch.tensor([3.0], requires_grad=True)
    with profiler.profile() as prof:
        (x**3).backward(torch.ones(1))  # x ** 3: its rule computes x ** 2 (x ** 2's takes y * x)
    events = prof.events()
    backward = next(e for e in events if e.name == "PowBackward0")
    nested = [e for e in events if e.cpu_parent is backward]
    assert [(e.name, e.category) for e in nested] == [("power", "backward")]
    child = nested[0]
    assert child.cpu_time_total <= backward.cpu_time_total
    assert backward.self_cpu_time_total == pytest.approx(
        backward.cpu_time_total - child.cpu_time_total
    )
    row = {r.key: r for r in prof.key_averages()}["power"]
    assert row.count == 2  # the forward power and the one in the VJP rule, as in PyTorch


def test_table_sorting_and_limits():
    x = torch.ones(4, requires_grad=True)
    with profiler.profile() as prof:
        y = x
        for _ in range(3):
            y = torch.exp(y * 0.1)
        y.sum().backward()
    averages = prof.key_averages()
    for key in (
        "cpu_time_total",
        "self_cpu_time_total",
        "count",
        "cpu_time",
        "cuda_time_total",
        "self_cuda_time_total",
    ):
        table = averages.table(sort_by=key, row_limit=100)
        values = [
            getattr(r, key) for r in sorted(averages, key=lambda r: getattr(r, key), reverse=True)
        ]
        assert table.count("\n") >= len(values) + 5
        assert values == sorted(values, reverse=True)
    first_row = averages.table(sort_by="count", row_limit=1).splitlines()[3].split()
    assert first_row[-1] == "3"  # exp, multiply: 3 calls each
    assert len(averages.table(row_limit=1).splitlines()) == 6
    with pytest.raises(ValueError, match="cpu_time_total"):
        averages.table(sort_by="nonsense")
    total = prof.total_average()
    assert total.count == len(prof.events())
    assert total.self_cpu_time_total == pytest.approx(prof.self_cpu_time_total)


def test_long_names_are_truncated_in_the_table():
    with profiler.profile() as prof:
        with profiler.record_function("a" * 80):
            pass
    line = prof.table(max_name_column_width=20).splitlines()[3]
    assert line.split()[0] == "a" * 17 + "..."


def test_record_shapes_and_group_by_input_shape():
    with profiler.profile(record_shapes=True) as prof:
        a = torch.ones(3, requires_grad=True)
        b = torch.ones(2, 2, requires_grad=True)
        (a * 2.0).sum().backward()
        (b * 2.0).sum().backward()
    shapes = {
        (r.key, str(r.input_shapes)): r.count for r in prof.key_averages(group_by_input_shape=True)
    }
    assert shapes[("multiply", "[[3], []]")] == 1
    assert shapes[("multiply", "[[2, 2], []]")] == 1
    assert _counts(prof)["multiply"] == 2
    table = prof.key_averages(group_by_input_shape=True).table()
    assert "Input Shapes" in table and "[[2, 2], []]" in table


def test_chrome_trace_is_valid_trace_event_json(tmp_path):
    x = torch.ones(3, requires_grad=True)
    with profiler.profile(record_shapes=True) as prof:
        with profiler.record_function("step"):
            (x * x).sum().backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(prof.events())
    for e in complete:
        assert set(e) >= {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"}
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        assert isinstance(e["dur"], (int, float)) and e["dur"] > 0
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
    cats = {e["name"]: e["cat"] for e in complete}
    assert cats["multiply"] == "forward" and cats["MulBackward0"] == "backward"
    assert cats["step"] == "user_annotation"
    assert next(e for e in complete if e["name"] == "multiply")["args"]["Input Shapes"] == [
        [3],
        [3],
    ]
    # Complete events nest: every op lies inside the "step" range.
    step = next(e for e in complete if e["name"] == "step")
    for e in complete:
        assert step["ts"] <= e["ts"] and e["ts"] + e["dur"] <= step["ts"] + step["dur"] + 1e-3
    meta = [e for e in events if e["ph"] == "M"]
    assert meta and all(e["name"] == "thread_name" for e in meta)


def test_record_function_as_decorator_and_outside_a_profile():
    @profiler.record_function("loss_fn")
    def loss(t):
        return (t * t).sum()

    x = torch.ones(2, requires_grad=True)
    assert loss(x).item() == 2.0  # no profile: nothing recorded, nothing breaks
    with profiler.profile() as prof:
        loss(x)
    events = prof.events()
    assert [e.name for e in events] == ["loss_fn", "multiply", "sum"]
    assert all(e.cpu_parent is events[0] for e in events[1:])
    assert events[0].self_cpu_time_total <= events[0].cpu_time_total


def test_a_profile_observes_this_thread_and_patches_nothing():
    _assert_nothing_patched()
    with profiler.profile():
        # One observer (the thread's profiling state), registered for this thread.
        assert observe.active == 1
        (state,) = observe.current()
        assert state is profiler._local.state
        assert Primitive.__dict__["__call__"].__qualname__ == "Primitive.__call__"
    _assert_nothing_patched()


def test_nested_profiles_and_out_of_order_exits_restore_state():
    x = torch.ones(2, requires_grad=True)
    with profiler.profile() as outer:
        x * 1.0
        with profiler.profile() as inner:
            x * 2.0
            assert len(observe.current()) == 1  # one observer, however many profiles
        x * 3.0
    _assert_nothing_patched()
    assert _counts(outer)["multiply"] == 3
    assert _counts(inner)["multiply"] == 1

    a, b = profiler.profile(), profiler.profile()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert observe.active == 1
    x * 4.0
    b.__exit__(None, None, None)
    _assert_nothing_patched()
    assert _counts(b)["multiply"] == 1 and a.events() == []


def test_exception_inside_the_block_restores_state():
    with pytest.raises(ZeroDivisionError):
        with profiler.profile():
            torch.ones(2, requires_grad=True) * 2.0
            raise ZeroDivisionError("in the block")
    _assert_nothing_patched()


def test_a_failing_backward_leaves_no_open_event_behind():
    x = torch.tensor([-1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profiler.profile() as prof:
            with torch.autograd.detect_anomaly():
                y = torch.sqrt(x) * 2.0
                with pytest.raises(RuntimeError, match="SqrtBackward0"):
                    y.backward(torch.ones(1))
            z = x * 3.0  # after the failed walk: a top-level op again
    events = prof.events()
    failed = next(e for e in events if e.name == "SqrtBackward0")
    assert failed.unfinished
    last = events[-1]
    assert last.name == "multiply" and last.cpu_parent is None
    assert z.item() == -3.0


def test_only_the_profiling_thread_is_recorded():
    x = torch.ones(2, requires_grad=True)
    done = threading.Event()

    def other():
        for _ in range(5):
            x * 5.0
        done.set()

    with profiler.profile() as prof:
        t = threading.Thread(target=other)
        t.start()
        t.join()
        x * 1.0
    assert done.is_set()
    assert _counts(prof)["multiply"] == 1
    assert {e.thread for e in prof.events()} == {threading.get_ident()}


def test_disabled_profile_records_and_observes_nothing():
    with profiler.profile(enabled=False) as prof:
        assert observe.active == 0
        torch.ones(2, requires_grad=True) * 2.0
    assert prof.events() == []
    _assert_nothing_patched()


def test_results_need_a_finished_profile():
    with profiler.profile() as prof:
        assert str(prof) == "<unfinished funcgrad.autograd.profile>"
        with pytest.raises(RuntimeError, match="did not finish"):
            prof.key_averages()
    with pytest.raises(RuntimeError, match="not reentrant"):
        with prof:
            pass


def test_functional_api_is_profiled_too():
    with profiler.profile() as prof:
        g = torch.grad(lambda v: fnp.sum(fnp.tanh(v)))(np.array([0.1, 0.2]))
    counts = _counts(prof)
    assert counts["tanh"] >= 1 and counts["TanhBackward0"] == 1
    np.testing.assert_allclose(g, 1 - np.tanh([0.1, 0.2]) ** 2)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
def test_emit_nvtx_without_cupy_warns_once_and_runs():
    profiler._nvtx_warned = False
    x = torch.ones(2, requires_grad=True)
    with pytest.warns(RuntimeWarning, match="CuPy"):
        with profiler.emit_nvtx():
            assert observe.active == 0  # nothing to emit to: nothing observed
            (x * x).sum().backward()
    _assert_nothing_patched()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with profiler.emit_nvtx():
            x * 1.0
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_a_profile_records_nothing_of_a_thread_running_at_the_same_time():
    xa = torch.ones(3, dtype=torch.float64, requires_grad=True)
    xb = torch.ones(3, dtype=torch.float64, requires_grad=True)
    a_open = threading.Event()
    b_done = threading.Event()
    seen = {}

    def thread_b():
        a_open.wait(10)
        y = xb
        for _ in range(20):
            y = torch.exp(y * 0.1)
        y.sum().backward()
        with profiler.profile() as prof_b:  # open while A's is open too
            torch.tanh(xb).sum().backward()
        seen["prof_b"] = prof_b
        seen["thread"] = threading.get_ident()
        b_done.set()

    t = threading.Thread(target=thread_b)
    with profiler.profile() as prof_a:
        t.start()
        a_open.set()
        steps = 0
        while not b_done.is_set() or steps < 5:  # A computes all the while
            torch.sin(xa).sum().backward()
            steps += 1
    t.join()
    names_a = {e.name for e in prof_a.events()}
    assert {"sin", "SinBackward0", "sum", "SumBackward0"} <= names_a
    assert not names_a & {"exp", "ExpBackward0", "tanh", "TanhBackward0"}  # B's work
    assert _counts(prof_a)["sin"] == steps
    assert {e.thread for e in prof_a.events()} == {threading.get_ident()}
    names_b = {e.name for e in seen["prof_b"].events()}
    assert "tanh" in names_b and not names_b & {"sin", "SinBackward0", "exp", "ExpBackward0"}
    assert {e.thread for e in seen["prof_b"].events()} == {seen["thread"]}
    # The work itself is unaffected.
    np.testing.assert_allclose(xa.grad.numpy(), steps * np.cos(1.0))
    _assert_nothing_patched()


def test_backward_gives_the_same_gradients_inside_and_outside_a_profile():
    x = fg.leaf(np.array([0.3, -1.2, 2.5]))
    w = fg.leaf(np.array([1.5, 0.5, -2.0]))
    y = fnp.sum(fnp.tanh(x * w) ** 2 + fnp.exp(x) / (1.0 + w**2))
    outside = fg.backward(y)
    outside_2 = fg.backward(y, create_graph=True)
    with profiler.profile(record_shapes=True) as prof:
        inside = fg.backward(y)
        inside_2 = fg.backward(y, create_graph=True)
    after = fg.backward(y)
    for node in (x, w):
        np.testing.assert_array_equal(inside[node], outside[node])
        np.testing.assert_array_equal(after[node], outside[node])
        np.testing.assert_array_equal(inside_2[node].value, outside_2[node].value)
    assert _counts(prof)["TanhBackward0"] == 2
    _assert_nothing_patched()


def test_a_primitive_applied_to_a_tensor_is_recorded_once():
    x = torch.ones(3, requires_grad=True)
    with profiler.profile() as prof:
        fnp.sin(x)  # the Tensor applies sin again to its node: one event, not two
    assert [(e.name, e.cpu_parent) for e in prof.events()] == [("sin", None)]


@pytest.mark.parametrize(
    "argument",
    [
        {"with_flops": True},
        {"profile_memory": True},
        {"with_stack": True},
        {"with_modules": True},
        {"use_kineto": True},
        {"use_cpu": False},
        {"experimental_config": object()},
        {"acc_events": True},
        {"custom_trace_id_callback": lambda: "trace-1"},
        {"activity_filters": {}},
        {"use_device": "xpu"},
    ],
    ids=lambda kw: next(iter(kw)),
)
def test_unimplemented_arguments_raise_naming_the_argument(argument):
    ((name, value),) = argument.items()
    message = rf"^funcgrad\.autograd\.profiler\.profile: {name}={value!r} is not implemented; "
    with pytest.raises(NotImplementedError, match=message.replace("(", r"\(").replace(")", r"\)")):
        profiler.profile(**argument)
    _assert_nothing_patched()


def test_implemented_and_default_arguments_are_accepted():
    x = torch.ones(2, requires_grad=True)
    with profiler.profile(
        True,
        use_cuda=False,
        use_device="cuda",
        record_shapes=True,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
        post_processing_timeout_s=5.0,
        activity_filters=None,
    ) as prof:
        x * 2.0
    assert prof.use_cuda
    assert [(e.name, e.input_shapes) for e in prof.events()] == [("multiply", [[2], []])]
    # NumPy values: no GPU time even when asked for.
    assert prof.events()[0].cuda_time_total == 0


def test_the_arguments_are_pytorch_213s():
    torch_ = requires("torch")
    ours = list(inspect.signature(profiler.profile).parameters)
    theirs = list(inspect.signature(torch_.autograd.profiler.profile).parameters)
    assert ours == theirs


def test_backward_events_are_named_per_node_like_grad_fn():
    # The name can depend on the operands, not only on the primitive.
    a = torch.ones(3, 3, requires_grad=True)
    v = torch.ones(3, requires_grad=True)
    outputs = [a @ a, a @ v, v @ v, v**2, v**v]
    with profiler.profile() as prof:
        for out in outputs:
            out.sum().backward()
    names = [e.name for e in prof.events() if e.category == "backward" and e.cpu_parent is None]
    expected = [out.grad_fn.name() for out in outputs]
    assert expected == [
        "MmBackward0",
        "MvBackward0",
        "DotBackward0",
        "PowBackward0",
        "PowBackward1",
    ]
    assert [n for n in names if n != "SumBackward0"] == expected
