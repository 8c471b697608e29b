#!/usr/bin/env python3
"""GPU check for `graphs` (needs a usable NVIDIA GPU): a chain of tiny
kernels launched one by one against the same chain captured into a CUDA
graph and replayed. Asserts: both buffers match the CPU reference; with
>= 100 tiny kernels the graph's per-kernel time is below eager launch's and
one cudaGraphLaunch costs the host far less than the eager launches; capture
+ instantiate pay back after a finite number of replays; in the sweep the
largest kernels gain (almost) nothing from the graph.
Usage: python3 tests/gpu/check_graphs.py BUILD_DIR   (prints TAP)"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpulib  # noqa: E402  (found beside this file, in the repo or a bundle)

t = gpulib.Tap("graphs")

for kernels in (100, 2000):
    rc, env = gpulib.run("graphs", kernels=kernels, elements=1024, sweep=False, samples=9)
    ok = rc == 0 and "error" not in env
    t.check(ok, "a chain of %d tiny kernels runs" % kernels, json.dumps(env.get("error")))
    if not ok:
        continue
    m = env["metrics"]
    t.check(env.get("validated") is True, "%d kernels: both launch modes match the CPU reference" % kernels,
            "max_abs_err=%s" % env.get("max_abs_err"))
    t.check(env.get("max_abs_err", 1) <= 1e-5, "%d kernels: max_abs_err <= 1e-5 (same fma rounding)" % kernels,
            "%s" % env.get("max_abs_err"))
    t.check(m["graph_per_kernel_us"] < m["eager_per_kernel_us"],
            "%d kernels: the graph's per-kernel time is below eager launch's" % kernels,
            "graph %.2f us vs eager %.2f us" % (m["graph_per_kernel_us"], m["eager_per_kernel_us"]))
    t.check(m["graph_launch_us"] < 0.25 * m["eager_launch_us"],
            "%d kernels: one cudaGraphLaunch costs the host < 25 %% of the eager launches" % kernels,
            "graph %.1f us vs eager %.1f us" % (m["graph_launch_us"], m["eager_launch_us"]))
    t.check(m["capture_us"] > 0 and m["instantiate_us"] > 0, "%d kernels: capture and instantiate are timed" % kernels)
    t.check("payback_replays" in m and m["payback_replays"] >= 1,
            "%d kernels: the graph pays back after a finite number of replays" % kernels, json.dumps(m)[:300])
    lanes = {e["lane"] for e in env["timeline"]}
    t.check(lanes == {"cpu", "gpu:0/stream0"}, "%d kernels: timeline has the cpu and gpu lanes" % kernels, str(lanes))
    nodes = [e for e in env["timeline"] if e["label"].startswith("graph node")]
    t.check(len(nodes) == 12 and all(e["end_us"] >= e["start_us"] for e in nodes),
            "%d kernels: the timeline draws 12 graph nodes" % kernels, str(len(nodes)))

rc, env = gpulib.run("graphs", kernels=200, elements=4096, sweep=True, samples=5)
ok = rc == 0 and "error" not in env
t.check(ok, "the kernel-size sweep runs", json.dumps(env.get("error")))
if ok:
    sweep = {s["id"]: s["points"] for s in env["series"]}
    eager, graph = sweep.get("sweep_eager", []), sweep.get("sweep_graph", [])
    t.check(len(eager) == 8 and len(graph) == 8, "the sweep has 8 sizes per mode", "%d/%d" % (len(eager), len(graph)))
    t.check(env.get("validated") is True, "every sweep size matches the CPU reference", "%s" % env.get("max_abs_err"))
    if len(eager) == 8 and len(graph) == 8:
        t.check(graph[0][1] < eager[0][1], "smallest kernels: the graph is faster per kernel",
                "graph %.2f vs eager %.2f us" % (graph[0][1], eager[0][1]))
        t.check(abs(graph[-1][1] - eager[-1][1]) <= 0.10 * eager[-1][1],
                "largest kernels (16 Mi elements): graph and eager within 10 %",
                "graph %.2f vs eager %.2f us" % (graph[-1][1], eager[-1][1]))
    t.check(len(env["findings"]) >= 4, "findings are written")

rc, env = gpulib.run("graphs", kernels=5)
t.check(rc != 0 and env.get("error", {}).get("param") == "kernels", "fewer than 10 kernels is refused on kernels",
        json.dumps(env)[:200])

sys.exit(t.done())
