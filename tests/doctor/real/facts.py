"""Prints the facts of a torch.profiler trace that tests/doctor/real/README.md relies on:
device, steps, GPU busy share, the longest idle gaps on the GPU timeline with the host
events inside them and the GPU op that ends each gap (with the call that launched it),
the runtime calls of the first step, stream waits and synchronizes, NCCL kernels, and
the launch-bound inputs. Standard library only. Run:
/usr/bin/python3 tests/doctor/real/facts.py tests/doctor/real/*.json.gz"""
import collections
import gzip
import json
import statistics
import sys

GPU_CATS = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset", "cuda_profiler_range"}
RUNTIME_CATS = {"cuda_runtime", "runtime", "cuda_driver", "driver"}
WAIT_WORDS = ("StreamWaitEvent", "EventSynchronize", "StreamSynchronize", "DeviceSynchronize",
              "EventQuery")
COLD_CALLS = ("cudaDeviceGetStreamPriorityRange", "cudaGetDeviceCount", "cudaGetDevice",
              "cudaMalloc", "cudaFree", "cudaStreamCreateWithPriority", "cudaHostAlloc",
              "cuDevicePrimaryCtxRetain", "cudaGetDeviceProperties", "hipGetDevicePropertiesR0600",
              "hipMalloc", "hipDeviceSynchronize")


def load(path):
    raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    doc = json.loads(raw)
    if isinstance(doc, list):
        return {}, doc, len(raw)
    return doc, doc.get("traceEvents", []), len(raw)


def short(name, n=70):
    name = str(name)
    return name if len(name) <= n else name[: n - 3] + "..."


def union(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def covered(merged, lo, hi):
    t = 0.0
    for s, e in merged:
        if e <= lo or s >= hi:
            continue
        t += min(e, hi) - max(s, lo)
    return t


def report(path):
    top, events, nbytes = load(path)
    xs = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and "ts" in e]
    cat = lambda e: str(e.get("cat", "")).lower()
    gpu = [e for e in xs if cat(e) in GPU_CATS]
    rt = [e for e in xs if cat(e) in RUNTIME_CATS]
    cpu = [e for e in xs if cat(e) in ("cpu_op", "operator", "user_annotation", "python_function")]
    t0 = min(float(e["ts"]) for e in xs)
    t1 = max(float(e["ts"]) + float(e.get("dur", 0)) for e in xs)
    ms = lambda t: (float(t) - t0) / 1000.0
    print("=" * 78)
    print("file", path, "(%d bytes inflated, %d events, %d complete)" % (nbytes, len(events), len(xs)))
    print("schemaVersion", top.get("schemaVersion"), "| traceName", short(top.get("traceName"), 60))
    print("deviceProperties entries:", len(top.get("deviceProperties") or []))
    for d in top.get("deviceProperties") or []:
        print("device %s: %s, %.1f GiB, cc %s.%s, %s SMs" % (
            d.get("id"), d.get("name"), float(d.get("totalGlobalMem", 0)) / 2**30,
            d.get("computeMajor"), d.get("computeMinor"), d.get("numSms")))
    di = top.get("distributedInfo")
    if di:
        print("distributedInfo: backend %s, rank %s, world_size %s, nccl %s" % (
            di.get("backend"), di.get("rank"), di.get("world_size"), di.get("nccl_version")))
    cats = collections.Counter(e.get("cat") for e in events if isinstance(e, dict))
    print("categories:", ", ".join("%s %d" % (k, v) for k, v in cats.most_common()))
    print("span %.3f ms; GPU ops %d; runtime calls %d" % ((t1 - t0) / 1000.0, len(gpu), len(rt)))

    merged = union([(float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in gpu])
    by_corr = {}
    for e in rt:
        c = (e.get("args") or {}).get("correlation")
        if c is not None:
            by_corr[c] = e

    # steps
    steps = sorted((e for e in xs if str(e.get("name", "")).startswith("ProfilerStep#")
                    and cat(e) in ("user_annotation", "cpu_op", "operator")), key=lambda e: e["ts"])
    loader_spans = union([(float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in xs
                          if "DataLoader" in str(e.get("name")) and "__next__" in str(e.get("name"))])
    for s in steps:
        lo, hi = float(s["ts"]), float(s["ts"]) + float(s["dur"])
        busy = covered(merged, lo, hi)
        nk = sum(1 for e in gpu if lo <= float(e["ts"]) < hi)
        line = "step %-16s at %10.3f ms, %10.3f ms long, GPU busy %5.1f %%, %d GPU ops" % (
            s["name"], ms(lo), (hi - lo) / 1000.0, 100.0 * busy / (hi - lo) if hi > lo else 0.0, nk)
        wait = covered(loader_spans, lo, hi)
        if wait > 0:
            # GPU work during the loader wait is left out of both sides
            rest = (hi - lo) - wait
            busy_rest = busy - sum(covered(merged, max(a, lo), min(b, hi))
                                   for a, b in loader_spans if b > lo and a < hi)
            line += "; data loader %.3f ms, GPU busy outside it %.1f %%" % (
                wait / 1000.0, 100.0 * busy_rest / rest if rest > 0 else 0.0)
        print(line)

    # gaps on the GPU timeline (all devices and streams together)
    gaps = []
    if merged:
        gaps.append((merged[0][0] - t0, t0, merged[0][0], "before the first GPU op"))
        for a, b in zip(merged, merged[1:]):
            gaps.append((b[0] - a[1], a[1], b[0], ""))
        gaps.append((t1 - merged[-1][1], merged[-1][1], t1, "after the last GPU op"))
    gaps.sort(key=lambda g: -g[0])
    print("GPU busy over the whole trace: %.1f %%" % (
        100.0 * covered(merged, t0, t1) / (t1 - t0) if t1 > t0 else 0.0))
    for length, lo, hi, note in gaps[:5]:
        print("gap %.3f ms, from %.3f to %.3f ms %s" % (length / 1000.0, ms(lo), ms(hi), note))
        # the innermost host events first: ranked by the share of the gap they cover
        # (in steps of 10 %), then the shortest, so a parent annotation spanning the
        # whole trace comes after the call that fills the gap
        inside = []
        for e in rt + cpu:
            s, d = float(e["ts"]), float(e.get("dur", 0))
            ov = min(s + d, hi) - max(s, lo)
            if ov > 0:
                inside.append((ov, e))
        inside.sort(key=lambda p: (-int(10.0 * p[0] / length) if length else 0,
                                   float(p[1].get("dur", 0))))
        for ov, e in inside[:4]:
            print("    host %-9s %-50s at %10.3f ms, %9.3f ms long, covers %5.1f %% of the gap" % (
                e.get("cat"), short(e.get("name"), 50), ms(e["ts"]), float(e.get("dur", 0)) / 1000.0,
                100.0 * ov / length if length else 0.0))
        calls = [e for e in rt if float(e["ts"]) < hi and float(e["ts"]) + float(e.get("dur", 0)) > lo]
        if calls:
            big = max(calls, key=lambda e: float(e.get("dur", 0)))
            print("    runtime calls overlapping it: %d, longest %s %.3f ms" % (
                len(calls), big.get("name"), float(big.get("dur", 0)) / 1000.0))
        else:
            print("    runtime calls overlapping it: none")
        nxt = [e for e in gpu if float(e["ts"]) >= hi]
        if nxt:
            n = min(nxt, key=lambda e: float(e["ts"]))
            a = n.get("args") or {}
            print("    next GPU op: %s (%s, stream %s, %.3f ms)" % (
                short(n.get("name"), 60), n.get("cat"), a.get("stream", n.get("tid")),
                float(n.get("dur", 0)) / 1000.0))
            launch = by_corr.get(a.get("correlation"))
            if launch is not None:
                print("    launched by %s at %.3f ms: %s the gap began" % (
                    launch.get("name"), ms(launch["ts"]),
                    "BEFORE" if float(launch["ts"]) < lo else "after"))

    # the busiest stream alone: a gap whose next op was launched before the gap began is
    # the stream waiting (on another stream, an event or a collective), not the host
    streams = collections.Counter((e.get("args") or {}).get("stream", e.get("tid")) for e in gpu)
    if len(streams) > 1:
        main = streams.most_common(1)[0][0]
        ops = sorted((e for e in gpu if (e.get("args") or {}).get("stream", e.get("tid")) == main),
                     key=lambda e: float(e["ts"]))
        others = union([(float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in gpu
                        if (e.get("args") or {}).get("stream", e.get("tid")) != main])
        sgaps = []
        end = None
        for e in ops:
            s = float(e["ts"])
            if end is not None and s > end:
                sgaps.append((s - end, end, s, e))
            end = max(end or s, s + float(e.get("dur", 0)))
        sgaps.sort(key=lambda g: -g[0])
        early = 0
        for length, lo, hi, e in sgaps:
            launch = by_corr.get((e.get("args") or {}).get("correlation"))
            if launch is not None and float(launch["ts"]) < lo:
                early += 1
        print("stream %s alone: %d gaps, %d of them end with an op launched before the gap began" % (
            main, len(sgaps), early))
        for length, lo, hi, e in sgaps[:3]:
            launch = by_corr.get((e.get("args") or {}).get("correlation"))
            print("    gap %.3f ms from %.3f ms; other streams busy %.1f %% of it; next %s%s" % (
                length / 1000.0, ms(lo), 100.0 * covered(others, lo, hi) / length,
                short(e.get("name"), 40),
                "" if launch is None else ", launched %.3f ms %s the gap began" % (
                    abs(lo - float(launch["ts"])) / 1000.0,
                    "before" if float(launch["ts"]) < lo else "after")))

    # runtime calls of the first step (or, without steps, before the first GPU op)
    if steps:
        lo, hi, what = float(steps[0]["ts"]), float(steps[0]["ts"]) + float(steps[0]["dur"]), steps[0]["name"]
    else:
        lo, hi, what = t0, (merged[0][0] if merged else t1), "before the first GPU op"
    first = collections.defaultdict(list)
    for e in rt:
        if lo <= float(e["ts"]) < hi:
            first[e["name"]].append(float(e.get("dur", 0)))
    print("runtime calls in %s: %d" % (what, sum(len(v) for v in first.values())))
    for name, durs in sorted(first.items(), key=lambda kv: -sum(kv[1]))[:8]:
        print("    %-52s x%-5d total %10.3f ms, longest %10.3f ms" % (
            short(name, 52), len(durs), sum(durs) / 1000.0, max(durs) / 1000.0))
    cold = [e for e in rt if e.get("name") in COLD_CALLS]
    if cold:
        e = max(cold, key=lambda e: float(e.get("dur", 0)))
        print("longest set-up call: %s at %.3f ms, %.3f ms long" % (
            e["name"], ms(e["ts"]), float(e.get("dur", 0)) / 1000.0))
    if rt:
        e = max(rt, key=lambda e: float(e.get("dur", 0)))
        print("longest runtime call: %s at %.3f ms, %.3f ms long" % (
            e["name"], ms(e["ts"]), float(e.get("dur", 0)) / 1000.0))

    # waits, synchronizes, collectives
    waits = collections.defaultdict(list)
    for e in rt:
        for w in WAIT_WORDS:
            if w in str(e.get("name")):
                waits[e["name"]].append(float(e.get("dur", 0)))
    for name, durs in sorted(waits.items()):
        print("wait/sync %-40s x%-5d total %10.3f ms" % (name, len(durs), sum(durs) / 1000.0))
    syncs = collections.Counter(e.get("name") for e in xs if cat(e) == "cuda_sync")
    if syncs:
        print("cuda_sync events:", dict(syncs))
    nccl = [e for e in gpu if "nccl" in str(e.get("name", "")).lower()]
    if nccl:
        per = collections.defaultdict(float)
        for e in nccl:
            per[(e.get("args") or {}).get("stream", e.get("tid"))] += float(e.get("dur", 0))
        big = max(nccl, key=lambda e: float(e.get("dur", 0)))
        print("NCCL kernels %d, %.3f ms in all; per stream %s; longest %s %.3f ms at %.3f ms" % (
            len(nccl), sum(per.values()) / 1000.0,
            {k: round(v / 1000.0, 3) for k, v in sorted(per.items(), key=lambda kv: str(kv[0]))},
            short(big.get("name"), 40), float(big.get("dur", 0)) / 1000.0, ms(big["ts"])))

    # launch-bound inputs
    kernels = [float(e.get("dur", 0)) for e in gpu if cat(e) in ("kernel", "cuda_profiler_range")]
    launches = [float(e.get("dur", 0)) for e in rt
                if str(e.get("name")) in ("cudaLaunchKernel", "hipLaunchKernel", "cuLaunchKernel",
                                          "hipExtModuleLaunchKernel", "cudaLaunchKernelExC")]
    if kernels:
        ml = statistics.median(launches) if launches else None
        short_k = sum(1 for k in kernels if ml is not None and k < ml)
        print("kernels %d, median %.1f us; launches %d, median %s us; kernels shorter than the median launch %d" % (
            len(kernels), statistics.median(kernels), len(launches),
            "%.1f" % ml if ml is not None else "n/a", short_k))
    if streams:
        print("GPU ops per stream:", dict(sorted(streams.items(), key=lambda kv: str(kv[0]))))
    loader = [e for e in xs if "DataLoader" in str(e.get("name")) and "__next__" in str(e.get("name"))]
    item = [e for e in xs if e.get("name") in ("aten::item", "aten::_local_scalar_dense")]
    mem = sum(1 for e in events if isinstance(e, dict) and e.get("name") == "[memory]")
    print("DataLoader __next__ %d (%.3f ms); aten::item/_local_scalar_dense %d; [memory] events %d" % (
        len(loader), sum(float(e.get("dur", 0)) for e in loader) / 1000.0, len(item), mem))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for p in sys.argv[1:]:
        report(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
