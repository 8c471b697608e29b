#!/usr/bin/env python3
"""GPU check for `crossover` (needs a usable NVIDIA GPU): CPU matmul vs
cuBLAS sgemm over growing N, every size validated against the CPU.
Usage: python3 tests/gpu/check_crossover.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("crossover")
rc, env = gpulib.run("crossover", max_size=512)
t.check(rc == 0 and "error" not in env, "a run up to 512 succeeds", json.dumps(env.get("error")))
if "error" not in env:
    m = env["metrics"]
    s = {x["id"]: x["points"] for x in env["series"]}
    t.check(env.get("validated") is True, "every size matches the CPU reference", f"max_abs_err={env.get('max_abs_err')}")
    t.check(env.get("max_abs_err", 1) <= 1e-3 * 512 ** 0.5, "max_abs_err within the fp32 bound", f"{env.get('max_abs_err')}")
    t.check(sorted(s) == ["cpu", "gpu", "gpu_copies", "gpu_kernel"], "four series", str(sorted(s)))
    t.check(all(g[1] > k[1] for g, k in zip(s["gpu"], s["gpu_kernel"])), "launch + sync costs more than the kernel alone")
    t.check(all(c[1] > g[1] for c, g in zip(s["gpu_copies"], s["gpu"])), "copies cost on top of the sgemm")
    t.check(s["cpu"][0][1] < s["gpu"][0][1], "at N = 16 the CPU beats the GPU (tiny work loses)",
            f"cpu {s['cpu'][0][1]:.4f} ms, gpu {s['gpu'][0][1]:.4f} ms")
    t.check(m["crossover_n"] > 16 and m["speedup_largest"] > 1, "the GPU wins from some N on",
            f"crossover_n={m['crossover_n']} speedup={m['speedup_largest']:.1f}")
    t.check(m["crossover_copies_n"] == 0 or m["crossover_copies_n"] >= m["crossover_n"],
            "with copies the GPU wins no earlier than without", f"{m['crossover_copies_n']} vs {m['crossover_n']}")

sys.exit(t.done())
