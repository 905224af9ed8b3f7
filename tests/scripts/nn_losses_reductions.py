"""The losses with every reduction, their options (weights, ignore_index,
label_smoothing, probability targets, pos_weight, beta/delta, log_target, full)
and gradients, and the errors for targets of the wrong shape or dtype."""
# tolerance: rtol=1e-5 atol=1e-6
import torch

import numpy as np

from _printing import attempt, show_reductions


show = show_reductions
F = torch.nn.functional
rng = np.random.default_rng(0)
logits = torch.tensor(rng.normal(size=(4, 3)), dtype=torch.float32)
labels = torch.tensor([0, 2, 1, 2])
pred = torch.tensor(rng.normal(size=(2, 3)), dtype=torch.float32)
target = torch.tensor(rng.normal(size=(2, 3)), dtype=torch.float32)
probs = torch.tensor(rng.uniform(0.05, 0.95, size=(2, 3)), dtype=torch.float32)
binary = torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])

print("== classification")
show("cross_entropy:", F.cross_entropy, logits, labels)
show("weighted:", lambda x, y, reduction: F.cross_entropy(x, y, weight=torch.tensor([1.0, 2.0, 0.5]),
                                                          reduction=reduction), logits, labels)
show("ignore_index:", lambda x, y, reduction: F.cross_entropy(x, y, ignore_index=2, reduction=reduction),
     logits, labels)
show("label_smoothing:", lambda x, y, reduction: F.cross_entropy(x, y, label_smoothing=0.2, reduction=reduction),
     logits, labels)
show("smoothing+weight:", lambda x, y, reduction: F.cross_entropy(
    x, y, weight=torch.tensor([1.0, 2.0, 0.5]), label_smoothing=0.1, reduction=reduction), logits, labels)
soft = torch.softmax(torch.tensor(rng.normal(size=(4, 3)), dtype=torch.float32), dim=1)
show("probability targets:", F.cross_entropy, logits, soft)
show("probability + smoothing:", lambda x, y, reduction: F.cross_entropy(x, y, label_smoothing=0.3,
                                                                           reduction=reduction), logits, soft)
images = torch.tensor(rng.normal(size=(2, 3, 2, 2)), dtype=torch.float32)
pixel_labels = torch.tensor([[[0, 1], [2, 1]], [[2, 2], [0, 1]]])
show("spatial (N, C, H, W):", F.cross_entropy, images, pixel_labels)
show("nll_loss:", F.nll_loss, torch.log_softmax(logits, 1), labels)
print("all ignored (mean):", F.cross_entropy(logits, torch.full((4,), -100)))
print("unbatched:", F.cross_entropy(logits[0], labels[0]))
show("binary_cross_entropy:", F.binary_cross_entropy, probs, binary)
show("bce weight:", lambda x, y, reduction: F.binary_cross_entropy(x, y, weight=torch.tensor([1.0, 0.5, 2.0]),
                                                                   reduction=reduction), probs, binary)
show("bce_with_logits:", F.binary_cross_entropy_with_logits, pred, binary)
show("pos_weight:", lambda x, y, reduction: F.binary_cross_entropy_with_logits(
    x, y, pos_weight=torch.tensor([3.0, 1.0, 0.5]), reduction=reduction), pred, binary)
print("bce clamps log(0):", F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])))
show("soft_margin_loss:", F.soft_margin_loss, pred, binary * 2 - 1)

print("== regression")
show("mse_loss:", F.mse_loss, pred, target)
show("l1_loss:", F.l1_loss, pred, target)
show("smooth_l1 beta=0.5:", lambda x, y, reduction: F.smooth_l1_loss(x, y, beta=0.5, reduction=reduction), pred, target)
show("smooth_l1 beta=0:", lambda x, y, reduction: F.smooth_l1_loss(x, y, beta=0.0, reduction=reduction), pred, target)
show("huber delta=0.3:", lambda x, y, reduction: F.huber_loss(x, y, delta=0.3, reduction=reduction), pred, target)
show("kl_div:", F.kl_div, torch.log(probs), probs.flip(1))
show("kl_div log_target:", lambda x, y, reduction: F.kl_div(x, y, log_target=True, reduction=reduction),
     torch.log(probs), torch.log(probs.flip(1)))
print("kl_div batchmean:", F.kl_div(torch.log(probs), probs.flip(1), reduction="batchmean"))
show("poisson_nll:", F.poisson_nll_loss, pred, target.abs())
show("poisson_nll full:", lambda x, y, reduction: F.poisson_nll_loss(x, y, log_input=False, full=True,
                                                                     reduction=reduction), probs, target.abs() * 3)
show("gaussian_nll:", lambda x, y, reduction: F.gaussian_nll_loss(x, y, probs, reduction=reduction), pred, target)
show("margin_ranking:", lambda x, y, reduction: F.margin_ranking_loss(x, y, binary * 2 - 1, margin=0.2,
                                                                      reduction=reduction), pred, target)

print("== modules")
print(torch.nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=1))
print(torch.nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=1)(logits, labels))
print(torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0, 1.0]))(pred, binary))
print(torch.nn.SmoothL1Loss(beta=2.0, reduction="sum")(pred, target), torch.nn.MSELoss(reduction="none"))
print(torch.nn.KLDivLoss(reduction="batchmean", log_target=True)(torch.log(probs), torch.log(probs)))

print("== errors")
attempt("float targets of class shape:", lambda: F.cross_entropy(logits, labels.float()))
attempt("targets too many:", lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2, 0, 1])))
attempt("class out of range:", lambda: F.cross_entropy(logits, torch.tensor([0, 1, 3, 0])))
attempt("nll int input:", lambda: F.nll_loss(torch.zeros(2, 3, dtype=torch.long), torch.tensor([0, 1])))
attempt("bad reduction:", lambda: F.mse_loss(pred, target, reduction="average"))
attempt("bce target shape:", lambda: F.binary_cross_entropy(probs, binary[0]))
attempt("bce out of range:", lambda: F.binary_cross_entropy(probs * 2, binary))
attempt("bce_with_logits shape:", lambda: F.binary_cross_entropy_with_logits(pred, binary[:, :2]))
attempt("weight of the wrong size:", lambda: F.cross_entropy(logits, labels, weight=torch.ones(2)))
attempt("label_smoothing out of range:", lambda: F.cross_entropy(logits, labels, label_smoothing=1.5))
attempt("1-D targets for 2 images:", lambda: F.cross_entropy(images, torch.tensor([0, 1])))
attempt("int targets for mse:", lambda: F.mse_loss(pred, torch.ones(2, 3, dtype=torch.long)))
attempt("kl_div without batch:", lambda: F.kl_div(pred, target, reduction="bad"))
