#!/usr/bin/env python3
"""GPU check for `transfer` (needs a usable NVIDIA GPU): runs the real
experiment through the CLI and checks the physics the lesson relies on.
Usage: python3 tests/gpu/check_transfer.py BUILD_DIR   (prints TAP)"""
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
    print(("ok" if ok else "not ok") + f" {n} - transfer: {what}" + (f" # {detail}" if detail and not ok else ""))


def run(*params):
    cmd = [f"{build}/bin/gpulab", "run", "transfer", "--backend", "cuda", "--json", *params]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p.returncode, {"error": {"code": "bad_output", "message": p.stdout[-300:] + p.stderr[-300:]}}


rc, env = run("--max_bytes=268435456")
tap(rc == 0 and "error" not in env, "the default run succeeds", json.dumps(env.get("error")))
if rc == 0 and "error" not in env:
    m = env["metrics"]
    tap(env.get("backend") == "cuda", "backend is cuda")
    tap(env.get("validated") is True, "copied data read back equal", f"validated={env.get('validated')}")
    tap(env.get("max_abs_err", 1) == 0, "max_abs_err is 0 for a copy", f"max_abs_err={env.get('max_abs_err')}")
    series = {s["id"]: s["points"] for s in env["series"]}
    tap(sorted(series) == ["d2h_pageable", "d2h_pinned", "h2d_pageable", "h2d_pinned"], "four series", str(sorted(series)))
    for d in ("h2d", "d2h"):
        pin, page = series[f"{d}_pinned"], series[f"{d}_pageable"]
        big = [(p[1], q[1]) for p, q in zip(pin, page) if p[0] >= 64e6]
        tap(big and all(a > b for a, b in big), f"{d}: pinned beats pageable at >= 64 MB", str(big))
        tap(pin[-1][1] > 5 * pin[0][1], f"{d}: bandwidth grows with size (pinned)", f"{pin[0][1]:.2f} -> {pin[-1][1]:.2f}")
    tap(1 < m["h2d_pinned_gbps"] < 1000, "pinned bandwidth is plausible", f"{m['h2d_pinned_gbps']:.1f} GB/s")
    tap(m["per_copy_overhead_us"] > 0.5, "each small copy has a fixed cost", f"{m['per_copy_overhead_us']:.2f} us")
    tap(m["batching_speedup"] > 2, "one batched copy beats many small ones", f"{m['batching_speedup']:.1f}x")
    tap(m["pin_ms"] > 0, "pinning was timed", f"{m['pin_ms']}")
    tap(all(isinstance(f, str) and f for f in env["findings"]) and len(env["findings"]) >= 4, "findings are sentences")
    tap(env["stats"].get("samples", 0) >= 3 and "method" in env["stats"], "stats say how it was measured")

rc, env = run("--max_bytes=1048576", "--small_copies=1000", "--small_bytes=4096")
tap(rc != 0 and env.get("error", {}).get("code") == "invalid_param", "too many small copies is invalid_param",
    json.dumps(env)[:200])

print(f"1..{n}")
sys.exit(1 if failed else 0)
