#!/usr/bin/env python3
"""GPU check of `memory`: real allocations through the caching allocator,
allocated <= reserved, reserved kept until empty_cache, the driver's count
matching reserved, a bounded deliberate OOM that is caught, and free memory
back where it started. Usage: python3 tests/gpu/check_memory.py BUILD_DIR."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("memory")
MIB = 1024 * 1024
rc, env = gpulib.run("memory", budget_gib=2)
m = env.get("metrics", {})
d = env.get("details", {})
steps = d.get("steps", [])
t.check(rc == 0 and env.get("backend") == "cuda", "the walk runs on the GPU", env.get("error", ""))
t.check(env.get("validated") is True, "the driver saw what the allocator reserved", env.get("max_abs_err"))
t.check(m.get("oom") == 1 and (d.get("oom") or {}).get("deliberate") is True, "the deliberate OOM happened", d.get("oom"))
# A deliberate OOM has nothing to fix in the model: its one entry says so.
fixes = (d.get("oom") or {}).get("fixes", [])
t.check(len(fixes) >= 1 and fixes[0].startswith("Nothing to fix"), "the deliberate OOM says there is nothing to fix",
        d.get("oom"))
t.check(m.get("free_restored") == 1, "free memory returned after the OOM", (m.get("free_before_bytes"), m.get("free_after_bytes")))
t.check(abs(m.get("free_after_bytes", 0) - m.get("free_before_bytes", -1)) <= 4 * MIB, "free before == free after (4 MiB slack)",
        (m.get("free_before_bytes"), m.get("free_after_bytes")))
t.check(m.get("peak_reserved_bytes", 1e30) <= m.get("budget_bytes", 0), "never reserved past the budget", m)
t.check(all(s["allocated_bytes"] <= s["reserved_bytes"] for s in steps), "allocated <= reserved at every step", steps)
by = {s["label"]: s for s in steps}
freed, emptied = by.get("backward: activations freed"), by.get("empty_cache()")
t.check(freed and emptied and freed["reserved_bytes"] > freed["allocated_bytes"] and
        emptied["reserved_bytes"] < freed["reserved_bytes"], "reserved stays after free, drops on empty_cache", steps)
# device_used counts the CUDA context (as nvidia-smi does): the end is
# measured against the start.
t.check(steps and steps[-1]["reserved_bytes"] == 0
        and steps[-1]["device_used_bytes"] - steps[0]["device_used_bytes"] <= 4 * MIB,
        "everything given back at the end", steps[-1:] if steps else None)

rc, env = gpulib.run("memory", params_m=2000, budget_gib=1)
m = env.get("metrics", {})
t.check(rc == 0 and m.get("oom") == 1 and (env.get("details", {}).get("oom") or {}).get("step") == "weights",
        "a model over the budget fails at its weights, as a result", env.get("error", m))
t.check(m.get("free_restored") == 1, "free memory returned after the model's OOM", m)

sys.exit(t.done())
