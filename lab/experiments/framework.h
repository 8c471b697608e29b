/* Which framework's launch costs a simulated time carries: PyTorch's (every
 * op also pays PyTorch's own host cost, the profile's torch_op_us, on top
 * of the raw launch) or raw CUDA's (cudaLaunchKernel and cuBLAS calls
 * only). Learners write PyTorch, so "pytorch" is the default; the GPU side
 * always measures raw CUDA, and its results say so. The parameter that
 * chooses it keeps its public name, `view` (and details.view). */
#ifndef LAB_FRAMEWORK_H
#define LAB_FRAMEWORK_H

#include <stdbool.h>

#include "params.h"
#include "profiles.h"

extern const char *const lab_framework_choices[]; /* "pytorch", "cuda", NULL */

/* The `view` parameter every experiment with launches shares. */
#define LAB_FRAMEWORK_PARAM(X)                                                                            \
  X(view, ENUM, 0, 1, 0, NULL,                                                                                \
    "Simulated launches as PyTorch sees them (each op also pays PyTorch's host overhead) or as raw CUDA "     \
    "calls; a GPU run always measures raw CUDA.",                                                             \
    lab_framework_choices)

/* The view parameter (an index into lab_framework_choices) asks for PyTorch's costs. */
bool lab_framework_pytorch(int view);
/* The profile with the framework's launch cost: with PyTorch's, a launch
 * costs the host launch_us + torch_op_us. */
void lab_framework_profile(const lab_profile *in, bool pytorch, lab_profile *out);
/* One sentence for a result's method: which framework's launch costs it carries. */
const char *lab_framework_sentence(bool simulated, bool pytorch);
/* States env's framework: details.view, a finding on what the other would
 * change (with the profile's figures when simulated) and, for a GPU run,
 * params.view "cuda" (it measured raw CUDA whatever was asked). prof: the
 * simulated profile, NULL for a GPU run. Returns true with PyTorch's costs. */
bool lab_framework_report(cJSON *env, int view, const lab_profile *prof);

#endif
