/* What a device profile is: the figures the simulator models a GPU with and
 * the source of each (a public document, lab_ref). Types only, apart from
 * profiles.h's lookups, so that the built-in tables (profiles_data.c,
 * profiles_refs.c) are written against them without including the file
 * that reads the tables. */
#ifndef LAB_DEVICE_PROFILE_H
#define LAB_DEVICE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* Where a figure comes from. An estimate has no published source and is
 * named as such in every simulated result's method text. */
typedef enum lab_src_kind {
  LAB_SRC_DATASHEET, /* a vendor peak or spec (datasheet, whitepaper, spec page) */
  LAB_SRC_MEASURED,  /* a published measurement on this GPU */
  LAB_SRC_DERIVED,   /* worked out from published figures (the note says how) */
  LAB_SRC_ESTIMATE,  /* no published source supports it */
  LAB_SRC_ABSENT,    /* the device has no such thing (no host link on unified memory): the note says why */
  LAB_SRC_KINDS
} lab_src_kind;

/* The software a GPU runs under PyTorch: NVIDIA's CUDA (0, every profile
 * that names none), AMD's ROCm (HIP, reached through torch.cuda) or Apple's
 * Metal (torch.device("mps")). What each lacks is lab/sim/platform.h. */
typedef enum lab_platform { LAB_PLATFORM_CUDA, LAB_PLATFORM_ROCM, LAB_PLATFORM_MPS, LAB_PLATFORMS } lab_platform;

/* What an experiment needs of a device beyond a GPU (a bit set: the
 * experiment table's needs column, lab/face/experiments.h) and what a
 * platform lacks (lab_platform_lacks). */
typedef enum lab_need {
  LAB_NEED_HOST_LINK = 1 << 0, /* a link (PCIe) between host memory and the GPU's own: copies, pinned vs pageable */
  LAB_NEED_NVIDIA = 1 << 1,    /* NVIDIA's driver (nvidia-smi) and CUDA runtime: the device check's two views */
  LAB_NEED_GRAPHS = 1 << 2,    /* graph capture and replay in PyTorch (torch.cuda.CUDAGraph) */
  LAB_NEED_STREAMS = 1 << 3,   /* streams a program queues work on, to overlap copies and kernels */
  LAB_NEED_MATRIX_UNITS = 1 << 4, /* matrix units for low precisions (tensor cores, AMD's WMMA): what "fast
                                     FP16" means; no experiment needs it, the precision findings ask */
  LAB_NEED_MULTI_GPU = 1 << 5,    /* a machine of two or more GPUs linked to each other (NVLink or PCIe) and a
                                     library that reduces across them (NCCL, RCCL): data parallel training */
} lab_need;

/* A public document a figure was read from. */
typedef struct lab_ref {
  const char *id;   /* "zzc-79": short key the sources use */
  const char *url;  /* the page or file, pinned to a commit where it is a repository */
  const char *what; /* tool, settings, host: how its figures were taken */
} lab_ref;

/* The source of one figure of one profile. */
typedef struct lab_src {
  const char *field; /* "h2d_pinned_gbps" */
  lab_src_kind kind;
  const char *ref;   /* lab_ref id; NULL for an estimate */
  const char *note;  /* the figure as written there, or how it was derived, or why it is a guess */
} lab_src;

typedef struct lab_profile {
  char name[32];         /* "h100-sxm" */
  char label[64];        /* "NVIDIA H100 SXM (80 GB HBM3, PCIe Gen5)" */
  char device_name[96];  /* what cudaGetDeviceProperties would report */
  char source[160];      /* where the figures come from, in one line */
  lab_platform platform; /* CUDA unless named: what the device lacks follows from it */
  int cc_major, cc_minor; /* 0.0: none (Apple GPUs); an AMD GPU's gfx target as PyTorch reports it (gfx1100: 11.0) */
  int sm_count;
  uint64_t memory_bytes;          /* total device memory */
  uint64_t context_bytes;         /* memory a CUDA context takes */
  int pcie_gen, pcie_lanes;       /* the card's own host link (4, 16: PCIe Gen4 x16); 0, 0: none (unified memory) */
  double mem_bw_gbps;             /* device memory copy bandwidth (read+write counted), 1e9 B/s */
  double mem_peak_gbps;           /* the datasheet's memory bandwidth: no copy can exceed it */
  double h2d_pinned_gbps, d2h_pinned_gbps; /* measured on the card's own link (no link: a copy within the one memory) */
  double h2d_pageable_gbps, d2h_pageable_gbps;
  double copy_latency_us;         /* fixed cost of one cudaMemcpy */
  double launch_us;               /* host cost to enqueue one kernel (raw CUDA) */
  double torch_op_us;             /* what PyTorch adds on the host to each op's launch */
  double blas_us;                 /* what cuBLAS adds on the host to each matmul call's launch (0: nothing
                                     modelled; a real H100 measured 12.4 us per cublasSgemm, web/recorded) */
  double kernel_min_us;           /* shortest kernel execution */
  double graph_node_us;           /* GPU cost of one kernel node in a replayed CUDA graph */
  double sync_us;                 /* cost of one synchronize */
  /* Dense peaks (TFLOPS): fp32 on the SIMT cores; tf32/fp16/bf16 on the
   * tensor cores, 0 when the GPU has none for that type. */
  double fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops;
  double gemm_efficiency;         /* share of the fp32 peak a large sgemm reaches */
  double tc_efficiency;           /* share of a tensor peak a large tensor-core gemm reaches */
  int tc_tile_m, tc_tile_n;       /* output tile of a tensor-core gemm block (wave quantization) */
  double power_cap;               /* share of its peak clock a long run holds (1: no power limit) */
  double bf16_fallback;           /* speed of BF16 matmuls without BF16 tensor cores, × fp32's */
  double pin_gbps;                /* page-locking host memory, 1e9 B/s */
  double malloc_us;               /* cudaMalloc of a small block (up to 512 KiB) */
  double malloc_us_per_mib;       /* and what each further MiB adds */
  double free_us_per_mib;         /* cudaFree: per MiB unmapped, on top of a synchronize */
  double cache_pair_us;           /* a caching allocator's allocate + free from its cache */
  double context_ms;              /* starting CUDA: creating the context at the first CUDA call of a process
                                   * (HIP's on ROCm); 0 on MPS, which has none (Metal's set-up is in
                                   * cold_start_ms) */
  double cold_start_ms;           /* the first batch then: creating the cuBLAS handle, loading its kernels */
  int driver_cuda_version;        /* e.g. 13000 */
  char driver_version[24];
  /* Built-in profiles: the source of every figure above (lab_profile_src).
   * A calibrated profile keeps its base's and names the fields the fit
   * replaced (comma-separated) in calibrated_fields. */
  const lab_src *src;
  int n_src;
  char calibrated_fields[256];
} lab_profile;

/* X(field) for every double figure of a profile. POSITIVE ones must be > 0;
 * the OPTIONAL ones may be 0 (no tensor cores for that type, or not
 * applicable: pin_gbps and graph_node_us on a platform without a host
 * link or graphs, lab/sim/platform.h). Integer figures are listed in
 * LAB_PROFILE_INTS. */
#define LAB_PROFILE_POSITIVE(X)                                                                                  \
  X(mem_bw_gbps) X(mem_peak_gbps) X(h2d_pinned_gbps) X(d2h_pinned_gbps) X(h2d_pageable_gbps) X(d2h_pageable_gbps)               \
  X(copy_latency_us) X(launch_us) X(torch_op_us) X(kernel_min_us) X(sync_us) X(fp32_tflops)                  \
  X(gemm_efficiency) X(tc_efficiency) X(power_cap) X(malloc_us) X(malloc_us_per_mib)                            \
  X(free_us_per_mib) X(cache_pair_us) X(cold_start_ms)
#define LAB_PROFILE_OPTIONAL(X) \
  X(tf32_tflops) X(fp16_tflops) X(bf16_tflops) X(bf16_fallback) X(pin_gbps) X(graph_node_us) X(context_ms) X(blas_us)
#define LAB_PROFILE_INTS(X) \
  X(sm_count) X(memory_bytes) X(context_bytes) X(pcie_gen) X(pcie_lanes) X(tc_tile_m) X(tc_tile_n)

#endif
