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
    # The fp32 bound is relative (8 * 2^-24 * sqrt(N) of the entries' RMS, ~sqrt(N)): a TF32 slip fails it.
    t.check(env.get("max_abs_err", 1) <= 8 * 2 ** -24 * 4096 * 1.5, "max_abs_err within the fp32 bound", f"{env.get('max_abs_err')}")
    t.check(m.get("context_ms", 0) > 1, "the cold run was measured in a fresh process (its context timed)",
            f"context_ms={m.get('context_ms')}")
    t.check(m["gpu_busy_ms"] <= 1.02 * ev, "the held batch (GPU's own time) is no longer than the plain one",
            f"busy {m['gpu_busy_ms']:.3f} vs events {ev:.3f}")
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
    # Each GPU span starts no earlier than its launch and after the one before (no overlap).
    ok = all(g["start_us"] >= l["start_us"] - 1 for g, l in zip(gpu, launches)) and \
        all(b["start_us"] >= a["end_us"] - 1 for a, b in zip(gpu, gpu[1:]))
    t.check(ok, "GPU spans start at the later of their launch and the previous span's end")
    t.check(len(env["findings"]) >= 4, "findings are written")

# Launch-bound: tiny sgemms. The finding must not claim the timer stopped early
# unless the events show it, and no time may print as zero.
rc, env = gpulib.run("timing", size=64, repeats=50, samples=5)
if t.check(rc == 0 and "error" not in env, "a 64 x 50 run succeeds", json.dumps(env.get("error"))):
    m = env["metrics"]
    f = " ".join(env["findings"])
    t.check("0.00 ms" not in f, "no finding rounds a time to zero", f[:300])
    early = "returned before the work was done" in f
    t.check(early == (m["events_ms"] > m["host_nosync_ms"]), "the early-stop claim matches the numbers",
            f"events {m['events_ms']} nosync {m['host_nosync_ms']}")

rc, env = gpulib.run("timing", size=8192, repeats=100)
t.check(rc != 0 and env.get("error", {}).get("param") == "repeats", "an oversized batch is refused on repeats",
        json.dumps(env)[:200])

sys.exit(t.done())
