/* One training step on a machine of several GPUs, simulated only (no
 * server's live run has several): the error of a step whose tensors sit on
 * two GPUs and its fix, which physical GPU each cuda:N is under
 * CUDA_VISIBLE_DEVICES, and DataParallel against DistributedDataParallel
 * per GPU count: step time and GPU 0's memory. */
#ifndef LAB_MULTI_GPU_H
#define LAB_MULTI_GPU_H

#include "descriptor.h"
#include "params.h"
#include "profiles.h"

extern const lab_experiment lab_exp_multi_gpu;

/* Its parameters (the choices' lists are multi_gpu.c's), X(name, kind, min, max, default, unit, help, choices): lab/face/params.h
 * generates the spec table and the typed struct lab_params_multi_gpu from this list. */
#define LAB_PARAMS_multi_gpu(X) \
  X(gpus, INT, 2, 8, 4, "GPUs", \
    "GPUs in the machine; the step is drawn on 1 to this many.", NULL) \
  X(link, ENUM, 0, 1, 0, NULL, \
    "What joins the GPUs: PCIe through the host, or NVLink where the board has it.", \
    link_choices) \
  X(params_m, NUM, 1, 2000, 25, "million", \
    "Parameters of the model, in millions (ResNet-50 has about 25): the gradients DDP all-reduces.", NULL) \
  X(fwd_gflop, NUM, 0.01, 1000, 8, "GFLOP", \
    "Forward compute of one sample (ResNet-50 on a 224×224 image: about 8); backward takes twice that.", NULL) \
  X(batch, INT, 8, 4096, 256, "samples", \
    "Samples of one step, split across the GPUs.", NULL) \
  X(act_mib, NUM, 0.5, 1024, 24, "MiB", \
    "Activation memory one sample keeps for the backward pass.", NULL) \
  X(batch_on, ENUM, 0, 1, 1, NULL, \
    "Where the batch is put while the model is on cuda:0.", \
    batch_on_choices) \
  X(visible, ENUM, 0, 4, 3, NULL, \
    "CUDA_VISIBLE_DEVICES: which of the machine's GPUs the process sees, in its order.", \
    visible_choices)

LAB_PARAMS_STRUCT(multi_gpu)

#endif
