#!/usr/bin/env python3
"""GPU check for `transfer` (needs a usable NVIDIA GPU): runs the real
experiment through the CLI and checks the physics the lesson relies on.
Usage: python3 tests/gpu/check_transfer.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("transfer")
rc, env = gpulib.run("transfer", timeout_s=120, max_bytes=268435456)
t.check(rc == 0 and "error" not in env, "the default run succeeds", json.dumps(env.get("error")))
if rc == 0 and "error" not in env:
    m = env["metrics"]
    t.check(env.get("backend") == "cuda", "backend is cuda")
    t.check(env.get("validated") is True, "copied data read back equal", f"validated={env.get('validated')}")
    t.check(env.get("max_abs_err", 1) == 0, "max_abs_err is 0 for a copy", f"max_abs_err={env.get('max_abs_err')}")
    series = {s["id"]: s["points"] for s in env["series"]}
    t.check(sorted(series) == ["d2h_pageable", "d2h_pinned", "h2d_pageable", "h2d_pinned"], "four series", str(sorted(series)))
    for d in ("h2d", "d2h"):
        pin, page = series[f"{d}_pinned"], series[f"{d}_pageable"]
        big = [(p[1], q[1]) for p, q in zip(pin, page) if p[0] >= 64e6]
        t.check(big and all(a > b for a, b in big), f"{d}: pinned beats pageable at >= 64 MB", str(big))
        t.check(pin[-1][1] > 5 * pin[0][1], f"{d}: bandwidth grows with size (pinned)", f"{pin[0][1]:.2f} -> {pin[-1][1]:.2f}")
    t.check(1 < m["h2d_pinned_gbps"] < 1000, "pinned bandwidth is plausible", f"{m['h2d_pinned_gbps']:.1f} GB/s")
    t.check(m["per_copy_overhead_us"] > 0.5, "each small copy has a fixed cost", f"{m['per_copy_overhead_us']:.2f} us")
    t.check(m["batching_speedup"] > 2, "one batched copy beats many small ones", f"{m['batching_speedup']:.1f}x")
    t.check(m["pin_ms"] > 0, "pinning was timed", f"{m['pin_ms']}")
    t.check(all(isinstance(f, str) and f for f in env["findings"]) and len(env["findings"]) >= 4, "findings are sentences")
    t.check(env["stats"].get("samples", 0) >= 3 and "method" in env["stats"], "stats say how it was measured")

rc, env = gpulib.run("transfer", timeout_s=120, max_bytes=1048576, small_copies=1000, small_bytes=4096)
t.check(rc != 0 and env.get("error", {}).get("code") == "invalid_param", "too many small copies is invalid_param",
        json.dumps(env)[:200])

sys.exit(t.done())
