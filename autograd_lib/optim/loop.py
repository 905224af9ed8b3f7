"""The training loop: one epoch of training, and one evaluation pass.

PyTorch leaves the loop to you; these two are the course's own, the loop every
PyTorch tutorial writes by hand, made into functions so that assignment 09's
capstone (handwritten digits) can call them::

    for epoch in range(epochs):
        train_loss = train_epoch(model, loss_fn, optimizer, train_loader)
        val_loss, val_accuracy = evaluate(model, loss_fn, val_loader)

Both weight each batch's *mean* loss by its number of samples, so a smaller
last batch counts for what it holds, and both return Python floats: a loss
tensor kept across batches would keep every batch's graph alive.
"""

from ..grad_mode import no_grad

__all__ = ["train_epoch", "evaluate"]


def train_epoch(model, loss_fn, optimizer, batches):
    """Train ``model`` for one pass over ``batches``.

    Args:
        model: an ``nn.Module``; put in training mode (``model.train()``) first.
        loss_fn: ``loss_fn(outputs, targets)`` gives one batch's mean loss.
        optimizer: updates the model's parameters; each batch is one step:
            ``zero_grad()``, forward, ``backward()``, ``step()``.
        batches: ``(inputs, targets)`` pairs, a DataLoader or any iterable.

    Returns:
        The mean loss per sample over the epoch, as a float: each batch's loss
        (computed before its step) weighted by its number of samples.
    """
    model.train()
    total, count = 0.0, 0
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(inputs)
        count += len(inputs)
    if count == 0:
        raise ValueError("train_epoch() got no sample: batches is empty")
    return total / count


def evaluate(model, loss_fn, batches):
    """Measure a classifier on ``batches`` without training it.

    Args:
        model: an ``nn.Module`` that maps inputs to class scores (logits),
            one row per sample; put in evaluation mode (``model.eval()``).
        loss_fn: ``loss_fn(outputs, targets)`` gives one batch's mean loss.
        batches: ``(inputs, targets)`` pairs, targets being class indices.

    Returns:
        ``(mean loss per sample, accuracy)``, two floats over all the samples;
        the accuracy is the fraction whose highest score is its target class.
        Everything runs under ``no_grad``: no graph is recorded.
    """
    model.eval()
    total, correct, count = 0.0, 0, 0
    with no_grad():
        for inputs, targets in batches:
            outputs = model(inputs)
            total += loss_fn(outputs, targets).item() * len(inputs)
            correct += (outputs.argmax(dim=1) == targets).sum().item()
            count += len(inputs)
    if count == 0:
        raise ValueError("evaluate() got no sample: batches is empty")
    return total / count, correct / count
