"""The margin and embedding losses (multi_margin, multilabel_margin, multilabel_soft_margin,
hinge_embedding, cosine_embedding, triplet_margin and its custom-distance form) with every
reduction, their options and gradients, the nodes they record, their modules, and the
errors for bad targets, weights and margins."""
# tolerance: rtol=1e-5 atol=1e-6
from functools import partial

import numpy as np
import torch

from _printing import attempt, show_reductions


show = partial(show_reductions, node_names=True)
F = torch.nn.functional
rng = np.random.default_rng(3)
scores = torch.tensor(rng.normal(size=(4, 5)), dtype=torch.float32)
classes = torch.tensor([0, 4, 2, 2])
lists = torch.tensor([[3, 0, -1, 1, 1], [4, -1, 2, 2, 2], [1, 1, 3, 0, -1], [-1, 0, 0, 0, 0]])
onehot = torch.tensor(rng.integers(0, 2, size=(4, 5)), dtype=torch.float32)
signs = onehot * 2 - 1
a = torch.tensor(rng.normal(size=(3, 4)), dtype=torch.float32)
p = torch.tensor(rng.normal(size=(3, 4)), dtype=torch.float32)
n = torch.tensor(rng.normal(size=(3, 4)), dtype=torch.float32)
pair = torch.tensor([1.0, -1.0, -1.0])
weight = torch.tensor([1.0, 0.5, 2.0, 1.5, 3.0])

print("== multi-class margins")
show("multi_margin:", F.multi_margin_loss, scores, classes)
show("multi_margin p=2 margin=0.5:", lambda x, y, reduction: F.multi_margin_loss(x, y, p=2, margin=0.5,
                                                                                  reduction=reduction), scores, classes)
show("multi_margin weight:", lambda x, y, reduction: F.multi_margin_loss(x, y, weight=weight, reduction=reduction),
     scores, classes)
show("multi_margin one sample:", F.multi_margin_loss, scores[1], classes[1])
show("multilabel_margin:", F.multilabel_margin_loss, scores, lists)
show("multilabel_margin one sample:", F.multilabel_margin_loss, scores[2], lists[2])
show("multilabel_soft_margin:", F.multilabel_soft_margin_loss, scores, onehot)
show("multilabel_soft_margin weight:", lambda x, y, reduction: F.multilabel_soft_margin_loss(
    x, y, weight=weight, reduction=reduction), scores, onehot)

print("== embeddings")
show("hinge_embedding:", F.hinge_embedding_loss, scores.abs(), signs)
show("hinge_embedding margin=2:", lambda x, y, reduction: F.hinge_embedding_loss(x, y, margin=2.0,
                                                                                 reduction=reduction), scores, signs)
show("cosine_embedding:", lambda x, reduction: F.cosine_embedding_loss(x, p, pair, reduction=reduction), a)
show("cosine_embedding margin=0.2:", lambda x, reduction: F.cosine_embedding_loss(
    x, p, pair, margin=0.2, reduction=reduction), a)
show("cosine_embedding 1-D:", lambda x, reduction: F.cosine_embedding_loss(x, p[0], torch.tensor(-1.0),
                                                                          reduction=reduction), a[0])
show("triplet:", lambda x, reduction: F.triplet_margin_loss(x, p, n, reduction=reduction), a)
show("triplet p=1 swap:", lambda x, reduction: F.triplet_margin_loss(x, p, n, p=1, swap=True, margin=2.0,
                                                                     reduction=reduction), a)
show("triplet distance:", lambda x, reduction: F.triplet_margin_with_distance_loss(
    x, p, n, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), reduction=reduction), a)
show("triplet distance swap:", lambda x, reduction: F.triplet_margin_with_distance_loss(
    x, p, n, swap=True, margin=0.5, reduction=reduction), a)

print("== second derivatives")
x = scores.clone().requires_grad_()
g, = torch.autograd.grad(F.multi_margin_loss(x, classes), x, create_graph=True)
print("multi_margin grad node:", type(g.grad_fn).__name__, g.requires_grad)
attempt("differentiate it again:", lambda: torch.autograd.grad(g.sum(), x))
g, = torch.autograd.grad(F.multilabel_margin_loss(x, lists), x, create_graph=True)
attempt("multilabel again:", lambda: torch.autograd.grad(g.sum(), x))
g, = torch.autograd.grad(F.triplet_margin_loss(x[:3, :4], p, n), x, create_graph=True)
print("triplet hessian-vector:", [round(v, 4) for v in torch.autograd.grad((g * g).sum(), x)[0].flatten().tolist()])

print("== modules")
for module in [torch.nn.MultiMarginLoss(p=2, margin=0.5, weight=weight), torch.nn.MultiLabelMarginLoss(),
               torch.nn.MultiLabelSoftMarginLoss(reduction="sum"), torch.nn.HingeEmbeddingLoss(margin=0.5)]:
    target = {"MultiMarginLoss": classes, "MultiLabelMarginLoss": lists}.get(type(module).__name__, onehot)
    print(module, module(scores, target if type(module).__name__ != "HingeEmbeddingLoss" else signs),
          sorted(dict(module.named_buffers())))
print(torch.nn.CosineEmbeddingLoss(margin=0.1)(a, p, pair), torch.nn.TripletMarginLoss(swap=True)(a, p, n))
distance_loss = torch.nn.TripletMarginWithDistanceLoss(margin=0.3)
print(distance_loss, distance_loss(a, p, n), [name for name, _ in distance_loss.named_modules()])

print("== errors")
attempt("p=3:", lambda: F.multi_margin_loss(scores, classes, p=3))
attempt("2-D weight:", lambda: F.multi_margin_loss(scores, classes, weight=torch.ones(5, 1)))
attempt("weight size:", lambda: F.multi_margin_loss(scores, classes, weight=torch.ones(4)))
attempt("weight dtype:", lambda: F.multi_margin_loss(scores, classes, weight=weight.double()))
attempt("weight requires grad:", lambda: F.multi_margin_loss(scores, classes, weight=weight.requires_grad_()))
weight.requires_grad_(False)
attempt("class out of range:", lambda: F.multi_margin_loss(scores, torch.tensor([0, 5, 1, 1])))
attempt("negative class:", lambda: F.multi_margin_loss(scores, torch.tensor([0, -1, 1, 1])))
attempt("targets too few:", lambda: F.multi_margin_loss(scores, classes[:3]))
attempt("2-D targets:", lambda: F.multi_margin_loss(scores, classes.view(4, 1)))
attempt("float targets:", lambda: F.multi_margin_loss(scores, classes.float()))
attempt("3-D input:", lambda: F.multi_margin_loss(scores.view(2, 2, 5), classes))
attempt("no classes:", lambda: F.multi_margin_loss(torch.zeros(2, 0), classes[:2]))
attempt("integer input:", lambda: F.multi_margin_loss(classes.view(2, 2), classes[:2]))
attempt("bad reduction:", lambda: F.multi_margin_loss(scores, classes, reduction="avg"))
attempt("multilabel shape:", lambda: F.multilabel_margin_loss(scores, lists[:, :3]))
attempt("multilabel out of range:", lambda: F.multilabel_margin_loss(scores, lists + 1))
attempt("multilabel below -1:", lambda: F.multilabel_margin_loss(scores, lists - 1))
attempt("multilabel float:", lambda: F.multilabel_margin_loss(scores, lists.float()))
attempt("multilabel 1-D for 2-D:", lambda: F.multilabel_margin_loss(scores, lists[0]))
attempt("soft margin bad reduction:", lambda: F.multilabel_soft_margin_loss(scores, onehot, reduction="avg"))
attempt("soft margin shape:", lambda: F.multilabel_soft_margin_loss(scores, onehot[:, :2]))
attempt("hinge shape:", lambda: F.hinge_embedding_loss(scores, signs[:, :3]))
attempt("hinge bad reduction:", lambda: F.hinge_embedding_loss(scores, signs, reduction="avg"))
attempt("cosine 2-D target:", lambda: F.cosine_embedding_loss(a, p, pair.view(3, 1)))
attempt("cosine 1-D inputs:", lambda: F.cosine_embedding_loss(a[0], p[0], pair))
attempt("cosine 0-D target, 2-D inputs:", lambda: F.cosine_embedding_loss(a, p, pair[0]))
attempt("cosine target size:", lambda: F.cosine_embedding_loss(a, p, pair[:2]))
attempt("cosine input sizes:", lambda: F.cosine_embedding_loss(a, p[:, :3], pair))
attempt("triplet dims:", lambda: F.triplet_margin_loss(a, p, n[0]))
attempt("triplet margin:", lambda: F.triplet_margin_loss(a, p, n, margin=0))
attempt("triplet sizes:", lambda: F.triplet_margin_loss(a, p, n[:, :2]))
attempt("distance margin:", lambda: F.triplet_margin_with_distance_loss(a, p, n, margin=-1.0))
attempt("distance dims:", lambda: F.triplet_margin_with_distance_loss(a, p[0], n))
attempt("distance reduction:", lambda: F.triplet_margin_with_distance_loss(a, p, n, reduction="avg"))
attempt("module p=3:", lambda: torch.nn.MultiMarginLoss(p=3))
attempt("module 2-D weight:", lambda: torch.nn.MultiMarginLoss(weight=torch.ones(2, 2)))
attempt("module margin 0:", lambda: torch.nn.TripletMarginLoss(margin=0.0))
attempt("distance module margin:", lambda: torch.nn.TripletMarginWithDistanceLoss(margin=-0.5))
