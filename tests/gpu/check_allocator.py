#!/usr/bin/env python3
"""GPU check for `allocator` (needs a usable NVIDIA GPU): the caching
allocator on real cudaMalloc/cudaFree. Asserts: the weights read back
unchanged after empty_cache() (validated, max_abs_err 0); a cached
allocate + free is at least 5x cheaper than cudaMalloc + cudaFree; cudaFree
behind a 500 us kernel waits for most of it; no cudaMalloc after step 1;
empty_cache() brings reserved down to what is allocated and the driver sees
it; fragmentation needs a new segment although the cache holds enough.
Usage: python3 tests/gpu/check_allocator.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

MIB = 1 << 20
t = gpulib.Tap("allocator")
rc, env = gpulib.run("allocator", cycles=100, steps=3)
ok = rc == 0 and "error" not in env
t.check(ok, "a default run succeeds", json.dumps(env.get("error")))
if ok:
    m = env["metrics"]
    t.check(env.get("validated") is True and env.get("max_abs_err") == 0,
            "weights are unchanged after empty_cache()", f"max_abs_err={env.get('max_abs_err')}")
    pair = m["cuda_malloc_us"] + m["cuda_free_us"]
    t.check(m["cache_alloc_free_us"] * 5 < pair, "a cache hit is >= 5x cheaper than cudaMalloc + cudaFree",
            f"cache {m['cache_alloc_free_us']:.2f} us vs driver {pair:.1f} us")
    t.check(m["cuda_free_busy_us"] > 0.8 * m["busy_kernel_us"], "cudaFree waits for a running kernel",
            f"{m['cuda_free_busy_us']:.0f} us with a {m['busy_kernel_us']:.0f} us kernel")
    t.check(m["cuda_malloc_calls_step1"] > 0 and m["cuda_malloc_calls_later_steps"] == 0,
            "no cudaMalloc after step 1", f"{m['cuda_malloc_calls_step1']} then {m['cuda_malloc_calls_later_steps']}")
    t.check(m["after_empty_reserved_bytes"] == m["after_empty_allocated_bytes"]
            and m["after_empty_allocated_bytes"] == m["before_empty_allocated_bytes"],
            "empty_cache() brings reserved down to allocated, allocated unchanged",
            f"{m['after_empty_reserved_bytes']} vs {m['after_empty_allocated_bytes']}")
    released = m["before_empty_device_used_bytes"] - m["after_empty_device_used_bytes"]
    t.check(abs(released - m["empty_cache_released_bytes"]) <= 4 * MIB,
            "the driver sees what empty_cache() released (within 4 MiB)",
            f"driver {released / MIB:.1f} MiB vs allocator {m['empty_cache_released_bytes'] / MIB:.1f} MiB")
    used = {s["id"]: s["points"] for s in env["series"]}
    # device_used counts the CUDA context: each point is measured from the first
    base = used["device_used"][0][1] - used["reserved"][0][1]
    worst = max(abs(d[1] - base - r[1]) for d, r in zip(used["device_used"], used["reserved"]))
    t.check(worst <= 4, "the driver's used memory follows reserved at every event (within 4 MiB)", f"{worst:.1f} MiB")
    t.check(m["frag_new_segments"] >= 1 and m["frag_free_in_cache_bytes"] >= m["frag_request_bytes"]
            and m["frag_largest_free_bytes"] < m["frag_request_bytes"],
            "fragmentation: a new segment although the cache held enough",
            f"free {m['frag_free_in_cache_bytes'] / MIB} MiB, largest {m['frag_largest_free_bytes'] / MIB} MiB")
    t.check(len(env["findings"]) >= 5, "findings are written")

rc, env = gpulib.run("allocator", layers=32, weight_mib=1024)
t.check(rc != 0 and env.get("error", {}).get("param") == "weight_mib", "a walk over limit_gib is refused",
        json.dumps(env)[:200])

sys.exit(t.done())
