"""Pairs gpulab's real runs with PyTorch's (bench/torch_peer.py) and with the
simulator's built-in profile, from a folder that tools/gpu_session.sh fills:

  DIR/runs/NAME.json   gpulab run NAME --backend cuda --json
  DIR/sim/NAME.json    gpulab run NAME --backend simulated --profile P --json
  DIR/torch.json       python3 bench/torch_peer.py

Prints two tables and writes DIR/compare.json:
  1. gpulab / PyTorch for each figure that has a counterpart (goal: within
     +-10 %; a row outside says so, with what is known to differ);
  2. simulated / real for every headline figure (goal: within +-25 %).
Missing files or keys are reported as rows that say so, never skipped
silently. Usage: gpu_compare.py DIR [PROFILE]"""
import json
import os
import sys

# (experiment, gpulab metric, path in torch.json, unit, what differs by design)
PAIRS = [
    ("transfer", "h2d_pinned_gbps", "h2d_pinned_gbps", "GB/s", ""),
    ("transfer", "h2d_pageable_gbps", "h2d_pageable_gbps", "GB/s", ""),
    ("transfer", "d2h_pinned_gbps", "d2h_pinned_gbps", "GB/s", ""),
    ("transfer", "d2h_pageable_gbps", "d2h_pageable_gbps", "GB/s", ""),
    ("timing", "tflops", "timing.tflops", "TFLOPS", ""),
    ("timing", "events_ms", "timing.events_ms", "ms", ""),
    ("timing", "launch_us", "timing.enqueue_us", "us",
     "host enqueue per matmul: PyTorch adds its dispatcher and allocator on top of cublasSgemm"),
    ("precision", "fp32_tflops", "precision.fp32", "TFLOPS", ""),
    ("precision", "tf32_tflops", "precision.tf32", "TFLOPS", ""),
    ("precision", "bf16_tflops", "precision.bf16", "TFLOPS", "gpulab writes an fp32 result, PyTorch a bf16 one"),
    ("precision", "fp16_tflops", "precision.fp16", "TFLOPS", "gpulab writes an fp32 result, PyTorch an fp16 one"),
    ("graphs", "eager_per_kernel_us", "graphs.eager_per_op_us", "us",
     "eager: PyTorch's per-op host cost is several us above a raw launch"),
    ("graphs", "graph_per_kernel_us", "graphs.graph_per_op_us", "us", ""),
    ("graphs", "graph_speedup", "graphs.graph_speedup", "x", "follows from the two rows above"),
    ("allocator", "peak_allocated_bytes", "allocator.peak_allocated_bytes", "B", ""),
    ("allocator", "peak_reserved_bytes", "allocator.peak_reserved_bytes", "B", ""),
    ("allocator", "empty_cache_released_bytes", "allocator.empty_cache_released_bytes", "B", ""),
    ("allocator", "cache_alloc_free_us", "allocator.cache_alloc_free_us", "us",
     "PyTorch's allocate+free includes making a tensor object"),
    ("streams", "one_stream_ms", "streams.one_stream_ms", "ms", ""),
    ("streams", "total_ms", "streams.streams_ms", "ms", ""),
    ("streams", "speedup", "streams.speedup", "x", ""),
    ("train_step", "cost_per_read_us", "sync.item_us", "us",
     "gpulab: the extra host time per step of a sync read; PyTorch: one .item() after a small kernel"),
]

# Headline figures of each experiment, simulated against real.
HEADLINES = {
    "transfer": ["h2d_pinned_gbps", "h2d_pageable_gbps", "d2h_pinned_gbps", "d2h_pageable_gbps",
                 "small_copy_gbps", "per_copy_overhead_us"],
    "timing": ["tflops", "events_ms", "launch_us", "cold_ms"],
    "precision": ["fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops"],
    "graphs": ["eager_per_kernel_us", "graph_per_kernel_us", "graph_speedup", "instantiate_us"],
    "allocator": ["cuda_malloc_us", "cuda_free_us", "cache_alloc_free_us", "peak_reserved_bytes"],
    "streams": ["one_stream_ms", "total_ms", "speedup"],
    "crossover": ["crossover_n", "gpu_overhead_us", "gpu_kernel_gflops"],
    "train_step": ["every_step_ms", "every_n_ms", "cost_per_read_us"],
    "profile": ["step_ms", "gpu_idle_pct"],
    "memory": ["peak_allocated_bytes", "peak_reserved_bytes"],
    "placement": ["copy_ms", "forward_ms"],
}


def load(path):
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, f"{os.path.basename(path)}: {e.__class__.__name__}"


def dig(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj if isinstance(obj, (int, float)) and not isinstance(obj, bool) else None


def metric(env, name):
    return dig(env, "metrics." + name) if isinstance(env, dict) else None


def device_name(env):
    dev = env.get("device")
    return dev.get("name") if isinstance(dev, dict) else dev


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    profile = sys.argv[2] if len(sys.argv) > 2 else "h100-sxm"
    peer, peer_err = load(os.path.join(root, "torch.json"))
    if peer and "error" in peer:
        peer_err, peer = f"torch peer: {peer['error']}", None
    real, sim = {}, {}
    for name in sorted(set(e for e, *_ in PAIRS) | set(HEADLINES)):
        real[name] = load(os.path.join(root, "runs", name + ".json"))
        sim[name] = load(os.path.join(root, "sim", name + ".json"))
    report = {"profile": profile, "torch": [], "simulator": [],
              "device": next((device_name(e[0]) for e in real.values() if e[0]), None)}

    print(f"gpulab / PyTorch on {report['device'] or '(no real run)'}"
          f" (torch {peer.get('torch') if peer else '-'}, CUDA {peer.get('cuda') if peer else '-'}); goal within +-10 %")
    print(f"  {'figure':40s} {'gpulab':>12s} {'PyTorch':>12s} {'ratio':>7s}  note")
    for exp, key, path, unit, why in PAIRS:
        env, err = real[exp]
        ours, theirs = metric(env, key), dig(peer, path) if peer else None
        r = ratio(ours, theirs)
        if r is None:
            note = err or peer_err or ("no such figure in the run" if ours is None else "no PyTorch figure")
        else:
            note = "" if 0.9 <= r <= 1.1 else "OUTSIDE +-10 %" + (f": {why}" if why else ": to explain")
        report["torch"].append({"experiment": exp, "metric": key, "unit": unit, "gpulab": ours,
                                "torch": theirs, "ratio": r, "note": note})
        fmt = lambda v: "-" if v is None else f"{v:12.4g}"
        print(f"  {exp + '.' + key + ' (' + unit + ')':40s} {fmt(ours):>12s} {fmt(theirs):>12s} "
              f"{'-' if r is None else f'{r:6.2f}x':>7s}  {note}")

    print(f"\nsimulated ({profile}) / real; goal within +-25 %")
    for exp, keys in HEADLINES.items():
        (env, err), (senv, serr) = real[exp], sim[exp]
        for key in keys:
            ours, model = metric(env, key), metric(senv, key)
            r = ratio(model, ours)
            note = (err or serr or "missing") if r is None else ("" if 0.75 <= r <= 1.33 else "OUTSIDE +-25 % (0.75-1.33, as the fidelity suite)")
            report["simulator"].append({"experiment": exp, "metric": key, "real": ours, "simulated": model,
                                        "ratio": r, "note": note})
            print(f"  {exp + '.' + key:40s} {'-' if r is None else f'{r:6.2f}x':>7s}  {note}")
    with open(os.path.join(root, "compare.json"), "w") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
