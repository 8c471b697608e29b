"""Cold start and footprint on a GPU: a fresh process's time to its first
result and its peak resident memory, gpulab's worker beside PyTorch.
Each command runs SAMPLES times (default 5) in a fresh process; wall time
is the host clock from spawn to exit, memory is the child's ru_maxrss
(os.wait4). Prints one JSON object. Usage: cold_peer.py BUNDLE_ROOT [N [SAMPLES]]"""
import json
import os
import statistics
import sys
import time

def measure_rss(argv, samples):
    """Fork/exec by hand, so that wait4 gives this child's own rusage."""
    walls, rss, last, rc = [], [], "", 0
    for _ in range(samples):
        r, w = os.pipe()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.dup2(w, 1)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            os.close(r)
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        os.close(w)
        chunks = []
        while True:
            b = os.read(r, 65536)
            if not b:
                break
            chunks.append(b)
        os.close(r)
        _, status, usage = os.wait4(pid, 0)
        walls.append((time.perf_counter() - t0) * 1e3)
        rss.append(usage.ru_maxrss / 1024)
        last = b"".join(chunks).decode(errors="replace").strip()[-400:]
        rc = os.waitstatus_to_exitcode(status)
    return {"argv": " ".join(argv), "samples": samples, "wall_ms_median": statistics.median(walls),
            "wall_ms_min": min(walls), "wall_ms_max": max(walls), "max_rss_mib": statistics.median(rss),
            "last_output": last, "rc": rc}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    n = sys.argv[2] if len(sys.argv) > 2 else "2048"
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    torch_first = ("import torch; a = torch.randn(%s, %s, device='cuda'); b = a @ a; "
                   "torch.cuda.synchronize(); print(float(b[0, 0]))" % (n, n))
    result = {
        "method": f"fresh process each time, {samples} samples, median wall (spawn to exit) and median peak RSS",
        "gpulab_worker_first_sgemm": measure_rss([os.path.join(root, "bin/gpulab-worker"), "--cold-sgemm", n, "1"], samples),
        "gpulab_device_check": measure_rss([os.path.join(root, "bin/gpulab"), "device", "--json"], samples),
        "torch_cuda_init": measure_rss([sys.executable, "-c", "import torch; torch.cuda.init(); print(torch.cuda.is_initialized())"], samples),
        "torch_first_matmul": measure_rss([sys.executable, "-c", torch_first], samples),
    }
    # The worker's own line (the last sample's) names the cold bar's first
    # part as the timing result does: context_ms, starting CUDA.
    try:
        line = json.loads(result["gpulab_worker_first_sgemm"]["last_output"].splitlines()[-1])
        result["gpulab_worker_first_sgemm"]["context_ms"] = line["context_ms"]
        result["gpulab_worker_first_sgemm"]["first_ms"] = line["first_ms"]
    except (ValueError, KeyError, IndexError, TypeError):
        pass
    print(json.dumps(result))


if __name__ == "__main__":
    main()
