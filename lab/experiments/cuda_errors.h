/* What a CUDA or cuBLAS error means for the worker, decided by its name
 * (cudaGetErrorName, or the cuBLAS status name) so the rule is plain C and
 * unit-tested without a GPU. Only sticky errors poison the CUDA context and
 * need a fresh worker; the others fail one run and the worker goes on. */
#ifndef LAB_CUDA_ERRORS_H
#define LAB_CUDA_ERRORS_H

#include "error.h"

/* LAB_E_GPU_OOM (cleared, a result), LAB_E_NO_GPU (no device or driver),
 * LAB_E_GPU_ARCH (no kernel image for this GPU), LAB_E_CUDA (sticky: the
 * worker must be replaced) or LAB_E_CUDA_CALL (this call only). Unknown
 * names count as sticky: a fresh worker is the safe answer to the unknown. */
lab_err lab_cuda_error_class(const char *name);

#endif
