/* Which view a simulated time is in: as PyTorch sees it (every op also
 * pays PyTorch's own host cost, the profile's torch_op_us, on top of the
 * raw launch) or as raw CUDA (cudaLaunchKernel and cuBLAS calls only).
 * Learners write PyTorch, so "pytorch" is the default; the GPU side always
 * measures raw CUDA, and its results say so. */
#ifndef LAB_VIEW_H
#define LAB_VIEW_H

#include <stdbool.h>

#include "params.h"
#include "profiles.h"

extern const char *const lab_view_choices[]; /* "pytorch", "cuda", NULL */

/* The `view` parameter every experiment with launches shares. */
#define LAB_VIEW_PARAM(X)                                                                                        \
  X(view, ENUM, 0, 1, 0, NULL,                                                                                    \
    "Simulated launches as PyTorch sees them (each op also pays PyTorch's host overhead) or as raw CUDA "         \
    "calls; a GPU run always measures raw CUDA.",                                                                 \
    lab_view_choices)

/* The view parameter (an index into lab_view_choices) asks for the PyTorch view. */
bool lab_view_pytorch(int view);
/* The profile as the view sees it: in the PyTorch view a launch costs the
 * host launch_us + torch_op_us. */
void lab_view_profile(const lab_profile *in, bool pytorch, lab_profile *out);
/* One sentence for a result's method: which view its launch costs are in. */
const char *lab_view_sentence(bool simulated, bool pytorch);
/* States env's view: details.view, a finding on what the other view would
 * change (with the profile's figures when simulated) and, for a GPU run,
 * params.view "cuda" (it measured raw CUDA whatever was asked). prof: the
 * simulated profile, NULL for a GPU run. Returns true in the PyTorch view. */
bool lab_view_report(cJSON *env, int view, const lab_profile *prof);

#endif
