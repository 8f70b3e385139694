"""Three pages of the "Introduction to PyTorch on YouTube" series run on funcgrad with only the import changed.

The page (`tests.examples.pages_introyt.TENSORS_DEEPER`) runs as written on PyTorch 2.13
and with `import torch` pointed at funcgrad (NumPy stays NumPy's), with the same random
numbers and, as the page prints two uninitialised `torch.empty` tensors, the same
uninitialised memory (`harness.Draws(empty=True)`). What they print must agree, but for
funcgrad naming itself where PyTorch names torch (`funcgrad.Size`, `funcgrad.Tensor`,
`dtype=funcgrad.int32`, `funcgrad.return_types.svd`).

The models page (`MODELS`) prints a model, its parameters, and what `nn.Linear`,
`nn.MaxPool2d`, `nn.BatchNorm1d` and `nn.Dropout` (with PyTorch's masks: `harness.Draws`)
make of random tensors. The autograd page (`AUTOGRAD`) prints `grad_fn` chains, gradients,
a training step and the autograd profiler's table (whose times and operation names are
funcgrad's own: the table is checked apart).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.examples import harness, pages_introyt
from tests.references import requires

torch = requires("torch")


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim arg")
def test_tensors_deeper_page_prints_the_same_on_funcgrad():
    source = pages_introyt.TENSORS_DEEPER
    torch.manual_seed(0)
    draws = harness.Draws(empty=True)
    with draws.record(torch):
        theirs, their_ns = harness.run(source, "tensors_deeper")
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source, numpy=False), "tensors_deeper")
    kinds = [kind for kind, _ in draws.values]
    assert kinds.count("empty") == 3 and kinds.count("rand") > 20
    assert "torch.return_types.svd(" in theirs and "<class 'torch.Tensor'>" in theirs
    harness.assert_same_printout(ours, theirs.replace("torch.", "funcgrad."), rtol=1e-4, atol=1e-4)
    # The NumPy bridge: the tensor made from an array, and the array a tensor gave, share memory.
    assert our_ns["pytorch_tensor"][1, 1].item() == 23 and our_ns["numpy_rand"][1, 1] == 17


def test_models_page_prints_the_same_on_funcgrad():
    source = pages_introyt.MODELS
    torch.manual_seed(0)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, their_ns = harness.run(source, "modelsyt")
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source), "modelsyt")
    kinds = [kind for kind, _ in draws.values]
    assert kinds.count("dropout") == 2 and kinds.count("uniform_") == 6
    dropped = [mask for kind, mask in draws.values if kind == "dropout"]
    assert not dropped[0].all() and dropped[0].any() and (dropped[0] != dropped[1]).any()
    assert "TinyModel(" in theirs and "NativeBatchNormBackward0" in theirs
    # atol: the mean of a batch-normalised tensor, about 1e-7, is rounding noise on both sides
    harness.assert_same_printout(ours, theirs, rtol=1e-4, atol=1e-6)


# The profiler's table: its times differ from run to run, and its rows are named after the
# operations that ran (PyTorch's `aten::div`, funcgrad's primitive `divide`).
_TABLE = re.compile(r"^-{8,}.*?^Self CPU time total: .*?$\n", re.MULTILINE | re.DOTALL)


@pytest.mark.filterwarnings("ignore:overflow encountered")  # z / x over 1000 steps, as PyTorch
def test_autograd_page_prints_the_same_on_funcgrad(monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    source = pages_introyt.AUTOGRAD
    torch.manual_seed(0)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, their_ns = harness.run(source, "autogradyt")
    with draws.replay():
        ours, our_ns = harness.run(harness.with_funcgrad(source), "autogradyt")
    matplotlib.pyplot.close("all")
    their_table, our_table = _TABLE.search(theirs), _TABLE.search(ours)
    assert their_table and our_table
    for kind, calls in (("div", 1000), ("mul", 1000)):
        assert re.search(rf"aten::{kind} .* {calls}  $", their_table.group(), re.MULTILINE)
    for name in ("divide", "multiply"):
        assert re.search(rf"^ +{name} .* 1000$", our_table.group(), re.MULTILINE), our_table.group()
    assert "((<MulBackward0 object at" in theirs and "((<AccumulateGrad object at" in theirs
    # layout=False: funcgrad's float32 linspace may differ from PyTorch's CPU kernel in the
    # last bit (PyTorch's own values depend on the CPU's vector width), so sin(a) at a = pi
    # prints 5.9605e-08 where PyTorch prints -3.5763e-07, one column narrower.
    harness.assert_same_printout(
        _TABLE.sub("", ours), _TABLE.sub("", theirs), rtol=1e-4, atol=1e-6, layout=False
    )
    their_w, our_w = their_ns["model"].layer2.weight, our_ns["model"].layer2.weight
    np.testing.assert_allclose(our_w.detach().numpy(), their_w.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(our_ns["x"].grad.numpy(), their_ns["x"].grad.numpy(), rtol=1e-6)
