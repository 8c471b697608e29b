#!/usr/bin/env python3
"""GPU check of `memory`: real allocations through the caching allocator,
allocated <= reserved, reserved kept until empty_cache, the driver's count
matching reserved, a bounded deliberate OOM that is caught, and free memory
back where it started. Usage: python3 tests/gpu/check_memory.py BUILD_DIR."""
import json
import subprocess
import sys

BIN = (sys.argv[1] if len(sys.argv) > 1 else "build") + "/bin/gpulab"
results = []


def run(**params):
    args = [BIN, "run", "memory", "--backend", "cuda", "--json"]
    args += ["--%s=%s" % (k, str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        return p.returncode, {"raw": p.stdout + p.stderr}


def check(ok, what, detail=""):
    results.append((bool(ok), what, detail))


MIB = 1024 * 1024
rc, env = run(budget_gib=2)
m = env.get("metrics", {})
d = env.get("details", {})
steps = d.get("steps", [])
check(rc == 0 and env.get("backend") == "cuda", "the walk runs on the GPU", env.get("error", ""))
check(env.get("validated") is True, "the driver saw what the allocator reserved", env.get("max_abs_err"))
check(m.get("oom") == 1 and (d.get("oom") or {}).get("deliberate") is True, "the deliberate OOM happened", d.get("oom"))
check(len((d.get("oom") or {}).get("fixes", [])) >= 3, "the OOM lists the fixes", d.get("oom"))
check(m.get("free_restored") == 1, "free memory returned after the OOM", (m.get("free_before_bytes"), m.get("free_after_bytes")))
check(abs(m.get("free_after_bytes", 0) - m.get("free_before_bytes", -1)) <= 4 * MIB, "free before == free after (4 MiB slack)",
      (m.get("free_before_bytes"), m.get("free_after_bytes")))
check(m.get("peak_reserved_bytes", 1e30) <= m.get("budget_bytes", 0), "never reserved past the budget", m)
check(all(s["allocated_bytes"] <= s["reserved_bytes"] for s in steps), "allocated <= reserved at every step", steps)
by = {s["label"]: s for s in steps}
freed, emptied = by.get("backward: activations freed"), by.get("empty_cache()")
check(freed and emptied and freed["reserved_bytes"] > freed["allocated_bytes"] and
      emptied["reserved_bytes"] < freed["reserved_bytes"], "reserved stays after free, drops on empty_cache", steps)
check(steps and steps[-1]["reserved_bytes"] == 0 and steps[-1]["device_used_bytes"] <= 4 * MIB,
      "everything given back at the end", steps[-1:] if steps else None)

rc, env = run(params_m=2000, budget_gib=1)
m = env.get("metrics", {})
check(rc == 0 and m.get("oom") == 1 and (env.get("details", {}).get("oom") or {}).get("step") == "weights",
      "a model over the budget fails at its weights, as a result", env.get("error", m))
check(m.get("free_restored") == 1, "free memory returned after the model's OOM", m)

for i, (ok, what, detail) in enumerate(results, 1):
    print("%s %d - memory: %s%s" % ("ok" if ok else "not ok", i, what, "" if ok else "  # got %r" % (detail,)))
sys.exit(0 if all(r[0] for r in results) else 1)
