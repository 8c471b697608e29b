/* The built-in device profiles and where every figure comes from. Kinds:
 * datasheet (vendor peak or spec), measured (a published run on this GPU),
 * derived (worked out from published figures; the note says how) and
 * estimate (no published source: named as such in every simulated result).
 * The references are in lab/sim/profiles_refs.c. To add a profile, add its
 * figures and sources here; nothing else in gpulab names it. A figure the
 * device has no use for (no host link on unified memory) is absent: its
 * source says why, and its platform (lab/sim/platform.h) keeps the
 * experiments that would need it from running.
 *
 * Efficiencies (gemm_efficiency, tc_efficiency) are the shares of peak a
 * large matmul reaches in the model of lab/sim/gpu_model.c, read off the largest
 * published runs; the fidelity suite (tests/fidelity/) marks the rows they
 * were fitted to. */
#include "profiles_data.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

#define S(f, kind, ref, note) {#f, LAB_SRC_##kind, ref, note}
#define EST(f, note) {#f, LAB_SRC_ESTIMATE, NULL, note}

/* Figures no published source supports for any profile, and those every
 * profile takes from the same source. */
#define COMMON_SOURCES                                                                                               \
  EST(context_bytes, "what a CUDA context with cuBLAS loaded holds; lazy loading keeps it to a few hundred MB"),   \
  EST(copy_latency_us, "fixed cost of one cudaMemcpy (driver call + copy-engine start); no per-GPU source"),       \
  EST(launch_us, "host cost of one raw kernel launch; published no-op launches cost 2.65 us (RTX 5070 Ti laptop, " \
                 "ocannl-488) and 3.0 us (GB200, tritonbench-1017), neither on this GPU"),                         \
  S(torch_op_us, DERIVED, "flaggems-4558",                                                                         \
    "7.1 us per eager torch.add on an A100 (flaggems-4558; torchfl-27 measured 8 us/op host time) minus the "      \
    "a100-sxm raw launch (3.0 us); PyTorch's host cost depends on the host CPU, so other GPUs reuse it"),           \
  EST(kernel_min_us, "shortest time a kernel occupies the GPU when launched one by one"),                          \
  EST(blas_us, "what cuBLAS adds on the host to a matmul call's launch: 0, not modelled by the built-in profiles; " \
               "gpulab calibrate fits it (an H100 with CUDA 13 spent 12.4 us per cublasSgemm call)"),            \
  EST(graph_node_us, "GPU cost of one kernel node of a replayed graph: ~0.58 us per node measured on an RTX 5070 " \
                     "Ti laptop (ocannl-488), not on this GPU"),                                                     \
  EST(sync_us, "cost of one cudaStreamSynchronize once the GPU is idle"),                                          \
  EST(pin_gbps, "page-locking (cudaHostRegister) rate; depends on the host's memory and kernel"),                  \
  S(malloc_us, DERIVED, "uva-malloc",                                                                               \
    "about 50 us per cudaMalloc from 4 KB to 512 KB (uva-malloc), measured on another GPU; used for every profile"), \
  EST(malloc_us_per_mib, "what each MiB above 512 KiB adds to cudaMalloc (page mapping); uva-malloc shows a rise " \
                         "above 512 KB without a figure read here"),                                                \
  EST(free_us_per_mib, "what each MiB adds to cudaFree (unmapping), on top of its synchronize"),                   \
  EST(cache_pair_us, "host bookkeeping of one allocate + free from a caching allocator; " CACHE_PAIR_SEEN),        \
  EST(driver_cuda_version, "the simulated driver view reports a current Linux driver"),                            \
  EST(driver_version, "the simulated driver view reports a current Linux driver")

/* What a cache hit costs the host; the only measurement on a GPU's host. */
/* gpulab's own runs on a real GPU (tests/gpu/measured/: its README). */
#define LEASE "gpulab's H100 lease of 2026-11-28"
#define CACHE_PAIR_SEEN LEASE ": its pool 0.28 us; PyTorch's 3.5 us makes a tensor too"

#define UNIFIED_COPY                                                                                       \
  "no host link: a copy between a CPU and an MPS tensor is a copy within the one memory, at half the measured " \
  "copy rate (176 GB/s counts read and write): 88; pinned and pageable are the same memory"

#define PAGEABLE_FROM_A100                                                                                          \
  "pinned x the A100's measured pageable/pinned ratio (10.0/25.7 H2D, 10.8/25.8 D2H, gengwg-bw); pageable speed " \
  "depends on the host's CPU and memory"

/* Starting CUDA on the NVIDIA profiles without a run of their own (the
 * H100's were measured by gpulab's first lease). */
#define CUDA_START_SOURCES                                                                                         \
  EST(context_ms, "starting CUDA, the first CUDA call of a process creating the context (persistence mode on): a "   \
                  "first launch that created the context took 124 to 152 ms on an RTX 4070 Laptop (openqmc-109), "  \
                  "not on this GPU"),                                                                              \
  EST(cold_start_ms, "the first batch once the context exists: creating the cuBLAS handle and loading its kernels")

static const lab_src t4_src[] = {
    COMMON_SOURCES,
    CUDA_START_SOURCES,
    S(mem_peak_gbps, DATASHEET, "pcpart-t4", "16 GB GDDR6 at 320.0 GB/s"),
    S(compute_capability, MEASURED, "chiemon-t4", "deviceQuery: 7.5"),
    S(sm_count, MEASURED, "chiemon-t4", "deviceQuery: (40) Multiprocessors"),
    S(memory_bytes, MEASURED, "chiemon-t4", "deviceQuery: 15110 MBytes (15843721216 bytes)"),
    S(pcie_gen, DATASHEET, "pcpart-t4", "PCIe 3.0 x16"),
    S(pcie_lanes, DATASHEET, "pcpart-t4", "PCIe 3.0 x16"),
    S(mem_bw_gbps, MEASURED, "router-gao-bw", "bandwidthTest device to device 239.6 GB/s at 32,000,000 bytes"),
    S(h2d_pinned_gbps, MEASURED, "router-gao-bw", "bandwidthTest host to device, pinned, 9.7 GB/s at 32 MB"),
    S(d2h_pinned_gbps, MEASURED, "router-gao-bw", "bandwidthTest device to host, pinned, 11.1 GB/s at 32 MB"),
    S(h2d_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(d2h_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(fp32_tflops, DATASHEET, "litgpt-flops", "t4: float32 8.1e12"),
    S(tf32_tflops, DATASHEET, "superbench-311", "no TF32 tensor cores on Turing ('no TF32 support in Turing')"),
    S(fp16_tflops, DATASHEET, "litgpt-flops", "t4: float16 65e12 (tensor cores)"),
    S(bf16_tflops, DATASHEET, "litgpt-flops", "no BF16 tensor cores: the T4 datasheet entry has no bf16 figure"),
    S(gemm_efficiency, DERIVED, "zzc-db", "best FP32 4.35 TFLOPS (Kaggle) and 4.17 (Colab) of 8.1"),
    S(tc_efficiency, DERIVED, "zzc-db", "best FP16 41.93 TFLOPS (Kaggle) and 41.91 (Colab) of 65"),
    EST(tc_tile_m, "tensor-core gemm tile of cuBLAS on a small-SM GPU (as fitted on the RTX 4090 and A10G)"),
    EST(tc_tile_n, "tensor-core gemm tile of cuBLAS on a small-SM GPU (as fitted on the RTX 4090 and A10G)"),
    S(power_cap, DERIVED, "zzc-db", "1: the T4's 70 W limit is already inside its measured efficiencies"),
    S(bf16_fallback, DERIVED, "zzc-db", "BF16 2.01 and 2.46 TFLOPS against FP32 4.35 and 4.17 (Kaggle, Colab): ~0.5x"),
};

static const lab_src l4_src[] = {
    COMMON_SOURCES,
    CUDA_START_SOURCES,
    S(mem_peak_gbps, DATASHEET, "fpsbench-l4", "24 GB GDDR6 at 300.1 GB/s"),
    S(compute_capability, DATASHEET, "fpsbench-l4", "CUDA 8.9"),
    S(sm_count, DERIVED, "fpsbench-l4", "7,424 shading units / 128 per Ada SM = 58"),
    S(memory_bytes, DERIVED, "fpsbench-l4", "24 GB (22.35 GiB); the exact size the driver reports is not in a source"),
    S(pcie_gen, DATASHEET, "fpsbench-l4", "PCIe 4.0 x16"),
    S(pcie_lanes, DATASHEET, "fpsbench-l4", "PCIe 4.0 x16"),
    S(mem_bw_gbps, MEASURED, "chsasank-bench", "NVIDIA L4: 235 GB/s"),
    S(h2d_pinned_gbps, DERIVED, "gengwg-bw", "a Gen4 x16 link: as measured on A100 (25.7, gengwg-bw) and RTX 4090 "
                                             "(25.50, nvbw-15); no L4 copy run read"),
    S(d2h_pinned_gbps, DERIVED, "gengwg-bw", "a Gen4 x16 link: as measured on A100 (25.8, gengwg-bw) and RTX 4090 "
                                             "(26.77, nvbw-15); no L4 copy run read"),
    S(h2d_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(d2h_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(fp32_tflops, DATASHEET, "fpsbench-l4", "FP32 30.29 TFLOPS"),
    S(tf32_tflops, DATASHEET, "sourcecode-l4", "TF32 Tensor Core 120 TFLOPS with sparsity: 60 dense"),
    S(fp16_tflops, DATASHEET, "grokipedia-l4", "242 TFLOPS FP16 Tensor Core with sparsity: 121 dense"),
    S(bf16_tflops, DERIVED, "waredb-4090", "Ada runs BF16 at its FP16 tensor rate (RTX 4090: 165.15 both): 121"),
    S(gemm_efficiency, DERIVED, "zzc-78", "the Ada SIMT share of the RTX 4090 (53.41 of 82.58 TFLOPS); L4's own is "
                                          "that times power_cap"),
    S(tc_efficiency, DERIVED, "zzc-78", "the Ada tensor-core share of the RTX 4090 (FP16 155.5-168.4 of 165.15)"),
    EST(tc_tile_m, "tensor-core gemm tile of cuBLAS on Ada (as fitted on the RTX 4090)"),
    EST(tc_tile_n, "tensor-core gemm tile of cuBLAS on Ada (as fitted on the RTX 4090)"),
    S(power_cap, DERIVED, "zzc-120", "72 W limit: at N = 8192 FP16 53.80 and BF16 59.40 TFLOPS, about 0.48 of "
                                     "0.97 x 121"),
    S(bf16_fallback, DATASHEET, "grokipedia-l4", "not used: BF16 runs on the tensor cores"),
};

static const lab_src a10g_src[] = {
    COMMON_SOURCES,
    CUDA_START_SOURCES,
    S(mem_peak_gbps, DATASHEET, "baseten-a10g", "600 GB/s, shared with the A10 (sysrqmts-a10: 600.2 GB/s)"),
    S(compute_capability, DERIVED, "sysrqmts-a10", "GA102 (Ampere consumer die): 8.6"),
    S(sm_count, DERIVED, "sysrqmts-a10", "the A10's 72 SMs; the A10G's own count is not in a source read"),
    S(memory_bytes, DERIVED, "baseten-a10g", "24 GB like the A10 (22.35 GiB); the reported size is not in a source"),
    S(pcie_gen, DERIVED, "sysrqmts-a10", "PCIe 4.0 x16 (A10)"),
    S(pcie_lanes, DERIVED, "sysrqmts-a10", "PCIe 4.0 x16 (A10)"),
    S(mem_bw_gbps, DERIVED, "chsasank-bench", "A10 24GB: 469 GB/s; the A10G has the same memory (baseten-a10g)"),
    S(h2d_pinned_gbps, DERIVED, "gengwg-bw", "a Gen4 x16 link: as measured on A100 (25.7) and RTX 4090 (25.50)"),
    S(d2h_pinned_gbps, DERIVED, "gengwg-bw", "a Gen4 x16 link: as measured on A100 (25.8) and RTX 4090 (26.77)"),
    S(h2d_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(d2h_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(fp32_tflops, DATASHEET, "litgpt-flops", "a10g: float32 31.2e12 (A10 datasheet)"),
    S(tf32_tflops, DERIVED, "klockwood-a100", "half the FP16 tensor peak, as on every Ampere part (A100: 156 vs 312)"),
    S(fp16_tflops, DATASHEET, "litgpt-flops", "a10g: float16 125e12 (A10 datasheet; the A10G's own is not "
                                              "published, baseten-a10g)"),
    S(bf16_tflops, DATASHEET, "litgpt-flops", "a10g: bfloat16 125e12 (A10 datasheet)"),
    S(gemm_efficiency, DERIVED, "zzc-126", "FP32 23.37 TFLOPS at N = 4096 of 31.2"),
    S(tc_efficiency, DERIVED, "zzc-126", "FP16 69.47 and BF16 69.47 TFLOPS at N = 10240 of the A10's 125: the "
                                         "A10G's lower tensor rate (baseten-a10g) shows here"),
    EST(tc_tile_m, "fitted to the A10G's N = 1024 point (zzc-126): 128 x 64 tiles"),
    EST(tc_tile_n, "fitted to the A10G's N = 1024 point (zzc-126): 128 x 64 tiles"),
    S(power_cap, DERIVED, "zzc-126", "1: no drop at large N in the published run"),
    S(bf16_fallback, DATASHEET, "litgpt-flops", "not used: BF16 runs on the tensor cores"),
};

static const lab_src v100_src[] = {
    COMMON_SOURCES,
    CUDA_START_SOURCES,
    S(mem_peak_gbps, DATASHEET, "iotech-v100", "16 GB HBM2 at 900 GB/s"),
    S(compute_capability, DERIVED, "iotech-v100", "Volta GV100: 7.0"),
    S(sm_count, DATASHEET, "iotech-v100", "80 of GV100's 84 SMs"),
    S(memory_bytes, DERIVED, "iotech-v100", "16 GB HBM2 (14.9 GiB to 16 GiB); the reported size is not in a source"),
    S(pcie_gen, DERIVED, "router-gao-bw", "measured 9.6/11.4 GB/s fit a PCIe Gen3 x16 host link"),
    S(pcie_lanes, DERIVED, "router-gao-bw", "measured 9.6/11.4 GB/s fit a PCIe Gen3 x16 host link"),
    S(mem_bw_gbps, MEASURED, "router-gao-bw", "bandwidthTest device to device 739.8 GB/s at 32 MB"),
    S(h2d_pinned_gbps, MEASURED, "router-gao-bw", "bandwidthTest host to device, pinned, 9.6 GB/s at 32 MB"),
    S(d2h_pinned_gbps, MEASURED, "router-gao-bw", "bandwidthTest device to host, pinned, 11.4 GB/s at 32 MB"),
    S(h2d_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(d2h_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(fp32_tflops, DATASHEET, "litgpt-flops", "v100-sxm: float32 15.7e12"),
    S(tf32_tflops, DATASHEET, "litgpt-flops", "no TF32 on Volta: the v100-sxm entry has float64/32/16 only"),
    S(fp16_tflops, DATASHEET, "litgpt-flops", "v100-sxm: float16 125e12 (tensor cores)"),
    S(bf16_tflops, DATASHEET, "litgpt-flops", "no BF16 tensor cores: the v100-sxm entry has no bfloat16"),
    S(gemm_efficiency, DERIVED, "zzc-140", "FP32 14.38 TFLOPS at N = 8192 of 15.7"),
    S(tc_efficiency, DERIVED, "zzc-140", "FP16 97.36 TFLOPS at N = 8192 of 125"),
    EST(tc_tile_m, "tensor-core gemm tile of cuBLAS on Volta (fits zzc-140's N = 1024 and 2048 points)"),
    EST(tc_tile_n, "tensor-core gemm tile of cuBLAS on Volta (fits zzc-140's N = 1024 and 2048 points)"),
    S(power_cap, DERIVED, "zzc-140", "1: no drop at large N in the published run"),
    S(bf16_fallback, DERIVED, "zzc-140", "BF16 10.65 against FP32 14.38 TFLOPS at N = 8192: 0.74x"),
};

static const lab_src a100_src[] = {
    COMMON_SOURCES,
    CUDA_START_SOURCES,
    S(mem_peak_gbps, DATASHEET, "klockwood-a100", "80G SXM4: 2.039 TB/s"),
    S(compute_capability, DERIVED, "klockwood-a100", "Ampere GA100: 8.0"),
    S(sm_count, DATASHEET, "klockwood-a100", "108 SMs"),
    S(memory_bytes, DERIVED, "klockwood-a100", "80 GB HBM2e; the size the driver reports is not in a source read"),
    S(pcie_gen, DATASHEET, "klockwood-a100", "32+32 GB/s PCIe Gen4 (x16)"),
    S(pcie_lanes, DATASHEET, "klockwood-a100", "32+32 GB/s PCIe Gen4 (x16)"),
    S(mem_bw_gbps, MEASURED, "chsasank-bench", "Nvidia A100 80GB: 1490 GB/s"),
    S(h2d_pinned_gbps, MEASURED, "gengwg-bw", "DGX A100, pinned, host to device 25.7 GB/s"),
    S(d2h_pinned_gbps, MEASURED, "gengwg-bw", "DGX A100, pinned, device to host 25.8 GB/s"),
    S(h2d_pageable_gbps, MEASURED, "gengwg-bw", "DGX A100, pageable, host to device 10.0 GB/s"),
    S(d2h_pageable_gbps, MEASURED, "gengwg-bw", "DGX A100, pageable, device to host 10.8 GB/s"),
    S(fp32_tflops, DATASHEET, "klockwood-a100", "FP32 19.5"),
    S(tf32_tflops, DATASHEET, "klockwood-a100", "TF32 156 dense"),
    S(fp16_tflops, DATASHEET, "klockwood-a100", "FP16 312 dense"),
    S(bf16_tflops, DATASHEET, "klockwood-a100", "BF16 312 dense"),
    S(gemm_efficiency, DERIVED, "zzc-db", "A100 SXM4 80GB best FP32 19.18 TFLOPS of 19.5"),
    S(tc_efficiency, DERIVED, "zzc-db", "A100 SXM4 80GB best FP16 258.74 and BF16 264.53 TFLOPS of 312"),
    EST(tc_tile_m, "tensor-core gemm tile of cuBLAS on Ampere data-centre parts: no per-size A100 SXM run read"),
    EST(tc_tile_n, "tensor-core gemm tile of cuBLAS on Ampere data-centre parts: no per-size A100 SXM run read"),
    S(power_cap, DERIVED, "zzc-db", "1: the best runs are at the largest sizes"),
    S(bf16_fallback, DATASHEET, "klockwood-a100", "not used: BF16 runs on the tensor cores"),
};

static const lab_src h100_src[] = {
    COMMON_SOURCES,
    EST(context_ms, LEASE ": 139 ms in its timing run"),
    EST(cold_start_ms, LEASE ": a first batch of 81 ms, 78 of them loading cuBLAS"),
    S(mem_peak_gbps, DATASHEET, "klockwood-h100", "3.35 TB/s (max)"),
    S(compute_capability, DERIVED, "klockwood-h100", "Hopper GH100: 9.0"),
    S(sm_count, DATASHEET, "klockwood-h100", "132 SMs"),
    S(memory_bytes, DERIVED, "klockwood-h100", "80 GB HBM3; the size the driver reports is not in a source read"),
    S(pcie_gen, DATASHEET, "klockwood-h100", "128 GB/s PCIe Gen5 (x16)"),
    S(pcie_lanes, DATASHEET, "klockwood-h100", "128 GB/s PCIe Gen5 (x16)"),
    S(mem_bw_gbps, DERIVED, "chsasank-bench", "3.35 TB/s peak (klockwood-h100) x 0.8, the mean measured/peak copy "
                                              "share of T4, L4, V100, A100 and RTX 4090; no H100 SXM copy run read"),
    S(h2d_pinned_gbps, MEASURED, "nvbw-6", "nvbandwidth host to device 57.06 GB/s (H100 VM, device 1)"),
    S(d2h_pinned_gbps, DERIVED, "nvbw-6", "no D2H copy-engine run read; Gen4 runs show D2H close to H2D, so 57.06"),
    EST(h2d_pageable_gbps, LEASE ": 7.09 GB/s, 256 MiB; the host sets it"),
    EST(d2h_pageable_gbps, LEASE ": 14.4 GB/s, 256 MiB; the host sets it"),
    S(fp32_tflops, DATASHEET, "klockwood-h100", "FP32 66.9"),
    S(tf32_tflops, DATASHEET, "klockwood-h100", "TF32 494.7 dense"),
    S(fp16_tflops, DATASHEET, "klockwood-h100", "FP16 989.4 dense"),
    S(bf16_tflops, DATASHEET, "klockwood-h100", "BF16 989.4 dense"),
    S(gemm_efficiency, DERIVED, "zzc-79", "FP32 51.88 TFLOPS at N = 4096 of 66.9"),
    S(tc_efficiency, DERIVED, "zzc-79", "BF16 797.51 TFLOPS at N = 8192 of 989.4"),
    EST(tc_tile_m, "fitted to the H100's N = 1024 and 2048 points (zzc-79): 256 x 128 tiles"),
    EST(tc_tile_n, "fitted to the H100's N = 1024 and 2048 points (zzc-79): 256 x 128 tiles"),
    S(power_cap, DERIVED, "zzc-79", "1: no drop at large N in the published run"),
    S(bf16_fallback, DATASHEET, "klockwood-h100", "not used: BF16 runs on the tensor cores"),
};

static const lab_src rtx4090_src[] = {
    COMMON_SOURCES,
    CUDA_START_SOURCES,
    S(mem_peak_gbps, DATASHEET, "waredb-4090", "1008 GB/s"),
    S(compute_capability, DERIVED, "waredb-4090", "Ada AD102: 8.9"),
    S(sm_count, DATASHEET, "techgoing-4090", "128 of AD102's 144 SMs"),
    S(memory_bytes, MEASURED, "zzc-db", "RTX 4090 24GB row: 显存 23.6GB as PyTorch reports it"),
    S(pcie_gen, DERIVED, "nvbw-15", "measured 25.5/26.8 GB/s fit a PCIe Gen4 x16 link"),
    S(pcie_lanes, DERIVED, "nvbw-15", "measured 25.5/26.8 GB/s fit a PCIe Gen4 x16 link"),
    S(mem_bw_gbps, MEASURED, "chsasank-bench", "Nvidia 4090: 912 GB/s"),
    S(h2d_pinned_gbps, MEASURED, "nvbw-15", "host_to_device_memcpy_ce GPU 0: 25.50 GB/s"),
    S(d2h_pinned_gbps, MEASURED, "nvbw-15", "device_to_host_memcpy_ce GPU 0: 26.77 GB/s"),
    S(h2d_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(d2h_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(fp32_tflops, DATASHEET, "waredb-4090", "FP32 82.58"),
    S(tf32_tflops, DATASHEET, "waredb-4090", "TF32 82.58 dense (the same peak as FP32)"),
    S(fp16_tflops, DATASHEET, "waredb-4090", "FP16 165.15 dense"),
    S(bf16_tflops, DATASHEET, "waredb-4090", "BF16 165.15 dense"),
    S(gemm_efficiency, DERIVED, "zzc-78", "FP32 53.41 TFLOPS at N = 8192 of 82.58 (mli-3: 54.695)"),
    S(tc_efficiency, DERIVED, "zzc-78", "1: FP16 155.5-168.4 TFLOPS of 165.15 and TF32 85.65 of 82.58 (the card "
                                        "boosts above the spec clock; the model never exceeds the peak)"),
    EST(tc_tile_m, "fitted to the RTX 4090's N = 1024 points (zzc-78): 128 x 64 tiles"),
    EST(tc_tile_n, "fitted to the RTX 4090's N = 1024 points (zzc-78): 128 x 64 tiles"),
    S(power_cap, DERIVED, "zzc-78", "1: no drop at large N in the published run"),
    S(bf16_fallback, DATASHEET, "waredb-4090", "not used: BF16 runs on the tensor cores"),
};

/* Apple silicon under PyTorch's MPS backend: CPU and GPU share one memory,
 * so the host-link figures are absent (lab/sim/platform.h says which
 * experiments then do not apply) and a copy between a CPU and an MPS
 * tensor is a copy within that memory. */
static const lab_src m1_pro_src[] = {
    S(mem_peak_gbps, DATASHEET, "apple-m1pro-9to5", "200GB/s memory bandwidth (LPDDR5, shared with the CPU)"),
    S(compute_capability, ABSENT, NULL, "Apple GPUs have no CUDA compute capability (Metal GPU family Apple 7, "
                                        "philipturner-metal)"),
    S(sm_count, DATASHEET, "apple-m1pro-9to5", "up to 16-core GPU (a 14-core M1 Pro is sold too)"),
    S(memory_bytes, DATASHEET, "apple-m1pro-9to5", "16 GB, the M1 Pro pytorch-148219 ran on (Apple: up to 32GB of "
                                                   "unified memory); shared with the CPU, and PyTorch's MPS allocator "
                                                   "stops at 1.7 x Metal's recommended working set (18.13 GB on a 16 "
                                                   "GB Mac, mps-oom-158), paging above the physical memory"),
    EST(context_bytes, "what Metal and PyTorch's MPS backend hold before the first tensor; no published figure"),
    S(pcie_gen, ABSENT, NULL, "no host link: the CPU and the GPU share one memory"),
    S(pcie_lanes, ABSENT, NULL, "no host link: the CPU and the GPU share one memory"),
    S(mem_bw_gbps, MEASURED, "chsasank-bench", "Apple M1 Pro GPU 16-core: 176 GB/s"),
    S(h2d_pinned_gbps, DERIVED, "chsasank-bench", UNIFIED_COPY),
    S(d2h_pinned_gbps, DERIVED, "chsasank-bench", UNIFIED_COPY),
    S(h2d_pageable_gbps, DERIVED, "chsasank-bench", UNIFIED_COPY),
    S(d2h_pageable_gbps, DERIVED, "chsasank-bench", UNIFIED_COPY),
    EST(copy_latency_us, "fixed cost of one copy between a CPU and an MPS tensor (a blit on a command buffer, waited "
                         "for); no published figure"),
    S(launch_us, MEASURED, "pytorch-148219", "host dispatch of an op written as a Metal shader: exp 1.4, tanh 1.2, "
                                             "erfinv 1.3 us (PyTorch's own cost included)"),
    S(torch_op_us, DERIVED, "pytorch-148219", "host dispatch of an op that goes through MPSGraph, 19.2 to 20.7 us "
                                              "(sqrt, log, sin, cos), less launch_us: 18.7"),
    EST(kernel_min_us, "shortest time a kernel occupies the GPU; pytorch-148219's 1-element Metal ops take 4.6 to 7.6 "
                       "us with their synchronize and dispatch"),
    S(graph_node_us, ABSENT, NULL, "PyTorch has no graph capture on MPS (pytorch-180397 asks for one)"),
    EST(blas_us, "0: a matmul on MPS goes through MPSGraph, whose host cost is in torch_op_us"),
    S(sync_us, DERIVED, "pytorch-148219", "time with synchronize less dispatch for the Metal ops: exp 6.2, tanh 3.4, "
                                          "erfinv 3.7 us, median 3.7 (a 1-element kernel included)"),
    S(pin_gbps, ABSENT, NULL, "no host link: pinned memory is the same memory as pageable"),
    S(malloc_us, DERIVED, "uva-malloc", "about 50 us per cudaMalloc from 4 KB to 512 KB (uva-malloc, on an NVIDIA "
                                        "GPU): no figure for a new Metal buffer was found"),
    EST(malloc_us_per_mib, "what each MiB adds to a new Metal buffer; no published figure"),
    EST(free_us_per_mib, "what each MiB adds to releasing a Metal buffer; no published figure"),
    EST(cache_pair_us,
        "host bookkeeping of one allocate + free served from the MPS allocator's cache; " CACHE_PAIR_SEEN),
    EST(context_ms, "absent: MPS has no CUDA context; setting up the Metal device is part of the first op "
                    "(cold_start_ms)"),
    EST(cold_start_ms, "first MPS op in a process: Metal device and MPSGraph set-up; no published figure"),
    S(driver_cuda_version, ABSENT, NULL, "no CUDA on a Mac: the device check does not apply"),
    S(driver_version, ABSENT, NULL, "no NVIDIA driver on a Mac: the device check does not apply"),
    S(fp32_tflops, DERIVED, "philipturner-metal", "row M1P: 16 cores x 128 ALUs x 2 x 1.296 GHz = 5308 GFLOPS (Apple "
                                                  "publishes no FLOPS figure)"),
    S(tf32_tflops, DERIVED, "zzc-191", "no TF32 on Apple GPUs: the TF32 run (4.31 TFLOPS at 4096) is the FP32 run "
                                       "(4.28)"),
    S(fp16_tflops, DERIVED, "philipturner-metal", "row M1P: GOPS16 5308, the FP32 rate (no tensor cores)"),
    S(bf16_tflops, DERIVED, "zzc-191", "no BF16 units on the M1 family: BF16 ran at about half FP32's speed (2.30 "
                                       "against 4.28 TFLOPS); MPS takes BF16 from macOS 14"),
    S(gemm_efficiency, DERIVED, "zzc-191", "FP32 4.28 TFLOPS at N = 4096 of 5.308"),
    S(tc_efficiency, DERIVED, "zzc-191", "FP16 4.75 TFLOPS at N = 4096 of 5.308, on the same cores as FP32"),
    EST(tc_tile_m, "matmul tile of MPS: not published (no tensor cores); 64 x 64"),
    EST(tc_tile_n, "matmul tile of MPS: not published (no tensor cores); 64 x 64"),
    EST(power_cap, "1: a laptop's sustained clock is inside the measured efficiencies"),
    S(bf16_fallback, DERIVED, "zzc-191", "BF16 best 2.30 against FP32 best 4.28 TFLOPS: 0.54x"),
};

/* AMD's RDNA 3 under ROCm: PyTorch reaches it through torch.cuda (HIP), so
 * everything but NVIDIA's own device check applies. */
static const lab_src rx7900xtx_src[] = {
    S(mem_peak_gbps, DATASHEET, "guru3d-7900", "24 GB GDDR6, 384-bit, 20 Gbps: 960 GB/s"),
    S(compute_capability, MEASURED, "torch-props-7900", "major=11, minor=0 as PyTorch reports it: the gfx target "
                                                         "gfx1100, not a CUDA compute capability"),
    S(sm_count, DATASHEET, "guru3d-7900", "96 compute units (PyTorch reports 48 work-group processors, "
                                          "torch-props-7900)"),
    S(memory_bytes, MEASURED, "torch-props-7900", "total_memory=24560MB (MiB) as PyTorch reports it"),
    EST(context_bytes, "what a HIP context with rocBLAS loaded holds; no published figure"),
    S(pcie_gen, DATASHEET, "cputronic-7900", "PCIe 4.0 x16"),
    S(pcie_lanes, DATASHEET, "cputronic-7900", "PCIe 4.0 x16"),
    S(mem_bw_gbps, MEASURED, "chsasank-bench", "AMD 7900 XTX: 792 GB/s"),
    S(h2d_pinned_gbps, MEASURED, "rbt-2253", "rocm-bandwidth-test CPU to GPU 28.411 GB/s (EPYC 7542 host)"),
    S(d2h_pinned_gbps, MEASURED, "rbt-2253", "rocm-bandwidth-test GPU to CPU 29.013 GB/s (EPYC 7542 host)"),
    S(h2d_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    S(d2h_pageable_gbps, DERIVED, "gengwg-bw", PAGEABLE_FROM_A100),
    EST(copy_latency_us, "fixed cost of one hipMemcpy; no published figure for this card"),
    EST(launch_us, "host cost of one hipLaunchKernel: the nearest published is an MI250's median 6.3 us under ROCm "
                   "6.2 (the HolisticTraceAnalysis trace in tests/doctor/real), not this card"),
    S(torch_op_us, DERIVED, "flaggems-4558", "PyTorch's per-op host cost as on the CUDA profiles (7.1 us per eager "
                                             "torch.add on an A100 less its 3.0 us launch): it is host-side"),
    EST(kernel_min_us, "shortest time a kernel occupies the GPU when launched one by one"),
    EST(graph_node_us, "GPU cost of one node of a replayed hipGraph: ~0.58 us per node measured on an NVIDIA laptop "
                       "GPU (ocannl-488), not on this card"),
    EST(sync_us, "cost of one hipStreamSynchronize once the GPU is idle"),
    EST(blas_us, "what rocBLAS/hipBLASLt adds on the host to a matmul call: 0, not modelled; gpulab calibrate fits it"),
    EST(pin_gbps, "page-locking (hipHostRegister) rate; depends on the host's memory and kernel"),
    S(malloc_us, DERIVED, "uva-malloc", "about 50 us per cudaMalloc from 4 KB to 512 KB (uva-malloc), measured on an "
                                        "NVIDIA GPU; used for hipMalloc too"),
    EST(malloc_us_per_mib, "what each MiB above 512 KiB adds to hipMalloc (page mapping)"),
    EST(free_us_per_mib, "what each MiB adds to hipFree (unmapping), on top of its synchronize"),
    EST(cache_pair_us, "host bookkeeping of one allocate + free from a caching allocator; " CACHE_PAIR_SEEN),
    EST(context_ms, "starting ROCm, the first HIP call of a process creating the context: the CUDA profiles' "
                    "estimate (openqmc-109); no published HIP figure apart from hip-1304's whole first kernel"),
    EST(cold_start_ms, "the first batch once the context exists: a Radeon VII's first kernel took 340.6 ms, context "
                       "included, under HIP 1.5 (hip-1304); nothing on RDNA 3"),
    S(driver_cuda_version, ABSENT, NULL, "ROCm, not CUDA: the device check (NVIDIA's views) does not apply"),
    S(driver_version, ABSENT, NULL, "the amdgpu driver, not NVIDIA's: the device check does not apply"),
    S(fp32_tflops, DATASHEET, "guru3d-7900", "FP32 61.4 TFLOPS (RDNA 3's dual issue counted; plain FMA code reaches "
                                             "half)"),
    S(tf32_tflops, DERIVED, "zzc-68", "no TF32 on RDNA 3: the TF32 run (25.57 TFLOPS) is the FP32 run (25.67)"),
    S(fp16_tflops, DATASHEET, "toms-7900-copy", "TFLOPS FP16 (FP8) 123"),
    S(bf16_tflops, DERIVED, "toms-7900-copy", "123: RDNA 3's matrix instructions (WMMA) run BF16 at the FP16 rate"),
    S(gemm_efficiency, DERIVED, "zzc-db-7900", "FP32 24.78 TFLOPS of 61.4 (the Orion-zhen row, ROCm 6.4)"),
    S(tc_efficiency, DERIVED, "zzc-db-7900", "FP16 90.73 TFLOPS of 123 (the Orion-zhen row, ROCm 6.4)"),
    EST(tc_tile_m, "matrix-core gemm tile of rocBLAS/hipBLASLt on RDNA 3: not published; 128 x 64"),
    EST(tc_tile_n, "matrix-core gemm tile of rocBLAS/hipBLASLt on RDNA 3: not published; 128 x 64"),
    EST(power_cap, "1: the 355 W board power is inside the measured efficiencies"),
    S(bf16_fallback, DATASHEET, "toms-7900-copy", "not used: BF16 runs on the matrix units"),
};

#define SRC(a) .src = a, .n_src = (int)(sizeof a / sizeof a[0])
/* Figures every profile shares (their sources are in COMMON_SOURCES). */
#define COMMON_FIGURES_BUT_CONTEXT                                                                            \
  .torch_op_us = 4.0, .graph_node_us = 0.58, .malloc_us = 50, .malloc_us_per_mib = 0.2, \
  .cache_pair_us = 0.3, .driver_cuda_version = 13000, .driver_version = "580.65"
#define COMMON_FIGURES COMMON_FIGURES_BUT_CONTEXT, .context_ms = 130
#define PAGEABLE(h2d, d2h) .h2d_pageable_gbps = (h2d) * 10.0 / 25.7, .d2h_pageable_gbps = (d2h) * 10.8 / 25.8

const lab_profile lab_builtin_profiles[] = {
    {.name = "t4", .label = "NVIDIA T4 (16 GB GDDR6, PCIe Gen3)", .device_name = "Tesla T4",
     .source = "T4 datasheet peaks; bandwidthTest and PyTorch matmul runs (see sources)", .cc_major = 7,
     .cc_minor = 5, .sm_count = 40, .memory_bytes = 15843721216ull, .context_bytes = (uint64_t)(0.30 * GIB),
     .pcie_gen = 3, .pcie_lanes = 16, .mem_peak_gbps = 320, .mem_bw_gbps = 239.6, .h2d_pinned_gbps = 9.7, .d2h_pinned_gbps = 11.1,
     PAGEABLE(9.7, 11.1), .copy_latency_us = 9, .launch_us = 4.5, .kernel_min_us = 3, .sync_us = 12,
     .fp32_tflops = 8.1, .tf32_tflops = 0, .fp16_tflops = 65, .bf16_tflops = 0, .gemm_efficiency = 0.54,
     .tc_efficiency = 0.66, .tc_tile_m = 128, .tc_tile_n = 64, .power_cap = 1, .bf16_fallback = 0.5,
     .pin_gbps = 1.5, .cold_start_ms = 350, .free_us_per_mib = 0.15, COMMON_FIGURES, SRC(t4_src)},
    {.name = "l4", .label = "NVIDIA L4 (24 GB GDDR6, PCIe Gen4, 72 W)", .device_name = "NVIDIA L4",
     .source = "L4 spec peaks; PyTorch matmul and copy runs (see sources)", .cc_major = 8, .cc_minor = 9,
     .sm_count = 58, .memory_bytes = (uint64_t)(22.35 * GIB), .context_bytes = (uint64_t)(0.30 * GIB),
     .pcie_gen = 4, .pcie_lanes = 16, .mem_peak_gbps = 300.1, .mem_bw_gbps = 235, .h2d_pinned_gbps = 25.6, .d2h_pinned_gbps = 26.3,
     PAGEABLE(25.6, 26.3), .copy_latency_us = 7, .launch_us = 3.0, .kernel_min_us = 2, .sync_us = 8,
     .fp32_tflops = 30.29, .tf32_tflops = 60, .fp16_tflops = 121, .bf16_tflops = 121, .gemm_efficiency = 0.65,
     .tc_efficiency = 0.97, .tc_tile_m = 128, .tc_tile_n = 64, .power_cap = 0.48, .bf16_fallback = 0,
     .pin_gbps = 2.0, .cold_start_ms = 300, .free_us_per_mib = 0.15, COMMON_FIGURES, SRC(l4_src)},
    {.name = "a10g", .label = "NVIDIA A10G (24 GB GDDR6, PCIe Gen4, AWS)", .device_name = "NVIDIA A10G",
     .source = "A10 datasheet peaks; PyTorch matmul and copy runs (see sources)", .cc_major = 8, .cc_minor = 6,
     .sm_count = 72, .memory_bytes = (uint64_t)(22.35 * GIB), .context_bytes = (uint64_t)(0.30 * GIB),
     .pcie_gen = 4, .pcie_lanes = 16, .mem_peak_gbps = 600, .mem_bw_gbps = 469, .h2d_pinned_gbps = 25.6, .d2h_pinned_gbps = 26.3,
     PAGEABLE(25.6, 26.3), .copy_latency_us = 7, .launch_us = 3.0, .kernel_min_us = 2.5, .sync_us = 8,
     .fp32_tflops = 31.2, .tf32_tflops = 62.5, .fp16_tflops = 125, .bf16_tflops = 125, .gemm_efficiency = 0.75,
     .tc_efficiency = 0.57, .tc_tile_m = 128, .tc_tile_n = 64, .power_cap = 1, .bf16_fallback = 0,
     .pin_gbps = 2.0, .cold_start_ms = 300, .free_us_per_mib = 0.15, COMMON_FIGURES, SRC(a10g_src)},
    {.name = "v100-sxm", .label = "NVIDIA V100 SXM2 (16 GB HBM2, PCIe Gen3)", .device_name = "Tesla V100-SXM2-16GB",
     .source = "V100 datasheet peaks; bandwidthTest and PyTorch matmul runs (see sources)", .cc_major = 7,
     .cc_minor = 0, .sm_count = 80, .memory_bytes = (uint64_t)(15.78 * GIB), .context_bytes = (uint64_t)(0.30 * GIB),
     .pcie_gen = 3, .pcie_lanes = 16, .mem_peak_gbps = 900, .mem_bw_gbps = 739.8, .h2d_pinned_gbps = 9.6, .d2h_pinned_gbps = 11.4,
     PAGEABLE(9.6, 11.4), .copy_latency_us = 8, .launch_us = 4.0, .kernel_min_us = 2.5, .sync_us = 10,
     .fp32_tflops = 15.7, .tf32_tflops = 0, .fp16_tflops = 125, .bf16_tflops = 0, .gemm_efficiency = 0.93,
     .tc_efficiency = 0.80, .tc_tile_m = 128, .tc_tile_n = 128, .power_cap = 1, .bf16_fallback = 0.74,
     .pin_gbps = 1.5, .cold_start_ms = 350, .free_us_per_mib = 0.15, COMMON_FIGURES, SRC(v100_src)},
    {.name = "a100-sxm", .label = "NVIDIA A100 SXM (80 GB HBM2e, PCIe Gen4)", .device_name = "NVIDIA A100-SXM4-80GB",
     .source = "A100 datasheet peaks; bandwidthTest and PyTorch matmul runs (see sources)", .cc_major = 8,
     .cc_minor = 0, .sm_count = 108, .memory_bytes = (uint64_t)(79.2 * GIB), .context_bytes = (uint64_t)(0.40 * GIB),
     .pcie_gen = 4, .pcie_lanes = 16, .mem_peak_gbps = 2039, .mem_bw_gbps = 1490, .h2d_pinned_gbps = 25.7, .d2h_pinned_gbps = 25.8,
     .h2d_pageable_gbps = 10.0, .d2h_pageable_gbps = 10.8, .copy_latency_us = 7, .launch_us = 3.0,
     .kernel_min_us = 2.5, .sync_us = 8, .fp32_tflops = 19.5, .tf32_tflops = 156, .fp16_tflops = 312,
     .bf16_tflops = 312, .gemm_efficiency = 0.98, .tc_efficiency = 0.86, .tc_tile_m = 128, .tc_tile_n = 128,
     .power_cap = 1, .bf16_fallback = 0, .pin_gbps = 2.0, .cold_start_ms = 300, .free_us_per_mib = 0.15,
     COMMON_FIGURES, SRC(a100_src)},
    {.name = "h100-sxm", .label = "NVIDIA H100 SXM (80 GB HBM3, PCIe Gen5)", .device_name = "NVIDIA H100 80GB HBM3",
     .source = "H100 datasheet peaks; nvbandwidth and PyTorch matmul runs (see sources)", .cc_major = 9,
     .cc_minor = 0, .sm_count = 132, .memory_bytes = (uint64_t)(79.1 * GIB), .context_bytes = (uint64_t)(0.50 * GIB),
     .pcie_gen = 5, .pcie_lanes = 16, .mem_peak_gbps = 3350, .mem_bw_gbps = 2680, .h2d_pinned_gbps = 57.06, .d2h_pinned_gbps = 57.06,
     /* Pageable copies and the per-copy latency as gpulab measured them on an H100 80GB HBM3 (the lease of
        2026-11-28, web/recorded/transfer.json): 7.09 / 14.4 GB/s at 256 MiB, 2.47 us per small copy (a 4 KB
        copy took 2.68 us); the PAGEABLE(57.06) guess gave 22.6 / 23.5 GB/s and 6 us. */
     .h2d_pageable_gbps = 7.09, .d2h_pageable_gbps = 14.4, .copy_latency_us = 2.5, .launch_us = 2.6,
     .kernel_min_us = 2, .sync_us = 6,
     .fp32_tflops = 66.9, .tf32_tflops = 494.7, .fp16_tflops = 989.4, .bf16_tflops = 989.4,
     .gemm_efficiency = 0.79, .tc_efficiency = 0.84, .tc_tile_m = 256, .tc_tile_n = 128, .power_cap = 1,
     .bf16_fallback = 0, .pin_gbps = 2.0, .cold_start_ms = 80,
     /* cudaFree of 16 MiB took 55.2 us in gpulab's allocator run and 56.4 us under PyTorch on an H100 80GB HBM3
        (the lease of 2026-11-28, web/recorded/allocator.json): less the synchronize and the launch, 2.9 us a MiB
        (0.15 gave 10.9 us); one block size, so how it splits into fixed and per-MiB is not known. */
     .free_us_per_mib = 2.9, COMMON_FIGURES_BUT_CONTEXT, .context_ms = 139, SRC(h100_src)},
    {.name = "rtx-4090", .label = "NVIDIA GeForce RTX 4090 (24 GB GDDR6X, PCIe Gen4)",
     .device_name = "NVIDIA GeForce RTX 4090",
     .source = "Ada spec peaks; nvbandwidth and PyTorch matmul runs (see sources)", .cc_major = 8, .cc_minor = 9,
     .sm_count = 128, .memory_bytes = (uint64_t)(23.6 * GIB), .context_bytes = (uint64_t)(0.30 * GIB),
     .pcie_gen = 4, .pcie_lanes = 16, .mem_peak_gbps = 1008, .mem_bw_gbps = 912, .h2d_pinned_gbps = 25.50, .d2h_pinned_gbps = 26.77,
     PAGEABLE(25.50, 26.77), .copy_latency_us = 6, .launch_us = 2.5, .kernel_min_us = 2, .sync_us = 6,
     .fp32_tflops = 82.58, .tf32_tflops = 82.58, .fp16_tflops = 165.15, .bf16_tflops = 165.15,
     .gemm_efficiency = 0.65, .tc_efficiency = 1.0, .tc_tile_m = 128, .tc_tile_n = 64, .power_cap = 1,
     .bf16_fallback = 0, .pin_gbps = 2.5, .cold_start_ms = 250, .free_us_per_mib = 0.15, COMMON_FIGURES,
     SRC(rtx4090_src)},
    {.name = "m1-pro", .label = "Apple M1 Pro (16-core GPU, 16 GB unified memory)", .device_name = "Apple M1 Pro",
     .source = "Apple's specs and a clock-derived peak; PyTorch MPS matmul, copy and dispatch runs (see sources)",
     .platform = LAB_PLATFORM_MPS, .sm_count = 16, .memory_bytes = 16ull << 30,
     .context_bytes = (uint64_t)(0.30 * GIB), .mem_peak_gbps = 200, .mem_bw_gbps = 176, .h2d_pinned_gbps = 88,
     .d2h_pinned_gbps = 88, .h2d_pageable_gbps = 88, .d2h_pageable_gbps = 88, .copy_latency_us = 10,
     .launch_us = 1.3, .torch_op_us = 18.7, .kernel_min_us = 3, .sync_us = 3.7, .fp32_tflops = 5.308,
     .tf32_tflops = 0, .fp16_tflops = 5.308, .bf16_tflops = 0, .gemm_efficiency = 0.81, .tc_efficiency = 0.89,
     .tc_tile_m = 64, .tc_tile_n = 64, .power_cap = 1, .bf16_fallback = 0.54, .malloc_us = 50,
     .malloc_us_per_mib = 0.2, .free_us_per_mib = 0.15, .cache_pair_us = 0.3, .cold_start_ms = 300,
     SRC(m1_pro_src)},
    {.name = "rx-7900-xtx", .label = "AMD Radeon RX 7900 XTX (24 GB GDDR6, PCIe Gen4)",
     .device_name = "Radeon RX 7900 XTX",
     .source = "AMD spec peaks; rocm-bandwidth-test and PyTorch ROCm matmul and copy runs (see sources)",
     .platform = LAB_PLATFORM_ROCM, .cc_major = 11, .cc_minor = 0, .sm_count = 96, .memory_bytes = 24560ull << 20,
     .context_bytes = (uint64_t)(0.30 * GIB), .pcie_gen = 4, .pcie_lanes = 16, .mem_peak_gbps = 960,
     .mem_bw_gbps = 792, .h2d_pinned_gbps = 28.411, .d2h_pinned_gbps = 29.013, PAGEABLE(28.411, 29.013),
     .copy_latency_us = 8, .launch_us = 6.3, .torch_op_us = 4.0, .kernel_min_us = 2.5, .graph_node_us = 0.58,
     .sync_us = 10, .fp32_tflops = 61.4, .tf32_tflops = 0, .fp16_tflops = 123, .bf16_tflops = 123,
     .gemm_efficiency = 0.40, .tc_efficiency = 0.74, .tc_tile_m = 128, .tc_tile_n = 64, .power_cap = 1,
     .bf16_fallback = 0, .pin_gbps = 2.0, .malloc_us = 50, .malloc_us_per_mib = 0.2, .free_us_per_mib = 0.15,
     .cache_pair_us = 0.3, .context_ms = 130, .cold_start_ms = 300, SRC(rx7900xtx_src)},
};

const int lab_builtin_profile_count = (int)(sizeof lab_builtin_profiles / sizeof lab_builtin_profiles[0]);
