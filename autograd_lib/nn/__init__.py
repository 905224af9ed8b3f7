"""``autograd_lib.nn``: layers, losses and containers for building networks.

==================  ====================================================
``parameter.py``    ``Parameter``: a tensor a module trains
``module.py``       ``Module``: registration of parameters and submodules,
                    ``parameters()``, ``train()``/``eval()``, ``state_dict()``
``linear.py``       ``Linear``, ``Identity``
``activation.py``   ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softmax``, ``LogSoftmax``
``flatten.py``      ``Flatten``
``loss.py``         ``MSELoss``, ``NLLLoss``, ``CrossEntropyLoss``, ``BCELoss``,
                    ``BCEWithLogitsLoss``, ``L1Loss``, ``SmoothL1Loss``, ``HuberLoss``
``container.py``    ``Sequential``, ``ModuleList``
``functional.py``   the same computations as functions (``F.linear``, ...)
``init.py``         initialisation schemes (``init.kaiming_uniform_``, ...)
==================  ====================================================
"""

from . import functional, init, utils
from .activation import (ELU, GELU, Dropout, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax,
                         Softplus, Tanh)
from .container import ModuleDict, ModuleList, Sequential
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss,
                   NLLLoss, SmoothL1Loss)
from .module import Module
from .parameter import Parameter

__all__ = ["Parameter", "Module", "Linear", "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax",
           "LogSoftmax", "LeakyReLU", "ELU", "GELU", "SiLU", "Softplus", "Dropout", "Flatten",
           "Sequential", "ModuleList", "ModuleDict", "MSELoss", "NLLLoss",
           "CrossEntropyLoss", "BCELoss", "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "functional", "init", "utils"]
