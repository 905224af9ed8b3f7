"""Realistic wrong answers for assignment 09 (training loops and zero_grad).

Each mistake edits one answer cell of course/source/09_training/09_training.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail with ``rule`` in their output, and the
test cells of every other exercise must keep passing.
"""

from autograd_course.mistakes import Mistake

_WALK = "09_named_members_answer"
_CLEAR = "09_clear_grads_answer"
_SGD = "09_sgd_update_answer"
_ADAM = "09_adam_update_answer"
_ACC = "09_accumulate_gradients_answer"
_CLIP = "09_clip_grad_norm_answer"
_EPOCH = "09_train_epoch_answer"
_EVAL = "09_evaluate_answer"
_PLATEAU = "09_plateau_step_answer"


# The correct loop over a module's members, shared by several walk mistakes.

MISTAKES = [
    # ------------------------------------------------------------ 09.named_members
    Mistake(_WALK, "visits only the direct children, not the whole tree",
            edits=[
                ('    seen = set()\n',
                 '''    seen = set()
    modules = [(prefix, self)]
'''),
                ('''        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '''        modules += [((prefix + "." if prefix else "") + name, m) for name, m in self._modules.items()
                    if m is not None]
'''),
            ],
            rule="the walk is depth first"),
    Mistake(_WALK, "walks the tree post-order: the submodules' members before the module's own",
            edits=[
                ('''    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '''    def modules_of(module, name):
        if recurse:
            for child_name, child in module._modules.items():
                if child is not None:
                    yield from modules_of(child, name + "." + child_name if name else child_name)
        yield name, module
    modules = modules_of(self, prefix)
'''),
            ],
            rule="a module's own members, then each submodule's"),
    Mistake(_WALK, "always joins with a dot: '.scale' at the root",
            edits=[
                ('yield (module_name + "." + name if module_name else name), tensor',
                 'yield module_name + "." + name, tensor'),
            ],
            rule="with no leading dot at the root"),
    Mistake(_WALK, "does not skip None members",
            edits=[('if tensor is None or tensor in seen:', 'if tensor in seen:')],
            rule="a member that is None (the bias of Linear(bias=False)) is skipped"),
    Mistake(_WALK, "never removes duplicates: tied weights are yielded twice",
            edits=[
                ('''    seen = set()
    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '    modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\\n        else [(prefix, self)]\n'),
                ('if tensor is None or tensor in seen:', 'if tensor is None:'),
                ('''            if remove_duplicate:
                seen.add(tensor)
''',
                 ''),
            ],
            rule="a tensor shared by several modules is yielded once"),
    Mistake(_WALK, "removes duplicates even with remove_duplicate=False",
            edits=[
                ('''            if remove_duplicate:
                seen.add(tensor)
''',
                 '            seen.add(tensor)\n'),
            ],
            rule="with remove_duplicate=False, every occurrence is yielded"),
    Mistake(_WALK, "does not pass remove_duplicate on to named_modules",
            edits=[
                ('''    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '    modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]\n'),
            ],
            rule="with remove_duplicate=False, every occurrence is yielded"),
    Mistake(_WALK, "ignores get_members: always the parameters",
            edits=[
                ('for name, tensor in get_members(module):',
                 'for name, tensor in module._parameters.items():'),
            ],
            rule="the members are whatever get_members(module) lists"),
    Mistake(_WALK, "ignores recurse",
            edits=[
                ('''    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '    modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)\n'),
            ],
            rule="without recurse, only the module's own members are yielded"),
    Mistake(_WALK, "ignores prefix",
            edits=[
                ('''    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '    modules = self.named_modules(remove_duplicate=remove_duplicate) if recurse else [("", self)]\n'),
            ],
            rule="the root's name is prefix"),
    Mistake(_WALK, "remembers the yielded tensors in a list (compares values with ==)",
            edits=[
                ('''    seen = set()
    if recurse:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        modules = [(prefix, self)]
''',
                 '    seen = []\n    modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \\\n        else [(prefix, self)]\n'),
                ('seen.add(tensor)', 'seen.append(tensor)'),
            ],
            rule="keep the tensors already yielded in a set"),

    # ------------------------------------------------------------ 09.clear_grads
    Mistake(_CLEAR, "always sets .grad to None, ignoring set_to_none",
            edits=[
                ('''        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
''',
                 '        p.grad = None\n'),
            ],
            rule="with set_to_none=False, .grad stays the same tensor"),
    Mistake(_CLEAR, "always zeros, ignoring set_to_none",
            edits=[
                ('''        if set_to_none:
            p.grad = None
''',
                 '''        if p.grad.grad_fn is not None:
            p.grad.detach_()
'''),
                ('''            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
''',
                 '''            p.grad.requires_grad_(False)
        p.grad.zero_()
'''),
            ],
            rule="with set_to_none=True, each .grad becomes None"),
    Mistake(_CLEAR, "stores a new tensor of zeros instead of zeroing in place",
            edits=[
                ('''        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
''',
                 '        p.grad = None if set_to_none else ag.zeros_like(p)\n'),
            ],
            rule="with set_to_none=False, .grad stays the same tensor"),
    Mistake(_CLEAR, "multiplies by 0 instead of zero_() (nan stays nan)",
            edits=[('p.grad.zero_()', 'p.grad.mul_(0)')],
            rule="multiplying by 0 leaves nan"),
    Mistake(_CLEAR, "does not skip a tensor without .grad",
            edits=[
                ('''        if p.grad is None:
            continue
''',
                 ''),
            ],
            rule="a tensor whose .grad is None is skipped"),
    Mistake(_CLEAR, "zeroes a .grad with a graph without cutting it",
            edits=[
                ('''            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
''',
                 ''),
            ],
            rule="a .grad with a grad_fn is cut from its graph with detach_()"),
    Mistake(_CLEAR, "always calls detach_(), which refuses a .grad that is a view",
            edits=[
                ('''            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
''',
                 '            p.grad.detach_()\n'),
            ],
            rule="a leaf .grad gets requires_grad_(False)"),
    Mistake(_CLEAR, "writes zeros into the NumPy array: no version bump",
            edits=[('p.grad.zero_()', 'p.grad._data[...] = 0')],
            rule="it bumps the version counter of .grad by one"),
    Mistake(_CLEAR, "the old idiom p.grad.data.zero_(): no version bump, graph kept",
            edits=[
                ('''            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
''',
                 '            p.grad.data.zero_()\n'),
            ],
            rule="it bumps the version counter of .grad by one"),
    Mistake(_CLEAR, "reads a generator twice (any() first)",
            edits=[
                ('    are skipped. Returns None."""\n',
                 '''    are skipped. Returns None."""
    if not any(p.grad is not None for p in params):
        return
'''),
            ],
            rule="with set_to_none=True, each .grad becomes None"),

    # ------------------------------------------------------------ 09.sgd_update
    Mistake(_SGD, "the first momentum buffer is param.grad itself (no copy)",
            edits=[('buf = g.detach().clone()', 'buf = g')],
            rule="never param.grad itself"),
    Mistake(_SGD, "dampens the first momentum buffer too",
            edits=[('buf = g.detach().clone()', 'buf = (1 - dampening) * g.detach()')],
            rule="on the first step, the momentum buffer is a copy of g (no dampening)"),
    Mistake(_SGD, "ignores nesterov",
            edits=[('g = g + momentum * buf if nesterov else buf', 'g = buf')],
            rule="with nesterov, the step uses g + momentum * buf"),
    Mistake(_SGD, "adds weight decay after momentum, to the step",
            edits=[
                ('''    if weight_decay != 0:
        g = g + weight_decay * param
''',
                 ''),
                ('        g = g + momentum * buf if nesterov else buf\n',
                 '''        g = g + momentum * buf if nesterov else buf
    if weight_decay != 0:
        g = g + weight_decay * param
'''),
            ],
            rule="weight decay adds weight_decay * param to the gradient, before momentum"),
    Mistake(_SGD, "negates the gradient after weight decay when maximizing",
            edits=[
                ('g = -param.grad if maximize else param.grad', 'g = param.grad'),
                ('        g = g + weight_decay * param\n',
                 '''        g = g + weight_decay * param
    if maximize:
        g = -g
'''),
            ],
            rule="maximize=True uses -grad (before weight decay)"),
    Mistake(_SGD, "ignores maximize",
            edits=[('g = -param.grad if maximize else param.grad', 'g = param.grad')],
            rule="maximize=True uses -grad"),
    Mistake(_SGD, "rebinds the local name instead of updating the parameter",
            edits=[('param.add_(g, alpha=-lr)', 'param = param - lr * g')],
            rule="the parameter is updated in place, once"),
    Mistake(_SGD, "writes the step into the NumPy array: no version bump",
            edits=[('param.add_(g, alpha=-lr)', 'param._data -= lr * g._data')],
            rule="the parameter is updated in place, once"),
    Mistake(_SGD, "never stores the momentum buffer",
            edits=[
                ('            state["momentum_buffer"] = buf\n',
                 ''),
            ],
            rule="stored in state['momentum_buffer']"),
    Mistake(_SGD, "makes a new momentum buffer every step instead of updating it in place",
            edits=[
                ('            state["momentum_buffer"] = buf\n',
                 ''),
                ('            buf.mul_(momentum).add_(g, alpha=1 - dampening)\n',
                 '''            buf = momentum * buf + (1 - dampening) * g
        state["momentum_buffer"] = buf
'''),
            ],
            rule="buf = momentum * buf + (1 - dampening) * g, in place"),
    Mistake(_SGD, "applies the dampening to the old buffer instead of the gradient",
            edits=[
                ('buf.mul_(momentum).add_(g, alpha=1 - dampening)',
                 'buf.mul_(momentum * (1 - dampening)).add_(g)'),
            ],
            rule="buf = momentum * buf + (1 - dampening) * g, in place"),
    Mistake(_SGD, "adds the weight decay into param.grad in place",
            edits=[('g = g + weight_decay * param', 'g.add_(param, alpha=weight_decay)')],
            rule="param.grad is never modified"),

    # ------------------------------------------------------------ 09.adam_update
    Mistake(_ADAM, "no bias correction: divides the raw moments",
            edits=[('denom = (v / (1 - beta2 ** t)).sqrt() + eps', 'denom = v.sqrt() + eps'),
                   ('alpha=-lr / (1 - beta1 ** t)', 'alpha=-lr')],
            rule="the bias corrections divide the moments by 1 - beta1 ** t and 1 - beta2 ** t"),
    Mistake(_ADAM, "reads the step count before counting this step (t = 0 on the first step)",
            edits=[('''    state["step"] += 1
    t = state["step"].item()
''',
                    '''    t = state["step"].item()
    state["step"] += 1
''')],
            rule="t = 1 on the first step, never 0"),
    Mistake(_ADAM, "adds eps under the square root",
            edits=[('denom = (v / (1 - beta2 ** t)).sqrt() + eps', 'denom = (v / (1 - beta2 ** t) + eps).sqrt()')],
            rule="eps is added to the square root of the bias-corrected second moment, not under the square root"),
    Mistake(_ADAM, "AMSGrad keeps the maximum of the bias-corrected second moment",
            edits=[('''        v_max.copy_(v_max.maximum(v))
        v = v_max
    denom = (v / (1 - beta2 ** t)).sqrt() + eps
''',
                    '''        v_max.copy_(v_max.maximum(v / (1 - beta2 ** t)))
        denom = v_max.sqrt() + eps
    else:
        denom = (v / (1 - beta2 ** t)).sqrt() + eps
''')],
            rule="(before any bias correction)"),
    Mistake(_ADAM, "AMSGrad never stores the maximum in the state",
            edits=[('''        v_max.copy_(v_max.maximum(v))
        v = v_max
''',
                    '''        v = v_max.maximum(v)
''')],
            rule="state['max_exp_avg_sq'] keeps the elementwise maximum of exp_avg_sq over all the steps"),
    Mistake(_ADAM, "L2 weight decay added to the step after the moments, not to the gradient",
            edits=[('''    elif weight_decay != 0:
        g = g + weight_decay * param
''',
                    ''),
                   ('param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))',
                    '''param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))
    if weight_decay != 0 and not decoupled_weight_decay:
        param.add_(param, alpha=-lr * weight_decay)''')],
            rule="weight_decay * param is added to the gradient before the moments"),
    Mistake(_ADAM, "ignores decoupled_weight_decay: always adds the decay to the gradient",
            edits=[('''    if weight_decay != 0 and decoupled_weight_decay:
        param.mul_(1 - lr * weight_decay)
    elif weight_decay != 0:
''',
                    '''    if weight_decay != 0:
''')],
            rule="the gradient and the moments do not see the decay"),
    Mistake(_ADAM, "decoupled weight decay shrinks the parameter after the Adam step",
            edits=[('''    if weight_decay != 0 and decoupled_weight_decay:
        param.mul_(1 - lr * weight_decay)
    elif weight_decay != 0:
''',
                    '''    if weight_decay != 0 and not decoupled_weight_decay:
'''),
                   ('param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))',
                    '''param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))
    if weight_decay != 0 and decoupled_weight_decay:
        param.mul_(1 - lr * weight_decay)''')],
            rule="param first shrinks by a factor 1 - lr * weight_decay, before the Adam step"),
    Mistake(_ADAM, "ignores maximize",
            edits=[('g = -param.grad if maximize else param.grad', 'g = param.grad')],
            rule="with maximize=True, Adam uses -grad"),
    Mistake(_ADAM, "negates the gradient after weight decay when maximizing",
            edits=[('g = -param.grad if maximize else param.grad', 'g = param.grad'),
                   ('        g = g + weight_decay * param\n',
                    '''        g = g + weight_decay * param
    if maximize:
        g = -g
''')],
            rule="negated before any weight decay"),
    Mistake(_ADAM, "makes a new first moment every step instead of updating it in place",
            edits=[('m.mul_(beta1).add_(g, alpha=1 - beta1)',
                    '''m = beta1 * m + (1 - beta1) * g
    state["exp_avg"] = m''')],
            rule="are updated in place: the same tensors from step to step"),
    Mistake(_ADAM, "keeps the step count as a Python number",
            edits=[('state["step"] = ag.tensor(0.0)', 'state["step"] = 0'),
                   ('t = state["step"].item()', 't = state["step"]')],
            rule="'step' (a float32 scalar tensor counting the steps taken"),

    # ------------------------------------------------------------ 09.clip_grad_norm
    Mistake(_CLIP, "adds up the gradients' norms instead of taking the norm of the norms",
            edits=[("total = ag.linalg.vector_norm(norms, norm_type)", "total = norms.sum()")],
            rule="the norm_type-norm of the gradients' own norm_type-norms"),
    Mistake(_CLIP, "clips each gradient by its own norm",
            edits=[('''        factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor)
''',
                    '''        for g, norm in zip(grads, norms):
            g.mul_((max_norm / (norm + 1e-6)).clamp(max=1.0))
''')],
            rule="every gradient is multiplied by the same factor"),
    Mistake(_CLIP, "forgets the min with 1: gradients under max_norm are scaled up",
            edits=[(".clamp(max=1.0)", "")],
            rule="the factor is never above 1"),
    Mistake(_CLIP, "divides by the total without the 1e-6",
            edits=[("(max_norm / (total + 1e-6))", "(max_norm / total)")],
            rule="max_norm / (total + 1e-6)"),
    Mistake(_CLIP, "replaces each .grad by a scaled copy instead of scaling it in place",
            edits=[('''        for g in grads:
            g.mul_(factor)
''',
                    '''        for p in parameters:
            if p.grad is not None:
                p.grad = p.grad * factor
''')],
            rule="each gradient is scaled in place"),
    Mistake(_CLIP, "takes the min with Python's min: a nan total leaves the gradients as they were",
            edits=[("factor = (max_norm / (total + 1e-6)).clamp(max=1.0)",
                    "factor = min(1.0, max_norm / (total.item() + 1e-6))")],
            rule="a nan total makes them all nan"),
    Mistake(_CLIP, "computes and scales while recording: no no_grad",
            edits=[('''    with ag.no_grad():
        norms = ag.stack([ag.linalg.vector_norm(g, norm_type) for g in grads])
        total = ag.linalg.vector_norm(norms, norm_type)
        if error_if_nonfinite and not total.isfinite().item():
            raise RuntimeError(''', '''    norms = ag.stack([ag.linalg.vector_norm(g, norm_type) for g in grads])
    total = ag.linalg.vector_norm(norms, norm_type)
    if error_if_nonfinite and not total.isfinite().item():
        raise RuntimeError('''),
                   ('''        factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor)
''', '''    factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(factor)
''')],
            rule="clipping records nothing"),
    # ------------------------------------------------------------ 09.accumulate_gradients
    Mistake(_ACC, "divides by the number of micro-batches",
            edits=[
                ('''    total = sum(len(inputs) for inputs, _ in micro_batches)
    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample")
''',
                 '''    if sum(len(inputs) for inputs, _ in micro_batches) == 0:
        raise ValueError("no samples")
'''),
                ('loss = loss_fn(inputs, targets) * (len(inputs) / total)',
                 'loss = loss_fn(inputs, targets) / len(micro_batches)'),
            ],
            rule="each micro-batch's mean loss is weighted by len(inputs) / N before backward()"),
    Mistake(_ACC, "does not weight the micro-batch losses",
            edits=[
                ('loss = loss_fn(inputs, targets) * (len(inputs) / total)',
                 'loss = loss_fn(inputs, targets)'),
            ],
            rule="each micro-batch's mean loss is weighted by len(inputs) / N before backward()"),
    Mistake(_ACC, "assumes equal micro-batches: N = K * the first size",
            edits=[
                ('''    total = sum(len(inputs) for inputs, _ in micro_batches)
    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample")
''',
                 '''    if not micro_batches or len(micro_batches[0][0]) == 0:
        raise ValueError("no samples")
    total = len(micro_batches) * len(micro_batches[0][0])
'''),
            ],
            rule="each micro-batch's mean loss is weighted by len(inputs) / N before backward()"),
    Mistake(_ACC, "returns a tensor instead of a float",
            edits=[('mean_loss += loss.item()', 'mean_loss = mean_loss + loss.detach()')],
            rule="as a Python float"),
    Mistake(_ACC, "returns the last micro-batch's loss",
            edits=[
                ('''        raise ValueError("accumulate_gradients() needs at least one sample")
    mean_loss = 0.0
''',
                 '        raise ValueError("no samples")\n'),
                ('''        loss = loss_fn(inputs, targets) * (len(inputs) / total)
        loss.backward()
        mean_loss += loss.item()
    return mean_loss
''',
                 '''        loss = loss_fn(inputs, targets)
        (loss * (len(inputs) / total)).backward()
    return loss.item()
'''),
            ],
            rule="returns the mean loss over all the samples"),
    Mistake(_ACC, "keeps every graph with retain_graph=True",
            edits=[('loss.backward()', 'loss.backward(retain_graph=True)')],
            rule="each micro-batch's graph is freed by its own backward()"),
    Mistake(_ACC, "sums the weighted losses and calls backward once at the end",
            edits=[
                ('''        raise ValueError("accumulate_gradients() needs at least one sample")
    mean_loss = 0.0
''',
                 '''        raise ValueError("no samples")
    loss = 0.0
'''),
                ('''        loss = loss_fn(inputs, targets) * (len(inputs) / total)
        loss.backward()
        mean_loss += loss.item()
    return mean_loss
''',
                 '''        loss = loss + loss_fn(inputs, targets) * (len(inputs) / total)
    loss.backward()
    return loss.item()
'''),
            ],
            rule="only one graph is alive at a time"),
    Mistake(_ACC, "reads the micro-batches twice (a generator is then empty)",
            edits=[
                ('    micro_batches = list(micro_batches)\n',
                 ''),
            ],
            rule="micro_batches may be a generator"),
    Mistake(_ACC, "no ValueError when there is no sample",
            edits=[
                ('''    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample")
''',
                 ''),
            ],
            rule="no sample at all (N = 0) is a ValueError"),
    Mistake(_ACC, "divides by N up front: ZeroDivisionError instead of ValueError",
            edits=[
                ('''    total = sum(len(inputs) for inputs, _ in micro_batches)
    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample")
''',
                 '    share = 1 / sum(len(inputs) for inputs, _ in micro_batches)\n'),
                ('loss = loss_fn(inputs, targets) * (len(inputs) / total)',
                 'loss = loss_fn(inputs, targets) * (len(inputs) * share)'),
            ],
            rule="no sample at all (N = 0) is a ValueError"),
    Mistake(_ACC, "weights the returned loss but not the gradient",
            edits=[
                ('loss = loss_fn(inputs, targets) * (len(inputs) / total)',
                 'loss = loss_fn(inputs, targets)'),
                ('mean_loss += loss.item()', 'mean_loss += loss.item() * (len(inputs) / total)'),
            ],
            rule="so .grad is the gradient of the mean loss over all N samples"),
    Mistake(_EPOCH, "never clears the gradients: every step adds the previous ones",
            edits=[("        optimizer.zero_grad()\n", "")],
            rule="each batch is one optimizer step on its own gradient"),
    Mistake(_EPOCH, "clears the gradients after the step instead of before the backward",
            edits=[("        optimizer.zero_grad()\n", ""),
                   ("        optimizer.step()\n", "        optimizer.step()\n        optimizer.zero_grad()\n")],
            rule="gradients from before the call or from the previous batch never reach a step"),
    Mistake(_EPOCH, "clears the gradients between backward and step: nothing moves",
            edits=[("        optimizer.zero_grad()\n", ""),
                   ("        loss.backward()\n", "        loss.backward()\n        optimizer.zero_grad()\n")],
            rule="each batch is one optimizer step on its own gradient"),
    Mistake(_EPOCH, "averages the batch losses without weighting them by size",
            edits=[("loss_sum += loss.item() * len(targets)", "loss_sum += loss.item()"),
                   ("seen += len(targets)", "seen += 1")],
            rule="weighted by its number of samples"),
    Mistake(_EPOCH, "keeps the loss tensors, and with them every batch's graph",
            edits=[("loss_sum += loss.item() * len(targets)", "loss_sum = loss_sum + loss * len(targets)"),
                   ("return loss_sum / seen", "return float(loss_sum / seen)")],
            rule="no graph outlives its step"),
    Mistake(_EPOCH, "leaves the model in the mode it was in",
            edits=[("    model.train()\n", "")],
            rule="the model trains in training mode"),
    Mistake(_EPOCH, "counts the batches with len(batches): a generator has no len()",
            edits=[("    loss_sum, seen = 0.0, 0\n", "    loss_sum, seen = 0.0, 0\n    if len(batches) == 0:\n"
                                                       "        raise ValueError(\"no batch\")\n")],
            rule="batches may be any iterable, read once"),
    Mistake(_EVAL, "records a graph: no no_grad around the forward",
            edits=[("    with ag.no_grad():\n        for inputs, targets in batches:", "    if True:\n        for inputs, targets in batches:")],
            rule="under no_grad: no graph is recorded"),
    Mistake(_EVAL, "measures in training mode",
            edits=[("    model.eval()\n", "")],
            rule="evaluate runs the model in evaluation mode"),
    Mistake(_EVAL, "takes the argmax over the batch (dim=0) instead of the classes",
            edits=[("scores.argmax(dim=1)", "scores.argmax(dim=0)")],
            rule="two Python floats"),           # one score per class no longer lines up with the targets: an error
    Mistake(_EVAL, "averages the batches' accuracies without weighting them by size",
            edits=[("loss_sum, right, seen = 0.0, 0, 0", "loss_sum, right, seen, count = 0.0, 0.0, 0, 0"),
                   ("right += int((scores.argmax(dim=1) == targets).sum().item())",
                    "right += (scores.argmax(dim=1) == targets).float().mean().item()"),
                   ("            seen += len(targets)\n", "            seen += len(targets)\n            count += 1\n"),
                   ("return loss_sum / seen, right / seen", "return loss_sum / seen, right / count")],
            rule="a sample is right when its highest score"),
    Mistake(_EVAL, "returns the accuracy as a tensor",
            edits=[("right += int((scores.argmax(dim=1) == targets).sum().item())",
                    "right += (scores.argmax(dim=1) == targets).sum()")],
            rule="two Python floats"),
    # ------------------------------------------------------------ 09.plateau_step
    Mistake(_PLATEAU, "counts the bad epochs of the cooldown",
            edits=[("        scheduler.cooldown_counter -= 1\n        scheduler.num_bad_epochs = 0\n",
                    "        scheduler.cooldown_counter -= 1\n")],
            rule="bad epochs in the cooldown do not count"),
    Mistake(_PLATEAU, "cuts when num_bad_epochs reaches patience (>=), one epoch early",
            edits=[("if scheduler.num_bad_epochs > scheduler.patience:",
                    "if scheduler.num_bad_epochs >= scheduler.patience:")],
            rule="not when it equals patience"),
    Mistake(_PLATEAU, "applies a relative threshold as an absolute one in mode 'min'",
            edits=[("current < (best * (1 - threshold) if rel else best - threshold)", "current < best - threshold")],
            rule="below best * (1 - threshold) with threshold_mode 'rel'"),
    Mistake(_PLATEAU, "scales the relative threshold by abs(best), so a negative best needs a larger drop",
            edits=[("best * (1 - threshold) if rel", "best - abs(best) * threshold if rel"),
                   ("best * (1 + threshold) if rel", "best + abs(best) * threshold if rel")],
            rule="best itself, even when it is negative"),
    Mistake(_PLATEAU, "mirrors mode 'max' wrongly: its relative bar is best * (1 - threshold) too",
            edits=[("best * (1 + threshold) if rel", "best * (1 - threshold) if rel")],
            rule="above best * (1 + threshold)"),
    Mistake(_PLATEAU, "ignores min_lr: the rate falls below its floor",
            edits=[("new_lr = max(group[\"lr\"] * scheduler.factor, floor)", "new_lr = group[\"lr\"] * scheduler.factor")],
            rule="below that group's own floor"),
    Mistake(_PLATEAU, "takes the first group's min_lr as the floor of every group",
            edits=[("for group, floor in zip(scheduler.optimizer.param_groups, scheduler.min_lrs):",
                    "for group in scheduler.optimizer.param_groups:"),
                   ("max(group[\"lr\"] * scheduler.factor, floor)", "max(group[\"lr\"] * scheduler.factor, scheduler.min_lrs[0])")],
            rule="that group's own floor, scheduler.min_lrs[i]"),
    Mistake(_PLATEAU, "writes every cut rate, even a change of eps or less (a rate below its floor goes up)",
            edits=[("            if group[\"lr\"] - new_lr > scheduler.eps:\n                group[\"lr\"] = new_lr\n",
                    "            group[\"lr\"] = new_lr\n")],
            rule="would change by eps or less keeps its lr"),
    Mistake(_PLATEAU, "does not reset num_bad_epochs after a cut",
            edits=[("scheduler.cooldown_counter, scheduler.num_bad_epochs = scheduler.cooldown, 0",
                    "scheduler.cooldown_counter = scheduler.cooldown")],
            rule="after a cut, cooldown_counter becomes cooldown and num_bad_epochs 0"),
]
