"""``Optimizer``: the base class of the update rules (SGD, Adam, ...).

An optimizer holds

* ``param_groups``: a list of dicts, each with the key ``"params"`` (a list of
  tensors) plus that group's settings (``"lr"``, ``"momentum"``, ...).  A group
  gets the optimizer's ``defaults`` for every setting it does not give, so
  different parts of a model can train with different learning rates::

      SGD([{"params": model.body.parameters()},
           {"params": model.head.parameters(), "lr": 1e-2}], lr=1e-3)

* ``state``: a dict from each parameter to what the rule remembers about it
  between steps (a momentum buffer, running averages, a step count).

The training loop is always the same::

    optimizer.zero_grad()        # forget the previous gradients
    loss = loss_fn(model(x), y)
    loss.backward()              # fill p.grad for every parameter
    optimizer.step()             # update every p in place from p.grad
"""

import copy
import warnings
from collections import defaultdict

from ..creation import tensor
from ..dtypes import LEGACY_NAMES
from ..grad_mode import enable_grad, no_grad
from ..nn import module as _module
from ..tensor import Tensor

__all__ = ["Optimizer", "GroupwiseOptimizer"]


def _typename(obj):
    if isinstance(obj, Tensor):
        return f"autograd_lib.{LEGACY_NAMES[obj.dtype.name]}"
    return type(obj).__name__


def _cast(param, value, key=None):
    """A loaded state value for ``param``: a new dict, tensors in ``param``'s dtype
    (the ``"step"`` count as it is)."""
    if isinstance(value, Tensor):
        if key == "step" or not param.is_floating_point():
            return value
        return value.to(dtype=param.dtype)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


def _check_implementation(foreach, fused, differentiable):
    """PyTorch's ``foreach``, ``fused`` (and ``capturable``) choose *how* a step is computed;
    here there is one way, a loop over the parameters, so they change nothing: they are
    checked as PyTorch checks them, and kept in the groups as PyTorch keeps them.
    ``differentiable=True`` (a step autograd can see through) is not supported."""
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if differentiable:
        raise NotImplementedError("autograd_lib optimizers do not support differentiable=True")


class Optimizer:
    """Base class: keeps the parameter groups and the per-parameter state.

    ``params``: an iterable of tensors, or of dicts defining parameter groups.
    ``defaults``: the settings of a group that does not specify them.
    Subclasses implement :meth:`step`.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def add_param_group(self, param_group):
        """Add a group (a dict with ``"params"``), filling in the default settings."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        # Named parameters (``model.named_parameters()``): the names go to "param_names".
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):             # tensors hash by identity
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        already = set()
        for group in self.param_groups:
            already.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                raise ValueError("all optimizer param groups should be with/without names. cannot "
                                 "add param group "
                                 + ("with names" if "param_names" in param_group else "without names")
                                 + " to the optimizer")
        if not already.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Forget the gradients before the next backward (backward *adds* into ``.grad``).

        ``set_to_none=True``: ``p.grad = None``, and ``step`` then skips ``p``
        unless a new backward gives it a gradient.  ``False``: each ``.grad``
        keeps its tensor, filled with zeros (a zero gradient still counts: Adam
        and momentum keep moving ``p``).
        """
        _module.clear_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Update every parameter that has a gradient (subclasses implement the rule).

        ``closure``: a function that clears the gradients, recomputes the loss,
        calls ``backward`` and returns the loss; ``step`` calls it (with grad
        mode on) and returns its loss.
        """
        raise NotImplementedError

    def _with_grads(self, group, fresh, decay=True):
        """The parameters of ``group`` that have a ``.grad``, as ``(p, grad, state)``, for the
        update rules of the adaptive optimizers.  The first time, ``state`` becomes ``step`` 0
        then the entries of ``fresh(p)``; each time its ``step`` is counted.  ``grad`` is
        negated under ``maximize``, and the L2 penalty ``weight_decay * p`` is added to it
        unless ``decay`` is False (decoupled weight decay, applied by the caller)."""
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = tensor(0.0)
                state.update(fresh(p))
            grad = p.grad if not group["maximize"] else -p.grad
            state["step"] += 1
            if decay and group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            yield p, grad, state

    @staticmethod
    def _evaluate(closure):
        """The closure's loss, computed with grad mode on (step itself runs under no_grad)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -------------------------------------------------------------- state dict
    def state_dict(self):
        """The state and the groups' settings, with each parameter replaced by
        its position (0, 1, ...) in the groups, so it can be saved and loaded
        into an optimizer over another model of the same shape."""
        index, start = {}, 0
        for group in self.param_groups:
            # As PyTorch: a group's positions follow the previous group's; a parameter
            # listed twice in one group gets its last position there.
            index.update({id(p): i for i, p in enumerate(group["params"], start)
                          if id(p) not in index})
            start += len(group["params"])
        param_groups = [{**{k: v for k, v in group.items() if k != "params"},
                         "params": [index[id(p)] for p in group["params"]]}
                        for group in self.param_groups]
        state = {index[id(p)]: value for p, value in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Restore the state and settings saved by :meth:`state_dict`.  As in PyTorch, the
        settings are copied but the state's tensors are not: each is converted to its
        parameter's dtype, so one of the same dtype is the very tensor of ``state_dict``
        (two optimizers loaded from one dict share it; one loaded from a file has its own)."""
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(saved["params"]) != len(group["params"])
               for saved, group in zip(saved_groups, self.param_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        by_index = {}
        for saved, group in zip(saved_groups, self.param_groups):
            by_index.update(zip(saved["params"], group["params"]))
        self.state = defaultdict(dict)
        for i, value in state_dict["state"].items():
            if i in by_index:
                self.state[by_index[i]] = _cast(by_index[i], value)
            else:
                self.state[i] = value
        for saved, group in zip(saved_groups, self.param_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.param_groups = saved_groups

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _check_betas(lr, eps, betas, weight_decay):
    """PyTorch's checks (and messages) of the arguments Adam's variants share."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class GroupwiseOptimizer(Optimizer):
    """An optimizer whose step updates each parameter group on its own: subclasses give
    ``_update_group(group)`` (the adaptive ones, with :meth:`Optimizer._with_grads`)."""

    @no_grad()
    def step(self, closure=None):
        """Update, in place, every parameter whose ``.grad`` is not None."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            self._update_group(group)
        return loss

    def _update_group(self, group):
        raise NotImplementedError
