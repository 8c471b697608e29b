#!/usr/bin/env python3
"""GPU check for `crossover` (needs a usable NVIDIA GPU): CPU matmul vs
cuBLAS sgemm over growing N, every size validated against the CPU.
Usage: python3 tests/gpu/check_crossover.py BUILD_DIR   (prints TAP)"""
import json
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"
n = 0
failed = 0


def tap(ok, what, detail=""):
    global n, failed
    n += 1
    failed += not ok
    print(("ok" if ok else "not ok") + f" {n} - crossover: {what}" + (f" # {detail}" if detail and not ok else ""))


cmd = [f"{build}/bin/gpulab", "run", "crossover", "--backend", "cuda", "--json", "--max_size=512"]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
try:
    env = json.loads(p.stdout)
except json.JSONDecodeError:
    env = {"error": {"message": p.stdout[-300:] + p.stderr[-300:]}}
tap(p.returncode == 0 and "error" not in env, "a run up to 512 succeeds", json.dumps(env.get("error")))
if "error" not in env:
    m = env["metrics"]
    s = {x["id"]: x["points"] for x in env["series"]}
    tap(env.get("validated") is True, "every size matches the CPU reference", f"max_abs_err={env.get('max_abs_err')}")
    tap(env.get("max_abs_err", 1) <= 1e-3 * 512 ** 0.5, "max_abs_err within the fp32 bound", f"{env.get('max_abs_err')}")
    tap(sorted(s) == ["cpu", "gpu", "gpu_copies", "gpu_kernel"], "four series", str(sorted(s)))
    tap(all(g[1] > k[1] for g, k in zip(s["gpu"], s["gpu_kernel"])), "launch + sync costs more than the kernel alone")
    tap(all(c[1] > g[1] for c, g in zip(s["gpu_copies"], s["gpu"])), "copies cost on top of the sgemm")
    tap(s["cpu"][0][1] < s["gpu"][0][1], "at N = 16 the CPU beats the GPU (tiny work loses)",
        f"cpu {s['cpu'][0][1]:.4f} ms, gpu {s['gpu'][0][1]:.4f} ms")
    tap(m["crossover_n"] > 16 and m["speedup_largest"] > 1, "the GPU wins from some N on",
        f"crossover_n={m['crossover_n']} speedup={m['speedup_largest']:.1f}")
    tap(m["crossover_copies_n"] == 0 or m["crossover_copies_n"] >= m["crossover_n"],
        "with copies the GPU wins no earlier than without", f"{m['crossover_copies_n']} vs {m['crossover_n']}")

print(f"1..{n}")
sys.exit(1 if failed else 0)
