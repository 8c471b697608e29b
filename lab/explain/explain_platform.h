/* What a whole paste shows of the learner's machine, read once per paste
 * (explain_platform.c): whether it is a Mac, an AMD card under ROCm or an
 * NVIDIA GPU, the free service it runs on, the AMD gfx target and the CUDA
 * of a PyTorch wheel it names. The advice follows it: never nvidia-smi or
 * a CUDA wheel on a Mac, rocm-smi where NVIDIA's answer says nvidia-smi. */
#ifndef LAB_EXPLAIN_PLATFORM_H
#define LAB_EXPLAIN_PLATFORM_H

#include <stddef.h>

/* A machine: what a message or a paste shows (0: nothing shows it). */
enum { LAB_EX_NO_PLATFORM, LAB_EX_CUDA, LAB_EX_ROCM, LAB_EX_MAC };

typedef struct lab_ex_paste {
  int platform;       /* by what the paste names anywhere: a Mac over AMD over NVIDIA (those words are the commonest) */
  int nvidia_gpu;     /* the paste names an NVIDIA GPU ("NVIDIA", "GeForce", "RTX ", "Tesla "…) */
  int amd_gpu;        /* the paste names an AMD GPU ("Radeon", "Instinct", "MI250", a gfx target) */
  int from_numpy;     /* the paste shows torch.from_numpy (NumPy's float64 arrays) */
  int fallback_set;   /* the paste shows PYTORCH_ENABLE_MPS_FALLBACK set to 1 (not the MPS message's own hint) */
  const char *host;   /* "colab", "kaggle", or NULL */
  char gfx[32];       /* the first AMD gfx target as printed ("gfx1010:xnack-"); "" none */
  char wheel_cuda[8]; /* "12.1" from the first "+cu121" wheel tag; "" none */
} lab_ex_paste;

/* Reads t[0..n) once (every byte looked at is counted: lab_ex_examined). */
void lab_ex_paste_read(const char *t, size_t n, lab_ex_paste *p);

/* "cuda", "rocm", "mac"; NULL for LAB_EX_NO_PLATFORM. */
const char *lab_ex_platform_name(int platform);
/* The platform a "platform" fact names, LAB_EX_NO_PLATFORM for none. */
int lab_ex_platform_of(const char *name);

#endif
