/* The driver half of the device check: what NVML (libnvidia-ml.so.1,
 * loaded at run time: there is no nvml.h here) or, failing that,
 * nvidia-smi reports. Neither creates a CUDA context. */
#ifndef SRV_DRIVER_PROBE_H
#define SRV_DRIVER_PROBE_H

#include "device.h"

/* Tries NVML, then nvidia-smi. GPULAB_NVML_LIB and GPULAB_NVIDIA_SMI
 * override the library and the command (tests point them at fakes). */
void srv_driver_probe(lab_driver_view *out);

/* Parses `nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version,pci.bus_id
 * --format=csv,noheader,nounits` (MiB) into the view; returns devices parsed. */
int srv_parse_smi_csv(const char *csv, lab_driver_view *out);
/* Reads "CUDA Version: 12.4" from nvidia-smi's banner; 0 if absent. */
int srv_parse_smi_cuda_version(const char *banner);

#endif
