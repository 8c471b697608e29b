/* Which CUDA version an NVIDIA driver runs (explain_driver.c). */
#ifndef LAB_EXPLAIN_DRIVER_H
#define LAB_EXPLAIN_DRIVER_H

#include <stddef.h>

/* The newest CUDA version the driver ("550.54.15") runs, "12.4" into out;
 * 0 when the driver is not a version or older than the table (410.48, CUDA 10.0). */
int lab_ex_driver_cuda(const char *driver, char *out, size_t cap);

#endif
