#!/usr/bin/env python3
"""Real torch.profiler traces of a small training step for the doctor's
corpus, made by the GPU lease (tools/gpu_session.sh, step traces) with
the PyTorch and the GPU it finds (the CPU where there is none):

  OUT/train-cold.json.gz  the first 3 steps of a fresh process, profiled
                          from before the model reaches the device, so
                          CUDA's context, cuBLAS's handle and the first
                          kernels' loading fall inside them: what a learner
                          who profiles without warming up sees;
  OUT/train-warm.json.gz  the same loop profiled as the lessons advise
                          (schedule: wait 1, warm-up 2, active 3).

The step: a DataLoader batch copied to the device from pageable memory, a
3-layer MLP, cross-entropy, AdamW, and loss.item() every step (the sync
the lessons discuss); on the CPU the MLP is 8 times narrower and its batch
8 times smaller, so that the traces take seconds there too. Chrome traces in ProfilerStep steps as
export_chrome_trace writes them, gzipped as tensorboard_trace_handler
(use_gzip=True) does; OUT/traces.json says what ran.

    python3 tools/lease_traces.py OUT
"""
import gzip
import json
import os
import shutil
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule

SIZES = {"cuda": (512, 1024, 4096), "cpu": (64, 128, 512)}  # batch, features, hidden
CLASSES = 10


def export(prof, path):
    """The trace as path (gzipped); its raw and gzipped sizes."""
    raw = path[:-3]
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(path, "wb") as g:
        shutil.copyfileobj(f, g)
    size = os.path.getsize(raw)
    os.remove(raw)
    return {"file": os.path.basename(path), "bytes": size, "gzip_bytes": os.path.getsize(path)}


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    cuda = torch.cuda.is_available()
    device = torch.device("cuda" if cuda else "cpu")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    batch, features, hidden = SIZES[device.type]
    data = torch.utils.data.TensorDataset(torch.randn(batch * 8, features), torch.randint(0, CLASSES, (batch * 8,)))
    loader = torch.utils.data.DataLoader(data, batch_size=batch)

    def model_and_optimizer():
        model = torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                                    torch.nn.ReLU(), torch.nn.Linear(hidden, CLASSES)).to(device)
        return model, torch.optim.AdamW(model.parameters(), lr=1e-3)

    def steps(model, opt, prof, n):
        for i, (x, y) in enumerate(loader):
            if i == n:
                break
            x, y = x.to(device), y.to(device)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss.item()
            prof.step()

    # A schedule names the steps (ProfilerStep#N) in both; the cold one
    # records from its first step on, which holds the model's creation.
    cold, warm = {}, {}
    t0 = time.perf_counter()
    with profile(activities=activities, profile_memory=True, record_shapes=True,
                 schedule=schedule(wait=0, warmup=0, active=3, repeat=1),
                 on_trace_ready=lambda p: cold.update(export(p, os.path.join(out, "train-cold.json.gz")))) as prof:
        model, opt = model_and_optimizer()  # the device's first use is inside the profile
        steps(model, opt, prof, 3)
    cold_s = time.perf_counter() - t0
    with profile(activities=activities, profile_memory=True, record_shapes=True,
                 schedule=schedule(wait=1, warmup=2, active=3, repeat=1),
                 on_trace_ready=lambda p: warm.update(export(p, os.path.join(out, "train-warm.json.gz")))) as prof:
        steps(model, opt, prof, 6)
    made = [dict(cold, steps=3, what="cold: profiled from the first use"),
            dict(warm, steps=3, what="warm: schedule(wait=1, warmup=2, active=3)")]
    about = {"device": torch.cuda.get_device_name(0) if cuda else "cpu", "torch": torch.__version__,
             "cuda_runtime": torch.version.cuda, "cold_s": round(cold_s, 3),
             "model": f"MLP {features}-{hidden}-{hidden}-{CLASSES}, batch {batch}, AdamW, loss.item() every step",
             "traces": made}
    with open(os.path.join(out, "traces.json"), "w") as f:
        json.dump(about, f, indent=1)
    for t in made:
        print(f"traces: {t['file']}: {t['what']}, {t['bytes'] / 1024:.0f} KiB ({t['gzip_bytes'] / 1024:.0f} KiB gzipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
