"""``autograd_lib.optim``: update rules that train parameters from their gradients.

=====================  ==================================================
``optimizer.py``       ``Optimizer``: parameter groups, state, ``zero_grad``
``sgd.py``             ``SGD`` (momentum, Nesterov, weight decay)
``adam.py``            ``Adam`` (and AMSGrad, decoupled weight decay)
``adamw.py``           ``AdamW``: Adam with decoupled weight decay
``rmsprop.py``         ``RMSprop`` (momentum, centered)
``adagrad.py``         ``Adagrad`` (learning-rate decay, initial accumulator)
``adamax.py``          ``Adamax``: Adam with an infinity-norm denominator
``nadam.py``           ``NAdam``: Adam with Nesterov momentum
``radam.py``           ``RAdam``: Adam with a rectified adaptive learning rate
``adadelta.py``        ``Adadelta``: steps scaled by the RMS of past steps
``lr_scheduler.py``    ``StepLR``, ``CosineAnnealingLR``, ``CyclicLR``, ...: the
                       learning rate as training goes on
``accumulation.py``    ``accumulate_gradients``: a large batch's gradient,
                       one micro-batch at a time
``loop.py``            ``train_epoch``, ``evaluate``: the training loop (the
                       course's own; PyTorch leaves it to you)
=====================  ==================================================

Every ``step()`` runs under ``no_grad`` and changes the parameters *in
place*: each keeps its identity (the model still holds the same tensor) and
its ``_version`` goes up.
"""

from . import lr_scheduler
from .accumulation import accumulate_gradients
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .loop import evaluate, train_epoch
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "lr_scheduler", "accumulate_gradients", "train_epoch", "evaluate"]
