#!/usr/bin/env python3
"""GPU check for `profile` (needs a usable NVIDIA GPU): a training step of a
small MLP split into NVTX-ranged phases. Asserts: the step matches the CPU
reference; the host ranges account for the run; the GPU is idle part of
the time; pinned batches copy faster on the GPU than pageable ones; logging
every 10 steps spends less host time in logging than every step, and the
tuned run (pinned, log every 10) is faster per step; the timeline shows the
host waiting at .item() until the GPU's last op.
Usage: python3 tests/gpu/check_profile.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

PHASES = ["data", "forward", "loss", "backward", "optimizer", "logging"]

t = gpulib.Tap("profile")
rc, slow = gpulib.run("profile", batch=512, hidden=2048, steps=50, pinned=False, log_every=1)
ok_slow = t.check(rc == 0 and "error" not in slow, "a pageable, log-every-step run succeeds",
                  json.dumps(slow.get("error")))
rc, fast = gpulib.run("profile", batch=512, hidden=2048, steps=50, pinned=True, log_every=10)
ok_fast = t.check(rc == 0 and "error" not in fast, "a pinned, log-every-10 run succeeds",
                  json.dumps(fast.get("error")))
if ok_slow:
    m = slow["metrics"]
    t.check(slow.get("validated") is True, "the step matches the CPU reference",
            f"max_abs_err={slow.get('max_abs_err')}")
    t.check(slow.get("max_abs_err", 1) <= 1e-4, "max_abs_err <= 1e-4", f"{slow.get('max_abs_err')}")
    host_sum = sum(m[p + "_host_ms"] for p in PHASES)
    t.check(0.9 * m["wall_ms"] <= host_sum <= m["wall_ms"] * 1.001,
            "the NVTX ranges cover at least 90 % of the run", f"{host_sum:.3f} of {m['wall_ms']:.3f} ms")
    t.check(0 < m["gpu_busy_ms"] < m["wall_ms"], "the GPU is busy for part of the run",
            f"busy {m['gpu_busy_ms']:.3f} of {m['wall_ms']:.3f} ms")
    t.check(m["logging_calls"] == 50 and m["data_calls"] == 50, "calls counted per phase",
            f"logging {m['logging_calls']}, data {m['data_calls']}")
    cpu = [e for e in slow["timeline"] if e["lane"] == "cpu"]
    gpu = [e for e in slow["timeline"] if e["lane"] != "cpu"]
    waits = [e for e in cpu if "synchronize" in e["label"]]
    t.check(len(cpu) == 6 and len(gpu) >= 15, "timeline has six ranges and the step's ops",
            f"{len(cpu)} ranges, {len(gpu)} ops")
    t.check(waits and waits[0]["end_us"] >= max(e["end_us"] for e in gpu) - 1,
            "the .item() wait ends after the GPU's last op", json.dumps(waits[:1]))
    t.check("Nsight Systems" in slow["stats"]["method"], "the method names the profiler")
    t.check(len(slow["findings"]) >= 4, "findings are written")
if ok_slow and ok_fast:
    a, b = slow["metrics"], fast["metrics"]
    t.check(fast.get("validated") is True, "the pinned run matches the CPU reference too")
    t.check(b["data_gpu_ms"] < a["data_gpu_ms"], "pinned copies take less GPU time than pageable ones",
            f"pinned {b['data_gpu_ms']:.3f} ms vs pageable {a['data_gpu_ms']:.3f} ms")
    t.check(b["logging_host_ms"] < a["logging_host_ms"], "logging every 10 steps costs the host less",
            f"{b['logging_host_ms']:.3f} vs {a['logging_host_ms']:.3f} ms")
    t.check(b["step_ms"] < a["step_ms"], "the tuned run is faster per step",
            f"{b['step_ms']:.3f} vs {a['step_ms']:.3f} ms")

rc, env = gpulib.run("profile", batch=5000)
t.check(rc != 0 and env.get("error", {}).get("param") == "batch", "an oversized batch is refused on batch",
        json.dumps(env)[:200])

sys.exit(t.done())
