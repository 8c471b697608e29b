"""The peer for `make bench` on a GPU: the same measurements gpulab takes,
taken with PyTorch on the same machine in the same run (what a learner would
otherwise use). Prints one JSON object. Method: warm-up, CUDA events around
each sample, median of samples; random normal data; 1e9 bytes per GB."""
import json
import statistics
import sys

try:
    import torch
except ImportError:
    print(json.dumps({"error": "PyTorch is not installed"}))
    sys.exit(0)


def events_ms(fn, samples=7, warmup=2):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end))
    return statistics.median(out)


def copy_gbps(nbytes, pinned, direction):
    n = nbytes // 4
    host = torch.randn(n, pin_memory=pinned)
    dev = torch.empty(n, device="cuda")
    if direction == "h2d":
        ms = events_ms(lambda: dev.copy_(host, non_blocking=pinned))
    else:
        ms = events_ms(lambda: host.copy_(dev, non_blocking=pinned))
    return nbytes / (ms * 1e6)


def launch_us(kernels=1000):
    x = torch.zeros(1, device="cuda")
    ms = events_ms(lambda: [x.add_(1) for _ in range(kernels)], samples=5)
    return ms * 1e3 / kernels


def sgemm_tflops(n, repeats=10):
    torch.backends.cuda.matmul.allow_tf32 = False  # plain fp32, as gpulab's sgemm
    a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
    ms = events_ms(lambda: [a @ b for _ in range(repeats)])
    return 2.0 * n ** 3 * repeats / (ms * 1e9)


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 256 * 1024 * 1024
    result = {
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        "h2d_pinned_gbps": copy_gbps(size, True, "h2d"),
        "h2d_pageable_gbps": copy_gbps(size, False, "h2d"),
        "d2h_pinned_gbps": copy_gbps(size, True, "d2h"),
        "d2h_pageable_gbps": copy_gbps(size, False, "d2h"),
        "best_h2d_gbps": max(copy_gbps(s, True, "h2d") for s in (size, 2 * size)),
        "launch_us": launch_us(),
        "sgemm_tflops": {str(n): sgemm_tflops(n) for n in (256, 1024, 2048, 4096)},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
