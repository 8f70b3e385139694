"""The workloads of issue 7 (W1-W6), written once per framework.

Each `build_*` function returns a dict from an implementation name to a
zero-argument function that runs one forward plus full backward and returns
its results as a tuple of NumPy arrays (the value first where there is one,
then the gradients), so that every implementation can be checked against the
hand-written NumPy one. The names:

- `numpy`: the computation and its derivative written by hand with NumPy;
- `fg_func`: funcgrad's functional path (`value_and_grad`, `hvp`);
- `fg_imp`: funcgrad's imperative path (`Tensor.backward()`, `autograd.grad`);
- `torch`: PyTorch eager, the same code as `fg_imp` with `torch` for `funcgrad`;
- `autograd`: HIPS autograd (`autograd.value_and_grad`, `hessian_vector_product`);
- extra `fg_*` names: details of funcgrad (graph building alone, `funcgrad.backward`).

A peer that is not installed is left out of the dict. The data are made
once per build from a fixed seed; the imperative implementations create
their parameters once and clear `.grad` every step, as a training loop does.
"""

from __future__ import annotations

import math

import numpy as np
import peers

import funcgrad as fg
import funcgrad.nn as fnn
import funcgrad.numpy as fnp

# --- W1, W2: a long elementwise chain ------------------------------------------------

# One cycle of the chain: x*0.9, sin, +0.1, tanh, then exp(-x*x) as three primitives
# (multiply(x, x), negative, exp). 285 cycles plus the first five ops of a 286th: 2,000 ops.
_CYCLE = ("mul", "sin", "add", "tanh", "square", "neg", "exp")
N_OPS = 2000
_FULL_CYCLES, _REST = divmod(N_OPS, len(_CYCLE))
assert _REST == 5
_KINDS = tuple(_CYCLE[i % len(_CYCLE)] for i in range(N_OPS))


def chain(x, sin, tanh, exp):
    """The 2,000-op chain on any array type with operators, given its sin, tanh and exp."""
    for _ in range(_FULL_CYCLES):
        x = x * 0.9
        x = sin(x)
        x = x + 0.1
        x = tanh(x)
        x = x * x
        x = -x
        x = exp(x)
    x = x * 0.9
    x = sin(x)
    x = x + 0.1
    x = tanh(x)
    return x * x


def chain_fg(x):
    """The chain on funcgrad nodes (`funcgrad.numpy` functions and operators), then a sum."""
    return fnp.sum(chain(x, fnp.sin, fnp.tanh, fnp.exp))


def chain_numpy(x0):
    """The chain and its gradient by hand: NumPy forward keeping a tape, then the VJPs in reverse."""
    sin, cos, tanh, exp = np.sin, np.cos, np.tanh, np.exp
    tape = []
    x = x0
    for _ in range(_FULL_CYCLES):
        a = x * 0.9
        b = sin(a)
        c = b + 0.1
        d = tanh(c)
        e = d * d
        f = -e
        x = exp(f)
        tape.append((a, d, x))
    a = x * 0.9
    b = sin(a)
    c = b + 0.1
    d = tanh(c)
    x = d * d
    value = np.sum(x)
    ct = np.ones_like(x)  # VJP of sum
    ct = (ct * d) + (ct * d)  # x * x: two contributions
    ct = ct * (1.0 - d * d)  # tanh
    ct = ct * cos(a)  # sin (the add passes ct through)
    ct = ct * 0.9
    for a, d, g in reversed(tape):
        ct = ct * g  # exp
        ct = -ct
        ct = (ct * d) + (ct * d)
        ct = ct * (1.0 - d * d)
        ct = ct * cos(a)
        ct = ct * 0.9
    return value, ct


def build_chain(x0: np.ndarray, with_details: bool = True) -> dict:
    """W1 (x0 of shape (16,)) and W2 (x0 0-d): the chain's value and gradient."""
    x0 = fg.freeze(np.asarray(x0, dtype=np.float64))
    impls = {"numpy": lambda: chain_numpy(x0)}

    vg = fg.value_and_grad(chain_fg)
    impls["fg_func"] = lambda: vg(x0)

    def fg_imp():
        x = fg.tensor(x0, requires_grad=True)
        y = chain(x, fg.sin, fg.tanh, fg.exp).sum()
        y.backward()
        return y.item(), x.grad.numpy()

    impls["fg_imp"] = fg_imp

    torch, _ = peers.load("torch")
    if torch is not None:
        xt0 = torch.from_numpy(np.array(x0))

        def torch_impl():
            x = xt0.clone().requires_grad_()
            y = chain(x, torch.sin, torch.tanh, torch.exp).sum()
            y.backward()
            return y.item(), x.grad.numpy()

        impls["torch"] = torch_impl

    ag, _ = peers.load("autograd")
    if ag is not None:
        import autograd.numpy as anp

        avg = ag.value_and_grad(lambda x: anp.sum(chain(x, anp.sin, anp.tanh, anp.exp)))
        xa0 = np.array(x0)
        impls["autograd"] = lambda: avg(xa0)

    if with_details:
        # Details: building the graph alone, funcgrad.backward on a graph built once,
        # and leaf + chain + funcgrad.backward (the old section (a)).
        built_y = chain_fg(fg.leaf(x0))
        built_x = fg.toposort(built_y)[0]

        def fg_backward():
            x = fg.leaf(x0)
            y = chain_fg(x)
            return y.value, fg.backward(y)[x]

        impls["fg_build"] = lambda: chain_fg(fg.leaf(x0))
        impls["fg_bwd_only"] = lambda: fg.backward(built_y)[built_x]
        impls["fg_backward"] = fg_backward
    return impls


# --- W3: a small MLP with softmax cross-entropy ----------------------------------------


def mlp_data(seed: int = 3):
    rng = np.random.default_rng(seed)
    n, d_in, d_hid, d_out = 64, 64, 128, 10
    X = rng.standard_normal((n, d_in))
    labels = rng.integers(0, d_out, n)
    params = (
        rng.standard_normal((d_in, d_hid)) / np.sqrt(d_in),
        np.zeros(d_hid),
        rng.standard_normal((d_hid, d_out)) / np.sqrt(d_hid),
        np.zeros(d_out),
    )
    return X, labels, params


def _mlp_loss_tensor(X, labels, rows, W1, b1, W2, b2, mod):
    """The MLP loss for Tensor libraries (`mod` is `torch` or `funcgrad`)."""
    h = mod.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    logp = mod.log_softmax(z, dim=1)
    return -logp[rows, labels].mean()


def build_mlp() -> dict:
    X, labels, params = mlp_data()
    n = X.shape[0]
    rows = np.arange(n)
    X = fg.freeze(X)
    labels = fg.freeze(labels)
    rows = fg.freeze(rows)
    params = tuple(fg.freeze(p) for p in params)

    def numpy_step():
        W1, b1, W2, b2 = params
        A = np.tanh(X @ W1 + b1)
        Z = A @ W2 + b2
        Z = Z - Z.max(axis=1, keepdims=True)
        E = np.exp(Z)
        S = E.sum(axis=1, keepdims=True)
        value = -np.mean(Z[rows, labels] - np.log(S[:, 0]))
        dZ = E / S
        dZ[rows, labels] -= 1.0
        dZ /= n
        dW2 = A.T @ dZ
        db2 = dZ.sum(axis=0)
        dH = (dZ @ W2.T) * (1.0 - A * A)
        dW1 = X.T @ dH
        db1 = dH.sum(axis=0)
        return value, dW1, db1, dW2, db2

    impls = {"numpy": numpy_step}

    def fg_loss(W1, b1, W2, b2):
        h = fnp.tanh(fnp.matmul(X, W1) + b1)
        z = fnp.matmul(h, W2) + b2
        logp = fnn.log_softmax(z, axis=1)
        return -fnp.mean(logp[rows, labels])

    vg = fg.value_and_grad(fg_loss, argnums=(0, 1, 2, 3))

    def fg_func():
        value, grads = vg(*params)
        return (value, *grads)

    impls["fg_func"] = fg_func

    fX, flab, frows = fg.from_numpy(X), fg.from_numpy(labels), fg.from_numpy(rows)
    fparams = [fg.tensor(p, requires_grad=True) for p in params]

    def fg_imp():
        for p in fparams:
            p.grad = None
        loss = _mlp_loss_tensor(fX, flab, frows, *fparams, fg)
        loss.backward()
        return (loss.item(), *(p.grad.numpy() for p in fparams))

    impls["fg_imp"] = fg_imp

    torch, _ = peers.load("torch")
    if torch is not None:
        tX = torch.from_numpy(np.array(X))
        tlab = torch.from_numpy(np.array(labels))
        trows = torch.arange(n)
        tparams = [torch.from_numpy(np.array(p)).requires_grad_() for p in params]

        def torch_step():
            for p in tparams:
                p.grad = None
            loss = _mlp_loss_tensor(tX, tlab, trows, *tparams, torch)
            loss.backward()
            return (loss.item(), *(p.grad.numpy() for p in tparams))

        impls["torch"] = torch_step

    ag, _ = peers.load("autograd")
    if ag is not None:
        import autograd.numpy as anp
        from autograd.scipy.special import logsumexp

        aX, alab, arows = np.array(X), np.array(labels), np.array(rows)

        def ag_loss(W1, b1, W2, b2):
            h = anp.tanh(anp.dot(aX, W1) + b1)
            z = anp.dot(h, W2) + b2
            logp = z - logsumexp(z, axis=1, keepdims=True)
            return -anp.mean(logp[arows, alab])

        avg = ag.value_and_grad(ag_loss, argnum=(0, 1, 2, 3)) if _ag_multi(ag) else None
        aparams = tuple(np.array(p) for p in params)
        if avg is not None:

            def ag_step():
                value, grads = avg(*aparams)
                return (value, *grads)

        else:  # older autograd: one argument, a tuple of parameters
            avg1 = ag.value_and_grad(lambda ps: ag_loss(*ps))

            def ag_step():
                value, grads = avg1(aparams)
                return (value, *grads)

        impls["autograd"] = ag_step
    return impls


def _ag_multi(ag) -> bool:
    """Whether this autograd accepts a tuple `argnum`."""
    try:
        ag.value_and_grad(lambda a, b: a * b, argnum=(0, 1))(1.0, 2.0)
        return True
    except Exception:  # noqa: BLE001
        return False


# --- W4: big float32 matrices -----------------------------------------------------------


def build_matmul(with_details: bool = True) -> dict:
    """W4: the value and the gradients w.r.t. W1 and W2 of sum(tanh(X @ W1) @ W2)."""
    rng = np.random.default_rng(1)
    # freeze() makes read-only arrays that funcgrad's graph then shares without a copy.
    X = fg.freeze(rng.standard_normal((512, 1024), dtype=np.float32) / 32)
    W1 = fg.freeze(rng.standard_normal((1024, 1024), dtype=np.float32) / 32)
    W2 = fg.freeze(rng.standard_normal((1024, 256), dtype=np.float32) / 32)

    def numpy_step():
        A = np.tanh(X @ W1)
        value = np.sum(A @ W2)
        ct = np.ones((X.shape[0], W2.shape[1]), np.float32)  # VJP of sum
        dW2 = A.T @ ct
        dH = (ct @ W2.T) * (1.0 - A * A)
        dW1 = X.T @ dH
        return value, dW1, dW2

    impls = {"numpy": numpy_step}

    def loss(w1, w2):
        return fnp.sum(fnp.matmul(fnp.tanh(fnp.matmul(X, w1)), w2))

    vg = fg.value_and_grad(loss, argnums=(0, 1))

    def fg_func():
        value, (g1, g2) = vg(W1, W2)
        return value, g1, g2

    impls["fg_func"] = fg_func

    fX = fg.from_numpy(X)
    fW1 = fg.tensor(W1, requires_grad=True)
    fW2 = fg.tensor(W2, requires_grad=True)

    def fg_imp():
        fW1.grad = None
        fW2.grad = None
        y = (fg.tanh(fX @ fW1) @ fW2).sum()
        y.backward()
        return y.item(), fW1.grad.numpy(), fW2.grad.numpy()

    impls["fg_imp"] = fg_imp

    torch, _ = peers.load("torch")
    if torch is not None:
        tX = torch.from_numpy(np.array(X))
        tW1 = torch.from_numpy(np.array(W1)).requires_grad_()
        tW2 = torch.from_numpy(np.array(W2)).requires_grad_()

        def torch_step():
            tW1.grad = None
            tW2.grad = None
            y = (torch.tanh(tX @ tW1) @ tW2).sum()
            y.backward()
            return y.item(), tW1.grad.numpy(), tW2.grad.numpy()

        impls["torch"] = torch_step

    ag, _ = peers.load("autograd")
    if ag is not None:
        import autograd.numpy as anp

        aX, aW1, aW2 = np.array(X), np.array(W1), np.array(W2)
        if _ag_multi(ag):
            avg = ag.value_and_grad(
                lambda w1, w2: anp.sum(anp.dot(anp.tanh(anp.dot(aX, w1)), w2)), argnum=(0, 1)
            )

            def ag_step():
                value, (g1, g2) = avg(aW1, aW2)
                return value, g1, g2

        else:
            avg1 = ag.value_and_grad(
                lambda ws: anp.sum(anp.dot(anp.tanh(anp.dot(aX, ws[0])), ws[1]))
            )

            def ag_step():
                value, (g1, g2) = avg1((aW1, aW2))
                return value, g1, g2

        impls["autograd"] = ag_step

    if with_details:

        def fg_backward():  # leaves + funcgrad.backward (the old section (b))
            w1, w2 = fg.leaf(W1), fg.leaf(W2)
            y = loss(w1, w2)
            g = fg.backward(y)
            return y.value, g[w1], g[w2]

        impls["fg_backward"] = fg_backward
    return impls


# --- W5: a very long scalar chain ----------------------------------------------------------

W5_MUL, W5_ADD = 0.99999, 0.00001


def w5_reference(n: int) -> float:
    """d x_n / d x_0 of n steps `x = x*0.99999 + 0.00001`."""
    return W5_MUL**n


def w5_impl(name: str, n: int):
    """Return a zero-argument function running W5 with `n` steps in implementation `name`.

    It returns the final value and the gradient with respect to the start, as floats.
    """
    c, d = W5_MUL, W5_ADD

    if name == "numpy":

        def run():
            x = np.float64(1.0)
            for _ in range(n):
                x = x * c + d
            ct = np.float64(1.0)
            for _ in range(n):  # the VJP of the add is the identity; of the mul, * c
                ct = ct * c
            return float(x), float(ct)

    elif name == "fg_func":

        def f(x):
            for _ in range(n):
                x = x * c + d
            return x

        vg = fg.value_and_grad(f)

        def run():
            value, g = vg(1.0)
            return float(value), float(g)

    elif name == "fg_imp":

        def run():
            x0 = fg.tensor(1.0, dtype=fg.float64, requires_grad=True)
            x = x0
            for _ in range(n):
                x = x * c + d
            x.backward()
            return x.item(), x0.grad.item()

    elif name == "torch":
        torch, why = peers.load("torch")
        if torch is None:
            raise ImportError(why)

        def run():
            x0 = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
            x = x0
            for _ in range(n):
                x = x * c + d
            x.backward()
            return x.item(), x0.grad.item()

    elif name == "autograd":
        ag, why = peers.load("autograd")
        if ag is None:
            raise ImportError(why)

        def f(x):
            for _ in range(n):
                x = x * c + d
            return x

        vg = ag.value_and_grad(f)

        def run():
            value, g = vg(1.0)
            return float(value), float(g)

    else:
        raise ValueError(f"unknown W5 implementation {name!r}")
    return run


# --- W6: a Hessian-vector product -----------------------------------------------------------


def build_hvp() -> dict:
    """W6: H v for f(x) = sum(tanh(A @ x) ** 2), A 256x256 float64."""
    rng = np.random.default_rng(6)
    A = fg.freeze(rng.standard_normal((256, 256)) / 16)
    x0 = fg.freeze(rng.standard_normal(256))
    v0 = fg.freeze(rng.standard_normal(256))

    def numpy_hvp():
        # f = sum(t**2), t = tanh(u), u = A x: grad = A.T (2 t s), s = 1 - t**2;
        # d/du (2 t s) = 2 s (1 - 3 t**2), so H v = A.T (2 s (1 - 3 t**2) * (A v)).
        t = np.tanh(A @ x0)
        s = 1.0 - t * t
        return (A.T @ ((2.0 * s * (1.0 - 3.0 * t * t)) * (A @ v0)),)

    impls = {"numpy": numpy_hvp}

    def f(x):
        return fnp.sum(fnp.tanh(fnp.matmul(A, x)) ** 2)

    impls["fg_func"] = lambda: (fg.hvp(f, (x0,), (v0,)),)

    fA, fv = fg.from_numpy(A), fg.from_numpy(v0)

    def fg_imp():
        x = fg.tensor(x0, requires_grad=True)
        y = (fg.tanh(fA @ x) ** 2).sum()
        (g,) = fg.autograd.grad(y, x, create_graph=True)
        (hv,) = fg.autograd.grad(g, x, grad_outputs=fv)
        return (hv.numpy(),)

    impls["fg_imp"] = fg_imp

    torch, _ = peers.load("torch")
    if torch is not None:
        tA, tv, tx0 = (torch.from_numpy(np.array(a)) for a in (A, v0, x0))

        def torch_hvp():
            x = tx0.clone().requires_grad_()
            y = (torch.tanh(tA @ x) ** 2).sum()
            (g,) = torch.autograd.grad(y, x, create_graph=True)
            (hv,) = torch.autograd.grad(g, x, grad_outputs=tv)
            return (hv.numpy(),)

        impls["torch"] = torch_hvp

    ag, _ = peers.load("autograd")
    if ag is not None:
        import autograd.numpy as anp

        aA, ax0, av0 = np.array(A), np.array(x0), np.array(v0)
        ahvp = ag.hessian_vector_product(lambda x: anp.sum(anp.tanh(anp.dot(aA, x)) ** 2))
        impls["autograd"] = lambda: (ahvp(ax0, av0),)
    return impls


# --- W7: one training step of the blitz LeNet ---------------------------------------------------

LENET_BATCH, LENET_LR = 64, 0.01
# (name, shape) of the LeNet of PyTorch's 60-minute blitz, in torch.nn's parameter order.
LENET_SHAPES = (
    ("conv1.weight", (6, 1, 5, 5)),
    ("conv1.bias", (6,)),
    ("conv2.weight", (16, 6, 5, 5)),
    ("conv2.bias", (16,)),
    ("fc1.weight", (120, 400)),
    ("fc1.bias", (120,)),
    ("fc2.weight", (84, 120)),
    ("fc2.bias", (84,)),
    ("fc3.weight", (10, 84)),
    ("fc3.bias", (10,)),
)


def lenet_data(seed: int = 7):
    """The batch (64 images 1x32x32, float32), its labels and LeNet's initial parameters.

    Parameters are uniform in +-1/sqrt(fan_in) of their layer, as PyTorch's defaults.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((LENET_BATCH, 1, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, LENET_BATCH)
    fan_in = {name.split(".")[0]: int(np.prod(shape[1:])) for name, shape in LENET_SHAPES[::2]}
    params = []
    for name, shape in LENET_SHAPES:
        bound = 1.0 / np.sqrt(fan_in[name.split(".")[0]])
        params.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    return X, labels, params


def _conv_windows(x, k):
    """(N, C, H, W) -> (N, H-k+1, W-k+1, C, k, k) windows: a view (sliding_window_view)."""
    return np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3)).transpose(
        0, 2, 3, 1, 4, 5
    )


def relu_mlp_numpy(x, labels, params, input_grad: bool = True):
    """Linear layers with ReLU between them, then softmax cross-entropy: forward and backward by hand.

    `params` is (W1, b1, W2, b2, ...), each W of shape (out, in) as torch's.
    Returns the mean loss, the gradients of `params` in their order, and the
    gradient of `x` (W7 continues into its convolutions with it), or None
    without `input_grad` (W8: one GEMM less).
    """
    n = x.shape[0]
    weights, biases = params[::2], params[1::2]
    hs, zs = [x], []
    for w, b in zip(weights, biases, strict=True):
        if zs:
            hs.append(np.maximum(zs[-1], 0))
        zs.append(hs[-1] @ w.T + b)
    z = zs[-1]
    zmax = z.max(axis=1, keepdims=True)
    e = np.exp(z - zmax)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = np.mean(np.log(s[:, 0]) + zmax[:, 0] - z[rows, labels])
    d = e / s
    d[rows, labels] -= 1
    d /= n
    grads: list = []
    for i in range(len(weights) - 1, -1, -1):
        grads[:0] = [d.T @ hs[i], d.sum(axis=0)]
        if i:
            d = (d @ weights[i]) * (zs[i - 1] > 0)
    return loss, grads, d @ weights[0] if input_grad else None


def lenet_numpy_step(X, labels, params, lr: float = LENET_LR):
    """LeNet forward, backward and SGD update written by hand with NumPy (updates `params` in place).

    Convolutions are im2col through `sliding_window_view` and one GEMM each;
    2x2 max pools by reshaping; the input image's gradient is not computed.
    Returns the loss and the gradients (before the update), as the other
    implementations do.
    """
    c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b, f3w, f3b = params
    n = X.shape[0]

    def conv(x, w, b):
        cols = _conv_windows(x, w.shape[-1])  # (N, Ho, Wo, C, k, k)
        no, ho, wo = cols.shape[:3]
        cols = cols.reshape(no * ho * wo, -1)  # the one copy: im2col
        out = cols @ w.reshape(w.shape[0], -1).T + b
        return out.reshape(no, ho, wo, -1).transpose(0, 3, 1, 2), cols

    def pool(a):  # 2x2, stride 2; the mask of the maxima (ties: every maximum, as numpy sees)
        nn_, c, h, w = a.shape
        r = a.reshape(nn_, c, h // 2, 2, w // 2, 2)
        m = r.max(axis=(3, 5))
        return m, r == m[:, :, :, None, :, None]

    def unpool(g, mask):
        g6 = mask * g[:, :, :, None, :, None]
        nn_, c, h2, _, w2, _ = g6.shape
        return g6.reshape(nn_, c, h2 * 2, w2 * 2)

    z1, cols1 = conv(X, c1w, c1b)  # (64, 6, 28, 28)
    a1 = np.maximum(z1, 0)
    p1, m1 = pool(a1)  # (64, 6, 14, 14)
    z2, cols2 = conv(p1, c2w, c2b)  # (64, 16, 10, 10)
    a2 = np.maximum(z2, 0)
    p2, m2 = pool(a2)  # (64, 16, 5, 5)
    loss, (g_f1w, g_f1b, g_f2w, g_f2b, g_f3w, g_f3b), dh0 = relu_mlp_numpy(
        p2.reshape(n, -1), labels, (f1w, f1b, f2w, f2b, f3w, f3b)
    )
    dp2 = dh0.reshape(p2.shape)
    dz2 = unpool(dp2, m2) * (z2 > 0)  # (64, 16, 10, 10)
    d2 = dz2.transpose(0, 2, 3, 1).reshape(-1, dz2.shape[1])  # (N*Ho*Wo, 16)
    g_c2w, g_c2b = (d2.T @ cols2).reshape(c2w.shape), d2.sum(axis=0)
    dcols2 = (d2 @ c2w.reshape(c2w.shape[0], -1)).reshape(n, 10, 10, 6, 5, 5)
    dp1 = np.zeros((n, 14, 14, 6), np.float32)  # col2im, channels last: each tap's share
    for i in range(5):
        for j in range(5):
            dp1[:, i : i + 10, j : j + 10, :] += dcols2[:, :, :, :, i, j]
    dz1 = unpool(dp1.transpose(0, 3, 1, 2), m1) * (z1 > 0)
    d1 = dz1.transpose(0, 2, 3, 1).reshape(-1, dz1.shape[1])
    g_c1w, g_c1b = (d1.T @ cols1).reshape(c1w.shape), d1.sum(axis=0)
    grads = (g_c1w, g_c1b, g_c2w, g_c2b, g_f1w, g_f1b, g_f2w, g_f2b, g_f3w, g_f3b)
    for p, g in zip(params, grads, strict=True):
        p -= lr * g
    return (loss, *grads)


def _lenet_forward(x, p, F):
    """LeNet's forward on `funcgrad.nn.functional` or `torch.nn.functional` (`F`)."""
    x = F.max_pool2d(F.relu(F.conv2d(x, p[0], p[1])), 2)
    x = F.max_pool2d(F.relu(F.conv2d(x, p[2], p[3])), 2)
    x = x.reshape(x.shape[0], -1)
    x = F.relu(F.linear(x, p[4], p[5]))
    x = F.relu(F.linear(x, p[6], p[7]))
    return F.linear(x, p[8], p[9])


def _lenet_module(nn):
    """The blitz's `Net` on `funcgrad.nn` or `torch.nn` (`nn`)."""

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)
            self.relu, self.pool = nn.ReLU(), nn.MaxPool2d(2)

        def forward(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = x.flatten(1)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    return Net()


def _load_params(module, params, from_numpy) -> None:
    named = dict(module.named_parameters())
    for (name, _), value in zip(LENET_SHAPES, params, strict=True):
        named[name].data = from_numpy(np.array(value))


def build_lenet() -> dict:
    """W7: one SGD training step (forward, cross-entropy, backward, update) of the blitz LeNet.

    Every implementation starts from the same parameters, so the first call's
    results (the loss and the gradients) agree; later calls keep training.
    """
    X, labels, params0 = lenet_data()
    impls: dict = {}
    np_params = [p.copy() for p in params0]
    impls["numpy"] = lambda: lenet_numpy_step(X, labels, np_params)

    import funcgrad.nn.functional as fF
    import funcgrad.optim as foptim
    import funcgrad.optimizers as foptimizers

    fX, flab = fg.freeze(X.copy()), fg.freeze(labels.copy())

    def loss_fn(p):
        return fF.cross_entropy(_lenet_forward(fX, p, fF), flab)

    vg = fg.value_and_grad(loss_fn)
    sgd = foptimizers.sgd(LENET_LR)
    state = {"params": tuple(p.copy() for p in params0)}
    state["opt"] = sgd.init(state["params"])

    def fg_func():
        value, grads = vg(state["params"])
        updates, state["opt"] = sgd.update(grads, state["opt"])
        state["params"] = foptimizers.apply_updates(state["params"], updates)
        return (value, *grads)

    impls["fg_func"] = fg_func

    net = _lenet_module(fnn)
    _load_params(net, params0, fg.from_numpy)
    opt = foptim.SGD(net.parameters(), lr=LENET_LR)
    crit = fnn.CrossEntropyLoss()
    tX, tlab = fg.from_numpy(X.copy()), fg.from_numpy(labels.copy())
    fparams = [dict(net.named_parameters())[name] for name, _ in LENET_SHAPES]

    def fg_imp():
        opt.zero_grad()
        loss = crit(net(tX), tlab)
        loss.backward()
        opt.step()
        return (loss.item(), *(p.grad.numpy() for p in fparams))

    impls["fg_imp"] = fg_imp

    torch, _ = peers.load("torch")
    if torch is not None:
        tnet = _lenet_module(torch.nn)
        _load_params(tnet, params0, torch.from_numpy)
        topt = torch.optim.SGD(tnet.parameters(), lr=LENET_LR)
        tcrit = torch.nn.CrossEntropyLoss()
        ttX, ttlab = torch.from_numpy(X.copy()), torch.from_numpy(labels.copy())
        tparams = [dict(tnet.named_parameters())[name] for name, _ in LENET_SHAPES]

        def torch_step():
            topt.zero_grad()
            loss = tcrit(tnet(ttX), ttlab)
            loss.backward()
            topt.step()
            return (loss.item(), *(p.grad.numpy() for p in tparams))

        impls["torch"] = torch_step
    return impls


# --- W8: one Adam step of an MLP 784-256-128-10 --------------------------------------------

ADAM_LR = 1e-3
MLP8_SIZES = (784, 256, 128, 10)


def mlp8_data(seed: int = 8):
    """A batch of 128 float32 inputs, labels, and the MLP's parameters (W: (out, in), as torch)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((128, MLP8_SIZES[0]), dtype=np.float32)
    labels = rng.integers(0, MLP8_SIZES[-1], 128)
    params = []
    for d_in, d_out in zip(MLP8_SIZES[:-1], MLP8_SIZES[1:], strict=True):
        bound = 1.0 / np.sqrt(d_in)
        params.append(rng.uniform(-bound, bound, (d_out, d_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, d_out).astype(np.float32))
    return X, labels, params


class _NumpyAdam:
    """torch.optim.Adam's update (defaults, no weight decay) written with NumPy, in place."""

    def __init__(self, params, lr=ADAM_LR, b1=0.9, b2=0.999, eps=1e-8):
        self.params, self.lr, self.b1, self.b2, self.eps, self.t = params, lr, b1, b2, eps, 0
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]

    def step(self, grads) -> None:
        self.t += 1
        c1, c2 = 1 - self.b1**self.t, 1 - self.b2**self.t
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= self.b1
            m += (1 - self.b1) * g
            v *= self.b2
            v += (1 - self.b2) * (g * g)
            # math.sqrt: a Python float stays weak (np.sqrt(c2), a float64 scalar, would make
            # the whole update float64 for float32 parameters)
            p -= (self.lr / c1) * m / (np.sqrt(v) / math.sqrt(c2) + self.eps)


def mlp8_numpy_grads(X, labels, params):
    """The MLP's loss (ReLU, cross-entropy) and gradients by hand."""
    loss, grads, _ = relu_mlp_numpy(X, labels, params, input_grad=False)
    return loss, tuple(grads)


def _mlp8_module(nn):
    return nn.Sequential(
        nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)
    )


_MLP8_NAMES = ("0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias")


def build_adam_mlp() -> dict:
    """W8: one Adam training step of an MLP 784-256-128-10 (ReLU), batch 128, float32."""
    X, labels, params0 = mlp8_data()
    impls: dict = {}
    np_params = [p.copy() for p in params0]
    np_adam = _NumpyAdam(np_params)

    def numpy_step():
        loss, grads = mlp8_numpy_grads(X, labels, np_params)
        np_adam.step(grads)
        return (loss, *grads)

    impls["numpy"] = numpy_step

    import funcgrad.nn.functional as fF
    import funcgrad.optim as foptim
    import funcgrad.optimizers as foptimizers

    fX, flab = fg.freeze(X.copy()), fg.freeze(labels.copy())

    def loss_fn(p):
        h = fF.relu(fF.linear(fX, p[0], p[1]))
        h = fF.relu(fF.linear(h, p[2], p[3]))
        return fF.cross_entropy(fF.linear(h, p[4], p[5]), flab)

    vg = fg.value_and_grad(loss_fn)
    adam = foptimizers.adam(ADAM_LR)
    state = {"params": tuple(p.copy() for p in params0)}
    state["opt"] = adam.init(state["params"])

    def fg_func():
        value, grads = vg(state["params"])
        updates, state["opt"] = adam.update(grads, state["opt"])
        state["params"] = foptimizers.apply_updates(state["params"], updates)
        return (value, *grads)

    impls["fg_func"] = fg_func

    def tensor_impl(mod, nn, optim):
        net = _mlp8_module(nn)
        named = dict(net.named_parameters())
        for name, value in zip(_MLP8_NAMES, params0, strict=True):
            named[name].data = mod.from_numpy(value.copy())
        opt = optim.Adam(net.parameters(), lr=ADAM_LR)
        crit = nn.CrossEntropyLoss()
        tX, tlab = mod.from_numpy(X.copy()), mod.from_numpy(labels.copy())
        ps = [named[name] for name in _MLP8_NAMES]

        def step():
            opt.zero_grad()
            loss = crit(net(tX), tlab)
            loss.backward()
            opt.step()
            return (loss.item(), *(p.grad.numpy() for p in ps))

        return step

    impls["fg_imp"] = tensor_impl(fg, fnn, foptim)
    torch, _ = peers.load("torch")
    if torch is not None:
        impls["torch"] = tensor_impl(torch, torch.nn, torch.optim)
    return impls


# --- OPT: the optimizer step alone ------------------------------------------------------------


def build_optimizer_step(kind: str) -> dict:
    """`optimizer.step()` alone over the 16 parameter tensors of W7's LeNet and W8's MLP.

    `kind` is "sgd" (momentum 0.9) or "adam". The gradients are set once;
    each call is one step. PyTorch uses its `foreach` implementation (its
    default on the CPU when every parameter is a plain tensor; asked for
    explicitly here). Results: the parameters after the first step.
    """
    _, _, p7 = lenet_data()
    _, _, p8 = mlp8_data()
    params0 = [*p7, *p8]
    rng = np.random.default_rng(9)
    grads0 = [rng.standard_normal(p.shape, dtype=np.float32) for p in params0]
    impls: dict = {}

    np_params = [p.copy() for p in params0]
    if kind == "adam":
        np_adam = _NumpyAdam(np_params)

        def numpy_step():
            np_adam.step(grads0)
            return tuple(np_params)

    else:
        bufs: list = []

        def numpy_step():
            for i, (p, g) in enumerate(zip(np_params, grads0, strict=True)):
                if len(bufs) <= i:
                    bufs.append(g.copy())
                else:
                    bufs[i] *= 0.9
                    bufs[i] += g
                p -= LENET_LR * bufs[i]
            return tuple(np_params)

    impls["numpy"] = numpy_step

    def tensor_impl(mod, optim, **extra):
        ps = [mod.from_numpy(p.copy()).requires_grad_() for p in params0]
        for p, g in zip(ps, grads0, strict=True):
            p.grad = mod.from_numpy(g.copy())
        if kind == "adam":
            opt = optim.Adam(ps, lr=ADAM_LR, **extra)
        else:
            opt = optim.SGD(ps, lr=LENET_LR, momentum=0.9, **extra)

        def step():
            opt.step()
            return tuple(p.detach().numpy() for p in ps)

        return step

    import funcgrad.optim as foptim

    impls["fg_imp"] = tensor_impl(fg, foptim)
    torch, _ = peers.load("torch")
    if torch is not None:
        impls["torch"] = tensor_impl(torch, torch.optim, foreach=True)
    return impls
