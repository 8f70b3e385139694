"""`funcgrad.autograd.Function`: the 0.3 seed's examples (both styles) and PyTorch's behaviour.

Gradients are checked against closed forms or central differences in
float64, never against themselves.
"""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import funcgrad as torch
from funcgrad.autograd import Function, Variable, gradcheck
from funcgrad.autograd.function import FunctionBackwardError, function_call
from funcgrad.errors import NotDifferentiableError, ShapeError
from funcgrad.transforms.forward import apply_jvp
from tests.call_samples import sample_of
from tests.strategies import Draw

ONE = "Variable containing:\n1\n[funcgrad.FloatTensor of size 1]\n"
THREE = "Variable containing:\n3\n[funcgrad.FloatTensor of size 1]\n"


def printed(*objects) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(*objects)
    return out.getvalue()


def f64(values, requires_grad=True):
    return torch.tensor(values, dtype=torch.float64, requires_grad=requires_grad)


# --- the seed's examples ------------------------------------------------------------


class custom_add(torch.autograd.Function):  # noqa: N801  (the seed's name)
    """The seed's Function, verbatim (static methods, called through .apply)."""

    @staticmethod
    def forward(ctx, input, input2):  # noqa: A002
        ctx.save_for_backward(input, input2)
        output = input + input2
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input1, input2 = ctx.saved_tensors
        grad_input = grad_output.clone()
        return grad_input, grad_input


class custom_add_legacy(torch.autograd.Function):  # noqa: N801
    """The seed's other style: no @staticmethod, called as custom_add_legacy()(a, b)."""

    def forward(self, input, input2):  # noqa: A002
        self.save_for_backward(input, input2)
        output = input + input2
        return output

    def backward(self, grad_output):
        input1, input2 = self.saved_tensors
        grad_input = grad_output.clone()
        return grad_input, grad_input


def test_seed_custom_add_apply():
    new_add = custom_add.apply
    a = Variable(torch.Tensor([1]), requires_grad=True)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = new_add(a, b)
    assert repr(c) == THREE
    c.backward()
    assert repr(a.grad) == ONE
    assert repr(b.grad) == ONE
    assert isinstance(c, Variable) and isinstance(a.grad, Variable)


def test_seed_custom_add_legacy_instance_call():
    a = Variable(torch.Tensor([1]), requires_grad=True)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = custom_add_legacy()(a, b)
    assert repr(c) == THREE
    c.backward()
    assert repr(a.grad) == ONE
    assert repr(b.grad) == ONE


def test_seed_gradcheck_prints_true():
    input = (  # noqa: A001  (the seed's name)
        Variable(torch.Tensor([2]).double(), requires_grad=True),
        Variable(torch.Tensor([3]).double(), requires_grad=True),
    )
    test = gradcheck(custom_add.apply, input, eps=1e-6, atol=1e-4)
    assert printed(test) == "True\n"
    assert test is True
    legacy = gradcheck(lambda a, b: custom_add_legacy()(a, b), input, eps=1e-6, atol=1e-4)
    assert legacy is True


def test_grad_fn_is_named_after_the_class():
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([2.0], requires_grad=True)
    c = custom_add.apply(a, b)
    assert c.grad_fn.name() == "custom_addBackward"
    assert repr(c) == "tensor([3.], grad_fn=<custom_addBackward>)"
    assert repr(c.grad_fn).startswith("<custom_addBackward object at 0x")
    (fa, _), (fb, _) = c.grad_fn.next_functions
    assert fa.name() == "AccumulateGrad" and fa.variable is a and fb.variable is b
    assert custom_add_legacy()(a, b).grad_fn.name() == "custom_add_legacyBackward"
    # The context can be read through grad_fn, as in PyTorch.
    assert c.grad_fn.needs_input_grad == (True, True)


# --- a few Functions used below -----------------------------------------------------


class Exp(Function):
    """exp, saving its output (PyTorch's documentation example)."""

    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class Cube(Function):
    """x ** 3, saving its input."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


class MulAdd(Function):
    """(x * y + c, x + y): two tensor inputs, a non-tensor argument, two outputs."""

    @staticmethod
    def forward(ctx, x, c, y):
        ctx.save_for_backward(x, y)
        ctx.c = c
        return x * y + c, x + y

    @staticmethod
    def backward(ctx, g_prod, g_sum):
        x, y = ctx.saved_tensors
        return g_prod * y + g_sum, None, g_prod * x + g_sum


# --- behaviour ---------------------------------------------------------------------


def test_gradients_match_closed_forms():
    x = f64([0.5, -1.0, 2.0])
    Exp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, -1.0, 2.0]), rtol=1e-15)
    x.grad = None
    Cube.apply(x).backward(f64([1.0, 2.0, 3.0], requires_grad=False))
    np.testing.assert_allclose(x.grad.numpy(), [1.0 * 0.75, 2.0 * 3.0, 3.0 * 12.0])


def test_forward_runs_without_grad_and_sees_the_tensors():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["enabled"] = torch.is_grad_enabled()
            seen["x"] = x
            y = x * 2
            seen["y_requires_grad"] = y.requires_grad
            return y

        @staticmethod
        def backward(ctx, g):
            seen["backward_enabled"] = torch.is_grad_enabled()
            return g * 2

    x = torch.ones(2, requires_grad=True)
    y = Probe.apply(x)
    assert seen["enabled"] is False and seen["x"] is x and seen["y_requires_grad"] is False
    assert y.requires_grad and not y.is_leaf
    y.sum().backward()
    assert seen["backward_enabled"] is False  # first order: no graph is built
    assert x.grad.tolist() == [2.0, 2.0]


def test_needs_input_grad():
    recorded = {}

    class Lin(Function):
        @staticmethod
        def forward(ctx, x, w, scale):
            recorded["forward"] = ctx.needs_input_grad
            ctx.save_for_backward(x, w)
            ctx.scale = scale
            return x * w * scale

        @staticmethod
        def backward(ctx, g):
            recorded["backward"] = ctx.needs_input_grad
            x, w = ctx.saved_tensors
            gx = g * w * ctx.scale if ctx.needs_input_grad[0] else None
            gw = g * x * ctx.scale if ctx.needs_input_grad[1] else None
            return gx, gw, None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0])
    Lin.apply(x, w, 2.0).sum().backward()
    assert recorded["forward"] == (True, False, False)
    assert recorded["backward"] == (True, False, False)
    assert x.grad.tolist() == [6.0, 8.0] and w.grad is None

    with torch.no_grad():
        y = Lin.apply(x, w, 2.0)
    assert recorded["forward"] == (False, False, False)
    assert not y.requires_grad and y.grad_fn is None


def test_no_input_requires_grad_gives_a_plain_tensor():
    x = torch.ones(2)
    y = Exp.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    np.testing.assert_allclose(y.numpy(), np.e)


def test_non_tensor_arguments_and_tuple_outputs():
    x = f64([1.0, 2.0])
    y = f64([3.0, -1.0])
    prod, total = MulAdd.apply(x, 10.0, y)
    assert prod.tolist() == [13.0, 8.0] and total.tolist() == [4.0, 1.0]
    assert prod.grad_fn.name() == total.grad_fn.name() == "MulAddBackward"
    (2 * prod.sum() + 3 * total.sum()).backward()
    # d/dx = 2 y + 3, d/dy = 2 x + 3
    assert x.grad.tolist() == [9.0, 1.0] and y.grad.tolist() == [5.0, 7.0]

    # Only one output used: the other's gradient is zeros.
    x.grad = y.grad = None
    MulAdd.apply(x, 10.0, y)[1].sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and y.grad.tolist() == [1.0, 1.0]


def test_tuple_output_gradcheck():
    x = f64([0.3, -0.7, 1.1])
    y = f64([1.5, 0.2, -0.4])
    assert gradcheck(lambda a, b: MulAdd.apply(a, 2.5, b), (x, y))


def test_ctx_attributes_reach_backward():
    class Pow(Function):
        @staticmethod
        def forward(ctx, x, p):
            ctx.p = p
            ctx.save_for_backward(x)
            return x**p

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.p * x ** (ctx.p - 1), None

    x = f64([2.0, 3.0])
    Pow.apply(x, 4).sum().backward()
    assert x.grad.tolist() == [32.0, 108.0]


def test_mark_non_differentiable_and_integer_outputs():
    calls = []

    class SortLike(Function):
        @staticmethod
        def forward(ctx, x):
            doubled = x * 2
            flag = x * 0  # a float output declared to have no gradient
            index = x.argmax()  # an integer output: never differentiable
            ctx.mark_non_differentiable(flag)
            return doubled, flag, index

        @staticmethod
        def backward(ctx, g_doubled, g_flag, g_index):
            calls.append((g_doubled, g_flag, g_index))
            return g_doubled * 2

    x = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
    doubled, flag, index = SortLike.apply(x)
    assert doubled.requires_grad
    assert not flag.requires_grad and flag.grad_fn is None
    assert not index.requires_grad and index.item() == 1
    doubled.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    (g_doubled, g_flag, g_index) = calls[-1]
    assert g_doubled.tolist() == [1.0, 1.0, 1.0]
    assert g_flag.tolist() == [0.0, 0.0, 0.0]  # materialized zeros
    assert g_index.tolist() == 0


def test_set_materialize_grads_false_passes_none():
    received = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g2, g3):
            received.append((g2 is None, g3 is None))
            total = None
            if g2 is not None:
                total = g2 * 2
            if g3 is not None:
                total = g3 * 3 if total is None else total + g3 * 3
            return total

    x = torch.ones(2, requires_grad=True)
    a, b = Two.apply(x)
    b.sum().backward()
    assert received == [(True, False)]
    assert x.grad.tolist() == [3.0, 3.0]
    x.grad = None
    received.clear()
    a, b = Two.apply(x)
    (a.sum() + b.sum()).backward()
    # One call per output that receives a gradient; the results are summed.
    assert sorted(received) == [(False, True), (True, False)]
    assert x.grad.tolist() == [5.0, 5.0]


def test_forward_may_return_an_input():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = torch.ones(2, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and x.grad_fn is None
    assert y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_setup_context_style():
    class Square(Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    x = f64([1.5, -2.0])
    Square.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, -4.0]


def test_legacy_instance_can_be_called_twice():
    class LegacyScale(Function):
        def __init__(self, factor):
            self.factor = factor

        def forward(self, x):
            self.save_for_backward(x)
            return x * self.factor

        def backward(self, g):
            (x,) = self.saved_tensors
            return g * self.factor

    fn = LegacyScale(3.0)
    x = torch.ones(2, requires_grad=True)
    z = torch.full((3,), 2.0, requires_grad=True)
    y1 = fn(x)
    y2 = fn(z)
    y1.sum().backward()
    y2.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and z.grad.tolist() == [3.0, 3.0, 3.0]


def test_broadcast_gradient_is_summed_back():
    class Spread(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(4, 2, 3)  # shape compatible with (2, 3): summed over the new axis

    x = torch.ones(2, 3, requires_grad=True)
    Spread.apply(x).sum().backward()
    assert x.grad.shape == (2, 3) and x.grad.tolist() == [[4.0] * 3] * 2


def test_volatile_input_makes_a_volatile_output():
    a = Variable(torch.Tensor([1]), volatile=True)
    b = Variable(torch.Tensor([2]), requires_grad=True)
    c = custom_add.apply(a, b)
    assert c.volatile and not c.requires_grad
    with pytest.raises(RuntimeError, match="element 0 of variables tuple is volatile"):
        c.backward()


# --- hooks, retain_grad, in-place changes ---------------------------------------------


def test_hooks_and_retain_grad_on_outputs():
    x = f64([0.0, 1.0])
    y = Exp.apply(x)
    y.retain_grad()
    seen = []
    handle = y.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (y * 2).sum().backward()
    assert seen == [[2.0, 2.0]]
    assert y.grad.tolist() == [20.0, 20.0]  # retain_grad sees the hooked gradient
    np.testing.assert_allclose(x.grad.numpy(), 20.0 * np.exp([0.0, 1.0]))
    handle.remove()
    x.grad = None
    (y * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.exp([0.0, 1.0]))


def test_hook_on_an_input():
    x = f64([1.0, 2.0])
    x.register_hook(lambda g: g + 1)
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [4.0, 13.0]


def test_saved_input_changed_in_place_keeps_the_recorded_value():
    x = f64([1.0, 2.0])
    h = x * 1  # a non-leaf, so it may be changed in place
    y = Cube.apply(h)
    h.mul_(10)  # after forward: the graph keeps h's old value
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_a_function_graph_is_freed_without_the_cyclic_collector():
    import gc
    import weakref

    x = f64([1.0, 2.0])
    gc.disable()
    try:
        y = Exp.apply(x)
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        ctx = weakref.ref(y._node.params["fn"].ctx)
        g.sum().backward()
        del y, g
        assert ctx() is None
    finally:
        gc.enable()


# --- double backward and forward mode ---------------------------------------------------


def test_double_backward_through_a_saved_input():
    x = f64([0.5, -2.0])
    y = Cube.apply(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [0.75, 12.0] and g.requires_grad
    g.sum().backward()
    assert x.grad.tolist() == [3.0, -12.0]  # d/dx 3 x^2 = 6 x


def test_double_backward_through_a_saved_output():
    x = f64([0.0, 1.0])
    y = Exp.apply(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp([0.0, 1.0]), rtol=1e-15)


def test_double_backward_through_two_outputs_and_a_constant():
    x = f64([0.3, -0.5])
    y = f64([1.2, 0.7])
    prod, total = MulAdd.apply(x, 1.0, y)
    gx, gy = torch.autograd.grad((prod * prod).sum() + total.sum(), (x, y), create_graph=True)
    # f = sum((x y + 1)^2 + x + y): d2f/dx2 = 2 y^2, d2f/dxdy = 2 (2 x y + 1)
    (hxx, hxy) = torch.autograd.grad(gx.sum(), (x, y))
    np.testing.assert_allclose(hxx.numpy(), 2 * np.array([1.2, 0.7]) ** 2, rtol=1e-14)
    np.testing.assert_allclose(
        hxy.numpy(), 2 * (2 * np.array([0.3 * 1.2, -0.5 * 0.7]) + 1), rtol=1e-14
    )


def test_gradcheck_and_gradgradcheck_of_custom_functions():
    x = f64([0.3, -1.2, 0.8])
    assert gradcheck(Exp.apply, (x,))
    assert gradcheck(Cube.apply, (x,))
    assert torch.autograd.gradgradcheck(Exp.apply, (x,))
    assert torch.autograd.gradgradcheck(Cube.apply, (x,))
    y = f64([0.5, 0.25, -2.0])
    assert torch.autograd.gradgradcheck(lambda a, b: MulAdd.apply(a, 3.0, b), (x, y))


def test_gradcheck_catches_a_wrong_backward():
    class WrongExp(Exp):
        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result * 1.01

    x = f64([0.3, -1.2])
    assert gradcheck(WrongExp.apply, (x,), raise_exception=False) is False
    with pytest.raises(
        RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"
    ):
        gradcheck(WrongExp.apply, (x,))


def test_forward_mode_is_the_transpose_of_backward():
    x = np.array([0.2, -0.4, 1.3])
    y = np.array([0.7, 1.1, -0.6])
    (xt, yt) = (torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True))
    prod, total = MulAdd.apply(xt, 2.0, yt)
    params = prod._node.params
    tx, ty = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.0, 2.0])
    out = prod._node.value
    jv = apply_jvp(function_call, (tx, ty), out, (x, y), params)
    np.testing.assert_allclose(jv, tx * y + x * ty, rtol=1e-14)  # d(x y + c)
    jv_sum = apply_jvp(function_call, (tx, None), total._node.value, (x, y), total._node.params)
    np.testing.assert_allclose(jv_sum, tx, rtol=1e-14)


def test_forward_mode_refuses_a_detached_backward():
    class DetachedExp(Exp):
        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return torch.tensor(grad_output.detach().numpy() * result.detach().numpy())

    x = np.array([0.1, 0.2])
    out = DetachedExp.apply(torch.tensor(x, requires_grad=True))
    with pytest.raises(NotDifferentiableError, match="DetachedExp.backward"):
        apply_jvp(function_call, (np.ones(2),), out._node.value, (x,), out._node.params)


# --- errors ---------------------------------------------------------------------------


def test_wrong_number_of_gradients():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    x = torch.ones(2, requires_grad=True)
    with pytest.raises(FunctionBackwardError) as info:
        Twice.apply(x, x).sum().backward()
    message = str(info.value)
    assert "function Twice.backward returned an incorrect number of gradients" in message
    assert "(expected 2, got 1)" in message
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ShapeError)


def test_trailing_nones_are_allowed():
    class Extra(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = torch.ones(2, requires_grad=True)
    Extra.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_wrong_gradient_shape():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum(0)

    x = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(
        FunctionBackwardError,
        match=r"function BadShape.backward returned an invalid gradient at index "
        r"0 - got \[3\] but expected shape compatible with \[2, 3\]",
    ):
        BadShape.apply(x).sum().backward()


def test_gradient_for_a_non_tensor_argument():
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, factor):
            return x * factor

        @staticmethod
        def backward(ctx, g):
            return g * 2.0, g.sum()

    x = torch.ones(2, requires_grad=True)
    with pytest.raises(
        FunctionBackwardError,
        match="function Scale.backward returned a gradient different than None at "
        "index 1, but the corresponding forward input was not a Tensor",
    ):
        Scale.apply(x, 2.0).sum().backward()


def test_backward_must_return_tensors():
    class Raw(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return np.ones(2)

    x = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="function Raw.backward returned a ndarray at index 0"):
        Raw.apply(x).sum().backward()


def test_misuse_errors():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="implement the forward function"):
        Function.apply(x)

    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="implement either the backward"):
        NoBackward.apply(x).sum().backward()

    class SavesANumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x

    with pytest.raises(TypeError, match="argument 1 is of type int"):
        SavesANumber.apply(x)

    class Dirty(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x

    with pytest.raises(NotImplementedError, match="mark_dirty"):
        Dirty.apply(x)
    with pytest.raises(TypeError, match="positional arguments only"):
        Exp.apply(x=x)


# --- the registry's primitive ------------------------------------------------------------


@given(data=st.data())
def test_function_call_sample_forward_matches_numpy(data):
    # The generic tests (tests/ops/test_rules.py) check its VJP, JVP and second
    # order; its forward is the sample Function's exp(x) * 0.5 + x * y.
    args, params = sample_of(function_call).make(Draw(data))
    x, y = args
    np.testing.assert_allclose(function_call(x, y, **params), np.exp(x) * 0.5 + x * y, rtol=1e-15)
