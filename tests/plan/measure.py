# Measures one training configuration with real PyTorch (CPU): the bytes of
# the parameters, gradients and optimizer state from the tensors themselves,
# the activations as the distinct storages autograd saves for backward
# (torch.autograd.graph.saved_tensors_hooks), grouped by the source the
# model code names, and the peak of allocated bytes over one whole training
# step (its micro-steps, the optimizer step and zero_grad) from the
# profiler's memory records. The second step is measured: the first one
# creates the optimizer state.
import torch
from torch.profiler import ProfilerActivity, profile

import models


def storage(t):
    s = t.storage()
    return s.data_ptr(), s.nbytes()


def live_bytes(tensors):
    seen = {}
    for t in tensors:
        if t is not None and t.numel() > 0:
            ptr, n = storage(t)
            seen[ptr] = n
    return sum(seen.values()), set(seen)


VIEWS = {"TBackward0", "TransposeBackward0", "ViewBackward0", "PermuteBackward0", "UnsafeViewBackward0",
         "ExpandBackward0", "AliasBackward0"}


def autocast_copy(t):
    """A half copy autocast made of a parameter (a cast whose input is a leaf), or a view of one."""
    fn = t.grad_fn
    while fn is not None and type(fn).__name__ in VIEWS:
        fn = fn.next_functions[0][0]
    if fn is None or type(fn).__name__ != "ToCopyBackward0":
        return False
    nxt = fn.next_functions[0][0] if fn.next_functions else None
    return nxt is not None and type(nxt).__name__ == "AccumulateGrad"


def optimizer(c, params):
    if c["optimizer"] == "adamw":
        return torch.optim.AdamW(params, lr=1e-4, foreach=False)
    return torch.optim.SGD(params, lr=1e-2, momentum=0.9, foreach=False)


def measure(c):
    torch.set_num_threads(1)
    model = models.build(c)
    if c["precision"] == "bf16":
        model.to(torch.bfloat16)
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = optimizer(c, params)
    data = models.batch(c)
    if c["arch"] == "cnn" and c["precision"] == "bf16":
        data = (data[0].to(torch.bfloat16), data[1])
    amp = c["precision"] == "amp-bf16"
    census = {"on": False, "seen": {}, "before": set()}

    def pack(t):
        if census["on"]:
            ptr, n = storage(t)
            if ptr not in census["before"] and ptr not in census["seen"] and n > 0:
                src = "autocast_copies" if autocast_copy(t) else models.SRC.name
                census["seen"][ptr] = (n, src)
        return t

    def step(count):
        for micro in range(c["accum"]):
            census["on"] = count and micro == 0
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
                    loss = model(*data) / c["accum"]
            census["on"] = False
            loss.backward()
            del loss
        grads = live_bytes(p.grad for p in params)[0]
        opt.step()
        opt.zero_grad(set_to_none=True)
        return grads

    step(False)
    state = [t for s in opt.state.values() for t in s.values() if torch.is_tensor(t)]
    persistent = list(model.parameters()) + list(model.buffers()) + list(data) + state
    baseline, census["before"] = live_bytes(persistent)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        grads = step(True)
    run, peak = 0, 0
    for e in sorted((e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
                    key=lambda e: e.start_us()):
        run += e.nbytes()
        peak = max(peak, run)
    sources = {}
    for n, src in census["seen"].values():
        sources[src] = sources.get(src, 0) + n
    return {
        "weights": live_bytes(model.parameters())[0],
        "gradients": grads,
        "optimizer_state": live_bytes(state)[0],
        "activations": sum(sources.values()),
        "sources": sources,
        "peak": baseline + peak,
        "baseline": baseline,
    }
