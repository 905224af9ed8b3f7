"""``save``/``load`` and ``utils.data`` (datasets, samplers, DataLoader), against PyTorch.

Each library saves and loads its own files (the formats differ on purpose: the
error for the other's file is tested apart); what is compared is what comes
back.  Random orders are compared only through what does not depend on the
generator (every index once per epoch, the same seed giving the same order)."""

import io
import pickle

import numpy as np
import pytest

import autograd_lib
from conftest import requires_torch
from differential import caught, registry, run
from test_oracle import arr

SCENARIOS, scenario = registry()


class Custom:
    """A class that weights_only loading must refuse (module level: picklable)."""

    def __init__(self, value):
        self.value = value


def _roundtrip(lib, obj, **load_args):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **load_args)


@scenario
def save_load_tensors(lib):
    x = lib.tensor(arr((2, 3), seed=1))
    leaf = lib.ones(3, requires_grad=True)
    loaded = _roundtrip(lib, [x, lib.arange(5), lib.tensor([True, False]), x.double(),
                              leaf * 2, leaf, lib.tensor(3.5), lib.zeros(0, 2)])
    return loaded, [t.is_leaf for t in loaded], [t.requires_grad for t in loaded]


@scenario
def save_load_shared_storage(lib):
    v = lib.arange(6.0)
    m = lib.ones(2, 3)
    loaded = _roundtrip(lib, {"v": v, "head": v[:2], "same": v, "mt": m.t(), "row": m[1]})
    shared_object = loaded["v"] is loaded["same"]
    loaded["v"].add_(10)
    return loaded["head"], shared_object, loaded["mt"].is_contiguous(), loaded["mt"].shape, \
        loaded["row"]


@scenario
def save_load_state_dicts(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (i + 1))
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    x = lib.tensor(arr((5, 3), seed=2))
    model(x).sum().backward()
    opt.step()
    checkpoint = _roundtrip(lib, {"model": model.state_dict(), "optimizer": opt.state_dict(),
                                  "epoch": 3, "note": "after one step", "size": x.shape,
                                  "dtype": lib.float64, "device": lib.device("cpu")})
    fresh = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
    keys = fresh.load_state_dict(checkpoint["model"])
    fresh_opt = lib.optim.Adam(fresh.parameters(), lr=0.5)
    fresh_opt.load_state_dict(checkpoint["optimizer"])
    return list(checkpoint["model"]), type(checkpoint["model"]).__name__, fresh(x), \
        keys.missing_keys, fresh_opt.param_groups[0]["lr"], fresh_opt.state_dict()["state"][0], \
        checkpoint["epoch"], checkpoint["note"], checkpoint["size"], checkpoint["dtype"], \
        repr(checkpoint["device"])


@scenario
def save_load_parameter_and_paths(lib):
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/p.pt"
        lib.save(lib.nn.Parameter(lib.ones(2)), path)
        p = lib.load(path)
        import pathlib
        lib.save({"w": lib.ones(1)}, pathlib.Path(folder) / "w.pt")
        w = lib.load(pathlib.Path(folder) / "w.pt", map_location="cpu", weights_only=True)
    return type(p).__name__, p, p.requires_grad, p.is_leaf, w


@scenario
def load_refuses_code_by_default(lib):
    buffer = io.BytesIO()
    lib.save({"a": Custom(1)}, buffer)
    buffer.seek(0)
    refused = caught(lib.load, buffer)
    buffer.seek(0)
    return refused, isinstance(refused.error, pickle.UnpicklingError), \
        lib.load(buffer, weights_only=False)["a"].value


@scenario
def load_errors(lib):
    buffer = io.BytesIO()
    lib.save(lib.ones(2), buffer)
    buffer.seek(0)
    return caught(lib.load, buffer, map_location="cuda"), caught(lib.load, "/nonexistent/file.pt")


def test_load_refuses_the_other_format(tmp_path, torch):
    """A file written by torch.save: autograd_lib.load names the problem."""
    path = tmp_path / "torch.pt"
    torch.save(torch.ones(2), path)
    with pytest.raises(RuntimeError, match="written by PyTorch's torch.save"):
        autograd_lib.load(path)
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(RuntimeError, match="not a file written by autograd_lib.save"):
        autograd_lib.load(tmp_path / "junk.pt")


# ---------------------------------------------------------------- utils.data

def _dataset(lib, n=10):
    X = lib.arange(n * 2, dtype=lib.float32).reshape(n, 2)
    y = lib.arange(n)
    return lib.utils.data.TensorDataset(X, y)


@scenario
def tensor_dataset(lib):
    D = lib.utils.data
    ds = _dataset(lib)
    return len(ds), ds[3], ds[-1], caught(D.TensorDataset, lib.ones(3), lib.ones(4)), \
        isinstance(ds, D.Dataset)


@scenario
def dataloader_in_order(lib):
    D = lib.utils.data
    ds = _dataset(lib)
    loader = D.DataLoader(ds, batch_size=4)
    dropping = D.DataLoader(ds, batch_size=4, drop_last=True)
    single = D.DataLoader(ds)
    unbatched = D.DataLoader(ds, batch_size=None)
    return list(loader), len(loader), list(dropping), len(dropping), len(single), \
        next(iter(single)), next(iter(unbatched)), len(unbatched)


@scenario
def dataloader_collates(lib):
    D = lib.utils.data
    samples = [{"x": lib.ones(2) * i, "label": i, "weight": 0.5 * i, "name": f"s{i}",
                "pair": (i, float(i)), "flag": i % 2 == 0, "array": np.full(2, i)}
               for i in range(5)]
    batches = list(D.DataLoader(samples, batch_size=2))
    custom = list(D.DataLoader(list(range(7)), batch_size=3, collate_fn=lambda b: sum(b)))
    return batches, custom, D.default_collate([(1, 2.0), (3, 4.0)]), \
        D.default_collate([np.float32(1.5), np.float32(2.0)])


@scenario
def dataloader_shuffle_covers_every_index(lib):
    D = lib.utils.data
    ds = _dataset(lib, 20)
    loader = D.DataLoader(ds, batch_size=6, shuffle=True, generator=lib.Generator().manual_seed(0))
    epochs = [[int(i) for _, ys in loader for i in ys] for _ in range(3)]
    again = D.DataLoader(ds, batch_size=6, shuffle=True, generator=lib.Generator().manual_seed(0))
    repeat = [int(i) for _, ys in again for i in ys]
    sizes = [len(ys) for _, ys in loader]
    dropped = [len(ys) for _, ys in D.DataLoader(ds, batch_size=6, shuffle=True, drop_last=True)]
    return [sorted(e) for e in epochs], repeat == epochs[0], epochs[0] != epochs[1], sizes, dropped, \
        epochs[0] != list(range(20))


@scenario
def dataloader_batches_of_a_tensor_dataset(lib):
    """What the loader's fast path for TensorDataset must keep: the samples' values stacked,
    dtypes, shapes, contiguity, no graph unless a tensor requires grad (then the stack's),
    negative and NumPy indices from a batch sampler, a subclass's own samples, and the
    error of an index out of range."""
    D = lib.utils.data
    ds = _dataset(lib, 12)

    def described(batches):
        return [(b, [(t.dtype, tuple(t.shape), t.stride(), t.is_contiguous(), t.requires_grad,
                      type(t.grad_fn).__name__ if t.grad_fn is not None else None) for t in b])
                for b in batches]

    class Sampled(D.Sampler):
        def __iter__(self):
            return iter([[-1, 0, np.int64(3)], [11, -12]])

        def __len__(self):
            return 2

    class Doubled(D.TensorDataset):
        def __getitem__(self, index):
            x, y = super().__getitem__(index)
            return 2 * x, y

    leaf = lib.arange(6.0).reshape(3, 2).requires_grad_()
    graph = next(iter(D.DataLoader(D.TensorDataset(leaf, lib.arange(3)), batch_size=2)))
    graph[0].sum().backward()
    beyond = D.DataLoader(ds, batch_sampler=[[0, 12]])
    return described(D.DataLoader(ds, batch_size=5)), described(D.DataLoader(ds, batch_sampler=Sampled())), \
        described(D.DataLoader(Doubled(*ds.tensors), batch_size=4)), described([graph]), leaf.grad, \
        caught(list, beyond), described(D.DataLoader(D.TensorDataset(ds.tensors[0]), batch_size=7))


@scenario
def dataloader_errors(lib):
    D, ds = lib.utils.data, _dataset(lib)
    sampler = D.SequentialSampler(ds)
    return [caught(D.DataLoader, ds, shuffle=True, sampler=sampler),
            caught(D.DataLoader, ds, batch_size=None, drop_last=True),
            caught(D.DataLoader, ds, batch_sampler=D.BatchSampler(sampler, 3, False), batch_size=2),
            caught(D.BatchSampler, sampler, 0, False), caught(D.DataLoader, ds, num_workers=-1),
            caught(D.RandomSampler, ds, num_samples=0)]


@scenario
def samplers_subsets_and_splits(lib):
    D, ds = lib.utils.data, _dataset(lib, 9)
    batches = list(D.BatchSampler(D.SequentialSampler(ds), 4, drop_last=False))
    sub = D.Subset(ds, [8, 0, 3])
    both = ds + sub
    parts = D.random_split(ds, [5, 4], generator=lib.Generator().manual_seed(1))
    fractions = D.random_split(range(10), [0.5, 0.3, 0.2])
    seen = sorted(int(p[i][1]) for p in parts for i in range(len(p)))
    loader = D.DataLoader(ds, batch_sampler=D.BatchSampler(D.SequentialSampler(ds), 5, True))
    replaced = list(D.RandomSampler(ds, replacement=True, num_samples=30,
                                    generator=lib.Generator().manual_seed(2)))
    return batches, len(sub), sub[0], len(both), both[10], both[-1], [len(p) for p in parts], \
        seen, [len(f) for f in fractions], list(loader), len(replaced), \
        all(0 <= i < 9 for i in replaced), list(D.SequentialSampler(range(3)))


@scenario
def iterable_dataset_loader(lib):
    D = lib.utils.data

    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter([lib.tensor([float(i)]) for i in range(5)])
    return list(D.DataLoader(Stream(), batch_size=2)), list(D.DataLoader(Stream(), batch_size=None))


@requires_torch
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
