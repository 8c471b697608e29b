#!/usr/bin/env python3
"""GPU check for `streams` (needs a usable NVIDIA GPU): copies and kernels
overlapping on several streams. Asserts: outputs match the CPU reference;
with 4 streams and pinned memory the pipeline takes clearly less than on
one stream; pageable memory gains little; the timeline shows an H2D copy
running beside a kernel; without an event wait the race reads stale data,
with the wait it reads none.
Usage: python3 tests/gpu/check_streams.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("streams")
# Kernel time close to one chunk's copy time, so overlap can save the most.
rc, env = gpulib.run("streams", chunks=16, chunk_mib=8, kernel_us=200, streams=4, memory="pinned", wait=False)
ok = rc == 0 and "error" not in env
t.check(ok, "a 4-stream pinned run succeeds", json.dumps(env.get("error")))
if ok:
    m = env["metrics"]
    t.check(env.get("validated") is True, "pipeline outputs match the CPU reference", f"max_abs_err={env.get('max_abs_err')}")
    t.check(env.get("max_abs_err", 1) == 0, "outputs are bit-exact (same fused multiply-adds)", f"{env.get('max_abs_err')}")
    t.check(m["streams_pinned_ms"] < 0.75 * m["one_stream_pinned_ms"], "4 streams pinned clearly beat one stream",
            f"{m['streams_pinned_ms']:.2f} ms vs {m['one_stream_pinned_ms']:.2f} ms")
    t.check(m["total_ms"] >= 0.9 * m["bound_ms"], "no run beats the busiest engine's floor",
            f"{m['total_ms']:.2f} vs {m['bound_ms']:.2f}")
    t.check(m["pageable_speedup"] < 0.8 * m["pinned_speedup"], "pageable memory gains less from streams than pinned",
            f"pageable x{m['pageable_speedup']:.2f} vs pinned x{m['pinned_speedup']:.2f}")
    tl = env["timeline"]
    h2d = [e for e in tl if e["lane"] == "gpu:0/engine/h2d"]
    ker = [e for e in tl if e["lane"] == "gpu:0/engine/compute"]
    both = sum(1 for c in h2d for k in ker if c["start_us"] < k["end_us"] and c["end_us"] > k["start_us"])
    t.check(len(h2d) == 16 and len(ker) == 16 and both > 0, "the timeline shows copies beside kernels", f"{both}")
    lanes = {e["lane"] for e in tl if e["lane"].startswith("gpu:0/stream")}
    t.check(len(lanes) == 4, "one lane per stream", str(sorted(lanes)))
    t.check(m["stale_chunks"] >= 1, "without a wait the race reads stale data",
            f"{m['stale_chunks']} of {m['race_chunks']} chunks")
    t.check(len(env["findings"]) >= 4, "findings are written")

rc, env = gpulib.run("streams", chunks=16, chunk_mib=8, kernel_us=200, streams=4, wait=True)
ok = rc == 0 and "error" not in env
t.check(ok, "a run with the event wait succeeds", json.dumps(env.get("error")))
if ok:
    m = env["metrics"]
    t.check(m["stale_chunks"] == 0 and m["stale_elements"] == 0, "with cudaStreamWaitEvent no chunk reads stale data",
            f"{m['stale_chunks']} chunks, {m['stale_elements']} values")
    t.check(env.get("validated") is True, "the waited race validates too")

rc, env = gpulib.run("streams", chunks=32, chunk_mib=64)
t.check(rc != 0 and env.get("error", {}).get("param") == "chunk_mib", "too much data is refused on chunk_mib",
        json.dumps(env)[:200])

sys.exit(t.done())
