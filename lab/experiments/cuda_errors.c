/* The classification table (see cuda_errors.h). Sticky errors, after the
 * CUDA runtime documentation: a kernel fault (illegal address or
 * instruction, misaligned access, a failed device assert, a hardware stack
 * error, an unspecified launch failure or a launch timeout) or an
 * uncorrectable ECC error leaves the context unusable, and every later call
 * of the process fails with the same error. */
#include "cuda_errors.h"

#include <string.h>

static const struct {
  const char *name;
  lab_err code;
} table[] = {
    {"cudaErrorMemoryAllocation", LAB_E_GPU_OOM},
    {"CUBLAS_STATUS_ALLOC_FAILED", LAB_E_GPU_OOM},
    {"cudaErrorNoDevice", LAB_E_NO_GPU},
    {"cudaErrorInsufficientDriver", LAB_E_NO_GPU},
    {"cudaErrorNoKernelImageForDevice", LAB_E_GPU_ARCH},
    {"cudaErrorUnsupportedPtxVersion", LAB_E_GPU_ARCH},
    {"CUBLAS_STATUS_ARCH_MISMATCH", LAB_E_GPU_ARCH},
    /* sticky: the context is gone */
    {"cudaErrorIllegalAddress", LAB_E_CUDA},
    {"cudaErrorLaunchFailure", LAB_E_CUDA},
    {"cudaErrorHardwareStackError", LAB_E_CUDA},
    {"cudaErrorIllegalInstruction", LAB_E_CUDA},
    {"cudaErrorMisalignedAddress", LAB_E_CUDA},
    {"cudaErrorInvalidAddressSpace", LAB_E_CUDA},
    {"cudaErrorInvalidPc", LAB_E_CUDA},
    {"cudaErrorAssert", LAB_E_CUDA},
    {"cudaErrorLaunchTimeout", LAB_E_CUDA},
    {"cudaErrorECCUncorrectable", LAB_E_CUDA},
    {"cudaErrorContextIsDestroyed", LAB_E_CUDA},
    {"cudaErrorIllegalState", LAB_E_CUDA},
    {"cudaErrorUnknown", LAB_E_CUDA},
    {"CUBLAS_STATUS_EXECUTION_FAILED", LAB_E_CUDA},
    {"CUBLAS_STATUS_INTERNAL_ERROR", LAB_E_CUDA},
    /* this call only */
    {"cudaErrorInvalidValue", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidConfiguration", LAB_E_CUDA_CALL},
    {"cudaErrorLaunchOutOfResources", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidDeviceFunction", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidDevice", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidResourceHandle", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidMemcpyDirection", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidDevicePointer", LAB_E_CUDA_CALL},
    {"cudaErrorInvalidPitchValue", LAB_E_CUDA_CALL},
    {"cudaErrorNotSupported", LAB_E_CUDA_CALL},
    {"cudaErrorNotReady", LAB_E_CUDA_CALL},
    {"cudaErrorHostMemoryAlreadyRegistered", LAB_E_CUDA_CALL},
    {"cudaErrorHostMemoryNotRegistered", LAB_E_CUDA_CALL},
    {"cudaErrorStreamCaptureInvalidated", LAB_E_CUDA_CALL},
    {"cudaErrorStreamCaptureUnsupported", LAB_E_CUDA_CALL},
    {"cudaErrorCudartUnloading", LAB_E_CUDA_CALL},
    {"CUBLAS_STATUS_NOT_INITIALIZED", LAB_E_CUDA_CALL},
    {"CUBLAS_STATUS_INVALID_VALUE", LAB_E_CUDA_CALL},
    {"CUBLAS_STATUS_NOT_SUPPORTED", LAB_E_CUDA_CALL},
    {"CUBLAS_STATUS_MAPPING_ERROR", LAB_E_CUDA_CALL},
};

lab_err lab_cuda_error_class(const char *name) {
  for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0) return table[i].code;
  return LAB_E_CUDA;
}
