"""gpulab doctor on a large generated trace beside Python's json.load of the
same file (what HTA and most trace readers do first): wall time and peak
RSS of each, as separate processes measured with wait4; then the same file
read by the page's reader in headless Chromium (bench/doctor_browser.mjs).
Usage: python3 bench/doctor_bench.py GPULAB_BIN MB
The trace is Kineto-shaped (steps, cpu_ops, cudaLaunchKernel, kernels with
stream args and ac2g flows), written to a temporary file and removed."""
import os
import subprocess
import sys
import tempfile
import time


def write_trace(path, mb):
    target = mb * 1024 * 1024
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", '
                '"totalGlobalMem": 85520809984, "computeMajor": 9, "computeMinor": 0}], "traceEvents": [\n')
        t, step, n, first = 0, 0, 0, True
        while f.tell() < target:
            f.write(('' if first else ',\n') + '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", '
                    '"pid": 1, "tid": 1, "ts": %d, "dur": 10000, "args": {}}' % (step, t))
            first = False
            parts = []
            for k in range(200):
                s = t + k * 50
                parts.append('{"ph": "X", "cat": "cpu_op", "name": "aten::linear_%d", "pid": 1, "tid": 1, "ts": %d, '
                             '"dur": 20, "args": {"External id": %d}}' % (k % 50, s, n))
                parts.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, '
                             '"ts": %d, "dur": 6, "args": {"correlation": %d}}' % (s + 10, n))
                parts.append('{"ph": "X", "cat": "kernel", "name": "void at::native::elementwise_kernel_%d", '
                             '"pid": 0, "tid": 7, "ts": %d, "dur": 30, "args": {"device": 0, "stream": 7, '
                             '"correlation": %d}}' % (k % 50, s + 15, n))
                parts.append('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %d, "cat": "ac2g", "name": "ac2g", '
                             '"bp": "e"}' % (n, s + 15))
                n += 1
            f.write(',\n' + ',\n'.join(parts))
            t += 10000
            step += 1
        f.write('\n]}\n')
    return os.path.getsize(path), n


def measure(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t0, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main():
    bin_, mb = sys.argv[1], int(sys.argv[2])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "trace.json")
        size, kernels = write_trace(path, mb)
        print(f"gpulab doctor on a generated {size / 1e6:.0f} MB Kineto-shaped trace ({kernels} kernels), "
              "wall time and peak RSS, each a separate process")
        dt, rss, rc = measure([bin_, "doctor", path, "--json"])
        print(f"  gpulab doctor (streaming)   {dt:8.2f} s  {rss:8.0f} MiB peak RSS  exit {rc}")
        pt, prss, prc = measure(["/usr/bin/python3", "-c", "import json, sys; json.load(open(sys.argv[1]))", path])
        print(f"  python3 json.load (peer)    {pt:8.2f} s  {prss:8.0f} MiB peak RSS  exit {prc}")
        print(f"  doctor/peer: time {dt / pt:.2f}x, memory {rss / prss:.3f}x")
        # The same file through the page's reader (#doctor) in headless
        # Chromium: the doctor module in a Web Worker (bench/doctor_browser.mjs).
        build = os.path.dirname(os.path.dirname(os.path.abspath(bin_)))
        if os.path.exists(os.path.join(build, "web", "gpulab_reader.js")) and os.path.exists("/usr/bin/chromium"):
            here = os.path.dirname(os.path.abspath(__file__))
            r = subprocess.run(["node", os.path.join(here, "doctor_browser.mjs"), build, path])
            if r.returncode:
                print(f"  page reader: exit {r.returncode}")
        else:
            print("  page reader: skipped (no gpulab_reader.js in the build, or no /usr/bin/chromium)")


if __name__ == "__main__":
    main()
