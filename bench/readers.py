"""`make bench`: the readers and the device check, each beside a peer
measured in the same run.
 1. CPU per MiB of input (bench/reader_bench.c): the explainer per
    recogniser on its own messages and on its worst paste, beside memchr
    walking the same bytes by lines; the doctor plain and through the gzip
    path, beside zlib's own inflate of the same .gz.
 2. `gpulab device`: wall time and peak resident memory (the command and
    its children, GNU time's %M), the median of 7 runs, beside `gpulab
    version` (the process start-up alone) and the GPU worker asked for its
    runtime view directly (what the check cost when it always started the
    worker; on a machine with no NVIDIA driver it no longer does).
Usage: python3 bench/readers.py BUILD [MIB_OF_TRACE]"""
import json
import os
import subprocess
import sys
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
mib = sys.argv[2] if len(sys.argv) > 2 else "64"
gpulab, worker = os.path.join(build, "bin", "gpulab"), os.path.join(build, "bin", "gpulab-worker")

bench = os.path.join(build, "bench", "reader_bench")
if os.access(bench, os.X_OK):
    r = json.loads(subprocess.run([bench, mib], check=True, capture_output=True, text=True).stdout)
    print("Readers: ms of CPU per MiB of input, median of 5 batches of >= 20 ms")
    print(f"  {'explain recogniser':18s} {'its messages':>13s} {'worst paste':>12s} {'peer: memchr lines':>19s} "
          f"{'worst/peer':>11s}")
    for c in r["explain"]:
        m, w, p = (c[k] * 1000 for k in ("messages_s_per_mib", "worst_s_per_mib", "peer_lines_s_per_mib"))
        print(f"  {c['kind']:18s} {m:13.2f} {w:12.2f} {p:19.3f} {w / p:10.0f}x")
    d = r["doctor"]
    pl, gz, inf = (d[k] * 1000 for k in ("plain_s_per_mib", "gzip_s_per_mib", "peer_inflate_s_per_mib"))
    print(f"  doctor, {d['json_mib']:.0f} MiB of JSON ({d['gzip_mib']:.1f} MiB gzipped): plain {pl:.2f}, "
          f"gzip path {gz:.2f}; peer: zlib inflate {inf:.3f} (gzip path/inflate {gz / inf:.0f}x, "
          f"gzip path/plain {gz / pl:.2f}x)")
else:
    print(f"  reader bench skipped: {bench} not built (make bench-bins)")


def measure(cmd, stdin=None):
    # through GNU time, a small process: a child forked from Python would
    # count Python's own resident memory in its peak
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], input=stdin, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    return time.monotonic() - t0, int(r.stderr.split()[-1]) / 1024


def median(cmd, stdin=None, n=7):
    runs = [measure(cmd, stdin) for _ in range(n)]
    walls, rss = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
    return walls[n // 2] * 1000, rss[n // 2]


dev = median([gpulab, "device", "--json"])
ver = median([gpulab, "version"])
old = median([worker], b'{"job":"runtime_view"}\n')
print("Device check: median of 7, wall time and peak RSS (with children, GNU time)")
print(f"  {'gpulab device --json':40s} {dev[0]:8.1f} ms {dev[1]:8.1f} MiB")
print(f"  {'peer: gpulab version':40s} {ver[0]:8.1f} ms {ver[1]:8.1f} MiB   device/version {dev[0] / ver[0]:.2f}x")
print(f"  {'peer: the worker asked directly':40s} {old[0]:8.1f} ms {old[1]:8.1f} MiB   device/worker "
      f"{dev[0] / old[0]:.2f}x")
