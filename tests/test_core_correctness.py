"""Issue #12, functional core: no silently wrong number, or a clear error instead.

Each test names the item it guards. References are independent of funcgrad's
own differentiation: closed forms, central differences in float64, HIPS
autograd, or PyTorch 2.13 (`torch.func`) for the Tensor layer.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.backend import rng
from funcgrad.transforms.jit import JitWarning
from tests.references import requires


def _central_differences(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


# --- checkpoint replays funcgrad's random numbers ---------------------------------


def _dropout_loss(x):
    mask = fg.rand(*x.shape, dtype=fg.float64).numpy() > 0.5  # funcgrad's generator
    return fnp.sum(fnp.tanh(x) * mask * 2.0)


def test_checkpoint_recomputes_with_the_forwards_random_numbers():
    x = np.linspace(-1.0, 1.0, 16)
    fg.manual_seed(7)
    mask = fg.rand(16, dtype=fg.float64).numpy() > 0.5
    expected = 2.0 * mask * (1.0 - np.tanh(x) ** 2)  # d/dx of sum(tanh(x) * mask * 2)
    assert 0 < mask.sum() < 16

    fg.manual_seed(7)
    np.testing.assert_allclose(fg.grad(_dropout_loss)(x), expected, rtol=1e-12)
    fg.manual_seed(7)
    np.testing.assert_allclose(fg.grad(fg.checkpoint(_dropout_loss))(x), expected, rtol=1e-12)
    # The recomputation does not move the generator on (PyTorch's fork_rng).
    after = fg.rand(4).numpy()
    fg.manual_seed(7)
    fg.rand(16, dtype=fg.float64)
    np.testing.assert_array_equal(fg.rand(4).numpy(), after)


def test_checkpoint_replays_random_numbers_in_forward_mode_and_for_each_output():
    x = np.linspace(-1.0, 1.0, 6)

    def two(x):
        noise = rng.standard_normal(x.shape, np.float64)
        return x * noise, fnp.sin(x) * noise

    fg.manual_seed(1)
    noise = rng.standard_normal((6,), np.float64)
    fg.manual_seed(1)
    jac = fg.jacfwd(lambda x: fg.checkpoint(two)(x)[1])(x)
    np.testing.assert_allclose(np.diag(jac), np.cos(x) * noise, rtol=1e-12)
    fg.manual_seed(1)
    g = fg.grad(lambda x: fnp.sum(fg.checkpoint(two)(x)[0] + fg.checkpoint(two)(x)[1]))(x)
    fg.manual_seed(1)
    n1 = rng.standard_normal((6,), np.float64)
    n2 = rng.standard_normal((6,), np.float64)
    np.testing.assert_allclose(g, n1 + np.cos(x) * n2, rtol=1e-12)


def test_checkpoint_preserve_rng_state_false_opts_out():
    x = np.linspace(-1.0, 1.0, 64)
    fg.manual_seed(7)
    reference = fg.grad(_dropout_loss)(x)
    fg.manual_seed(7)
    fresh = fg.grad(fg.checkpoint(_dropout_loss, preserve_rng_state=False))(x)
    assert not np.array_equal(fresh, reference)  # new noise, as documented
    layer = fg.checkpoint(preserve_rng_state=False)(lambda x: fnp.tanh(x))  # decorator form
    np.testing.assert_allclose(
        fg.grad(lambda x: fnp.sum(layer(x)))(x), 1.0 - np.tanh(x) ** 2, rtol=1e-12
    )


# --- custom_vjp residuals are read-only --------------------------------------------


def test_custom_vjp_residuals_cannot_change_the_gradient_after_the_forward():
    kept = {}

    @fg.custom_vjp
    def sin(x):
        return fnp.sin(x)

    def fwd(x):
        cos = np.cos(x.value)  # a writeable array of the user's
        kept["cos"] = cos
        return sin(x), (cos, None, 3, [cos, "note"])

    def bwd(res, ct):
        assert not res[0].flags.writeable and res[3][1] == "note" and res[2] == 3
        return (ct * res[0],)

    sin.defvjp(fwd, bwd)
    x0 = np.array([0.5, 1.0, 2.0])
    x = fg.leaf(x0)
    y = fnp.sum(sin(x))
    kept["cos"][:] = 100.0  # after the forward: must not reach the gradient
    np.testing.assert_allclose(fg.backward(y)[x], np.cos(x0), rtol=1e-12)
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(sin(x)))(x0), np.cos(x0), rtol=1e-12)


# --- fg.grad on a Tensor: a tensor on the same graph, as torch.func.grad ---------


def _cube_sin(a):
    return (a**3).sin().sum()


def test_grad_of_a_tensor_that_requires_grad_stays_on_its_graph():
    torch = requires("torch")
    x0 = [0.5, -1.25, 2.0]
    x = fg.tensor(x0, dtype=fg.float64, requires_grad=True)
    xt = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    g = fg.grad(_cube_sin)(x)
    gt = torch.func.grad(_cube_sin)(xt)
    assert isinstance(g, fg.Tensor) and g.requires_grad and g.grad_fn is not None
    np.testing.assert_allclose(g.detach().numpy(), gt.detach().numpy(), rtol=1e-12)
    # .backward() from the gradient reaches x: the second derivative.
    g.sum().backward()
    gt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    # grad of grad, composed functionally.
    gg = fg.grad(lambda a: fg.grad(_cube_sin)(a).sum())(x)
    ggt = torch.func.grad(lambda a: torch.func.grad(_cube_sin)(a).sum())(xt)
    np.testing.assert_allclose(gg.detach().numpy(), ggt.detach().numpy(), rtol=1e-12)


def test_grad_of_a_tensor_without_grad_and_under_no_grad():
    torch = requires("torch")
    x0 = [0.5, -1.25, 2.0]
    gt = torch.func.grad(_cube_sin)(torch.tensor(x0, dtype=torch.float64)).numpy()
    g = fg.grad(_cube_sin)(fg.tensor(x0, dtype=fg.float64))
    assert isinstance(g, fg.Tensor) and not g.requires_grad
    np.testing.assert_allclose(g.numpy(), gt, rtol=1e-12)
    # As torch.func.grad, an outer no_grad does not stop the transform recording f.
    with fg.no_grad():
        g = fg.grad(_cube_sin)(fg.tensor(x0, dtype=fg.float64))
    np.testing.assert_allclose(g.numpy(), gt, rtol=1e-12)
    # float32 in, float32 out.
    g32 = fg.grad(_cube_sin)(fg.tensor(x0, requires_grad=True))
    assert g32.dtype == fg.float32
    np.testing.assert_allclose(g32.detach().numpy(), gt, rtol=1e-5)


def test_vjp_and_jvp_of_tensors_match_torch_func():
    torch = requires("torch")
    x0, v0 = [0.5, -1.25, 2.0], [1.0, 2.0, -3.0]

    def f(a):
        return (a**2).exp() * a

    x = fg.tensor(x0, dtype=fg.float64, requires_grad=True)
    xt = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    out, vjp_fn = fg.vjp(f, x)
    out_t, vjp_fn_t = torch.func.vjp(f, xt)
    (ct,) = vjp_fn(fg.tensor(v0, dtype=fg.float64))
    (ct_t,) = vjp_fn_t(torch.tensor(v0, dtype=torch.float64))
    assert isinstance(out, fg.Tensor) and isinstance(ct, fg.Tensor) and ct.grad_fn is not None
    np.testing.assert_allclose(out.detach().numpy(), out_t.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ct.detach().numpy(), ct_t.detach().numpy(), rtol=1e-12)
    o, t = fg.jvp(f, (x,), (fg.tensor(v0, dtype=fg.float64),))
    o_t, t_t = torch.func.jvp(f, (xt,), (torch.tensor(v0, dtype=torch.float64),))
    assert isinstance(o, fg.Tensor) and isinstance(t, fg.Tensor)
    np.testing.assert_allclose(t.detach().numpy(), t_t.detach().numpy(), rtol=1e-12)
    t.sum().backward()
    t_t.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


# --- complex values are differentiated (issue #13; was refused before) --------------


def test_complex_primals_and_recorded_operations_are_differentiated():
    autograd = requires("autograd")
    anp = requires("autograd.numpy")
    # Was (-1.78-2.06j) before the refusal; |exp(z)| = e^x: the gradient is e + 0j.
    g = fg.grad(lambda z: fnp.abs(fnp.exp(z)))(1 + 2j)
    assert type(g) is complex
    np.testing.assert_allclose(g, autograd.grad(lambda z: anp.abs(anp.exp(z)))(1 + 2j))
    np.testing.assert_allclose(g, np.e, rtol=1e-12)
    # A real input meeting a complex factor gets a real gradient (the real part).
    gx = fg.grad(lambda x: fnp.sum(fnp.abs(x * np.array([1j, 2.0]))))(np.ones(2))
    assert gx.dtype == np.float64
    np.testing.assert_allclose(gx, [1.0, 2.0])
    z = fg.leaf(np.ones(2) * 1j)
    np.testing.assert_allclose(fg.backward(fnp.sum(fnp.abs(z * z)), wrt=[z])[z], [-2j, -2j])
    out, t = fg.jvp(fnp.exp, (np.ones(2) * 1j,), (np.ones(2) * 1j,))
    np.testing.assert_allclose(t, np.exp(1j) * 1j)


def test_complex_cotangents_and_tangents_of_real_values_are_refused():
    # A real output's cotangent, a real primal's tangent, are real (JAX refuses too).
    with pytest.raises(fg.DtypeError, match=r"funcgrad.vjp \(vjp_fn\): a complex cotangent"):
        fg.vjp(lambda x: x * 2.0, np.ones(2))[1](np.ones(2) * 1j)
    with pytest.raises(fg.DtypeError, match=r"funcgrad.jvp: a complex tangent"):
        fg.jvp(lambda x: x * 2.0, (np.ones(2),), (np.ones(2) * 1j,))
    with pytest.raises(fg.DtypeError, match=r"funcgrad.backward: a complex cotangent"):
        fg.backward(fg.leaf(np.ones(2)) * 2.0, np.ones(2) * 1j)
    with pytest.raises(fg.DtypeError, match=r"funcgrad.grad: f must return a real-valued"):
        fg.grad(lambda z: z * z)(1 + 1j)


def test_complex_tensor_times_a_tensor_that_requires_grad_is_differentiated():
    torch = requires("torch")
    grads = []
    for lib in (torch, fg):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (lib.tensor([1 + 2j, 3j]) * x).abs().sum().backward()
        grads.append(x.grad.numpy())
    assert grads[1].dtype == np.float32
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
    with fg.no_grad():  # nothing recorded: plain complex arithmetic
        np.testing.assert_allclose((fg.tensor([1 + 2j, 3j]) * x).numpy(), [1 + 2j, 6j])


def test_plain_complex_computation_still_works():
    z = np.array([1 + 2j, -0.5j])
    np.testing.assert_allclose(fnp.abs(fnp.exp(z)), np.abs(np.exp(z)), rtol=1e-15)
    np.testing.assert_allclose(fnp.sum(fnp.sin(z) * z), np.sum(np.sin(z) * z), rtol=1e-15)


# --- hvp with bare arrays says primals and tangents are tuples --------------------


def test_hvp_with_bare_arrays_says_tuples():
    def f(x):
        return fnp.sum(x**3)

    x, v = np.array([1.0, -2.0, 0.5]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match=r"funcgrad.hvp: primals and tangents must be tuples"):
        fg.hvp(f, x, v)
    with pytest.raises(fg.ShapeError, match=r"funcgrad.hvp: a tangent has shape \(2,\)"):
        fg.hvp(f, (x,), (v[:2],))
    np.testing.assert_allclose(fg.hvp(f, (x,), (v,)), 6.0 * x * v, rtol=1e-12)  # H = diag(6x)


# --- iteration over nodes, and an IndexError for out-of-range indices -------------


def test_iterating_a_traced_value_is_differentiable():
    x0 = np.arange(3.0) + 0.5

    def squares(x):
        return sum(v * v for v in x)

    np.testing.assert_allclose(
        fg.grad(squares)(x0), _central_differences(lambda x: np.sum(x * x), x0), rtol=1e-8
    )

    def unpacked(x):
        a, b = x  # rows of a 2-D value
        return fnp.sum(a * fnp.sin(b))

    m0 = np.array([[0.5, -1.0], [2.0, 0.25]])
    np.testing.assert_allclose(
        fg.grad(unpacked)(m0),
        _central_differences(lambda m: np.sum(m[0] * np.sin(m[1])), m0),
        rtol=1e-8,
    )
    assert len(fg.leaf(m0)) == 2
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(fg.leaf(1.0))
    with pytest.raises(ValueError, match="not enough values to unpack"):
        fg.grad(lambda x: unpacked(x[:1]))(m0)


def test_an_out_of_range_index_is_an_index_error():
    x = fg.leaf(np.ones(2))
    with pytest.raises(IndexError, match=r"funcgrad.getitem\(float64\[2\].*out of bounds"):
        x[5]
    with pytest.raises(fg.errors.IndexingError):
        x[0, 0]  # too many indices
    assert issubclass(fg.errors.IndexingError, fg.errors.OpError)

    class Rows:  # Python's legacy iteration protocol: __getitem__ until IndexError
        def __init__(self, node):
            self.node = node

        def __getitem__(self, i):
            return self.node[i]

    def legacy(x):
        return sum(v * 3.0 for v in Rows(x))

    np.testing.assert_allclose(fg.grad(legacy)(np.ones(3)), [3.0, 3.0, 3.0])
    t = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(IndexError, match="out of bounds"):
        t[2]


# --- copying and pickling nodes and GradMaps ---------------------------------------


def test_nodes_copy_to_themselves_and_pickle_as_leaves():
    x0 = np.array([0.5, -2.0])
    x = fg.leaf(x0)
    y = fnp.sum(fnp.sin(x) * x)
    assert copy.copy(y) is y and copy.deepcopy(y) is y
    params = {"w": x, "b": np.ones(2)}
    clone = copy.deepcopy(params)
    assert clone["w"] is x and clone["b"] is not params["b"]
    y2 = pickle.loads(pickle.dumps(y))
    assert y2.is_leaf and y2 is not y and y2.value == y.value  # the value, no history
    x2 = pickle.loads(pickle.dumps(x))
    assert x2.is_leaf and not x2.value.flags.writeable
    np.testing.assert_array_equal(x2.value, x0)
    np.testing.assert_allclose(fg.backward(fnp.sum(x2 * x2))[x2], 2 * x0)


def test_grad_maps_copy_deepcopy_and_pickle():
    x0 = np.array([0.5, -2.0])
    x = fg.leaf(x0)
    grads = fg.backward(fnp.sum(fnp.sin(x) * x))
    expected = np.sin(x0) + x0 * np.cos(x0)
    shallow = copy.copy(grads)
    assert shallow is not grads and shallow[x] is grads[x]
    deep = copy.deepcopy(grads)
    assert deep[x] is not grads[x]  # keyed by the same node, the arrays copied
    np.testing.assert_allclose(deep[x], expected)
    x2, loaded = pickle.loads(pickle.dumps((x, grads)))
    assert isinstance(loaded, fg.GradMap) and list(loaded) == [x2]
    np.testing.assert_allclose(loaded[x2], expected)
    with pytest.raises(TypeError, match="immutable"):
        deep[x] = 0.0


def test_deepcopy_of_a_leaf_tensor_gets_its_own_gradient():
    torch = requires("torch")
    for lib in (fg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        clone = copy.deepcopy(x)
        assert clone.requires_grad and clone.is_leaf
        (clone * 3.0).sum().backward()
        assert x.grad is None
        np.testing.assert_allclose(clone.grad.numpy(), [3.0, 3.0])
        with pytest.raises(RuntimeError, match="graph leaves"):
            copy.deepcopy(x * 2.0)


# --- NumPy integer axes give NumPy's answer, inside grad too ------------------------

_I = np.int64
_AXIS_CASES = {
    "sum": (lambda m, a: m.sum(a, axis=_I(1)), lambda a: np.sum(a, axis=_I(1))),
    "squeeze": (lambda m, a: m.squeeze(a[:, :1], axis=_I(1)), None),
    "expand_dims": (lambda m, a: m.expand_dims(a, _I(1)), None),
    "moveaxis": (lambda m, a: m.moveaxis(a, _I(0), _I(-1)), None),
    "swapaxes": (lambda m, a: m.swapaxes(a, _I(0), _I(2)), None),
    "cumsum": (lambda m, a: m.cumsum(a, axis=_I(2)), None),
    "take": (lambda m, a: m.take(a, np.array([0, 2]), axis=_I(1)), None),
    "split": (lambda m, a: m.split(a, _I(2), axis=_I(2))[1], None),
    "concatenate": (lambda m, a: m.concatenate([a, a * a], axis=_I(1)), None),
    "mean": (lambda m, a: m.mean(a, axis=(_I(0), _I(2))), None),
    "index": (lambda m, a: a[_I(1), :, _I(-1)], None),
}


@pytest.mark.parametrize("name", sorted(_AXIS_CASES))
def test_numpy_integer_axes(name):
    f, _ = _AXIS_CASES[name]
    x0 = np.arange(24.0).reshape(2, 3, 4) / 7.0 + 0.1
    np.testing.assert_allclose(f(fnp, x0), f(np, x0), rtol=1e-15)
    got = fg.grad(lambda x: fnp.sum(fnp.sin(f(fnp, x))))(x0)
    want = _central_differences(lambda x: np.sum(np.sin(f(np, x))), x0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    # The recorded parameters hold Python ints (hashable and equal to NumPy's).
    from funcgrad.graph import toposort

    for node in toposort(fnp.sum(f(fnp, fg.leaf(x0)))):
        for value in node.params.values():
            parts = value if isinstance(value, tuple) else (value,)
            assert not any(isinstance(p, np.integer) for p in parts), (node, value)


def _advect(np_, f, x):
    """Linear interpolation of the plain array `f` at the points `x` (autograd's fluidsim idiom)."""
    left = np_.floor(x).astype(int)
    w = x - left
    return (1 - w) * f[np_.mod(left, f.size)] + w * f[np_.mod(left + 1, f.size)]


def test_an_integer_node_indexes_a_plain_array_as_in_autograd():
    autograd = requires("autograd")
    anp = requires("autograd.numpy")
    f = np.sin(np.arange(8.0))
    x = np.array([0.3, 2.5, 6.75, 7.5])

    def loss(np_):
        return lambda x: np_.sum(_advect(np_, f, x) ** 2)

    np.testing.assert_allclose(
        fg.grad(loss(fnp))(x), autograd.grad(loss(anp))(x), rtol=1e-14, atol=1e-15
    )
    index = fnp.floor(fg.leaf(np.array([2.5, 0.5]))).astype(int)
    assert type(index) is fg.Node and f[index].tolist() == [f[2], f[0]]
    with pytest.raises(TypeError, match="passed to NumPy"):
        f[fg.leaf(np.array([1.0]))]  # a float node would lose its derivative


def test_jit_runs_an_integer_read_eagerly_and_vmap_refuses_it():
    f = np.sin(np.arange(8.0))

    def loss(x):
        return fnp.sum(_advect(fnp, f, x) ** 2)

    jitted = fg.jit(loss)
    with pytest.warns(JitWarning, match="runs eagerly"):
        assert jitted(np.array([0.3, 2.5])) == loss(np.array([0.3, 2.5]))
    assert jitted(np.array([6.75, 7.5])) == loss(np.array([6.75, 7.5]))  # not a baked index
    with pytest.raises(fg.BatchingError, match="converted to a NumPy array"):
        fg.vmap(loss)(np.array([[0.3, 2.5], [6.75, 7.5]]))
