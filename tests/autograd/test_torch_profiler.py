"""`funcgrad.profiler`: PyTorch's modern profiler API (`torch.profiler`) over funcgrad's profiler."""

from __future__ import annotations

import json
import os

import pytest

import funcgrad as torch
from funcgrad.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)
from tests.references import requires


def _work(x):
    with record_function("model_inference"):
        (x * x).sin().sum().backward()


def test_profile_records_operations_and_ranges():
    x = torch.randn(4, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        _work(x)
    names = [e.name for e in prof.events()]
    assert names[0] == "model_inference" and "SinBackward0" in names and "multiply" in names
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    assert "model_inference" in table and "Self CPU time total" in table
    assert prof.key_averages(group_by_input_shape=True)


def test_schedule_is_pytorchs():
    real = requires("torch")
    for kwargs in (
        {"wait": 1, "warmup": 1, "active": 2},
        {"wait": 0, "warmup": 0, "active": 1, "repeat": 2},
        {"wait": 2, "warmup": 1, "active": 3, "repeat": 1, "skip_first": 2},
    ):
        mine, theirs = schedule(**kwargs), real.profiler.schedule(**kwargs)
        assert [mine(i).name for i in range(14)] == [theirs(i).name for i in range(14)], kwargs
    assert ProfilerAction.RECORD_AND_SAVE.name == "RECORD_AND_SAVE"


def test_steps_record_the_active_spans_and_hand_them_on(tmp_path):
    x = torch.randn(3, requires_grad=True)
    spans = []
    handler = tensorboard_trace_handler(str(tmp_path), worker_name="w")

    def ready(prof):
        spans.append(
            (prof.step_num, sorted({e.name for e in prof.events() if e.name.startswith("step")}))
        )
        handler(prof)

    with profile(
        schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready
    ) as prof:
        for i in range(10):
            with record_function(f"step{i}"):
                (x * x).sum().backward()
            prof.step()
    assert spans == [(4, ["step2", "step3"]), (8, ["step6", "step7"])]
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2 and all(
        f.startswith("w.") and f.endswith(".pt.trace.json") for f in files
    )
    with open(tmp_path / files[0]) as f:
        assert json.load(f)["traceEvents"]


def test_unsupported_requests_raise():
    with pytest.raises(NotImplementedError, match="activities"):
        profile(activities=[ProfilerActivity.XPU])
    with pytest.raises(NotImplementedError, match="profile_memory"):
        profile(profile_memory=True)
    with pytest.raises(RuntimeError, match="after the with block"):
        profile().key_averages()
