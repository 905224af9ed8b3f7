"""Realistic wrong answers for assignment 09 (training loops and zero_grad).

Each mistake edits one answer cell of course/source/09_training/09_training.ipynb
(the format: autograd_course/mistakes.py).
The test cells of that exercise must fail naming ``rule`` (a rule its task text states),
and the test cells of every other exercise must keep passing.
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
            rule="order"),
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
            rule="order"),
    Mistake(_WALK, "always joins with a dot: '.scale' at the root",
            edits=[
                ('yield (module_name + "." + name if module_name else name), tensor',
                 'yield module_name + "." + name, tensor'),
            ],
            rule="names"),
    Mistake(_WALK, "does not skip None members",
            edits=[('if tensor is None or tensor in seen:', 'if tensor in seen:')],
            rule="skip-none"),
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
            rule="once"),
    Mistake(_WALK, "removes duplicates even with remove_duplicate=False",
            edits=[
                ('''            if remove_duplicate:
                seen.add(tensor)
''',
                 '            seen.add(tensor)\n'),
            ],
            rule="every"),
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
            rule="identity"),

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
            rule="same"),
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
            rule="to-none"),
    Mistake(_CLEAR, "multiplies by 0 instead of zero_() (nan stays nan)",
            edits=[('p.grad.zero_()', 'p.grad.mul_(0)')],
            rule="zeros"),
    Mistake(_CLEAR, "does not skip a tensor without .grad",
            edits=[
                ('''        if p.grad is None:
            continue
''',
                 ''),
            ],
            rule="skip"),
    Mistake(_CLEAR, "zeroes a .grad with a graph without cutting it",
            edits=[
                ('''            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
''',
                 ''),
            ],
            rule="cut"),
    Mistake(_CLEAR, "always calls detach_(), which refuses a .grad that is a view",
            edits=[
                ('''            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
''',
                 '            p.grad.detach_()\n'),
            ],
            rule="cut"),
    Mistake(_CLEAR, "writes zeros into the NumPy array: no version bump",
            edits=[('p.grad.zero_()', 'p.grad._data[...] = 0')],
            rule="version"),
    Mistake(_CLEAR, "reads a generator twice (any() first)",
            edits=[
                ('    (any iterable). Returns None."""\n',
                 '''    (any iterable). Returns None."""
    if not any(p.grad is not None for p in params):
        return
'''),
            ],
            rule="read-once"),

    # ------------------------------------------------------------ 09.sgd_update
    Mistake(_SGD, "the first momentum buffer is param.grad itself (no copy)",
            edits=[('buf = g.detach().clone()', 'buf = g')],
            rule="copy"),
    Mistake(_SGD, "dampens the first momentum buffer too",
            edits=[('buf = g.detach().clone()', 'buf = (1 - dampening) * g.detach()')],
            rule="first"),
    Mistake(_SGD, "ignores nesterov",
            edits=[('g = g + momentum * buf if nesterov else buf', 'g = buf')],
            rule="nesterov"),
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
            rule="decay"),
    Mistake(_SGD, "negates the gradient after weight decay when maximizing",
            edits=[
                ('g = -param.grad if maximize else param.grad', 'g = param.grad'),
                ('        g = g + weight_decay * param\n',
                 '''        g = g + weight_decay * param
    if maximize:
        g = -g
'''),
            ],
            rule="maximize"),
    Mistake(_SGD, "writes the step into the NumPy array: no version bump",
            edits=[('param.add_(g, alpha=-lr)', 'param._data -= lr * g._data')],
            rule="in-place"),
    Mistake(_SGD, "makes a new momentum buffer every step instead of updating it in place",
            edits=[
                ('            state["momentum_buffer"] = buf\n',
                 ''),
                ('            buf.mul_(momentum).add_(g, alpha=1 - dampening)\n',
                 '''            buf = momentum * buf + (1 - dampening) * g
        state["momentum_buffer"] = buf
'''),
            ],
            rule="later"),
    Mistake(_SGD, "adds the weight decay into param.grad in place",
            edits=[('g = g + weight_decay * param', 'g.add_(param, alpha=weight_decay)')],
            rule="grad-kept"),

    # ------------------------------------------------------------ 09.adam_update
    Mistake(_ADAM, "no bias correction: divides the raw moments",
            edits=[('denom = (v / (1 - beta2 ** t)).sqrt() + eps', 'denom = v.sqrt() + eps'),
                   ('alpha=-lr / (1 - beta1 ** t)', 'alpha=-lr')],
            rule="bias"),
    Mistake(_ADAM, "reads the step count before counting this step (t = 0 on the first step)",
            edits=[('''    state["step"] += 1
    t = state["step"].item()
''',
                    '''    t = state["step"].item()
    state["step"] += 1
''')],
            rule="bias"),
    Mistake(_ADAM, "adds eps under the square root",
            edits=[('denom = (v / (1 - beta2 ** t)).sqrt() + eps', 'denom = (v / (1 - beta2 ** t) + eps).sqrt()')],
            rule="eps"),
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
            rule="amsgrad"),
    Mistake(_ADAM, "L2 weight decay added to the step after the moments, not to the gradient",
            edits=[('''    elif weight_decay != 0:
        g = g + weight_decay * param
''',
                    ''),
                   ('param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))',
                    '''param.add_(m / denom, alpha=-lr / (1 - beta1 ** t))
    if weight_decay != 0 and not decoupled_weight_decay:
        param.add_(param, alpha=-lr * weight_decay)''')],
            rule="l2"),
    Mistake(_ADAM, "ignores decoupled_weight_decay: always adds the decay to the gradient",
            edits=[('''    if weight_decay != 0 and decoupled_weight_decay:
        param.mul_(1 - lr * weight_decay)
    elif weight_decay != 0:
''',
                    '''    if weight_decay != 0:
''')],
            rule="decoupled"),
    Mistake(_ADAM, "negates the gradient after weight decay when maximizing",
            edits=[('g = -param.grad if maximize else param.grad', 'g = param.grad'),
                   ('        g = g + weight_decay * param\n',
                    '''        g = g + weight_decay * param
    if maximize:
        g = -g
''')],
            rule="maximize"),
    Mistake(_ADAM, "keeps the step count as a Python number",
            edits=[('state["step"] = ag.tensor(0.0)', 'state["step"] = 0'),
                   ('t = state["step"].item()', 't = state["step"]')],
            rule="state"),

    # ------------------------------------------------------------ 09.clip_grad_norm
    Mistake(_CLIP, "adds up the gradients' norms instead of taking the norm of the norms",
            edits=[("total = ag.linalg.vector_norm(norms, norm_type)", "total = norms.sum()")],
            rule="total"),
    Mistake(_CLIP, "clips each gradient by its own norm",
            edits=[('''        factor = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(factor)
''',
                    '''        for g, norm in zip(grads, norms):
            g.mul_((max_norm / (norm + 1e-6)).clamp(max=1.0))
''')],
            rule="scale"),
    Mistake(_CLIP, "forgets the min with 1: gradients under max_norm are scaled up",
            edits=[(".clamp(max=1.0)", "")],
            rule="not-up"),
    Mistake(_CLIP, "divides by the total without the 1e-6",
            edits=[("(max_norm / (total + 1e-6))", "(max_norm / total)")],
            rule="scale"),
    Mistake(_CLIP, "replaces each .grad by a scaled copy instead of scaling it in place",
            edits=[('''        for g in grads:
            g.mul_(factor)
''',
                    '''        for p in parameters:
            if p.grad is not None:
                p.grad = p.grad * factor
''')],
            rule="in-place"),
    Mistake(_CLIP, "takes the min with Python's min: a nan total leaves the gradients as they were",
            edits=[("factor = (max_norm / (total + 1e-6)).clamp(max=1.0)",
                    "factor = min(1.0, max_norm / (total.item() + 1e-6))")],
            rule="scaled-anyway"),
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
            rule="records"),
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
            rule="large"),
    Mistake(_ACC, "returns a tensor instead of a float",
            edits=[('mean_loss += loss.item()', 'mean_loss = mean_loss + loss.detach()')],
            rule="returns"),
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
            rule="returns"),
    Mistake(_ACC, "calls loss_fn on an empty micro-batch too: its mean loss is nan",
            edits=[("""        if len(inputs) == 0:
            continue
""", "")],
            rule="returns"),
    Mistake(_ACC, "keeps every graph with retain_graph=True",
            edits=[('loss.backward()', 'loss.backward(retain_graph=True)')],
            rule="one-graph"),
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
            rule="one-graph"),
    Mistake(_ACC, "reads the micro-batches twice (a generator is then empty)",
            edits=[
                ('    micro_batches = list(micro_batches)\n',
                 ''),
            ],
            rule="read-once"),
    Mistake(_ACC, "no ValueError when there is no sample",
            edits=[
                ('''    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample")
''',
                 ''),
            ],
            rule="no-sample"),
    Mistake(_ACC, "weights the returned loss but not the gradient",
            edits=[
                ('loss = loss_fn(inputs, targets) * (len(inputs) / total)',
                 'loss = loss_fn(inputs, targets)'),
                ('mean_loss += loss.item()', 'mean_loss += loss.item() * (len(inputs) / total)'),
            ],
            rule="large"),
    Mistake(_EPOCH, "never clears the gradients: every step adds the previous ones",
            edits=[("        optimizer.zero_grad()\n", "")],
            rule="step"),
    Mistake(_EPOCH, "clears the gradients after the step instead of before the backward",
            edits=[("        optimizer.zero_grad()\n", ""),
                   ("        optimizer.step()\n", "        optimizer.step()\n        optimizer.zero_grad()\n")],
            rule="step"),
    Mistake(_EPOCH, "clears the gradients between backward and step: nothing moves",
            edits=[("        optimizer.zero_grad()\n", ""),
                   ("        loss.backward()\n", "        loss.backward()\n        optimizer.zero_grad()\n")],
            rule="step"),
    Mistake(_EPOCH, "averages the batch losses without weighting them by size",
            edits=[("loss_sum += loss.item() * len(targets)", "loss_sum += loss.item()"),
                   ("seen += len(targets)", "seen += 1")],
            rule="mean"),
    Mistake(_EPOCH, "keeps the loss tensors, and with them every batch's graph",
            edits=[("loss_sum += loss.item() * len(targets)", "loss_sum = loss_sum + loss * len(targets)"),
                   ("return loss_sum / seen", "return float(loss_sum / seen)")],
            rule="graphs"),
    Mistake(_EPOCH, "leaves the model in the mode it was in",
            edits=[("    model.train()\n", "")],
            rule="mode"),
    Mistake(_EPOCH, "counts the batches with len(batches): a generator has no len()",
            edits=[("    loss_sum, seen = 0.0, 0\n", "    loss_sum, seen = 0.0, 0\n    if len(batches) == 0:\n"
                                                       "        raise ValueError(\"no batch\")\n")],
            rule="read-once"),
    Mistake(_EVAL, "records a graph: no no_grad around the forward",
            edits=[("    with ag.no_grad():\n        for inputs, targets in batches:", "    if True:\n        for inputs, targets in batches:")],
            rule="eval"),
    Mistake(_EVAL, "measures in training mode",
            edits=[("    model.eval()\n", "")],
            rule="eval"),
    Mistake(_EVAL, "takes the argmax over the batch (dim=0) instead of the classes",
            edits=[("scores.argmax(dim=1)", "scores.argmax(dim=0)")],
            rule="result"),           # one score per class no longer lines up with the targets: an error
    Mistake(_EVAL, "averages the batches' accuracies without weighting them by size",
            edits=[("loss_sum, right, seen = 0.0, 0, 0", "loss_sum, right, seen, count = 0.0, 0.0, 0, 0"),
                   ("right += int((scores.argmax(dim=1) == targets).sum().item())",
                    "right += (scores.argmax(dim=1) == targets).float().mean().item()"),
                   ("            seen += len(targets)\n", "            seen += len(targets)\n            count += 1\n"),
                   ("return loss_sum / seen, right / seen", "return loss_sum / seen, right / count")],
            rule="right"),
    Mistake(_EVAL, "returns the accuracy as a tensor",
            edits=[("right += int((scores.argmax(dim=1) == targets).sum().item())",
                    "right += (scores.argmax(dim=1) == targets).sum()")],
            rule="result"),
    # ------------------------------------------------------------ 09.plateau_step
    Mistake(_PLATEAU, "counts the bad epochs of the cooldown",
            edits=[("        scheduler.cooldown_counter -= 1\n        scheduler.num_bad_epochs = 0\n",
                    "        scheduler.cooldown_counter -= 1\n")],
            rule="cooldown"),
    Mistake(_PLATEAU, "cuts when num_bad_epochs reaches patience (>=), one epoch early",
            edits=[("if scheduler.num_bad_epochs > scheduler.patience:",
                    "if scheduler.num_bad_epochs >= scheduler.patience:")],
            rule="patience"),
    Mistake(_PLATEAU, "scales the relative threshold by abs(best), so a negative best needs a larger drop",
            edits=[("best * (1 - threshold) if rel", "best - abs(best) * threshold if rel"),
                   ("best * (1 + threshold) if rel", "best + abs(best) * threshold if rel")],
            rule="better"),
    Mistake(_PLATEAU, "mirrors mode 'max' wrongly: its relative bar is best * (1 - threshold) too",
            edits=[("best * (1 + threshold) if rel", "best * (1 - threshold) if rel")],
            rule="better"),
    Mistake(_PLATEAU, "ignores min_lr: the rate falls below its floor",
            edits=[("new_lr = max(group[\"lr\"] * scheduler.factor, floor)", "new_lr = group[\"lr\"] * scheduler.factor")],
            rule="floor"),
    Mistake(_PLATEAU, "takes the first group's min_lr as the floor of every group",
            edits=[("for group, floor in zip(scheduler.optimizer.param_groups, scheduler.min_lrs):",
                    "for group in scheduler.optimizer.param_groups:"),
                   ("max(group[\"lr\"] * scheduler.factor, floor)", "max(group[\"lr\"] * scheduler.factor, scheduler.min_lrs[0])")],
            rule="floor"),
    Mistake(_PLATEAU, "writes every cut rate, even a change of eps or less (a rate below its floor goes up)",
            edits=[("            if group[\"lr\"] - new_lr > scheduler.eps:\n                group[\"lr\"] = new_lr\n",
                    "            group[\"lr\"] = new_lr\n")],
            rule="min-change"),
    Mistake(_PLATEAU, "does not reset num_bad_epochs after a cut",
            edits=[("scheduler.cooldown_counter, scheduler.num_bad_epochs = scheduler.cooldown, 0",
                    "scheduler.cooldown_counter = scheduler.cooldown")],
            rule="restart"),
]
