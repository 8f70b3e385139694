"""The PyTorch 0.3 `Variable` tutorial (seed 000), but for its custom Function,
gradcheck and profiler sections (tested with those features).

Each test is one example of the tutorial with `import torch` replaced by
`import funcgrad as torch`; the expected text is what the tutorial prints,
with `funcgrad.` where 0.3 said `torch.` and today's PyTorch `grad_fn` names
(`AddBackward0` where 0.3 said `AddBackward1`).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import warnings

import numpy as np
import pytest

import funcgrad as torch
from funcgrad.autograd import Variable

ONE = "Variable containing:\n1\n[funcgrad.FloatTensor of size 1]\n"


def printed(*objects) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(*objects)
    return out.getvalue()


# --- Variable and Tensor ----------------------------------------------------------


def test_variable_prints_the_03_way():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    assert repr(a) == ONE
    assert repr(a).rstrip("\n") == "Variable containing:\n1\n[funcgrad.FloatTensor of size 1]"
    assert isinstance(a, torch.Tensor) and a.requires_grad and a.is_leaf


def test_variable_data_prints_without_the_header():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    assert repr(a.data) == "1\n[funcgrad.FloatTensor of size 1]\n"
    assert not a.data.requires_grad


def test_cpu_keeps_a_cpu_variable_and_its_data():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    assert repr(a.cpu()) == ONE
    assert repr(a.cpu().data) == "1\n[funcgrad.FloatTensor of size 1]\n"
    assert a.cpu().device == torch.device("cpu")


def _gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.skipif(_gpu_available(), reason="checks the error raised without a GPU")
def test_cuda_without_cupy_or_gpu_raises_a_clear_error():
    with pytest.raises(RuntimeError, match=r"cuda.*(CuPy|GPU)|(CuPy|GPU).*cuda"):
        Variable(torch.Tensor([1]), requires_grad=True).cuda()
    with pytest.raises(RuntimeError, match="CuPy"):
        torch.ones(1).cuda()
    with pytest.raises(RuntimeError, match="CuPy"):
        torch.ones(1).to("cuda:0")


@pytest.mark.cuda
@pytest.mark.skipif(not _gpu_available(), reason="needs CuPy and an NVIDIA GPU")
def test_cuda_variable_prints_the_03_way():
    a = Variable(torch.Tensor([1])).cuda()
    assert repr(a) == "Variable containing:\n1\n[funcgrad.cuda.FloatTensor of size 1 (GPU 0)]\n"
    assert repr(a.cpu()) == ONE


def test_legacy_tensor_constructor_is_float32():
    # torch.Tensor([1]) is a FloatTensor, whatever the Python type of the data.
    for data in ([1], [1.0], np.array([1]), np.array([1.0])):
        t = torch.Tensor(data)
        assert t.dtype == torch.float32 and t.tolist() == [1.0]
    assert torch.Tensor(2, 3).shape == (2, 3)
    assert torch.Tensor().shape == (0,) and torch.Tensor().dtype == torch.float32
    assert torch.FloatTensor([2]).dtype == torch.float32


# --- automatic differentiation ----------------------------------------------------


def test_gradients_of_a_sum():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = Variable(torch.Tensor([3]), requires_grad=True)
    d = a + b
    e = d + c
    e.backward()
    assert printed(a.grad, b.grad, c.grad) == f"{ONE} {ONE} {ONE}\n"
    for v in (a, b, c):
        assert isinstance(v.grad, Variable)
        assert v.grad.tolist() == [1.0] and v.grad.dtype == torch.float32


def test_intermediate_gradient_is_not_kept():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = Variable(torch.Tensor([3]), requires_grad=True)
    d = a + b
    e = d + c
    e.backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert d.grad is None
    assert a.grad_fn is None  # the first node has no grad_fn
    assert e.grad_fn is not None and e.grad_fn.name() == "AddBackward0"
    assert re.fullmatch(r"<AddBackward0 object at 0x[0-9a-f]+>", repr(e.grad_fn))
    # e = d + c: its grad_fn leads to d's AddBackward and to c's accumulator.
    (d_fn, _), (c_fn, _) = e.grad_fn.next_functions
    assert d_fn == d.grad_fn
    assert c_fn.name() == "AccumulateGrad" and c_fn.variable is c


def test_requires_grad_false_excludes_a_subgraph():
    a = Variable(torch.Tensor([1]), requires_grad=False)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = a + b
    c.backward()
    assert a.grad is None  # a does not require grad: no gradient is stored
    assert repr(b.grad) == ONE
    assert c.requires_grad and not a.requires_grad


def test_volatile_forbids_backward():
    a = Variable(torch.Tensor([1]), volatile=True)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = a + b
    assert c.volatile and not c.requires_grad
    with pytest.raises(RuntimeError, match=r"^element 0 of variables tuple is volatile$"):
        c.backward()
    # Volatility spreads through later operations, whatever the other inputs.
    assert (c * b).volatile
    assert not (b * 2).volatile


def test_volatile_variable_is_not_recorded_even_with_requires_grad():
    a = Variable(torch.Tensor([1]), requires_grad=True, volatile=True)
    assert a.volatile and not a.requires_grad


# --- hooks ------------------------------------------------------------------------


def print_grad(grad):
    print(grad)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_register_hook_prints_the_gradient_of_y(seed):
    torch.manual_seed(seed)
    x = Variable(torch.randn([1]), requires_grad=True)
    y = x + 2
    z = torch.mean(torch.pow(y, 2))
    handle = y.register_hook(print_grad)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        z.backward()
    # z = mean(y**2) over one element, so dz/dy = 2 y = 2 (x + 2).
    expected = 2 * (float(x.detach().item()) + 2)
    text = out.getvalue()
    match = re.fullmatch(
        r"Variable containing:\n(-?\d+(?:\.\d{4})?)\n\[funcgrad\.FloatTensor of size 1\]\n\n", text
    )
    assert match, text
    assert float(match.group(1)) == pytest.approx(expected, abs=5e-5)
    np.testing.assert_allclose(x.grad.numpy(), [expected], rtol=1e-6)
    assert hasattr(handle, "remove")


def test_hook_sees_the_03_printed_value_of_the_tutorial():
    # The tutorial printed 5.1408: x was 0.5704.
    x = Variable(torch.Tensor([0.5704]), requires_grad=True)
    y = x + 2
    z = torch.mean(torch.pow(y, 2))
    y.register_hook(print_grad)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        z.backward()
    assert out.getvalue() == "Variable containing:\n5.1408\n[funcgrad.FloatTensor of size 1]\n\n"


def test_hook_can_change_the_gradient():
    x = Variable(torch.Tensor([1.0]), requires_grad=True)
    y = x + 2
    z = torch.mean(torch.pow(y, 2))
    y.register_hook(lambda grad: grad * 0)  # hook(grad) -> Variable or None
    z.backward()
    assert x.grad.tolist() == [0.0]


def test_tutorial_imports_work():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace: dict = {}
        exec("import funcgrad as torch\nfrom funcgrad.autograd import Variable", namespace)
    assert namespace["Variable"] is Variable
    assert "funcgrad.autograd" in sys.modules


def test_results_of_operations_on_variables_are_variables():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    t = torch.tensor([2.0])
    for result in (a * t, t * a, a + 1, torch.exp(a), torch.cat([t, a])):
        assert type(result) is Variable
    assert type(a.data + 1) is type(a.data)
    assert type(a.detach()) is Variable
