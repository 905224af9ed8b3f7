"""Realistic wrong answers for assignment 09 (training loops and zero_grad).

Each mistake replaces one answer cell of course/source/09_training/09_training.ipynb.
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

import textwrap

from . import Mistake


def _cell(source):
    return textwrap.dedent(source).strip("\n")


_WALK = "09_named_members_answer"
_CLEAR = "09_clear_grads_answer"
_SGD = "09_sgd_update_answer"
_ACC = "09_accumulate_gradients_answer"


def _answer(signature, plug, *parts):
    """An answer cell: the signature, a body made of the (dedented) parts, the plug line."""
    body = "\n".join(_cell(part) for part in parts)
    return f"{signature}\n{textwrap.indent(body, ' ' * 4)}\n\n{plug}"


def _walk(*parts):
    return _answer("def named_members(self, get_members, prefix, recurse, remove_duplicate):",
                   'exercises.plug("09.named_members", named_members)', *parts)


def _clear(*parts):
    return _answer("def clear_grads(params, set_to_none=True):",
                   'exercises.plug("09.clear_grads", clear_grads)', *parts)


def _sgd(*parts):
    return _answer("def sgd_update(param, state, *, lr, momentum, dampening, weight_decay, nesterov, maximize):",
                   'exercises.plug("09.sgd_update", sgd_update)', *parts)


def _acc(*parts):
    return _answer("def accumulate_gradients(loss_fn, micro_batches):",
                   'exercises.plug("09.accumulate_gradients", accumulate_gradients)', *parts)


# The correct loop over a module's members, shared by several walk mistakes.
_MEMBERS = '''
    for module_name, module in modules:
        for name, tensor in get_members(module):
            if tensor is None or tensor in seen:
                continue
            if remove_duplicate:
                seen.add(tensor)
            yield (module_name + "." + name if module_name else name), tensor
'''

_SGD_MOMENTUM_TAIL = '''
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = g.detach().clone()
            state["momentum_buffer"] = buf
        else:
            buf.mul_(momentum).add_(g, alpha=1 - dampening)
        g = g + momentum * buf if nesterov else buf
    param.add_(g, alpha=-lr)
'''


MISTAKES = [
    # ------------------------------------------------------------ 09.named_members
    Mistake(_WALK, "visits only the direct children, not the whole tree", _walk('''
        seen = set()
        modules = [(prefix, self)]
        if recurse:
            modules += [((prefix + "." if prefix else "") + name, m) for name, m in self._modules.items()
                        if m is not None]
        ''', _MEMBERS), rule="the walk is depth first"),
    Mistake(_WALK, "walks the tree post-order: the submodules' members before the module's own", _walk('''
        seen = set()

        def modules_of(module, name):
            if recurse:
                for child_name, child in module._modules.items():
                    if child is not None:
                        yield from modules_of(child, name + "." + child_name if name else child_name)
            yield name, module

        modules = modules_of(self, prefix)
        ''', _MEMBERS), rule="a module's own members, then each submodule's"),
    Mistake(_WALK, "always joins with a dot: '.scale' at the root", _walk('''
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\
            else [(prefix, self)]
        for module_name, module in modules:
            for name, tensor in get_members(module):
                if tensor is None or tensor in seen:
                    continue
                if remove_duplicate:
                    seen.add(tensor)
                yield module_name + "." + name, tensor
        '''), rule="with no leading dot at the root"),
    Mistake(_WALK, "does not skip None members", _walk('''
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\
            else [(prefix, self)]
        for module_name, module in modules:
            for name, tensor in get_members(module):
                if tensor in seen:
                    continue
                if remove_duplicate:
                    seen.add(tensor)
                yield (module_name + "." + name if module_name else name), tensor
        '''), rule="a member that is None (the bias of Linear(bias=False)) is skipped"),
    Mistake(_WALK, "never removes duplicates: tied weights are yielded twice", _walk('''
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\
            else [(prefix, self)]
        for module_name, module in modules:
            for name, tensor in get_members(module):
                if tensor is None:
                    continue
                yield (module_name + "." + name if module_name else name), tensor
        '''), rule="a tensor shared by several modules is yielded once"),
    Mistake(_WALK, "removes duplicates even with remove_duplicate=False", _walk('''
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\
            else [(prefix, self)]
        for module_name, module in modules:
            for name, tensor in get_members(module):
                if tensor is None or tensor in seen:
                    continue
                seen.add(tensor)
                yield (module_name + "." + name if module_name else name), tensor
        '''), rule="with remove_duplicate=False, every occurrence is yielded"),
    Mistake(_WALK, "does not pass remove_duplicate on to named_modules", _walk('''
        seen = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        ''', _MEMBERS), rule="with remove_duplicate=False, every occurrence is yielded"),
    Mistake(_WALK, "ignores get_members: always the parameters", _walk('''
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\
            else [(prefix, self)]
        for module_name, module in modules:
            for name, tensor in module._parameters.items():
                if tensor is None or tensor in seen:
                    continue
                if remove_duplicate:
                    seen.add(tensor)
                yield (module_name + "." + name if module_name else name), tensor
        '''), rule="the members are whatever get_members(module) lists"),
    Mistake(_WALK, "ignores recurse", _walk('''
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        ''', _MEMBERS), rule="without recurse, only the module's own members are yielded"),
    Mistake(_WALK, "ignores prefix", _walk('''
        seen = set()
        modules = self.named_modules(remove_duplicate=remove_duplicate) if recurse else [("", self)]
        ''', _MEMBERS), rule="the root's name is prefix"),
    Mistake(_WALK, "remembers the yielded tensors in a list (compares values with ==)", _walk('''
        seen = []
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\
            else [(prefix, self)]
        for module_name, module in modules:
            for name, tensor in get_members(module):
                if tensor is None or tensor in seen:
                    continue
                if remove_duplicate:
                    seen.append(tensor)
                yield (module_name + "." + name if module_name else name), tensor
        '''), rule="keep the tensors already yielded in a set"),

    # ------------------------------------------------------------ 09.clear_grads
    Mistake(_CLEAR, "always sets .grad to None, ignoring set_to_none", _clear('''
        for p in params:
            p.grad = None
        '''), rule="with set_to_none=False, .grad stays the same tensor"),
    Mistake(_CLEAR, "always zeros, ignoring set_to_none", _clear('''
        for p in params:
            if p.grad is None:
                continue
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
        '''), rule="with set_to_none=True, each .grad becomes None"),
    Mistake(_CLEAR, "stores a new tensor of zeros instead of zeroing in place", _clear('''
        for p in params:
            if p.grad is None:
                continue
            p.grad = None if set_to_none else ag.zeros_like(p)
        '''), rule="with set_to_none=False, .grad stays the same tensor"),
    Mistake(_CLEAR, "multiplies by 0 instead of zero_() (nan stays nan)", _clear('''
        for p in params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.mul_(0)
        '''), rule="multiplying by 0 leaves nan"),
    Mistake(_CLEAR, "does not skip a tensor without .grad", _clear('''
        for p in params:
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()
        '''), rule="a tensor whose .grad is None is skipped"),
    Mistake(_CLEAR, "zeroes a .grad with a graph without cutting it", _clear('''
        for p in params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.zero_()
        '''), rule="a .grad with a grad_fn is cut from its graph with detach_()"),
    Mistake(_CLEAR, "always calls detach_(), which refuses a .grad that is a view", _clear('''
        for p in params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.detach_()
                p.grad.zero_()
        '''), rule="a leaf .grad gets requires_grad_(False)"),
    Mistake(_CLEAR, "writes zeros into the NumPy array: no version bump", _clear('''
        for p in params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad._data[...] = 0
        '''), rule="it bumps the version counter of .grad by one"),
    Mistake(_CLEAR, "the old idiom p.grad.data.zero_(): no version bump, graph kept", _clear('''
        for p in params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad.data.zero_()
        '''), rule="it bumps the version counter of .grad by one"),
    Mistake(_CLEAR, "reads a generator twice (any() first)", _clear('''
        if not any(p.grad is not None for p in params):
            return
        for p in params:
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()
        '''), rule="with set_to_none=True, each .grad becomes None"),

    # ------------------------------------------------------------ 09.sgd_update
    Mistake(_SGD, "the first momentum buffer is param.grad itself (no copy)", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g + momentum * buf if nesterov else buf
        param.add_(g, alpha=-lr)
        '''), rule="never param.grad itself"),
    Mistake(_SGD, "dampens the first momentum buffer too", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = (1 - dampening) * g.detach()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g + momentum * buf if nesterov else buf
        param.add_(g, alpha=-lr)
        '''), rule="on the first step, the momentum buffer is a copy of g (no dampening)"),
    Mistake(_SGD, "ignores nesterov", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = buf
        param.add_(g, alpha=-lr)
        '''), rule="with nesterov, the step uses g + momentum * buf"),
    Mistake(_SGD, "adds weight decay after momentum, to the step", _sgd('''
        g = -param.grad if maximize else param.grad
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g + momentum * buf if nesterov else buf
        if weight_decay != 0:
            g = g + weight_decay * param
        param.add_(g, alpha=-lr)
        '''), rule="weight decay adds weight_decay * param to the gradient, before momentum"),
    Mistake(_SGD, "negates the gradient after weight decay when maximizing", _sgd('''
        g = param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if maximize:
            g = -g
        ''', _SGD_MOMENTUM_TAIL), rule="maximize=True uses -grad (before weight decay)"),
    Mistake(_SGD, "ignores maximize", _sgd('''
        g = param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        ''', _SGD_MOMENTUM_TAIL), rule="maximize=True uses -grad"),
    Mistake(_SGD, "rebinds the local name instead of updating the parameter", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g + momentum * buf if nesterov else buf
        param = param - lr * g
        '''), rule="the parameter is updated in place, once"),
    Mistake(_SGD, "writes the step into the NumPy array: no version bump", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g + momentum * buf if nesterov else buf
        param._data -= lr * g._data
        '''), rule="the parameter is updated in place, once"),
    Mistake(_SGD, "never stores the momentum buffer", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g + momentum * buf if nesterov else buf
        param.add_(g, alpha=-lr)
        '''), rule="stored in state['momentum_buffer']"),
    Mistake(_SGD, "makes a new momentum buffer every step instead of updating it in place", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
            else:
                buf = momentum * buf + (1 - dampening) * g
            state["momentum_buffer"] = buf
            g = g + momentum * buf if nesterov else buf
        param.add_(g, alpha=-lr)
        '''), rule="buf = momentum * buf + (1 - dampening) * g, in place"),
    Mistake(_SGD, "applies the dampening to the old buffer instead of the gradient", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g = g + weight_decay * param
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum * (1 - dampening)).add_(g)
            g = g + momentum * buf if nesterov else buf
        param.add_(g, alpha=-lr)
        '''), rule="buf = momentum * buf + (1 - dampening) * g, in place"),
    Mistake(_SGD, "adds the weight decay into param.grad in place", _sgd('''
        g = -param.grad if maximize else param.grad
        if weight_decay != 0:
            g.add_(param, alpha=weight_decay)
        ''', _SGD_MOMENTUM_TAIL), rule="param.grad is never modified"),

    # ------------------------------------------------------------ 09.accumulate_gradients
    Mistake(_ACC, "divides by the number of micro-batches", _acc('''
        micro_batches = list(micro_batches)
        if sum(len(inputs) for inputs, _ in micro_batches) == 0:
            raise ValueError("no samples")
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) / len(micro_batches)
            loss.backward()
            mean_loss += loss.item()
        return mean_loss
        '''), rule="each micro-batch's mean loss is weighted by len(inputs) / N before backward()"),
    Mistake(_ACC, "does not weight the micro-batch losses", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets)
            loss.backward()
            mean_loss += loss.item()
        return mean_loss
        '''), rule="each micro-batch's mean loss is weighted by len(inputs) / N before backward()"),
    Mistake(_ACC, "assumes equal micro-batches: N = K * the first size", _acc('''
        micro_batches = list(micro_batches)
        if not micro_batches or len(micro_batches[0][0]) == 0:
            raise ValueError("no samples")
        total = len(micro_batches) * len(micro_batches[0][0])
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) * (len(inputs) / total)
            loss.backward()
            mean_loss += loss.item()
        return mean_loss
        '''), rule="each micro-batch's mean loss is weighted by len(inputs) / N before backward()"),
    Mistake(_ACC, "returns a tensor instead of a float", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) * (len(inputs) / total)
            loss.backward()
            mean_loss = mean_loss + loss.detach()
        return mean_loss
        '''), rule="as a Python float"),
    Mistake(_ACC, "returns the last micro-batch's loss", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets)
            (loss * (len(inputs) / total)).backward()
        return loss.item()
        '''), rule="returns the mean loss over all the samples"),
    Mistake(_ACC, "keeps every graph with retain_graph=True", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) * (len(inputs) / total)
            loss.backward(retain_graph=True)
            mean_loss += loss.item()
        return mean_loss
        '''), rule="each micro-batch's graph is freed by its own backward()"),
    Mistake(_ACC, "sums the weighted losses and calls backward once at the end", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss + loss_fn(inputs, targets) * (len(inputs) / total)
        loss.backward()
        return loss.item()
        '''), rule="only one graph is alive at a time"),
    Mistake(_ACC, "reads the micro-batches twice (a generator is then empty)", _acc('''
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) * (len(inputs) / total)
            loss.backward()
            mean_loss += loss.item()
        return mean_loss
        '''), rule="micro_batches may be a generator"),
    Mistake(_ACC, "no ValueError when there is no sample", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) * (len(inputs) / total)
            loss.backward()
            mean_loss += loss.item()
        return mean_loss
        '''), rule="no sample at all (N = 0) is a ValueError"),
    Mistake(_ACC, "divides by N up front: ZeroDivisionError instead of ValueError", _acc('''
        micro_batches = list(micro_batches)
        share = 1 / sum(len(inputs) for inputs, _ in micro_batches)
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets) * (len(inputs) * share)
            loss.backward()
            mean_loss += loss.item()
        return mean_loss
        '''), rule="no sample at all (N = 0) is a ValueError"),
    Mistake(_ACC, "weights the returned loss but not the gradient", _acc('''
        micro_batches = list(micro_batches)
        total = sum(len(inputs) for inputs, _ in micro_batches)
        if total == 0:
            raise ValueError("no samples")
        mean_loss = 0.0
        for inputs, targets in micro_batches:
            loss = loss_fn(inputs, targets)
            loss.backward()
            mean_loss += loss.item() * (len(inputs) / total)
        return mean_loss
        '''), rule="so .grad is the gradient of the mean loss over all N samples"),
]
