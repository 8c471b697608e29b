"""The peer on a GPU: the measurements gpulab takes, taken with PyTorch on
the same machine in the same run (what a learner would otherwise use).
Prints one JSON object. Method: warm-up, CUDA events around each sample (or
the host clock after a synchronize, where the figure is a host cost), median
of samples; random normal data; 1e9 bytes per GB. Each figure mirrors one
experiment's defaults (bench/gpu_compare.py pairs them):

  transfer   256 MiB copies, pinned and pageable, both directions
  timing     10 fp32 matmuls at N=2048: events (GPU time), host enqueue
  precision  FP32 / TF32 / BF16 / FP16 matmul TFLOPS at N=4096
  graphs     1000 one-kernel ops on 4096 floats, eager and as a CUDA graph
  allocator  8 layers of 32 MiB weights + 24 MiB activations, 3 steps:
             peak allocated/reserved, what empty_cache() gives back, a
             cached 16 MiB allocate+free
  streams    16 chunks of 8 MiB pinned: H2D, a 300 us kernel, D2H, on one
             stream and on 4
  train_step one .item() (a sync read) after a small kernel; synchronize()
             with the GPU idle

Usage: torch_peer.py [BYTES] [--quick]   (BYTES: the largest copy)."""
import json
import math
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print(json.dumps({"error": "PyTorch is not installed"}))
    sys.exit(0)

SAMPLES = 7


def events_ms(fn, samples=SAMPLES, warmup=2):
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


def host_us(fn, samples=SAMPLES, warmup=2, sync_after=True):
    """Host clock around fn, the GPU idle before each sample."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(samples):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if sync_after:
            torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


# ---- transfer --------------------------------------------------------------

def copy_gbps(nbytes, pinned, direction):
    n = nbytes // 4
    host = torch.randn(n, pin_memory=pinned)
    dev = torch.empty(n, device="cuda")
    if direction == "h2d":
        ms = events_ms(lambda: dev.copy_(host, non_blocking=pinned))
    else:
        ms = events_ms(lambda: host.copy_(dev, non_blocking=pinned))
    return nbytes / (ms * 1e6)


# ---- timing and precision --------------------------------------------------

def launch_us(kernels=1000):
    x = torch.zeros(1, device="cuda")
    ms = events_ms(lambda: [x.add_(1) for _ in range(kernels)], samples=5)
    return ms * 1e3 / kernels


def operands(n, dtype=torch.float32):
    return torch.randn(n, n, device="cuda").to(dtype), torch.randn(n, n, device="cuda").to(dtype)


def matmul_tflops(n, dtype=torch.float32, tf32=False, repeats=10):
    """(TFLOPS by events, events ms of the batch of `repeats`)."""
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a, b = operands(n, dtype)
    ms = events_ms(lambda: [a @ b for _ in range(repeats)])
    torch.backends.cuda.matmul.allow_tf32 = False
    return 2.0 * n ** 3 * repeats / (ms * 1e9), ms


def enqueue_us(n, repeats=10):
    """Host time per fp32 matmul handed to the GPU, no synchronize."""
    a, b = operands(n)
    return host_us(lambda: [a @ b for _ in range(repeats)], sync_after=False) / repeats


def precision_repeats(n):
    return max(1, min(256, math.ceil(4e12 / (2.0 * n ** 3))))


def precision(n=4096):
    out = {}
    for name, dtype, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True),
                              ("bf16", torch.bfloat16, False), ("fp16", torch.float16, False)):
        try:
            out[name] = matmul_tflops(n, dtype, tf32, precision_repeats(n))[0]
        except RuntimeError as e:  # a GPU without the format
            out[name] = None
            out[name + "_error"] = str(e)[:200]
    return out


# ---- graphs ----------------------------------------------------------------

def graphs(kernels=1000, elements=4096):
    """x <- b_k + a*x, one kernel per op: eager, then captured and replayed.
    Per op: host clock from the first launch to the synchronize's return."""
    x = torch.randn(elements, device="cuda")
    bs = [torch.randn(elements, device="cuda") for _ in range(8)]

    def chain():
        for k in range(kernels):
            torch.add(bs[k % 8], x, alpha=0.999, out=x)

    eager = host_us(chain)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        chain()  # warm-up on a side stream, as capture wants
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.cuda.graph(g):
        chain()
    capture_us = (time.perf_counter() - t0) * 1e6
    replay = host_us(g.replay)
    return {"eager_per_op_us": eager / kernels, "graph_per_op_us": replay / kernels,
            "graph_speedup": eager / replay if replay > 0 else None, "capture_us": capture_us}


# ---- allocator -------------------------------------------------------------

def allocator(layers=8, weight_mib=32, act_mib=24, steps=3, block_mib=16):
    mib = 1 << 20
    floats = lambda m: m * mib // 4
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    weights = [torch.empty(floats(weight_mib), device="cuda") for _ in range(layers)]
    grads = [None] * layers
    for step in range(steps):
        acts = [torch.empty(floats(act_mib), device="cuda") for _ in range(layers)]
        for l in reversed(range(layers)):  # backward: a gradient appears, an activation goes
            if grads[l] is None:
                grads[l] = torch.empty(floats(weight_mib), device="cuda")
            acts[l] = None
    torch.cuda.synchronize()
    out = {
        "peak_allocated_bytes": torch.cuda.max_memory_allocated() - base,
        "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
        "before_empty_reserved_bytes": torch.cuda.memory_reserved(),
    }
    torch.cuda.empty_cache()
    out["after_empty_reserved_bytes"] = torch.cuda.memory_reserved()
    out["empty_cache_released_bytes"] = out["before_empty_reserved_bytes"] - out["after_empty_reserved_bytes"]
    del weights, grads

    def pairs(n=1000):
        for _ in range(n):
            t = torch.empty(floats(block_mib), device="cuda")
            del t

    out["cache_alloc_free_us"] = host_us(pairs, sync_after=False) / 1000
    return out


# ---- streams ---------------------------------------------------------------

def sleep_cycles_per_us():
    cycles = 10_000_000
    ms = events_ms(lambda: torch.cuda._sleep(cycles), samples=3, warmup=1)
    return cycles / (ms * 1e3)


def streams(chunks=16, chunk_mib=8, kernel_us=300, n_streams=4):
    per_us = sleep_cycles_per_us()
    n = chunk_mib * (1 << 20) // 4
    host_in = [torch.randn(n, pin_memory=True) for _ in range(chunks)]
    host_out = [torch.empty(n, pin_memory=True) for _ in range(chunks)]
    dev = [torch.empty(n, device="cuda") for _ in range(chunks)]
    pool = [torch.cuda.Stream() for _ in range(n_streams)]

    def run(k):
        for c in range(chunks):
            with torch.cuda.stream(pool[c % k]):
                dev[c].copy_(host_in[c], non_blocking=True)
                torch.cuda._sleep(int(kernel_us * per_us))
                dev[c].mul_(0.5)
                host_out[c].copy_(dev[c], non_blocking=True)
        for s in pool[:k]:
            torch.cuda.current_stream().wait_stream(s)

    one = host_us(lambda: run(1), samples=5, warmup=1) / 1e3
    many = host_us(lambda: run(n_streams), samples=5, warmup=1) / 1e3
    return {"one_stream_ms": one, "streams_ms": many, "speedup": one / many if many > 0 else None,
            "sleep_cycles_per_us": per_us}


# ---- synchronize and a sync read -------------------------------------------

def sync_costs():
    x = torch.randn(256, 10, device="cuda")
    return {"synchronize_idle_us": host_us(torch.cuda.synchronize, samples=51, sync_after=False),
            "item_us": host_us(lambda: x.square().mean().item(), samples=51, sync_after=False)}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    size = int(args[0]) if args else 256 * 1024 * 1024
    torch.manual_seed(0)
    result = {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "method": "warm-up 2, median of 7 samples; CUDA events for GPU time, host clock after a synchronize "
                  "for host costs; 1e9 bytes per GB",
        "h2d_pinned_gbps": copy_gbps(size, True, "h2d"),
        "h2d_pageable_gbps": copy_gbps(size, False, "h2d"),
        "d2h_pinned_gbps": copy_gbps(size, True, "d2h"),
        "d2h_pageable_gbps": copy_gbps(size, False, "d2h"),
        "launch_us": launch_us(),
    }
    result["best_h2d_gbps"] = max(result["h2d_pinned_gbps"], copy_gbps(2 * size, True, "h2d"))
    sgemm = {n: matmul_tflops(n) for n in (256, 1024, 2048, 4096)}
    result["sgemm_tflops"] = {str(n): v[0] for n, v in sgemm.items()}
    result["timing"] = {"tflops": sgemm[2048][0], "events_ms": sgemm[2048][1], "enqueue_us": enqueue_us(2048)}
    if not quick:
        for name, fn in (("precision", precision), ("graphs", graphs), ("allocator", allocator),
                         ("streams", streams), ("sync", sync_costs)):
            try:
                result[name] = fn()
            except Exception as e:  # one part failing must not hide the others
                result[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
