"""Gradient accumulation: the gradient of a large batch, one micro-batch at a time.

A batch too large for memory is split into micro-batches.  Each micro-batch's
loss is a *mean* over its own samples, so it is weighted by its share of the
whole batch before ``backward`` adds its gradient into ``.grad``: afterwards
``.grad`` is the gradient of the mean loss over every sample, the same as one
backward over the whole batch (up to rounding), even when the last
micro-batch is smaller than the others::

    optimizer.zero_grad()
    loss = accumulate_gradients(lambda x, y: loss_fn(model(x), y),
                                [(x[i:i + 32], y[i:i + 32]) for i in range(0, len(x), 32)])
    optimizer.step()
"""

__all__ = ["accumulate_gradients"]


def accumulate_gradients(loss_fn, micro_batches):
    """Run forward and backward over each ``(inputs, targets)`` micro-batch.

    ``loss_fn(inputs, targets)`` returns the mean loss of one micro-batch (a
    scalar tensor).  Gradients are *added* to ``.grad`` (zeroing is the
    caller's job, as with ``backward``).  Returns the mean loss over all the
    samples, as a Python float.  Each micro-batch's graph is freed by its own
    backward, so only one lives at a time."""
    micro_batches = list(micro_batches)
    sizes = [len(inputs) for inputs, _ in micro_batches]
    total = sum(sizes)
    if total == 0:
        raise ValueError("accumulate_gradients() needs at least one sample, got no micro-batch "
                         "or only empty ones")
    mean_loss = 0.0
    for (inputs, targets), size in zip(micro_batches, sizes):
        if size == 0:
            continue                            # its mean loss is NaN, and its share is zero
        loss = loss_fn(inputs, targets) * (size / total)
        loss.backward()
        mean_loss += loss.item()
    return mean_loss
