"""In-place operations, `.grad` accumulation, iteration and copying, against PyTorch.

Each test runs one program on PyTorch 2.13 (the reference) and on funcgrad,
then compares what both return: values, dtypes, `requires_grad`, gradients
(None stays None), or that both raise the same builtin error.
"""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest

import funcgrad
from funcgrad.errors import FuncgradError
from tests.references import requires


def _plain(lib, out):
    """What a program returned, as plain Python/NumPy values comparable across libraries."""
    if isinstance(out, (list, tuple)):
        return [_plain(lib, o) for o in out]
    if isinstance(out, lib.Tensor):
        value = out.detach().cpu().numpy().copy()
        return ("tensor", str(value.dtype), bool(out.requires_grad), value)
    if isinstance(out, np.ndarray):
        return ("array", str(out.dtype), None, out.copy())
    if out is lib.float32 or out is lib.float64 or out is lib.int64:
        return ("dtype", str(out).rpartition(".")[2])
    return out


def _assert_same(got, expected, where="result"):
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for k, (g, e) in enumerate(zip(got, expected, strict=True)):
            _assert_same(g, e, f"{where}[{k}]")
    elif isinstance(expected, tuple) and expected[0] in ("tensor", "array"):
        assert isinstance(got, tuple) and got[:3] == expected[:3], (where, got, expected)
        rtol = {"float32": 1e-6, "float16": 1e-3}.get(expected[1], 1e-12)
        np.testing.assert_allclose(got[3], expected[3], rtol=rtol, atol=0, err_msg=where)
    else:
        assert got == expected, where


def same(program):
    """Run `program(lib)` on PyTorch and on funcgrad and assert both return the same."""
    torch = requires("torch")
    expected = _plain(torch, program(torch))
    got = _plain(funcgrad, program(funcgrad))
    _assert_same(got, expected)


def same_error(program, builtin):
    """Assert that `program(lib)` raises `builtin` in PyTorch, and a FuncgradError that is one here."""
    torch = requires("torch")
    with pytest.raises(builtin):
        program(torch)
    with pytest.raises(builtin) as info:
        program(funcgrad)
    assert isinstance(info.value, FuncgradError)
    return str(info.value)


# --- item 1: copy_ / fill_ / zero_ and in-place arithmetic keep the graph ---------------


def test_copy_from_a_recorded_source_into_a_non_leaf():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.copy_(x * x)
        y.sum().backward()
        return x.grad, y, y.is_leaf

    same(program)


def test_fill_with_a_0d_tensor_that_requires_grad():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        v = lib.tensor(3.0, requires_grad=True)
        y = x * 2
        y.fill_(v)
        y.sum().backward()
        return v.grad, x.grad, y  # x keeps a zero gradient through y's old history

    same(program)


def test_copy_into_a_plain_buffer_makes_it_part_of_the_graph():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        buf = lib.zeros(2)
        buf.copy_(x * 3)
        buf.sum().backward()
        return x.grad, buf, buf.is_leaf

    same(program)


def test_copy_broadcasts_the_source_and_casts_to_the_tensors_dtype():
    def program(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        buf = lib.zeros(3, 2)  # float32
        buf.copy_(x * 3)
        (buf * lib.arange(6.0).reshape(3, 2)).sum().backward()
        return buf, buf.dtype, x.grad, x.grad.dtype

    same(program)


def test_copy_of_a_recorded_float_source_into_an_integer_tensor_truncates():
    def program(lib):
        x = lib.tensor([1.2, 2.7], requires_grad=True)
        buf = lib.zeros(2, dtype=lib.int64)
        buf.copy_(x * 3)
        return buf, buf.requires_grad

    same(program)


def test_copy_and_fill_from_plain_values():
    def program(lib):
        a = lib.tensor([1, 2])
        a.copy_(lib.tensor([1.5, 2.5]))
        b = lib.tensor([1, 2])
        b.fill_(1.7)
        c = lib.zeros(2, 2)
        c.copy_(lib.tensor([1.0, 2.0], dtype=lib.float64))
        d = lib.ones(2)
        d.fill_(lib.tensor(4))
        return a, b, c, d

    same(program)


def test_copy_does_not_share_values_with_its_source():
    x = funcgrad.tensor([1.0, 2.0])
    y = funcgrad.zeros(2)
    y.copy_(x)
    assert not np.shares_memory(y.numpy(), x.numpy())
    x.numpy()[0] = 10.0
    assert y.tolist() == [1.0, 2.0]


def test_copy_under_no_grad_into_a_leaf_keeps_it_a_leaf():
    def program(lib):
        w = lib.zeros(2, requires_grad=True)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            w.copy_(x * 2)
        (w * w).sum().backward()
        return w.is_leaf, w.grad_fn is None, w.grad, x.grad

    same(program)


def test_zero_on_a_non_leaf_passes_zero_gradients():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.zero_()
        (y + x).sum().backward()
        return x.grad, y

    same(program)


def test_autograd_grad_sees_the_overwritten_history():
    def program(lib):
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        x = lib.tensor([3.0, 4.0], requires_grad=True)
        y = z * 2
        y.copy_(x * x)
        return lib.autograd.grad(y.sum(), [x, z])

    same(program)


@pytest.mark.parametrize("method", ["add_", "sub_", "mul_", "div_"])
def test_in_place_arithmetic_with_a_recorded_other(method):
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        o = lib.tensor([3.0, 4.0], requires_grad=True)
        y = x * 2
        getattr(y, method)(o)
        p = lib.tensor([5.0, 6.0])  # a plain tensor that becomes part of a graph
        getattr(p, method)(o)
        (y * p).sum().backward()
        return y, p, p.is_leaf, x.grad, o.grad

    same(program)


def test_augmented_assignment_with_a_recorded_other():
    def program(lib):
        o = lib.tensor([3.0, 4.0], requires_grad=True)
        acc = lib.zeros(2)
        acc += o * o
        acc *= o
        acc -= o
        acc /= 2
        acc.sum().backward()
        return acc, o.grad

    same(program)


# --- item 2: in-place operations keep the tensor's shape and dtype ----------------------


def test_in_place_cannot_change_the_shape():
    def program(lib):
        w = lib.ones(1, 2, requires_grad=True)
        with lib.no_grad():
            w -= 0.1 * lib.ones(2, 2)

    message = same_error(program, RuntimeError)
    assert "__isub__" in message and "output with shape [1, 2]" in message
    assert "doesn't match the broadcast shape [2, 2]" in message


@pytest.mark.parametrize(
    "op",
    [
        lambda lib, t: t.add_(lib.ones(2, 3)),
        lambda lib, t: t.mul_(lib.ones(3, 1)),
        lambda lib, t: t.copy_(lib.ones(2, 2)),
        lambda lib, t: t.copy_(lib.ones(2)),
        lambda lib, t: t.fill_(lib.ones(3)),
    ],
)
def test_in_place_shape_errors(op):
    message = same_error(lambda lib: op(lib, lib.ones(3)), RuntimeError)
    assert "funcgrad" in message and "[3]" in message


def test_a_broadcasting_other_keeps_the_shape():
    def program(lib):
        t = lib.ones(2, 3)
        t.add_(lib.tensor([1.0, 2.0, 3.0]))
        t.mul_(lib.tensor(2.0))
        t.sub_(lib.ones(2, 1))
        return t

    same(program)


def test_in_place_cannot_cast_float_to_integer():
    message = same_error(lambda lib: lib.tensor([1, 2]).add_(1.5), RuntimeError)
    assert "add_" in message and "can't be cast to the desired output type Long" in message
    same_error(lambda lib: lib.tensor([1, 2]).div_(2), RuntimeError)
    same_error(lambda lib: lib.tensor([True]).add_(1), RuntimeError)
    same_error(lambda lib: lib.tensor([1.0]).add_(1j), RuntimeError)


def test_in_place_casts_the_result_back_to_the_tensors_dtype():
    def program(lib):
        y = lib.ones(2, requires_grad=True) * 1
        o = lib.ones(2, dtype=lib.float64, requires_grad=True)
        y.add_(o * 3)
        (y * y).sum().backward()
        t = lib.tensor([1, 2])
        t.add_(lib.tensor([1, 2], dtype=lib.int8))
        s = lib.tensor([1, 2], dtype=lib.int8)
        s.add_(lib.tensor([1000, 2]))  # wraps around, as the cast does in PyTorch
        f = lib.tensor([1.0, 2.0])
        f += np.float64(0.5)
        f.mul_(lib.tensor(2.0, dtype=lib.float64))
        return y, y.dtype, o.grad, o.grad.dtype, t, s, f, f.dtype

    same(program)


@pytest.mark.parametrize(
    "op",
    [
        lambda lib: lib.tensor([1, 5]).clamp_(0.5, 2.5),
        lambda lib: lib.tensor([1, 2]).sqrt_(),
        lambda lib: lib.tensor([1, 2]).exp_(),
        lambda lib: lib.tensor([1, 2]).mul_(lib.tensor([0.5, 1.0])),
        lambda lib: lib.tensor([1, 2]).copy_(lib.tensor([0.5, 1.0])).add_(0.5),
    ],
)
def test_float_results_cannot_go_into_integer_tensors(op):
    message = same_error(op, RuntimeError)
    assert "can't be cast to the desired output type Long" in message


def test_integer_results_stay_integers():
    def program(lib):
        a = lib.tensor([1, 5])
        a.clamp_(0, 2)
        b = lib.tensor([1, 2])
        b.neg_()
        c = lib.tensor([1.0, 5.0])
        c.pow_(lib.tensor(2, dtype=lib.float64))
        d = lib.tensor([1, 2], dtype=lib.int32)
        d.mul_(lib.tensor([2]))
        return a, b, c, d

    same(program)


# --- item 3: a NumPy view taken before a tensor enters a graph cannot change it ---------


def test_a_numpy_view_taken_before_cannot_change_a_recorded_constant():
    t = funcgrad.tensor([1.0, 2.0, 3.0])
    view = t.numpy()[:]
    w = funcgrad.ones(3, requires_grad=True)
    y = (w * t).sum()
    view[:] = 100.0
    y.backward()
    assert w.grad.tolist() == [1.0, 2.0, 3.0]  # the values y was computed with
    assert t.tolist() == [100.0, 100.0, 100.0]  # the view still aliases t, as in PyTorch


@pytest.mark.parametrize(
    "holder",
    [
        lambda t: t.numpy(),  # the array itself
        lambda t: t.numpy()[1:],  # a view
        lambda t: memoryview(t.numpy()),  # the buffer protocol
        lambda t: np.asarray(t),  # __array__
    ],
)
def test_an_array_someone_else_holds_is_copied_into_the_graph(holder):
    t = funcgrad.tensor([1.0, 2.0, 3.0])
    alias = holder(t)
    w = funcgrad.ones(3, requires_grad=True)
    y = (w * t).sum()
    np.asarray(alias)[...] = -1.0
    y.backward()
    assert w.grad.tolist() == [1.0, 2.0, 3.0]


def test_a_constant_nothing_else_holds_is_locked_in_place_without_a_copy():
    # The cheap path: a fresh tensor's array is shared with the graph, read-only.
    t = funcgrad.tensor([1.0, 2.0, 3.0])
    w = funcgrad.ones(3, requires_grad=True)
    y = (w * t).sum()
    locked = t._value
    assert y._node.inputs[0].inputs[1] is locked and not locked.flags.writeable
    # numpy() hands out memory shared with the tensor, as PyTorch: the tensor moves to a
    # writable copy first (copy on hand-out), and the graph keeps the locked array
    array = t.numpy()
    assert array.flags.writeable and array is t._value and array is not locked
    array[0] = 5.0
    t.add_(1.0)  # in place: the array sees it
    assert t.tolist() == [6.0, 3.0, 4.0] and array.tolist() == [6.0, 3.0, 4.0]
    y.backward()
    assert w.grad.tolist() == [1.0, 2.0, 3.0]  # the values y was computed with


def test_a_constant_that_is_a_view_of_another_tensor_is_copied():
    data = funcgrad.arange(6.0)
    batch = data[2:5]  # a plain view of data's array
    w = funcgrad.ones(3, requires_grad=True)
    y = (w * batch).sum()
    assert data.numpy().flags.writeable  # data itself is not locked behind its back
    data.numpy()[:] = 0.0
    y.backward()
    assert w.grad.tolist() == [2.0, 3.0, 4.0]


# --- item 4: .grad is accumulated in place, as in PyTorch --------------------------------


def test_grad_numpy_taken_before_a_second_backward_shows_the_sum():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        seen = x.grad.numpy()
        grad = x.grad
        (x * 3).sum().backward()
        return seen, grad is x.grad, x.grad

    same(program)


def test_grad_set_by_the_user_is_accumulated_into():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        s = lib.zeros(2)
        x.grad = s
        (x * 2).sum().backward()
        return s, x.grad is s

    same(program)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_gives_a_new_grad_tensor():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
        first = x.grad
        (x * x).sum().backward(create_graph=True)
        return first is x.grad, first, x.grad

    same(program)


def test_a_grad_used_as_a_constant_keeps_its_value_in_that_graph():
    # PyTorch raises at y.backward() ("modified by an inplace operation");
    # funcgrad keeps the recorded value (deliberate: graphs are immutable).
    x = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    w = funcgrad.tensor([1.0, 1.0], requires_grad=True)
    (x * 2).sum().backward()
    y = (w * x.grad).sum()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    y.backward()
    assert w.grad.tolist() == [2.0, 2.0]


def test_a_grad_used_as_a_constant_while_its_array_is_held_still_accumulates_in_place():
    x = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    w = funcgrad.tensor([1.0, 1.0], requires_grad=True)
    (x * 2).sum().backward()
    seen = x.grad.numpy()
    y = (w * x.grad).sum()  # the graph takes a copy: the array is held
    (x * 3).sum().backward()
    assert seen.tolist() == [5.0, 5.0]
    y.backward()
    assert w.grad.tolist() == [2.0, 2.0]


def test_accumulation_never_writes_into_arrays_the_user_passed_in():
    seed = funcgrad.tensor([1.0, 1.0])
    seed_np = np.ones(2, dtype=np.float32)
    hooked = funcgrad.tensor([5.0, 5.0])
    x = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    z = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    h = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    h.register_hook(lambda g: hooked)
    r = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        (x + 0).backward(seed)  # the seed passes through to x.grad
        (z + 0).backward(seed_np)
        (h * 1).sum().backward()  # the hook's tensor becomes h's gradient
        y = r * 1
        y.retain_grad()
        (y + 0).backward(seed)
    assert seed.tolist() == [1.0, 1.0] and seed_np.tolist() == [1.0, 1.0]
    assert hooked.tolist() == [5.0, 5.0]
    assert x.grad.tolist() == [2.0, 2.0] and z.grad.tolist() == [2.0, 2.0]
    assert h.grad.tolist() == [10.0, 10.0] and y.grad.tolist() == [1.0, 1.0]


def test_two_leaves_that_got_one_array_do_not_share_it():
    x = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    z = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        (x + z).sum().backward()  # add's rule gives both inputs one array
    assert x.grad.tolist() == [2.0, 2.0] and z.grad.tolist() == [2.0, 2.0]


def test_clone_of_a_grad_does_not_follow_later_accumulation():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        kept = x.grad.clone()
        detached = x.grad.detach()  # shares the values, in PyTorch too
        (x * 2).sum().backward()
        return kept, detached, x.grad

    same(program)


def test_threads_lose_no_update_with_in_place_accumulation():
    x = funcgrad.tensor(np.ones(50_000), requires_grad=True)
    (x * 0.0).sum().backward()  # x.grad exists: the threads accumulate in place

    def work():
        for _ in range(10):
            (x * 2.0).sum().backward()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert x.grad.numpy()[0] == 80.0 and x.grad.numpy()[-1] == 80.0


def test_a_fresh_gradient_becomes_grad_without_a_copy(monkeypatch):
    # `_PRIVATE_REFS` counts the references run_backward itself holds; if that
    # changes, every first gradient would be copied (or, worse, none).
    from funcgrad.tensors import engine

    counts = []

    def counting(a):
        counts.append(engine_getrefcount(a) - 1)  # minus this wrapper's own argument
        return counts[-1]

    engine_getrefcount = engine._getrefcount
    monkeypatch.setattr(engine, "_getrefcount", counting)
    x = funcgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward()  # one leaf and one retained non-leaf
    assert counts == [engine._PRIVATE_REFS] * 2


# --- item 5: iteration -----------------------------------------------------------------


def test_iterating_a_tensor_that_requires_grad():
    def program(lib):
        t = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        doubled = [v * 2 for v in t]
        a, b, c = t
        total = sum(t)
        stacked = lib.stack(list(t))
        (stacked * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
        (a * b * c + total).backward()
        m = lib.arange(6.0).reshape(3, 2).requires_grad_()
        rows = list(m)
        (rows[0] * rows[2]).sum().backward()
        return doubled, a, b, c, total, stacked, t.grad, len(rows), rows[1], m.grad

    same(program)


def test_iterating_a_0d_tensor_is_a_type_error():
    torch = requires("torch")
    for lib in (torch, funcgrad):
        with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
            iter(lib.tensor(1.0))
        with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
            len(lib.tensor(1.0))
        assert list(lib.zeros(0)) == []


# --- item 6: copy, deepcopy and pickle --------------------------------------------------


def test_deepcopy_of_a_leaf_is_an_independent_leaf_with_its_grad_copied():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        y = copy.deepcopy(x)
        independent = y.grad is not x.grad
        (y * 5).sum().backward()
        return y, y.is_leaf, y.grad, x.grad, independent

    same(program)


def test_deepcopy_of_a_list_and_a_dict_of_parameters():
    def program(lib):
        w = lib.ones(2, requires_grad=True)
        b = lib.zeros(1, requires_grad=True)
        target = copy.deepcopy([w, b])
        ema = copy.deepcopy({"w": w, "also_w": w, "b": b})
        with lib.no_grad():
            w.mul_(3)
        return target, ema["w"], ema["also_w"] is ema["w"], ema["b"].is_leaf

    same(program)


def test_deepcopy_of_a_non_leaf_raises_as_in_pytorch():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        copy.deepcopy(x * 2)

    message = same_error(program, RuntimeError)
    assert "Only Tensors created explicitly by the user (graph leaves)" in message


def test_pickle_keeps_values_dtype_and_requires_grad():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        leaf = pickle.loads(pickle.dumps(x))
        non_leaf = pickle.loads(pickle.dumps(x * 3))  # comes back as a leaf
        ints = pickle.loads(pickle.dumps(lib.tensor([1, 2])))
        return (
            leaf,
            leaf.grad,
            non_leaf,
            non_leaf.is_leaf,
            non_leaf.grad_fn is None,
            ints,
        )

    same(program)


def test_copy_copy_of_a_leaf_gets_its_own_gradient():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        c = copy.copy(x)
        (c * 5).sum().backward()
        d = copy.copy(x * 2)  # a non-leaf: a leaf that requires grad, as pickling gives
        return c, c is x, c.is_leaf, c.grad, x.grad, d, d.grad_fn is None

    same(program)


def test_variable_copies_keep_volatile():
    from funcgrad.autograd import Variable

    v = Variable(funcgrad.ones(2), volatile=True)
    for c in (copy.copy(v), copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        assert type(c) is Variable and c.volatile and not c.requires_grad


# --- item 7: complex leaves (differentiated since issue #13) ----------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: funcgrad.tensor(1 + 2j, requires_grad=True),
        lambda: funcgrad.tensor([1j, 2.0]).requires_grad_(),
        lambda: funcgrad.tensor([1j]).requires_grad_(True),
    ],
)
def test_a_complex_tensor_can_require_grad(make):
    t = make()
    assert t.requires_grad and t.is_leaf and t.dtype == funcgrad.complex64
    (t.abs() ** 2).sum().backward()  # PyTorch's convention: 2 z
    np.testing.assert_allclose(t.grad.numpy(), 2 * t.detach().numpy(), rtol=1e-6)


def test_complex_values_can_be_put_into_a_leaf_that_requires_grad():
    x = funcgrad.ones(2, requires_grad=True)
    x.data = funcgrad.tensor([1j, 2j])  # as in PyTorch, .data may change the dtype
    assert x.dtype == funcgrad.complex64 and x.requires_grad and x.is_leaf
    plain = funcgrad.tensor([1j, 2j])  # complex values without gradients work
    assert (plain * 2).tolist() == [2j, 4j]


# --- item 5: in-place operations on views write into their base (issue #14) -------------


def test_copy_from_a_recorded_source_into_a_view_of_a_plain_buffer():
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        buf = lib.zeros(2, 3)
        buf[:, 1].copy_(x * 3)
        buf.t()[2].fill_(1.0)
        (buf * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return x.grad, buf, buf.is_leaf, buf.requires_grad

    same(program)


@pytest.mark.parametrize("method", ["add_", "sub_", "mul_", "div_"])
def test_in_place_arithmetic_on_a_view_with_a_recorded_other(method):
    def program(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        o = lib.tensor([3.0, 4.0], requires_grad=True)
        y = x * 2
        getattr(y[1], method)(o)
        getattr(y.t()[0], method)(o)
        (y * y).sum().backward()
        return y, x.grad, o.grad

    same(program)


def test_zero_on_a_view_of_a_non_leaf_passes_zero_gradients_there():
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y[1:].zero_()
        (y + x).sum().backward()
        return x.grad, y, y._version

    same(program)


def test_augmented_assignment_on_views():
    def program(lib):
        o = lib.tensor([3.0, 4.0], requires_grad=True)
        acc = lib.zeros(3, 2)
        acc[0] += o * o
        acc[1:] *= 2
        acc[:, 1] -= o[1]
        acc[2] /= 4
        acc.sum().backward()
        return acc, o.grad, acc._version

    same(program)


def test_without_measured_refcounts_every_shortcut_copies(monkeypatch):
    # Another interpreter (CPython 3.14 borrows references): .grad and graph constants copy,
    # and the numbers stay the same.
    import funcgrad.tensors.engine as engine
    import funcgrad.tensors.tensor_class as tensor_class

    def run():
        w = funcgrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        c = funcgrad.tensor(np.ones((2, 3)))
        for _ in range(2):
            ((w * c).sin().sum() + (w**2).mean()).backward()
        return w.grad.numpy().copy(), c.numpy()

    want = run()
    monkeypatch.setattr(engine, "REFCOUNTS_MEASURED", False)
    monkeypatch.setattr(tensor_class, "REFCOUNTS_MEASURED", False)
    got = run()
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
