#!/usr/bin/env python3
"""GPU check for `timing` (needs a usable NVIDIA GPU): the asynchronous
timing trap on a real cuBLAS sgemm. Asserts: the host timer without
synchronize sees under 10 % of the event time of >= 1 ms matmuls; with
synchronize it is within 5 %; the cold run is slower than a warm one.
Usage: python3 tests/gpu/check_timing.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("timing")
rc, env = gpulib.run("timing", size=4096, repeats=10, samples=7)
t.check(rc == 0 and "error" not in env, "a 4096 run succeeds", json.dumps(env.get("error")))
if rc == 0 and "error" not in env:
    m = env["metrics"]
    ev = m["events_ms"]
    t.check(env.get("validated") is True, "sgemm matches the CPU reference", f"max_abs_err={env.get('max_abs_err')}")
    t.check(env.get("max_abs_err", 1) <= 1e-3 * 4096 ** 0.5, "max_abs_err within the fp32 bound", f"{env.get('max_abs_err')}")
    t.check(m["sgemm_ms"] >= 1.0, "each sgemm takes >= 1 ms (the check needs it)", f"{m['sgemm_ms']:.3f} ms")
    t.check(m["host_nosync_ms"] < 0.10 * ev, "host timer without synchronize < 10 % of events",
            f"nosync {m['host_nosync_ms']:.3f} ms vs events {ev:.2f} ms")
    t.check(abs(m["host_sync_ms"] - ev) <= 0.05 * ev, "host timer after synchronize within 5 % of events",
            f"sync {m['host_sync_ms']:.3f} ms vs events {ev:.2f} ms")
    t.check(m["cold_ms"] > m["warm_ms"], "the cold run is slower than a warm one", f"{m['cold_ms']:.1f} vs {m['warm_ms']:.2f}")
    lanes = {e["lane"] for e in env["timeline"]}
    t.check(lanes == {"cpu", "gpu:0/stream0"}, "timeline has the cpu and gpu lanes", str(lanes))
    gpu = [e for e in env["timeline"] if e["lane"] != "cpu"]
    launches = [e for e in env["timeline"] if e["lane"] == "cpu" and e["label"].startswith("launch")]
    t.check(len(gpu) == 10 and launches[-1]["end_us"] < gpu[-1]["end_us"],
            "launches end long before the GPU's work does", f"{launches[-1]['end_us'] if launches else None}")
    t.check(len(env["findings"]) >= 4, "findings are written")

rc, env = gpulib.run("timing", size=8192, repeats=100)
t.check(rc != 0 and env.get("error", {}).get("param") == "repeats", "an oversized batch is refused on repeats",
        json.dumps(env)[:200])

sys.exit(t.done())
