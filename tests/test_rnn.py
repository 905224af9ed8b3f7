"""Recurrent layers and their neighbours, side by side with PyTorch (differential).

``nn.RNN`` (tanh, relu), ``nn.LSTM``, ``nn.GRU`` and their cells: outputs, final states,
the whole backward graph (PyTorch's CPU kernels compose ops; so does the library, in the
same order), the gradients of the input, of the initial states and of every parameter,
parameter names and shapes, reprs, errors, dropout between layers, unbatched and packed
inputs, a few SGD steps of small classifiers.  Also ``nn.utils.rnn`` (pad, pack, unpack),
``BatchNorm2d``/``3d``, ``Bilinear`` and the ops they brought (``unsafe_split``/``chunk``).

The two libraries draw different random numbers, so every scenario copies the same values
(from NumPy) into the parameters of both.  The one graph that differs: PyTorch's float32
LSTM runs oneDNN's fused layer (MkldnnRnnLayerBackward0); its float64 LSTM composes ops, and
the graph scenarios of the LSTM use float64.
"""

import itertools

import pytest

from differential import caught, registry, run, sgd_losses
from test_oracle import arr

SCENARIOS, scenario = registry()

F32 = {"rtol": 1e-4, "atol": 1e-5}


def set_params(lib, module, seed=0, scale=0.5):
    """Fill every parameter of ``module`` with the same values in both libraries."""
    with lib.no_grad():
        for i, (_, p) in enumerate(module.named_parameters()):
            p.copy_(lib.tensor(arr(tuple(p.shape), seed=seed + i, low=-scale, high=scale),
                               dtype=p.dtype))
    return module


def data(lib, shape, seed, dtype="float64", requires_grad=True):
    return lib.tensor(arr(shape, seed=seed), dtype=getattr(lib, dtype), requires_grad=requires_grad)


def weighted_sum(lib, tensors, seed=100):
    """A loss that gives every element of every tensor its own weight."""
    total = 0
    for i, t in enumerate(tensors):
        total = total + (t * lib.tensor(arr(tuple(t.shape), seed=seed + i), dtype=t.dtype)).sum()
    return total


def states_of(result):
    """``(output, h_n)`` or ``(output, (h_n, c_n))`` as a flat list of tensors."""
    output, hidden = result
    return [output, *hidden] if isinstance(hidden, tuple) else [output, hidden]


def make(lib, kind, *args, **kwargs):
    """``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU``; ``"RNN_RELU"`` is an RNN with relu."""
    if kind == "RNN_RELU":
        return lib.nn.RNN(*args, nonlinearity="relu", **kwargs)
    return getattr(lib.nn, kind)(*args, **kwargs)


# ========================================================== layers: graph and gradients

CONFIGS = {
    "plain": {},
    "two_layers": {"num_layers": 2},
    "bidirectional": {"bidirectional": True},
    "batch_first": {"batch_first": True},
    "no_bias": {"bias": False},
    "deep_bidirectional_batch_first": {"num_layers": 2, "bidirectional": True, "batch_first": True},
    "no_bias_bidirectional": {"bias": False, "bidirectional": True},
}


def _layer_scenario(kind, config, options, with_h0):
    def fn(lib):
        module = set_params(lib, make(lib, kind, 3, 4, dtype=lib.float64, **options), seed=1)
        directions = 2 if options.get("bidirectional") else 1
        layers = options.get("num_layers", 1) * directions
        x = data(lib, (2, 3, 3) if options.get("batch_first") else (3, 2, 3), seed=2)
        args = ()
        if with_h0:
            h0 = data(lib, (layers, 2, 4), seed=3)
            args = ((h0, data(lib, (layers, 2, 4), seed=4)),) if kind == "LSTM" else (h0,)
        result = module(x, *args)
        tensors = states_of(result)
        weighted_sum(lib, tensors).backward()
        leaves = [x] + ([t for t in (args[0] if kind == "LSTM" else args)] if with_h0 else [])
        return (tensors, [t.grad for t in leaves], [(n, p.grad) for n, p in module.named_parameters()],
                tensors[0]._version)
    fn.__name__ = f"{kind.lower()}_{config}{'_h0' if with_h0 else ''}"
    scenario(fn, rtol=1e-9, atol=1e-11)


for _kind in ("RNN", "RNN_RELU", "GRU", "LSTM"):
    for _config, _options in CONFIGS.items():
        for _with_h0 in (False, True):
            _layer_scenario(_kind, _config, _options, _with_h0)


def _unbatched_scenario(kind, batch_first):
    def fn(lib):
        module = set_params(lib, make(lib, kind, 3, 4, num_layers=2, bidirectional=True,
                                      batch_first=batch_first, dtype=lib.float64), seed=5)
        x = data(lib, (4, 3), seed=6)
        h0 = data(lib, (4, 4), seed=7)
        args = ((h0, h0 * 2),) if kind == "LSTM" else (h0,)
        with_h0, without = module(x, *args), module(x)
        tensors = states_of(with_h0) + states_of(without)
        weighted_sum(lib, tensors).backward()
        return tensors, x.grad, h0.grad, [p.grad for p in module.parameters()]
    fn.__name__ = f"{kind.lower()}_unbatched{'_batch_first' if batch_first else ''}"
    scenario(fn, rtol=1e-9, atol=1e-11)


for _kind in ("RNN", "GRU", "LSTM"):
    for _batch_first in (False, True):
        _unbatched_scenario(_kind, _batch_first)


@scenario(**F32)
def lstm_float32_values_and_gradients(lib):
    """PyTorch's float32 LSTM is oneDNN's fused layer: the values, the gradients and the
    final ops agree, its inner graph (MkldnnRnnLayerBackward0) does not."""
    module = set_params(lib, lib.nn.LSTM(3, 5, num_layers=2, bidirectional=True), seed=8)
    x = data(lib, (4, 2, 3), seed=9, dtype="float32")
    h0, c0 = data(lib, (4, 2, 5), seed=10, dtype="float32"), data(lib, (4, 2, 5), seed=11, dtype="float32")
    output, (h_n, c_n) = module(x, (h0, c0))
    weighted_sum(lib, [output, h_n, c_n]).backward()
    plain = set_params(lib, lib.nn.LSTM(3, 5, batch_first=True), seed=12)(x)
    return ([t.detach() for t in (output, h_n, c_n)], [t.grad for t in (x, h0, c0)],
            [p.grad for p in module.parameters()], [t.grad_fn.name() for t in (output, h_n, c_n)],
            plain[0].detach(), plain[0].grad_fn.name(), plain[1][0].grad_fn.name())


@scenario(**F32)
def float32_rnn_and_gru_graphs(lib):
    tensors = []
    for kind in ("RNN", "GRU"):
        module = set_params(lib, make(lib, kind, 3, 4, num_layers=2, batch_first=True), seed=13)
        tensors += states_of(module(data(lib, (2, 3, 3), seed=14, dtype="float32")))
    return tensors


@scenario(rtol=1e-9, atol=1e-11)
def lstm_projections(lib):
    module = set_params(lib, lib.nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True,
                                         dtype=lib.float64), seed=15)
    x = data(lib, (3, 2, 3), seed=16)
    h0, c0 = data(lib, (4, 2, 2), seed=17), data(lib, (4, 2, 5), seed=18)
    tensors = states_of(module(x, (h0, c0)))
    weighted_sum(lib, tensors).backward()
    return (tensors, x.grad, h0.grad, c0.grad, [(n, p.grad) for n, p in module.named_parameters()],
            caught(module, x, (c0, c0)), repr(module))


@scenario(rtol=1e-9, atol=1e-11)
def dropout_between_layers(lib):
    """Dropout's random numbers are the library's own; ``p=1`` zeroes everything, so both
    libraries agree on the values, and on the graph (MulBackward0 between the layers)."""
    out = []
    for kind in ("RNN", "GRU", "LSTM"):
        module = set_params(lib, make(lib, kind, 3, 4, num_layers=3, dropout=1.0, dtype=lib.float64),
                            seed=19)
        x = data(lib, (3, 2, 3), seed=20)
        trained = states_of(module(x))
        weighted_sum(lib, trained).backward()
        module.eval()
        evaluated = states_of(module(x))
        out += [trained, x.grad, evaluated]
    return out


@scenario
def dropout_in_training_only(lib):
    """With ``p=0.5`` the numbers are each library's own: only that training differs from
    evaluation, and the graph's top, are compared."""
    lib.manual_seed(0)
    module = lib.nn.RNN(2, 3, num_layers=2, dropout=0.5, dtype=lib.float64)
    x = lib.ones(4, 1, 2, dtype=lib.float64)
    trained = module(x)[0]
    evaluated = module.eval()(x)[0]
    return bool((trained - evaluated).abs().max() > 1e-6), trained.grad_fn.name(), module.training


@scenario
def empty_batch_and_single_step(lib):
    module = set_params(lib, lib.nn.GRU(3, 4, dtype=lib.float64), seed=21)
    return states_of(module(lib.ones(2, 0, 3, dtype=lib.float64))) + states_of(module(
        data(lib, (1, 2, 3), seed=22)))


# ============================================================ parameters, reprs, init

@scenario
def parameter_names_and_shapes(lib):
    nn = lib.nn
    modules = [nn.RNN(3, 4), nn.RNN(3, 4, 2, "relu", False, True, 0.5, True), nn.GRU(3, 4, bias=False),
               nn.LSTM(10, 20, num_layers=2, batch_first=True), nn.LSTM(3, 4, proj_size=2),
               nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=3),
               nn.GRU(3, 4, num_layers=3, dropout=0.25, bidirectional=True),
               nn.RNNCell(3, 4), nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), nn.LSTMCell(3, 4),
               nn.GRUCell(3, 4, bias=False), nn.LSTM(3, 4, bias=False, batch_first=False, bidirectional=False)]
    return [(repr(m), [(n, p.shape, p.dtype) for n, p in m.named_parameters()], list(m.state_dict()),
             [[tuple(w.shape) for w in ws] for ws in m.all_weights] if hasattr(m, "all_weights") else None,
             m._flat_weights_names if hasattr(m, "_flat_weights_names") else None)
            for m in modules]


@scenario
def reprs(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Embedding(10, 3), nn.LSTM(3, 4, batch_first=True))
    return [repr(m) for m in (nn.RNN(3, 4, nonlinearity="relu"), nn.GRU(3, 4, dropout=0.5, num_layers=2),
                              nn.LSTM(3, 4, bias=False, bidirectional=True), nn.RNNCell(3, 4, nonlinearity="relu"),
                              nn.GRUCell(2, 3), nn.LSTMCell(2, 3, bias=False), model)]


@scenario
def default_init_is_uniform_in_one_over_sqrt_hidden(lib):
    lib.manual_seed(0)
    out = []
    for module in (lib.nn.LSTM(3, 16, num_layers=2), lib.nn.GRUCell(5, 9), lib.nn.Bilinear(4, 2, 3)):
        bound = 1 / (module.hidden_size if hasattr(module, "hidden_size") else module.in1_features) ** 0.5
        values = [p.detach().abs().max().item() <= bound for p in module.parameters()]
        spread = [p.detach().abs().max().item() > bound / 2 for p in module.parameters() if p.numel() > 20]
        out.append((all(values), all(spread)))
    return out


@scenario
def dtype_and_state_dict_round_trip(lib):
    module = set_params(lib, lib.nn.GRU(2, 3, num_layers=2), seed=23)
    other = lib.nn.GRU(2, 3, num_layers=2)
    other.load_state_dict(module.state_dict())
    x = data(lib, (2, 1, 2), seed=24, dtype="float32", requires_grad=False)
    module.double()
    return (other(x)[0], [p.dtype for p in module.parameters()], module._flat_weights[0].dtype,
            module(x.double())[1])


# =============================================================================== cells

def _cell_scenario(name, build, with_state):
    def fn(lib):
        cell = set_params(lib, build(lib.nn, lib.float64), seed=25)
        x = data(lib, (2, 3), seed=26)
        state = None
        if with_state:
            h = data(lib, (2, 4), seed=27)
            state = (h, data(lib, (2, 4), seed=28)) if isinstance(cell, lib.nn.LSTMCell) else h
        out = cell(x, state) if with_state else cell(x)
        one = cell(x[0], tuple(s[0] for s in state) if isinstance(state, tuple) else
                   state[0]) if with_state else cell(x[1])
        tensors = [*out, *one] if isinstance(out, tuple) else [out, one]
        weighted_sum(lib, tensors).backward()
        leaves = [x] + (list(state) if isinstance(state, tuple) else [state] if with_state else [])
        return tensors, [t.grad for t in leaves], [(n, p.grad) for n, p in cell.named_parameters()]
    fn.__name__ = f"{name}{'_with_state' if with_state else ''}"
    scenario(fn, rtol=1e-9, atol=1e-11)


CELLS = {
    "rnn_cell": lambda nn, dtype: nn.RNNCell(3, 4, dtype=dtype),
    "rnn_cell_relu": lambda nn, dtype: nn.RNNCell(3, 4, nonlinearity="relu", dtype=dtype),
    "rnn_cell_no_bias": lambda nn, dtype: nn.RNNCell(3, 4, bias=False, dtype=dtype),
    "lstm_cell": lambda nn, dtype: nn.LSTMCell(3, 4, dtype=dtype),
    "lstm_cell_no_bias": lambda nn, dtype: nn.LSTMCell(3, 4, bias=False, dtype=dtype),
    "gru_cell": lambda nn, dtype: nn.GRUCell(3, 4, dtype=dtype),
    "gru_cell_no_bias": lambda nn, dtype: nn.GRUCell(3, 4, bias=False, dtype=dtype),
}

for _name, _build in CELLS.items():
    for _with_state in (False, True):
        _cell_scenario(_name, _build, _with_state)


@scenario(**F32)
def cells_unrolled_equal_the_layers(lib):
    """A cell applied step by step computes what the layer computes (same weights)."""
    out = []
    for kind in ("RNN", "LSTM", "GRU"):
        layer = set_params(lib, make(lib, kind, 3, 4), seed=29)
        cell = getattr(lib.nn, kind + "Cell")(3, 4)
        with lib.no_grad():
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                getattr(cell, name).copy_(getattr(layer, name + "_l0"))
        x = data(lib, (5, 2, 3), seed=30, dtype="float32", requires_grad=False)
        state = None
        for t in range(5):
            state = cell(x[t]) if state is None else cell(x[t], state)
        out += [state, [t.detach() for t in states_of(layer(x))[1:]]]   # float32 LSTM: oneDNN's graph
    return out


@scenario(rtol=1e-9, atol=1e-11)
def cell_functions(lib):
    """``torch.rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``, ``gru_cell``: the cells'
    computations as functions (the weights passed in)."""
    x, h, c = data(lib, (2, 3), seed=32), data(lib, (2, 4), seed=33), data(lib, (2, 4), seed=34)
    weights = {k: [data(lib, (k * 4, 3), seed=35), data(lib, (k * 4, 4), seed=36),
                   data(lib, (k * 4,), seed=37), data(lib, (k * 4,), seed=38)] for k in (1, 3, 4)}
    outs = [lib.rnn_tanh_cell(x, h, *weights[1]), lib.rnn_relu_cell(x, h, *weights[1][:2]),
            *lib.lstm_cell(x, (h, c), *weights[4]), lib.gru_cell(x, h, *weights[3][:2], None, weights[3][3])]
    weighted_sum(lib, outs).backward()
    return (outs, [t.grad for t in (x, h, c)], [w.grad for ws in weights.values() for w in ws],
            [caught(*case) for case in (
                (lib.gru_cell, x, h, *weights[1]), (lib.lstm_cell, lib.ones(2, 5), (h, c), *weights[4]),
                (lib.gru_cell, x, h, weights[3][0], weights[1][1]),
                (lib.gru_cell, x, h, *weights[3][:3], weights[1][3]),
                (lib.rnn_tanh_cell, x, h, weights[3][0], weights[1][1]), (lib.lstm_cell, x, (h,), *weights[4]),
                (lib.rnn_tanh_cell, x, h, lib.ones(4, 5, dtype=lib.float64), weights[1][1]),
                (lib.rnn_tanh_cell, x, h, weights[1][0], weights[1][1], lib.ones(3, dtype=lib.float64)))],
            caught(lib.addmm, lib.ones(2, 12), lib.ones(3, 3), lib.ones(3, 12)),
            lib.addmm(lib.ones(3, 1), lib.ones(3, 3), lib.ones(3, 12)))


# ============================================================================== errors

@scenario
def construction_errors(lib):
    nn = lib.nn
    cases = [lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), lambda: nn.RNN(3, 4, dropout=1.5),
             lambda: nn.LSTM(3, 4, dropout=True), lambda: nn.RNN(3, 4.0), lambda: nn.RNN(3, 0),
             lambda: nn.GRU(0, 4), lambda: nn.RNN(3, 4, num_layers=0), lambda: nn.RNN(3, 4, proj_size=2),
             lambda: nn.GRU(3, 4, proj_size=1), lambda: nn.LSTM(3, 4, proj_size=4),
             lambda: nn.LSTM(3, 4, proj_size=-1), lambda: nn.LSTM(3, 4, bias=1),
             lambda: nn.GRU(3, 4, batch_first=None), lambda: nn.RNN(3, 4, num_layers=1.0),
             lambda: nn.RNNBase("CELL", 3, 4)]
    return [caught(case) for case in cases]


@scenario
def dropout_with_one_layer_warns(lib):
    return repr(lib.nn.GRU(3, 4, dropout=0.5)), repr(lib.nn.LSTM(3, 4, dropout=0.2, num_layers=2))


@scenario
def forward_errors(lib):
    nn = lib.nn
    rnn, gru, lstm = nn.RNN(3, 4), nn.GRU(3, 4), nn.LSTM(3, 4)
    x, h = lib.ones(2, 2, 3), lib.ones(1, 2, 4)
    cases = [
        (rnn, lib.ones(2, 2, 2, 3)), (gru, lib.ones(2, 2, 2, 3)), (lstm, lib.ones(2, 2, 2, 3)),
        (rnn, lib.ones(2, 2, 5)), (gru, lib.ones(2, 5)), (rnn, x, lib.ones(1, 3, 4)),
        (rnn, x, lib.ones(2, 4)), (gru, lib.ones(2, 3), lib.ones(1, 2, 4)), (rnn, lib.ones(2, 3), lib.ones(2, 4)),
        (rnn, x.double()), (gru, lib.ones(2, 2, 3, dtype=lib.int32)), (nn.RNN(3, 4).double(), x),
        (rnn, x, h.double()), (lstm, x, (h, lib.ones(2, 4))), (lstm, lib.ones(2, 3), (h, lib.ones(2, 4))),
        (lstm, x, (lib.ones(1, 3, 4), h)), (lstm, x, (h, lib.ones(1, 3, 4))), (gru, x, lib.ones(2, 2, 4)),
        (rnn, lib.ones(0, 2, 3)), (nn.GRU(3, 4, batch_first=True), lib.ones(2, 0, 3)),
        (nn.RNN(3, 4, batch_first=True), x, lib.ones(1, 3, 4)), (lstm, x, (h,)),
        (nn.LSTM(3, 4, proj_size=2), x, (h, h)),
    ]
    return [caught(m, *args) for m, *args in cases]


@scenario
def cell_errors(lib):
    nn = lib.nn
    rnn, lstm, gru = nn.RNNCell(3, 4), nn.LSTMCell(3, 4), nn.GRUCell(3, 4)
    x, h = lib.ones(2, 3), lib.ones(2, 4)
    cases = [
        (rnn, lib.ones(2, 2, 3)), (rnn, x, lib.ones(2, 2, 4)), (rnn, lib.ones(2, 2, 3), lib.ones(2, 2, 4)),
        (rnn, lib.ones(2, 5)), (rnn, x, lib.ones(3, 4)), (rnn, x, lib.ones(2, 5)), (rnn, lib.ones(3), h),
        (rnn, x, lib.ones(4)), (nn.RNNCell(3, 4, nonlinearity="x"), x),
        (lstm, lib.ones(2, 2, 3)), (lstm, x, (h, lib.ones(3, 4))), (lstm, x, (lib.ones(2, 5), h)),
        (lstm, x, (h, lib.ones(2, 5))), (lstm, lib.ones(3), (h, h)), (lstm, x, (h, lib.ones(2, 2, 4))),
        (gru, lib.ones(2, 2, 3)), (gru, x, lib.ones(2, 5)), (gru, x.double()), (rnn, x, h.double()),
        (gru, x, lib.ones(1, 1, 4)),
    ]
    return [caught(m, *args) for m, *args in cases], [tuple(m(lib.ones(0, 3)).shape) for m in (rnn, gru)]


# ================================================================ training a classifier

def _classifier(lib, kind):
    nn = lib.nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(6, 3)
            self.rnn = make(lib, kind, 3, 5, num_layers=2, batch_first=True, bidirectional=True)
            self.head = nn.Linear(10, 2)

        def forward(self, tokens):
            output, hidden = self.rnn(self.embed(tokens))
            h_n = hidden[0] if isinstance(hidden, tuple) else hidden
            return self.head(lib.cat([h_n[-2], h_n[-1]], 1)) + self.head(output[:, -1]) * 0.5

    return Classifier()


def _training_scenario(kind):
    def fn(lib):
        model = set_params(lib, _classifier(lib, kind), seed=31)
        tokens = lib.tensor([[1, 2, 3, 4], [5, 4, 3, 2], [0, 1, 0, 1]])
        losses, params, _ = sgd_losses(lib, model, tokens, lib.tensor([0, 1, 1]), 4, lr=0.5, momentum=0.9)
        return losses, params
    fn.__name__ = f"sgd_steps_{kind.lower()}_classifier"
    scenario(fn, rtol=1e-4, atol=1e-5)


for _kind in ("RNN", "LSTM", "GRU"):
    _training_scenario(_kind)


# ====================================================================== nn.utils.rnn

def _sequences(lib, lengths, seed, features=3):
    return [data(lib, (n, features), seed=seed + i) for i, n in enumerate(lengths)]


@scenario
def pad_sequence_options(lib):
    U = lib.nn.utils.rnn
    seqs = _sequences(lib, [2, 4, 1], seed=40)
    padded = [U.pad_sequence(seqs), U.pad_sequence(seqs, batch_first=True, padding_value=-1.0),
              U.pad_sequence(seqs, padding_side="left"), U.pad_sequence(tuple(seqs), True, 0.5, "left"),
              U.pad_sequence([lib.tensor([1, 2, 3]), lib.tensor([4])], padding_value=7),
              U.pad_sequence([lib.ones(3, 2), lib.ones(2)])]
    weighted_sum(lib, padded[:4]).backward()
    return (padded, [t.grad for t in seqs], caught(U.pad_sequence, []),
            caught(U.pad_sequence, seqs, padding_side="middle"),
            caught(U.pad_sequence, [lib.ones(3, 2), lib.ones(2, 3)]))


@scenario
def pack_and_pad_round_trip(lib):
    U = lib.nn.utils.rnn
    padded = data(lib, (4, 3, 2), seed=41)
    out = []
    for lengths, options in (([4, 3, 1], {}), ([2, 4, 3], {"enforce_sorted": False}),
                             (lib.tensor([3, 3, 1]), {}), ([1, 2, 2], {"enforce_sorted": False})):
        packed = U.pack_padded_sequence(padded, lengths, **options)
        back, back_lengths = U.pad_packed_sequence(packed)
        first, _ = U.pad_packed_sequence(packed, batch_first=True, padding_value=-1.0, total_length=6)
        out += [tuple(packed), back, back_lengths, first]
    batch_first = U.pack_padded_sequence(padded.transpose(0, 1), [4, 2, 2], batch_first=True)
    weighted_sum(lib, [t for t in out if isinstance(t, type(padded)) and t.requires_grad] +
                 [batch_first.data]).backward()
    return out, tuple(batch_first), padded.grad, repr(U.pack_padded_sequence(padded, [2, 2, 1]).batch_sizes)


@scenario
def pack_sequence_and_unpack(lib):
    U = lib.nn.utils.rnn
    seqs = _sequences(lib, [3, 5, 2], seed=42, features=2)
    packed = U.pack_sequence(seqs, enforce_sorted=False)
    unpacked = U.unpack_sequence(packed)
    unpadded = U.unpad_sequence(U.pad_sequence(seqs, batch_first=True), lib.tensor([3, 5, 2]), batch_first=True)
    weighted_sum(lib, unpacked + unpadded).backward()
    ordered = U.pack_sequence([seqs[1], seqs[0]])
    return (tuple(packed), unpacked, unpadded, [t.grad for t in seqs], tuple(ordered),
            U.invert_permutation(lib.tensor([2, 0, 1])), U.invert_permutation(None),
            tuple(U.PackedSequence(lib.ones(3), lib.tensor([2, 1]), lib.tensor([1, 0]))),
            packed.data.dtype, packed.double().data.dtype, packed.to(lib.float32).data.dtype,
            type(packed.cpu()).__name__, packed.is_cuda, caught(U.pack_sequence, [seqs[0], seqs[1]]))


@scenario
def packing_errors(lib):
    U = lib.nn.utils.rnn
    x = lib.ones(4, 3, 2)
    return [caught(U.pack_padded_sequence, x, lengths, **options) for lengths, options in (
        ([4, 2, 3], {}), ([4, 2, 0], {"enforce_sorted": False}), ([4, 3, 0], {}), ([4, 3], {}),
        (lib.tensor([[4, 3, 2]]), {}), ([3, 3, 1], {"batch_first": True}))] + [
        caught(U.pad_packed_sequence, U.pack_padded_sequence(x, [3, 2, 1]), total_length=2)]


def _packed_scenario(kind, options, with_h0):
    def fn(lib):
        U = lib.nn.utils.rnn
        module = set_params(lib, make(lib, kind, 3, 4, dtype=lib.float64, **options), seed=43)
        batch_first = options.get("batch_first", False)
        padded = data(lib, (3, 5, 3) if batch_first else (5, 3, 3), seed=44)
        packed = U.pack_padded_sequence(padded, [2, 5, 3], batch_first=batch_first, enforce_sorted=False)
        layers = module.num_layers * (2 if module.bidirectional else 1)
        args = ()
        if with_h0:
            h0 = data(lib, (layers, 3, 4), seed=45)
            args = ((h0, data(lib, (layers, 3, 4), seed=46)),) if kind == "LSTM" else (h0,)
        output, hidden = module(packed, *args)
        unpacked, lengths = U.pad_packed_sequence(output, batch_first=batch_first)
        tensors = [output.data, unpacked, *(hidden if isinstance(hidden, tuple) else [hidden])]
        weighted_sum(lib, tensors).backward()
        leaves = [padded] + (list(args[0]) if kind == "LSTM" else list(args))
        return (tensors, lengths, tuple(output)[1:], [t.grad for t in leaves],
                [(n, p.grad) for n, p in module.named_parameters()])
    name = "_".join(f"{k}" for k in options) or "plain"
    fn.__name__ = f"packed_{kind.lower()}_{name}{'_h0' if with_h0 else ''}"
    scenario(fn, rtol=1e-9, atol=1e-11)


for _kind in ("RNN", "GRU", "LSTM"):
    for _options in ({}, {"bidirectional": True}, {"num_layers": 2, "batch_first": True},
                     {"num_layers": 2, "bidirectional": True, "bias": False}):
        for _with_h0 in (False, True):
            _packed_scenario(_kind, _options, _with_h0)


@scenario
def packed_sorted_input_and_checks(lib):
    U = lib.nn.utils.rnn
    module = set_params(lib, lib.nn.GRU(3, 4, dtype=lib.float64), seed=47)
    packed = U.pack_padded_sequence(data(lib, (4, 3, 3), seed=48), [4, 2, 1])
    out, h = module(packed)
    return (tuple(out), h, caught(module, packed, lib.ones(1, 2, 4, dtype=lib.float64)),
            caught(module, U.pack_padded_sequence(lib.ones(4, 3, 2, dtype=lib.float64), [4, 2, 1])),
            caught(lib.nn.LSTM(3, 4, dtype=lib.float64), packed, (lib.ones(1, 3, 4, dtype=lib.float64),) * 2)
            is None)


# ======================================================================= BatchNorm2d/3d

@scenario(rtol=1e-5, atol=1e-6)
def batch_norm_2d_and_3d(lib):
    nn = lib.nn
    out = []
    for cls, shape in ((nn.BatchNorm2d, (4, 3, 2, 5)), (nn.BatchNorm3d, (2, 3, 2, 2, 3))):
        x = lib.tensor(arr(shape, seed=50), requires_grad=True)
        modules = [cls(3), cls(3, momentum=None), cls(3, momentum=0.3, eps=1e-3), cls(3, affine=False),
                   cls(3, track_running_stats=False)]
        set_params(lib, modules[0], seed=51)
        for m in modules:
            outputs = [m(x), m(x * 2 + 1), m(x[:2] - 1)]
            m.eval()
            outputs.append(m(x))
            out.append((repr(m), outputs, m.state_dict(), m.training))
        weighted_sum(lib, [o for _, outs, _, _ in out[-5:] for o in outs]).backward()
        out.append(x.grad)
        out.append([p.grad for p in modules[0].parameters()])
        out.append([caught(cls(3), lib.ones(*([2] * n))) for n in (2, 3, 4, 5, 6)])
    out.append(caught(nn.BatchNorm2d(3), lib.ones(1, 3, 1, 1)))
    out.append(nn.BatchNorm2d(3).eval()(lib.ones(1, 3, 1, 1)))
    F = lib.nn.functional
    out.append([caught(F.batch_norm, *args, **options) for args, options in (
        ((lib.ones(3), lib.zeros(3), lib.ones(3)), {}),
        ((lib.ones(2, 2, 3), lib.zeros(2), lib.ones(2), lib.ones(3), lib.ones(3)), {"training": True}),
        ((lib.ones(2, 2, 3), None, None, None, lib.ones(3)), {"training": True}))])
    return out


# ============================================================================ Bilinear

@scenario(rtol=1e-9, atol=1e-11)
def bilinear_module_and_functional(lib):
    nn, F = lib.nn, lib.nn.functional
    m = set_params(lib, nn.Bilinear(3, 4, 5, dtype=lib.float64), seed=52)
    m2 = set_params(lib, nn.Bilinear(3, 4, 5, bias=False, dtype=lib.float64), seed=53)
    x1, x2 = data(lib, (2, 6, 3), seed=54), data(lib, (2, 6, 4), seed=55)
    outs = [m(x1, x2), m(x1[0, 0], x2[0, 0]), m2(x1[0], x2[0]), F.bilinear(x1, x2, m.weight),
            m(x1[:, :0], x2[:, :0])]
    weighted_sum(lib, outs).backward()
    grads = [x1.grad, x2.grad, m.weight.grad, m.bias.grad, m2.weight.grad]
    g1, = lib.autograd.grad((F.bilinear(x1, x2, m.weight, m.bias) ** 2).sum(), x1, create_graph=True)
    gg = lib.autograd.grad((g1 ** 2).sum(), (x2, m.weight))
    return (outs, grads, g1.detach(), gg, repr(m), repr(m2), [(n, p.shape) for n, p in m.named_parameters()],
            F.bilinear(lib.ones(2, 3, dtype=lib.int64), lib.ones(2, 4, dtype=lib.int64),
                       lib.ones(5, 3, 4, dtype=lib.int64)))


@scenario
def bilinear_errors(lib):
    F = lib.nn.functional
    w = lib.ones(5, 3, 4)
    cases = [(lib.ones(2, 3), lib.ones(2, 2, 4), w), (lib.ones(2, 3), lib.ones(3, 4), w),
             (lib.ones(2, 2), lib.ones(2, 4), w), (lib.ones(2, 3), lib.ones(2, 5), w),
             (lib.ones(2, 3), lib.ones(2, 4), w, lib.ones(4)), (lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3)),
             (lib.ones(2, 3), lib.ones(2, 4), w, lib.ones(5).double()),
             (lib.ones(2, 3).double(), lib.ones(2, 4), w), (lib.ones(2, 3).double(), lib.ones(2, 2, 4), w)]
    return [caught(F.bilinear, *args) for args in cases] + [caught(lib.nn.Bilinear(3, 4, 5), lib.ones(3), lib.ones(5))]


# ======================================================================= Unfold, Fold

@scenario(rtol=1e-9, atol=1e-11)
def unfold_and_fold(lib):
    nn, F = lib.nn, lib.nn.functional
    x = data(lib, (2, 3, 4, 5), seed=60)
    unfolded = [F.unfold(x, 2), F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                F.unfold(x[0], 2), nn.Unfold(3, padding=1)(x), F.unfold(x[:0], 2)]
    columns = data(lib, (2, 12, 12), seed=61)
    folded = [F.fold(columns, (4, 5), 2), F.fold(columns[0], (4, 5), 2),
              nn.Fold((5, 5), (2, 3), padding=(1, 0), stride=(1, 2))(columns[:, :, :6].reshape(2, 6, 12)),
              F.fold(F.unfold(x, 2, stride=2, padding=1), (4, 5), 2, stride=2, padding=1)]
    weighted_sum(lib, unfolded + folded).backward()
    g, = lib.autograd.grad((F.unfold(x, 2, dilation=2) ** 2).sum(), x, create_graph=True)
    gg, = lib.autograd.grad((g ** 2).sum(), x)
    h, = lib.autograd.grad((F.fold(columns, (4, 5), 2) ** 2).sum(), columns, create_graph=True)
    return (unfolded, folded, x.grad, columns.grad, g, gg, h, lib.autograd.grad(h.sum(), columns),
            [repr(m) for m in (nn.Unfold((2, 3)), nn.Unfold(2, 1, 0, 1), nn.Fold(output_size=(4, 5),
                                                                               kernel_size=2, stride=(1, 2)))])


@scenario
def unfold_and_fold_errors(lib):
    F = lib.nn.functional
    x, c = lib.ones(2, 3, 4, 5), lib.ones(2, 12, 12)
    return ([caught(F.unfold, *args, **kw) for args, kw in (
        ((x[0, 0], 2), {}), ((x[None], 2), {}), ((x, 0), {}), ((x, 2), {"stride": 0}),
        ((x, 2), {"dilation": 0}), ((x, 2), {"padding": -1}), ((x, 6), {}), ((x, (2, 2, 2)), {}),
        ((lib.ones(2, 0, 4, 4), 2), {}), ((x.int(), 2), {}))] +
        [caught(F.fold, *args, **kw) for args, kw in (
            ((c, (4, 5), 2), {"stride": 2}), ((lib.ones(2, 10, 12), (4, 5), 2), {}), ((c, (4, 5), 0), {}),
            ((c, 4, 2), {}), ((c, (4, 5, 1), 2), {}), ((c[None], (4, 5), 2), {}), ((c, (1, 1), 2), {}))])


# ============================================================== ops: unsafe_split, addmm

@scenario
def unsafe_split_and_chunk(lib):
    x = lib.arange(12.0).reshape(2, 6).requires_grad_()
    y = x * 1
    chunks = y.unsafe_chunk(3, 1)
    pieces = y.unsafe_split(4, 1)
    sized = lib.unsafe_split_with_sizes(y, [1, 5], 1)
    chunks[1].mul_(2)                        # allowed: the pieces are not views for autograd
    weighted_sum(lib, [*chunks, *pieces, *sized]).backward()
    return (chunks, pieces, sized, x.grad, y, [c._version for c in chunks], y._version,
            [c._base is None for c in chunks], lib.unsafe_chunk(lib.ones(5), 2),
            caught(lib.unsafe_split, y, [2, 4], 1), caught(lib.unsafe_chunk, y, 0))


@scenario
def addmm_dtype_errors(lib):
    types = (lib.float32, lib.float64)
    return [caught(lib.addmm, lib.ones(3, dtype=a), lib.ones(2, 3, dtype=b), lib.ones(3, 3, dtype=c))
            for a, b, c in itertools.product(types, (*types, lib.int64), types)]


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_as_torch(name):
    run(SCENARIOS, name)
