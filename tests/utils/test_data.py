"""`funcgrad.utils.data` behaves as `torch.utils.data`: batches, collation, samplers, splits, workers.

Random orders are funcgrad's own (NumPy's PCG64 streams, not PyTorch's
Mersenne Twister): the tests check what PyTorch guarantees of them (every
index once per epoch, a new order per epoch, the same order for the same
seed), and compare everything deterministic with PyTorch directly.
"""

from __future__ import annotations

import collections
import os
import warnings

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.utils import data as fdata
from tests.references import requires

torch = requires("torch")
tdata = torch.utils.data


def assert_same_batch(ours, theirs, path="batch"):
    """The same structure, types, dtypes and values (funcgrad tensors for torch's)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, fg.Tensor), (path, type(ours))
        assert str(ours.dtype).replace("funcgrad.", "") == str(theirs.numpy().dtype), path
        assert tuple(ours.shape) == tuple(theirs.shape), path
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=path)
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs), path
        for k in theirs:
            assert_same_batch(ours[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (path, type(ours))
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same_batch(a, b, f"{path}[{i}]")
    else:
        assert type(ours) is type(theirs) and ours == theirs, path


def _tensors(lib, n=10):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = np.arange(n) % 3
    return lib.tensor(x), lib.tensor(y)


# --- DataLoader over tensors ---------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"batch_size": 4},
        {"batch_size": 4, "drop_last": True},
        {"batch_size": 3, "pin_memory": True},
        {"batch_size": 10},
        {"batch_size": 20},
        {"batch_size": None},
    ],
    ids=str,
)
def test_tensor_dataset_batches_are_pytorchs(kwargs):
    ours = fdata.DataLoader(fdata.TensorDataset(*_tensors(fg)), **kwargs)
    theirs = tdata.DataLoader(tdata.TensorDataset(*_tensors(torch)), **kwargs)
    assert len(ours) == len(theirs)
    batches = list(ours)
    assert len(batches) == len(theirs)
    for a, b in zip(batches, theirs, strict=True):
        assert_same_batch(a, b)


def test_a_loader_can_be_iterated_again():
    loader = fdata.DataLoader(fdata.TensorDataset(*_tensors(fg)), batch_size=4)
    first = [x.numpy() for x, _ in loader]
    second = [x.numpy() for x, _ in loader]
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)


def test_shuffle_visits_every_sample_once_in_a_new_order_each_epoch():
    loader = fdata.DataLoader(range(50), batch_size=8, shuffle=True)
    epochs = [[int(i) for batch in loader for i in batch] for _ in range(3)]
    for order in epochs:
        assert sorted(order) == list(range(50))
    assert epochs[0] != epochs[1] != epochs[2]


def test_shuffle_is_reproducible_with_a_seeded_generator_or_manual_seed():
    def order(**kwargs):
        loader = fdata.DataLoader(range(30), batch_size=7, shuffle=True, **kwargs)
        return [int(i) for batch in loader for i in batch]

    a = order(generator=fg.Generator().manual_seed(3))
    assert a == order(generator=fg.Generator().manual_seed(3))
    assert a != order(generator=fg.Generator().manual_seed(4))
    fg.manual_seed(11)
    b = order()
    fg.manual_seed(11)
    assert b == order()


def test_sequential_sampler_order_is_pytorchs():
    assert list(fdata.SequentialSampler(range(7))) == list(tdata.SequentialSampler(range(7)))
    ours = [b.tolist() for b in fdata.DataLoader(range(7), batch_size=3)]
    theirs = [b.tolist() for b in tdata.DataLoader(range(7), batch_size=3)]
    assert ours == theirs


def test_sampler_and_batch_sampler_options():
    ds_f, ds_t = fdata.TensorDataset(*_tensors(fg)), tdata.TensorDataset(*_tensors(torch))
    order = [9, 2, 4, 4, 0]
    for a, b in zip(
        fdata.DataLoader(ds_f, batch_size=2, sampler=order),
        tdata.DataLoader(ds_t, batch_size=2, sampler=order),
        strict=True,
    ):
        assert_same_batch(a, b)
    batches = [[1, 2, 3], [0], [8, 9]]
    for a, b in zip(
        fdata.DataLoader(ds_f, batch_sampler=batches),
        tdata.DataLoader(ds_t, batch_sampler=batches),
        strict=True,
    ):
        assert_same_batch(a, b)
    assert len(fdata.DataLoader(ds_f, batch_sampler=batches)) == 3


def test_option_errors_are_pytorchs():
    class Stream(fdata.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    class TStream(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    cases = [
        ({"shuffle": True, "sampler": [0, 1]}, range(3)),
        ({"batch_sampler": [[0]], "batch_size": 2}, range(3)),
        ({"batch_sampler": [[0]], "drop_last": True}, range(3)),
        ({"batch_size": None, "drop_last": True}, range(3)),
        ({"num_workers": -1}, range(3)),
        ({"timeout": -1}, range(3)),
        ({"prefetch_factor": 2}, range(3)),
        ({"persistent_workers": True}, range(3)),
        ({"shuffle": True}, "stream"),
        ({"sampler": [0]}, "stream"),
        ({"batch_sampler": [[0]]}, "stream"),
    ]
    for kwargs, ds in cases:
        messages = []
        for lib, stream in ((fdata, Stream), (tdata, TStream)):
            with pytest.raises(ValueError) as e:
                lib.DataLoader(stream() if ds == "stream" else ds, **kwargs)
            messages.append(str(e.value))
        assert messages[0] == messages[1], kwargs
    loader = fdata.DataLoader(range(3))
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 2


def test_len_works_for_progress_bars():
    loader = fdata.DataLoader(fdata.TensorDataset(*_tensors(fg, 25)), batch_size=4)
    assert len(loader) == 7
    it = iter(loader)
    assert len(it) == 7 and sum(1 for _ in it) == 7


# --- collation -----------------------------------------------------------------------------

Point = collections.namedtuple("Point", ["x", "y"])


def _samples(lib):
    rng = np.random.default_rng(0)
    out = []
    for i in range(4):
        out.append(
            {
                "image": rng.standard_normal((2, 3)).astype(np.float32),
                "tensor": lib.tensor([float(i), 2.0 * i]),
                "label": i,
                "weight": 0.5 * i,
                "flag": i % 2 == 0,
                "name": f"sample{i}",
                "raw": b"xy",
                "np_scalar": np.float32(i) / 3,
                "np_int": np.int16(i),
                "pair": (i, [float(i), np.float64(i)]),
                "point": Point(np.array([i, i + 1]), i * 1.5),
                "nested": {"deep": [lib.ones(2) * i, {"k": i}]},
            }
        )
    return out


def test_default_collate_of_nested_structures_is_pytorchs():
    assert_same_batch(fdata.default_collate(_samples(fg)), tdata.default_collate(_samples(torch)))


def test_default_convert_is_pytorchs():
    for sample_f, sample_t in zip(_samples(fg), _samples(torch), strict=True):
        assert_same_batch(fdata.default_convert(sample_f), tdata.default_convert(sample_t))


def test_a_loader_collates_dicts_and_tuples_of_numpy_arrays():
    class Pairs(fdata.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.full(3, i, dtype=np.float64), "y": (i, np.int64(i) * 2)}

    class TPairs(tdata.Dataset):
        __len__ = Pairs.__len__
        __getitem__ = Pairs.__getitem__

    for a, b in zip(
        fdata.DataLoader(Pairs(), batch_size=2),
        tdata.DataLoader(TPairs(), batch_size=2),
        strict=True,
    ):
        assert_same_batch(a, b)


def test_collate_errors_are_pytorchs():
    for batch in ([object(), object()], [[1, 2], [3]], [np.array(["a"]), np.array(["b"])]):
        messages = []
        for lib in (fdata, tdata):
            with pytest.raises((TypeError, RuntimeError)) as e:
                lib.default_collate(batch)
            messages.append((type(e.value), str(e.value)))
        assert messages[0] == messages[1]


def test_a_custom_collate_fn_gets_the_list_of_samples():
    loader = fdata.DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(loader) == [1, 5, 4]


# --- datasets --------------------------------------------------------------------------------


def test_tensor_dataset_checks_sizes_as_pytorch():
    for lib in (fdata, tdata):
        t = fg if lib is fdata else torch
        with pytest.raises(AssertionError, match="Size mismatch between tensors"):
            lib.TensorDataset(t.zeros(3, 2), t.zeros(4))


def test_concat_stack_and_subset_datasets_are_pytorchs():
    parts = [list(range(3)), list(range(10, 15)), [100]]
    ours, theirs = fdata.ConcatDataset(parts), tdata.ConcatDataset(parts)
    assert len(ours) == len(theirs) and ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-9, 9)] == [theirs[i] for i in range(-9, 9)]
    assert list(fdata.Dataset.__add__(ours, ours).cumulative_sizes) == [9, 18]
    s_ours = fdata.StackDataset([1, 2], ["a", "b"])
    s_theirs = tdata.StackDataset([1, 2], ["a", "b"])
    assert [s_ours[i] for i in range(2)] == [s_theirs[i] for i in range(2)]
    assert s_ours.__getitems__([1, 0]) == s_theirs.__getitems__([1, 0])
    d_ours, d_theirs = (
        fdata.StackDataset(a=[1, 2], b=[3, 4]),
        tdata.StackDataset(a=[1, 2], b=[3, 4]),
    )
    assert d_ours.__getitems__([0, 1]) == d_theirs.__getitems__([0, 1])
    sub_ours, sub_theirs = fdata.Subset(ours, [8, 0, 3]), tdata.Subset(theirs, [8, 0, 3])
    assert len(sub_ours) == 3 and list(sub_ours) == list(sub_theirs)
    assert sub_ours.__getitems__([2, 1]) == sub_theirs.__getitems__([2, 1])


def test_iterable_datasets():
    class Stream(fdata.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    assert [b.tolist() for b in fdata.DataLoader(Stream(7), batch_size=3)] == [
        [0, 1, 2],
        [3, 4, 5],
        [6],
    ]
    loader = fdata.DataLoader(Stream(7), batch_size=3, drop_last=True)
    assert len(loader) == 2 and [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]
    assert [int(x) for x in fdata.DataLoader(Stream(3), batch_size=None)] == [0, 1, 2]
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, fdata.ChainDataset) and list(chained) == [0, 1, 0, 1, 2]
    assert len(chained) == 5


def test_concat_refuses_iterable_datasets_as_pytorch():
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        fdata.ConcatDataset([fdata.IterableDataset()])


# --- random_split ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lengths",
    [
        [3, 7],
        [0.7, 0.3],
        [0.5, 0.25, 0.25],
        [0.33, 0.33, 0.34],
        [0.1] * 10,
        [10, 0],
        [0.3, 0.3, 0.4],
    ],
    ids=str,
)
def test_random_split_sizes_are_pytorchs_and_the_subsets_disjoint(lengths):
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = fdata.random_split(range(10), lengths, generator=fg.Generator().manual_seed(0))
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = tdata.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
    assert [str(w.message) for w in ours_warned] == [str(w.message) for w in theirs_warned]
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    seen = [i for s in ours for i in s]
    assert sorted(seen) == list(range(10))


def test_random_split_is_reproducible_and_checks_as_pytorch():
    def split(seed):
        return [
            list(s)
            for s in fdata.random_split(
                range(20), [5, 15], generator=fg.Generator().manual_seed(seed)
            )
        ]

    assert split(1) == split(1) and split(1) != split(2)
    for lengths in ([3, 3], [1.5, -0.5]):
        messages = []
        for lib in (fdata, tdata):
            with pytest.raises(ValueError) as e:
                lib.random_split(range(10), lengths)
            messages.append(str(e.value))
        assert messages[0] == messages[1]


# --- samplers --------------------------------------------------------------------------------


def test_random_sampler_options():
    g = fg.Generator().manual_seed(0)
    with_replacement = list(
        fdata.RandomSampler(range(5), replacement=True, num_samples=70, generator=g)
    )
    assert len(with_replacement) == 70 and set(with_replacement) <= set(range(5))
    longer = list(fdata.RandomSampler(range(5), num_samples=12, generator=g))
    assert len(longer) == 12 and sorted(longer[:5]) == list(range(5))
    assert len(fdata.RandomSampler(range(5), num_samples=12)) == 12
    for kwargs in ({"replacement": 1}, {"num_samples": 0}):
        messages = []
        for lib in (fdata, tdata):
            with pytest.raises((TypeError, ValueError)) as e:
                lib.RandomSampler(range(5), **kwargs)
            messages.append(str(e.value))
        assert messages[0] == messages[1]


def test_subset_random_sampler_permutes_its_indices():
    indices = [3, 9, 27, 81]
    drawn = list(fdata.SubsetRandomSampler(indices, generator=fg.Generator().manual_seed(0)))
    assert sorted(drawn) == indices and len(fdata.SubsetRandomSampler(indices)) == 4


def test_weighted_random_sampler():
    g = fg.Generator().manual_seed(0)
    drawn = list(fdata.WeightedRandomSampler([0.0, 1.0, 3.0, 0.0], 4000, generator=g))
    assert set(drawn) == {1, 2}
    assert abs(drawn.count(2) / 4000 - 0.75) < 0.03
    once = list(fdata.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=g))
    assert sorted(once) == [0, 1, 2]
    for args in (([1.0], 0), ([[1.0]], 1)):
        messages = []
        for lib in (fdata, tdata):
            with pytest.raises(ValueError) as e:
                lib.WeightedRandomSampler(*args)
            messages.append(str(e.value))
        assert messages[0] == messages[1]


@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_is_pytorchs(drop_last):
    ours = fdata.BatchSampler(fdata.SequentialSampler(range(10)), 3, drop_last)
    theirs = tdata.BatchSampler(tdata.SequentialSampler(range(10)), 3, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)


# --- worker processes --------------------------------------------------------------------------


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker tests fork")


@needs_fork
def test_workers_give_the_same_batches_in_order():
    ds = fdata.TensorDataset(*_tensors(fg, 23))
    single = list(fdata.DataLoader(ds, batch_size=4))
    multi = list(fdata.DataLoader(ds, batch_size=4, num_workers=2))
    assert len(single) == len(multi) == 6
    for (a, b), (c, d) in zip(single, multi, strict=True):
        np.testing.assert_array_equal(a.numpy(), c.numpy())
        np.testing.assert_array_equal(b.numpy(), d.numpy())


@needs_fork
def test_an_iterator_left_early_stops_its_workers_at_once():
    # The blitz's CIFAR10 page takes one batch of a fresh iterator (`next(iter(trainloader))`)
    # and drops it: the workers, with prefetched batches never read, must exit by themselves.
    # Before, each waited at exit for its unread results, until killed after a 5 s join.
    # Batches of 32 KB: the unread ones overflow the pipe under the result queue (64 KB).
    ds = fdata.TensorDataset(fg.tensor(np.ones((40, 64, 64), np.float32)), fg.arange(40))
    for in_flight in (0, 1, 3):
        it = iter(fdata.DataLoader(ds, batch_size=2, num_workers=2, prefetch_factor=4))
        for _ in range(in_flight):
            next(it)
        workers = list(it._workers)
        it._shutdown_workers()
        assert [w.exitcode for w in workers] == [0, 0], in_flight  # exited, not terminated
    rest = iter(fdata.DataLoader(ds, batch_size=2, num_workers=2))
    assert len(list(rest)) == 20  # a full pass still delivers every batch


@needs_fork
def test_workers_shard_an_iterable_dataset_with_get_worker_info():
    class Shards(fdata.IterableDataset):
        def __iter__(self):
            info = fdata.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, 20, step))

    values = [
        int(v) for batch in fdata.DataLoader(Shards(), batch_size=3, num_workers=2) for v in batch
    ]
    assert sorted(values) == list(range(20))


@needs_fork
def test_a_worker_error_is_raised_in_the_main_process():
    class Broken(fdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise KeyError("no sample 2")
            return i

    with pytest.raises(KeyError, match="DataLoader worker process"):
        list(fdata.DataLoader(Broken(), batch_size=1, num_workers=2))


@needs_fork
def test_workers_are_seeded_and_initialized():
    class Draws(fdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = fdata.get_worker_info()
            return (info.id, info.seed, float(fg.rand(1)), os.environ.get("FG_WORKER"))

    def init(worker_id):
        os.environ["FG_WORKER"] = f"init {worker_id}"

    def draws(seed):
        loader = fdata.DataLoader(
            Draws(),
            batch_size=None,
            num_workers=2,
            worker_init_fn=init,
            generator=fg.Generator().manual_seed(seed),
        )
        return [tuple(x.item() if hasattr(x, "item") else x for x in s) for s in loader]

    first = draws(5)
    assert first == draws(5)  # the same generator, the same base seed and draws
    assert first != draws(6)
    assert [s[0] for s in first] == [0, 1, 0, 1]  # round-robin, in order
    assert first[1][1] == first[0][1] + 1  # seeds base_seed + worker_id
    assert [s[3] for s in first] == ["init 0", "init 1", "init 0", "init 1"]
    assert first[0][2] != first[1][2]  # the workers draw different numbers
