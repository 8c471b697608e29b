/* The public documents the built-in profiles' figures were read from (and
 * that the fidelity suite, tests/fidelity/, compares the simulator with).
 * Each says what was measured, with which tool and settings, on what host.
 * Repository files are pinned to the commit that was read. */
#include "profiles_refs.h"

#define ZZC "https://github.com/zzc0721/torch-performance-test-data"
#define ZZC_HOW                                                                                                   \
  "PyTorch torch.mm on N x N torch.randn inputs (test.py): 10 warm-up calls, then 30 calls back to back between " \
  "two CUDA events, no synchronize in between; FP32 with allow_tf32 off, TF32 with it on"

const lab_ref lab_profile_refs[] = {
    /* ---- links between GPUs (lab/sim/peer_link.c) ---- */
    {"nv-v100-ds", "https://images.nvidia.com/content/technologies/volta/pdf/tesla-volta-v100-datasheet-letter-fnl-web.pdf",
     "NVIDIA V100 datasheet: V100 SXM2 interconnect bandwidth NVLink 300 GB/s (both directions together)"},
    {"nv-a100-ds",
     "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
     "NVIDIA A100 datasheet: A100 SXM interconnect NVLink 600 GB/s (both directions together)"},
    {"nv-h100-ds", "https://www.nvidia.com/en-us/data-center/h100/",
     "NVIDIA H100 product page: H100 SXM interconnect NVLink 900 GB/s (both directions together)"},
    {"nccl-tests-178", "https://github.com/NVIDIA/nccl-tests/issues/178",
     "nccl-tests all_reduce_perf -b 8 -e 12G -f 2 -g 1 -t 2 on two A100 SXM joined by NV12 (12 NVLink 3 links, "
     "300 GB/s each way): bus bandwidth 208 GB/s at large sizes"},
    {"nccl-1439", "https://github.com/NVIDIA/nccl/issues/1439",
     "nccl-tests all_reduce_perf -b 8 -e 128M -f 2 -g 8 on eight GeForce RTX 3090 over PCIe (one process): an 8-byte "
     "all-reduce took 54.18 us out of place"},
    /* ---- datasheet peaks and specifications ---- */
    {"litgpt-flops",
     "https://github.com/Lightning-AI/litgpt/blob/07d0de6fca5cc19eaa35f805b00b216373d26f5b/lit_gpt/speed_monitor.py",
     "GPU_AVAILABLE_FLOPS, quoting NVIDIA datasheets (dense = sparse / 2): h100-sxm fp32 67e12, bf16/fp16 1.979e15/2; "
     "a100 fp32 19.5e12, bf16/fp16 312e12; a10g (A10 datasheet) fp32 31.2e12, bf16/fp16 125e12; v100-sxm fp32 "
     "15.7e12, fp16 125e12; t4 fp32 8.1e12, fp16 65e12 (no bf16 or tf32 entry for t4 or v100)"},
    {"klockwood-h100", "https://glennklockwood.com/garden/processors/h100",
     "H100 SXM5 from NVIDIA's datasheet: 132 SMs, 80 GB HBM3, 3.35 TB/s, 128 GB/s PCIe Gen5 (H2D, both ways); "
     "dense TFLOPS FP32 66.9, TF32 494.7, FP16/BF16 989.4"},
    {"klockwood-a100", "https://glennklockwood.com/garden/processors/A100",
     "A100 from NVIDIA's datasheet: 108 SMs; 80G SXM4: 80 GB HBM2e, 2.039 TB/s; 32+32 GB/s PCIe Gen4 (H2D); dense "
     "TFLOPS FP32 19.5, TF32 156, FP16/BF16 312"},
    {"waredb-4090", "https://waredb.com/processor/nvidia-geforce-rtx-4090",
     "GeForce RTX 4090: 24 GB GDDR6X, 1008 GB/s; FP32 82.58 TFLOPS; tensor FP16 165.15, BF16 165.15, TF32 82.58 "
     "TFLOPS dense"},
    {"techgoing-4090", "https://www.techgoing.com/nvidia-rtx-4090-gaming-graphics-cards-break-100-tflops-for-the-first-time/?amp=1",
     "RTX 4090 enables 128 of AD102's 144 SMs (16384 CUDA cores), 24 GB 384-bit GDDR6X"},
    {"fpsbench-l4", "https://fpsbench.com/compare/gpu/nvidia-l4-vs-nvidia-tesla-m40",
     "NVIDIA L4: 7,424 shading units, 24 GB GDDR6 at 300.1 GB/s, FP32 30.29 TFLOPS, PCIe 4.0 x16, 72 W TDP, CUDA 8.9"},
    {"sourcecode-l4", "https://store.sourcecode.com/en-us/bg-bucket-compare/125/9820",
     "vendor comparison, NVIDIA L4 column: TF32 Tensor Core 120 TFLOPS (with sparsity), 300 GB/s, PCIe 4.0 x16"},
    {"grokipedia-l4", "https://grokipedia.com/page/NVIDIA_L4_vs_L40S",
     "L4: 72 W, 24 GB GDDR6 at 300 GB/s, 242 TFLOPS FP16 Tensor Core (with sparsity)"},
    {"sysrqmts-a10", "https://sysrqmts.com/ru/gpus/compare/nvidia-a10-pcie-vs-nvidia-quadro-rtx-4000",
     "NVIDIA A10 PCIe: GA102, 72 SMs, 24 GB GDDR6 at 600.2 GB/s, PCIe 4.0 x16, FP32 31.24 TFLOPS"},
    {"baseten-a10g", "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/",
     "A10 vs A10G: AWS's A10G shares the A10's 24 GB GDDR6 at 600 GB/s; its tensor compute differs from the A10's "
     "(the A10 prioritizes tensor compute, the A10G CUDA-core performance)"},
    {"iotech-v100", "https://www.io-tech.fi/uutinen/nvidia-esitteli-tesla-v100-pci-express-kiihdyttimen-tieteelliseen-laskentaan/",
     "Tesla V100: 80 of GV100's 84 SMs enabled (5120 FP32 cores, 640 tensor cores), 16 GB HBM2 at 900 GB/s"},
    {"chiemon-t4", "https://chiemon.github.io/2024/12/25/%E6%98%BE%E5%8D%A1%E4%BF%A1%E6%81%AF.html",
     "deviceQuery on a Tesla T4: compute capability 7.5, 15110 MBytes (15843721216 bytes), 40 multiprocessors x 64 "
     "CUDA cores, 1590 MHz"},
    {"pcpart-t4", "https://pcpartcomparison.com/gpu/tesla-t4-vs-l4",
     "Tesla T4: Turing TU104, 16 GB GDDR6 at 320.0 GB/s, PCIe 3.0 x16, 8.141 TFLOPS FP32, 70 W"},
    {"superbench-311", "https://github.com/microsoft/superbenchmark/pull/311",
     "review of T4 benchmark configs: 'no TF32 support in Turing' (gemm-flops run as fp32, fp16, fp16_tc)"},
    {"apple-m1pro-9to5", "https://9to5mac.com/2021/10/18/apple-unveils-next-generation-m1-pro-and-m1-max-chips-for-new-macs/",
     "Apple's M1 Pro announcement as reported: 200GB/s memory bandwidth, up to 32GB of unified memory, up to 16-core "
     "GPU"},
    {"philipturner-metal",
     "https://github.com/philipturner/metal-benchmarks/blob/dc2adc640a1588246f4471d415aa6873cb6e3499/README.md",
     "Apple GPU table: row M1P, generation 7, 1.296 GHz, 16 cores, GOPS32 5308, GOPS16 5308 (cores x 128 ALUs x 2 x "
     "clock)"},
    {"guru3d-7900", "https://guru3d.com/review/xfx-radeon-rx-7900-xtx-magair-review/page-4",
     "AMD's RX 7900 XTX specification table: Navi 31, 96 CUs, boost 2.5 GHz, FP32 61 TFLOPs (61.4 in the text), 24 GB "
     "GDDR6, 384-bit, 20 Gbps, 960 GB/s, 355 W, PCIe 4.0"},
    {"cputronic-7900", "https://cputronic.com/en/gpu/amd-radeon-rx-7900-xtx",
     "spec page: RX 7900 XTX, Bus Interface PCIe 4.0 x16, boost 2499 MHz, 61.42 TFLOPS, 24 GB GDDR6"},
    {"toms-7900-copy", "https://bloglaralemi.com/2022/11/14/amd-radeon-rx-7900-collection-deep-dive/",
     "a copy of Tom's Hardware's RX 7900 spec table: TFLOPS FP32 (Enhance) 61.4, TFLOPS FP16 (FP8) 123, Bandwidth "
     "(GBps) 960"},
    {"cuda-event-doc",
     "https://developer.download.nvidia.com/compute/DevZone/docs/html/C/doc/html/"
     "group__CUDART__EVENT_g14c387cc57ce2e328f6669854e6020a5.html",
     "CUDA runtime API, cudaEventElapsedTime: 'Computes the elapsed time between two events (in milliseconds with a "
     "resolution of around 0.5 microseconds)'"},
    /* ---- published measurements ---- */
    {"zzc-db", ZZC "/blob/9d82827/database.md",
     ZZC_HOW "; the table lists each device's best TFLOPS over N = 1024, 2048, 4096, 8192, 10240"},
    {"zzc-79", ZZC "/issues/79", ZZC_HOW "; per N. NVIDIA H100 80GB HBM3, Docker cloud, Python 3.11, PyTorch 2.7.0+cu128"},
    {"zzc-78", ZZC "/issues/78", ZZC_HOW "; per N. GeForce RTX 4090 (cloud, 派欧云), Python 3.11, PyTorch 2.7.0 cu128"},
    {"zzc-140", ZZC "/issues/140", ZZC_HOW "; per N. Tesla V100-SXM2-16GB, bare metal, Python 3.11, PyTorch 2.7.0 cu128"},
    {"zzc-120", ZZC "/issues/120", ZZC_HOW "; per N. NVIDIA L4, bare metal, Python 3.12, PyTorch 2.9.0 cu128"},
    {"zzc-126", ZZC "/issues/126", ZZC_HOW "; per N. NVIDIA A10G, cloud, Python 3.10, PyTorch 2.7.0 cu128"},
    {"zzc-191", ZZC "/issues/191",
     "PyTorch torch.mm on N x N inputs (test.py): 10 warm-up calls, then 30 calls between two torch.mps.synchronize() "
     "and time.time(); per N. Apple M1 Pro 10 CPU + 16 GPU cores, 32 GB, laptop, Python 3.12.9, PyTorch 2.7.0 MPS"},
    {"zzc-68", ZZC "/issues/68", ZZC_HOW "; per N. AMD Radeon RX 7900 XTX, PyTorch 2.10.0.dev20251007 + ROCm 7.0"},
    {"zzc-db-7900", ZZC "/blob/bce6dd2ce949f9925019c09de9c4559aff076afe/database.md",
     ZZC_HOW "; the table lists each device's best TFLOPS: AMD Radeon RX 7900 XTX, physical machine, Python 3.13, "
     "PyTorch 2.8.0, ROCm 6.4 (Orion-zhen)"},
    {"pytorch-148219", "https://github.com/pytorch/pytorch/issues/148219",
     "averages over 1000 runs on an M1 Pro (16GB RAM), 1-element tensors, each op between synchronizes, its host "
     "dispatch in brackets: Metal-shader ops exp 7.6 [1.4], tanh 4.6 [1.2], erfinv 5.0 [1.3] us; MPSGraph ops sqrt "
     "21.0 [20.7], log 19.9 [19.6], sin 20.4 [20.0], cos 19.6 [19.2] us"},
    {"mps-oom-158", "https://github.com/haoheliu/AudioLDM2/issues/20",
     "MPS out-of-memory on an M1 MacBook Air with 16 GB: max allowed 18.13 GB, PyTorch's MPS limit of 1.7 "
     "(PYTORCH_MPS_HIGH_WATERMARK_RATIO) x Metal's recommended working set (tests/explain case 158)"},
    {"torch-props-7900", "https://github.com/ROCm/legacy-rocm-build/issues/5040",
     "PyTorch 2.9.0.dev20250713+rocm6.4 prints _CudaDeviceProperties(name='Radeon RX 7900 XTX', major=11, minor=0, "
     "gcnArchName='gfx1100', total_memory=24560MB, multi_processor_count=48, ...)"},
    {"rbt-2253", "https://github.com/ROCm/legacy-rocm-build/issues/2253",
     "rocm-bandwidth-test 2.6.0 (-a and -A), host AMD EPYC 7542, two RX 7900 XTX: unidirectional CPU to GPU 28.411 / "
     "28.410 GB/s, GPU to CPU 29.013 / 29.016 GB/s (the poster reports dmesg errors while it ran)"},
    {"hip-1304", "https://github.com/ROCm/hip/issues/1304",
     "Radeon VII (Vega 20), HIP 1.5: the first kernel 340.598 ms, the next ones 0.326 and 0.337 ms"},
    {"mli-3", "https://github.com/mli/transformers-benchmarks/issues/3",
     "matmul benchmark of mli/transformers-benchmarks, RTX 4090, Windows 11, PyTorch 2.3.1+cu118, default settings "
     "(TF32 off): torch.float32 54.695 TFLOPS at n=8192"},
    {"chsasank-bench", "https://github.com/chsasank/device-benchmarks/blob/7ccc88389b1eabd05365756bfd507bb6bc1d7ae0/README.md",
     "benchmark.py: memory bandwidth = 2 x bytes / time of a.copy_(b) between synchronizes, 2^20 to 2^26.5 floats, "
     "10 trials each; summary table of the best per device (T4 240, L4 235, V100 32GB 766, A10 469, A100 80GB 1490, "
     "4090 912 GB/s)"},
    {"router-gao-bw",
     "https://github.com/router-gao/cuda-demo/blob/dca1c6b28a29b06f1468d2e1bdc2fc3054d7c6a2/cuda-samples/02-cuda-bandwidth.md",
     "CUDA samples bandwidthTest, quick mode: 32,000,000-byte pinned copies (device to device counts read and write), "
     "Tesla T4 and Tesla V100-SXM2-16GB on an Alibaba Cloud ECS instance, and an A100-SXM4-40GB"},
    {"gengwg-bw", "https://github.com/gengwg/gpu/blob/54e9b29dd04137191a140917917658bf216b1d74/nvda_gpu_benchmark.md",
     "bandwidthTest --mode=quick --htod --dtoh, 32,000,000 bytes, pinned and pageable, on a DGX A100 "
     "(A100-SXM4-80GB) and a Dell A100 80GB PCIe server"},
    {"jdh4-della", "https://github.com/jdh4/della-gpu-A100/blob/4b00d9e7dc064ba88d9451caf9f44f049dd916f0/README.md",
     "bandwidthTest --mode=range, pinned, 1,000,000 to 10,000,000 bytes and 1e8 to 1e9 bytes, NVIDIA A100-PCIE-40GB "
     "(Princeton Della cluster), CUDA 11.3"},
    {"nvbw-15", "https://github.com/NVIDIA/nvbandwidth/issues/15",
     "nvbandwidth v0.2 (default buffer), 8x GeForce RTX 4090, CUDA 12.3, driver 545.29.06: host_to_device_memcpy_ce "
     "and device_to_host_memcpy_ce per GPU"},
    {"nvbw-6", "https://github.com/NVIDIA/nvbandwidth/issues/6",
     "nvbandwidth on a single-node H100 VM with 4 GPUs: 'bandwidths between the host and device 0, 1, 2 and 3 were "
     "14.2, 57.06, 56.68 and 57.07'"},
    {"uva-malloc", "https://www.cs.virginia.edu/~mwb7w/cuda_support/memory_management_overhead.html",
     "time per cudaMalloc call against size on a University of Virginia machine (Barracuda10; the GPU model is not named in the text read): "
     "slightly under 1 us below 256 B, then about 50 us from 4 KB up to 512 KB, rising above 512 KB"},
    {"flaggems-4558", "https://github.com/flagos-ai/FlagGems/issues/4558",
     "A100, bfloat16, us per call of eager torch.add: (1, 4096) 7.1 us, (16, 4096) 7.1 us, (4096, 4096) 77.6 us"},
    {"torchfl-27", "https://github.com/flagos-ai/Torch-FL/pull/27",
     "A100, us/op; 'submit' = N ops issued back to back and one sync at the end, so it times the host only: "
     "add[512^2] 8 us on the CUDA path"},
    {"openqmc-109", "https://github.com/AcademySoftwareFoundation/openqmc/issues/109",
     "RTX 4070 Laptop, Release build: a timed first launch that created the CUDA context took 151,538 and 124,115 us "
     "(two samplers), 312 and 119 us once a warm-up launch had created it (pull request 111: medians of three, "
     "133,457 and 131,444 us before)"},
    {"ocannl-488", "https://github.com/ahrefs/ocannl/issues/488",
     "RTX 5070 Ti Laptop (WSL2, CUDA 13.3): a chain of N no-op kernels, median of 200 reps after 50 warm-ups: graph "
     "replay ~15 us fixed + ~0.58 us per node; async enqueue ~2.65 us per launch"},
    {"tritonbench-1017", "https://github.com/meta-pytorch/tritonbench/pull/1017",
     "GB200: per-kernel launch overhead, cuLaunchKernel of a no-op kernel 3.0 us (0 args), 3.3 us (19 args)"},
};

const int lab_profile_ref_total = (int)(sizeof lab_profile_refs / sizeof lab_profile_refs[0]);
