/* Which CUDA an NVIDIA driver runs, from NVIDIA's CUDA Toolkit release
 * notes: collect_env's driver against its build's CUDA (explain_env.c),
 * nvidia-smi's driver where its header prints no "CUDA Version" (before
 * driver 410, explain_smi.c). */
#include "explain_driver.h"

#include <stdio.h>
#include <stdlib.h>

/* "550.54.15" as one comparable number (550054015); 0 when not a version. */
static long version3(const char *v) {
  long part[3] = {0, 0, 0};
  const char *p = v;
  for (int i = 0; i < 3 && *p >= '0' && *p <= '9'; i++) {
    char *end = NULL;
    part[i] = strtol(p, &end, 10) % 1000;
    p = end && *end == '.' ? end + 1 : "";
  }
  return part[0] * 1000000 + part[1] * 1000 + part[2];
}

/* The oldest Linux driver of each CUDA version (NVIDIA's CUDA Toolkit
 * release notes, "CUDA Toolkit and Corresponding Driver Versions"); a
 * driver runs PTX of its own CUDA version and older only. The kit's
 * DRIVER_FOR_CUDA is the same table. */
static const struct {
  int major, minor;
  long driver;
} toolkit_drivers[] = {{10, 0, 410048000}, {10, 1, 418039000}, {10, 2, 440033000}, {11, 0, 450051005},
                       {11, 1, 455023000}, {11, 2, 460027003}, {11, 3, 465019001}, {11, 4, 470042001},
                       {11, 5, 495029005}, {11, 6, 510039001}, {11, 7, 515043004}, {11, 8, 520061005},
                       {12, 0, 525060013}, {12, 1, 530030002}, {12, 2, 535054003}, {12, 3, 545023006},
                       {12, 4, 550054014}, {12, 5, 555042002}, {12, 6, 560028003}, {12, 8, 570026000},
                       {12, 9, 575051003}, {13, 0, 580065006}};

/* The newest CUDA version a driver runs ("12.4" into out); 0 when unknown. */
int lab_ex_driver_cuda(const char *driver, char *out, size_t cap) {
  long d = version3(driver);
  int found = -1;
  for (size_t i = 0; d > 0 && i < sizeof toolkit_drivers / sizeof toolkit_drivers[0]; i++)
    if (d >= toolkit_drivers[i].driver) found = (int)i;
  if (found < 0) return 0;
  snprintf(out, cap, "%d.%d", toolkit_drivers[found].major, toolkit_drivers[found].minor);
  return 1;
}

