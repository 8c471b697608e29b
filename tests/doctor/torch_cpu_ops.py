"""Writes gpulab's own CPU traces of a small training step into
tests/doctor/ours/ (gzipped, level 9 as tensorboard_trace_handler(use_gzip=True)
writes them), so the doctor's naming of host operators is checked on real
torch.profiler output (Debian's python3-torch 1.13 is a CPU build without
Kineto: the legacy array of events, no categories):

  cpu-step-no-schedule.json.gz   4 steps profiled from the first, no schedule
  cpu-step-schedule.json.gz      schedule(wait=1, warmup=1, active=3)
  cpu-slow-loader-item.json.gz   a Dataset that sleeps 1 ms an item (16 ms a
                                 batch) and loss.item() every step, with the
                                 schedule: the data loader's __next__ is most
                                 of each step

Run: /usr/bin/python3 tests/doctor/torch_cpu_ops.py (about 2 s)."""
import gzip
import json
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ours")


class SlowItems(torch.utils.data.Dataset):
    """Each item costs 1 ms of host time, as a loader decoding files would."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(0.001)
        return self.x[i], self.y[i]


def run(name, sched, slow, steps):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(512, 64), torch.randint(0, 10, (512,))
    data = SlowItems(x, y) if slow else torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(data, batch_size=16)
    path = os.path.join(OUT, name)
    tmp = path + ".tmp.json"
    with profile(activities=[ProfilerActivity.CPU], schedule=sched,
                 on_trace_ready=lambda p: p.export_chrome_trace(tmp)) as prof:
        for i, (xb, yb) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if slow:
                loss.item()
            prof.step()
            if i + 1 == steps:
                break
    if not os.path.exists(tmp):  # without a schedule the trace is written as the profiler stops
        prof.export_chrome_trace(tmp)
    with open(tmp, "rb") as f:
        raw = f.read()
    os.remove(tmp)
    json.loads(raw)  # whole and valid
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as g:
        g.write(raw)
    print("wrote", path, len(raw), "bytes JSON,", os.path.getsize(path), "gzipped", file=sys.stderr)


os.makedirs(OUT, exist_ok=True)
run("cpu-step-no-schedule.json.gz", None, False, 4)
run("cpu-step-schedule.json.gz", schedule(wait=1, warmup=1, active=3), False, 5)
run("cpu-slow-loader-item.json.gz", schedule(wait=1, warmup=1, active=3), True, 5)
print("torch", torch.__version__, file=sys.stderr)
