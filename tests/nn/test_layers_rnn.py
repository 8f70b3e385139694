"""`RNN`, `LSTM`, `GRU` and their cells against PyTorch's.

Same constructor arguments on both sides (hypothesis draws sizes and the
options: `num_layers`, `bias`, `batch_first`, `bidirectional`, `proj_size`,
`nonlinearity`), PyTorch's parameters copied through `state_dict` (the
names must agree), then outputs, final states and the gradients of the
input, the initial state and every weight are compared; also unbatched
inputs, `PackedSequence` inputs (sorted or not) and the errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import funcgrad as fg
from funcgrad.nn.utils import rnn as fg_rnn
from tests.nn.modcheck import check_module, copy_state
from tests.references import requires

torch = requires("torch")


@st.composite
def rnn_cases(draw):
    cls = draw(st.sampled_from(["RNN", "LSTM", "GRU"]))
    kw = {
        "num_layers": draw(st.integers(1, 2)),
        "bias": draw(st.booleans()),
        "batch_first": draw(st.booleans()),
        "bidirectional": draw(st.booleans()),
    }
    hidden = draw(st.integers(2, 5))
    if cls == "LSTM" and draw(st.booleans()):
        kw["proj_size"] = draw(st.integers(1, hidden - 1))
    if cls == "RNN":
        kw["nonlinearity"] = draw(st.sampled_from(["tanh", "relu"]))
    size = draw(st.integers(1, 4))
    steps = draw(st.integers(1, 4))
    batch = draw(st.sampled_from([None, 1, 3]))
    with_state = draw(st.booleans())
    return cls, size, hidden, kw, steps, batch, with_state, draw(st.integers(0, 2**16))


@settings(max_examples=40, deadline=None)
@given(case=rnn_cases(), dtype=st.sampled_from([np.float64, np.float32]))
def test_recurrent_module_matches_pytorch(case, dtype):
    cls, size, hidden, kw, steps, batch, with_state, seed = case
    rng = np.random.default_rng(seed)
    if batch is None:
        shape = (steps, size)
    else:
        shape = (batch, steps, size) if kw["batch_first"] else (steps, batch, size)
    x = rng.standard_normal(shape)
    inputs = [x]
    if with_state:
        d = 2 if kw["bidirectional"] else 1
        out_size = kw.get("proj_size", 0) or hidden
        lead = (kw["num_layers"] * d,) if batch is None else (kw["num_layers"] * d, batch)
        h0 = rng.standard_normal((*lead, out_size))
        if cls == "LSTM":
            c0 = rng.standard_normal((*lead, hidden))

            def forward(m, v, h, c):
                return m(v, (h, c))

            inputs += [h0, c0]
        else:

            def forward(m, v, h):
                return m(v, h)

            inputs.append(h0)
    else:
        forward = None
    check_module(
        lambda nn: getattr(nn, cls)(size, hidden, **kw),
        inputs,
        dtype=dtype,
        seed=seed,
        forward=forward,
    )


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@settings(max_examples=10, deadline=None)
@given(
    size=st.integers(1, 4),
    hidden=st.integers(1, 4),
    batch=st.sampled_from([None, 1, 3]),
    bias=st.booleans(),
    with_state=st.booleans(),
    seed=st.integers(0, 2**16),
    dtype=st.sampled_from([np.float64, np.float32]),
)
def test_cells_match_pytorch(cls, size, hidden, batch, bias, with_state, seed, dtype):
    rng = np.random.default_rng(seed)
    lead = () if batch is None else (batch,)
    inputs = [rng.standard_normal((*lead, size))]
    forward = None
    if with_state:
        inputs.append(rng.standard_normal((*lead, hidden)))
        if cls == "LSTMCell":
            inputs.append(rng.standard_normal((*lead, hidden)))

            def forward(m, v, h, c):
                return m(v, (h, c))

    check_module(
        lambda nn: getattr(nn, cls)(size, hidden, bias=bias),
        inputs,
        dtype=dtype,
        seed=seed,
        forward=forward,
    )


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_sequences_match_pytorch(cls, enforce_sorted, bidirectional):
    rng = np.random.default_rng(3)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    x = rng.standard_normal((5, 4, 2))
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(2, 3, num_layers=2, bidirectional=bidirectional).double()
    fm = getattr(fg.nn, cls)(2, 3, num_layers=2, bidirectional=bidirectional).double()
    copy_state(tm, fm)
    tx = torch.tensor(x, requires_grad=True)
    fx = fg.tensor(x, requires_grad=True)
    tp = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    fp = fg_rnn.pack_padded_sequence(fx, lengths, enforce_sorted=enforce_sorted)
    t_out, t_h = tm(tp)
    f_out, f_h = fm(fp)
    assert isinstance(f_out, fg_rnn.PackedSequence)
    np.testing.assert_array_equal(f_out.batch_sizes.numpy(), t_out.batch_sizes.numpy())
    np.testing.assert_allclose(f_out.data.detach().numpy(), t_out.data.detach().numpy(), rtol=1e-10)
    t_states = t_h if isinstance(t_h, tuple) else (t_h,)
    f_states = f_h if isinstance(f_h, tuple) else (f_h,)
    for t, f in zip(t_states, f_states, strict=True):
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=1e-10)
    t_pad, t_len = torch.nn.utils.rnn.pad_packed_sequence(t_out)
    f_pad, f_len = fg_rnn.pad_packed_sequence(f_out)
    np.testing.assert_array_equal(f_len.numpy(), t_len.numpy())
    ct = rng.standard_normal(tuple(t_pad.shape))
    ((t_pad * torch.tensor(ct)).sum() + t_states[0].sum()).backward()
    ((f_pad * fg.tensor(ct)).sum() + f_states[0].sum()).backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (name, p), q in zip(tm.named_parameters(), fm.parameters(), strict=True):
        np.testing.assert_allclose(
            q.grad.numpy(), p.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name
        )


def test_dropout_between_layers_only_in_training():
    fg.manual_seed(0)
    m = fg.nn.LSTM(3, 4, num_layers=3, dropout=0.5).double()
    x = fg.tensor(np.random.default_rng(0).standard_normal((4, 2, 3)))
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    c, _ = m(x)
    assert not np.allclose(c.detach().numpy(), a.detach().numpy())


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.RNN(3, 4, nonlinearity="relu", num_layers=2, dropout=0.5, bidirectional=True, bias=False, batch_first=True),
        lambda nn: nn.LSTM(3, 4, proj_size=2),
        lambda nn: nn.GRU(3, 4, 2),
        lambda nn: nn.GRUCell(3, 4, bias=False),
        lambda nn: nn.RNNCell(3, 4, nonlinearity="relu"),
        lambda nn: nn.LSTMCell(3, 4),
    ],
)  # fmt: skip
def test_repr_and_parameter_names(make):
    ours, theirs = make(fg.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]


def test_initialisation_bounds():
    fg.manual_seed(0)
    m = fg.nn.LSTM(10, 25, num_layers=2)
    for p in m.parameters():
        v = p.detach().numpy()
        assert np.abs(v).max() <= 1 / 5 and np.abs(v).max() > 0.15


def test_errors_match_pytorch():
    cases = [
        (lambda nn, lib: nn.RNN(3, 4)(lib.ones(2, 5)), RuntimeError),
        (lambda nn, lib: nn.RNN(3, 4)(lib.ones(2, 1, 3), lib.ones(2, 1, 4)), RuntimeError),
        (lambda nn, lib: nn.RNN(3, 4)(lib.ones(2, 1, 3, 3)), ValueError),
        (lambda nn, lib: nn.GRU(3, 4, proj_size=2), ValueError),
        (lambda nn, lib: nn.LSTM(3, 4, proj_size=4), ValueError),
        (lambda nn, lib: nn.RNN(3, 4, nonlinearity="gelu"), ValueError),
        (lambda nn, lib: nn.LSTMCell(3, 4)(lib.ones(2, 5)), RuntimeError),
    ]
    for make, exc in cases:
        with pytest.raises(exc) as ours:
            make(fg.nn, fg)
        with pytest.raises(exc) as theirs:
            make(torch.nn, torch)
        assert str(ours.value) == str(theirs.value)
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        fg.nn.GRU(3, 4, dropout=0.2)
