"""Storage and aliasing, the way PyTorch's own tests check views: data_ptr(),
untyped_storage(), storage_offset(), stride(), is_contiguous(), _is_view(), _base,
nbytes / itemsize / element_size() / nelement(), is_set_to, and the copies that
do not share (clone, contiguous of a non-contiguous tensor, reshape that copies).
Addresses are never printed, only whether they agree."""
import numpy as np
import torch

base = torch.tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
ptr = base.data_ptr()
storage = base.untyped_storage()
print(type(storage).__name__, storage.nbytes(), storage.size(), len(storage), storage.element_size())
print(storage.data_ptr() == ptr, base.storage_offset(), base.stride(), base.is_contiguous())
print(base.nbytes, base.itemsize, base.element_size(), base.nelement(), base.numel())
print(base._is_view(), base._base is None)


def describe(name, v):
    """How view ``v`` sits in ``base``'s storage."""
    shares = v.untyped_storage().data_ptr() == ptr
    at = v.data_ptr() == ptr + v.storage_offset() * v.itemsize if v.numel() else v.data_ptr() == 0
    print(f"{name:12s} same data_ptr={v.data_ptr() == ptr} same storage={shares} data_ptr at offset={at} "
          f"offset={v.storage_offset()} stride={v.stride()} shape={list(v.shape)} "
          f"contiguous={v.is_contiguous()} view={v._is_view()} base={v._base is base} "
          f"nbytes={v.nbytes} storage nbytes={v.untyped_storage().nbytes()}")


views = {
    "view": base.view(6, 4),
    "view -1": base.view(-1),
    "reshape": base.reshape(2, 12),
    "transpose": base.transpose(0, 1),
    "t": base.t(),
    "T": base.T,
    "permute": base.unsqueeze(0).permute(2, 0, 1),
    "narrow": base.narrow(1, 2, 3),
    "select": base.select(1, 4),
    "select -1": base.select(0, -1),
    "row": base[2],
    "elem": base[1, 3],
    "slice": base[1:3],
    "step": base[:, 1::2],
    "both": base[1:, 2:5],
    "neg idx": base[-1, -2:],
    "ellipsis": base[...],
    "None": base[None, 1],
    "expand": base[0:1].expand(3, 6),
    "unsqueeze": base.unsqueeze(1),
    "squeeze": base[0:1].squeeze(0),
    "flatten": base.flatten(),
    "unflatten": base.unflatten(1, (2, 3)),
    "movedim": base.unflatten(1, (2, 3)).movedim(0, -1),
    "moveaxis": base.moveaxis(1, 0),
    "swapaxes": base.swapaxes(0, 1),
    "view_as": base.view_as(torch.zeros(3, 8)),
    "diagonal": base.diagonal(),
    "diagonal 2": base.diagonal(2),
    "diagonal -1": base.t().diagonal(-1),
}
for name, v in views.items():
    describe(name, v)

print("view of a view keeps the first base:")
nested = base[1:].t()[2]
describe("nested", nested)
print(nested._base is base, base.view(24)[5:]._base is base)

print("split / chunk / unbind:")
for i, piece in enumerate(base.split(2, dim=1) + base.chunk(2) + base.unbind(1)[::3]):
    describe(f"piece {i}", piece)

print("non-contiguous input:")
t = base.t()
print(t.is_contiguous(), t.contiguous().data_ptr() == ptr, t.contiguous().is_contiguous())
print(base.contiguous() is base, base.contiguous().data_ptr() == ptr)
copy = t.reshape(24)            # cannot be a view: reshape copies
print(copy.data_ptr() == ptr, copy._is_view(), copy.storage_offset(), copy.untyped_storage().nbytes())
kept = base[:, :4].reshape(4, 2, 2)   # can be a view of a non-contiguous tensor
print(kept.data_ptr() == ptr, kept._is_view(), kept._base is base, kept.stride())
flat = t.flatten()
print(flat.data_ptr() == ptr, flat._is_view(), flat.is_contiguous())
try:
    t.view(24)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    base[:, 1:3].view(8)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    base.view(5, 5)
except RuntimeError as e:
    print("RuntimeError:", e)
print(base[:, 1::2].view(4, 3, 1).stride(), t.view(6, 2, 2).stride())

print("detach, .data, clone:")
d, data, c = base.detach(), base.data, base.clone()
print(d.data_ptr() == ptr, d._is_view(), d._base is None, d.untyped_storage().data_ptr() == ptr)
print(data.data_ptr() == ptr, data._is_view(), data.storage_offset())
print(c.data_ptr() == ptr, c.untyped_storage().data_ptr() == ptr, c._is_view(), torch.equal(c, base))
sliced_clone = base[1:, 2:].clone()
print(sliced_clone.storage_offset(), sliced_clone.stride(), sliced_clone.is_contiguous(),
      sliced_clone.untyped_storage().nbytes())
dv = base[1].detach()
print(dv.storage_offset(), dv.data_ptr() == base[1].data_ptr(), dv._is_view())

print("writes show through views, not through copies:")
row = base[1]
row[0] = 100.0
c[0, 0] = -1.0
print(base[1, 0].item(), base[0, 0].item(), views["t"][0, 1].item(), views["flatten"][6].item())
print(base.data_ptr() == ptr, row.data_ptr() == ptr + 6 * 4)

print("is_set_to:")
print(base.is_set_to(base), base.is_set_to(base.view(4, 6)), base.is_set_to(base[:]),
      base.is_set_to(base.detach()), base.is_set_to(base.view(24)), base.is_set_to(c),
      base[1].is_set_to(row), base.t().is_set_to(base))

print("dtypes:")
for dt in (torch.float64, torch.int64, torch.int32, torch.bool, torch.float16):
    z = torch.zeros(3, 5, dtype=dt)
    sub = z[1:, 2:]
    print(dt, z.itemsize, z.element_size(), z.nbytes, sub.nbytes, z.untyped_storage().nbytes(),
          sub.data_ptr() == z.data_ptr() + (5 + 2) * z.itemsize)

print("scalars and empties:")
s = torch.tensor(3.5)
print(s.nbytes, s.nelement(), s.stride(), s.storage_offset(), s.untyped_storage().nbytes())
e = torch.zeros(0, 3)
print(e.data_ptr(), e.nbytes, e.nelement(), e.stride(), e.untyped_storage().nbytes(),
      e.untyped_storage().data_ptr(), e.is_contiguous(), torch.zeros(2, 0, 3).stride())
empty_view = base[2:2]
print(empty_view.data_ptr(), empty_view.nbytes, empty_view.untyped_storage().data_ptr() == ptr,
      empty_view.stride(), empty_view._base is base)

print("views from a graph:")
w = torch.tensor(np.linspace(-1, 1, 6, dtype=np.float32), requires_grad=True)
h = w * 2
hv = h.view(2, 3)
print(hv._base is h, hv.data_ptr() == h.data_ptr(), hv.grad_fn.name(), h.grad_fn.name())
m = hv.movedim(1, 0)
u = hv.unflatten(1, (3, 1))
sel = hv.select(1, 2)
print(m.grad_fn.name(), u.grad_fn.name(), sel.grad_fn.name(), m._base is h, sel.storage_offset())
(m.sum() * 1 + (u * 3).sum() + sel.sum()).backward()
print(w.grad)

print("errors:")
checks = [
    lambda: base.select(0, 4),
    lambda: base.select(0, -5),
    lambda: base.select(2, 0),
    lambda: torch.tensor(1.0).select(0, 0),
    lambda: base.unflatten(1, (4, 2)),
    lambda: base.unflatten(1, ()),
    lambda: base.movedim((0, 1), (1,)),
    lambda: base.movedim((0, 0), (1, 0)),
    lambda: base.movedim((0, 1), (1, 1)),
    lambda: base.movedim(0, 3),
]
for check in checks:
    try:
        check()
        print("no error")
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__ + ":", e)
