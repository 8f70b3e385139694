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
