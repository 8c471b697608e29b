"""Pairs gpulab's real runs with PyTorch's, taken by the measurement kit
(kit/measure.py, whose envelopes carry the same metric keys), and with
the simulator's built-in profile, from a folder tools/gpu_session.sh fills:

  DIR/runs/NAME.json   gpulab run NAME --backend cuda --json
  DIR/sim/NAME.json    gpulab run NAME --backend simulated --profile P --json
  DIR/kit.json         python3 kit/measure.py --out DIR/kit.json

DIR/runs may hold gpulab's recordings instead (web/recorded/NAME.json:
the same envelopes, backend "recorded"), so the comparison can be made
again offline from a lease's recordings. The simulations must take the
real runs' params (the GPU's view is "cuda", the simulator's default is
"pytorch"): gpu_compare.py --simulate BIN RUNS SIMDIR PROFILE makes them.

Prints two tables and writes DIR/compare.json:
  1. gpulab / PyTorch for each figure both measure (goal: within +-10 %;
     a row outside says so, with what differs by design: ours below, or
     the kit's own details.differs for that figure);
  2. simulated / real for every headline figure (goal: within +-25 %).
Missing files or keys are reported as rows that say so, never skipped
silently. Usage: gpu_compare.py DIR [PROFILE]
       gpu_compare.py --simulate BIN RUNS SIMDIR PROFILE"""
import json
import os
import subprocess
import sys

PAGEABLE = ("pageable copies go through the driver's pinned staging buffer at the host's memory speed and vary run "
            "to run: in one H100 lease gpulab read 7.09 and 8.54 GB/s host to device, 14.41 and 14.69 device to host")
# Kernels queued back to back against each op as PyTorch issues it and the cuBLASLt kernel it picks.
MATMUL = ("gpulab queues cublasGemmEx calls behind a spin kernel (no gap is timed); PyTorch issues each a @ b "
          "itself and picks its own cuBLASLt kernel and workspace")

# The kit's fixed streams run (elementwise passes that fill every SM) on the
# H100 still overlapped more than gpulab's: 3.42 ms against 5.15 for four
# streams, 9.0 against 10.1 for one. Not explained yet.
STREAMS_KIT = ("to explain: the kit's run with a kernel that fills every SM (2026-11-28, H100) still overlapped "
               "more than gpulab's; a kit before then stood in torch.cuda._sleep (one thread) for the kernel")

# (experiment, metric, unit, what differs by design)
PAIRS = [
    ("transfer", "h2d_pinned_gbps", "GB/s", ""),
    ("transfer", "h2d_pageable_gbps", "GB/s", PAGEABLE),
    ("transfer", "d2h_pinned_gbps", "GB/s", ""),
    ("transfer", "d2h_pageable_gbps", "GB/s", PAGEABLE),
    ("transfer", "per_copy_overhead_us", "us", "PyTorch's copy_ adds its dispatcher to each small copy"),
    ("timing", "tflops", "TFLOPS", ""),
    ("timing", "events_ms", "ms", ""),
    ("timing", "launch_us", "us",
     "host enqueue per matmul: PyTorch adds its dispatcher and allocator on top of cublasSgemm"),
    ("precision", "fp32_tflops", "TFLOPS", ""),
    ("precision", "tf32_tflops", "TFLOPS", MATMUL),
    ("precision", "bf16_tflops", "TFLOPS", "gpulab writes an fp32 result, PyTorch a bf16 one; " + MATMUL),
    ("precision", "fp16_tflops", "TFLOPS", "gpulab writes an fp32 result, PyTorch an fp16 one; " + MATMUL),
    ("graphs", "eager_per_kernel_us", "us", "eager: PyTorch's per-op host cost is several us above a raw launch"),
    ("graphs", "graph_per_kernel_us", "us",
     "a replayed node costs the GPU its kernel: PyTorch's torch.add kernel, gpulab's one-line kernel"),
    ("graphs", "graph_speedup", "x", "follows from the two rows above"),
    ("allocator", "peak_allocated_bytes", "B", ""),
    ("allocator", "peak_reserved_bytes", "B", ""),
    ("allocator", "empty_cache_released_bytes", "B",
     "a kit before 2026-11-28 dropped the weights and gradients before empty_cache() and released everything"),
    ("allocator", "cache_alloc_free_us", "us", "PyTorch's allocate+free includes making a tensor object (3.5 us on "
     "the H100's host; gpulab's pool 0.28 us once it stopped scanning all 2048 slots per call, 5.2 us before)"),
    ("streams", "one_stream_ms", "ms", ""),
    ("streams", "total_ms", "ms", STREAMS_KIT),
    ("streams", "speedup", "x", STREAMS_KIT),
    ("train_step", "cost_per_read_us", "us",
     "PyTorch's step is host-bound (about 550 us of Python and dispatch per step against 65 us of GPU work on the "
     "H100), so its .item() finds the GPU idle; gpulab's C host keeps the GPU queue full"),
    ("memory", "peak_reserved_bytes", "B", ""),
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


# Simulated rows outside the goal whose cause is known and not fixed in the
# profile, found on the H100 lease of 2026-11-28 (docs/gpu-session.md).
SIM_KNOWN = {
    ("timing", "launch_us"): "the built-in profiles model a raw launch (blas_us 0): this H100 spent 12.4 us per "
                             "cublasSgemm call; gpulab calibrate fits the rest into blas_us",
    ("graphs", "eager_per_kernel_us"): "one launch_us paces kernels and copies: this host launched a kernel in "
                                       "4.5 us and enqueued a copy in under 2.6; the profile keeps the copies'",
    ("graphs", "graph_speedup"): "follows from eager_per_kernel_us",
    ("graphs", "instantiate_us"): "modelled as 0.6 launches per node; the H100 took 5.5 us per node",
    ("train_step", "every_step_ms"): "gpulab's train_step kernels took the H100 71.5 us a step; the model takes "
                                     "each tiny kernel at kernel_min_us (18.5 us a step)",
    ("train_step", "every_n_ms"): "as every_step_ms",
    ("train_step", "cost_per_read_us"): "follows the model's short step: the read waits for less queued work",
}


def load(path):
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, f"{os.path.basename(path)}: {e.__class__.__name__}"


def metric(env, name):
    m = env.get("metrics") if isinstance(env, dict) else None
    v = m.get(name) if isinstance(m, dict) else None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def device_name(env):
    dev = env.get("device")
    return dev.get("name") if isinstance(dev, dict) else dev


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def kit_results(kit):
    """The kit's envelopes by experiment, and why there are none."""
    if kit is None:
        return {}, None
    results = kit.get("results") if isinstance(kit, dict) else None
    if not isinstance(results, list):
        return {}, "kit.json has no results (not a file the measurement kit wrote)"
    return {r.get("experiment"): r for r in results if isinstance(r, dict)}, None


def sim_args(env):
    """gpulab run's --PARAM=VALUE arguments for a real run's params, so the
    simulation takes what the GPU took (its view, sizes, host link)."""
    args = []
    for k, v in sorted(((env or {}).get("params") or {}).items()):
        if isinstance(v, bool):
            v = "true" if v else "false"
        if isinstance(v, (str, int, float)):
            args.append(f"--{k}={v}")
    return args


def simulate(binary, runs, out, profile):
    """Each experiment simulated on PROFILE with its real run's params
    (the built-in defaults where there is no real run); 0 when all ran."""
    os.makedirs(out, exist_ok=True)
    names = subprocess.run([binary, "experiments", "--names"], stdout=subprocess.PIPE, universal_newlines=True,
                           timeout=60, check=True).stdout.split()
    bad = 0
    for name in names:
        env, _ = load(os.path.join(runs, name + ".json"))
        with open(os.path.join(out, name + ".json"), "w") as f:
            r = subprocess.run([binary, "run", name, *sim_args(env), "--backend", "simulated", "--profile", profile,
                                "--json"], stdout=f, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        if r.returncode:
            print(f"gpu_compare: {name} not simulated: {r.stderr.strip()[:200]}", file=sys.stderr)
            bad = 1
    return bad


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--simulate":
        return simulate(*sys.argv[2:])
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    profile = sys.argv[2] if len(sys.argv) > 2 else "h100-sxm"
    kit, kit_err = load(os.path.join(root, "kit.json"))
    peer, bad = kit_results(kit)
    kit_err = kit_err or bad
    skipped = {s.get("experiment"): s.get("why") for s in (kit or {}).get("skipped", []) if isinstance(s, dict)}
    failed = {s.get("experiment"): s.get("error") for s in (kit or {}).get("failed", []) if isinstance(s, dict)}
    real, sim = {}, {}
    for name in sorted(set(e for e, *_ in PAIRS) | set(HEADLINES)):
        real[name] = load(os.path.join(root, "runs", name + ".json"))
        sim[name] = load(os.path.join(root, "sim", name + ".json"))
    prov = (kit or {}).get("provenance", {}) if isinstance(kit, dict) else {}
    report = {"profile": profile, "torch": [], "simulator": [], "kit": prov,
              "device": next((device_name(e[0]) for e in real.values() if e[0]), None)}

    print(f"gpulab / PyTorch on {report['device'] or '(no real run)'}"
          f" (torch {prov.get('torch', '-')}, CUDA {prov.get('cuda_runtime', '-')}, measurement kit "
          f"{prov.get('kit_version', '-')}); goal within +-10 %")
    print(f"  {'figure':40s} {'gpulab':>12s} {'PyTorch':>12s} {'ratio':>7s}  note")
    for exp, key, unit, why in PAIRS:
        env, err = real[exp]
        theirs_env = peer.get(exp)
        ours, theirs = metric(env, key), metric(theirs_env, key)
        details = ((theirs_env or {}).get("details") or {}) if theirs_env else {}
        differs = details.get("differs", {}).get(key)
        unmeasured = details.get("not_measured", {}).get(key)
        r = ratio(ours, theirs)
        if r is None:
            note = err or kit_err or ("no such figure in the run" if ours is None else
                                      f"the kit: {unmeasured}" if unmeasured else
                                      f"the kit skipped {exp}: {skipped[exp]}" if exp in skipped else
                                      f"the kit's {exp} failed: {str(failed[exp])[:120]}" if exp in failed else
                                      "no PyTorch figure")
        else:
            why = "; ".join(w for w in (why, differs) if w)
            note = "" if 0.9 <= r <= 1.1 else "OUTSIDE +-10 %" + (f": {why}" if why else ": to explain")
        report["torch"].append({"experiment": exp, "metric": key, "unit": unit, "gpulab": ours,
                                "torch": theirs, "ratio": r, "note": note})
        fmt = lambda v: "-" if v is None else f"{v:12.4g}"  # noqa: E731
        print(f"  {exp + '.' + key + ' (' + unit + ')':40s} {fmt(ours):>12s} {fmt(theirs):>12s} "
              f"{'-' if r is None else f'{r:6.2f}x':>7s}  {note}")

    print(f"\nsimulated ({profile}) / real; goal within +-25 %")
    for exp, keys in HEADLINES.items():
        (env, err), (senv, serr) = real[exp], sim[exp]
        for key in keys:
            ours, model = metric(env, key), metric(senv, key)
            r = ratio(model, ours)
            known = SIM_KNOWN.get((exp, key))
            note = (err or serr or "missing") if r is None else ("" if 0.75 <= r <= 1.33 else
                                                                 "OUTSIDE +-25 %" + (f": {known}" if known else
                                                                                     " (0.75-1.33, as the fidelity suite)"))
            report["simulator"].append({"experiment": exp, "metric": key, "real": ours, "simulated": model,
                                        "ratio": r, "note": note})
            print(f"  {exp + '.' + key:40s} {'-' if r is None else f'{r:6.2f}x':>7s}  {note}")
    with open(os.path.join(root, "compare.json"), "w") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
