"""The CPU sgemm peer of `make bench`: numpy's float32 matmul on this
machine, timed the way lab/experiments/crossover.c times gpulab's (random normal
inputs, a warm-up that doubles a batch until it lasts 2 ms, then up to 7
samples of one batch each, stopping once 0.6 s were spent on the size, as
crossover does; median). Prints JSON {"N": ms, ..., "blas": name}.
Usage: /usr/bin/python3 bench/numpy_peer.py 256 512 1024 (Debian's python3-numpy)"""
import json
import sys
import time

import numpy as np


def blas_name():
    """The BLAS library numpy loaded, from this process's memory map."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.split()[-1]}
        return ", ".join(sorted(libs)) or "unknown"
    except OSError:
        return "unknown"


def time_n(n, samples=7):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    reps, spent = 1, 0.0
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            a @ b
        ms = (time.perf_counter() - t0) * 1e3
        spent += ms
        if ms >= 2.0 or reps >= 1 << 20:
            break
        reps *= 2
    xs = []
    while len(xs) < samples and (not xs or spent < 600.0):
        t0 = time.perf_counter()
        for _ in range(reps):
            a @ b
        ms = (time.perf_counter() - t0) * 1e3
        spent += ms
        xs.append(ms / reps)
    xs.sort()
    return xs[len(xs) // 2]


out = {str(n): time_n(int(n)) for n in sys.argv[1:]}
out["blas"] = blas_name()
print(json.dumps(out))
