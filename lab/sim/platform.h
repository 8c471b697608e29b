/* The software a GPU runs under PyTorch (CUDA, ROCm, Apple's MPS) and what
 * each lacks of what some experiments need (lab_need, device_profile.h):
 * an experiment whose needs a profile's platform lacks has no meaning on
 * it, and says so (lab_experiment_check_profile) rather than simulate a
 * link or a graph that is not there. */
#ifndef LAB_PLATFORM_H
#define LAB_PLATFORM_H

#include "device_profile.h"

/* The lab_need bits a platform cannot give. */
unsigned lab_platform_lacks(lab_platform p);
/* "cuda", "rocm", "mps": the word profiles' JSON carries. */
const char *lab_platform_name(lab_platform p);
/* The platform named so, or -1. */
int lab_platform_from_name(const char *name);
/* What an experiment that needs `need` (one bit) does, as "it …" goes on:
 * "times copies over the link between host memory and the GPU's own". */
const char *lab_need_what(lab_need need);
/* Why a GPU of platform p has no `need` (one bit it lacks), one clause;
 * NULL when it has it. */
const char *lab_platform_why_not(lab_platform p, lab_need need);

#endif
