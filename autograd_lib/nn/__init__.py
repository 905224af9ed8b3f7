"""``autograd_lib.nn``: layers, losses and containers for building networks.

==================  ====================================================
``parameter.py``    ``Parameter``: a tensor a module trains
``module.py``       ``Module``: registration of parameters and submodules,
                    ``parameters()``, ``train()``/``eval()``, ``state_dict()``
``linear.py``       ``Linear``, ``Bilinear``, ``Identity``
``activation.py``   ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``
``flatten.py``      ``Flatten``
``loss.py``         ``MSELoss``, ``NLLLoss``, ``CrossEntropyLoss``, ``BCELoss``,
                    ``BCEWithLogitsLoss``, ``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``,
                    the margin losses (``MultiMarginLoss``, ``TripletMarginLoss``, ...)
``container.py``    ``Sequential``, ``ModuleList``, ``ModuleDict``
``parameter_containers.py``  ``ParameterList``, ``ParameterDict``
``sparse.py``       ``Embedding``
``normalization.py`` ``LayerNorm``, ``RMSNorm``, ``BatchNorm1d/2d/3d``, ``GroupNorm``
``rnn.py``          ``RNN``, ``LSTM``, ``GRU``, ``RNNCell``, ``LSTMCell``, ``GRUCell``
``recurrent.py``    their computations (the cells, the layers, packed or padded)
``utils/``          ``clip_grad_norm_``, ...; ``utils/rnn.py``: ``pad_sequence``,
                    ``pack_padded_sequence``, ``pad_packed_sequence``, ...
``fold.py``         ``Unfold``, ``Fold`` (sliding blocks as columns)
``distance.py``     ``CosineSimilarity``, ``PairwiseDistance``
``padding.py``      ``ReflectionPad2d``, ``ReplicationPad1d``, ``ZeroPad2d``, ``ConstantPad3d``, ...
``conv.py``         ``Conv1d``, ``Conv2d``, ``ConvTranspose1d``, ``ConvTranspose2d``
``pooling.py``      ``MaxPool1d``, ``MaxPool2d``, ``AvgPool1d``, ``AvgPool2d``, ``AdaptiveAvgPool1d``,
                    ``AdaptiveAvgPool2d``
``functional.py``   the same computations as functions (``F.linear``, ...)
``init.py``         initialisation schemes (``init.kaiming_uniform_``, ...)
``modules/``        PyTorch's path ``nn.modules.module`` (``Module``, the global module hooks)
==================  ====================================================
"""

from . import functional, init, modules, utils
from .activation import (ELU, GELU, Dropout, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax,
                         Softplus, Tanh)
from .activation import (CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid,
                         Mish, ReLU6, Softmin, Softshrink, Softsign, Tanhshrink, Threshold)
from .container import ModuleDict, ModuleList, Sequential
from .flatten import Flatten, Unflatten
from .distance import CosineSimilarity, PairwiseDistance
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d,  # noqa: F401
                      ConstantPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
                      ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, LayerNorm, RMSNorm
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .activation import Dropout1d, Dropout2d
from .parameter_containers import ParameterDict, ParameterList
from .sparse import Embedding
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .linear import Bilinear, Identity, Linear
from .fold import Fold, Unfold
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss,
                   NLLLoss, SmoothL1Loss)
from .loss import GaussianNLLLoss, KLDivLoss, MarginRankingLoss, PoissonNLLLoss, SoftMarginLoss
from .loss import (CosineEmbeddingLoss, HingeEmbeddingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                   MultiMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .module import Module
from .parameter import Parameter

__all__ = ["Parameter", "Module", "Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Dropout", "Flatten",
           "Sequential", "ModuleList", "ModuleDict", "MSELoss", "NLLLoss",
           "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "functional", "init", "modules", "utils",
           "ReLU6", "Hardtanh", "SELU", "CELU", "Mish", "Softsign", "Hardsigmoid", "Hardswish",
           "LogSigmoid", "Softmin", "Tanhshrink", "Hardshrink", "Softshrink", "Threshold", "GLU",
           "Unflatten", "CosineSimilarity", "PairwiseDistance", "LayerNorm", "ParameterList",
           "ParameterDict", "Embedding", "KLDivLoss", "RMSNorm", "Dropout1d", "Dropout2d",
           "MarginRankingLoss", "SoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "BatchNorm1d",
           "GroupNorm", "BatchNorm2d", "BatchNorm3d", "Bilinear", "RNNBase", "RNN", "LSTM", "GRU",
           "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "Unfold", "Fold", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d",
           "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "HingeEmbeddingLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]
