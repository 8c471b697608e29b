"""Writes real PyTorch profiler traces of a small training loop on the CPU
(Debian's python3-torch is a CPU build) into tests/doctor/fixtures/:
cpu_train.json (export_chrome_trace, 3 profiled steps with a schedule, a
DataLoader, .item() every step, memory events) and the same gzipped, as
tensorboard_trace_handler(use_gzip=True) writes them. Run:
/usr/bin/python3 tests/doctor/torch_cpu_trace.py"""
import gzip
import os
import shutil
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
torch.manual_seed(0)
torch.set_num_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
data = torch.utils.data.TensorDataset(torch.randn(256, 64), torch.randint(0, 10, (256,)))
loader = torch.utils.data.DataLoader(data, batch_size=32)
path = os.path.join(out, "cpu_train.json")

with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3),
             profile_memory=True, record_shapes=False,
             on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
    for i, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss.item()
        prof.step()
        if i == 5:
            break
with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
    shutil.copyfileobj(f, g)
print("wrote", path, os.path.getsize(path), "bytes, torch", torch.__version__, file=sys.stderr)
