"""The benchmark harness's own logic (benchmarks/run.py, workloads.py), and what `import funcgrad` costs.

* the verdict: a bootstrap interval of paired rounds decides met / missed /
  undecided as documented;
* the hand-written NumPy references of W7 (LeNet) and W8 (MLP + Adam),
  which the table judges funcgrad against, give PyTorch's loss, gradients
  and updated parameters;
* `import funcgrad` loads neither SciPy nor PyTorch: a heap grown by them
  made every full collection of the cyclic garbage collector dearer, which
  was the 1.14x instruction regression of the imperative W1 (issue 18).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tests.references import requires

_BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, _BENCH)

import run  # noqa: E402  (benchmarks/run.py)
import workloads  # noqa: E402


def test_ratio_interval_and_verdicts():
    rng = np.random.default_rng(0)
    load = rng.uniform(1.0, 3.0, 30)  # a load that moves both sides of a round alike
    theirs = 10.0 * load
    ratio, low, high = run.ratio_ci(8.0 * load, theirs)
    assert ratio == pytest.approx(0.8) and low == pytest.approx(0.8) and high == pytest.approx(0.8)
    assert run.judge(low, high, 1.0) == "met"
    ratio, low, high = run.ratio_ci(12.0 * load, theirs)
    assert run.judge(low, high, 1.0) == "missed"
    noisy = 10.0 * load * rng.uniform(0.6, 1.4, 30)  # no consistent difference
    ratio, low, high = run.ratio_ci(noisy, theirs)
    assert low < 1.0 < high and run.judge(low, high, 1.0) == "undecided"
    assert run.judge(0.9, 1.01, 1.02) == "met"  # a factor other than 1 (W4's 1.02)
    assert run.ratio_ci([2.0], [4.0]) == (0.5, 0.5, 0.5)  # one round: no interval


def _torch_step(torch, module, params, names, X, labels, optimizer):
    named = dict(module.named_parameters())
    for name, value in zip(names, params, strict=True):
        named[name].data = torch.from_numpy(value.copy())
    opt = optimizer([named[n] for n in names])
    loss = torch.nn.functional.cross_entropy(module(torch.from_numpy(X)), torch.from_numpy(labels))
    loss.backward()
    grads = [named[n].grad.numpy().copy() for n in names]
    opt.step()
    return loss.item(), grads, [named[n].detach().numpy() for n in names]


def _check(ours, theirs, atol_params=1e-7):
    loss, grads, new = ours
    t_loss, t_grads, t_new = theirs
    assert loss == pytest.approx(t_loss, rel=1e-5)
    for a, b in zip(grads, t_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    for a, b in zip(new, t_new, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=atol_params)


def test_lenet_numpy_reference_is_pytorchs_step():
    torch = requires("torch")
    X, labels, params = workloads.lenet_data()
    X, labels = X[:16], labels[:16]  # the code does not depend on the batch size
    ours = [p.copy() for p in params]
    loss, *grads = workloads.lenet_numpy_step(X, labels, ours)
    names = [name for name, _ in workloads.LENET_SHAPES]
    theirs = _torch_step(
        torch,
        workloads._lenet_module(torch.nn),
        params,
        names,
        X,
        labels,
        lambda ps: torch.optim.SGD(ps, lr=workloads.LENET_LR),
    )
    _check((loss, grads, ours), theirs)


def test_mlp_adam_numpy_reference_is_pytorchs_step():
    torch = requires("torch")
    X, labels, params = workloads.mlp8_data()
    ours = [p.copy() for p in params]
    adam = workloads._NumpyAdam(ours)
    for _ in range(3):  # three steps: the bias corrections change
        loss, grads = workloads.mlp8_numpy_grads(X, labels, ours)
        adam.step(grads)
    module = workloads._mlp8_module(torch.nn)
    named = dict(module.named_parameters())
    for name, value in zip(workloads._MLP8_NAMES, params, strict=True):
        named[name].data = torch.from_numpy(value.copy())
    ps = [named[n] for n in workloads._MLP8_NAMES]
    opt = torch.optim.Adam(ps, lr=workloads.ADAM_LR)
    for _ in range(3):
        opt.zero_grad()
        t_loss = torch.nn.functional.cross_entropy(
            module(torch.from_numpy(X)), torch.from_numpy(labels)
        )
        t_loss.backward()
        t_grads = [p.grad.numpy().copy() for p in ps]
        opt.step()
    # Adam divides by sqrt(v): where a gradient is nearly 0 (a dead ReLU) float32 rounding
    # of the gradient moves the step, so the parameters agree to 1% of the learning rate
    theirs = (t_loss.item(), t_grads, [p.detach().numpy() for p in ps])
    _check((loss, list(grads), ours), theirs, atol_params=1e-2 * workloads.ADAM_LR)


def test_import_funcgrad_leaves_scipy_and_torch_out():
    code = "import sys, funcgrad; print(sorted({'scipy', 'torch'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_table_rows_and_the_readme_table(capsys):
    rounds = {"numpy": [1.0, 1.1, 0.9], "torch": [2.0, 2.2, 1.8], "fg_func": [1.0, 1.1, 0.9]}
    entry = {
        "wid": "W3",
        "title": "an MLP",
        "unit": "ms",
        "values": {k: float(np.median(v)) for k, v in rounds.items()},
        "rounds": rounds,
        "diffs": {"fg_func": (0.0, 0.0)},
        "target": ("torch", 1.0),
        "jit_target": ("numpy", 1.3),
    }
    rows, misses = run.table_rows({"rows": [entry]}, verdict_ok=False)
    functional, jit = rows  # no imperative figure: no row; no jit: an n/a row
    cells = dict(zip(run.TABLE_HEADER, functional, strict=True))
    assert cells["funcgrad path"] == "functional" and cells["fg/torch"] == "0.50x"
    assert cells["fg/target, 95% CI"] == "0.50x [0.50, 0.50]"
    assert cells["result"] == "not a verdict (met)" and misses == []
    assert jit[2] == "jit" and jit[3] == "n/a" and jit[run.TABLE_HEADER.index("result")] == "n/a"
    run.print_readme_table(rows)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| id | workload (unit) | funcgrad path | funcgrad | torch |")
    assert lines[2].split(" | ")[-2:] == ["not a verdict (met)", "0.50x [0.50, 0.50] |"]


def test_w5_jit_column_replays_the_chain():
    assert "jit" in run.w5_names()
    assert run._w5_impl("jit", 200)() == workloads.w5_impl("numpy", 200)()
