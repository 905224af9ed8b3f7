"""``utils.data``: datasets, samplers and the ``DataLoader`` that batches them.

    dataset = TensorDataset(X, y)               # dataset[i] == (X[i], y[i])
    loader = DataLoader(dataset, batch_size=32, shuffle=True,
                        generator=autograd_lib.Generator().manual_seed(0))
    for xb, yb in loader:                       # xb: (32, ...), yb: (32,)
        ...

As in PyTorch: a *sampler* says in which order the indices come (in order, or a
random permutation drawn anew at each epoch), a *batch sampler* cuts them into
batches (``drop_last`` drops a short last one), and ``collate_fn`` turns the
list of samples of a batch into tensors (``default_collate`` stacks tensors,
makes numbers into a tensor, and works through tuples and dicts).  The random
order is reproducible with a seeded ``generator`` (or ``manual_seed``), but is
not PyTorch's order: the generators differ.  ``num_workers`` is accepted and
everything runs in the calling process.
"""

import bisect
import math
import numbers
import warnings

import numpy as np

from .. import creation
from ..creation import Generator, tensor
from ..ops.shape import stack
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
           "Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "DataLoader",
           "default_collate", "default_convert"]


class Dataset:
    """A map-style dataset: subclass it with ``__getitem__`` (and ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: subclass it with ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """Samples are the i-th rows of the tensors: ``dataset[i] == (t[i] for t in tensors)``."""

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self):
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else int(self.cumulative_sizes[which - 1])
        return self.datasets[which][idx - start]


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or
    fractions that sum to 1)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = creation.randperm(n, generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out


# ------------------------------------------------------------------ samplers

class Sampler:
    """Yields dataset indices."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, new at every pass (or ``num_samples`` drawn
    with ``replacement``).  Without a ``generator``, each pass seeds one from the
    library's generator (``manual_seed`` makes the order reproducible)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator().manual_seed(int(creation._generator.integers(0, 2 ** 62)))
        if self.replacement:
            yield from generator.integers(0, n, size=self.num_samples).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from generator.permutation(n).tolist()
        yield from generator.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one may be shorter
    unless ``drop_last``."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


# ---------------------------------------------------------------- collation

def default_convert(data):
    """NumPy arrays become tensors, recursively; everything else is left as it is."""
    if isinstance(data, np.ndarray):
        return Tensor._make(np.array(data))
    if isinstance(data, dict):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data) if isinstance(data, tuple) else \
            [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """One batch from a list of samples: tensors (and NumPy arrays) are stacked, floats
    become a float64 tensor and ints an int64 one, strings stay a list, and tuples,
    lists and dicts are collated field by field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return stack([Tensor._make(np.array(b)) for b in batch], 0)
    if isinstance(elem, np.generic):
        return tensor(np.array(batch))
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype="float64")
    if isinstance(elem, numbers.Integral):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, dict):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, (list, tuple)):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]      # a list, as PyTorch
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem)}")


# --------------------------------------------------------------- DataLoader

def _tensor_rows(dataset, indices):
    """What ``default_collate`` makes of a TensorDataset's samples at ``indices`` (a list of
    each tensor's rows stacked), taken in one indexing per tensor instead of one tensor per
    sample: the same values, dtypes and shapes, in a fraction of the time.  None when that
    would not be the same (a subclass, a tensor that requires grad, an index that is not an
    integer in range: the samples are then fetched one by one, and errors come from there)."""
    if type(dataset) is not TensorDataset or not indices:
        return None
    n = len(dataset)
    if not all(type(i) is int and -n <= i < n for i in indices):
        return None
    if any(t.requires_grad for t in dataset.tensors):
        return None
    rows = tensor(indices)
    return [t[rows] for t in dataset.tensors]



class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples (collated by
    ``collate_fn``), in order or, with ``shuffle=True``, in a new random order each epoch."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        self.dataset, self.num_workers, self.generator = dataset, num_workers, generator
        self.pin_memory = pin_memory
        self.batch_size, self.drop_last = batch_size, drop_last
        self._iterable = isinstance(dataset, IterableDataset)
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else \
                SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self.batch_size is not None or \
                batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        if self.pin_memory:                 # (as PyTorch without an accelerator: nothing to pin to)
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device "
                          "pinned memory won't be used.", UserWarning, stacklevel=2)
        if self._iterable:
            yield from self._iterate_stream()
            return
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self._fetch(indices)
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _fetch(self, indices):
        """The batch at ``indices``: ``collate_fn`` of the samples, as PyTorch's fetcher does."""
        if self.collate_fn is default_collate:
            rows = _tensor_rows(self.dataset, indices)
            if rows is not None:
                return rows
        return self.collate_fn([self.dataset[i] for i in indices])

    def _iterate_stream(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
