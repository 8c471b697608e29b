"""Writes synthetic Kineto-format traces with known answers into
tests/doctor/fixtures/ (field names and categories as
libkineto/src/output_json.cpp writes them; see docs/doctor.md):

idle_item.json     5 steps of 10 ms; ProfilerStep#12 is 30 % busy, then a
                   7 ms gap in which the host sits in .item()
                   (aten::item > aten::_local_scalar_dense >
                   cudaStreamSynchronize); the other steps 90 % busy.
launch_bound.json  1 step: 400 kernels of 3 us, one every 10 us, each
                   launched by an 8 us cudaLaunchKernel.
pageable_copy.json 2 steps of 20 ms, each with a 64 MiB pageable copy
                   taking 10 ms (6.7 GB/s) and a 16 MiB pinned one taking
                   0.7 ms (24.0 GB/s), then matmul kernels.
flows_gap.json     1 step of 10 ms whose GPU ops carry no args.correlation:
                   only the ac2g flows (s at the cudaLaunchKernel, f at the
                   kernel) tie them. Kernel A runs 0.02-2 ms (launched at
                   0, 20 us before it starts); the host then runs Python
                   ops (no blocking call) and launches kernel B at 7 ms,
                   which starts 30 us later: a 5.03 ms gap put on that
                   launch.
cold_start.json    1 step of 30 ms: the first CUDA call,
                   cudaDeviceGetStreamPriorityRange inside aten::empty,
                   takes 24 ms (the context created on first use), then 10
                   kernels of 400 us launched 20 us apart.
stream_wait.json   1 step of 10 ms: the host launches everything in its
                   first 0.5 ms and then runs Python ops: kernels on stream
                   7 until 3 ms, an NCCL all-reduce on stream 20 launched at
                   0.2 ms that starts at 6 ms (its peers were late), and a
                   kernel on stream 7 behind it (cudaStreamWaitEvent): the
                   3 ms gap ends with the collective, launched before it.
Run: python3 tests/doctor/make_synthetic.py"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
T0 = 1_700_000_000_000  # Kineto writes absolute microseconds


class Trace:
    def __init__(self):
        self.ev = []
        self.corr = 0

    def cpu(self, name, ts, dur, cat="cpu_op"):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": 100, "ts": T0 + ts, "dur": dur,
                        "args": {"External id": len(self.ev)}})

    def gpu(self, cat, name, ts, dur, stream=7, **args):
        self.corr += 1
        a = {"device": 0, "stream": stream, "correlation": self.corr}
        a.update(args)
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": T0 + ts, "dur": dur,
                        "args": a})
        # the launch-to-kernel flow Kineto adds (cat ac2g)
        self.ev.append({"ph": "f", "id": self.corr, "pid": 0, "tid": stream, "ts": T0 + ts, "cat": "ac2g",
                        "name": "ac2g", "bp": "e"})

    def memory(self, ts, alloc, reserved):
        self.ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 100, "tid": 100,
                        "ts": T0 + ts, "args": {"Total Reserved": reserved, "Total Allocated": alloc, "Bytes": 4096,
                                                "Device Type": 1, "Device Id": 0}})

    def write(self, name):
        doc = {"schemaVersion": 1,
               "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85899345920,
                                     "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                                     "numSms": 108, "sharedMemPerBlock": 49152, "regsPerBlock": 65536,
                                     "warpSize": 32}],
               "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
               "traceEvents": self.ev, "traceName": name, "displayTimeUnit": "ms"}
        with open(os.path.join(OUT, name), "w") as f:
            json.dump(doc, f, indent=None)


def idle_item():
    t = Trace()
    for i, n in enumerate(range(10, 15)):
        s = i * 10_000
        t.cpu(f"ProfilerStep#{n}", s, 10_000, cat="user_annotation")
        busy = 3_000 if n == 12 else 9_000
        for k in range(3):  # three matmuls fill the busy part
            t.gpu("kernel", "ampere_sgemm_128x64_tn", s + k * busy // 3, busy // 3)
            t.cpu("cudaLaunchKernel", s + k * 10, 6, cat="cuda_runtime")
        if n == 12:
            t.cpu("aten::item", s + 3_000, 7_000)
            t.cpu("aten::_local_scalar_dense", s + 3_000, 6_990)
            t.cpu("cudaStreamSynchronize", s + 3_010, 6_970, cat="cuda_runtime")
        t.memory(s + 5, 2 << 30, 4 << 30)
    t.write("idle_item.json")


def launch_bound():
    t = Trace()
    t.cpu("ProfilerStep#0", 0, 4_000, cat="user_annotation")
    for k in range(400):
        t.cpu("cudaLaunchKernel", k * 10, 8, cat="cuda_runtime")
        t.gpu("kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>", k * 10 + 5, 3)
    t.write("launch_bound.json")


def pageable_copy():
    t = Trace()
    for i in range(2):
        s = i * 20_000
        t.cpu(f"ProfilerStep#{i}", s, 20_000, cat="user_annotation")
        t.cpu("cudaMemcpyAsync", s, 10_000, cat="cuda_runtime")
        t.gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", s, 10_000, bytes=64 << 20)
        t.gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", s + 10_000, 700, bytes=16 << 20)
        t.gpu("kernel", "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32", s + 10_700, 9_000)
    t.write("pageable_copy.json")


def flows_gap():
    t = Trace()
    t.cpu("ProfilerStep#3", 0, 10_000, cat="user_annotation")

    def launch(flow, at, kernel, start, end):
        # a runtime call and its kernel tied only by Kineto's ac2g flow (ph s / f, id shared)
        t.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                     "ts": T0 + at, "dur": 10, "args": {"cbid": 211}})
        t.ev.append({"ph": "s", "id": flow, "pid": 100, "tid": 100, "ts": T0 + at, "cat": "ac2g", "name": "ac2g"})
        t.ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": T0 + start,
                     "dur": end - start, "args": {"device": 0, "stream": 7}})
        t.ev.append({"ph": "f", "id": flow, "pid": 0, "tid": 7, "ts": T0 + start, "cat": "ac2g", "name": "ac2g",
                     "bp": "e"})

    launch(41, 0, "ampere_sgemm_128x64_tn (A)", 20, 2_000)
    t.cpu("aten::cat", 10, 3_000)
    t.cpu("aten::index", 3_000, 3_990)
    launch(42, 7_000, "ampere_sgemm_128x64_tn (B)", 7_030, 10_000)
    t.write("flows_gap.json")


def launch(t, at, cat, name, start, dur, stream=7, **args):
    """A cudaLaunchKernel at `at` and its GPU op, tied by args.correlation as Kineto writes it."""
    t.gpu(cat, name, start, dur, stream=stream, **args)
    t.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                 "ts": T0 + at, "dur": 8, "args": {"correlation": t.corr}})


def cold_start():
    t = Trace()
    t.cpu("ProfilerStep#0", 0, 30_000, cat="user_annotation")
    t.cpu("aten::empty", 5, 24_100)
    t.cpu("cudaDeviceGetStreamPriorityRange", 10, 24_000, cat="cuda_runtime")
    for k in range(10):
        launch(t, 24_200 + k * 20, "kernel", "ampere_sgemm_128x64_tn", 24_230 + k * 400, 400)
    t.write("cold_start.json")


def stream_wait():
    t = Trace()
    t.cpu("ProfilerStep#7", 0, 10_000, cat="user_annotation")
    for k in range(3):
        launch(t, k * 50, "kernel", "ampere_sgemm_128x64_tn", 20 + k * 1_000, 1_000)
    launch(t, 200, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 6_000, 1_000, stream=20)
    t.cpu("cudaStreamWaitEvent", 250, 5, cat="cuda_runtime")
    launch(t, 300, "kernel", "ampere_sgemm_128x64_tn", 7_010, 1_000)
    t.cpu("aten::add_", 500, 9_000)
    t.write("stream_wait.json")


if __name__ == "__main__":
    cold_start()
    stream_wait()
    idle_item()
    launch_bound()
    pageable_copy()
    flows_gap()
