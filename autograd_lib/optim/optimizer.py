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

from ..dtypes import LEGACY_NAMES
from ..grad_mode import enable_grad
from ..nn import module as _module
from ..tensor import Tensor

__all__ = ["Optimizer"]


def _typename(obj):
    if isinstance(obj, Tensor):
        return f"autograd_lib.{LEGACY_NAMES[obj.dtype.name]}"
    return type(obj).__name__


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
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
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
        index = {}
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
        param_groups = [{**{k: v for k, v in group.items() if k != "params"},
                         "params": [index[id(p)] for p in group["params"]]}
                        for group in self.param_groups]
        state = {index[id(p)]: value for p, value in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Restore the state and settings saved by :meth:`state_dict` (copied)."""
        state_dict = copy.deepcopy(state_dict)
        saved_groups = state_dict["param_groups"]
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
            self.state[by_index[i]] = value
        for saved, group in zip(saved_groups, self.param_groups):
            saved["params"] = group["params"]
        self.param_groups = saved_groups

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
